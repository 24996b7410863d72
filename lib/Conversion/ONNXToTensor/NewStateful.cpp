//===- NewStateful.cpp - Operators that carry a state across calls --------===//
//
//   CausalConvWithState (27)  the past state (or zeros) and the input laid
//                             end to end along the length, a depthwise
//                             convolution over the window as one generic
//                             with a reduction (the window position j reads
//                             padded[l + j]), bias, SiLU; the state handed on
//                             is the padded input's last k - 1 positions
//   LinearAttention (27)      the reference's recurrence over time: an
//                             scf.for over T carrying the f32 state
//                             (B, H_kv, d_k, d_v) and the f32 output; each
//                             step decays the state, corrects the value by
//                             what the state retrieves for the key (delta
//                             rules), adds the key-value outer product and
//                             reads the state with the query (query heads
//                             grouped over the KV heads)
//
// Both compute in f32 for float16/bfloat16 inputs and round where the ONNX
// reference rounds. Extents may be symbolic: head sizes are the hidden
// sizes divided by the head counts (checked to divide exactly), the decay's
// per-head / per-key-dim form and the beta's per-head / shared form are
// told apart at run time when the extents are not static.
//
//===----------------------------------------------------------------------===//

#include "NewOperators.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;

namespace onyx::conversion {
namespace {

using namespace newops;

FailureOr<FloatType> floatElement(Operation *op, Value v, StringRef what,
                                  int64_t rank) {
  auto type = requireRanked(op, v, what);
  if (failed(type))
    return failure();
  if (type->getRank() != rank)
    return op->emitError() << what << " must have rank " << rank << ", got "
                           << v.getType();
  auto element = dyn_cast<FloatType>(type->getElementType());
  if (!element)
    return op->emitError() << what << " must be floating-point, got "
                           << type->getElementType();
  return element;
}

/// `dim` / `n` for a positive constant `n`, checked (statically or at run
/// time) to divide exactly; `what` names the extent.
FailureOr<OpFoldResult> divideExactly(OpBuilder &b, Location loc,
                                      OpFoldResult dim, int64_t n,
                                      StringRef what, Operation *op) {
  if (auto s = shape::getStatic(dim)) {
    if (*s % n != 0)
      return op->emitError()
             << what << " " << *s << " is not divisible by " << n;
    return OpFoldResult(b.getIndexAttr(*s / n));
  }
  Value v = shape::toValue(b, loc, dim);
  Value q = arith::DivUIOp::create(b, loc, v,
                                   arith::ConstantIndexOp::create(b, loc, n));
  Value back = arith::MulIOp::create(b, loc, q,
                                     arith::ConstantIndexOp::create(b, loc, n));
  if (failed(shape::checkEqual(b, loc, back, dim,
                               std::string(what) + " (a multiple of " +
                                   std::to_string(n) + ")",
                               op)))
    return failure();
  return OpFoldResult(q);
}

OpFoldResult subtractOne(OpBuilder &b, Location loc, OpFoldResult dim) {
  if (auto s = shape::getStatic(dim))
    return b.getIndexAttr(*s - 1);
  return arith::SubIOp::create(b, loc, shape::toValue(b, loc, dim),
                               arith::ConstantIndexOp::create(b, loc, 1))
      .getResult();
}

OpFoldResult divideBy(OpBuilder &b, Location loc, OpFoldResult num,
                      OpFoldResult den) {
  auto sn = shape::getStatic(num), sd = shape::getStatic(den);
  if (sn && sd && *sd != 0)
    return b.getIndexAttr(*sn / *sd);
  return arith::DivUIOp::create(b, loc, shape::toValue(b, loc, num),
                                shape::toValue(b, loc, den))
      .getResult();
}

/// Checks (statically or at run time) that `dim` is 1 or `other`; `what`
/// names the extent (given as a multiple `scale` of `dim` in messages).
LogicalResult checkOneOr(OpBuilder &b, Location loc, OpFoldResult dim,
                         OpFoldResult other, int64_t scale, StringRef what,
                         StringRef otherName, Operation *op) {
  auto sd = shape::getStatic(dim), so = shape::getStatic(other);
  if (sd && (*sd == 1 || (so && *sd == *so)))
    return success();
  if (sd && so)
    return op->emitError() << what << " is " << *sd * scale << ": must be "
                           << scale << " or " << scale << " * " << otherName
                           << " (" << scale * *so << ")";
  Value d = shape::toValue(b, loc, dim), o = shape::toValue(b, loc, other);
  Value ok = arith::OrIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d,
                            arith::ConstantIndexOp::create(b, loc, 1)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d, o));
  AssertOp::create(b, loc, ok,
                   b.getStringAttr(what.str() + " (divided by " +
                                   std::to_string(scale) +
                                   ") is {0}: must "
                                   "be 1 or " +
                                   otherName.str() + " = {1}"),
                   ValueRange{d, o});
  return success();
}

