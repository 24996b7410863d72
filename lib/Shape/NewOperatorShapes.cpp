//===- NewOperatorShapes.cpp - Result shapes of the newer operators -------===//
//
// CenterCropPad, Col2Im, AffineGrid, GroupNormalization, TensorScatter
// (include/onyx/Shape/NewOperatorShapes.h). Formulas on IndexMath, which
// folds static operands, so constant inputs give static dims and run-time
// ones SSA dims from the same code.
//
//===----------------------------------------------------------------------===//

#include "onyx/Shape/NewOperatorShapes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace onyx::shape {

static std::string str(int64_t v) { return std::to_string(v); }

FailureOr<CenterCropPadShape>
centerCropPadShape(OpBuilder &b, Location loc, Value input,
                   const IntList &shape, ArrayRef<int64_t> axes,
                   Operation *diagOp) {
  IndexMath m(b, loc);
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  if (failed(shape.requireSize(m, int64_t(axes.size()), "CenterCropPad: shape",
                               diagOp)))
    return failure();
  CenterCropPadShape result;
  result.dims = in;
  result.offsets.assign(in.size(), m.cst(0));
  for (auto [k, axis] : llvm::enumerate(axes)) {
    OpFoldResult target = shape.get(m, int64_t(k));
    if (failed(m.require(m.le(m.cst(0), target),
                         "CenterCropPad: negative extent {0} for axis " +
                             str(axis),
                         {target}, diagOp)))
      return failure();
    OpFoldResult dim = in[axis];
    // Crop: start floor((in - out) / 2) into the input; pad: the output's
    // first floor((out - in) / 2) elements are padding.
    OpFoldResult crop = m.floorDiv(m.sub(dim, target), m.cst(2));
    OpFoldResult pad = m.floorDiv(m.sub(target, dim), m.cst(2));
    result.offsets[axis] =
        m.select(m.le(target, dim), crop, m.sub(m.cst(0), pad));
    result.dims[axis] = target;
  }
  return result;
}

FailureOr<Col2ImShape> col2ImShape(OpBuilder &b, Location loc, Value input,
                                   const IntList &imageShape,
                                   const IntList &blockShape,
                                   int64_t spatialRank,
                                   ArrayRef<int64_t> dilations,
                                   ArrayRef<int64_t> pads,
                                   ArrayRef<int64_t> strides,
                                   Operation *diagOp) {
  IndexMath m(b, loc);
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getRank() != 3)
    return diagOp->emitError() << "Col2Im: the input must be 3-D [N, C * "
                                  "prod(block_shape), L], got "
                               << input.getType();
  if (failed(imageShape.requireSize(m, spatialRank, "Col2Im: image_shape",
                                    diagOp)) ||
      failed(blockShape.requireSize(m, spatialRank, "Col2Im: block_shape",
                                    diagOp)))
    return failure();
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  Col2ImShape shape;
  shape.kernelSize = m.cst(1);
  OpFoldResult positions = m.cst(1);
  for (int64_t d = 0; d < spatialRank; ++d) {
    OpFoldResult image = imageShape.get(m, d);
    OpFoldResult block = blockShape.get(m, d);
    if (failed(m.require(m.le(m.cst(0), image),
                         "Col2Im: image_shape[" + str(d) + "] = {0} is negative",
                         {image}, diagOp)) ||
        failed(m.require(m.le(m.cst(1), block),
                         "Col2Im: block_shape[" + str(d) +
                             "] = {0} is not positive",
                         {block}, diagOp)))
      return failure();
    // (image + pads - dilation * (block - 1) - 1) / stride + 1, with the
    // numerator checked non-negative first (at least one position).
    OpFoldResult span = m.add(m.mul(m.cst(dilations[d]), m.sub(block, m.cst(1))),
                              m.cst(1));
    OpFoldResult room =
        m.sub(m.add(image, m.cst(pads[d] + pads[d + spatialRank])), span);
    if (failed(m.require(m.le(m.cst(0), room),
                         "Col2Im: a block of extent {0} (dilated) does not "
                         "fit in image dim " +
                             str(d) + " of extent {1} plus padding",
                         {span, image}, diagOp)))
      return failure();
    OpFoldResult blocks =
        m.add(m.floorDiv(room, m.cst(strides[d])), m.cst(1));
    shape.image.push_back(image);
    shape.block.push_back(block);
    shape.blocks.push_back(blocks);
    shape.kernelSize = m.mul(shape.kernelSize, block);
    positions = m.mul(positions, blocks);
  }
  OpFoldResult channels = m.floorDiv(in[1], shape.kernelSize);
  if (failed(m.require(m.eq(m.mul(channels, shape.kernelSize), in[1]),
                       "Col2Im: input dim 1 of extent {0} is not a multiple "
                       "of prod(block_shape) = {1}",
                       {in[1], shape.kernelSize}, diagOp)) ||
      failed(m.require(m.eq(positions, in[2]),
                       "Col2Im: input dim 2 of extent {0} is not the number "
                       "of block positions {1}",
                       {in[2], positions}, diagOp)))
    return failure();
  shape.dims = {in[0], channels};
  shape.dims.append(shape.image.begin(), shape.image.end());
  return shape;
}

