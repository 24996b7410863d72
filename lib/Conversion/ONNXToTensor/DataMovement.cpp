//===- DataMovement.cpp - Data-movement and shape onnx ops ----------------===//
//
// Transpose, Reshape, Flatten, Shape, Size, Squeeze, Unsqueeze, Concat,
// Split, Slice, Expand, Tile, Pad, ConstantOfShape, Range.
//
// Many of these ops take part of their shape from a tensor's contents
// (axes, starts, pads, repeats, a target shape). Those inputs become
// shape::IntLists: constants fold to static dims, anything else is read
// with plain `tensor.extract` (the backend decides later how the host sees
// it), and every result dim comes from lib/Shape/DataMovementShapes.
//
// Results are then matched against the dims the model declares
// (shape::matchDeclared): a dim only known at run time but declared static
// is asserted, so a graph output can never be written past its extent.
//
// The indexing family (Gather*, Scatter*, OneHot, ...) lives in
// DataMovementIndexing.cpp.
//
//===----------------------------------------------------------------------===//

#include "DataMovementCommon.h"

using namespace mlir;

namespace onyx::conversion {

//===----------------------------------------------------------------------===//
// Helpers shared with DataMovementIndexing.cpp
//===----------------------------------------------------------------------===//

FailureOr<shape::IntList> intListOf(Operation *op, Value value,
                                    StringRef what) {
  if (!value || isa<NoneType>(value.getType()))
    return shape::IntList::absent();
  if (auto values = getConstantInts(value))
    return shape::IntList::constant(*values);
  auto type = requireRanked(op, value, what);
  if (failed(type))
    return failure();
  if (type->getRank() > 1)
    return op->emitError() << what << " must be 1-D, got " << value.getType();
  if (!isa<IntegerType>(type->getElementType()))
    return op->emitError() << what << " must hold integers, got "
                           << value.getType();
  // These lists hold one entry per dim (axes, shapes, pads, starts): a
  // static length beyond any real rank would make the lowering unroll that
  // many entries (an Unsqueeze with 2^40 axes never finished compiling).
  constexpr int64_t kMaxListEntries = 1 << 12;
  if (type->getRank() == 1 && !type->isDynamicDim(0) &&
      type->getDimSize(0) > kMaxListEntries)
    return op->emitError() << what << " has " << type->getDimSize(0)
                           << " entries; lists of axes, shapes and pads "
                              "are limited to "
                           << kMaxListEntries;
  return shape::IntList::tensor(value);
}

std::optional<int64_t> declaredRank(Operation *op, unsigned result) {
  if (auto type = dyn_cast<RankedTensorType>(op->getResult(result).getType()))
    return type.getRank();
  return std::nullopt;
}

FailureOr<SmallVector<OpFoldResult>> declaredDims(OpBuilder &b, Location loc,
                                                  Operation *op,
                                                  unsigned result,
                                                  ArrayRef<OpFoldResult> dims) {
  std::string what = op->getNumResults() > 1
                         ? "result " + std::to_string(result)
                         : std::string("the result");
  return shape::matchDeclared(b, loc, dims, op->getResult(result).getType(),
                              what, op);
}

FailureOr<RankedTensorType> requireRankAtLeast(Operation *op, Value value,
                                               int64_t minRank,
                                               StringRef what) {
  auto type = requireRanked(op, value, what);
  if (failed(type))
    return failure();
  if (type->getRank() < minRank)
    return op->emitError() << what << " must have rank >= " << minRank
                           << ", got " << value.getType();
  return type;
}

OpFoldResult scalarIndexOf(OpBuilder &b, Location loc, Value value) {
  if (auto c = getConstantInts(value); c && c->size() == 1)
    return b.getIndexAttr(c->front());
  return shape::readScalarIndex(b, loc, value);
}

Value castToDims(OpBuilder &b, Location loc, Value value,
                 ArrayRef<OpFoldResult> dims) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape = shape::toStaticShape(dims);
  if (type.getShape() == ArrayRef<int64_t>(shape))
    return value;
  return tensor::CastOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value);
}

Value indexGeneric(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> dims,
                   Type elementType, ArrayRef<OperandAccess> inputs,
                   IndexInputsBodyFn body) {
  Value init = emptyTensor(b, loc, dims, elementType);
  int64_t rank = int64_t(dims.size());
  SmallVector<int64_t> loops = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return buildGeneric(b, loc, inputs, init, loops, iterators,
                      [&](OpBuilder &nb, Location nl, ValueRange in, Value) {
                        SmallVector<Value> ivs;
                        for (int64_t i = 0; i < rank; ++i)
                          ivs.push_back(
                              linalg::IndexOp::create(nb, nl, uint64_t(i)));
                        return body(nb, nl, ivs, in);
                      });
}

