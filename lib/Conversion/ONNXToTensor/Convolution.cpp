//===- Convolution.cpp - Convolution ops ----------------------------------===//
//
// Conv, ConvInteger, QLinearConv and ConvTranspose each lower to a
// linalg.generic whose window taps are reduction loops; the pools, which
// share the window machinery defined here (ConvolutionCommon.h), are in
// Pooling.cpp. The input is padded explicitly (with a value that cannot
// change the result: 0 for sums, the lowest value for max) and read at
// `out * stride + tap * dilation`, which works for every spatial rank and
// for dynamic batch, channel and spatial extents. Result dims and paddings
// come from lib/Shape/ConvolutionShapes.cpp.
//
// Convolutions view the channels as [group, channels per group]
// (tensor.expand_shape), so one generic serves group 1, grouped and
// depthwise convolutions, with static or dynamic channel counts.
// ConvTranspose is a stride-1 convolution with the flipped kernel over the
// input spread out by the strides.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionCommon.h"

using namespace mlir;

namespace onyx::conversion::convolution {

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// The integers of an optional I64ArrayAttr (empty when absent).
SmallVector<int64_t> intList(std::optional<ArrayAttr> attr) {
  SmallVector<int64_t> values;
  if (attr)
    for (Attribute a : *attr)
      values.push_back(cast<IntegerAttr>(a).getInt());
  return values;
}

std::optional<ArrayRef<int64_t>> optionalList(const SmallVector<int64_t> &v,
                                              std::optional<ArrayAttr> attr) {
  if (!attr)
    return std::nullopt;
  return ArrayRef<int64_t>(v);
}

bool isUnsignedInt(Type type) {
  auto intType = dyn_cast<IntegerType>(type);
  return intType && intType.isUnsigned();
}

/// The signless integer type of the same width as `type`, else `type`.
Type signlessOf(Type type) {
  if (auto intType = dyn_cast<IntegerType>(type))
    return IntegerType::get(type.getContext(), intType.getWidth());
  return type;
}

/// Reinterprets a scalar between ui<N> and i<N>. arith rejects unsigned
/// types; the LLVM lowering maps both to i<N>, so these casts vanish in
/// reconcile-unrealized-casts.
Value castScalar(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return UnrealizedConversionCastOp::create(b, loc, type, v).getResult(0);
}

SmallVector<int64_t> iota(int64_t n) {
  return llvm::to_vector(llvm::seq<int64_t>(0, n));
}

/// An elementwise copy of `t` with its elements reinterpreted as
/// `elementType` (ui<N> <-> i<N>).
Value castElements(OpBuilder &b, Location loc, Value t, Type elementType) {
  auto type = cast<RankedTensorType>(t.getType());
  if (type.getElementType() == elementType)
    return t;
  Value init = emptyTensor(b, loc, shape::getDims(b, loc, t), elementType);
  SmallVector<IteratorType> iters(type.getRank(), IteratorType::parallel);
  return buildGeneric(b, loc, {identityAccess(t)}, init, iota(type.getRank()),
                      iters,
                      [&](OpBuilder &nb, Location nl, ValueRange in, Value) {
                        return castScalar(nb, nl, in[0], elementType);
                      });
}

/// The smallest value of `type` (the padding of max pooling): -inf, the
/// most negative integer, or 0 when the integer is read as unsigned.
Value lowestValue(OpBuilder &b, Location loc, Type type, bool asUnsigned) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(floatType,
                       APFloat::getInf(floatType.getFloatSemantics(), true)));
  unsigned width = type.getIntOrFloatBitWidth();
  APInt lowest =
      asUnsigned ? APInt::getZero(width) : APInt::getSignedMinValue(width);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, lowest));
}

/// Index value of linalg loop `l` inside a generic body.
Value loopIndex(OpBuilder &b, Location loc, int64_t l) {
  return linalg::IndexOp::create(b, loc, uint64_t(l));
}

