//===- Normalization.cpp - Softmax, the normalizations and the losses -----===//
//
// Every op here is a few statistics folded over some dims of its input
// (max, sum, sum of squared deviations), then one elementwise generic that
// reads the input with the statistics broadcast back over the folded dims.
//
//   Softmax/LogSoftmax   (opset 13) max, sum of exp(x - max) along one axis
//   LayerNormalization   mean, variance over dims [axis, rank)
//   InstanceNormalization  mean, variance over the spatial dims
//   BatchNormalization   per-channel given statistics; training_mode folds
//                        the batch's own and updates the running ones
//   MeanVarianceNormalization  mean, variance over `axes`
//   LRN                  sum of squares over a window of channels
//   NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
//                        a gather of -log p at the target class, weighted,
//                        optionally summed or averaged
//
// Variances are folded in two passes (mean first, then squared deviations),
// which is as exact as the references' formulas and never negative.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "onyx/Shape/ReductionShapes.h"

using namespace mlir;

namespace onyx::conversion {
namespace {

//===----------------------------------------------------------------------===//
// Shared pieces
//===----------------------------------------------------------------------===//

/// Loops of a statistic over the kept dims, in the keepdims layout: -1
/// (index 0) for the folded dims.
SmallVector<int64_t> keptLoops(ArrayRef<bool> reduced) {
  SmallVector<int64_t> loops;
  for (auto [i, r] : llvm::enumerate(reduced))
    loops.push_back(r ? -1 : int64_t(i));
  return loops;
}

/// Reads `tensor`, whose dims follow `loops`, inside a generic.
OperandAccess accessAlong(Value tensor, ArrayRef<int64_t> loops) {
  OperandAccess access;
  access.tensor = tensor;
  access.loops.assign(loops.begin(), loops.end());
  access.isOne.assign(loops.size(), Value());
  return access;
}

SmallVector<int64_t> allLoops(int64_t rank) {
  return llvm::to_vector(llvm::seq<int64_t>(0, rank));
}

/// Sums `summand(inputs)` over the loops flagged in `reduced` into a tensor
/// of `dims` whose dims follow `outLoops`.
Value sumOver(
    OpBuilder &b, Location loc, ArrayRef<OperandAccess> inputs,
    ArrayRef<bool> reduced, ArrayRef<int64_t> outLoops,
    ArrayRef<OpFoldResult> dims, Type elementType,
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange)> summand) {
  SmallVector<utils::IteratorType> iterators;
  for (bool r : reduced)
    iterators.push_back(r ? utils::IteratorType::reduction
                          : utils::IteratorType::parallel);
  Value init =
      filledTensor(b, loc, dims, scalarConstant(b, loc, elementType, 0.0));
  return buildGeneric(
      b, loc, inputs, init, outLoops, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange in, Value acc) {
        return arith::AddFOp::create(nb, nl, acc, summand(nb, nl, in))
            .getResult();
      });
}

/// An elementwise generic over `dims` (all inputs read through `inputs`).
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

/// `v` converted between float types (stash types, mixed-precision loss).
Value convertFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

/// `count` (an index extent) as a float scalar of `type`.
Value countAsFloat(OpBuilder &b, Location loc, OpFoldResult count, Type type) {
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                         shape::toValue(b, loc, count));
  return arith::SIToFPOp::create(b, loc, type, i64);
}

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

bool isAbsent(Value v) { return !v || isa<NoneType>(v.getType()); }

/// Mean and variance of `input` over the dims flagged in `reduced` (count
/// `count` elements per statistic), in `statType`, laid out along
/// `statLoops` with `statDims`.
struct Moments {
  Value mean, variance;
};
Moments foldMoments(OpBuilder &b, Location loc, Value input,
                    ArrayRef<bool> reduced, ArrayRef<int64_t> statLoops,
                    ArrayRef<OpFoldResult> statDims, OpFoldResult count,
                    Type statType) {
  OperandAccess x = identityAccess(input);
  Value n = countAsFloat(b, loc, count, statType);
  Value sum = sumOver(b, loc, {x}, reduced, statLoops, statDims, statType,
                      [&](OpBuilder &nb, Location nl, ValueRange in) {
                        return convertFloat(nb, nl, in[0], statType);
                      });
  auto divideByCount = [&](Value total) {
    return mapOver(b, loc, {identityAccess(total)}, statDims, statType,
                   [&](OpBuilder &nb, Location nl, ValueRange in) {
                     return arith::DivFOp::create(nb, nl, in[0], n).getResult();
                   });
  };
  Value mean = divideByCount(sum);
  Value squares = sumOver(
      b, loc, {x, accessAlong(mean, statLoops)}, reduced, statLoops, statDims,
      statType, [&](OpBuilder &nb, Location nl, ValueRange in) {
        Value d = arith::SubFOp::create(
            nb, nl, convertFloat(nb, nl, in[0], statType), in[1]);
        return arith::MulFOp::create(nb, nl, d, d).getResult();
      });
  return {mean, divideByCount(squares)};
}

