//===- Conv.cpp - CPU convolutions: im2col + OpenBLAS sgemm ---------------===//
//
// onyxrt_cpu_conv_f32 (onyx_runtime.h): the grouped N-d convolution of the
// ONNX Conv lowering, called from CPU artifacts (onyx-cpu-lower-convolutions).
// Per image and group, y[M, P] = w[M, K] * col[K, P] with K = C * taps and
// P = output pixels, single-threaded OpenBLAS sgemm calls on a column matrix
// built from the input: 1x1 convolutions with unit strides and no padding
// read the input itself, others copy a band of output rows at a time
// (bounded scratch), writing zeros where a tap falls into the padding
// (onyx_cpu_conv.h: the input comes unpadded, with its begin pads).
// 2-d convolutions of at most 4 input channels run as a direct kernel on
// AVX-512 hosts (ConvFewChannels.cpp). Depthwise convolutions (one input
// and one output channel per group) are
// direct loops, an output row at a time: 3x3 kernels with unit dilation and
// stride 1 or 2 sum their 9 taps in registers over the columns whose taps
// are all inside the input, the rest (borders, other kernels) add tap by
// tap into the row, all vectorized over output columns (AVX-512, AVX2 or
// SSE2 clones, chosen when the library loads). Either way a tap in the
// padding adds w * 0, in the taps' order, as over a padded copy.
// Bias, the residual and ReLU or Clip are applied in one pass over each
// output block, while it is in cache.
// Threads (Threads.h): image-groups, or a band's column-matrix rows and its
// GEMM's blocks (Gemm.h) and depthwise channels are split across the pool;
// every output element is computed by one thread, with the same operations in
// the same order as with one thread.
//
//===----------------------------------------------------------------------===//

#include "cpu/ConvDirect.h"
#include "cpu/ConvFewChannels.h"
#include "cpu/Gemm.h"
#include "cpu/Threads.h"

#include "onyx/onyx_cpu_conv.h"
#include "onyx/onyx_services.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using namespace onyx::cpu;

// Column-matrix scratch per band (floats): 4 MiB.
constexpr int64_t kScratchFloats = int64_t(1) << 20;
// Elements (multiply-adds, copies) per thread below which a kernel's
// loop is not split: a fork and join costs a few microseconds.
constexpr int64_t kMinPieceWork = int64_t(1) << 15;
// Multiply-adds per thread below which a convolution's images and groups
// are not split.
constexpr int64_t kMinUnitWork = int64_t(1) << 17;

int64_t grainFor(int64_t workPerItem) {
  return std::max<int64_t>(1,
                           kMinPieceWork / std::max<int64_t>(workPerItem, 1));
}

/// The calling thread's column-matrix scratch, at least `size` floats, kept
/// between calls (one band: 4 MiB unless one output row needs more).
float *threadScratch(size_t size) {
  thread_local std::vector<float> scratch;
  if (scratch.size() < size)
    scratch.resize(size);
  return scratch.data();
}

/// A convolution with its spatial dims padded to three (leading 1s).
struct Shape {
  int64_t n, c, m, g; // c, m per group
  int64_t in[3], k[3], out[3], p[3], s[3], d[3];
  int64_t inSize() const { return in[0] * in[1] * in[2]; }
  int64_t outSize() const { return out[0] * out[1] * out[2]; }
  int64_t taps() const { return k[0] * k[1] * k[2]; }
};

Shape readShape(int64_t rank, const int64_t *dims) {
  Shape s;
  s.n = dims[0];
  s.g = dims[3];
  s.c = dims[1] / s.g;
  s.m = dims[2] / s.g;
  for (int i = 0; i < 3; ++i) {
    s.in[i] = s.k[i] = s.out[i] = s.s[i] = s.d[i] = 1;
    s.p[i] = 0;
  }
  const int64_t *p = dims + 4;
  int64_t lead = 3 - rank;
  for (int64_t i = 0; i < rank; ++i) {
    s.in[lead + i] = p[i];
    s.k[lead + i] = p[rank + i];
    s.out[lead + i] = p[2 * rank + i];
    s.p[lead + i] = p[3 * rank + i];
    s.s[lead + i] = p[4 * rank + i];
    s.d[lead + i] = p[5 * rank + i];
  }
  return s;
}

/// The activation after bias and residual.
struct Activation {
  bool relu = false, clip = false;
  float lo = 0.0f, hi = 0.0f;
};

