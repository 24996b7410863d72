// Fused LayerNorm for onyx.layer_norm (onyxrt_cuda_layer_norm,
// CudaLayerNorm.cpp). Built with nvcc into a cubin (sm_90) and PTX
// (compute_90) that the runtime embeds and loads like an artifact's kernels.
//
// Per row r of a dense row-major [rows, n] x (ONNX LayerNormalization with
// the row as the normalized axes, stash_type float), optionally after a
// residual add (ONNX Add(x, residual) of result type sumType, then the
// LayerNorm of that sum):
//   v[j] = x[r, j]                                (no residual)
//   v[j] = round_sum(x[r, j] + residual[r, j])    (rounded to sumType)
//   sum[r, j] = v[j]                              (when asked for)
//   mean = sum_j v[j] / n
//   var  = sum_j (v[j] - mean)^2 / n             (two passes, never E[v^2])
//   inv  = 1 / sqrtf(var + eps)                  (IEEE sqrt and division)
//   y[j] = (v[j] - mean) * inv * scale[j] + bias[j]
//   out[r, j] = y[j], out2[r, j] = y[j]          (out2 when asked for)
// all in fp32, each store rounded once to its own type (round to nearest
// even; out2 holds what a Cast of an f32 out would).
//
// Every kernel takes the element types of x, out and scale/bias as
// template parameters (0 f32, 1 f16, 2 bf16: all 27 combinations are
// instantiated), so the inner loops never test them. The residual, sum
// and out2 types are arguments (kinds 0-2, the same for every thread):
// their loads and stores branch on the kind (uniformly, every variant
// compiled into every kernel), once per register kernel and once per
// access in the three-pass one. Arguments, all 8 bytes (CudaDevice::launch
// passes 8-byte slots):
//   (rows, n, epsilon, x, residual, scale, bias, sum, out, out2, tpr,
//    flags, residualKind, sumKind, out2Kind)
// residual, bias, sum and out2 may be NULL (none; sum only with a
// residual); sumKind rounds v whenever there is a residual. tpr: threads
// per row, a multiple of 32 dividing the block. flags bit 0 (kVectorized):
// x, residual, sum, out, out2, scale and bias are aligned for the vector
// accesses below and n is a multiple of the vector width VEC = 16 bytes of
// x (4 f32 or 8 f16 / bf16: 8, 16 or 32 bytes of the other operands); the
// launcher checks, the kernels trust it.
//
// onyx_layer_norm_warp_<x>_<out>_<p>_e<E> (vectorized rows of up to
// 8 * 32 * E elements): tpr = 32, 64, 128 or 256 threads per row (1-8
// warps), each lane holding E elements of the row in registers (E = 8, 16,
// 24 or 32; 24 fits BERT / GPT-2's 768 in one warp). The row (x, and the
// residual) is read from global memory once into v, the sum written at
// once; the mean and the variance are taken from the registers (warp
// shuffles, plus shared memory across the warps of a row), then each lane
// writes its own elements of out (and out2). Lane t of a row holds the
// vectors t, t + tpr, t + 2 tpr, ... so that a warp's load of one slot is
// 512 contiguous bytes of x. A block is 128 threads (4, 2 or 1 rows) or
// 256 (one row of 8 warps) and takes one group of rows. Only the
// vectorized form exists: the rows it cannot take (n not a multiple of
// VEC, unaligned views; transformer models have none) go to the three-pass
// kernel, rather than a second, scalar copy of every register kernel with
// a bounds check per element.
//
// onyx_layer_norm_block_<x>_<out>_<p> (any n, any alignment):
// three passes over global memory (sum, centered sum of squares, write),
// each recomputing v from x and the residual, by one warp per row (short
// rows that the register kernels cannot take: the second and third pass
// hit L1) or by the whole block (up to 1024 threads, block sums through
// shared memory; the later passes hit L2 while the rows in flight fit),
// vectorized when the flag says so. sum, out and out2 are written in the
// last pass only.
//
// In place (an output -- sum, out or out2 -- equal to an input -- x or the
// residual -- with the same element size; the launcher rejects any other
// overlap, and outputs that overlap each other): every element of a row is
// read (in every pass) and written by one and the same thread, its reads
// before its writes, so no thread can overwrite what another still has to
// read, wherever the writes come: the register kernels write sum before
// the statistics, out and out2 after them; the three-pass kernel writes
// all three in its last pass. x, the residual and the outputs are
// therefore not declared __restrict__; scale and bias are (the launcher
// keeps every output off them).
#include "elements.cuh"