namespace {

/// [N, C, E...] from `input` [N, C, S...]: element j of each spatial dim of
/// `input` lands at offset + j * stride, everything else is `fill`.
///
/// A generic that reads `input` with tensor.extract at clamped indices
/// rather than tensor.pad/insert_slice: those bufferize to memref.copy into
/// strided views, which the CPU pipeline lowers to a `memrefCopy` call the
/// generated library cannot resolve.
Value spreadSpatial(OpBuilder &b, Location loc, Value input,
                    ArrayRef<OpFoldResult> extents,
                    ArrayRef<OpFoldResult> offsets, ArrayRef<int64_t> strides,
                    Value fill) {
  int64_t rank = int64_t(extents.size());
  SmallVector<OpFoldResult> inDims = shape::getDims(b, loc, input);
  SmallVector<OpFoldResult> dims = {inDims[0], inDims[1]};
  dims.append(extents.begin(), extents.end());
  SmallVector<Value> offsetValues, lastValues;
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t i = 0; i < rank; ++i) {
    offsetValues.push_back(shape::toValue(b, loc, offsets[i]));
    lastValues.push_back(arith::SubIOp::create(
        b, loc, shape::toValue(b, loc, inDims[2 + i]), one));
  }
  Value init = emptyTensor(b, loc, dims, fill.getType());
  SmallVector<IteratorType> iters(rank + 2, IteratorType::parallel);
  return buildGeneric(
      b, loc, {}, init, iota(rank + 2), iters,
      [&](OpBuilder &nb, Location nl, ValueRange, Value) -> Value {
        Value zero = arith::ConstantIndexOp::create(nb, nl, 0);
        Value inside = arith::ConstantIntOp::create(nb, nl, 1, 1);
        SmallVector<Value> indices = {loopIndex(nb, nl, 0),
                                      loopIndex(nb, nl, 1)};
        for (int64_t i = 0; i < rank; ++i) {
          Value rel = arith::SubIOp::create(nb, nl, loopIndex(nb, nl, 2 + i),
                                            offsetValues[i]);
          auto check = [&](arith::CmpIPredicate pred, Value l, Value r) {
            inside = arith::AndIOp::create(
                nb, nl, inside, arith::CmpIOp::create(nb, nl, pred, l, r));
          };
          check(arith::CmpIPredicate::sge, rel, zero);
          Value j = rel;
          if (strides[i] != 1) {
            Value s = arith::ConstantIndexOp::create(nb, nl, strides[i]);
            check(arith::CmpIPredicate::eq,
                  arith::RemSIOp::create(nb, nl, rel, s), zero);
            j = arith::DivSIOp::create(nb, nl, rel, s);
          }
          check(arith::CmpIPredicate::sle, j, lastValues[i]);
          // Clamped so that the read stays in bounds where it is unused.
          indices.push_back(arith::MaxSIOp::create(
              nb, nl, zero, arith::MinSIOp::create(nb, nl, j, lastValues[i])));
        }
        Value v = tensor::ExtractOp::create(nb, nl, input, indices);
        return arith::SelectOp::create(nb, nl, inside, v, fill);
      });
}

/// `input` [N, C, S...] padded to the spatial `extents`, `low` elements of
/// `padValue` before the input and the rest after; `input` itself when
/// nothing is padded.
Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<OpFoldResult> low, ArrayRef<OpFoldResult> extents,
                 Value padValue) {
  auto isZero = [](OpFoldResult p) { return shape::getStatic(p) == 0; };
  if (llvm::all_of(low, isZero) &&
      llvm::equal(extents,
                  ArrayRef(shape::getDims(b, loc, input)).drop_front(2),
                  [](OpFoldResult x, OpFoldResult y) {
                    return shape::provablyEqual(x, y);
                  }))
    return input;
  SmallVector<int64_t> unit(low.size(), 1);
  return spreadSpatial(b, loc, input, extents, low, unit, padValue);
}

} // namespace

/// `input` padded for the windows of `window` (begin pad, end pad plus the
/// ceil_mode overhang).
Value padForWindow(OpBuilder &b, Location loc, Value input,
                   ArrayRef<WindowDim> window, Value padValue) {
  SmallVector<OpFoldResult> low, extents;
  for (const WindowDim &d : window) {
    low.push_back(d.padBegin);
    extents.push_back(d.padded);
  }
  return padSpatial(b, loc, input, low, extents, padValue);
}

/// A linalg.generic with explicit indexing maps (window reads are affine
/// expressions, not plain loops, so buildGeneric does not fit).
SmallVector<Value> buildWindowGeneric(OpBuilder &b, Location loc,
                                      ValueRange inputs, ValueRange inits,
                                      ArrayRef<AffineMap> maps,
                                      ArrayRef<IteratorType> iterators,
                                      GenericBody body) {
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange(inits), inputs, inits, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, body(nb, nl, args));
      });
  return SmallVector<Value>(generic.getResults());
}