float bitsToFloat(int64_t bits) {
  uint32_t b = uint32_t(uint64_t(bits));
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

/// y[j] = act(y[j] + bias + residual[j]) over one output channel's `count`
/// pixels. Clip is max then min with NaN kept (arith.maximumf/minimumf).
/// Inlined into the vectorized clones of its callers.
__attribute__((always_inline)) inline void
applyEpilogue(float *__restrict y, int64_t count, float bias,
              const float *__restrict residual, const Activation &act) {
  if (residual)
    for (int64_t j = 0; j < count; ++j)
      y[j] += bias + residual[j];
  else if (bias != 0.0f)
    for (int64_t j = 0; j < count; ++j)
      y[j] += bias;
  if (act.relu)
    for (int64_t j = 0; j < count; ++j)
      y[j] = std::max(y[j], 0.0f);
  if (act.clip) {
    float lo = act.lo, hi = act.hi;
    for (int64_t j = 0; j < count; ++j) {
      float v = y[j] < lo ? lo : y[j];
      y[j] = v > hi ? hi : v;
    }
  }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void
epilogue(float *y, int64_t count, float bias, const float *residual,
         const Activation &act) {
  applyEpilogue(y, count, bias, residual, act);
}

/// The output columns [lo, hi) whose input column j * s + off is inside
/// [0, in).
void validColumns(int64_t in, int64_t out, int64_t s, int64_t off, int64_t &lo,
                  int64_t &hi) {
  lo = off >= 0 ? 0 : (-off + s - 1) / s;
  hi = in - 1 - off < 0 ? 0 : (in - 1 - off) / s + 1;
  lo = std::min(lo, out);
  hi = std::clamp(hi, lo, out);
}

/// Builds rows [k0, k1) (the (c, t) pairs) of the column matrix of the
/// flattened (od, oh) output rows [row0, row0 + rows):
/// col[(c, t)][(r - row0) * OW + ow], 0 in the padding.
void im2col(const Shape &s, const float *x, int64_t row0, int64_t rows,
            int64_t k0, int64_t k1, float *col) {
  int64_t ow = s.out[2], band = rows * ow;
  int64_t taps = s.taps();
  for (int64_t kr = k0; kr < k1; ++kr) {
    int64_t c = kr / taps, t = kr % taps;
    const float *xc = x + c * s.inSize();
    {
      int64_t kd = t / (s.k[1] * s.k[2]), kh = (t / s.k[2]) % s.k[1],
              kw = t % s.k[2];
      int64_t off = kw * s.d[2] - s.p[2], lo, hi;
      validColumns(s.in[2], ow, s.s[2], off, lo, hi);
      float *dst = col + (c * taps + t) * band;
      for (int64_t r = 0; r < rows; ++r) {
        int64_t od = (row0 + r) / s.out[1], oh = (row0 + r) % s.out[1];
        int64_t id = od * s.s[0] + kd * s.d[0] - s.p[0],
                ih = oh * s.s[1] + kh * s.d[1] - s.p[1];
        float *out = dst + r * ow;
        if (id < 0 || id >= s.in[0] || ih < 0 || ih >= s.in[1]) {
          std::fill(out, out + ow, 0.0f);
          continue;
        }
        const float *src = xc + (id * s.in[1] + ih) * s.in[2] + off;
        std::fill(out, out + lo, 0.0f);
        if (s.s[2] == 1) {
          std::memcpy(out + lo, src + lo, size_t(hi - lo) * sizeof(float));
        } else if (s.s[2] == 2) {
          for (int64_t j = lo; j < hi; ++j)
            out[j] = src[2 * j];
        } else {
          int64_t stride = s.s[2];
          for (int64_t j = lo; j < hi; ++j)
            out[j] = src[j * stride];
        }
        std::fill(out + hi, out + ow, 0.0f);
      }
    }
  }
}

/// The epilogue of one depthwise output row, applied as each output is
/// computed: the start value (y's old value when accumulating, else 0),
/// then after the taps the bias and residual (`res` indexed as dst) and the
/// activation, with the rounding of the separate epilogue() pass.
struct RowEpilogue {
  bool accumulate = false;
  float bias = 0.0f;
  const float *res = nullptr;
  Activation act;
};

__attribute__((always_inline)) inline float
finishOutput(float a, float bias, const float *res, int64_t j, bool relu,
             bool clip, float lo, float hi) {
  if (res)
    a += bias + res[j];
  else if (bias != 0.0f)
    a += bias;
  if (relu)
    a = std::max(a, 0.0f);
  if (clip) {
    float v = a < lo ? lo : a;
    a = v > hi ? hi : v;
  }
  return a;
}

/// dst[j] = start + w * x over the 3x3 taps in order (start: dst[j] when
/// accumulating, else 0).
template <int S, bool Accumulate>
__attribute__((always_inline)) inline void
taps3x3(const float *__restrict r0, const float *__restrict r1,
        const float *__restrict r2, const float *w, int64_t j0, int64_t j1,
        int64_t off, float *__restrict dst) {
  const float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5],
              w6 = w[6], w7 = w[7], w8 = w[8];
  for (int64_t j = j0; j < j1; ++j) {
    int64_t b = j * S + off;
    float a = Accumulate ? dst[j] : 0.0f;
    a += w0 * r0[b];
    a += w1 * r0[b + 1];
    a += w2 * r0[b + 2];
    a += w3 * r1[b];
    a += w4 * r1[b + 1];
    a += w5 * r1[b + 2];
    a += w6 * r2[b];
    a += w7 * r2[b + 1];
    a += w8 * r2[b + 2];
    dst[j] = a;
  }
}

/// dst[j] = the epilogue of (start + w * x over the 3x3 taps in order), for
/// output columns [j0, j1) whose taps are all inside the rows r0, r1, r2 (a
/// row of zeros for a row in the padding); the input column of tap kw is
/// j * S + off + kw. In pieces of 1024 outputs, the taps and then the
/// epilogue while the piece is in cache.
template <int S>
__attribute__((target_clones("avx512f", "avx2", "default"))) void
depthwise3x3Row(const float *__restrict r0, const float *__restrict r1,
                const float *__restrict r2, const float *w, int64_t j0,
                int64_t j1, int64_t off, const RowEpilogue &e,
                float *__restrict dst) {
  constexpr int64_t kPiece = 1024;
  for (int64_t p0 = j0; p0 < j1; p0 += kPiece) {
    int64_t p1 = std::min(p0 + kPiece, j1);
    if (e.accumulate)
      taps3x3<S, true>(r0, r1, r2, w, p0, p1, off, dst);
    else
      taps3x3<S, false>(r0, r1, r2, w, p0, p1, off, dst);
    applyEpilogue(dst + p0, p1 - p0, e.bias, e.res ? e.res + p0 : nullptr,
                  e.act);
  }
}

/// dst[j] += wt * src[j * stride] for j in [lo, hi) (src already offset).
__attribute__((target_clones("avx512f", "avx2", "default"))) void
axpyStrided(float wt, const float *__restrict src, int64_t stride, int64_t lo,
            int64_t hi, float *__restrict dst) {
  if (stride == 1) {
    for (int64_t j = lo; j < hi; ++j)
      dst[j] += wt * src[j];
  } else if (stride == 2) {
    for (int64_t j = lo; j < hi; ++j)
      dst[j] += wt * src[2 * j];
  } else {
    for (int64_t j = lo; j < hi; ++j)
      dst[j] += wt * src[j * stride];
  }
}

/// dst[j] += wt * 0 over [lo, hi): a tap in the padding, as a padded copy
/// of the input would have added it (the same rounding and NaN/Inf cases).
void axpyZero(float wt, int64_t lo, int64_t hi, float *dst) {
  float v = wt * 0.0f;
  for (int64_t j = lo; j < hi; ++j)
    dst[j] += v;
}

/// Output column j of row (od, oh) of a depthwise channel: dst[j] += the
/// taps in order, 0 read in the padding.
inline void depthwisePoint(const Shape &s, const float *x, const float *w,
                           int64_t od, int64_t oh, int64_t j, float *dst) {
  float a = dst[j];
  for (int64_t kd = 0; kd < s.k[0]; ++kd) {
    int64_t id = od * s.s[0] + kd * s.d[0] - s.p[0];
    for (int64_t kh = 0; kh < s.k[1]; ++kh) {
      int64_t ih = oh * s.s[1] + kh * s.d[1] - s.p[1];
      const float *row = id >= 0 && id < s.in[0] && ih >= 0 && ih < s.in[1]
                             ? x + (id * s.in[1] + ih) * s.in[2]
                             : nullptr;
      const float *wr = w + (kd * s.k[1] + kh) * s.k[2];
      for (int64_t kw = 0; kw < s.k[2]; ++kw) {
        int64_t iw = j * s.s[2] + kw * s.d[2] - s.p[2];
        float v = row && iw >= 0 && iw < s.in[2] ? row[iw] : 0.0f;
        a += wr[kw] * v;
      }
    }
  }
  dst[j] = a;
}

/// depthwisePoint for a 3x3 kernel with unit dilation over the rows r[0..2]
/// (a row of zeros for a row in the padding) of width inW: the input column
/// of tap kw is j * S + off + kw, 0 outside [0, inW). The same taps in the
/// same order as depthwisePoint, without its general index arithmetic
/// (MobileNetV2's border columns: 2 per row).
template <int S>
inline void depthwisePoint3x3(const float *const r[3], const float *w,
                              int64_t j, int64_t off, int64_t inW,
                              const RowEpilogue &e, float *dst) {
  float a = e.accumulate ? dst[j] : 0.0f;
  for (int kh = 0; kh < 3; ++kh)
    for (int kw = 0; kw < 3; ++kw) {
      int64_t c = j * S + off + kw;
      float v = c >= 0 && c < inW ? r[kh][c] : 0.0f;
      a += w[kh * 3 + kw] * v;
    }
  dst[j] = finishOutput(a, e.bias, e.res, j, e.act.relu, e.act.clip, e.act.lo,
                        e.act.hi);
}

/// A whole output row of a 3x3 kernel: the columns [j0, j1) whose taps are
/// all inside by depthwise3x3Row, the border columns point by point.
template <int S>
void depthwise3x3FullRow(const float *const r[3], const float *w, int64_t j0,
                         int64_t j1, int64_t ow, int64_t off, int64_t inW,
                         const RowEpilogue &e, float *dst) {
  for (int64_t j = 0; j < j0; ++j)
    depthwisePoint3x3<S>(r, w, j, off, inW, e, dst);
  depthwise3x3Row<S>(r[0], r[1], r[2], w, j0, j1, off, e, dst);
  for (int64_t j = j1; j < ow; ++j)
    depthwisePoint3x3<S>(r, w, j, off, inW, e, dst);
}

/// One output row (od, oh) of a depthwise channel: dst (OW values) += the
/// taps, tap by tap; colLo/colHi[kw]: the columns whose tap kw is inside.
void depthwiseRowGeneric(const Shape &s, const float *x, const float *w,
                         int64_t od, int64_t oh, const int64_t *colLo,
                         const int64_t *colHi, float *dst) {
  int64_t ow = s.out[2];
  for (int64_t kd = 0; kd < s.k[0]; ++kd) {
    int64_t id = od * s.s[0] + kd * s.d[0] - s.p[0];
    for (int64_t kh = 0; kh < s.k[1]; ++kh) {
      int64_t ih = oh * s.s[1] + kh * s.d[1] - s.p[1];
      bool rowInside = id >= 0 && id < s.in[0] && ih >= 0 && ih < s.in[1];
      for (int64_t kw = 0; kw < s.k[2]; ++kw) {
        float wt = w[(kd * s.k[1] + kh) * s.k[2] + kw];
        if (!rowInside) {
          axpyZero(wt, 0, ow, dst);
          continue;
        }
        int64_t lo = colLo[kw], hi = colHi[kw];
        axpyZero(wt, 0, lo, dst);
        axpyStrided(wt,
                    x + (id * s.in[1] + ih) * s.in[2] + kw * s.d[2] - s.p[2],
                    s.s[2], lo, hi, dst);
        axpyZero(wt, hi, ow, dst);
      }
    }
  }
}

/// dst[0, n) = src[0, n), 16 floats at a time: the last chunk reads up to
/// 15 floats past src + n unless exactRead, and writes up to 15 past
/// dst + n unless exactWrite (then masked).
__attribute__((target("avx512f"), always_inline)) inline void
copyFloats16(float *dst, const float *src, int64_t n, bool exactRead,
             bool exactWrite) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(dst + i, _mm512_loadu_ps(src + i));
  if (i < n) {
    __mmask16 m = tailMask(n - i);
    __m512 v = exactRead ? _mm512_maskz_loadu_ps(m, src + i)
                         : _mm512_loadu_ps(src + i);
    if (exactWrite)
      _mm512_mask_storeu_ps(dst + i, m, v);
    else
      _mm512_storeu_ps(dst + i, v);
  }
}

