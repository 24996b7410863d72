//===- DecomposeONNX.cpp - Composite ONNX operators as core ones ----------===//
//
// `--onnx-decompose`: operators that ONNX defines as a composition of core
// operators (their schema's function body) are rewritten into those core
// `onnx.*` ops before the conversion, so one lowering per core op serves
// them all and the fusion pass sees plain elementwise chains, matmuls and
// softmaxes:
//
//   * RMSNormalization-23: X * 1/sqrt(mean(X^2 over axes >= axis) + eps)
//     * scale (float16/bfloat16 computed in float32);
//   * Attention-23/24: 3-D inputs split into heads, past key/value
//     concatenated (present_*), grouped/multi-query heads repeated, Q and
//     K each scaled by sqrt(scale), softcap, boolean/float masks (a shorter
//     mask padded with -inf), is_causal aligned bottom-right to the cache,
//     nonpad_kv_seqlen, softmax (softmax_precision), rows whose every key
//     is masked give 0, every qk_matmul_output_mode;
//   * RotaryEmbedding-23: halves or interleaved pairs rotated by the
//     cos/sin caches (gathered by position_ids), rotary_embedding_dim,
//     3-D inputs with num_heads;
//   * Pad-18 with axes and run-time pads or axes: the full-rank pads are
//     assembled (constant pads and axes are spread by the Pad lowering).
//
// What the decomposition cannot express (Attention-25 sliding windows, ...)
// is a compile error naming the node.
//
//===----------------------------------------------------------------------===//

#include "onyx/Dialect/ONNX/ONNXDialect.h"
#include "onyx/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>
#include <limits>

namespace onyx {
#define GEN_PASS_DEF_ONNXDECOMPOSE
#include "onyx/Transforms/Passes.h.inc"
} // namespace onyx

using namespace mlir;

namespace onyx {
namespace {

/// Builds `onnx.*` ops generically (their ODS builders differ per op).
class ONNXBuilder {
public:
  ONNXBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Operation *create(StringRef name, ValueRange operands, TypeRange results,
                    ArrayRef<NamedAttribute> attrs = {}) {
    OperationState state(loc, ("onnx." + name).str());
    state.addOperands(operands);
    state.addTypes(results);
    state.addAttributes(attrs);
    return b.create(state);
  }
  Value op(StringRef name, ValueRange operands, Type result,
           ArrayRef<NamedAttribute> attrs = {}) {
    return create(name, operands, TypeRange{result}, attrs)->getResult(0);
  }
  Value none() { return create("NoValue", {}, b.getNoneType())->getResult(0); }
  Value i64s(ArrayRef<int64_t> values) {
    auto type = RankedTensorType::get({int64_t(values.size())}, b.getI64Type());
    return constant(DenseElementsAttr::get(type, values));
  }
  Value i64Scalar(int64_t value) {
    auto type = RankedTensorType::get({}, b.getI64Type());
    return constant(DenseElementsAttr::get(type, value));
  }
  Value floatScalar(Type elem, double value) {
    auto type = RankedTensorType::get({}, elem);
    return constant(
        DenseElementsAttr::get(type, FloatAttr::get(elem, value).getValue()));
  }
  Value constant(DenseElementsAttr value) {
    return op("Constant", {}, value.getType(),
              {b.getNamedAttr("value", value)});
  }
  NamedAttribute i64Attr(StringRef name, int64_t v) {
    return b.getNamedAttr(name, b.getI64IntegerAttr(v));
  }
  NamedAttribute i64ArrayAttr(StringRef name, ArrayRef<int64_t> v) {
    return b.getNamedAttr(name, b.getI64ArrayAttr(v));
  }
  /// A ranked type of `rank` dynamic dims.
  static RankedTensorType dyn(int64_t rank, Type elem) {
    return RankedTensorType::get(
        SmallVector<int64_t>(rank, ShapedType::kDynamic), elem);
  }

