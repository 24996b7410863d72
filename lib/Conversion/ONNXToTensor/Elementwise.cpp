//===- Elementwise.cpp - Elementwise onnx ops to linalg.generic -----------===//
//
// Every op here becomes one linalg.generic over its result shape, computed by
// the shape library: shape::broadcastShapes (ONNX multidirectional
// broadcasting, run-time checks included) for ordinary operands, and
// shape::broadcastTo for PRelu's unidirectional slope. Operands whose
// extents may be 1 only at run time are read at clamped indices, so the
// result is right for every shape the checks admit.
//
// Scalar conventions inside a body (see enterScalar / leaveScalar):
//
//  - arith only takes signless integers, while the onnx dialect types
//    unsigned tensors ui8..ui64. Tensors keep their onnx types, so graph
//    boundaries and One-Shot Bufferize see nothing new; each element crosses
//    to the signless type with an unrealized_conversion_cast when read and
//    back when yielded. After the LLVM lowering both sides are the same iN
//    and reconcile-unrealized-casts removes each pair. (tensor.bitcast would
//    be the tensor-level spelling, but it has no bufferization model.)
//    Signedness then lives in the lowering: divui, remui, maxui, cmpi ult,
//    uitofp, extui.
//  - f16 and bf16 elements are computed in f32 and rounded once when
//    yielded. + - * / stay correctly rounded (f32's 24 bits are at least
//    2p+2 for both), every math function stays on a libm entry point, and
//    the host libgcc's missing __truncsfbf2 is never called: bf16 <-> f32
//    is done with integer ops.
//
// Integer division and remainder by zero yield 0 (as numpy does) instead of
// trapping, and INT_MIN / -1 wraps: the runtime must never die on a signal.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "LowPrecision.h"

#include <limits>

using namespace mlir;

namespace onyx::conversion {
namespace {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

bool isLowPrecisionFloat(Type t) { return isa<Float16Type, BFloat16Type>(t); }

bool isSupportedFloat(Type t) {
  return isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(t);
}

/// Integers the onnx dialect types with a signedness (ui8, si32, ...).
bool hasSignedness(Type t) {
  auto i = dyn_cast<IntegerType>(t);
  return i && !i.isSignless();
}

/// Unsigned semantics: onnx unsigned types, and bool (false < true, and
/// true converts to 1, not -1).
bool isUnsignedLike(Type t) { return t.isUnsignedInteger() || t.isInteger(1); }

Type toSignless(Type t) {
  if (auto i = dyn_cast<IntegerType>(t); i && !i.isSignless())
    return IntegerType::get(t.getContext(), i.getWidth());
  return t;
}

/// The type a body computes `elementType` elements in.
Type computeType(Type elementType) {
  if (isLowPrecisionFloat(elementType))
    return Float32Type::get(elementType.getContext());
  return toSignless(elementType);
}

LogicalResult requireNumeric(Operation *op, Type elementType) {
  if (isSupportedFloat(elementType) || isa<IntegerType>(elementType))
    return success();
  return op->emitError() << "element type " << elementType
                         << " is not supported by the CPU lowering yet";
}

/// The element type of ranked operand `v`, or an error.
FailureOr<Type> operandElementType(Operation *op, Value v) {
  auto type = requireRanked(op, v, "an operand");
  if (failed(type))
    return failure();
  Type element = type->getElementType();
  if (failed(requireNumeric(op, element)))
    return failure();
  return element;
}

/// The one element type shared by `operands`, or an error.
FailureOr<Type> commonElementType(Operation *op, ValueRange operands) {
  Type common;
  for (Value v : operands) {
    FailureOr<Type> element = operandElementType(op, v);
    if (failed(element))
      return failure();
    if (common && *element != common)
      return op->emitError() << "operands have different element types ("
                             << common << " and " << *element << ")";
    common = *element;
  }
  return common;
}

/// The common element type of all operands, which must be a float.
FailureOr<Type> commonFloatType(Operation *op) {
  FailureOr<Type> element = commonElementType(op, op->getOperands());
  if (failed(element))
    return failure();
  if (!isSupportedFloat(*element))
    return op->emitError() << "expects a floating-point input, got "
                           << *element;
  return element;
}

/// The common element type of all operands, which must be bool (i1).
FailureOr<Type> commonBoolType(Operation *op) {
  FailureOr<Type> element = commonElementType(op, op->getOperands());
  if (failed(element))
    return failure();
  if (!element->isInteger(1))
    return op->emitError() << "expects bool inputs, got " << *element;
  return element;
}

//===----------------------------------------------------------------------===//
// Scalar conversions
//===----------------------------------------------------------------------===//

/// An integer constant; `value` is truncated to the type's width, so -1
/// and 1 << 63 mean the same bits for any signedness.
Value intConstant(OpBuilder &b, Location l, Type type, int64_t value) {
  APInt bits(type.getIntOrFloatBitWidth(), uint64_t(value), /*isSigned=*/true,
             /*implicitTrunc=*/true);
  return arith::ConstantOp::create(b, l, IntegerAttr::get(type, bits));
}

Value floatConstant(OpBuilder &b, Location l, Type type, double value) {
  return scalarConstant(b, l, type, value);
}

/// bf16 -> f32 is exact: the bf16 bits are the f32's upper half.
Value bf16ToF32(OpBuilder &b, Location l, Value v) {
  Value bits = arith::BitcastOp::create(b, l, b.getI16Type(), v);
  Value wide = arith::ExtUIOp::create(b, l, b.getI32Type(), bits);
  wide =
      arith::ShLIOp::create(b, l, wide, intConstant(b, l, b.getI32Type(), 16));
  return arith::BitcastOp::create(b, l, b.getF32Type(), wide);
}

/// f32 -> bf16 rounding to nearest even; NaNs stay (quiet) NaNs.
Value f32ToBF16(OpBuilder &b, Location l, Value v) {
  Type i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, l, i32, v);
  Value sixteen = intConstant(b, l, i32, 16);
  Value upper = arith::ShRUIOp::create(b, l, bits, sixteen);
  Value lsb = arith::AndIOp::create(b, l, upper, intConstant(b, l, i32, 1));
  Value bias = arith::AddIOp::create(b, l, lsb, intConstant(b, l, i32, 0x7fff));
  Value rounded = arith::ShRUIOp::create(
      b, l, arith::AddIOp::create(b, l, bits, bias), sixteen);
  // Rounding could carry a NaN's payload into the exponent (an infinity).
  Value quietNaN =
      arith::OrIOp::create(b, l, upper, intConstant(b, l, i32, 0x40));
  Value isNaN = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, v, v);
  Value result = arith::SelectOp::create(b, l, isNaN, quietNaN, rounded);
  Value narrow = arith::TruncIOp::create(b, l, b.getI16Type(), result);
  return arith::BitcastOp::create(b, l, b.getBF16Type(), narrow);
}

/// Float -> float with one rounding (two only for f64 -> bf16).
Value convertFloat(OpBuilder &b, Location l, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (isa<BFloat16Type>(from))
    return convertFloat(b, l, bf16ToF32(b, l, v), to);
  if (isa<BFloat16Type>(to))
    return f32ToBF16(b, l, convertFloat(b, l, v, b.getF32Type()));
  if (cast<FloatType>(to).getWidth() > cast<FloatType>(from).getWidth())
    return arith::ExtFOp::create(b, l, to, v);
  return arith::TruncFOp::create(b, l, to, v);
}

} // namespace

