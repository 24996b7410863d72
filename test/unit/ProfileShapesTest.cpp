//===- ProfileShapesTest.cpp - Shapes in the CUDA trace events ------------===//
//
// The "shapes" of a CUDA session's trace events, built on the host: a
// launch's table from onyxrt_cuda_profile_shapes (jsonShapes, the format of
// onyxrt_profile_end) and a library call's operands from its problem dims
// (libraryShapes). The CUDA device itself runs on the GPU machine only
// (scripts/gpu/profile_cuda_check.py).
//
//===----------------------------------------------------------------------===//
#include "Profile.h"

#include <gtest/gtest.h>

using onyx::rt::jsonShapes;
using onyx::rt::libraryShapes;

namespace {

TEST(ProfileShapes, LaunchTable) {
  // Two buffers: [7, 4, 8] and [8, 1]; then a rank-0 one.
  const int64_t table[] = {3, 3, 7, 4, 8, 2, 8, 1, 0};
  EXPECT_EQ(jsonShapes(table), "[[7, 4, 8], [8, 1], []]");
  const int64_t none[] = {0};
  EXPECT_EQ(jsonShapes(none), "[]");
  EXPECT_EQ(jsonShapes(nullptr), "[]");
  // A corrupt rank stops the list instead of reading on.
  const int64_t bad[] = {2, 1, 5, -3};
  EXPECT_EQ(jsonShapes(bad), "[[5]]");
}

TEST(ProfileShapes, GemmFromDims) {
  // {batch, m, n, k}: A [batch, m, k], B [batch, k, n], C [batch, m, n].
  EXPECT_EQ(libraryShapes("cublasLt_matmul", {1, 7, 32, 16}),
            "[[1, 7, 16], [1, 16, 32], [1, 7, 32]]");
  EXPECT_EQ(libraryShapes("cublasLt_matmul", {12, 128, 128, 64}),
            "[[12, 128, 64], [12, 64, 128], [12, 128, 128]]");
  EXPECT_EQ(libraryShapes("cublasLt_matmul", {1, 2}), "[]");
}

TEST(ProfileShapes, ConvolutionFromDims) {
  // N=2, C=4, M=8, G=2; 2-d: in 9x9, kernel 3x3, out 7x7, pads, strides,
  // dilations.
  std::vector<int64_t> dims = {2, 4, 8, 2, 9, 9, 3, 3, 7, 7, 0, 0, 1, 1, 1, 1};
  EXPECT_EQ(libraryShapes("cudnn_convolution_forward", dims),
            "[[2, 4, 9, 9], [8, 2, 3, 3], [2, 8, 7, 7]]");
  dims.pop_back(); // not 4 + 6 * rank values
  EXPECT_EQ(libraryShapes("cudnn_convolution_forward", dims), "[]");
  EXPECT_EQ(libraryShapes("something_else", {1, 2, 3, 4}), "[]");
}

} // namespace
