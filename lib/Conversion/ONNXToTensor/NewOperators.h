//===- NewOperators.h - Lowerings of the newer ONNX operators -*- C++ -*-===//
//
// Private to NewOperators.cpp and its family files: the registration of
// each family and the scalar helpers they share.
//
//   NewDataMovement.cpp   CumProd, CenterCropPad, Col2Im, TensorScatter,
//                         AffineGrid, BitCast
//   NewNormalization.cpp  LpNormalization, GroupNormalization, SwiGLU
//   NewSignal.cpp         DFT, STFT, MelWeightMatrix
//   NewStateful.cpp       CausalConvWithState, LinearAttention
//   NewDeformConv.cpp     DeformConv
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_CONVERSION_ONNXTOTENSOR_NEWOPERATORS_H
#define ONYX_LIB_CONVERSION_ONNXTOTENSOR_NEWOPERATORS_H

#include "DataMovementCommon.h"

namespace onyx::conversion {

void addNewDataMovementLowerings(LoweringTable &table);
void addNewNormalizationLowerings(LoweringTable &table);
void addNewSignalLowerings(LoweringTable &table);
void addNewStatefulLowerings(LoweringTable &table);
void addNewDeformConvLowerings(LoweringTable &table);

namespace newops {

/// The signless integer type of an unsigned one (ui8 -> i8); other types
/// unchanged. arith works on signless integers only.
mlir::Type signless(mlir::Type type);
/// A scalar read from a tensor of `type` -> its signless form, and back
/// (unrealized casts, as the elementwise lowerings use).
mlir::Value toSignless(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
mlir::Value fromSignless(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                         mlir::Type type);

/// The type float arithmetic of `type` is carried out in: f32 for f16 and
/// bf16, the type itself otherwise.
mlir::Type computeFloatType(mlir::OpBuilder &b, mlir::Type type);
/// Float -> float conversion with one rounding to nearest even (bf16 by
/// bit manipulation: the CPU target has no runtime routine for it).
mlir::Value convertFloat(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                         mlir::Type to);
/// `v` (a compute-type float) rounded to `type` and widened back: what a
/// reference computing in `type` holds after the operation.
mlir::Value roundThrough(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                         mlir::Type type);

/// a * b and a + b for floats or signless integers.
mlir::Value mul(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                mlir::Value y);
mlir::Value add(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                mlir::Value y);

/// The normalized, duplicate-free entries of an optional axes attribute
/// (all axes when absent); errors name `what`.
mlir::FailureOr<llvm::SmallVector<int64_t>> axesAttribute(mlir::Operation *op,
                                                          mlir::ArrayAttr axes,
                                                          int64_t rank,
                                                          llvm::StringRef what);

/// The entries of an optional integer-list attribute, or `count` copies of
/// `fallback` when absent; the length must be `count`.
mlir::FailureOr<llvm::SmallVector<int64_t>>
intsAttribute(mlir::Operation *op, mlir::ArrayAttr attr, int64_t count,
              int64_t fallback, llvm::StringRef what);

/// Whether `value` is an absent optional input.
inline bool isAbsent(mlir::Value value) {
  return !value || mlir::isa<mlir::NoneType>(value.getType());
}

} // namespace newops
} // namespace onyx::conversion

#endif // ONYX_LIB_CONVERSION_ONNXTOTENSOR_NEWOPERATORS_H