Value castFloatTo(OpBuilder &b, Location l, Value v, Type to) {
  return convertFloat(b, l, v, to);
}

namespace {

/// An element as read from a tensor -> its compute-type value.
Value enterScalar(OpBuilder &b, Location l, Value v) {
  Type t = v.getType();
  if (hasSignedness(t))
    return UnrealizedConversionCastOp::create(b, l, TypeRange{toSignless(t)},
                                              ValueRange{v})
        .getResult(0);
  if (isLowPrecisionFloat(t))
    return convertFloat(b, l, v, b.getF32Type());
  return v;
}

/// A body's result -> the element type the result tensor holds. Float
/// results may be in any float type (they are rounded here); integer results
/// must already have the element type's width.
Value leaveScalar(OpBuilder &b, Location l, Value v, Type elementType) {
  if (isa<FloatType>(elementType))
    return convertFloat(b, l, v, elementType);
  assert(v.getType() == toSignless(elementType) &&
         "body produced the wrong integer type");
  if (hasSignedness(elementType))
    return UnrealizedConversionCastOp::create(b, l, TypeRange{elementType},
                                              ValueRange{v})
        .getResult(0);
  return v;
}

/// Integer -> integer (sign- or zero-extending per `unsignedSource`).
Value convertInt(OpBuilder &b, Location l, Value v, Type to,
                 bool unsignedSource) {
  unsigned from = v.getType().getIntOrFloatBitWidth();
  unsigned width = to.getIntOrFloatBitWidth();
  if (from == width)
    return v;
  if (from > width)
    return arith::TruncIOp::create(b, l, to, v);
  if (unsignedSource)
    return arith::ExtUIOp::create(b, l, to, v);
  return arith::ExtSIOp::create(b, l, to, v);
}

/// Converts compute value `v` of onnx element type `from` to one of onnx
/// element type `to`, with ONNX Cast semantics: float -> int truncates
/// toward zero, anything -> bool is "!= 0", bool -> number is 0 or 1.
/// Floats come back in their compute type (leaveScalar rounds them).
Value convertElement(OpBuilder &b, Location l, Value v, Type from, Type to) {
  Type target = computeType(to);
  bool toBool = to.isInteger(1);
  if (isa<FloatType>(from)) {
    if (isa<FloatType>(to))
      return convertFloat(b, l, v, target);
    if (toBool) // NaN is true, as in numpy.
      return arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE, v,
                                   floatConstant(b, l, v.getType(), 0.0));
    // Out-of-range values are undefined in ONNX; going through i64 keeps
    // narrow targets from LLVM poison (they wrap, as C casts do).
    Type i64 = b.getI64Type();
    if (target.getIntOrFloatBitWidth() == 64)
      return to.isUnsignedInteger()
                 ? arith::FPToUIOp::create(b, l, target, v).getResult()
                 : arith::FPToSIOp::create(b, l, target, v).getResult();
    Value wide = arith::FPToSIOp::create(b, l, i64, v);
    return arith::TruncIOp::create(b, l, target, wide);
  }
  bool unsignedSource = isUnsignedLike(from);
  if (isa<FloatType>(to))
    return unsignedSource
               ? arith::UIToFPOp::create(b, l, target, v).getResult()
               : arith::SIToFPOp::create(b, l, target, v).getResult();
  if (toBool)
    return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, v,
                                 intConstant(b, l, v.getType(), 0));
  return convertInt(b, l, v, target, unsignedSource);
}

//===----------------------------------------------------------------------===//
// Building the generic
//===----------------------------------------------------------------------===//

/// Computes one result element from the operands' elements, all in compute
/// types (see computeType).
using ScalarBody = llvm::function_ref<Value(OpBuilder &, Location, ValueRange)>;

Value buildMap(OpBuilder &b, Location loc, ArrayRef<OperandAccess> accesses,
               ArrayRef<OpFoldResult> dims, Type resultElementType,
               ScalarBody body) {
  int64_t rank = int64_t(dims.size());
  Value init = emptyTensor(b, loc, dims, resultElementType);
  SmallVector<int64_t> outLoops = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return buildGeneric(b, loc, accesses, init, outLoops, iterators,
                      [&](OpBuilder &nb, Location nl, ValueRange in, Value) {
                        SmallVector<Value> scalars;
                        for (Value v : in)
                          scalars.push_back(enterScalar(nb, nl, v));
                        return leaveScalar(nb, nl, body(nb, nl, scalars),
                                           resultElementType);
                      });
}

/// Maps `operands` (multidirectionally broadcast) to one result of
/// `resultElementType`.
FailureOr<SmallVector<Value>> mapBroadcast(Operation *op, OpBuilder &b,
                                           ValueRange operands,
                                           Type resultElementType,
                                           ScalarBody body) {
  Location loc = op->getLoc();
  for (Value v : operands)
    if (failed(operandElementType(op, v)))
      return failure();
  auto shape = shape::broadcastShapes(b, loc, operands, op);
  if (failed(shape))
    return failure();
  int64_t rank = int64_t(shape->dims.size());
  SmallVector<OperandAccess> accesses;
  for (auto [v, bc] : llvm::zip(operands, shape->operands))
    accesses.push_back(broadcastAccess(v, bc, rank));
  Value result =
      buildMap(b, loc, accesses, shape->dims, resultElementType, body);
  return SmallVector<Value>{result};
}

/// Maps all operands of `op` (broadcast) to a result of `resultElementType`.
FailureOr<SmallVector<Value>> mapAllOperands(Operation *op, OpBuilder &b,
                                             Type resultElementType,
                                             ScalarBody body) {
  return mapBroadcast(op, b, op->getOperands(), resultElementType, body);
}

//===----------------------------------------------------------------------===//
// Scalar semantics shared by several ops
//===----------------------------------------------------------------------===//

bool isFloat(Value v) { return isa<FloatType>(v.getType()); }

Value isZero(OpBuilder &b, Location l, Value v) {
  return arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, v,
                               intConstant(b, l, v.getType(), 0));
}

/// Integer quotient truncated toward zero; x / 0 is 0 and INT_MIN / -1
/// wraps, where the hardware would trap.
Value safeDiv(OpBuilder &b, Location l, Value lhs, Value rhs, bool isUnsigned) {
  Type t = lhs.getType();
  Value zero = intConstant(b, l, t, 0), one = intConstant(b, l, t, 1);
  Value byZero = isZero(b, l, rhs);
  if (isUnsigned) {
    Value divisor = arith::SelectOp::create(b, l, byZero, one, rhs);
    Value q = arith::DivUIOp::create(b, l, lhs, divisor);
    return arith::SelectOp::create(b, l, byZero, zero, q);
  }
  Value byMinusOne = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, rhs,
                                           intConstant(b, l, t, -1));
  Value special = arith::OrIOp::create(b, l, byZero, byMinusOne);
  Value divisor = arith::SelectOp::create(b, l, special, one, rhs);
  Value q = arith::DivSIOp::create(b, l, lhs, divisor);
  Value negated = arith::SubIOp::create(b, l, zero, lhs);
  q = arith::SelectOp::create(b, l, byMinusOne, negated, q);
  return arith::SelectOp::create(b, l, byZero, zero, q);
}

