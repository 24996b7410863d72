#!/usr/bin/python3
"""Exhaustive checks of Onyx's conversions to and from ONNX's newer element
types (docs/element-types.md), beyond the node suite's few values.

Each model is one graph of Cast nodes from one input to every target
(float8e4m3fn, float8e4m3fnuz, float8e5m2, float8e5m2fnuz, float4e2m1 with
saturate 1 and 0; float8e8m0 with every round_mode and saturate), compiled
and run once by onyx-run; the outputs are compared code for code with a
reference computed here independently of the compiler's algorithm:

  - encoding: the nearest value of the target's table of finite values
    (exact rationals), ties to the even code; past the largest finite value
    (the tie point included when the next code is even) it overflows:
    saturate gives the largest finite value, otherwise infinity (e5m2) or
    NaN; NaN gives NaN (float4e2m1 has none: -0, as ml_dtypes, the ONNX
    reference, gives); the FNUZ kinds have no negative zero;
  - float8e8m0: ONNX's to_float8e8m0 on the float32 bits (round_mode up,
    down, nearest; saturate stops at 2^127);
  - decoding: the value of each code, rounded once to the target float.

Inputs: every float16, and float32/float64 values at and around every
rounding boundary of every format plus random bit patterns; every code of
each narrow type (decoding and narrow -> narrow casts); int32 and int4
sources. A NaN output matches any NaN code; every other output must be the
exact code (the sign of zero included). Data movement (Transpose, Reshape,
Concat, Slice, Gather, Expand, Identity) on int4, uint2, float4e2m1, float8e5m2
and float8e8m0 is compared with numpy on the codes.

Run: /usr/bin/python3 test/e2e/test_element_types.py [-v]
"""
import os
import sys
import tempfile
from fractions import Fraction

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onyx_e2e  # noqa: E402

F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ = 17, 18, 19, 20
UINT4, INT4, F4E2M1, F8E8M0, UINT2, INT2 = 21, 22, 23, 24, 25, 26
FLOAT, FLOAT16, DOUBLE, INT32, INT8, UINT8 = 1, 10, 11, 6, 3, 2

# width, exponent bits, mantissa bits, bias, NaN kind, largest finite code
FORMATS = {
    F8E4M3FN: (8, 4, 3, 7, "fn", 0x7E),
    F8E4M3FNUZ: (8, 4, 3, 8, "fnuz", 0x7F),
    F8E5M2: (8, 5, 2, 15, "ieee", 0x7B),
    F8E5M2FNUZ: (8, 5, 2, 16, "fnuz", 0x7F),
    F4E2M1: (4, 2, 1, 1, "none", 0x7),
}
NAMES = {INT4: "int4", UINT2: "uint2", F8E4M3FN: "e4m3fn", F8E4M3FNUZ: "e4m3fnuz", F8E5M2: "e5m2",
         F8E5M2FNUZ: "e5m2fnuz", F4E2M1: "e2m1", F8E8M0: "e8m0"}


def magnitude(fmt, code):
    """Exact value of a non-negative finite code."""
    _, e_bits, m_bits, bias, _, _ = fmt
    e, m = code >> m_bits, code & ((1 << m_bits) - 1)
    if e == 0:
        return Fraction(m, 1 << m_bits) * Fraction(2) ** (1 - bias)
    return (1 + Fraction(m, 1 << m_bits)) * Fraction(2) ** (e - bias)


def decode(code, elem):
    """Exact value of a code as a float (NaN and infinities included)."""
    if elem == F8E8M0:
        return float("nan") if code == 0xFF else 2.0 ** (code - 127)
    fmt = FORMATS[elem]
    width, e_bits, m_bits, _, nan, _ = fmt
    sign = code >> (width - 1)
    mag = code & ((1 << (width - 1)) - 1)
    if nan == "fn" and mag == (1 << (width - 1)) - 1:
        return float("nan")
    if nan == "fnuz" and code == 1 << (width - 1):
        return float("nan")
    if nan == "ieee" and mag >> m_bits == (1 << e_bits) - 1:
        if mag & ((1 << m_bits) - 1):
            return float("nan")
        return float("-inf") if sign else float("inf")
    v = float(magnitude(fmt, mag))  # exact
    return -v if sign else v  # -0.0 keeps its sign