Value indexGeneric(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> dims,
                   Type elementType, IndexBodyFn body) {
  return indexGeneric(b, loc, dims, elementType, {},
                      [&](OpBuilder &nb, Location nl, ValueRange ivs,
                          ValueRange) { return body(nb, nl, ivs); });
}

OperandAccess projectedAccess(Value tensor, ArrayRef<int64_t> loops) {
  OperandAccess access;
  access.tensor = tensor;
  access.loops.assign(loops.begin(), loops.end());
  access.isOne.assign(loops.size(), Value());
  return access;
}

Value readScalar(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> zeros(type.getRank(),
                           arith::ConstantIndexOp::create(b, loc, 0));
  return tensor::ExtractOp::create(b, loc, tensor, zeros);
}

Value reshapeTo(OpBuilder &b, Location loc, Value input,
                ArrayRef<OpFoldResult> dims) {
  auto inType = cast<RankedTensorType>(input.getType());
  SmallVector<Value> extents;
  for (OpFoldResult d : dims)
    extents.push_back(shape::toValue(b, loc, d));
  auto resultType = RankedTensorType::get(shape::toStaticShape(dims),
                                          inType.getElementType());
  Value shapeTensor = tensor::FromElementsOp::create(
      b, loc,
      RankedTensorType::get({int64_t(extents.size())}, b.getIndexType()),
      extents);
  return tensor::ReshapeOp::create(b, loc, resultType, input, shapeTensor);
}

Value copyInto(OpBuilder &b, Location loc, Value source, Value dest) {
  return linalg::CopyOp::create(b, loc, source, dest).getResult(0);
}

namespace {

//===----------------------------------------------------------------------===//
// Transpose, Reshape, Flatten
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerTranspose(Operation *op, OpBuilder &b) {
  auto transpose = cast<onnx::ONNXTransposeOp>(op);
  Location loc = op->getLoc();
  auto type = requireRanked(op, transpose.getData(), "the input");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  SmallVector<int64_t> perm;
  if (auto attr = transpose.getPermAttr()) {
    for (Attribute a : attr)
      perm.push_back(cast<IntegerAttr>(a).getInt());
    SmallVector<bool> seen(rank, false);
    if (int64_t(perm.size()) != rank)
      return op->emitError() << "perm has " << perm.size()
                             << " entries for a rank-" << rank << " input";
    for (int64_t p : perm) {
      if (p < 0 || p >= rank || seen[p])
        return op->emitError("perm is not a permutation");
      seen[p] = true;
    }
  } else {
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  }
  auto dims = shape::transposeShape(b, loc, transpose.getData(), perm);
  Value init = emptyTensor(b, loc, dims, type->getElementType());
  Value result =
      linalg::TransposeOp::create(b, loc, transpose.getData(), init, perm)
          .getResult()[0];
  return SmallVector<Value>{result};
}

FailureOr<SmallVector<Value>> lowerReshape(Operation *op, OpBuilder &b) {
  auto reshape = cast<onnx::ONNXReshapeOp>(op);
  Location loc = op->getLoc();
  auto type = requireRanked(op, reshape.getData(), "the input");
  if (failed(type))
    return failure();
  auto target = getConstantInts(reshape.getShape());
  if (!target) {
    // The shape is data: its entries are read with tensor.extract.
    auto shapeType = requireRanked(op, reshape.getShape(), "the shape input");
    if (failed(shapeType))
      return failure();
    int64_t rank = ShapedType::kDynamic;
    if (shapeType->getRank() == 1 && !shapeType->isDynamicDim(0))
      rank = shapeType->getDimSize(0);
    else if (auto declared =
                 dyn_cast<RankedTensorType>(op->getResult(0).getType()))
      rank = declared.getRank();
    if (ShapedType::isDynamic(rank))
      return op->emitError("Reshape: the result rank is unknown (the shape "
                           "input has a dynamic length)");
    // As intListOf's bound: the shape's entries are unrolled (a shape input
    // of 2^62 entries never finished compiling).
    if (rank > (1 << 12))
      return op->emitError() << "Reshape: the shape input has " << rank
                             << " entries; shapes are limited to 4096";
    auto dims = shape::reshapeShapeFromTensor(b, loc, reshape.getData(),
                                              reshape.getShape(), rank,
                                              reshape.getAllowzero() != 0, op);
    if (failed(dims))
      return failure();
    return SmallVector<Value>{reshapeTo(b, loc, reshape.getData(), *dims)};
  }
  auto dims = shape::reshapeShape(b, loc, reshape.getData(), *target,
                                  reshape.getAllowzero() != 0, op);
  if (failed(dims))
    return failure();
  return SmallVector<Value>{reshapeTo(b, loc, reshape.getData(), *dims)};
}

FailureOr<SmallVector<Value>> lowerFlatten(Operation *op, OpBuilder &b) {
  auto flatten = cast<onnx::ONNXFlattenOp>(op);
  Location loc = op->getLoc();
  auto type = requireRanked(op, flatten.getInput(), "the input");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  int64_t axis = flatten.getAxis();
  if (axis < -rank || axis > rank)
    return op->emitError() << "axis " << axis << " is out of range for rank "
                           << rank;
  if (axis < 0)
    axis += rank;
  SmallVector<OpFoldResult> dims =
      shape::flattenShape(b, loc, flatten.getInput(), axis);
  return SmallVector<Value>{reshapeTo(b, loc, flatten.getInput(), dims)};
}

//===----------------------------------------------------------------------===//
// Shape, Size
//===----------------------------------------------------------------------===//

/// A 1-D i64 tensor holding `dims`.
Value dimsAsTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> dims) {
  auto type = RankedTensorType::get({int64_t(dims.size())}, b.getI64Type());
  if (dims.empty())
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, ArrayRef<int64_t>{}));
  SmallVector<Value> values;
  for (OpFoldResult d : dims)
    values.push_back(arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                                shape::toValue(b, loc, d)));
  return tensor::FromElementsOp::create(b, loc, type, values);
}