/// 1 / sqrt(variance + epsilon), elementwise over `dims`.
Value inverseStdDev(OpBuilder &b, Location loc, Value variance,
                    ArrayRef<OpFoldResult> dims, double epsilon) {
  Type type = cast<RankedTensorType>(variance.getType()).getElementType();
  Value eps = scalarConstant(b, loc, type, epsilon);
  Value one = scalarConstant(b, loc, type, 1.0);
  return mapOver(b, loc, {identityAccess(variance)}, dims, type,
                 [&](OpBuilder &nb, Location nl, ValueRange in) {
                   Value s = math::SqrtOp::create(
                       nb, nl, arith::AddFOp::create(nb, nl, in[0], eps));
                   return arith::DivFOp::create(nb, nl, one, s).getResult();
                 });
}

//===----------------------------------------------------------------------===//
// Softmax, LogSoftmax
//===----------------------------------------------------------------------===//

/// Softmax (or LogSoftmax) of `input` along `axis`: the max along the axis,
/// the sum of exp(x - max), and the normalized result.
Value buildSoftmax(OpBuilder &b, Location loc, Operation *op, Value input,
                   int64_t axis, bool isLog) {
  auto type = cast<RankedTensorType>(input.getType());
  auto elementType = cast<FloatType>(type.getElementType());
  int64_t rank = type.getRank();
  auto shape = shape::reduceShape(b, loc, input, {axis}, /*keepDims=*/false,
                                  /*noopWithEmptyAxes=*/false, op);
  // The axis was normalized by the caller, so the shape cannot fail.
  SmallVector<OpFoldResult> reducedDims = shape->dims;
  SmallVector<int64_t> reducedLoops;
  for (int64_t i = 0; i < rank; ++i)
    if (i != axis)
      reducedLoops.push_back(i);
  SmallVector<utils::IteratorType> reduceIters(rank,
                                               utils::IteratorType::parallel);
  reduceIters[axis] = utils::IteratorType::reduction;

  OperandAccess x = identityAccess(input);
  Value negInf = arith::ConstantOp::create(
      b, loc,
      b.getFloatAttr(elementType,
                     APFloat::getInf(elementType.getFloatSemantics(), true)));
  Value max = buildGeneric(
      b, loc, {x}, filledTensor(b, loc, reducedDims, negInf), reducedLoops,
      reduceIters, [](OpBuilder &nb, Location nl, ValueRange in, Value acc) {
        return arith::MaximumFOp::create(nb, nl, acc, in[0]);
      });

  Value zero = scalarConstant(b, loc, elementType, 0.0);
  Value sum = buildGeneric(
      b, loc, {x, accessAlong(max, reducedLoops)},
      filledTensor(b, loc, reducedDims, zero), reducedLoops, reduceIters,
      [](OpBuilder &nb, Location nl, ValueRange in, Value acc) {
        Value e = math::ExpOp::create(
            nb, nl, arith::SubFOp::create(nb, nl, in[0], in[1]));
        return arith::AddFOp::create(nb, nl, acc, e);
      });

  return mapOver(
      b, loc,
      {x, accessAlong(max, reducedLoops), accessAlong(sum, reducedLoops)},
      shape::getDims(b, loc, input), elementType,
      [&](OpBuilder &nb, Location nl, ValueRange in) {
        Value shifted = arith::SubFOp::create(nb, nl, in[0], in[1]);
        if (isLog)
          return arith::SubFOp::create(nb, nl, shifted,
                                       math::LogOp::create(nb, nl, in[2]))
              .getResult();
        return arith::DivFOp::create(
                   nb, nl, math::ExpOp::create(nb, nl, shifted), in[2])
            .getResult();
      });
}

