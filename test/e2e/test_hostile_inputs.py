#!/usr/bin/python3
"""Hostile and careless inputs at run time (issue 19): each case ends in a
correct result or one clean `error:` line, never a signal or a leak.

  * bool inputs whose bytes are not 0/1 (a valid numpy bool array, e.g. a
    uint8 view): Compress, NonZero, Where, Not and If see any non-zero byte
    as true, as numpy does (docs/runtime.md, "Bool inputs");
  * Unique with several NaNs (it segfaulted): every NaN is one value,
    sorted last, as numpy.unique (equal_nan=True) and so the ONNX reference
    give; entries along an axis compare elementwise the same way;
  * ArgMax/ArgMin/Hardmax/TopK with NaNs: NaN is the extreme (the first,
    or the last with select_last_index) and TopK orders it above every
    number, as numpy, the ONNX reference and PyTorch do;
  * a data-dependent allocation beyond the session's memory limit
    (ONYX_MAX_ALLOC_BYTES, default the machine's memory) is one clean error
    naming the allocation and the bytes (docs/runtime.md, "Memory limit").

Run with /usr/bin/python3 (Debian's, with onnx and numpy).
"""
import contextlib
import os
import sys
import unittest

import numpy as np
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from onyx_e2e import ModelTestCase  # noqa: E402
from onyx_e2e import checked_model, constant_node as const, value_info as vi  # noqa: E402


@contextlib.contextmanager
def memory_limit(value):
    """ONYX_MAX_ALLOC_BYTES=value for the sessions created inside; the
    previous value (or none) afterwards."""
    saved = os.environ.get("ONYX_MAX_ALLOC_BYTES")
    os.environ["ONYX_MAX_ALLOC_BYTES"] = value
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("ONYX_MAX_ALLOC_BYTES", None)
        else:
            os.environ["ONYX_MAX_ALLOC_BYTES"] = saved


def model(nodes, inputs, outputs, name, opset=13):
    return checked_model(nodes, inputs, outputs, name, opset, ir_version=7)


