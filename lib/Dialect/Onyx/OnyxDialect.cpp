//===- OnyxDialect.cpp - The onyx dialect ---------------------------------===//
#include "onyx/Dialect/Onyx/OnyxDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace onyx;

#include "onyx/Dialect/Onyx/OnyxOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "onyx/Dialect/Onyx/OnyxOpsTypes.cpp.inc"

void OnyxDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "onyx/Dialect/Onyx/OnyxOpsTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "onyx/Dialect/Onyx/OnyxOps.cpp.inc"
      >();
}

LogicalResult AssertOp::verify() {
  if (getArgs().size() > 4)
    return emitOpError("supports at most 4 message arguments");
  return success();
}

static LogicalResult verifyDynamicSizes(Operation *op, Type type,
                                        ValueRange dynamicSizes) {
  auto memrefType = cast<MemRefType>(type);
  if (static_cast<int64_t>(dynamicSizes.size()) !=
      memrefType.getNumDynamicDims())
    return op->emitOpError("expects ")
           << memrefType.getNumDynamicDims() << " dynamic sizes, got "
           << dynamicSizes.size();
  if (!memrefType.getLayout().isIdentity())
    return op->emitOpError("expects an identity layout");
  return success();
}

LogicalResult AllocOutputOp::verify() {
  return verifyDynamicSizes(*this, getType(), getDynamicSizes());
}

LogicalResult AllocTempOp::verify() {
  return verifyDynamicSizes(*this, getType(), getDynamicSizes());
}

#define GET_OP_CLASSES
#include "onyx/Dialect/Onyx/OnyxOps.cpp.inc"
