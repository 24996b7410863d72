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
// This file holds what the families share (ElementwiseCommon.h): element
// types, the scalar conventions, the generic builders and common scalar
// semantics. The operators are in ElementwiseBinary.cpp (arithmetic,
// comparisons, logic and bitwise ops, Where, Clip) and ElementwiseUnary.cpp
// (Cast, CastLike, activations, unary math).
//
//===----------------------------------------------------------------------===//

#include "ElementwiseCommon.h"

using namespace mlir;

namespace onyx::conversion::elementwise {

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

namespace {

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

} // namespace

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

namespace {

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

} // namespace

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

} // namespace onyx::conversion::elementwise

namespace onyx::conversion {

Value castFloatTo(OpBuilder &b, Location l, Value v, Type to) {
  return elementwise::convertFloat(b, l, v, to);
}

void addElementwiseLowerings(LoweringTable &t) {
  elementwise::addBinaryLowerings(t);
  elementwise::addUnaryLowerings(t);
}

} // namespace onyx::conversion
