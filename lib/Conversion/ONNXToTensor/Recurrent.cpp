//===- Recurrent.cpp - RNN, GRU and LSTM ----------------------------------===//
//
// The three ops share one lowering (opset 14 forms, every attribute):
//
// 1. Before the time loop, X·Wᵀ for ALL time steps and directions is one
//    contraction: X collapsed to [seq*batch, input] (rows in X's own
//    order, so layout 1 needs no copy) times W [dirs, gates*hidden, input]
//    read transposed, into [dirs, rows, gates*hidden] initialized with the
//    input bias Wb. Its loops are (dir, row, gate, k) with the direction a
//    batch loop: exactly MatMul's BLAS shape, so on the CPU it becomes one
//    cblas_sgemm/dgemm per direction.
// 2. An scf.for over the steps carries the state [dirs, batch, hidden]
//    (and the cell state for LSTM) as tensors; both directions advance in
//    the same iteration. Each step's H·Rᵀ is one batched contraction (again
//    BLAS-shaped, the direction its batch loop) initialized with the
//    recurrent bias Rb, and one linalg.generic over (dir, batch, hidden)
//    computes the gates, reading the precomputed X·Wᵀ row of its time step
//    with tensor.extract. GRU with linear_before_reset=0 needs rₜ before
//    the product with Rh: its step is (H·Rzrᵀ, rₜ⊙H, (rₜ⊙H)·Rhᵀ, gates),
//    with Rzr and Rh copied transposed once before the loop.
// 3. The gate generic updates the state in place (it is the generic's
//    output, read through its block argument), so bufferization keeps one
//    state buffer for the whole loop; Y's per-step slice is a second
//    output written into a [steps, dirs, batch, hidden] stack.
//
// Direction and sequence_lens: in step i, the forward direction processes
// time i, the reverse direction time len(b)-1-i (len = seq_length without
// sequence_lens). A batch entry with i >= len(b) keeps its state, so Y_h
// and Y_c are the states after each entry's last valid step. After the
// loop one generic builds Y in the requested layout from the stack
// (forward: step t; reverse: step len-1-t), zero past len(b) as ONNX
// Runtime does; the forward-only, layout-0 case without sequence_lens uses
// the stack itself.
//
// Activations follow ONNX: defaults Tanh (RNN), Sigmoid/Tanh (GRU),
// Sigmoid/Tanh/Tanh (LSTM); one list per direction (a list for one
// direction is used for both); activation_alpha/beta are consumed in
// order by the functions that take them, ONNX's defaults otherwise. clip
// bounds every gate's pre-activation.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "onyx/Shape/RecurrentShapes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace onyx::conversion {
namespace {

enum class Kind { RNN, GRU, LSTM };

bool isAbsent(Value v) { return !v || isa<NoneType>(v.getType()); }

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

struct Activation {
  std::string name; // lower case
  double alpha = 0.0, beta = 0.0;
};

/// How many alpha/beta values an activation takes and their defaults.
struct ActivationInfo {
  int alphas, betas;
  double alpha, beta;
};

std::optional<ActivationInfo> activationInfo(StringRef name) {
  return llvm::StringSwitch<std::optional<ActivationInfo>>(name)
      .Case("relu", ActivationInfo{0, 0, 0, 0})
      .Case("tanh", ActivationInfo{0, 0, 0, 0})
      .Case("sigmoid", ActivationInfo{0, 0, 0, 0})
      .Case("softsign", ActivationInfo{0, 0, 0, 0})
      .Case("softplus", ActivationInfo{0, 0, 0, 0})
      .Case("affine", ActivationInfo{1, 1, 1.0, 0.0})
      .Case("leakyrelu", ActivationInfo{1, 0, 0.01, 0})
      .Case("thresholdedrelu", ActivationInfo{1, 0, 1.0, 0})
      .Case("scaledtanh", ActivationInfo{1, 1, 1.0, 1.0})
      .Case("hardsigmoid", ActivationInfo{1, 1, 0.2, 0.5})
      .Case("elu", ActivationInfo{1, 0, 1.0, 0})
      .Default(std::nullopt);
}

/// The activations of all directions: `perDirection` per direction, the
/// first direction's first.
FailureOr<SmallVector<Activation>> parseActivations(Operation *op, Kind kind,
                                                    int64_t numDirections) {
  SmallVector<StringRef> defaults;
  switch (kind) {
  case Kind::RNN:
    defaults = {"Tanh"};
    break;
  case Kind::GRU:
    defaults = {"Sigmoid", "Tanh"};
    break;
  case Kind::LSTM:
    defaults = {"Sigmoid", "Tanh", "Tanh"};
    break;
  }
  size_t perDirection = defaults.size();
  size_t needed = perDirection * size_t(numDirections);
  SmallVector<std::string> names;
  if (auto list = op->getAttrOfType<ArrayAttr>("activations")) {
    for (Attribute a : list)
      names.push_back(cast<StringAttr>(a).getValue().lower());
    // RNN's schema default ["Tanh", "Tanh"] may appear materialized on a
    // one-direction RNN.
    if (kind == Kind::RNN && numDirections == 1 && names.size() == 2 &&
        names[0] == "tanh" && names[1] == "tanh")
      names.pop_back();
  } else {
    for (StringRef d : defaults)
      names.push_back(d.lower());
  }
  if (names.size() != needed && names.size() != perDirection)
    return op->emitError() << "expected " << needed
                           << " activations (or one set of " << perDirection
                           << "), got " << names.size();
  SmallVector<double> alphas, betas;
  if (auto list = op->getAttrOfType<ArrayAttr>("activation_alpha"))
    for (Attribute a : list)
      alphas.push_back(cast<FloatAttr>(a).getValueAsDouble());
  if (auto list = op->getAttrOfType<ArrayAttr>("activation_beta"))
    for (Attribute a : list)
      betas.push_back(cast<FloatAttr>(a).getValueAsDouble());
  size_t nextAlpha = 0, nextBeta = 0;
  SmallVector<Activation> result;
  for (const std::string &name : names) {
    auto info = activationInfo(name);
    if (!info)
      return op->emitError()
             << "activation function '" << name << "' is not supported";
    Activation act{name, info->alpha, info->beta};
    if (info->alphas && nextAlpha < alphas.size())
      act.alpha = alphas[nextAlpha++];
    if (info->betas && nextBeta < betas.size())
      act.beta = betas[nextBeta++];
    result.push_back(act);
  }
  // One set for every direction.
  while (result.size() < needed)
    result.push_back(result[result.size() - perDirection]);
  return result;
}

Value fconst(OpBuilder &b, Location l, Type t, double v) {
  return arith::ConstantOp::create(b, l, b.getFloatAttr(t, v));
}

Value applyActivation(OpBuilder &b, Location l, const Activation &act,
                      Value x) {
  Type t = x.getType();
  auto mul = [&](Value p, Value q) {
    return arith::MulFOp::create(b, l, p, q);
  };
  auto addf = [&](Value p, Value q) {
    return arith::AddFOp::create(b, l, p, q);
  };
  StringRef n = act.name;
  if (n == "tanh")
    return math::TanhOp::create(b, l, x);
  Value zero = fconst(b, l, t, 0.0), one = fconst(b, l, t, 1.0);
  Value alpha, beta;
  if (auto info = activationInfo(n)) {
    if (info->alphas)
      alpha = fconst(b, l, t, act.alpha);
    if (info->betas)
      beta = fconst(b, l, t, act.beta);
  }
  if (n == "tanh")
    return math::TanhOp::create(b, l, x);
  if (n == "sigmoid") {
    Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
    return arith::DivFOp::create(b, l, one, addf(one, e));
  }
  if (n == "relu")
    return arith::MaximumFOp::create(b, l, x, zero);
  if (n == "affine")
    return addf(mul(alpha, x), beta);
  if (n == "leakyrelu") {
    Value neg = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, x, zero);
    return arith::SelectOp::create(b, l, neg, mul(alpha, x), x);
  }
  if (n == "thresholdedrelu") {
    Value above =
        arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x, alpha);
    return arith::SelectOp::create(b, l, above, x, zero);
  }
  if (n == "scaledtanh")
    return mul(alpha, math::TanhOp::create(b, l, mul(beta, x)));
  if (n == "hardsigmoid")
    return arith::MaximumFOp::create(
        b, l, zero,
        arith::MinimumFOp::create(b, l, one, addf(mul(alpha, x), beta)));
  if (n == "elu") {
    Value neg = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, x, zero);
    Value em1 = arith::SubFOp::create(b, l, math::ExpOp::create(b, l, x), one);
    return arith::SelectOp::create(b, l, neg, mul(alpha, em1), x);
  }
  if (n == "softsign")
    return arith::DivFOp::create(b, l, x,
                                 addf(one, math::AbsFOp::create(b, l, x)));
  // softplus: log(1 + e^x), x itself where e^x would overflow.
  Value big = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x,
                                    fconst(b, l, t, 30.0));
  Value sp = math::Log1pOp::create(b, l, math::ExpOp::create(b, l, x));
  return arith::SelectOp::create(b, l, big, x, sp);
}

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