FailureOr<SmallVector<Value>> lowerShape(Operation *op, OpBuilder &b) {
  auto shapeOp = cast<onnx::ONNXShapeOp>(op);
  Location loc = op->getLoc();
  auto type = requireRanked(op, shapeOp.getData(), "the input");
  if (failed(type))
    return failure();
  auto [first, last] = shape::shapeOpRange(type->getRank(), shapeOp.getStart(),
                                           shapeOp.getEnd());
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, shapeOp.getData());
  return SmallVector<Value>{dimsAsTensor(
      b, loc, ArrayRef<OpFoldResult>(dims).slice(first, last - first))};
}

FailureOr<SmallVector<Value>> lowerSize(Operation *op, OpBuilder &b) {
  auto size = cast<onnx::ONNXSizeOp>(op);
  Location loc = op->getLoc();
  if (failed(requireRanked(op, size.getData(), "the input")))
    return failure();
  OpFoldResult count = shape::numElements(b, loc, size.getData());
  Value element = arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                             shape::toValue(b, loc, count));
  Value result = tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, b.getI64Type()), element);
  return SmallVector<Value>{result};
}

//===----------------------------------------------------------------------===//
// Unsqueeze, Squeeze
//===----------------------------------------------------------------------===//

/// Groups `rank` dims (the larger side of an expand/collapse) so that each
/// unit dim in `unitAxes` joins a neighbouring kept dim.
SmallVector<ReassociationIndices>
unitReassociation(int64_t rank, ArrayRef<int64_t> unitAxes) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending; // unit dims before the first kept dim
  for (int64_t i = 0; i < rank; ++i) {
    bool isUnit = llvm::is_contained(unitAxes, i);
    if (!isUnit) {
      pending.push_back(i);
      groups.push_back(pending);
      pending.clear();
    } else if (groups.empty()) {
      pending.push_back(i);
    } else {
      groups.back().push_back(i);
    }
  }
  // Only unit dims: a rank-0 side, which takes no groups at all.
  return groups;
}

