//===- ResizeShapes.h - Result shapes of Resize and Upsample ----*- C++ -*-===//
//
// Result dims of ONNX Resize (opset 11/13 form: X, roi, scales, sizes),
// Upsample (opset 9/10: X, scales) and GridSample (opset 16), and the
// per-dim scale factors the coordinate transformation of the Resize
// lowering divides by.
//
// Both operators take their output extents from a tensor's contents:
// `scales` (floats: out = floor(in * scale), computed in f64 as the ONNX
// reference does) or `sizes` (integers: out = size, and the scale becomes
// size / in). Either input is known at compile time (a constant: the dims
// fold to attributes) or read with `tensor.extract` at run time (the dims
// are SSA index values). The float arithmetic lives in F64Math, which folds
// known operands the way IndexMath does for index arithmetic, so the same
// formula serves both cases.
//
// Rules checked (statically when the values are known, else with
// `onyx.assert`): exactly one of scales/sizes is given (a present but empty
// scales tensor counts as absent), one entry per input dim, scales > 0,
// sizes >= 0, and a non-empty output of an empty input dim is rejected
// (there would be nothing to read).
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_SHAPE_RESIZESHAPES_H
#define ONYX_SHAPE_RESIZESHAPES_H

#include "onyx/Shape/DataMovementShapes.h"

namespace onyx::shape {

/// An f64 scalar that may be known at compile time.
struct F64 {
  std::optional<double> known;
  mlir::Value value; ///< set when !known
};

/// f64 arithmetic on F64s, folding when every operand is known. The
/// operations are IEEE double operations in the order written, so a folded
/// result equals the run-time one bit for bit.
class F64Math {
public:
  F64Math(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  F64 cst(double v) { return F64{v, mlir::Value()}; }
  F64 of(mlir::Value v) { return F64{std::nullopt, v}; }
  mlir::Value value(F64 x);

  F64 add(F64 x, F64 y);
  F64 sub(F64 x, F64 y);
  F64 mul(F64 x, F64 y);
  F64 div(F64 x, F64 y);
  F64 floor(F64 x);
  F64 ceil(F64 x);
  F64 abs(F64 x);
  /// Rounds half to even (C's nearbyint in the default rounding mode).
  F64 roundEven(F64 x);
  /// C's fmod.
  F64 rem(F64 x, F64 y);
  /// max(lo, min(x, hi)); NaN gives lo.
  F64 clamp(F64 x, F64 lo, F64 hi);
  F64 select(Cond c, F64 x, F64 y);
  Cond cmp(mlir::arith::CmpFPredicate pred, F64 x, F64 y);

  /// An index extent or position as f64.
  F64 fromIndex(OpFoldResult v);
  /// An integral f64 (already clamped to the index range the caller needs)
  /// as an index.
  OpFoldResult toIndex(F64 x);
  /// An element of a float tensor (any float type) as f64.
  mlir::Value extend(mlir::Value element);

  mlir::OpBuilder &b;
  mlir::Location loc;
};

/// A 1-D list of floats that an op takes as an input (Resize's scales and
/// roi): its values when constant, else the tensor to read at run time
/// (entries are read as f64). An absent optional input is an empty, absent
/// list.
class FloatList {
public:
  static FloatList constant(llvm::ArrayRef<double> values);
  static FloatList tensor(mlir::Value tensor);
  static FloatList absent() { return FloatList(); }

  bool isAbsent() const { return !isConstantList && !source; }
  bool isConstant() const { return isConstantList; }
  /// The number of entries if known at compile time.
  std::optional<int64_t> staticSize() const;
  OpFoldResult size(IndexMath &m) const;
  /// Entry `k` (the caller has established that `k` is below the size).
  F64 get(F64Math &f, int64_t k) const;

private:
  bool isConstantList = false;
  llvm::SmallVector<double> values;
  mlir::Value source;
};

/// One dim of a resize.
struct ResizeDim {
  OpFoldResult input, output;
  /// The factor the coordinate transformation uses: scales[i], or
  /// sizes[i] / input when sizes are given.
  F64 scale;
  /// The resized length as the ONNX reference sees it: input * scale (a
  /// float, not floored), or sizes[i] when sizes are given.
  F64 length;
  /// Statically known to be unresized (scale 1 and equal extents): every
  /// output index reads the same input index, whatever the mode (except a
  /// cropping roi, which the lowering checks).
  bool identity = false;
};

struct ResizeShape {
  llvm::SmallVector<OpFoldResult> dims;
  llvm::SmallVector<ResizeDim> axes;
};

/// Resize / Upsample of `input` by `scales` or to `sizes` (at most one of
/// them non-empty at run time; see the file comment for the checks).
/// `opName` prefixes the messages.
mlir::FailureOr<ResizeShape>
resizeShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
            const FloatList &scales, const IntList &sizes,
            llvm::StringRef opName, mlir::Operation *diagOp);

/// GridSample: X [N, C, H, W] and grid [N, H_out, W_out, 2] give
/// [N, C, H_out, W_out]; opset 20's volumetric form X [N, C, D, H, W] and
/// grid [N, D_out, H_out, W_out, 3] give [N, C, D_out, H_out, W_out]. The
/// batch extents, the grid's last dim and non-empty spatial dims are checked.
mlir::FailureOr<llvm::SmallVector<OpFoldResult>>
gridSampleShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                mlir::Value grid, mlir::Operation *diagOp);

} // namespace onyx::shape

#endif // ONYX_SHAPE_RESIZESHAPES_H
