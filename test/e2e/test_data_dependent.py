#!/usr/bin/python3
"""End-to-end tests of data-dependent shapes and control flow (issue 7).

Each model is built here with onnx.helper, with symbolic input dims, compiled
once with onyx-compile, and run with onyx-run at several inputs; the outputs
must match a numpy reference exactly (shape and dtype; values exactly for
integers, to 1e-6 relative for floats). The cases are those of the issue:

  * NonZero -> Gather gives exactly the positive elements, including none
    (and the 2-D form through GatherND);
  * Range whose length is a sum of the data;
  * Reshape to a shape given as an input tensor;
  * TopK with k as an input (0, all, ties, smallest);
  * If on a data-dependent condition, branches of different shapes;
  * Loop with a run-time trip count (carried values that grow, scan
    outputs), and a Loop ended by its condition only (the scan stack grows);
  * a Loop inside an If branch;
  * run-time errors (k beyond the axis) are a clean `error:` line;
  * a forced readback failure (--inject-fault / ONYX_FAULT_INJECT) is a
    clean error naming the node and the session stays usable; shape values
    computed with Shape/Gather/Div/Concat need no readback (--stats).

Run with /usr/bin/python3 (Debian's, with onnx and numpy).
"""
import os
import sys
import tempfile
import unittest

import numpy as np
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from onyx_e2e import ONYX_RUN, ModelTestCase, run  # noqa: E402
from onyx_e2e import checked_model, constant_node as const, value_info as vi  # noqa: E402

OPSET = 13


def model(nodes, inputs, outputs, name, opset=OPSET):
    return checked_model(nodes, inputs, outputs, name, opset, ir_version=7)


