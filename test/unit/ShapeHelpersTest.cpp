//===- ShapeHelpersTest.cpp - Property tests of the shape library ---------===//
//
// For random shapes that include 0 and 1, the dims the shape library
// computes must agree with a numpy-style reference twice over:
//   - with static types, the destination dims are attributes equal to the
//     reference (or the helper reports incompatible extents);
//   - with every extent erased to `?` (values supplied at "run time" as
//     constants feeding tensor.empty), the emitted index arithmetic, once
//     folded, gives the same dims, and the run-time checks fold to true
//     exactly when the reference accepts the shapes.
//
//===----------------------------------------------------------------------===//

#include "ShapeTestHarness.h"

using namespace mlir;
using namespace onyx::shapetest;

namespace {

/// numpy broadcasting: right-aligned; extents equal, or one of them 1.
std::optional<Shape> referenceBroadcast(const std::vector<Shape> &shapes) {
  size_t rank = 0;
  for (const Shape &s : shapes)
    rank = std::max(rank, s.size());
  Shape result(rank, 1);
  for (size_t axis = 0; axis < rank; ++axis) {
    for (const Shape &s : shapes) {
      size_t offset = rank - s.size();
      if (axis < offset)
        continue;
      int64_t d = s[axis - offset];
      if (d == 1)
        continue;
      if (result[axis] != 1 && result[axis] != d)
        return std::nullopt;
      result[axis] = d;
    }
  }
  return result;
}

/// numpy matmul with 1-D promotion.
std::optional<Shape> referenceMatmul(Shape a, Shape b) {
  bool aVec = a.size() == 1, bVec = b.size() == 1;
  if (aVec)
    a.insert(a.begin(), 1);
  if (bVec)
    b.push_back(1);
  if (a.back() != b[b.size() - 2])
    return std::nullopt;
  Shape aBatch(a.begin(), a.end() - 2), bBatch(b.begin(), b.end() - 2);
  auto batch = referenceBroadcast({aBatch, bBatch});
  if (!batch)
    return std::nullopt;
  Shape result = *batch;
  if (!aVec)
    result.push_back(a[a.size() - 2]);
  if (!bVec)
    result.push_back(b.back());
  return result;
}

/// The harness lives in ShapeTestHarness.h (shared with
/// ShapeFamiliesTest.cpp).
class ShapeHelpersTest : public ShapeTestFixture {};

TEST_F(ShapeHelpersTest, BroadcastAgreesWithNumpy) {
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 300; ++iter) {
    Shape a = randomShape(rng, 4);
    std::vector<Shape> shapes = {a, relatedShape(rng, a)};
    if (iter % 3 == 0)
      shapes.push_back(relatedShape(rng, a));
    auto expected = referenceBroadcast(shapes);
    auto compute = [](OpBuilder &b, Location loc, ArrayRef<Value> tensors,
                      Operation *diag) -> FailureOr<SmallVector<OpFoldResult>> {
      auto r = onyx::shape::broadcastShapes(b, loc, tensors, diag);
      if (failed(r))
        return failure();
      return r->dims;
    };
    std::string what = str(shapes[0]) + " " + str(shapes[1]) +
                       (shapes.size() > 2 ? " " + str(shapes[2]) : "");

    auto stat = run(shapes, /*dynamic=*/false, compute);
    if (!expected) {
      EXPECT_FALSE(stat.has_value()) << "static accepted " << what;
    } else {
      ASSERT_TRUE(stat.has_value()) << "static rejected " << what;
      EXPECT_EQ(stat->dims, *expected) << what;
      EXPECT_TRUE(stat->checks.empty()) << "static shapes need no checks";
    }

    auto dyn = run(shapes, /*dynamic=*/true, compute);
    ASSERT_TRUE(dyn.has_value()) << "dynamic shapes are checked at run time";
    bool allPass = std::all_of(dyn->checks.begin(), dyn->checks.end(),
                               [](int c) { return c == 1; });
    bool anyFail = std::any_of(dyn->checks.begin(), dyn->checks.end(),
                               [](int c) { return c == 0; });
    if (expected) {
      EXPECT_TRUE(allPass) << "a check fails for compatible " << what;
      EXPECT_EQ(dyn->dims, *expected) << what;
    } else {
      EXPECT_TRUE(anyFail) << "no check catches incompatible " << what;
    }
  }
}