/// A 3x3 stride-1 "same" depthwise channel (pads 1, output as large as the
/// input, 2-D, no accumulate or residual) with AVX-512: the plane is copied
/// once with its zero border into a (H + 2) x (W + 2) grid, whose flat
/// positions then read every tap at a fixed offset; the outputs are
/// computed 16 at a time over the grid (the two border columns of each row
/// too, then dropped), the epilogue in registers, and the rows copied out.
/// Every output is 9 fused multiply-adds in (kh, kw) order (a tap in the
/// padding adds w * 0) and the same epilogue as depthwise3x3Row: the
/// interior outputs have its bits; border outputs can differ from the row
/// path's in the last bit (its short border loops round differently). It
/// saves the row path's per-row and per-border-point work, where 7x7 to
/// 28x28 planes in MobileNetV2 spent most of their time.
__attribute__((target("avx512f"))) void
depthwise3x3Same(const float *x, int64_t ht, int64_t wd, const float *w,
                 float bias, const Activation &act, float *y) {
  const int64_t wp = wd + 2;
  const int64_t last = (ht - 1) * wp + wd; // flat positions computed
  // The grid, and zeros read past its end by the last step (64 positions).
  const int64_t grid = (ht + 2) * wp + 64;
  thread_local std::vector<float> buffer;
  const size_t need = size_t(grid + last + 64);
  if (buffer.size() < need)
    buffer.resize(need);
  float *pad = buffer.data(), *stage = pad + grid;
  // Rows are copied 16 floats at a time (a call to memcpy per 7-float row
  // cost more than the row's taps): a row's last chunk may spill into the
  // next rows, which are written after it (the bottom zero row is filled
  // last), and reads past the row's end, unless that would pass the
  // plane's end.
  const int64_t chunked = (wd + 15) / 16 * 16;
  auto passesPlane = [&](int64_t h) { return h * wd + chunked > ht * wd; };
  std::fill(pad, pad + wp, 0.0f);
  for (int64_t h = 0; h < ht; ++h) {
    float *row = pad + (h + 1) * wp;
    row[0] = 0.0f;
    copyFloats16(row + 1, x + h * wd, wd, /*exactRead=*/passesPlane(h),
                 /*exactWrite=*/false);
    row[wd + 1] = 0.0f;
  }
  std::fill(pad + (ht + 1) * wp, pad + grid, 0.0f);
  __m512 wv[9];
  for (int t = 0; t < 9; ++t)
    wv[t] = _mm512_set1_ps(w[t]);
  const __m512 biasV = _mm512_set1_ps(bias), zero = _mm512_setzero_ps();
  const __m512 lo = _mm512_set1_ps(act.lo), hi = _mm512_set1_ps(act.hi);
  // kV vectors per step: kV independent chains of 9 dependent FMAs.
  constexpr int kV = 4;
  const int64_t offsets[9] = {0,      1,      2,          wp,        wp + 1,
                              wp + 2, 2 * wp, 2 * wp + 1, 2 * wp + 2};
  for (int64_t q = 0; q < last; q += 16 * kV) {
    __m512 a[kV];
#pragma GCC unroll 4
    for (int v = 0; v < kV; ++v)
      a[v] = zero;
#pragma GCC unroll 9
    for (int t = 0; t < 9; ++t)
#pragma GCC unroll 4
      for (int v = 0; v < kV; ++v)
        a[v] = _mm512_fmadd_ps(
            wv[t], _mm512_loadu_ps(pad + q + 16 * v + offsets[t]), a[v]);
#pragma GCC unroll 4
    for (int v = 0; v < kV; ++v) {
      if (bias != 0.0f)
        a[v] = _mm512_add_ps(a[v], biasV);
      if (act.relu) // std::max(a, 0): a unless 0 > a (NaN kept)
        a[v] = _mm512_max_ps(zero, a[v]);
      if (act.clip) { // a < lo ? lo : a, then v > hi ? hi : v
        a[v] = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a[v], lo, _CMP_LT_OQ),
                                    a[v], lo);
        a[v] = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a[v], hi, _CMP_GT_OQ),
                                    a[v], hi);
      }
      _mm512_storeu_ps(stage + q + 16 * v, a[v]);
    }
  }
  // The next rows of y are written after each row's spill, which must not
  // pass the plane (the next channel's, maybe another thread's).
  for (int64_t h = 0; h < ht; ++h)
    copyFloats16(y + h * wd, stage + h * wp, wd, /*exactRead=*/false,
                 /*exactWrite=*/passesPlane(h));
}

