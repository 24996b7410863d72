//===- Conv.cpp - CPU convolutions: im2col + OpenBLAS sgemm ---------------===//
//
// onyxrt_cpu_conv_f32 (onyx_runtime.h): the grouped N-d convolution of the
// ONNX Conv lowering, called from CPU artifacts (onyx-cpu-lower-convolutions).
// Per image and group, y[M, P] = w[M, K] * col[K, P] with K = C * taps and
// P = output pixels, one cblas_sgemm on a column matrix built from the
// (already padded) input: 1x1 convolutions with unit strides read the input
// itself, others copy a band of output rows at a time (bounded scratch).
// Depthwise convolutions (one input and one output channel per group) are
// direct loops over the taps, vectorized over output columns (AVX-512, AVX2
// or SSE2 clones, chosen when the library loads). Bias, the
// residual and ReLU are applied in one pass over each output block.
//
//===----------------------------------------------------------------------===//

#include "onyx/onyx_services.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" void cblas_sgemm(int order, int transA, int transB, int m, int n,
                            int k, float alpha, const float *a, int lda,
                            const float *b, int ldb, float beta, float *c,
                            int ldc);

namespace {

constexpr int kRowMajor = 101, kNoTrans = 111;
// Column-matrix scratch per band (floats): 4 MiB.
constexpr int64_t kScratchFloats = int64_t(1) << 20;

/// A convolution with its spatial dims padded to three (leading 1s).
struct Shape {
  int64_t n, c, m, g; // c, m per group
  int64_t in[3], k[3], out[3], s[3], d[3];
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
  }
  const int64_t *p = dims + 4;
  int64_t lead = 3 - rank;
  for (int64_t i = 0; i < rank; ++i) {
    s.in[lead + i] = p[i];
    s.k[lead + i] = p[rank + i];
    s.out[lead + i] = p[2 * rank + i];
    // p[3 * rank + i]: pads, 0 (the input is padded).
    s.s[lead + i] = p[4 * rank + i];
    s.d[lead + i] = p[5 * rank + i];
  }
  return s;
}

/// y[j] = act(y[j] (accumulate) + acc[j] + bias + residual[j]) over one
/// output channel's `count` pixels; `acc` may alias `y` when the GEMM
/// wrote there (then `accumulate` is already included).
void epilogue(float *y, int64_t count, float bias, const float *residual,
              bool relu) {
  if (residual)
    for (int64_t j = 0; j < count; ++j)
      y[j] += bias + residual[j];
  else if (bias != 0.0f)
    for (int64_t j = 0; j < count; ++j)
      y[j] += bias;
  if (relu)
    for (int64_t j = 0; j < count; ++j)
      y[j] = std::max(y[j], 0.0f);
}

/// Builds rows [row0, row0 + rows) of the flattened (od, oh) output rows of
/// the column matrix: col[(c, t)][(r - row0) * OW + ow].
void im2col(const Shape &s, const float *x, int64_t row0, int64_t rows,
            float *col) {
  int64_t ow = s.out[2], band = rows * ow;
  int64_t taps = s.taps();
  for (int64_t c = 0; c < s.c; ++c) {
    const float *xc = x + c * s.inSize();
    for (int64_t t = 0; t < taps; ++t) {
      int64_t kd = t / (s.k[1] * s.k[2]), kh = (t / s.k[2]) % s.k[1],
              kw = t % s.k[2];
      float *dst = col + (c * taps + t) * band;
      for (int64_t r = 0; r < rows; ++r) {
        int64_t od = (row0 + r) / s.out[1], oh = (row0 + r) % s.out[1];
        int64_t id = od * s.s[0] + kd * s.d[0], ih = oh * s.s[1] + kh * s.d[1];
        const float *src = xc + (id * s.in[1] + ih) * s.in[2] + kw * s.d[2];
        float *out = dst + r * ow;
        if (s.s[2] == 1) {
          std::memcpy(out, src, size_t(ow) * sizeof(float));
        } else {
          int64_t stride = s.s[2];
          for (int64_t j = 0; j < ow; ++j)
            out[j] = src[j * stride];
        }
      }
    }
  }
}

