//===- CpuConvTest.cpp - onyxrt_cpu_conv_f32 against a direct loop --------===//
//
// The CPU convolution kernel (runtime/src/cpu/Conv.cpp) on the paths it
// takes: im2col + sgemm (with banding of the column matrix), 1x1 convolutions
// read in place, depthwise loops, grouped convolutions, 1-D and 3-D, strides
// and dilations, padding read as zeros (onyx_cpu_conv.h: the input comes
// unpadded), and the epilogues (accumulate, bias, residual, ReLU, Clip),
// against a direct 7-loop reference in double.
//
//===----------------------------------------------------------------------===//

#include "onyx/onyx_cpu_conv.h"
#include "onyx/onyx_runtime.h"
#include "onyx/onyx_services.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

struct Case {
  int64_t n, c, m, g;
  std::vector<int64_t> in, k, s, d;
  int32_t flags = 0;
  bool bias = false, residual = false;
  std::vector<int64_t> pads = {};     // begin pads (end pads: out's extent)
  std::vector<int64_t> outExtra = {}; // out extents beyond the begin-pad-only
  float lo = 0.0f, hi = 6.0f;         // with ONYXRT_CONV_CLIP
  // With sliceOf > 0: y is channels [sliceAt, sliceAt + m) of a buffer of
  // sliceOf channels per image (ONYXRT_CONV_Y_IMAGE_STRIDE).
  int64_t sliceOf = 0, sliceAt = 0;
};

int64_t floatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return int64_t(b);
}

std::vector<float> randomVector(size_t size, std::mt19937 &gen) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(size);
  for (float &x : v)
    x = dist(gen);
  return v;
}

