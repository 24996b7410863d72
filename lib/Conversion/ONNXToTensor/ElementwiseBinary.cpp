//===- ElementwiseBinary.cpp - Binary and variadic elementwise ops --------===//
//
// Arithmetic (Add, Sub, Mul, Div, Mod, Pow, BitShift and the variadic Max,
// Min, Sum, Mean), comparisons, logic and bitwise ops (their unary Not and
// BitwiseNot too), Where and Clip: each one linalg.generic over the
// broadcast result shape, with the scalar conventions of Elementwise.cpp
// (ElementwiseCommon.h). Integer division and remainder by zero yield 0 (as
// numpy does) instead of trapping, and INT_MIN / -1 wraps.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseCommon.h"

using namespace mlir;

namespace onyx::conversion::elementwise {
namespace {

//===----------------------------------------------------------------------===//
// Integer semantics
//===----------------------------------------------------------------------===//

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

/// Mean is defined on floats only.
FailureOr<SmallVector<Value>> lowerMean(Operation *op, OpBuilder &b) {
  return lowerFloat<meanFn>(op, b);
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

} // namespace

void addBinaryLowerings(LoweringTable &t) {
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
}

} // namespace onyx::conversion::elementwise
