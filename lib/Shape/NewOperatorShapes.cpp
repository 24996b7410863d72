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

//===----------------------------------------------------------------------===//
// DFT, STFT, MelWeightMatrix
//===----------------------------------------------------------------------===//

FailureOr<DFTShape> dftShape(OpBuilder &b, Location loc, Value input,
                             OpFoldResult axis,
                             std::optional<OpFoldResult> length, bool inverse,
                             bool onesided, Operation *diagOp) {
  IndexMath m(b, loc);
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  if (rank < 2)
    return diagOp->emitError() << "DFT: the input must have rank >= 2 "
                                  "([signal dims..., 1 or 2]), got "
                               << input.getType();
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  DFTShape shape;
  shape.components = in.back();
  if (failed(m.require(m.orOf(m.eq(in.back(), m.cst(1)),
                              m.eq(in.back(), m.cst(2))),
                       "DFT: the input's last dim has extent {0}; it must "
                       "be 1 (real) or 2 (complex)",
                       {in.back()}, diagOp)))
    return failure();
  // Accepted: [-r, -2] and [0, r - 2].
  Cond negative = m.lt(axis, m.cst(0));
  shape.axis = m.select(negative, m.add(axis, m.cst(rank)), axis);
  if (failed(m.require(m.andOf(m.le(m.cst(0), shape.axis),
                               m.le(shape.axis, m.cst(rank - 2))),
                       "DFT: axis {0} is out of range for rank {1} (the "
                       "last dim holds the complex parts)",
                       {axis, m.cst(rank)}, diagOp)))
    return failure();
  // The extent along the (possibly run-time) axis.
  OpFoldResult extent = in[0];
  for (int64_t i = 1; i < rank - 1; ++i)
    extent = m.select(m.eq(shape.axis, m.cst(i)), in[i], extent);
  bool irfft = inverse && onesided;
  shape.length = length ? *length
                 : irfft ? m.mul(m.cst(2), m.sub(extent, m.cst(1)))
                         : extent;
  if (failed(m.require(m.le(m.cst(1), shape.length),
                       "DFT: the transform length {0} must be positive",
                       {shape.length}, diagOp)))
    return failure();
  OpFoldResult half = m.add(m.floorDiv(shape.length, m.cst(2)), m.cst(1));
  shape.terms = m.min(extent, irfft ? half : shape.length);
  OpFoldResult outLength = (onesided && !inverse) ? half : shape.length;
  for (int64_t i = 0; i < rank - 1; ++i)
    shape.dims.push_back(
        m.select(m.eq(shape.axis, m.cst(i)), outLength, in[i]));
  shape.dims.push_back(m.cst(irfft ? 1 : 2));
  return shape;
}

FailureOr<STFTShape> stftShape(OpBuilder &b, Location loc, Value signal,
                               OpFoldResult frameStep, Value window,
                               std::optional<OpFoldResult> frameLength,
                               bool onesided, Operation *diagOp) {
  IndexMath m(b, loc);
  auto type = cast<RankedTensorType>(signal.getType());
  if (type.getRank() != 3)
    return diagOp->emitError() << "STFT: the signal must be [batch, length, "
                                  "1 or 2], got "
                               << signal.getType();
  SmallVector<OpFoldResult> in = getDims(b, loc, signal);
  STFTShape shape;
  shape.components = in[2];
  if (failed(m.require(m.orOf(m.eq(in[2], m.cst(1)), m.eq(in[2], m.cst(2))),
                       "STFT: the signal's last dim has extent {0}; it must "
                       "be 1 (real) or 2 (complex)",
                       {in[2]}, diagOp)))
    return failure();
  OpFoldResult frame = in[1];
  if (window) {
    if (cast<RankedTensorType>(window.getType()).getRank() != 1)
      return diagOp->emitError() << "STFT: the window must be 1-D, got "
                                 << window.getType();
    frame = getDim(b, loc, window, 0);
    if (frameLength &&
        failed(m.require(m.eq(*frameLength, frame),
                         "STFT: frame_length {0} differs from the window's "
                         "extent {1}",
                         {*frameLength, frame}, diagOp)))
      return failure();
  } else if (frameLength) {
    frame = *frameLength;
  }
  shape.frameLength = frame;
  shape.frameStep = frameStep;
  if (failed(m.require(m.le(m.cst(1), frameStep),
                       "STFT: frame_step {0} must be positive", {frameStep},
                       diagOp)) ||
      failed(m.require(m.andOf(m.le(m.cst(1), frame), m.le(frame, in[1])),
                       "STFT: the frame length {0} must be in [1, {1}] (the "
                       "signal length)",
                       {frame, in[1]}, diagOp)))
    return failure();
  OpFoldResult frames =
      m.add(m.floorDiv(m.sub(in[1], frame), frameStep), m.cst(1));
  OpFoldResult bins =
      onesided ? m.add(m.floorDiv(frame, m.cst(2)), m.cst(1)) : frame;
  shape.dims = {in[0], frames, bins, m.cst(2)};
  return shape;
}

