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

/// The integer elements of a constant: `onnx.Constant` (value, value_ints or
/// value_int) or `arith.constant`, inline dense or a dense resource blob of
/// 32/64-bit integers; booleans read as 0/1. std::nullopt for anything else
/// or for more than `maxElements` elements (negative: no limit).
std::optional<llvm::SmallVector<int64_t>>
getConstantInts(mlir::Value value, int64_t maxElements = -1);

} // namespace onyx::onnx

#endif // ONYX_DIALECT_ONNX_ONNXDIALECT_H
