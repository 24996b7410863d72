//===- ContractionTest.cpp - The contraction recognizer -------------------===//
//
// include/onyx/Analysis/Contraction.h on parsed linalg ops: the
// multiply-accumulate body, contraction-or-convolution, the loop groups
// (several loops per group, transposes, rejections) and the row-major GEMM
// form (broadcast batch dims, transposes, rejections).
//
//===----------------------------------------------------------------------===//

#include "onyx/Analysis/Contraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace onyx;

namespace {

class ContractionTest : public ::testing::Test {
protected:
  ContractionTest() {
    registry
        .insert<func::FuncDialect, arith::ArithDialect, linalg::LinalgDialect,
                memref::MemRefDialect, tensor::TensorDialect>();
    context = std::make_unique<MLIRContext>(registry);
    context->loadAllAvailableDialects();
  }

  /// Parses `body` (ops on %a, %b, %c of the given types) and returns its
  /// first linalg op.
  linalg::LinalgOp parse(StringRef types, StringRef body) {
    std::string source =
        ("func.func @f(" + types + ") {\n" + body + "\n  return\n}\n").str();
    module = parseSourceString<ModuleOp>(source, context.get());
    EXPECT_TRUE(module) << "cannot parse:\n" << source;
    if (!module)
      return {};
    linalg::LinalgOp found;
    module->walk([&](linalg::LinalgOp op) {
      if (!found)
        found = op;
    });
    EXPECT_TRUE(found);
    return found;
  }

  /// A linalg.generic over %a, %b -> %c with the given maps, iterators and
  /// body (block arguments %x, %y, %z).
  linalg::LinalgOp generic(StringRef types, StringRef maps, StringRef iterators,
                           StringRef body) {
    std::string text =
        ("  linalg.generic {indexing_maps = [" + maps +
         "], iterator_types = [" + iterators +
         "]} ins(%a, %b : " + operandTypes(types, 0) + ", " +
         operandTypes(types, 1) + ") outs(%c : " + operandTypes(types, 2) +
         ") {\n  ^bb0(%x: f32, %y: f32, %z: f32):\n" + body + "\n  }")
            .str();
    return parse(types, text);
  }

  /// The type of argument `i` in "%a: T, %b: T, %c: T".
  static std::string operandTypes(StringRef types, unsigned i) {
    SmallVector<StringRef> parts;
    types.split(parts, ", %");
    return parts[i].split(": ").second.str();
  }

