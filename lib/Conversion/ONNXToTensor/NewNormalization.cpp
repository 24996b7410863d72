//===- NewNormalization.cpp - Newer normalizations and activations --------===//
//
//   LpNormalization (22)     the L1 or L2 norm along one axis (a
//                            reduction generic), then x / norm, 0 where the
//                            norm is 0
//   GroupNormalization (21)  X seen as [N, G, C/G, S]: mean and variance
//                            per (n, g) in stash_type (two passes), the
//                            normalized value converted back to X's type,
//                            then per-channel scale and bias
//   SwiGLU (28)              a * sigmoid(alpha * a) * b, elementwise
//
// float16/bfloat16 arithmetic is done in f32; where the ONNX reference
// computes in the narrow type, each of its roundings is reproduced.
//
//===----------------------------------------------------------------------===//

#include "NewOperators.h"

#include "onyx/Shape/NewOperatorShapes.h"
#include "onyx/Shape/ReductionShapes.h"

using namespace mlir;

namespace onyx::conversion {
namespace {

using namespace newops;

/// The float element type of `value`'s ranked type, or an error.
FailureOr<FloatType> requireFloat(Operation *op, Value value, StringRef what) {
  auto type = requireRanked(op, value, what);
  if (failed(type))
    return failure();
  auto elementType = dyn_cast<FloatType>(type->getElementType());
  if (!elementType)
    return op->emitError() << what << " must be floating-point, got "
                           << type->getElementType();
  return elementType;
}

SmallVector<int64_t> allLoops(int64_t rank) {
  return llvm::to_vector(llvm::seq<int64_t>(0, rank));
}

/// An elementwise generic over `dims`.
Value mapOver(OpBuilder &b, Location loc, ArrayRef<OperandAccess> inputs,
              ArrayRef<OpFoldResult> dims, Type elementType,
              llvm::function_ref<Value(OpBuilder &, Location, ValueRange)> fn) {
  int64_t rank = int64_t(dims.size());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return buildGeneric(b, loc, inputs, emptyTensor(b, loc, dims, elementType),
                      allLoops(rank), iterators,
                      [&](OpBuilder &nb, Location nl, ValueRange in, Value) {
                        return fn(nb, nl, in);
                      });
}

/// Sums `summand(inputs)` over the loops flagged in `reduced` (the rest
/// are `outLoops`, the result's dims `dims`), in `type`.
Value sumOver(
    OpBuilder &b, Location loc, ArrayRef<OperandAccess> inputs,
    ArrayRef<bool> reduced, ArrayRef<int64_t> outLoops,
    ArrayRef<OpFoldResult> dims, Type type,
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange)> summand) {
  SmallVector<utils::IteratorType> iterators;
  for (bool r : reduced)
    iterators.push_back(r ? utils::IteratorType::reduction
                          : utils::IteratorType::parallel);
  Value init = filledTensor(b, loc, dims, scalarConstant(b, loc, type, 0.0));
  return buildGeneric(
      b, loc, inputs, init, outLoops, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange in, Value acc) {
        return arith::AddFOp::create(nb, nl, acc, summand(nb, nl, in))
            .getResult();
      });
}

/// Access of `tensor` whose dims follow `loops`.
OperandAccess along(Value tensor, ArrayRef<int64_t> loops) {
  return projectedAccess(tensor, loops);
}

//===----------------------------------------------------------------------===//
// LpNormalization
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerLpNormalization(Operation *op,
                                                   OpBuilder &b) {
  auto lp = cast<onnx::ONNXLpNormalizationOp>(op);
  Location loc = op->getLoc();
  Value input = lp.getInput();
  auto elementType = requireFloat(op, input, "the input");
  if (failed(elementType))
    return failure();
  int64_t p = lp.getP();
  if (p != 1 && p != 2)
    return op->emitError() << "LpNormalization: p = " << p
                           << " is not supported (only 1 and 2 are defined)";
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  if (rank == 0)
    return op->emitError("LpNormalization: expects an input of rank >= 1");
  auto axis = normalizeAxis(op, lp.getAxis(), rank);
  if (failed(axis))
    return failure();
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, input);
  SmallVector<OpFoldResult> normDims = shape::dropDim(dims, *axis);
  SmallVector<int64_t> normLoops;
  SmallVector<bool> reduced(rank, false);
  reduced[*axis] = true;
  for (int64_t i = 0; i < rank; ++i)
    if (i != *axis)
      normLoops.push_back(i);
  Type type = *elementType;
  Type compute = computeFloatType(b, type);
  Value norm = sumOver(b, loc, {identityAccess(input)}, reduced, normLoops,
                       normDims, compute,
                       [&](OpBuilder &nb, Location nl, ValueRange in) -> Value {
                         Value x = convertFloat(nb, nl, in[0], compute);
                         if (p == 1)
                           return math::AbsFOp::create(nb, nl, x);
                         return arith::MulFOp::create(nb, nl, x, x);
                       });
  Value zero = scalarConstant(b, loc, compute, 0.0);
  Value y = mapOver(
      b, loc, {identityAccess(input), along(norm, normLoops)}, dims, type,
      [&](OpBuilder &nb, Location nl, ValueRange in) {
        Value n = in[1];
        if (p == 2)
          n = math::SqrtOp::create(nb, nl, n);
        // The norm as the reference holds it (in the input's type).
        n = roundThrough(nb, nl, n, type);
        Value x = convertFloat(nb, nl, in[0], compute);
        Value q = arith::DivFOp::create(nb, nl, x, n);
        Value isZero =
            arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ, n, zero);
        return convertFloat(nb, nl,
                            arith::SelectOp::create(nb, nl, isZero, zero, q),
                            type);
      });
  return SmallVector<Value>{y};
}