/// One output channel of a depthwise convolution, a row at a time.
void depthwiseChannel(const Shape &s, const float *x, const float *w,
                      bool accumulate, float bias, const float *residual,
                      const Activation &act, const int64_t *colLo,
                      const int64_t *colHi, const float *zeros, float *y) {
  int64_t ow = s.out[2];
  bool fast3x3 = s.k[0] == 1 && s.k[1] == 3 && s.k[2] == 3 && s.d[1] == 1 &&
                 s.d[2] == 1 && (s.s[2] == 1 || s.s[2] == 2);
  // Columns whose three taps are all inside the row.
  int64_t j0 = 0, j1 = 0;
  if (fast3x3) {
    j0 = std::max(colLo[0], colLo[2]);
    j1 = std::max(j0, std::min(colHi[0], colHi[2]));
  }
  auto rowPass = [&](int64_t od, int64_t oh) {
    int64_t row = od * s.out[1] + oh;
    float *dst = y + row * ow;
    const float *rowResidual = residual ? residual + row * ow : nullptr;
    if (fast3x3 && j1 > j0) {
      // The epilogue applied as each output is computed.
      RowEpilogue e{accumulate, bias, rowResidual, act};
      const float *rows[3];
      int64_t id = od * s.s[0] - s.p[0];
      for (int64_t kh = 0; kh < 3; ++kh) {
        int64_t ih = oh * s.s[1] + kh - s.p[1];
        rows[kh] = id >= 0 && id < s.in[0] && ih >= 0 && ih < s.in[1]
                       ? x + (id * s.in[1] + ih) * s.in[2]
                       : zeros;
      }
      if (s.s[2] == 1)
        depthwise3x3FullRow<1>(rows, w, j0, j1, ow, -s.p[2], s.in[2], e, dst);
      else
        depthwise3x3FullRow<2>(rows, w, j0, j1, ow, -s.p[2], s.in[2], e, dst);
      return;
    }
    if (!accumulate)
      std::fill(dst, dst + ow, 0.0f);
    depthwiseRowGeneric(s, x, w, od, oh, colLo, colHi, dst);
    epilogue(dst, ow, bias, rowResidual, act);
  };
  // A 2-D 3x3 stride-1 "same" convolution (pads 1, output as large as the
  // input): output q = oh * W + ow of an interior row reads input
  // q + (kh - 1) * W + kw - 1, so the interior rows are one flat range for
  // the 9-tap loop, vectorized over whole rows instead of each row's
  // interior columns alone (7-56 columns in MobileNetV2). The range's first
  // and last columns (ow = 0, W - 1) read the neighbouring rows there: they
  // are set back to their initial value and computed point by point, as the
  // row path does. Same operations in the same order per element.
  int64_t wd = s.in[2], ht = s.in[1];
  // Planes up to 56 wide (MobileNetV2's 7x7 to 56x56): 7x7 2.1x, 14x14
  // 1.8x, 56x56 1.08x faster; a 112-wide plane's rows amortize the row
  // path's work and the copies made it 10 % slower.
  constexpr int64_t kMaxSameWidth = 63;
  if (fast3x3 && directEnabled() && !accumulate && !residual && s.in[0] == 1 &&
      s.out[0] == 1 && s.p[0] == 0 && s.s[1] == 1 && s.s[2] == 1 &&
      s.p[1] == 1 && s.p[2] == 1 && s.out[1] == ht && s.out[2] == wd &&
      ht >= 1 && wd >= 1 && wd <= kMaxSameWidth) {
    depthwise3x3Same(x, ht, wd, w, bias, act, y);
    return;
  }
  constexpr int64_t kMaxFlatRows = 1024;
  bool flat = fast3x3 && j1 > j0 && s.in[0] == 1 && s.out[0] == 1 &&
              s.p[0] == 0 && s.s[1] == 1 && s.s[2] == 1 && s.p[1] == 1 &&
              s.p[2] == 1 && s.out[1] == ht && s.out[2] == wd && ht >= 3 &&
              wd >= 3 && ht - 2 <= kMaxFlatRows;
  if (!flat) {
    for (int64_t od = 0; od < s.out[0]; ++od)
      for (int64_t oh = 0; oh < s.out[1]; ++oh)
        rowPass(od, oh);
    return;
  }
  rowPass(0, 0);
  float *inner = y + wd;
  float initial[2 * kMaxFlatRows];
  if (accumulate)
    for (int64_t r = 0; r < ht - 2; ++r) {
      initial[2 * r] = inner[r * wd];
      initial[2 * r + 1] = inner[r * wd + wd - 1];
    }
  // Outputs [W + 1, (H - 1) * W - 1): every tap inside the plane; the
  // epilogue applied as each is computed (res indexed as y).
  RowEpilogue e{accumulate, bias, residual, act};
  depthwise3x3Row<1>(x, x + wd, x + 2 * wd, w, wd + 1, (ht - 1) * wd - 1,
                     -1 - wd, e, y);
  for (int64_t r = 0; r < ht - 2; ++r) {
    float *dst = inner + r * wd;
    if (accumulate) {
      dst[0] = initial[2 * r];
      dst[wd - 1] = initial[2 * r + 1];
    }
    const float *rows[3] = {x + r * wd, x + (r + 1) * wd, x + (r + 2) * wd};
    RowEpilogue border{accumulate, bias,
                       residual ? residual + (r + 1) * wd : nullptr, act};
    depthwisePoint3x3<1>(rows, w, 0, -1, wd, border, dst);
    depthwisePoint3x3<1>(rows, w, wd - 1, -1, wd, border, dst);
  }
  rowPass(0, ht - 1);
}

