//===- CudaGemmF32x3LaunchTest.cpp - Which 3xTF32 GEMM kernel runs --------===//
//
// runtime/src/cuda/GemmF32x3Launch.h without a GPU: which fp32 GEMMs the
// tensor-core kernels take (the rest go to cuBLASLt), the rows per block
// against the multiprocessors, the grid, and the shared memory, which must
// stay under an H100's 227 KiB per block.
//
//===----------------------------------------------------------------------===//
#include "cuda/GemmF32x3Launch.h"

#include <gtest/gtest.h>

using namespace onyx::rt;

namespace {

constexpr int kH100 = 132; // multiprocessors of an H100 SXM / H200

GemmF32x3Launch plain(int64_t m, int64_t n, int64_t k, int sms = kH100) {
  return gemmF32x3Launch(/*transB=*/false, 1, m, n, k, k, 0, n, 0, true, sms);
}

} // namespace

TEST(CudaGemmF32x3Launch, SharedMemoryFitsOneBlock) {
  // Three stages of A (TM x 32 floats) and B (32 x 136 or 128 x 36), two
  // lo tiles of A, 1 KiB of alignment.
  EXPECT_EQ(gemmF32x3SharedBytes(128, false), 135168u);
  EXPECT_EQ(gemmF32x3SharedBytes(128, true), 138240u);
  EXPECT_EQ(gemmF32x3SharedBytes(64, false), 94208u);
  EXPECT_EQ(gemmF32x3SharedBytes(64, true), 97280u);
  for (bool t : {false, true}) {
    EXPECT_LE(gemmF32x3SharedBytes(128, t), 227u * 1024);
    // Two TM = 64 blocks fit one SM.
    EXPECT_LE(2 * gemmF32x3SharedBytes(64, t), 227u * 1024);
  }
}

TEST(CudaGemmF32x3Launch, TransformerShapes) {
  // BERT b32 s128's projections: 32 x 6 = 192 blocks of 128 rows (2
  // waves) against 64 x 6 = 384 of 64 (3 waves of 0.73): 128 rows, the
  // faster on the H200 (0.136 against 0.149 ms).
  GemmF32x3Launch l = plain(4096, 768, 768);
  ASSERT_TRUE(l.applies);
  EXPECT_EQ(l.tm, 128);
  EXPECT_EQ(l.grid[0], 6);
  EXPECT_EQ(l.grid[1], 32);
  EXPECT_EQ(l.grid[2], 1);
  EXPECT_EQ(l.sharedBytes, gemmF32x3SharedBytes(128, false));
  // Batch 1, 512 tokens: 4 x 6 = 24 blocks of 128 rows leave most SMs
  // idle; 48 blocks of 64 rows take the same single wave (0.189 against
  // 0.253 ms).
  l = plain(512, 768, 3072);
  ASSERT_TRUE(l.applies);
  EXPECT_EQ(l.tm, 64);
  EXPECT_EQ(l.grid[0], 6);
  EXPECT_EQ(l.grid[1], 8);
  // Edges: partial tiles in m and n.
  l = plain(130, 260, 100);
  ASSERT_TRUE(l.applies);
  EXPECT_EQ(l.grid[0], 3);
  EXPECT_EQ(l.grid[1], (130 + l.tm - 1) / l.tm);
  // GPT-2's MLP at b8 s512 (16 x 24 = 384 blocks of 128 rows, 3 waves;
  // 768 of 64, 6 waves): 128 rows.
  EXPECT_EQ(plain(4096, 3072, 768).tm, 128);
  // The two-blocks-per-SM kernels have 64 rows.
  EXPECT_EQ(gemmF32x3Launch(false, 1, 4096, 768, 768, 768, 0, 768, 0, true,
                            kH100, /*twoBlocks=*/true)
                .tm,
            64);
  // Unknown multiprocessor count: 128 rows.
  EXPECT_EQ(plain(512, 768, 768, 0).tm, 128);
}

TEST(CudaGemmF32x3Launch, BatchesAndTransposedB) {
  // Attention scores: [b*h] x [s, d] x [s, d]^T.
  GemmF32x3Launch l = gemmF32x3Launch(true, 96, 128, 128, 64, 64, 128 * 64, 64,
                                      128 * 64, true, kH100);
  ASSERT_TRUE(l.applies);
  EXPECT_EQ(l.grid[2], 96);
  EXPECT_EQ(l.sharedBytes, gemmF32x3SharedBytes(l.tm, true));
  // B broadcast over the batch (stride 0).
  EXPECT_TRUE(
      gemmF32x3Launch(false, 3, 300, 200, 64, 64, 300 * 64, 200, 0, true, kH100)
          .applies);
  // A batch stride that breaks 16-byte loads.
  EXPECT_FALSE(gemmF32x3Launch(false, 3, 300, 200, 64, 64, 300 * 64 + 2, 200, 0,
                               true, kH100)
                   .applies);
  EXPECT_FALSE(gemmF32x3Launch(false, 70000, 4, 4, 4, 4, 16, 4, 16, true, kH100)
                   .applies);
}

TEST(CudaGemmF32x3Launch, LayoutsLeftToCuBlas) {
  EXPECT_FALSE(plain(64, 64, 30).applies); // K not a multiple of 4
  EXPECT_FALSE(plain(64, 2, 64).applies);  // N = 2 (a classifier)
  EXPECT_FALSE(plain(0, 64, 64).applies);  // empty
  EXPECT_FALSE(plain(64, 64, 0).applies);  // K = 0: cuBLASLt's path
  EXPECT_FALSE(gemmF32x3Launch(false, 1, 64, 64, 64, 66, 0, 64, 0, true,
                               kH100)
                   .applies); // lda = 66
  EXPECT_FALSE(gemmF32x3Launch(false, 1, 64, 64, 64, 64, 0, 64, 0, false,
                               kH100)
                   .applies); // misaligned A or B
  // Offsets past 2^31 elements within one batch entry.
  EXPECT_FALSE(plain(int64_t(1) << 20, 4096, 4096).applies);
  EXPECT_TRUE(plain(int64_t(1) << 18, 4096, 4096).applies);
}