def is_nan_code(code, elem):
    v = decode(code, elem)
    return isinstance(v, float) and v != v


def encode(xs, elem, saturate):
    """Reference codes of float64 values `xs` in format elem (None: any
    NaN). Every magnitude of these formats and every midpoint between two
    of them is exact in float64, so the comparisons below are exact."""
    width, _, _, _, nan, max_code = FORMATS[elem]
    fmt = FORMATS[elem]
    sign_bit = 1 << (width - 1)
    if nan == "none":
        saturate = True
    mags = np.array([float(magnitude(fmt, c)) for c in range(max_code + 1)])
    over = 2 * mags[-1] - mags[-2]  # the value code max_code + 1 would have
    ext = np.append(mags, [over, np.inf])
    xs = np.asarray(xs, np.float64)
    a = np.abs(xs)
    with np.errstate(invalid="ignore"):
        lo = np.clip(np.searchsorted(ext, a, side="right") - 1, 0, len(ext) - 2)
        mid = (ext[lo] + ext[np.minimum(lo + 1, len(ext) - 1)]) / 2
        code = np.where(a < mid, lo, np.where(a > mid, lo + 1,
                                              np.where(lo % 2 == 0, lo, lo + 1)))
    neg = np.signbit(xs)
    out = []
    for x, c, n in zip(xs.tolist(), code.tolist(), neg.tolist()):
        if x != x:
            # float4e2m1 has no NaN: -0, as ml_dtypes (the reference) gives.
            out.append(sign_bit if nan == "none" else None)
            continue
        if c > max_code or x in (float("inf"), float("-inf")):
            if saturate:
                c = max_code
            elif nan == "ieee":
                out.append(max_code + 1 + (sign_bit if n else 0))
                continue
            else:
                out.append(None)
                continue
        if nan == "fnuz" and c == 0:
            out.append(0)
            continue
        out.append(c + (sign_bit if n else 0))
    return out


def encode_e8m0(x32, saturate, mode):
    """ONNX's float8e8m0 conversion of float32 x32 (a numpy float32)."""
    bits = int(np.float32(x32).view(np.uint32))
    exponent = (bits >> 23) & 0xFF
    if exponent == 0xFF:
        return 0xFF
    if mode == "up":
        up = (bits & 0x7FFFFF) != 0
    elif mode == "down":
        up = False
    else:
        g, r, s = bits & 0x400000, bits & 0x200000, bits & 0x1FFFFF
        up = bool(g) and (bool(r) or bool(s) or exponent > 0)
    if saturate and exponent == 0xFE:
        up = False
    return (exponent + int(up)) & 0xFF


# -- inputs -------------------------------------------------------------------