TEST_F(ShapeHelpersTest, MatMulAgreesWithNumpy) {
  std::mt19937 rng(99);
  for (int iter = 0; iter < 200; ++iter) {
    Shape a = randomShape(rng, 4), b = randomShape(rng, 4);
    if (a.empty())
      a.push_back(2);
    if (b.empty())
      b.push_back(2);
    // Make the contraction dims agree most of the time.
    std::uniform_int_distribution<int> coin(0, 4);
    size_t bk = b.size() == 1 ? 0 : b.size() - 2;
    if (coin(rng) != 0)
      b[bk] = a.back();
    if (a.size() > 2 && b.size() > 2 && coin(rng) != 0) {
      // Related batch dims.
      Shape batch(a.begin(), a.end() - 2);
      Shape rb = relatedShape(rng, batch);
      rb.push_back(b[b.size() - 2]);
      rb.push_back(b.back());
      b = rb;
    }
    auto expected = referenceMatmul(a, b);
    auto compute = [](OpBuilder &bld, Location loc, ArrayRef<Value> t,
                      Operation *diag) -> FailureOr<SmallVector<OpFoldResult>> {
      auto r = onyx::shape::matmulShape(bld, loc, t[0], t[1], diag);
      if (failed(r))
        return failure();
      return r->dims;
    };
    std::string what = str(a) + " x " + str(b);
    auto stat = run({a, b}, false, compute);
    if (!expected) {
      EXPECT_FALSE(stat.has_value()) << "static accepted " << what;
    } else {
      ASSERT_TRUE(stat.has_value()) << "static rejected " << what;
      EXPECT_EQ(stat->dims, *expected) << what;
    }
    auto dyn = run({a, b}, true, compute);
    ASSERT_TRUE(dyn.has_value()) << what;
    bool allPass = std::all_of(dyn->checks.begin(), dyn->checks.end(),
                               [](int c) { return c == 1; });
    if (expected) {
      EXPECT_TRUE(allPass) << what;
      EXPECT_EQ(dyn->dims, *expected) << what;
    } else {
      EXPECT_FALSE(allPass) << "no check catches " << what;
    }
  }
}

TEST_F(ShapeHelpersTest, ReshapeZeroAndInferred) {
  struct Case {
    Shape input;
    Shape target;
    bool allowZero;
    std::optional<Shape> expected;
  };
  const Case cases[] = {
      {{2, 3, 4}, {0, -1}, false, Shape{2, 12}},
      {{2, 3, 4}, {-1}, false, Shape{24}},
      {{2, 3, 4}, {4, 0, 2}, false, Shape{4, 3, 2}},
      {{0, 3}, {3, -1}, false, Shape{3, 0}},
      {{0, 3}, {0, 3}, true, Shape{0, 3}},
      {{2, 3}, {4, -1}, false, std::nullopt},
      {{2, 3}, {5}, false, std::nullopt},
  };
  for (const Case &c : cases) {
    auto compute = [&](OpBuilder &b, Location loc, ArrayRef<Value> t,
                       Operation *diag) {
      return onyx::shape::reshapeShape(b, loc, t[0], c.target, c.allowZero,
                                       diag);
    };
    std::string what = str(c.input) + " -> " + str(c.target);
    auto stat = run({c.input}, false, compute);
    auto dyn = run({c.input}, true, compute);
    ASSERT_TRUE(dyn.has_value()) << what;
    bool allPass = std::all_of(dyn->checks.begin(), dyn->checks.end(),
                               [](int v) { return v == 1; });
    if (c.expected) {
      ASSERT_TRUE(stat.has_value()) << what;
      EXPECT_EQ(stat->dims, *c.expected) << what;
      EXPECT_TRUE(allPass) << what;
      EXPECT_EQ(dyn->dims, *c.expected) << what;
    } else {
      EXPECT_FALSE(stat.has_value()) << what;
      EXPECT_FALSE(allPass) << what;
    }
  }
}

} // namespace