template <bool IsLog>
FailureOr<SmallVector<Value>> lowerSoftmax(Operation *op, OpBuilder &b) {
  Value input = op->getOperand(0);
  auto elementType = requireFloat(op, input, "the input");
  if (failed(elementType))
    return failure();
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  int64_t axisAttr = op->getAttrOfType<IntegerAttr>("axis")
                         ? op->getAttrOfType<IntegerAttr>("axis").getInt()
                         : -1;
  if (rank == 0)
    return op->emitError("expects an input of rank >= 1");
  auto axis = normalizeAxis(op, axisAttr, rank);
  if (failed(axis))
    return failure();
  return SmallVector<Value>{
      buildSoftmax(b, op->getLoc(), op, input, *axis, IsLog)};
}

//===----------------------------------------------------------------------===//
// LayerNormalization
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
    return op->emitError() << "stash_type " << dataType
                           << " is not a floating-point type";
  }
}

/// Access of `param` broadcast (unidirectionally) to `dims`.
FailureOr<OperandAccess> broadcastParam(OpBuilder &b, Location loc, Value param,
                                        ArrayRef<OpFoldResult> dims,
                                        Operation *op) {
  auto broadcast =
      shape::broadcastTo(b, loc, shape::getDims(b, loc, param), dims, op);
  if (failed(broadcast))
    return failure();
  return broadcastAccess(param, *broadcast, int64_t(dims.size()));
}

FailureOr<SmallVector<Value>> lowerLayerNorm(Operation *op, OpBuilder &b) {
  auto ln = cast<onnx::ONNXLayerNormalizationOp>(op);
  Location loc = op->getLoc();
  Value input = ln.getX();
  auto elementType = requireFloat(op, input, "X");
  if (failed(elementType))
    return failure();
  bool hasBias = !isAbsent(ln.getB());
  SmallVector<std::pair<Value, StringRef>> params = {{ln.getScale(), "Scale"}};
  if (hasBias)
    params.push_back({ln.getB(), "B"});
  for (auto [param, what] : params) {
    auto type = requireFloat(op, param, what);
    if (failed(type))
      return failure();
    if (*type != *elementType)
      return op->emitError() << what << " has element type " << *type
                             << " but X has " << *elementType;
  }
  auto statType = stashType(op, b, ln.getStashType());
  if (failed(statType))
    return failure();
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  if (rank == 0)
    return op->emitError("expects an input of rank >= 1");
  auto axis = normalizeAxis(op, ln.getAxis(), rank);
  if (failed(axis))
    return failure();

  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(*axis, rank));
  auto shape = shape::reduceShape(b, loc, input, axes, /*keepDims=*/true,
                                  /*noopWithEmptyAxes=*/false, op);
  if (failed(shape))
    return failure();
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, input);
  auto scale = broadcastParam(b, loc, ln.getScale(), dims, op);
  if (failed(scale))
    return failure();
  FailureOr<OperandAccess> bias = OperandAccess();
  if (hasBias && failed(bias = broadcastParam(b, loc, ln.getB(), dims, op)))
    return failure();

  SmallVector<int64_t> statLoops = keptLoops(shape->reduced);
  Moments moments = foldMoments(b, loc, input, shape->reduced, statLoops,
                                shape->keptDims, shape->count, *statType);
  Value invStdDev = inverseStdDev(b, loc, moments.variance, shape->keptDims,
                                  ln.getEpsilon().convertToDouble());

  SmallVector<OperandAccess> inputs{identityAccess(input),
                                    accessAlong(moments.mean, statLoops),
                                    accessAlong(invStdDev, statLoops), *scale};
  if (hasBias)
    inputs.push_back(*bias);
  Type outType = *elementType;
  Type stash = *statType;
  Value y =
      mapOver(b, loc, inputs, dims, outType,
              [&](OpBuilder &nb, Location nl, ValueRange in) {
                Value d = arith::SubFOp::create(
                    nb, nl, convertFloat(nb, nl, in[0], stash), in[1]);
                Value normalized = convertFloat(
                    nb, nl, arith::MulFOp::create(nb, nl, d, in[2]), outType);
                Value r = arith::MulFOp::create(nb, nl, normalized, in[3]);
                if (hasBias)
                  r = arith::AddFOp::create(nb, nl, r, in[4]);
                return r;
              });
  return SmallVector<Value>{y, isAbsent(ln.getMean()) ? Value() : moments.mean,
                            isAbsent(ln.getInvStdDev()) ? Value() : invStdDev};
}