/// Integer remainder with the dividend's sign (C's %); x % 0 and x % -1
/// are 0.
Value safeRem(OpBuilder &b, Location l, Value lhs, Value rhs, bool isUnsigned) {
  Type t = lhs.getType();
  Value zero = intConstant(b, l, t, 0), one = intConstant(b, l, t, 1);
  Value special = isZero(b, l, rhs);
  if (!isUnsigned)
    special = arith::OrIOp::create(
        b, l, special,
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, rhs,
                              intConstant(b, l, t, -1)));
  Value divisor = arith::SelectOp::create(b, l, special, one, rhs);
  Value r = isUnsigned ? arith::RemUIOp::create(b, l, lhs, divisor).getResult()
                       : arith::RemSIOp::create(b, l, lhs, divisor).getResult();
  return arith::SelectOp::create(b, l, special, zero, r);
}

/// max/min; floats propagate NaN (numpy's maximum/minimum).
Value maxOf(OpBuilder &b, Location l, Value x, Value y, bool isUnsigned) {
  if (isFloat(x))
    return arith::MaximumFOp::create(b, l, x, y);
  if (isUnsigned)
    return arith::MaxUIOp::create(b, l, x, y);
  return arith::MaxSIOp::create(b, l, x, y);
}
Value minOf(OpBuilder &b, Location l, Value x, Value y, bool isUnsigned) {
  if (isFloat(x))
    return arith::MinimumFOp::create(b, l, x, y);
  if (isUnsigned)
    return arith::MinUIOp::create(b, l, x, y);
  return arith::MinSIOp::create(b, l, x, y);
}

Value addOf(OpBuilder &b, Location l, Value x, Value y) {
  return isFloat(x) ? arith::AddFOp::create(b, l, x, y).getResult()
                    : arith::AddIOp::create(b, l, x, y).getResult();
}

Value floatCmp(OpBuilder &b, Location l, arith::CmpFPredicate p, Value x,
               double c) {
  return arith::CmpFOp::create(b, l, p, x, floatConstant(b, l, x.getType(), c));
}

Value mulBy(OpBuilder &b, Location l, Value x, double c) {
  return arith::MulFOp::create(b, l, x, floatConstant(b, l, x.getType(), c));
}

/// Integer `base ** exponent` by square-and-multiply over every exponent
/// bit (unrolled: the body of a generic is one block), wrapping like numpy.
/// A negative exponent gives 1 / base**|e| truncated: 0 unless |base| = 1.
Value integerPow(OpBuilder &b, Location l, Value base, Value exponent,
                 bool unsignedExponent) {
  Type t = base.getType(), et = exponent.getType();
  unsigned bits = et.getIntOrFloatBitWidth();
  Value zero = intConstant(b, l, t, 0), one = intConstant(b, l, t, 1);
  Value result = one, power = base;
  for (unsigned i = 0; i < bits; ++i) {
    Value mask = intConstant(b, l, et, int64_t(uint64_t(1) << i));
    Value bit = arith::CmpIOp::create(
        b, l, arith::CmpIPredicate::ne,
        arith::AndIOp::create(b, l, exponent, mask), intConstant(b, l, et, 0));
    Value product = arith::MulIOp::create(b, l, result, power);
    result = arith::SelectOp::create(b, l, bit, product, result);
    if (i + 1 < bits)
      power = arith::MulIOp::create(b, l, power, power);
  }
  if (unsignedExponent || bits == 1)
    return result;
  Value negative = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                         exponent, intConstant(b, l, et, 0));
  Value odd = arith::TruncIOp::create(b, l, b.getI1Type(), exponent);
  Value minusOne = intConstant(b, l, t, -1);
  Value baseIsOne =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, base, one);
  Value baseIsMinusOne =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, base, minusOne);
  Value signOfMinusOne = arith::SelectOp::create(b, l, odd, minusOne, one);
  Value reciprocal = arith::SelectOp::create(
      b, l, baseIsOne, one,
      arith::SelectOp::create(b, l, baseIsMinusOne, signOfMinusOne, zero));
  return arith::SelectOp::create(b, l, negative, reciprocal, result);
}

//===----------------------------------------------------------------------===//
// Lowerings by shape of the op
//===----------------------------------------------------------------------===//

/// Body of an op whose operands and result share `elementType`.
using TypedFn = Value (*)(OpBuilder &, Location, ValueRange, Type elementType);

/// Numeric operands of one type; the result keeps it.
template <TypedFn Fn>
FailureOr<SmallVector<Value>> lowerSameType(Operation *op, OpBuilder &b) {
  FailureOr<Type> element = commonElementType(op, op->getOperands());
  if (failed(element))
    return failure();
  Type t = *element;
  return mapAllOperands(op, b, t, [&](OpBuilder &nb, Location l, ValueRange v) {
    return Fn(nb, l, v, t);
  });
}

/// Float operands of one type; the result keeps it.
template <TypedFn Fn>
FailureOr<SmallVector<Value>> lowerFloat(Operation *op, OpBuilder &b) {
  FailureOr<Type> element = commonFloatType(op);
  if (failed(element))
    return failure();
  Type t = *element;
  return mapAllOperands(op, b, t, [&](OpBuilder &nb, Location l, ValueRange v) {
    return Fn(nb, l, v, t);
  });
}

/// Operands of one type; a bool result (comparisons, IsNaN).
template <TypedFn Fn>
FailureOr<SmallVector<Value>> lowerPredicate(Operation *op, OpBuilder &b) {
  FailureOr<Type> element = commonElementType(op, op->getOperands());
  if (failed(element))
    return failure();
  Type t = *element;
  return mapAllOperands(
      op, b, b.getI1Type(),
      [&](OpBuilder &nb, Location l, ValueRange v) { return Fn(nb, l, v, t); });
}

/// Bool operands, bool result.
template <TypedFn Fn>
FailureOr<SmallVector<Value>> lowerLogic(Operation *op, OpBuilder &b) {
  FailureOr<Type> element = commonBoolType(op);
  if (failed(element))
    return failure();
  Type t = *element;
  return mapAllOperands(op, b, t, [&](OpBuilder &nb, Location l, ValueRange v) {
    return Fn(nb, l, v, t);
  });
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

Value addFn(OpBuilder &b, Location l, ValueRange v, Type) {
  return addOf(b, l, v[0], v[1]);
}
Value subFn(OpBuilder &b, Location l, ValueRange v, Type) {
  return isFloat(v[0]) ? arith::SubFOp::create(b, l, v[0], v[1]).getResult()
                       : arith::SubIOp::create(b, l, v[0], v[1]).getResult();
}
Value mulFn(OpBuilder &b, Location l, ValueRange v, Type) {
  return isFloat(v[0]) ? arith::MulFOp::create(b, l, v[0], v[1]).getResult()
                       : arith::MulIOp::create(b, l, v[0], v[1]).getResult();
}
/// Integer division truncates toward zero (ONNX Div).
Value divFn(OpBuilder &b, Location l, ValueRange v, Type t) {
  if (isFloat(v[0]))
    return arith::DivFOp::create(b, l, v[0], v[1]);
  return safeDiv(b, l, v[0], v[1], isUnsignedLike(t));
}

/// Max, Min, Sum over any number of operands.
Value maxFn(OpBuilder &b, Location l, ValueRange v, Type t) {
  Value acc = v[0];
  for (Value x : v.drop_front())
    acc = maxOf(b, l, acc, x, isUnsignedLike(t));
  return acc;
}
Value minFn(OpBuilder &b, Location l, ValueRange v, Type t) {
  Value acc = v[0];
  for (Value x : v.drop_front())
    acc = minOf(b, l, acc, x, isUnsignedLike(t));
  return acc;
}
Value sumFn(OpBuilder &b, Location l, ValueRange v, Type) {
  Value acc = v[0];
  for (Value x : v.drop_front())
    acc = addOf(b, l, acc, x);
  return acc;
}
Value meanFn(OpBuilder &b, Location l, ValueRange v, Type t) {
  Value sum = sumFn(b, l, v, t);
  return arith::DivFOp::create(
      b, l, sum, floatConstant(b, l, sum.getType(), double(v.size())));
}

FailureOr<SmallVector<Value>> lowerMod(Operation *op, OpBuilder &b) {
  FailureOr<Type> element = commonElementType(op, op->getOperands());
  if (failed(element))
    return failure();
  Type t = *element;
  bool fmod = cast<onnx::ONNXModOp>(op).getFmod() != 0;
  if (isa<FloatType>(t) && !fmod)
    return op->emitError()
           << "Mod of floating-point inputs requires fmod=1 (got fmod=0)";
  bool isUnsigned = isUnsignedLike(t);
  return mapAllOperands(op, b, t, [&](OpBuilder &nb, Location l, ValueRange v) {
    if (isFloat(v[0])) // C fmod: the dividend's sign.
      return arith::RemFOp::create(nb, l, v[0], v[1]).getResult();
    Value r = safeRem(nb, l, v[0], v[1], isUnsigned);
    if (fmod || isUnsigned)
      return r;
    // Python's %: the divisor's sign.
    Value zero = intConstant(nb, l, r.getType(), 0);
    Value rNeg =
        arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, r, zero);
    Value dNeg =
        arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, v[1], zero);
    Value signsDiffer = arith::XOrIOp::create(nb, l, rNeg, dNeg);
    Value nonZero =
        arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ne, r, zero);
    Value adjust = arith::AndIOp::create(nb, l, signsDiffer, nonZero);
    Value shifted = arith::AddIOp::create(nb, l, r, v[1]);
    return arith::SelectOp::create(nb, l, adjust, shifted, r).getResult();
  });
}

