//===- ReductionShapes.cpp - Result dims of reductions and losses ---------===//

#include "onyx/Shape/ReductionShapes.h"

#include "onyx/Dialect/Onyx/OnyxDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace onyx::shape {

namespace {

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value cmp(OpBuilder &b, Location loc, arith::CmpIPredicate pred, Value lhs,
          Value rhs) {
  return arith::CmpIOp::create(b, loc, pred, lhs, rhs);
}

/// Per-dim hit counts of the axes in `axesTensor`, plus an i1 "every entry
/// is in [-rank, rank)". One linalg.generic folds the entries into rank + 1
/// counters (the last counts entries out of range), which are then read
/// back; a generic rather than an scf loop keeps the conversion within the
/// dialects it already produces, whatever the axes' length.
std::pair<SmallVector<Value>, Value>
countAxisHits(OpBuilder &b, Location loc, Value axesTensor, int64_t rank) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  Value zero64 = arith::ConstantIntOp::create(b, loc, 0, 64);
  auto countsType = RankedTensorType::get({rank + 1}, i64);
  Value empty = tensor::EmptyOp::create(b, loc, countsType.getShape(), i64);
  Value init = linalg::FillOp::create(b, loc, zero64, empty).getResult(0);
  // Loops: (slot, entry).
  AffineExpr slot = getAffineDimExpr(0, ctx), entry = getAffineDimExpr(1, ctx);
  SmallVector<AffineMap> maps = {AffineMap::get(2, 0, {entry}, ctx),
                                 AffineMap::get(2, 0, {slot}, ctx)};
  SmallVector<utils::IteratorType> iterators = {utils::IteratorType::parallel,
                                                utils::IteratorType::reduction};
  auto fold = linalg::GenericOp::create(
      b, loc, TypeRange{countsType}, ValueRange{axesTensor}, ValueRange{init},
      maps, iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value zero = indexConstant(nb, nl, 0);
        Value rankValue = indexConstant(nb, nl, rank);
        Value a =
            arith::IndexCastOp::create(nb, nl, nb.getIndexType(), args[0]);
        Value inRange = arith::AndIOp::create(
            nb, nl,
            cmp(nb, nl, arith::CmpIPredicate::sge, a,
                indexConstant(nb, nl, -rank)),
            cmp(nb, nl, arith::CmpIPredicate::slt, a, rankValue));
        Value normalized = arith::SelectOp::create(
            nb, nl, cmp(nb, nl, arith::CmpIPredicate::slt, a, zero),
            arith::AddIOp::create(nb, nl, a, rankValue), a);
        Value i = linalg::IndexOp::create(nb, nl, 0);
        Value isDimSlot = cmp(nb, nl, arith::CmpIPredicate::slt, i, rankValue);
        Value hit = arith::SelectOp::create(
            nb, nl, isDimSlot,
            cmp(nb, nl, arith::CmpIPredicate::eq, normalized, i),
            arith::XOrIOp::create(nb, nl, inRange,
                                  arith::ConstantIntOp::create(nb, nl, 1, 1)));
        Value increment = arith::ExtUIOp::create(nb, nl, nb.getI64Type(), hit);
        linalg::YieldOp::create(
            nb, nl,
            ValueRange{arith::AddIOp::create(nb, nl, args[1], increment)});
      });

  SmallVector<Value> hits;
  for (int64_t i = 0; i <= rank; ++i) {
    Value count = tensor::ExtractOp::create(
        b, loc, fold.getResult(0), ValueRange{indexConstant(b, loc, i)});
    hits.push_back(arith::IndexCastOp::create(b, loc, b.getIndexType(), count));
  }
  Value outOfRange = hits.pop_back_val();
  Value valid = cmp(b, loc, arith::CmpIPredicate::eq, outOfRange,
                    indexConstant(b, loc, 0));
  return {hits, valid};
}

/// The `resultRank` dims left when the dims flagged in `reduced` are
/// dropped from `dims`, compacted at run time: result dim k is the k-th
/// input dim not reduced.
SmallVector<OpFoldResult> compactKeptDims(OpBuilder &b, Location loc,
                                          ArrayRef<OpFoldResult> dims,
                                          ArrayRef<Value> reduced,
                                          int64_t resultRank) {
  Value zero = indexConstant(b, loc, 0), one = indexConstant(b, loc, 1);
  SmallVector<Value> result(resultRank, one);
  Value position = zero; // kept dims seen so far
  for (auto [dim, isReduced] : llvm::zip(dims, reduced)) {
    Value extent = toValue(b, loc, dim);
    for (int64_t k = 0; k < resultRank; ++k) {
      Value here = arith::AndIOp::create(
          b, loc,
          cmp(b, loc, arith::CmpIPredicate::eq, position,
              indexConstant(b, loc, k)),
          arith::XOrIOp::create(b, loc, isReduced,
                                arith::ConstantIntOp::create(b, loc, 1, 1)));
      result[k] = arith::SelectOp::create(b, loc, here, extent, result[k]);
    }
    position = arith::AddIOp::create(
        b, loc, position,
        arith::SelectOp::create(b, loc, isReduced, zero, one));
  }
  return SmallVector<OpFoldResult>(result.begin(), result.end());
}

} // namespace