void check(const Case &tc) {
  int64_t rank = int64_t(tc.in.size());
  std::vector<int64_t> out(rank);
  int64_t inSize = 1, outSize = 1, taps = 1;
  std::vector<int64_t> pads = tc.pads;
  pads.resize(size_t(rank), 0);
  for (int64_t i = 0; i < rank; ++i) {
    // The begin pad on both sides, plus outExtra further output positions
    // (asymmetric padding).
    out[i] = (tc.in[i] + 2 * pads[i] - (tc.k[i] - 1) * tc.d[i] - 1) / tc.s[i] +
             1 + (i < int64_t(tc.outExtra.size()) ? tc.outExtra[i] : 0);
    inSize *= tc.in[i];
    outSize *= out[i];
    taps *= tc.k[i];
  }
  int64_t cg = tc.c / tc.g, mg = tc.m / tc.g;
  std::mt19937 gen(42);
  auto x = randomVector(size_t(tc.n * tc.c * inSize), gen);
  auto w = randomVector(size_t(tc.m * cg * taps), gen);
  auto bias = randomVector(size_t(tc.m), gen);
  auto residual = randomVector(size_t(tc.n * tc.m * outSize), gen);
  auto y = randomVector(size_t(tc.n * tc.m * outSize), gen);
  std::vector<double> ref(y.size());
  for (int64_t n = 0; n < tc.n; ++n)
    for (int64_t m = 0; m < tc.m; ++m) {
      int64_t g = m / mg;
      for (int64_t o = 0; o < outSize; ++o) {
        std::vector<int64_t> oi(rank);
        for (int64_t i = rank - 1, r = o; i >= 0; --i) {
          oi[i] = r % out[i];
          r /= out[i];
        }
        double sum = 0;
        for (int64_t c = 0; c < cg; ++c)
          for (int64_t t = 0; t < taps; ++t) {
            int64_t xi = 0;
            bool inside = true;
            for (int64_t i = 0, r = t, div = taps; i < rank; ++i) {
              div /= tc.k[i];
              int64_t ti = r / div;
              r %= div;
              int64_t pos = oi[i] * tc.s[i] + ti * tc.d[i] - pads[i];
              inside = inside && pos >= 0 && pos < tc.in[i];
              xi = xi * tc.in[i] + pos;
            }
            if (!inside)
              continue;
            sum += double(x[((n * tc.c) + g * cg + c) * inSize + xi]) *
                   double(w[(m * cg + c) * taps + t]);
          }
        size_t yi = size_t((n * tc.m + m) * outSize + o);
        if (tc.flags & ONYXRT_CONV_ACCUMULATE)
          sum += y[yi];
        if (tc.bias)
          sum += bias[m];
        if (tc.residual)
          sum += residual[yi];
        if (tc.flags & ONYXRT_CONV_RELU)
          sum = std::max(sum, 0.0);
        if (tc.flags & ONYXRT_CONV_CLIP)
          sum = std::min(std::max(sum, double(tc.lo)), double(tc.hi));
        ref[yi] = sum;
      }
    }
  std::vector<int64_t> dims = {tc.n, tc.c, tc.m, tc.g};
  dims.insert(dims.end(), tc.in.begin(), tc.in.end());
  dims.insert(dims.end(), tc.k.begin(), tc.k.end());
  dims.insert(dims.end(), out.begin(), out.end());
  dims.insert(dims.end(), pads.begin(), pads.end());
  dims.insert(dims.end(), tc.s.begin(), tc.s.end());
  dims.insert(dims.end(), tc.d.begin(), tc.d.end());
  dims.push_back(floatBits(tc.lo));
  dims.push_back(floatBits(tc.hi));
  double tol = 1e-4 * std::sqrt(double(cg * taps));
  if (tc.sliceOf > 0) {
    // y inside a larger buffer: its slice starts as y, the rest as -7.
    int64_t image = tc.sliceOf * outSize, mine = tc.m * outSize;
    std::vector<float> big(size_t(tc.n * image), -7.0f);
    for (int64_t n = 0; n < tc.n; ++n)
      std::copy(y.begin() + n * mine, y.begin() + (n + 1) * mine,
                big.begin() + n * image + tc.sliceAt * outSize);
    if (!(tc.flags & ONYXRT_CONV_CLIP))
      dims.resize(dims.size() - 2);
    dims.push_back(image);
    onyxrt_cpu_conv_f32(tc.flags | ONYXRT_CONV_Y_IMAGE_STRIDE, rank,
                        dims.data(), x.data(), w.data(),
                        tc.bias ? bias.data() : nullptr,
                        tc.residual ? residual.data() : nullptr,
                        big.data() + tc.sliceAt * outSize);
    for (int64_t n = 0; n < tc.n; ++n)
      for (int64_t i = 0; i < image; ++i) {
        int64_t j = i - tc.sliceAt * outSize;
        float got = big[size_t(n * image + i)];
        if (j >= 0 && j < mine)
          ASSERT_NEAR(got, ref[size_t(n * mine + j)], tol)
              << "image " << n << " element " << j;
        else
          ASSERT_EQ(got, -7.0f) << "image " << n << " outside " << i;
      }
    return;
  }
  onyxrt_cpu_conv_f32(tc.flags, rank, dims.data(), x.data(), w.data(),
                      tc.bias ? bias.data() : nullptr,
                      tc.residual ? residual.data() : nullptr, y.data());
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_NEAR(y[i], ref[i], tol) << "element " << i;
}

TEST(CpuConv, Im2colStridedBiasRelu) {
  check({2, 3, 8, 1, {11, 9}, {3, 3}, {2, 2}, {1, 1}, ONYXRT_CONV_RELU, true});
}

TEST(CpuConv, Dilated) {
  check({1, 4, 5, 1, {12, 10}, {3, 2}, {1, 2}, {2, 3}});
}

TEST(CpuConv, PointwiseInPlace) {
  check({2, 16, 8, 1, {7, 5}, {1, 1}, {1, 1}, {1, 1}, 0, true});
}

TEST(CpuConv, PointwiseStrided) {
  check({1, 8, 4, 1, {9, 9}, {1, 1}, {2, 2}, {1, 1}});
}

