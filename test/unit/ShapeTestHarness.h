//===- ShapeTestHarness.h - Running shape helpers on test shapes -*- C++
//-*-===//
//
// The harness the shape-library property tests share (ShapeHelpersTest.cpp,
// ShapeFamiliesTest.cpp). A test builds one function per run: a tensor per
// operand shape, either with a static type or with every extent erased to
// `?` and fed by an index constant; calls a shape helper; returns the dims
// it computed, `tensor.dim` of a `tensor.empty` built from them (the
// "reified" dims: the destination a lowering would build, read back through
// the op's shape interface) and the condition of every `onyx.assert`; then
// canonicalizes so that the dynamic variant folds to constants.
//
// Lists an op reads from tensor contents (axes, pads, repeats, scales, ...)
// are constants in the static run and constant *tensors* read with
// tensor.extract in the dynamic run (intList / floatList below), so the
// run-time path of the helper is exercised and folded too.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_TEST_UNIT_SHAPETESTHARNESS_H
#define ONYX_TEST_UNIT_SHAPETESTHARNESS_H

#include "onyx/Dialect/Onyx/OnyxDialect.h"
#include "onyx/Shape/DataMovementShapes.h"
#include "onyx/Shape/ShapeHelpers.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace onyx::shapetest {

using namespace mlir;
using Shape = std::vector<int64_t>;

/// What a helper call computes in one run: dims, optionally nothing.
using ComputeFn = llvm::function_ref<FailureOr<SmallVector<OpFoldResult>>(
    OpBuilder &, Location, ArrayRef<Value>, Operation *)>;

class ShapeTestFixture : public ::testing::Test {
protected:
  ShapeTestFixture() {
    context.loadDialect<affine::AffineDialect, arith::ArithDialect,
                        func::FuncDialect, linalg::LinalgDialect,
                        math::MathDialect, scf::SCFDialect,
                        tensor::TensorDialect, onyx::OnyxDialect>();
  }

  struct Outcome {
    /// The dims as folded constants (-1 where one did not fold).
    Shape dims;
    /// Folded assert conditions: true, false, or unknown (-1).
    std::vector<int> checks;
    /// `tensor.dim` of the destination built from the dims, folded (only
    /// when `reify` was asked for).
    Shape reified;
    /// Every dim was an attribute before folding (a static result type).
    bool allAttributes = true;
    /// Every dim folded to a constant.
    bool allFolded = true;
  };

