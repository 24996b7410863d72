// Flash attention for onyx.attention (onyxrt_cuda_attention,
// CudaAttention.cpp). Built with nvcc into a cubin (sm_90) and PTX
// (compute_90) that the runtime embeds and loads like an artifact's kernels.
//
// out[b, h, i, :] = sum_j softmax_j(scale * q_i . k_j + mask[b, h, i, j]) v_j
// (or, with a Where mask, the score replaced by maskFill where masked)
//
// Two families, both addressing every operand through per-logical-dim
// element strides (0 broadcasts), so transposed and broadcast operands need
// no copies; keys of K/V head h / kvGroup serve query head h (grouped KV).
// The output too (ob, oh, os, od: [B, H, Sq, Dv] dense, or the heads merged
// as [B, Sq, H, Dv] when the compiler folded the Transpose after it).
//
// onyx_attention_{f32,f16,bf16}_d{32,64,128} (the default): tensor cores
// through mma.sync. A block of 1, 2 or 4 warps (the launch picks) takes 16
// query rows per warp; key and value tiles of BK = 64 rows (32 for f32 and
// depth 128: tileKeys) and the mask tile are staged in shared memory (f16 /
// bf16: cp.async, and the mma operands read with ldmatrix), each warp
// computes its 16 x BK scores S = Q K^T with mma.sync, applies scale and
// mask, runs the online softmax in fp32 on the accumulators (running max and
// sum per row, in registers) and accumulates O += P V with mma.sync, fp32
// accumulation throughout. f16 / bf16: m16n8k16 on the operands as they
// are (P rounded to the element type, as FlashAttention does). f32: m16n8k8
// TF32 with the 3xTF32 split (x = hi + lo, hi*hi + hi*lo + lo*hi), which keeps
// fp32-level accuracy (about 1e-6 relative) without TF32's 1e-3. The f32 kernel
// keeps the tensor cores' accumulation chains short: the sum inside mma.sync is
// less exact than an IEEE fp32 add (its error grew with the chain's length
// here), so every k-step (8 terms) of S = Q K^T and of a key tile's P V
// starts from zero and is added with an fp32 add, and the tile's P V joins
// O in one fma (O * correction + tile). With O accumulated in the tensor
// cores across all tiles, the error at 512-1024 keys was 5-12x PyTorch
// eager's fp32 error (TF32 off); with the k-steps split it is 0.36-0.92x
// of it, and the kernel no slower (scripts/gpu/check_attention.py
// synth-run; docs/cuda-measurements.md, "fp32 attention accuracy").
//
// onyx_attention_f32simt_d{32,64,128}: the first, SIMT kernel (fp32 FMA),
// kept for comparison (ONYX_CUDA_ATTENTION=simt): one block of 128 threads
// per 16 query rows, T = 8 adjacent lanes per row, each taking every T-th
// key of a tile with its own online-softmax state, merged with warp
// shuffles at the end.
#include <stdint.h>

namespace {

constexpr int kThreads = 128;    // per block
constexpr int T = 8;             // threads per query row
constexpr int BQ = kThreads / T; // queries per block
constexpr int BK = 32;           // keys per tile

template <int DMAX>
__device__ __forceinline__ void
attention(int64_t B, int64_t H, int64_t Sq, int64_t Sk, int64_t D, int64_t Dv,
          int64_t kvGroup, double scaleD, const float *__restrict__ q,
          int64_t qb, int64_t qh, int64_t qs, int64_t qd,
          const float *__restrict__ k, int64_t kb, int64_t kh, int64_t ks,
          int64_t kd, const float *__restrict__ v, int64_t vb, int64_t vh,
          int64_t vs, int64_t vd, const void *__restrict__ mask, int64_t mb,
          int64_t mh, int64_t mq, int64_t mk, int64_t maskMode,
          double maskFillD, int64_t causalShift, float *__restrict__ out,
          int64_t ob, int64_t oh, int64_t os, int64_t od, int64_t /*splits*/,
          float * /*partial: the SIMT kernels never split*/) {
  __shared__ float Ks[BK][DMAX + 1];
  __shared__ float Vs[BK][DMAX + 1];
  __shared__ float Ms[BQ][BK + 1];
  const int tid = threadIdx.x;
  const int row = tid / T, lane = tid % T;
  const int64_t b = blockIdx.z, h = blockIdx.y;
  const int64_t q0 = int64_t(blockIdx.x) * BQ;
  const int64_t i = q0 + row;
  const bool active = i < Sq;
  const int64_t hk = h / kvGroup;
  const float scale = float(scaleD);

  float qr[DMAX], acc[DMAX];
#pragma unroll
  for (int d = 0; d < DMAX; ++d) {
    qr[d] = (active && d < D) ? q[b * qb + h * qh + i * qs + d * qd] : 0.f;
    acc[d] = 0.f;
  }
  float m = -INFINITY, l = 0.f;
  const float *kBase = k + b * kb + hk * kh;
  const float *vBase = v + b * vb + hk * vh;
  // maskMode 1: additive f32; 2 / 3: a bool (byte) Where mask, the score
  // becomes maskFill where it is false / true; 5: the causal Where mask,
  // computed (key j' <= query i' + causalShift, i' / j' 0 where the mask
  // broadcasts: stride 0), not read.
  const bool additive = maskMode == 1, select = maskMode >= 2;
  const bool causal = maskMode == 5;
  const int64_t mOffset = b * mb + h * mh;
  const float *mF =
      additive ? static_cast<const float *>(mask) + mOffset : nullptr;
  const unsigned char *mB =
      select && !causal ? static_cast<const unsigned char *>(mask) + mOffset
                        : nullptr;
  const float maskFill = float(maskFillD);

  for (int64_t j0 = 0; j0 < Sk; j0 += BK) {
    const int n = int(Sk - j0 < BK ? Sk - j0 : BK);
    for (int idx = tid; idx < BK * DMAX; idx += kThreads) {
      int jj = idx / DMAX, d = idx % DMAX;
      bool in = jj < n;
      Ks[jj][d] = (in && d < D) ? kBase[(j0 + jj) * ks + d * kd] : 0.f;
      Vs[jj][d] = (in && d < Dv) ? vBase[(j0 + jj) * vs + d * vd] : 0.f;
    }
    if (maskMode)
      for (int idx = tid; idx < BQ * BK; idx += kThreads) {
        int r = idx / BK, c = idx % BK;
        int64_t qi = q0 + r;
        float value = 0.f;
        if (qi < Sq && c < n) {
          int64_t at = qi * mq + (j0 + c) * mk;
          // Select: 1 keeps the score, 0 replaces it by maskFill.
          if (causal)
            value = float((mk ? j0 + c : 0) <= (mq ? qi : 0) + causalShift);
          else
            value = additive ? mF[at] : float((mB[at] != 0) == (maskMode == 2));
        }
        Ms[r][c] = value;
      }
    __syncthreads();
    if (active) {
      for (int jj = lane; jj < n; jj += T) {
        float s = 0.f;
#pragma unroll
        for (int d = 0; d < DMAX; ++d)
          s = fmaf(qr[d], Ks[jj][d], s);
        s *= scale;
        if (additive)
          s += Ms[row][jj];
        else if (select && Ms[row][jj] == 0.f)
          s = maskFill;
        if (s == -INFINITY)
          continue; // exp(-inf - m) = 0, also while m is still -inf
        if (s > m) {
          float correction = expf(m - s);
          l *= correction;
#pragma unroll
          for (int d = 0; d < DMAX; ++d)
            acc[d] *= correction;
          m = s;
        }
        float p = expf(s - m);
        l += p;
#pragma unroll
        for (int d = 0; d < DMAX; ++d)
          acc[d] = fmaf(p, Vs[jj][d], acc[d]);
      }
    }
    __syncthreads();
  }
  // Merge the T partial states of the row (every lane takes part).
  float mt = m;
#pragma unroll
  for (int o = T / 2; o > 0; o /= 2)
    mt = fmaxf(mt, __shfl_xor_sync(0xffffffffu, mt, o));
  const float f = m == -INFINITY ? 0.f : expf(m - mt);
  l *= f;
#pragma unroll
  for (int o = T / 2; o > 0; o /= 2)
    l += __shfl_xor_sync(0xffffffffu, l, o);
#pragma unroll
  for (int d = 0; d < DMAX; ++d) {
    float a = acc[d] * f;
#pragma unroll
    for (int o = T / 2; o > 0; o /= 2)
      a += __shfl_xor_sync(0xffffffffu, a, o);
    acc[d] = a;
  }
  if (!active)
    return;
  // A row whose every score is -inf: the unfused softmax gives 0/0.
  float inv = 1.f / l;
  float *out_row = out + b * ob + h * oh + i * os;
#pragma unroll
  for (int d = 0; d < DMAX; ++d)
    if (d < Dv && d % T == lane)
      out_row[d * od] = acc[d] * inv;
}

} // namespace

