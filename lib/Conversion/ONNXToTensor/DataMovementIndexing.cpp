//===- DataMovementIndexing.cpp - Ops that move data by computed indices --===//
//
// Gather, GatherElements, GatherND, Scatter(Elements), ScatterND, OneHot,
// Trilu, EyeLike, CumSum, ReverseSequence, DepthToSpace, SpaceToDepth.
//
// Gathers are index-computing linalg.generics that read with
// tensor.extract. Every index that comes from data is range-checked first,
// by a min/max reduction over the index tensor and an `onyx.assert`: a bad
// index is a clean error, never an out-of-bounds read. Scatters and CumSum
// are sequential (later updates see earlier ones), so they are scf.for
// nests that insert into a copy of the data.
//
//===----------------------------------------------------------------------===//

#include "DataMovementCommon.h"

using namespace mlir;

namespace onyx::conversion {
namespace {

//===----------------------------------------------------------------------===//
// Index range checks
//===----------------------------------------------------------------------===//

Value toI64(OpBuilder &b, Location loc, Value v) {
  auto type = cast<IntegerType>(v.getType());
  if (type.getWidth() == 64)
    return v;
  if (type.getWidth() == 1)
    return arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
  return arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
}

/// Min and max (i64) of the integer tensor `indices`: 0-D tensors, or 1-D
/// with one entry per position of the last dim when `perLastDim`.
std::pair<Value, Value> indexBounds(OpBuilder &b, Location loc, Value indices,
                                    bool perLastDim) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = cast<RankedTensorType>(indices.getType()).getRank();
  SmallVector<OpFoldResult> outDims;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  if (perLastDim) {
    outDims.push_back(shape::getDim(b, loc, indices, rank - 1));
    outExprs.push_back(getAffineDimExpr(unsigned(rank - 1), ctx));
    iterators.back() = utils::IteratorType::parallel;
  }
  Type i64 = b.getI64Type();
  Value lo =
      filledTensor(b, loc, outDims,
                   arith::ConstantIntOp::create(
                       b, loc, i64, std::numeric_limits<int64_t>::max()));
  Value hi =
      filledTensor(b, loc, outDims,
                   arith::ConstantIntOp::create(
                       b, loc, i64, std::numeric_limits<int64_t>::min()));
  AffineMap inMap = AffineMap::getMultiDimIdentityMap(unsigned(rank), ctx);
  AffineMap outMap = AffineMap::get(unsigned(rank), 0, outExprs, ctx);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{lo.getType(), hi.getType()}, ValueRange{indices},
      ValueRange{lo, hi}, ArrayRef<AffineMap>{inMap, outMap, outMap}, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value v = toI64(nb, nl, args[0]);
        Value mn = arith::MinSIOp::create(nb, nl, args[1], v);
        Value mx = arith::MaxSIOp::create(nb, nl, args[2], v);
        linalg::YieldOp::create(nb, nl, ValueRange{mn, mx});
      });
  return {generic.getResult(0), generic.getResult(1)};
}

/// The range [lo, hi) that entries of an index tensor (or of one column of
/// its last dim) must lie in.
struct IndexRange {
  OpFoldResult lo, hi;
};

/// Requires every entry of `indices` to lie in its range: `ranges` has one
/// entry for the whole tensor, or one per column of the last dim (index
/// tuples). Constant indices are checked at compile time where the extents
/// are static; the others by a reduction and an assert before any read.
LogicalResult requireIndicesIn(OpBuilder &b, Location loc, Operation *op,
                               Value indices, ArrayRef<IndexRange> ranges,
                               StringRef what) {
  shape::IndexMath m(b, loc);
  bool perColumn = ranges.size() > 1;
  std::string message =
      (what + ": indices range over [{0}, {1}], outside [{2}, {3})").str();
  auto check = [&](OpFoldResult mn, OpFoldResult mx, const IndexRange &r) {
    shape::Cond ok = m.andOf(m.le(r.lo, mn), m.lt(mx, r.hi));
    return m.require(ok, message, {mn, mx, r.lo, r.hi}, op);
  };
  if (auto values = getConstantInts(indices)) {
    size_t columns = ranges.size();
    for (size_t j = 0; j < columns; ++j) {
      std::optional<int64_t> mn, mx;
      for (size_t i = j; i < values->size(); i += columns) {
        mn = std::min(mn.value_or((*values)[i]), (*values)[i]);
        mx = std::max(mx.value_or((*values)[i]), (*values)[i]);
      }
      if (mn && failed(check(m.cst(*mn), m.cst(*mx), ranges[j])))
        return failure();
    }
    return success();
  }
  auto [lo, hi] = indexBounds(b, loc, indices, perColumn);
  for (auto [j, range] : llvm::enumerate(ranges)) {
    SmallVector<Value> position;
    if (perColumn)
      position.push_back(arith::ConstantIndexOp::create(b, loc, int64_t(j)));
    auto read = [&](Value t) -> OpFoldResult {
      return shape::indexFromElement(
          b, loc, tensor::ExtractOp::create(b, loc, t, position));
    };
    if (failed(check(read(lo), read(hi), range)))
      return failure();
  }
  return success();
}

