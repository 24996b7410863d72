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

#include "cpu/Threads.h"

#include "onyx/onyx_cpu_conv.h"

#include <algorithm>
#include <cstring>
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
__attribute__((target_clones("avx512f", "avx2", "default"))) void
maxRow(const float *__restrict src, int64_t stride, int64_t count,
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
  // The artifact may pass an unpadded input whose memory the memory plan
  // gave to y (the padding was its last reader): the planes then read a
  // copy.
  if (padded && x < y + planes * outSize && y < x + planes * inSize) {
    thread_local std::vector<float> inputCopy;
    inputCopy.assign(x, x + planes * inSize);
    x = inputCopy.data();
  }
  int64_t grain = std::max<int64_t>(
      1, kMinPieceWork / std::max<int64_t>(outSize * k[0] * k[1] * k[2], 1));
  // The valid output columns of each column tap.
  int64_t colLo[64], colHi[64];
  bool fewTaps = k[2] <= 64;
  if (fewTaps)
    for (int64_t kw = 0; kw < k[2]; ++kw)
      validRange(kw * dl[2] - pad[2], st[2], in[2], out[2], colLo[kw],
                 colHi[kw]);
  // The planes across the pool.
  parallelFor(planes, grain, [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane) {
      const float *xp = x + plane * inSize;
      float *yp = y + plane * outSize;
      if (flags & ONYXRT_POOL_INIT)
        std::fill(yp, yp + outSize, initValue);
      for (int64_t od = 0; od < out[0]; ++od)
        for (int64_t oh = 0; oh < out[1]; ++oh) {
          float *dst = yp + (od * out[1] + oh) * out[2];
          for (int64_t kd = 0; kd < k[0]; ++kd)
            for (int64_t kh = 0; kh < k[1]; ++kh) {
              int64_t id = od * st[0] + kd * dl[0] - pad[0];
              int64_t ih = oh * st[1] + kh * dl[1] - pad[1];
              if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1]) {
                // The whole window row lies in the padding.
                if (fillMatters)
                  fillRow(fill, out[2], dst);
                continue;
              }
              const float *row = xp + (id * in[1] + ih) * in[2];
              for (int64_t kw = 0; kw < k[2]; ++kw) {
                int64_t t = kw * dl[2] - pad[2], lo, hi;
                if (fewTaps) {
                  lo = colLo[kw];
                  hi = colHi[kw];
                } else {
                  validRange(t, st[2], in[2], out[2], lo, hi);
                }
                if (fillMatters) {
                  fillRow(fill, lo, dst);
                  fillRow(fill, out[2] - hi, dst + hi);
                }
                if (hi > lo)
                  maxRow(row + lo * st[2] + t, st[2], hi - lo, dst + lo);
              }
            }
        }
    }
  });
}
