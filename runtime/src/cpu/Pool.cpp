//===- Pool.cpp - CPU max pooling -----------------------------------------===//
//
// onyxrt_cpu_maxpool_f32 (onyx_cpu_conv.h): the window generic of the ONNX
// MaxPool lowering, called from CPU artifacts (onyx-cpu-lower-convolutions).
// An output row at a time: each window tap is a max over the row's columns
// (vectorized: AVX-512, AVX2 or SSE2 clones, chosen when the library loads),
// NaN propagating as arith.maximumf does. With ONYXRT_POOL_PADDED the input
// comes unpadded with its begin pads and a fill value: a tap outside the
// input combines the fill, which for -inf (the MaxPool lowering's) changes
// nothing and is skipped. The planes (N x C) are split across the thread
// pool (Threads.h); each output element is computed by one thread, in the
// taps' order, whatever the thread count.
//
//===----------------------------------------------------------------------===//

#include "cpu/Conv2d.h"
#include "cpu/Threads.h"

#include "onyx/onyx_cpu_conv.h"

#include <algorithm>
#include <cstring>
#include <immintrin.h>
#include <limits>
#include <vector>

namespace {

using namespace onyx::cpu;

// Max operations per thread below which the planes are not split.
constexpr int64_t kMinPieceWork = int64_t(1) << 15;

float bitsToFloat(int64_t bits) {
  uint32_t b = uint32_t(uint64_t(bits));
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

/// arith.maximumf: NaN wins.
inline float combine(float a, float b) { return a > b || a != a ? a : b; }

/// dst[j] = max(dst[j], src[j * stride]) for j in [0, count), NaN kept.
inline __attribute__((always_inline)) void maxRow(const float *__restrict src,
                                                  int64_t stride, int64_t count,
                                                  float *__restrict dst) {
  if (stride == 1) {
    for (int64_t j = 0; j < count; ++j)
      dst[j] = combine(dst[j], src[j]);
  } else if (stride == 2) {
    for (int64_t j = 0; j < count; ++j)
      dst[j] = combine(dst[j], src[2 * j]);
  } else {
    for (int64_t j = 0; j < count; ++j)
      dst[j] = combine(dst[j], src[j * stride]);
  }
}

/// One output row, separably: the `nrows` input rows of its windows
/// (each `width` long) combined column by column into `scratch`, then for
/// each column tap t, dst[j] = max(dst[j], scratch[j * stride + offset[t]])
/// over the output columns [lo[t], hi[t]) whose tap is inside the input.
/// Every window's maximum is the same as tap by tap (max is order-free,
/// NaN wins either way); a 3x3 window makes 5 passes instead of 9.
__attribute__((target_clones("avx2", "default"))) void
windowRowGeneric(const float *const *rows, int64_t nrows, int64_t width,
                 int64_t taps, const int64_t *lo, const int64_t *hi,
                 const int64_t *offset, int64_t stride,
                 float *__restrict scratch, float *__restrict dst) {
  std::copy(rows[0], rows[0] + width, scratch);
  for (int64_t r = 1; r < nrows; ++r)
    maxRow(rows[r], 1, width, scratch);
  for (int64_t t = 0; t < taps; ++t)
    if (hi[t] > lo[t])
      maxRow(scratch + lo[t] * stride + offset[t], stride, hi[t] - lo[t],
             dst + lo[t]);
}

/// combine() on 16 lanes: d where d > s or d is NaN, else s.
__attribute__((target("avx512f"))) inline __m512 combine16(__m512 d, __m512 s) {
  __mmask16 keep = _mm512_cmp_ps_mask(d, s, _CMP_GT_OQ) |
                   _mm512_cmp_ps_mask(d, d, _CMP_UNORD_Q);
  return _mm512_mask_blend_ps(keep, s, d);
}

/// windowRowGeneric with AVX-512: 16 columns at a time, the last vector of
/// each pass masked (the rows are short, 55 columns for SqueezeNet's first
/// pool: scalar remainders were most of the time); stride 2 as two loads
/// and a permute, others as gathers.
__attribute__((target("avx512f"))) void
windowRowAvx512(const float *const *rows, int64_t nrows, int64_t width,
                int64_t taps, const int64_t *lo, const int64_t *hi,
                const int64_t *offset, int64_t stride,
                float *__restrict scratch, float *__restrict dst) {
  for (int64_t c = 0; c < width; c += 16) {
    __mmask16 m = tailMask(width - c);
    __m512 v = loadLanes(m, rows[0] + c);
    for (int64_t r = 1; r < nrows; ++r)
      v = combine16(v, loadLanes(m, rows[r] + c));
    storeLanes(scratch + c, m, v);
  }
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20,
                                         22, 24, 26, 28, 30);
  const __m512i lanes =
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (int64_t t = 0; t < taps; ++t) {
    int64_t count = hi[t] - lo[t];
    const float *src = scratch + lo[t] * stride + offset[t];
    float *out = dst + lo[t];
    for (int64_t j = 0; j < count; j += 16) {
      int64_t n = count - j;
      __mmask16 m = tailMask(n);
      __m512 s;
      if (stride == 1) {
        s = loadLanes(m, src + j);
      } else if (stride == 2) {
        // Elements 2j .. 2j + 2n - 2 of src: the first 2n - 1 of 32.
        int64_t used = std::min<int64_t>(2 * n - 1, 32);
        __m512 a = loadLanes(tailMask(used), src + 2 * j);
        __m512 b = loadLanes(tailMask(std::max<int64_t>(used - 16, 0)),
                             src + 2 * j + 16);
        s = _mm512_permutex2var_ps(a, even, b);
      } else {
        __m512i index =
            _mm512_mullo_epi32(lanes, _mm512_set1_epi32(int32_t(stride)));
        s = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, index,
                                     src + j * stride, 4);
      }
      __m512 d = loadLanes(m, out + j);
      storeLanes(out + j, m, combine16(d, s));
    }
  }
}