FailureOr<SmallVector<Value>> lowerUnsqueeze(Operation *op, OpBuilder &b) {
  auto unsqueeze = cast<onnx::ONNXUnsqueezeOp>(op);
  Location loc = op->getLoc();
  Value data = unsqueeze.getData();
  auto type = requireRanked(op, data, "the input");
  if (failed(type))
    return failure();
  auto axes = intListOf(op, unsqueeze.getAxes(), "Unsqueeze: axes");
  if (failed(axes))
    return failure();
  std::optional<int64_t> outRank = declaredRank(op, 0);
  if (auto n = axes->staticSize())
    outRank = type->getRank() + *n;
  if (!outRank)
    return op->emitError("Unsqueeze: the number of axes is only known at run "
                         "time and the result rank is not declared");
  std::optional<SmallVector<int64_t>> unitAxes;
  auto dims =
      shape::unsqueezeShape(b, loc, data, *axes, *outRank, &unitAxes, op);
  if (failed(dims))
    return failure();
  auto refined = declaredDims(b, loc, op, 0, *dims);
  if (failed(refined))
    return failure();
  // View ops are typed from the computed dims (which the input's type
  // always agrees with); the declared extents come in through a cast.
  if (!unitAxes || type->getRank() == 0)
    return SmallVector<Value>{
        castToDims(b, loc, reshapeTo(b, loc, data, *dims), *refined)};
  // Known axes: a view op that later passes can fold through.
  auto expandedType = RankedTensorType::get(shape::toStaticShape(*dims),
                                            type->getElementType());
  Value expanded = tensor::ExpandShapeOp::create(
      b, loc, expandedType, data, unitReassociation(*outRank, *unitAxes),
      *dims);
  return SmallVector<Value>{castToDims(b, loc, expanded, *refined)};
}

FailureOr<SmallVector<Value>> lowerSqueeze(Operation *op, OpBuilder &b) {
  auto squeeze = cast<onnx::ONNXSqueezeOp>(op);
  Location loc = op->getLoc();
  Value data = squeeze.getData();
  auto type = requireRanked(op, data, "the input");
  if (failed(type))
    return failure();
  auto axes = intListOf(op, squeeze.getAxes(), "Squeeze: axes");
  if (failed(axes))
    return failure();
  std::optional<SmallVector<int64_t>> unitAxes;
  auto dims = shape::squeezeShape(b, loc, data, *axes, declaredRank(op, 0),
                                  &unitAxes, op);
  if (failed(dims))
    return failure();
  auto refined = declaredDims(b, loc, op, 0, *dims);
  if (failed(refined))
    return failure();
  if (!unitAxes || refined->empty())
    return SmallVector<Value>{
        castToDims(b, loc, reshapeTo(b, loc, data, *dims), *refined)};
  Value collapsed = tensor::CollapseShapeOp::create(
      b, loc, data, unitReassociation(type->getRank(), *unitAxes));
  return SmallVector<Value>{castToDims(b, loc, collapsed, *refined)};
}

//===----------------------------------------------------------------------===//
// Concat, Split, Slice
//===----------------------------------------------------------------------===//

/// True when some extent is statically 0. Slices of such tensors are
/// empty, and the slice verifier rejects their static offsets (0 >= 0).
bool hasStaticZero(ArrayRef<OpFoldResult> dims) {
  return llvm::any_of(dims,
                      [](OpFoldResult d) { return shape::getStatic(d) == 0; });
}

FailureOr<SmallVector<Value>> lowerConcat(Operation *op, OpBuilder &b) {
  auto concat = cast<onnx::ONNXConcatOp>(op);
  Location loc = op->getLoc();
  SmallVector<Value> inputs(concat.getInputs());
  if (inputs.empty())
    return op->emitError("Concat: no inputs");
  Type elementType;
  for (Value v : inputs) {
    auto type = requireRankAtLeast(op, v, 1, "Concat: an input");
    if (failed(type))
      return failure();
    if (elementType && type->getElementType() != elementType)
      return op->emitError("Concat: inputs have different element types");
    elementType = type->getElementType();
  }
  int64_t rank = cast<RankedTensorType>(inputs[0].getType()).getRank();
  auto axis = normalizeAxis(op, concat.getAxis(), rank);
  if (failed(axis))
    return failure();
  auto shape = shape::concatShape(b, loc, inputs, *axis, op);
  if (failed(shape))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, shape->dims);
  if (failed(dims))
    return failure();
  // Each input is copied into its slot of the destination; the
  // extract/copy/insert triple bufferizes to a copy into a subview.
  Value result = emptyTensor(b, loc, *dims, elementType);
  if (hasStaticZero(*dims))
    return SmallVector<Value>{result};
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  for (auto [input, offset] : llvm::zip(inputs, shape->offsets)) {
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
    offsets[*axis] = offset;
    SmallVector<OpFoldResult> sizes(*dims);
    sizes[*axis] = shape::getDim(b, loc, input, *axis);
    if (hasStaticZero(sizes))
      continue; // nothing to copy
    Value slot =
        tensor::ExtractSliceOp::create(b, loc, result, offsets, sizes, strides);
    Value copied = copyInto(b, loc, castToDims(b, loc, input, sizes), slot);
    result = tensor::InsertSliceOp::create(b, loc, copied, result, offsets,
                                           sizes, strides);
  }
  return SmallVector<Value>{result};
}

