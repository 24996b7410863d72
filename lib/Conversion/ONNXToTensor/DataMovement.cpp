//===- DataMovement.cpp - Transpose, Reshape, Flatten ---------------------===//

#include "Lowering.h"

using namespace mlir;

namespace onyx::conversion {
namespace {

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

/// Reshape of `input` to `dims` (already validated by the shape helper).
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
    auto dims = shape::reshapeShapeFromTensor(
        b, loc, reshape.getData(), reshape.getShape(), rank,
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

} // namespace

void addDataMovementLowerings(LoweringTable &t) {
  t["onnx.Transpose"] = lowerTranspose;
  t["onnx.Reshape"] = lowerReshape;
  t["onnx.Flatten"] = lowerFlatten;
}

} // namespace onyx::conversion
