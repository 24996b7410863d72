#!/usr/bin/env python3
"""The 3xTF32 fp32 GEMM kernels (runtime/src/cuda/gemm_f32x3.cu) on the GPU,
without the runtime: loaded from their cubin through the driver API on
PyTorch's buffers, checked against an fp64 reference and timed against
cuBLAS's SGEMM (torch.matmul with TF32 off).

Checks, for every kernel in the cubin: random inputs (fresh per check, the
output poisoned with NaN first), edge sizes (M, N, K not multiples of the
tiles), row- and column-major B, a batch with B broadcast (stride 0), the
accumulate / bias / GELU epilogue. The error ||out - ref|| / ||ref|| against
fp64 must be at most 1.5x SGEMM's on the same inputs, or under 3e-7.
Then times transformer shapes (CUDA events, median of 30): kernel, SGEMM,
and cuBLAS's TF32 GEMM for scale.

There: python3 scripts/gpu/check_gemm_kernel.py --cubin DIR/gemm_f32x3.cubin
Exit status 0 when every check passed.
"""
import argparse
import ctypes
import math
import statistics
import sys

import torch

KERNELS = {
    # name: (TM, transB)
    "onyx_gemm_f32x3_m128_nn": (128, False),
    "onyx_gemm_f32x3_m128_nt": (128, True),
    "onyx_gemm_f32x3_m64_nn": (64, False),
    "onyx_gemm_f32x3_m64_nt": (64, True),
    "onyx_gemm_f32x3_m64_nn_2b": (64, False),
    "onyx_gemm_f32x3_m64_nt_2b": (64, True),
}
KBK, KTN, STAGES = 32, 128, 3


def kernel_smem(name):
    """gemm_f32x3.cu's Smem::total."""
    tm, trans_b = KERNELS[name]
    x = tm * 128
    w_pitch = KBK + 4 if trans_b else KTN + 8
    w = (KTN if trans_b else KBK) * w_pitch * 4
    return STAGES * x + 2 * x + STAGES * w + 1024


class Driver:
    def __init__(self, cubin):
        torch.cuda.init()
        torch.zeros(1, device="cuda")
        self.cu = ctypes.CDLL("libcuda.so.1")
        data = open(cubin, "rb").read()
        self.buf = ctypes.create_string_buffer(data, len(data))
        self.mod = ctypes.c_void_p()
        self.check(self.cu.cuModuleLoadData(ctypes.byref(self.mod), self.buf),
                   "cuModuleLoadData")
        self.fns = {}

    def check(self, r, what):
        if r != 0:
            raise RuntimeError(f"{what} failed: CUresult {r}")

    def fn(self, name):
        if name not in self.fns:
            f = ctypes.c_void_p()
            self.check(self.cu.cuModuleGetFunction(ctypes.byref(f), self.mod,
                                                   name.encode()), name)
            self.check(self.cu.cuFuncSetAttribute(
                f, 8, ctypes.c_int(kernel_smem(name))), "cuFuncSetAttribute")
            self.fns[name] = f
        return self.fns[name]

    def gemm(self, *a, **kw):
        self.launcher(*a, **kw)()

    def launcher(self, name, M, N, K, A, lda, sA, B, ldb, sB, C, ldc, sC,
                 bias, flags, batch=1):
        """A function that launches the kernel (arguments prepared once)."""
        tm, tb = KERNELS[name]
        f = self.fn(name)
        vals = [ctypes.c_int64(M), ctypes.c_int64(N), ctypes.c_int64(K),
                ctypes.c_void_p(A.data_ptr()), ctypes.c_int64(lda),
                ctypes.c_int64(sA), ctypes.c_void_p(B.data_ptr()),
                ctypes.c_int64(ldb), ctypes.c_int64(sB),
                ctypes.c_void_p(C.data_ptr()), ctypes.c_int64(ldc),
                ctypes.c_int64(sC),
                ctypes.c_void_p(bias.data_ptr() if bias is not None else 0),
                ctypes.c_int64(flags)]
        ptrs = (ctypes.c_void_p * len(vals))(
            *[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in vals])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        grid = ((N + KTN - 1) // KTN, (M + tm - 1) // tm, batch)
        launch, smem = self.cu.cuLaunchKernel, kernel_smem(name)

        def run():
            r = launch(f, grid[0], grid[1], grid[2], 256, 1, 1, smem, stream,
                       ptrs, None)
            if r != 0:
                raise RuntimeError(f"cuLaunchKernel {name}: CUresult {r}")
        run.keep = (vals, ptrs)
        return run


def rel(out, ref):
    return ((out.double() - ref).norm() / ref.norm()).item()


def gelu_tanh(x):
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) *
                                     (x + 0.044715 * x ** 3)))