/// [-extent, extent): indices that may count from the back.
IndexRange signedRange(OpBuilder &b, OpFoldResult extent) {
  shape::IndexMath m(b, b.getUnknownLoc());
  return {m.sub(m.cst(0), extent), extent};
}

/// An index read from data, made non-negative (range checked before).
Value wrapIndex(OpBuilder &b, Location loc, Value raw, OpFoldResult extent) {
  shape::IndexMath m(b, loc);
  Value idx = shape::indexFromElement(b, loc, raw);
  return m.value(m.select(m.lt(idx, m.cst(0)), m.add(idx, extent), idx));
}

LogicalResult requireIntegerIndices(Operation *op, Value indices) {
  auto type = requireRanked(op, indices, "indices");
  if (failed(type))
    return failure();
  if (!isa<IntegerType>(type->getElementType()))
    return op->emitError() << "indices must be integers, got "
                           << indices.getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Gather, GatherElements, GatherND
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerGather(Operation *op, OpBuilder &b) {
  auto gather = cast<onnx::ONNXGatherOp>(op);
  Location loc = op->getLoc();
  Value data = gather.getData(), indices = gather.getIndices();
  auto type = requireRankAtLeast(op, data, 1, "the data");
  if (failed(type) || failed(requireIntegerIndices(op, indices)))
    return failure();
  auto axis = normalizeAxis(op, gather.getAxis(), type->getRank());
  if (failed(axis))
    return failure();
  OpFoldResult extent = shape::getDim(b, loc, data, *axis);
  if (failed(requireIndicesIn(b, loc, op, indices, {signedRange(b, extent)},
                              "Gather")))
    return failure();
  auto dims = declaredDims(b, loc, op, 0,
                           shape::gatherShape(b, loc, data, indices, *axis));
  if (failed(dims))
    return failure();
  int64_t q = cast<RankedTensorType>(indices.getType()).getRank();
  // The indices follow the result loops axis..axis+q-1.
  SmallVector<int64_t> indexLoops =
      llvm::to_vector(llvm::seq<int64_t>(*axis, *axis + q));
  Value result = indexGeneric(
      b, loc, *dims, type->getElementType(),
      {projectedAccess(indices, indexLoops)},
      [&](OpBuilder &nb, Location nl, ValueRange ivs, ValueRange in) {
        SmallVector<Value> position(ivs.take_front(*axis));
        position.push_back(wrapIndex(nb, nl, in[0], extent));
        llvm::append_range(position, ivs.drop_front(*axis + q));
        return tensor::ExtractOp::create(nb, nl, data, position).getResult();
      });
  return SmallVector<Value>{result};
}

FailureOr<SmallVector<Value>> lowerGatherElements(Operation *op, OpBuilder &b) {
  auto gather = cast<onnx::ONNXGatherElementsOp>(op);
  Location loc = op->getLoc();
  Value data = gather.getData(), indices = gather.getIndices();
  auto type = requireRankAtLeast(op, data, 1, "the data");
  if (failed(type) || failed(requireIntegerIndices(op, indices)))
    return failure();
  auto axis = normalizeAxis(op, gather.getAxis(), type->getRank());
  if (failed(axis))
    return failure();
  auto shape =
      shape::elementsIndexShape(b, loc, data, indices, Value(), *axis, op);
  if (failed(shape))
    return failure();
  OpFoldResult extent = shape::getDim(b, loc, data, *axis);
  if (failed(requireIndicesIn(b, loc, op, indices, {signedRange(b, extent)},
                              "GatherElements")))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, *shape);
  if (failed(dims))
    return failure();
  Value result = indexGeneric(
      b, loc, *dims, type->getElementType(), {identityAccess(indices)},
      [&](OpBuilder &nb, Location nl, ValueRange ivs, ValueRange in) {
        SmallVector<Value> position(ivs);
        position[*axis] = wrapIndex(nb, nl, in[0], extent);
        return tensor::ExtractOp::create(nb, nl, data, position).getResult();
      });
  return SmallVector<Value>{result};
}

