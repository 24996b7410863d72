#!/usr/bin/python3
"""Self-test of node_suite.py: classification, floors and the docs page,
against a small fake suite and a fake onyx-run (fake_onyx_run.py). Needs no
Onyx build. Run: /usr/bin/python3 test/e2e/test_node_suite_runner.py
"""
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import node_suite  # noqa: E402

FAKE = os.path.join(HERE, "fake_onyx_run.py")
REAL_SUITE = node_suite.DEFAULT_SUITE

EXPECTED = {
    # name: (static, symbolic, import)
    "test_pass_add": ("pass", "pass", "pass"),
    "test_pass_close": ("pass", "pass", "pass"),
    "test_pass_int": ("pass", "pass", "pass"),
    "test_wrong_value": ("wrong", "wrong", "pass"),
    "test_wrong_dtype": ("wrong", "wrong", "pass"),
    "test_wrong_shape": ("wrong", "wrong", "pass"),
    "test_wrong_missing": ("wrong", "wrong", "pass"),
    "test_error_clean": ("error", "error", "pass"),
    "test_error_symbolic": ("pass", "error", "pass"),
    "test_import_error": ("error", "error", "error"),
    "test_crash_signal": ("crash", "crash", "pass"),
    "test_crash_timeout": ("crash", "crash", "pass"),
    "test_crash_exit": ("crash", "crash", "pass"),
}


