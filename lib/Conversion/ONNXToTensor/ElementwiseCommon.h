//===- ElementwiseCommon.h - Elementwise lowering helpers -------*- C++ -*-===//
//
// Private to Elementwise*.cpp: the element-type checks, the scalar
// conventions of a body (enterScalar / leaveScalar; Elementwise.cpp's
// header explains them), the generic builders and the scalar semantics that
// several families share. Elementwise.cpp defines them; ElementwiseBinary.cpp
// and ElementwiseUnary.cpp hold the operators.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_CONVERSION_ONNXTOTENSOR_ELEMENTWISECOMMON_H
#define ONYX_LIB_CONVERSION_ONNXTOTENSOR_ELEMENTWISECOMMON_H

#include "Lowering.h"

namespace onyx::conversion::elementwise {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

bool isLowPrecisionFloat(mlir::Type t);
bool isSupportedFloat(mlir::Type t);
/// Integers the onnx dialect types with a signedness (ui8, si32, ...).
bool hasSignedness(mlir::Type t);
/// Unsigned semantics: onnx unsigned types, and bool (false < true, and
/// true converts to 1, not -1).
bool isUnsignedLike(mlir::Type t);
mlir::Type toSignless(mlir::Type t);
/// The type a body computes `elementType` elements in.
mlir::Type computeType(mlir::Type elementType);
mlir::LogicalResult requireNumeric(mlir::Operation *op, mlir::Type elementType);
/// The element type of ranked operand `v`, or an error.
mlir::FailureOr<mlir::Type> operandElementType(mlir::Operation *op,
                                               mlir::Value v);
/// The one element type shared by `operands`, or an error.
mlir::FailureOr<mlir::Type> commonElementType(mlir::Operation *op,
                                              mlir::ValueRange operands);
/// The common element type of all operands, which must be a float.
mlir::FailureOr<mlir::Type> commonFloatType(mlir::Operation *op);
/// The common element type of all operands, which must be bool (i1).
mlir::FailureOr<mlir::Type> commonBoolType(mlir::Operation *op);

//===----------------------------------------------------------------------===//
// Scalar conversions
//===----------------------------------------------------------------------===//

/// An integer constant; `value` is truncated to the type's width, so -1
/// and 1 << 63 mean the same bits for any signedness.
mlir::Value intConstant(mlir::OpBuilder &b, mlir::Location l, mlir::Type type,
                        int64_t value);
mlir::Value floatConstant(mlir::OpBuilder &b, mlir::Location l, mlir::Type type,
                          double value);
/// Float -> float with one rounding (two only for f64 -> bf16).
mlir::Value convertFloat(mlir::OpBuilder &b, mlir::Location l, mlir::Value v,
                         mlir::Type to);
/// An element as read from a tensor -> its compute-type value.
mlir::Value enterScalar(mlir::OpBuilder &b, mlir::Location l, mlir::Value v);
/// A body's result -> the element type the result tensor holds. Float
/// results may be in any float type (they are rounded here); integer results
/// must already have the element type's width.
mlir::Value leaveScalar(mlir::OpBuilder &b, mlir::Location l, mlir::Value v,
                        mlir::Type elementType);
/// Converts compute value `v` of onnx element type `from` to one of onnx
/// element type `to`, with ONNX Cast semantics: float -> int truncates
/// toward zero, anything -> bool is "!= 0", bool -> number is 0 or 1.
/// Floats come back in their compute type (leaveScalar rounds them).
mlir::Value convertElement(mlir::OpBuilder &b, mlir::Location l, mlir::Value v,
                           mlir::Type from, mlir::Type to);

//===----------------------------------------------------------------------===//
// Building the generic
//===----------------------------------------------------------------------===//

/// Computes one result element from the operands' elements, all in compute
/// types (see computeType).
using ScalarBody = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// One parallel generic over `dims` reading `accesses`, each element
/// entered (enterScalar) before `body` and the result left (leaveScalar).
mlir::Value buildMap(mlir::OpBuilder &b, mlir::Location loc,
                     llvm::ArrayRef<OperandAccess> accesses,
                     llvm::ArrayRef<mlir::OpFoldResult> dims,
                     mlir::Type resultElementType, ScalarBody body);
/// Maps `operands` (multidirectionally broadcast) to one result of
/// `resultElementType`.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
mapBroadcast(mlir::Operation *op, mlir::OpBuilder &b, mlir::ValueRange operands,
             mlir::Type resultElementType, ScalarBody body);
/// Maps all operands of `op` (broadcast) to a result of `resultElementType`.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
mapAllOperands(mlir::Operation *op, mlir::OpBuilder &b,
               mlir::Type resultElementType, ScalarBody body);

//===----------------------------------------------------------------------===//
// Scalar semantics shared by several ops
//===----------------------------------------------------------------------===//

bool isFloat(mlir::Value v);
/// max/min; floats propagate NaN (numpy's maximum/minimum).
mlir::Value maxOf(mlir::OpBuilder &b, mlir::Location l, mlir::Value x,
                  mlir::Value y, bool isUnsigned);
mlir::Value minOf(mlir::OpBuilder &b, mlir::Location l, mlir::Value x,
                  mlir::Value y, bool isUnsigned);
mlir::Value addOf(mlir::OpBuilder &b, mlir::Location l, mlir::Value x,
                  mlir::Value y);
mlir::Value floatCmp(mlir::OpBuilder &b, mlir::Location l,
                     mlir::arith::CmpFPredicate p, mlir::Value x, double c);
mlir::Value mulBy(mlir::OpBuilder &b, mlir::Location l, mlir::Value x,
                  double c);

//===----------------------------------------------------------------------===//
// Lowerings by shape of the op
//===----------------------------------------------------------------------===//

/// Body of an op whose operands and result share `elementType`.
using TypedFn = mlir::Value (*)(mlir::OpBuilder &, mlir::Location,
                                mlir::ValueRange, mlir::Type elementType);

/// Numeric operands of one type; the result keeps it.
template <TypedFn Fn>
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
lowerSameType(mlir::Operation *op, mlir::OpBuilder &b) {
  mlir::FailureOr<mlir::Type> element =
      commonElementType(op, op->getOperands());
  if (mlir::failed(element))
    return mlir::failure();
  mlir::Type t = *element;
  return mapAllOperands(op, b, t,
                        [&](mlir::OpBuilder &nb, mlir::Location l,
                            mlir::ValueRange v) { return Fn(nb, l, v, t); });
}

/// Float operands of one type; the result keeps it.
template <TypedFn Fn>
mlir::FailureOr<llvm::SmallVector<mlir::Value>> lowerFloat(mlir::Operation *op,
                                                           mlir::OpBuilder &b) {
  mlir::FailureOr<mlir::Type> element = commonFloatType(op);
  if (mlir::failed(element))
    return mlir::failure();
  mlir::Type t = *element;
  return mapAllOperands(op, b, t,
                        [&](mlir::OpBuilder &nb, mlir::Location l,
                            mlir::ValueRange v) { return Fn(nb, l, v, t); });
}

/// Registration of the operators of ElementwiseBinary.cpp (arithmetic,
/// comparisons, logic and bitwise ops, Where, Clip) and ElementwiseUnary.cpp
/// (casts, activations, unary math); addElementwiseLowerings calls both.
void addBinaryLowerings(LoweringTable &table);
void addUnaryLowerings(LoweringTable &table);

} // namespace onyx::conversion::elementwise

#endif // ONYX_LIB_CONVERSION_ONNXTOTENSOR_ELEMENTWISECOMMON_H
