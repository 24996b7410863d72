//===- Quantization.cpp - Quantize and dequantize ops ---------------------===//
//
// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear, and the
// helpers the quantized operators share (QuantizationCommon.h): the
// quantized matrix products are in QuantizedMatMul.cpp, Dropout and the
// window generators in DropoutAndWindows.cpp.
//
// Quantization arithmetic follows the ONNX reference: quantizing is
// `saturate(round_half_even(x / scale) + zero_point)` with the division in
// the type numpy promotes x and the scale to, dequantizing is
// `(x - zero_point) * scale` with the difference taken exactly in integers
// (docs/element-types.md has the details for every type). Scales and zero
// points are scalars, 1-D tensors along an axis, tensors of the operand's
// rank (MatMulInteger), or blocked (`block_size`); their layouts come from
// shape::quantParamBroadcast and shape::checkBlockedParam. QuantizeLinear
// and DequantizeLinear take every opset-25 quantized type (2- to 16-bit
// integers, float8, float4e2m1, LowPrecision.h); the other operators take
// 8-bit types. ui8 and i8 are
// different MLIR types while arith only takes signless integers: unsigned
// elements are reinterpreted with unrealized_conversion_cast, which
// reconcile-unrealized-casts removes after the LLVM lowering.
//
//===----------------------------------------------------------------------===//

#include "LowPrecision.h"
#include "QuantizationCommon.h"

#include "onyx/Shape/QuantizationShapes.h"

#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;

namespace onyx::conversion::quantization {

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

Type signlessOf(Type type) {
  if (auto intType = dyn_cast<IntegerType>(type))
    return IntegerType::get(type.getContext(), intType.getWidth());
  return type;
}

/// Reinterprets a scalar between ui<N> and i<N> (see the file header).
Value castScalar(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return UnrealizedConversionCastOp::create(b, loc, type, v).getResult(0);
}

bool isUnsignedInt(Type type) {
  auto intType = dyn_cast<IntegerType>(type);
  return intType && intType.isUnsigned();
}

/// `v` (a float, or an integer read as unsigned when its type is) as the
/// float type `to`.
Value toFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (auto fromFloat = dyn_cast<FloatType>(from)) {
    if (fromFloat.getWidth() < cast<FloatType>(to).getWidth())
      return arith::ExtFOp::create(b, loc, to, v);
    return arith::TruncFOp::create(b, loc, to, v);
  }
  bool isUnsigned = isUnsignedInt(from);
  v = castScalar(b, loc, v, signlessOf(from));
  if (isUnsigned)
    return arith::UIToFPOp::create(b, loc, to, v);
  return arith::SIToFPOp::create(b, loc, to, v);
}

/// An integer scalar (unsigned when its type is) as i64.
Value toI64(OpBuilder &b, Location loc, Value v) {
  Type from = v.getType();
  Type i64 = b.getI64Type();
  bool isUnsigned = isUnsignedInt(from);
  v = castScalar(b, loc, v, signlessOf(from));
  if (v.getType() == i64)
    return v;
  if (isUnsigned)
    return arith::ExtUIOp::create(b, loc, i64, v);
  return arith::ExtSIOp::create(b, loc, i64, v);
}

/// A float clamped to the range of the 8-bit integer type `to`.
Value clampToRange(OpBuilder &b, Location loc, Value v, IntegerType to) {
  Type ft = v.getType();
  bool isUnsigned = to.isUnsigned();
  double lo = isUnsigned ? 0.0 : -128.0, hi = isUnsigned ? 255.0 : 127.0;
  return arith::MinimumFOp::create(
      b, loc,
      arith::MaximumFOp::create(b, loc, v, scalarConstant(b, loc, ft, lo)),
      scalarConstant(b, loc, ft, hi));
}

/// A float holding an integer in the range of `to`, converted to it.
Value convertInRange(OpBuilder &b, Location loc, Value v, IntegerType to) {
  Type signless = signlessOf(to);
  Value q = to.isUnsigned()
                ? arith::FPToUIOp::create(b, loc, signless, v).getResult()
                : arith::FPToSIOp::create(b, loc, signless, v).getResult();
  return castScalar(b, loc, q, to);
}