//===----------------------------------------------------------------------===//
// GroupNormalization
//===----------------------------------------------------------------------===//

/// The float type named by an ONNX TensorProto data type (stash_type).
FailureOr<Type> stashType(Operation *op, OpBuilder &b, int64_t dataType) {
  switch (dataType) {
  case 1:
    return Type(b.getF32Type());
  case 10:
    return Type(b.getF16Type());
  case 11:
    return Type(b.getF64Type());
  case 16:
    return Type(b.getBF16Type());
  default:
    return op->emitError() << "GroupNormalization: stash_type " << dataType
                           << " is not a floating-point type";
  }
}

FailureOr<SmallVector<Value>> lowerGroupNormalization(Operation *op,
                                                      OpBuilder &b) {
  auto gn = cast<onnx::ONNXGroupNormalizationOp>(op);
  Location loc = op->getLoc();
  Value input = gn.getX();
  auto elementType = requireFloat(op, input, "X");
  if (failed(elementType))
    return failure();
  Type type = *elementType;
  for (auto [param, what] : {std::pair<Value, StringRef>{gn.getScale(), "scale"},
                             std::pair<Value, StringRef>{gn.getBias(), "bias"}}) {
    auto paramType = requireFloat(op, param, what);
    if (failed(paramType))
      return failure();
    if (*paramType != type)
      return op->emitError() << "GroupNormalization: " << what
                             << " has element type " << *paramType
                             << " but X has " << type;
  }
  auto stash = stashType(op, b, gn.getStashType());
  if (failed(stash))
    return failure();
  // Statistics in the stash type (f32 arithmetic for a 16-bit stash, each
  // result rounded to it).
  Type statType = *stash;
  Type compute = computeFloatType(b, statType);
  auto view = shape::groupNormView(b, loc, input, gn.getNumGroups(), op);
  if (failed(view))
    return failure();
  OpFoldResult channels = shape::getDim(b, loc, input, 1);
  if (failed(shape::checkChannelParam(b, loc, gn.getScale(), channels,
                                      "scale", op)) ||
      failed(shape::checkChannelParam(b, loc, gn.getBias(), channels, "bias",
                                      op)))
    return failure();
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, input);
  // X as [N, G, C/G, S]; scale and bias as [G, C/G].
  Value x4 = reshapeTo(b, loc, input, *view);
  SmallVector<OpFoldResult> paramDims = {(*view)[1], (*view)[2]};
  Value scale = reshapeTo(b, loc, gn.getScale(), paramDims);
  Value bias = reshapeTo(b, loc, gn.getBias(), paramDims);
  SmallVector<OpFoldResult> statDims = {(*view)[0], (*view)[1]};
  SmallVector<int64_t> statLoops = {0, 1};
  SmallVector<bool> reduced = {false, false, true, true};
  shape::IndexMath m(b, loc);
  OpFoldResult count = m.mul((*view)[2], (*view)[3]);
  Value n = arith::SIToFPOp::create(
      b, loc, compute,
      arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                 shape::toValue(b, loc, count)));
  auto stashed = [&](OpBuilder &nb, Location nl, Value v) {
    return roundThrough(nb, nl, convertFloat(nb, nl, v, compute), statType);
  };
  Value sum = sumOver(b, loc, {identityAccess(x4)}, reduced, statLoops,
                      statDims, compute,
                      [&](OpBuilder &nb, Location nl, ValueRange in) {
                        return stashed(nb, nl, in[0]);
                      });
  Value mean = mapOver(b, loc, {identityAccess(sum)}, statDims, compute,
                       [&](OpBuilder &nb, Location nl, ValueRange in) {
                         return roundThrough(
                             nb, nl, arith::DivFOp::create(nb, nl, in[0], n),
                             statType);
                       });
  Value squares = sumOver(
      b, loc, {identityAccess(x4), along(mean, statLoops)}, reduced, statLoops,
      statDims, compute, [&](OpBuilder &nb, Location nl, ValueRange in) {
        Value d = arith::SubFOp::create(nb, nl, stashed(nb, nl, in[0]), in[1]);
        return arith::MulFOp::create(nb, nl, d, d).getResult();
      });
  Value eps =
      scalarConstant(b, loc, compute, gn.getEpsilon().convertToDouble());
  Value one = scalarConstant(b, loc, compute, 1.0);
  Value invStdDev = mapOver(
      b, loc, {identityAccess(squares)}, statDims, compute,
      [&](OpBuilder &nb, Location nl, ValueRange in) {
        Value variance = roundThrough(
            nb, nl, arith::DivFOp::create(nb, nl, in[0], n), statType);
        Value s = math::SqrtOp::create(
            nb, nl, arith::AddFOp::create(nb, nl, variance, eps));
        return arith::DivFOp::create(nb, nl, one, s).getResult();
      });
  Type outCompute = computeFloatType(b, type);
  Value y4 = mapOver(
      b, loc,
      {identityAccess(x4), along(mean, statLoops), along(invStdDev, statLoops),
       along(scale, {1, 2}), along(bias, {1, 2})},
      *view, type, [&](OpBuilder &nb, Location nl, ValueRange in) {
        Value d = arith::SubFOp::create(nb, nl, stashed(nb, nl, in[0]), in[1]);
        // The normalized value in the stash type, then in X's type.
        Value normalized = roundThrough(
            nb, nl, arith::MulFOp::create(nb, nl, d, in[2]), statType);
        normalized = convertFloat(nb, nl, convertFloat(nb, nl, normalized, type),
                                  outCompute);
        Value scaled = roundThrough(
            nb, nl,
            arith::MulFOp::create(nb, nl,
                                  convertFloat(nb, nl, in[3], outCompute),
                                  normalized),
            type);
        return convertFloat(
            nb, nl,
            arith::AddFOp::create(nb, nl, scaled,
                                  convertFloat(nb, nl, in[4], outCompute)),
            type);
      });
  return SmallVector<Value>{reshapeTo(b, loc, y4, dims)};
}