/// The window `w` of `input` as a fresh tensor of extents `dims` (the
/// window's sizes as matched to the declared type).
Value extractWindow(OpBuilder &b, Location loc, Value input,
                    const shape::Window &w, ArrayRef<OpFoldResult> dims) {
  Type elementType = cast<RankedTensorType>(input.getType()).getElementType();
  Value result = emptyTensor(b, loc, dims, elementType);
  if (hasStaticZero(dims) || hasStaticZero(shape::getDims(b, loc, input)))
    return result;
  Value view = tensor::ExtractSliceOp::create(b, loc, input, w.offsets, w.sizes,
                                              w.strides);
  // A fresh buffer, not a strided view: returning a view would need a
  // strided memref.copy, which the CPU runtime does not provide.
  return copyInto(b, loc, view, result);
}

FailureOr<SmallVector<Value>> lowerSplit(Operation *op, OpBuilder &b) {
  auto split = cast<onnx::ONNXSplitOp>(op);
  Location loc = op->getLoc();
  Value input = split.getInput();
  auto type = requireRankAtLeast(op, input, 1, "Split: the input");
  if (failed(type))
    return failure();
  auto axis = normalizeAxis(op, split.getAxis(), type->getRank());
  if (failed(axis))
    return failure();
  auto sizes = intListOf(op, split.getSplit(), "Split: split");
  if (failed(sizes))
    return failure();
  // Split-18: num_outputs parts of ceil(extent / num_outputs).
  auto numOutputs = split.getNumOutputs();
  if (numOutputs && !sizes->isAbsent())
    return op->emitError("Split: both 'split' and 'num_outputs' are given");
  if (numOutputs && int64_t(*numOutputs) != int64_t(op->getNumResults()))
    return op->emitError() << "Split: num_outputs is " << *numOutputs
                           << " but the node has " << op->getNumResults()
                           << " outputs";
  auto windows = shape::splitShape(b, loc, input, *axis, *sizes,
                                   int64_t(op->getNumResults()), op,
                                   numOutputs.has_value());
  if (failed(windows))
    return failure();
  SmallVector<Value> results;
  for (auto [i, window] : llvm::enumerate(*windows)) {
    if (isa<NoneType>(op->getResult(i).getType())) {
      results.push_back(Value());
      continue;
    }
    auto dims = declaredDims(b, loc, op, unsigned(i), window.sizes);
    if (failed(dims))
      return failure();
    results.push_back(extractWindow(b, loc, input, window, *dims));
  }
  return results;
}

FailureOr<SmallVector<Value>> lowerSlice(Operation *op, OpBuilder &b) {
  auto slice = cast<onnx::ONNXSliceOp>(op);
  Location loc = op->getLoc();
  Value data = slice.getData();
  auto type = requireRanked(op, data, "the input");
  if (failed(type))
    return failure();
  auto starts = intListOf(op, slice.getStarts(), "Slice: starts");
  auto ends = intListOf(op, slice.getEnds(), "Slice: ends");
  auto axes = intListOf(op, slice.getAxes(), "Slice: axes");
  auto steps = intListOf(op, slice.getSteps(), "Slice: steps");
  if (failed(starts) || failed(ends) || failed(axes) || failed(steps))
    return failure();
  auto window =
      shape::sliceShape(b, loc, data, *starts, *ends, *axes, *steps, op);
  if (failed(window))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, window->sizes);
  if (failed(dims))
    return failure();
  bool forward = llvm::all_of(window->strides, [](OpFoldResult s) {
    auto v = shape::getStatic(s);
    return v && *v > 0;
  });
  if (forward)
    return SmallVector<Value>{extractWindow(b, loc, data, *window, *dims)};
  // A step whose sign is only known at run time, or a negative one: read
  // element offset + i * step.
  Value result = indexGeneric(
      b, loc, *dims, type->getElementType(),
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        shape::IndexMath m(nb, nl);
        SmallVector<Value> indices;
        for (auto [iv, offset, stride] :
             llvm::zip(ivs, window->offsets, window->strides))
          indices.push_back(m.value(m.add(offset, m.mul(iv, stride))));
        return tensor::ExtractOp::create(nb, nl, data, indices).getResult();
      });
  return SmallVector<Value>{result};
}