/// An i1 "dim is 1" for run-time broadcasting, or null when static.
Value isOneAtRunTime(OpBuilder &b, Location loc, OpFoldResult dim) {
  if (shape::getStatic(dim))
    return Value();
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                               shape::toValue(b, loc, dim),
                               arith::ConstantIndexOp::create(b, loc, 1));
}

/// Access of `tensor` (its dims following `loops`, -1: index 0) where dim
/// `broadcastDim` is 1 or the loop's extent.
OperandAccess broadcastAlong(OpBuilder &b, Location loc, Value tensor,
                             ArrayRef<int64_t> loops, int64_t broadcastDim) {
  OperandAccess access = projectedAccess(tensor, loops);
  OpFoldResult extent = shape::getDim(b, loc, tensor, broadcastDim);
  if (auto s = shape::getStatic(extent)) {
    if (*s == 1)
      access.loops[broadcastDim] = -1;
    return access;
  }
  access.isOne.assign(loops.size(), Value());
  access.isOne[broadcastDim] = isOneAtRunTime(b, loc, extent);
  return access;
}

/// `v` converted elementwise to `to` (a fresh tensor of `dims`).
Value convertTensor(OpBuilder &b, Location loc, Value v, Type to) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == to)
    return v;
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, v);
  int64_t rank = type.getRank();
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return buildGeneric(b, loc, {identityAccess(v)},
                      emptyTensor(b, loc, dims, to),
                      llvm::to_vector(llvm::seq<int64_t>(0, rank)), iterators,
                      [&](OpBuilder &nb, Location nl, ValueRange in, Value) {
                        return convertFloat(nb, nl, in[0], to);
                      });
}

/// A generic over `dims` (loops 0..n-1 plus the reduced ones flagged in
/// `reduced`, the result following `outLoops`) summing `term(inputs)` in
/// f32 into zeros; without reduced loops a plain map.
Value generic(
    OpBuilder &b, Location loc, ArrayRef<OperandAccess> inputs,
    ArrayRef<bool> reduced, ArrayRef<int64_t> outLoops,
    ArrayRef<OpFoldResult> outDims, Type type,
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange)> term) {
  SmallVector<utils::IteratorType> iterators;
  bool reduction = false;
  for (bool r : reduced) {
    iterators.push_back(r ? utils::IteratorType::reduction
                          : utils::IteratorType::parallel);
    reduction |= r;
  }
  Value init = reduction ? filledTensor(b, loc, outDims,
                                        scalarConstant(b, loc, type, 0.0))
                         : emptyTensor(b, loc, outDims, type);
  return buildGeneric(
      b, loc, inputs, init, outLoops, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange in, Value acc) -> Value {
        Value t = term(nb, nl, in);
        if (!reduction)
          return t;
        return arith::AddFOp::create(nb, nl, acc, t);
      });
}

