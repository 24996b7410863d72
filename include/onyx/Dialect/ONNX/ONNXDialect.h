//===- ONNXDialect.h - The onnx dialect and its ops -------------*- C++ -*-===//
//
// Everything a user of the `onnx` dialect needs: the dialect class, the
// `!onnx.Seq`/`!onnx.Opt` types, every generated `ONNX<OpType>Op`, the
// hand-written `onnx.NoValue`/`onnx.Yield`/`onnx.DimGroup`, and helpers for
// the `onnx.dim_params` function argument/result attribute.
//
//===----------------------------------------------------------------------===//

#ifndef ONYX_DIALECT_ONNX_ONNXDIALECT_H
#define ONYX_DIALECT_ONNX_ONNXDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "onyx/Dialect/ONNX/ONNXOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "onyx/Dialect/ONNX/ONNXOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "onyx/Dialect/ONNX/ONNXOps.h.inc"

namespace onyx::onnx {

/// One entry of an `onnx.dim_params` string: dimension `axis` of the value
/// is the ONNX symbolic dimension `name`.
struct DimParam {
  int64_t axis;
  std::string name;
};

/// Parses an `onnx.dim_params` string ("0:batch,1:seq"). On malformed input
/// returns failure and, if `error` is non-null, says what is wrong. Axes must
/// be non-negative and distinct; names must be non-empty.
llvm::LogicalResult parseDimParams(llvm::StringRef text,
                                   llvm::SmallVectorImpl<DimParam> &result,
                                   std::string *error = nullptr);

/// Prints `params` in the `onnx.dim_params` format, sorted by axis.
std::string printDimParams(llvm::ArrayRef<DimParam> params);

} // namespace onyx::onnx

#endif // ONYX_DIALECT_ONNX_ONNXDIALECT_H