def boundary_values(np_type):
    """Values at and around every rounding boundary of every format, in
    np_type (float32 or float64), both signs, plus specials."""
    vals = set()
    for elem, fmt in FORMATS.items():
        max_code = fmt[5]
        mags = [magnitude(fmt, c) for c in range(max_code + 1)]
        mags.append(2 * mags[-1] - mags[-2])  # the overflow point
        pts = mags + [(mags[i] + mags[i + 1]) / 2 for i in range(len(mags) - 1)]
        pts += [mags[-1] * 4, mags[1] / 4]
        for p in pts:
            v = np_type(float(p))
            for w in (v, np.nextafter(v, np_type(np.inf)),
                      np.nextafter(v, np_type(-np.inf))):
                vals.add(float(w))
    for e in range(-130, 130):  # e8m0 boundaries: powers of two
        v = np_type(2.0 ** e)
        for w in (v, np.nextafter(v, np_type(np.inf)),
                  np.nextafter(v, np_type(0))):
            vals.add(float(w))
    vals |= {0.0, float("inf"), 1e-45, 1e30, 3.5e38}
    out = sorted(vals) + [-v for v in sorted(vals)] + [float("nan"), -0.0]
    rng = np.random.default_rng(7)
    if np_type is np.float32:
        rand = rng.integers(0, 2 ** 32, 200000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    else:
        rand = rng.integers(0, 2 ** 63, 100000, dtype=np.int64).view(np.float64)
        rand = np.concatenate([rand, rng.standard_normal(50000) * 300])
    return np.concatenate([np.array(out, np_type), rand.astype(np_type)])


# -- running ------------------------------------------------------------------

def tensor_proto(array, elem):
    """raw_data; 4-bit and 2-bit codes packed as ONNX stores them."""
    t = TensorProto()
    t.data_type = elem
    t.dims.extend(array.shape)
    bits = {UINT4: 4, INT4: 4, F4E2M1: 4, UINT2: 2, INT2: 2}.get(elem)
    if bits:
        codes = array.astype(np.uint8).ravel().tolist()
        per = 8 // bits
        packed = bytearray((len(codes) + per - 1) // per)
        for i, c in enumerate(codes):
            packed[i // per] |= (c & ((1 << bits) - 1)) << (bits * (i % per))
        t.raw_data = bytes(packed)
    else:
        t.raw_data = array.tobytes()
    return t


def cast_targets():
    """(output name, to, attributes) of every Cast into a narrow float."""
    out = []
    for elem in FORMATS:
        for sat in (1, 0):
            out.append(("%s_sat%d" % (NAMES[elem], sat), elem, {"saturate": sat}))
    for sat in (1, 0):
        for mode in ("up", "down", "nearest"):
            out.append(("e8m0_%s_sat%d" % (mode, sat), F8E8M0,
                        {"saturate": sat, "round_mode": mode}))
    return out


def run_model(tmp, name, in_elem, array, casts):
    """Runs x -> Cast(to=...) for each (out, to, attrs); returns the
    outputs as numpy arrays keyed by out."""
    nodes = [helper.make_node("Cast", ["x"], [o], name=o, to=to, **attrs)
             for o, to, attrs in casts]
    outputs = [helper.make_tensor_value_info(o, to, list(array.shape))
               for o, to, _ in casts]
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info(
        "x", in_elem, list(array.shape))], outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])
    model.ir_version = 10
    path = os.path.join(tmp, name + ".onnx")
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    pb = os.path.join(tmp, name + "-x.pb")
    with open(pb, "wb") as f:
        f.write(tensor_proto(array, in_elem).SerializeToString())
    out_dir = os.path.join(tmp, name + "-out")
    r = onyx_e2e.run([onyx_e2e.ONYX_RUN, path, "--input", "x=" + pb,
                      "--output-dir", out_dir], timeout=600)
    if r.rc != 0:
        raise AssertionError(r.describe())
    return {o: np.load(os.path.join(out_dir, "output_%d.npy" % i))
            for i, (o, _, _) in enumerate(casts)}


class Checker:
    def __init__(self, verbose):
        self.failures, self.checked, self.verbose = [], 0, verbose

    def codes(self, what, inputs, got, expected, elem):
        """`expected`: a code per input, None for "any NaN"."""
        bad = 0
        for x, g, e in zip(inputs, got.tolist(), expected):
            self.checked += 1
            ok = is_nan_code(g, elem) if e is None else g == e
            if not ok:
                bad += 1
                if bad <= 5:
                    self.failures.append("%s: %r -> 0x%02x, expected %s" % (
                        what, x, g, "NaN" if e is None else "0x%02x" % e))
        if bad > 5:
            self.failures.append("%s: %d more mismatches" % (what, bad - 5))
        if self.verbose:
            print("  %-40s %7d values, %d wrong" % (what, len(expected), bad))


def check_encoding(chk, tmp, in_elem, array):
    outs = run_model(tmp, "enc_%d" % in_elem, in_elem, array, cast_targets())
    with np.errstate(invalid="ignore"):
        xs = [float(v) for v in array.astype(np.float64)]
    with np.errstate(over="ignore", invalid="ignore"):
        x32 = array.astype(np.float32)  # e8m0 converts through float32 (ONNX)
    for o, to, attrs in cast_targets():
        if to == F8E8M0:
            exp = [encode_e8m0(v, attrs["saturate"], attrs["round_mode"]) for v in x32]
            exp = [None if e == 0xFF else e for e in exp]
        else:
            exp = encode(xs, to, attrs["saturate"])
        chk.codes("%s -> %s" % (np.dtype(array.dtype).name, o), xs, outs[o], exp, to)