FailureOr<ReduceShape> reduceShape(OpBuilder &b, Location loc, Value input,
                                   ArrayRef<int64_t> axes, bool keepDims,
                                   bool noopWithEmptyAxes, Operation *diagOp) {
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  int64_t rank = int64_t(in.size());
  ReduceShape shape;
  // ONNX: no axes means every axis, unless the op is told to do nothing.
  shape.reduced.assign(rank, axes.empty() && !noopWithEmptyAxes);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank)
      return diagOp->emitError()
             << "axis " << axis << " is out of range for rank " << rank;
    int64_t normalized = axis < 0 ? axis + rank : axis;
    if (shape.reduced[normalized])
      return diagOp->emitError() << "axis " << axis << " is repeated";
    shape.reduced[normalized] = true;
  }
  SmallVector<OpFoldResult> folded;
  for (int64_t i = 0; i < rank; ++i) {
    if (shape.reduced[i]) {
      folded.push_back(in[i]);
      shape.keptDims.push_back(b.getIndexAttr(1));
      if (keepDims)
        shape.dims.push_back(b.getIndexAttr(1));
      continue;
    }
    shape.keptDims.push_back(in[i]);
    shape.dims.push_back(in[i]);
  }
  shape.count = productOf(b, loc, folded);
  return shape;
}

FailureOr<RuntimeReduceShape>
reduceShapeFromTensor(OpBuilder &b, Location loc, Value input, Value axesTensor,
                      bool keepDims, bool noopWithEmptyAxes, int64_t resultRank,
                      Operation *diagOp) {
  auto axesType = dyn_cast<RankedTensorType>(axesTensor.getType());
  if (!axesType || axesType.getRank() != 1 ||
      !isa<IntegerType>(axesType.getElementType()))
    return diagOp->emitError("axes must be a 1-D integer tensor");
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  int64_t rank = int64_t(in.size());
  if (keepDims)
    resultRank = rank;
  if (resultRank < 0 || resultRank > rank)
    return diagOp->emitError() << "result rank " << resultRank
                               << " does not fit a reduction of rank " << rank;

  auto [hits, valid] = countAxisHits(b, loc, axesTensor, rank);
  AssertOp::create(b, loc, valid,
                   b.getStringAttr("an axis is out of range for rank " +
                                   std::to_string(rank)),
                   ValueRange{});

  Value zero = indexConstant(b, loc, 0), one = indexConstant(b, loc, 1);
  Value noRepeat = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (Value h : hits)
    noRepeat = arith::AndIOp::create(
        b, loc, noRepeat, cmp(b, loc, arith::CmpIPredicate::ule, h, one));
  AssertOp::create(b, loc, noRepeat, b.getStringAttr("an axis is repeated"),
                   ValueRange{});

  // Empty axes: every dim, or (noop_with_empty_axes) none.
  Value length = toValue(b, loc, getDim(b, loc, axesTensor, 0));
  Value empty = cmp(b, loc, arith::CmpIPredicate::eq, length, zero);
  RuntimeReduceShape shape;
  SmallVector<OpFoldResult> folded;
  Value keptCount = zero;
  for (int64_t i = 0; i < rank; ++i) {
    Value isReduced = cmp(b, loc, arith::CmpIPredicate::ne, hits[i], zero);
    if (!noopWithEmptyAxes)
      isReduced = arith::OrIOp::create(b, loc, isReduced, empty);
    shape.reduced.push_back(isReduced);
    Value extent = toValue(b, loc, in[i]);
    shape.keptDims.push_back(
        arith::SelectOp::create(b, loc, isReduced, one, extent).getResult());
    shape.foldedDims.push_back(
        arith::SelectOp::create(b, loc, isReduced, extent, one).getResult());
    keptCount = arith::AddIOp::create(
        b, loc, keptCount,
        arith::SelectOp::create(b, loc, isReduced, zero, one));
  }
  shape.count = productOf(b, loc, shape.foldedDims);

  if (keepDims) {
    shape.dims = shape.keptDims;
    return shape;
  }
  Value expected = indexConstant(b, loc, resultRank);
  AssertOp::create(
      b, loc, cmp(b, loc, arith::CmpIPredicate::eq, keptCount, expected),
      b.getStringAttr("the axes keep {0} dims but the result has rank {1}"),
      ValueRange{keptCount, expected});
  shape.dims = compactKeptDims(b, loc, in, shape.reduced, resultRank);
  return shape;
}

FailureOr<LossShape> lossShape(OpBuilder &b, Location loc, Value input,
                               Value target, Value weight, bool reduced,
                               Operation *diagOp) {
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  SmallVector<OpFoldResult> tgt = getDims(b, loc, target);
  if (in.size() < 2)
    return diagOp->emitError("the input must have rank >= 2 (N, C, ...)");
  if (tgt.size() + 1 != in.size())
    return diagOp->emitError()
           << "the target has rank " << tgt.size() << " but the input rank "
           << in.size() << " needs " << in.size() - 1;
  for (size_t i = 0; i < tgt.size(); ++i) {
    OpFoldResult inputDim = in[i == 0 ? 0 : i + 1];
    std::string what = "target dim " + std::to_string(i) + " and input dim " +
                       std::to_string(i == 0 ? 0 : i + 1);
    if (failed(checkEqual(b, loc, tgt[i], inputDim, what, diagOp)))
      return failure();
  }
  LossShape shape;
  shape.classes = in[1];
  if (weight && failed(checkChannelParam(b, loc, weight, shape.classes,
                                         "the weight", diagOp)))
    return failure();
  shape.targetDims = tgt;
  if (!reduced)
    shape.dims = tgt;
  return shape;
}

LogicalResult checkChannelParam(OpBuilder &b, Location loc, Value param,
                                OpFoldResult channels, StringRef what,
                                Operation *diagOp) {
  auto type = cast<RankedTensorType>(param.getType());
  if (type.getRank() != 1)
    return diagOp->emitError() << what << " must be 1-D, got " << type;
  return checkEqual(b, loc, getDim(b, loc, param, 0), channels,
                    (what + " length and the channel count").str(), diagOp);
}

} // namespace onyx::shape