/// One output channel of a depthwise convolution: y (OD x OH x OW) +=
/// w * x over the taps, a row of output columns at a time.
__attribute__((target_clones("avx512f", "avx2", "default"))) void
depthwiseChannel(const Shape &s, const float *x, const float *w, float *y) {
  int64_t ow = s.out[2];
  for (int64_t kd = 0; kd < s.k[0]; ++kd)
    for (int64_t kh = 0; kh < s.k[1]; ++kh)
      for (int64_t kw = 0; kw < s.k[2]; ++kw) {
        float wt = w[(kd * s.k[1] + kh) * s.k[2] + kw];
        for (int64_t od = 0; od < s.out[0]; ++od)
          for (int64_t oh = 0; oh < s.out[1]; ++oh) {
            int64_t id = od * s.s[0] + kd * s.d[0],
                    ih = oh * s.s[1] + kh * s.d[1];
            const float *src = x + (id * s.in[1] + ih) * s.in[2] + kw * s.d[2];
            float *dst = y + (od * s.out[1] + oh) * ow;
            if (s.s[2] == 1) {
              for (int64_t j = 0; j < ow; ++j)
                dst[j] += wt * src[j];
            } else {
              int64_t stride = s.s[2];
              for (int64_t j = 0; j < ow; ++j)
                dst[j] += wt * src[j * stride];
            }
          }
      }
}

void depthwise(const Shape &s, int32_t flags, const float *x, const float *w,
               const float *bias, const float *residual, float *y) {
  bool accumulate = flags & ONYXRT_CONV_ACCUMULATE;
  bool relu = flags & ONYXRT_CONV_RELU;
  int64_t channels = s.n * s.g * s.m, p = s.outSize();
  // One thread: an OpenMP team here (libgomp) spin-waits after each loop
  // and starves OpenBLAS's threads on small machines (MobileNetV2 on two
  // cores: 5x slower than without).
  for (int64_t i = 0; i < channels; ++i) {
    int64_t n = i / (s.g * s.m), g = (i / s.m) % s.g, m = i % s.m;
    float *yc = y + i * p;
    if (!accumulate)
      std::fill(yc, yc + p, 0.0f);
    depthwiseChannel(s, x + (n * s.g + g) * s.c * s.inSize(),
                     w + (g * s.m + m) * s.c * s.taps(), yc);
    epilogue(yc, p, bias ? bias[g * s.m + m] : 0.0f,
             residual ? residual + i * p : nullptr, relu);
  }
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
  bool accumulate = flags & ONYXRT_CONV_ACCUMULATE;
  bool relu = flags & ONYXRT_CONV_RELU;
  if (kdim == 0) {
    // No reduction: the result is the epilogue alone.
    for (int64_t i = 0; i < s.n * s.g * s.m; ++i) {
      if (!accumulate)
        std::fill(y + i * p, y + (i + 1) * p, 0.0f);
      epilogue(y + i * p, p, bias ? bias[i % (s.g * s.m)] : 0.0f,
               residual ? residual + i * p : nullptr, relu);
    }
    return;
  }
  if (s.c == 1 && s.m == 1 && s.g > 1) {
    depthwise(s, flags, x, w, bias, residual, y);
    return;
  }
  bool direct = taps == 1 && s.s[0] == 1 && s.s[1] == 1 && s.s[2] == 1 &&
                s.in[0] == s.out[0] && s.in[1] == s.out[1] &&
                s.in[2] == s.out[2];
  int64_t rowsTotal = s.out[0] * s.out[1], ow = s.out[2];
  // Output rows per band: the column matrix stays within the scratch.
  int64_t bandRows = std::clamp<int64_t>(
      kScratchFloats / std::max<int64_t>(kdim * ow, 1), 1, rowsTotal);
  // One scratch per thread, kept between calls.
  thread_local std::vector<float> scratch;
  if (!direct && scratch.size() < size_t(kdim * bandRows * ow))
    scratch.resize(size_t(kdim * bandRows * ow));
  float beta = accumulate ? 1.0f : 0.0f;
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t g = 0; g < s.g; ++g) {
      const float *xg = x + (n * s.g + g) * s.c * s.inSize();
      const float *wg = w + g * s.m * kdim;
      float *yg = y + (n * s.g + g) * s.m * p;
      if (direct) {
        cblas_sgemm(kRowMajor, kNoTrans, kNoTrans, int(s.m), int(p), int(kdim),
                    1.0f, wg, int(kdim), xg, int(p), beta, yg, int(p));
      } else {
        for (int64_t row0 = 0; row0 < rowsTotal; row0 += bandRows) {
          int64_t rows = std::min(bandRows, rowsTotal - row0);
          int64_t band = rows * ow;
          im2col(s, xg, row0, rows, scratch.data());
          cblas_sgemm(kRowMajor, kNoTrans, kNoTrans, int(s.m), int(band),
                      int(kdim), 1.0f, wg, int(kdim), scratch.data(), int(band),
                      beta, yg + row0 * ow, int(p));
        }
      }
      if (bias || residual || relu)
        for (int64_t m = 0; m < s.m; ++m)
          epilogue(yg + m * p, p, bias ? bias[g * s.m + m] : 0.0f,
                   residual ? residual + ((n * s.g + g) * s.m + m) * p
                            : nullptr,
                   relu);
    }
}