// Every kernel's parameters, in the order onyxrt_cuda_attention passes them
// (CudaAttention.cpp): IN is the type of the q, k and v pointers, OUT the
// output's. ONYX_ATTENTION_ARGS forwards them.
#define ONYX_ATTENTION_PARAMS(IN, OUT)                                         \
  int64_t B, int64_t H, int64_t Sq, int64_t Sk, int64_t D, int64_t Dv,         \
      int64_t kvGroup, double scale, IN q, int64_t qb, int64_t qh, int64_t qs, \
      int64_t qd, IN k, int64_t kb, int64_t kh, int64_t ks, int64_t kd, IN v,  \
      int64_t vb, int64_t vh, int64_t vs, int64_t vd, const void *mask,        \
      int64_t mb, int64_t mh, int64_t mq, int64_t mk, int64_t maskMode,        \
      double maskFill, int64_t causalShift, OUT out, int64_t ob, int64_t oh,   \
      int64_t os, int64_t od, int64_t splits, float *partial
#define ONYX_ATTENTION_ARGS                                                    \
  B, H, Sq, Sk, D, Dv, kvGroup, scale, q, qb, qh, qs, qd, k, kb, kh, ks, kd,   \
      v, vb, vh, vs, vd, mask, mb, mh, mq, mk, maskMode, maskFill,             \
      causalShift, out, ob, oh, os, od, splits, partial

#define ONYX_ATTENTION_KERNEL(DMAX)                                            \
  extern "C" __global__ void __launch_bounds__(kThreads)                       \
      onyx_attention_f32simt_d##DMAX(                                          \
          ONYX_ATTENTION_PARAMS(const float *, float *)) {                     \
    attention<DMAX>(ONYX_ATTENTION_ARGS);                                      \
  }

ONYX_ATTENTION_KERNEL(32)
ONYX_ATTENTION_KERNEL(64)
ONYX_ATTENTION_KERNEL(128)

//===----------------------------------------------------------------------===//
// Tensor-core kernels
//===----------------------------------------------------------------------===//
#include "async_copy.cuh"
#include "elements.cuh"

