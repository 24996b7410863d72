//===- CudaLayerNormLaunchTest.cpp - Which LayerNorm kernel runs ----------===//
//
// runtime/src/cuda/LayerNormLaunch.h without a GPU: the register kernel
// (warps per row, elements per lane) or the three-pass kernel (a warp per
// row or a block) that onyxrt_cuda_layer_norm launches for a row length,
// and the overlaps of its buffers that it accepts.
//
//===----------------------------------------------------------------------===//
#include "cuda/LayerNormLaunch.h"

#include <gtest/gtest.h>

using namespace onyx::rt;

namespace {

void expectLaunch(LayerNormLaunch l, int kernel, int64_t tpr, int64_t threads) {
  EXPECT_EQ(l.kernel, kernel);
  EXPECT_EQ(l.threadsPerRow, tpr);
  EXPECT_EQ(l.threads, threads);
}

} // namespace

TEST(CudaLayerNormLaunch, TransformerRowsInOneWarp) {
  // BERT / GPT-2's 768: one warp of 24 elements per lane, 4 rows a block.
  expectLaunch(layerNormLaunch(4, 768, true, false), 2, 32, 128);
  expectLaunch(layerNormLaunch(2, 768, true, false), 2, 32, 128);
  // 1024: 32 per lane in 16-bit; f32 stops at 24, so two warps of 16.
  expectLaunch(layerNormLaunch(2, 1024, true, false), 3, 32, 128);
  expectLaunch(layerNormLaunch(4, 1024, true, false), 1, 64, 128);
  // Short rows take the fewest elements per lane.
  expectLaunch(layerNormLaunch(4, 64, true, false), 0, 32, 128);
  expectLaunch(layerNormLaunch(2, 512, true, false), 1, 32, 128);
}

TEST(CudaLayerNormLaunch, LongRowsSpreadOverWarps) {
  expectLaunch(layerNormLaunch(4, 4096, true, false), 1, 256, 256);
  expectLaunch(layerNormLaunch(2, 4096, true, false), 3, 128, 128);
  expectLaunch(layerNormLaunch(2, 8192, true, false), 3, 256, 256);
  // The register kernels' limit: 8 warps x 32 lanes x 32 elements.
  expectLaunch(layerNormLaunch(4, 8192, true, false), 3, 256, 256);
}

TEST(CudaLayerNormLaunch, EverythingElseTakesThreePasses) {
  // Not vectorizable (odd n, unaligned): a warp per row, 8 rows a block.
  expectLaunch(layerNormLaunch(4, 13, false, false), kLayerNormPasses, 32, 256);
  expectLaunch(layerNormLaunch(2, 2048, false, false), kLayerNormPasses, 32,
               256);
  // Past 2048 accesses a block per row, about 8 accesses per thread,
  // 128 to 1024 threads.
  expectLaunch(layerNormLaunch(4, 4099, false, false), kLayerNormPasses, 544,
               544);
  // Vectorized past the register kernels: 2049 16-byte accesses, a block
  // of 257 threads rounded up to whole warps.
  expectLaunch(layerNormLaunch(4, 8196, true, false), kLayerNormPasses, 288,
               288);
  expectLaunch(layerNormLaunch(2, 16384, true, false), kLayerNormPasses, 32,
               256);
  expectLaunch(layerNormLaunch(4, 65536, true, false), kLayerNormPasses, 1024,
               1024);
  expectLaunch(layerNormLaunch(2, 1 << 21, false, false), kLayerNormPasses,
               1024, 1024);
  // ONYX_CUDA_LAYER_NORM=passes: the three-pass kernel for any row.
  expectLaunch(layerNormLaunch(4, 768, true, true), kLayerNormPasses, 32, 256);
}

namespace {

// Buffers of a [4, 64] LayerNorm at made-up addresses: x f32 at 0x10000,
// a residual at 0x20000, scale and bias (f32 [64]) at 0x30000 / 0x30100.
constexpr uint64_t kElems = 4 * 64;
LayerNormSpan rowSpan(const char *name, uintptr_t at, int64_t bytes) {
  return {name, at, kElems * uint64_t(bytes), bytes};
}
LayerNormSpan none(const char *name) { return {name, 0, 0, 4}; }

std::string check(LayerNormSpan residual, LayerNormSpan sum, LayerNormSpan out,
                  LayerNormSpan out2) {
  return layerNormOverlap(
      {rowSpan("x", 0x10000, 4), residual},
      {{"scale", 0x30000, 64 * 4, 4}, {"bias", 0x30100, 64 * 4, 4}},
      {sum, out, out2});
}

} // namespace

TEST(CudaLayerNormOverlap, DisjointOrInPlace) {
  const LayerNormSpan residual = rowSpan("residual", 0x20000, 2);
  // Nothing shared; absent buffers (address 0) never overlap.
  EXPECT_EQ(check(none("residual"), none("sum"), rowSpan("out", 0x40000, 4),
                  none("out2")),
            "");
  // Each output may be an input of its element size: out == x,
  // sum == residual (f16), out2 == x with sum elsewhere.
  EXPECT_EQ(check(none("residual"), none("sum"), rowSpan("out", 0x10000, 4),
                  none("out2")),
            "");
  EXPECT_EQ(check(residual, rowSpan("sum", 0x20000, 2),
                  rowSpan("out", 0x10000, 4), rowSpan("out2", 0x50000, 2)),
            "");
  EXPECT_EQ(check(residual, rowSpan("sum", 0x40000, 4),
                  rowSpan("out", 0x20000, 2), rowSpan("out2", 0x10000, 4)),
            "");
}

TEST(CudaLayerNormOverlap, Rejected) {
  const LayerNormSpan residual = rowSpan("residual", 0x20000, 4);
  // In place with another element size (f16 out over an f32 x).
  EXPECT_EQ(check(none("residual"), none("sum"), rowSpan("out", 0x10000, 2),
                  none("out2")),
            "out overlaps x other than exactly (in place needs out == x and "
            "element types of one size)");
  // out a row into the residual.
  EXPECT_EQ(check(residual, none("sum"), rowSpan("out", 0x20000 + 256, 4),
                  none("out2")),
            "out overlaps residual other than exactly (in place needs out == "
            "residual and element types of one size)");
  // The last byte of sum on the first of x.
  EXPECT_EQ(check(residual, rowSpan("sum", 0x10000 - kElems * 4 + 1, 4),
                  rowSpan("out", 0x40000, 4), none("out2")),
            "sum overlaps x other than exactly (in place needs sum == x and "
            "element types of one size)");
  // Two outputs on one buffer, even both on x.
  EXPECT_EQ(check(residual, rowSpan("sum", 0x10000, 4),
                  rowSpan("out", 0x10000, 4), none("out2")),
            "sum overlaps out (outputs must be disjoint)");
  EXPECT_EQ(check(residual, none("sum"), rowSpan("out", 0x40000, 4),
                  rowSpan("out2", 0x40000 + 8, 2)),
            "out overlaps out2 (outputs must be disjoint)");
  // Outputs never touch scale or bias.
  EXPECT_EQ(check(none("residual"), none("sum"), rowSpan("out", 0x40000, 4),
                  rowSpan("out2", 0x30100 - 8, 2)),
            "out2 overlaps scale (scale is read by every row)");
  // Ranges that only touch are disjoint.
  EXPECT_EQ(check(residual, rowSpan("sum", 0x10000 + kElems * 4, 4),
                  rowSpan("out", 0x20000 - kElems * 4, 4), none("out2")),
            "");
}
