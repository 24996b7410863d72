//===- ConvFewChannels.cpp - Direct 2-d convolutions of few channels ------===//
//
// A convolution with few input channels (a CNN's first layer: 3 channels,
// 3x3 or 7x7, stride 2) as a direct AVX-512 kernel (ConvFewChannels.h).
//
// Per image, the input is first copied once into a zero-padded, column-
// phase-split form: for stride S along the width, padded row r of channel c
// holds S phases, phase q the padded columns q, q + S, q + 2S, ... So the
// tap (kh, kw) of output column ow reads phase (kw * dilW) % S at position
// ow + (kw * dilW) / S of padded row oh * strideH + kh * dilH: contiguous in
// ow for every stride, and padding is plain zeros (w * 0 is added, as over a
// padded copy). The row has 48 zeros of slack, so a kernel's last vectors
// may read past the output's width.
//
// The kernel keeps 8 output channels x 48 output columns (24 zmm
// accumulators) of one output row in registers and walks the reduction
// (c, kh, kw) in order: per tap, 3 vector loads of the input, 8 broadcast
// weights (packed per block of 8 channels, zero rows past m) and 24 FMAs.
// The epilogue (accumulate, bias, residual, ReLU/Clip) is applied in
// registers before the masked stores.
//
// Threads: the output rows of an image across the pool; the padded copy is
// made by the pool first.
//
//===----------------------------------------------------------------------===//

#include "cpu/ConvFewChannels.h"
#include "cpu/Threads.h"

#include <algorithm>
#include <cstring>
#include <immintrin.h>
#include <vector>