/// One range per position of an index tuple: the data dims it indexes.
SmallVector<IndexRange> tupleRanges(OpBuilder &b, Location loc, Value data,
                                    int64_t first, int64_t length) {
  SmallVector<IndexRange> ranges;
  for (int64_t j = 0; j < length; ++j)
    ranges.push_back(signedRange(b, shape::getDim(b, loc, data, first + j)));
  return ranges;
}

/// The data position an index tuple selects: `prefix` (batch ivs), the
/// tuple read from `indices` at `tupleAt` (+ column), then `suffix`.
SmallVector<Value> tuplePosition(OpBuilder &b, Location loc, Value data,
                                 Value indices, ValueRange prefix,
                                 ValueRange tupleAt, int64_t length,
                                 ValueRange suffix) {
  SmallVector<Value> position(prefix);
  int64_t first = int64_t(prefix.size());
  for (int64_t j = 0; j < length; ++j) {
    SmallVector<Value> at(tupleAt);
    at.push_back(arith::ConstantIndexOp::create(b, loc, j));
    Value raw = tensor::ExtractOp::create(b, loc, indices, at);
    position.push_back(
        wrapIndex(b, loc, raw, shape::getDim(b, loc, data, first + j)));
  }
  llvm::append_range(position, suffix);
  return position;
}

FailureOr<SmallVector<Value>> lowerGatherND(Operation *op, OpBuilder &b) {
  auto gather = cast<onnx::ONNXGatherNDOp>(op);
  Location loc = op->getLoc();
  Value data = gather.getData(), indices = gather.getIndices();
  auto type = requireRankAtLeast(op, data, 1, "the data");
  if (failed(type) || failed(requireIntegerIndices(op, indices)))
    return failure();
  int64_t batchDims = gather.getBatchDims();
  auto k = shape::indexTupleLength(b, loc, data, indices, batchDims,
                                   declaredRank(op, 0), op);
  if (failed(k))
    return failure();
  auto shape = shape::gatherNDShape(b, loc, data, indices, batchDims, *k, op);
  if (failed(shape))
    return failure();
  if (failed(requireIndicesIn(b, loc, op, indices,
                              tupleRanges(b, loc, data, batchDims, *k),
                              "GatherND")))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, *shape);
  if (failed(dims))
    return failure();
  int64_t q = cast<RankedTensorType>(indices.getType()).getRank();
  Value result = indexGeneric(
      b, loc, *dims, type->getElementType(),
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        // ivs = batch dims, the other index dims, then the data's tail.
        SmallVector<Value> position =
            tuplePosition(nb, nl, data, indices, ivs.take_front(batchDims),
                          ivs.take_front(q - 1), *k, ivs.drop_front(q - 1));
        return tensor::ExtractOp::create(nb, nl, data, position).getResult();
      });
  return SmallVector<Value>{result};
}

//===----------------------------------------------------------------------===//
// Scatter, ScatterElements, ScatterND
//===----------------------------------------------------------------------===//

LogicalResult checkReduction(Operation *op, StringRef reduction) {
  if (reduction == "none" || reduction == "add" || reduction == "mul" ||
      reduction == "max" || reduction == "min")
    return success();
  return op->emitError() << "unsupported reduction '" << reduction << "'";
}

