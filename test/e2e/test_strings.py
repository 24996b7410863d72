#!/usr/bin/python3
"""End-to-end tests of string tensors (issue 13; docs/runtime.md "String
tensors", docs/conversion.md).

The node suite covers each string operator alone (Equal, StringConcat,
StringSplit, StringNormalizer, RegexFullMatch, Cast); this file checks what
it does not: strings moved by ordinary ops (Reshape, Transpose, Concat,
Gather) between string operators with symbolic dims, string initializers
and Constants, string outputs written
by onyx-run as TensorProto files, run-time failures (Cast of a non-number)
and file-boundary checks (a NUL byte) as one clean `error:` line, and the
compile errors for what is not supported (a locale, RE2-only syntax, Cast
from float16, the CUDA target).

Run with /usr/bin/python3 (Debian's, with onnx and numpy).
"""
import os
import sys
import tempfile
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from onyx_e2e import ONYX_RUN, ModelTestCase, run  # noqa: E402
from onyx_e2e import value_info as vi  # noqa: E402

OPSET = 20


def model(nodes, inputs, outputs, name):
    # Not checked: onnx 1.12's checker predates opset 20 (StringConcat,
    # StringSplit, RegexFullMatch); Onyx's importer checks it instead.
    graph = helper.make_graph(nodes, name, inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                             ir_version=9)


def string_proto(array):
    t = onnx.TensorProto()
    t.data_type = TensorProto.STRING
    t.dims.extend(array.shape)
    t.string_data.extend(s.encode("utf-8") for s in array.ravel().tolist())
    return t


