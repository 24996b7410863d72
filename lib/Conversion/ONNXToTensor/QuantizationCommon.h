//===- QuantizationCommon.h - Quantization lowering helpers -----*- C++ -*-===//
//
// Private to Quantization.cpp, QuantizedMatMul.cpp and DropoutAndWindows.cpp:
// scalar conversions between the 8-bit (and other) integer types and
// floats, and how a generic reads a scale or zero point. Quantization.cpp
// defines them.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_CONVERSION_ONNXTOTENSOR_QUANTIZATIONCOMMON_H
#define ONYX_LIB_CONVERSION_ONNXTOTENSOR_QUANTIZATIONCOMMON_H

#include "Lowering.h"

namespace onyx::conversion::quantization {

using IteratorType = mlir::utils::IteratorType;

/// The signless integer type of the same width as `type`, else `type`.
mlir::Type signlessOf(mlir::Type type);
/// Reinterprets a scalar between ui<N> and i<N>: arith only takes signless
/// integers; reconcile-unrealized-casts removes the cast after the LLVM
/// lowering.
mlir::Value castScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                       mlir::Type type);
bool isUnsignedInt(mlir::Type type);
/// `v` (a float, or an integer read as unsigned when its type is) as the
/// float type `to`.
mlir::Value toFloat(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                    mlir::Type to);
/// An integer scalar (unsigned when its type is) as i64.
mlir::Value toI64(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
/// A float clamped to the range of the 8-bit integer type `to`.
mlir::Value clampToRange(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                         mlir::IntegerType to);
/// A float holding an integer in the range of `to`, converted to it.
mlir::Value convertInRange(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value v, mlir::IntegerType to);
/// An already rounded float saturated to the 8-bit integer type `to`.
mlir::Value saturateTo(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value rounded, mlir::IntegerType to);
/// The 8-bit integer type of a quantized tensor, or an error naming `what`.
mlir::FailureOr<mlir::IntegerType>
require8Bit(mlir::Operation *op, mlir::Type type, llvm::StringRef what);
/// An absent optional input (null or of NoneType).
bool isAbsent(mlir::Value v);
/// 0, 1, ..., n - 1.
llvm::SmallVector<int64_t> iota(int64_t n);
/// The single float of a constant scalar (or one-element tensor), if
/// `value` is one.
std::optional<double> getConstantFloat(mlir::Value value);
/// The first element of a scalar (or one-element) tensor.
mlir::Value readFirst(mlir::OpBuilder &b, mlir::Location loc, mlir::Value t);

/// How an elementwise generic over an operand of `dims` (loops = dims)
/// reads the parameter `param` laid out as shape::quantParamBroadcast says.
mlir::FailureOr<OperandAccess>
paramAccess(mlir::Operation *op, mlir::OpBuilder &b, mlir::Value param,
            llvm::StringRef what, llvm::ArrayRef<mlir::OpFoldResult> dims,
            int64_t axis);

/// MatMulInteger and QLinearMatMul (QuantizedMatMul.cpp); Dropout and the
/// window generators (DropoutAndWindows.cpp). addQuantizationLowerings
/// calls both.
void addQuantizedMatMulLowerings(LoweringTable &table);
void addDropoutAndWindowLowerings(LoweringTable &table);

} // namespace onyx::conversion::quantization

#endif // ONYX_LIB_CONVERSION_ONNXTOTENSOR_QUANTIZATIONCOMMON_H