namespace {
namespace tc {

constexpr int kMaxWarps = 4;
constexpr int kStaticSmem = 48 * 1024; // bytes of static shared memory
constexpr float kLog2e = 1.4426950408889634f;

// Element kinds: 0 f32, 1 f16, 2 bf16 (elements.cuh).
using onyx_kernels::Elem;

__device__ __forceinline__ uint32_t raw2(unsigned short lo, unsigned short hi) {
  return uint32_t(lo) | (uint32_t(hi) << 16);
}

using onyx_kernels::toTf32;
// x = hi + lo with both TF32 (lo carries the next 11 bits).
__device__ __forceinline__ void split(float x, uint32_t &hi, uint32_t &lo) {
  hi = toTf32(x);
  lo = toTf32(x - __uint_as_float(hi));
}

__device__ __forceinline__ void mmaTf32(float (&d)[4], const uint32_t (&a)[4],
                                        uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// d += a * b in 3xTF32 (the lo * lo term dropped; small terms first).
__device__ __forceinline__ void mma3xTf32(float (&d)[4],
                                          const uint32_t (&ah)[4],
                                          const uint32_t (&al)[4], float b0,
                                          float b1) {
  uint32_t bh0, bl0, bh1, bl1;
  split(b0, bh0, bl0);
  split(b1, bh1, bl1);
  mmaTf32(d, al, bh0, bh1);
  mmaTf32(d, ah, bl0, bl1);
  mmaTf32(d, ah, bh0, bh1);
}

template <int E>
__device__ __forceinline__ void mmaHalf(float (&d)[4], const uint32_t (&a)[4],
                                        uint32_t b0, uint32_t b1) {
  if constexpr (E == 1)
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Shared-memory helpers for the 16-bit kernels: cp.async (async_copy.cuh)
// and ldmatrix (four 8 x 8 16-bit matrices per instruction, in the mma
// operand layout; .trans gives the transposed matrices, V's B operand).
using onyx_kernels::cpAsync16;
using onyx_kernels::cpAsyncCommit;
using onyx_kernels::cpAsyncWait;
using onyx_kernels::sharedAddr;
template <bool Trans>
__device__ __forceinline__ void ldmatrix4(uint32_t (&r)[4], const void *p) {
  if constexpr (Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 "
                 "{%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(sharedAddr(p))
                 : "memory");
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 "
                 "{%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(sharedAddr(p))
                 : "memory");
}

// Fragment layouts (PTX ISA, mma.m16n8k8 / m16n8k16), lane = 4 g + t:
// C/D 16 x 8: c0 (g, 2t), c1 (g, 2t+1), c2 (g+8, 2t), c3 (g+8, 2t+1).
// tf32 A 16 x 8: (g, t), (g+8, t), (g, t+4), (g+8, t+4); B 8 x 8: (t, g),
// (t+4, g). 16-bit A 16 x 16: pairs at (g, 2t), (g+8, 2t), (g, 2t+8),
// (g+8, 2t+8); B 16 x 8: pairs at (2t, g), (2t+8, g). ldmatrix: lane
// 8 i + r gives the address of row r of matrix i; lane 4 g + t receives
// (g, 2t..2t+1) of each matrix, (2t..2t+1, g) with .trans.
//
#ifndef ONYX_ATTENTION_STAGES
#define ONYX_ATTENTION_STAGES 1
#endif
// Stages: with ONYX_ATTENTION_STAGES=2 the 16-bit kernels up to depth 64
// double-buffer the key, value and mask tiles (the next tile's K / V rows in
// flight through cp.async while one is computed). Measured on an H100
// (2026-12-06, ONYX_CUDA_PROFILE, device ms per call of the 12 attention
// launches): GPT-2 b8 s512 fp16 1.72 (the kernel before cp.async and
// ldmatrix) -> 2.02 with two stages, 1.49 with one; BERT b32 s128 fp16 0.51
// -> 0.46 / 0.44. Two stages double the shared memory per block, which
// halves the blocks per SM, and that costs more than the overlap gains; one
// stage (cp.async and ldmatrix, loads and math in turn) is the default.
// f32 and depth 128 always keep one (shared memory: the static 48 KiB;
// f32's registers are spent).
#ifndef ONYX_ATTENTION_PLAIN_STAGES
#define ONYX_ATTENTION_PLAIN_STAGES 1
#endif
// The `_plain` kernels (no mask tile) have room for two stages of K and V
// in the shared memory the mask tile would take
// (ONYX_ATTENTION_PLAIN_STAGES=2), but the second stage costs registers
// (ptxas, f16 d64: 148 with one stage, 216 with two: 3 blocks of 4 warps
// per SM against 2), so one stage is the default, as for the masked
// kernels.
#ifndef ONYX_ATTENTION_BK
#define ONYX_ATTENTION_BK 64
#endif
static_assert(ONYX_ATTENTION_BK == 32 || ONYX_ATTENTION_BK == 64,
              "ONYX_ATTENTION_BK: 32 or 64");
// Keys per tile: ONYX_ATTENTION_BK (64) for the 16-bit kernels whose tiles
// (`stages` times K and V, BK x `stride` elements each, and the mask, 64
// rows x (BK + 8) floats) fit the static shared memory, else 32 (f32, whose
// registers are spent, and depth 128). Measured on an H100 (2026-12-07,
// ONYX_CUDA_PROFILE, device ms per call of the 12 attention launches, fp16):
// 64 keys against 32 take BERT b32 s128 0.436 -> 0.387, GPT-2 b8 s512 1.474
// -> 1.456. (Two m16 tiles per warp sharing each K / V fragment, 32 query
// rows per warp, were much slower, 2.47-2.56 ms for GPT-2: 236-255
// registers, half the resident warps.)
__host__ __device__ constexpr int tileKeys(int E, int stages, int stride,
                                           bool maskTile) {
  return E != 0 && stages * (2 * ONYX_ATTENTION_BK * stride * 2 +
                             (maskTile
                                  ? kMaxWarps * 16 * (ONYX_ATTENTION_BK + 8) * 4
                                  : 0)) <=
                       kStaticSmem
             ? ONYX_ATTENTION_BK
             : 32;
}

// MASK_TILE: whether the kernel stages a mask tile in shared memory (mask
// modes 1 to 4). The `_plain` kernels (no mask, or the causal mask computed
// from the indices: mode 5) have no mask tile, and so room for two stages of
// K and V in the static shared memory (ONYX_ATTENTION_PLAIN_STAGES).
template <int E, int DMAX, bool MASK_TILE, bool SPLIT>
__device__ __forceinline__ void
attention(int64_t B, int64_t H, int64_t Sq, int64_t Sk, int64_t D, int64_t Dv,
          int64_t kvGroup, double scaleD, const void *__restrict__ qv,
          int64_t qb, int64_t qh, int64_t qs, int64_t qd,
          const void *__restrict__ kv, int64_t kb, int64_t kh, int64_t ks,
          int64_t kd, const void *__restrict__ vv, int64_t vb, int64_t vh,
          int64_t vs, int64_t vd, const void *__restrict__ mask, int64_t mb,
          int64_t mh, int64_t mq, int64_t mk, int64_t maskMode,
          double maskFillD, int64_t causalShift, void *__restrict__ outv,
          int64_t ob, int64_t oh, int64_t os, int64_t od, int64_t splitsArg,
          float *__restrict__ partial) {
  using El = Elem<E>;
  // The unsplit kernels keep their registers (the split epilogue costs
  // about 30 more: fewer blocks per multiprocessor).
  const int64_t splits = SPLIT ? splitsArg : 1;
  using S = typename El::S;
  constexpr int NST =
      (E != 0 && DMAX <= 64)
          ? (MASK_TILE ? ONYX_ATTENTION_STAGES : ONYX_ATTENTION_PLAIN_STAGES)
          : 1;
  // Row stride of the K and V tiles (elements): fragment reads are
  // conflict-free with 4 words of padding (f32) / 8 halves (16-bit, also
  // keeping ldmatrix's rows 16-byte aligned).
  constexpr int KS = DMAX + (E == 0 ? 4 : 8);
  constexpr int BK = tileKeys(E, NST, KS, MASK_TILE); // keys per tile
  constexpr int MS = BK + 8; // mask tile row stride: float2 reads conflict-free
  constexpr int KT = BK * KS;                             // one K or V tile
  constexpr int MT = MASK_TILE ? kMaxWarps * 16 * MS : 0; // one mask tile
  __shared__ __align__(16) S Ks[NST * KT];
  __shared__ __align__(16) S Vs[NST * KT];
  __shared__ __align__(16) float Ms[MASK_TILE ? NST * MT : 4];
  static_assert(sizeof(Ks) + sizeof(Vs) + sizeof(Ms) <= kStaticSmem,
                "attention: the tiles exceed the static shared memory");
  const int tid = threadIdx.x, nthreads = blockDim.x;
  const int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  const int BQ = nthreads / 32 * 16;
  // maskMode 1: additive f32; 4: additive in the element type; 2 / 3: a bool
  // (byte) Where mask, the score becomes maskFill where it is false / true;
  // 5: the causal Where mask computed, not read: key j' is kept for query i'
  // when j' <= i' + causalShift, with i' (j') 0 where the mask broadcasts
  // over the queries (keys), mq (mk) 0, and otherwise the row (key) index.
  const bool causal = maskMode == 5;
  const bool additive = maskMode == 1 || maskMode == 4;
  const bool select = maskMode == 2 || maskMode == 3 || causal;
  // The grid is (query blocks x key splits, heads, batch): with splits > 1
  // (small grids, batch 1) block x takes query block x / splits and the
  // x % splits-th share of the key tiles, and leaves its unnormalized
  // output, running max and sum in `partial` for onyx_attention_combine_*.
  // Causal: the last query blocks have the most keys, so they run first,
  // over every head and batch (the blocks are numbered with the query block
  // slowest and reversed), and the grid's tail is the short blocks.
  const int64_t part = blockIdx.x % splits, nQ = gridDim.x / splits;
  int64_t b = blockIdx.z, h = blockIdx.y, qBlock = blockIdx.x / splits;
  if (causal) {
    const int64_t lin =
        qBlock + nQ * (blockIdx.y + int64_t(gridDim.y) * blockIdx.z);
    const int64_t heads = gridDim.y, perBlock = heads * gridDim.z;
    qBlock = nQ - 1 - lin / perBlock;
    h = lin % perBlock % heads;
    b = lin % perBlock / heads;
  }
  const int64_t q0 = qBlock * BQ;
  const int64_t r0 = q0 + warp * 16 + g, r1 = r0 + 8; // this lane's rows
  const int64_t hk = h / kvGroup;
  const float scale = float(scaleD), maskFill = float(maskFillD);
  const S *q = static_cast<const S *>(qv) + b * qb + h * qh;
  const S *k = static_cast<const S *>(kv) + b * kb + hk * kh;
  const S *v = static_cast<const S *>(vv) + b * vb + hk * vh;
  const int64_t mOffset = b * mb + h * mh;
  // A mask that broadcasts over the queries (BERT's padding mask): one row
  // of the tile is staged and read by every row.
  const bool maskRow = mq == 0;
  auto ldq = [&](int64_t r, int d) -> S {
    return (r < Sq && d < D) ? q[r * qs + d * qd] : S(0);
  };

  // Q fragments, loaded once.
  constexpr int NKQ = E == 0 ? DMAX / 8 : DMAX / 16;
  float qf[E == 0 ? NKQ : 1][4];
  uint32_t qp[E == 0 ? 1 : NKQ][4];
#pragma unroll
  for (int kk = 0; kk < NKQ; ++kk) {
    if constexpr (E == 0) {
      qf[kk][0] = ldq(r0, kk * 8 + t);
      qf[kk][1] = ldq(r1, kk * 8 + t);
      qf[kk][2] = ldq(r0, kk * 8 + t + 4);
      qf[kk][3] = ldq(r1, kk * 8 + t + 4);
    } else {
      int c = kk * 16 + 2 * t;
      qp[kk][0] = raw2(ldq(r0, c), ldq(r0, c + 1));
      qp[kk][1] = raw2(ldq(r1, c), ldq(r1, c + 1));
      qp[kk][2] = raw2(ldq(r0, c + 8), ldq(r0, c + 9));
      qp[kk][3] = raw2(ldq(r1, c + 8), ldq(r1, c + 9));
    }
  }
  constexpr int ND = DMAX / 8; // output n-tiles
  float o[ND][4];
  float m[2], l[2];

  // 16-byte staging where the depth is contiguous and every row starts on a
  // 16-byte boundary (the projections' usual [B, S, H, D] layout).
  constexpr int VEC = 16 / int(sizeof(S));
  auto aligned = [](const void *p, int64_t a, int64_t b, int64_t c) {
    return reinterpret_cast<uintptr_t>(p) % 16 == 0 && a % VEC == 0 &&
           b % VEC == 0 && c % VEC == 0;
  };
  const bool kVec = kd == 1 && D % VEC == 0 && aligned(kv, kb, kh, ks);
  const bool vVec = vd == 1 && Dv % VEC == 0 && aligned(vv, vb, vh, vs);
  // Mask rows in groups of 4 keys (one 16 / 8 / 4-byte load).
  const int mBytes = maskMode == 1 ? 4 : maskMode == 4 ? 2 : 1;
  const bool mVec = maskMode && mk == 1 &&
                    reinterpret_cast<uintptr_t>(mask) % (4 * mBytes) == 0 &&
                    mb % 4 == 0 && mh % 4 == 0 && mq % 4 == 0;
  auto maskValue = [&](int64_t at) -> float {
    if (maskMode == 1)
      return static_cast<const float *>(mask)[at];
    if (maskMode == 4)
      return El::toFloat(static_cast<const S *>(mask)[at]);
    // 1 keeps the score, 0 replaces it by maskFill.
    return float((static_cast<const unsigned char *>(mask)[at] != 0) ==
                 (maskMode == 2));
  };

  // Causal and padding masks: a key tile that is masked for every row of
  // the block, with scores at or below -1e30 (the lowest float, -inf), adds
  // exp(score - max) = 0 to every row that has a key left, so it is
  // skipped, K/V loads included; a row left with no key at all (the unfused
  // softmax then averages the masked scores) makes the block run again
  // without skipping.
  const bool mayDie = additive || (select && maskFill <= -1e30f);
  auto alive = [&](float value) {
    return additive ? value > -1e30f : value != 0.f;
  };

  // The mask tile of keys j0 .. j0 + BK - 1 into Mt; true when some row of
  // the block keeps one of its keys. A barrier (every thread calls it).
  auto stageMask = [&](int64_t j0, float *Mt) -> bool {
    const int n = int(Sk - j0 < BK ? Sk - j0 : BK);
    const int rows = maskRow ? 1 : BQ;
    bool live = false;
    if (mVec) {
      for (int idx = tid; idx < rows * BK / 4; idx += nthreads) {
        int r = idx / (BK / 4), c = idx % (BK / 4) * 4;
        int64_t qi = q0 + r;
        float4 value = make_float4(0.f, 0.f, 0.f, 0.f);
        int64_t at = mOffset + qi * mq + j0 + c;
        if (qi < Sq && c + 4 <= n) {
          if (maskMode == 1) {
            value = *reinterpret_cast<const float4 *>(
                static_cast<const float *>(mask) + at);
          } else if (maskMode == 4) {
            uint2 h = *reinterpret_cast<const uint2 *>(
                static_cast<const S *>(mask) + at);
            value = make_float4(
                El::toFloat(S(h.x & 0xffff)), El::toFloat(S(h.x >> 16)),
                El::toFloat(S(h.y & 0xffff)), El::toFloat(S(h.y >> 16)));
          } else {
            uchar4 m4 = *reinterpret_cast<const uchar4 *>(
                static_cast<const unsigned char *>(mask) + at);
            const bool keep = maskMode == 2;
            value = make_float4(
                float((m4.x != 0) == keep), float((m4.y != 0) == keep),
                float((m4.z != 0) == keep), float((m4.w != 0) == keep));
          }
        } else if (qi < Sq) {
          value.x = c < n ? maskValue(at) : 0.f;
          value.y = c + 1 < n ? maskValue(at + 1) : 0.f;
          value.z = c + 2 < n ? maskValue(at + 2) : 0.f;
          value.w = c + 3 < n ? maskValue(at + 3) : 0.f;
        }
        *reinterpret_cast<float4 *>(Mt + r * MS + c) = value;
        if (qi < Sq)
          live |= (c < n && alive(value.x)) || (c + 1 < n && alive(value.y)) ||
                  (c + 2 < n && alive(value.z)) ||
                  (c + 3 < n && alive(value.w));
      }
    } else {
      for (int idx = tid; idx < rows * BK; idx += nthreads) {
        int r = idx / BK, c = idx % BK;
        int64_t qi = q0 + r;
        const bool in = qi < Sq && c < n;
        const float value =
            in ? maskValue(mOffset + qi * mq + (j0 + c) * mk) : 0.f;
        Mt[r * MS + c] = value;
        live |= in && alive(value);
      }
    }
    return __syncthreads_or(live);
  };

  // The K and V rows j0 .. j0 + BK - 1 into Kt / Vt, zero past the end and
  // past the depth: cp.async for the 16-bit kernels' aligned rows (complete
  // after cpAsyncWait and a barrier), otherwise through registers (complete
  // after a barrier).
  auto loadKV = [&](int64_t j0, S *Kt, S *Vt) {
    const int n = int(Sk - j0 < BK ? Sk - j0 : BK);
    if (kVec && vVec) {
      for (int idx = tid; idx < BK * DMAX / VEC; idx += nthreads) {
        int jj = idx / (DMAX / VEC), d = idx % (DMAX / VEC) * VEC;
        bool in = jj < n;
        if constexpr (E != 0) {
          const bool kin = in && d < D, vin = in && d < Dv;
          cpAsync16(Kt + jj * KS + d, kin ? k + (j0 + jj) * ks + d : k, kin);
          cpAsync16(Vt + jj * KS + d, vin ? v + (j0 + jj) * vs + d : v, vin);
        } else {
          uint4 kx = make_uint4(0, 0, 0, 0), vx = kx;
          if (in && d < D)
            kx = *reinterpret_cast<const uint4 *>(k + (j0 + jj) * ks + d);
          if (in && d < Dv)
            vx = *reinterpret_cast<const uint4 *>(v + (j0 + jj) * vs + d);
          *reinterpret_cast<uint4 *>(Kt + jj * KS + d) = kx;
          *reinterpret_cast<uint4 *>(Vt + jj * KS + d) = vx;
        }
      }
    } else {
      for (int idx = tid; idx < BK * DMAX; idx += nthreads) {
        int jj = idx / DMAX, d = idx % DMAX;
        bool in = jj < n;
        Kt[jj * KS + d] = (in && d < D) ? k[(j0 + jj) * ks + d * kd] : S(0);
        Vt[jj * KS + d] = (in && d < Dv) ? v[(j0 + jj) * vs + d * vd] : S(0);
      }
    }
  };

  // One key tile: S = Q K^T (16 x BK per warp), scale, mask, the online
  // softmax, O += P V.
  auto computeTile = [&](int64_t j0, const S *Kt, const S *Vt,
                         const float *Mt) {
    const int n = int(Sk - j0 < BK ? Sk - j0 : BK);
    float s[BK / 8][4];
#pragma unroll
    for (int nt = 0; nt < BK / 8; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        s[nt][e] = 0.f;
#pragma unroll
    for (int kk = 0; kk < NKQ; ++kk) {
      if constexpr (E == 0) {
        uint32_t ah[4], al[4];
#pragma unroll
        for (int e = 0; e < 4; ++e)
          split(qf[kk][e], ah[e], al[e]);
#pragma unroll
        for (int nt = 0; nt < BK / 8; ++nt) {
          // One k-step from zero, then an fp32 add (see the top).
          const float *kr = Kt + (nt * 8 + g) * KS + kk * 8 + t;
          float step[4] = {0.f, 0.f, 0.f, 0.f};
          mma3xTf32(step, ah, al, kr[0], kr[4]);
#pragma unroll
          for (int e = 0; e < 4; ++e)
            s[nt][e] += step[e];
        }
      } else {
        // Matrices: keys 16 np + 0..7 / 8..15 (lane / 16) by depth
        // 16 kk + 0..7 / 8..15 (lane / 8 % 2): both B registers of n-tiles
        // 2 np and 2 np + 1.
#pragma unroll
        for (int np = 0; np < BK / 16; ++np) {
          uint32_t kb4[4];
          ldmatrix4<false>(kb4, Kt + (np * 16 + lane / 16 * 8 + lane % 8) * KS +
                                    kk * 16 + lane / 8 % 2 * 8);
          mmaHalf<E>(s[2 * np], qp[kk], kb4[0], kb4[1]);
          mmaHalf<E>(s[2 * np + 1], qp[kk], kb4[2], kb4[3]);
        }
      }
    }

    // Scale, mask, keys past the end; then the online softmax per row.
    // Causal: key c of the tile is kept for the row when c <= lim[half].
    float corr[2];
    int lim[2] = {BK, BK};
    if (causal)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int64_t x =
            (mq ? (half ? r1 : r0) : 0) + causalShift - (mk ? j0 : int64_t(0));
        lim[half] = mk ? int(x < -1 ? -1 : x > BK ? BK : x) : x >= 0 ? BK : -1;
      }
#pragma unroll
    for (int nt = 0; nt < BK / 8; ++nt)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int c = nt * 8 + 2 * t;
        float2 mv = make_float2(1.f, 1.f);
        if constexpr (MASK_TILE)
          if (maskMode)
            mv = *reinterpret_cast<const float2 *>(
                Mt + (maskRow ? 0 : warp * 16 + g + 8 * half) * MS + c);
        if (causal) {
          mv.x = c <= lim[half] ? 1.f : 0.f;
          mv.y = c + 1 <= lim[half] ? 1.f : 0.f;
        }
        float x0 = s[nt][2 * half] * scale, x1 = s[nt][2 * half + 1] * scale;
        if (additive) {
          x0 += mv.x;
          x1 += mv.y;
        } else if (select) {
          if (mv.x == 0.f)
            x0 = maskFill;
          if (mv.y == 0.f)
            x1 = maskFill;
        }
        s[nt][2 * half] = c < n ? x0 : -INFINITY;
        s[nt][2 * half + 1] = c + 1 < n ? x1 : -INFINITY;
      }
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      float mx = -INFINITY;
#pragma unroll
      for (int nt = 0; nt < BK / 8; ++nt)
        mx = fmaxf(mx, fmaxf(s[nt][2 * half], s[nt][2 * half + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float mNew = fmaxf(m[half], mx);
      // All scores so far -inf: subtract 0 (exp(-inf) = 0, no NaN).
      const float mUse = mNew == -INFINITY ? 0.f : mNew;
      corr[half] = exp2f((m[half] - mUse) * kLog2e);
      m[half] = mNew;
      float sum = 0.f;
#pragma unroll
      for (int nt = 0; nt < BK / 8; ++nt)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float p = exp2f((s[nt][2 * half + e] - mUse) * kLog2e);
          s[nt][2 * half + e] = p;
          sum += p;
        }
      l[half] = l[half] * corr[half] + sum;
      if constexpr (E != 0) { // f32: O * corr + P V below
#pragma unroll
        for (int dn = 0; dn < ND; ++dn) {
          o[dn][2 * half] *= corr[half];
          o[dn][2 * half + 1] *= corr[half];
        }
      }
    }

    // O += P V.
    if constexpr (E == 0) {
      // k-step nt covers keys nt*8 .. nt*8+7 in the order 0 2 4 6 1 3 5 7
      // (A's column t is key 2t, t+4 is 2t+1), so the score accumulators
      // are A's fragment as they are; V's rows follow the same order.
      // The tile's P V from zero, then O = O * corr + tile (see the top).
      float pv[ND][4];
#pragma unroll
      for (int dn = 0; dn < ND; ++dn)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          pv[dn][e] = 0.f;
#pragma unroll
      for (int nt = 0; nt < BK / 8; ++nt) {
        uint32_t ah[4], al[4];
        split(s[nt][0], ah[0], al[0]);
        split(s[nt][2], ah[1], al[1]);
        split(s[nt][1], ah[2], al[2]);
        split(s[nt][3], ah[3], al[3]);
        const float *vr = Vt + (nt * 8 + 2 * t) * KS + g;
#pragma unroll
        for (int dn = 0; dn < ND; ++dn) {
          float step[4] = {0.f, 0.f, 0.f, 0.f};
          mma3xTf32(step, ah, al, vr[dn * 8], vr[KS + dn * 8]);
#pragma unroll
          for (int e = 0; e < 4; ++e)
            pv[dn][e] += step[e];
        }
      }
#pragma unroll
      for (int dn = 0; dn < ND; ++dn)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          o[dn][e] = fmaf(o[dn][e], corr[e / 2], pv[dn][e]);
    } else {
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk) {
        const uint32_t a[4] = {El::pack(s[2 * kk][0], s[2 * kk][1]),
                               El::pack(s[2 * kk][2], s[2 * kk][3]),
                               El::pack(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                               El::pack(s[2 * kk + 1][2], s[2 * kk + 1][3])};
        // Matrices (transposed): keys 16 kk + 0..7 / 8..15 (lane / 8 % 2)
        // by depth 8 (2 dp) .. / 8 (2 dp + 1) .. (lane / 16): both B
        // registers of n-tiles 2 dp and 2 dp + 1.
#pragma unroll
        for (int dp = 0; dp < ND / 2; ++dp) {
          uint32_t vb4[4];
          ldmatrix4<true>(vb4,
                          Vt + (kk * 16 + lane / 8 % 2 * 8 + lane % 8) * KS +
                              (2 * dp + lane / 16) * 8);
          mmaHalf<E>(o[2 * dp], a, vb4[0], vb4[1]);
          mmaHalf<E>(o[2 * dp + 1], a, vb4[2], vb4[3]);
        }
      }
    }
  };

  // This block's key tiles: [jtBegin, jtEnd).
  const int64_t nTiles = (Sk + BK - 1) / BK;
  const int64_t tilesPer = (nTiles + splits - 1) / splits;
  const int64_t jtBegin = !SPLIT                     ? 0
                          : part * tilesPer < nTiles ? part * tilesPer
                                                     : nTiles;
  const int64_t jtEnd = !SPLIT                        ? nTiles
                        : jtBegin + tilesPer < nTiles ? jtBegin + tilesPer
                                                      : nTiles;
  for (int pass = 0; pass < 2; ++pass) {
#pragma unroll
    for (int dn = 0; dn < ND; ++dn)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        o[dn][e] = 0.f;
    m[0] = m[1] = -INFINITY;
    l[0] = l[1] = 0.f;
    bool skipped = false;
    // A tile is skipped when no row of the block keeps one of its keys
    // (first pass only). Causal: when its first key is past the last row's
    // frontier.
    const int64_t lastRow = (Sq < q0 + BQ ? Sq : q0 + BQ) - 1;
    auto skips = [&](int64_t j0, float *Mt) {
      if (causal)
        return (mk ? j0 : 0) > (mq ? lastRow : 0) + causalShift && mayDie &&
               pass == 0;
      if constexpr (MASK_TILE)
        return maskMode && !stageMask(j0, Mt) && mayDie && pass == 0;
      return false;
    };
    if constexpr (NST == 1) {
      for (int64_t jt = jtBegin; jt < jtEnd; ++jt) {
        const int64_t j0 = jt * BK;
        if (skips(j0, Ms)) {
          skipped = true;
          continue;
        }
        loadKV(j0, Ks, Vs);
        if constexpr (E != 0) {
          cpAsyncCommit();
          cpAsyncWait<0>();
        }
        __syncthreads();
        computeTile(j0, Ks, Vs, Ms);
        __syncthreads();
      }
    } else {
      // Tile jt is in buffer jt % 2; tile jt + 1's mask is staged and its
      // K / V loads issued before tile jt is computed.
      // (An empty share: a split with no tile, only when splits > tiles.)
      const bool empty = SPLIT && jtBegin == jtEnd;
      bool skipCur = !empty && skips(jtBegin * BK, Ms);
      if (!empty && !skipCur)
        loadKV(jtBegin * BK, Ks, Vs);
      cpAsyncCommit();
#pragma unroll 1
      for (int64_t jt = jtBegin; jt < jtEnd; ++jt) {
        const int cur = int((jt - jtBegin) & 1), nxt = cur ^ 1;
        bool skipNext = false;
        if (jt + 1 < jtEnd) {
          skipNext = skips((jt + 1) * BK, Ms + nxt * MT);
          if (!skipNext)
            loadKV((jt + 1) * BK, Ks + nxt * KT, Vs + nxt * KT);
        }
        cpAsyncCommit();
        if (skipCur) {
          skipped = true;
        } else {
          cpAsyncWait<1>();
          __syncthreads();
          computeTile(jt * BK, Ks + cur * KT, Vs + cur * KT, Ms + cur * MT);
        }
        // Every warp is done with buffer cur before tile jt + 2 fills it.
        __syncthreads();
        skipCur = skipNext;
      }
      cpAsyncWait<0>();
    }
    // A row whose every key was dead, with tiles skipped: again in full.
    // Split and causal: a row whose key 0 is kept has a live key in the
    // first split, and this split's weighs 0 next to it: no rerun.
    auto dead = [&](int64_t r, float mr) {
      return r < Sq && mr <= -1e30f &&
             !(causal && SPLIT && (mq ? r : 0) + causalShift >= 0);
    };
    const bool redo = skipped && (dead(r0, m[0]) || dead(r1, m[1]));
    if (!__syncthreads_or(redo))
      break;
  }

  // The row sums over the 4 lanes of a row; a row whose every score is -inf
  // gives 0/0 like the unfused softmax.
  S *out = static_cast<S *>(outv) + b * ob + h * oh;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    float sum = l[half];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    const float inv = 1.f / sum;
    const int64_t row = half ? r1 : r0;
    if (row >= Sq)
      continue;
    if constexpr (SPLIT) {
      // Row (b, h, row) of this split: Dv unnormalized outputs, then the
      // max and the sum at the end of the split's block of rows.
      const int64_t R = int64_t(gridDim.z) * gridDim.y * Sq;
      const int64_t at = (b * gridDim.y + h) * Sq + row;
      float *po = partial + (part * R + at) * Dv;
#pragma unroll
      for (int dn = 0; dn < ND; ++dn) {
        const int c = dn * 8 + 2 * t;
        if (c + 1 < Dv && Dv % 2 == 0) // (8-byte aligned: the scratch is)
          *reinterpret_cast<float2 *>(po + c) =
              make_float2(o[dn][2 * half], o[dn][2 * half + 1]);
        else
#pragma unroll
          for (int e = 0; e < 2; ++e)
            if (c + e < Dv)
              po[c + e] = o[dn][2 * half + e];
      }
      if (t == 0) {
        float *ml = partial + splits * R * Dv + (part * R + at) * 2;
        ml[0] = m[half];
        ml[1] = sum;
      }
      continue;
    }
#pragma unroll
    for (int dn = 0; dn < ND; ++dn)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int c = dn * 8 + 2 * t + e;
        if (c < Dv)
          out[row * os + c * od] = El::fromFloat(o[dn][2 * half + e] * inv);
      }
  }
}

} // namespace tc
} // namespace

