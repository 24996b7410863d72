#!/usr/bin/python3
"""Hostile external data (issue 19): an initializer's `external_data` is
untrusted, at compile time and in the runtime's weights path.

  * a `location` that is absolute, has a `..` component, or is a symbolic
    link leading out of the model's directory is rejected with one `error:`
    line naming the initializer (it used to embed /etc/passwd);
  * a file shorter than the tensor is an error (it was zero-padded);
  * a non-numeric offset or length is a clean error (was `stoull`);
  * a weights file truncated or rewritten after the session was created
    changes nothing (the session reads it once; a mapped file raised
    SIGBUS).

Both the embedding path (`onyx-compile model.onnx`) and `--external-weights`
are checked. Run with /usr/bin/python3 (onnx + numpy).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onyx_e2e as E  # noqa: E402

W = np.arange(12, dtype=np.float32).reshape(3, 4) / 8


def external_model(directory, location, offset=None, length=None, name="model.onnx"):
    """y = x @ W with W : f32[3, 4] stored as external data at `location`
    (the entries exactly as given, not checked by onnx)."""
    t = numpy_helper.from_array(W, "W")
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", offset), ("length", length)):
        if value is not None:
            e = t.external_data.add()
            e.key, e.value = key, str(value)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["y"], name="mm")], "ext",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4])], [t])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    path = os.path.join(directory, name)
    with open(path, "wb") as f:
        f.write(m.SerializeToString())
    return path


class ExternalDataTest(unittest.TestCase):
    def setUp(self):
        E.require_tools(E.ONYX_COMPILE, E.ONYX_RUN)
        self.tmp = tempfile.mkdtemp(prefix="onyx-extdata-")
        self.model_dir = os.path.join(self.tmp, "model")
        os.makedirs(self.model_dir)
        # A "secret" beside the model directory, shaped like the weights.
        self.secret = os.path.join(self.tmp, "secret.bin")
        with open(self.secret, "wb") as f:
            f.write((W + 100).tobytes())
        with open(os.path.join(self.model_dir, "w.bin"), "wb") as f:
            f.write(W.tobytes())

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def compile(self, model, extra=()):
        so = os.path.join(self.tmp, "out", "model.so")
        os.makedirs(os.path.dirname(so), exist_ok=True)
        return E.run([E.ONYX_COMPILE, model, "-o", so] + list(extra), timeout=300), so

    def assert_clean_error(self, r, *needles):
        self.assertIsNotNone(r.rc, r.describe())
        self.assertGreater(r.rc, 0, "expected a clean failure\n" + r.describe())
        self.assertEqual(len(r.error_lines), 1, r.describe())
        for n in needles:
            self.assertIn(n, r.error_lines[0], r.describe())

    def both_modes(self, model, *needles):
        for extra in ([], ["--external-weights"]):
            r, _ = self.compile(model, extra)
            self.assert_clean_error(r, "initializer 'W'", *needles)

    def test_good_location_compiles_and_runs(self):
        model = external_model(self.model_dir, "w.bin")
        x = np.ones((2, 3), np.float32)
        for extra in ([], ["--external-weights"]):
            r, so = self.compile(model, extra)
            self.assertEqual(r.rc, 0, r.describe())
            if extra:
                shutil.copy(os.path.join(self.model_dir, "w.bin"), os.path.dirname(so))
            np.save(os.path.join(self.tmp, "x.npy"), x)
            out = os.path.join(self.tmp, "y")
            r = E.run([E.ONYX_RUN, so, "--input", "x=" + os.path.join(self.tmp, "x.npy"),
                       "--output-dir", out])
            self.assertEqual(r.rc, 0, r.describe())
            np.testing.assert_allclose(np.load(os.path.join(out, "output_0.npy")), x @ W)

    def test_dotdot_location_is_rejected(self):
        self.both_modes(external_model(self.model_dir, "../secret.bin"),
                        "'../secret.bin'", "'..' component")
        self.both_modes(external_model(self.model_dir, "sub/../../secret.bin"), "'..' component")

    def test_absolute_location_is_rejected(self):
        self.both_modes(external_model(self.model_dir, self.secret), "absolute path")
        self.both_modes(external_model(self.model_dir, "/etc/passwd"), "absolute path")

    def test_symlink_out_of_the_directory_is_rejected(self):
        os.symlink(self.secret, os.path.join(self.model_dir, "link.bin"))
        self.both_modes(external_model(self.model_dir, "link.bin"), "outside the model's directory")
        # A link that stays inside is fine.
        os.symlink("w.bin", os.path.join(self.model_dir, "inside.bin"))
        r, _ = self.compile(external_model(self.model_dir, "inside.bin"))
        self.assertEqual(r.rc, 0, r.describe())

    def test_short_file_is_an_error(self):
        with open(os.path.join(self.model_dir, "short.bin"), "wb") as f:
            f.write(W.tobytes()[:40])
        self.both_modes(external_model(self.model_dir, "short.bin"), "holds 40 bytes",
                        "not zero-padded")
        # An offset that leaves too few bytes.
        self.both_modes(external_model(self.model_dir, "w.bin", offset=8), "holds 48 bytes")

    def test_malformed_offset_and_length(self):
        self.both_modes(external_model(self.model_dir, "w.bin", offset="abc"),
                        "external data offset 'abc' is not a non-negative decimal integer")
        self.both_modes(external_model(self.model_dir, "w.bin", length="-1"),
                        "external data length '-1'")
        self.both_modes(external_model(self.model_dir, "w.bin", offset="99999999999999999999999"),
                        "external data offset")
        self.both_modes(external_model(self.model_dir, "w.bin", length=20), "length 20")

    def test_weights_file_truncated_after_session_creation(self):
        model = external_model(self.model_dir, "w.bin")
        r, so = self.compile(model, ["--external-weights"])
        self.assertEqual(r.rc, 0, r.describe())
        weights = os.path.join(os.path.dirname(so), "w.bin")
        shutil.copy(os.path.join(self.model_dir, "w.bin"), weights)
        # In a child process, so that a SIGBUS shows as a signal.
        script = textwrap.dedent("""
            import ctypes, os, sys
            import numpy as np
            lib = ctypes.CDLL(sys.argv[1])
            P = ctypes.c_void_p
            for name, res, args in [
                    ("onyx_state_create", P, []), ("inference_compute", P, [P, P]),
                    ("onyx_state_last_error", ctypes.c_char_p, [P]),
                    ("onyx_tensor_create_copy", P, [ctypes.c_int32, ctypes.c_int32,
                                                    ctypes.POINTER(ctypes.c_int64), P]),
                    ("onyx_tensor_list_create", P, []),
                    ("onyx_tensor_list_append", ctypes.c_int, [P, P]),
                    ("onyx_tensor_list_get", P, [P, ctypes.c_size_t]),
                    ("onyx_tensor_data", P, [P])]:
                f = getattr(lib, name); f.restype, f.argtypes = res, args
            state = lib.onyx_state_create()
            assert state
            with open(sys.argv[2], "r+b") as f:      # truncate, then rewrite
                f.truncate(0)
            x = np.ones((2, 3), np.float32)
            shape = (ctypes.c_int64 * 2)(2, 3)
            for step in range(2):
                lst = lib.onyx_tensor_list_create()
                lib.onyx_tensor_list_append(lst, lib.onyx_tensor_create_copy(1, 2, shape, x.ctypes.data))
                out = lib.inference_compute(state, lst)
                assert out, lib.onyx_state_last_error(state)
                y = np.frombuffer(ctypes.string_at(lib.onyx_tensor_data(lib.onyx_tensor_list_get(out, 0)), 32), np.float32)
                print(" ".join("%g" % v for v in y))
                with open(sys.argv[2], "wb") as f:
                    f.write(b"\\xff" * 48)
        """)
        p = subprocess.run([sys.executable, "-c", script, so, weights],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, "rc %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
        want = " ".join("%g" % v for v in (np.ones((2, 3), np.float32) @ W).reshape(-1))
        self.assertEqual(p.stdout.split("\n")[:2], [want, want])


if __name__ == "__main__":
    unittest.main()