TEST(CpuConv, Accumulate) {
  check({1, 5, 6, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, ONYXRT_CONV_ACCUMULATE});
}

TEST(CpuConv, ResidualRelu) {
  check({2,
         6,
         6,
         1,
         {8, 8},
         {3, 3},
         {1, 1},
         {1, 1},
         ONYXRT_CONV_RELU,
         true,
         true});
}

TEST(CpuConv, Depthwise) {
  check({2, 8, 8, 8, {10, 9}, {3, 3}, {1, 1}, {1, 1}, ONYXRT_CONV_RELU, true});
  check({1, 6, 6, 6, {11, 11}, {3, 3}, {2, 2}, {1, 1}, ONYXRT_CONV_ACCUMULATE});
}

TEST(CpuConv, DepthwiseMultiplier) {
  // Two outputs per input channel: the grouped im2col path.
  check({1, 4, 8, 4, {7, 7}, {3, 3}, {1, 1}, {1, 1}, 0, true});
}

TEST(CpuConv, Grouped) {
  check({2, 8, 12, 4, {9, 8}, {3, 3}, {1, 2}, {1, 1}, 0, true});
}

TEST(CpuConv, OneAndThreeDims) {
  check({2, 3, 4, 1, {20}, {5}, {2}, {1}, 0, true});
  check({1, 2, 3, 1, {6, 5, 7}, {2, 3, 2}, {1, 1, 2}, {2, 1, 1}});
}

TEST(CpuConv, BandedColumnMatrix) {
  // K * OW over the 4 MiB scratch per output row band: several bands.
  check({1, 512, 4, 1, {5, 290}, {3, 3}, {1, 1}, {1, 1}, 0, true});
}

TEST(CpuConv, Padded) {
  // im2col with zeros in the padding; asymmetric (one more output column
  // and row: the end pad one larger than the begin pad).
  Case tc{1, 3, 8, 1, {9, 10}, {3, 3}, {2, 2}, {1, 1}, ONYXRT_CONV_RELU, true};
  tc.pads = {1, 1};
  check(tc);
  tc.outExtra = {1, 0};
  tc.s = {1, 1};
  check(tc);
  Case seven{1, 3, 4, 1, {16, 15}, {7, 7}, {2, 2}, {1, 1}, 0, true};
  seven.pads = {3, 3};
  check(seven);
  Case dilated{1, 2, 3, 1, {8, 8}, {3, 3}, {1, 1}, {2, 2}, 0};
  dilated.pads = {2, 2};
  check(dilated);
}

TEST(CpuConv, OutputChannelSlice) {
  // y as a channel slice of a larger buffer (a Concat's output): im2col,
  // 1x1 in place, depthwise and few-channel kernels, batch 1 and 3, with
  // accumulation, Clip and a residual; the rest of the buffer untouched.
  Case tc{3, 8, 6, 1, {9, 10}, {3, 3}, {1, 1}, {1, 1}, ONYXRT_CONV_RELU, true};
  tc.pads = {1, 1};
  tc.sliceOf = 16;
  tc.sliceAt = 4;
  check(tc);
  tc.n = 1;
  check(tc);
  Case pointwise{
      3,   16, 8, 1, {7, 5}, {1, 1}, {1, 1}, {1, 1}, ONYXRT_CONV_ACCUMULATE,
      true};
  pointwise.residual = true;
  pointwise.sliceOf = 24;
  pointwise.sliceAt = 16;
  check(pointwise);
  Case depthwise{
      2, 6, 6, 6, {11, 11}, {3, 3}, {2, 2}, {1, 1}, ONYXRT_CONV_CLIP, true};
  depthwise.pads = {1, 1};
  depthwise.sliceOf = 7;
  depthwise.sliceAt = 1;
  check(depthwise);
  Case few{2,   3, 10, 1, {20, 40}, {3, 3}, {2, 2}, {1, 1}, ONYXRT_CONV_RELU,
           true};
  few.sliceOf = 12;
  few.sliceAt = 2;
  check(few);
}