/// The value a scatter writes where `old` was.
Value combine(OpBuilder &b, Location loc, StringRef reduction, Value old,
              Value update) {
  bool isFloat = isa<FloatType>(update.getType());
  if (reduction == "add")
    return isFloat ? arith::AddFOp::create(b, loc, old, update).getResult()
                   : arith::AddIOp::create(b, loc, old, update).getResult();
  if (reduction == "mul")
    return isFloat ? arith::MulFOp::create(b, loc, old, update).getResult()
                   : arith::MulIOp::create(b, loc, old, update).getResult();
  if (reduction == "max")
    return isFloat ? arith::MaximumFOp::create(b, loc, old, update).getResult()
                   : arith::MaxSIOp::create(b, loc, old, update).getResult();
  if (reduction == "min")
    return isFloat ? arith::MinimumFOp::create(b, loc, old, update).getResult()
                   : arith::MinSIOp::create(b, loc, old, update).getResult();
  return update;
}

using ScatterPositionFn = llvm::function_ref<SmallVector<Value>(
    OpBuilder &, Location, ValueRange ivs)>;

/// Applies one update per element of `updates`, in order, to a copy of
/// `data`: element `ivs` of the updates goes to position(ivs).
Value scatterLoop(OpBuilder &b, Location loc, Value data, Value updates,
                  ArrayRef<OpFoldResult> dataDims, StringRef reduction,
                  ScatterPositionFn position) {
  Type elementType = cast<RankedTensorType>(data.getType()).getElementType();
  // Scatter into a fresh copy: `data` may be a graph input or still used.
  Value copy =
      copyInto(b, loc, data, emptyTensor(b, loc, dataDims, elementType));
  SmallVector<Value> lbs, ubs, steps;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (OpFoldResult d : shape::getDims(b, loc, updates)) {
    lbs.push_back(zero);
    ubs.push_back(shape::toValue(b, loc, d));
    steps.push_back(one);
  }
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, ValueRange{copy},
      [&](OpBuilder &nb, Location nl, ValueRange ivs,
          ValueRange args) -> scf::ValueVector {
        SmallVector<Value> at = position(nb, nl, ivs);
        Value update = tensor::ExtractOp::create(nb, nl, updates, ivs);
        if (reduction != "none")
          update =
              combine(nb, nl, reduction,
                      tensor::ExtractOp::create(nb, nl, args[0], at), update);
        return {
            tensor::InsertOp::create(nb, nl, update, args[0], at).getResult()};
      });
  return nest.results.front();
}

FailureOr<SmallVector<Value>> lowerScatterElementsLike(Operation *op,
                                                       OpBuilder &b,
                                                       int64_t axisAttr,
                                                       StringRef reduction) {
  Location loc = op->getLoc();
  Value data = op->getOperand(0), indices = op->getOperand(1),
        updates = op->getOperand(2);
  auto type = requireRankAtLeast(op, data, 1, "the data");
  if (failed(type) || failed(requireIntegerIndices(op, indices)) ||
      failed(requireRanked(op, updates, "the updates")) ||
      failed(checkReduction(op, reduction)))
    return failure();
  auto axis = normalizeAxis(op, axisAttr, type->getRank());
  if (failed(axis))
    return failure();
  if (failed(
          shape::elementsIndexShape(b, loc, data, indices, updates, *axis, op)))
    return failure();
  OpFoldResult extent = shape::getDim(b, loc, data, *axis);
  if (failed(requireIndicesIn(b, loc, op, indices, {signedRange(b, extent)},
                              "ScatterElements")))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, shape::getDims(b, loc, data));
  if (failed(dims))
    return failure();
  Value result = scatterLoop(
      b, loc, data, updates, *dims, reduction,
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        SmallVector<Value> at(ivs);
        at[*axis] = wrapIndex(
            nb, nl, tensor::ExtractOp::create(nb, nl, indices, ivs), extent);
        return at;
      });
  return SmallVector<Value>{result};
}

FailureOr<SmallVector<Value>> lowerScatterElements(Operation *op,
                                                   OpBuilder &b) {
  auto scatter = cast<onnx::ONNXScatterElementsOp>(op);
  return lowerScatterElementsLike(op, b, scatter.getAxis(),
                                  scatter.getReduction());
}

/// The deprecated Scatter is ScatterElements without a reduction.
FailureOr<SmallVector<Value>> lowerScatter(Operation *op, OpBuilder &b) {
  auto scatter = cast<onnx::ONNXScatterOp>(op);
  return lowerScatterElementsLike(op, b, scatter.getAxis(), "none");
}