namespace {

constexpr int64_t kVectorized = 1;

// Element kinds: 0 f32, 1 f16, 2 bf16 (elements.cuh).
using onyx_kernels::Elem;

// N consecutive elements of kind E at an address aligned to min(16, bytes):
// 16-byte accesses (two for 32 bytes), or one 8-byte access.
template <int E, int N> struct Vec {
  using S = typename Elem<E>::S;
  static constexpr int kBytes = N * int(sizeof(S));
  static_assert(kBytes % 16 == 0 || kBytes == 8, "unsupported vector");

  static __device__ __forceinline__ void load(const S *p, float *f) {
    alignas(16) S raw[N];
    if constexpr (kBytes % 16 == 0) {
#pragma unroll
      for (int k = 0; k < kBytes / 16; ++k)
        reinterpret_cast<uint4 *>(raw)[k] =
            reinterpret_cast<const uint4 *>(p)[k];
    } else {
      *reinterpret_cast<uint2 *>(raw) = *reinterpret_cast<const uint2 *>(p);
    }
#pragma unroll
    for (int i = 0; i < N; ++i)
      f[i] = Elem<E>::toFloat(raw[i]);
  }
  static __device__ __forceinline__ void store(S *p, const float *f) {
    alignas(16) S raw[N];
#pragma unroll
    for (int i = 0; i < N; ++i)
      raw[i] = Elem<E>::fromFloat(f[i]);
    if constexpr (kBytes % 16 == 0) {
#pragma unroll
      for (int k = 0; k < kBytes / 16; ++k)
        reinterpret_cast<uint4 *>(p)[k] =
            reinterpret_cast<const uint4 *>(raw)[k];
    } else {
      *reinterpret_cast<uint2 *>(p) = *reinterpret_cast<const uint2 *>(raw);
    }
  }
};

//===----------------------------------------------------------------------===//
// Operands of a kind known at run time (residual, sum, out2)
//===----------------------------------------------------------------------===//

template <int K> struct Kind { static constexpr int value = K; };

// f(Kind<kind>()): one branch (the same for every thread: kinds are kernel
// arguments) to code compiled for each kind.
template <class F> __device__ __forceinline__ void withKind(int64_t kind, F f) {
  if (kind == 0)
    f(Kind<0>());
  else if (kind == 1)
    f(Kind<1>());
  else
    f(Kind<2>());
}

// Element i of kind K at p (untyped: the kind is a run-time value).
template <int K>
__device__ __forceinline__ const typename Elem<K>::S *elemAt(const void *p,
                                                             int64_t i) {
  return static_cast<const typename Elem<K>::S *>(p) + i;
}
template <int K>
__device__ __forceinline__ typename Elem<K>::S *elemAt(void *p, int64_t i) {
  return static_cast<typename Elem<K>::S *>(p) + i;
}

// f rounded to kind K and back (to nearest even; f32: itself).
template <int K> __device__ __forceinline__ float roundTo(float f) {
  return Elem<K>::toFloat(Elem<K>::fromFloat(f));
}

// x + residual rounded to the sum's kind, for N values (the residual's N
// elements at p + i): what Add(x, residual) of type sumKind would hold.
template <int N>
__device__ __forceinline__ void addResidual(float *v, const void *p, int64_t i,
                                            int64_t residualKind,
                                            int64_t sumKind) {
  withKind(residualKind, [&](auto r) {
    constexpr int R = decltype(r)::value;
    if constexpr (N == 1) {
      v[0] += Elem<R>::toFloat(*elemAt<R>(p, i));
    } else {
      float f[N];
      Vec<R, N>::load(elemAt<R>(p, i), f);
#pragma unroll
      for (int e = 0; e < N; ++e)
        v[e] += f[e];
    }
  });
  withKind(sumKind, [&](auto k) {
#pragma unroll
    for (int e = 0; e < N; ++e)
      v[e] = roundTo<decltype(k)::value>(v[e]);
  });
}

// N values to the elements at p + i, of kind `kind`.
template <int N>
__device__ __forceinline__ void storeAs(void *p, int64_t i, int64_t kind,
                                        const float *v) {
  withKind(kind, [&](auto k) {
    constexpr int K = decltype(k)::value;
    if constexpr (N == 1)
      *elemAt<K>(p, i) = Elem<K>::fromFloat(v[0]);
    else
      Vec<K, N>::store(elemAt<K>(p, i), v);
  });
}

// The sum over the warp, in every lane (butterfly: a fixed order, so every
// lane gets the same bits).
__device__ __forceinline__ float warpSum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// The sum over `warps` consecutive warps starting at warp `first`, in
// every thread of the block (all of which must call it). `red` holds one
// partial per warp; the trailing barrier keeps the next call's writes
// from overtaking this call's reads.
__device__ __forceinline__ float groupSum(float v, float *red, int first,
                                          int warps) {
  v = warpSum(v);
  if ((threadIdx.x & 31) == 0)
    red[threadIdx.x / 32] = v;
  __syncthreads();
  float s = 0.f;
  for (int w = 0; w < warps; ++w)
    s += red[first + w];
  __syncthreads();
  return s;
}

//===----------------------------------------------------------------------===//
// Rows in registers: `tpr` threads (1, 2, 4 or 8 warps) per row, E elements
// per lane, vector accesses only
//===----------------------------------------------------------------------===//

// The slots of lane t (slot k: VEC elements from column (k * tpr + t) * VEC)
// of the row that starts at element `row` of p: the residual's added to v
// (then rounded to sumKind), or v stored as `kind`; slots at or past n are
// skipped.
template <int VEC, int NV>
__device__ __forceinline__ void
addResidualSlots(float *v, const void *p, int64_t row, int tpr, int t, int n,
                 int64_t residualKind, int64_t sumKind) {
  withKind(residualKind, [&](auto r) {
    constexpr int R = decltype(r)::value;
#pragma unroll
    for (int k = 0; k < NV; ++k) {
      const int c = (k * tpr + t) * VEC;
      if (c < n) {
        float f[VEC];
        Vec<R, VEC>::load(elemAt<R>(p, row + c), f);
#pragma unroll
        for (int e = 0; e < VEC; ++e)
          v[k * VEC + e] += f[e];
      }
    }
  });
  // Slots past n hold 0, which rounds to 0.
  withKind(sumKind, [&](auto s) {
    constexpr int S = decltype(s)::value;
    if constexpr (S != 0) {
#pragma unroll
      for (int i = 0; i < NV * VEC; ++i)
        v[i] = roundTo<S>(v[i]);
    }
  });
}

template <int VEC, int NV>
__device__ __forceinline__ void storeSlots(void *p, int64_t row, int tpr, int t,
                                           int n, int64_t kind,
                                           const float *v) {
  withKind(kind, [&](auto k) {
    constexpr int K = decltype(k)::value;
#pragma unroll
    for (int s = 0; s < NV; ++s) {
      const int c = (s * tpr + t) * VEC;
      if (c < n)
        Vec<K, VEC>::store(elemAt<K>(p, row + c), &v[s * VEC]);
    }
  });
}

template <int EX, int EO, int EP, int E>
__device__ __forceinline__ void
layerNormRows(int64_t rows, int64_t n64, double epsD, const void *xv,
              const void *residual, const void *__restrict__ scaleV,
              const void *__restrict__ biasV, void *sum, void *outV, void *out2,
              int64_t tpr64, int64_t residualKind, int64_t sumKind,
              int64_t out2Kind) {
  using SX = typename Elem<EX>::S;
  using SO = typename Elem<EO>::S;
  using SP = typename Elem<EP>::S;
  constexpr int VEC = 16 / int(sizeof(SX)); // elements per vector slot
  constexpr int NV = E / VEC;               // vector slots per lane
  static_assert(E % VEC == 0, "E must be a multiple of the vector width");
  // Cross-warp partial sums (more than one warp per row); 256 threads at
  // most.
  __shared__ float red[8];

  const SX *x = static_cast<const SX *>(xv);
  const SP *scale = static_cast<const SP *>(scaleV);
  const SP *bias = static_cast<const SP *>(biasV);
  SO *out = static_cast<SO *>(outV);
  const int n = int(n64); // at most 8 * 32 * 32 (the launcher's choice)
  const int tpr = int(tpr64), warps = tpr / 32;
  const int t = threadIdx.x % tpr;
  const int rowInBlock = threadIdx.x / tpr;
  const int64_t rowsPerBlock = blockDim.x / tpr;
  const float eps = float(epsD);

  // One row group per block: the launcher splits more than 2^31 - 1
  // groups into several launches. (With a grid-stride loop here, the
  // per-slot addresses of scale and bias were hoisted out of it and held
  // in registers: ptxas gave f32 with E = 16 79 registers instead of 58,
  // and spilled at E = 24.)
  const int64_t r = int64_t(blockIdx.x) * rowsPerBlock + rowInBlock;
  const bool active = r < rows;
  const int64_t row = (active ? r : 0) * n64; // the row's first element
  const SX *xRow = x + row;
  SO *outRow = out + row;

  // The row, once. Element (k, e) of this lane is column
  // (k * tpr + t) * VEC + e; slots past n (and inactive rows) hold 0
  // (n is a multiple of VEC: a slot is all in or all out).
  float v[E];
#pragma unroll
  for (int k = 0; k < NV; ++k) {
    const int c = (k * tpr + t) * VEC;
    if (active && c < n)
      Vec<EX, VEC>::load(xRow + c, &v[k * VEC]);
    else
#pragma unroll
      for (int e = 0; e < VEC; ++e)
        v[k * VEC + e] = 0.f;
  }
  // Plus the residual (the sum, written at once: this lane has read all
  // of its elements).
  if (residual && active) {
    addResidualSlots<VEC, NV>(v, residual, row, tpr, t, n, residualKind,
                              sumKind);
    if (sum)
      storeSlots<VEC, NV>(sum, row, tpr, t, n, sumKind, v);
  }

  float s = 0.f;
#pragma unroll
  for (int i = 0; i < E; ++i)
    s += v[i];
  s = warps == 1 ? warpSum(s) : groupSum(s, red, rowInBlock * warps, warps);
  const float mean = s / float(n);

  float q = 0.f;
#pragma unroll
  for (int k = 0; k < NV; ++k) {
    const int c = (k * tpr + t) * VEC;
#pragma unroll
    for (int e = 0; e < VEC; ++e) {
      const float d = v[k * VEC + e] - mean;
      q += c < n ? d * d : 0.f;
    }
  }
  q = warps == 1 ? warpSum(q) : groupSum(q, red, rowInBlock * warps, warps);
  const float inv = 1.0f / sqrtf(q / float(n) + eps);
  if (!active)
    return;

#pragma unroll
  for (int k = 0; k < NV; ++k) {
    const int c = (k * tpr + t) * VEC;
    if (c >= n)
      continue;
    float g[VEC], b[VEC];
    Vec<EP, VEC>::load(scale + c, g);
    if (bias)
      Vec<EP, VEC>::load(bias + c, b);
    else
#pragma unroll
      for (int e = 0; e < VEC; ++e)
        b[e] = 0.f;
    float *y = &v[k * VEC];
#pragma unroll
    for (int e = 0; e < VEC; ++e)
      y[e] = (y[e] - mean) * inv * g[e] + b[e];
    Vec<EO, VEC>::store(outRow + c, y);
    // Here rather than after the loop, where every y would stay live
    // (ptxas: f16 with E = 32 107 registers instead of 80).
    if (out2)
      storeAs<VEC>(out2, row + c, out2Kind, y);
  }
}

//===----------------------------------------------------------------------===//
// Any n, any alignment: three passes, `tpr` threads per row (a warp, or
// the whole block)
//===----------------------------------------------------------------------===//

template <int EX, int EO, int EP>
__device__ __forceinline__ void
layerNormPasses(int64_t rows, int64_t n, double epsD, const void *xv,
                const void *residual, const void *__restrict__ scaleV,
                const void *__restrict__ biasV, void *sum, void *outV,
                void *out2, int64_t tpr, int64_t flags, int64_t residualKind,
                int64_t sumKind, int64_t out2Kind) {
  using SX = typename Elem<EX>::S;
  using SO = typename Elem<EO>::S;
  using SP = typename Elem<EP>::S;
  constexpr int VEC = 16 / int(sizeof(SX));
  __shared__ float red[32];

  const SX *x = static_cast<const SX *>(xv);
  const SP *scale = static_cast<const SP *>(scaleV);
  const SP *bias = static_cast<const SP *>(biasV);
  SO *out = static_cast<SO *>(outV);
  const int64_t t = threadIdx.x % tpr;
  const int64_t rowsPerBlock = blockDim.x / tpr;
  const int warps = int(tpr / 32);
  const bool vectorized = flags & kVectorized;
  const int64_t nv = n / VEC; // vectors per row (vectorized: all of it)
  const float eps = float(epsD);
  // A row's sum: warp shuffles, or through shared memory for a block.
  auto rowSum = [&](float v) {
    return warps == 1 ? warpSum(v) : groupSum(v, red, 0, warps);
  };

  const int64_t r = int64_t(blockIdx.x) * rowsPerBlock + threadIdx.x / tpr;
  // Rows past the end read nothing (every thread still takes part in
  // the block sums).
  const int64_t len = r < rows ? n : 0, lenV = r < rows ? nv : 0;
  const int64_t row = (r < rows ? r : 0) * n; // the row's first element
  const SX *xRow = x + row;
  SO *outRow = out + row;
  // v: VEC values from column j (vectorized), or the one at column j.
  auto loadVec = [&](int64_t j, float *f) {
    Vec<EX, VEC>::load(xRow + j, f);
    if (residual)
      addResidual<VEC>(f, residual, row + j, residualKind, sumKind);
  };
  auto load = [&](int64_t j) {
    float f = Elem<EX>::toFloat(xRow[j]);
    if (residual)
      addResidual<1>(&f, residual, row + j, residualKind, sumKind);
    return f;
  };

  float s = 0.f;
  if (vectorized) {
    for (int64_t i = t; i < lenV; i += tpr) {
      float f[VEC];
      loadVec(i * VEC, f);
#pragma unroll
      for (int e = 0; e < VEC; ++e)
        s += f[e];
    }
  } else {
    for (int64_t j = t; j < len; j += tpr)
      s += load(j);
  }
  const float mean = rowSum(s) / float(n);

  float q = 0.f;
  if (vectorized) {
    for (int64_t i = t; i < lenV; i += tpr) {
      float f[VEC];
      loadVec(i * VEC, f);
#pragma unroll
      for (int e = 0; e < VEC; ++e) {
        const float d = f[e] - mean;
        q += d * d;
      }
    }
  } else {
    for (int64_t j = t; j < len; j += tpr) {
      const float d = load(j) - mean;
      q += d * d;
    }
  }
  const float inv = 1.0f / sqrtf(rowSum(q) / float(n) + eps);

  // Each thread rewrites only the elements it reads here (in place).
  if (vectorized) {
#pragma unroll 1
    for (int64_t i = t; i < lenV; i += tpr) {
      float f[VEC], g[VEC], b[VEC];
      loadVec(i * VEC, f);
      if (sum)
        storeAs<VEC>(sum, row + i * VEC, sumKind, f);
      Vec<EP, VEC>::load(scale + i * VEC, g);
      if (bias)
        Vec<EP, VEC>::load(bias + i * VEC, b);
      else
#pragma unroll
        for (int e = 0; e < VEC; ++e)
          b[e] = 0.f;
#pragma unroll
      for (int e = 0; e < VEC; ++e)
        f[e] = (f[e] - mean) * inv * g[e] + b[e];
      Vec<EO, VEC>::store(outRow + i * VEC, f);
      if (out2)
        storeAs<VEC>(out2, row + i * VEC, out2Kind, f);
    }
  } else {
#pragma unroll 1
    for (int64_t j = t; j < len; j += tpr) {
      float f = load(j);
      if (sum)
        storeAs<1>(sum, row + j, sumKind, &f);
      const float g = Elem<EP>::toFloat(scale[j]);
      const float b = bias ? Elem<EP>::toFloat(bias[j]) : 0.f;
      f = (f - mean) * inv * g + b;
      outRow[j] = Elem<EO>::fromFloat(f);
      if (out2)
        storeAs<1>(out2, row + j, out2Kind, &f);
    }
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points: 27 type combinations x (4 register kernels + 3 passes)
//===----------------------------------------------------------------------===//

#define ONYX_LN_PARAMS                                                         \
  int64_t rows, int64_t n, double eps, const void *x, const void *residual,    \
      const void *scale, const void *bias, void *sum, void *out, void *out2,   \
      int64_t tpr, int64_t flags, int64_t residualKind, int64_t sumKind,       \
      int64_t out2Kind

#define ONYX_LN_REG(XN, XE, ON, OE, PN, PE, E)                                 \
  extern "C" __global__ void __launch_bounds__(256)                            \
      onyx_layer_norm_warp_##XN##_##ON##_##PN##_e##E(ONYX_LN_PARAMS) {         \
    (void)flags; /* always vectorized */                                       \
    layerNormRows<XE, OE, PE, E>(rows, n, eps, x, residual, scale, bias, sum,  \
                                 out, out2, tpr, residualKind, sumKind,        \
                                 out2Kind);                                    \
  }

// The launcher's table (CudaLayerNorm.cpp) lists the same kernels in the
// same order: elements per lane 8, 16, 24, 32, then the three-pass one.
#define ONYX_LN_TYPES(XN, XE, ON, OE, PN, PE)                                  \
  ONYX_LN_REG(XN, XE, ON, OE, PN, PE, 8)                                       \
  ONYX_LN_REG(XN, XE, ON, OE, PN, PE, 16)                                      \
  ONYX_LN_REG(XN, XE, ON, OE, PN, PE, 24)                                      \
  ONYX_LN_REG(XN, XE, ON, OE, PN, PE, 32)                                      \
  extern "C" __global__ void __launch_bounds__(1024)                           \
      onyx_layer_norm_block_##XN##_##ON##_##PN(ONYX_LN_PARAMS) {               \
    layerNormPasses<XE, OE, PE>(rows, n, eps, x, residual, scale, bias, sum,   \
                                out, out2, tpr, flags, residualKind, sumKind,  \
                                out2Kind);                                     \
  }

#define ONYX_LN_PARAM_TYPES(XN, XE, ON, OE)                                    \
  ONYX_LN_TYPES(XN, XE, ON, OE, f32, 0)                                        \
  ONYX_LN_TYPES(XN, XE, ON, OE, f16, 1)                                        \
  ONYX_LN_TYPES(XN, XE, ON, OE, bf16, 2)

#define ONYX_LN_OUT_TYPES(XN, XE)                                              \
  ONYX_LN_PARAM_TYPES(XN, XE, f32, 0)                                          \
  ONYX_LN_PARAM_TYPES(XN, XE, f16, 1)                                          \
  ONYX_LN_PARAM_TYPES(XN, XE, bf16, 2)

ONYX_LN_OUT_TYPES(f32, 0)
ONYX_LN_OUT_TYPES(f16, 1)
ONYX_LN_OUT_TYPES(bf16, 2)