TEST(CpuConv, DepthwiseSame3x3) {
  // Conv.cpp's depthwise3x3Same (3x3 stride-1 "same" depthwise channels up
  // to 63 wide, copied 16 floats at a time): widths below, at and past a
  // vector, one-row and one-column planes, every epilogue; y as a channel
  // slice, so that a spill past a channel's plane shows in the neighbours.
  for (int64_t h : {1, 2, 7, 14})
    for (int64_t w : {1, 2, 5, 7, 15, 16, 17, 56})
      for (int32_t flags :
           {0, int32_t(ONYXRT_CONV_RELU), int32_t(ONYXRT_CONV_CLIP)}) {
        SCOPED_TRACE(::testing::Message()
                     << h << "x" << w << " flags " << flags);
        Case tc{2, 5, 5, 5, {h, w}, {3, 3}, {1, 1}, {1, 1}, flags, flags != 0};
        tc.pads = {1, 1};
        tc.lo = -0.25f;
        tc.hi = 0.5f;
        tc.sliceOf = 7;
        tc.sliceAt = 1;
        check(tc);
      }
}

TEST(CpuConv, FewChannels) {
  // The direct kernel for <= 4 input channels (ConvFewChannels.cpp, on
  // AVX-512 hosts; elsewhere the same cases run through im2col): several
  // column tiles and a partial one, output channels past a block of 8,
  // strides 1-3, dilation, asymmetric padding, every epilogue, 1 and 2
  // threads.
  int32_t before = onyxrt_cpu_get_threads();
  for (int32_t threads : {1, 2}) {
    onyxrt_cpu_set_threads(threads);
    Case first{
        2,    3,   13, 1, {57, 109}, {3, 3}, {2, 2}, {1, 1}, ONYXRT_CONV_RELU,
        true, true};
    first.pads = {1, 1};
    first.outExtra = {0, 1};
    check(first);
    first.pads = {0, 0};
    first.outExtra = {};
    first.flags = ONYXRT_CONV_ACCUMULATE;
    first.residual = false;
    check(first);
    Case seven{
        1, 3, 64, 1, {40, 70}, {7, 7}, {2, 2}, {1, 1}, ONYXRT_CONV_CLIP, true};
    seven.pads = {3, 3};
    seven.lo = -0.5f;
    seven.hi = 0.5f;
    check(seven);
    Case wide{1, 4, 9, 1, {12, 50}, {5, 3}, {3, 1}, {1, 2}, 0, false, true};
    wide.pads = {2, 2};
    check(wide);
    check({1, 1, 8, 1, {20, 31}, {2, 4}, {1, 3}, {2, 1}, 0, true});
  }
  onyxrt_cpu_set_threads(before);
}

