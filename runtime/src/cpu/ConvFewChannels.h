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

#include "cpu/Conv2d.h"

namespace onyx::cpu {

/// Whether convFewChannels computes this convolution: the host has AVX-512F,
/// c <= 4 and the reduction (c * kH * kW) is at most 256, outW >= 8.
bool fewChannelsApplies(const Conv2d &conv);

/// The convolution, its output rows split across the pool (Threads.h);
/// each output element is one thread's, summed over (c, kh, kw) in that
/// order whatever the thread count. x must not overlap y.
void convFewChannels(const Conv2d &conv, const float *x, const float *w,
                     const ConvEpilogue &epilogue, float *y);

} // namespace onyx::cpu

#endif // ONYX_RUNTIME_CPU_CONVFEWCHANNELS_H