  Value mul(Value x, Value y) { return binary("Mul", x, y); }
  Value add(Value x, Value y) { return binary("Add", x, y); }
  Value div(Value x, Value y) { return binary("Div", x, y); }
  Value sub(Value x, Value y) { return binary("Sub", x, y); }
  Value binary(StringRef name, Value x, Value y) {
    auto tx = cast<RankedTensorType>(x.getType());
    auto ty = cast<RankedTensorType>(y.getType());
    Type elem = tx.getElementType();
    if (name == "Less" || name == "LessOrEqual" || name == "Greater" ||
        name == "Equal" || name == "And")
      elem = b.getI1Type();
    return op(name, {x, y}, dyn(std::max(tx.getRank(), ty.getRank()), elem));
  }
  Value unary(StringRef name, Value x, ArrayRef<NamedAttribute> attrs = {}) {
    return op(name, {x}, x.getType(), attrs);
  }
  Value castTo(Value x, Type elem) {
    auto t = cast<RankedTensorType>(x.getType());
    if (t.getElementType() == elem)
      return x;
    return op("Cast", {x}, t.clone(elem), {i64Attr("to", onnxCode(elem))});
  }
  Value reshape(Value x, ArrayRef<int64_t> shape) {
    auto t = cast<RankedTensorType>(x.getType());
    return op("Reshape", {x, i64s(shape)},
              dyn(int64_t(shape.size()), t.getElementType()));
  }
  Value transpose(Value x, ArrayRef<int64_t> perm) {
    auto t = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> dims;
    for (int64_t p : perm)
      dims.push_back(t.getDimSize(p));
    return op("Transpose", {x}, RankedTensorType::get(dims, t.getElementType()),
              {i64ArrayAttr("perm", perm)});
  }
  Value unsqueeze(Value x, ArrayRef<int64_t> axes) {
    auto t = cast<RankedTensorType>(x.getType());
    return op("Unsqueeze", {x, i64s(axes)},
              dyn(t.getRank() + int64_t(axes.size()), t.getElementType()));
  }
  Value matmul(Value x, Value y) {
    auto tx = cast<RankedTensorType>(x.getType());
    auto ty = cast<RankedTensorType>(y.getType());
    return op("MatMul", {x, y},
              dyn(std::max(tx.getRank(), ty.getRank()), tx.getElementType()));
  }
  Value concat(ValueRange xs, int64_t axis) {
    auto t = cast<RankedTensorType>(xs[0].getType());
    return op("Concat", xs, dyn(t.getRank(), t.getElementType()),
              {i64Attr("axis", axis)});
  }
  /// Extent `axis` of `x` as a 1-element int64 tensor.
  Value dim(Value x, int64_t axis) {
    if (axis == -1)
      return op("Shape", {x}, RankedTensorType::get({1}, b.getI64Type()),
                {i64Attr("start", axis)});
    return op("Shape", {x}, RankedTensorType::get({1}, b.getI64Type()),
              {i64Attr("start", axis), i64Attr("end", axis + 1)});
  }
  /// 0, 1, ..., n-1 for a 1-element int64 tensor `n`.
  Value range(Value n) {
    auto scalarType = RankedTensorType::get({}, b.getI64Type());
    Value count = op("Squeeze", {n, i64s({0})}, scalarType);
    return op("Range", {i64Scalar(0), count, i64Scalar(1)},
              dyn(1, b.getI64Type()));
  }
  Value where(Value c, Value x, Value y) {
    auto tc = cast<RankedTensorType>(c.getType());
    auto tx = cast<RankedTensorType>(x.getType());
    auto ty = cast<RankedTensorType>(y.getType());
    int64_t rank = std::max({tc.getRank(), tx.getRank(), ty.getRank()});
    return op("Where", {c, x, y}, dyn(rank, tx.getElementType()));
  }

  static int64_t onnxCode(Type elem) {
    if (elem.isF32())
      return 1;
    if (elem.isF16())
      return 10;
    if (elem.isBF16())
      return 16;
    if (elem.isF64())
      return 11;
    if (elem.isInteger(64))
      return 7;
    if (elem.isInteger(32))
      return 6;
    if (elem.isInteger(1))
      return 9;
    return 0;
  }

