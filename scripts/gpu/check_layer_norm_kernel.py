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
  - the error path: a bad type code and an overlapping out fail with a
    message that starts with the label; rows == 0 writes nothing.
Then times a few transformer shapes against F.layer_norm (wall clock over
a batch of calls in one onyxrt_run, so each side pays its launch cost).

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
        lib.onyxrt_cuda_layer_norm.argtypes = [
            ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32, ctypes.c_int32,
            ctypes.c_int32, ctypes.c_int64, ctypes.c_int64, ctypes.c_double,
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
            ctypes.c_void_p]
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


def args_of(label, xt, ot, pt, rows, n, eps, x, scale, bias, out):
    return (label.encode(), CODES[xt], CODES[ot], CODES[pt], rows, n, eps,
            ptr(x), ptr(scale), ptr(bias), ptr(out))


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
    err = rt.run([("bad_type".encode(), 3, 1, 1, 4, 64, eps, ptr(x),
                   ptr(scale), None, ptr(y))])
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


def timing(rt, repeat):
    gen = torch.Generator(device="cuda").manual_seed(2)
    print("\ntiming (us per LayerNorm, %d calls in one run; wall clock):" % repeat)
    print("  %-22s %10s %10s %10s %8s" % ("x/out/params rows x n", "onyx", "torch",
                                         "onyx GB/s", "speedup"))
    for (xt, ot, pt), (rows, n) in [
            (("f32", "f32", "f32"), (16384, 768)),
            (("f16", "f16", "f16"), (16384, 768)),
            (("bf16", "bf16", "bf16"), (16384, 768)),
            (("f16", "f16", "f32"), (16384, 768)),
            (("f32", "f32", "f32"), (4096, 768)),
            (("f32", "f32", "f32"), (8192, 1024)),
            (("f32", "f32", "f32"), (8192, 2048)),
            (("f16", "f16", "f16"), (8192, 2048)),
            (("f32", "f32", "f32"), (2048, 8192)),
            (("bf16", "bf16", "bf16"), (8192, 4096)),
            (("f32", "f32", "f32"), (4096, 4096)),
            (("f32", "f32", "f32"), (256, 65536)),
            (("f16", "f16", "f16"), (32768, 64))]:
        x, scale, bias = inputs(rows, n, xt, pt, gen)
        y = torch.empty(rows, n, device="cuda", dtype=DTYPES[ot])
        call = args_of("t", xt, ot, pt, rows, n, 1e-5, x, scale, bias, y)
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
        for _ in range(3):
            F.layer_norm(x, (n,), ws, bs, 1e-5)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(repeat):
            F.layer_norm(x, (n,), ws, bs, 1e-5)
        torch.cuda.synchronize()
        theirs = (time.perf_counter() - t0) / repeat
        moved = rows * n * (x.element_size() + y.element_size())
        print("  %-22s %10.1f %10.1f %10.0f %8.2f" % (
            "%s/%s/%s %dx%d" % (xt, ot, pt, rows, n), onyx * 1e6,
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