TEST(CpuConv, Direct) {
  // The direct (implicit-GEMM) kernel (ConvDirect.cpp, on AVX-512 hosts;
  // the ctest onyx-runtime-conv-im2col runs every CpuConv case with it off):
  // 1x1 read in place (y stored per tile), 1x1 with strides (a sampled
  // copy), strided kernels (phase planes), 3x3 over a padded copy and
  // without padding (positions on the
  // padded grid, stored through the staging tile), packed pointwise tiles,
  // dilation and asymmetric padding; output channels past blocks of 8,
  // positions past tiles of 48 and fewer than 16; every epilogue; batch 2;
  // 1 and 2 threads.
  int32_t before = onyxrt_cpu_get_threads();
  for (int32_t threads : {1, 2}) {
    onyxrt_cpu_set_threads(threads);
    check({2,
           37,
           13,
           1,
           {9, 11},
           {1, 1},
           {1, 1},
           {1, 1},
           ONYXRT_CONV_RELU,
           true,
           true});
    check({1,
           5,
           70,
           1,
           {3, 4},
           {1, 1},
           {1, 1},
           {1, 1},
           ONYXRT_CONV_ACCUMULATE,
           true});
    check({2, 24, 17, 1, {13, 15}, {1, 1}, {2, 3}, {1, 1}, 0, true});
    Case padded{
        2,    19,  21, 1, {14, 29}, {3, 3}, {1, 1}, {1, 1}, ONYXRT_CONV_CLIP,
        true, true};
    padded.pads = {1, 1};
    padded.lo = -0.25f;
    padded.hi = 0.75f;
    check(padded);
    check({1,
           16,
           9,
           1,
           {12, 20},
           {3, 3},
           {1, 1},
           {1, 1},
           ONYXRT_CONV_ACCUMULATE | ONYXRT_CONV_RELU,
           true});
    Case odd{1, 7, 10, 1, {11, 13}, {2, 5}, {1, 1}, {2, 1}, 0, false, true};
    odd.pads = {1, 2};
    odd.outExtra = {1, 2};
    check(odd);
    // Strides through the phase planes: 3x3 stride 2 padded (ResNet's
    // downsampling), stride 3 with dilation 2 (taps in every phase), 7x7
    // stride 2 over more channels than the few-channel kernel takes,
    // unequal strides.
    Case down{
        1,    12,  18, 1, {21, 23}, {3, 3}, {2, 2}, {1, 1}, ONYXRT_CONV_RELU,
        true, true};
    down.pads = {1, 1};
    check(down);
    Case phases{2, 6, 9, 1, {25, 26}, {3, 4}, {3, 3}, {2, 2}, 0, true};
    phases.pads = {2, 1};
    phases.outExtra = {1, 0};
    check(phases);
    Case seven{
        1, 8, 16, 1, {30, 33}, {7, 7}, {2, 2}, {1, 1}, ONYXRT_CONV_CLIP, true};
    seven.pads = {3, 3};
    check(seven);
    check({1,
           10,
           11,
           1,
           {17, 40},
           {3, 1},
           {1, 4},
           {1, 1},
           ONYXRT_CONV_ACCUMULATE,
           true});
    // Pointwise over >= 128 channels and more than 4 tiles: packed tiles.
    check({2,
           130,
           20,
           1,
           {9, 41},
           {1, 1},
           {1, 1},
           {1, 1},
           ONYXRT_CONV_RELU,
           true,
           true});
    Case big{1, 96, 40, 1, {30, 31}, {3, 3}, {1, 1}, {1, 1}, 0, true};
    big.pads = {1, 1};
    check(big);
    Case sliced{
        3, 8, 16, 1, {10, 10}, {3, 3}, {1, 1}, {1, 1}, ONYXRT_CONV_RELU, true};
    sliced.pads = {1, 1};
    sliced.sliceOf = 40;
    sliced.sliceAt = 16;
    check(sliced);
  }
  onyxrt_cpu_set_threads(before);
}

TEST(CpuConv, DirectWideTile) {
  // Images of 49-64 flat positions (ConvDirect.cpp's 6 x 64 tile): a 7x7
  // map read in place (49), a 3x3 over a padded 7x7 (the 9-wide grid: 61),
  // an 8x8 map (64: every load plain); output channels past blocks of 6;
  // accumulate, residual, Clip; 1 and 2 threads.
  int32_t before = onyxrt_cpu_get_threads();
  for (int32_t threads : {1, 2}) {
    onyxrt_cpu_set_threads(threads);
    SCOPED_TRACE(::testing::Message() << threads << " threads");
    Case pointwise{
        2,    40,  13, 1, {7, 7}, {1, 1}, {1, 1}, {1, 1}, ONYXRT_CONV_RELU,
        true, true};
    check(pointwise);
    Case padded{
        1, 19, 20, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, ONYXRT_CONV_CLIP, true};
    padded.pads = {1, 1};
    check(padded);
    Case full{
        2,    9,   7, 1, {8, 8}, {1, 1}, {1, 1}, {1, 1}, ONYXRT_CONV_ACCUMULATE,
        true, true};
    check(full);
  }
  onyxrt_cpu_set_threads(before);
}