  OpBuilder &b;
  Location loc;
};

int64_t intAttr(Operation *op, StringRef name, int64_t otherwise) {
  if (auto a = op->getAttrOfType<IntegerAttr>(name))
    return a.getInt();
  return otherwise;
}

std::optional<double> floatAttr(Operation *op, StringRef name) {
  if (auto a = op->getAttrOfType<FloatAttr>(name))
    return a.getValueAsDouble();
  return std::nullopt;
}

bool isAbsent(Value v) { return !v || isa<NoneType>(v.getType()); }

FailureOr<RankedTensorType> ranked(Operation *op, Value v, StringRef what) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t)
    return op->emitError() << what << " must have a known rank";
  return t;
}

/// float16/bfloat16 compute in float32; other floats in their own type.
Type computeType(Type elem) {
  if (elem.isF16() || elem.isBF16())
    return Float32Type::get(elem.getContext());
  return elem;
}

/// Replaces `result` by `value`, keeping the result's declared type: a
/// value this pass created is retyped (the declaration is the node's), any
/// other one goes through tensor.cast.
void replaceKeepingType(OpBuilder &b, Operation *op, Value result,
                        Value value) {
  if (value.getType() != result.getType()) {
    if (value.getDefiningOp() && !llvm::is_contained(op->getOperands(), value))
      value.setType(result.getType());
    else
      value = tensor::CastOp::create(b, op->getLoc(), result.getType(), value);
  }
  result.replaceAllUsesWith(value);
}

//===----------------------------------------------------------------------===//
// RMSNormalization
//===----------------------------------------------------------------------===//

