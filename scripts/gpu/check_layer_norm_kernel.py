#!/usr/bin/env python3
"""onyxrt_cuda_layer_norm on the GPU, without the compiler: the runtime's
LayerNorm kernels (runtime/src/cuda/layer_norm.cu) against an fp64
reference and PyTorch.

The runtime is driven through ctypes as a hand-written CUDA artifact would
be (scripts/gpu/cudnn_conv_harness.c does the same in C): a model
descriptor whose metadata declares a CUDA device and no inputs or outputs,
and whose entry is a Python callback that receives the call context and
calls onyxrt_cuda_layer_norm on PyTorch's device buffers (the runtime uses
the device's primary context, as PyTorch does; the buffers are ready
before onyxrt_run starts and the call waits for its own stream).

Checks, for all 27 (x, out, scale/bias) type combinations of f32, f16 and
bf16, with and without bias, at row lengths that reach every kernel
(register kernels of 8-32 elements per lane and 1-8 warps per row, the
three-pass kernel per warp and per block, vectorized and scalar):
  - the error against LayerNorm in fp64 on the same (typed) inputs is at
    most twice PyTorch's (F.layer_norm in fp32, rounded to the output
    type), plus 1e-6 of the output's magnitude;
  - in place (out == x), unaligned views (the scalar path), and
    ONYX_CUDA_LAYER_NORM=passes (the three-pass kernel everywhere);
  - with a residual (x and residual of each type, the sum in f32 or in x's
    type, a sample of out and parameter types, on register and three-pass
    rows): the sum output has the bits of PyTorch's (x.float() +
    residual.float()).to(sum type), out is within the bound above of the
    LayerNorm of that sum, and out2 (f16 / bf16 beside an f32 out) has the
    bits of out.to(out2 type); also in place (sum == x, out == residual),
    through the three-pass kernel, with unaligned views of everything or of
    the residual alone (the scalar path);
  - the error path: a bad type code (of x, or of a residual), a sum
    without a residual, an out over part of the residual, a sum == out, and
    an overlapping out fail with a message that starts with the label; a
    bad type code of an absent operand is ignored; rows == 0 writes
    nothing.
Then times a few transformer shapes against F.layer_norm (wall clock over
a batch of calls in one onyxrt_run, so each side pays its launch cost), two
of them with a residual and a sum (against x + residual, then
F.layer_norm).

There (the `run` tool), DIR holding libonyx_runtime.so and libomp.so.5
(copied here from a build: cp build/lib/libonyx_runtime.so
/usr/lib/llvm-22/lib/libomp.so.5 DIR/):

  python3 scripts/gpu/check_layer_norm_kernel.py --runtime DIR/libonyx_runtime.so

Exit status 0 when every check passed.
"""
import argparse
import ctypes
import os
import sys
import time

import torch
import torch.nn.functional as F

CODES = {"f32": 1, "f16": 10, "bf16": 16}
DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
ENTRY = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p)


class Desc(ctypes.Structure):
    _fields_ = [("abiVersion", ctypes.c_int32), ("metadata", ctypes.c_char_p),
                ("entry", ENTRY)]


class Runtime:
    """A CUDA session whose entry runs the queued onyxrt_cuda_layer_norm
    calls."""

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        lib.onyxrt_state_create.restype = ctypes.c_void_p
        lib.onyxrt_state_create.argtypes = [ctypes.POINTER(Desc),
                                            ctypes.POINTER(ctypes.c_char_p)]
        lib.onyxrt_state_destroy.argtypes = [ctypes.c_void_p]
        lib.onyx_tensor_list_create.restype = ctypes.c_void_p
        lib.onyx_tensor_list_destroy.argtypes = [ctypes.c_void_p]
        lib.onyxrt_run.restype = ctypes.c_void_p
        lib.onyxrt_run.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.onyx_state_last_error.restype = ctypes.c_char_p
        lib.onyx_state_last_error.argtypes = [ctypes.c_void_p]
        lib.onyxrt_cuda_layer_norm.restype = ctypes.c_int32
        # (ctx, label, xType, residualType, sumType, outType, out2Type,
        #  paramType, rows, n, epsilon, x, residual, scale, bias, sum, out,
        #  out2)
        lib.onyxrt_cuda_layer_norm.argtypes = (
            [ctypes.c_void_p, ctypes.c_char_p] + [ctypes.c_int32] * 6 +
            [ctypes.c_int64, ctypes.c_int64, ctypes.c_double] +
            [ctypes.c_void_p] * 7)
        self.lib = lib
        self.calls = []
        self.entry = ENTRY(self._entry)  # kept alive with the session
        self.desc = Desc(1, b"onyx-model v1\ndevice cuda\n", self.entry)
        error = ctypes.c_char_p()
        self.state = lib.onyxrt_state_create(ctypes.byref(self.desc),
                                             ctypes.byref(error))
        if not self.state:
            sys.exit("onyxrt_state_create: %s" % error.value.decode())
        self.inputs = lib.onyx_tensor_list_create()

    def _entry(self, ctx):
        for args in self.calls:
            status = self.lib.onyxrt_cuda_layer_norm(ctx, *args)
            if status:
                return status
        return 0

    def run(self, calls):
        """Runs the calls (argument tuples after ctx) in one onyxrt_run;
        returns None, or the session's error message."""
        self.calls = calls
        torch.cuda.synchronize()
        outputs = self.lib.onyxrt_run(self.state, self.inputs)
        self.calls = []
        if not outputs:
            return self.lib.onyx_state_last_error(self.state).decode()
        self.lib.onyx_tensor_list_destroy(outputs)
        return None