//===----------------------------------------------------------------------===//
// BatchNormalization, InstanceNormalization
//===----------------------------------------------------------------------===//

/// Checks the per-channel operands of a (N, C, ...) normalization.
LogicalResult checkChannelParams(OpBuilder &b, Location loc, Operation *op,
                                 OpFoldResult channels,
                                 ArrayRef<std::pair<Value, StringRef>> params,
                                 Type elementType) {
  for (auto [param, what] : params) {
    auto type = requireFloat(op, param, what);
    if (failed(type))
      return failure();
    if (*type != elementType)
      return op->emitError() << what << " has element type " << *type
                             << " but the input has " << elementType;
    if (failed(shape::checkChannelParam(b, loc, param, channels, what, op)))
      return failure();
  }
  return success();
}

/// (x - mean) * invStdDev * scale + bias over the input's dims; statistics
/// follow `statLoops`, scale and bias the channel loop 1.
Value normalizeChannels(OpBuilder &b, Location loc, Value input, Value mean,
                        Value invStdDev, ArrayRef<int64_t> statLoops,
                        Value scale, Value bias) {
  Type type = cast<RankedTensorType>(input.getType()).getElementType();
  return mapOver(b, loc,
                 {identityAccess(input), accessAlong(mean, statLoops),
                  accessAlong(invStdDev, statLoops), accessAlong(scale, {1}),
                  accessAlong(bias, {1})},
                 shape::getDims(b, loc, input), type,
                 [](OpBuilder &nb, Location nl, ValueRange in) {
                   Value d = arith::SubFOp::create(nb, nl, in[0], in[1]);
                   Value n = arith::MulFOp::create(nb, nl, d, in[2]);
                   return arith::AddFOp::create(
                              nb, nl, arith::MulFOp::create(nb, nl, n, in[3]),
                              in[4])
                       .getResult();
                 });
}

/// running * momentum + current * (1 - momentum), over the channels.
Value updateRunning(OpBuilder &b, Location loc, Value running, Value current,
                    double momentum) {
  Type type = cast<RankedTensorType>(running.getType()).getElementType();
  Value m = scalarConstant(b, loc, type, momentum);
  Value rest = scalarConstant(b, loc, type, 1.0 - momentum);
  return mapOver(b, loc, {identityAccess(running), identityAccess(current)},
                 shape::getDims(b, loc, running), type,
                 [&](OpBuilder &nb, Location nl, ValueRange in) {
                   return arith::AddFOp::create(
                              nb, nl, arith::MulFOp::create(nb, nl, in[0], m),
                              arith::MulFOp::create(nb, nl, in[1], rest))
                       .getResult();
                 });
}

FailureOr<SmallVector<Value>> lowerBatchNorm(Operation *op, OpBuilder &b) {
  auto bn = cast<onnx::ONNXBatchNormalizationOp>(op);
  Location loc = op->getLoc();
  Value input = bn.getX();
  auto elementType = requireFloat(op, input, "X");
  if (failed(elementType))
    return failure();
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  if (rank < 2)
    return op->emitError("expects an input of rank >= 2 (N, C, ...)");
  OpFoldResult channels = shape::getDim(b, loc, input, 1);
  if (failed(checkChannelParams(b, loc, op, channels,
                                {{bn.getScale(), "scale"},
                                 {bn.getB(), "B"},
                                 {bn.getInputMean(), "input_mean"},
                                 {bn.getInputVar(), "input_var"}},
                                *elementType)))
    return failure();
  double epsilon = bn.getEpsilon().convertToDouble();
  SmallVector<int64_t> channelLoop = {1};

  if (bn.getTrainingMode() == 0) {
    Value invStdDev =
        inverseStdDev(b, loc, bn.getInputVar(),
                      shape::getDims(b, loc, bn.getInputVar()), epsilon);
    return SmallVector<Value>{
        normalizeChannels(b, loc, input, bn.getInputMean(), invStdDev,
                          channelLoop, bn.getScale(), bn.getB())};
  }

  // Training: normalize with the batch's own statistics (biased variance)
  // and blend them into the running ones.
  SmallVector<int64_t> axes = {0};
  for (int64_t i = 2; i < rank; ++i)
    axes.push_back(i);
  auto shape = shape::reduceShape(b, loc, input, axes, /*keepDims=*/false,
                                  /*noopWithEmptyAxes=*/false, op);
  if (failed(shape))
    return failure();
  Moments moments = foldMoments(b, loc, input, shape->reduced, channelLoop,
                                shape->dims, shape->count, *elementType);
  Value invStdDev =
      inverseStdDev(b, loc, moments.variance, shape->dims, epsilon);
  Value y = normalizeChannels(b, loc, input, moments.mean, invStdDev,
                              channelLoop, bn.getScale(), bn.getB());
  double momentum = bn.getMomentum().convertToDouble();
  Value runningMean =
      isAbsent(bn.getRunningMean())
          ? Value()
          : updateRunning(b, loc, bn.getInputMean(), moments.mean, momentum);
  Value runningVar =
      isAbsent(bn.getRunningVar())
          ? Value()
          : updateRunning(b, loc, bn.getInputVar(), moments.variance, momentum);
  return SmallVector<Value>{y, runningMean, runningVar};
}