void fillRow(float fill, int64_t count, float *dst) {
  for (int64_t j = 0; j < count; ++j)
    dst[j] = combine(dst[j], fill);
}

/// The first output position j >= 0 whose input position j * s + t is >= 0
/// (t may be negative), and the end of those whose input is < in; clamped
/// to [0, out].
void validRange(int64_t t, int64_t s, int64_t in, int64_t out, int64_t &lo,
                int64_t &hi) {
  // j * s + t >= 0  <=>  j >= ceil(-t / s).
  lo = t >= 0 ? 0 : (-t + s - 1) / s;
  // j * s + t <= in - 1  <=>  j <= floor((in - 1 - t) / s).
  hi = in - 1 - t < 0 ? 0 : (in - 1 - t) / s + 1;
  lo = std::min(lo, out);
  hi = std::clamp(hi, lo, out);
}

} // namespace

extern "C" void onyxrt_cpu_maxpool_f32(int32_t flags, int64_t spatialRank,
                                       const int64_t *dims, int64_t init,
                                       const float *x, float *y) {
  int64_t planes = dims[0];
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, out[3] = {1, 1, 1},
          st[3] = {1, 1, 1}, dl[3] = {1, 1, 1}, pad[3] = {0, 0, 0};
  int64_t lead = 3 - spatialRank;
  const int64_t *p = dims + 1;
  bool padded = flags & ONYXRT_POOL_PADDED;
  for (int64_t i = 0; i < spatialRank; ++i) {
    in[lead + i] = p[i];
    k[lead + i] = p[spatialRank + i];
    out[lead + i] = p[2 * spatialRank + i];
    st[lead + i] = p[3 * spatialRank + i];
    dl[lead + i] = p[4 * spatialRank + i];
    if (padded)
      pad[lead + i] = p[5 * spatialRank + i];
  }
  float fill = padded ? bitsToFloat(p[6 * spatialRank])
                      : -std::numeric_limits<float>::infinity();
  // Combining -inf leaves every value (NaN and -inf included) as it is.
  bool fillMatters = fill != -std::numeric_limits<float>::infinity();
  int64_t inSize = in[0] * in[1] * in[2], outSize = out[0] * out[1] * out[2];
  float initValue = bitsToFloat(init);
  int64_t grain = std::max<int64_t>(
      1, kMinPieceWork / std::max<int64_t>(outSize * k[0] * k[1] * k[2], 1));
  // The artifact may pass an unpadded input whose memory the memory plan
  // gave to y (the padding was its last reader). When y starts at or before
  // x, output plane p only overlaps input planes <= p (each output plane is
  // smaller than an input plane... or the same size: never larger, the
  // windows fit), so serially, in order, each plane reads a copy of its
  // own input plane made just before (in cache). Otherwise, or split across
  // threads (another thread's plane may overlap this one's input), the
  // planes read a copy of the whole input, made by the pool.
  bool overlap = padded && x < y + planes * outSize && y < x + planes * inSize;
  bool perPlaneCopy = overlap && y <= x && outSize <= inSize &&
                      plannedPieces(planes, grain) == 1;
  if (overlap && !perPlaneCopy) {
    thread_local std::vector<float> inputCopy;
    inputCopy.resize(size_t(planes * inSize));
    float *copy = inputCopy.data();
    parallelFor(planes, std::max<int64_t>(1, kMinPieceWork / inSize),
                [&](int64_t begin, int64_t end) {
                  std::memcpy(copy + begin * inSize, x + begin * inSize,
                              size_t((end - begin) * inSize) * sizeof(float));
                });
    x = copy;
  }
  // The valid output columns of each column tap and its input offset.
  std::vector<int64_t> colLo(k[2]), colHi(k[2]), offset(k[2]);
  bool partialColumns = false;
  for (int64_t kw = 0; kw < k[2]; ++kw) {
    offset[kw] = kw * dl[2] - pad[2];
    validRange(offset[kw], st[2], in[2], out[2], colLo[kw], colHi[kw]);
    partialColumns |= colLo[kw] > 0 || colHi[kw] < out[2];
  }
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  // The planes across the pool.
  parallelFor(planes, grain, [&](int64_t begin, int64_t end) {
    std::vector<const float *> rows(size_t(k[0] * k[1]));
    std::vector<float> scratch(static_cast<size_t>(in[2]));
    std::vector<float> planeCopy(perPlaneCopy ? size_t(inSize) : 0);
    for (int64_t plane = begin; plane < end; ++plane) {
      const float *xp = x + plane * inSize;
      if (perPlaneCopy) {
        std::copy(xp, xp + inSize, planeCopy.data());
        xp = planeCopy.data();
      }
      float *yp = y + plane * outSize;
      if (flags & ONYXRT_POOL_INIT)
        std::fill(yp, yp + outSize, initValue);
      for (int64_t od = 0; od < out[0]; ++od)
        for (int64_t oh = 0; oh < out[1]; ++oh) {
          float *dst = yp + (od * out[1] + oh) * out[2];
          // The input rows of this output row's windows inside the input.
          int64_t nrows = 0;
          bool rowInPadding = false;
          for (int64_t kd = 0; kd < k[0]; ++kd)
            for (int64_t kh = 0; kh < k[1]; ++kh) {
              int64_t id = od * st[0] + kd * dl[0] - pad[0];
              int64_t ih = oh * st[1] + kh * dl[1] - pad[1];
              if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1])
                rowInPadding = true;
              else
                rows[nrows++] = xp + (id * in[1] + ih) * in[2];
            }
          if (fillMatters) {
            // Every window holding a padded position combines the fill.
            if (rowInPadding) {
              fillRow(fill, out[2], dst);
            } else if (partialColumns) {
              for (int64_t kw = 0; kw < k[2]; ++kw) {
                fillRow(fill, colLo[kw], dst);
                fillRow(fill, out[2] - colHi[kw], dst + colHi[kw]);
              }
            }
          }
          if (nrows > 0)
            (avx512 ? windowRowAvx512 : windowRowGeneric)(
                rows.data(), nrows, in[2], k[2], colLo.data(), colHi.data(),
                offset.data(), st[2], scratch.data(), dst);
        }
    }
  });
}