//===----------------------------------------------------------------------===//
// Expand, Tile, Pad
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerExpand(Operation *op, OpBuilder &b) {
  auto expand = cast<onnx::ONNXExpandOp>(op);
  Location loc = op->getLoc();
  Value input = expand.getInput();
  auto type = requireRanked(op, input, "the input");
  if (failed(type))
    return failure();
  auto target = intListOf(op, expand.getShape(), "Expand: shape");
  if (failed(target))
    return failure();
  std::optional<int64_t> outRank = declaredRank(op, 0);
  if (auto n = target->staticSize())
    outRank = std::max(type->getRank(), *n);
  if (!outRank)
    return op->emitError("Expand: the shape's length is only known at run "
                         "time and the result rank is not declared");
  auto bc = shape::expandShape(b, loc, input, *target, *outRank, op);
  if (failed(bc))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, bc->dims);
  if (failed(dims))
    return failure();
  Value init = emptyTensor(b, loc, *dims, type->getElementType());
  SmallVector<int64_t> loops = llvm::to_vector(llvm::seq<int64_t>(0, *outRank));
  SmallVector<utils::IteratorType> iterators(*outRank,
                                             utils::IteratorType::parallel);
  Value result = buildGeneric(
      b, loc, {broadcastAccess(input, bc->operands[0], *outRank)}, init, loops,
      iterators,
      [](OpBuilder &, Location, ValueRange in, Value) { return in[0]; });
  return SmallVector<Value>{result};
}

FailureOr<SmallVector<Value>> lowerTile(Operation *op, OpBuilder &b) {
  auto tile = cast<onnx::ONNXTileOp>(op);
  Location loc = op->getLoc();
  Value input = tile.getInput();
  auto type = requireRanked(op, input, "the input");
  if (failed(type))
    return failure();
  auto repeats = intListOf(op, tile.getRepeats(), "Tile: repeats");
  if (failed(repeats))
    return failure();
  auto tiled = shape::tileShape(b, loc, input, *repeats, op);
  if (failed(tiled))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, *tiled);
  if (failed(dims))
    return failure();
  SmallVector<OpFoldResult> in = shape::getDims(b, loc, input);
  Value result = indexGeneric(
      b, loc, *dims, type->getElementType(),
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        shape::IndexMath m(nb, nl);
        SmallVector<Value> indices;
        for (auto [iv, extent] : llvm::zip(ivs, in))
          indices.push_back(m.value(m.floorMod(iv, extent)));
        return tensor::ExtractOp::create(nb, nl, input, indices).getResult();
      });
  return SmallVector<Value>{result};
}

/// The input index that Pad's edge or reflect mode reads for output index
/// `i` of a dim of extent `n` padded by `low` in front (n >= 1).
Value padSourceIndex(shape::IndexMath &m, StringRef mode, OpFoldResult i,
                     OpFoldResult low, OpFoldResult n) {
  OpFoldResult src = m.sub(i, low);
  if (mode == "edge")
    return m.value(m.clamp(src, m.cst(0), m.sub(n, m.cst(1))));
  // wrap (Pad-19): the input repeats periodically.
  if (mode == "wrap")
    return m.value(m.floorMod(src, n));
  // reflect: the index sequence is periodic with period 2(n - 1),
  // mirrored within the period; a single element always reads index 0.
  OpFoldResult period = m.max(m.mul(m.cst(2), m.sub(n, m.cst(1))), m.cst(1));
  OpFoldResult r = m.floorMod(src, period);
  OpFoldResult mirrored = m.select(m.lt(r, n), r, m.sub(period, r));
  return m.value(m.select(m.eq(n, m.cst(1)), m.cst(0), mirrored));
}