def ptr(t):
    return None if t is None else t.data_ptr()


def args_of(label, xt, ot, pt, rows, n, eps, x, scale, bias, out,
            residual=None, rt=None, st=None, sum_=None, out2=None, o2t=None):
    """The call's arguments after ctx; rt / st / o2t: the residual's, the
    sum's and out2's types (None: code 0)."""
    def code(t):
        return CODES[t] if t else 0
    return (label.encode(), CODES[xt], code(rt), code(st), CODES[ot],
            code(o2t), CODES[pt], rows, n, eps, ptr(x), ptr(residual),
            ptr(scale), ptr(bias), ptr(sum_), ptr(out), ptr(out2))


def bits(t):
    """t's bits as integers (bitwise comparisons)."""
    return t.view(torch.int32 if t.element_size() == 4 else torch.int16)


def rows_of(rows, n, t, offset=0, fill=float("nan")):
    """A [rows, n] buffer of type t, `offset` elements into its storage,
    filled with `fill` (NaN: unwritten elements fail every check)."""
    return torch.full((rows * n + offset,), fill, device="cuda",
                      dtype=DTYPES[t])[offset:].view(rows, n)


def reference(x, scale, bias, eps):
    x64 = x.double()
    mean = x64.mean(-1, keepdim=True)
    var = ((x64 - mean) ** 2).mean(-1, keepdim=True)
    y = (x64 - mean) / torch.sqrt(var + eps) * scale.double()
    return y + bias.double() if bias is not None else y


def inputs(rows, n, xt, pt, gen, offset=0):
    """x [rows, n] (a view `offset` elements into its buffer), scale, bias:
    a mean far from 0 (a one-pass variance would lose it) and unequal
    scales."""
    base = torch.randn(rows * n + offset, generator=gen, device="cuda") * 3 + 20
    x = base.to(DTYPES[xt])[offset:].view(rows, n)
    scale = (1 + 0.5 * torch.randn(n, generator=gen, device="cuda")).to(DTYPES[pt])
    bias = (0.5 * torch.randn(n, generator=gen, device="cuda")).to(DTYPES[pt])
    return x, scale, bias


def errors(y, x, scale, bias, eps, ot):
    """(onyx's, PyTorch's) max abs error against fp64, and the bound."""
    ref = reference(x, scale, bias, eps)
    mine = (y.double() - ref).abs().max().item()
    torch_y = F.layer_norm(x.float(), (x.shape[-1],), scale.float(),
                           None if bias is None else bias.float(), eps)
    theirs = (torch_y.to(DTYPES[ot]).double() - ref).abs().max().item()
    return mine, theirs, 2 * theirs + 1e-6 * ref.abs().max().item()


# (rows, n): register kernels (E = 8..32, 1-8 warps), then the three-pass
# kernel (n > 8192 per block; n not a multiple of the vector per warp).
SHAPES = [(4096, 768), (1000, 1024), (333, 64), (257, 384), (129, 512),
          (65, 2048), (33, 4096), (17, 8192), (10, 1536), (9, 3072),
          (7, 6144), (5, 5000), (3, 256), (2, 8), (1, 16), (3, 8200),
          (2, 100000), (1, 1 << 21), (100, 100), (37, 1001), (3, 12345),
          (2, 5), (11, 2049)]