  DialectRegistry registry;
  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
};

constexpr const char *kMatmulTypes =
    "%a: memref<4x8xf32>, %b: memref<8x5xf32>, %c: memref<4x5xf32>";
constexpr const char *kMatmulMaps =
    "affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, "
    "affine_map<(m, n, k) -> (m, n)>";
constexpr const char *kMatmulIterators =
    "\"parallel\", \"parallel\", \"reduction\"";
constexpr const char *kMulAdd = "    %p = arith.mulf %x, %y : f32\n"
                                "    %s = arith.addf %z, %p : f32\n"
                                "    linalg.yield %s : f32";

TEST_F(ContractionTest, MatmulGeneric) {
  linalg::LinalgOp op =
      generic(kMatmulTypes, kMatmulMaps, kMatmulIterators, kMulAdd);
  ASSERT_TRUE(op);
  EXPECT_TRUE(isMultiplyAccumulate(op));
  EXPECT_TRUE(isContractionOrConvolution(op));

  auto groups = matchContractionGroups(op);
  ASSERT_TRUE(groups);
  EXPECT_TRUE(groups->batch.empty());
  EXPECT_EQ(groups->m, SmallVector<unsigned>({0}));
  EXPECT_EQ(groups->n, SmallVector<unsigned>({1}));
  EXPECT_EQ(groups->k, SmallVector<unsigned>({2}));
  EXPECT_FALSE(groups->transA);
  EXPECT_FALSE(groups->transB);

  auto gemm = matchRowMajorGemm(cast<linalg::GenericOp>(*op));
  ASSERT_TRUE(gemm);
  EXPECT_EQ(gemm->numBatch, 0u);
  EXPECT_TRUE(gemm->a.batchLoops.empty());
  EXPECT_FALSE(gemm->a.transposed);
  EXPECT_FALSE(gemm->b.transposed);
}

TEST_F(ContractionTest, OperandOrdersOfTheBody) {
  // mul(y, x), add(p, z): still out + in0 * in1.
  linalg::LinalgOp op =
      generic(kMatmulTypes, kMatmulMaps, kMatmulIterators,
              "    %p = arith.mulf %y, %x : f32\n"
              "    %s = arith.addf %p, %z : f32\n    linalg.yield %s : f32");
  ASSERT_TRUE(op);
  EXPECT_TRUE(isMultiplyAccumulate(op));
  EXPECT_TRUE(matchContractionGroups(op));
}

TEST_F(ContractionTest, BodiesThatAreNotMultiplyAccumulate) {
  // x * x + z: squares one input.
  linalg::LinalgOp square =
      generic(kMatmulTypes, kMatmulMaps, kMatmulIterators,
              "    %p = arith.mulf %x, %x : f32\n"
              "    %s = arith.addf %z, %p : f32\n    linalg.yield %s : f32");
  ASSERT_TRUE(square);
  EXPECT_FALSE(isMultiplyAccumulate(square));
  EXPECT_FALSE(isContractionOrConvolution(square));
  EXPECT_FALSE(matchContractionGroups(square));
  EXPECT_FALSE(matchRowMajorGemm(cast<linalg::GenericOp>(*square)));

  // z + x * y + 1: an extra op.
  linalg::LinalgOp extra =
      generic(kMatmulTypes, kMatmulMaps, kMatmulIterators,
              "    %one = arith.constant 1.0 : f32\n"
              "    %p = arith.mulf %x, %y : f32\n"
              "    %s = arith.addf %z, %p : f32\n"
              "    %t = arith.addf %s, %one : f32\n    linalg.yield %t : f32");
  ASSERT_TRUE(extra);
  EXPECT_FALSE(isMultiplyAccumulate(extra));
  // It still multiplies two inputs under a reduction: a library-class op
  // for fusion, though no GEMM form takes it.
  EXPECT_TRUE(isContractionOrConvolution(extra));
  EXPECT_FALSE(matchContractionGroups(extra));
}

TEST_F(ContractionTest, NamedOpsAreLibraryOps) {
  linalg::LinalgOp op =
      parse(kMatmulTypes,
            "  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x5xf32>) "
            "outs(%c : memref<4x5xf32>)");
  ASSERT_TRUE(op);
  EXPECT_TRUE(isContractionOrConvolution(op));
  EXPECT_TRUE(isMultiplyAccumulate(op));
  EXPECT_TRUE(matchContractionGroups(op));
}

TEST_F(ContractionTest, ElementwiseIsNotAContraction) {
  linalg::LinalgOp op =
      generic("%a: memref<4x5xf32>, %b: memref<4x5xf32>, %c: memref<4x5xf32>",
              "affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, "
              "affine_map<(i, j) -> (i, j)>",
              "\"parallel\", \"parallel\"",
              "    %p = arith.mulf %x, %y : f32\n    linalg.yield %p : f32");
  ASSERT_TRUE(op);
  EXPECT_FALSE(isContractionOrConvolution(op));
  EXPECT_FALSE(matchContractionGroups(op));
}

TEST_F(ContractionTest, TransposedBatchedOperands) {
  // C[b, m, n] += A[b, k, m] * B[b, n, k].
  linalg::LinalgOp op = generic(
      "%a: memref<2x8x4xf32>, %b: memref<2x5x8xf32>, %c: memref<2x4x5xf32>",
      "affine_map<(b, m, n, k) -> (b, k, m)>, "
      "affine_map<(b, m, n, k) -> (b, n, k)>, "
      "affine_map<(b, m, n, k) -> (b, m, n)>",
      "\"parallel\", \"parallel\", \"parallel\", \"reduction\"", kMulAdd);
  ASSERT_TRUE(op);
  auto groups = matchContractionGroups(op);
  ASSERT_TRUE(groups);
  EXPECT_EQ(groups->batch, SmallVector<unsigned>({0}));
  EXPECT_TRUE(groups->transA);
  EXPECT_TRUE(groups->transB);

  auto gemm = matchRowMajorGemm(cast<linalg::GenericOp>(*op));
  ASSERT_TRUE(gemm);
  EXPECT_EQ(gemm->numBatch, 1u);
  EXPECT_EQ(gemm->a.batchLoops, SmallVector<int64_t>({0}));
  EXPECT_TRUE(gemm->a.transposed);
  EXPECT_TRUE(gemm->b.transposed);
}

TEST_F(ContractionTest, GroupsOfSeveralLoops) {
  // C[m0, m1, n] += A[m0, m1, k0, k1] * B[k0, k1, n]: only the grouped form.
  linalg::LinalgOp op = generic(
      "%a: memref<2x3x4x5xf32>, %b: memref<4x5x6xf32>, %c: memref<2x3x6xf32>",
      "affine_map<(m0, m1, n, k0, k1) -> (m0, m1, k0, k1)>, "
      "affine_map<(m0, m1, n, k0, k1) -> (k0, k1, n)>, "
      "affine_map<(m0, m1, n, k0, k1) -> (m0, m1, n)>",
      "\"parallel\", \"parallel\", \"parallel\", \"reduction\", "
      "\"reduction\"",
      kMulAdd);
  ASSERT_TRUE(op);
  auto groups = matchContractionGroups(op);
  ASSERT_TRUE(groups);
  EXPECT_EQ(groups->m, SmallVector<unsigned>({0, 1}));
  EXPECT_EQ(groups->n, SmallVector<unsigned>({2}));
  EXPECT_EQ(groups->k, SmallVector<unsigned>({3, 4}));
  EXPECT_FALSE(matchRowMajorGemm(cast<linalg::GenericOp>(*op)));
}

TEST_F(ContractionTest, BroadcastBatch) {
  // C[b, m, n] += A[0, m, k] * B[k, n]: B has no batch dim, A a size-1 one.
  linalg::LinalgOp op = generic(
      "%a: memref<1x4x8xf32>, %b: memref<8x5xf32>, %c: memref<3x4x5xf32>",
      "affine_map<(b, m, n, k) -> (0, m, k)>, "
      "affine_map<(b, m, n, k) -> (k, n)>, "
      "affine_map<(b, m, n, k) -> (b, m, n)>",
      "\"parallel\", \"parallel\", \"parallel\", \"reduction\"", kMulAdd);
  ASSERT_TRUE(op);
  // The loop b is read by C alone: no grouped form.
  EXPECT_FALSE(matchContractionGroups(op));
  auto gemm = matchRowMajorGemm(cast<linalg::GenericOp>(*op));
  ASSERT_TRUE(gemm);
  EXPECT_EQ(gemm->numBatch, 1u);
  EXPECT_EQ(gemm->a.batchLoops, SmallVector<int64_t>({-1}));
  EXPECT_TRUE(gemm->b.batchLoops.empty());
}

TEST_F(ContractionTest, RowMajorFormWantsLoopOrder) {
  // Loops (n, m, k): the grouped form takes it, the row-major one does not.
  linalg::LinalgOp op = generic(
      kMatmulTypes,
      "affine_map<(n, m, k) -> (m, k)>, affine_map<(n, m, k) -> (k, n)>, "
      "affine_map<(n, m, k) -> (m, n)>",
      kMatmulIterators, kMulAdd);
  ASSERT_TRUE(op);
  EXPECT_TRUE(matchContractionGroups(op));
  EXPECT_FALSE(matchRowMajorGemm(cast<linalg::GenericOp>(*op)));
}

TEST_F(ContractionTest, ComputedIndexIsRejected) {
  // A read at (m + k): neither form.
  linalg::LinalgOp op = generic(
      "%a: memref<4x12xf32>, %b: memref<8x5xf32>, %c: memref<4x5xf32>",
      "affine_map<(m, n, k) -> (m, m + k)>, affine_map<(m, n, k) -> (k, n)>, "
      "affine_map<(m, n, k) -> (m, n)>",
      kMatmulIterators, kMulAdd);
  ASSERT_TRUE(op);
  EXPECT_TRUE(isContractionOrConvolution(op));
  EXPECT_FALSE(matchContractionGroups(op));
  EXPECT_FALSE(matchRowMajorGemm(cast<linalg::GenericOp>(*op)));
}

} // namespace