class DataDependentTest(ModelTestCase):
    tmp_prefix = "onyx-data-dependent-"
    reuse_compiles = True

    # -- helpers ---------------------------------------------------------------

    def execute(self, so, inputs, expect_error=None):
        return self.execute_npy(so, inputs, expect_error)

    def check(self, got, want, what=""):
        want = np.asarray(want)
        self.assertEqual(got.dtype, want.dtype, what)
        self.assertEqual(got.shape, want.shape, what)
        if np.issubdtype(want.dtype, np.floating):
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, err_msg=what)
        else:
            np.testing.assert_array_equal(got, want, err_msg=what)

    # -- NonZero ---------------------------------------------------------------

    def test_nonzero_gather_positive_elements(self):
        so = self.nonzero_gather()
        rng = np.random.default_rng(1)
        cases = [
            rng.standard_normal(17).astype(np.float32),
            -np.abs(rng.standard_normal(9)).astype(np.float32),  # none positive
            np.abs(rng.standard_normal(5)).astype(np.float32) + 1,  # all
            np.zeros(0, np.float32),  # empty input
            np.array([0, 0, 3, 0], np.float32),
        ]
        for x in cases:
            (y,) = self.execute(so, {"x": x})
            self.check(y, x[x > 0], "x=%s" % x)

    def nonzero_gather(self):
        m = model([
            const("zero", np.float32(0)),
            helper.make_node("Greater", ["x", "zero"], ["positive"]),
            helper.make_node("NonZero", ["positive"], ["nz"]),
            const("flat", np.array([-1], np.int64)),
            helper.make_node("Reshape", ["nz", "flat"], ["idx"]),
            helper.make_node("Gather", ["x", "idx"], ["y"], axis=0),
        ], [vi("x", TensorProto.FLOAT, ["n"])], [vi("y", TensorProto.FLOAT, ["m"])],
            "nonzero_gather")
        return self.compile(m, "nonzero_gather")

    def run_with_input(self, so, x, extra, env=None):
        out_dir = tempfile.mkdtemp(dir=self.tmp)
        path = os.path.join(out_dir, "x.npy")
        np.save(path, x)
        cmd = [ONYX_RUN, so, "--output-dir", out_dir, "--input", "x=%s" % path] + extra
        if env:
            cmd = ["env"] + ["%s=%s" % kv for kv in env.items()] + cmd
        r = run(cmd, timeout=120)
        self.assertFalse(r.timed_out, r.describe())
        self.assertIsNotNone(r.rc, r.describe())
        self.assertGreaterEqual(r.rc, 0, "killed by a signal\n" + r.describe())
        return r, out_dir

    def test_readback_fault_injection(self):
        # Two host synchronizations per call: the count NonZero writes, then
        # one before Gather's loop of bounds checks over the computed
        # indices (kernels ran in between). A forced failure of a readback
        # must make the call return an error naming the node, run nothing
        # that depends on it, and leave the session usable: the next call on
        # the same session gives the right answer. readback:3 is the first
        # synchronization of the second call.
        so = self.nonzero_gather()
        x = np.array([1.5, -2, 0, 3, -1], np.float32)
        r, out_dir = self.run_with_input(
            so, x, ["--repeat", "3", "--inject-fault=readback:3", "--stats"])
        self.assertEqual(r.rc, 1, r.describe())
        self.assertEqual(len(r.error_lines), 1, r.describe())
        self.assertIn("error: call 2: node 'NonZero", r.error_lines[0], r.describe())
        self.assertIn("(fault injected)", r.error_lines[0], r.describe())
        # 5, not 6: the failed call stopped at its first synchronization, so
        # the dependent Gather (and its synchronization) never ran.
        self.assertIn("stats: 3 calls, host synchronizations per call: 2 (last), 5 in all",
                      r.stderr, r.describe())
        (y,) = [np.load(os.path.join(out_dir, "output_0.npy"))]
        self.check(y, x[x > 0], "after the injected fault")
        # The same through the environment, on the first synchronization of
        # a single call: one clean error line, exit 1, no output.
        r, out_dir = self.run_with_input(so, x, [], env={"ONYX_FAULT_INJECT": "readback:1"})
        self.assertEqual(r.rc, 1, r.describe())
        self.assertEqual(len(r.error_lines), 1, r.describe())
        self.assertIn("node 'NonZero", r.error_lines[0], r.describe())
        self.assertFalse(os.path.exists(os.path.join(out_dir, "output_0.npy")), r.describe())
        # A malformed switch is an error at session creation.
        r, _ = self.run_with_input(so, x, [], env={"ONYX_FAULT_INJECT": "readback:zero"})
        self.assertEqual(r.rc, 1, r.describe())
        self.assertIn("ONYX_FAULT_INJECT", r.stderr, r.describe())

    def test_shape_computations_need_no_readback(self):
        # A Reshape whose target is computed from Shape with Gather/Div/Mul/
        # Concat (the PyTorch attention pattern) needs no host
        # synchronization: the values are index arithmetic on the dims.
        nodes = [
            helper.make_node("Shape", ["x"], ["s"]),
            const("i0", np.array([0], np.int64)),
            const("i1", np.array([1], np.int64)),
            helper.make_node("Gather", ["s", "i0"], ["b"], axis=0),
            helper.make_node("Gather", ["s", "i1"], ["d"], axis=0),
            const("heads", np.array([4], np.int64)),
            helper.make_node("Div", ["d", "heads"], ["dh"]),
            helper.make_node("Concat", ["b", "heads", "dh"], ["target"], axis=0),
            helper.make_node("Reshape", ["x", "target"], ["y"]),
        ]
        m = model(nodes, [vi("x", TensorProto.FLOAT, ["b", "d"])],
                  [vi("y", TensorProto.FLOAT, ["b", 4, "dh"])], "attention_reshape")
        so = self.compile(m, "attention_reshape")
        x = np.arange(3 * 8, dtype=np.float32).reshape(3, 8)
        r, out_dir = self.run_with_input(so, x, ["--stats"])
        self.assertEqual(r.rc, 0, r.describe())
        self.assertIn("host synchronizations per call: 0 (last)", r.stderr, r.describe())
        self.check(np.load(os.path.join(out_dir, "output_0.npy")), x.reshape(3, 4, 2))

    def test_nonzero_2d_gathernd(self):
        m = model([
            helper.make_node("NonZero", ["x"], ["nz"]),
            helper.make_node("Transpose", ["nz"], ["coords"], perm=[1, 0]),
            helper.make_node("GatherND", ["x", "coords"], ["y"]),
        ], [vi("x", TensorProto.INT64, ["a", "b"])],
            [vi("nz", TensorProto.INT64, [2, "m"]), vi("y", TensorProto.INT64, ["m"])],
            "nonzero_2d")
        so = self.compile(m, "nonzero_2d")
        rng = np.random.default_rng(2)
        for shape in [(3, 4), (1, 7), (5, 1), (0, 3)]:
            x = rng.integers(-2, 3, shape).astype(np.int64)
            x[x < 0] = 0
            nz, y = self.execute(so, {"x": x})
            self.check(nz, np.array(np.nonzero(x), np.int64), "nonzero of %s" % x)
            self.check(y, x[np.nonzero(x)], "gathered of %s" % x)
        (nz, y) = self.execute(so, {"x": np.zeros((2, 2), np.int64)})
        self.check(nz, np.zeros((2, 0), np.int64))

    # -- Range -----------------------------------------------------------------

    def test_range_length_is_sum_of_data(self):
        m = model([
            helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
            const("start", np.int64(0)),
            const("delta", np.int64(1)),
            helper.make_node("Range", ["start", "s", "delta"], ["y"]),
        ], [vi("x", TensorProto.INT64, ["n"])], [vi("y", TensorProto.INT64, ["m"])],
            "range_sum")
        so = self.compile(m, "range_sum")
        for x in [[1, 2, 3], [0], [4, -1, 0, 2], [-3, 1], []]:
            x = np.array(x, np.int64)
            (y,) = self.execute(so, {"x": x})
            self.check(y, np.arange(0, x.sum(), 1, dtype=np.int64), "x=%s" % x)

    # -- Reshape ---------------------------------------------------------------

    def test_reshape_from_input_tensor(self):
        m = model([
            helper.make_node("Reshape", ["x", "shape"], ["y"]),
        ], [vi("x", TensorProto.FLOAT, ["a", "b"]), vi("shape", TensorProto.INT64, [3])],
            [vi("y", TensorProto.FLOAT, ["p", "q", "r"])], "reshape_input")
        so = self.compile(m, "reshape_input")
        x = np.arange(24, dtype=np.float32).reshape(4, 6)
        for shape, want in [([2, 3, 4], (2, 3, 4)), ([-1, 2, 2], (6, 2, 2)),
                            ([0, 3, 2], (4, 3, 2)), ([1, 1, 24], (1, 1, 24))]:
            (y,) = self.execute(so, {"x": x, "shape": np.array(shape, np.int64)})
            self.check(y, x.reshape(want), "shape=%s" % shape)
        self.execute(so, {"x": x, "shape": np.array([5, 5, 1], np.int64)},
                     expect_error="Reshape")

    # -- TopK ------------------------------------------------------------------

    def topk_model(self, largest):
        return model([
            helper.make_node("TopK", ["x", "k"], ["values", "indices"], axis=1,
                             largest=largest),
        ], [vi("x", TensorProto.FLOAT, ["a", "b"]), vi("k", TensorProto.INT64, [1])],
            [vi("values", TensorProto.FLOAT, ["a", "k"]),
             vi("indices", TensorProto.INT64, ["a", "k"])], "topk_%d" % largest)

    @staticmethod
    def topk_reference(x, k, largest):
        # Stable sort by value (descending or ascending): ties keep the lower
        # index first, as ONNX requires.
        order = np.argsort(-x if largest else x, axis=1, kind="stable")[:, :k]
        return np.take_along_axis(x, order, axis=1), order.astype(np.int64)

    def test_topk_k_from_input(self):
        for largest in (1, 0):
            so = self.compile(self.topk_model(largest), "topk_%d" % largest)
            rng = np.random.default_rng(3)
            x = rng.integers(0, 5, (3, 8)).astype(np.float32)  # many ties
            for k in [0, 1, 3, 8]:
                values, indices = self.execute(so, {"x": x, "k": np.array([k], np.int64)})
                want_v, want_i = self.topk_reference(x, k, largest)
                self.check(values, want_v, "largest=%d k=%d" % (largest, k))
                self.check(indices, want_i, "largest=%d k=%d" % (largest, k))

    def test_topk_k_beyond_axis_is_an_error(self):
        so = self.compile(self.topk_model(1), "topk_1")
        self.execute(so, {"x": np.zeros((2, 3), np.float32), "k": np.array([4], np.int64)},
                     expect_error="exceeds the axis extent")

    # -- If --------------------------------------------------------------------

    def test_if_on_data_dependent_condition(self):
        two = helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])
        then_g = helper.make_graph(
            [helper.make_node("Constant", [], ["c2"], value=two),
             helper.make_node("Mul", ["x", "c2"], ["doubled"])],
            "then", [], [vi("doubled", TensorProto.FLOAT, ["n"])])
        else_g = helper.make_graph(
            [const("starts", np.array([0], np.int64)),
             const("ends", np.array([2], np.int64)),
             helper.make_node("Slice", ["x", "starts", "ends"], ["head"]),
             helper.make_node("Neg", ["head"], ["negated"])],
            "else", [], [vi("negated", TensorProto.FLOAT, [None])])
        m = model([
            helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
            const("zero", np.float32(0)),
            helper.make_node("Greater", ["s", "zero"], ["cond"]),
            helper.make_node("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g),
        ], [vi("x", TensorProto.FLOAT, ["n"])], [vi("y", TensorProto.FLOAT, [None])],
            "if_data")
        so = self.compile(m, "if_data")
        for x in [[1, 2, 3], [-1, -2, -3, 4], [-5, 1], [3]]:
            x = np.array(x, np.float32)
            (y,) = self.execute(so, {"x": x})
            want = x * 2 if x.sum() > 0 else -x[:2]
            self.check(y, want, "x=%s" % x)

    # -- Scan before opset 9 ------------------------------------------------

    def test_scan_opset8_batch_axis(self):
        # Scan-8: every state and scan input has a batch axis; each batch
        # element is its own scan (here reversed); scan outputs in
        # iteration order.
        f2 = [vi(n, TensorProto.FLOAT, [2])
              for n in ("sum_in", "next", "sum_out", "scan_out")]
        body = helper.make_graph(
            [helper.make_node("Add", ["sum_in", "next"], ["sum_out"]),
             helper.make_node("Identity", ["sum_out"], ["scan_out"])],
            "body", f2[:2], f2[2:])
        m = model(
            [helper.make_node("Scan", ["", "init", "x"], ["y", "z"], body=body,
                              num_scan_inputs=1, directions=[1])],
            [vi("init", TensorProto.FLOAT, ["b", 2]),
             vi("x", TensorProto.FLOAT, ["b", "t", 2])],
            [vi("y", TensorProto.FLOAT, ["b", 2]),
             vi("z", TensorProto.FLOAT, ["b", "t", 2])], "scan8", opset=8)
        so = self.compile(m, "scan8")
        rng = np.random.default_rng(8)
        for b, t in [(1, 3), (2, 4), (5, 1)]:
            init = rng.standard_normal((b, 2)).astype(np.float32)
            x = rng.standard_normal((b, t, 2)).astype(np.float32)
            y, z = self.execute(so, {"init": init, "x": x})
            want_y, want_z = init.copy(), np.zeros_like(x)
            for i in range(b):
                for k, step in enumerate(reversed(range(t))):
                    want_y[i] = want_y[i] + x[i, step]
                    want_z[i, k] = want_y[i]
            self.check(y, want_y, "b=%d t=%d" % (b, t))
            self.check(z, want_z, "b=%d t=%d" % (b, t))

    # -- Loop ------------------------------------------------------------------

    def test_loop_with_runtime_trip_count(self):
        # for i in range(M): v = v + 1; acc = concat(acc, [i]); scan v
        body = helper.make_graph(
            [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
             const("one", np.float32(1)),
             helper.make_node("Add", ["v_in", "one"], ["v_out"]),
             const("axes", np.array([0], np.int64)),
             helper.make_node("Unsqueeze", ["i", "axes"], ["i1"]),
             helper.make_node("Concat", ["acc_in", "i1"], ["acc_out"], axis=0),
             helper.make_node("Identity", ["v_out"], ["scan"])],
            "body",
            [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
             vi("v_in", TensorProto.FLOAT, [2]), vi("acc_in", TensorProto.INT64, [None])],
            [vi("cond_out", TensorProto.BOOL, []), vi("v_out", TensorProto.FLOAT, [2]),
             vi("acc_out", TensorProto.INT64, [None]), vi("scan", TensorProto.FLOAT, [2])])
        m = model([
            const("acc0", np.zeros(0, np.int64)),
            helper.make_node("Loop", ["M", "", "x", "acc0"], ["v", "acc", "scans"], body=body),
        ], [vi("M", TensorProto.INT64, []), vi("x", TensorProto.FLOAT, [2])],
            [vi("v", TensorProto.FLOAT, [2]), vi("acc", TensorProto.INT64, [None]),
             vi("scans", TensorProto.FLOAT, [None, 2])], "loop_trip")
        so = self.compile(m, "loop_trip")
        x = np.array([0.5, -1.0], np.float32)
        for trips in [0, 1, 5, 13]:
            v, acc, scans = self.execute(so, {"M": np.array(trips, np.int64), "x": x})
            self.check(v, x + trips, "M=%d" % trips)
            self.check(acc, np.arange(trips, dtype=np.int64), "M=%d" % trips)
            self.check(scans, np.stack([x + i + 1 for i in range(trips)]).astype(np.float32)
                       if trips else np.zeros((0, 2), np.float32), "M=%d" % trips)

    def test_loop_ended_by_condition(self):
        # i = 0; while cond: i += 1; cond = i < limit; scan [i, 2i] (the
        # stack of scan outputs grows: the iteration count is not known).
        body = helper.make_graph(
            [const("one", np.int64(1)),
             helper.make_node("Add", ["j", "one"], ["j_out"]),
             helper.make_node("Less", ["j_out", "limit"], ["cond_out"]),
             helper.make_node("Add", ["j_out", "j_out"], ["twice"]),
             const("axes", np.array([0], np.int64)),
             helper.make_node("Unsqueeze", ["j_out", "axes"], ["a"]),
             helper.make_node("Unsqueeze", ["twice", "axes"], ["b"]),
             helper.make_node("Concat", ["a", "b"], ["pair"], axis=0)],
            "body",
            [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
             vi("j", TensorProto.INT64, [])],
            [vi("cond_out", TensorProto.BOOL, []), vi("j_out", TensorProto.INT64, []),
             vi("pair", TensorProto.INT64, [2])])
        m = model([
            const("true", np.array(True)),
            const("j0", np.int64(0)),
            helper.make_node("Loop", ["", "true", "j0"], ["j", "pairs"], body=body),
        ], [vi("limit", TensorProto.INT64, [])],
            [vi("j", TensorProto.INT64, []), vi("pairs", TensorProto.INT64, [None, 2])],
            "loop_cond")
        so = self.compile(m, "loop_cond")
        for limit in [1, 2, 7, 40]:
            j, pairs = self.execute(so, {"limit": np.array(limit, np.int64)})
            self.check(j, np.array(limit, np.int64), "limit=%d" % limit)
            want = np.array([[i, 2 * i] for i in range(1, limit + 1)], np.int64)
            self.check(pairs, want, "limit=%d" % limit)

    def test_loop_condition_with_dynamic_scan_element(self):
        # The scan element's length is the input's (unknown at compile time),
        # and the iteration count comes from the condition: the stack of
        # scan outputs is reallocated as it grows.
        body = helper.make_graph(
            [const("one", np.int64(1)),
             helper.make_node("Add", ["j", "one"], ["j_out"]),
             helper.make_node("Less", ["j_out", "limit"], ["cond_out"]),
             helper.make_node("Cast", ["j_out"], ["jf"], to=TensorProto.FLOAT),
             helper.make_node("Mul", ["x", "jf"], ["row"])],
            "body",
            [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
             vi("j", TensorProto.INT64, [])],
            [vi("cond_out", TensorProto.BOOL, []), vi("j_out", TensorProto.INT64, []),
             vi("row", TensorProto.FLOAT, ["n"])])
        m = model([
            const("true", np.array(True)),
            const("j0", np.int64(0)),
            helper.make_node("Loop", ["", "true", "j0"], ["j", "rows"], body=body),
        ], [vi("limit", TensorProto.INT64, []), vi("x", TensorProto.FLOAT, ["n"])],
            [vi("j", TensorProto.INT64, []), vi("rows", TensorProto.FLOAT, [None, "n"])],
            "loop_rows")
        so = self.compile(m, "loop_rows")
        for limit, n in [(1, 3), (9, 2), (20, 5)]:
            x = np.arange(1, n + 1, dtype=np.float32)
            j, rows = self.execute(so, {"limit": np.array(limit, np.int64), "x": x})
            self.check(j, np.array(limit, np.int64))
            self.check(rows, np.stack([x * i for i in range(1, limit + 1)]), "limit=%d" % limit)

    def test_scan_axes_and_directions(self):
        # Scan along axis 1 in reverse; the scan output stacked along axis 1,
        # reversed too.
        body = helper.make_graph(
            [helper.make_node("Add", ["s", "e"], ["s_out"]),
             helper.make_node("Identity", ["s_out"], ["o"])],
            "body",
            [vi("s", TensorProto.FLOAT, ["n"]), vi("e", TensorProto.FLOAT, ["n"])],
            [vi("s_out", TensorProto.FLOAT, ["n"]), vi("o", TensorProto.FLOAT, ["n"])])
        m = model([
            helper.make_node("Scan", ["s0", "x"], ["s", "out"], body=body,
                             num_scan_inputs=1, scan_input_axes=[1],
                             scan_input_directions=[1], scan_output_axes=[1],
                             scan_output_directions=[1]),
        ], [vi("s0", TensorProto.FLOAT, ["n"]), vi("x", TensorProto.FLOAT, ["n", "L"])],
            [vi("s", TensorProto.FLOAT, ["n"]), vi("out", TensorProto.FLOAT, ["n", "L"])],
            "scan_axes")
        so = self.compile(m, "scan_axes")
        rng = np.random.default_rng(5)
        for n, length in [(2, 3), (4, 1), (3, 6)]:
            s0 = rng.standard_normal(n).astype(np.float32)
            x = rng.standard_normal((n, length)).astype(np.float32)
            s, out = self.execute(so, {"s0": s0, "x": x})
            acc = s0.copy()
            want = np.zeros((n, length), np.float32)
            for t in range(length):
                acc = acc + x[:, length - 1 - t]
                want[:, length - 1 - t] = acc
            self.check(s, acc, "n=%d L=%d" % (n, length))
            self.check(out, want, "n=%d L=%d" % (n, length))

    def test_unique_and_compress_on_computed_data(self):
        # Unique (sorted) of a computed tensor, then Compress with a
        # condition computed from the data.
        m = model([
            const("two", np.int64(2)),
            helper.make_node("Mod", ["x", "two"], ["r"]),
            helper.make_node("Unique", ["x"], ["u", "idx", "inv", "cnt"], sorted=1),
            const("zero", np.int64(0)),
            helper.make_node("Equal", ["r", "zero"], ["even"]),
            helper.make_node("Compress", ["x", "even"], ["evens"], axis=0),
        ], [vi("x", TensorProto.INT64, ["n"])],
            [vi("u", TensorProto.INT64, ["u"]), vi("idx", TensorProto.INT64, ["u"]),
             vi("inv", TensorProto.INT64, ["n"]), vi("cnt", TensorProto.INT64, ["u"]),
             vi("evens", TensorProto.INT64, ["e"])], "unique_compress")
        so = self.compile(m, "unique_compress")
        for x in [[3, 1, 4, 1, 5, 9, 2, 6, 5, 3], [7], [1, 3, 5], [2, 2, 2, 2]]:
            x = np.array(x, np.int64)
            u, idx, inv, cnt, evens = self.execute(so, {"x": x})
            wu, widx, winv, wcnt = np.unique(x, return_index=True, return_inverse=True,
                                             return_counts=True)
            self.check(u, wu)
            self.check(idx, widx.astype(np.int64))
            self.check(inv, winv.astype(np.int64).reshape(-1))
            self.check(cnt, wcnt.astype(np.int64))
            self.check(evens, x[x % 2 == 0], "x=%s" % x)

    def test_loop_inside_if(self):
        # if sum(x) > 0: y = x doubled n times (n = first element) else: y = x
        body = helper.make_graph(
            [helper.make_node("Identity", ["c"], ["c_out"]),
             helper.make_node("Add", ["v", "v"], ["v_out"])],
            "body",
            [vi("i", TensorProto.INT64, []), vi("c", TensorProto.BOOL, []),
             vi("v", TensorProto.FLOAT, ["n"])],
            [vi("c_out", TensorProto.BOOL, []), vi("v_out", TensorProto.FLOAT, ["n"])])
        then_g = helper.make_graph(
            [helper.make_node("Loop", ["trips", "", "x"], ["looped"], body=body)],
            "then", [], [vi("looped", TensorProto.FLOAT, ["n"])])
        else_g = helper.make_graph(
            [helper.make_node("Identity", ["x"], ["same"])],
            "else", [], [vi("same", TensorProto.FLOAT, ["n"])])
        m = model([
            helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
            const("zero", np.float32(0)),
            helper.make_node("Greater", ["s", "zero"], ["cond"]),
            const("first", np.array([0], np.int64)),
            helper.make_node("Gather", ["x", "first"], ["x0"], axis=0),
            helper.make_node("Cast", ["x0"], ["t1"], to=TensorProto.INT64),
            helper.make_node("ReduceMax", ["t1"], ["trips"], keepdims=0),
            helper.make_node("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g),
        ], [vi("x", TensorProto.FLOAT, ["n"])], [vi("y", TensorProto.FLOAT, ["n"])],
            "loop_in_if")
        so = self.compile(m, "loop_in_if")
        for x in [[3, 1], [0, 5, 1], [-2, 1], [2]]:
            x = np.array(x, np.float32)
            (y,) = self.execute(so, {"x": x})
            want = x * (2 ** int(x[0])) if x.sum() > 0 else x
            self.check(y, want.astype(np.float32), "x=%s" % x)


if __name__ == "__main__":
    unittest.main(verbosity=2)