//===----------------------------------------------------------------------===//
// CausalConvWithState
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerCausalConvWithState(Operation *op,
                                                       OpBuilder &b) {
  auto conv = cast<onnx::ONNXCausalConvWithStateOp>(op);
  Location loc = op->getLoc();
  Value input = conv.getInput(), weight = conv.getWeight();
  Value bias = conv.getBias(), past = conv.getPastState();
  bool hasBias = !isa<NoneType>(bias.getType());
  bool hasPast = !isa<NoneType>(past.getType());
  StringRef activation = conv.getActivation();
  if (activation != "none" && activation != "silu" && activation != "swish")
    return op->emitError() << "CausalConvWithState: activation '" << activation
                           << "' is not one of none, silu, swish";
  auto type = floatElement(op, input, "CausalConvWithState: input", 3);
  auto wType = floatElement(op, weight, "CausalConvWithState: weight", 3);
  if (failed(type) || failed(wType))
    return failure();
  if (*wType != *type)
    return op->emitError() << "CausalConvWithState: weight has element type "
                           << *wType << ", the input " << *type;
  SmallVector<OpFoldResult> in = shape::getDims(b, loc, input);
  SmallVector<OpFoldResult> w = shape::getDims(b, loc, weight);
  OpFoldResult batch = in[0], channels = in[1], length = in[2], k = w[2];
  if (failed(shape::checkEqual(b, loc, w[0], channels,
                               "CausalConvWithState: weight dim 0 / input "
                               "channels",
                               op)) ||
      failed(shape::checkEqual(b, loc, w[1], b.getIndexAttr(1),
                               "CausalConvWithState: weight dim 1 (depthwise)",
                               op)))
    return failure();
  if (auto sk = shape::getStatic(k); sk && *sk < 1)
    return op->emitError("CausalConvWithState: the kernel size is 0");
  OpFoldResult km1 = subtractOne(b, loc, k);
  if (hasBias) {
    auto bType = floatElement(op, bias, "CausalConvWithState: bias", 1);
    if (failed(bType))
      return failure();
    if (failed(shape::checkEqual(b, loc, shape::getDim(b, loc, bias, 0),
                                 channels,
                                 "CausalConvWithState: bias / channels", op)))
      return failure();
  }
  Type stateElement = *type;
  if (hasPast) {
    auto pType = floatElement(op, past, "CausalConvWithState: past_state", 3);
    if (failed(pType))
      return failure();
    if (*pType != *type)
      return op->emitError()
             << "CausalConvWithState: past_state has element type " << *pType
             << ", the input " << *type;
    SmallVector<OpFoldResult> p = shape::getDims(b, loc, past);
    const char *names[] = {"batch", "channels", "kernel size - 1"};
    OpFoldResult want[] = {batch, channels, km1};
    for (int i = 0; i < 3; ++i)
      if (failed(shape::checkEqual(
              b, loc, p[i], want[i],
              std::string("CausalConvWithState: past_state dim ") +
                  std::to_string(i) + " / " + names[i],
              op)))
        return failure();
  }
  auto outDims = declaredDims(b, loc, op, 0, in);
  if (failed(outDims))
    return failure();
  auto stateDims = declaredDims(b, loc, op, 1, {batch, channels, km1});
  if (failed(stateDims))
    return failure();

  // padded = concat(past_state or zeros, input) along the length.
  OpFoldResult paddedLength;
  if (auto sl = shape::getStatic(length), skm1 = shape::getStatic(km1);
      sl && skm1)
    paddedLength = b.getIndexAttr(*sl + *skm1);
  else
    paddedLength = arith::AddIOp::create(b, loc, shape::toValue(b, loc, length),
                                         shape::toValue(b, loc, km1))
                       .getResult();
  SmallVector<OpFoldResult> paddedDims = {batch, channels, paddedLength};
  Value padded = hasPast ? emptyTensor(b, loc, paddedDims, *type)
                         : filledTensor(b, loc, paddedDims,
                                        scalarConstant(b, loc, *type, 0.0));
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  SmallVector<OpFoldResult> unit(3, one);
  if (hasPast)
    padded = tensor::InsertSliceOp::create(
        b, loc, past, padded, SmallVector<OpFoldResult>{zero, zero, zero},
        SmallVector<OpFoldResult>{batch, channels, km1}, unit);
  padded = tensor::InsertSliceOp::create(
      b, loc, input, padded, SmallVector<OpFoldResult>{zero, zero, km1},
      SmallVector<OpFoldResult>{batch, channels, length}, unit);

  // sum[b, c, l] = sum_j padded[b, c, l + j] * weight[c, 0, j], in f32.
  Type f32 = b.getF32Type();
  MLIRContext *ctx = b.getContext();
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
             d2 = getAffineDimExpr(2, ctx), d3 = getAffineDimExpr(3, ctx);
  SmallVector<AffineMap> maps = {
      AffineMap::get(4, 0, {d0, d1, d2 + d3}, ctx),
      AffineMap::get(4, 0, {d1, getAffineConstantExpr(0, ctx), d3}, ctx),
      AffineMap::get(4, 0, {d0, d1, d2}, ctx)};
  SmallVector<utils::IteratorType> iterators = {
      utils::IteratorType::parallel, utils::IteratorType::parallel,
      utils::IteratorType::parallel, utils::IteratorType::reduction};
  Value acc0 = filledTensor(b, loc, *outDims, scalarConstant(b, loc, f32, 0.0));
  Value sum = linalg::GenericOp::create(
                  b, loc, TypeRange{acc0.getType()}, ValueRange{padded, weight},
                  ValueRange{acc0}, maps, iterators,
                  [&](OpBuilder &nb, Location nl, ValueRange args) {
                    Value p = convertFloat(nb, nl, args[0], f32);
                    Value q = convertFloat(nb, nl, args[1], f32);
                    Value r = arith::AddFOp::create(
                        nb, nl, args[2], arith::MulFOp::create(nb, nl, p, q));
                    linalg::YieldOp::create(nb, nl, r);
                  })
                  .getResult(0);

  // output = act(round(sum + bias)) in the input type.
  SmallVector<OperandAccess> accesses = {identityAccess(sum)};
  if (hasBias)
    accesses.push_back(projectedAccess(bias, {1}));
  bool silu = activation != "none";
  Type element = *type;
  Value output =
      generic(b, loc, accesses, {false, false, false}, {0, 1, 2}, *outDims,
              element, [&](OpBuilder &nb, Location nl, ValueRange args) {
                Value x = args[0];
                if (hasBias)
                  x = arith::AddFOp::create(nb, nl, x,
                                            convertFloat(nb, nl, args[1], f32));
                x = roundThrough(nb, nl, x, element);
                if (silu) {
                  Value oneF = scalarConstant(nb, nl, f32, 1.0);
                  Value e = math::ExpOp::create(
                      nb, nl, arith::NegFOp::create(nb, nl, x));
                  Value s = arith::DivFOp::create(
                      nb, nl, oneF, arith::AddFOp::create(nb, nl, oneF, e));
                  x = arith::MulFOp::create(nb, nl, x, s);
                }
                return convertFloat(nb, nl, x, element);
              });

  // present_state = padded[:, :, length : length + k - 1] (empty for
  // k = 1, where a slice at offset `length` would not verify).
  if (auto s = shape::getStatic(km1); s && *s == 0)
    return SmallVector<Value>{output,
                              emptyTensor(b, loc, *stateDims, stateElement)};
  Value present = tensor::ExtractSliceOp::create(
      b, loc,
      RankedTensorType::get(shape::toStaticShape(*stateDims), stateElement),
      padded, SmallVector<OpFoldResult>{zero, zero, length}, *stateDims, unit);
  return SmallVector<Value>{output, present};
}