namespace {

Value multiplyAdd(OpBuilder &b, Location l, Value x, Value y, Value acc) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, l, acc, arith::MulFOp::create(b, l, x, y));
  return arith::AddIOp::create(b, l, acc, arith::MulIOp::create(b, l, x, y));
}

//===----------------------------------------------------------------------===//
// Grouped convolution core
//===----------------------------------------------------------------------===//

struct ConvGeometry {
  int64_t group;
  OpFoldResult inPerGroup, outPerGroup;
  SmallVector<int64_t> strides, dilations;
};

SmallVector<ReassociationIndices> splitDim(int64_t rank, int64_t dim) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < rank; ++i) {
    if (i == dim)
      groups.push_back({i, i + 1});
    else
      groups.push_back({i < dim ? i : i + 1});
  }
  return groups;
}

/// `t` with dim `dim` split into [group, extent / group].
Value splitGroups(OpBuilder &b, Location loc, Value t, int64_t dim,
                  int64_t group, OpFoldResult perGroup) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, t);
  SmallVector<OpFoldResult> expanded(dims.begin(), dims.begin() + dim);
  expanded.push_back(b.getIndexAttr(group));
  expanded.push_back(perGroup);
  expanded.append(dims.begin() + dim + 1, dims.end());
  auto resultType = RankedTensorType::get(shape::toStaticShape(expanded),
                                          type.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, resultType, t,
                                       splitDim(type.getRank(), dim), expanded);
}

/// Y = init + conv(x, w): `x` [N, C, P...] already padded, `w`
/// [G, M/G, C/G, K...], `init` [N, M, O...] (zeros or the bias), all in the
/// accumulator type:
///   Y[n, g, m, o] += X[n, g, c, o * s + t * d] * W[g, m, c, t]
Value groupedConv(OpBuilder &b, Location loc, Value x, Value w, Value init,
                  const ConvGeometry &geo) {
  int64_t rank = int64_t(geo.strides.size());
  Value xg = splitGroups(b, loc, x, 1, geo.group, geo.inPerGroup);
  Value yg = splitGroups(b, loc, init, 1, geo.group, geo.outPerGroup);

  // Loops: n, g, m, o..., c, t...
  WindowLoops loops{3, rank, 1, b.getContext()};
  AffineExpr n = loops.loop(0), g = loops.loop(1), m = loops.loop(2),
             c = loops.reduced(0);
  SmallVector<AffineExpr> xExprs = {n, g, c}, wExprs = {g, m, c},
                          yExprs = {n, g, m};
  for (int64_t i = 0; i < rank; ++i) {
    xExprs.push_back(loops.read(i, geo.strides[i], geo.dilations[i]));
    wExprs.push_back(loops.tap(i));
    yExprs.push_back(loops.out(i));
  }
  Value result = buildWindowGeneric(
                     b, loc, {xg, w}, {yg},
                     {loops.map(xExprs), loops.map(wExprs), loops.map(yExprs)},
                     loops.iterators(),
                     [](OpBuilder &nb, Location nl, ValueRange args) {
                       return SmallVector<Value>{
                           multiplyAdd(nb, nl, args[0], args[1], args[2])};
                     })
                     .front();
  SmallVector<ReassociationIndices> merge = splitDim(rank + 2, 1);
  return tensor::CollapseShapeOp::create(b, loc, result, merge);
}

/// The accumulator of a convolution: `bias` [M] broadcast to `dims`
/// [N, M, O...], or zeros when there is no bias.
FailureOr<Value> convInit(OpBuilder &b, Location loc, Operation *op, Value bias,
                          ArrayRef<OpFoldResult> dims, Type accType) {
  if (!bias || isa<NoneType>(bias.getType()))
    return filledTensor(b, loc, dims, scalarConstant(b, loc, accType, 0.0));
  auto biasType = requireRanked(op, bias, "the bias B");
  if (failed(biasType))
    return failure();
  if (biasType->getRank() != 1 || biasType->getElementType() != accType)
    return op->emitError() << "the bias B must be a 1-D tensor of " << accType
                           << "; it is " << bias.getType();
  if (failed(shape::checkEqual(b, loc, shape::getDim(b, loc, bias, 0), dims[1],
                               "bias length vs output channels", op)))
    return failure();
  OperandAccess access;
  access.tensor = bias;
  access.loops = {1};
  access.isOne = {Value()};
  int64_t rank = int64_t(dims.size());
  SmallVector<IteratorType> iters(rank, IteratorType::parallel);
  return buildGeneric(
      b, loc, {access}, emptyTensor(b, loc, dims, accType), iota(rank), iters,
      [](OpBuilder &, Location, ValueRange in, Value) { return in[0]; });
}