  /// Builds a function whose body makes one tensor per shape (static types,
  /// or all-dynamic types fed by constants; `keepStatic[i][d]` keeps dim d
  /// of operand i static in the dynamic run), calls `compute` and returns
  /// the dims it produced plus every onyx.assert condition. With `reify`,
  /// also builds `tensor.empty` from the dims and reads each dim back with
  /// `tensor.dim` (only ask for it when the dims are valid extents). Runs
  /// canonicalize so the dynamic variant folds to constants. Returns
  /// nullopt when `compute` failed (an error was reported).
  std::optional<Outcome>
  run(const std::vector<Shape> &shapes, bool dynamic, ComputeFn compute,
      bool reify = false,
      const std::vector<std::vector<bool>> &keepStatic = {}) {
    OpBuilder b(&context);
    Location loc = b.getUnknownLoc();
    auto module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module.getBody());
    auto func = func::FuncOp::create(b, loc, "f", b.getFunctionType({}, {}));
    Block *body = func.addEntryBlock();
    b.setInsertionPointToStart(body);
    SmallVector<Value> tensors;
    for (auto [i, s] : llvm::enumerate(shapes)) {
      if (!dynamic) {
        tensors.push_back(
            tensor::EmptyOp::create(b, loc, s, b.getF32Type()).getResult());
        continue;
      }
      SmallVector<int64_t> erased;
      SmallVector<Value> dynSizes;
      for (auto [d, extent] : llvm::enumerate(s)) {
        bool keep = i < keepStatic.size() && d < keepStatic[i].size() &&
                    keepStatic[i][d];
        if (keep) {
          erased.push_back(extent);
          continue;
        }
        erased.push_back(ShapedType::kDynamic);
        dynSizes.push_back(arith::ConstantIndexOp::create(b, loc, extent));
      }
      auto type = RankedTensorType::get(erased, b.getF32Type());
      tensors.push_back(
          tensor::EmptyOp::create(b, loc, type, dynSizes).getResult());
    }
    bool reported = false;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &) {
      reported = true;
      return success();
    });
    FailureOr<SmallVector<OpFoldResult>> dims = compute(b, loc, tensors, func);
    if (failed(dims)) {
      EXPECT_TRUE(reported) << "failure without a diagnostic";
      module->erase();
      return std::nullopt;
    }
    Outcome outcome;
    // Return every dim, every reified dim and every check condition so
    // canonicalize keeps them, then fold.
    SmallVector<Value> results;
    for (OpFoldResult d : *dims) {
      outcome.allAttributes &= isa<Attribute>(d);
      results.push_back(onyx::shape::toValue(b, loc, d));
    }
    size_t numDims = results.size();
    if (reify) {
      SmallVector<Value> dynSizes;
      for (OpFoldResult d : *dims)
        if (!onyx::shape::getStatic(d))
          dynSizes.push_back(cast<Value>(d));
      Value dest =
          tensor::EmptyOp::create(b, loc, onyx::shape::toStaticShape(*dims),
                                  b.getF32Type(), dynSizes)
              .getResult();
      for (size_t i = 0; i < numDims; ++i)
        results.push_back(tensor::DimOp::create(b, loc, dest, int64_t(i)));
    }
    size_t numReified = results.size() - numDims;
    func.walk([&](onyx::AssertOp a) { results.push_back(a.getCondition()); });
    func::ReturnOp::create(b, loc, results);
    func.setFunctionType(b.getFunctionType({}, ValueRange(results).getTypes()));
    PassManager pm(&context);
    pm.addPass(createCanonicalizerPass());
    EXPECT_TRUE(succeeded(pm.run(module)));

    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    for (size_t i = 0; i < ret.getNumOperands(); ++i) {
      APInt value;
      bool folded = matchPattern(ret.getOperand(i), m_ConstantInt(&value));
      if (i < numDims) {
        outcome.allFolded &= folded;
        outcome.dims.push_back(folded ? value.getSExtValue() : -1);
      } else if (i < numDims + numReified) {
        outcome.allFolded &= folded;
        outcome.reified.push_back(folded ? value.getSExtValue() : -1);
      } else {
        outcome.checks.push_back(folded ? int(value.getBoolValue()) : -1);
      }
    }
    module->erase();
    return outcome;
  }

  /// Options of checkProperty.
  struct Expect {
    /// The static run may give SSA dims (their value comes from tensor
    /// contents even then).
    bool staticMayBeDynamic = false;
    /// Per operand, the dims kept static in the dynamic run.
    std::vector<std::vector<bool>> keepStatic;
  };

  /// The whole property for one case: `compute(..., dynamic)` must, on
  /// static types, give attributes equal to `expected` (or report an error
  /// when `expected` is nullopt); on dynamic types, fold to `expected` with
  /// every check true (or have a check that folds to false, or report an
  /// error, when invalid). In both runs the reified dims of the destination
  /// equal the dims.
  template <typename Compute>
  void checkProperty(const std::vector<Shape> &shapes,
                     const std::optional<Shape> &expected, Compute compute,
                     const std::string &what, const Expect &opts = {}) {
    if (std::getenv("ONYX_SHAPE_TEST_TRACE"))
      llvm::errs() << "case: " << what << "\n";
    for (bool dynamic : {false, true}) {
      auto fn = [&](OpBuilder &b, Location loc, ArrayRef<Value> t,
                    Operation *diag) -> FailureOr<SmallVector<OpFoldResult>> {
        return compute(b, loc, t, diag, dynamic);
      };
      const char *mode = dynamic ? "dynamic " : "static ";
      auto out =
          run(shapes, dynamic, fn, expected.has_value(),
              dynamic ? opts.keepStatic : std::vector<std::vector<bool>>{});
      if (!expected) {
        if (!dynamic) {
          EXPECT_FALSE(out.has_value()) << mode << "accepted " << what;
          continue;
        }
        if (out) {
          EXPECT_TRUE(std::any_of(out->checks.begin(), out->checks.end(),
                                  [](int c) { return c == 0; }))
              << "no check catches " << what;
        }
        continue;
      }
      ASSERT_TRUE(out.has_value()) << mode << "rejected " << what;
      EXPECT_TRUE(out->allFolded) << mode << "dims did not fold: " << what;
      EXPECT_EQ(out->dims, *expected) << mode << what;
      EXPECT_EQ(out->reified, *expected) << mode << "reified " << what;
      EXPECT_TRUE(std::all_of(out->checks.begin(), out->checks.end(),
                              [](int c) { return c == 1; }))
          << mode << "a check fails or does not fold for valid " << what;
      if (!dynamic && !opts.staticMayBeDynamic) {
        EXPECT_TRUE(out->allAttributes)
            << "static run gave SSA dims for " << what;
      }
    }
  }

  MLIRContext context;
};

/// An integer list input: constants in the static run, the contents of a
/// constant i64 tensor (read at run time) in the dynamic run; with
/// `dynamicSize`, that tensor's type also hides the length.
inline onyx::shape::IntList intList(OpBuilder &b, Location loc,
                                    ArrayRef<int64_t> values, bool dynamic,
                                    bool dynamicSize = false) {
  if (!dynamic)
    return onyx::shape::IntList::constant(values);
  auto type = RankedTensorType::get({int64_t(values.size())}, b.getI64Type());
  Value t =
      arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, values));
  if (dynamicSize)
    t = tensor::CastOp::create(
        b, loc, RankedTensorType::get({ShapedType::kDynamic}, b.getI64Type()),
        t);
  return onyx::shape::IntList::tensor(t);
}

/// A constant integer tensor of the given element width (e.g. a count).
inline Value intTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                       ArrayRef<int64_t> values, unsigned width = 64) {
  auto type = RankedTensorType::get(shape, b.getIntegerType(width));
  SmallVector<APInt> elements;
  for (int64_t v : values)
    elements.push_back(APInt(width, v, /*isSigned=*/true));
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(type, elements));
}

inline Shape randomShape(std::mt19937 &rng, size_t maxRank,
                         size_t minRank = 0) {
  static const int64_t kExtents[] = {0, 1, 1, 2, 3, 5};
  std::uniform_int_distribution<size_t> rankDist(minRank, maxRank);
  std::uniform_int_distribution<size_t> extentDist(0, 5);
  Shape s(rankDist(rng));
  for (int64_t &d : s)
    d = kExtents[extentDist(rng)];
  return s;
}

/// A shape broadcast-compatible with `base` most of the time.
inline Shape relatedShape(std::mt19937 &rng, const Shape &base) {
  std::uniform_int_distribution<int> coin(0, 9);
  if (coin(rng) == 0)
    return randomShape(rng, 4);
  std::uniform_int_distribution<size_t> drop(0, base.size());
  Shape s(base.begin() + drop(rng), base.end());
  for (int64_t &d : s)
    if (coin(rng) < 3)
      d = 1;
  return s;
}

inline std::string str(llvm::ArrayRef<int64_t> s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i)
    r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

} // namespace onyx::shapetest

#endif // ONYX_TEST_UNIT_SHAPETESTHARNESS_H
