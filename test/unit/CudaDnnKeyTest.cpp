//===- CudaDnnKeyTest.cpp - cuDNN plan keys, strides, alignments ----------===//
//
// The host-side parts of runtime/src/cuda/CudaDnn.h that need no GPU: what
// separates two convolution plans in a session's cache, the strides the
// backend API is given, and the byte alignments it is told.
//
//===----------------------------------------------------------------------===//
#include "cuda/CudaDnn.h"
#include "onyx/onyx_runtime.h"

#include <gtest/gtest.h>

using namespace onyx::rt;

namespace {

// N, C, M, G, then in, kernel, out, pads, strides, dilations per spatial dim.
const int64_t kDims2d[] = {2,  16, 32, 1, 14, 14, 3, 3, 14,
                           14, 1,  1,  1, 1,  1,  1, 1, 1};
const std::array<int64_t, 5> kAligned = {16, 16, 16, 16, 16};

std::vector<int64_t> key(int32_t flags, bool bias = true, bool residual = false,
                         std::array<int64_t, 5> align = kAligned,
                         int32_t type = ONYX_F32) {
  return convPlanKey(type, flags, 2, kDims2d, bias, residual, align);
}

} // namespace

TEST(CudaDnnKey, SeparatesWhatChangesThePlan) {
  std::vector<int64_t> base = key(ONYXRT_CONV_RELU);
  EXPECT_EQ(base, key(ONYXRT_CONV_RELU));
  // The constant-filter flag changes no plan (only where the KRSC copy lives).
  EXPECT_EQ(key(ONYXRT_CONV_NHWC),
            key(ONYXRT_CONV_NHWC | ONYXRT_CONV_CONST_FILTER));
  EXPECT_NE(base, key(0));
  EXPECT_NE(base, key(ONYXRT_CONV_RELU | ONYXRT_CONV_TF32));
  EXPECT_NE(base, key(ONYXRT_CONV_RELU | ONYXRT_CONV_NHWC));
  EXPECT_NE(key(0, false), key(ONYXRT_CONV_ACCUMULATE, false));
  EXPECT_NE(base, key(ONYXRT_CONV_RELU, true, true));
  EXPECT_NE(base, key(ONYXRT_CONV_RELU, false));
  EXPECT_NE(base, key(ONYXRT_CONV_RELU, true, false, {16, 16, 8, 16, 16}));
  EXPECT_NE(base, key(ONYXRT_CONV_RELU, true, false, kAligned, ONYX_F16));
  int64_t strided[18];
  std::copy(std::begin(kDims2d), std::end(kDims2d), strided);
  strided[4 + 4 * 2] = 2; // stride of H
  EXPECT_NE(base, convPlanKey(ONYX_F32, ONYXRT_CONV_RELU, 2, strided, true,
                              false, kAligned));
}

TEST(CudaDnnKey, PackedStrides) {
  EXPECT_EQ(packedStrides({2, 3, 4, 5}, false),
            (std::vector<int64_t>{60, 20, 5, 1}));
  // Channels last keeps the dims' order: C innermost, then W, H, N.
  EXPECT_EQ(packedStrides({2, 3, 4, 5}, true),
            (std::vector<int64_t>{60, 1, 15, 3}));
  // KRSC filters: [K, C, R, S] with C innermost.
  EXPECT_EQ(packedStrides({8, 4, 3, 3}, true),
            (std::vector<int64_t>{36, 1, 12, 4}));
  EXPECT_EQ(packedStrides({2, 3, 1, 4, 5}, true),
            (std::vector<int64_t>{60, 1, 60, 15, 3}));
}

TEST(CudaDnnKey, PointerAlignment) {
  alignas(256) static char buffer[64];
  EXPECT_EQ(pointerAlignment(buffer), 16);
  EXPECT_EQ(pointerAlignment(buffer + 32), 16);
  EXPECT_EQ(pointerAlignment(buffer + 8), 8);
  EXPECT_EQ(pointerAlignment(buffer + 6), 2);
  EXPECT_EQ(pointerAlignment(buffer + 3), 1);
}

TEST(CudaDnnKey, UnknownFlagsAreErrors) {
  // Every flag the compiler emits (lib/Target/CUDA/ConvCalls.cpp) passes.
  for (int32_t flags :
       {0, ONYXRT_CONV_ACCUMULATE, ONYXRT_CONV_TF32 | ONYXRT_CONV_RELU,
        ONYXRT_CONV_ACCUMULATE | ONYXRT_CONV_TF32,
        ONYXRT_CONV_NHWC | ONYXRT_CONV_CONST_FILTER | ONYXRT_CONV_RELU,
        ONYXRT_CONV_NHWC | ONYXRT_CONV_ACCUMULATE})
    EXPECT_EQ(convFlagsError(flags), "") << flags;
  // The CPU convolution's CLIP (8) and Y_IMAGE_STRIDE (16) and anything
  // else are refused, naming the bits.
  std::string clip = convFlagsError(ONYXRT_CONV_RELU | 8);
  EXPECT_NE(clip.find("unknown flag bits 8 in flags 12"), std::string::npos)
      << clip;
  EXPECT_NE(clip.find("CLIP"), std::string::npos) << clip;
  std::string high = convFlagsError(ONYXRT_CONV_NHWC | 128);
  EXPECT_NE(high.find("unknown flag bits 128 in flags 160"), std::string::npos)
      << high;
  EXPECT_NE(convFlagsError(int32_t(0x80000000)), "");
}