//===----------------------------------------------------------------------===//
// Conv
//===----------------------------------------------------------------------===//

/// Shared by Conv, ConvInteger and QLinearConv once X and W are in the
/// accumulator type: pads X with zeros and convolves into the bias.
FailureOr<Value> lowerConvCore(Operation *op, OpBuilder &b, Value x, Value w,
                               Value bias, Type accType, int64_t group,
                               std::optional<ArrayAttr> kernelAttr) {
  Location loc = op->getLoc();
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank() - 2;
  if (rank < 1)
    return op->emitError("the input must have rank >= 3 ([N, C, spatial...])");
  auto attrs = shape::getWindowAttrs(op, rank);
  if (failed(attrs))
    return failure();
  SmallVector<int64_t> kernel = intList(kernelAttr);
  auto shape = shape::convShape(b, loc, x, w, group,
                                optionalList(kernel, kernelAttr), *attrs, op);
  if (failed(shape))
    return failure();

  Value padded = padForWindow(b, loc, x, shape->window,
                              scalarConstant(b, loc, accType, 0.0));
  // W [M, C/G, K...] -> [G, M/G, C/G, K...].
  Value wg = splitGroups(b, loc, w, 0, group, shape->outChannelsPerGroup);
  auto init = convInit(b, loc, op, bias, shape->dims, accType);
  if (failed(init))
    return failure();
  ConvGeometry geo{group, shape->inChannelsPerGroup, shape->outChannelsPerGroup,
                   attrs->strides, attrs->dilations};
  return groupedConv(b, loc, padded, wg, *init, geo);
}

FailureOr<SmallVector<Value>> lowerConv(Operation *op, OpBuilder &b) {
  auto conv = cast<onnx::ONNXConvOp>(op);
  auto xType = requireRanked(op, conv.getX(), "the input X");
  auto wType = requireRanked(op, conv.getW(), "the weights W");
  if (failed(xType) || failed(wType))
    return failure();
  Type elementType = xType->getElementType();
  if (!isa<FloatType>(elementType))
    return op->emitError() << "Conv on " << elementType
                           << " is not supported (ONNX Conv is float-only)";
  if (wType->getElementType() != elementType)
    return op->emitError("X and W have different element types");
  auto result =
      lowerConvCore(op, b, conv.getX(), conv.getW(), conv.getB(), elementType,
                    conv.getGroup(), conv.getKernelShape());
  if (failed(result))
    return failure();
  return SmallVector<Value>{*result};
}

//===----------------------------------------------------------------------===//
// ConvInteger and QLinearConv
//===----------------------------------------------------------------------===//

