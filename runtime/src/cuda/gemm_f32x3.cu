//===- gemm_f32x3.cu - fp32 GEMM on Hopper's tensor cores (3xTF32) -------===//
//
// C = A * B (+ C) (+ bias) (GELU) in fp32 with TF32 off, for the H100 / H200
// (sm_90a: wgmma). cuBLAS's SGEMM runs on the FP32 FMA units, 128 FMA per
// cycle per SM; the tensor cores do 1024 TF32 multiply-adds per cycle per
// SM. Three TF32 products per fp32 product (x = hi + lo with hi and lo both
// TF32: a b ~ a_hi b_lo + a_lo b_hi + a_hi b_hi, the lo * lo term below
// fp32's rounding) keep fp32's accuracy at, in principle, 2.7x the SGEMM
// rate. Measured on an H200 (docs/cuda-measurements.md, "fp32 GEMMs on
// the tensor cores"): fp32-level error, but 0.96-3x SGEMM's time,
// latency-bound per block (the k-loop drains the tensor cores every tile);
// opt-in.
//
// The block computes a [TM x 128] tile of C (TM = 64 or 128 rows m, 128
// columns n) as its transpose, D = B^T A^T, so that each of the two
// warpgroups takes 64 columns n as wgmma's M side:
//   - B (the weight side) is wgmma's A operand, from registers: each thread
//     reads its fragment from the shared tile (B row- or column-major, so
//     no transpose copy) and splits it into hi and lo itself;
//   - A is wgmma's B operand, K-major, from shared memory in the 128-byte
//     swizzle (one 32-float k-tile per 128-byte row); a pass over the
//     landed tile rounds it to TF32 in place (hi) and writes lo beside it.
// Tiles of 32 k arrive through cp.async three stages deep. Each k-tile's
// twelve wgmmas (4 k-steps x 3 products, small terms first) accumulate from
// zero and join the fp32 accumulators with an fp32 add, so no accumulation
// chain inside the tensor cores is longer than 96 terms (the whole K there
// gave 12-70x SGEMM's error at K = 256-3072 on an H200).
//
// Requirements (checked by the caller, CudaGemm.cpp): K, N, lda and ldb
// multiples of 4, A and B 16-byte aligned, every element offset within
// one batch entry of A and of B under 2^31.
//
//===----------------------------------------------------------------------===//
#include "GemmF32x3Launch.h"
#include "async_copy.cuh"

#include <cstdint>

namespace {

// The tiling and flags the host launches with (GemmF32x3Launch.h).
constexpr int kBK = int(onyx::rt::kF32x3BK); // k per tile: 128 bytes of fp32
constexpr int kTN = int(onyx::rt::kF32x3TN); // columns n: 2 warpgroups x 64
constexpr int kThreads = int(onyx::rt::kF32x3Threads);
constexpr int kStages = int(onyx::rt::kF32x3Stages);
constexpr int64_t kAccumulate = onyx::rt::kF32x3Accumulate,
                  kGelu = onyx::rt::kF32x3Gelu;

// Timing experiments only (scripts/gpu/gemm_f32x3_ablate.sh): each bit of
// ONYX_F32X3_ABLATE drops one piece of the k-loop, leaving wrong results,
// to see what a k-tile's time is made of. The build never sets it.
#ifndef ONYX_F32X3_ABLATE
#define ONYX_F32X3_ABLATE 0
#endif
constexpr int kAblate = ONYX_F32X3_ABLATE;
constexpr int kNoSplitA = 1;    // A tiles not rounded, no lo tile
constexpr int kNoSplitB = 2;    // B fragments not split (lo = hi)
constexpr int kNoWgmmaWait = 4; // no wait for the tile's wgmmas
constexpr int kOneProduct = 8;  // hi * hi only: 4 wgmmas a tile, not 12
constexpr int kNoEndSync = 16;  // no barrier at the end of a k-tile
constexpr int kNoLoadWait = 32; // no cp.async wait / barrier before split

template <int TM, bool TRANS_B> struct Smem {
  static constexpr int xBytes = TM * 128; // one A tile, 128-byte swizzle
  // The B tile as stored: [kBK][kTN] (row-major B) or [kTN][kBK] (B^T),
  // each row padded so that a fragment read has no bank conflict.
  static constexpr int wPitch = TRANS_B ? kBK + 4 : kTN + 8; // floats
  static constexpr int wBytes = (TRANS_B ? kTN : kBK) * wPitch * 4;
  static constexpr int xRaw = 0;                               // kStages tiles
  static constexpr int xLo = kStages * xBytes;                 // 2 tiles
  static constexpr int wRaw = xLo + 2 * xBytes;                // kStages tiles
  static constexpr int total = wRaw + kStages * wBytes + 1024; // + alignment
  static_assert(total <= 227 * 1024, "over the shared memory of an SM");
  static_assert(total == onyx::rt::gemmF32x3SharedBytes(TM, TRANS_B),
                "the launch's shared memory differs from the layout");
};

using onyx_kernels::cpAsync16;
using onyx_kernels::cpAsyncCommit;
using onyx_kernels::cpAsyncWait;
using onyx_kernels::toTf32;

__device__ __forceinline__ void wgmmaFence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmmaCommit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmmaWaitAll() {
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}
__device__ __forceinline__ void fenceProxyAsync() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
template <int R> __device__ __forceinline__ void fenceRegs(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i)
    asm volatile("" : "+f"(d[i])::"memory");
}