// BOUNDS: __launch_bounds__. The 16-bit kernels ask for
// ONYX_ATTENTION_MIN_BLOCKS blocks per SM, which caps their registers
// (ptxas -v, d64 with two stages: 1 -> 197 registers, 3 -> 168 with 28
// bytes spilled, 4 -> 128 with 28 spilled). With two stages, 3 and 4 were
// no faster than 1 on the H100 (scripts/gpu/attention_variants.sh); 1 it is.
#ifndef ONYX_ATTENTION_MIN_BLOCKS
#define ONYX_ATTENTION_MIN_BLOCKS 1
#endif
#ifndef ONYX_ATTENTION_PLAIN_MIN_BLOCKS
#define ONYX_ATTENTION_PLAIN_MIN_BLOCKS 1
#endif
#define ONYX_TC_BOUNDS_F32 __launch_bounds__(tc::kMaxWarps * 32)
#define ONYX_TC_BOUNDS_16(MASK_TILE)                                           \
  __launch_bounds__(tc::kMaxWarps * 32, MASK_TILE                              \
                                            ? ONYX_ATTENTION_MIN_BLOCKS        \
                                            : ONYX_ATTENTION_PLAIN_MIN_BLOCKS)
#define ONYX_TC_BOUNDS_32(MASK_TILE) ONYX_TC_BOUNDS_F32
// onyx_attention_NAME_dDMAX stages a mask tile (mask modes 1 to 4);
// onyx_attention_NAME_dDMAX_plain has none (no mask, or the causal mode 5);
// the _split variants of both take a share of the key tiles (splits > 1).
#define ONYX_ATTENTION_TC_KERNEL(NAME, SUFFIX, E, DMAX, MASK_TILE, SPLIT,      \
                                 BOUNDS)                                       \
  extern "C" __global__ void BOUNDS(MASK_TILE)                                 \
      onyx_attention_##NAME##_d##DMAX##SUFFIX(                                 \
          ONYX_ATTENTION_PARAMS(const void *, void *)) {                       \
    tc::attention<E, DMAX, MASK_TILE, SPLIT>(ONYX_ATTENTION_ARGS);             \
  }