/// An already rounded float saturated to the 8-bit integer type `to`.
Value saturateTo(OpBuilder &b, Location loc, Value rounded, IntegerType to) {
  return convertInRange(b, loc, clampToRange(b, loc, rounded, to), to);
}

/// The 8-bit integer type of a quantized tensor, or an error naming `what`.
FailureOr<IntegerType> require8Bit(Operation *op, Type type, StringRef what) {
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType || intType.getWidth() != 8)
    return op->emitError() << what << " of element type " << type
                           << " is not supported (8-bit integers only)";
  return intType;
}

bool isAbsent(Value v) { return !v || isa<NoneType>(v.getType()); }

SmallVector<int64_t> iota(int64_t n) {
  return llvm::to_vector(llvm::seq<int64_t>(0, n));
}

/// The single float of a constant scalar (or one-element tensor), if
/// `value` is one.
std::optional<double> getConstantFloat(Value value) {
  auto values = getConstantFloats(value);
  if (!values || values->size() != 1)
    return std::nullopt;
  return values->front();
}

/// The first element of a scalar (or one-element) tensor.
Value readFirst(OpBuilder &b, Location loc, Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<Value> zeros;
  if (type.getRank() > 0)
    zeros.assign(type.getRank(), arith::ConstantIndexOp::create(b, loc, 0));
  return tensor::ExtractOp::create(b, loc, t, zeros);
}

//===----------------------------------------------------------------------===//
// Quantization parameters
//===----------------------------------------------------------------------===//

/// How an elementwise generic over an operand of `dims` (loops = dims)
/// reads the parameter `param` laid out as shape::quantParamBroadcast says.
FailureOr<OperandAccess> paramAccess(Operation *op, OpBuilder &b, Value param,
                                     StringRef what,
                                     ArrayRef<OpFoldResult> dims,
                                     int64_t axis) {
  Location loc = op->getLoc();
  auto type = requireRanked(op, param, what);
  if (failed(type))
    return failure();
  auto bc = shape::quantParamBroadcast(b, loc, shape::getDims(b, loc, param),
                                       dims, axis, what, op);
  if (failed(bc))
    return failure();
  OperandAccess access;
  access.tensor = param;
  if (type->getRank() != 1)
    return type->getRank() == 0
               ? access
               : broadcastAccess(param, *bc, int64_t(dims.size()));
  // A vector: entry 0 (per tensor, or a length-1 vector broadcast), or the
  // entry of loop `axis`.
  switch (bc->kinds[0]) {
  case shape::BroadcastKind::One:
    access.loops = {-1};
    access.isOne = {Value()};
    break;
  case shape::BroadcastKind::Equal:
  case shape::BroadcastKind::Runtime:
    access.loops = {axis};
    access.isOne = {bc->isOne[0]};
    break;
  }
  return access;
}

