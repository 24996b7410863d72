#!/usr/bin/python3
"""The bundled example (what scripts/demo.sh, the README's first command,
runs): one artifact compiled from a model with symbolic dims runs at several
shapes with PyTorch's results.

TransformerExampleTest: examples/transformer_example.py exports the real-model
test set's torch.nn.TransformerEncoder (symbolic batch and sequence; random
weights, fixed seed) and PyTorch's outputs at (batch, seq) = (1, 1), (7, 16),
(64, 32) into a temporary directory; the model is compiled ONCE with
onyx-compile and the .so is run with onyx-run at each shape. Criterion: shape
and dtype equal to PyTorch's, finite, and ||y - y_torch|| / ||y_torch|| <= 1e-4
(norms over all elements, float64), as in the real-model tests.

MLPClassifierTest: the Foundation criterion on examples/mlp_classifier.onnx
(or $ONYX_EXAMPLE_MODEL; x[batch,16] -> y[batch,10], the model test_bad_inputs.py
also uses) compiled once and run at batch 1, 7 and 64 against the numpy
reference examples/reference.py: max|y - y_ref| / max|y_ref| <= 1e-5.
"""
import json
import os
import shutil
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from onyx_e2e import EXAMPLE, ONYX_COMPILE, ONYX_RUN, REPO, require_tools, run  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "examples"))
import reference  # noqa: E402
import transformer_example  # noqa: E402

MLP_REL_TOL = 1e-5
BATCHES = (1, 7, 64)


def run_artifact(test, so, inputs, out_dir):
    """Runs the artifact with onyx-run; returns output_0 (asserting that it is
    the only output)."""
    os.makedirs(out_dir)
    cmd = [ONYX_RUN, so, "--output-dir", out_dir]
    for name, path in inputs.items():
        cmd += ["--input", "%s=%s" % (name, path)]
    r = run(cmd, timeout=120)
    test.assertEqual(r.rc, 0, r.describe())
    test.assertEqual(r.error_lines, [], r.describe())
    test.assertEqual(sorted(os.listdir(out_dir)), ["output_0.npy"], r.describe())
    return np.load(os.path.join(out_dir, "output_0.npy"))


class TransformerExampleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_tools(ONYX_COMPILE, ONYX_RUN)
        cls.tmp = tempfile.mkdtemp(prefix="onyx-example-")
        cls.data = os.path.join(cls.tmp, "example")
        cls.entry = transformer_example.ensure(cls.data, log=lambda *a: None)
        cls.so = os.path.join(cls.tmp, "model.so")
        onnx_path = os.path.join(cls.data, cls.entry["onnx"])
        r = run([ONYX_COMPILE, onnx_path, "-o", cls.so], timeout=300)
        if r.rc != 0 or not os.path.isfile(cls.so):
            raise AssertionError("compiling the example failed\n" + r.describe())

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_model_has_symbolic_batch_and_seq(self):
        self.assertEqual(self.entry["inputs"], [dict(name="x", dtype="float32", dims=["batch", "seq", 64])])

    def check_shape(self, batch, seq):
        case = [c for c in self.entry["cases"] if c["shapes"]["x"] == [batch, seq, 64]]
        self.assertEqual(len(case), 1, "no case for (%d, %d) in %s" % (batch, seq, json.dumps(self.entry["cases"])))
        case = case[0]
        y = run_artifact(self, self.so, {"x": os.path.join(self.data, case["inputs"]["x"])},
                         os.path.join(self.tmp, "out_" + case["id"]))
        ok, msg = transformer_example.check(self.data, case, y)
        print("%-8s y %s: %s" % (case["id"], list(y.shape), msg))
        self.assertEqual(y.shape, (batch, seq, 64))
        self.assertTrue(ok, "(batch %d, seq %d): %s" % (batch, seq, msg))

    def test_batch_1_seq_1(self):
        self.check_shape(1, 1)

    def test_batch_7_seq_16(self):
        self.check_shape(7, 16)

    def test_batch_64_seq_32(self):
        self.check_shape(64, 32)


class MLPClassifierTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_tools(ONYX_COMPILE, ONYX_RUN)
        cls.tmp = tempfile.mkdtemp(prefix="onyx-example-mlp-")
        cls.so = os.path.join(cls.tmp, "model.so")
        r = run([ONYX_COMPILE, EXAMPLE, "-o", cls.so], timeout=300)
        if r.rc != 0 or not os.path.isfile(cls.so):
            raise AssertionError("compiling %s failed\n%s" % (EXAMPLE, r.describe()))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check_batch(self, batch):
        rng = np.random.default_rng(1000 + batch)
        x = rng.standard_normal((batch, 16)).astype(np.float32)
        xin = os.path.join(self.tmp, "x_%d.npy" % batch)
        np.save(xin, x)
        y = run_artifact(self, self.so, {"x": xin}, os.path.join(self.tmp, "out_%d" % batch))
        ref = reference.reference(x, EXAMPLE)
        self.assertEqual(y.dtype, np.float32)
        self.assertEqual(y.shape, (batch, 10))
        err = float(np.abs(y.astype(np.float64) - ref).max() / np.abs(ref).max())
        print("mlp batch %2d: y %s, max|diff|/max|ref| = %.2e" % (batch, list(y.shape), err))
        self.assertTrue(np.isfinite(y).all())
        self.assertLessEqual(err, MLP_REL_TOL, "batch %d: relative error %.3e > %g" % (batch, err, MLP_REL_TOL))

    def test_batch_1(self):
        self.check_batch(1)

    def test_batch_7(self):
        self.check_batch(7)

    def test_batch_64(self):
        self.check_batch(64)


if __name__ == "__main__":
    unittest.main(verbosity=2)
