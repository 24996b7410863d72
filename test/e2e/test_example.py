#!/usr/bin/python3
"""Foundation criterion: one artifact compiled from a model with a symbolic
batch dim runs at batch 1, 7 and 64 with results equal to numpy's.

Compiles examples/mlp_classifier.onnx ONCE with onyx-compile, runs the .so with
onyx-run at each batch size on random inputs, and compares with
examples/reference.py (numpy, float32).

Criterion: max|y - y_ref| / max|y_ref| <= 1e-5 (relative to the largest
reference value, per output tensor); shape and dtype must match exactly.
"""
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

REL_TOL = 1e-5
BATCHES = (1, 7, 64)


class ExampleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_tools(ONYX_COMPILE, ONYX_RUN)
        cls.tmp = tempfile.mkdtemp(prefix="onyx-example-")
        cls.so = os.path.join(cls.tmp, "model.so")
        r = run([ONYX_COMPILE, EXAMPLE, "-o", cls.so], timeout=300)
        if r.rc != 0 or not os.path.isfile(cls.so):
            raise AssertionError("compiling the example failed\n" + r.describe())

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check_batch(self, batch):
        rng = np.random.default_rng(1000 + batch)
        x = rng.standard_normal((batch, 16)).astype(np.float32)
        xin = os.path.join(self.tmp, "x_%d.npy" % batch)
        np.save(xin, x)
        out_dir = os.path.join(self.tmp, "out_%d" % batch)
        os.makedirs(out_dir)
        r = run([ONYX_RUN, self.so, "--input", "x=" + xin, "--output-dir", out_dir], timeout=120)
        self.assertEqual(r.rc, 0, r.describe())
        self.assertEqual(r.error_lines, [], r.describe())
        produced = sorted(os.listdir(out_dir))
        self.assertEqual(produced, ["output_0.npy"], r.describe())
        y = np.load(os.path.join(out_dir, "output_0.npy"))
        ref = reference.reference(x, EXAMPLE)
        self.assertEqual(y.dtype, np.float32)
        self.assertEqual(y.shape, (batch, 10))
        err = float(np.abs(y.astype(np.float64) - ref).max() / np.abs(ref).max())
        print("batch %2d: y %s, max|diff|/max|ref| = %.2e" % (batch, list(y.shape), err))
        self.assertTrue(np.isfinite(y).all())
        self.assertLessEqual(err, REL_TOL, "batch %d: relative error %.3e > %g" % (batch, err, REL_TOL))

    def test_batch_1(self):
        self.check_batch(1)

    def test_batch_7(self):
        self.check_batch(7)

    def test_batch_64(self):
        self.check_batch(64)


if __name__ == "__main__":
    unittest.main(verbosity=2)