namespace {

/// The axis a 1-D parameter of `params` applies along for an operand of
/// `rank`: -1 when every parameter is a scalar or a static one-entry vector
/// (per tensor: `axis` is then not even checked, as the opset-10 forms have
/// none), else the normalized `axis`.
FailureOr<int64_t> perAxis(Operation *op, ArrayRef<Value> params, int64_t axis,
                           int64_t rank) {
  bool needsAxis = false;
  for (Value p : params) {
    if (isAbsent(p))
      continue;
    auto type = dyn_cast<RankedTensorType>(p.getType());
    if (type && type.getRank() == 1 && type.getDimSize(0) != 1)
      needsAxis = true;
  }
  if (!needsAxis || rank == 0)
    return int64_t(-1);
  // An axis the input does not have (QuantizeLinear's default 1 on a 1-D
  // input, whose parameters' lengths are only known at run time): per
  // tensor, the lengths then checked to be 1.
  if (axis < -rank || axis >= rank)
    return int64_t(-1);
  return normalizeAxis(op, axis, rank);
}

/// The inputs of a (de)quantization generic: `x` itself, its scale and, when
/// present, its zero point, each parameter read along `axis` (-1: per
/// tensor).
FailureOr<SmallVector<OperandAccess>>
quantInputs(Operation *op, OpBuilder &b, Value x, Value scale,
            StringRef scaleWhat, Value zeroPoint, StringRef zeroPointWhat,
            ArrayRef<OpFoldResult> dims, int64_t axis) {
  SmallVector<OperandAccess> inputs = {identityAccess(x)};
  auto scaleAccess = paramAccess(op, b, scale, scaleWhat, dims, axis);
  if (failed(scaleAccess))
    return failure();
  inputs.push_back(*scaleAccess);
  if (!isAbsent(zeroPoint)) {
    auto zpAccess = paramAccess(op, b, zeroPoint, zeroPointWhat, dims, axis);
    if (failed(zpAccess))
      return failure();
    inputs.push_back(*zpAccess);
  }
  return inputs;
}

//===----------------------------------------------------------------------===//
// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear
//===----------------------------------------------------------------------===//

/// The quantized element types of QuantizeLinear/DequantizeLinear (opset
/// 25): the 2-, 4-, 8- and 16-bit integers, the four signed float8 kinds
/// and float4e2m1.
bool isQuantizedType(Type type) {
  if (auto intType = dyn_cast<IntegerType>(type))
    return llvm::is_contained({2u, 4u, 8u, 16u}, intType.getWidth());
  return isStorageFloat(type) && !isa<Float8E8M0FNUType>(type);
}

/// The saturation range of a quantized integer type.
std::pair<int64_t, int64_t> integerRange(IntegerType type) {
  unsigned w = type.getWidth();
  if (type.isUnsigned())
    return {0, (int64_t(1) << w) - 1};
  return {-(int64_t(1) << (w - 1)), (int64_t(1) << (w - 1)) - 1};
}

/// A scalar as a float compute value: floats widened (f16/bf16 to f32,
/// exactly), float8/float4 decoded, integers converted to `intTo`.
Value toCompute(OpBuilder &b, Location loc, Value v, Type intTo) {
  Type t = v.getType();
  if (isStorageFloat(t))
    return decodeStorageFloat(b, loc, v);
  if (isa<FloatType>(t))
    return t.getIntOrFloatBitWidth() < 32
               ? castFloatTo(b, loc, v, b.getF32Type())
               : v;
  return toFloat(b, loc, v, intTo);
}

/// Where a (de)quantization generic reads its scale and zero point: inputs
/// 1 and 2 of the generic (per tensor, per axis), or, for blocked
/// quantization, tensor.extract at the element's index with the axis index
/// divided by the block size.
struct QuantLayout {
  SmallVector<OperandAccess> inputs; ///< x first
  Value scale, zeroPoint;            ///< blocked only (zeroPoint may be null)
  int64_t axis = -1, blockSize = 0;