FailureOr<SmallVector<Value>> lowerInstanceNorm(Operation *op, OpBuilder &b) {
  auto in = cast<onnx::ONNXInstanceNormalizationOp>(op);
  Location loc = op->getLoc();
  Value input = in.getInput();
  auto elementType = requireFloat(op, input, "the input");
  if (failed(elementType))
    return failure();
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  if (rank < 2)
    return op->emitError("expects an input of rank >= 2 (N, C, ...)");
  OpFoldResult channels = shape::getDim(b, loc, input, 1);
  if (failed(checkChannelParams(b, loc, op, channels,
                                {{in.getScale(), "scale"}, {in.getB(), "B"}},
                                *elementType)))
    return failure();
  // A rank-2 input has no spatial dims: each statistic is one element.
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(2, rank));
  auto shape = shape::reduceShape(b, loc, input, axes, /*keepDims=*/true,
                                  /*noopWithEmptyAxes=*/true, op);
  if (failed(shape))
    return failure();
  SmallVector<int64_t> statLoops = keptLoops(shape->reduced);
  Moments moments = foldMoments(b, loc, input, shape->reduced, statLoops,
                                shape->keptDims, shape->count, *elementType);
  Value invStdDev = inverseStdDev(b, loc, moments.variance, shape->keptDims,
                                  in.getEpsilon().convertToDouble());
  return SmallVector<Value>{normalizeChannels(b, loc, input, moments.mean,
                                              invStdDev, statLoops,
                                              in.getScale(), in.getB())};
}

//===----------------------------------------------------------------------===//
// MeanVarianceNormalization, LRN
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerMVN(Operation *op, OpBuilder &b) {
  auto mvn = cast<onnx::ONNXMeanVarianceNormalizationOp>(op);
  Location loc = op->getLoc();
  Value input = mvn.getX();
  auto elementType = requireFloat(op, input, "X");
  if (failed(elementType))
    return failure();
  SmallVector<int64_t> axes;
  for (Attribute a : mvn.getAxes())
    axes.push_back(cast<IntegerAttr>(a).getInt());
  // Empty axes reduce everything, as the function's ReduceMean does.
  auto shape = shape::reduceShape(b, loc, input, axes, /*keepDims=*/true,
                                  /*noopWithEmptyAxes=*/false, op);
  if (failed(shape))
    return failure();
  SmallVector<int64_t> statLoops = keptLoops(shape->reduced);
  Moments moments = foldMoments(b, loc, input, shape->reduced, statLoops,
                                shape->keptDims, shape->count, *elementType);
  // The opset-13 function: (X - mean) / (sqrt(variance) + 1e-9).
  Value eps = scalarConstant(b, loc, *elementType, 1e-9);
  Value y =
      mapOver(b, loc,
              {identityAccess(input), accessAlong(moments.mean, statLoops),
               accessAlong(moments.variance, statLoops)},
              shape::getDims(b, loc, input), *elementType,
              [&](OpBuilder &nb, Location nl, ValueRange in) {
                Value d = arith::SubFOp::create(nb, nl, in[0], in[1]);
                Value s = arith::AddFOp::create(
                    nb, nl, math::SqrtOp::create(nb, nl, in[2]), eps);
                return arith::DivFOp::create(nb, nl, d, s).getResult();
              });
  return SmallVector<Value>{y};
}