//===----------------------------------------------------------------------===//
// SwiGLU
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerSwiGLU(Operation *op, OpBuilder &b) {
  auto swiglu = cast<onnx::ONNXSwiGLUOp>(op);
  Location loc = op->getLoc();
  Value a = swiglu.getA(), v = swiglu.getB();
  auto aType = requireFloat(op, a, "A");
  auto vType = requireFloat(op, v, "B");
  if (failed(aType) || failed(vType))
    return failure();
  if (*aType != *vType)
    return op->emitError() << "SwiGLU: A has element type " << *aType
                           << " but B has " << *vType;
  int64_t rank = cast<RankedTensorType>(a.getType()).getRank();
  if (cast<RankedTensorType>(v.getType()).getRank() != rank)
    return op->emitError() << "SwiGLU: A " << a.getType() << " and B "
                           << v.getType()
                           << " differ in rank (no broadcasting)";
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, a);
  for (int64_t i = 0; i < rank; ++i)
    if (failed(shape::checkEqual(b, loc, shape::getDim(b, loc, v, i), dims[i],
                                 "SwiGLU: B / A dim " + std::to_string(i),
                                 op)))
      return failure();
  auto resultDims = declaredDims(b, loc, op, 0, dims);
  if (failed(resultDims))
    return failure();
  Type type = *aType;
  Type compute = computeFloatType(b, type);
  double alpha = swiglu.getAlpha().convertToDouble();
  Value y = mapOver(
      b, loc, {identityAccess(a), identityAccess(v)}, *resultDims, type,
      [&](OpBuilder &nb, Location nl, ValueRange in) {
        // The reference's steps, each rounded to the input type:
        // t = -alpha * a, e = exp(t), s = 1 / (1 + e), y = (a * s) * b.
        auto round = [&](Value x) { return roundThrough(nb, nl, x, type); };
        auto c = [&](double x) { return scalarConstant(nb, nl, compute, x); };
        Value x = convertFloat(nb, nl, in[0], compute);
        Value t = round(arith::MulFOp::create(nb, nl, c(-alpha), x));
        Value e = round(math::ExpOp::create(nb, nl, t));
        Value d = round(arith::AddFOp::create(nb, nl, c(1.0), e));
        Value s = round(arith::DivFOp::create(nb, nl, c(1.0), d));
        Value swish = round(arith::MulFOp::create(nb, nl, x, s));
        Value r = arith::MulFOp::create(
            nb, nl, swish, convertFloat(nb, nl, in[1], compute));
        return convertFloat(nb, nl, r, type);
      });
  return SmallVector<Value>{y};
}

} // namespace

void addNewNormalizationLowerings(LoweringTable &t) {
  t["onnx.LpNormalization"] = lowerLpNormalization;
  t["onnx.GroupNormalization"] = lowerGroupNormalization;
  t["onnx.SwiGLU"] = lowerSwiGLU;
}

} // namespace onyx::conversion
