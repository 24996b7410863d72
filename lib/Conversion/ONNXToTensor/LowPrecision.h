//===- LowPrecision.h - float8 / float4 element conversions ------*- C++ -*-===//
//
// Scalar conversions between the storage-only float types (the four float8
// kinds with sign, float8e8m0 and float4e2m1; docs/element-types.md) and the
// compute floats, with integer bit manipulation inside a generic's body: no
// arith op ever takes an f8/f4 value except arith.bitcast to the integer of
// its width. The semantics are ONNX's (its reference implementation, which
// is ml_dtypes' conversions): round to nearest even, saturation as the Cast
// tables of the operator documentation say, NaN encodings per kind, no
// negative zero in the FNUZ kinds.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_CONVERSION_ONNXTOTENSOR_LOWPRECISION_H
#define ONYX_LIB_CONVERSION_ONNXTOTENSOR_LOWPRECISION_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringRef.h"

namespace onyx::conversion {

/// f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ, f8E8M0FNU, f4E2M1FN.
bool isStorageFloat(mlir::Type type);

/// Cast-24's round_mode for float8e8m0 targets.
enum class E8M0Rounding { Up, Down, Nearest };
/// "up", "down", "nearest"; nullopt for anything else.
std::optional<E8M0Rounding> parseE8M0Rounding(llvm::StringRef mode);

/// The value of `v` (of a storage float type) as an f32, exactly (every
/// value of these types is an f32; NaN stays NaN with its sign for the
/// kinds that have one, infinities stay infinities).
mlir::Value decodeStorageFloat(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value v);

/// `x` (f16, bf16, f32 or f64) as storage float type `to`, rounded once to
/// nearest even. `saturate` (float8 kinds; float4e2m1 always saturates):
/// values beyond the largest finite one, infinities included, become it;
/// otherwise they become infinity (e5m2) or NaN. float8e8m0 follows
/// `rounding` and converts through f32, as the ONNX reference does.
mlir::Value encodeStorageFloat(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value x, mlir::Type to, bool saturate,
                               E8M0Rounding rounding = E8M0Rounding::Up);

} // namespace onyx::conversion

#endif // ONYX_LIB_CONVERSION_ONNXTOTENSOR_LOWPRECISION_H