/// x / (bias + alpha / size * sum of x^2 over the channel window)^beta; the
/// window around channel c is [c - floor((size-1)/2), c + ceil((size-1)/2)]
/// clipped to the channels.
FailureOr<SmallVector<Value>> lowerLRN(Operation *op, OpBuilder &b) {
  auto lrn = cast<onnx::ONNXLRNOp>(op);
  Location loc = op->getLoc();
  Value input = lrn.getX();
  auto elementType = requireFloat(op, input, "X");
  if (failed(elementType))
    return failure();
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  if (rank < 2)
    return op->emitError("expects an input of rank >= 2 (N, C, ...)");
  int64_t size = lrn.getSize();
  if (size < 1)
    return op->emitError() << "size must be positive, got " << size;
  int64_t before = (size - 1) / 2;

  // Loops: the input's dims, then the window (bounded by a tensor that is
  // never read). Channel c - before + w is read by tensor.extract, clamped
  // into range and masked, since it runs past the edges.
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, input);
  Value window = emptyTensor(b, loc, {b.getIndexAttr(size)}, b.getI8Type());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value channels = shape::toValue(b, loc, dims[1]);
  Type type = *elementType;
  Value zero = scalarConstant(b, loc, type, 0.0);
  Value squares = buildGeneric(
      b, loc, {accessAlong(window, {rank})}, filledTensor(b, loc, dims, zero),
      allLoops(rank), iterators,
      [&](OpBuilder &nb, Location nl, ValueRange, Value acc) {
        Value c = linalg::IndexOp::create(nb, nl, 1);
        Value w = linalg::IndexOp::create(nb, nl, uint64_t(rank));
        Value channel = arith::SubIOp::create(
            nb, nl, arith::AddIOp::create(nb, nl, c, w),
            arith::ConstantIndexOp::create(nb, nl, before));
        Value zeroIndex = arith::ConstantIndexOp::create(nb, nl, 0);
        Value inRange = arith::AndIOp::create(
            nb, nl,
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sge, channel,
                                  zeroIndex),
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, channel,
                                  channels));
        SmallVector<Value> indices;
        for (int64_t i = 0; i < rank; ++i)
          indices.push_back(
              i == 1
                  ? arith::SelectOp::create(nb, nl, inRange, channel, zeroIndex)
                        .getResult()
                  : linalg::IndexOp::create(nb, nl, uint64_t(i)).getResult());
        Value x = tensor::ExtractOp::create(nb, nl, input, indices);
        Value sq = arith::SelectOp::create(
            nb, nl, inRange, arith::MulFOp::create(nb, nl, x, x), zero);
        return arith::AddFOp::create(nb, nl, acc, sq).getResult();
      });

  Value bias = scalarConstant(b, loc, type, lrn.getBias().convertToDouble());
  Value alphaOverSize = scalarConstant(
      b, loc, type, lrn.getAlpha().convertToDouble() / double(size));
  Value beta = scalarConstant(b, loc, type, lrn.getBeta().convertToDouble());
  Value y = mapOver(
      b, loc, {identityAccess(input), identityAccess(squares)}, dims, type,
      [&](OpBuilder &nb, Location nl, ValueRange in) {
        Value base = arith::AddFOp::create(
            nb, nl, bias, arith::MulFOp::create(nb, nl, alphaOverSize, in[1]));
        return arith::DivFOp::create(nb, nl, in[0],
                                     math::PowFOp::create(nb, nl, base, beta))
            .getResult();
      });
  return SmallVector<Value>{y};
}

//===----------------------------------------------------------------------===//
// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
//===----------------------------------------------------------------------===//

/// What the losses share: log-probabilities (N, C, d...), integer targets
/// (N, d...), optional per-class weights, ignore_index and reduction.
struct LossOperands {
  Value logProb, target, weight;
  std::optional<int64_t> ignoreIndex;
  StringRef reduction;
};