// A wgmma operand descriptor: K-major, 128-byte swizzle, 8-row groups 1024
// bytes apart (the leading offset is unused in this mode).
__device__ __forceinline__ uint64_t descriptor(uint32_t sharedAddr) {
  return uint64_t((sharedAddr >> 4) & 0x3FFF) | (uint64_t(1) << 16) |
         (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}

__device__ __forceinline__ void wgmmaTf32N64(float (&d)[32],
                                             const uint32_t (&a)[4],
                                             uint64_t desc, int scaleD) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
      " %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, "
      "%30, %31},"
      " {%32, %33, %34, %35}, %36, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
        "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]),
        "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),
        "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),
        "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scaleD));
}

__device__ __forceinline__ void wgmmaTf32N128(float (&d)[64],
                                              const uint32_t (&a)[4],
                                              uint64_t desc, int scaleD) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
      " %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, "
      "%30, %31,"
      " %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, "
      "%46, %47,"
      " %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, "
      "%62, %63},"
      " {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
        "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]),
        "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),
        "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),
        "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
        "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
        "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]),
        "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),
        "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]),
        "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scaleD));
}

template <int TM>
__device__ __forceinline__ void wgmmaTf32(float (&d)[TM / 2],
                                          const uint32_t (&a)[4], uint64_t desc,
                                          int scaleD) {
  if constexpr (TM == 64)
    wgmmaTf32N64(d, a, desc, scaleD);
  else
    wgmmaTf32N128(d, a, desc, scaleD);
}

__device__ __forceinline__ float geluTanh(float x) {
  const float kAlpha = 0.7978845608028654f; // sqrt(2 / pi)
  return 0.5f * x * (1.0f + tanhf(kAlpha * (x + 0.044715f * x * x * x)));
}

