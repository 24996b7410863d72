//===- ElementwiseUnary.cpp - Casts, activations and unary math -----------===//
//
// Cast and CastLike (every element type, float8/float4 through
// LowPrecision.h), the activations (Relu ... Sigmoid, PRelu with its
// unidirectionally broadcast slope) and the unary math functions: each one
// linalg.generic with the scalar conventions of Elementwise.cpp
// (ElementwiseCommon.h).
//
//===----------------------------------------------------------------------===//

#include "ElementwiseCommon.h"
#include "LowPrecision.h"

#include <limits>

using namespace mlir;

namespace onyx::conversion {

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

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

namespace elementwise {
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
  Value result =
      buildMap(b, loc, {access}, shape->dims, to,
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

} // namespace

void addUnaryLowerings(LoweringTable &t) {
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

} // namespace elementwise
} // namespace onyx::conversion
