//===- CudaLayerNormLaunchTest.cpp - Which LayerNorm kernel runs ----------===//
//
// runtime/src/cuda/LayerNormLaunch.h without a GPU: the register kernel
// (warps per row, elements per lane) or the three-pass kernel (a warp per
// row or a block) that onyxrt_cuda_layer_norm launches for a row length.
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