FailureOr<SmallVector<OpFoldResult>>
affineGridShape(OpBuilder &b, Location loc, Value theta, const IntList &size,
                int64_t spatialRank, Operation *diagOp) {
  IndexMath m(b, loc);
  auto type = cast<RankedTensorType>(theta.getType());
  if (type.getRank() != 3)
    return diagOp->emitError() << "AffineGrid: theta must be 3-D, got "
                               << theta.getType();
  SmallVector<OpFoldResult> t = getDims(b, loc, theta);
  if (failed(checkEqual(b, loc, t[1], m.cst(spatialRank),
                        "AffineGrid: theta dim 1 / the spatial rank", diagOp)) ||
      failed(checkEqual(b, loc, t[2], m.cst(spatialRank + 1),
                        "AffineGrid: theta dim 2 / the spatial rank + 1",
                        diagOp)) ||
      failed(size.requireSize(m, spatialRank + 2, "AffineGrid: size", diagOp)))
    return failure();
  OpFoldResult n = size.get(m, 0);
  if (failed(m.require(m.eq(n, t[0]),
                       "AffineGrid: size[0] = {0} differs from theta's batch "
                       "extent {1}",
                       {n, t[0]}, diagOp)))
    return failure();
  SmallVector<OpFoldResult> dims = {t[0]};
  for (int64_t d = 0; d < spatialRank; ++d) {
    OpFoldResult s = size.get(m, d + 2);
    if (failed(m.require(m.le(m.cst(0), s),
                         "AffineGrid: size[" + str(d + 2) +
                             "] = {0} is negative",
                         {s}, diagOp)))
      return failure();
    dims.push_back(s);
  }
  dims.push_back(m.cst(spatialRank));
  return dims;
}

FailureOr<SmallVector<OpFoldResult>> groupNormView(OpBuilder &b, Location loc,
                                                   Value input,
                                                   int64_t numGroups,
                                                   Operation *diagOp) {
  IndexMath m(b, loc);
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getRank() < 2)
    return diagOp->emitError() << "GroupNormalization: X must have rank >= 2 "
                                  "(N, C, ...), got "
                               << input.getType();
  if (numGroups < 1)
    return diagOp->emitError() << "GroupNormalization: num_groups must be "
                                  "positive, got "
                               << numGroups;
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  OpFoldResult groupSize = m.floorDiv(in[1], m.cst(numGroups));
  if (failed(m.require(m.eq(m.mul(groupSize, m.cst(numGroups)), in[1]),
                       "GroupNormalization: {0} channels do not divide into "
                       "{1} groups",
                       {in[1], m.cst(numGroups)}, diagOp)))
    return failure();
  OpFoldResult spatial = m.cst(1);
  for (size_t i = 2; i < in.size(); ++i)
    spatial = m.mul(spatial, in[i]);
  return SmallVector<OpFoldResult>{in[0], m.cst(numGroups), groupSize,
                                   spatial};
}

FailureOr<SmallVector<OpFoldResult>>
tensorScatterShape(OpBuilder &b, Location loc, Value cache, Value update,
                   Value writeIndices, int64_t axis, Operation *diagOp) {
  IndexMath m(b, loc);
  auto cacheType = cast<RankedTensorType>(cache.getType());
  auto updateType = cast<RankedTensorType>(update.getType());
  int64_t rank = cacheType.getRank();
  if (updateType.getRank() != rank)
    return diagOp->emitError() << "TensorScatter: update " << update.getType()
                               << " and past_cache " << cache.getType()
                               << " differ in rank";
  SmallVector<OpFoldResult> c = getDims(b, loc, cache);
  SmallVector<OpFoldResult> u = getDims(b, loc, update);
  for (int64_t i = 0; i < rank; ++i) {
    if (i == axis) {
      if (failed(m.require(m.le(u[i], c[i]),
                           "TensorScatter: the update's sequence extent {0} "
                           "exceeds the cache's {1}",
                           {u[i], c[i]}, diagOp)))
        return failure();
      continue;
    }
    if (failed(checkEqual(b, loc, u[i], c[i],
                          "TensorScatter: update / past_cache dim " + str(i),
                          diagOp)))
      return failure();
  }
  if (writeIndices) {
    auto type = cast<RankedTensorType>(writeIndices.getType());
    if (type.getRank() != 1)
      return diagOp->emitError() << "TensorScatter: write_indices must be "
                                    "1-D (batch_size), got "
                                 << writeIndices.getType();
    if (failed(checkEqual(b, loc, getDim(b, loc, writeIndices, 0), c[0],
                          "TensorScatter: write_indices / batch extent",
                          diagOp)))
      return failure();
  }
  return c;
}

} // namespace onyx::shape