TEST(CpuConv, DirectSameBitsForEveryThreadCount) {
  // Each output is summed by one thread in (c, kh, kw) order.
  const char *off = std::getenv("ONYXRT_CPU_DIRECT_CONV");
  if (!__builtin_cpu_supports("avx512f") || (off && std::string(off) == "0"))
    GTEST_SKIP() << "the direct kernel is off (no AVX-512, or the variable)";
  std::mt19937 gen(7);
  int64_t c = 64, m = 40, h = 28, wd = 28;
  auto x = randomVector(size_t(c * h * wd), gen);
  auto w = randomVector(size_t(m * c * 9), gen);
  auto bias = randomVector(size_t(m), gen);
  std::vector<int64_t> dims = {1, c,  m, 1, h, wd, 3, 3,
                               h, wd, 1, 1, 1, 1,  1, 1};
  int32_t before = onyxrt_cpu_get_threads();
  std::vector<float> y1(size_t(m * h * wd)), y2(y1.size());
  onyxrt_cpu_set_threads(1);
  onyxrt_cpu_conv_f32(ONYXRT_CONV_RELU, 2, dims.data(), x.data(), w.data(),
                      bias.data(), nullptr, y1.data());
  onyxrt_cpu_set_threads(2);
  onyxrt_cpu_conv_f32(ONYXRT_CONV_RELU, 2, dims.data(), x.data(), w.data(),
                      bias.data(), nullptr, y2.data());
  onyxrt_cpu_set_threads(before);
  EXPECT_EQ(std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(float)), 0);
}

TEST(CpuConv, DepthwisePaddedClip) {
  // The 3x3 register path (stride 1 and 2), its borders, and the generic
  // path (5x5, dilation, 1-D) with zeros in the padding; Clip as ReLU6.
  for (int64_t stride : {1, 2})
    for (int64_t width : {5, 7, 12, 33}) {
      Case tc{1,
              6,
              6,
              6,
              {width + 1, width},
              {3, 3},
              {stride, stride},
              {1, 1},
              ONYXRT_CONV_CLIP,
              true};
      tc.pads = {1, 1};
      tc.lo = 0.0f;
      tc.hi = 0.5f;
      check(tc);
      tc.flags = ONYXRT_CONV_ACCUMULATE;
      tc.residual = true;
      tc.outExtra = {0, 1};
      check(tc);
    }
  Case five{2,   4, 4, 4, {9, 11}, {5, 5}, {1, 2}, {1, 1}, ONYXRT_CONV_RELU,
            true};
  five.pads = {2, 2};
  check(five);
  Case dilated{1, 3, 3, 3, {10, 10}, {3, 3}, {1, 1}, {2, 2}, 0};
  dilated.pads = {2, 2};
  check(dilated);
  Case oneD{1, 4, 4, 4, {17}, {3}, {2}, {1}, ONYXRT_CONV_CLIP, true};
  oneD.pads = {1};
  oneD.lo = -0.25f;
  oneD.hi = 0.25f;
  check(oneD);
}