FailureOr<SmallVector<Value>> lowerScatterND(Operation *op, OpBuilder &b) {
  auto scatter = cast<onnx::ONNXScatterNDOp>(op);
  Location loc = op->getLoc();
  Value data = scatter.getData(), indices = scatter.getIndices(),
        updates = scatter.getUpdates();
  StringRef reduction = scatter.getReduction();
  auto type = requireRankAtLeast(op, data, 1, "the data");
  auto updatesType = requireRanked(op, updates, "the updates");
  if (failed(type) || failed(updatesType) ||
      failed(requireIntegerIndices(op, indices)) ||
      failed(checkReduction(op, reduction)))
    return failure();
  auto k = shape::indexTupleLength(b, loc, data, indices, 0,
                                   updatesType->getRank(), op);
  if (failed(k) ||
      failed(shape::scatterNDCheck(b, loc, data, indices, updates, *k, op)) ||
      failed(requireIndicesIn(b, loc, op, indices,
                              tupleRanges(b, loc, data, 0, *k), "ScatterND")))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, shape::getDims(b, loc, data));
  if (failed(dims))
    return failure();
  int64_t q = cast<RankedTensorType>(indices.getType()).getRank();
  Value result = scatterLoop(
      b, loc, data, updates, *dims, reduction,
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        // ivs = the index dims (indices[:-1]), then the data's tail.
        return tuplePosition(nb, nl, data, indices, ValueRange{},
                             ivs.take_front(q - 1), *k, ivs.drop_front(q - 1));
      });
  return SmallVector<Value>{result};
}

//===----------------------------------------------------------------------===//
// OneHot, Trilu, EyeLike
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerOneHot(Operation *op, OpBuilder &b) {
  auto oneHot = cast<onnx::ONNXOneHotOp>(op);
  Location loc = op->getLoc();
  Value indices = oneHot.getIndices(), values = oneHot.getValues();
  auto indicesType = requireRanked(op, indices, "the indices");
  auto valuesType = requireRanked(op, values, "the values");
  if (failed(indicesType) || failed(valuesType) ||
      failed(requireRanked(op, oneHot.getDepth(), "the depth")))
    return failure();
  if (valuesType->getRank() != 1)
    return op->emitError("OneHot: values must be 1-D [off, on]");
  OpFoldResult valueCount = shape::getDim(b, loc, values, 0);
  shape::IndexMath m(b, loc);
  if (failed(m.require(m.eq(valueCount, m.cst(2)),
                       "OneHot: values has {0} entries, expected 2",
                       {valueCount}, op)))
    return failure();
  int64_t q = indicesType->getRank();
  int64_t axis = oneHot.getAxis();
  if (axis < -(q + 1) || axis > q)
    return op->emitError() << "OneHot: axis " << axis
                           << " is out of range for rank " << q + 1;
  if (axis < 0)
    axis += q + 1;
  OpFoldResult depth = shape::readScalarIndex(b, loc, oneHot.getDepth());
  auto shape = shape::oneHotShape(b, loc, indices, depth, axis, op);
  if (failed(shape))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, *shape);
  if (failed(dims))
    return failure();
  Value off = tensor::ExtractOp::create(
      b, loc, values, ValueRange{arith::ConstantIndexOp::create(b, loc, 0)});
  Value on = tensor::ExtractOp::create(
      b, loc, values, ValueRange{arith::ConstantIndexOp::create(b, loc, 1)});
  // The indices follow every result loop but the class axis.
  SmallVector<int64_t> indexLoops;
  for (int64_t i = 0; i <= q; ++i)
    if (i != axis)
      indexLoops.push_back(i);
  Value result = indexGeneric(
      b, loc, *dims, valuesType->getElementType(),
      {projectedAccess(indices, indexLoops)},
      [&](OpBuilder &nb, Location nl, ValueRange ivs, ValueRange in) {
        // Out-of-range indices select no class (an all-off row), so no
        // check is needed: the index is only compared.
        Value idx = wrapIndex(nb, nl, in[0], depth);
        Value hot = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                          ivs[axis], idx);
        return arith::SelectOp::create(nb, nl, hot, on, off).getResult();
      });
  return SmallVector<Value>{result};
}