FailureOr<SmallVector<Value>> lowerPad(Operation *op, OpBuilder &b) {
  auto pad = cast<onnx::ONNXPadOp>(op);
  Location loc = op->getLoc();
  Value data = pad.getData();
  auto type = requireRanked(op, data, "the input");
  if (failed(type))
    return failure();
  Type elementType = type->getElementType();
  StringRef mode = pad.getMode();
  if (mode != "constant" && mode != "edge" && mode != "reflect" &&
      mode != "wrap")
    return op->emitError() << "Pad: mode '" << mode << "' is not supported";
  auto pads = intListOf(op, pad.getPads(), "Pad: pads");
  if (failed(pads))
    return failure();
  // Pad-18's axes: the pads name only these axes; spread them over all.
  auto axes = intListOf(op, pad.getAxes(), "Pad: axes");
  if (failed(axes))
    return failure();
  if (!axes->isAbsent()) {
    if (!axes->isConstant() || !pads->isConstant())
      return op->emitError("Pad: with 'axes', the pads and axes must be "
                           "compile-time constants");
    int64_t rank = type->getRank();
    ArrayRef<int64_t> a = axes->constantValues(), p = pads->constantValues();
    if (p.size() != 2 * a.size())
      return op->emitError() << "Pad: " << p.size() << " pads for " << a.size()
                             << " axes (expected twice as many)";
    SmallVector<int64_t> full(2 * rank, 0);
    for (auto [k, axis] : llvm::enumerate(a)) {
      auto norm = normalizeAxis(op, axis, rank);
      if (failed(norm))
        return failure();
      full[*norm] = p[k];
      full[*norm + rank] = p[k + a.size()];
    }
    *pads = shape::IntList::constant(full);
  }
  auto padded = shape::padShape(b, loc, data, *pads, op);
  if (failed(padded))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, padded->dims);
  if (failed(dims))
    return failure();
  SmallVector<OpFoldResult> in = shape::getDims(b, loc, data);
  shape::IndexMath m(b, loc);

  if (mode != "constant") {
    // Edge and reflect read the input for every output element.
    for (auto [i, n, out] : llvm::enumerate(in, *dims))
      if (failed(m.require(m.orOf(m.lt(m.cst(0), n), m.eq(out, m.cst(0))),
                           (mode + " padding of dim " + std::to_string(i) +
                            " needs a non-empty input, extent {0}")
                               .str(),
                           {n}, op)))
        return failure();
    Value result = indexGeneric(
        b, loc, *dims, elementType,
        [&](OpBuilder &nb, Location nl, ValueRange ivs) {
          shape::IndexMath bm(nb, nl);
          SmallVector<Value> indices;
          for (auto [iv, low, n] : llvm::zip(ivs, padded->low, in))
            indices.push_back(padSourceIndex(bm, mode, iv, low, n));
          return tensor::ExtractOp::create(nb, nl, data, indices).getResult();
        });
    return SmallVector<Value>{result};
  }

  Value fill;
  Value constant = pad.getConstantValue();
  if (constant && !isa<NoneType>(constant.getType()))
    fill = readScalar(b, loc, constant);
  else
    fill = scalarConstant(b, loc, elementType, 0.0);
  Value result = indexGeneric(
      b, loc, *dims, elementType,
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        shape::IndexMath bm(nb, nl);
        SmallVector<Value> indices;
        shape::Cond inside = shape::Cond::of(true);
        for (auto [iv, low, n] : llvm::zip(ivs, padded->low, in)) {
          OpFoldResult src = bm.sub(iv, low);
          inside =
              bm.andOf(inside, bm.andOf(bm.le(bm.cst(0), src), bm.lt(src, n)));
          indices.push_back(bm.value(src));
        }
        // Only in-bounds elements are read: no clamped read of a possibly
        // empty input.
        auto branch = scf::IfOp::create(
            nb, nl, bm.value(inside),
            [&](OpBuilder &tb, Location tl) {
              scf::YieldOp::create(
                  tb, tl,
                  tensor::ExtractOp::create(tb, tl, data, indices).getResult());
            },
            [&](OpBuilder &eb, Location el) {
              scf::YieldOp::create(eb, el, fill);
            });
        return branch.getResult(0);
      });
  return SmallVector<Value>{result};
}

//===----------------------------------------------------------------------===//
// ConstantOfShape, Range
//===----------------------------------------------------------------------===//

/// The element of a one-element constant (dense or dense_resource, as the
/// importer keeps tensor attributes).
std::optional<TypedAttr> onlyElement(ElementsAttr attr) {
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    return cast<TypedAttr>(*dense.getValues<Attribute>().begin());
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  if (!resource)
    return std::nullopt;
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  Type type = attr.getElementType();
  if (!blob || !type.isIntOrFloat())
    return std::nullopt;
  unsigned width = type.getIntOrFloatBitWidth();
  size_t bytes = std::max(1u, width / 8);
  ArrayRef<char> data = blob->getData();
  if (width > 64 || data.size() < bytes)
    return std::nullopt;
  uint64_t bits = 0;
  memcpy(&bits, data.data(), bytes); // little-endian, like ONNX raw data
  APInt value(width, width == 1 ? (bits & 1) : bits);
  if (auto floatType = dyn_cast<FloatType>(type))
    return FloatAttr::get(type, APFloat(floatType.getFloatSemantics(), value));
  return IntegerAttr::get(type, value);
}