/// Pow: the result has X's type; Y may be any numeric type.
FailureOr<SmallVector<Value>> lowerPow(Operation *op, OpBuilder &b) {
  auto pow = cast<onnx::ONNXPowOp>(op);
  FailureOr<Type> xType = operandElementType(op, pow.getX());
  FailureOr<Type> yType = operandElementType(op, pow.getY());
  if (failed(xType) || failed(yType))
    return failure();
  Type xt = *xType, yt = *yType;
  if (xt.isInteger(1) || yt.isInteger(1))
    return op->emitError("Pow does not take bool inputs");
  Type f64 = b.getF64Type();
  return mapBroadcast(op, b, op->getOperands(), xt,
                      [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                        Value x = v[0], y = v[1];
                        if (isFloat(x)) {
                          y = convertElement(nb, l, y, yt, x.getType());
                          return math::PowFOp::create(nb, l, x, y);
                        }
                        if (isa<FloatType>(yt)) {
                          // numpy computes int ** float in double, then casts
                          // back.
                          Value xf = convertElement(nb, l, x, xt, f64);
                          Value yf = convertFloat(nb, l, y, f64);
                          Value z = math::PowFOp::create(nb, l, xf, yf);
                          return convertElement(nb, l, z, f64, xt);
                        }
                        return integerPow(nb, l, x, y, isUnsignedLike(yt));
                      });
}

/// x << s or x >> s (logical); shifting by the width or more gives 0, where
/// LLVM would give poison.
Value shiftBits(OpBuilder &b, Location l, Value x, Value s, bool left) {
  Type t = x.getType();
  Value shifted = left ? arith::ShLIOp::create(b, l, x, s).getResult()
                       : arith::ShRUIOp::create(b, l, x, s).getResult();
  Value tooFar =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge, s,
                            intConstant(b, l, t, t.getIntOrFloatBitWidth()));
  return arith::SelectOp::create(b, l, tooFar, intConstant(b, l, t, 0),
                                 shifted);
}

/// BitShift (defined on unsigned integers).
FailureOr<SmallVector<Value>> lowerBitShift(Operation *op, OpBuilder &b) {
  FailureOr<Type> element = commonElementType(op, op->getOperands());
  if (failed(element))
    return failure();
  if (!isa<IntegerType>(*element) || element->isInteger(1))
    return op->emitError() << "BitShift expects integer inputs, got "
                           << *element;
  StringRef direction = cast<onnx::ONNXBitShiftOp>(op).getDirection();
  bool left = direction == "LEFT";
  if (!left && direction != "RIGHT")
    return op->emitError() << "BitShift direction must be LEFT or RIGHT, got '"
                           << direction << "'";
  return mapAllOperands(op, b, *element,
                        [&](OpBuilder &nb, Location l, ValueRange v) {
                          return shiftBits(nb, l, v[0], v[1], left);
                        });
}

//===----------------------------------------------------------------------===//
// Comparisons and logic
//===----------------------------------------------------------------------===//

/// Ordered float predicates: any comparison with NaN is false, as in numpy.
template <arith::CmpFPredicate FP, arith::CmpIPredicate SP,
          arith::CmpIPredicate UP>
Value compareFn(OpBuilder &b, Location l, ValueRange v, Type t) {
  if (isFloat(v[0]))
    return arith::CmpFOp::create(b, l, FP, v[0], v[1]);
  return arith::CmpIOp::create(b, l, isUnsignedLike(t) ? UP : SP, v[0], v[1]);
}

Value andFn(OpBuilder &b, Location l, ValueRange v, Type) {
  return arith::AndIOp::create(b, l, v[0], v[1]);
}
Value orFn(OpBuilder &b, Location l, ValueRange v, Type) {
  return arith::OrIOp::create(b, l, v[0], v[1]);
}
Value xorFn(OpBuilder &b, Location l, ValueRange v, Type) {
  return arith::XOrIOp::create(b, l, v[0], v[1]);
}
Value notFn(OpBuilder &b, Location l, ValueRange v, Type) {
  return arith::XOrIOp::create(b, l, v[0], intConstant(b, l, b.getI1Type(), 1));
}
Value bitwiseNotFn(OpBuilder &b, Location l, ValueRange v, Type) {
  return arith::XOrIOp::create(b, l, v[0],
                               intConstant(b, l, v[0].getType(), -1));
}

/// Bitwise{And,Or,Xor,Not}: integer operands of one type (not bool).
template <TypedFn Fn>
FailureOr<SmallVector<Value>> lowerBitwise(Operation *op, OpBuilder &b) {
  FailureOr<Type> element = commonElementType(op, op->getOperands());
  if (failed(element))
    return failure();
  if (!isa<IntegerType>(*element) || element->isInteger(1))
    return op->emitError() << "expects integer inputs, got " << *element;
  return lowerSameType<Fn>(op, b);
}

FailureOr<SmallVector<Value>> lowerWhere(Operation *op, OpBuilder &b) {
  auto where = cast<onnx::ONNXWhereOp>(op);
  FailureOr<Type> condType = operandElementType(op, where.getCondition());
  if (failed(condType))
    return failure();
  if (!condType->isInteger(1))
    return op->emitError() << "Where expects a bool condition, got "
                           << *condType;
  FailureOr<Type> element = commonElementType(op, {where.getX(), where.getY()});
  if (failed(element))
    return failure();
  return mapAllOperands(
      op, b, *element, [&](OpBuilder &nb, Location l, ValueRange v) {
        return arith::SelectOp::create(nb, l, v[0], v[1], v[2]).getResult();
      });
}