#define ONYX_ATTENTION_TC_DEPTHS(NAME, SUFFIX, E, MASK_TILE, SPLIT, BOUNDS)    \
  ONYX_ATTENTION_TC_KERNEL(NAME, SUFFIX, E, 32, MASK_TILE, SPLIT, BOUNDS)      \
  ONYX_ATTENTION_TC_KERNEL(NAME, SUFFIX, E, 64, MASK_TILE, SPLIT, BOUNDS)      \
  ONYX_ATTENTION_TC_KERNEL(NAME, SUFFIX, E, 128, MASK_TILE, SPLIT, BOUNDS)
#define ONYX_ATTENTION_TC_KERNELS(NAME, E, BOUNDS)                             \
  ONYX_ATTENTION_TC_DEPTHS(NAME, , E, true, false, BOUNDS)                     \
  ONYX_ATTENTION_TC_DEPTHS(NAME, _plain, E, false, false, BOUNDS)              \
  ONYX_ATTENTION_TC_DEPTHS(NAME, _split, E, true, true, BOUNDS)                \
  ONYX_ATTENTION_TC_DEPTHS(NAME, _plain_split, E, false, true, BOUNDS)

ONYX_ATTENTION_TC_KERNELS(f32, 0, ONYX_TC_BOUNDS_32)
ONYX_ATTENTION_TC_KERNELS(f16, 1, ONYX_TC_BOUNDS_16)
ONYX_ATTENTION_TC_KERNELS(bf16, 2, ONYX_TC_BOUNDS_16)