  /// The scale and zero point (null when absent) of the current element.
  std::pair<Value, Value> read(OpBuilder &b, Location loc, ValueRange in,
                               int64_t rank) const {
    if (blockSize == 0)
      return {in[1], in.size() > 2 ? in[2] : Value()};
    SmallVector<Value> indices;
    for (int64_t d = 0; d < rank; ++d) {
      Value i = linalg::IndexOp::create(b, loc, d);
      if (d == axis)
        i = arith::DivUIOp::create(
            b, loc, i, arith::ConstantIndexOp::create(b, loc, blockSize));
      indices.push_back(i);
    }
    Value s = tensor::ExtractOp::create(b, loc, scale, indices);
    Value z =
        zeroPoint
            ? tensor::ExtractOp::create(b, loc, zeroPoint, indices).getResult()
            : Value();
    return {s, z};
  }
};

FailureOr<QuantLayout> quantLayout(Operation *op, OpBuilder &b, Value x,
                                   Value scale, StringRef scaleWhat,
                                   Value zeroPoint, StringRef zeroPointWhat,
                                   ArrayRef<OpFoldResult> dims,
                                   int64_t axisAttr, int64_t blockSize) {
  Location loc = op->getLoc();
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  QuantLayout layout;
  if (blockSize < 0)
    return op->emitError() << "block_size " << blockSize << " is negative";
  if (blockSize == 0) {
    auto axis = perAxis(op, {scale, zeroPoint}, axisAttr, rank);
    if (failed(axis))
      return failure();
    auto inputs = quantInputs(op, b, x, scale, scaleWhat, zeroPoint,
                              zeroPointWhat, dims, *axis);
    if (failed(inputs))
      return failure();
    layout.inputs = std::move(*inputs);
    return layout;
  }
  if (rank == 0)
    return op->emitError("blocked quantization of a scalar");
  auto axis = normalizeAxis(op, axisAttr, rank);
  if (failed(axis))
    return failure();
  for (auto [param, what] :
       {std::pair{scale, scaleWhat}, std::pair{zeroPoint, zeroPointWhat}}) {
    if (isAbsent(param))
      continue;
    auto type = requireRanked(op, param, what);
    if (failed(type) ||
        failed(shape::checkBlockedParam(b, loc, shape::getDims(b, loc, param),
                                        dims, *axis, blockSize, what, op)))
      return failure();
  }
  layout.inputs = {identityAccess(x)};
  layout.scale = scale;
  layout.zeroPoint = isAbsent(zeroPoint) ? Value() : zeroPoint;
  layout.axis = *axis;
  layout.blockSize = blockSize;
  return layout;
}

/// QuantizeLinear as the ONNX reference computes it: x / y_scale in the
/// type numpy promotes the two to (f64 for int32 inputs or scales; f16 or
/// bf16 only when both are), or `precision`'s; then
///  - integers: saturate(round_half_even(x / y_scale) + y_zero_point), the
///    sum taken in integers (NaN gives the range's low end);
///  - float8: x / y_scale rounded to the type (saturate as the attribute
///    says; a zero point must be zero, and adding it would turn -0 into 0);
///  - float4e2m1: x / y_scale + y_zero_point, rounded (always saturating).
FailureOr<SmallVector<Value>> lowerQuantizeLinear(Operation *op, OpBuilder &b) {
  auto quant = cast<onnx::ONNXQuantizeLinearOp>(op);
  Location loc = op->getLoc();
  Value x = quant.getX(), scale = quant.getYScale(),
        zeroPoint = quant.getYZeroPoint();
  auto xType = requireRanked(op, x, "the input x");
  auto scaleType = requireRanked(op, scale, "y_scale");
  if (failed(xType) || failed(scaleType))
    return failure();
  Type xElement = xType->getElementType();
  Type scaleElement = scaleType->getElementType();
  auto isInput = [](Type t) {
    return (isa<FloatType>(t) && !isStorageFloat(t)) || t.isSignlessInteger(32);
  };
  if (!isInput(xElement))
    return op->emitError() << "QuantizeLinear of " << xElement
                           << " is not supported (float or int32 only)";
  if (!isInput(scaleElement) && !isa<Float8E8M0FNUType>(scaleElement))
    return op->emitError() << "y_scale of element type " << scaleElement
                           << " is not supported";
  // The result type: the zero point's, else output_dtype's, else uint8.
  Type resultElement =
      IntegerType::get(b.getContext(), 8, IntegerType::Unsigned);
  if (int64_t code = quant.getOutputDtype()) {
    auto type = elementTypeForCode(op, code);
    if (failed(type))
      return failure();
    resultElement = *type;
  }
  if (!isAbsent(zeroPoint)) {
    auto zpType = requireRanked(op, zeroPoint, "y_zero_point");
    if (failed(zpType))
      return failure();
    if (quant.getOutputDtype() && zpType->getElementType() != resultElement)
      return op->emitError() << "output_dtype " << resultElement
                             << " differs from y_zero_point's element type "
                             << zpType->getElementType();
    resultElement = zpType->getElementType();
  }
  if (!isQuantizedType(resultElement))
    return op->emitError() << "QuantizeLinear's result of element type "
                           << resultElement
                           << " is not supported (int2/4/8/16, uint2/4/8/16, "
                              "float8, float4e2m1)";
  // The division's type.
  Type f32 = b.getF32Type(), f64 = b.getF64Type();
  Type divType;
  if (int64_t precision = quant.getPrecision()) {
    auto type = elementTypeForCode(op, precision);
    if (failed(type))
      return failure();
    if (!isa<FloatType>(*type) || isStorageFloat(*type))
      return op->emitError()
             << "precision " << *type << " is not supported (float types only)";
    divType = *type;
  } else if (!isa<FloatType>(xElement) || !isa<FloatType>(scaleElement) ||
             xElement.isF64() || scaleElement.isF64()) {
    divType = f64;
  } else if (isStorageFloat(scaleElement)) {
    divType = xElement.isF64() ? f64 : f32;
  } else if (xElement == scaleElement) {
    divType = xElement;
  } else {
    divType =
        xElement.getIntOrFloatBitWidth() > scaleElement.getIntOrFloatBitWidth()
            ? xElement
        : scaleElement.getIntOrFloatBitWidth() >
                xElement.getIntOrFloatBitWidth()
            ? scaleElement
            : f32; // f16 with bf16
  }
  // Computed in f32 or f64; a 16-bit division is rounded to its type.
  Type wide = divType.isF64() ? f64 : f32;
  bool saturate = quant.getSaturate() != 0;

  int64_t rank = xType->getRank();
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, x);
  auto layout =
      quantLayout(op, b, x, scale, "y_scale", zeroPoint, "y_zero_point", dims,
                  quant.getAxis(), quant.getBlockSize());
  if (failed(layout))
    return failure();
  Value init = emptyTensor(b, loc, dims, resultElement);
  Value result = buildGeneric(
      b, loc, layout->inputs, init, iota(rank),
      SmallVector<IteratorType>(rank, IteratorType::parallel),
      [&](OpBuilder &nb, Location nl, ValueRange in, Value) -> Value {
        auto [sv, zv] = layout->read(nb, nl, in, rank);
        Value v = castFloatTo(nb, nl, toCompute(nb, nl, in[0], wide), wide);
        Value s = castFloatTo(nb, nl, toCompute(nb, nl, sv, wide), wide);
        Value q = arith::DivFOp::create(nb, nl, v, s);
        if (divType != wide)
          q = castFloatTo(nb, nl, castFloatTo(nb, nl, q, divType), wide);
        if (isStorageFloat(resultElement)) {
          if (zv) {
            Value z = castFloatTo(nb, nl, decodeStorageFloat(nb, nl, zv), wide);
            Value sum = arith::AddFOp::create(nb, nl, q, z);
            if (isa<Float4E2M1FNType>(resultElement)) {
              q = sum;
            } else {
              Value isZero =
                  arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ, z,
                                        scalarConstant(nb, nl, wide, 0.0));
              q = arith::SelectOp::create(nb, nl, isZero, q, sum);
            }
          }
          return encodeStorageFloat(nb, nl, q, resultElement, saturate);
        }
        auto intType = cast<IntegerType>(resultElement);
        auto [lo, hi] = integerRange(intType);
        Type i64 = nb.getI64Type();
        // round, then into i64 (clamped far beyond any range; NaN: lo).
        Value r = math::RoundEvenOp::create(nb, nl, q);
        Value limit = scalarConstant(nb, nl, wide, 0x1p62);
        Value clamped = arith::MinimumFOp::create(
            nb, nl,
            arith::MaximumFOp::create(nb, nl, r,
                                      scalarConstant(nb, nl, wide, -0x1p62)),
            limit);
        Value isNaN =
            arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::UNO, r, r);
        clamped = arith::SelectOp::create(
            nb, nl, isNaN, scalarConstant(nb, nl, wide, double(lo)), clamped);
        Value qi = arith::FPToSIOp::create(nb, nl, i64, clamped);
        if (zv)
          qi = arith::AddIOp::create(nb, nl, qi, toI64(nb, nl, zv));
        qi = arith::MaxSIOp::create(
            nb, nl, qi,
            arith::ConstantOp::create(nb, nl, nb.getI64IntegerAttr(lo)));
        qi = arith::MinSIOp::create(
            nb, nl, qi,
            arith::ConstantOp::create(nb, nl, nb.getI64IntegerAttr(hi)));
        Value narrow = arith::TruncIOp::create(nb, nl, signlessOf(intType), qi);
        return castScalar(nb, nl, narrow, intType);
      });
  return SmallVector<Value>{result};
}