//===----------------------------------------------------------------------===//
// Clip
//===----------------------------------------------------------------------===//

/// The single element of a Clip bound (rank 0, or every extent 1).
FailureOr<Value> readBound(Operation *op, OpBuilder &b, Value bound,
                           StringRef name) {
  auto type = requireRanked(op, bound, "Clip's " + name.str());
  if (failed(type))
    return failure();
  if (llvm::any_of(type->getShape(), [](int64_t d) { return d != 1; }))
    return op->emitError() << "Clip's " << name << " must be a scalar, got "
                           << *type;
  SmallVector<Value> indices;
  if (type->getRank() > 0)
    indices.assign(type->getRank(),
                   arith::ConstantIndexOp::create(b, op->getLoc(), 0));
  return tensor::ExtractOp::create(b, op->getLoc(), bound, indices).getResult();
}

/// Clip(x, min, max) = min(max(x, min), max); an absent bound clips
/// nothing. Float bounds and inputs propagate NaN.
FailureOr<SmallVector<Value>> lowerClip(Operation *op, OpBuilder &b) {
  auto clip = cast<onnx::ONNXClipOp>(op);
  FailureOr<Type> element = operandElementType(op, clip.getInput());
  if (failed(element))
    return failure();
  Type t = *element;
  Value bounds[2];
  Type boundTypes[2];
  Value operands[2] = {clip.getMin(), clip.getMax()};
  StringRef names[2] = {"min", "max"};
  for (int i = 0; i < 2; ++i) {
    if (isa<NoneType>(operands[i].getType()))
      continue;
    FailureOr<Value> bound = readBound(op, b, operands[i], names[i]);
    if (failed(bound))
      return failure();
    bounds[i] = *bound;
    boundTypes[i] = bound->getType();
    if (failed(requireNumeric(op, boundTypes[i])))
      return failure();
  }
  bool isUnsigned = isUnsignedLike(t);
  return mapBroadcast(op, b, ValueRange{clip.getInput()}, t,
                      [&](OpBuilder &nb, Location l, ValueRange v) {
                        Value x = v[0];
                        for (int i = 0; i < 2; ++i) {
                          if (!bounds[i])
                            continue;
                          // Bounds are read outside the body; a bound of
                          // another type (an old-opset attribute became an f32
                          // constant) is converted.
                          Value bound = enterScalar(nb, l, bounds[i]);
                          bound =
                              convertElement(nb, l, bound, boundTypes[i], t);
                          x = i == 0 ? maxOf(nb, l, x, bound, isUnsigned)
                                     : minOf(nb, l, x, bound, isUnsigned);
                        }
                        return x;
                      });
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

} // namespace

/// The element type for an ONNX TensorProto.DataType code.
FailureOr<Type> elementTypeForCode(Operation *op, int64_t code) {
  MLIRContext *ctx = op->getContext();
  switch (code) {
  case 1:
    return Type(Float32Type::get(ctx));
  case 2:
    return Type(IntegerType::get(ctx, 8, IntegerType::Unsigned));
  case 3:
    return Type(IntegerType::get(ctx, 8));
  case 4:
    return Type(IntegerType::get(ctx, 16, IntegerType::Unsigned));
  case 5:
    return Type(IntegerType::get(ctx, 16));
  case 6:
    return Type(IntegerType::get(ctx, 32));
  case 7:
    return Type(IntegerType::get(ctx, 64));
  case 8:
    return op->emitError("Cast to STRING is not supported");
  case 9:
    return Type(IntegerType::get(ctx, 1));
  case 10:
    return Type(Float16Type::get(ctx));
  case 11:
    return Type(Float64Type::get(ctx));
  case 12:
    return Type(IntegerType::get(ctx, 32, IntegerType::Unsigned));
  case 13:
    return Type(IntegerType::get(ctx, 64, IntegerType::Unsigned));
  case 16:
    return Type(BFloat16Type::get(ctx));
  // The newer types (docs/element-types.md).
  case 17:
    return Type(Float8E4M3FNType::get(ctx));
  case 18:
    return Type(Float8E4M3FNUZType::get(ctx));
  case 19:
    return Type(Float8E5M2Type::get(ctx));
  case 20:
    return Type(Float8E5M2FNUZType::get(ctx));
  case 21:
    return Type(IntegerType::get(ctx, 4, IntegerType::Unsigned));
  case 22:
    return Type(IntegerType::get(ctx, 4));
  case 23:
    return Type(Float4E2M1FNType::get(ctx));
  case 24:
    return Type(Float8E8M0FNUType::get(ctx));
  case 25:
    return Type(IntegerType::get(ctx, 2, IntegerType::Unsigned));
  case 26:
    return Type(IntegerType::get(ctx, 2));
  default:
    return op->emitError() << "Cast to data type " << code
                           << " is not supported by the CPU lowering yet";
  }
}