COMBOS = [(a, b, c) for a in CODES for b in CODES for c in CODES]


def check(rt, failures):
    gen = torch.Generator(device="cuda").manual_seed(0)
    eps = 1e-5
    worst = {}
    count = 0
    for xt, ot, pt in COMBOS:
        for rows, n in SHAPES:
            for with_bias in (True, False):
                x, scale, bias = inputs(rows, n, xt, pt, gen)
                bias = bias if with_bias else None
                y = torch.full((rows, n), float("nan"), device="cuda",
                               dtype=DTYPES[ot])
                label = "ln_%s_%s_%s_%dx%d" % (xt, ot, pt, rows, n)
                err = rt.run([args_of(label, xt, ot, pt, rows, n, eps, x,
                                      scale, bias, y)])
                count += 1
                if err:
                    failures.append("%s: %s" % (label, err))
                    continue
                mine, theirs, bound = errors(y, x, scale, bias, eps, ot)
                key = (xt, ot, pt)
                ratio = mine / theirs if theirs else float("inf") if mine else 0
                if ratio >= worst.get(key, (0,))[0]:
                    worst[key] = (ratio, "%dx%d%s" % (rows, n, "" if with_bias
                                                     else " no bias"),
                                  mine, theirs)
                if not mine <= bound:
                    failures.append("%s bias=%s: error %.3g, PyTorch's %.3g"
                                    % (label, with_bias, mine, theirs))
    print("checked %d calls; per (x, out, params) the largest ratio of the "
          "error against fp64 to PyTorch's:" % count)
    for key, (ratio, where, mine, theirs) in sorted(worst.items()):
        print("  %-16s %5.2f  at %-18s (%.2g vs %.2g)" % (
            "/".join(key), ratio, where, mine, theirs))


def check_variants(rt, failures):
    gen = torch.Generator(device="cuda").manual_seed(1)
    eps = 1e-6
    cases = 0
    # In place (same element size), unaligned views (scalar path), forced
    # three-pass kernel.
    for xt, ot, pt in [("f32", "f32", "f32"), ("f16", "f16", "f32"),
                       ("bf16", "bf16", "bf16"), ("f16", "bf16", "f16"),
                       ("f32", "f16", "f32"), ("bf16", "f32", "f32")]:
        for rows, n in [(513, 768), (31, 4096), (3, 50000), (77, 1001)]:
            for mode in ("inplace", "unaligned", "passes"):
                if mode == "inplace" and xt != ot and "f32" in (xt, ot):
                    continue
                x, scale, bias = inputs(rows, n, xt, pt, gen,
                                        offset=1 if mode == "unaligned" else 0)
                x0 = x.clone()
                if mode == "inplace":
                    y = x.view(DTYPES[ot]) if xt != ot else x
                else:
                    y = torch.empty(rows, n, device="cuda", dtype=DTYPES[ot])
                if mode == "passes":
                    os.environ["ONYX_CUDA_LAYER_NORM"] = "passes"
                label = "ln_%s_%s_%s_%dx%d_%s" % (xt, ot, pt, rows, n, mode)
                err = rt.run([args_of(label, xt, ot, pt, rows, n, eps, x,
                                      scale, bias, y)])
                os.environ.pop("ONYX_CUDA_LAYER_NORM", None)
                cases += 1
                if err:
                    failures.append("%s: %s" % (label, err))
                    continue
                mine, theirs, bound = errors(y, x0, scale, bias, eps, ot)
                if not mine <= bound:
                    failures.append("%s: error %.3g, PyTorch's %.3g"
                                    % (label, mine, theirs))
    print("checked %d in-place / unaligned / three-pass calls" % cases)

    # The error path, and nothing to do.
    before = len(failures)
    x, scale, bias = inputs(4, 64, "f32", "f32", gen)
    y = torch.zeros(4, 64, device="cuda")
    err = rt.run([("bad_type".encode(), 3, 0, 0, 1, 0, 1, 4, 64, eps, ptr(x),
                   None, ptr(scale), None, None, ptr(y), None)])
    if not err or not err.startswith("bad_type"):
        failures.append("bad type code: %r" % err)
    err = rt.run([args_of("overlap", "f32", "f32", "f32", 2, 64, eps, x,
                          scale, None, x[1:])])
    if not err or not err.startswith("overlap"):
        failures.append("overlap: %r" % err)
    err = rt.run([args_of("empty", "f32", "f32", "f32", 0, 64, eps, x, scale,
                          None, y)])
    if err or y.abs().max().item() != 0:
        failures.append("rows == 0: %r" % err)
    print("error path: %s" % ("ok" if len(failures) == before else "FAILED"))