//===----------------------------------------------------------------------===//
// LinearAttention
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerLinearAttention(Operation *op,
                                                   OpBuilder &b) {
  auto la = cast<onnx::ONNXLinearAttentionOp>(op);
  Location loc = op->getLoc();
  Value query = la.getQuery(), key = la.getKey(), value = la.getValue();
  Value past = la.getPastState(), decay = la.getDecay(), beta = la.getBeta();
  bool hasPast = !isa<NoneType>(past.getType());
  bool hasDecay = !isa<NoneType>(decay.getType());
  bool hasBeta = !isa<NoneType>(beta.getType());
  StringRef rule = la.getUpdateRule();
  if (rule != "linear" && rule != "gated" && rule != "delta" &&
      rule != "gated_delta")
    return op->emitError() << "LinearAttention: update_rule '" << rule
                           << "' is not one of linear, gated, delta, "
                              "gated_delta";
  bool gating = rule == "gated" || rule == "gated_delta";
  bool delta = rule == "delta" || rule == "gated_delta";
  if (gating != hasDecay)
    return op->emitError() << "LinearAttention: update_rule '" << rule << "' "
                           << (gating ? "requires" : "forbids")
                           << " the decay input";
  if (delta != hasBeta)
    return op->emitError() << "LinearAttention: update_rule '" << rule << "' "
                           << (delta ? "requires" : "forbids")
                           << " the beta input";
  int64_t hq = la.getQNumHeads(), hkv = la.getKvNumHeads();
  if (hq <= 0 || hkv <= 0 || hq % hkv != 0)
    return op->emitError() << "LinearAttention: q_num_heads (" << hq
                           << ") must be a positive multiple of kv_num_heads ("
                           << hkv << ")";
  int64_t group = hq / hkv;
  auto qType = floatElement(op, query, "LinearAttention: query", 3);
  auto kType = floatElement(op, key, "LinearAttention: key", 3);
  auto vType = floatElement(op, value, "LinearAttention: value", 3);
  if (failed(qType) || failed(kType) || failed(vType))
    return failure();
  Type outElement = *qType;
  SmallVector<OpFoldResult> q = shape::getDims(b, loc, query);
  SmallVector<OpFoldResult> kd = shape::getDims(b, loc, key);
  SmallVector<OpFoldResult> vd = shape::getDims(b, loc, value);
  OpFoldResult batch = q[0], steps = q[1];
  for (int i = 0; i < 2; ++i)
    if (failed(shape::checkEqual(
            b, loc, kd[i], q[i],
            "LinearAttention: key / query dim " + std::to_string(i), op)) ||
        failed(shape::checkEqual(
            b, loc, vd[i], q[i],
            "LinearAttention: value / query dim " + std::to_string(i), op)))
      return failure();
  auto dk = divideExactly(b, loc, q[2], hq,
                          "LinearAttention: the query's hidden size", op);
  auto dv = divideExactly(b, loc, vd[2], hkv,
                          "LinearAttention: the value's hidden size", op);
  if (failed(dk) || failed(dv))
    return failure();
  OpFoldResult keyHidden = shape::productOf(b, loc, {b.getIndexAttr(hkv), *dk});
  if (failed(shape::checkEqual(b, loc, kd[2], keyHidden,
                               "LinearAttention: the key's hidden size / "
                               "kv_num_heads * d_k",
                               op)))
    return failure();
  SmallVector<OpFoldResult> stateDims = {batch, b.getIndexAttr(hkv), *dk, *dv};
  Type stateElement = outElement;
  if (hasPast) {
    auto pType = floatElement(op, past, "LinearAttention: past_state", 4);
    if (failed(pType))
      return failure();
    stateElement = *pType;
    SmallVector<OpFoldResult> p = shape::getDims(b, loc, past);
    for (int i = 0; i < 4; ++i)
      if (failed(shape::checkEqual(b, loc, p[i], stateDims[i],
                                   "LinearAttention: past_state dim " +
                                       std::to_string(i) +
                                       " / (batch, kv_num_heads, d_k, d_v)",
                                   op)))
        return failure();
  }
  OpFoldResult decayWidth, betaWidth;
  if (hasDecay) {
    if (failed(floatElement(op, decay, "LinearAttention: decay", 3)))
      return failure();
    SmallVector<OpFoldResult> g = shape::getDims(b, loc, decay);
    if (failed(shape::checkEqual(b, loc, g[0], batch,
                                 "LinearAttention: decay dim 0 / batch", op)) ||
        failed(shape::checkEqual(b, loc, g[1], steps,
                                 "LinearAttention: decay dim 1 / sequence",
                                 op)))
      return failure();
    // Per KV head (H_kv) or per key dim (H_kv * d_k).
    auto width = divideExactly(b, loc, g[2], hkv,
                               "LinearAttention: decay's last dim", op);
    if (failed(width))
      return failure();
    decayWidth = *width;
    if (failed(checkOneOr(b, loc, decayWidth, *dk, hkv,
                          "LinearAttention: decay's last dim / kv_num_heads",
                          "d_k", op)))
      return failure();
  }
  if (hasBeta) {
    if (failed(floatElement(op, beta, "LinearAttention: beta", 3)))
      return failure();
    SmallVector<OpFoldResult> be = shape::getDims(b, loc, beta);
    if (failed(shape::checkEqual(b, loc, be[0], batch,
                                 "LinearAttention: beta dim 0 / batch", op)) ||
        failed(shape::checkEqual(b, loc, be[1], steps,
                                 "LinearAttention: beta dim 1 / sequence", op)))
      return failure();
    betaWidth = be[2];
    if (failed(checkOneOr(b, loc, betaWidth, b.getIndexAttr(hkv), 1,
                          "LinearAttention: beta's last dim", "kv_num_heads",
                          op)))
      return failure();
  }
  OpFoldResult outHidden = shape::productOf(b, loc, {b.getIndexAttr(hq), *dv});
  auto outDims = declaredDims(b, loc, op, 0, {batch, steps, outHidden});
  if (failed(outDims))
    return failure();
  auto presentDims = declaredDims(b, loc, op, 1, stateDims);
  if (failed(presentDims))
    return failure();

  float scaleAttr = la.getScale().convertToFloat();
  Type f32 = b.getF32Type();
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  OpFoldResult hqA = b.getIndexAttr(hq), hkvA = b.getIndexAttr(hkv),
               groupA = b.getIndexAttr(group);
  // (B, T, H*D) -> (B, T, H, D) in f32.
  auto unpack = [&](Value x, OpFoldResult heads, OpFoldResult d) {
    return reshapeTo(b, loc, convertTensor(b, loc, x, f32),
                     {batch, steps, heads, d});
  };
  Value q4 = unpack(query, hqA, *dk);
  Value k4 = unpack(key, hkvA, *dk);
  Value v4 = unpack(value, hkvA, *dv);
  Value g4 = hasDecay ? unpack(decay, hkvA, decayWidth) : Value();
  Value beta3 = hasBeta ? convertTensor(b, loc, beta, f32) : Value();
  Value state0 = hasPast ? convertTensor(b, loc, past, f32)
                         : filledTensor(b, loc, stateDims,
                                        scalarConstant(b, loc, f32, 0.0));
  state0 = castToDims(b, loc, state0, stateDims);
  SmallVector<OpFoldResult> out4Dims = {batch, steps, hqA, *dv};
  Value out0 = emptyTensor(b, loc, out4Dims, f32);

  // The scale: 1/sqrt(d_k) when 0 (d_k may be known only at run time).
  Value scale;
  if (scaleAttr != 0.0f) {
    scale = scalarConstant(b, loc, f32, double(scaleAttr));
  } else if (auto sdk = shape::getStatic(*dk)) {
    scale = scalarConstant(b, loc, f32, 1.0 / std::sqrt(double(*sdk)));
  } else {
    Value dkF = arith::UIToFPOp::create(
        b, loc, f32,
        arith::IndexCastUIOp::create(b, loc, b.getI64Type(),
                                     shape::toValue(b, loc, *dk)));
    scale = arith::DivFOp::create(b, loc, scalarConstant(b, loc, f32, 1.0),
                                  math::SqrtOp::create(b, loc, dkF));
  }

  // A slice at step t: (B, 1, rest...) of a (B, T, rest...) tensor.
  auto stepSlice = [&](OpBuilder &nb, Location nl, Value x, Value t) {
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<OpFoldResult> dims = shape::getDims(nb, nl, x);
    SmallVector<OpFoldResult> offsets(dims.size(), zero);
    offsets[1] = t;
    dims[1] = one;
    SmallVector<int64_t> shapeOut = shape::toStaticShape(dims);
    return tensor::ExtractSliceOp::create(
               nb, nl, RankedTensorType::get(shapeOut, type.getElementType()),
               x, offsets, dims, SmallVector<OpFoldResult>(dims.size(), one))
        .getResult();
  };

  Value lb = arith::ConstantIndexOp::create(b, loc, 0);
  Value ub = shape::toValue(b, loc, steps);
  Value stepOne = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, lb, ub, stepOne, ValueRange{state0, out0},
      [&](OpBuilder &fb, Location fl, Value t, ValueRange iter) {
        Value state = iter[0];
        Value qt = stepSlice(fb, fl, q4, t); // (B, 1, Hq, dk)
        Value kt = stepSlice(fb, fl, k4, t); // (B, 1, Hkv, dk)
        Value vt = stepSlice(fb, fl, v4, t); // (B, 1, Hkv, dv)
        // Loops (b, h, d, m) over the state.
        if (gating) {
          Value gt = stepSlice(fb, fl, g4, t); // (B, 1, Hkv, 1 or dk)
          state = generic(
              fb, fl,
              {identityAccess(state),
               broadcastAlong(fb, fl, gt, {0, -1, 1, 2}, 3)},
              {false, false, false, false}, {0, 1, 2, 3}, stateDims, f32,
              [&](OpBuilder &nb, Location nl, ValueRange in) -> Value {
                return arith::MulFOp::create(
                    nb, nl, in[0], math::ExpOp::create(nb, nl, in[1]));
              });
        }
        SmallVector<OpFoldResult> headDims = {batch, hkvA, *dv};
        Value written; // (B, Hkv, dv) values written, loops (b, h, m)
        OperandAccess vAccess = projectedAccess(vt, {0, -1, 1, 2});
        if (delta) {
          // retrieved[b, h, m] = sum_d state[b, h, d, m] * k[b, h, d];
          // loops (b, h, m, d).
          Value retrieved =
              generic(fb, fl,
                      {projectedAccess(state, {0, 1, 3, 2}),
                       projectedAccess(kt, {0, -1, 1, 3})},
                      {false, false, false, true}, {0, 1, 2}, headDims, f32,
                      [&](OpBuilder &nb, Location nl, ValueRange in) -> Value {
                        return arith::MulFOp::create(nb, nl, in[0], in[1]);
                      });
          Value bt = stepSlice(fb, fl, beta3, t); // (B, 1, Hkv or 1)
          written = generic(
              fb, fl,
              {vAccess, identityAccess(retrieved),
               broadcastAlong(fb, fl, bt, {0, -1, 1}, 2)},
              {false, false, false}, {0, 1, 2}, headDims, f32,
              [&](OpBuilder &nb, Location nl, ValueRange in) -> Value {
                return arith::MulFOp::create(
                    nb, nl, in[2], arith::SubFOp::create(nb, nl, in[0], in[1]));
              });
        }
        // state[b, h, d, m] += k[b, h, d] * written[b, h, m].
        OperandAccess writtenAccess = delta
                                          ? projectedAccess(written, {0, 1, 3})
                                          : projectedAccess(vt, {0, -1, 1, 3});
        state = generic(
            fb, fl,
            {identityAccess(state), projectedAccess(kt, {0, -1, 1, 2}),
             writtenAccess},
            {false, false, false, false}, {0, 1, 2, 3}, stateDims, f32,
            [&](OpBuilder &nb, Location nl, ValueRange in) -> Value {
              return arith::AddFOp::create(
                  nb, nl, in[0], arith::MulFOp::create(nb, nl, in[1], in[2]));
            });
        // o[b, h, g, m] = sum_d q[b, h*G + g, d] * state[b, h, d, m];
        // loops (b, h, g, m, d).
        Value qg = reshapeTo(fb, fl, qt, {batch, hkvA, groupA, *dk});
        Value sumQ =
            generic(fb, fl,
                    {projectedAccess(qg, {0, 1, 2, 4}),
                     projectedAccess(state, {0, 1, 4, 3})},
                    {false, false, false, false, true}, {0, 1, 2, 3},
                    {batch, hkvA, groupA, *dv}, f32,
                    [&](OpBuilder &nb, Location nl, ValueRange in) -> Value {
                      return arith::MulFOp::create(nb, nl, in[0], in[1]);
                    });
        Value scaled = generic(
            fb, fl, {identityAccess(sumQ)}, {false, false, false, false},
            {0, 1, 2, 3}, {batch, hkvA, groupA, *dv}, f32,
            [&](OpBuilder &nb, Location nl, ValueRange in) -> Value {
              return arith::MulFOp::create(nb, nl, in[0], scale);
            });
        Value ot = reshapeTo(fb, fl, scaled, {batch, one, hqA, *dv});
        Value out = tensor::InsertSliceOp::create(
            fb, fl, ot, iter[1], SmallVector<OpFoldResult>{zero, t, zero, zero},
            SmallVector<OpFoldResult>{batch, one, hqA, *dv},
            SmallVector<OpFoldResult>(4, one));
        scf::YieldOp::create(fb, fl, ValueRange{state, out});
      });
  Value out = reshapeTo(b, loc, loop.getResult(1), *outDims);
  out = convertTensor(b, loc, out, outElement);
  Value present =
      convertTensor(b, loc, castToDims(b, loc, loop.getResult(0), *presentDims),
                    stateElement);
  return SmallVector<Value>{out, present};
}

} // namespace

void addNewStatefulLowerings(LoweringTable &t) {
  t["onnx.CausalConvWithState"] = lowerCausalConvWithState;
  t["onnx.LinearAttention"] = lowerLinearAttention;
}

} // namespace onyx::conversion