namespace {

/// A Cast operand or result type: numeric, or a storage-only float.
LogicalResult requireCastable(Operation *op, Type type) {
  if (isStorageFloat(type))
    return success();
  return requireNumeric(op, type);
}

/// Cast and CastLike. float8/float4 elements are decoded to f32 (exactly)
/// and encoded from the source's float (integers via f64, exact below
/// 2^53) with one rounding; `saturate` and `rounding` apply to float8
/// targets (LowPrecision.h).
FailureOr<SmallVector<Value>> castTo(Operation *op, OpBuilder &b, Value input,
                                     Type to, bool saturate,
                                     StringRef roundMode) {
  auto type = requireRanked(op, input, "an operand");
  if (failed(type))
    return failure();
  Type src = type->getElementType();
  if (failed(requireCastable(op, src)) || failed(requireCastable(op, to)))
    return failure();
  std::optional<E8M0Rounding> rounding = parseE8M0Rounding(roundMode);
  if (!rounding)
    return op->emitError() << "round_mode '" << roundMode
                           << "' is not supported (up, down, nearest)";
  // mapBroadcast, without its numeric-operand check.
  Location loc = op->getLoc();
  auto shape = shape::broadcastShapes(b, loc, ValueRange{input}, op);
  if (failed(shape))
    return failure();
  int64_t rank = int64_t(shape->dims.size());
  OperandAccess access = broadcastAccess(input, shape->operands[0], rank);
  Value result = buildMap(
      b, loc, {access}, shape->dims, to,
      [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
        Value x = v[0];
        Type from = src;
        if (isStorageFloat(from)) {
          x = decodeStorageFloat(nb, l, x);
          from = x.getType();
        }
        if (!isStorageFloat(to))
          return convertElement(nb, l, x, from, to);
        if (!isa<FloatType>(from))
          x = convertElement(nb, l, x, from, nb.getF64Type());
        return encodeStorageFloat(nb, l, x, to, saturate, *rounding);
      });
  return SmallVector<Value>{result};
}

FailureOr<SmallVector<Value>> lowerCast(Operation *op, OpBuilder &b) {
  auto cast_ = cast<onnx::ONNXCastOp>(op);
  FailureOr<Type> to = elementTypeForCode(op, cast_.getTo());
  if (failed(to))
    return failure();
  return castTo(op, b, cast_.getInput(), *to, cast_.getSaturate() != 0,
                cast_.getRoundMode());
}

FailureOr<SmallVector<Value>> lowerCastLike(Operation *op, OpBuilder &b) {
  auto castLike = cast<onnx::ONNXCastLikeOp>(op);
  auto like = requireRanked(op, castLike.getTargetType(), "the target_type");
  if (failed(like))
    return failure();
  return castTo(op, b, castLike.getInput(), like->getElementType(),
                castLike.getSaturate() != 0, castLike.getRoundMode());
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

/// A float op with parameters: `Fn(x, params...)`.
template <typename OpTy, typename Fn>
FailureOr<SmallVector<Value>> lowerFloatWith(Operation *op, OpBuilder &b,
                                             Fn fn) {
  FailureOr<Type> element = commonFloatType(op);
  if (failed(element))
    return failure();
  return mapAllOperands(op, b, *element,
                        [&](OpBuilder &nb, Location l, ValueRange v) {
                          return fn(nb, l, v[0], cast<OpTy>(op));
                        });
}

double f32Attr(const APFloat &value) { return double(value.convertToFloat()); }

FailureOr<SmallVector<Value>> lowerLeakyRelu(Operation *op, OpBuilder &b) {
  return lowerFloatWith<onnx::ONNXLeakyReluOp>(
      op, b, [](OpBuilder &b, Location l, Value x, onnx::ONNXLeakyReluOp o) {
        Value neg = floatCmp(b, l, arith::CmpFPredicate::OLT, x, 0.0);
        return arith::SelectOp::create(b, l, neg,
                                       mulBy(b, l, x, f32Attr(o.getAlpha())), x)
            .getResult();
      });
}

/// exp(x) - 1, as the ONNX definitions spell it.
Value expMinusOne(OpBuilder &b, Location l, Value x) {
  return arith::SubFOp::create(b, l, math::ExpOp::create(b, l, x),
                               floatConstant(b, l, x.getType(), 1.0));
}

FailureOr<SmallVector<Value>> lowerElu(Operation *op, OpBuilder &b) {
  return lowerFloatWith<onnx::ONNXEluOp>(
      op, b, [](OpBuilder &b, Location l, Value x, onnx::ONNXEluOp o) {
        Value neg = floatCmp(b, l, arith::CmpFPredicate::OLT, x, 0.0);
        Value e = mulBy(b, l, expMinusOne(b, l, x), f32Attr(o.getAlpha()));
        return arith::SelectOp::create(b, l, neg, e, x).getResult();
      });
}

FailureOr<SmallVector<Value>> lowerSelu(Operation *op, OpBuilder &b) {
  return lowerFloatWith<onnx::ONNXSeluOp>(
      op, b, [](OpBuilder &b, Location l, Value x, onnx::ONNXSeluOp o) {
        double alpha = f32Attr(o.getAlpha()), gamma = f32Attr(o.getGamma());
        Value pos = floatCmp(b, l, arith::CmpFPredicate::OGT, x, 0.0);
        Value e = arith::SubFOp::create(
            b, l, mulBy(b, l, math::ExpOp::create(b, l, x), alpha),
            floatConstant(b, l, x.getType(), alpha));
        return mulBy(b, l, arith::SelectOp::create(b, l, pos, x, e), gamma);
      });
}

FailureOr<SmallVector<Value>> lowerCelu(Operation *op, OpBuilder &b) {
  return lowerFloatWith<onnx::ONNXCeluOp>(
      op, b, [](OpBuilder &b, Location l, Value x, onnx::ONNXCeluOp o) {
        double alpha = f32Attr(o.getAlpha());
        Value zero = floatConstant(b, l, x.getType(), 0.0);
        Value scaled = arith::DivFOp::create(
            b, l, x, floatConstant(b, l, x.getType(), alpha));
        Value e = mulBy(b, l, expMinusOne(b, l, scaled), alpha);
        return arith::AddFOp::create(b, l,
                                     arith::MaximumFOp::create(b, l, x, zero),
                                     arith::MinimumFOp::create(b, l, e, zero))
            .getResult();
      });
}

/// max(0, min(1, alpha * x + beta)).
Value hardSigmoid(OpBuilder &b, Location l, Value x, double alpha,
                  double beta) {
  Value y = arith::AddFOp::create(b, l, mulBy(b, l, x, alpha),
                                  floatConstant(b, l, x.getType(), beta));
  y = arith::MinimumFOp::create(b, l, y, floatConstant(b, l, x.getType(), 1.0));
  return arith::MaximumFOp::create(b, l, y,
                                   floatConstant(b, l, x.getType(), 0.0));
}

FailureOr<SmallVector<Value>> lowerHardSigmoid(Operation *op, OpBuilder &b) {
  return lowerFloatWith<onnx::ONNXHardSigmoidOp>(
      op, b, [](OpBuilder &b, Location l, Value x, onnx::ONNXHardSigmoidOp o) {
        return hardSigmoid(b, l, x, f32Attr(o.getAlpha()),
                           f32Attr(o.getBeta()));
      });
}

FailureOr<SmallVector<Value>> lowerHardSwish(Operation *op, OpBuilder &b) {
  return lowerFloatWith<onnx::ONNXHardSwishOp>(
      op, b, [](OpBuilder &b, Location l, Value x, onnx::ONNXHardSwishOp) {
        Value s = hardSigmoid(b, l, x, 1.0 / 6.0, 0.5);
        return arith::MulFOp::create(b, l, x, s).getResult();
      });
}

/// Gelu-20: x * Phi(x), exactly (erf) or with the tanh approximation.
FailureOr<SmallVector<Value>> lowerGelu(Operation *op, OpBuilder &b) {
  auto gelu = cast<onnx::ONNXGeluOp>(op);
  StringRef approximate = gelu.getApproximate();
  if (approximate != "none" && approximate != "tanh")
    return op->emitError() << "Gelu: approximate '" << approximate
                           << "' is not supported (none, tanh)";
  bool useTanh = approximate == "tanh";
  return lowerFloatWith<onnx::ONNXGeluOp>(
      op, b, [useTanh](OpBuilder &b, Location l, Value x, onnx::ONNXGeluOp) {
        Value inner;
        if (useTanh) {
          // sqrt(2/pi) * (x + 0.044715 x^3)
          Value x3 =
              arith::MulFOp::create(b, l, x, arith::MulFOp::create(b, l, x, x));
          Value sum = arith::AddFOp::create(b, l, x, mulBy(b, l, x3, 0.044715));
          inner =
              math::TanhOp::create(b, l, mulBy(b, l, sum, 0.7978845608028654));
        } else {
          inner = math::ErfOp::create(b, l, mulBy(b, l, x, 0.7071067811865476));
        }
        Value one = floatConstant(b, l, x.getType(), 1.0);
        Value half = mulBy(b, l, x, 0.5);
        return arith::MulFOp::create(b, l, half,
                                     arith::AddFOp::create(b, l, one, inner))
            .getResult();
      });
}

/// Mish-18: x * tanh(softplus(x)).
FailureOr<SmallVector<Value>> lowerMish(Operation *op, OpBuilder &b) {
  return lowerFloatWith<onnx::ONNXMishOp>(
      op, b, [](OpBuilder &b, Location l, Value x, onnx::ONNXMishOp) {
        Value zero = floatConstant(b, l, x.getType(), 0.0);
        Value negAbs =
            arith::NegFOp::create(b, l, math::AbsFOp::create(b, l, x));
        Value softplus = arith::AddFOp::create(
            b, l, arith::MaximumFOp::create(b, l, x, zero),
            math::Log1pOp::create(b, l, math::ExpOp::create(b, l, negAbs)));
        return arith::MulFOp::create(b, l, x,
                                     math::TanhOp::create(b, l, softplus))
            .getResult();
      });
}

/// Swish-24: x * sigmoid(alpha * x).
FailureOr<SmallVector<Value>> lowerSwish(Operation *op, OpBuilder &b) {
  return lowerFloatWith<onnx::ONNXSwishOp>(
      op, b, [](OpBuilder &b, Location l, Value x, onnx::ONNXSwishOp o) {
        Value one = floatConstant(b, l, x.getType(), 1.0);
        Value ax = mulBy(b, l, x, f32Attr(o.getAlpha()));
        Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, ax));
        return arith::DivFOp::create(b, l, x,
                                     arith::AddFOp::create(b, l, one, e))
            .getResult();
      });
}