def residual_input(rows, n, t, gen, offset=0):
    """A residual [rows, n] (a view `offset` elements into its buffer) of
    about x's magnitude, of either sign (the sum's mean stays far from 0)."""
    base = torch.randn(rows * n + offset, generator=gen, device="cuda") * 4 - 6
    return base.to(DTYPES[t])[offset:].view(rows, n)


def check_residual_case(rt, failures, gen, case):
    """One call with a residual: `case` = (xt, rt, st, ot, o2t, pt, rows,
    n, with_bias, with_sum, mode), mode "" (plain), "passes"
    (ONYX_CUDA_LAYER_NORM=passes), "unaligned" (every [rows, n] buffer one
    element off), "residual_unaligned" (only the residual: the launcher
    must see it) or "inplace" (sum == x, out == residual)."""
    xt, rtp, st, ot, o2t, pt, rows, n, with_bias, with_sum, mode = case
    eps = 1e-5
    off = 1 if mode == "unaligned" else 0
    x, scale, bias = inputs(rows, n, xt, pt, gen, offset=off)
    bias = bias if with_bias else None
    residual = residual_input(
        rows, n, rtp, gen,
        offset=1 if mode in ("unaligned", "residual_unaligned") else 0)
    x0, r0 = x.clone(), residual.clone()
    # What ONNX Add(x, residual) of type st holds: an f32 sum, rounded.
    v = (x0.float() + r0.float()).to(DTYPES[st])
    if mode == "inplace":
        sum_ = x.view(DTYPES[st]) if with_sum else None
        y = residual.view(DTYPES[ot])
    else:
        sum_ = rows_of(rows, n, st, off) if with_sum else None
        y = rows_of(rows, n, ot, off)
    out2 = rows_of(rows, n, o2t, off) if o2t else None
    label = "res_%s+%s=%s_%s%s_%s_%dx%d%s%s%s" % (
        xt, rtp, st, ot, "+" + o2t if o2t else "", pt, rows, n,
        "" if with_bias else "_nobias", "" if with_sum else "_nosum",
        "_" + mode if mode else "")
    if mode == "passes":
        os.environ["ONYX_CUDA_LAYER_NORM"] = "passes"
    err = rt.run([args_of(label, xt, ot, pt, rows, n, eps, x, scale, bias, y,
                          residual=residual, rt=rtp, st=st, sum_=sum_,
                          out2=out2, o2t=o2t)])
    os.environ.pop("ONYX_CUDA_LAYER_NORM", None)
    if err:
        failures.append("%s: %s" % (label, err))
        return
    if sum_ is not None and not torch.equal(bits(sum_), bits(v)):
        wrong = (bits(sum_) != bits(v)).sum().item()
        failures.append("%s: %d sum elements differ from (x + residual) "
                        "rounded to %s" % (label, wrong, st))
    mine, theirs, bound = errors(y, v, scale, bias, eps, ot)
    if not mine <= bound:
        failures.append("%s: error %.3g, PyTorch's %.3g" % (label, mine,
                                                              theirs))
    if out2 is not None:
        if ot == "f32":
            if not torch.equal(bits(out2), bits(y.to(DTYPES[o2t]))):
                failures.append("%s: out2 is not out.to(%s)" % (label, o2t))
        else:
            mine, theirs, bound = errors(out2, v, scale, bias, eps, o2t)
            if not mine <= bound:
                failures.append("%s: out2 error %.3g, PyTorch's %.3g"
                                % (label, mine, theirs))


# (rows, n) with a residual: register kernels (768 in one warp, 1024 at 32
# elements per lane or two warps, 4096 over warps), three passes (odd n: a
# warp per row scalar, 12345 a block scalar, 100000 a block vectorized).
RESIDUAL_SHAPES = [(257, 768), (65, 1024), (33, 4096), (77, 1001),
                   (3, 12345), (2, 100000)]