template <int TM, bool TRANS_B>
__device__ __forceinline__ void
gemmF32x3(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
          int64_t strideA, const float *B, int64_t ldb, int64_t strideB,
          float *C, int64_t ldc, int64_t strideC, const float *bias,
          int64_t flags) {
  using L = Smem<TM, TRANS_B>;
  extern __shared__ uint8_t smemRaw[];
  const uint32_t smemBase =
      (static_cast<uint32_t>(__cvta_generic_to_shared(smemRaw)) + 1023) &
      ~1023u;
  uint8_t *smem =
      smemRaw +
      (smemBase - static_cast<uint32_t>(__cvta_generic_to_shared(smemRaw)));
  const int tid = threadIdx.x;
  const int warpGroup = tid / 128, warp = (tid / 32) % 4, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;
  const int64_t m0 = int64_t(blockIdx.y) * TM, n0 = int64_t(blockIdx.x) * kTN;
  A += int64_t(blockIdx.z) * strideA;
  B += int64_t(blockIdx.z) * strideB;
  C += int64_t(blockIdx.z) * strideC;
  const int64_t tiles = (K + kBK - 1) / kBK;

  // Element offsets within one batch entry of A or B fit 32 bits (the
  // caller checks), so the loads' index math is 32-bit.
  const int Mi = int(M), Ni = int(N), Ki = int(K), ldai = int(lda),
            ldbi = int(ldb), m0i = int(m0), n0i = int(n0);
  auto loadTile = [&](int64_t kt, int stage) {
    const int k0 = int(kt) * kBK;
    const uint32_t x = smemBase + L::xRaw + stage * L::xBytes;
#pragma unroll
    for (int i = tid; i < TM * 8; i += kThreads) {
      const int r = i / 8, c = i % 8;
      const int m = m0i + r, k = k0 + c * 4;
      const bool valid = m < Mi && k < Ki;
      cpAsync16(x + r * 128 + ((c ^ (r % 8)) * 16),
                valid ? A + (m * ldai + k) : A, valid);
    }
    const uint32_t w = smemBase + L::wRaw + stage * L::wBytes;
    if constexpr (TRANS_B) {
#pragma unroll
      for (int i = tid; i < kTN * 8; i += kThreads) {
        const int r = i / 8, c = i % 8;
        const int n = n0i + r, k = k0 + c * 4;
        const bool valid = n < Ni && k < Ki;
        cpAsync16(w + (r * L::wPitch + c * 4) * 4,
                  valid ? B + (n * ldbi + k) : B, valid);
      }
    } else {
#pragma unroll
      for (int i = tid; i < kBK * (kTN / 4); i += kThreads) {
        const int r = i / (kTN / 4), c = i % (kTN / 4);
        const int k = k0 + r, n = n0i + c * 4;
        const bool valid = n < Ni && k < Ki;
        cpAsync16(w + (r * L::wPitch + c * 4) * 4,
                  valid ? B + (k * ldbi + n) : B, valid);
      }
    }
  };
  // The landed A tile in `stage`: hi (TF32) in place, lo into xLo[buf].
  auto splitTile = [&](int stage, int buf) {
    if constexpr ((kAblate & kNoSplitA) != 0)
      return;
    float4 *x = reinterpret_cast<float4 *>(smem + L::xRaw + stage * L::xBytes);
    float4 *lo = reinterpret_cast<float4 *>(smem + L::xLo + buf * L::xBytes);
#pragma unroll
    for (int i = tid; i < TM * 8; i += kThreads) {
      float4 v = x[i], h, l;
      h.x = __uint_as_float(toTf32(v.x));
      h.y = __uint_as_float(toTf32(v.y));
      h.z = __uint_as_float(toTf32(v.z));
      h.w = __uint_as_float(toTf32(v.w));
      l.x = __uint_as_float(toTf32(v.x - h.x));
      l.y = __uint_as_float(toTf32(v.y - h.y));
      l.z = __uint_as_float(toTf32(v.z - h.z));
      l.w = __uint_as_float(toTf32(v.w - h.w));
      x[i] = h;
      lo[i] = l;
    }
  };
  // This thread's B fragments of the tile in `stage`, split into hi and lo:
  // rows n = 64 warpGroup + 16 warp + {g, g + 8}, k = 8 step + {t, t + 4}.
  uint32_t bHi[4][4], bLo[4][4];
  auto loadFragments = [&](int stage) {
    const float *w =
        reinterpret_cast<const float *>(smem + L::wRaw + stage * L::wBytes);
    const int n = warpGroup * 64 + warp * 16 + g;
#pragma unroll
    for (int s = 0; s < 4; ++s) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int nn = n + (j % 2) * 8, kk = s * 8 + t + (j / 2) * 4;
        const float v =
            TRANS_B ? w[nn * L::wPitch + kk] : w[kk * L::wPitch + nn];
        if constexpr ((kAblate & kNoSplitB) != 0) {
          bHi[s][j] = bLo[s][j] = __float_as_uint(v);
          continue;
        }
        bHi[s][j] = toTf32(v);
        bLo[s][j] = toTf32(v - __uint_as_float(bHi[s][j]));
      }
    }
  };

  float acc[TM / 2];