def check_case(drv, name, M, N, K, batch=1, bcast_b=False, bias=False,
               gelu=False, accumulate=False):
    tm, tb = KERNELS[name]
    torch.backends.cuda.matmul.allow_tf32 = False
    A = torch.randn(batch, M, K, device="cuda")
    nb = 1 if bcast_b else batch
    Bm = torch.randn(nb, K, N, device="cuda") / math.sqrt(K)
    Bstore = Bm.transpose(1, 2).contiguous() if tb else Bm.contiguous()
    bv = torch.randn(N, device="cuda") if bias else None
    C0 = torch.randn(batch, M, N, device="cuda")
    C = C0.clone() if accumulate else torch.full((batch, M, N), float("nan"),
                                                 device="cuda")
    flags = (1 if accumulate else 0) | (2 if gelu else 0)
    ldb = K if tb else N
    drv.gemm(name, M, N, K, A, K, M * K, Bstore, ldb, 0 if bcast_b else K * N,
             C, N, M * N, bv, flags, batch)
    torch.cuda.synchronize()
    ref = A.double() @ Bm.double()
    s = A @ Bm
    if accumulate:
        ref = ref + C0.double()
        s = s + C0
    if bias:
        ref = ref + bv.double()
        s = s + bv
    if gelu:
        ref = gelu_tanh(ref)
        s = gelu_tanh(s)
    if torch.isnan(C).any():
        return False, f"NaN/unwritten in output"
    e, es = rel(C, ref), rel(s, ref)
    # fp32-level: within 1.5x SGEMM's error, or under 3e-7 (5 ulps of the
    # norm; at K < 32 SGEMM's error is smaller than one k-tile's chain).
    ok = e <= max(1.5 * es, 3e-7)
    return ok, f"err {e:.2e} sgemm {es:.2e} ratio {e / es:.2f}"


def time_ms(fn, reps=30, inner=20):
    """Median over `reps` samples of the device time per call, each sample
    `inner` calls back to back between two events (host launch cost
    hidden)."""
    for _ in range(3):
        fn()
    times = []
    for _ in range(reps):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(inner):
            fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) / inner)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cubin", required=True)
    p.add_argument("--no-time", action="store_true")
    p.add_argument("--kernels", help="comma-separated subset to check")
    p.add_argument("--time-only", action="store_true",
                   help="no checks: time the --kernels (default the nn ones) "
                        "and SGEMM (a cubin built with ONYX_F32X3_ABLATE, "
                        "scripts/gpu/gemm_f32x3_ablate.sh)")
    p.add_argument("--one", metavar="NAME,M,N,K",
                   help="only launch kernel NAME 5 times at M x N x K "
                        "(for a profiler)")
    args = p.parse_args()
    drv = Driver(args.cubin)
    if args.one:
        name, M, N, K = args.one.split(",")
        M, N, K = int(M), int(N), int(K)
        tb = KERNELS[name][1]
        A = torch.randn(M, K, device="cuda")
        B = torch.randn(N, K, device="cuda") if tb else torch.randn(
            K, N, device="cuda")
        C = torch.empty(M, N, device="cuda")
        run = drv.launcher(name, M, N, K, A, K, 0, B, K if tb else N, 0, C,
                           N, 0, None, 0)
        for _ in range(5):
            run()
        torch.cuda.synchronize()
        return 0
    fails = 0
    cases = [
        dict(M=256, N=256, K=256),
        dict(M=100, N=36, K=20),
        dict(M=1, N=4, K=4),
        dict(M=130, N=260, K=100),
        dict(M=512, N=768, K=768),
        dict(M=512, N=768, K=3072),
        dict(M=300, N=200, K=64, batch=3),
        dict(M=300, N=200, K=64, batch=3, bcast_b=True),
        dict(M=256, N=768, K=768, bias=True),
        dict(M=256, N=768, K=768, bias=True, gelu=True),
        dict(M=200, N=132, K=40, accumulate=True, bias=True),
    ]
    names = args.kernels.split(",") if args.kernels else list(KERNELS)
    for name in [] if args.time_only else names:
        for c in cases:
            try:
                ok, msg = check_case(drv, name, **c)
            except RuntimeError as ex:
                ok, msg = False, str(ex)
            fails += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name} {c}: {msg}")
    if not args.no_time:
        print("\nshape (M N K)        kernel ms  sgemm ms  tf32 ms  kernel/sgemm")
        shapes = [(4096, 768, 768), (4096, 3072, 768), (4096, 768, 3072),
                  (4096, 2304, 768), (1024, 768, 768), (1024, 3072, 768),
                  (1024, 768, 3072), (512, 768, 768), (512, 2304, 768),
                  (512, 3072, 768), (512, 768, 3072), (2048, 2304, 768),
                  (4096, 768, 768)]
        for (M, N, K) in shapes:
            A = torch.randn(M, K, device="cuda")
            B = torch.randn(K, N, device="cuda") / math.sqrt(K)
            C = torch.empty(M, N, device="cuda")
            row = f"{M:5d} {N:5d} {K:5d}"
            res = {}
            timed = names if args.kernels else (
                "onyx_gemm_f32x3_m128_nn", "onyx_gemm_f32x3_m64_nn",
                "onyx_gemm_f32x3_m64_nn_2b")
            for name in timed:
                res[name] = time_ms(drv.launcher(
                    name, M, N, K, A, K, 0, B, N, 0, C, N, 0, None, 0))
            torch.backends.cuda.matmul.allow_tf32 = False
            sg = time_ms(lambda: torch.matmul(A, B, out=C))
            torch.backends.cuda.matmul.allow_tf32 = True
            tf = time_ms(lambda: torch.matmul(A, B, out=C))
            torch.backends.cuda.matmul.allow_tf32 = False
            best = min(res.values())
            print(f"{row}  " + " ".join(f"{v:.4f}" for v in res.values()) +
                  f"  sgemm {sg:.4f}  tf32 {tf:.4f}  best/sgemm {best / sg:.2f}")
    print(f"\n{fails} failing")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
