//===- Conv2d.h - The CPU convolution kernels' shared description -*- C++
//-*-===//
//
// A 2-d convolution of one group and its epilogue, as the direct kernels
// (ConvFewChannels.cpp, ConvDirect.cpp) take them from Conv.cpp's
// onyxrt_cpu_conv_f32, and the epilogue applied to 16 outputs in AVX-512
// registers.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_CPU_CONV2D_H
#define ONYX_RUNTIME_CPU_CONV2D_H

#include <cstdint>
#include <immintrin.h>

namespace onyx::cpu {

/// A 2-d convolution of one group: x [n, c, inH, inW] (unpadded; padTop and
/// padLeft are its begin pads, the end padding is implied by the output
/// extents), w [m, c, kH, kW], y [n, m, outH, outW].
struct Conv2d {
  int64_t n, c, m;
  int64_t inH, inW, kH, kW, outH, outW;
  int64_t padTop, padLeft, strideH, strideW, dilH, dilW;
};

/// The epilogue, in this order: y = acc (+ y when accumulating) + bias, then
/// + residual, then ReLU or Clip [lo, hi] (NaN kept).
struct ConvEpilogue {
  const float *bias = nullptr;
  const float *residual = nullptr;
  bool accumulate = false, relu = false, clip = false;
  float lo = 0.0f, hi = 0.0f;
};

/// The lanes of a 16-float vector that hold the first n of the remaining
/// outputs.
__attribute__((target("avx512f"))) inline __mmask16 tailMask(int64_t n) {
  return n >= 16  ? __mmask16(0xFFFF)
         : n <= 0 ? __mmask16(0)
                  : __mmask16((1u << n) - 1);
}

/// 16 floats at p, the lanes in m (zero elsewhere). A full mask takes a
/// plain load: masked loads cost about 3x a plain one on AMD Zen 5 (a
/// 1024x3072x768 product of ConvDirect.cpp's kernel: 67 against 197 GF/s).
__attribute__((target("avx512f"))) inline __m512 loadLanes(__mmask16 m,
                                                           const float *p) {
  return m == __mmask16(0xFFFF) ? _mm512_loadu_ps(p)
                                : _mm512_maskz_loadu_ps(m, p);
}

/// Stores the lanes in m of v to p (a plain store for a full mask).
__attribute__((target("avx512f"))) inline void storeLanes(float *p, __mmask16 m,
                                                          __m512 v) {
  if (m == __mmask16(0xFFFF))
    _mm512_storeu_ps(p, v);
  else
    _mm512_mask_storeu_ps(p, m, v);
}

/// The epilogue on 16 accumulated outputs r (lanes in `m`) of one output
/// channel whose bias is `bias`: y's old values when accumulating, then the
/// bias, the residual at `res` (when not null), ReLU or Clip; stored to y.
__attribute__((target("avx512f"))) inline void
storeWithEpilogue(__m512 r, __mmask16 m, __m512 bias, const float *res,
                  const ConvEpilogue &e, float *y) {
  if (e.accumulate)
    r = _mm512_add_ps(loadLanes(m, y), r);
  r = _mm512_add_ps(r, bias);
  if (res)
    r = _mm512_add_ps(r, loadLanes(m, res));
  if (e.relu)
    r = _mm512_max_ps(_mm512_setzero_ps(), r); // NaN: the second operand
  if (e.clip) {
    // arith.maximumf / minimumf keep NaN: blend it back.
    __mmask16 nan = _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q);
    __m512 c = _mm512_min_ps(_mm512_max_ps(r, _mm512_set1_ps(e.lo)),
                             _mm512_set1_ps(e.hi));
    r = _mm512_mask_blend_ps(nan, c, r);
  }
  storeLanes(y, m, r);
}

} // namespace onyx::cpu

#endif // ONYX_RUNTIME_CPU_CONV2D_H
