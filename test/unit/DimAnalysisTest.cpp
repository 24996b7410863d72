//===- DimAnalysisTest.cpp - The DimAnalysis query API --------------------===//
//
// Each test parses a small onnx-dialect function, runs DimAnalysis and asks
// it questions through the public API: equality (plain and dynamic-only),
// whole shapes, the directional last-dim broadcast, offsets, negative axes,
// the check-safe `before(op)` view, group ids, the scoped variant and
// value replacement.
//
//===----------------------------------------------------------------------===//

#include "onyx/Analysis/DimAnalysis.h"
#include "onyx/Dialect/ONNX/ONNXDialect.h"
#include "onyx/Dialect/Onyx/OnyxDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using onyx::DimAnalysis;

namespace {

class DimAnalysisTest : public ::testing::Test {
protected:
  DimAnalysisTest() {
    registry.insert<func::FuncDialect, arith::ArithDialect,
                    onyx::onnx::ONNXDialect, onyx::OnyxDialect>();
    context = std::make_unique<MLIRContext>(registry);
    context->loadAllAvailableDialects();
  }

  /// Parses `source` (one function) and remembers its ops by result name.
  func::FuncOp parse(StringRef source) {
    module = parseSourceString<ModuleOp>(source, context.get());
    EXPECT_TRUE(module) << "cannot parse:\n" << source.str();
    func::FuncOp fn = *module->getOps<func::FuncOp>().begin();
    fn.walk([&](Operation *op) { ops.push_back(op); });
    return fn;
  }
  /// The i-th op of the function body (0-based, in program order).
  Operation *op(size_t i) { return ops.at(i); }
  Value result(size_t i) { return ops.at(i)->getResult(0); }
  Value arg(func::FuncOp fn, unsigned i) { return fn.getArgument(i); }