LogicalResult decomposeRMSNorm(Operation *op) {
  OpBuilder b(op);
  ONNXBuilder nb(b, op->getLoc());
  Value x = op->getOperand(0), scale = op->getOperand(1);
  auto xt = ranked(op, x, "RMSNormalization: X");
  if (failed(xt))
    return failure();
  Type elem = xt->getElementType();
  if (!isa<FloatType>(elem))
    return op->emitError("RMSNormalization: X must hold floats");
  int64_t rank = xt->getRank();
  int64_t axis = intAttr(op, "axis", -1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return op->emitError() << "RMSNormalization: axis "
                           << intAttr(op, "axis", -1) << " is out of range";
  double eps = floatAttr(op, "epsilon").value_or(1e-5);
  SmallVector<int64_t> axes;
  for (int64_t i = axis; i < rank; ++i)
    axes.push_back(i);
  Type ct = computeType(elem);
  Value xc = nb.castTo(x, ct);
  Value sq = nb.mul(xc, xc);
  Value mean = nb.op("ReduceMean", {sq, nb.i64s(axes)},
                     ONNXBuilder::dyn(rank, ct), {nb.i64Attr("keepdims", 1)});
  Value rms = nb.unary("Sqrt", nb.add(mean, nb.floatScalar(ct, eps)));
  Value normalized = nb.mul(xc, nb.unary("Reciprocal", rms));
  Type outElem = cast<ShapedType>(op->getResult(0).getType()).getElementType();
  Value y = nb.mul(nb.castTo(normalized, computeType(outElem)),
                   nb.castTo(scale, computeType(outElem)));
  y = nb.castTo(y, outElem);
  replaceKeepingType(b, op, op->getResult(0), y);
  op->erase();
  return success();
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// (B, S, H*D) -> (B, H, S, D); D is static when H*D is.
Value splitHeads(ONNXBuilder &nb, Value x, int64_t heads) {
  auto t = cast<RankedTensorType>(x.getType());
  int64_t head =
      t.isDynamicDim(2) ? ShapedType::kDynamic : t.getDimSize(2) / heads;
  Value r =
      nb.reshape(x, {0, 0, heads, head == ShapedType::kDynamic ? -1 : head});
  r.setType(RankedTensorType::get(
      {t.getDimSize(0), t.getDimSize(1), heads, head}, t.getElementType()));
  return nb.transpose(r, {0, 2, 1, 3});
}

LogicalResult decomposeAttention(Operation *op) {
  OpBuilder b(op);
  ONNXBuilder nb(b, op->getLoc());
  auto operand = [&](unsigned i) {
    return i < op->getNumOperands() ? op->getOperand(i) : Value();
  };
  Value q = operand(0), k = operand(1), v = operand(2);
  Value mask = operand(3), pastKey = operand(4), pastValue = operand(5);
  Value nonpad = operand(6);
  auto qt = ranked(op, q, "Attention: Q");
  auto kt = ranked(op, k, "Attention: K");
  auto vt = ranked(op, v, "Attention: V");
  if (failed(qt) || failed(kt) || failed(vt))
    return failure();
  int64_t rank = qt->getRank();
  if ((rank != 3 && rank != 4) || kt->getRank() != rank ||
      vt->getRank() != rank)
    return op->emitError("Attention: Q, K and V must all be 3-D or all 4-D");
  Type elem = qt->getElementType();
  if (!isa<FloatType>(elem))
    return op->emitError("Attention: Q must hold floats");
  if (isAbsent(pastKey) != isAbsent(pastValue))
    return op->emitError(
        "Attention: past_key and past_value must be given together");
  if (!isAbsent(nonpad) && !isAbsent(pastKey))
    return op->emitError(
        "Attention: nonpad_kv_seqlen cannot be combined with past_key");
  int64_t qHeads = intAttr(op, "q_num_heads", 0);
  int64_t kvHeads = intAttr(op, "kv_num_heads", 0);
  int64_t mode = intAttr(op, "qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3)
    return op->emitError() << "Attention: qk_matmul_output_mode " << mode
                           << " is not supported (0-3)";
  for (StringRef name : {"left_window_size", "right_window_size"})
    if (intAttr(op, name, -1) != -1)
      return op->emitError()
             << "Attention: attribute '" << name << "' is not supported";

  // Heads: 4-D inputs carry them; 3-D inputs are split.
  if (rank == 3) {
    if (qHeads <= 0 || kvHeads <= 0)
      return op->emitError("Attention: 3-D inputs need q_num_heads and "
                           "kv_num_heads");
    q = splitHeads(nb, q, qHeads);
    k = splitHeads(nb, k, kvHeads);
    v = splitHeads(nb, v, kvHeads);
  } else {
    if (!qt->isDynamicDim(1))
      qHeads = qt->getDimSize(1);
    if (!kt->isDynamicDim(1))
      kvHeads = kt->getDimSize(1);
  }

  // Cache.
  if (!isAbsent(pastKey)) {
    k = nb.concat({pastKey, k}, 2);
    v = nb.concat({pastValue, v}, 2);
  }
  Value presentKey = k, presentValue = v;

  // Scale: each of Q and K by sqrt(scale); default 1/sqrt(head size).
  std::optional<double> scale = floatAttr(op, "scale");
  int64_t headSize = cast<RankedTensorType>(q.getType()).getDimSize(3);
  if (rank == 3 && !qt->isDynamicDim(2))
    headSize = qt->getDimSize(2) / qHeads;
  Type ct = computeType(elem);
  Value qc = nb.castTo(q, ct), kc = nb.castTo(k, ct), vc = nb.castTo(v, ct);
  Value rootScale;
  if (scale) {
    rootScale = nb.floatScalar(ct, std::sqrt(*scale));
  } else if (headSize != ShapedType::kDynamic) {
    rootScale =
        nb.floatScalar(ct, std::sqrt(1.0 / std::sqrt(double(headSize))));
  } else {
    // sqrt(1/sqrt(D)) = D^-0.25 from the run-time head size.
    Value d = nb.castTo(nb.dim(qc, 3), ct);
    rootScale =
        nb.op("Pow", {d, nb.floatScalar(ct, -0.25)}, ONNXBuilder::dyn(1, ct));
  }

  // Grouped/multi-query heads: each KV head serves q/kv query heads. With
  // static head counts the repeat is built only when they differ; with a
  // run-time count it is built with reps = Hq / Hkv read at run time (1 for
  // ordinary attention: an Expand that copies).
  bool staticHeads = qHeads > 0 && kvHeads > 0;
  if (staticHeads && qHeads % kvHeads != 0)
    return op->emitError() << "Attention: " << qHeads
                           << " query heads do not group into " << kvHeads
                           << " key/value heads";
  if (!staticHeads || qHeads != kvHeads) {
    Value reps = staticHeads ? nb.i64s({qHeads / kvHeads})
                             : nb.div(nb.dim(qc, 1), nb.dim(kc, 1));
    Value expandShape = nb.concat({nb.i64s({1, 1}), reps, nb.i64s({1, 1})}, 0);
    Value queryHeads = staticHeads ? nb.i64s({qHeads}) : nb.dim(qc, 1);
    auto repeat = [&](Value x) {
      Value u = nb.unsqueeze(x, {2}); // (B, Hkv, 1, S, D)
      Value e = nb.op("Expand", {u, expandShape}, ONNXBuilder::dyn(5, ct));
      Value shape =
          nb.concat({nb.dim(x, 0), queryHeads, nb.i64s({-1}), nb.dim(x, 3)}, 0);
      return nb.op("Reshape", {e, shape}, ONNXBuilder::dyn(4, ct));
    };
    kc = repeat(kc);
    vc = repeat(vc);
  }

  // Scores.
  Value scores = nb.matmul(nb.mul(qc, rootScale),
                           nb.transpose(nb.mul(kc, rootScale), {0, 1, 3, 2}));
  if (std::optional<double> softcap = floatAttr(op, "softcap");
      softcap && *softcap > 0) {
    Value c = nb.floatScalar(ct, *softcap);
    scores = nb.mul(nb.unary("Tanh", nb.div(scores, c)), c);
  }
  Value qkOut = scores;

  // The additive bias: mask, causal frontier, padding.
  Value zero = nb.floatScalar(ct, 0.0);
  Value negInf = nb.floatScalar(ct, -std::numeric_limits<double>::infinity());
  Value bias;
  Value kvLen = nb.dim(kc, 2), qLen = nb.dim(qc, 2);
  if (!isAbsent(mask)) {
    auto mt = ranked(op, mask, "Attention: attn_mask");
    if (failed(mt))
      return failure();
    bool isBool = mt->getElementType().isInteger(1);
    // A mask shorter than the keys is padded with masked positions (by
    // keys - mask length, known at compile time or read at run time).
    int64_t mrank = mt->getRank();
    int64_t maskLen = mt->getDimSize(mrank - 1);
    int64_t keys = cast<RankedTensorType>(kc.getType()).getDimSize(2);
    Value m = mask;
    bool staticLens =
        maskLen != ShapedType::kDynamic && keys != ShapedType::kDynamic;
    if (!staticLens || maskLen < keys) {
      Value fill =
          isBool ? nb.constant(DenseElementsAttr::get(
                       RankedTensorType::get({}, b.getI1Type()), false))
                 : nb.floatScalar(mt->getElementType(),
                                  -std::numeric_limits<double>::infinity());
      Value pads;
      if (staticLens) {
        SmallVector<int64_t> p(2 * mrank, 0);
        p[2 * mrank - 1] = keys - maskLen;
        pads = nb.i64s(p);
      } else {
        Value extra =
            nb.op("Max", {nb.sub(kvLen, nb.dim(mask, mrank - 1)), nb.i64s({0})},
                  RankedTensorType::get({1}, b.getI64Type()));
        pads = nb.concat(
            {nb.i64s(SmallVector<int64_t>(2 * mrank - 1, 0)), extra}, 0);
      }
      m = nb.op("Pad", {m, pads, fill, nb.none()},
                ONNXBuilder::dyn(mrank, mt->getElementType()));
    }
    bias = isBool ? nb.where(m, zero, negInf) : nb.castTo(m, ct);
  }
  if (intAttr(op, "is_causal", 0)) {
    // Query i attends key j iff j <= i + offset; offset = past length, or
    // per batch nonpad_kv_seqlen - q_len, or 0.
    Value i = nb.unsqueeze(nb.range(qLen), {1});  // (q, 1)
    Value j = nb.unsqueeze(nb.range(kvLen), {0}); // (1, kv)
    Value allowed;
    if (!isAbsent(pastKey)) {
      allowed = nb.binary("LessOrEqual", j, nb.add(i, nb.dim(pastKey, 2)));
    } else if (!isAbsent(nonpad)) {
      Value offset = nb.unsqueeze(
          nb.sub(nb.castTo(nonpad, b.getI64Type()), qLen), {1, 2}); // (B, 1, 1)
      allowed = nb.unsqueeze(nb.binary("LessOrEqual", j, nb.add(i, offset)),
                             {1}); // (B, 1, q, kv)
    } else {
      allowed = nb.binary("LessOrEqual", j, i);
    }
    Value causal = nb.where(allowed, zero, negInf);
    bias = bias ? nb.add(bias, causal) : causal;
  }
  if (!isAbsent(nonpad)) {
    Value j = nb.unsqueeze(nb.range(kvLen), {0}); // (1, kv)
    Value lens = nb.unsqueeze(nb.castTo(nonpad, b.getI64Type()), {1}); // (B, 1)
    Value valid = nb.unsqueeze(nb.binary("Less", j, lens), {1, 2});
    Value padding = nb.where(valid, zero, negInf);
    bias = bias ? nb.add(bias, padding) : padding;
  }
  Value withBias = bias ? nb.add(scores, bias) : scores;
  if (mode == 2)
    qkOut = withBias;

  // Softmax, in softmax_precision when given.
  Value logits = withBias;
  if (int64_t precision = intAttr(op, "softmax_precision", 0)) {
    Type pt;
    if (precision == 1)
      pt = b.getF32Type();
    else if (precision == 11)
      pt = b.getF64Type();
    else if (precision == 10 || precision == 16)
      pt = ct; // computed in float32 anyway
    else
      return op->emitError() << "Attention: softmax_precision " << precision
                             << " is not supported";
    logits = nb.castTo(logits, pt);
  }
  Value probs = nb.unary("Softmax", logits, {nb.i64Attr("axis", -1)});
  probs = nb.castTo(probs, ct);
  if (bias) {
    // Rows whose every key is masked attend nothing: 0, not NaN.
    auto bt = cast<RankedTensorType>(bias.getType());
    Value rowMax =
        nb.op("ReduceMax", {bias, nb.i64s({-1})},
              ONNXBuilder::dyn(bt.getRank(), ct), {nb.i64Attr("keepdims", 1)});
    Value allMasked =
        nb.op("IsInf", {rowMax}, ONNXBuilder::dyn(bt.getRank(), b.getI1Type()),
              {nb.i64Attr("detect_positive", 0)});
    probs = nb.where(allMasked, zero, probs);
  }
  if (mode == 3)
    qkOut = probs;

  Value y = nb.matmul(probs, vc);
  if (rank == 3) {
    y = nb.transpose(y, {0, 2, 1, 3});
    y = nb.reshape(y, {0, 0, -1});
  }
  auto toResult = [&](unsigned idx, Value value) {
    if (idx >= op->getNumResults() ||
        isa<NoneType>(op->getResult(idx).getType()))
      return;
    Type want = cast<ShapedType>(op->getResult(idx).getType()).getElementType();
    replaceKeepingType(b, op, op->getResult(idx), nb.castTo(value, want));
  };
  toResult(0, y);
  toResult(1, presentKey);
  toResult(2, presentValue);
  toResult(3, qkOut);
  op->erase();
  return success();
}

//===----------------------------------------------------------------------===//
// RotaryEmbedding
//===----------------------------------------------------------------------===//

LogicalResult decomposeRotary(Operation *op) {
  OpBuilder b(op);
  ONNXBuilder nb(b, op->getLoc());
  Value x = op->getOperand(0), cosCache = op->getOperand(1),
        sinCache = op->getOperand(2);
  Value positions = op->getNumOperands() > 3 ? op->getOperand(3) : Value();
  auto xt = ranked(op, x, "RotaryEmbedding: X");
  if (failed(xt))
    return failure();
  int64_t rank = xt->getRank();
  if (rank != 3 && rank != 4)
    return op->emitError("RotaryEmbedding: X must be 3-D or 4-D");
  Type elem = xt->getElementType();
  int64_t numHeads = intAttr(op, "num_heads", 0);
  bool interleaved = intAttr(op, "interleaved", 0) != 0;
  int64_t rotaryDim = intAttr(op, "rotary_embedding_dim", 0);
  if (rotaryDim < 0 || rotaryDim % 2 != 0)
    return op->emitError() << "RotaryEmbedding: rotary_embedding_dim "
                           << rotaryDim << " must be even and non-negative";

  // To (B, S, H, D).
  Value h = x;
  if (rank == 4) {
    h = nb.transpose(x, {0, 2, 1, 3});
  } else {
    if (numHeads <= 0)
      return op->emitError("RotaryEmbedding: 3-D input needs num_heads");
    h = nb.reshape(x, {0, 0, numHeads, -1});
  }
  Type ct = computeType(elem);
  h = nb.castTo(h, ct);
  constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();
  // Slices of the last axis; bounds are constants or 1-element tensors.
  auto slice = [&](Value v, Value start, Value end, int64_t step) {
    return nb.op("Slice", {v, start, end, nb.i64s({3}), nb.i64s({step})},
                 ONNXBuilder::dyn(4, ct));
  };
  // The rotated channels: all of them (rotary_embedding_dim 0), else the
  // first rotary_embedding_dim; the rest pass through.
  Value rotate = h, rest;
  if (rotaryDim > 0) {
    rotate = slice(h, nb.i64s({0}), nb.i64s({rotaryDim}), 1);
    rest = slice(h, nb.i64s({rotaryDim}), nb.i64s({kEnd}), 1);
  }
  Value x1, x2;
  if (interleaved) {
    x1 = slice(rotate, nb.i64s({0}), nb.i64s({kEnd}), 2);
    x2 = slice(rotate, nb.i64s({1}), nb.i64s({kEnd}), 2);
  } else {
    // The halves split at the caches' last extent (rotary dim / 2).
    Value half =
        rotaryDim > 0 ? nb.i64s({rotaryDim / 2}) : nb.dim(cosCache, -1);
    x1 = slice(rotate, nb.i64s({0}), half, 1);
    x2 = slice(rotate, half, nb.i64s({kEnd}), 1);
  }
  // Caches: (B, S, D/2) or, with position_ids, (max_pos, D/2) gathered.
  auto prepare = [&](Value cache) {
    Value c = nb.castTo(cache, ct);
    if (!isAbsent(positions))
      c = nb.op("Gather", {c, positions}, ONNXBuilder::dyn(3, ct),
                {nb.i64Attr("axis", 0)});
    return nb.unsqueeze(c, {2}); // (B, S, 1, D/2)
  };
  Value cosv = prepare(cosCache), sinv = prepare(sinCache);
  Value real = nb.sub(nb.mul(cosv, x1), nb.mul(sinv, x2));
  Value imag = nb.add(nb.mul(sinv, x1), nb.mul(cosv, x2));
  Value rotated;
  if (interleaved) {
    Value pairs =
        nb.concat({nb.unsqueeze(real, {-1}), nb.unsqueeze(imag, {-1})}, -1);
    rotated = nb.reshape(pairs, {0, 0, 0, -1}); // (B, S, H, R)
  } else {
    rotated = nb.concat({real, imag}, -1);
  }
  Value out = rest ? nb.concat({rotated, rest}, -1) : rotated;
  if (rank == 4)
    out = nb.transpose(out, {0, 2, 1, 3});
  else
    out = nb.reshape(out, {0, 0, -1});
  out = nb.castTo(out, elem);
  replaceKeepingType(b, op, op->getResult(0), out);
  op->erase();
  return success();
}

//===----------------------------------------------------------------------===//
// Pad-18 with axes and run-time pads
//===----------------------------------------------------------------------===//

/// Pad's axes name a subset of the dims; with pads known only at run time
/// the full-rank pads are assembled here (Slices of the given pads, zeros
/// elsewhere), so the lowering sees Pad without axes. Constant pads are
/// spread by the lowering itself.
LogicalResult decomposePadAxes(Operation *op) {
  Value data = op->getOperand(0), pads = op->getOperand(1);
  Value axesValue = op->getOperand(3);
  if (isAbsent(axesValue) ||
      (onnx::getConstantInts(pads) && onnx::getConstantInts(axesValue)))
    return success();
  auto dt = ranked(op, data, "Pad: data");
  if (failed(dt))
    return failure();
  int64_t rank = dt->getRank();
  auto axes = onnx::getConstantInts(axesValue);
  OpBuilder b(op);
  ONNXBuilder nb(b, op->getLoc());
  if (!axes) {
    // Run-time axes: pads[d] = sum over k of (axes[k] == d) * pads[k], with
    // negative axes counted from the back.
    auto i64 = [&](int64_t r) { return ONNXBuilder::dyn(r, b.getI64Type()); };
    Value ax = nb.castTo(axesValue, b.getI64Type());
    Value rankV = nb.i64s({rank});
    Value norm =
        nb.where(nb.binary("Less", ax, nb.i64s({0})), nb.add(ax, rankV), ax);
    Value n = nb.dim(ax, 0);
    Value dims = nb.unsqueeze(nb.range(rankV), {0}); // (1, r)
    Value hit = nb.castTo(nb.binary("Equal", nb.unsqueeze(norm, {1}), dims),
                          b.getI64Type()); // (n, r)
    auto spread = [&](Value part) {        // (n) -> (r)
      Value weighted = nb.mul(hit, nb.unsqueeze(part, {1}));
      return nb.op("ReduceSum", {weighted, nb.i64s({0})}, i64(1),
                   {nb.i64Attr("keepdims", 0)});
    };
    Value p = nb.castTo(pads, b.getI64Type());
    Value begin =
        nb.op("Slice", {p, nb.i64s({0}), n, nb.none(), nb.none()}, i64(1));
    Value end =
        nb.op("Slice", {p, n, nb.add(n, n), nb.none(), nb.none()}, i64(1));
    Value full = nb.concat({spread(begin), spread(end)}, 0);
    op->setOperand(1, full);
    op->setOperand(3, nb.none());
    return success();
  }
  int64_t n = int64_t(axes->size());
  SmallVector<Value> begins(rank), ends(rank);
  for (auto [k, axis] : llvm::enumerate(*axes)) {
    int64_t a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank)
      return op->emitError() << "Pad: axis " << axis << " is out of range";
    auto piece = [&](int64_t at) {
      return nb.op(
          "Slice",
          {pads, nb.i64s({at}), nb.i64s({at + 1}), nb.none(), nb.none()},
          RankedTensorType::get({1}, b.getI64Type()));
    };
    begins[a] = piece(int64_t(k));
    ends[a] = piece(int64_t(k) + n);
  }
  SmallVector<Value> parts;
  for (int64_t d = 0; d < rank; ++d)
    parts.push_back(begins[d] ? begins[d] : nb.i64s({0}));
  for (int64_t d = 0; d < rank; ++d)
    parts.push_back(ends[d] ? ends[d] : nb.i64s({0}));
  Value full =
      nb.op("Concat", parts, RankedTensorType::get({2 * rank}, b.getI64Type()),
            {nb.i64Attr("axis", 0)});
  op->setOperand(1, full);
  op->setOperand(3, nb.none());
  return success();
}

struct ONNXDecomposePass
    : public onyx::impl::ONNXDecomposeBase<ONNXDecomposePass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      StringRef name = op->getName().getStringRef();
      if (name == "onnx.RMSNormalization" || name == "onnx.Attention" ||
          name == "onnx.RotaryEmbedding" || name == "onnx.Pad")
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      StringRef name = op->getName().getStringRef();
      LogicalResult result = name == "onnx.RMSNormalization"
                                 ? decomposeRMSNorm(op)
                             : name == "onnx.Attention" ? decomposeAttention(op)
                             : name == "onnx.Pad"       ? decomposePadAxes(op)
                                                        : decomposeRotary(op);
      if (failed(result))
        return signalPassFailure();
    }
  }
};

} // namespace
} // namespace onyx