/// A [d0, d1, d2] copy of a rank-3 `source` whose dim i becomes result dim
/// perm[i].
Value permute3(OpBuilder &b, Location loc, Value source, ArrayRef<int64_t> perm,
               ArrayRef<OpFoldResult> dims) {
  OperandAccess access;
  access.tensor = source;
  access.loops.assign(perm.begin(), perm.end());
  access.isOne.assign(3, Value());
  Type element = cast<RankedTensorType>(source.getType()).getElementType();
  return buildGeneric(
      b, loc, {access}, emptyTensor(b, loc, dims, element), {0, 1, 2},
      SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel),
      [](OpBuilder &, Location, ValueRange in, Value) { return in[0]; });
}

/// A [dirs, rows, cols] tensor whose row r is `bias` [dirs, cols] (or
/// zeros without a bias): the initial value of a contraction.
Value broadcastBias(OpBuilder &b, Location loc, Value bias,
                    ArrayRef<OpFoldResult> dims, Type element) {
  if (!bias)
    return filledTensor(b, loc, dims, scalarConstant(b, loc, element, 0.0));
  OperandAccess access;
  access.tensor = bias;
  access.loops = {0, 2};
  access.isOne = {Value(), Value()};
  return buildGeneric(
      b, loc, {access}, emptyTensor(b, loc, dims, element), {0, 1, 2},
      SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel),
      [](OpBuilder &, Location, ValueRange in, Value) { return in[0]; });
}

