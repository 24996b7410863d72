//===- DataDependentShapes.cpp - Shapes that depend on tensor data --------===//
//
// See include/onyx/Shape/DataDependentShapes.h and docs/data-dependent.md.
//
//===----------------------------------------------------------------------===//

#include "onyx/Shape/DataDependentShapes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace onyx::shape {

namespace {

OpFoldResult productOf(IndexMath &m, ArrayRef<OpFoldResult> dims) {
  OpFoldResult result = m.cst(1);
  for (OpFoldResult d : dims)
    result = m.mul(result, d);
  return result;
}

} // namespace

Value extentFromTensor(OpBuilder &b, Location loc, Value count) {
  return readScalarIndex(b, loc, count);
}

SmallVector<OpFoldResult> nonZeroCapacity(OpBuilder &b, Location loc,
                                          Value input) {
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  return {b.getIndexAttr(rank), numElements(b, loc, input)};
}

SmallVector<OpFoldResult> nonZeroShape(OpBuilder &b, Location loc, Value input,
                                       Value countTensor) {
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  return {b.getIndexAttr(rank), extentFromTensor(b, loc, countTensor)};
}

FailureOr<TopKShape> topKShape(OpBuilder &b, Location loc, Value input,
                               int64_t axis, const IntList &k,
                               Operation *diagOp) {
  IndexMath m(b, loc);
  TopKShape shape;
  shape.dims = getDims(b, loc, input);
  shape.extent = shape.dims[axis];
  if (failed(k.requireSize(m, 1, "TopK: K", diagOp)))
    return failure();
  shape.k = k.get(m, 0);
  if (failed(m.require(m.le(m.cst(0), shape.k), "TopK: k = {0} is negative",
                       {shape.k}, diagOp)) ||
      failed(m.require(m.le(shape.k, shape.extent),
                       "TopK: k = {0} exceeds the axis extent {1}",
                       {shape.k, shape.extent}, diagOp)))
    return failure();
  shape.dims[axis] = shape.k;
  return shape;
}

FailureOr<EntryView> entryView(OpBuilder &b, Location loc, Value input,
                               std::optional<int64_t> axis, Operation *diagOp) {
  IndexMath m(b, loc);
  EntryView view;
  view.axis = axis;
  view.dims = getDims(b, loc, input);
  int64_t rank = int64_t(view.dims.size());
  if (!axis) {
    view.entries = productOf(m, view.dims);
    view.entrySize = m.cst(1);
    return view;
  }
  if (*axis < 0 || *axis >= rank)
    return diagOp->emitError()
           << "axis " << *axis << " is out of range for rank " << rank;
  view.entries = view.dims[*axis];
  view.entrySize = productOf(m, dropDim(view.dims, *axis));
  return view;
}

SmallVector<OpFoldResult> selectedEntriesShape(const EntryView &view,
                                               OpFoldResult count) {
  if (!view.axis)
    return {count};
  SmallVector<OpFoldResult> dims = view.dims;
  dims[*view.axis] = count;
  return dims;
}

OpFoldResult compressLength(OpBuilder &b, Location loc, const EntryView &view,
                            Value condition) {
  IndexMath m(b, loc);
  auto type = cast<RankedTensorType>(condition.getType());
  OpFoldResult length =
      type.getRank() == 0 ? m.cst(1) : getDim(b, loc, condition, 0);
  return m.min(length, view.entries);
}

FailureOr<NMSShape> nmsShape(OpBuilder &b, Location loc, Value boxes,
                             Value scores, Operation *diagOp) {
  auto boxesType = cast<RankedTensorType>(boxes.getType());
  auto scoresType = cast<RankedTensorType>(scores.getType());
  if (boxesType.getRank() != 3 || scoresType.getRank() != 3)
    return diagOp->emitError()
           << "NonMaxSuppression: boxes must be [batches, boxes, 4] and "
              "scores [batches, classes, boxes]";
  IndexMath m(b, loc);
  NMSShape shape;
  shape.batches = getDim(b, loc, boxes, 0);
  shape.boxes = getDim(b, loc, boxes, 1);
  shape.classes = getDim(b, loc, scores, 1);
  if (failed(checkEqual(b, loc, getDim(b, loc, boxes, 2), m.cst(4),
                        "NonMaxSuppression: boxes dim 2 and 4", diagOp)) ||
      failed(checkEqual(b, loc, shape.batches, getDim(b, loc, scores, 0),
                        "NonMaxSuppression: batches of boxes and scores",
                        diagOp)) ||
      failed(checkEqual(b, loc, shape.boxes, getDim(b, loc, scores, 2),
                        "NonMaxSuppression: boxes of boxes and scores",
                        diagOp)))
    return failure();
  shape.capacity = {productOf(m, {shape.batches, shape.classes, shape.boxes}),
                    m.cst(3)};
  return shape;
}

FailureOr<RankedTensorType> joinTypes(RankedTensorType a, RankedTensorType b) {
  if (a.getElementType() != b.getElementType() || a.getRank() != b.getRank())
    return failure();
  SmallVector<int64_t> dims;
  for (int64_t i = 0; i < a.getRank(); ++i)
    dims.push_back(a.getDimSize(i) == b.getDimSize(i) ? a.getDimSize(i)
                                                      : ShapedType::kDynamic);
  return RankedTensorType::get(dims, a.getElementType());
}

FailureOr<OpFoldResult> scanLength(OpBuilder &b, Location loc,
                                   ValueRange inputs, ArrayRef<int64_t> axes,
                                   Operation *diagOp) {
  if (inputs.empty())
    return diagOp->emitError("Scan needs at least one scan input");
  OpFoldResult length = getDim(b, loc, inputs[0], axes[0]);
  for (size_t i = 1; i < inputs.size(); ++i)
    if (failed(checkEqual(
            b, loc, length, getDim(b, loc, inputs[i], axes[i]),
            ("Scan: sequence lengths of scan inputs 0 and " + std::to_string(i))
                .c_str(),
            diagOp)))
      return failure();
  return length;
}

SmallVector<OpFoldResult> stackedShape(ArrayRef<OpFoldResult> elementDims,
                                       OpFoldResult count, int64_t axis) {
  SmallVector<OpFoldResult> dims(elementDims.begin(), elementDims.end());
  dims.insert(dims.begin() + axis, count);
  return dims;
}

OpFoldResult grownCapacity(OpBuilder &b, Location loc, OpFoldResult capacity,
                           OpFoldResult needed,
                           std::optional<OpFoldResult> bound) {
  IndexMath m(b, loc);
  OpFoldResult grown = m.max(needed, m.mul(capacity, m.cst(2)));
  if (bound)
    grown = m.max(needed, m.min(grown, *bound));
  return grown;
}

} // namespace onyx::shape
