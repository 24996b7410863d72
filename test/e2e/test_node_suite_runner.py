#!/usr/bin/python3
"""Self-test of node_suite.py: classification, floors and the docs page,
against small fake suites and a fake onyx-run (fake_onyx_run.py); the
runner's own decoding of the newer element types (onnx_values.py) against
matching and mismatching outputs; two suites in one run; unpacking the
bundled suite. Needs no Onyx build.
Run: /usr/bin/python3 test/e2e/test_node_suite_runner.py
"""
import contextlib
import io
import json
import os
import shutil
import sys
import tarfile
import tempfile
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import node_suite  # noqa: E402
import onnx_values as ov  # noqa: E402

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


def raw_tensor(elem_type, dims, raw=None, int32=None, strings=None):
    """A TensorProto written field by field (onnx 1.12's helpers know no
    element type after bfloat16)."""
    t = TensorProto()
    t.data_type = elem_type
    t.dims.extend(dims)
    if raw is not None:
        t.raw_data = bytes(raw)
    if int32 is not None:
        t.int32_data.extend(int32)
    if strings is not None:
        t.string_data.extend(x.encode("utf-8") for x in strings)
    return t


def bf16_bits(values):
    return (np.array(values, np.float32).view(np.uint32) >> 16).astype(np.uint16)


