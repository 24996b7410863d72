#!/usr/bin/env python3
"""External weights (issue 5): `onyx-compile --external-weights` keeps
initializers stored in ONNX external data out of the artifact; the session
maps the data file at creation and checks its size and checksum.

  - compiling needs only the graph: the data file may be absent;
  - the artifact then runs correctly once the data file is beside it, or
    given with --weights;
  - a missing file, a short file and (when a checksum was recorded) a
    corrupted file fail with one clean `error:` line.

Run with /usr/bin/python3 (onnx + numpy)."""
import os
import shutil
import sys
import tempfile
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onyx_e2e  # noqa: E402

DATA = "weights.bin"


def make_model(directory):
    """y = relu(x @ W + b) @ V with W, b, V in an external data file (25 KiB:
    several pages, so that section alignment in the artifacts cannot hide
    whether the weights are embedded)."""
    rng = np.random.default_rng(7)
    w = rng.standard_normal((16, 256)).astype(np.float32)
    b = rng.standard_normal((256,)).astype(np.float32)
    v = rng.standard_normal((256, 8)).astype(np.float32)
    inits = [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "b"),
             numpy_helper.from_array(v, "V")]
    nodes = [helper.make_node("MatMul", ["x", "W"], ["h"], name="mm1"),
             helper.make_node("Add", ["h", "b"], ["h2"], name="add"),
             helper.make_node("Relu", ["h2"], ["h3"], name="relu"),
             helper.make_node("MatMul", ["h3", "V"], ["y"], name="mm2")]
    graph = helper.make_graph(
        nodes, "ext",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = os.path.join(directory, "model.onnx")
    onnx.save_model(model, path, save_as_external_data=True,
                    all_tensors_to_one_file=True, location=DATA,
                    size_threshold=0)
    return path, (w, b, v)


def reference(x, weights):
    w, b, v = weights
    return np.maximum(x @ w + b, 0) @ v


class ExternalWeightsTest(unittest.TestCase):
    def setUp(self):
        onyx_e2e.require_tools(onyx_e2e.ONYX_COMPILE, onyx_e2e.ONYX_RUN)
        self.tmp = tempfile.mkdtemp(prefix="onyx-extw-")
        self.model, self.weights = make_model(self.tmp)
        self.data = os.path.join(self.tmp, DATA)
        self.x = np.random.default_rng(3).standard_normal((5, 16)).astype(np.float32)
        self.xfile = os.path.join(self.tmp, "x.npy")
        np.save(self.xfile, self.x)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def compile(self, out_dir, data_present=True):
        os.makedirs(out_dir, exist_ok=True)
        hidden = self.data + ".hidden"
        if not data_present:
            os.rename(self.data, hidden)
        try:
            so = os.path.join(out_dir, "model.so")
            r = onyx_e2e.run([onyx_e2e.ONYX_COMPILE, self.model, "--external-weights", "-o", so])
            self.assertEqual(r.rc, 0, r.describe())
        finally:
            if not data_present:
                os.rename(hidden, self.data)
        return so

    def run_artifact(self, so, *extra):
        out = os.path.join(self.tmp, "out")
        shutil.rmtree(out, ignore_errors=True)
        return onyx_e2e.run([onyx_e2e.ONYX_RUN, so, "--input", "x=" + self.xfile,
                             "--output-dir", out] + list(extra)), out

    def assert_correct(self, r, out):
        self.assertEqual(r.rc, 0, r.describe())
        y = np.load(os.path.join(out, "output_0.npy"))
        ref = reference(self.x, self.weights)
        err = np.abs(y - ref).max() / np.abs(ref).max()
        self.assertLessEqual(err, 1e-5)

    def assert_clean_error(self, r, fragment):
        self.assertNotEqual(r.rc, 0, r.describe())
        self.assertTrue(r.rc > 0, "killed by a signal:\n" + r.describe())
        self.assertEqual(len(r.error_lines), 1, r.describe())
        self.assertIn(fragment, r.error_lines[0], r.describe())

    def test_artifact_does_not_embed_weights(self):
        so_ext = self.compile(os.path.join(self.tmp, "ext"))
        so_emb = os.path.join(self.tmp, "embedded.so")
        r = onyx_e2e.run([onyx_e2e.ONYX_COMPILE, self.model, "-o", so_emb])
        self.assertEqual(r.rc, 0, r.describe())
        data_bytes = os.path.getsize(self.data)
        self.assertLess(os.path.getsize(so_ext) + data_bytes // 2,
                        os.path.getsize(so_emb) + 1,
                        "the external-weights artifact should be smaller by "
                        "about the data's size")
        with open(so_ext, "rb") as f:
            blob = f.read()
        self.assertNotIn(self.weights[0].tobytes()[:64], blob)

    def test_compiles_without_data_and_runs_with_it(self):
        out_dir = os.path.join(self.tmp, "nodata")
        so = self.compile(out_dir, data_present=False)
        # Data absent beside the artifact: clean error naming the file.
        r, _ = self.run_artifact(so)
        self.assert_clean_error(r, "weights file")
        # Supplied beside the artifact: correct.
        shutil.copy(self.data, os.path.join(out_dir, DATA))
        self.assert_correct(*self.run_artifact(so))
        # A short file fails the size check.
        with open(os.path.join(out_dir, DATA), "r+b") as f:
            f.truncate(100)
        r, _ = self.run_artifact(so)
        self.assert_clean_error(r, "holds 100 bytes")

    def test_weights_option_and_checksum(self):
        out_dir = os.path.join(self.tmp, "withdata")
        so = self.compile(out_dir, data_present=True)
        # Not beside the artifact, given with --weights (file or directory).
        self.assert_correct(*self.run_artifact(so, "--weights", self.data))
        self.assert_correct(*self.run_artifact(so, "--weights", self.tmp))
        # Compiled with the data present: a checksum was recorded, so a
        # corrupted byte is caught.
        bad = os.path.join(self.tmp, "bad.bin")
        shutil.copy(self.data, bad)
        with open(bad, "r+b") as f:
            f.seek(10)
            byte = f.read(1)
            f.seek(10)
            f.write(bytes([byte[0] ^ 0xFF]))
        r, _ = self.run_artifact(so, "--weights", bad)
        self.assert_clean_error(r, "checksum")

    def test_onyx_run_compiles_onnx_with_external_weights(self):
        out = os.path.join(self.tmp, "direct")
        r = onyx_e2e.run([onyx_e2e.ONYX_RUN, self.model, "--external-weights",
                          "--input", "x=" + self.xfile, "--output-dir", out])
        self.assert_correct(r, out)


def make_sibling_model(directory):
    """Three projections of one input reshaped into heads, as a transformer
    block's query, key and value (the bias Adds in both operand orders),
    and a fourth projection of it that is not reshaped: onyx-compile
    --merge-matmuls gathers the three weights (and the three biases) into
    one at session creation and leaves the fourth alone."""
    rng = np.random.default_rng(11)
    ws = [rng.standard_normal((16, n)).astype(np.float32) for n in (24, 24, 8)]
    bs = [rng.standard_normal((n,)).astype(np.float32) for n in (24, 24, 8)]
    other = rng.standard_normal((16, 4)).astype(np.float32)
    inits = [numpy_helper.from_array(w, "W%d" % i) for i, w in enumerate(ws)]
    inits += [numpy_helper.from_array(b, "b%d" % i) for i, b in enumerate(bs)]
    inits.append(numpy_helper.from_array(other, "O"))
    inits.append(numpy_helper.from_array(np.array([0, 0, -1, 4], np.int64), "heads"))
    nodes = []
    for i in range(3):
        nodes.append(helper.make_node("MatMul", ["x", "W%d" % i], ["m%d" % i],
                                      name="proj%d" % i))
        operands = ["b%d" % i, "m%d" % i] if i == 1 else ["m%d" % i, "b%d" % i]
        nodes.append(helper.make_node("Add", operands, ["p%d" % i], name="bias%d" % i))
        nodes.append(helper.make_node("Reshape", ["p%d" % i, "heads"], ["y%d" % i],
                                      name="heads%d" % i))
    nodes.append(helper.make_node("MatMul", ["x", "O"], ["y3"], name="other"))
    outputs = [helper.make_tensor_value_info("y%d" % i, TensorProto.FLOAT,
                                             ["batch", "seq", n // 4, 4])
               for i, n in enumerate((24, 24, 8))]
    outputs.append(helper.make_tensor_value_info("y3", TensorProto.FLOAT,
                                                 ["batch", "seq", 4]))
    graph = helper.make_graph(
        nodes, "siblings",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 16])],
        outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = os.path.join(directory, "siblings.onnx")
    onnx.save_model(model, path, save_as_external_data=True,
                    all_tensors_to_one_file=True, location="siblings.bin",
                    size_threshold=0)
    return path, ws, bs, other


class MergedWeightsTest(unittest.TestCase):
    """Sibling MatMuls merged over external weights (weight_concat)."""

    def setUp(self):
        onyx_e2e.require_tools(onyx_e2e.ONYX_COMPILE, onyx_e2e.ONYX_RUN)
        self.tmp = tempfile.mkdtemp(prefix="onyx-merged-")
        self.model, self.ws, self.bs, self.other = make_sibling_model(self.tmp)
        self.data = os.path.join(self.tmp, "siblings.bin")
        self.x = np.random.default_rng(5).standard_normal((2, 3, 16)).astype(np.float32)
        self.xfile = os.path.join(self.tmp, "x.npy")
        np.save(self.xfile, self.x)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def reference(self):
        b, t = self.x.shape[:2]
        ys = [(self.x @ w + c).reshape(b, t, -1, 4) for w, c in zip(self.ws, self.bs)]
        return ys + [self.x @ self.other]

    def compile_and_run(self, *flags, weights=None):
        so = os.path.join(self.tmp, "siblings.so")
        r = onyx_e2e.run([onyx_e2e.ONYX_COMPILE, self.model, "--external-weights",
                          "--merge-matmuls", "-o", so] + list(flags))
        self.assertEqual(r.rc, 0, r.describe())
        out = os.path.join(self.tmp, "out")
        shutil.rmtree(out, ignore_errors=True)
        run = [onyx_e2e.ONYX_RUN, so, "--input", "x=" + self.xfile, "--output-dir", out]
        if weights:
            run += ["--weights", weights]
        return so, onyx_e2e.run(run), out

    def check(self, r, out, tolerance):
        self.assertEqual(r.rc, 0, r.describe())
        for i, ref in enumerate(self.reference()):
            y = np.load(os.path.join(out, "output_%d.npy" % i))
            self.assertEqual(y.shape, ref.shape)
            err = np.abs(y.astype(np.float64) - ref).max() / np.abs(ref).max()
            self.assertLessEqual(err, tolerance, "output %d" % i)

    def test_gathered_weights_are_correct(self):
        so, r, out = self.compile_and_run()
        self.check(r, out, 1e-6)
        with open(so, "rb") as f:
            blob = f.read()
        # Weights and biases of the three projections: two gathered weights
        # over six ranges; the fourth MatMul (not reshaped) stays alone.
        self.assertEqual(blob.count(b"\nweight_concat "), 2)

    def test_gathered_and_converted_to_half(self):
        # --precision=fp16: the session converts each range's f32 values as
        # it gathers them.
        _, r, out = self.compile_and_run("--precision=fp16")
        self.check(r, out, 1e-2)

    def test_checksum_of_a_gathered_range(self):
        bad = os.path.join(self.tmp, "bad.bin")
        shutil.copy(self.data, bad)
        with open(bad, "r+b") as f:
            f.seek(16 * 24 * 4 + 8)  # inside W1, a gathered range
            byte = f.read(1)
            f.seek(16 * 24 * 4 + 8)
            f.write(bytes([byte[0] ^ 0xFF]))
        _, r, _ = self.compile_and_run(weights=bad)
        self.assertTrue(r.rc > 0, r.describe())
        self.assertEqual(len(r.error_lines), 1, r.describe())
        self.assertIn("checksum", r.error_lines[0], r.describe())


if __name__ == "__main__":
    unittest.main(verbosity=2)