class HostileInputs(ModelTestCase):
    tmp_prefix = "onyx-hostile-"
    reuse_compiles = True

    # -- helpers -------------------------------------------------------------

    def execute(self, so, inputs, expect_error=None):
        return self.execute_npy(so, inputs, expect_error)

    def check(self, got, want, what=""):
        want = np.asarray(want)
        self.assertEqual(got.dtype, want.dtype, what)
        self.assertEqual(got.shape, want.shape, what)
        if np.issubdtype(want.dtype, np.floating):
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7,
                                       equal_nan=True, err_msg=what)
        else:
            np.testing.assert_array_equal(got, want, err_msg=what)

    # -- bool inputs whose bytes are not 0/1 -------------------------------------

    @staticmethod
    def bools(byte_values):
        """A numpy bool array holding exactly these bytes (a uint8 view)."""
        return np.array(byte_values, np.uint8).view(np.bool_)

    def test_bool_bytes_other_than_0_and_1(self):
        m = model([
            helper.make_node("Compress", ["x", "m"], ["compressed"], axis=0),
            helper.make_node("NonZero", ["m"], ["nz"]),
            helper.make_node("Neg", ["x"], ["negx"]),
            helper.make_node("Where", ["m", "x", "negx"], ["where"]),
            helper.make_node("Not", ["m"], ["notm"]),
            helper.make_node("Cast", ["m"], ["as_int"], to=TensorProto.INT32),
        ], [vi("x", TensorProto.FLOAT, ["n"]), vi("m", TensorProto.BOOL, ["n"])],
            [vi("compressed", TensorProto.FLOAT, [None]),
             vi("nz", TensorProto.INT64, [1, None]),
             vi("where", TensorProto.FLOAT, ["n"]),
             vi("notm", TensorProto.BOOL, ["n"]),
             vi("as_int", TensorProto.INT32, ["n"])], "bool_bytes")
        so = self.compile(m, "bool_bytes")
        rng = np.random.default_rng(19)
        cases = [
            [2, 0, 4, 0, 255, 1],            # the issue's: 6 elements
            [0, 0, 0],
            [128, 64, 32, 16, 8, 4, 2, 1],
            list(rng.integers(0, 256, 300)),
            list(rng.integers(0, 2, 50) * rng.integers(2, 256, 50)),
        ]
        for bytes_ in cases:
            mask = self.bools(bytes_)
            truth = np.array(bytes_) != 0
            x = np.arange(len(bytes_), dtype=np.float32) + 1
            compressed, nz, where, notm, as_int = self.execute(so, {"x": x, "m": mask})
            what = "bytes=%s" % bytes_[:16]
            self.check(compressed, x[truth], what)
            self.check(nz, np.array(np.nonzero(truth), np.int64), what)
            self.check(where, np.where(truth, x, -x), what)
            self.check(notm, ~truth, what)
            self.assertTrue(set(notm.view(np.uint8).tolist()) <= {0, 1}, what)
            self.check(as_int, truth.astype(np.int32), what)

    def test_if_on_a_bool_byte_with_the_low_bit_clear(self):
        two = helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])
        then_g = helper.make_graph(
            [helper.make_node("Constant", [], ["c2"], value=two),
             helper.make_node("Mul", ["x", "c2"], ["doubled"])],
            "then", [], [vi("doubled", TensorProto.FLOAT, ["n"])])
        else_g = helper.make_graph(
            [helper.make_node("Neg", ["x"], ["negated"])],
            "else", [], [vi("negated", TensorProto.FLOAT, ["n"])])
        m = model([
            helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
        ], [vi("c", TensorProto.BOOL, []), vi("x", TensorProto.FLOAT, ["n"])],
            [vi("y", TensorProto.FLOAT, ["n"])], "if_bool_byte")
        so = self.compile(m, "if_bool_byte")
        x = np.array([1, 2, 3], np.float32)
        for byte in [0, 1, 2, 4, 128, 254, 255]:
            c = np.array(byte, np.uint8).view(np.bool_)
            (y,) = self.execute(so, {"c": c, "x": x})
            self.check(y, x * 2 if byte else -x, "byte %d" % byte)

    # -- Unique with NaNs --------------------------------------------------------

    @staticmethod
    def unique_reference(x, axis, sorted_):
        """Unique with every NaN equal to every NaN and above all numbers
        (numpy.unique's equal_nan=True order, extended to entries along an
        axis lexicographically): (values, indices, inverse, counts)."""
        entries = [x.reshape(-1)[i:i + 1] for i in range(x.size)] if axis is None \
            else [np.take(x, i, axis=axis).reshape(-1) for i in range(x.shape[axis])]

        def key(e):
            return tuple((1, 0.0) if np.isnan(v) else (0, float(v)) for v in e)

        firsts, inverse_first = [], []
        for i, e in enumerate(entries):
            for f in firsts:
                if key(entries[f]) == key(e):
                    inverse_first.append(f)
                    break
            else:
                firsts.append(i)
                inverse_first.append(i)
        order = sorted(firsts, key=lambda f: key(entries[f])) if sorted_ else firsts
        pos = {f: p for p, f in enumerate(order)}
        indices = np.array(order, np.int64)
        inverse = np.array([pos[f] for f in inverse_first], np.int64)
        counts = np.array([inverse_first.count(f) for f in order], np.int64)
        if axis is None:
            values = x.reshape(-1)[indices]
        else:
            values = np.take(x, indices, axis=axis)
        return values, indices, inverse, counts

    def unique_model(self, name, rank, axis, sorted_):
        attrs = {"sorted": sorted_}
        if axis is not None:
            attrs["axis"] = axis
        dims = ["d%d" % i for i in range(rank)]
        m = model([helper.make_node("Unique", ["x"], ["u", "idx", "inv", "cnt"], **attrs)],
                  [vi("x", TensorProto.FLOAT, dims)],
                  [vi("u", TensorProto.FLOAT, ["k"] if axis is None else
                      [("k" if i == axis else d) for i, d in enumerate(dims)]),
                   vi("idx", TensorProto.INT64, ["k"]),
                   vi("inv", TensorProto.INT64, ["n"]), vi("cnt", TensorProto.INT64, ["k"])],
                  name, opset=11)
        return self.compile(m, name)

    def test_unique_with_several_nans(self):
        nan = np.nan
        flat = [
            [1, nan, 2, nan, 1],                 # the issue's: more than one NaN
            [nan, nan, nan],
            [nan],
            [3, -0.0, 0.0, nan, -1, nan, 3, np.inf, -np.inf, nan],
            [],
        ]
        for sorted_ in (1, 0):
            so = self.unique_model("unique_nan_s%d" % sorted_, 1, None, sorted_)
            for x in flat:
                x = np.array(x, np.float32)
                u, idx, inv, cnt = self.execute(so, {"x": x})
                wu, widx, winv, wcnt = self.unique_reference(x, None, sorted_)
                what = "sorted=%d x=%s" % (sorted_, x)
                self.check(u, wu, what)
                self.check(idx, widx, what)
                self.check(inv, winv, what)
                self.check(cnt, wcnt, what)
                if sorted_ and x.size:
                    # numpy's own (equal_nan=True) on a flat input.
                    nu, nidx, ninv, ncnt = np.unique(x, return_index=True,
                                                     return_inverse=True,
                                                     return_counts=True)
                    self.check(u, nu, what)
                    self.check(cnt, ncnt.astype(np.int64), what)
                    self.check(inv, ninv.astype(np.int64).reshape(-1), what)
        # Entries along an axis: rows with NaNs in the same places are equal.
        so = self.unique_model("unique_nan_axis0", 2, 0, 1)
        rows = np.array([[1, nan], [0, 5], [1, nan], [nan, nan], [1, 2],
                         [nan, nan], [0, 5]], np.float32)
        u, idx, inv, cnt = self.execute(so, {"x": rows})
        wu, widx, winv, wcnt = self.unique_reference(rows, 0, 1)
        self.check(u, wu, "rows")
        self.check(idx, widx, "rows")
        self.check(inv, winv, "rows")
        self.check(cnt, wcnt, "rows")

    # -- ArgMax, ArgMin, Hardmax and TopK with NaNs ---------------------------

    def test_arg_extremes_and_topk_with_nans(self):
        """A NaN is the extreme of ArgMax and ArgMin (numpy's argmax/argmin,
        the ONNX reference's, PyTorch's): the first NaN, the last with
        select_last_index. TopK orders NaN above every number, equal NaNs by
        index (numpy's sort, the ONNX reference, torch.topk): first with
        largest=1, last with largest=0; every index appears once."""
        nan, inf = np.nan, np.inf
        x = np.array([[1, nan, 3, nan, 2, -inf],
                      [nan, -1, nan, 5, 0, inf],
                      [2, 2, -1, 7, 7, 0],
                      [nan, nan, nan, nan, nan, nan]], np.float32)
        dims = ["r", "c"]
        cases = []
        for op in ("ArgMax", "ArgMin"):
            for last in (0, 1):
                cases.append((op, {"axis": 1, "keepdims": 0,
                                   "select_last_index": last}))
        for op, attrs in cases:
            name = "%s_nan_last%d" % (op.lower(), attrs["select_last_index"])
            m = model([helper.make_node(op, ["x"], ["y"], **attrs)],
                      [vi("x", TensorProto.FLOAT, dims)],
                      [vi("y", TensorProto.INT64, ["r"])], name)
            (y,) = self.execute(self.compile(m, name), {"x": x})
            f = np.argmax if op == "ArgMax" else np.argmin
            if attrs["select_last_index"]:
                want = x.shape[1] - 1 - f(x[:, ::-1], axis=1)
            else:
                want = f(x, axis=1)
            self.check(y, want.astype(np.int64), name)
        # Hardmax: the one-hot of ArgMax's first extreme.
        m = model([helper.make_node("Hardmax", ["x"], ["y"], axis=1)],
                  [vi("x", TensorProto.FLOAT, dims)],
                  [vi("y", TensorProto.FLOAT, dims)], "hardmax_nan")
        (y,) = self.execute(self.compile(m, "hardmax_nan"), {"x": x})
        want = np.zeros_like(x)
        want[np.arange(x.shape[0]), np.argmax(x, axis=1)] = 1
        self.check(y, want, "hardmax")
        # TopK against a stable sort with NaN above every number.
        for largest in (1, 0):
            name = "topk_nan_largest%d" % largest
            m = model([const("k", np.array([4], np.int64)),
                       helper.make_node("TopK", ["x", "k"], ["v", "i"],
                                        axis=1, largest=largest)],
                      [vi("x", TensorProto.FLOAT, dims)],
                      [vi("v", TensorProto.FLOAT, ["r", 4]),
                       vi("i", TensorProto.INT64, ["r", 4])], name)
            v, i = self.execute(self.compile(m, name), {"x": x})
            for r, row in enumerate(x):
                def key(j):
                    val = row[j]
                    rank = (1, 0.0) if np.isnan(val) else (0, float(val))
                    if largest:
                        rank = (-rank[0], -rank[1])
                    return (rank, j)
                order = sorted(range(row.size), key=key)[:4]
                what = "largest=%d row %d" % (largest, r)
                self.check(i[r], np.array(order, np.int64), what)
                self.check(v[r], row[order], what)

    # -- the memory limit -----------------------------------------------------

    def range_model(self):
        m = model([helper.make_node("Range", ["a", "b", "c"], ["y"], name="range")],
                  [vi(n, TensorProto.FLOAT, []) for n in "abc"],
                  [vi("y", TensorProto.FLOAT, ["n"])], "range_limit")
        return self.compile(m, "range_limit")

    def range_inputs(self, limit):
        return {"a": np.float32(0), "b": np.float32(limit), "c": np.float32(1)}

    def test_range_beyond_the_memory_limit(self):
        so = self.range_model()
        # Range(0, 3e9, 1) from three scalars: 12 GB of output. With a 1 GiB
        # limit a clean error naming the output and the bytes; nothing is
        # allocated (it drove the process to the OOM killer).
        with memory_limit("1G"):
            self.execute(so, self.range_inputs(3e9), expect_error=(
                "output 0 'y': 12000000000 bytes would exceed the session's "
                "memory limit of 1073741824 bytes"))
            # Under the limit: a correct result.
            (y,) = self.execute(so, self.range_inputs(1000))
            self.check(y, np.arange(1000, dtype=np.float32))
            os.environ["ONYX_MAX_ALLOC_BYTES"] = "lots"
            self.execute(so, self.range_inputs(10), expect_error="ONYX_MAX_ALLOC_BYTES='lots'")
        # The default limit (the machine's memory) stops 4e18 bytes.
        self.execute(so, self.range_inputs(1e18), expect_error="would exceed the session's memory limit")

    def test_temporary_beyond_the_memory_limit_names_the_node(self):
        # Range(0, 3e9, 1) feeding a Mul and a ReduceSum: the 12 GB range is
        # a temporary in a pool laid out at run time; the error names the
        # node that makes it and its bytes (the pool's planner records each
        # temporary's node, onyxrt_pool_names).
        m = model([helper.make_node("Range", ["a", "b", "c"], ["r"], name="range_node"),
                   helper.make_node("Mul", ["r", "r"], ["sq"], name="square"),
                   helper.make_node("ReduceSum", ["sq"], ["y"], name="total", keepdims=0)],
                  [vi(n, TensorProto.FLOAT, []) for n in "abc"],
                  [vi("y", TensorProto.FLOAT, [])], "range_temp_limit")
        so = self.compile(m, "range_temp_limit")
        with memory_limit("1G"):
            self.execute(so, self.range_inputs(3e9), expect_error=(
                "node 'range_node': growing pool 0 for its temporary of "
                "12000000000 bytes"))
            (y,) = self.execute(so, self.range_inputs(1000))
            want = np.float32(np.sum(np.arange(1000, dtype=np.float64) ** 2))
            np.testing.assert_allclose(y, want, rtol=1e-5)


if __name__ == "__main__":
    unittest.main()
