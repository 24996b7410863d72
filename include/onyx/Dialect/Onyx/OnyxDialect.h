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

#endif // ONYX_DIALECT_ONYX_ONYXDIALECT_H
