//===- ConvFewChannels.h - Direct convolutions of few channels -*- C++ -*-===//
//
// The first convolution of a CNN reads 3 channels: as im2col + GEMM its
// reduction is only C * taps long (27 for 3x3), which OpenBLAS runs far
// below peak. ConvFewChannels.cpp computes such convolutions directly
// (AVX-512 hosts only; elsewhere Conv.cpp's im2col path runs them).
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_CPU_CONVFEWCHANNELS_H
#define ONYX_RUNTIME_CPU_CONVFEWCHANNELS_H

#include <cstdint>

namespace onyx::cpu {

/// A 2-d convolution of one group: x [n, c, inH, inW] (unpadded; padTop and
/// padLeft are its begin pads, the end padding is implied by the output
/// extents), w [m, c, kH, kW], y [n, m, outH, outW].
struct FewChannelsConv {
  int64_t n, c, m;
  int64_t inH, inW, kH, kW, outH, outW;
  int64_t padTop, padLeft, strideH, strideW, dilH, dilW;
};

/// The epilogue, in this order: y = acc (+ y when accumulating) + bias, then
/// + residual, then ReLU or Clip [lo, hi] (NaN kept).
struct FewChannelsEpilogue {
  const float *bias = nullptr;
  const float *residual = nullptr;
  bool accumulate = false, relu = false, clip = false;
  float lo = 0.0f, hi = 0.0f;
};

/// Whether convFewChannels computes this convolution: the host has AVX-512F,
/// c <= 4 and the reduction (c * kH * kW) is at most 256, outW >= 8.
bool fewChannelsApplies(const FewChannelsConv &conv);

/// The convolution, its output rows split across the pool (Threads.h);
/// each output element is one thread's, summed over (c, kh, kw) in that
/// order whatever the thread count. x must not overlap y.
void convFewChannels(const FewChannelsConv &conv, const float *x,
                     const float *w, const FewChannelsEpilogue &epilogue,
                     float *y);

} // namespace onyx::cpu

#endif // ONYX_RUNTIME_CPU_CONVFEWCHANNELS_H