FailureOr<SmallVector<OpFoldResult>>
melWeightMatrixShape(OpBuilder &b, Location loc, OpFoldResult numMelBins,
                     OpFoldResult dftLength, Operation *diagOp) {
  IndexMath m(b, loc);
  if (failed(m.require(m.le(m.cst(1), numMelBins),
                       "MelWeightMatrix: num_mel_bins {0} must be positive",
                       {numMelBins}, diagOp)) ||
      failed(m.require(m.le(m.cst(1), dftLength),
                       "MelWeightMatrix: dft_length {0} must be positive",
                       {dftLength}, diagOp)))
    return failure();
  return SmallVector<OpFoldResult>{
      m.add(m.floorDiv(dftLength, m.cst(2)), m.cst(1)), numMelBins};
}

//===----------------------------------------------------------------------===//
// Resize-18: axes, keep_aspect_ratio_policy
//===----------------------------------------------------------------------===//

/// Whether a list is given with entries (a statically empty one is "not
/// given", as resizeShape reads it).
template <typename List> static bool given(const List &list) {
  return !list.isAbsent() && list.staticSize() != 0;
}

LogicalResult expandResizeAxes(OpBuilder &b, Location loc, Value input,
                               ArrayRef<int64_t> axes, FloatList &scales,
                               IntList &sizes, FloatList &roi, bool withRoi,
                               Operation *diagOp) {
  IndexMath m(b, loc);
  F64Math f(b, loc);
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  int64_t n = int64_t(axes.size());
  SmallVector<int64_t> slot(rank, -1); // dim -> position in the lists
  for (auto [k, axis] : llvm::enumerate(axes))
    slot[axis] = int64_t(k);
  if (given(scales) && given(sizes)) {
    OpFoldResult count = scales.size(m);
    if (failed(m.require(m.eq(count, m.cst(0)),
                         "Resize: scales ({0} entries) and sizes are both "
                         "given; only one may be",
                         {count}, diagOp)))
      return failure();
    scales = FloatList::absent();
  }
  // A float list of `entries` values (f64 tensor when any is run-time).
  auto floatList = [&](ArrayRef<F64> entries) {
    if (llvm::all_of(entries, [](const F64 &e) { return e.known.has_value(); }))
      return FloatList::constant(llvm::to_vector(
          llvm::map_range(entries, [](const F64 &e) { return *e.known; })));
    SmallVector<Value> values;
    for (const F64 &e : entries)
      values.push_back(f.value(e));
    Value t = tensor::FromElementsOp::create(
        b, loc, RankedTensorType::get({int64_t(values.size())}, b.getF64Type()),
        values);
    return FloatList::tensor(t);
  };
  auto requireEntries = [&](OpFoldResult count, int64_t expected,
                            StringRef what) {
    return m.require(m.eq(count, m.cst(expected)),
                     "Resize: " + what.str() +
                         " has {0} entries, expected {1} (axes has " +
                         str(n) + ")",
                     {count, m.cst(expected)}, diagOp);
  };
  if (given(scales)) {
    if (failed(requireEntries(scales.size(m), n, "scales")))
      return failure();
    SmallVector<F64> full;
    for (int64_t d = 0; d < rank; ++d)
      full.push_back(slot[d] < 0 ? f.cst(1.0) : scales.get(f, slot[d]));
    scales = floatList(full);
  }
  if (given(sizes)) {
    if (failed(requireEntries(sizes.size(m), n, "sizes")))
      return failure();
    SmallVector<OpFoldResult> full;
    for (int64_t d = 0; d < rank; ++d)
      full.push_back(slot[d] < 0 ? getDim(b, loc, input, d)
                                 : sizes.get(m, slot[d]));
    if (llvm::all_of(full, [](OpFoldResult v) { return getStatic(v); })) {
      sizes = IntList::constant(llvm::to_vector(
          llvm::map_range(full, [](OpFoldResult v) { return *getStatic(v); })));
    } else {
      SmallVector<Value> values;
      for (OpFoldResult v : full)
        values.push_back(arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                                    m.value(v)));
      sizes = IntList::tensor(tensor::FromElementsOp::create(
          b, loc, RankedTensorType::get({rank}, b.getI64Type()), values));
    }
  }
  if (withRoi && given(roi)) {
    if (failed(requireEntries(roi.size(m), 2 * n, "roi")))
      return failure();
    SmallVector<F64> full(2 * rank);
    for (int64_t d = 0; d < rank; ++d) {
      full[d] = slot[d] < 0 ? f.cst(0.0) : roi.get(f, slot[d]);
      full[d + rank] = slot[d] < 0 ? f.cst(1.0) : roi.get(f, slot[d] + n);
    }
    roi = floatList(full);
  }
  return success();
}

