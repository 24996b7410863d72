#!/usr/bin/python3
"""The generated loops on libomp's threads (onyx-cpu-parallelize-loops,
docs/performance-cpu.md, "Parallel generated loops").

A model with symbolic dims, x[b, s, 64] -> elementwise (Add, Mul, Tanh),
Softmax, LayerNormalization and a Transpose, is compiled once (the artifact
must link libomp: some loop was parallelized) and run through the onyx
package at several sizes, small ones (serial: below the work threshold) and
large ones (the rows split over the threads), with 1 and then 2 threads:

  - every output against numpy (max |y - ref| / max |ref| <= 1e-5);
  - every output bit-identical between 1 and 2 threads: the elementwise one,
    and the reductions too (Softmax, LayerNormalization, the transposed
    result), since each row is reduced by one thread in the serial order.

  /usr/bin/python3 test/e2e/test_parallel_loops.py [-v]
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import onyx_e2e as E  # noqa: E402

HIDDEN = 64
SIZES = [(1, 1), (2, 3), (1, 128), (4, 100), (8, 128), (3, 517)]
REL_TOL = 1e-5


def build_model():
    from onnx import TensorProto, helper
    rng = np.random.default_rng(16)
    bias = rng.standard_normal(HIDDEN).astype(np.float32)
    scale = rng.standard_normal(HIDDEN).astype(np.float32)
    shift = rng.standard_normal(HIDDEN).astype(np.float32)
    nodes = [
        E.constant_node("bias", bias),
        E.constant_node("scale", scale),
        E.constant_node("shift", shift),
        helper.make_node("Add", ["x", "bias"], ["a"]),
        helper.make_node("Mul", ["a", "x"], ["m"]),
        helper.make_node("Tanh", ["m"], ["elementwise"]),
        helper.make_node("Softmax", ["m"], ["softmax"], axis=-1),
        helper.make_node("LayerNormalization", ["softmax", "scale", "shift"],
                         ["norm"], axis=-1, epsilon=1e-5),
        helper.make_node("Transpose", ["norm"], ["transposed"], perm=[0, 2, 1]),
    ]
    inputs = [E.value_info("x", TensorProto.FLOAT, ["b", "s", HIDDEN])]
    outputs = [
        E.value_info("elementwise", TensorProto.FLOAT, ["b", "s", HIDDEN]),
        E.value_info("softmax", TensorProto.FLOAT, ["b", "s", HIDDEN]),
        E.value_info("transposed", TensorProto.FLOAT, ["b", HIDDEN, "s"]),
    ]
    model = E.checked_model(nodes, inputs, outputs, "parallel_loops", 17, 8)
    return model, (bias, scale, shift)


def reference(x, params):
    bias, scale, shift = params
    x = x.astype(np.float64)
    m = (x + bias) * x
    e = np.exp(m - m.max(axis=-1, keepdims=True))
    sm = e / e.sum(axis=-1, keepdims=True)
    mean = sm.mean(axis=-1, keepdims=True)
    var = ((sm - mean) ** 2).mean(axis=-1, keepdims=True)
    norm = (sm - mean) / np.sqrt(var + 1e-5) * scale + shift
    return {"elementwise": np.tanh(m), "softmax": sm,
            "transposed": norm.transpose(0, 2, 1)}


def rel_err(y, ref):
    denom = max(float(np.max(np.abs(ref))), 1e-30)
    return float(np.max(np.abs(y.astype(np.float64) - ref))) / denom


class ParallelLoopsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        E.require_tools(E.ONYX_COMPILE)
        import onnx
        cls.tmp = tempfile.mkdtemp(prefix="onyx-parallel-")
        model, cls.params = build_model()
        path = os.path.join(cls.tmp, "model.onnx")
        onnx.save(model, path)
        cls.so = os.path.join(cls.tmp, "model.so")
        r = E.run([E.ONYX_COMPILE, path, "-o", cls.so], timeout=300)
        if r.rc != 0:
            raise AssertionError(r.describe())
        build = os.path.abspath(os.environ.get(
            "ONYX_BUILD_DIR", os.path.join(E.REPO, "build")))
        sys.path.insert(0, os.path.join(build, "python"))
        import onyx
        cls.onyx = onyx

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_links_libomp(self):
        out = subprocess.run(["readelf", "-d", self.so], stdout=subprocess.PIPE,
                             check=True).stdout.decode()
        self.assertIn("libomp.so", out)

    def run_all(self, threads):
        session = self.onyx.InferenceSession(self.so, threads=threads)
        rng = np.random.default_rng(7)
        results = []
        for b, s in SIZES:
            x = rng.standard_normal((b, s, HIDDEN)).astype(np.float32)
            ys = session.run(None, {"x": x})
            results.append((x, dict(zip(["elementwise", "softmax",
                                         "transposed"], ys))))
        return results

    def test_one_and_two_threads(self):
        one = self.run_all(1)
        two = self.run_all(2)
        for (b, s), (x, y1), (_, y2) in zip(SIZES, one, two):
            ref = reference(x, self.params)
            for name in ("elementwise", "softmax", "transposed"):
                with self.subTest(size=(b, s), output=name):
                    self.assertEqual(y1[name].shape, ref[name].shape)
                    self.assertLessEqual(rel_err(y1[name], ref[name]), REL_TOL)
                    self.assertLessEqual(rel_err(y2[name], ref[name]), REL_TOL)
                    # Rows are split, never a reduction: every output,
                    # Softmax's and LayerNormalization's sums included, is
                    # computed in the same order with 1 and 2 threads.
                    np.testing.assert_array_equal(y1[name], y2[name])


if __name__ == "__main__":
    unittest.main()