FailureOr<SmallVector<Value>> lowerConstantOfShape(Operation *op,
                                                   OpBuilder &b) {
  auto cos = cast<onnx::ONNXConstantOfShapeOp>(op);
  Location loc = op->getLoc();
  auto list = intListOf(op, cos.getInput(), "ConstantOfShape: the shape");
  if (failed(list))
    return failure();
  std::optional<int64_t> rank = list->staticSize();
  if (!rank)
    rank = declaredRank(op, 0);
  if (!rank)
    return op->emitError("ConstantOfShape: the shape's length is only known "
                         "at run time and the result rank is not declared");
  TypedAttr value = b.getF32FloatAttr(0.0f);
  if (auto attr = cos.getValueAttr()) {
    std::optional<TypedAttr> first;
    if (cast<ShapedType>(attr.getType()).getNumElements() == 1)
      first = onlyElement(attr);
    if (!first)
      return op->emitError("ConstantOfShape: value must be a one-element "
                           "numeric tensor");
    value = *first;
  }
  if (failed(requireSupportedElement(op, value.getType())))
    return failure();
  auto shape = shape::shapeFromList(b, loc, *list, *rank, op);
  if (failed(shape))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, *shape);
  if (failed(dims))
    return failure();
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return SmallVector<Value>{filledTensor(b, loc, *dims, scalar)};
}

FailureOr<SmallVector<Value>> lowerRange(Operation *op, OpBuilder &b) {
  auto range = cast<onnx::ONNXRangeOp>(op);
  Location loc = op->getLoc();
  for (Value v : op->getOperands()) {
    auto type = requireRanked(op, v, "an input");
    if (failed(type))
      return failure();
    if (type->getNumElements() != 1)
      return op->emitError("Range: start, limit and delta must be scalars");
  }
  Type elementType =
      cast<RankedTensorType>(range.getStart().getType()).getElementType();
  if (failed(requireSupportedElement(op, elementType)))
    return failure();
  auto length = shape::rangeLength(b, loc, range.getStart(), range.getLimit(),
                                   range.getDelta(), op);
  if (failed(length))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, {*length});
  if (failed(dims))
    return failure();
  Value start = readScalar(b, loc, range.getStart());
  Value delta = readScalar(b, loc, range.getDelta());
  Value result = indexGeneric(
      b, loc, *dims, elementType,
      [&](OpBuilder &nb, Location nl, ValueRange ivs) -> Value {
        Value i = arith::IndexCastOp::create(nb, nl, nb.getI64Type(), ivs[0]);
        if (isa<FloatType>(elementType)) {
          Value fi = arith::SIToFPOp::create(nb, nl, elementType, i);
          return arith::AddFOp::create(
              nb, nl, start, arith::MulFOp::create(nb, nl, fi, delta));
        }
        Value ii =
            elementType.isInteger(64)
                ? i
                : arith::TruncIOp::create(nb, nl, elementType, i).getResult();
        return arith::AddIOp::create(nb, nl, start,
                                     arith::MulIOp::create(nb, nl, ii, delta));
      });
  return SmallVector<Value>{result};
}

} // namespace

void addDataMovementLowerings(LoweringTable &t) {
  t["onnx.Transpose"] = lowerTranspose;
  t["onnx.Reshape"] = lowerReshape;
  t["onnx.Flatten"] = lowerFlatten;
  t["onnx.Shape"] = lowerShape;
  t["onnx.Size"] = lowerSize;
  t["onnx.Unsqueeze"] = lowerUnsqueeze;
  t["onnx.Squeeze"] = lowerSqueeze;
  t["onnx.Concat"] = lowerConcat;
  t["onnx.Split"] = lowerSplit;
  t["onnx.Slice"] = lowerSlice;
  t["onnx.Expand"] = lowerExpand;
  t["onnx.Tile"] = lowerTile;
  t["onnx.Pad"] = lowerPad;
  t["onnx.ConstantOfShape"] = lowerConstantOfShape;
  t["onnx.Range"] = lowerRange;
  addDataMovementIndexingLowerings(t);
}

} // namespace onyx::conversion