/// out[d, m, n] += lhs[d?, m, k] * rhs[d, n, k] (rhsTransposed) or
/// rhs[d, k, n]: loops (d, m, n, k), MatMul's BLAS shape. `lhsBatched`:
/// whether lhs has the direction dim.
Value contract(OpBuilder &b, Location loc, Value lhs, bool lhsBatched,
               Value rhs, bool rhsTransposed, Value init) {
  OperandAccess a;
  a.tensor = lhs;
  a.loops =
      lhsBatched ? SmallVector<int64_t>{0, 1, 3} : SmallVector<int64_t>{1, 3};
  a.isOne.assign(a.loops.size(), Value());
  OperandAccess c;
  c.tensor = rhs;
  c.loops = rhsTransposed ? SmallVector<int64_t>{0, 2, 3}
                          : SmallVector<int64_t>{0, 3, 2};
  c.isOne.assign(3, Value());
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators[3] = utils::IteratorType::reduction;
  return buildGeneric(b, loc, {a, c}, init, {0, 1, 2}, iterators,
                      [](OpBuilder &nb, Location nl, ValueRange in, Value acc) {
                        return arith::AddFOp::create(
                            nb, nl, acc,
                            arith::MulFOp::create(nb, nl, in[0], in[1]));
                      });
}

/// source[:, offset : offset + size, ...] (dim 1 sliced; rank 2 or 3).
Value sliceDim1(OpBuilder &b, Location loc, Value source, OpFoldResult offset,
                OpFoldResult size) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = shape::getDims(b, loc, source);
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  offsets[1] = offset;
  sizes[1] = size;
  return tensor::ExtractSliceOp::create(b, loc, source, offsets, sizes,
                                        strides);
}

Value indexValue(OpBuilder &b, Location loc, OpFoldResult v) {
  return shape::toValue(b, loc, v);
}

//===----------------------------------------------------------------------===//
// The lowering
//===----------------------------------------------------------------------===//

struct Config {
  Kind kind;
  int64_t numGates, numDirections, layout;
  bool reverseOnly = false;
  std::optional<double> clip;
  bool linearBeforeReset = false, inputForget = false;
  SmallVector<Activation> activations;
};

