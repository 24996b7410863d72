//===- NewOperators.cpp - Lowerings of the newer ONNX operators -----------===//
//
// The registration of the operator families added for the ONNX 1.23 node
// suite (NewDataMovement.cpp, NewNormalization.cpp, NewSignal.cpp) and the
// scalar helpers they share (NewOperators.h).
//
//===----------------------------------------------------------------------===//

#include "NewOperators.h"

using namespace mlir;

namespace onyx::conversion {

void addNewOperatorLowerings(LoweringTable &t) {
  addNewDataMovementLowerings(t);
  addNewNormalizationLowerings(t);
  addNewSignalLowerings(t);
  addNewStatefulLowerings(t);
  addNewDeformConvLowerings(t);
}

namespace newops {

Type signless(Type type) {
  if (auto i = dyn_cast<IntegerType>(type); i && !i.isSignless())
    return IntegerType::get(type.getContext(), i.getWidth());
  return type;
}

Value toSignless(OpBuilder &b, Location loc, Value v) {
  Type to = signless(v.getType());
  if (to == v.getType())
    return v;
  return UnrealizedConversionCastOp::create(b, loc, TypeRange{to},
                                            ValueRange{v})
      .getResult(0);
}

Value fromSignless(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return UnrealizedConversionCastOp::create(b, loc, TypeRange{type},
                                            ValueRange{v})
      .getResult(0);
}

Type computeFloatType(OpBuilder &b, Type type) {
  if (isa<Float16Type, BFloat16Type>(type))
    return b.getF32Type();
  return type;
}

static Value intConstant(OpBuilder &b, Location loc, Type type, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
}

/// bf16 -> f32: the bits become the upper half.
static Value widenBF16(OpBuilder &b, Location loc, Value v) {
  Type i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, loc, b.getI16Type(), v);
  Value wide = arith::ExtUIOp::create(b, loc, i32, bits);
  wide = arith::ShLIOp::create(b, loc, wide, intConstant(b, loc, i32, 16));
  return arith::BitcastOp::create(b, loc, b.getF32Type(), wide);
}

/// f32 -> bf16, to nearest even; a NaN stays a (quiet) NaN.
static Value narrowToBF16(OpBuilder &b, Location loc, Value v) {
  Type i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, loc, i32, v);
  Value upper =
      arith::ShRUIOp::create(b, loc, bits, intConstant(b, loc, i32, 16));
  Value odd = arith::AndIOp::create(b, loc, upper, intConstant(b, loc, i32, 1));
  Value rounding =
      arith::AddIOp::create(b, loc, odd, intConstant(b, loc, i32, 0x7fff));
  Value rounded = arith::ShRUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, bits, rounding),
      intConstant(b, loc, i32, 16));
  Value nan =
      arith::OrIOp::create(b, loc, upper, intConstant(b, loc, i32, 0x40));
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
  Value result = arith::SelectOp::create(b, loc, isNaN, nan, rounded);
  Value half = arith::TruncIOp::create(b, loc, b.getI16Type(), result);
  return arith::BitcastOp::create(b, loc, b.getBF16Type(), half);
}

Value convertFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (isa<BFloat16Type>(from))
    return convertFloat(b, loc, widenBF16(b, loc, v), to);
  if (isa<BFloat16Type>(to))
    return narrowToBF16(b, loc, convertFloat(b, loc, v, b.getF32Type()));
  if (cast<FloatType>(to).getWidth() > cast<FloatType>(from).getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

Value roundThrough(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return convertFloat(b, loc, convertFloat(b, loc, v, type), v.getType());
}

Value mul(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, loc, x, y);
  return arith::MulIOp::create(b, loc, x, y);
}

Value add(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

FailureOr<SmallVector<int64_t>> axesAttribute(Operation *op, ArrayAttr axes,
                                              int64_t rank, StringRef what) {
  SmallVector<int64_t> result;
  if (!axes) {
    for (int64_t i = 0; i < rank; ++i)
      result.push_back(i);
    return result;
  }
  SmallVector<bool> seen(rank, false);
  for (Attribute a : axes) {
    int64_t axis = cast<IntegerAttr>(a).getInt();
    if (axis < -rank || axis >= rank)
      return op->emitError() << what << ": axis " << axis
                             << " is out of range for rank " << rank;
    if (axis < 0)
      axis += rank;
    if (seen[axis])
      return op->emitError() << what << ": axis " << axis << " is repeated";
    seen[axis] = true;
    result.push_back(axis);
  }
  return result;
}

FailureOr<SmallVector<int64_t>> intsAttribute(Operation *op, ArrayAttr attr,
                                              int64_t count, int64_t fallback,
                                              StringRef what) {
  if (!attr)
    return SmallVector<int64_t>(count, fallback);
  SmallVector<int64_t> result;
  for (Attribute a : attr)
    result.push_back(cast<IntegerAttr>(a).getInt());
  if (int64_t(result.size()) != count)
    return op->emitError() << what << " has " << result.size()
                           << " entries, expected " << count;
  return result;
}

} // namespace newops
} // namespace onyx::conversion