FailureOr<SmallVector<Value>> lowerTrilu(Operation *op, OpBuilder &b) {
  auto trilu = cast<onnx::ONNXTriluOp>(op);
  Location loc = op->getLoc();
  Value input = trilu.getInput();
  auto type = requireRanked(op, input, "the input");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  if (rank < 2)
    return op->emitError("Trilu: the input must have rank >= 2");
  Value k = trilu.getK();
  OpFoldResult diagonal = b.getIndexAttr(0);
  if (k && !isa<NoneType>(k.getType())) {
    if (failed(requireRanked(op, k, "Trilu: k")))
      return failure();
    diagonal = scalarIndexOf(b, loc, k);
  }
  auto dims = declaredDims(b, loc, op, 0, shape::getDims(b, loc, input));
  if (failed(dims))
    return failure();
  bool upper = trilu.getUpper() != 0;
  Value init = emptyTensor(b, loc, *dims, type->getElementType());
  SmallVector<int64_t> loops = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value result = buildGeneric(
      b, loc, {identityAccess(input)}, init, loops, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange in, Value) {
        shape::IndexMath bm(nb, nl);
        OpFoldResult row =
            linalg::IndexOp::create(nb, nl, rank - 2).getResult();
        OpFoldResult col =
            linalg::IndexOp::create(nb, nl, rank - 1).getResult();
        OpFoldResult offset = bm.sub(col, row);
        // Upper keeps col - row >= k, lower keeps col - row <= k.
        shape::Cond keep =
            upper ? bm.le(diagonal, offset) : bm.le(offset, diagonal);
        Value zero = scalarConstant(nb, nl, in[0].getType(), 0.0);
        return arith::SelectOp::create(nb, nl, bm.value(keep), in[0], zero)
            .getResult();
      });
  return SmallVector<Value>{result};
}

FailureOr<SmallVector<Value>> lowerEyeLike(Operation *op, OpBuilder &b) {
  auto eye = cast<onnx::ONNXEyeLikeOp>(op);
  Location loc = op->getLoc();
  auto type = requireRanked(op, eye.getInput(), "the input");
  if (failed(type))
    return failure();
  if (type->getRank() != 2)
    return op->emitError("EyeLike: the input must have rank 2");
  // The dtype attribute already gave the declared result its element type.
  Type elementType =
      cast<ShapedType>(op->getResult(0).getType()).getElementType();
  if (failed(requireSupportedElement(op, elementType)))
    return failure();
  auto dims =
      declaredDims(b, loc, op, 0, shape::getDims(b, loc, eye.getInput()));
  if (failed(dims))
    return failure();
  int64_t k = eye.getK();
  Value result = indexGeneric(
      b, loc, *dims, elementType,
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        shape::IndexMath bm(nb, nl);
        shape::Cond onDiagonal = bm.eq(bm.sub(ivs[1], ivs[0]), bm.cst(k));
        return arith::SelectOp::create(nb, nl, bm.value(onDiagonal),
                                       scalarConstant(nb, nl, elementType, 1.0),
                                       scalarConstant(nb, nl, elementType, 0.0))
            .getResult();
      });
  return SmallVector<Value>{result};
}