FailureOr<SmallVector<Value>> lowerThresholdedRelu(Operation *op,
                                                   OpBuilder &b) {
  return lowerFloatWith<onnx::ONNXThresholdedReluOp>(
      op, b,
      [](OpBuilder &b, Location l, Value x, onnx::ONNXThresholdedReluOp o) {
        Value above =
            floatCmp(b, l, arith::CmpFPredicate::OGT, x, f32Attr(o.getAlpha()));
        return arith::SelectOp::create(b, l, above, x,
                                       floatConstant(b, l, x.getType(), 0.0))
            .getResult();
      });
}

FailureOr<SmallVector<Value>> lowerShrink(Operation *op, OpBuilder &b) {
  return lowerFloatWith<onnx::ONNXShrinkOp>(
      op, b, [](OpBuilder &b, Location l, Value x, onnx::ONNXShrinkOp o) {
        double bias = f32Attr(o.getBias()), lambd = f32Attr(o.getLambd());
        Value below = floatCmp(b, l, arith::CmpFPredicate::OLT, x, -lambd);
        Value above = floatCmp(b, l, arith::CmpFPredicate::OGT, x, lambd);
        Value plus = arith::AddFOp::create(
            b, l, x, floatConstant(b, l, x.getType(), bias));
        Value minus = arith::SubFOp::create(
            b, l, x, floatConstant(b, l, x.getType(), bias));
        Value zero = floatConstant(b, l, x.getType(), 0.0);
        return arith::SelectOp::create(
                   b, l, below, plus,
                   arith::SelectOp::create(b, l, above, minus, zero))
            .getResult();
      });
}

/// log(1 + exp(x)), written max(x, 0) + log1p(exp(-|x|)) so that large
/// inputs do not overflow.
Value softplusFn(OpBuilder &b, Location l, ValueRange v, Type) {
  Value x = v[0];
  Value zero = floatConstant(b, l, x.getType(), 0.0);
  Value negAbs = arith::NegFOp::create(b, l, math::AbsFOp::create(b, l, x));
  Value tail = math::Log1pOp::create(b, l, math::ExpOp::create(b, l, negAbs));
  return arith::AddFOp::create(b, l, arith::MaximumFOp::create(b, l, x, zero),
                               tail);
}

Value softsignFn(OpBuilder &b, Location l, ValueRange v, Type) {
  Value x = v[0];
  Value denom = arith::AddFOp::create(b, l, math::AbsFOp::create(b, l, x),
                                      floatConstant(b, l, x.getType(), 1.0));
  return arith::DivFOp::create(b, l, x, denom);
}

/// PRelu: the slope broadcasts unidirectionally to X.
FailureOr<SmallVector<Value>> lowerPRelu(Operation *op, OpBuilder &b) {
  auto prelu = cast<onnx::ONNXPReluOp>(op);
  FailureOr<Type> element = commonFloatType(op);
  if (failed(element))
    return failure();
  Location loc = op->getLoc();
  Value x = prelu.getX(), slope = prelu.getSlope();
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, x);
  auto slopeBroadcast =
      shape::broadcastTo(b, loc, shape::getDims(b, loc, slope), dims, op,
                         /*operandIndex=*/1);
  if (failed(slopeBroadcast))
    return failure();
  OperandAccess accesses[] = {
      identityAccess(x),
      broadcastAccess(slope, *slopeBroadcast, int64_t(dims.size()))};
  Value result = buildMap(
      b, loc, accesses, dims, *element,
      [&](OpBuilder &nb, Location l, ValueRange v) {
        Value neg = floatCmp(nb, l, arith::CmpFPredicate::OLT, v[0], 0.0);
        Value scaled = arith::MulFOp::create(nb, l, v[0], v[1]);
        return arith::SelectOp::create(nb, l, neg, scaled, v[0]).getResult();
      });
  return SmallVector<Value>{result};
}

//===----------------------------------------------------------------------===//
// Unary math
//===----------------------------------------------------------------------===//

Value reluFn(OpBuilder &b, Location l, ValueRange v, Type t) {
  Value x = v[0];
  Value zero = isFloat(x) ? floatConstant(b, l, x.getType(), 0.0)
                          : intConstant(b, l, x.getType(), 0);
  return maxOf(b, l, x, zero, isUnsignedLike(t));
}
Value negFn(OpBuilder &b, Location l, ValueRange v, Type) {
  if (isFloat(v[0]))
    return arith::NegFOp::create(b, l, v[0]);
  return arith::SubIOp::create(b, l, intConstant(b, l, v[0].getType(), 0),
                               v[0]);
}
Value absFn(OpBuilder &b, Location l, ValueRange v, Type t) {
  if (isFloat(v[0]))
    return math::AbsFOp::create(b, l, v[0]);
  if (isUnsignedLike(t))
    return v[0];
  // select(x < 0, -x, x): math.absi has no LLVM lowering; the most
  // negative value stays itself, as in numpy.
  Value x = v[0];
  Value zero = intConstant(b, l, x.getType(), 0);
  Value neg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, x, zero);
  return arith::SelectOp::create(b, l, neg,
                                 arith::SubIOp::create(b, l, zero, x), x);
}
/// -1, 0 or 1; NaN stays NaN (numpy's sign).
Value signFn(OpBuilder &b, Location l, ValueRange v, Type t) {
  Value x = v[0];
  Type ct = x.getType();
  if (isFloat(x)) {
    Value pos = floatCmp(b, l, arith::CmpFPredicate::OGT, x, 0.0);
    Value neg = floatCmp(b, l, arith::CmpFPredicate::OLT, x, 0.0);
    Value rest =
        arith::SelectOp::create(b, l, neg, floatConstant(b, l, ct, -1.0), x);
    return arith::SelectOp::create(b, l, pos, floatConstant(b, l, ct, 1.0),
                                   rest);
  }
  Value zero = intConstant(b, l, ct, 0);
  Value pos = arith::CmpIOp::create(
      b, l,
      isUnsignedLike(t) ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt,
      x, zero);
  Value rest = zero;
  if (!isUnsignedLike(t)) {
    Value neg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, x, zero);
    rest = arith::SelectOp::create(b, l, neg, intConstant(b, l, ct, -1), zero);
  }
  return arith::SelectOp::create(b, l, pos, intConstant(b, l, ct, 1), rest);
}
Value sigmoidFn(OpBuilder &b, Location l, ValueRange v, Type) {
  Value one = floatConstant(b, l, v[0].getType(), 1.0);
  Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, v[0]));
  return arith::DivFOp::create(b, l, one, arith::AddFOp::create(b, l, one, e));
}
Value reciprocalFn(OpBuilder &b, Location l, ValueRange v, Type) {
  Value one = floatConstant(b, l, v[0].getType(), 1.0);
  return arith::DivFOp::create(b, l, one, v[0]);
}
FailureOr<SmallVector<Value>> lowerIsNaN(Operation *op, OpBuilder &b) {
  if (failed(commonFloatType(op)))
    return failure();
  return mapAllOperands(
      op, b, b.getI1Type(), [](OpBuilder &nb, Location l, ValueRange v) {
        return arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, v[0],
                                     v[0])
            .getResult();
      });
}