/// The class a target element selects and its weight (0 when ignored).
/// Classes out of range were rejected before; the index is clamped anyway
/// so that an ignored target never reads out of bounds.
std::pair<Value, Value> targetClass(OpBuilder &b, Location loc,
                                    const LossOperands &ops, Value target,
                                    Type type) {
  Value t = arith::IndexCastOp::create(b, loc, b.getIndexType(), target);
  Value zeroIndex = arith::ConstantIndexOp::create(b, loc, 0);
  Value weight = scalarConstant(b, loc, type, 1.0);
  Value cls = t;
  if (ops.ignoreIndex) {
    Value ignored = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, target,
        scalarConstant(b, loc, target.getType(), double(*ops.ignoreIndex)));
    cls = arith::SelectOp::create(b, loc, ignored, zeroIndex, t);
    if (ops.weight)
      weight = tensor::ExtractOp::create(b, loc, ops.weight, ValueRange{cls});
    weight = arith::SelectOp::create(b, loc, ignored,
                                     scalarConstant(b, loc, type, 0.0), weight);
    return {cls, weight};
  }
  if (ops.weight)
    weight = tensor::ExtractOp::create(b, loc, ops.weight, ValueRange{cls});
  return {cls, weight};
}

/// -logProb[n, class, d...] * weight for the target element at the
/// generic's current indices; also returns the weight.
std::pair<Value, Value> elementLoss(OpBuilder &b, Location loc,
                                    const LossOperands &ops, Value target,
                                    Type type, int64_t targetRank) {
  auto [cls, weight] = targetClass(b, loc, ops, target, type);
  SmallVector<Value> indices;
  for (int64_t i = 0; i < targetRank; ++i) {
    if (i == 1)
      indices.push_back(cls);
    indices.push_back(linalg::IndexOp::create(b, loc, uint64_t(i)));
  }
  if (targetRank == 1)
    indices.push_back(cls);
  Value logProb = tensor::ExtractOp::create(b, loc, ops.logProb, indices);
  Value loss = arith::MulFOp::create(
      b, loc, arith::NegFOp::create(b, loc, logProb), weight);
  return {loss, weight};
}

/// Checks at run time that every target is a class in [0, C) or the
/// ignored index: folds an "all valid" flag, then asserts it.
void checkTargets(OpBuilder &b, Location loc, const LossOperands &ops,
                  OpFoldResult classes, int64_t targetRank) {
  Value numClasses = shape::toValue(b, loc, classes);
  Value init =
      filledTensor(b, loc, {}, arith::ConstantIntOp::create(b, loc, 1, 1));
  SmallVector<utils::IteratorType> iterators(targetRank,
                                             utils::IteratorType::reduction);
  Value valid = buildGeneric(
      b, loc, {identityAccess(ops.target)}, init, {}, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange in, Value acc) {
        Value t = arith::IndexCastOp::create(nb, nl, nb.getIndexType(), in[0]);
        Value zero = arith::ConstantIndexOp::create(nb, nl, 0);
        Value ok = arith::AndIOp::create(
            nb, nl,
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sge, t, zero),
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, t,
                                  numClasses));
        if (ops.ignoreIndex)
          ok = arith::OrIOp::create(
              nb, nl, ok,
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, in[0],
                                    scalarConstant(nb, nl, in[0].getType(),
                                                   double(*ops.ignoreIndex))));
        return arith::AndIOp::create(nb, nl, acc, ok).getResult();
      });
  Value allValid = tensor::ExtractOp::create(b, loc, valid, ValueRange{});
  AssertOp::create(b, loc, allValid,
                   b.getStringAttr("a target is neither a class in [0, {0}) "
                                   "nor the ignored index"),
                   ValueRange{numClasses});
}

