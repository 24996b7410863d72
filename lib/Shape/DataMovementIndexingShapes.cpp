//===- DataMovementIndexingShapes.cpp - Shapes of indexing ops ------------===//
//
// Result shapes and index checks of the gather and scatter families,
// DepthToSpace, SpaceToDepth, OneHot and axis views (declared in
// onyx/Shape/DataMovementShapes.h).
//
//===----------------------------------------------------------------------===//

#include "DataMovementShapesCommon.h"

#include "onyx/Dialect/Onyx/OnyxDialect.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using arith::CmpIPredicate;

namespace onyx::shape {

//===----------------------------------------------------------------------===//
// Gather and scatter families
//===----------------------------------------------------------------------===//

SmallVector<OpFoldResult> gatherShape(OpBuilder &b, Location loc, Value data,
                                      Value indices, int64_t axis) {
  SmallVector<OpFoldResult> d = getDims(b, loc, data);
  SmallVector<OpFoldResult> result(d.begin(), d.begin() + axis);
  llvm::append_range(result, getDims(b, loc, indices));
  result.append(d.begin() + axis + 1, d.end());
  return result;
}

FailureOr<SmallVector<OpFoldResult>>
elementsIndexShape(OpBuilder &b, Location loc, Value data, Value indices,
                   Value updates, int64_t axis, Operation *diagOp) {
  IndexMath m(b, loc);
  SmallVector<OpFoldResult> d = getDims(b, loc, data);
  SmallVector<OpFoldResult> idx = getDims(b, loc, indices);
  if (d.size() != idx.size())
    return diagOp->emitError() << "indices have rank " << idx.size()
                               << ", data has rank " << d.size();
  for (size_t i = 0; i < d.size(); ++i)
    if (int64_t(i) != axis &&
        failed(m.require(m.le(idx[i], d[i]),
                         "indices dim " + std::to_string(i) +
                             " has extent {0}, beyond the data's {1}",
                         {idx[i], d[i]}, diagOp)))
      return failure();
  if (updates) {
    SmallVector<OpFoldResult> u = getDims(b, loc, updates);
    if (u.size() != idx.size())
      return diagOp->emitError() << "updates have rank " << u.size()
                                 << ", indices have rank " << idx.size();
    for (size_t i = 0; i < u.size(); ++i)
      if (failed(checkEqual(b, loc, u[i], idx[i],
                            "updates/indices dim " + std::to_string(i),
                            diagOp)))
        return failure();
  }
  return idx;
}

FailureOr<int64_t> indexTupleLength(OpBuilder &b, Location loc, Value data,
                                    Value indices, int64_t batchDims,
                                    std::optional<int64_t> resultRank,
                                    Operation *diagOp) {
  IndexMath m(b, loc);
  auto indicesType = cast<RankedTensorType>(indices.getType());
  int64_t q = indicesType.getRank();
  int64_t r = cast<RankedTensorType>(data.getType()).getRank();
  if (q < 1)
    return diagOp->emitError("indices must have rank >= 1");
  int64_t k;
  if (!indicesType.isDynamicDim(q - 1))
    k = indicesType.getDimSize(q - 1);
  else if (resultRank)
    k = q - 1 + r - batchDims - *resultRank;
  else
    return diagOp->emitError(
        "the index tuple length (the indices' last dim) is only known at run "
        "time and the result rank is not declared");
  if (k < 1 || k > r - batchDims)
    return diagOp->emitError()
           << "index tuples of length " << k << " for rank-" << r
           << " data with " << batchDims << " batch dims";
  OpFoldResult last = getDim(b, loc, indices, q - 1);
  if (failed(m.require(m.eq(last, m.cst(k)),
                       "the indices' last dim is {0}, expected {1}",
                       {last, m.cst(k)}, diagOp)))
    return failure();
  return k;
}

FailureOr<SmallVector<OpFoldResult>>
gatherNDShape(OpBuilder &b, Location loc, Value data, Value indices,
              int64_t batchDims, int64_t tupleLength, Operation *diagOp) {
  SmallVector<OpFoldResult> d = getDims(b, loc, data);
  SmallVector<OpFoldResult> idx = getDims(b, loc, indices);
  if (batchDims < 0 || batchDims >= int64_t(std::min(d.size(), idx.size())))
    return diagOp->emitError()
           << "batch_dims " << batchDims << " is out of range";
  for (int64_t i = 0; i < batchDims; ++i)
    if (failed(checkEqual(b, loc, d[i], idx[i],
                          "GatherND batch dim " + std::to_string(i), diagOp)))
      return failure();
  SmallVector<OpFoldResult> result(idx.begin(), idx.end() - 1);
  result.append(d.begin() + batchDims + tupleLength, d.end());
  return result;
}

LogicalResult scatterNDCheck(OpBuilder &b, Location loc, Value data,
                             Value indices, Value updates, int64_t tupleLength,
                             Operation *diagOp) {
  SmallVector<OpFoldResult> d = getDims(b, loc, data);
  SmallVector<OpFoldResult> idx = getDims(b, loc, indices);
  SmallVector<OpFoldResult> u = getDims(b, loc, updates);
  SmallVector<OpFoldResult> expected(idx.begin(), idx.end() - 1);
  expected.append(d.begin() + tupleLength, d.end());
  if (u.size() != expected.size())
    return diagOp->emitError() << "updates have rank " << u.size()
                               << ", expected " << expected.size();
  for (size_t i = 0; i < u.size(); ++i)
    if (failed(checkEqual(b, loc, u[i], expected[i],
                          "ScatterND updates dim " + std::to_string(i),
                          diagOp)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// DepthToSpace, SpaceToDepth, OneHot, axis views
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<OpFoldResult>>
depthToSpaceShape(OpBuilder &b, Location loc, Value input, int64_t blockSize,
                  Operation *diagOp) {
  IndexMath m(b, loc);
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  if (in.size() != 4)
    return diagOp->emitError("DepthToSpace: the input must have rank 4");
  if (blockSize < 1)
    return diagOp->emitError("DepthToSpace: blocksize must be positive");
  OpFoldResult square = m.cst(blockSize * blockSize);
  if (failed(m.require(m.eq(m.floorMod(in[1], square), m.cst(0)),
                       "DepthToSpace: {0} channels are not divisible by "
                       "blocksize^2 = {1}",
                       {in[1], square}, diagOp)))
    return failure();
  OpFoldResult bs = m.cst(blockSize);
  return SmallVector<OpFoldResult>{in[0], m.floorDiv(in[1], square),
                                   m.mul(in[2], bs), m.mul(in[3], bs)};
}

FailureOr<SmallVector<OpFoldResult>>
spaceToDepthShape(OpBuilder &b, Location loc, Value input, int64_t blockSize,
                  Operation *diagOp) {
  IndexMath m(b, loc);
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  if (in.size() != 4)
    return diagOp->emitError("SpaceToDepth: the input must have rank 4");
  if (blockSize < 1)
    return diagOp->emitError("SpaceToDepth: blocksize must be positive");
  OpFoldResult bs = m.cst(blockSize);
  for (int64_t i = 2; i < 4; ++i)
    if (failed(m.require(m.eq(m.floorMod(in[i], bs), m.cst(0)),
                         "SpaceToDepth: extent {0} is not divisible by the "
                         "blocksize {1}",
                         {in[i], bs}, diagOp)))
      return failure();
  return SmallVector<OpFoldResult>{
      in[0], m.mul(in[1], m.cst(blockSize * blockSize)), m.floorDiv(in[2], bs),
      m.floorDiv(in[3], bs)};
}

FailureOr<SmallVector<OpFoldResult>>
oneHotShape(OpBuilder &b, Location loc, Value indices, OpFoldResult depth,
            int64_t axis, Operation *diagOp) {
  IndexMath m(b, loc);
  if (failed(
          requireNonNegative(m, depth, "OneHot: negative depth {0}", diagOp)))
    return failure();
  SmallVector<OpFoldResult> dims = getDims(b, loc, indices);
  dims.insert(dims.begin() + axis, depth);
  return dims;
}

FailureOr<AxisView> axisView(OpBuilder &b, Location loc, Value input,
                             OpFoldResult axis, Operation *diagOp) {
  IndexMath m(b, loc);
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  int64_t rank = int64_t(in.size());
  if (failed(m.require(inRange(m, axis, -rank, std::max<int64_t>(rank, 1)),
                       "axis {0} is out of range for rank {1}",
                       {axis, m.cst(rank)}, diagOp)))
    return failure();
  AxisView view;
  view.axis = normalize(m, axis, rank);
  view.outer = m.cst(1);
  view.inner = m.cst(1);
  for (int64_t i = 0; i < rank; ++i) {
    view.outer =
        m.mul(view.outer, m.select(m.lt(m.cst(i), view.axis), in[i], m.cst(1)));
    view.inner =
        m.mul(view.inner, m.select(m.lt(view.axis, m.cst(i)), in[i], m.cst(1)));
  }
  view.extent = rank == 0 ? m.cst(1) : pick(m, in, view.axis);
  return view;
}

} // namespace onyx::shape