def check_decoding(chk, tmp):
    for elem in list(FORMATS) + [F8E8M0]:
        n = 16 if elem == F4E2M1 else 256
        codes = np.arange(n, dtype=np.uint8)
        targets = [("f32", FLOAT, {}), ("f16", FLOAT16, {}), ("f64", DOUBLE, {})]
        narrow = [(NAMES[t] + "_sat%d" % s, t, {"saturate": s})
                  for t in FORMATS for s in (1, 0) if t != elem]
        outs = run_model(tmp, "dec_%d" % elem, elem, codes, targets + narrow)
        values = [decode(int(c), elem) for c in codes]
        for o, to, _ in targets:
            np_t = {FLOAT: np.float32, FLOAT16: np.float16, DOUBLE: np.float64}[to]
            with np.errstate(over="ignore"):
                want = np.array(values, np.float64).astype(np_t)
            got = outs[o]
            self_ok = (got.dtype == want.dtype and np.array_equal(
                got.view(np.uint8), want.view(np.uint8))) or np.array_equal(got, want, equal_nan=True)
            chk.checked += n
            if not self_ok:
                diff = [(int(c), float(g), float(w)) for c, g, w in zip(codes, got, want)
                        if not (g == w or (g != g and w != w))]
                chk.failures.append("%s -> %s: %d wrong, e.g. %s" % (NAMES[elem], o, len(diff), diff[:3]))
        for o, to, attrs in narrow:
            exp = encode([float(v) for v in values], to, attrs["saturate"])
            chk.codes("%s -> %s" % (NAMES[elem], o), values, outs[o], exp, to)


def check_integers(chk, tmp):
    ints = np.array(list(range(-600, 601)) + [-70000, -65536, 65535, 65536, 70000,
                                              2 ** 31 - 1, -2 ** 31], np.int32)
    outs = run_model(tmp, "enc_int", INT32, ints, [c for c in cast_targets() if c[1] != F8E8M0])
    for o, to, attrs in cast_targets():
        if to == F8E8M0:
            continue
        exp = encode(ints.astype(np.float64), to, attrs["saturate"])
        chk.codes("int32 -> %s" % o, ints.tolist(), outs[o], exp, to)
    # int4 -> every narrow float, and float -> int4/uint4/int2/uint2 (wrap).
    codes = np.arange(16, dtype=np.uint8)
    outs = run_model(tmp, "enc_int4", INT4, codes, [c for c in cast_targets() if c[1] != F8E8M0])
    vals = [c - 16 if c >= 8 else c for c in codes.tolist()]
    for o, to, attrs in cast_targets():
        if to != F8E8M0:
            chk.codes("int4 -> %s" % o, vals, outs[o],
                      encode(np.array(vals, np.float64), to, attrs["saturate"]), to)
    xs = np.array([-20.75, -9.5, -8, -7.9, -2.5, -1, -0.5, 0, 0.5, 1.99, 2, 7, 7.5, 8, 15.9, 16, 19.25], np.float32)
    ints_out = run_model(tmp, "to_int", FLOAT, xs, [("i4", INT4, {}), ("u4", UINT4, {}),
                                                   ("i2", INT2, {}), ("u2", UINT2, {})])
    for o, bits, signed in (("i4", 4, True), ("u4", 4, False), ("i2", 2, True), ("u2", 2, False)):
        exp = []
        for x in xs.tolist():
            w = int(x) & ((1 << bits) - 1)  # truncate toward zero, then wrap
            exp.append(w - (1 << bits) if signed and w >= 1 << (bits - 1) else w)
        got = ints_out[o].tolist()
        chk.checked += len(exp)
        if got != exp:
            chk.failures.append("float -> %s: got %s, expected %s" % (o, got, exp))