/// `t` (8-bit, signed or unsigned) widened to i32 minus its zero point
/// `zeroPoint` (none, a scalar, or 1-D with one entry per dim `channelDim`
/// of `t`; `channelDim` -1 allows only a single entry). Padding the result
/// with 0 then equals padding `t` with its zero point.
FailureOr<Value> widenMinusZeroPoint(Operation *op, OpBuilder &b, Value t,
                                     Value zeroPoint, int64_t channelDim,
                                     StringRef what) {
  Location loc = op->getLoc();
  auto type = requireRanked(op, t, what);
  if (failed(type))
    return failure();
  Type elementType = type->getElementType();
  auto intType = dyn_cast<IntegerType>(elementType);
  if (!intType || intType.getWidth() > 32)
    return op->emitError() << what << " must be an integer tensor of at most "
                           << "32 bits; it is " << t.getType();
  bool isUnsigned = intType.isUnsigned();
  Type i32 = b.getI32Type();
  int64_t rank = type->getRank();
  SmallVector<OperandAccess> inputs = {identityAccess(t)};
  if (zeroPoint && !isa<NoneType>(zeroPoint.getType())) {
    auto zpType =
        requireRanked(op, zeroPoint, "the zero point of " + what.str());
    if (failed(zpType))
      return failure();
    if (zpType->getElementType() != elementType || zpType->getRank() > 1)
      return op->emitError()
             << "the zero point of " << what << " must be a scalar or 1-D "
             << elementType << " tensor; it is " << zeroPoint.getType();
    OperandAccess zp;
    zp.tensor = zeroPoint;
    if (zpType->getRank() == 1) {
      OpFoldResult length = shape::getDim(b, loc, zeroPoint, 0);
      if (channelDim < 0) {
        if (failed(shape::checkEqual(b, loc, length, b.getIndexAttr(1),
                                     "zero point length vs 1", op)))
          return failure();
        zp.loops = {-1};
        zp.isOne = {Value()};
      } else {
        auto bc = shape::broadcastTo(
            b, loc, {length}, {shape::getDim(b, loc, t, channelDim)}, op);
        if (failed(bc))
          return failure();
        OperandAccess access = broadcastAccess(zeroPoint, *bc, 1);
        zp.loops = {access.loops[0] < 0 ? -1 : channelDim};
        zp.isOne = access.isOne;
      }
    }
    inputs.push_back(zp);
  }
  auto widen = [=](OpBuilder &nb, Location nl, Value v) -> Value {
    v = castScalar(nb, nl, v, signlessOf(v.getType()));
    if (isUnsigned)
      return arith::ExtUIOp::create(nb, nl, i32, v);
    return arith::ExtSIOp::create(nb, nl, i32, v);
  };
  auto sameWidth = [&](OpBuilder &nb, Location nl, Value v) -> Value {
    // An i32 input needs no extension.
    if (cast<IntegerType>(signlessOf(v.getType())).getWidth() == 32)
      return castScalar(nb, nl, v, i32);
    return widen(nb, nl, v);
  };
  Value init = emptyTensor(b, loc, shape::getDims(b, loc, t), i32);
  SmallVector<IteratorType> iters(rank, IteratorType::parallel);
  return buildGeneric(
      b, loc, inputs, init, iota(rank), iters,
      [&](OpBuilder &nb, Location nl, ValueRange in, Value) -> Value {
        Value v = sameWidth(nb, nl, in[0]);
        if (in.size() < 2)
          return v;
        return arith::SubIOp::create(nb, nl, v, sameWidth(nb, nl, in[1]));
      });
}

FailureOr<SmallVector<Value>> lowerConvInteger(Operation *op, OpBuilder &b) {
  auto conv = cast<onnx::ONNXConvIntegerOp>(op);
  auto x = widenMinusZeroPoint(op, b, conv.getX(), conv.getXZeroPoint(), -1,
                               "the input x");
  if (failed(x))
    return failure();
  auto w = widenMinusZeroPoint(op, b, conv.getW(), conv.getWZeroPoint(), 0,
                               "the weights w");
  if (failed(w))
    return failure();
  auto result = lowerConvCore(op, b, *x, *w, Value(), b.getI32Type(),
                              conv.getGroup(), conv.getKernelShape());
  if (failed(result))
    return failure();
  return SmallVector<Value>{*result};
}

/// Reads a scale/zero-point operand as a per-tensor scalar or per-channel
/// vector access for loop `channelLoop` of an elementwise generic over
/// [N, M, O...].
FailureOr<OperandAccess> quantParamAccess(Operation *op, OpBuilder &b,
                                          Value param, StringRef what,
                                          OpFoldResult channels,
                                          bool perChannel) {
  Location loc = op->getLoc();
  auto type = requireRanked(op, param, what);
  if (failed(type))
    return failure();
  if (what.ends_with("scale") && !type->getElementType().isF32())
    return op->emitError() << what << " must be f32; it is " << param.getType();
  OperandAccess access;
  access.tensor = param;
  if (type->getRank() == 0)
    return access;
  if (type->getRank() != 1)
    return op->emitError() << what << " must be a scalar or 1-D tensor";
  OpFoldResult length = shape::getDim(b, loc, param, 0);
  if (!perChannel) {
    if (failed(shape::checkEqual(b, loc, length, b.getIndexAttr(1),
                                 (what + " length vs 1").str(), op)))
      return failure();
    access.loops = {-1};
    access.isOne = {Value()};
    return access;
  }
  auto bc = shape::broadcastTo(b, loc, {length}, {channels}, op);
  if (failed(bc))
    return failure();
  OperandAccess channelAccess = broadcastAccess(param, *bc, 1);
  access.loops = {channelAccess.loops[0] < 0 ? -1 : 1};
  access.isOne = channelAccess.isOne;
  return access;
}