# Tests of element types (one Identity node; the fake onyx-run writes the
# canned output): name -> (declared element type, reference TensorProto,
# canned output array, expected status, text the reason must contain).
BF16 = bf16_bits([1.5, -2.25, 3.0, 0.0])
TYPE_CASES = {
    "test_bf16_match": (ov.BFLOAT16, raw_tensor(ov.BFLOAT16, [4], raw=BF16.tobytes()),
                        BF16, "pass", ""),
    "test_bf16_int32_data_void": (ov.BFLOAT16, raw_tensor(ov.BFLOAT16, [4], int32=BF16.tolist()),
                                  BF16.view("V2"), "pass", ""),
    "test_bf16_one_ulp": (ov.BFLOAT16, raw_tensor(ov.BFLOAT16, [4], raw=BF16.tobytes()),
                          BF16 + np.array([0, 1, 0, 0], np.uint16), "pass", ""),
    "test_bf16_wrong": (ov.BFLOAT16, raw_tensor(ov.BFLOAT16, [4], raw=BF16.tobytes()),
                        BF16 + np.array([0, 8, 0, 0], np.uint16), "wrong", "max abs error"),
    "test_bf16_float32": (ov.BFLOAT16, raw_tensor(ov.BFLOAT16, [4], raw=BF16.tobytes()),
                          np.array([1.5, -2.25, 3.0, 0.0], np.float32), "wrong", "expected bfloat16"),
    # float8e4m3fn: 0x38 = 1, 0x7e = 448, 0x7f and 0xff are NaN, 0x80 = -0.
    "test_f8e4m3fn_match": (ov.FLOAT8E4M3FN, raw_tensor(ov.FLOAT8E4M3FN, [2, 2], int32=[0x38, 0x7E, 0x7F, 0x80]),
                            np.array([[0x38, 0x7E], [0xFF, 0x00]], np.uint8), "pass", ""),
    "test_f8e4m3fn_wrong": (ov.FLOAT8E4M3FN, raw_tensor(ov.FLOAT8E4M3FN, [2, 2], raw=[0x38, 0x7E, 0x7F, 0x80]),
                            np.array([[0x38, 0x7D], [0x7F, 0x80]], np.uint8), "wrong",
                            "1 of 4 float8e4m3fn elements differ; first at [0, 1] (got 0x7d = 416.0, "
                            "expected 0x7e = 448.0)"),
    "test_f8e4m3fn_nan": (ov.FLOAT8E4M3FN, raw_tensor(ov.FLOAT8E4M3FN, [1], raw=[0x7E]),
                          np.array([0x7F], np.uint8), "wrong", "got 0x7f = nan"),
    "test_f8e4m3fn_float32": (ov.FLOAT8E4M3FN, raw_tensor(ov.FLOAT8E4M3FN, [1], raw=[0x38]),
                              np.array([1.0], np.float32), "wrong", "expected uint8 (float8e4m3fn codes)"),
    # The same code means different values in different float8 types.
    "test_f8e5m2fnuz_match": (ov.FLOAT8E5M2FNUZ, raw_tensor(ov.FLOAT8E5M2FNUZ, [2], raw=[0x40, 0x80]),
                              np.array([0x40, 0x80], np.uint8), "pass", ""),
    "test_f8e5m2_inf": (ov.FLOAT8E5M2, raw_tensor(ov.FLOAT8E5M2, [2], raw=[0x7C, 0x3C]),
                        np.array([0x7B, 0x3C], np.uint8), "wrong", "expected 0x7c = inf"),
    "test_f8e8m0_match": (ov.FLOAT8E8M0, raw_tensor(ov.FLOAT8E8M0, [2], raw=[127, 0xFF]),
                          np.array([127, 0xFF], np.uint8), "pass", ""),
    # float4e2m1: one code per element; 0x7 = 6, 0xf = -6.
    "test_f4e2m1_match": (ov.FLOAT4E2M1, raw_tensor(ov.FLOAT4E2M1, [3], raw=[0x72, 0x0F]),
                          np.array([0x2, 0x7, 0xF], np.uint8), "pass", ""),
    "test_f4e2m1_packed": (ov.FLOAT4E2M1, raw_tensor(ov.FLOAT4E2M1, [3], raw=[0x72, 0x0F]),
                           np.array([0x72, 0x0F], np.uint8), "wrong", "shape [2], expected [3]"),
    "test_f4e2m1_range": (ov.FLOAT4E2M1, raw_tensor(ov.FLOAT4E2M1, [2], raw=[0x72]),
                          np.array([0x2, 0x17], np.uint8), "wrong", "code 0x17 at [1] is out of range"),
    # int4: two per byte, the first in the low nibble; signed values as int8.
    "test_int4_match": (ov.INT4, raw_tensor(ov.INT4, [5], raw=[0x21, 0xF8, 0x07]),
                        np.array([1, 2, -8, -1, 7], np.int8), "pass", ""),
    "test_int4_int32_data": (ov.INT4, raw_tensor(ov.INT4, [5], int32=[0x21, 0xF8, 0x07]),
                             np.array([1, 2, -8, -1, 7], np.int8), "pass", ""),
    "test_int4_wrong": (ov.INT4, raw_tensor(ov.INT4, [5], raw=[0x21, 0xF8, 0x07]),
                        np.array([1, 2, -8, 15, 7], np.int8), "wrong",
                        "1 of 5 elements differ; first at [3] (got 15, expected -1)"),
    "test_int4_uint8": (ov.INT4, raw_tensor(ov.INT4, [5], raw=[0x21, 0xF8, 0x07]),
                        np.array([1, 2, 8, 15, 7], np.uint8), "wrong", "expected int8 (int4 values)"),
    "test_uint4_match": (ov.UINT4, raw_tensor(ov.UINT4, [3], int32=[0xF8, 0x07]),
                         np.array([8, 15, 7], np.uint8), "pass", ""),
    # 2-bit: four per byte, from the low bits.
    "test_uint2_match": (ov.UINT2, raw_tensor(ov.UINT2, [5], raw=[0xE4, 0x03]),
                         np.array([0, 1, 2, 3, 3], np.uint8), "pass", ""),
    "test_int2_wrong": (ov.INT2, raw_tensor(ov.INT2, [4], raw=[0xE4]),
                        np.array([0, 1, 2, -1], np.int8), "wrong", "first at [2] (got 2, expected -2)"),
    "test_string_match": (ov.STRING, raw_tensor(ov.STRING, [2, 2], strings=["a", "", "héllo", "xyz"]),
                          np.array([["a", ""], ["héllo", "xyz"]]), "pass", ""),
    "test_string_wrong": (ov.STRING, raw_tensor(ov.STRING, [2, 2], strings=["a", "", "héllo", "xyz"]),
                          np.array([["a", ""], ["hello", "xyz"]]), "wrong",
                          "first at [1, 0] (got 'hello', expected 'héllo')"),
    "test_string_bytes": (ov.STRING, raw_tensor(ov.STRING, [1], strings=["a"]),
                          np.array([b"a"]), "wrong", "expected strings"),
    # A type the runner does not know is never a pass.
    "test_unknown_type": (27, raw_tensor(27, [2], raw=[1, 2]),
                          np.array([1, 2], np.uint8), "wrong", "the runner cannot decode the reference"),
}


