//===- MemrefCopyTest.cpp - The runtime's memrefCopy ----------------------===//
//
// Generated code calls memrefCopy(elementSize, src, dst) for copies between
// strided buffers; the descriptors follow MLIR's memref ABI.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

extern "C" void memrefCopy(int64_t elementSize, void *src, void *dst);

namespace {

template <int Rank> struct Descriptor {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[Rank];
  int64_t strides[Rank];
};

struct Unranked {
  int64_t rank;
  void *descriptor;
};

TEST(MemrefCopy, StridedSourceToContiguous) {
  // Source: every second column of rows 1..2 of a 3x6 buffer (a 2x3 view).
  std::vector<float> src(18);
  for (int i = 0; i < 18; ++i)
    src[i] = float(i);
  std::vector<float> dst(6, -1.0f);
  Descriptor<2> s{src.data(), src.data(), 6, {2, 3}, {6, 2}};
  Descriptor<2> d{dst.data(), dst.data(), 0, {2, 3}, {3, 1}};
  Unranked us{2, &s}, ud{2, &d};
  memrefCopy(sizeof(float), &us, &ud);
  EXPECT_EQ(dst, (std::vector<float>{6, 8, 10, 12, 14, 16}));
}

TEST(MemrefCopy, TransposedDestinationAndEmpty) {
  std::vector<float> src = {1, 2, 3, 4, 5, 6}; // 2x3
  std::vector<float> dst(6, 0.0f);             // written as its 3x2 transpose
  Descriptor<2> s{src.data(), src.data(), 0, {2, 3}, {3, 1}};
  Descriptor<2> d{dst.data(), dst.data(), 0, {2, 3}, {1, 2}};
  Unranked us{2, &s}, ud{2, &d};
  memrefCopy(sizeof(float), &us, &ud);
  EXPECT_EQ(dst, (std::vector<float>{1, 4, 2, 5, 3, 6}));

  // Zero-size: nothing is touched.
  std::vector<float> untouched(6, 7.0f);
  Descriptor<2> e{src.data(), src.data(), 0, {0, 3}, {3, 1}};
  Descriptor<2> f{untouched.data(), untouched.data(), 0, {0, 3}, {3, 1}};
  Unranked ue{2, &e}, uf{2, &f};
  memrefCopy(sizeof(float), &ue, &uf);
  EXPECT_EQ(untouched, std::vector<float>(6, 7.0f));
}

TEST(MemrefCopy, RankZero) {
  float a = 3.5f, b = 0.0f;
  Descriptor<1> s{&a, &a, 0, {1}, {1}}; // only the header matters
  Descriptor<1> d{&b, &b, 0, {1}, {1}};
  Unranked us{0, &s}, ud{0, &d};
  memrefCopy(sizeof(float), &us, &ud);
  EXPECT_EQ(b, 3.5f);
}

} // namespace