FailureOr<SmallVector<Value>> lowerQLinearConv(Operation *op, OpBuilder &b) {
  auto conv = cast<onnx::ONNXQLinearConvOp>(op);
  Location loc = op->getLoc();
  auto yType = requireRanked(op, conv.getY(), "the result y");
  if (failed(yType))
    return failure();
  Type yElement = yType->getElementType();
  auto yInt = dyn_cast<IntegerType>(yElement);
  if (!yInt || yInt.getWidth() != 8)
    return op->emitError() << "QLinearConv results in " << yElement
                           << "; only 8-bit integers are supported";
  auto x = widenMinusZeroPoint(op, b, conv.getX(), conv.getXZeroPoint(), -1,
                               "the input x");
  if (failed(x))
    return failure();
  auto w = widenMinusZeroPoint(op, b, conv.getW(), conv.getWZeroPoint(), 0,
                               "the weights w");
  if (failed(w))
    return failure();
  auto acc = lowerConvCore(op, b, *x, *w, conv.getB(), b.getI32Type(),
                           conv.getGroup(), conv.getKernelShape());
  if (failed(acc))
    return failure();

  // y = saturate(round_half_even(acc * x_scale * w_scale / y_scale) + y_zp)
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, *acc);
  OpFoldResult channels = dims[1];
  auto xScale =
      quantParamAccess(op, b, conv.getXScale(), "x_scale", channels, false);
  auto wScale =
      quantParamAccess(op, b, conv.getWScale(), "w_scale", channels, true);
  auto yScale =
      quantParamAccess(op, b, conv.getYScale(), "y_scale", channels, false);
  auto yZero = quantParamAccess(op, b, conv.getYZeroPoint(), "y_zero_point",
                                channels, false);
  if (failed(xScale) || failed(wScale) || failed(yScale) || failed(yZero))
    return failure();
  bool isUnsigned = yInt.isUnsigned();
  Type i8 = signlessOf(yElement);
  Type f32 = b.getF32Type();
  int64_t rank = int64_t(dims.size());
  SmallVector<IteratorType> iters(rank, IteratorType::parallel);
  Value init = emptyTensor(b, loc, dims, yElement);
  Value result = buildGeneric(
      b, loc, {identityAccess(*acc), *xScale, *wScale, *yScale, *yZero}, init,
      iota(rank), iters,
      [&](OpBuilder &nb, Location nl, ValueRange in, Value) -> Value {
        Value scale = arith::DivFOp::create(
            nb, nl, arith::MulFOp::create(nb, nl, in[1], in[2]), in[3]);
        Value scaled = arith::MulFOp::create(
            nb, nl, arith::SIToFPOp::create(nb, nl, f32, in[0]), scale);
        Value rounded = math::RoundEvenOp::create(nb, nl, scaled);
        Value zp = castScalar(nb, nl, in[4], i8);
        zp = isUnsigned ? arith::UIToFPOp::create(nb, nl, f32, zp).getResult()
                        : arith::SIToFPOp::create(nb, nl, f32, zp).getResult();
        Value shifted = arith::AddFOp::create(nb, nl, rounded, zp);
        double lo = isUnsigned ? 0.0 : -128.0, hi = isUnsigned ? 255.0 : 127.0;
        Value clamped = arith::MinimumFOp::create(
            nb, nl,
            arith::MaximumFOp::create(nb, nl, shifted,
                                      scalarConstant(nb, nl, f32, lo)),
            scalarConstant(nb, nl, f32, hi));
        Value q =
            isUnsigned
                ? arith::FPToUIOp::create(nb, nl, i8, clamped).getResult()
                : arith::FPToSIOp::create(nb, nl, i8, clamped).getResult();
        return castScalar(nb, nl, q, yElement);
      });
  return SmallVector<Value>{result};
}

//===----------------------------------------------------------------------===//
// ConvTranspose
//===----------------------------------------------------------------------===//