template <typename MathOp>
Value mathFn(OpBuilder &b, Location l, ValueRange v, Type) {
  return MathOp::create(b, l, v[0]);
}

FailureOr<SmallVector<Value>> lowerIsInf(Operation *op, OpBuilder &b) {
  auto isInf = cast<onnx::ONNXIsInfOp>(op);
  FailureOr<Type> element = commonFloatType(op);
  if (failed(element))
    return failure();
  bool negative = isInf.getDetectNegative() != 0;
  bool positive = isInf.getDetectPositive() != 0;
  return mapAllOperands(
      op, b, b.getI1Type(), [&](OpBuilder &nb, Location l, ValueRange v) {
        Value x = v[0];
        double inf = std::numeric_limits<double>::infinity();
        Value result = intConstant(nb, l, nb.getI1Type(), 0);
        if (positive)
          result = floatCmp(nb, l, arith::CmpFPredicate::OEQ, x, inf);
        if (negative)
          result = arith::OrIOp::create(
              nb, l, result,
              floatCmp(nb, l, arith::CmpFPredicate::OEQ, x, -inf));
        return result;
      });
}

/// Ops ONNX defines for signed types and floats only.
template <TypedFn Fn>
FailureOr<SmallVector<Value>> lowerSigned(Operation *op, OpBuilder &b) {
  FailureOr<Type> element = commonElementType(op, op->getOperands());
  if (failed(element))
    return failure();
  if (isUnsignedLike(*element))
    return op->emitError() << "expects a signed or floating-point input, got "
                           << *element;
  return lowerSameType<Fn>(op, b);
}

/// Mean is defined on floats only.
FailureOr<SmallVector<Value>> lowerMean(Operation *op, OpBuilder &b) {
  return lowerFloat<meanFn>(op, b);
}

} // namespace

void addElementwiseLowerings(LoweringTable &t) {
  using P = arith::CmpIPredicate;
  using F = arith::CmpFPredicate;
  // Arithmetic.
  t["onnx.Add"] = lowerSameType<addFn>;
  t["onnx.Sub"] = lowerSameType<subFn>;
  t["onnx.Mul"] = lowerSameType<mulFn>;
  t["onnx.Div"] = lowerSameType<divFn>;
  t["onnx.Mod"] = lowerMod;
  t["onnx.Pow"] = lowerPow;
  t["onnx.BitShift"] = lowerBitShift;
  t["onnx.Max"] = lowerSameType<maxFn>;
  t["onnx.Min"] = lowerSameType<minFn>;
  t["onnx.Sum"] = lowerSameType<sumFn>;
  t["onnx.Mean"] = lowerMean;
  t["onnx.Clip"] = lowerClip;
  // Comparisons and logic.
  t["onnx.Equal"] = lowerPredicate<compareFn<F::OEQ, P::eq, P::eq>>;
  t["onnx.Less"] = lowerPredicate<compareFn<F::OLT, P::slt, P::ult>>;
  t["onnx.LessOrEqual"] = lowerPredicate<compareFn<F::OLE, P::sle, P::ule>>;
  t["onnx.Greater"] = lowerPredicate<compareFn<F::OGT, P::sgt, P::ugt>>;
  t["onnx.GreaterOrEqual"] = lowerPredicate<compareFn<F::OGE, P::sge, P::uge>>;
  t["onnx.And"] = lowerLogic<andFn>;
  t["onnx.Or"] = lowerLogic<orFn>;
  t["onnx.Xor"] = lowerLogic<xorFn>;
  t["onnx.Not"] = lowerLogic<notFn>;
  t["onnx.BitwiseAnd"] = lowerBitwise<andFn>;
  t["onnx.BitwiseOr"] = lowerBitwise<orFn>;
  t["onnx.BitwiseXor"] = lowerBitwise<xorFn>;
  t["onnx.BitwiseNot"] = lowerBitwise<bitwiseNotFn>;
  t["onnx.Where"] = lowerWhere;
  // Casts.
  t["onnx.Cast"] = lowerCast;
  t["onnx.CastLike"] = lowerCastLike;
  // Activations.
  t["onnx.Relu"] = lowerSameType<reluFn>;
  t["onnx.LeakyRelu"] = lowerLeakyRelu;
  t["onnx.PRelu"] = lowerPRelu;
  t["onnx.Elu"] = lowerElu;
  t["onnx.Selu"] = lowerSelu;
  t["onnx.Celu"] = lowerCelu;
  t["onnx.HardSigmoid"] = lowerHardSigmoid;
  t["onnx.HardSwish"] = lowerHardSwish;
  t["onnx.Gelu"] = lowerGelu;
  t["onnx.Mish"] = lowerMish;
  t["onnx.Swish"] = lowerSwish;
  t["onnx.ThresholdedRelu"] = lowerThresholdedRelu;
  t["onnx.Shrink"] = lowerShrink;
  t["onnx.Softplus"] = lowerFloat<softplusFn>;
  t["onnx.Softsign"] = lowerFloat<softsignFn>;
  t["onnx.Sigmoid"] = lowerFloat<sigmoidFn>;
  // Unary math.
  t["onnx.Neg"] = lowerSigned<negFn>;
  t["onnx.Abs"] = lowerSameType<absFn>;
  t["onnx.Sign"] = lowerSameType<signFn>;
  t["onnx.Reciprocal"] = lowerFloat<reciprocalFn>;
  t["onnx.IsNaN"] = lowerIsNaN;
  t["onnx.IsInf"] = lowerIsInf;
  t["onnx.Round"] = lowerFloat<mathFn<math::RoundEvenOp>>;
  t["onnx.Exp"] = lowerFloat<mathFn<math::ExpOp>>;
  t["onnx.Log"] = lowerFloat<mathFn<math::LogOp>>;
  t["onnx.Sqrt"] = lowerFloat<mathFn<math::SqrtOp>>;
  t["onnx.Floor"] = lowerFloat<mathFn<math::FloorOp>>;
  t["onnx.Ceil"] = lowerFloat<mathFn<math::CeilOp>>;
  t["onnx.Erf"] = lowerFloat<mathFn<math::ErfOp>>;
  t["onnx.Sin"] = lowerFloat<mathFn<math::SinOp>>;
  t["onnx.Cos"] = lowerFloat<mathFn<math::CosOp>>;
  t["onnx.Tan"] = lowerFloat<mathFn<math::TanOp>>;
  t["onnx.Asin"] = lowerFloat<mathFn<math::AsinOp>>;
  t["onnx.Acos"] = lowerFloat<mathFn<math::AcosOp>>;
  t["onnx.Atan"] = lowerFloat<mathFn<math::AtanOp>>;
  t["onnx.Sinh"] = lowerFloat<mathFn<math::SinhOp>>;
  t["onnx.Cosh"] = lowerFloat<mathFn<math::CoshOp>>;
  t["onnx.Tanh"] = lowerFloat<mathFn<math::TanhOp>>;
  t["onnx.Asinh"] = lowerFloat<mathFn<math::AsinhOp>>;
  t["onnx.Acosh"] = lowerFloat<mathFn<math::AcoshOp>>;
  t["onnx.Atanh"] = lowerFloat<mathFn<math::AtanhOp>>;
}

} // namespace onyx::conversion