LogicalResult applyKeepAspectRatio(OpBuilder &b, Location loc,
                                   ResizeShape &shape, ArrayRef<int64_t> axes,
                                   bool notLarger, Operation *diagOp) {
  IndexMath m(b, loc);
  F64Math f(b, loc);
  if (axes.empty())
    return success();
  F64 scale = shape.axes[axes.front()].scale;
  for (int64_t axis : axes.drop_front()) {
    F64 s = shape.axes[axis].scale;
    Cond pickS = f.cmp(notLarger ? arith::CmpFPredicate::OLT
                                 : arith::CmpFPredicate::OGT,
                       s, scale);
    scale = f.select(pickS, s, scale);
  }
  for (int64_t axis : axes) {
    ResizeDim &dim = shape.axes[axis];
    F64 in = f.fromIndex(dim.input);
    dim.scale = scale;
    dim.length = f.mul(scale, in);
    // round_half_up(scale * input), as the reference: int(x + 0.5).
    Cond bounded = f.cmp(arith::CmpFPredicate::OLT, dim.length, f.cst(0x1p52));
    if (failed(m.require(bounded,
                         "Resize: dim " + str(axis) +
                             ": keep_aspect_ratio_policy gives an extent "
                             "above 2^52 (input extent {0})",
                         {dim.input}, diagOp)))
      return failure();
    dim.output = f.toIndex(f.floor(f.add(dim.length, f.cst(0.5))));
    dim.identity = dim.scale.known == 1.0;
    Cond noOutput = m.eq(dim.output, m.cst(0));
    Cond haveInput = m.lt(m.cst(0), dim.input);
    if (failed(m.require(m.orOf(noOutput, haveInput),
                         "Resize: dim " + str(axis) +
                             ": cannot resize an empty dim to extent {0}",
                         {dim.output}, diagOp)))
      return failure();
    shape.dims[axis] = dim.output;
  }
  return success();
}

} // namespace onyx::shape