//===----------------------------------------------------------------------===//
// CumSum, ReverseSequence
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerCumSum(Operation *op, OpBuilder &b) {
  auto cumsum = cast<onnx::ONNXCumSumOp>(op);
  Location loc = op->getLoc();
  Value x = cumsum.getX();
  auto type = requireRanked(op, x, "the input");
  if (failed(type) ||
      failed(requireSupportedElement(op, type->getElementType())))
    return failure();
  Type elementType = type->getElementType();
  Value axisInput = cumsum.getAxis();
  if (failed(requireRanked(op, axisInput, "the axis")))
    return failure();
  OpFoldResult axis = scalarIndexOf(b, loc, axisInput);
  // The scan runs along an axis that may only be known at run time: view
  // the input as [outer, extent, inner] around it.
  auto view = shape::axisView(b, loc, x, axis, op);
  if (failed(view))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, shape::getDims(b, loc, x));
  if (failed(dims))
    return failure();
  SmallVector<OpFoldResult> viewDims = {view->outer, view->extent, view->inner};
  Value x3 = reshapeTo(b, loc, x, viewDims);
  Value init = emptyTensor(b, loc, viewDims, elementType);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value extent = shape::toValue(b, loc, view->extent);
  Value lastIndex = arith::SubIOp::create(b, loc, extent, one);
  Value zeroElement = scalarConstant(b, loc, elementType, 0.0);
  bool reverse = cumsum.getReverse() != 0;
  bool exclusive = cumsum.getExclusive() != 0;
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, {zero, zero},
      {shape::toValue(b, loc, view->outer),
       shape::toValue(b, loc, view->inner)},
      {one, one}, ValueRange{init},
      [&](OpBuilder &nb, Location nl, ValueRange ivs,
          ValueRange args) -> scf::ValueVector {
        auto scan = scf::ForOp::create(
            nb, nl, zero, extent, one, ValueRange{args[0], zeroElement},
            [&](OpBuilder &fb, Location fl, Value t, ValueRange iter) {
              Value pos =
                  reverse
                      ? arith::SubIOp::create(fb, fl, lastIndex, t).getResult()
                      : t;
              SmallVector<Value> at = {ivs[0], pos, ivs[1]};
              Value v = tensor::ExtractOp::create(fb, fl, x3, at);
              Value sum = combine(fb, fl, "add", iter[1], v);
              Value out = exclusive ? iter[1] : sum;
              Value acc = tensor::InsertOp::create(fb, fl, out, iter[0], at);
              scf::YieldOp::create(fb, fl, ValueRange{acc, sum});
            });
        return {scan.getResult(0)};
      });
  return SmallVector<Value>{reshapeTo(b, loc, nest.results.front(), *dims)};
}

FailureOr<SmallVector<Value>> lowerReverseSequence(Operation *op,
                                                   OpBuilder &b) {
  auto reverse = cast<onnx::ONNXReverseSequenceOp>(op);
  Location loc = op->getLoc();
  Value input = reverse.getInput(), lens = reverse.getSequenceLens();
  auto type = requireRanked(op, input, "the input");
  auto lensType = requireRanked(op, lens, "sequence_lens");
  if (failed(type) || failed(lensType))
    return failure();
  int64_t batchAxis = reverse.getBatchAxis(), timeAxis = reverse.getTimeAxis();
  if (type->getRank() < 2 || batchAxis == timeAxis || batchAxis < 0 ||
      batchAxis > 1 || timeAxis < 0 || timeAxis > 1)
    return op->emitError("ReverseSequence: needs rank >= 2 and batch_axis, "
                         "time_axis a permutation of 0 and 1");
  if (lensType->getRank() != 1 || !isa<IntegerType>(lensType->getElementType()))
    return op->emitError("ReverseSequence: sequence_lens must be 1-D "
                         "integers");
  OpFoldResult time = shape::getDim(b, loc, input, timeAxis);
  shape::IndexMath m(b, loc);
  if (failed(shape::checkEqual(b, loc, shape::getDim(b, loc, lens, 0),
                               shape::getDim(b, loc, input, batchAxis),
                               "ReverseSequence: sequence_lens / batch dim",
                               op)) ||
      failed(requireIndicesIn(b, loc, op, lens,
                              {IndexRange{m.cst(0), m.add(time, m.cst(1))}},
                              "ReverseSequence: sequence_lens")))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, shape::getDims(b, loc, input));
  if (failed(dims))
    return failure();
  Value result = indexGeneric(
      b, loc, *dims, type->getElementType(),
      {projectedAccess(lens, {batchAxis})},
      [&](OpBuilder &nb, Location nl, ValueRange ivs, ValueRange in) {
        shape::IndexMath bm(nb, nl);
        OpFoldResult len = shape::indexFromElement(nb, nl, in[0]);
        OpFoldResult t = ivs[timeAxis];
        // The first `len` steps are read backwards, the rest in place.
        OpFoldResult src =
            bm.select(bm.lt(t, len), bm.sub(bm.sub(len, bm.cst(1)), t), t);
        SmallVector<Value> at(ivs);
        at[timeAxis] = bm.value(src);
        return tensor::ExtractOp::create(nb, nl, input, at).getResult();
      });
  return SmallVector<Value>{result};
}

//===----------------------------------------------------------------------===//
// DepthToSpace, SpaceToDepth
//===----------------------------------------------------------------------===//