/// W [C, M/G, K...] as the [G, M/G, C/G, K...] weights of the equivalent
/// convolution: channels regrouped and every kernel dim reversed.
Value flipTransposeWeights(OpBuilder &b, Location loc, Value w,
                           const shape::ConvTransposeShape &shape,
                           int64_t group) {
  int64_t rank = int64_t(shape.kernel.size());
  SmallVector<OpFoldResult> dims = {b.getIndexAttr(group),
                                    shape.outChannelsPerGroup,
                                    shape.inChannelsPerGroup};
  dims.append(shape.kernel.begin(), shape.kernel.end());
  Type elementType = cast<RankedTensorType>(w.getType()).getElementType();
  Value init = emptyTensor(b, loc, dims, elementType);
  Value inPerGroup = shape::toValue(b, loc, shape.inChannelsPerGroup);
  SmallVector<Value> lastTap;
  for (OpFoldResult k : shape.kernel)
    lastTap.push_back(
        arith::SubIOp::create(b, loc, shape::toValue(b, loc, k),
                              arith::ConstantIndexOp::create(b, loc, 1)));
  SmallVector<IteratorType> iters(rank + 3, IteratorType::parallel);
  return buildGeneric(
      b, loc, {}, init, iota(rank + 3), iters,
      [&](OpBuilder &nb, Location nl, ValueRange, Value) -> Value {
        Value g = loopIndex(nb, nl, 0), m = loopIndex(nb, nl, 1),
              c = loopIndex(nb, nl, 2);
        Value channel = arith::AddIOp::create(
            nb, nl, arith::MulIOp::create(nb, nl, g, inPerGroup), c);
        SmallVector<Value> indices = {channel, m};
        for (int64_t i = 0; i < rank; ++i)
          indices.push_back(arith::SubIOp::create(nb, nl, lastTap[i],
                                                  loopIndex(nb, nl, 3 + i)));
        return tensor::ExtractOp::create(nb, nl, w, indices);
      });
}

FailureOr<SmallVector<Value>> lowerConvTranspose(Operation *op, OpBuilder &b) {
  auto conv = cast<onnx::ONNXConvTransposeOp>(op);
  Location loc = op->getLoc();
  Value x = conv.getX(), w = conv.getW();
  auto xType = requireRanked(op, x, "the input X");
  auto wType = requireRanked(op, w, "the weights W");
  if (failed(xType) || failed(wType))
    return failure();
  Type elementType = xType->getElementType();
  if (!isa<FloatType>(elementType))
    return op->emitError() << "ConvTranspose on " << elementType
                           << " is not supported (ONNX ConvTranspose is "
                              "float-only)";
  if (wType->getElementType() != elementType)
    return op->emitError("X and W have different element types");
  int64_t rank = xType->getRank() - 2;
  if (rank < 1)
    return op->emitError("the input must have rank >= 3 ([N, C, spatial...])");
  auto attrs = shape::getWindowAttrs(op, rank);
  if (failed(attrs))
    return failure();
  int64_t group = conv.getGroup();
  SmallVector<int64_t> kernel = intList(conv.getKernelShape());
  SmallVector<int64_t> outputPadding = intList(conv.getOutputPadding());
  SmallVector<int64_t> outputShape = intList(conv.getOutputShape());
  auto shape = shape::convTransposeShape(
      b, loc, x, w, group, optionalList(kernel, conv.getKernelShape()), *attrs,
      outputPadding, outputShape, op);
  if (failed(shape))
    return failure();

  // X spread out: element j of each spatial dim at offset + j * stride of
  // a zero tensor.
  Value spread =
      spreadSpatial(b, loc, x, shape->dilatedExtent, shape->inputOffset,
                    attrs->strides, scalarConstant(b, loc, elementType, 0.0));

  Value flipped = flipTransposeWeights(b, loc, w, *shape, group);
  auto init = convInit(b, loc, op, conv.getB(), shape->dims, elementType);
  if (failed(init))
    return failure();
  ConvGeometry geo{group, shape->inChannelsPerGroup, shape->outChannelsPerGroup,
                   SmallVector<int64_t>(rank, 1), attrs->dilations};
  return SmallVector<Value>{groupedConv(b, loc, spread, flipped, *init, geo)};
}

} // namespace
} // namespace onyx::conversion::convolution

namespace onyx::conversion {

void addConvolutionLowerings(LoweringTable &t) {
  using namespace convolution;
  t["onnx.Conv"] = lowerConv;
  t["onnx.ConvInteger"] = lowerConvInteger;
  t["onnx.QLinearConv"] = lowerQLinearConv;
  t["onnx.ConvTranspose"] = lowerConvTranspose;
  addPoolingLowerings(t);
}

} // namespace onyx::conversion