namespace onyx::cpu {
namespace {

constexpr int kMB = 8;         // output channels per kernel call
constexpr int kNV = 3;         // 16-float vectors of columns per call
constexpr int64_t kSlack = 48; // zeros past each phase row
constexpr int64_t kMinRowWork = int64_t(1) << 17; // FMAs per thread, at least

struct Tile {
  const float *in;     // the padded input at this row's first tap, column ow0
  const int64_t *taps; // per reduction index: offset from `in`
  int64_t k;           // reduction length
  const float *w;      // packed weights [k][kMB]
  int64_t mValid;      // output channels of the block that exist
  int64_t cols;        // output columns of the tile (<= 16 * kNV)
  float *y;            // y at (m0, oh, ow0)
  const float *res;    // residual at (m0, oh, ow0), or null
  const float *bias;   // bias at m0, or null
  int64_t ystride;     // floats between output channels
  const ConvEpilogue *e;
};

template <int NV>
__attribute__((target("avx512f"))) void kernel(const Tile &t) {
  // Fully unrolled, so that the 8 * NV accumulators stay in registers.
  __m512 acc[kMB][NV];
#pragma GCC unroll 8
  for (int i = 0; i < kMB; ++i)
#pragma GCC unroll 3
    for (int v = 0; v < NV; ++v)
      acc[i][v] = _mm512_setzero_ps();
  for (int64_t k = 0; k < t.k; ++k) {
    const float *p = t.in + t.taps[k];
    __m512 x[NV];
#pragma GCC unroll 3
    for (int v = 0; v < NV; ++v)
      x[v] = _mm512_loadu_ps(p + 16 * v);
    const float *wk = t.w + k * kMB;
#pragma GCC unroll 8
    for (int i = 0; i < kMB; ++i) {
      __m512 b = _mm512_set1_ps(wk[i]);
#pragma GCC unroll 3
      for (int v = 0; v < NV; ++v)
        acc[i][v] = _mm512_fmadd_ps(b, x[v], acc[i][v]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < kMB; ++i) {
    if (i >= t.mValid)
      break;
    float *y = t.y + i * t.ystride;
    const float *res = t.res ? t.res + i * t.ystride : nullptr;
    __m512 b = _mm512_set1_ps(t.bias ? t.bias[i] : 0.0f);
#pragma GCC unroll 3
    for (int v = 0; v < NV; ++v)
      storeWithEpilogue(acc[i][v], tailMask(t.cols - 16 * v), b,
                        res ? res + 16 * v : nullptr, *t.e, y + 16 * v);
  }
}

/// dst[i] = src[i * stride + first] where that is inside [0, n), else 0,
/// for i in [0, count): one phase of a padded row.
void copyPhase(const float *src, int64_t n, int64_t first, int64_t stride,
               float *dst, int64_t count) {
  // The positions inside the row: i in [lo, hi).
  int64_t lo = first >= 0 ? 0 : (-first + stride - 1) / stride;
  int64_t hi = n - first > 0 ? (n - first + stride - 1) / stride : 0;
  lo = std::min(lo, count);
  hi = std::max(lo, std::min(hi, count));
  std::fill(dst, dst + lo, 0.0f);
  const float *p = src + first;
  if (stride == 1)
    std::memcpy(dst + lo, p + lo, size_t(hi - lo) * sizeof(float));
  else
    for (int64_t i = lo; i < hi; ++i)
      dst[i] = p[i * stride];
  std::fill(dst + hi, dst + count, 0.0f);
}

} // namespace

bool fewChannelsApplies(const Conv2d &conv) {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return avx512 && conv.c >= 1 && conv.c <= 4 &&
         conv.c * conv.kH * conv.kW <= 256 && conv.outW >= 8 &&
         conv.outH >= 1 && conv.m >= 1 && conv.strideW >= 1 &&
         conv.strideH >= 1 && conv.dilH >= 1 && conv.dilW >= 1;
}

void convFewChannels(const Conv2d &s, const float *x, const float *w,
                     const ConvEpilogue &e, float *y) {
  const int64_t sw = s.strideW;
  const int64_t hp = (s.outH - 1) * s.strideH + (s.kH - 1) * s.dilH + 1;
  const int64_t wp = (s.outW - 1) * sw + (s.kW - 1) * s.dilW + 1;
  const int64_t len = (wp + sw - 1) / sw + kSlack; // one phase row
  const int64_t rowFloats = sw * len;              // one padded row
  const int64_t taps = s.kH * s.kW, k = s.c * taps;
  // The reduction's offsets into the padded input, in (c, kh, kw) order.
  std::vector<int64_t> tapOff(static_cast<size_t>(k), 0);
  for (int64_t c = 0; c < s.c; ++c)
    for (int64_t kh = 0; kh < s.kH; ++kh)
      for (int64_t kw = 0; kw < s.kW; ++kw) {
        int64_t o = kw * s.dilW;
        tapOff[size_t((c * s.kH + kh) * s.kW + kw)] =
            (c * hp + kh * s.dilH) * rowFloats + (o % sw) * len + o / sw;
      }
  // Weights per block of kMB output channels: [block][k][kMB], zero rows
  // past m.
  int64_t blocks = (s.m + kMB - 1) / kMB;
  std::vector<float> packed(size_t(blocks * k * kMB), 0.0f);
  for (int64_t m = 0; m < s.m; ++m)
    for (int64_t r = 0; r < k; ++r)
      packed[size_t(((m / kMB) * k + r) * kMB + m % kMB)] = w[m * k + r];
  thread_local std::vector<float> padded;
  padded.resize(size_t(s.c * hp * rowFloats));
  float *pad = padded.data();
  const int64_t inSize = s.inH * s.inW, outSize = s.outH * s.outW;
  const int64_t rowWork = std::max<int64_t>(s.m * s.outW * k, 1);
  for (int64_t n = 0; n < s.n; ++n) {
    const float *xn = x + n * s.c * inSize;
    // The padded, phase-split copy, a padded row per item.
    parallelFor(s.c * hp, std::max<int64_t>(1, (int64_t(1) << 15) / rowFloats),
                [&](int64_t begin, int64_t end) {
                  for (int64_t item = begin; item < end; ++item) {
                    int64_t c = item / hp, r = item % hp;
                    float *dst = pad + item * rowFloats;
                    int64_t ih = r - s.padTop;
                    if (ih < 0 || ih >= s.inH) {
                      std::fill(dst, dst + rowFloats, 0.0f);
                      continue;
                    }
                    const float *src = xn + c * inSize + ih * s.inW;
                    for (int64_t q = 0; q < sw; ++q) {
                      float *phase = dst + q * len;
                      copyPhase(src, s.inW, q - s.padLeft, sw, phase,
                                len - kSlack);
                      std::fill(phase + len - kSlack, phase + len, 0.0f);
                    }
                  }
                });
    float *yn = y + n * s.m * outSize;
    const float *resn = e.residual ? e.residual + n * s.m * outSize : nullptr;
    parallelFor(s.outH, std::max<int64_t>(1, kMinRowWork / rowWork),
                [&](int64_t begin, int64_t end) {
                  Tile t;
                  t.taps = tapOff.data();
                  t.k = k;
                  t.ystride = outSize;
                  t.e = &e;
                  for (int64_t oh = begin; oh < end; ++oh)
                    for (int64_t b = 0; b < blocks; ++b) {
                      int64_t m0 = b * kMB;
                      t.w = packed.data() + b * k * kMB;
                      t.mValid = std::min<int64_t>(kMB, s.m - m0);
                      t.bias = e.bias ? e.bias + m0 : nullptr;
                      for (int64_t ow0 = 0; ow0 < s.outW; ow0 += 16 * kNV) {
                        t.cols = std::min<int64_t>(16 * kNV, s.outW - ow0);
                        t.in = pad + oh * s.strideH * rowFloats + ow0;
                        int64_t at = (m0 * s.outH + oh) * s.outW + ow0;
                        t.y = yn + at;
                        t.res = resn ? resn + at : nullptr;
                        int nv = int((t.cols + 15) / 16);
                        if (nv == 3)
                          kernel<3>(t);
                        else if (nv == 2)
                          kernel<2>(t);
                        else
                          kernel<1>(t);
                      }
                    }
                });
  }
}

} // namespace onyx::cpu