// The key splits of a small grid joined (onyxrt_cuda_attention launches it
// after a split attention kernel): for each row (b, h, i) of R = B*H*Sq and
// output column c, out = sum_s w_s o_s[c] / sum_s w_s l_s with
// w_s = exp(m_s - max_s m_s); the row order of `partial` is the split
// kernel's. A row whose every split saw only -inf scores gives 0/0, as the
// unsplit kernel does.
namespace {
template <int E>
__device__ __forceinline__ void
combine(int64_t R, int64_t H, int64_t Sq, int64_t Dv, int64_t splits,
        const float *__restrict__ partial, void *__restrict__ outv, int64_t ob,
        int64_t oh, int64_t os, int64_t od) {
  using El = tc::Elem<E>;
  using S = typename El::S;
  const float *ml = partial + splits * R * Dv;
  for (int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
       idx < R * Dv; idx += int64_t(gridDim.x) * blockDim.x) {
    const int64_t at = idx / Dv, c = idx % Dv;
    float mx = -INFINITY;
    for (int64_t sp = 0; sp < splits; ++sp)
      mx = fmaxf(mx, ml[(sp * R + at) * 2]);
    const float mUse = mx == -INFINITY ? 0.f : mx;
    float num = 0.f, den = 0.f;
    for (int64_t sp = 0; sp < splits; ++sp) {
      const float w = exp2f((ml[(sp * R + at) * 2] - mUse) * tc::kLog2e);
      num = fmaf(w, partial[(sp * R + at) * Dv + c], num);
      den = fmaf(w, ml[(sp * R + at) * 2 + 1], den);
    }
    const int64_t i = at % Sq, h = at / Sq % H, b = at / Sq / H;
    static_cast<S *>(outv)[b * ob + h * oh + i * os + c * od] =
        El::fromFloat(num / den);
  }
}
} // namespace

#define ONYX_ATTENTION_COMBINE(NAME, E)                                        \
  extern "C" __global__ void __launch_bounds__(256)                            \
      onyx_attention_combine_##NAME(                                           \
          int64_t R, int64_t H, int64_t Sq, int64_t Dv, int64_t splits,        \
          const float *partial, void *out, int64_t ob, int64_t oh, int64_t os, \
          int64_t od) {                                                        \
    combine<E>(R, H, Sq, Dv, splits, partial, out, ob, oh, os, od);            \
  }
ONYX_ATTENTION_COMBINE(f32, 0)
ONYX_ATTENTION_COMBINE(f16, 1)
ONYX_ATTENTION_COMBINE(bf16, 2)