/// DequantizeLinear as the ONNX reference computes it: (x - x_zero_point)
/// in f32 (f64 for int32 with a zero point, or an f64 scale; integer
/// differences are exact), times x_scale, rounded once to output_dtype (or
/// x_scale's type). float8/float4 elements and zero points are decoded
/// first.
FailureOr<SmallVector<Value>> lowerDequantizeLinear(Operation *op,
                                                    OpBuilder &b) {
  auto dequant = cast<onnx::ONNXDequantizeLinearOp>(op);
  Location loc = op->getLoc();
  Value x = dequant.getX(), scale = dequant.getXScale(),
        zeroPoint = dequant.getXZeroPoint();
  auto xType = requireRanked(op, x, "the input x");
  auto scaleType = requireRanked(op, scale, "x_scale");
  if (failed(xType) || failed(scaleType))
    return failure();
  Type xElement = xType->getElementType();
  if (!isQuantizedType(xElement) && !xElement.isSignlessInteger(32))
    return op->emitError() << "DequantizeLinear of " << xElement
                           << " is not supported (int2/4/8/16/32, "
                              "uint2/4/8/16, float8, float4e2m1)";
  Type scaleElement = scaleType->getElementType();
  if (!isa<FloatType>(scaleElement))
    return op->emitError("x_scale must be a float tensor");
  Type resultElement = scaleElement;
  if (int64_t code = dequant.getOutputDtype()) {
    auto type = elementTypeForCode(op, code);
    if (failed(type))
      return failure();
    resultElement = *type;
  }
  if (!isa<FloatType>(resultElement) || isStorageFloat(resultElement))
    return op->emitError() << "DequantizeLinear's result of element type "
                           << resultElement
                           << " is not supported (float, float16, bfloat16, "
                              "double)";
  if (!isAbsent(zeroPoint)) {
    auto zpType = requireRanked(op, zeroPoint, "x_zero_point");
    if (failed(zpType))
      return failure();
    if (zpType->getElementType() != xElement)
      return op->emitError() << "x_zero_point must have x's element type "
                             << xElement << "; it is " << zeroPoint.getType();
  }
  Type wide = scaleElement.isF64() || resultElement.isF64() ||
                      (xElement.isSignlessInteger(32) && !isAbsent(zeroPoint))
                  ? b.getF64Type()
                  : b.getF32Type();
  int64_t rank = xType->getRank();
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, x);
  auto layout =
      quantLayout(op, b, x, scale, "x_scale", zeroPoint, "x_zero_point", dims,
                  dequant.getAxis(), dequant.getBlockSize());
  if (failed(layout))
    return failure();
  Value init = emptyTensor(b, loc, dims, resultElement);
  Value result = buildGeneric(
      b, loc, layout->inputs, init, iota(rank),
      SmallVector<IteratorType>(rank, IteratorType::parallel),
      [&](OpBuilder &nb, Location nl, ValueRange in, Value) -> Value {
        auto [sv, zv] = layout->read(nb, nl, in, rank);
        Value d;
        if (isStorageFloat(xElement)) {
          d = castFloatTo(nb, nl, decodeStorageFloat(nb, nl, in[0]), wide);
          if (zv)
            d = arith::SubFOp::create(
                nb, nl, d,
                castFloatTo(nb, nl, decodeStorageFloat(nb, nl, zv), wide));
        } else {
          // x - zero_point exactly (in i64).
          Value di = toI64(nb, nl, in[0]);
          if (zv)
            di = arith::SubIOp::create(nb, nl, di, toI64(nb, nl, zv));
          d = arith::SIToFPOp::create(nb, nl, wide, di);
        }
        Value s = castFloatTo(nb, nl, toCompute(nb, nl, sv, wide), wide);
        return castFloatTo(nb, nl, arith::MulFOp::create(nb, nl, d, s),
                           resultElement);
      });
  return SmallVector<Value>{result};
}