def make_type_suite(root):
    for name, (et, ref, got, _, _) in TYPE_CASES.items():
        d = os.path.join(root, name, "test_data_set_0")
        os.makedirs(d)
        graph = helper.make_graph(
            [helper.make_node("Identity", ["x"], ["y"])], name,
            [helper.make_tensor_value_info("x", et, list(ref.dims))],
            [helper.make_tensor_value_info("y", et, list(ref.dims))])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
        with open(os.path.join(root, name, "model.onnx"), "wb") as f:
            f.write(model.SerializeToString())  # onnx.save would check the types
        for fname in ("input_0.pb", "output_0.pb"):
            with open(os.path.join(d, fname), "wb") as f:
                f.write(ref.SerializeToString())
        np.save(os.path.join(root, name, "fake_output_0.npy"), got)

    # A sequence of bfloat16 and an optional int4, written by onyx-run as
    # .pb (SequenceProto / OptionalProto) with the other encoding.
    def value_test(name, type_proto, ref, got):
        d = os.path.join(root, name, "test_data_set_0")
        os.makedirs(d)
        graph = helper.make_graph(
            [helper.make_node("Identity", ["x"], ["y"])], name,
            [helper.make_value_info("x", type_proto)], [helper.make_value_info("y", type_proto)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
        with open(os.path.join(root, name, "model.onnx"), "wb") as f:
            f.write(model.SerializeToString())
        for path, value in ((os.path.join(d, "input_0.pb"), ref), (os.path.join(d, "output_0.pb"), ref),
                            (os.path.join(root, name, "fake_output_0.pb"), got)):
            with open(path, "wb") as f:
                f.write(value.SerializeToString())

    def seq(*tensors):
        s = onnx.SequenceProto()
        s.elem_type = onnx.SequenceProto.TENSOR
        s.tensor_values.extend(tensors)
        return s

    def opt(tensor):
        o = onnx.OptionalProto()
        o.elem_type = onnx.OptionalProto.TENSOR
        o.tensor_value.CopyFrom(tensor)
        return o

    bf_seq = helper.make_sequence_type_proto(helper.make_tensor_type_proto(ov.BFLOAT16, None))
    value_test("test_seq_bf16_match", bf_seq,
               seq(raw_tensor(ov.BFLOAT16, [4], raw=BF16.tobytes()), raw_tensor(ov.BFLOAT16, [0], raw=b"")),
               seq(raw_tensor(ov.BFLOAT16, [4], int32=BF16.tolist()), raw_tensor(ov.BFLOAT16, [0])))
    value_test("test_seq_bf16_wrong", bf_seq,
               seq(raw_tensor(ov.BFLOAT16, [4], raw=BF16.tobytes())),
               seq(raw_tensor(ov.BFLOAT16, [4], raw=(BF16 + 64).tobytes())))
    i4_opt = helper.make_optional_type_proto(helper.make_tensor_type_proto(ov.INT4, [5]))
    value_test("test_opt_int4_match", i4_opt, opt(raw_tensor(ov.INT4, [5], raw=[0x21, 0xF8, 0x07])),
               opt(raw_tensor(ov.INT4, [5], int32=[0x21, 0xF8, 0x07])))
    value_test("test_opt_int4_wrong", i4_opt, opt(raw_tensor(ov.INT4, [5], raw=[0x21, 0xF8, 0x07])),
               opt(raw_tensor(ov.INT4, [5], raw=[0x21, 0xF8, 0x06])))


VALUE_CASES = {
    "test_seq_bf16_match": ("pass", ""),
    "test_seq_bf16_wrong": ("wrong", "output 0 'y' element 0 ''"),
    "test_opt_int4_match": ("pass", ""),
    "test_opt_int4_wrong": ("wrong", "first at [4] (got 6, expected 7)"),
}


def make_archive(path, suite_dir, extra=None):
    """A .tar.xz like the bundled one: node/<test>/..."""
    with tarfile.open(path, "w:xz") as tar:
        tar.add(suite_dir, arcname="node")
        if extra:
            tar.add(extra, arcname=os.path.basename(extra))


class NodeSuiteRunnerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="onyx-node-suite-selftest-")
        cls.suite = os.path.join(cls.tmp, "node")
        make_suite(cls.suite)
        cls.types = os.path.join(cls.tmp, "types")
        make_type_suite(cls.types)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_suite(self, *extra, suites=None):
        args = []
        for s in suites or [self.suite]:
            args += ["--suite", s]
        args += ["--onyx-run", FAKE, "--onyx-compile", FAKE,
                 "--timeout", "2", "-j", "4", "-q",
                 "--results", os.path.join(self.tmp, "results.json")] + list(extra)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = node_suite.main(args)
        if rc == 2:
            return rc, out.getvalue() + err.getvalue(), None
        with open(os.path.join(self.tmp, "results.json")) as f:
            return rc, out.getvalue(), json.load(f)

    def test_classification(self):
        rc, out, res = self.run_suite("--mode", "import", "--mode", "static",
                                      "--mode", "symbolic", "--list-failures")
        # A directory given by --suite runs as the suite "custom".
        self.assertEqual(list(res["suites"]), ["custom"])
        res = res["suites"]["custom"]
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
        self.assertIn("| custom | static | 4 | 4 | 2 | 3 | 13 |", text)
        self.assertIn("- `test_import_error` — all modes: error: node 'n0' (Foo", text)
        self.assertIn("- `test_error_symbolic` — import, static: pass; symbolic: error: input 0", text)
        self.assertIn("- `test_crash_signal` — import: pass; static, symbolic: crash: killed by SIGSEGV", text)
        # Failure reasons, grouped (names and numbers taken out), per mode.
        self.assertIn("| Foo: unknown op | 1 | 1 | 1 |", text)
        self.assertIn("| input N '…': dim N is N, the model says N |  | 1 | 2 |", text)
        self.assertNotIn(self.tmp, text)

    def test_from_results(self):
        # A run's results file gives the same docs without running anything
        # (the fake tools are not even needed), and a file lacking a mode
        # is refused.
        docs_run = os.path.join(self.tmp, "ops-run.md")
        saved = os.path.join(self.tmp, "saved.json")
        self.run_suite("--mode", "import", "--mode", "static", "--mode", "symbolic",
                       "--write-docs", docs_run, "--results", saved)
        docs_saved = os.path.join(self.tmp, "ops-saved.md")
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = node_suite.main(["--suite", self.suite, "--onyx-run", "/nonexistent",
                                  "--onyx-compile", "/nonexistent", "-q",
                                  "--mode", "import", "--mode", "static",
                                  "--mode", "symbolic", "--from-results", saved,
                                  "--write-docs", docs_saved])
        self.assertEqual(rc, 1, out.getvalue() + err.getvalue())  # its crashes
        with open(docs_run) as f, open(docs_saved) as g:
            strip = lambda t: [l for l in t.splitlines() if "s)" not in l]
            self.assertEqual(strip(f.read()), strip(g.read()))
        with open(saved) as f:
            data = json.load(f)
        del data["suites"]["custom"]["modes"]["symbolic"]
        with open(saved, "w") as f:
            json.dump(data, f)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = node_suite.main(["--suite", self.suite, "-q", "--mode", "symbolic",
                                  "--from-results", saved])
        self.assertEqual(rc, 2)
        self.assertIn("has no custom symbolic result", err.getvalue())

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

    def test_reason_groups(self):
        g = node_suite.reason_group
        self.assertEqual(g("error", "error: node '' (Attention, domain ai.onnx, opset 23): unknown operator"),
                         "Attention: unknown operator")
        self.assertEqual(g("error", "error: node 'n' (FlexAttention, domain ai.onnx.preview, opset 1): "
                                    "unsupported operator domain 'ai.onnx.preview'"),
                         "ai.onnx.preview.FlexAttention: unsupported operator domain '…'")
        self.assertEqual(g("error", "error: graph input 'x': unsupported element type type code 22"),
                         "graph input '…': unsupported element type type code 22")
        self.assertEqual(g("error", "error: node 'q': QuantizeLinear's result of element type 'i16' is not "
                                    "supported (8-bit integers only)"),
                         "QuantizeLinear's result of element type '…' is not supported (N-bit integers only)")
        self.assertEqual(g("wrong", "output 0 'y': shape [6], expected [2, 3]"),
                         "wrong: output N '…': shape […], expected […]")
        # onyx-run's own temporary directories leave no trace on the page.
        tmp = os.path.join(tempfile.gettempdir(), "onyx-run-AbC123")
        self.assertEqual(node_suite.Runner.sanitize(None, "error: cannot load '%s/model.so'" % tmp),
                         "error: cannot load '<tmp>/model.so'")

    def test_decode(self):
        d = ov.decode_tensor
        # Sub-byte types: low bits first, odd counts padded; int32_data holds
        # one packed byte per int32.
        for t in (raw_tensor(ov.INT4, [5], raw=[0x21, 0xF8, 0x07]),
                  raw_tensor(ov.INT4, [5], int32=[0x21, 0xF8, 0x07])):
            a = d(t)
            self.assertEqual(a.dtype, np.int8)
            self.assertEqual(a.tolist(), [1, 2, -8, -1, 7])
        self.assertEqual(d(raw_tensor(ov.UINT4, [3], raw=[0xF8, 0x07])).tolist(), [8, 15, 7])
        self.assertEqual(d(raw_tensor(ov.UINT2, [2, 3], raw=[0xE4, 0x0B])).tolist(), [[0, 1, 2], [3, 3, 2]])
        self.assertEqual(d(raw_tensor(ov.INT2, [4], int32=[0xE4])).tolist(), [0, 1, -2, -1])
        self.assertEqual(d(raw_tensor(ov.FLOAT4E2M1, [3], raw=[0x72, 0x0F])).tolist(), [2, 7, 15])
        with self.assertRaises(ov.DecodeError):
            d(raw_tensor(ov.INT4, [5], raw=[0x21, 0xF8]))
        # Codes and their values.
        f8 = {ov.FLOAT8E4M3FN: {0x38: 1.0, 0x7E: 448.0, 0x01: 2.0 ** -9, 0xB8: -1.0},
              ov.FLOAT8E4M3FNUZ: {0x40: 1.0, 0x7F: 240.0, 0x01: 2.0 ** -10},
              ov.FLOAT8E5M2: {0x3C: 1.0, 0x7B: 57344.0, 0x7C: np.inf, 0xFC: -np.inf, 0x01: 2.0 ** -16},
              ov.FLOAT8E5M2FNUZ: {0x40: 1.0, 0x7F: 57344.0, 0x01: 2.0 ** -17},
              ov.FLOAT8E8M0: {127: 1.0, 0: 2.0 ** -127, 254: 2.0 ** 127},
              ov.FLOAT4E2M1: {0x1: 0.5, 0x2: 1.0, 0x7: 6.0, 0xF: -6.0, 0x8: 0.0}}
        for et, table in f8.items():
            codes = np.array(list(table), np.uint8)
            if et == ov.FLOAT4E2M1:  # packed, two a byte
                packed = np.append(codes, 0)
                t = raw_tensor(et, [len(codes)], int32=(packed[0::2] | (packed[1::2] << 4)).tolist())
            else:  # one code an int32
                t = raw_tensor(et, [len(codes)], int32=codes.tolist())
                self.assertEqual(d(raw_tensor(et, [len(codes)], raw=codes.tobytes())).tolist(), codes.tolist())
            self.assertEqual(d(t).dtype, np.uint8)
            self.assertEqual(d(t).tolist(), codes.tolist())
            self.assertEqual(ov.narrow_to_float32(d(t), et).tolist(), list(table.values()), ov.type_name(et))
        nans = {ov.FLOAT8E4M3FN: [0x7F, 0xFF], ov.FLOAT8E4M3FNUZ: [0x80], ov.FLOAT8E5M2: [0x7D, 0xFF],
                ov.FLOAT8E5M2FNUZ: [0x80], ov.FLOAT8E8M0: [0xFF]}
        for et, codes in nans.items():
            self.assertTrue(np.isnan(ov.narrow_to_float32(np.array(codes, np.uint8), et)).all())
        bf = d(raw_tensor(ov.BFLOAT16, [], raw=bf16_bits([1.5]).tobytes()))
        self.assertEqual((bf.dtype, bf.shape), (np.uint16, ()))
        self.assertEqual(ov.narrow_to_float32(bf, ov.BFLOAT16).item(), 1.5)
        s = d(raw_tensor(ov.STRING, [2], strings=["a", "héllo"]))
        self.assertEqual((s.dtype.kind, s.tolist()), ("U", ["a", "héllo"]))
        with self.assertRaises(ov.DecodeError):
            d(raw_tensor(27, [1], raw=[0]))
        # The types onnx 1.12 decodes itself give the same arrays.
        for arr in (np.arange(6, dtype=np.float16).reshape(2, 3), np.array([1, -2], np.int8),
                    np.array([True, False]), np.array([1 + 2j], np.complex64), np.array(7, np.uint64)):
            t = numpy_helper.from_array(arr)
            self.assertTrue(np.array_equal(d(t), numpy_helper.to_array(t)))
            self.assertEqual(d(t).dtype, arr.dtype)
        t = helper.make_tensor("h", TensorProto.FLOAT16, [2], [1.5, -2.0])  # int32_data: the bits
        self.assertEqual(list(t.int32_data), [0x3E00, 0xC000])
        self.assertEqual((d(t).dtype, d(t).tolist()), (np.float16, [1.5, -2.0]))

    def test_element_types(self):
        rc, out, res = self.run_suite("--mode", "static", "--mode", "symbolic", suites=[self.types])
        self.assertEqual(rc, 0, out)
        tests = res["suites"]["custom"]["modes"]["static"]["tests"]
        cases = {n: (c[3], c[4]) for n, c in TYPE_CASES.items()}
        cases.update(VALUE_CASES)
        self.assertEqual(sorted(tests), sorted(cases))
        for name, (status, text) in cases.items():
            got = tests[name]
            self.assertEqual(got["status"], status, "%s: %s" % (name, got))
            self.assertIn(text, got["reason"], name)

    def test_two_suites(self):
        floor = os.path.join(self.tmp, "floor2.json")
        with open(floor, "w") as f:
            json.dump({"fake": {"static": {"min_pass": 4, "max_crash": 3}},
                       "types": {"static": {"min_pass": 30, "max_crash": 0}}}, f)
        docs = os.path.join(self.tmp, "ops2.md")
        suites = ["fake=" + self.suite, "types=" + self.types]
        rc, out, res = self.run_suite("--mode", "static", "--floor", floor, "--write-docs", docs,
                                      "--list-failures", suites=suites)
        self.assertEqual(rc, 1, out)
        self.assertEqual(list(res["suites"]), ["fake", "types"])
        self.assertIn("FAIL: types static: 14 passing, below the floor of 30", out)
        self.assertNotIn("fake static: 4 passing", out)
        self.assertIn("fake     static   wrong test_wrong_value", out)
        self.assertIn("types    static   wrong test_int4_wrong", out)
        with open(docs) as f:
            text = f.read()
        self.assertIn("| fake | static | 4 | 4 | 2 | 3 | 13 |", text)
        self.assertIn("| types | static | 14 | 16 | 0 | 0 | 30 |", text)
        self.assertIn("## The suite `fake` (`fake`)", text)
        self.assertIn("## The suite `types` (`types`)", text)
        self.assertLess(text.index("`test_wrong_value`"), text.index("`test_int4_wrong`"))
        # --update-floor raises each suite's own floor, adds missing ones.
        rc, out, _ = self.run_suite("--mode", "static", "--mode", "symbolic", "--floor", floor,
                                    "--update-floor", suites=suites)
        with open(floor) as f:
            data = json.load(f)
        self.assertEqual(data["fake"]["static"]["min_pass"], 4)
        self.assertEqual(data["fake"]["symbolic"]["min_pass"], 3)
        self.assertEqual(data["types"]["static"]["min_pass"], 30)
        self.assertEqual(data["types"]["symbolic"], {"min_pass": 14, "max_crash": 0})

    def test_unpack(self):
        work = os.path.join(self.tmp, "unpack")
        os.makedirs(work)
        archive = os.path.join(work, "suite.tar.xz")
        make_archive(archive, self.types)
        dest = os.path.join(work, "build", "onnx-node-suite")
        args = ["--current-archive", archive, "--unpack-dir", dest, "--mode", "static",
                "--filter", "^test_int4"]
        rc, out, res = self.run_suite(*args, suites=["current"])
        self.assertEqual(rc, 0, out)
        self.assertEqual(sorted(res["suites"]["current"]["modes"]["static"]["tests"]),
                         ["test_int4_int32_data", "test_int4_match", "test_int4_uint8", "test_int4_wrong"])
        self.assertTrue(os.path.isfile(os.path.join(dest, "node", "test_int4_match", "model.onnx")))
        # Unpacked once: a second run reuses it; another archive replaces it.
        marker = os.path.join(dest, "node", "marker")
        open(marker, "w").close()
        self.run_suite(*args, suites=["current"])
        self.assertTrue(os.path.exists(marker))
        make_archive(archive, self.suite)
        rc, out, res = self.run_suite(*args[:-2], suites=["current"])
        self.assertFalse(os.path.exists(marker))
        self.assertIn("test_pass_add", res["suites"]["current"]["modes"]["static"]["tests"])
        # Members outside node/ are refused.
        make_archive(archive, self.suite, extra=os.path.join(HERE, "fake_onyx_run.py"))
        with self.assertRaises(RuntimeError):
            node_suite.unpack_suite(archive, dest)

    def test_suite_names(self):
        rc, out, _ = self.run_suite(suites=[os.path.join(self.tmp, "missing")])
        self.assertEqual(rc, 2)
        self.assertIn("not found", out)

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


    @unittest.skipUnless(os.path.isfile(node_suite.CURRENT_ARCHIVE), "bundled suite missing")
    def test_current_suite(self):
        """The bundled ONNX 1.23 suite: every test loads and is attributed,
        and every reference output decodes."""
        node = node_suite.unpack_suite(node_suite.CURRENT_ARCHIVE, node_suite.CURRENT_UNPACK_DIR)
        tests = {t.name: t for t in node_suite.load_suite(node)}
        self.assertEqual(len(tests), 1802)
        self.assertEqual(tests["test_add_bcast"].attributed, ["Add"])
        self.assertEqual(tests["test_rms_normalization_2d_axis0_expanded"].attributed, ["RMSNormalization"])
        self.assertTrue(tests["test_rms_normalization_2d_axis0_expanded"].expanded)
        types = set()
        for t in tests.values():
            self.assertIsNone(t.load_error, t.name)
            self.assertTrue(t.attributed and t.outputs, t.name)
            for k, path in enumerate(t.outputs):
                tp = t.output_types[k]
                node_suite.load_reference(path, tp)
                types.add(node_suite.output_elem_type(tp, path))
        self.assertTrue(set(range(16, 27)) <= types, sorted(types))


if __name__ == "__main__":
    unittest.main(verbosity=2)
