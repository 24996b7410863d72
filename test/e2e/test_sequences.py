#!/usr/bin/python3
"""End-to-end tests of ONNX sequences and optionals (issue 7, docs/sequences.md).

Models built here with onnx.helper (symbolic input dims) are compiled once
with onyx-compile and run with onyx-run; sequence outputs (written as
output_K.pb SequenceProto) and tensor outputs must match numpy references.
The node suite covers If/Loop/SequenceMap/Optional; this file adds the ops
the suite lacks or only touches lightly:

  * SplitToSequence (scalar split, 1-D split, no split with keepdims 0 and 1) and
    ConcatFromSequence (axis and new_axis) round trips, SequenceErase,
    SequenceLength;
  * bad positions and an empty optional are one clean `error:` line naming
    the node (never a crash), and the CUDA target compiles them.

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
from onyx_e2e import ONYX_COMPILE, ONYX_RUN, REPO, ModelTestCase, run  # noqa: E402
from onyx_e2e import checked_model, constant_node as const, value_info as vi  # noqa: E402

OPSET = 15


def seq_vi(name, elem):
    return helper.make_tensor_sequence_value_info(name, elem, None)


def model(nodes, inputs, outputs, name):
    return checked_model(nodes, inputs, outputs, name, OPSET, ir_version=8)


class SequenceTest(ModelTestCase):
    tmp_prefix = "onyx-sequences-"

    def execute(self, so, inputs, kinds, expect_error=None):
        """Runs `so`; `kinds` says per output 'tensor' or 'sequence'."""
        out_dir = tempfile.mkdtemp(dir=self.tmp)
        args = [ONYX_RUN, so, "--output-dir", out_dir]
        for name, value in inputs.items():
            if isinstance(value, list):
                path = os.path.join(out_dir, name + ".pb")
                seq = numpy_helper.from_list(value)
                with open(path, "wb") as f:
                    f.write(seq.SerializeToString())
            elif isinstance(value, onnx.OptionalProto):
                path = os.path.join(out_dir, name + ".pb")
                with open(path, "wb") as f:
                    f.write(value.SerializeToString())
            else:
                path = os.path.join(out_dir, name + ".npy")
                np.save(path, value)
            args += ["--input", "%s=%s" % (name, path)]
        r = run(args, timeout=120)
        if not self.check_outcome(r, expect_error):
            return None
        outputs = []
        for k, kind in enumerate(kinds):
            if kind == "sequence":
                seq = onnx.SequenceProto()
                with open(os.path.join(out_dir, "output_%d.pb" % k), "rb") as f:
                    seq.ParseFromString(f.read())
                outputs.append(numpy_helper.to_list(seq))
            else:
                outputs.append(np.load(os.path.join(out_dir, "output_%d.npy" % k)))
        return outputs

    def check(self, got, want, what=""):
        if isinstance(want, list):
            self.assertEqual(len(got), len(want), what)
            for i, (g, w) in enumerate(zip(got, want)):
                self.check(g, w, "%s element %d" % (what, i))
            return
        want = np.asarray(want)
        self.assertEqual(got.dtype, want.dtype, what)
        self.assertEqual(got.shape, want.shape, what)
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=what)

    # -- SplitToSequence / ConcatFromSequence ---------------------------------

    def test_split_concat_round_trip(self):
        m = model([
            const("two", np.int64(2)),
            helper.make_node("SplitToSequence", ["x", "two"], ["chunks"], axis=1),
            helper.make_node("SplitToSequence", ["x", "sizes"], ["parts"], axis=0),
            helper.make_node("SplitToSequence", ["x"], ["rows"], axis=0, keepdims=0),
            helper.make_node("ConcatFromSequence", ["chunks"], ["joined"], axis=1),
            helper.make_node("ConcatFromSequence", ["rows"], ["stacked"], axis=1,
                             new_axis=1),
            helper.make_node("SequenceErase", ["parts", "minus_one"], ["erased"]),
            helper.make_node("SequenceLength", ["erased"], ["n"]),
            # No split, keepdims=1 (the default): pieces of extent 1 kept.
            helper.make_node("SplitToSequence", ["x"], ["cols"], axis=1),
        ], [vi("x", TensorProto.FLOAT, ["r", "c"]), vi("sizes", TensorProto.INT64, ["k"]),
            vi("minus_one", TensorProto.INT64, [])],
            [seq_vi("chunks", TensorProto.FLOAT), seq_vi("rows", TensorProto.FLOAT),
             vi("joined", TensorProto.FLOAT, ["jr", "jc"]), vi("stacked", TensorProto.FLOAT, ["sr", "sc"]),
             seq_vi("erased", TensorProto.FLOAT), vi("n", TensorProto.INT64, []),
             seq_vi("cols", TensorProto.FLOAT)],
            "split_concat")
        so = self.compile(m, "split_concat")
        kinds = ["sequence", "sequence", "tensor", "tensor", "sequence", "tensor",
                 "sequence"]
        for r, c, sizes in [(3, 5, [1, 2]), (4, 4, [4, 0]), (1, 1, [1])]:
            x = np.arange(r * c, dtype=np.float32).reshape(r, c)
            got = self.execute(so, {"x": x, "sizes": np.array(sizes, np.int64),
                                    "minus_one": np.int64(-1)}, kinds)
            chunks = [x[:, i:i + 2] for i in range(0, c, 2)]
            offsets = np.cumsum([0] + sizes)
            parts = [x[offsets[i]:offsets[i + 1]] for i in range(len(sizes))]
            self.check(got[0], chunks, "chunks")
            self.check(got[1], [x[i] for i in range(r)], "rows")
            self.check(got[2], x, "joined")
            self.check(got[3], x.T, "stacked")
            self.check(got[4], parts[:-1], "erased")
            self.check(got[5], np.int64(len(sizes) - 1), "length")
            self.check(got[6], [x[:, i:i + 1] for i in range(c)], "cols")
        # The split must cover the axis: a clean error naming the node.
        self.execute(so, {"x": np.zeros((3, 2), np.float32), "sizes": np.array([1, 1], np.int64),
                          "minus_one": np.int64(-1)}, kinds,
                     expect_error="split sums to 2, but the axis has extent 3")

    # -- run-time errors ------------------------------------------------------

    def test_bad_positions_are_clean_errors(self):
        m = model([
            helper.make_node("SequenceAt", ["xs", "p"], ["y"], name="the_at"),
            helper.make_node("SequenceInsert", ["xs", "y", "q"], ["ys"], name="the_insert"),
        ], [seq_vi("xs", TensorProto.FLOAT), vi("p", TensorProto.INT64, []),
            vi("q", TensorProto.INT64, [])],
            [vi("y", TensorProto.FLOAT, ["n"]), seq_vi("ys", TensorProto.FLOAT)], "positions")
        so = self.compile(m, "positions")
        xs = [np.array([1, 2], np.float32), np.array([3], np.float32)]
        kinds = ["tensor", "sequence"]
        y, ys = self.execute(so, {"xs": xs, "p": np.int64(-2), "q": np.int64(2)}, kinds)
        self.check(y, xs[0])
        self.check(ys, xs + [xs[0]])
        self.execute(so, {"xs": xs, "p": np.int64(2), "q": np.int64(0)}, kinds,
                     expect_error="node 'the_at': SequenceAt position 2 is out of range "
                                  "[-2, 1] for a sequence of length 2")
        self.execute(so, {"xs": xs, "p": np.int64(0), "q": np.int64(-3)}, kinds,
                     expect_error="node 'the_insert': SequenceInsert position -3 is out of range")
        self.execute(so, {"xs": [], "p": np.int64(0), "q": np.int64(0)}, kinds,
                     expect_error="node 'the_at': SequenceAt position 0 is out of range "
                                  "(the sequence is empty)")
        # A tensor where a sequence is expected.
        self.execute(so, {"xs": np.zeros(2, np.float32), "p": np.int64(0), "q": np.int64(0)},
                     kinds, expect_error="not an ONNX SequenceProto")

    def test_empty_optional_get_element(self):
        opt_type = helper.make_optional_type_proto(
            helper.make_tensor_type_proto(TensorProto.FLOAT, ["n"]))
        m = model([helper.make_node("OptionalGetElement", ["o"], ["y"], name="get")],
                  [helper.make_value_info("o", opt_type)],
                  [vi("y", TensorProto.FLOAT, ["n"])], "optional")
        so = self.compile(m, "optional")
        present = onnx.OptionalProto()
        present.elem_type = onnx.OptionalProto.TENSOR
        present.tensor_value.CopyFrom(numpy_helper.from_array(np.array([4, 5], np.float32)))
        (y,) = self.execute(so, {"o": present}, ["tensor"])
        self.check(y, np.array([4, 5], np.float32))
        self.execute(so, {"o": onnx.OptionalProto()}, ["tensor"],
                     expect_error="node 'get': OptionalGetElement of an empty optional")

    def test_cuda_target_compiles_sequences(self):
        # The CUDA target lowers the same onyxrt_seq_* calls (element data in
        # device memory); running it needs a GPU (scripts/gpu/run_suite.py),
        # here the artifact and its signature are checked.
        m = model([helper.make_node("SequenceConstruct", ["x", "x"], ["s"], name="construct")],
                  [vi("x", TensorProto.FLOAT, ["n"])], [seq_vi("s", TensorProto.FLOAT)],
                  "cuda_sequences")
        so = os.path.join(self.tmp, "cuda_sequences.so")
        r = run([ONYX_COMPILE, self.save(m, "cuda_sequences"), "--target=cuda", "-o", so],
                timeout=300)
        self.assertEqual(r.rc, 0, r.describe())
        # The signature, read by the onyx package without a session (no GPU
        # here).
        sys.path.insert(0, os.path.join(
            os.path.abspath(os.environ.get("ONYX_BUILD_DIR", os.path.join(REPO, "build"))),
            "python"))
        import onyx
        lines = onyx.artifact_metadata(so).splitlines()
        self.assertIn("output-sequence s 1", lines)
        self.assertIn("device cuda", lines)

if __name__ == "__main__":
    unittest.main()