/// x / bs and x % bs for a non-negative loop index.
std::pair<Value, Value> splitIndex(OpBuilder &b, Location loc, Value x,
                                   int64_t blockSize) {
  Value bs = arith::ConstantIndexOp::create(b, loc, blockSize);
  return {arith::DivUIOp::create(b, loc, x, bs),
          arith::RemUIOp::create(b, loc, x, bs)};
}

FailureOr<SmallVector<Value>> lowerDepthToSpace(Operation *op, OpBuilder &b) {
  auto d2s = cast<onnx::ONNXDepthToSpaceOp>(op);
  Location loc = op->getLoc();
  Value input = d2s.getInput();
  auto type = requireRanked(op, input, "the input");
  if (failed(type))
    return failure();
  StringRef mode = d2s.getMode();
  if (mode != "DCR" && mode != "CRD")
    return op->emitError() << "DepthToSpace: unknown mode '" << mode << "'";
  int64_t bs = d2s.getBlocksize();
  auto shape = shape::depthToSpaceShape(b, loc, input, bs, op);
  if (failed(shape))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, *shape);
  if (failed(dims))
    return failure();
  OpFoldResult outChannels = (*dims)[1];
  Value result = indexGeneric(
      b, loc, *dims, type->getElementType(),
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        shape::IndexMath bm(nb, nl);
        auto [h, i] = splitIndex(nb, nl, ivs[2], bs);
        auto [w, j] = splitIndex(nb, nl, ivs[3], bs);
        OpFoldResult block = bm.add(bm.mul(i, bm.cst(bs)), j);
        // DCR: depth is (block, channel); CRD: (channel, block).
        OpFoldResult channel =
            mode == "DCR" ? bm.add(bm.mul(block, outChannels), ivs[1])
                          : bm.add(bm.mul(ivs[1], bm.cst(bs * bs)), block);
        Value at[] = {ivs[0], bm.value(channel), h, w};
        return tensor::ExtractOp::create(nb, nl, input, at).getResult();
      });
  return SmallVector<Value>{result};
}

FailureOr<SmallVector<Value>> lowerSpaceToDepth(Operation *op, OpBuilder &b) {
  auto s2d = cast<onnx::ONNXSpaceToDepthOp>(op);
  Location loc = op->getLoc();
  Value input = s2d.getInput();
  auto type = requireRanked(op, input, "the input");
  if (failed(type))
    return failure();
  int64_t bs = s2d.getBlocksize();
  auto shape = shape::spaceToDepthShape(b, loc, input, bs, op);
  if (failed(shape))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, *shape);
  if (failed(dims))
    return failure();
  Value inChannels = shape::toValue(b, loc, shape::getDim(b, loc, input, 1));
  Value result = indexGeneric(
      b, loc, *dims, type->getElementType(),
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        shape::IndexMath bm(nb, nl);
        // Output depth is (block row, block column, input channel).
        Value block = arith::DivUIOp::create(nb, nl, ivs[1], inChannels);
        Value channel = arith::RemUIOp::create(nb, nl, ivs[1], inChannels);
        auto [i, j] = splitIndex(nb, nl, block, bs);
        OpFoldResult h = bm.add(bm.mul(ivs[2], bm.cst(bs)), i);
        OpFoldResult w = bm.add(bm.mul(ivs[3], bm.cst(bs)), j);
        Value at[] = {ivs[0], channel, bm.value(h), bm.value(w)};
        return tensor::ExtractOp::create(nb, nl, input, at).getResult();
      });
  return SmallVector<Value>{result};
}

} // namespace

void addDataMovementIndexingLowerings(LoweringTable &t) {
  t["onnx.Gather"] = lowerGather;
  t["onnx.GatherElements"] = lowerGatherElements;
  t["onnx.GatherND"] = lowerGatherND;
  t["onnx.Scatter"] = lowerScatter;
  t["onnx.ScatterElements"] = lowerScatterElements;
  t["onnx.ScatterND"] = lowerScatterND;
  t["onnx.OneHot"] = lowerOneHot;
  t["onnx.Trilu"] = lowerTrilu;
  t["onnx.EyeLike"] = lowerEyeLike;
  t["onnx.CumSum"] = lowerCumSum;
  t["onnx.ReverseSequence"] = lowerReverseSequence;
  t["onnx.DepthToSpace"] = lowerDepthToSpace;
  t["onnx.SpaceToDepth"] = lowerSpaceToDepth;
}

} // namespace onyx::conversion