def make_suite(root):
    rng = np.random.default_rng(0)
    for name in EXPECTED:
        d = os.path.join(root, name, "test_data_set_0")
        os.makedirs(d)
        is_int = name == "test_pass_int"
        et = TensorProto.INT32 if is_int else TensorProto.FLOAT
        graph = helper.make_graph(
            [helper.make_node("Add", ["a", "b"], ["y"])], name,
            [helper.make_tensor_value_info("a", et, [2, 3]),
             helper.make_tensor_value_info("b", et, [2, 3])],
            [helper.make_tensor_value_info("y", et, [2, 3])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        onnx.save(model, os.path.join(root, name, "model.onnx"))
        if is_int:
            a = rng.integers(-5, 5, (2, 3)).astype(np.int32)
            b = rng.integers(-5, 5, (2, 3)).astype(np.int32)
        else:
            a = rng.standard_normal((2, 3)).astype(np.float32)
            b = rng.standard_normal((2, 3)).astype(np.float32)
        for k, v in enumerate((a, b)):
            with open(os.path.join(d, "input_%d.pb" % k), "wb") as f:
                f.write(numpy_helper.from_array(v).SerializeToString())
        with open(os.path.join(d, "output_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a + b, "y").SerializeToString())


class NodeSuiteRunnerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="onyx-node-suite-selftest-")
        cls.suite = os.path.join(cls.tmp, "node")
        make_suite(cls.suite)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_suite(self, *extra):
        args = ["--suite", self.suite, "--onyx-run", FAKE, "--onyx-compile", FAKE,
                "--timeout", "2", "-j", "4", "-q",
                "--results", os.path.join(self.tmp, "results.json")] + list(extra)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = node_suite.main(args)
        with open(os.path.join(self.tmp, "results.json")) as f:
            return rc, out.getvalue(), json.load(f)

    def test_classification(self):
        rc, out, res = self.run_suite("--mode", "import", "--mode", "static",
                                      "--mode", "symbolic", "--list-failures")
        for name, want in EXPECTED.items():
            for mode, status in zip(("static", "symbolic", "import"), want):
                got = res["modes"][mode]["tests"][name]
                self.assertEqual(got["status"], status, "%s %s: %s" % (mode, name, got))
        static = res["modes"]["static"]["tests"]
        self.assertIn("killed by SIGSEGV", static["test_crash_signal"]["reason"])
        self.assertIn("timeout after 2s", static["test_crash_timeout"]["reason"])
        self.assertIn("exit code 3", static["test_crash_exit"]["reason"])
        self.assertTrue(static["test_error_clean"]["reason"].startswith("error: input 0"))
        self.assertIn("max abs error 1 at [1, 0]", static["test_wrong_value"]["reason"])
        self.assertIn("dtype float64, expected float32", static["test_wrong_dtype"]["reason"])
        self.assertIn("shape [6], expected [2, 3]", static["test_wrong_shape"]["reason"])
        self.assertIn("missing", static["test_wrong_missing"]["reason"])
        # Crashes fail the run even without a floor file.
        self.assertEqual(rc, 1)
        self.assertIn("static   wrong test_wrong_value", out)

    def test_floor(self):
        floor = os.path.join(self.tmp, "floor.json")
        with open(floor, "w") as f:
            json.dump({"static": {"min_pass": 2, "max_crash": 3},
                       "symbolic": {"min_pass": 9, "max_crash": 3}}, f)
        rc, out, _ = self.run_suite("--floor", floor)
        self.assertEqual(rc, 1)
        self.assertIn("symbolic: 3 passing, below the floor of 9", out)
        self.assertIn("static: 4 passing, above the floor of 2", out)

        # --update-floor raises static, never lowers symbolic.
        rc, out, _ = self.run_suite("--floor", floor, "--update-floor")
        with open(floor) as f:
            data = json.load(f)
        self.assertEqual(data["static"]["min_pass"], 4)
        self.assertEqual(data["symbolic"]["min_pass"], 9)

        # Meeting the floor with crashes under max_crash: success.
        data["symbolic"]["min_pass"] = 3
        with open(floor, "w") as f:
            json.dump(data, f)
        rc, out, _ = self.run_suite("--floor", floor)
        self.assertEqual(rc, 0, out)

        # must_pass
        data["static"]["must_pass"] = ["^test_pass_", "^test_error_symbolic$"]
        data["symbolic"]["must_pass"] = ["^test_pass_", "^test_error_symbolic$"]
        with open(floor, "w") as f:
            json.dump(data, f)
        rc, out, _ = self.run_suite("--floor", floor)
        self.assertEqual(rc, 1)
        self.assertIn("symbolic: 1 test(s) listed in must_pass do not pass: test_error_symbolic", out)

        # A filtered run checks crashes and must_pass, not the counts.
        rc, out, _ = self.run_suite("--floor", floor, "--filter", "^test_pass_")
        self.assertEqual(rc, 0, out)
        self.assertIn("floors not checked", out)

    def test_docs(self):
        docs = os.path.join(self.tmp, "ops.md")
        self.run_suite("--mode", "import", "--mode", "static", "--mode", "symbolic",
                       "--write-docs", docs)
        with open(docs) as f:
            text = f.read()
        self.assertIn("| Add | 12/13 | 4/13 | 3/13 |", text)
        self.assertIn("| static | 4 | 4 | 2 | 3 | 13 |", text)
        self.assertIn("- `test_import_error` — all modes: error: node 'n0' (Foo", text)
        self.assertIn("- `test_error_symbolic` — import, static: pass; symbolic: error: input 0", text)
        self.assertIn("- `test_crash_signal` — import: pass; static, symbolic: crash: killed by SIGSEGV", text)
        self.assertNotIn(self.tmp, text)

    def test_compare(self):
        c = node_suite.compare
        f = np.array([1.0, 2.0, np.nan, np.inf], np.float32)
        self.assertIsNone(c(0, "y", f.copy(), f, 1e-3, 1e-7))
        self.assertIsNotNone(c(0, "y", f * 1.01, f, 1e-3, 1e-7))
        self.assertIn("dtype", c(0, "y", f.astype(np.float64), f, 1e-3, 1e-7))
        i = np.array([1, 2, 3], np.int64)
        self.assertIsNone(c(0, "y", i.copy(), i, 1e-3, 1e-7))
        self.assertIn("1 of 3 elements differ", c(0, "y", i + np.array([0, 0, 1]), i, 1e-3, 1e-7))
        b = np.array([True, False])
        self.assertIsNotNone(c(0, "y", ~b, b, 1e-3, 1e-7))
        # bfloat16: references are uint16 bit patterns; outputs may be |V2.
        bits = (np.array([1.5, -2.25, 3.0], np.float32).view(np.uint32) >> 16).astype(np.uint16)
        bf = node_suite.onnx.TensorProto.BFLOAT16
        self.assertIsNone(c(0, "y", bits.view("V2"), bits, 1e-3, 1e-7, bf))
        self.assertIsNone(c(0, "y", bits + 1, bits, 1e-3, 1e-7, bf))  # one ulp
        self.assertIsNotNone(c(0, "y", bits + 8, bits, 1e-3, 1e-7, bf))
        self.assertIn("expected bfloat16", c(0, "y", bits.astype(np.int32), bits, 1e-3, 1e-7, bf))

    @unittest.skipUnless(os.path.isdir(REAL_SUITE), "ONNX node suite not installed")
    def test_attribution_on_real_suite(self):
        tests = {t.name: t for t in node_suite.load_suite(REAL_SUITE)}
        self.assertEqual(len(tests), 932)
        self.assertEqual(tests["test_add_bcast"].attributed, ["Add"])
        self.assertEqual(tests["test_softmax_axis_0_expanded"].attributed, ["Softmax"])
        self.assertTrue(tests["test_softmax_axis_0_expanded"].expanded)
        self.assertEqual(tests["test_mvn_expanded"].attributed, ["MeanVarianceNormalization"])
        self.assertEqual(tests["test_constant"].attributed, ["Constant"])
        self.assertEqual(tests["test_adagrad"].attributed, ["ai.onnx.preview.training.Adagrad"])
        for t in tests.values():
            self.assertTrue(t.attributed, t.name)
            self.assertTrue(t.inputs or t.name == "test_constant" or not t.inputs)
            self.assertTrue(t.outputs, t.name)


if __name__ == "__main__":
    unittest.main(verbosity=2)