/// Max pooling against a direct reference. With `padBegin`/`padEnd` the
/// call reads the unpadded input (ONYXRT_POOL_PADDED) and a tap outside it
/// is `fill`, as over the MaxPool lowering's padded copy. With `shift`, y
/// lies in x's buffer, `*shift` elements after x (before it when negative),
/// as the memory plan may place the output over the padded call's input.
void checkMaxPool(int64_t planes, std::vector<int64_t> in,
                  std::vector<int64_t> k, std::vector<int64_t> st,
                  std::vector<int64_t> dl, bool init,
                  std::vector<int64_t> padBegin = {},
                  std::vector<int64_t> padEnd = {}, float fill = -INFINITY,
                  std::optional<int64_t> shift = std::nullopt) {
  int64_t rank = int64_t(in.size());
  bool padded = !padBegin.empty();
  if (!padded) {
    padBegin.assign(rank, 0);
    padEnd.assign(rank, 0);
  }
  std::vector<int64_t> out(rank);
  int64_t inSize = 1, outSize = 1, taps = 1;
  for (int64_t i = 0; i < rank; ++i) {
    out[i] =
        (in[i] + padBegin[i] + padEnd[i] - (k[i] - 1) * dl[i] - 1) / st[i] + 1;
    inSize *= in[i];
    outSize *= out[i];
    taps *= k[i];
  }
  std::mt19937 gen(7);
  auto x = randomVector(size_t(planes * inSize), gen);
  auto y = randomVector(size_t(planes * outSize), gen);
  x[3] = std::nanf(""); // propagates to the windows holding it
  std::vector<float> ref(y.size());
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t o = 0; o < outSize; ++o) {
      std::vector<int64_t> oi(rank);
      for (int64_t i = rank - 1, r = o; i >= 0; --i) {
        oi[i] = r % out[i];
        r /= out[i];
      }
      float m = init ? -INFINITY : y[p * outSize + o];
      for (int64_t t = 0; t < taps; ++t) {
        int64_t xi = 0;
        bool inside = true;
        for (int64_t i = 0, r = t, div = taps; i < rank; ++i) {
          div /= k[i];
          int64_t ti = r / div;
          r %= div;
          int64_t pos = oi[i] * st[i] + ti * dl[i] - padBegin[i];
          inside = inside && pos >= 0 && pos < in[i];
          xi = xi * in[i] + pos;
        }
        float v = inside ? x[p * inSize + xi] : fill;
        m = std::isnan(m) || std::isnan(v) ? NAN : std::max(m, v);
      }
      ref[p * outSize + o] = m;
    }
  std::vector<int64_t> dims = {planes};
  for (auto *v : {&in, &k, &out, &st, &dl})
    dims.insert(dims.end(), v->begin(), v->end());
  int32_t flags = init ? ONYXRT_POOL_INIT : 0;
  if (padded) {
    flags |= ONYXRT_POOL_PADDED;
    dims.insert(dims.end(), padBegin.begin(), padBegin.end());
    dims.push_back(floatBits(fill));
  }
  const float *xCall = x.data();
  float *yCall = y.data();
  std::vector<float> shared;
  if (shift) {
    // One buffer: x at xAt, y at xAt + shift.
    int64_t xAt = std::max<int64_t>(0, -*shift), yAt = xAt + *shift;
    shared.assign(
        size_t(std::max(xAt + planes * inSize, yAt + planes * outSize)), 0.f);
    std::copy(x.begin(), x.end(), shared.begin() + xAt);
    xCall = shared.data() + xAt;
    yCall = shared.data() + yAt;
  }
  onyxrt_cpu_maxpool_f32(flags, rank, dims.data(), floatBits(-INFINITY), xCall,
                         yCall);
  for (size_t i = 0; i < y.size(); ++i) {
    if (std::isnan(ref[i]))
      ASSERT_TRUE(std::isnan(yCall[i])) << "element " << i;
    else
      ASSERT_EQ(yCall[i], ref[i]) << "element " << i;
  }
}

TEST(CpuConv, MaxPool) {
  checkMaxPool(3, {11, 13}, {3, 3}, {2, 2}, {1, 1}, true);
  checkMaxPool(2, {9, 10}, {2, 3}, {1, 1}, {2, 1}, true);
  checkMaxPool(2, {8, 8}, {3, 3}, {3, 3}, {1, 1}, false);
  checkMaxPool(2, {17}, {3}, {2}, {1}, true);
  checkMaxPool(1, {5, 6, 7}, {2, 2, 2}, {1, 2, 1}, {1, 1, 2}, true);
}