void depthwise(const Shape &s, int32_t flags, const float *x, const float *w,
               const float *bias, const float *residual, const Activation &act,
               float *y) {
  bool accumulate = flags & ONYXRT_CONV_ACCUMULATE;
  int64_t channels = s.n * s.g * s.m, p = s.outSize();
  // Per kernel column: the output columns whose tap is inside the input.
  std::vector<int64_t> colLo(size_t(s.k[2])), colHi(size_t(s.k[2]));
  for (int64_t kw = 0; kw < s.k[2]; ++kw)
    validColumns(s.in[2], s.out[2], s.s[2], kw * s.d[2] - s.p[2], colLo[kw],
                 colHi[kw]);
  // A row of zeros for 3x3 rows in the padding.
  thread_local std::vector<float> zeros;
  if (zeros.size() < size_t(s.in[2]))
    zeros.assign(size_t(s.in[2]), 0.0f);
  // The channels across the pool.
  const float *zerosRow = zeros.data();
  parallelFor(
      channels, grainFor(p * s.taps()), [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          int64_t n = i / (s.g * s.m), g = (i / s.m) % s.g, m = i % s.m;
          depthwiseChannel(s, x + (n * s.g + g) * s.c * s.inSize(),
                           w + (g * s.m + m) * s.c * s.taps(), accumulate,
                           bias ? bias[g * s.m + m] : 0.0f,
                           residual ? residual + i * p : nullptr, act,
                           colLo.data(), colHi.data(), zerosRow, y + i * p);
        }
      });
}

} // namespace

