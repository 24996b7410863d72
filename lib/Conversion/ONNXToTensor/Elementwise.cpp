//===- Elementwise.cpp - Elementwise onnx ops to linalg.generic -----------===//
//
// Binary ops broadcast their operands with shape::broadcastShapes; operands
// whose extents may be 1 only at run time are read at clamped indices, so
// the result is right for every shape the checks admit.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;

namespace onyx::conversion {
namespace {

using ScalarFn = Value (*)(OpBuilder &, Location, ValueRange);

/// Lowers an op whose result element type equals its first operand's and
/// whose operands broadcast multidirectionally.
FailureOr<SmallVector<Value>> lowerBroadcastElementwise(Operation *op,
                                                        OpBuilder &b,
                                                        ScalarFn fn) {
  Location loc = op->getLoc();
  SmallVector<Value> operands;
  for (Value v : op->getOperands()) {
    auto type = requireRanked(op, v, "an operand");
    if (failed(type))
      return failure();
    operands.push_back(v);
  }
  Type elementType =
      cast<RankedTensorType>(operands.front().getType()).getElementType();
  if (failed(requireSupportedElement(op, elementType)))
    return failure();
  for (Value v : operands)
    if (cast<RankedTensorType>(v.getType()).getElementType() != elementType)
      return op->emitError("operands have different element types");

  auto shape = shape::broadcastShapes(b, loc, operands, op);
  if (failed(shape))
    return failure();
  int64_t rank = int64_t(shape->dims.size());
  SmallVector<OperandAccess> accesses;
  for (auto [v, bc] : llvm::zip(operands, shape->operands))
    accesses.push_back(broadcastAccess(v, bc, rank));
  Value init = emptyTensor(b, loc, shape->dims, elementType);
  SmallVector<int64_t> outLoops = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value result = buildGeneric(
      b, loc, accesses, init, outLoops, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange in, Value) {
        return fn(nb, nl, in);
      });
  return SmallVector<Value>{result};
}

bool isFloat(Value v) { return isa<FloatType>(v.getType()); }

Value addFn(OpBuilder &b, Location l, ValueRange v) {
  return isFloat(v[0]) ? arith::AddFOp::create(b, l, v[0], v[1]).getResult()
                       : arith::AddIOp::create(b, l, v[0], v[1]).getResult();
}
Value subFn(OpBuilder &b, Location l, ValueRange v) {
  return isFloat(v[0]) ? arith::SubFOp::create(b, l, v[0], v[1]).getResult()
                       : arith::SubIOp::create(b, l, v[0], v[1]).getResult();
}
Value mulFn(OpBuilder &b, Location l, ValueRange v) {
  return isFloat(v[0]) ? arith::MulFOp::create(b, l, v[0], v[1]).getResult()
                       : arith::MulIOp::create(b, l, v[0], v[1]).getResult();
}
Value divFn(OpBuilder &b, Location l, ValueRange v) {
  return isFloat(v[0]) ? arith::DivFOp::create(b, l, v[0], v[1]).getResult()
                       : arith::DivSIOp::create(b, l, v[0], v[1]).getResult();
}
Value reluFn(OpBuilder &b, Location l, ValueRange v) {
  Value zero = scalarConstant(b, l, v[0].getType(), 0.0);
  return isFloat(v[0])
             ? arith::MaximumFOp::create(b, l, v[0], zero).getResult()
             : arith::MaxSIOp::create(b, l, v[0], zero).getResult();
}
Value negFn(OpBuilder &b, Location l, ValueRange v) {
  if (isFloat(v[0]))
    return arith::NegFOp::create(b, l, v[0]);
  Value zero = scalarConstant(b, l, v[0].getType(), 0.0);
  return arith::SubIOp::create(b, l, zero, v[0]);
}
Value absFn(OpBuilder &b, Location l, ValueRange v) {
  return isFloat(v[0]) ? math::AbsFOp::create(b, l, v[0]).getResult()
                       : math::AbsIOp::create(b, l, v[0]).getResult();
}
Value sigmoidFn(OpBuilder &b, Location l, ValueRange v) {
  Value one = scalarConstant(b, l, v[0].getType(), 1.0);
  Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, v[0]));
  return arith::DivFOp::create(b, l, one, arith::AddFOp::create(b, l, one, e));
}
Value reciprocalFn(OpBuilder &b, Location l, ValueRange v) {
  Value one = scalarConstant(b, l, v[0].getType(), 1.0);
  return arith::DivFOp::create(b, l, one, v[0]);
}

template <typename MathOp>
Value mathFn(OpBuilder &b, Location l, ValueRange v) {
  return MathOp::create(b, l, v[0]);
}

template <ScalarFn Fn>
FailureOr<SmallVector<Value>> lowerAny(Operation *op, OpBuilder &b) {
  return lowerBroadcastElementwise(op, b, Fn);
}

/// Float-only unary ops.
template <ScalarFn Fn>
FailureOr<SmallVector<Value>> lowerFloatUnary(Operation *op, OpBuilder &b) {
  auto type = requireRanked(op, op->getOperand(0), "the input");
  if (failed(type))
    return failure();
  if (!isa<FloatType>(type->getElementType()))
    return op->emitError() << "expects a floating-point input, got "
                           << type->getElementType();
  return lowerBroadcastElementwise(op, b, Fn);
}

} // namespace

void addElementwiseLowerings(LoweringTable &t) {
  t["onnx.Add"] = lowerAny<addFn>;
  t["onnx.Sub"] = lowerAny<subFn>;
  t["onnx.Mul"] = lowerAny<mulFn>;
  t["onnx.Div"] = lowerAny<divFn>;
  t["onnx.Relu"] = lowerAny<reluFn>;
  t["onnx.Neg"] = lowerAny<negFn>;
  t["onnx.Abs"] = lowerAny<absFn>;
  t["onnx.Sigmoid"] = lowerFloatUnary<sigmoidFn>;
  t["onnx.Reciprocal"] = lowerFloatUnary<reciprocalFn>;
  t["onnx.Exp"] = lowerFloatUnary<mathFn<math::ExpOp>>;
  t["onnx.Log"] = lowerFloatUnary<mathFn<math::LogOp>>;
  t["onnx.Sqrt"] = lowerFloatUnary<mathFn<math::SqrtOp>>;
  t["onnx.Tanh"] = lowerFloatUnary<mathFn<math::TanhOp>>;
  t["onnx.Floor"] = lowerFloatUnary<mathFn<math::FloorOp>>;
  t["onnx.Ceil"] = lowerFloatUnary<mathFn<math::CeilOp>>;
  t["onnx.Sin"] = lowerFloatUnary<mathFn<math::SinOp>>;
  t["onnx.Cos"] = lowerFloatUnary<mathFn<math::CosOp>>;
  t["onnx.Erf"] = lowerFloatUnary<mathFn<math::ErfOp>>;
}

} // namespace onyx::conversion
