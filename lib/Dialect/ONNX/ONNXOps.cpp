//===- ONNXOps.cpp - Op definitions of the onnx dialect ------------------===//
//
// Instantiates the ODS-generated op classes (all ONNX operators plus the
// hand-written ops of ONNXExtraOps.td) and implements the few hand-written
// methods: the NoValue folder and the DimGroup verifier.
//
//===----------------------------------------------------------------------===//

#include "onyx/Dialect/ONNX/ONNXDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace onyx::onnx;

#define GET_OP_CLASSES
#include "onyx/Dialect/ONNX/ONNXOps.cpp.inc"

//===----------------------------------------------------------------------===//
// NoValue
//===----------------------------------------------------------------------===//

OpFoldResult ONNXNoValueOp::fold(FoldAdaptor) {
  // A constant-like op must fold to an attribute; `none` has one value.
  return UnitAttr::get(getContext());
}

//===----------------------------------------------------------------------===//
// DimGroup
//===----------------------------------------------------------------------===//

LogicalResult ONNXDimGroupOp::verify() {
  if (getAxis() < 0)
    return emitOpError("axis must be non-negative, got ") << getAxis();
  auto type = cast<TensorType>(getInput().getType());
  if (type.hasRank() && getAxis() >= type.getRank())
    return emitOpError("axis ") << getAxis() << " is out of range for " << type;
  return success();
}
