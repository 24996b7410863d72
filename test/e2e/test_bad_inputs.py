#!/usr/bin/python3
"""Foundation criterion: bad input to onyx-run gives a clear `error:` line and
a non-zero exit, never a signal.

Each case runs onyx-run (on the artifact compiled from
examples/mlp_classifier.onnx, x: f32[batch,16]) and requires: the process
exits with a non-zero status on its own (not killed by a signal, no timeout),
and stderr holds exactly one line starting with `error:`.
"""
import os
import shutil
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from onyx_e2e import EXAMPLE, ONYX_COMPILE, ONYX_RUN, require_tools, run  # noqa: E402


class BadInputsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_tools(ONYX_COMPILE, ONYX_RUN)
        cls.tmp = tempfile.mkdtemp(prefix="onyx-bad-inputs-")
        cls.so = os.path.join(cls.tmp, "model.so")
        r = run([ONYX_COMPILE, EXAMPLE, "-o", cls.so], timeout=300)
        if r.rc != 0 or not os.path.isfile(cls.so):
            raise AssertionError("compiling the example failed\n" + r.describe())
        rng = np.random.default_rng(7)
        cls.files = {}

        def save(name, arr):
            path = os.path.join(cls.tmp, name)
            np.save(path, arr)
            cls.files[name] = path

        save("good.npy", rng.standard_normal((7, 16)).astype(np.float32))
        save("i64.npy", rng.integers(0, 10, (7, 16)).astype(np.int64))
        save("rank1.npy", rng.standard_normal(16).astype(np.float32))
        save("rank3.npy", rng.standard_normal((7, 16, 1)).astype(np.float32))
        save("dim15.npy", rng.standard_normal((7, 15)).astype(np.float32))
        bad_npy = os.path.join(cls.tmp, "truncated.npy")
        with open(cls.files["good.npy"], "rb") as f:
            data = f.read()
        with open(bad_npy, "wb") as f:
            f.write(data[:100])
        cls.files["truncated.npy"] = bad_npy
        bad_onnx = os.path.join(cls.tmp, "malformed.onnx")
        with open(bad_onnx, "wb") as f:
            f.write(b"\x08\x07\x12\xff\xff\xffthis is not an ONNX model\x00\x01\x02")
        cls.files["malformed.onnx"] = bad_onnx
        empty_onnx = os.path.join(cls.tmp, "empty.onnx")
        open(empty_onnx, "wb").close()
        cls.files["empty.onnx"] = empty_onnx

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def out_dir(self):
        d = tempfile.mkdtemp(dir=self.tmp)
        return d

    def expect_error(self, args, tool=ONYX_RUN, mention=None):
        r = run([tool] + args, timeout=120)
        self.assertFalse(r.timed_out, r.describe())
        self.assertIsNotNone(r.rc, r.describe())
        self.assertGreaterEqual(r.rc, 0, "killed by a signal\n" + r.describe())
        self.assertNotEqual(r.rc, 0, "expected a non-zero exit\n" + r.describe())
        self.assertEqual(len(r.error_lines), 1,
                         "expected exactly one stderr line starting with 'error:'\n" + r.describe())
        if mention:
            self.assertIn(mention, r.error_lines[0], r.describe())
        print("%s: %s" % (self._testMethodName, r.error_lines[0]))
        return r

    def test_sanity_good_input_runs(self):
        # The same invocation with a good input succeeds, so the failures
        # below are about the input.
        r = run([ONYX_RUN, self.so, "--input", "x=" + self.files["good.npy"],
                 "--output-dir", self.out_dir()], timeout=120)
        self.assertEqual(r.rc, 0, r.describe())

    def test_missing_input(self):
        self.expect_error([self.so, "--output-dir", self.out_dir()])

    def test_wrong_element_type(self):
        self.expect_error([self.so, "--input", "x=" + self.files["i64.npy"],
                           "--output-dir", self.out_dir()])

    def test_wrong_rank_1(self):
        self.expect_error([self.so, "--input", "x=" + self.files["rank1.npy"],
                           "--output-dir", self.out_dir()])

    def test_wrong_rank_3(self):
        self.expect_error([self.so, "--input", "x=" + self.files["rank3.npy"],
                           "--output-dir", self.out_dir()])

    def test_static_dim_contradicts_model(self):
        self.expect_error([self.so, "--input", "x=" + self.files["dim15.npy"],
                           "--output-dir", self.out_dir()])

    def test_nonexistent_input_name(self):
        self.expect_error([self.so, "--input", "x=" + self.files["good.npy"],
                           "--input", "no_such_input=" + self.files["good.npy"],
                           "--output-dir", self.out_dir()], mention="no_such_input")

    def test_nonexistent_input_file(self):
        self.expect_error([self.so, "--input", "x=" + os.path.join(self.tmp, "nope.npy"),
                           "--output-dir", self.out_dir()])

    def test_truncated_npy(self):
        self.expect_error([self.so, "--input", "x=" + self.files["truncated.npy"],
                           "--output-dir", self.out_dir()])

    def test_malformed_onnx(self):
        self.expect_error([self.files["malformed.onnx"], "--input", "x=" + self.files["good.npy"],
                           "--output-dir", self.out_dir()])

    def test_empty_onnx(self):
        self.expect_error([self.files["empty.onnx"], "--input", "x=" + self.files["good.npy"],
                           "--output-dir", self.out_dir()])

    def test_malformed_onnx_compile(self):
        self.expect_error([self.files["malformed.onnx"], "-o", os.path.join(self.tmp, "bad.so")],
                          tool=ONYX_COMPILE)

    def test_nonexistent_model_file(self):
        self.expect_error([os.path.join(self.tmp, "does_not_exist.so"),
                           "--input", "x=" + self.files["good.npy"],
                           "--output-dir", self.out_dir()])

    def test_nonexistent_onnx_file(self):
        self.expect_error([os.path.join(self.tmp, "does_not_exist.onnx"),
                           "--input", "x=" + self.files["good.npy"],
                           "--output-dir", self.out_dir()])

    def test_libonnx_inference_crash_is_an_error(self):
        # A ConvInteger whose data has rank 3 and weight rank 4: libonnx
        # 1.12's convPoolShapeInference indexes past the data's dims and
        # segfaults (found by the importer's fuzzer). It runs in a child
        # process (lib/Import/IsolatedInference.h), so the compiler survives
        # and names the node; the node before it is inferred normally.
        from onnx import TensorProto, helper
        vi = helper.make_tensor_value_info
        nodes = [helper.make_node("Identity", ["x"], ["x1"], name="copy"),
                 helper.make_node("ConvInteger", ["x1", "w", "x_zero_point"], ["y"],
                                  name="conv_int")]
        graph = helper.make_graph(
            nodes, "convinteger_rank_mismatch",
            [vi("x", TensorProto.UINT8, [1, 3, 3]), vi("w", TensorProto.UINT8, [1, 1, 2, 2]),
             vi("x_zero_point", TensorProto.UINT8, [])],
            [vi("y", TensorProto.INT32, None)])
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 10)])
        m.ir_version = 5
        path = os.path.join(self.tmp, "convinteger_rank_mismatch.onnx")
        with open(path, "wb") as f:
            f.write(m.SerializeToString())
        self.expect_error([path, "-o", os.path.join(self.tmp, "bad.so")], tool=ONYX_COMPILE,
                              mention="node 'conv_int' (ConvInteger): ONNX shape inference "
                                      "(libonnx) crashed (signal 11")


if __name__ == "__main__":
    unittest.main(verbosity=2)