  DialectRegistry registry;
  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  std::vector<Operation *> ops;
};

TEST_F(DimAnalysisTest, UnaryKeepsDims) {
  func::FuncOp fn = parse(R"mlir(
    func.func @f(%x: tensor<?x3x?xf32>) -> tensor<?x3x?xf32> {
      %0 = "onnx.Sigmoid"(%x) : (tensor<?x3x?xf32>) -> tensor<?x3x?xf32>
      return %0 : tensor<?x3x?xf32>
    })mlir");
  DimAnalysis analysis(fn);
  analysis.run();
  Value x = arg(fn, 0), y = result(0);
  EXPECT_TRUE(analysis.sameDim(x, 0, y, 0));
  EXPECT_TRUE(analysis.sameDynDim(x, 2, y, 2));
  // Negative axes count from the innermost dim.
  EXPECT_TRUE(analysis.sameDynDim(x, -1, y, 2));
  EXPECT_TRUE(analysis.sameDynDim(x, -3, y, -3));
  EXPECT_FALSE(analysis.sameDynDim(x, 0, y, 2));
  // Static dims: sameDim compares extents, sameDynDim refuses them.
  EXPECT_TRUE(analysis.sameDim(x, 1, y, -2));
  EXPECT_FALSE(analysis.sameDynDim(x, 1, y, 1));
  EXPECT_TRUE(analysis.sameShape(x, y));
  EXPECT_TRUE(analysis.sameDynShape(x, y));
  // Out of range.
  EXPECT_FALSE(analysis.sameDim(x, 3, y, 0));
  EXPECT_FALSE(analysis.sameDim(x, -4, y, 0));
  // Groups: arguments first, in axis order.
  EXPECT_EQ(analysis.getGroupId(x, 0), 0);
  EXPECT_EQ(analysis.getGroupId(x, 2), 1);
  EXPECT_EQ(analysis.getGroupId(y, -1), 1);
  EXPECT_EQ(analysis.getGroupId(x, 1), std::nullopt);
  EXPECT_EQ(analysis.getNumGroups(), 2);
  EXPECT_EQ(analysis.getGroupMembers(1).size(), 2u);
}

TEST_F(DimAnalysisTest, BroadcastOfUnrelatedDimsProvesNothing) {
  func::FuncOp fn = parse(R"mlir(
    func.func @f(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>, %one: tensor<1x4xf32>) -> tensor<?x4xf32> {
      %0 = "onnx.Add"(%a, %b) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
      %1 = "onnx.Mul"(%a, %one) : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
      return %0 : tensor<?x4xf32>
    })mlir");
  DimAnalysis analysis(fn);
  analysis.run();
  Value a = arg(fn, 0), b = arg(fn, 1), sum = result(0), prod = result(1);
  // Either of %a[0], %b[0] may be 1: the sum's dim is neither.
  EXPECT_FALSE(analysis.sameDynDim(a, 0, b, 0));
  EXPECT_FALSE(analysis.sameDynDim(sum, 0, a, 0));
  EXPECT_FALSE(analysis.sameDynDim(sum, 0, b, 0));
  // Against a static 1 the result is the other operand's.
  EXPECT_TRUE(analysis.sameDynDim(prod, 0, a, 0));
  EXPECT_TRUE(analysis.sameDynShape(prod, a));
  // sameDynShape: static/static pairs are ignored, static/dynamic are not.
  EXPECT_TRUE(analysis.sameDynShape(a, a));
  EXPECT_FALSE(analysis.sameDynShape(a, arg(fn, 2)));
}

TEST_F(DimAnalysisTest, BroadcastLastDimIsDirectional) {
  func::FuncOp fn = parse(R"mlir(
    func.func @f(%x: tensor<?x?xf32>) -> tensor<?x1xf32> {
      %axes = "onnx.Constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
      %0 = "onnx.ReduceMax"(%x, %axes) {keepdims = 1 : i64} : (tensor<?x?xf32>, tensor<1xi64>) -> tensor<?x1xf32>
      return %0 : tensor<?x1xf32>
    })mlir");
  DimAnalysis analysis(fn);
  analysis.run();
  Value x = arg(fn, 0), m = result(1);
  EXPECT_TRUE(analysis.sameDynDim(m, 0, x, 0));
  EXPECT_TRUE(analysis.broadcastLastDim(m, x));
  EXPECT_FALSE(analysis.broadcastLastDim(x, m));
  EXPECT_TRUE(analysis.broadcastLastDim(x, x));
}

TEST_F(DimAnalysisTest, Offsets) {
  func::FuncOp fn = parse(R"mlir(
    func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
      %z = "onnx.Constant"() {value = dense<0.0> : tensor<3xf32>} : () -> tensor<3xf32>
      %c = "onnx.Concat"(%x, %z) {axis = 0 : i64} : (tensor<?xf32>, tensor<3xf32>) -> tensor<?xf32>
      %pads = "onnx.Constant"() {value = dense<[1, 1]> : tensor<2xi64>} : () -> tensor<2xi64>
      %none = onnx.NoValue
      %p = "onnx.Pad"(%c, %pads, %none, %none) : (tensor<?xf32>, tensor<2xi64>, none, none) -> tensor<?xf32>
      %s0 = "onnx.Constant"() {value = dense<[4]> : tensor<1xi64>} : () -> tensor<1xi64>
      %e0 = "onnx.Constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
      %s = "onnx.Slice"(%p, %s0, %e0, %none, %none) : (tensor<?xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<?xf32>
      return %s : tensor<?xf32>
    })mlir");
  DimAnalysis analysis(fn);
  analysis.run();
  Value x = arg(fn, 0), c = result(1), p = result(4), s = result(7);
  // c = x + 3, p = c + 2 = x + 5, s = p - 5 = x (p >= 5, no clamping).
  EXPECT_EQ(analysis.getDimOffset(x, 0, c, 0), 3);
  EXPECT_EQ(analysis.getDimOffset(c, 0, x, -1), -3);
  EXPECT_EQ(analysis.getDimOffset(x, 0, p, 0), 5);
  EXPECT_EQ(analysis.getDimOffset(x, 0, s, 0), 0);
  EXPECT_TRUE(analysis.sameDynDim(x, 0, s, 0));
  EXPECT_TRUE(analysis.sameDimWithOffset(x, 0, 5, p, 0, 0));
  EXPECT_TRUE(analysis.sameDimWithOffset(c, 0, 2, p, 0, 0));
  EXPECT_TRUE(analysis.sameDimWithOffset(c, 0, 0, p, 0, -2));
  EXPECT_FALSE(analysis.sameDimWithOffset(c, 0, 1, p, 0, 0));
  EXPECT_FALSE(analysis.sameDynDim(x, 0, c, 0));
  EXPECT_EQ(analysis.getLowerBound(c, 0), 3);
  EXPECT_EQ(analysis.getLowerBound(p, 0), 5);
  EXPECT_EQ(analysis.getLowerBound(x, 0), 0);
  // Groups: x (and s), c, p; c and p are related to x by offsets.
  EXPECT_EQ(analysis.getNumGroups(), 3);
  auto relations = analysis.getOffsetRelations();
  ASSERT_EQ(relations.size(), 2u);
  EXPECT_EQ(relations[0].group, 1);
  EXPECT_EQ(relations[0].baseGroup, 0);
  EXPECT_EQ(relations[0].offset, 3);
  EXPECT_EQ(relations[1].offset, 5);
}

TEST_F(DimAnalysisTest, MatMulContraction) {
  func::FuncOp fn = parse(R"mlir(
    func.func @f(%a: tensor<?x?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?x?xf32> {
      %0 = "onnx.MatMul"(%a, %b) : (tensor<?x?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
      return %0 : tensor<?x?x?xf32>
    })mlir");
  DimAnalysis analysis(fn);
  analysis.run();
  Value a = arg(fn, 0), b = arg(fn, 1), y = result(0);
  EXPECT_TRUE(analysis.sameDynDim(a, -1, b, -2));
  EXPECT_TRUE(analysis.sameDynDim(y, 0, a, 0)); // batch against nothing
  EXPECT_TRUE(analysis.sameDynDim(y, 1, a, 1)); // rows
  EXPECT_TRUE(analysis.sameDynDim(y, 2, b, 1)); // columns
  EXPECT_FALSE(analysis.sameDynDim(y, 2, a, 2));
}

TEST_F(DimAnalysisTest, BeforeOnlyCountsFactsCheckedEarlier) {
  // The MatMul requires %x[0] == %y[0]. The Add before it must not use that
  // to drop its own broadcast check; the Sub after it may.
  func::FuncOp fn = parse(R"mlir(
    func.func @f(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
      %0 = "onnx.Add"(%x, %y) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
      %1 = "onnx.MatMul"(%x, %y) : (tensor<?xf32>, tensor<?xf32>) -> tensor<f32>
      %2 = "onnx.Sub"(%x, %y) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
      return %2 : tensor<?xf32>
    })mlir");
  DimAnalysis analysis(fn);
  analysis.run();
  Value x = arg(fn, 0), y = arg(fn, 1), sum = result(0);
  Operation *add = op(0), *matmul = op(1), *sub = op(2);
  // Every execution that completes has them equal ...
  EXPECT_TRUE(analysis.sameDynDim(x, 0, y, 0));
  EXPECT_TRUE(analysis.sameDynDim(sum, 0, x, 0));
  // ... but only the ops after the MatMul's check may rely on it.
  EXPECT_FALSE(analysis.before(add).sameDynDim(x, 0, y, 0));
  EXPECT_FALSE(analysis.before(matmul).sameDynDim(x, 0, y, 0));
  EXPECT_TRUE(analysis.before(sub).sameDynDim(x, 0, y, 0));
  EXPECT_TRUE(analysis.before(sub).sameDynDim(sum, 0, y, 0));
  EXPECT_TRUE(analysis.before(sub).sameDynShape(x, y));
  // Static facts hold everywhere.
  EXPECT_TRUE(analysis.before(add).sameDim(x, 0, x, 0));
}

TEST_F(DimAnalysisTest, DimParamsSeedsHoldEverywhere) {
  func::FuncOp fn = parse(R"mlir(
    func.func @f(%x: tensor<?x?xf32> {onnx.dim_params = "0:batch,1:seq"},
                 %m: tensor<?x?xi64> {onnx.dim_params = "0:batch,1:seq"})
        -> (tensor<?x?xf32> {onnx.dim_params = "0:batch,1:n"}) {
      %0 = "onnx.Relu"(%x) : (tensor<?x?xf32>) -> tensor<?x?xf32>
      %1 = "onnx.Transpose"(%0) {perm = [1, 0]} : (tensor<?x?xf32>) -> tensor<?x?xf32>
      return %1 : tensor<?x?xf32>
    })mlir");
  DimAnalysis analysis(fn);
  analysis.run();
  Value x = arg(fn, 0), m = arg(fn, 1), t = result(1);
  // The runtime checks the inputs' symbols on entry: valid before any op.
  EXPECT_TRUE(analysis.before(op(0)).sameDynShape(x, m));
  // The result's dim_params are a claim nothing checks: plain queries only.
  // Result dim 0 is seq (Transpose) and is declared "batch".
  EXPECT_TRUE(analysis.sameDynDim(t, 0, x, 1));
  EXPECT_TRUE(analysis.sameDynDim(x, 0, x, 1));
  EXPECT_FALSE(analysis.before(op(2)).sameDynDim(x, 0, x, 1));
}

TEST_F(DimAnalysisTest, PrivateFunctionSeedsAreLate) {
  // Nothing checks what a private function's callers pass.
  func::FuncOp fn = parse(R"mlir(
    func.func private @body(%x: tensor<?xf32> {onnx.dim_params = "0:n"},
                            %y: tensor<?xf32> {onnx.dim_params = "0:n"}) -> tensor<?xf32> {
      %0 = "onnx.Add"(%x, %y) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
      %1 = "onnx.Neg"(%0) : (tensor<?xf32>) -> tensor<?xf32>
      return %1 : tensor<?xf32>
    })mlir");
  DimAnalysis analysis(fn);
  analysis.run();
  Value x = arg(fn, 0), y = arg(fn, 1), sum = result(0);
  EXPECT_TRUE(analysis.sameDynDim(x, 0, y, 0));
  EXPECT_TRUE(analysis.sameDynDim(sum, 0, x, 0));
  EXPECT_FALSE(analysis.before(op(0)).sameDynDim(x, 0, y, 0));
  // The Add's result is %x's only because %x == %y, a late fact: a fact
  // is dated no earlier than what its rule relied on.
  EXPECT_FALSE(analysis.before(op(1)).sameDynDim(sum, 0, x, 0));
  EXPECT_TRUE(analysis.before(op(1)).sameDynDim(result(1), 0, result(1), 0));
}

TEST_F(DimAnalysisTest, ShapeValuesReachReshape) {
  func::FuncOp fn = parse(R"mlir(
    func.func @f(%x: tensor<?x?x768xf32>) -> tensor<?x?x12x64xf32> {
      %s = "onnx.Shape"(%x) {end = 2 : i64} : (tensor<?x?x768xf32>) -> tensor<2xi64>
      %tail = "onnx.Constant"() {value = dense<[12, 64]> : tensor<2xi64>} : () -> tensor<2xi64>
      %shape = "onnx.Concat"(%s, %tail) {axis = 0 : i64} : (tensor<2xi64>, tensor<2xi64>) -> tensor<4xi64>
      %0 = "onnx.Reshape"(%x, %shape) : (tensor<?x?x768xf32>, tensor<4xi64>) -> tensor<?x?x12x64xf32>
      return %0 : tensor<?x?x12x64xf32>
    })mlir");
  DimAnalysis analysis(fn);
  analysis.run();
  Value x = arg(fn, 0), r = result(3);
  EXPECT_TRUE(analysis.sameDynDim(r, 0, x, 0));
  EXPECT_TRUE(analysis.sameDynDim(r, 1, x, 1));
}

TEST_F(DimAnalysisTest, ProvenConstantDims) {
  // A reshape whose result type lost a static extent: the analysis knows it.
  func::FuncOp fn = parse(R"mlir(
    func.func @f(%x: tensor<2x6xf32>) -> tensor<?x?xf32> {
      %shape = "onnx.Constant"() {value = dense<[3, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
      %0 = "onnx.Reshape"(%x, %shape) : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
      return %0 : tensor<?x?xf32>
    })mlir");
  DimAnalysis analysis(fn);
  analysis.run();
  Value x = arg(fn, 0), r = result(1);
  EXPECT_EQ(analysis.getConstantDim(r, 0), 3);
  EXPECT_EQ(analysis.getConstantDim(r, 1), 4);
  EXPECT_EQ(analysis.getConstantDim(x, -1), 6);
  EXPECT_TRUE(analysis.sameDim(r, 0, r, 0));
  EXPECT_FALSE(analysis.sameDynDim(r, 0, r, 1));
  ASSERT_EQ(analysis.getConstantGroups().size(), 2u);
}

TEST_F(DimAnalysisTest, ScopedAnalysisLooksOnlyUpward) {
  func::FuncOp fn = parse(R"mlir(
    func.func @f(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
      %0 = "onnx.MatMul"(%x, %y) : (tensor<?xf32>, tensor<?xf32>) -> tensor<f32>
      %1 = "onnx.Relu"(%x) : (tensor<?xf32>) -> tensor<?xf32>
      %2 = "onnx.Neg"(%1) : (tensor<?xf32>) -> tensor<?xf32>
      %3 = "onnx.Add"(%2, %y) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
      return %3 : tensor<?xf32>
    })mlir");
  Value x = arg(fn, 0), y = arg(fn, 1), neg = result(2);
  Operation *add = op(3);
  // Two levels up from the Add: Neg and Relu, not the MatMul.
  onyx::ScopedDimAnalysis scoped(add, 2);
  EXPECT_TRUE(scoped.sameDynDim(neg, 0, x, 0));
  EXPECT_FALSE(scoped.sameDynDim(x, 0, y, 0));
  // The whole function sees the MatMul.
  DimAnalysis whole(fn);
  whole.run();
  EXPECT_TRUE(whole.sameDynDim(x, 0, y, 0));
  EXPECT_TRUE(whole.sameDynDim(result(3), 0, y, 0));
}

TEST_F(DimAnalysisTest, ReplaceValueKeepsAnswers) {
  func::FuncOp fn = parse(R"mlir(
    func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
      %0 = "onnx.Relu"(%x) : (tensor<?xf32>) -> tensor<?xf32>
      %1 = "onnx.Neg"(%0) : (tensor<?xf32>) -> tensor<?xf32>
      return %1 : tensor<?xf32>
    })mlir");
  DimAnalysis analysis(fn);
  analysis.run();
  Value x = arg(fn, 0), relu = result(0);
  // A conversion replaces the Relu with a new op of the same type.
  OpBuilder b(op(0));
  Operation *clone = b.clone(*op(0));
  Value replacement = clone->getResult(0);
  EXPECT_FALSE(analysis.sameDynDim(replacement, 0, x, 0));
  analysis.replaceValue(relu, replacement);
  relu.replaceAllUsesWith(replacement);
  op(0)->erase();
  EXPECT_TRUE(analysis.sameDynDim(replacement, 0, x, 0));
  EXPECT_TRUE(analysis.sameDynDim(result(1), 0, replacement, 0));
}

TEST_F(DimAnalysisTest, UnknownValuesAreNotEqual) {
  func::FuncOp fn = parse(R"mlir(
    func.func @f(%x: tensor<?xf32>, %u: tensor<*xf32>) -> tensor<?xf32> {
      return %x : tensor<?xf32>
    })mlir");
  DimAnalysis analysis(fn);
  analysis.run();
  Value x = arg(fn, 0), u = arg(fn, 1);
  EXPECT_FALSE(analysis.sameDim(x, 0, u, 0));
  EXPECT_FALSE(analysis.sameShape(x, u));
  EXPECT_EQ(analysis.getDimOffset(u, 0, u, 0), std::nullopt);
  EXPECT_TRUE(analysis.sameDynDim(x, 0, x, 0));
}

TEST_F(DimAnalysisTest, ProductsOfDimsAreDatedAtTheirReshape) {
  // MultiheadAttention's head split: two Reshapes to [seq, batch * 4, 16],
  // the products computed by two Mul ops. The batch dims of the MatMul are
  // equal before it, not before the second Reshape proves it.
  func::FuncOp fn = parse(R"mlir(
    func.func @f(%x: tensor<?x?x64xf32>, %y: tensor<?x?x64xf32>) -> tensor<?x?x?xf32> {
      %s = "onnx.Shape"(%x) {start = 0 : i64} : (tensor<?x?x64xf32>) -> tensor<3xi64>
      %i = "onnx.Constant"() {value = dense<[0, 1]> : tensor<2xi64>} : () -> tensor<2xi64>
      %sb = "onnx.Gather"(%s, %i) {axis = 0 : i64} : (tensor<3xi64>, tensor<2xi64>) -> tensor<2xi64>
      %c = "onnx.Constant"() {value = dense<[1, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
      %p1 = "onnx.Mul"(%sb, %c) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
      %p2 = "onnx.Mul"(%c, %sb) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
      %d = "onnx.Constant"() {value = dense<[16]> : tensor<1xi64>} : () -> tensor<1xi64>
      %t1 = "onnx.Concat"(%p1, %d) {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>
      %t2 = "onnx.Concat"(%p2, %d) {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>
      %r1 = "onnx.Reshape"(%x, %t1) : (tensor<?x?x64xf32>, tensor<3xi64>) -> tensor<?x?x16xf32>
      %r2 = "onnx.Reshape"(%x, %t2) : (tensor<?x?x64xf32>, tensor<3xi64>) -> tensor<?x?x16xf32>
      %a = "onnx.Transpose"(%r1) {perm = [1, 0, 2]} : (tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
      %b = "onnx.Transpose"(%r2) {perm = [1, 2, 0]} : (tensor<?x?x16xf32>) -> tensor<?x16x?xf32>
      %m = "onnx.MatMul"(%a, %b) : (tensor<?x?x16xf32>, tensor<?x16x?xf32>) -> tensor<?x?x?xf32>
      %r3 = "onnx.Reshape"(%y, %t1) : (tensor<?x?x64xf32>, tensor<3xi64>) -> tensor<?x?x16xf32>
      return %m : tensor<?x?x?xf32>
    })mlir");
  DimAnalysis analysis(fn);
  analysis.run();
  Value x = arg(fn, 0), r1 = result(9), r2 = result(10), a = result(11),
        b = result(12), m = result(13), r3 = result(14);
  EXPECT_TRUE(analysis.sameDynDim(r1, 1, r2, 1));
  EXPECT_TRUE(analysis.sameDynDim(r1, 0, x, 0));
  EXPECT_FALSE(analysis.sameDynDim(r1, 1, x, 1)); // batch * 4
  EXPECT_FALSE(analysis.before(op(10)).sameDynDim(r1, 1, r2, 1));
  EXPECT_TRUE(analysis.before(op(13)).sameDynDim(a, 0, b, 0));
  EXPECT_TRUE(analysis.sameDynDim(m, 0, r1, 1));
  // %y's dims are unrelated: a 0 entry would copy them.
  EXPECT_FALSE(analysis.sameDynDim(r3, 1, r1, 1));
  EXPECT_FALSE(analysis.sameDynDim(r3, 0, x, 0));
}

} // namespace
