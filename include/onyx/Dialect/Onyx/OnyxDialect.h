//===- OnyxDialect.h - The onyx dialect -------------------------*- C++ -*-===//
#ifndef ONYX_DIALECT_ONYX_ONYXDIALECT_H
#define ONYX_DIALECT_ONYX_ONYXDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "onyx/Dialect/Onyx/OnyxOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "onyx/Dialect/Onyx/OnyxOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "onyx/Dialect/Onyx/OnyxOps.h.inc"

namespace onyx {
/// The ONNX TensorProto.DataType code of a scalar type, as the runtime ABI
/// uses it (1 = f32, 7 = i64, 9 = bool, ...); 0 when there is none.
int32_t onnxElementCode(mlir::Type type);
} // namespace onyx

#endif // ONYX_DIALECT_ONYX_ONYXDIALECT_H