class StringTest(ModelTestCase):
    tmp_prefix = "onyx-strings-"

    def execute(self, so, inputs, expect_error=None, raw=None):
        out_dir = tempfile.mkdtemp(dir=self.tmp)
        args = [ONYX_RUN, so, "--output-dir", out_dir]
        for name, value in inputs.items():
            path = os.path.join(out_dir, name + ".pb")
            proto = value if isinstance(value, onnx.TensorProto) else (
                string_proto(value) if value.dtype.kind in "UO" else numpy_helper.from_array(value))
            with open(path, "wb") as f:
                f.write(proto.SerializeToString())
            args += ["--input", "%s=%s" % (name, path)]
        r = run(args, timeout=120)
        if not self.check_outcome(r, expect_error):
            return None
        outputs = []
        for k in range(len(os.listdir(out_dir))):
            pb = os.path.join(out_dir, "output_%d.pb" % k)
            npy = os.path.join(out_dir, "output_%d.npy" % k)
            if os.path.exists(pb):
                t = onnx.TensorProto()
                with open(pb, "rb") as f:
                    t.ParseFromString(f.read())
                self.assertEqual(t.data_type, TensorProto.STRING)
                outputs.append(np.array([s.decode("utf-8") for s in t.string_data],
                                        dtype=object).reshape(tuple(t.dims)))
            elif os.path.exists(npy):
                outputs.append(np.load(npy))
        return outputs

    def assert_strings(self, got, want):
        want = np.asarray(want, dtype=object)
        self.assertEqual(got.shape, want.shape)
        self.assertEqual(got.ravel().tolist(), want.ravel().tolist())

    def test_strings_through_moving_ops(self):
        # x[a, b], y[b]: transpose x, concat with itself, gather rows, then
        # StringConcat with y broadcast, Equal against a reshaped copy, and
        # StringSplit of the concatenation.
        m = model([
            helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0]),
            helper.make_node("Concat", ["xt", "xt"], ["xc"], axis=0),
            helper.make_node("Gather", ["xc", "idx"], ["g"], axis=0),
            helper.make_node("StringConcat", ["g", "sep"], ["gs"]),
            helper.make_node("StringConcat", ["gs", "y"], ["z"]),
            helper.make_node("Shape", ["z"], ["zshape"]),
            helper.make_node("Reshape", ["z", "zshape"], ["z2"]),
            helper.make_node("Equal", ["z2", "w"], ["eq"]),
            helper.make_node("StringSplit", ["z"], ["parts", "counts"], delimiter="-"),
            helper.make_node("Identity", ["x"], ["xid"]),
        ], [vi("x", TensorProto.STRING, ["a", "b"]), vi("idx", TensorProto.INT64, ["n"]),
            vi("sep", TensorProto.STRING, []), vi("y", TensorProto.STRING, ["a"]),
            vi("w", TensorProto.STRING, ["n", "a"])],
            [vi("z", TensorProto.STRING, None), vi("eq", TensorProto.BOOL, None),
             vi("parts", TensorProto.STRING, None), vi("counts", TensorProto.INT64, None),
             vi("xid", TensorProto.STRING, ["a", "b"])], "moving")
        so = self.compile(m, "moving")
        x = np.array([["p", "q", "r"], ["s", "t", "\u00e9"]], dtype=object)
        idx = np.array([2, 3, 0], dtype=np.int64)
        sep = np.array("-", dtype=object)
        y = np.array(["1", "22"], dtype=object)
        xc = np.concatenate([x.T, x.T], axis=0)[idx]
        z = np.array([[a + "-" + b for a, b in zip(row, y)] for row in xc], dtype=object)
        w = z.copy()
        w[1, 0] = "nope"
        out = self.execute(so, {"x": x, "idx": idx, "sep": sep, "y": y, "w": w})
        self.assertEqual(len(out), 5)
        self.assert_strings(out[0], z)
        np.testing.assert_array_equal(out[1], z == w)
        parts = np.array([[s.split("-") for s in row] for row in z], dtype=object)
        self.assert_strings(out[2], parts)
        np.testing.assert_array_equal(out[3], np.full(z.shape, 2, dtype=np.int64))
        self.assert_strings(out[4], x)
        # Other shapes, same artifact: the strings of one call never leak
        # into the next.
        x2 = np.array([["long string " * 10]], dtype=object)
        out2 = self.execute(so, {"x": x2, "idx": np.array([1], dtype=np.int64), "sep": sep,
                                 "y": np.array(["!"], dtype=object),
                                 "w": np.array([["x"]], dtype=object)})
        self.assert_strings(out2[0], [[x2[0, 0] + "-!"]])

    def test_cast_round_trip_and_failure(self):
        m = model([
            helper.make_node("Cast", ["s"], ["f"], to=TensorProto.FLOAT),
            helper.make_node("Cast", ["f"], ["back"], to=TensorProto.STRING),
            helper.make_node("Cast", ["s"], ["d"], to=TensorProto.DOUBLE),
            helper.make_node("Cast", ["i"], ["istr"], to=TensorProto.STRING),
            helper.make_node("Cast", ["istr"], ["iback"], to=TensorProto.INT32),
        ], [vi("s", TensorProto.STRING, ["n"]), vi("i", TensorProto.INT32, ["m"])],
            [vi("f", TensorProto.FLOAT, ["n"]), vi("back", TensorProto.STRING, ["n"]),
             vi("d", TensorProto.DOUBLE, ["n"]), vi("istr", TensorProto.STRING, ["m"]),
             vi("iback", TensorProto.INT32, ["m"])], "cast")
        so = self.compile(m, "cast")
        s = np.array(["1.5", "-2e-3", "NaN", "+INF", "-inf", " 7 ", "1e40", "0.1"], dtype=object)
        i = np.array([-2147483648, 0, 42], dtype=np.int32)
        f, back, d, istr, iback = self.execute(so, {"s": s, "i": i})
        with np.errstate(over="ignore"):
            want = np.array([float(v) for v in s], dtype=np.float32)
        np.testing.assert_array_equal(f, want)
        self.assert_strings(back, [str(v) for v in want])
        np.testing.assert_array_equal(d, np.array([float(v) for v in s], dtype=np.float64))
        self.assert_strings(istr, ["-2147483648", "0", "42"])
        np.testing.assert_array_equal(iback, i)
        self.execute(so, {"s": np.array(["1", "abc"], dtype=object), "i": i},
                     expect_error="Cast: string 'abc' is not a float")
        # The session of a later call is unaffected (a fresh process here;
        # the runtime's own test covers the same session).
        bad = string_proto(np.array(["ok"], dtype=object))
        bad.string_data[0] = b"a\x00b"
        self.execute(so, {"s": bad, "i": i}, expect_error="contains a NUL byte")

    def test_normalizer_regex(self):
        m = model([
            helper.make_node("StringNormalizer", ["x"], ["y"], case_change_action="LOWER",
                             stopwords=["THE", "a"], is_case_sensitive=0),
            helper.make_node("RegexFullMatch", ["y"], ["m"], pattern=r"[a-z]+(?:ox|og)"),
        ], [vi("x", TensorProto.STRING, ["c"])],
            [vi("y", TensorProto.STRING, ["k"]), vi("m", TensorProto.BOOL, ["k"])], "norm")
        so = self.compile(m, "norm")
        y, mm = self.execute(so, {"x": np.array(["The", "quick", "FOX", "a", "Dog"], dtype=object)})
        self.assert_strings(y, ["quick", "fox", "dog"])
        np.testing.assert_array_equal(mm, [False, True, True])
        y, mm = self.execute(so, {"x": np.array(["the", "A"], dtype=object)})
        self.assert_strings(y, [""])

    def test_string_initializer_and_constant(self):
        init = helper.make_tensor("prefix", TensorProto.STRING, [2], [b"<", "\u00e9:".encode()])
        m = model([
            helper.make_node("Constant", [], ["suffix"],
                             value=helper.make_tensor("suffix", TensorProto.STRING, [], [b">"])),
            helper.make_node("StringConcat", ["prefix", "x"], ["px"]),
            helper.make_node("StringConcat", ["px", "suffix"], ["y"]),
        ], [vi("x", TensorProto.STRING, ["n", 2])], [vi("y", TensorProto.STRING, ["n", 2])],
            "initializer")
        m.graph.initializer.append(init)
        so = self.compile(m, "initializer")
        (y,) = self.execute(so, {"x": np.array([["a", "b"], ["", "c"]], dtype=object)})
        self.assert_strings(y, [["<a>", "\u00e9:b>"], ["<>", "\u00e9:c>"]])

    def test_compile_errors(self):
        x = [vi("x", TensorProto.STRING, ["c"])]
        y = [vi("y", TensorProto.STRING, ["c"])]
        m = model([helper.make_node("StringNormalizer", ["x"], ["y"], name="norm_tr",
                                    case_change_action="UPPER", locale="tr_TR")], x, y, "locale")
        self.compile(m, "locale", expect_error="locale 'tr_TR' is not supported")
        m = model([helper.make_node("RegexFullMatch", ["x"], ["y"], name="re_flags",
                                    pattern="(?i)abc")], x, [vi("y", TensorProto.BOOL, ["c"])], "re2")
        self.compile(m, "re2", expect_error="re_flags")
        m = model([helper.make_node("Cast", ["h"], ["y"], name="cast_half", to=TensorProto.STRING)],
                  [vi("h", TensorProto.FLOAT16, ["c"])], y, "half")
        self.compile(m, "half", expect_error="cast_half")
        m = model([helper.make_node("StringConcat", ["x", "x"], ["y"], name="concat_gpu")], x, y, "cuda")
        self.compile(m, "cuda", extra=["--target=cuda"], expect_error="concat_gpu")


if __name__ == "__main__":
    unittest.main()