extern "C" void onyxrt_cpu_conv_f32(int32_t flags, int64_t spatialRank,
                                    const int64_t *dims, const float *x,
                                    const float *w, const float *bias,
                                    const float *residual, float *y) {
  Shape s = readShape(spatialRank, dims);
  int64_t p = s.outSize(), taps = s.taps(), kdim = s.c * taps;
  if (s.n == 0 || s.m == 0 || s.g == 0 || p == 0)
    return;
  if (flags & ONYXRT_CONV_Y_IMAGE_STRIDE) {
    // y is a channel slice of a larger buffer: one image at a time, each a
    // dense convolution of one image.
    int64_t count = 4 + 6 * spatialRank + (flags & ONYXRT_CONV_CLIP ? 2 : 0);
    int64_t yStride = dims[count];
    flags &= ~ONYXRT_CONV_Y_IMAGE_STRIDE;
    if (s.n == 1 || yStride == s.g * s.m * p) {
      onyxrt_cpu_conv_f32(flags, spatialRank, dims, x, w, bias, residual, y);
      return;
    }
    std::vector<int64_t> one(dims, dims + count);
    one[0] = 1;
    for (int64_t n = 0; n < s.n; ++n)
      onyxrt_cpu_conv_f32(flags, spatialRank, one.data(),
                          x + n * s.g * s.c * s.inSize(), w, bias,
                          residual ? residual + n * s.g * s.m * p : nullptr,
                          y + n * yStride);
    return;
  }
  bool accumulate = flags & ONYXRT_CONV_ACCUMULATE;
  Activation act;
  act.relu = flags & ONYXRT_CONV_RELU;
  act.clip = flags & ONYXRT_CONV_CLIP;
  if (act.clip) {
    act.lo = bitsToFloat(dims[4 + 6 * spatialRank]);
    act.hi = bitsToFloat(dims[5 + 6 * spatialRank]);
  }
  if (kdim == 0) {
    // No reduction: the result is the epilogue alone.
    for (int64_t i = 0; i < s.n * s.g * s.m; ++i) {
      if (!accumulate)
        std::fill(y + i * p, y + (i + 1) * p, 0.0f);
      epilogue(y + i * p, p, bias ? bias[i % (s.g * s.m)] : 0.0f,
               residual ? residual + i * p : nullptr, act);
    }
    return;
  }
  // The artifact may pass an input whose memory the memory plan gave to y
  // (the unpadded input when the padding was its last reader; the residual
  // when the block's output was placed over it): the kernels then read a
  // copy.
  const float *yEnd = y + s.n * s.g * s.m * p;
  if (x < yEnd && y < x + s.n * s.g * s.c * s.inSize()) {
    thread_local std::vector<float> inputCopy;
    inputCopy.assign(x, x + s.n * s.g * s.c * s.inSize());
    x = inputCopy.data();
  }
  if (residual && residual < yEnd && y < residual + s.n * s.g * s.m * p) {
    thread_local std::vector<float> residualCopy;
    residualCopy.assign(residual, residual + s.n * s.g * s.m * p);
    residual = residualCopy.data();
  }
  if (s.c == 1 && s.m == 1 && s.g > 1) {
    depthwise(s, flags, x, w, bias, residual, act, y);
    return;
  }
  if (spatialRank == 2 && s.g == 1) {
    // Few input channels (a CNN's first layer), or stride 1 / pointwise: a
    // direct kernel on AVX-512 hosts.
    Conv2d conv{s.n,    s.c,    s.m,      s.in[1],  s.in[2],
                s.k[1], s.k[2], s.out[1], s.out[2], s.p[1],
                s.p[2], s.s[1], s.s[2],   s.d[1],   s.d[2]};
    ConvEpilogue epilogue;
    epilogue.bias = bias;
    epilogue.residual = residual;
    epilogue.accumulate = accumulate;
    epilogue.relu = act.relu;
    epilogue.clip = act.clip;
    epilogue.lo = act.lo;
    epilogue.hi = act.hi;
    if (taps > 1 && fewChannelsApplies(conv)) {
      convFewChannels(conv, x, w, epilogue, y);
      return;
    }
    if (directApplies(conv)) {
      convDirect(conv, x, w, epilogue, y);
      return;
    }
  }
  bool direct = taps == 1 && s.s[0] == 1 && s.s[1] == 1 && s.s[2] == 1 &&
                s.p[0] == 0 && s.p[1] == 0 && s.p[2] == 0 &&
                s.in[0] == s.out[0] && s.in[1] == s.out[1] &&
                s.in[2] == s.out[2];
  int64_t rowsTotal = s.out[0] * s.out[1], ow = s.out[2];
  // Output rows per band: the column matrix stays within the scratch.
  int64_t bandRows = std::clamp<int64_t>(
      kScratchFloats / std::max<int64_t>(kdim * ow, 1), 1, rowsTotal);
  size_t scratchSize = direct ? 0 : size_t(kdim * bandRows * ow);
  // Without a residual, y starts as the bias and the GEMMs add to it
  // (beta = 1): one pass over y instead of OpenBLAS's beta = 0 pass and the
  // epilogue's bias pass.
  bool biasFirst = bias && !residual && !accumulate;
  float beta = accumulate || biasFirst ? 1.0f : 0.0f;
  bool needEpilogue = residual || act.relu || act.clip || (bias && !biasFirst);

  // Output channels [m0, m1) x pixels [j0, j1) of image-group u (image
  // u / G, group u % G): the bias, one single-threaded GEMM on the column
  // matrix's columns at `col` (leading dimension ldcol), the epilogue.
  auto block = [&](int64_t u, int64_t m0, int64_t m1, int64_t j0, int64_t j1,
                   const float *col, int64_t ldcol) {
    int64_t g = u % s.g;
    const float *wg = w + g * s.m * kdim;
    float *yg = y + u * s.m * p;
    if (biasFirst)
      for (int64_t m = m0; m < m1; ++m)
        std::fill(yg + m * p + j0, yg + m * p + j1, bias[g * s.m + m]);
    cblas_sgemm(kRowMajor, kNoTrans, kNoTrans, int(m1 - m0), int(j1 - j0),
                int(kdim), 1.0f, wg + m0 * kdim, int(kdim), col, int(ldcol),
                beta, yg + m0 * p + j0, int(p));
    if (needEpilogue)
      for (int64_t m = m0; m < m1; ++m)
        epilogue(yg + m * p + j0, j1 - j0,
                 bias && !biasFirst ? bias[g * s.m + m] : 0.0f,
                 residual ? residual + (u * s.m + m) * p + j0 : nullptr, act);
  };

  // Many image-groups (batches, groups): each thread takes whole ones, with
  // its own column-matrix scratch. A few: one at a time, each band's column
  // matrix built by the pool (its rows split) and its GEMM split into
  // blocks of output channels or pixels (Gemm.h), each thread applying its
  // block's bias and epilogue.
  int64_t units = s.n * s.g;
  int64_t unitGrain =
      std::max<int64_t>(1, kMinUnitWork / std::max<int64_t>(s.m * p * kdim, 1));
  int unitPieces = plannedPieces(units, unitGrain);
  if (unitPieces > 1 &&
      (units % unitPieces == 0 || units >= 4 * int64_t(unitPieces))) {
    parallelFor(units, unitGrain, [&](int64_t begin, int64_t end) {
      float *scratch = scratchSize ? threadScratch(scratchSize) : nullptr;
      for (int64_t u = begin; u < end; ++u) {
        const float *xg = x + u * s.c * s.inSize();
        if (direct) {
          block(u, 0, s.m, 0, p, xg, p);
          continue;
        }
        for (int64_t row0 = 0; row0 < rowsTotal; row0 += bandRows) {
          int64_t rows = std::min(bandRows, rowsTotal - row0);
          int64_t band = rows * ow;
          im2col(s, xg, row0, rows, 0, kdim, scratch);
          block(u, 0, s.m, row0 * ow, row0 * ow + band, scratch, band);
        }
      }
    });
    return;
  }
  float *scratch = scratchSize ? threadScratch(scratchSize) : nullptr;
  for (int64_t u = 0; u < units; ++u) {
    const float *xg = x + u * s.c * s.inSize();
    if (direct) {
      // The input is the column matrix.
      forEachBlock(planGemm(s.m, p, kdim), s.m, p,
                   [&](int64_t m0, int64_t m1, int64_t j0, int64_t j1) {
                     block(u, m0, m1, j0, j1, xg + j0, p);
                   });
      continue;
    }
    for (int64_t row0 = 0; row0 < rowsTotal; row0 += bandRows) {
      int64_t rows = std::min(bandRows, rowsTotal - row0);
      int64_t band = rows * ow;
      parallelFor(kdim, grainFor(band), [&](int64_t k0, int64_t k1) {
        im2col(s, xg, row0, rows, k0, k1, scratch);
      });
      forEachBlock(planGemm(s.m, band, kdim), s.m, band,
                   [&](int64_t m0, int64_t m1, int64_t j0, int64_t j1) {
                     block(u, m0, m1, row0 * ow + j0, row0 * ow + j1,
                           scratch + j0, band);
                   });
    }
  }
}