/// min(0, min(x)) or max(0, max(x)) over all of `x` as a scalar: a
/// reduction into a rank-0 tensor that starts at 0.
Value reduceWithZero(OpBuilder &b, Location loc, Value x, bool isMin) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  Value zero = scalarConstant(b, loc, type.getElementType(), 0.0);
  Value init = filledTensor(b, loc, {}, zero);
  Value reduced = buildGeneric(
      b, loc, {identityAccess(x)}, init, {},
      SmallVector<IteratorType>(rank, IteratorType::reduction),
      [&](OpBuilder &nb, Location nl, ValueRange in, Value acc) -> Value {
        // minimumf/maximumf propagate NaN, as numpy's min/max do.
        if (isMin)
          return arith::MinimumFOp::create(nb, nl, acc, in[0]);
        return arith::MaximumFOp::create(nb, nl, acc, in[0]);
      });
  return tensor::ExtractOp::create(b, loc, reduced, ValueRange{});
}

FailureOr<SmallVector<Value>> lowerDynamicQuantizeLinear(Operation *op,
                                                         OpBuilder &b) {
  auto dql = cast<onnx::ONNXDynamicQuantizeLinearOp>(op);
  Location loc = op->getLoc();
  Value x = dql.getX();
  auto xType = requireRanked(op, x, "the input x");
  if (failed(xType))
    return failure();
  Type f32 = b.getF32Type();
  if (xType->getElementType() != f32)
    return op->emitError() << "DynamicQuantizeLinear of "
                           << xType->getElementType()
                           << " is not supported (float32 only)";
  auto u8 = IntegerType::get(b.getContext(), 8, IntegerType::Unsigned);

  // The ONNX definition, in f32 like the reference:
  //   scale = (max(0, max(x)) - min(0, min(x))) / 255
  //   zero_point = saturate(round_half_even(0 - min(0, min(x)) / scale))
  //   y = saturate(round_half_even(x / scale) + zero_point)
  Value lo = reduceWithZero(b, loc, x, /*isMin=*/true);
  Value hi = reduceWithZero(b, loc, x, /*isMin=*/false);
  Value scale =
      arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, hi, lo),
                            scalarConstant(b, loc, f32, 255.0));
  Value zeroF = math::RoundEvenOp::create(
      b, loc,
      arith::SubFOp::create(b, loc, scalarConstant(b, loc, f32, 0.0),
                            arith::DivFOp::create(b, loc, lo, scale)));
  zeroF = clampToRange(b, loc, zeroF, u8);
  Value zeroPoint = convertInRange(b, loc, zeroF, u8);

  int64_t rank = xType->getRank();
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, x);
  Value y = buildGeneric(
      b, loc, {identityAccess(x)}, emptyTensor(b, loc, dims, u8), iota(rank),
      SmallVector<IteratorType>(rank, IteratorType::parallel),
      [&](OpBuilder &nb, Location nl, ValueRange in, Value) -> Value {
        Value r = math::RoundEvenOp::create(
            nb, nl, arith::DivFOp::create(nb, nl, in[0], scale));
        return saturateTo(nb, nl, arith::AddFOp::create(nb, nl, r, zeroF), u8);
      });
  Value scaleTensor = tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, f32), ValueRange{scale});
  Value zeroTensor = tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, u8), ValueRange{zeroPoint});
  return SmallVector<Value>{y, scaleTensor, zeroTensor};
}

} // namespace
} // namespace onyx::conversion::quantization

namespace onyx::conversion {

void addQuantizationLowerings(LoweringTable &t) {
  using namespace quantization;
  t["onnx.QuantizeLinear"] = lowerQuantizeLinear;
  t["onnx.DequantizeLinear"] = lowerDequantizeLinear;
  t["onnx.DynamicQuantizeLinear"] = lowerDynamicQuantizeLinear;
  addQuantizedMatMulLowerings(t);
  addDropoutAndWindowLowerings(t);
}

} // namespace onyx::conversion