FailureOr<SmallVector<Value>> lowerRecurrent(Operation *op, OpBuilder &b,
                                             Kind kind) {
  Location loc = op->getLoc();
  Config cfg;
  cfg.kind = kind;
  cfg.numGates = kind == Kind::RNN ? 1 : kind == Kind::GRU ? 3 : 4;
  StringRef direction = "forward";
  if (auto d = op->getAttrOfType<StringAttr>("direction"))
    direction = d.getValue();
  if (direction == "forward" || direction == "reverse")
    cfg.numDirections = 1;
  else if (direction == "bidirectional")
    cfg.numDirections = 2;
  else
    return op->emitError() << "direction '" << direction
                           << "' is not forward, reverse or bidirectional";
  cfg.reverseOnly = direction == "reverse";
  auto intAttr = [&](StringRef name) -> std::optional<int64_t> {
    if (auto a = op->getAttrOfType<IntegerAttr>(name))
      return a.getValue().getSExtValue();
    return std::nullopt;
  };
  cfg.layout = intAttr("layout").value_or(0);
  cfg.linearBeforeReset = intAttr("linear_before_reset").value_or(0) != 0;
  cfg.inputForget = intAttr("input_forget").value_or(0) != 0;
  if (auto c = op->getAttrOfType<FloatAttr>("clip"))
    cfg.clip = c.getValueAsDouble();
  auto acts = parseActivations(op, kind, cfg.numDirections);
  if (failed(acts))
    return failure();
  cfg.activations = std::move(*acts);

  shape::RecurrentOperands ops;
  ops.x = op->getOperand(0);
  ops.w = op->getOperand(1);
  ops.r = op->getOperand(2);
  auto optional = [&](unsigned i) -> Value {
    if (i >= op->getNumOperands() || isAbsent(op->getOperand(i)))
      return Value();
    return op->getOperand(i);
  };
  ops.bias = optional(3);
  ops.sequenceLens = optional(4);
  ops.initialH = optional(5);
  if (kind == Kind::LSTM) {
    ops.initialC = optional(6);
    ops.peepholes = optional(7);
  }
  for (Value v : {ops.x, ops.w, ops.r, ops.bias, ops.sequenceLens, ops.initialH,
                  ops.initialC, ops.peepholes})
    if (v && failed(requireRanked(op, v, "an input")))
      return failure();
  Type element = cast<RankedTensorType>(ops.x.getType()).getElementType();
  if (!element.isF32() && !element.isF64())
    return op->emitError() << op->getName().getStringRef().drop_front(5)
                           << " on " << element << " is not supported yet";
  for (Value v :
       {ops.w, ops.r, ops.bias, ops.initialH, ops.initialC, ops.peepholes})
    if (v && cast<RankedTensorType>(v.getType()).getElementType() != element)
      return op->emitError("inputs have different element types");
  if (ops.sequenceLens && !cast<RankedTensorType>(ops.sequenceLens.getType())
                               .getElementType()
                               .isSignlessInteger())
    return op->emitError("sequence_lens must be an integer tensor");

  auto shape =
      shape::recurrentShape(b, loc, ops, cfg.numGates, intAttr("hidden_size"),
                            cfg.numDirections, cfg.layout, op);
  if (failed(shape))
    return failure();
  const shape::RecurrentShape &s = *shape;
  OpFoldResult dirs = b.getIndexAttr(cfg.numDirections);
  Value seqV = indexValue(b, loc, s.seqLength);
  Value batchV = indexValue(b, loc, s.batch);
  Value hiddenV = indexValue(b, loc, s.hidden);
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);

  // Biases: Wb = B[:, :G*H], Rb = B[:, G*H:].
  Value wBias, rBias;
  if (ops.bias) {
    wBias = sliceDim1(b, loc, ops.bias, b.getIndexAttr(0), s.gateRows);
    rBias = sliceDim1(b, loc, ops.bias, s.gateRows, s.gateRows);
  }

  // 1. X·Wᵀ + Wb for every step: [dirs, seq*batch, G*H].
  Value xFlat = tensor::CollapseShapeOp::create(
      b, loc, ops.x, SmallVector<ReassociationIndices>{{0, 1}, {2}});
  OpFoldResult rows = shape::productOf(b, loc, {s.seqLength, s.batch});
  Value xw = contract(
      b, loc, xFlat, /*lhsBatched=*/false, ops.w, /*rhsTransposed=*/true,
      broadcastBias(b, loc, wBias, {dirs, rows, s.gateRows}, element));

  // The recurrence weights as each step uses them.
  bool splitGRU = kind == Kind::GRU && !cfg.linearBeforeReset;
  Value rMain = ops.r, rH, rBiasMain = rBias, rBiasH;
  OpFoldResult mainRows = s.gateRows;
  if (splitGRU) {
    OpFoldResult twoH = shape::productOf(b, loc, {b.getIndexAttr(2), s.hidden});
    // Transposed copies [dirs, hidden, rows]: contiguous operands for BLAS.
    rMain = permute3(b, loc, sliceDim1(b, loc, ops.r, b.getIndexAttr(0), twoH),
                     {0, 2, 1}, {dirs, s.hidden, twoH});
    rH = permute3(b, loc, sliceDim1(b, loc, ops.r, twoH, s.hidden), {0, 2, 1},
                  {dirs, s.hidden, s.hidden});
    if (rBias) {
      rBiasMain = sliceDim1(b, loc, rBias, b.getIndexAttr(0), twoH);
      rBiasH = sliceDim1(b, loc, rBias, twoH, s.hidden);
    }
    mainRows = twoH;
  }

  // 2. Initial states [dirs, batch, hidden].
  auto stateType =
      RankedTensorType::get(shape::toStaticShape(s.state), element);
  auto initialState = [&](Value given) -> Value {
    if (!given)
      return filledTensor(b, loc, s.state,
                          scalarConstant(b, loc, element, 0.0));
    if (cfg.layout == 1)
      return permute3(b, loc, given, {1, 0, 2}, s.state);
    // A copy: the loop updates its state in place, and a graph input must
    // not be written.
    Value cast = tensor::CastOp::create(b, loc, stateType, given);
    return linalg::CopyOp::create(b, loc, cast,
                                  emptyTensor(b, loc, s.state, element))
        .getResult(0);
  };
  SmallVector<Value> inits = {initialState(ops.initialH)};
  if (kind == Kind::LSTM)
    inits.push_back(initialState(ops.initialC));
  bool wantY = !isa<NoneType>(op->getResult(0).getType());
  SmallVector<OpFoldResult> stackDims = {s.seqLength, dirs, s.batch, s.hidden};
  if (wantY)
    inits.push_back(emptyTensor(b, loc, stackDims, element));

  Value seqLens;
  if (ops.sequenceLens)
    seqLens = ops.sequenceLens;

  auto loop = scf::ForOp::create(
      b, loc, c0, seqV, c1, inits,
      [&](OpBuilder &lb, Location l, Value step, ValueRange carried) {
        Value h = carried[0];
        Value c = kind == Kind::LSTM ? carried[1] : Value();
        Value stack = wantY ? carried.back() : Value();

        // H·Rᵀ + Rb (GRU without linear_before_reset: z and r rows only).
        Value hr = contract(lb, l, h, /*lhsBatched=*/true, rMain,
                            /*rhsTransposed=*/!splitGRU,
                            broadcastBias(lb, l, rBiasMain,
                                          {dirs, s.batch, mainRows}, element));

        // Per (dir, batch): whether the direction runs backwards, the
        // sequence length, whether this step is within it, and the row of
        // X·Wᵀ this step reads.
        struct Position {
          Value reversed, active, row;
        };
        auto position = [&](OpBuilder &nb, Location nl, Value d,
                            Value bIdx) -> Position {
          Position p;
          Value len = seqV;
          if (seqLens) {
            Value v = tensor::ExtractOp::create(nb, nl, seqLens, bIdx);
            v = arith::IndexCastOp::create(nb, nl, nb.getIndexType(), v);
            v = arith::MaxSIOp::create(nb, nl, v, c0);
            len = arith::MinSIOp::create(nb, nl, v, seqV);
            p.active = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt,
                                             step, len);
          }
          auto backwards = [&]() -> Value {
            Value back = arith::SubIOp::create(
                nb, nl, arith::SubIOp::create(nb, nl, len, c1), step);
            return arith::MaxSIOp::create(nb, nl, back, c0);
          };
          Value t = step;
          if (cfg.numDirections == 2) {
            p.reversed =
                arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, d, c1);
            t = arith::SelectOp::create(nb, nl, p.reversed, backwards(), step);
          } else if (cfg.reverseOnly) {
            t = backwards();
          }
          p.row =
              cfg.layout == 0
                  ? arith::AddIOp::create(
                        nb, nl, arith::MulIOp::create(nb, nl, t, batchV), bIdx)
                  : arith::AddIOp::create(
                        nb, nl, arith::MulIOp::create(nb, nl, bIdx, seqV), t);
          return p;
        };
        auto clipped = [&](OpBuilder &nb, Location nl, Value x) -> Value {
          if (!cfg.clip)
            return x;
          Value hi = fconst(nb, nl, element, *cfg.clip);
          Value lo = fconst(nb, nl, element, -*cfg.clip);
          return arith::MinimumFOp::create(
              nb, nl, arith::MaximumFOp::create(nb, nl, x, lo), hi);
        };
        // Activation `which` of the per-direction set, for direction d.
        auto activate = [&](OpBuilder &nb, Location nl, const Position &p,
                            int64_t which, Value x) -> Value {
          size_t per = cfg.activations.size() / cfg.numDirections;
          const Activation &fwd = cfg.activations[which];
          if (cfg.numDirections == 1)
            return applyActivation(nb, nl, fwd, x);
          const Activation &rev = cfg.activations[per + which];
          Value vf = applyActivation(nb, nl, fwd, x);
          if (rev.name == fwd.name && rev.alpha == fwd.alpha &&
              rev.beta == fwd.beta)
            return vf;
          Value vr = applyActivation(nb, nl, rev, x);
          return arith::SelectOp::create(nb, nl, p.reversed, vr, vf);
        };
        auto gateIndex = [&](OpBuilder &nb, Location nl, int64_t gate,
                             Value j) -> Value {
          if (gate == 0)
            return j;
          return arith::AddIOp::create(
              nb, nl,
              arith::MulIOp::create(
                  nb, nl, arith::ConstantIndexOp::create(nb, nl, gate),
                  hiddenV),
              j);
        };
        auto add = [](OpBuilder &nb, Location nl, Value x, Value y) -> Value {
          return arith::AddFOp::create(nb, nl, x, y);
        };
        auto mul = [](OpBuilder &nb, Location nl, Value x, Value y) -> Value {
          return arith::MulFOp::create(nb, nl, x, y);
        };

        // GRU without linear_before_reset: (rₜ⊙H)·Rhᵀ + Rbh.
        Value hrH;
        if (splitGRU) {
          Value empty = emptyTensor(lb, l, s.state, element);
          Value rh = buildGeneric(
              lb, l, {identityAccess(h)}, empty, {0, 1, 2},
              SmallVector<utils::IteratorType>(3,
                                               utils::IteratorType::parallel),
              [&](OpBuilder &nb, Location nl, ValueRange in, Value) {
                Value d = linalg::IndexOp::create(nb, nl, 0);
                Value bIdx = linalg::IndexOp::create(nb, nl, 1);
                Value j = linalg::IndexOp::create(nb, nl, 2);
                Position p = position(nb, nl, d, bIdx);
                Value gi = gateIndex(nb, nl, 1, j);
                Value x = tensor::ExtractOp::create(nb, nl, xw,
                                                    ValueRange{d, p.row, gi});
                Value y = tensor::ExtractOp::create(nb, nl, hr,
                                                    ValueRange{d, bIdx, gi});
                Value r =
                    activate(nb, nl, p, 0, clipped(nb, nl, add(nb, nl, x, y)));
                return mul(nb, nl, r, in[0]);
              });
          hrH = contract(lb, l, rh, /*lhsBatched=*/true, rH,
                         /*rhsTransposed=*/false,
                         broadcastBias(lb, l, rBiasH, s.state, element));
        }

        // The gates: state outputs updated in place, plus Y's slot.
        SmallVector<Value> outs = {h};
        if (c)
          outs.push_back(c);
        SmallVector<OpFoldResult> slotOffsets = {
            step, b.getIndexAttr(0), b.getIndexAttr(0), b.getIndexAttr(0)};
        SmallVector<OpFoldResult> slotSizes = {b.getIndexAttr(1), dirs, s.batch,
                                               s.hidden};
        SmallVector<OpFoldResult> unit(4, b.getIndexAttr(1));
        if (stack) {
          auto slotType =
              tensor::ExtractSliceOp::inferCanonicalRankReducedResultType(
                  3, cast<RankedTensorType>(stack.getType()), slotSizes);
          outs.push_back(tensor::ExtractSliceOp::create(
              lb, l, slotType, stack, slotOffsets, slotSizes, unit));
        }
        MLIRContext *ctx = lb.getContext();
        SmallVector<AffineMap> maps(outs.size(),
                                    AffineMap::getMultiDimIdentityMap(3, ctx));
        SmallVector<utils::IteratorType> iterators(
            3, utils::IteratorType::parallel);
        auto gates = linalg::GenericOp::create(
            lb, l, TypeRange(ValueRange(outs)), ValueRange{}, outs, maps,
            iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
              Value d = linalg::IndexOp::create(nb, nl, 0);
              Value bIdx = linalg::IndexOp::create(nb, nl, 1);
              Value j = linalg::IndexOp::create(nb, nl, 2);
              Position p = position(nb, nl, d, bIdx);
              Value hPrev = args[0];
              Value cPrev = c ? args[1] : Value();
              // Pre-activation of gate g: x·Wᵀ + Wb + h·Rᵀ + Rb.
              auto xPart = [&](int64_t g) -> Value {
                return tensor::ExtractOp::create(
                    nb, nl, xw, ValueRange{d, p.row, gateIndex(nb, nl, g, j)});
              };
              auto hPart = [&](int64_t g) -> Value {
                return tensor::ExtractOp::create(
                    nb, nl, hr, ValueRange{d, bIdx, gateIndex(nb, nl, g, j)});
              };
              auto pre = [&](int64_t g) {
                return add(nb, nl, xPart(g), hPart(g));
              };
              auto one = [&] { return fconst(nb, nl, element, 1.0); };
              Value hNew, cNew;
              switch (kind) {
              case Kind::RNN:
                hNew = activate(nb, nl, p, 0, clipped(nb, nl, pre(0)));
                break;
              case Kind::GRU: {
                Value z = activate(nb, nl, p, 0, clipped(nb, nl, pre(0)));
                Value r = activate(nb, nl, p, 0, clipped(nb, nl, pre(1)));
                Value candidate;
                if (cfg.linearBeforeReset)
                  candidate = add(nb, nl, xPart(2), mul(nb, nl, r, hPart(2)));
                else
                  candidate = add(nb, nl, xPart(2),
                                  tensor::ExtractOp::create(
                                      nb, nl, hrH, ValueRange{d, bIdx, j}));
                Value hh = activate(nb, nl, p, 1, clipped(nb, nl, candidate));
                // (1 - z) ⊙ h̃ + z ⊙ H
                hNew = add(
                    nb, nl,
                    mul(nb, nl, arith::SubFOp::create(nb, nl, one(), z), hh),
                    mul(nb, nl, z, hPrev));
                break;
              }
              case Kind::LSTM: {
                // Gate order i, o, f, c; peepholes i, o, f.
                auto peephole = [&](int64_t g, Value state, Value x) -> Value {
                  if (!ops.peepholes)
                    return x;
                  Value pv = tensor::ExtractOp::create(
                      nb, nl, ops.peepholes,
                      ValueRange{d, gateIndex(nb, nl, g, j)});
                  return add(nb, nl, x, mul(nb, nl, pv, state));
                };
                Value i = activate(nb, nl, p, 0,
                                   clipped(nb, nl, peephole(0, cPrev, pre(0))));
                Value f =
                    cfg.inputForget
                        ? Value(arith::SubFOp::create(nb, nl, one(), i))
                        : activate(nb, nl, p, 0,
                                   clipped(nb, nl, peephole(2, cPrev, pre(2))));
                Value cc = activate(nb, nl, p, 1, clipped(nb, nl, pre(3)));
                cNew = add(nb, nl, mul(nb, nl, f, cPrev), mul(nb, nl, i, cc));
                Value o = activate(nb, nl, p, 0,
                                   clipped(nb, nl, peephole(1, cNew, pre(1))));
                hNew = mul(nb, nl, o, activate(nb, nl, p, 2, cNew));
                break;
              }
              }
              // Past its sequence length an entry keeps its state.
              if (p.active) {
                hNew = arith::SelectOp::create(nb, nl, p.active, hNew, hPrev);
                if (cNew)
                  cNew = arith::SelectOp::create(nb, nl, p.active, cNew, cPrev);
              }
              SmallVector<Value> yields = {hNew};
              if (cNew)
                yields.push_back(cNew);
              if (stack)
                yields.push_back(hNew);
              linalg::YieldOp::create(nb, nl, yields);
            });
        SmallVector<Value> next = {gates.getResult(0)};
        if (c)
          next.push_back(gates.getResult(1));
        if (stack)
          next.push_back(tensor::InsertSliceOp::create(
              lb, l, gates.getResults().back(), stack, slotOffsets, slotSizes,
              unit));
        scf::YieldOp::create(lb, l, next);
      });

  // 3. Results in the requested layout.
  SmallVector<Value> results(op->getNumResults());
  auto finalState = [&](Value state) -> Value {
    if (cfg.layout == 0)
      return state;
    return permute3(b, loc, state, {1, 0, 2}, s.yH);
  };
  if (!isa<NoneType>(op->getResult(1).getType()))
    results[1] = finalState(loop.getResult(0));
  if (kind == Kind::LSTM && !isa<NoneType>(op->getResult(2).getType()))
    results[2] = finalState(loop.getResult(1));
  if (wantY) {
    Value stack = loop.getResults().back();
    if (cfg.layout == 0 && cfg.numDirections == 1 && !cfg.reverseOnly &&
        !seqLens) {
      results[0] = stack;
    } else {
      // Y[t, d, b, j] (layout 1: Y[b, t, d, j]) from the stack entry of the
      // step that processed time t, zero past the entry's length.
      int64_t tLoop = cfg.layout == 0 ? 0 : 1, dLoop = cfg.layout == 0 ? 1 : 2,
              bLoop = cfg.layout == 0 ? 2 : 0;
      Value empty = emptyTensor(b, loc, s.y, element);
      auto generic = linalg::GenericOp::create(
          b, loc, TypeRange{empty.getType()}, ValueRange{}, ValueRange{empty},
          SmallVector<AffineMap>{
              AffineMap::getMultiDimIdentityMap(4, b.getContext())},
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location nl, ValueRange) {
            Value t = linalg::IndexOp::create(nb, nl, tLoop);
            Value d = linalg::IndexOp::create(nb, nl, dLoop);
            Value bIdx = linalg::IndexOp::create(nb, nl, bLoop);
            Value j = linalg::IndexOp::create(nb, nl, 3);
            Value len = seqV, valid;
            if (seqLens) {
              Value v = tensor::ExtractOp::create(nb, nl, seqLens, bIdx);
              v = arith::IndexCastOp::create(nb, nl, nb.getIndexType(), v);
              v = arith::MaxSIOp::create(nb, nl, v, c0);
              len = arith::MinSIOp::create(nb, nl, v, seqV);
              valid = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt,
                                            t, len);
            }
            auto backwards = [&]() -> Value {
              Value back = arith::SubIOp::create(
                  nb, nl, arith::SubIOp::create(nb, nl, len, c1), t);
              return arith::MaxSIOp::create(nb, nl, back, c0);
            };
            Value stepIdx = t;
            if (cfg.numDirections == 2)
              stepIdx = arith::SelectOp::create(
                  nb, nl,
                  arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, d,
                                        c1),
                  backwards(), t);
            else if (cfg.reverseOnly)
              stepIdx = backwards();
            Value v = tensor::ExtractOp::create(
                nb, nl, stack, ValueRange{stepIdx, d, bIdx, j});
            if (valid)
              v = arith::SelectOp::create(nb, nl, valid, v,
                                          fconst(nb, nl, element, 0.0));
            linalg::YieldOp::create(nb, nl, v);
          });
      results[0] = generic.getResult(0);
    }
  }
  return results;
}

FailureOr<SmallVector<Value>> lowerRNN(Operation *op, OpBuilder &b) {
  return lowerRecurrent(op, b, Kind::RNN);
}
FailureOr<SmallVector<Value>> lowerGRU(Operation *op, OpBuilder &b) {
  return lowerRecurrent(op, b, Kind::GRU);
}
FailureOr<SmallVector<Value>> lowerLSTM(Operation *op, OpBuilder &b) {
  return lowerRecurrent(op, b, Kind::LSTM);
}

} // namespace

void addRecurrentLowerings(LoweringTable &t) {
  t["onnx.RNN"] = lowerRNN;
  t["onnx.GRU"] = lowerGRU;
  t["onnx.LSTM"] = lowerLSTM;
}

} // namespace onyx::conversion