#pragma unroll
  for (int i = 0; i < TM / 2; ++i)
    acc[i] = 0.0f;

  float part[TM / 2];

  loadTile(0, 0);
  cpAsyncCommit();
  if (tiles > 1)
    loadTile(1, 1);
  cpAsyncCommit();
  cpAsyncWait<1>();
  __syncthreads();
  splitTile(0, 0);
  fenceProxyAsync();
  __syncthreads();
  loadFragments(0);

  for (int64_t kt = 0; kt < tiles; ++kt) {
    const int stage = int(kt % kStages), buf = int(kt % 2);
    const uint32_t xHi = smemBase + L::xRaw + stage * L::xBytes;
    const uint32_t xLo = smemBase + L::xLo + buf * L::xBytes;
    wgmmaFence();
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const uint64_t dHi = descriptor(xHi + s * 32);
      const uint64_t dLo = descriptor(xLo + s * 32);
      if constexpr ((kAblate & kOneProduct) != 0) {
        wgmmaTf32<TM>(part, bHi[s], dHi, s > 0);
        continue;
      }
      wgmmaTf32<TM>(part, bLo[s], dHi, s > 0);
      wgmmaTf32<TM>(part, bHi[s], dLo, 1);
      wgmmaTf32<TM>(part, bHi[s], dHi, 1);
    }
    wgmmaCommit();
    // While the tensor cores work on tile kt: tile kt + 2 starts loading
    // (its stage was last read by tile kt - 1, complete), and tile kt + 1
    // is split.
    if (kt + 2 < tiles)
      loadTile(kt + 2, int((kt + 2) % kStages));
    cpAsyncCommit();
    if (kt + 1 < tiles) {
      if constexpr ((kAblate & kNoLoadWait) == 0) {
        cpAsyncWait<1>();
        __syncthreads();
      }
      splitTile(int((kt + 1) % kStages), int((kt + 1) % 2));
      fenceProxyAsync();
    }
    if constexpr ((kAblate & kNoWgmmaWait) == 0)
      wgmmaWaitAll();
    fenceRegs(part);
    // The fragments of tile kt + 1 (their registers are free now, the
    // tile visible since the barrier above); their loads overlap the adds.
    if (kt + 1 < tiles)
      loadFragments(int((kt + 1) % kStages));
#pragma unroll
    for (int i = 0; i < TM / 2; ++i)
      acc[i] += part[i];
    // Tile kt + 1's lo part visible to both warpgroups, and tile kt's
    // stage free for the next load.
    if constexpr ((kAblate & kNoEndSync) == 0)
      __syncthreads();
  }
  if constexpr ((kAblate & kNoWgmmaWait) != 0)
    wgmmaWaitAll();

  // D[n][m] fragments: d[4 i + e] at n = 16 warp + g + 8 (e / 2), m = 8 i +
  // 2 t + e % 2 (warpgroup rows offset by 64).
  const bool accumulate = flags & kAccumulate, gelu = flags & kGelu;
#pragma unroll
  for (int i = 0; i < TM / 8; ++i) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int64_t n = n0 + warpGroup * 64 + warp * 16 + g + 8 * (e / 2);
      const int64_t m = m0 + 8 * i + 2 * t + e % 2;
      if (n < N && m < M) {
        float *out = C + m * ldc + n;
        float v = acc[4 * i + e];
        if (accumulate)
          v += *out;
        if (bias)
          v += bias[n];
        if (gelu)
          v = geluTanh(v);
        *out = v;
      }
    }
  }
}

} // namespace

#define ONYX_GEMM_F32X3(NAME, TM, TRANS_B, BLOCKS)                             \
  extern "C" __global__ void __launch_bounds__(kThreads, BLOCKS) NAME(         \
      int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,            \
      int64_t strideA, const float *B, int64_t ldb, int64_t strideB, float *C, \
      int64_t ldc, int64_t strideC, const float *bias, int64_t flags) {        \
    gemmF32x3<TM, TRANS_B>(M, N, K, A, lda, strideA, B, ldb, strideB, C, ldc,  \
                           strideC, bias, flags);                              \
  }

// BLOCKS: blocks per multiprocessor the registers are capped for. The _2b
// kernels (two TM = 64 blocks per SM: the shared memory fits them twice,
// and one block computes while the other drains) are not used by
// CudaGemm.cpp: built for check_gemm_kernel.py's timings, not yet run.
ONYX_GEMM_F32X3(onyx_gemm_f32x3_m128_nn, 128, false, 1)
ONYX_GEMM_F32X3(onyx_gemm_f32x3_m128_nt, 128, true, 1)
ONYX_GEMM_F32X3(onyx_gemm_f32x3_m64_nn, 64, false, 1)
ONYX_GEMM_F32X3(onyx_gemm_f32x3_m64_nt, 64, true, 1)
ONYX_GEMM_F32X3(onyx_gemm_f32x3_m64_nn_2b, 64, false, 2)
ONYX_GEMM_F32X3(onyx_gemm_f32x3_m64_nt_2b, 64, true, 2)