/// The loss tensor (reduction "none") or scalar (sum, mean).
FailureOr<Value> buildLoss(OpBuilder &b, Location loc, Operation *op,
                           const LossOperands &ops) {
  auto type = cast<RankedTensorType>(ops.logProb.getType());
  auto elementType = cast<FloatType>(type.getElementType());
  auto targetType = dyn_cast<RankedTensorType>(ops.target.getType());
  if (!targetType || !isa<IntegerType>(targetType.getElementType()))
    return op->emitError("the target must be a ranked integer tensor");
  if (ops.weight) {
    auto weightType = requireFloat(op, ops.weight, "the weight");
    if (failed(weightType))
      return failure();
    if (*weightType != elementType)
      return op->emitError("the weight and the input differ in element type");
  }
  bool reduce = ops.reduction != "none";
  if (reduce && ops.reduction != "sum" && ops.reduction != "mean")
    return op->emitError() << "unknown reduction '" << ops.reduction << "'";
  auto shape =
      shape::lossShape(b, loc, ops.logProb, ops.target, ops.weight, reduce, op);
  if (failed(shape))
    return failure();
  int64_t targetRank = targetType.getRank();
  checkTargets(b, loc, ops, shape->classes, targetRank);

  OperandAccess target = identityAccess(ops.target);
  if (!reduce) {
    return mapOver(
        b, loc, {target}, shape->dims, elementType,
        [&](OpBuilder &nb, Location nl, ValueRange in) {
          return elementLoss(nb, nl, ops, in[0], elementType, targetRank).first;
        });
  }

  // Sum of the losses and (mean) of the weights, in one fold.
  Value zero = scalarConstant(b, loc, elementType, 0.0);
  Value init = filledTensor(b, loc, {}, zero);
  MLIRContext *ctx = b.getContext();
  AffineMap scalarMap = AffineMap::get(unsigned(targetRank), 0, {}, ctx);
  SmallVector<utils::IteratorType> iterators(targetRank,
                                             utils::IteratorType::reduction);
  auto fold = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType(), init.getType()}, ValueRange{ops.target},
      ValueRange{init, init},
      SmallVector<AffineMap>{
          AffineMap::getMultiDimIdentityMap(unsigned(targetRank), ctx),
          scalarMap, scalarMap},
      iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
        auto [loss, weight] =
            elementLoss(nb, nl, ops, args[0], elementType, targetRank);
        linalg::YieldOp::create(
            nb, nl,
            ValueRange{arith::AddFOp::create(nb, nl, args[1], loss),
                       arith::AddFOp::create(nb, nl, args[2], weight)});
      });
  if (ops.reduction == "sum")
    return fold.getResult(0);
  // Mean: weighted average (a plain mean over the kept elements when there
  // are no weights); all ignored gives 0/0, as the reference.
  return mapOver(
      b, loc,
      {identityAccess(fold.getResult(0)), identityAccess(fold.getResult(1))},
      {}, elementType, [](OpBuilder &nb, Location nl, ValueRange in) {
        return arith::DivFOp::create(nb, nl, in[0], in[1]).getResult();
      });
}

FailureOr<SmallVector<Value>> lowerNLLLoss(Operation *op, OpBuilder &b) {
  auto nll = cast<onnx::ONNXNegativeLogLikelihoodLossOp>(op);
  if (failed(requireFloat(op, nll.getInput(), "the input")))
    return failure();
  LossOperands ops{nll.getInput(), nll.getTarget(),
                   isAbsent(nll.getWeight()) ? Value() : nll.getWeight(),
                   nll.getIgnoreIndex(), nll.getReduction()};
  auto loss = buildLoss(b, op->getLoc(), op, ops);
  if (failed(loss))
    return failure();
  return SmallVector<Value>{*loss};
}

FailureOr<SmallVector<Value>> lowerSoftmaxCrossEntropy(Operation *op,
                                                       OpBuilder &b) {
  auto sce = cast<onnx::ONNXSoftmaxCrossEntropyLossOp>(op);
  Location loc = op->getLoc();
  Value scores = sce.getScores();
  if (failed(requireFloat(op, scores, "the scores")))
    return failure();
  if (cast<RankedTensorType>(scores.getType()).getRank() < 2)
    return op->emitError("the scores must have rank >= 2 (N, C, ...)");
  Value logProb = buildSoftmax(b, loc, op, scores, /*axis=*/1, /*isLog=*/true);
  LossOperands ops{logProb, sce.getLabels(),
                   isAbsent(sce.getWeights()) ? Value() : sce.getWeights(),
                   sce.getIgnoreIndex(), sce.getReduction()};
  auto loss = buildLoss(b, loc, op, ops);
  if (failed(loss))
    return failure();
  return SmallVector<Value>{*loss,
                            isAbsent(sce.getLogProb()) ? Value() : logProb};
}

} // namespace

void addNormalizationLowerings(LoweringTable &t) {
  t["onnx.Softmax"] = lowerSoftmax<false>;
  t["onnx.LogSoftmax"] = lowerSoftmax<true>;
  t["onnx.LayerNormalization"] = lowerLayerNorm;
  t["onnx.BatchNormalization"] = lowerBatchNorm;
  t["onnx.InstanceNormalization"] = lowerInstanceNorm;
  t["onnx.MeanVarianceNormalization"] = lowerMVN;
  t["onnx.LRN"] = lowerLRN;
  t["onnx.NegativeLogLikelihoodLoss"] = lowerNLLLoss;
  t["onnx.SoftmaxCrossEntropyLoss"] = lowerSoftmaxCrossEntropy;
}

} // namespace onyx::conversion