def check_residual(rt, failures):
    gen = torch.Generator(device="cuda").manual_seed(3)
    names = list(CODES)
    cases = []
    # x and residual of every type, the sum in f32 or in x's type; out,
    # out2 and the parameters cycle through the types (out2 only beside an
    # f32 out), bias and sum present in most calls.
    combos = [(xt, rtp, st) for xt in names for rtp in names
              for st in sorted({"f32", xt})]
    for i, (xt, rtp, st) in enumerate(combos):
        pt = names[i % 3]
        if i % 2:
            ot, o2t = "f32", ("f16", "bf16")[i // 2 % 2]
        else:
            ot, o2t = names[i // 2 % 3], None
        for j, (rows, n) in enumerate(RESIDUAL_SHAPES):
            cases.append((xt, rtp, st, ot, o2t, pt, rows, n, (i + j) % 4 != 3,
                          (i + j) % 5 != 4, ""))
    # In place, three passes everywhere, unaligned views (all, or only the
    # residual) on a few combinations and shapes.
    for xt, rtp, st, ot, o2t, pt in [
            ("f32", "f32", "f32", "f32", "f16", "f32"),
            ("f16", "f16", "f16", "f16", None, "f32"),
            ("bf16", "f32", "bf16", "f32", "bf16", "bf16"),
            ("f16", "bf16", "f32", "bf16", None, "f16"),
            ("bf16", "bf16", "f32", "f32", "f16", "f32")]:
        for rows, n in [(257, 768), (31, 4096), (3, 50000), (77, 1001)]:
            for mode in ("inplace", "passes", "unaligned",
                         "residual_unaligned"):
                if mode == "inplace" and (
                        DTYPES[st].itemsize != DTYPES[xt].itemsize or
                        DTYPES[ot].itemsize != DTYPES[rtp].itemsize):
                    continue  # sum == x, out == residual: one element size
                cases.append((xt, rtp, st, ot, o2t, pt, rows, n, True, True,
                              mode))
    for case in cases:
        check_residual_case(rt, failures, gen, case)
    print("checked %d calls with a residual" % len(cases))

    # The error path with the new operands.
    before = len(failures)
    eps = 1e-5
    rows, n = 4, 64
    x, scale, bias = inputs(rows, n, "f32", "f32", gen)
    residual = residual_input(rows, n, "f32", gen)
    y = rows_of(rows, n, "f32", fill=0)
    s2 = rows_of(rows, n, "f32", fill=0)
    err = rt.run([args_of("sum_no_residual", "f32", "f32", "f32", rows, n,
                          eps, x, scale, bias, y, st="f32", sum_=s2)])
    if not err or not err.startswith("sum_no_residual"):
        failures.append("sum without a residual: %r" % err)
    # out over the second half of the residual's first row onwards.
    buf = torch.zeros(rows * n + n // 2, device="cuda")
    err = rt.run([args_of("out_over_residual", "f32", "f32", "f32", rows, n,
                          eps, x, scale, bias, buf[n // 2:].view(rows, n),
                          residual=buf[:rows * n].view(rows, n), rt="f32",
                          st="f32")])
    if not err or not err.startswith("out_over_residual") or (
            "residual" not in err):
        failures.append("out over part of the residual: %r" % err)
    err = rt.run([args_of("sum_is_out", "f32", "f32", "f32", rows, n, eps, x,
                          scale, bias, y, residual=residual, rt="f32",
                          st="f32", sum_=y)])
    if not err or not err.startswith("sum_is_out"):
        failures.append("sum == out: %r" % err)
    call = list(args_of("bad_residual_type", "f32", "f32", "f32", rows, n,
                        eps, x, scale, bias, y, residual=residual, rt="f32",
                        st="f32"))
    call[2] = 3  # residualType
    err = rt.run([tuple(call)])
    if not err or not err.startswith("bad_residual_type"):
        failures.append("bad residual type code: %r" % err)
    # Type codes of absent operands are ignored.
    y = rows_of(rows, n, "f32")
    call = list(args_of("ignored_types", "f32", "f32", "f32", rows, n, eps,
                        x, scale, bias, y))
    call[2:6] = [3, 7, 1, 99]  # residual, sum, out (kept), out2
    err = rt.run([tuple(call)])
    mine, theirs, bound = errors(y, x, scale, bias, eps, "f32")
    if err or not mine <= bound:
        failures.append("type codes of absent operands: %r, error %.3g"
                        % (err, mine))
    print("residual error path: %s" % ("ok" if len(failures) == before
                                       else "FAILED"))


def timing(rt, repeat):
    gen = torch.Generator(device="cuda").manual_seed(2)
    print("\ntiming (us per LayerNorm, %d calls in one run; wall clock):" % repeat)
    print("  %-30s %10s %10s %10s %8s" % ("x/out/params rows x n", "onyx",
                                         "torch", "onyx GB/s", "speedup"))
    # With "+res": a residual and a sum of x's type (the f32 one with an
    # f16 out2 too), against x + residual and F.layer_norm (and .to()).
    for (xt, ot, pt), (rows, n), res in [
            (("f32", "f32", "f32"), (16384, 768), False),
            (("f16", "f16", "f16"), (16384, 768), False),
            (("bf16", "bf16", "bf16"), (16384, 768), False),
            (("f16", "f16", "f32"), (16384, 768), False),
            (("f32", "f32", "f32"), (4096, 768), False),
            (("f32", "f32", "f32"), (8192, 1024), False),
            (("f32", "f32", "f32"), (8192, 2048), False),
            (("f16", "f16", "f16"), (8192, 2048), False),
            (("f32", "f32", "f32"), (2048, 8192), False),
            (("bf16", "bf16", "bf16"), (8192, 4096), False),
            (("f32", "f32", "f32"), (4096, 4096), False),
            (("f32", "f32", "f32"), (256, 65536), False),
            (("f16", "f16", "f16"), (32768, 64), False),
            (("f16", "f16", "f16"), (16384, 768), True),
            (("f16", "f16", "f16"), (8192, 1024), True),
            (("f32", "f32", "f32"), (16384, 768), True)]:
        x, scale, bias = inputs(rows, n, xt, pt, gen)
        y = torch.empty(rows, n, device="cuda", dtype=DTYPES[ot])
        residual = residual_input(rows, n, xt, gen) if res else None
        sum_ = torch.empty_like(x) if res else None
        o2t = "f16" if res and ot == "f32" else None
        out2 = torch.empty(rows, n, device="cuda",
                           dtype=DTYPES[o2t]) if o2t else None
        call = args_of("t", xt, ot, pt, rows, n, 1e-5, x, scale, bias, y,
                       residual=residual, rt=xt if res else None,
                       st=xt if res else None, sum_=sum_, out2=out2, o2t=o2t)
        rt.run([call] * 3)  # loads the module
        t0 = time.perf_counter()
        rt.run([])
        empty = time.perf_counter() - t0
        t0 = time.perf_counter()
        rt.run([call] * repeat)
        onyx = (time.perf_counter() - t0 - empty) / repeat
        # PyTorch with the parameters in x's type (one dtype: what every
        # version's kernel takes) and its output in x's type.
        ws, bs = scale.to(x.dtype), bias.to(x.dtype)

        def torch_side():
            v = x + residual if res else x
            t = F.layer_norm(v, (n,), ws, bs, 1e-5)
            return t.to(DTYPES[o2t]) if o2t else t
        for _ in range(3):
            torch_side()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(repeat):
            torch_side()
        torch.cuda.synchronize()
        theirs = (time.perf_counter() - t0) / repeat
        moved = sum(t.numel() * t.element_size()
                    for t in (x, residual, sum_, y, out2) if t is not None)
        print("  %-30s %10.1f %10.1f %10.0f %8.2f" % (
            "%s/%s/%s %dx%d%s%s" % (xt, ot, pt, rows, n,
                                    " +res" if res else "",
                                    " +out2" if o2t else ""), onyx * 1e6,
            theirs * 1e6, moved / onyx / 1e9, theirs / onyx))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runtime", required=True,
                        help="libonyx_runtime.so (libomp.so.5 beside it)")
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--timing-only", action="store_true")
    parser.add_argument("--quick", action="store_true",
                        help="three type combinations only (for "
                        "compute-sanitizer)")
    args = parser.parse_args()
    if args.quick:
        COMBOS[:] = [("f32", "f32", "f32"), ("f16", "bf16", "f32"),
                     ("bf16", "f32", "f16")]
    torch.backends.cuda.matmul.allow_tf32 = False
    print(torch.cuda.get_device_name(), "torch", torch.__version__)
    rt = Runtime(os.path.abspath(args.runtime))
    failures = []
    if not args.timing_only:
        check(rt, failures)
        check_variants(rt, failures)
        check_residual(rt, failures)
    if not args.no_timing:
        timing(rt, args.repeat)
    rt.lib.onyxrt_state_destroy(rt.state)
    if failures:
        print("\n%d FAILED:" % len(failures))
        for f in failures[:50]:
            print("  " + f)
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