def check_data_movement(chk, tmp):
    """Data movement on the sub-byte and float8 types moves codes: Transpose,
    Reshape, Concat, Slice, Gather, Expand, Identity against numpy on the
    codes (the .npy forms of docs/testing.md)."""
    rng = np.random.default_rng(11)
    for elem, n_codes, npy in ((INT4, 16, np.int8), (UINT2, 4, np.uint8),
                               (F4E2M1, 16, np.uint8), (F8E5M2, 256, np.uint8),
                               (F8E8M0, 256, np.uint8)):
        codes = rng.integers(0, n_codes, (2, 3, 4)).astype(np.uint8)
        consts = [helper.make_tensor("shape", 7, [2], [4, 6]),
                  helper.make_tensor("starts", 7, [1], [1]),
                  helper.make_tensor("ends", 7, [1], [3]),
                  helper.make_tensor("axes", 7, [1], [2]),
                  helper.make_tensor("idx", 7, [2], [2, 0]),
                  helper.make_tensor("eshape", 7, [4], [2, 2, 3, 4])]
        nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=[2, 0, 1]),
                 helper.make_node("Reshape", ["x", "shape"], ["r"]),
                 helper.make_node("Concat", ["x", "x"], ["c"], axis=1),
                 helper.make_node("Slice", ["x", "starts", "ends", "axes"], ["s"]),
                 helper.make_node("Gather", ["x", "idx"], ["g"], axis=1),
                 helper.make_node("Expand", ["x", "eshape"], ["e"]),
                 helper.make_node("Identity", ["x"], ["i"])]
        shapes = {"t": [4, 2, 3], "r": [4, 6], "c": [2, 6, 4], "s": [2, 3, 2],
                  "g": [2, 2, 4], "e": [2, 2, 3, 4], "i": [2, 3, 4]}
        outs = [helper.make_tensor_value_info(k, elem, v) for k, v in shapes.items()]
        graph = helper.make_graph(
            nodes, "moves", [helper.make_tensor_value_info("x", elem, [2, 3, 4])],
            outs, initializer=consts)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])
        model.ir_version = 10
        name = "moves_%d" % elem
        path = os.path.join(tmp, name + ".onnx")
        with open(path, "wb") as f:
            f.write(model.SerializeToString())
        pb = os.path.join(tmp, name + "-x.pb")
        with open(pb, "wb") as f:
            f.write(tensor_proto(codes, elem).SerializeToString())
        out_dir = os.path.join(tmp, name + "-out")
        r = onyx_e2e.run([onyx_e2e.ONYX_RUN, path, "--input", "x=" + pb,
                          "--output-dir", out_dir], timeout=600)
        if r.rc != 0:
            chk.failures.append("data movement on %s: %s" % (NAMES.get(elem, elem), r.describe()))
            continue
        vals = codes.astype(np.int16)
        if elem == INT4:
            vals = np.where(vals >= 8, vals - 16, vals)
        x = vals.astype(npy)
        want = {"t": x.transpose(2, 0, 1), "r": x.reshape(4, 6),
                "c": np.concatenate([x, x], 1), "s": x[:, :, 1:3],
                "g": x[:, [2, 0], :], "e": np.broadcast_to(x, (2, 2, 3, 4)), "i": x}
        for k, (o, w) in enumerate(want.items()):
            got = np.load(os.path.join(out_dir, "output_%d.npy" % k))
            chk.checked += w.size
            if got.dtype != w.dtype or not np.array_equal(got, w):
                chk.failures.append("%s on %s: got %s %s, expected %s %s" % (
                    o, NAMES.get(elem, elem), got.dtype, got.ravel()[:8], w.dtype, w.ravel()[:8]))


def main():
    verbose = "-v" in sys.argv
    onyx_e2e.require_tools(onyx_e2e.ONYX_RUN)
    chk = Checker(verbose)
    with tempfile.TemporaryDirectory(prefix="onyx-element-types-") as tmp:
        f16 = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
        check_encoding(chk, tmp, FLOAT16, f16)
        check_encoding(chk, tmp, FLOAT, boundary_values(np.float32))
        check_encoding(chk, tmp, DOUBLE, boundary_values(np.float64))
        check_decoding(chk, tmp)
        check_integers(chk, tmp)
        check_data_movement(chk, tmp)
    for f in chk.failures:
        print("FAIL", f)
    print("%d passed, %d failed" % (0 if chk.failures else 1, 1 if chk.failures else 0))
    print("element types: %d conversions checked, %d failure lines" % (chk.checked, len(chk.failures)))
    return 1 if chk.failures else 0


if __name__ == "__main__":
    sys.exit(main())
