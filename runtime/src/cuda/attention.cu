// Flash attention for onyx.attention (onyxrt_cuda_attention,
// CudaAttention.cpp). Built with nvcc into a cubin (sm_90) and PTX
// (compute_90) that the runtime embeds and loads like an artifact's kernels.
//
// out[b, h, i, :] = sum_j softmax_j(scale * q_i . k_j + mask[b, h, i, j]) v_j
// (or, with a Where mask, the score replaced by maskFill where masked)
//
// One block of 128 threads per (tile of BQ queries, head, batch); T = 8
// adjacent lanes share a query row, each taking every T-th key of a tile
// with its own online-softmax state (running maximum, sum, and the output
// accumulator in registers, fp32); the T partial states are merged with
// warp shuffles at the end. Key and value tiles of BK
// rows, and the mask tile, are staged in shared memory; the scores never
// reach global memory. Every operand is addressed through per-logical-dim
// element strides (0 broadcasts), so transposed and broadcast operands need
// no copies. Keys of K/V head h / kvGroup serve query head h.
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
          double maskFillD, float *__restrict__ out) {
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
  // becomes maskFill where it is false / true.
  const bool additive = maskMode == 1, select = maskMode >= 2;
  const int64_t mOffset = b * mb + h * mh;
  const float *mF =
      additive ? static_cast<const float *>(mask) + mOffset : nullptr;
  const unsigned char *mB =
      select ? static_cast<const unsigned char *>(mask) + mOffset : nullptr;
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
  float *out_row = out + ((b * H + h) * Sq + i) * Dv;
#pragma unroll
  for (int d = 0; d < DMAX; ++d)
    if (d < Dv && d % T == lane)
      out_row[d] = acc[d] * inv;
}

} // namespace

#define ONYX_ATTENTION_KERNEL(DMAX)                                            \
  extern "C" __global__ void __launch_bounds__(kThreads)                       \
      onyx_attention_f32_d##DMAX(                                              \
          int64_t B, int64_t H, int64_t Sq, int64_t Sk, int64_t D, int64_t Dv, \
          int64_t kvGroup, double scale, const float *q, int64_t qb,           \
          int64_t qh, int64_t qs, int64_t qd, const float *k, int64_t kb,      \
          int64_t kh, int64_t ks, int64_t kd, const float *v, int64_t vb,      \
          int64_t vh, int64_t vs, int64_t vd, const void *mask, int64_t mb,    \
          int64_t mh, int64_t mq, int64_t mk, int64_t maskMode,                \
          double maskFill, float *out) {                                       \
    attention<DMAX>(B, H, Sq, Sk, D, Dv, kvGroup, scale, q, qb, qh, qs, qd, k, \
                    kb, kh, ks, kd, v, vb, vh, vs, vd, mask, mb, mh, mq, mk,   \
                    maskMode, maskFill, out);                                  \
  }

ONYX_ATTENTION_KERNEL(32)
ONYX_ATTENTION_KERNEL(64)
ONYX_ATTENTION_KERNEL(128)