TEST(CpuConv, MaxPoolPadded) {
  // ResNet's stem pool (pads 1), ceil_mode's end overhang (SqueezeNet),
  // asymmetric and dilated windows, a 1-d and a 3-d one, windows wholly in
  // the padding, and a finite fill (combined, not skipped).
  checkMaxPool(3, {12, 12}, {3, 3}, {2, 2}, {1, 1}, true, {1, 1}, {1, 1});
  checkMaxPool(2, {13, 13}, {3, 3}, {2, 2}, {1, 1}, true, {0, 0}, {1, 1});
  checkMaxPool(2, {9, 10}, {2, 3}, {1, 2}, {2, 1}, true, {2, 0}, {0, 3});
  checkMaxPool(2, {17}, {3}, {2}, {1}, false, {2}, {4});
  checkMaxPool(1, {5, 6, 7}, {2, 2, 2}, {1, 2, 1}, {1, 1, 2}, true, {1, 0, 1},
               {1, 2, 0});
  checkMaxPool(2, {4, 4}, {2, 2}, {2, 2}, {1, 1}, true, {0, 0}, {3, 3});
  checkMaxPool(2, {7, 7}, {3, 3}, {2, 2}, {1, 1}, true, {1, 1}, {2, 2}, -5.0f);
}

TEST(CpuConv, MaxPoolPaddedOverInput) {
  // y over the unpadded input: at its start (a plane at a time, serially),
  // before it, after it, and the same split across two threads (a copy of
  // the whole input). Windows of 1x1 stride 1 make y as large as x.
  int32_t before = onyxrt_cpu_get_threads();
  for (int32_t threads : {1, 2}) {
    onyxrt_cpu_set_threads(threads);
    for (int64_t shift : {0, -5, 7, 40}) {
      checkMaxPool(64, {13, 13}, {3, 3}, {2, 2}, {1, 1}, true, {0, 0}, {1, 1},
                   -INFINITY, shift);
      checkMaxPool(64, {56, 56}, {3, 3}, {2, 2}, {1, 1}, true, {0, 0}, {1, 1},
                   -INFINITY, shift);
      checkMaxPool(48, {12, 12}, {1, 1}, {1, 1}, {1, 1}, true, {0, 0}, {0, 0},
                   -INFINITY, shift);
      checkMaxPool(3, {12, 12}, {3, 3}, {2, 2}, {1, 1}, true, {1, 1}, {1, 1},
                   -INFINITY, shift);
    }
  }
  onyxrt_cpu_set_threads(before);
}

TEST(CpuConv, SplitAcrossThreads) {
  // Sizes the thread pool splits (the band's column matrix and GEMM; whole
  // images; depthwise channels), with two threads, against the reference.
  int32_t before = onyxrt_cpu_get_threads();
  onyxrt_cpu_set_threads(2);
  Case banded{
      1,    32,  48, 1, {28, 28}, {3, 3}, {1, 1}, {1, 1}, ONYXRT_CONV_RELU,
      true, true};
  banded.pads = {1, 1};
  check(banded);
  check({1, 96, 64, 1, {24, 24}, {1, 1}, {1, 1}, {1, 1}, 0, true});
  check({3, 8, 16, 1, {30, 30}, {3, 3}, {2, 2}, {1, 1}, 0, true});
  Case depthwise{
      1, 64, 64, 64, {30, 30}, {3, 3}, {1, 1}, {1, 1}, ONYXRT_CONV_CLIP, true};
  depthwise.pads = {1, 1};
  check(depthwise);
  onyxrt_cpu_set_threads(before);
}

TEST(CpuConv, Threads) {
  int32_t before = onyxrt_cpu_get_threads();
  EXPECT_GE(before, 1);
  EXPECT_EQ(onyxrt_cpu_set_threads(1), 1);
  EXPECT_EQ(onyxrt_cpu_get_threads(), 1);
  check({1, 8, 8, 1, {9, 9}, {3, 3}, {1, 1}, {1, 1}});
  EXPECT_GE(onyxrt_cpu_set_threads(0), 1);
  onyxrt_cpu_set_threads(before);
}

} // namespace
