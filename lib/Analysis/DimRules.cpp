//===- DimRules.cpp - What each onnx op proves about dims -----------------===//
//
// One rule per operator family and one table (`buildRuleTable`) that maps op
// names to rules. A rule relates the dims of an op's results to those of its
// operands (`e.relate`, `e.relateDims`) and, for small integer tensors that
// hold shapes, describes their elements (`e.setContent`), so that shapes
// built with Shape/Gather/Concat/Add reach Reshape, Expand and friends.
//
// Rules must be sound: a fact may rely on the op's own ONNX requirements
// (a MatMul's contraction dims agree), because a fact proven at op i is
// dated i + 1 and DimAnalysis::before() keeps it from justifying op i's own
// checks. Where ONNX semantics leave a choice (a dim that may be 1 under a
// broadcast, a Slice bound that may clamp, a Reshape entry that may be 0),
// the rule proves nothing unless a lower bound or constant settles it.
//
// Broadcasting is decided by the shared shape library
// (onyx::shape::broadcastDims, through Engine::broadcast); the other rules
// are index bookkeeping of the ONNX operator definitions. This file holds
// the shared helpers, the elementwise, linear-algebra, convolution and
// control-flow rules, and the table; DataMovementRules.cpp the rest.
//
//===----------------------------------------------------------------------===//
#include "DimRules.h"

#include "onyx/Dialect/ONNX/ONNXDialect.h"
#include "onyx/Shape/ConvolutionShapes.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace onyx::onnx;

namespace onyx::dim_analysis_detail {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

int64_t intAttr(Operation *op, StringRef name, int64_t fallback) {
  if (auto attr = op->getAttrOfType<IntegerAttr>(name))
    return attr.getValue().getSExtValue();
  return fallback;
}

std::optional<SmallVector<int64_t>> intsAttr(Operation *op, StringRef name) {
  auto attr = op->getAttrOfType<ArrayAttr>(name);
  if (!attr)
    return std::nullopt;
  SmallVector<int64_t> result;
  for (Attribute a : attr) {
    auto i = dyn_cast<IntegerAttr>(a);
    if (!i)
      return std::nullopt;
    result.push_back(i.getValue().getSExtValue());
  }
  return result;
}

bool isAbsent(Value v) { return !v || isa<NoneType>(v.getType()); }

/// `to` has the shape of `from`, axis by axis.
void sameShape(Engine &e, Value from, Value to, StringRef why) {
  int64_t rank = Engine::rankOf(from);
  if (rank < 0 || rank != Engine::rankOf(to))
    return;
  for (int64_t i = 0; i < rank; ++i)
    e.relateDims(to, i, from, i, why);
}

/// The elements of `from` reach `to` unchanged (Cast, Identity, reshapes of
/// a shape value).
void sameContent(Engine &e, Value from, Value to) {
  if (!e.isFirstVisit())
    return;
  if (const SymList *elements = e.content(from))
    e.setContent(to, *elements);
}

/// Product of `factors` as a Sym: a constant, the single factor when the
/// others are constants multiplying to 1, otherwise the node of the product
/// (value numbering: the same product of the same sets is one node).
Sym productOf(Engine &e, ArrayRef<Sym> factors) {
  Monomial product;
  for (Sym f : factors) {
    auto m = e.monomialOf(f);
    if (!m || !multiplyMonomial(product, *m))
      return Sym();
  }
  return e.intern(product);
}

/// The result of a broadcast of `operands` is `resultDims`: where the shared
/// shape library resolves an extent, the result dim is it; where it does
/// not, an operand extent that cannot be 1 must be the result's (every
/// operand extent is 1 or the result's, or the op fails).
void relateBroadcast(Engine &e, ArrayRef<SymList> operands,
                     ArrayRef<Sym> resultDims, StringRef why) {
  SmallVector<std::optional<Sym>> resolved = e.broadcast(operands);
  if (resolved.size() != resultDims.size())
    return;
  size_t rank = resultDims.size();
  for (size_t axis = 0; axis < rank; ++axis) {
    if (resolved[axis]) {
      e.relate(resultDims[axis], *resolved[axis], why);
      continue;
    }
    for (const SymList &dims : operands) {
      if (axis < rank - dims.size())
        continue;
      Sym d = dims[axis - (rank - dims.size())];
      if (e.provablyNotOne(d))
        e.relate(resultDims[axis], d, "broadcast: extent cannot be 1");
    }
  }
}

//===----------------------------------------------------------------------===//
// Shape-preserving and elementwise ops
//===----------------------------------------------------------------------===//

/// Result 0 has operand 0's shape.
void unaryRule(Engine &e, Operation *op) {
  if (op->getNumOperands() == 0 || op->getNumResults() == 0)
    return;
  sameShape(e, op->getOperand(0), op->getResult(0), "same shape");
}

/// Every result has operand 0's shape (Dropout's mask).
void allResultsLikeInputRule(Engine &e, Operation *op) {
  for (Value r : op->getResults())
    sameShape(e, op->getOperand(0), r, "same shape");
}

/// Cast, Identity: same shape and, for shape values, same elements.
void castRule(Engine &e, Operation *op) {
  unaryRule(e, op);
  auto outType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  auto inType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (outType && inType && isa<IntegerType>(inType.getElementType()) &&
      isa<IntegerType>(outType.getElementType()) &&
      outType.getElementType().getIntOrFloatBitWidth() >=
          inType.getElementType().getIntOrFloatBitWidth())
    sameContent(e, op->getOperand(0), op->getResult(0));
}

/// Multidirectional broadcast of every operand (Add, Where, Max, ...).
void broadcastRule(Engine &e, Operation *op) {
  Value out = op->getResult(0);
  int64_t rank = Engine::rankOf(out);
  if (rank < 0)
    return;
  SmallVector<SymList> operands;
  for (Value in : op->getOperands()) {
    int64_t r = Engine::rankOf(in);
    if (r < 0 || r > rank)
      return;
    operands.push_back(e.dims(in));
  }
  relateBroadcast(e, operands, e.dims(out), "broadcast");
}

/// One element of Add/Sub/Mul/Div on shape values with a symbolic operand
/// (`a`, `b` canonical): products become monomials (commutative and
/// associative, exact modulo 2^64); Div by a constant dividing the
/// coefficient is exact; Add/Sub of like terms add coefficients. Anything
/// else is numbered by (operation, operands), so only the same computation
/// on equal operands gives the same node. `out`/`index` name a new node.
static Sym symbolicArithmetic(Engine &e, Operation *op, Sym a, Sym b, Value out,
                              int64_t index) {
  if (!a.isKnown() || !b.isKnown())
    return Sym();
  auto ma = e.monomialOf(a), mb = e.monomialOf(b);
  if (!ma || !mb)
    return Sym();
  if (isa<ONNXMulOp>(op)) {
    Monomial product = *ma;
    if (multiplyMonomial(product, *mb))
      return e.intern(product, out, index);
    if (std::make_pair(b.node, b.offset) < std::make_pair(a.node, a.offset))
      std::swap(a, b);
    return e.internOp("mul", a, b, out, index);
  }
  if (isa<ONNXDivOp>(op)) {
    // Exact only when the constant divides the coefficient (then truncation
    // never applies); ONNX Div by 0 on integers is undefined: nothing.
    if (b.isConstant() && b.offset != 0 && ma->coeff % b.offset == 0)
      return e.intern(Monomial{ma->coeff / b.offset, ma->factors}, out, index);
    return e.internOp("div", a, b, out, index);
  }
  bool isAdd = isa<ONNXAddOp>(op);
  if (!ma->factors.empty() && ma->factors == mb->factors &&
      std::abs(ma->coeff) < (int64_t(1) << 40) &&
      std::abs(mb->coeff) < (int64_t(1) << 40))
    return e.intern(
        Monomial{isAdd ? ma->coeff + mb->coeff : ma->coeff - mb->coeff,
                 ma->factors},
        out, index);
  if (isAdd &&
      std::make_pair(b.node, b.offset) < std::make_pair(a.node, a.offset))
    std::swap(a, b);
  return e.internOp(isAdd ? "add" : "sub", a, b, out, index);
}

/// Add/Sub/Mul/Div: broadcast, and arithmetic on shape values.
void arithmeticRule(Engine &e, Operation *op) {
  broadcastRule(e, op);
  if (!e.isFirstVisit() || op->getNumOperands() != 2)
    return;
  const SymList *lhs = e.content(op->getOperand(0));
  const SymList *rhs = e.content(op->getOperand(1));
  Value out = op->getResult(0);
  if (!lhs || !rhs || Engine::rankOf(out) < 0)
    return;
  size_t n = std::max(lhs->size(), rhs->size());
  if ((lhs->size() != n && lhs->size() != 1) ||
      (rhs->size() != n && rhs->size() != 1))
    return;
  bool isAdd = isa<ONNXAddOp>(op), isSub = isa<ONNXSubOp>(op);
  bool isMul = isa<ONNXMulOp>(op), isDiv = isa<ONNXDivOp>(op);
  SymList result;
  for (size_t i = 0; i < n; ++i) {
    Sym a = e.canonical((*lhs)[lhs->size() == 1 ? 0 : i]);
    Sym b = e.canonical((*rhs)[rhs->size() == 1 ? 0 : i]);
    Sym r;
    if (a.isConstant() && b.isConstant()) {
      int64_t x = a.offset, y = b.offset;
      if (isAdd)
        r = Sym::constant(x + y);
      else if (isSub)
        r = Sym::constant(x - y);
      else if (isMul && std::abs(x) < (1 << 30) && std::abs(y) < (1 << 30))
        r = Sym::constant(x * y);
      else if (isDiv && y != 0)
        r = Sym::constant(x / y); // ONNX integer Div truncates, as C++
    } else if (isAdd && b.isConstant()) {
      r = a.plus(b.offset);
    } else if (isAdd && a.isConstant()) {
      r = b.plus(a.offset);
    } else if (isSub && b.isConstant()) {
      r = a.plus(-b.offset);
    } else if (isSub && a.isKnown() && a.node == b.node) {
      r = Sym::constant(a.offset - b.offset);
    } else if ((isMul || isDiv) && b.isConstant() && b.offset == 1) {
      r = a;
    } else if (isMul && a.isConstant() && a.offset == 1) {
      r = b;
    } else {
      r = symbolicArithmetic(e, op, a, b, out, int64_t(i));
    }
    if (!r.isKnown())
      return; // an unknown element: leave the result's elements fresh
    result.push_back(r);
  }
  e.setContent(out, std::move(result));
}

/// Equal on shape values: decided where equality or a bound proves it (a
/// dim compared with -1 is false), as exported models do before a Where.
void equalRule(Engine &e, Operation *op) {
  broadcastRule(e, op);
  if (!e.isFirstVisit())
    return;
  const SymList *lhs = e.content(op->getOperand(0));
  const SymList *rhs = e.content(op->getOperand(1));
  if (!lhs || !rhs)
    return;
  size_t n = std::max(lhs->size(), rhs->size());
  if ((lhs->size() != n && lhs->size() != 1) ||
      (rhs->size() != n && rhs->size() != 1))
    return;
  auto differ = [&](Sym a, Sym b) {
    // a == b + c with c != 0, or a constant outside the other's bounds.
    Sym ca = e.canonical(a), cb = e.canonical(b);
    if (ca.isKnown() && ca.node == cb.node)
      return ca.offset != cb.offset;
    if (cb.isConstant() && !ca.isConstant()) {
      auto lb = e.lowerBound(ca);
      return lb && *lb > cb.offset;
    }
    return false;
  };
  SymList result;
  for (size_t i = 0; i < n; ++i) {
    Sym a = (*lhs)[lhs->size() == 1 ? 0 : i];
    Sym b = (*rhs)[rhs->size() == 1 ? 0 : i];
    if (e.provablyEqual(a, b))
      result.push_back(Sym::constant(1));
    else if (differ(a, b) || differ(b, a))
      result.push_back(Sym::constant(0));
    else
      return;
  }
  e.setContent(op->getResult(0), std::move(result));
}

/// Where on shape values with a known condition picks elements.
void whereRule(Engine &e, Operation *op) {
  broadcastRule(e, op);
  if (!e.isFirstVisit())
    return;
  auto cond = e.constantInts(op->getOperand(0));
  const SymList *x = e.content(op->getOperand(1));
  const SymList *y = e.content(op->getOperand(2));
  if (!cond || !x || !y)
    return;
  size_t n = std::max({cond->size(), x->size(), y->size()});
  for (size_t size : {cond->size(), x->size(), y->size()})
    if (size != n && size != 1)
      return;
  SymList result;
  for (size_t i = 0; i < n; ++i) {
    bool c = (*cond)[cond->size() == 1 ? 0 : i] != 0;
    const SymList &from = c ? *x : *y;
    result.push_back(from[from.size() == 1 ? 0 : i]);
  }
  e.setContent(op->getResult(0), std::move(result));
}

/// Any op whose operands and results all have one shape.
void sameOperandsAndResultShapeRule(Engine &e, Operation *op) {
  Value first = op->getNumOperands() ? op->getOperand(0) : op->getResult(0);
  for (Value v : op->getOperands())
    sameShape(e, first, v, "same operand and result shape");
  for (Value v : op->getResults())
    sameShape(e, first, v, "same operand and result shape");
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

static void matmulLike(Engine &e, Value a, Value b, Value out) {
  int64_t ra = Engine::rankOf(a), rb = Engine::rankOf(b),
          ro = Engine::rankOf(out);
  if (ra < 1 || rb < 1 || ro < 0)
    return;
  // numpy matmul: a 1-D operand is promoted to a matrix and its unit dim
  // dropped from the result.
  e.relateDims(a, ra - 1, b, rb == 1 ? 0 : rb - 2, "contraction");
  int64_t batchA = ra >= 2 ? ra - 2 : 0, batchB = rb >= 2 ? rb - 2 : 0;
  int64_t batch = std::max(batchA, batchB);
  if (ro != batch + (ra >= 2) + (rb >= 2))
    return;
  if (ra >= 2)
    e.relateDims(out, batch, a, ra - 2, "rows");
  if (rb >= 2)
    e.relateDims(out, ro - 1, b, rb - 1, "columns");
  SymList dimsA = e.dims(a), dimsB = e.dims(b), dimsOut = e.dims(out);
  SymList batchDimsA(dimsA.begin(), dimsA.begin() + batchA);
  SymList batchDimsB(dimsB.begin(), dimsB.begin() + batchB);
  relateBroadcast(e, {batchDimsA, batchDimsB},
                  ArrayRef<Sym>(dimsOut).take_front(batch), "batch broadcast");
}

void matmulRule(Engine &e, Operation *op) {
  matmulLike(e, op->getOperand(0), op->getOperand(1), op->getResult(0));
}

/// QLinearMatMul(a, a_scale, a_zero, b, b_scale, b_zero, ...).
void qlinearMatmulRule(Engine &e, Operation *op) {
  matmulLike(e, op->getOperand(0), op->getOperand(3), op->getResult(0));
}

void gemmRule(Engine &e, Operation *op) {
  auto gemm = cast<ONNXGemmOp>(op);
  Value a = gemm.getA(), b = gemm.getB(), y = gemm.getY();
  if (Engine::rankOf(a) != 2 || Engine::rankOf(b) != 2 ||
      Engine::rankOf(y) != 2)
    return;
  bool ta = gemm.getTransA() != 0, tb = gemm.getTransB() != 0;
  e.relateDims(y, 0, a, ta ? 1 : 0, "M");
  e.relateDims(y, 1, b, tb ? 0 : 1, "N");
  e.relateDims(a, ta ? 0 : 1, b, tb ? 1 : 0, "contraction");
  // C broadcasts (unidirectionally) to Y: a C extent that cannot be 1 is Y's.
  Value c = gemm.getC();
  int64_t rc = Engine::rankOf(c);
  if (isAbsent(c) || rc < 0 || rc > 2)
    return;
  for (int64_t j = 0; j < rc; ++j) {
    Sym d = e.dim(c, j);
    if (e.provablyNotOne(d))
      e.relate(e.dim(y, 2 - rc + j), d, "C broadcast");
  }
}

//===----------------------------------------------------------------------===//
// Convolution and pooling: batch and channels, and the spatial extents as
// sliding-window arithmetic.
//===----------------------------------------------------------------------===//

/// The spatial result extents of a sliding window, by the formulas the
/// lowering builds (onyx::shape::slidingWindow): with explicit pads or VALID,
/// out = floorDiv(in + padBegin + padEnd - effK, s) + 1 (in plus an offset
/// when s is 1); with SAME_UPPER / SAME_LOWER, out = ceilDiv(in, s). The
/// divisions are opaque nodes numbered by their operands (Engine::internOp),
/// so two windows with the same arithmetic on one input extent give one
/// node: ResNet's strided 3x3 convolution (pads 1, stride 2) and its 1x1
/// stride-2 downsample meet at the residual Add. Kernel extents come from
/// `kernel_shape` or W's static spatial dims; ceil_mode (whose last window
/// may be dropped) and attributes the lowering rejects prove nothing.
static void windowDims(Engine &e, Operation *op, Value x, Value w, Value out) {
  int64_t rank = Engine::rankOf(x);
  if (rank < 3 || Engine::rankOf(out) != rank)
    return;
  int64_t spatial = rank - 2;
  FailureOr<shape::WindowAttrs> attrs;
  {
    // Bad attributes are the lowering's errors to report.
    ScopedDiagnosticHandler quiet(op->getContext(),
                                  [](Diagnostic &) { return success(); });
    attrs = shape::getWindowAttrs(op, spatial);
  }
  if (failed(attrs) || attrs->ceilMode)
    return;
  std::optional<SmallVector<int64_t>> kernelShape =
      intsAttr(op, "kernel_shape");
  if (kernelShape && int64_t(kernelShape->size()) != spatial)
    return;
  // Keeps the offsets' arithmetic far from overflow (fuzzed attributes).
  auto small = [](int64_t v) { return v >= 0 && v <= (int64_t(1) << 30); };
  for (int64_t i = 0; i < spatial; ++i) {
    std::optional<int64_t> k;
    if (kernelShape)
      k = (*kernelShape)[i];
    else if (w && Engine::rankOf(w) == rank)
      k = e.constantOf(e.dim(w, 2 + i));
    int64_t s = attrs->strides[i], d = attrs->dilations[i];
    int64_t pb = attrs->padsBegin[i], pe = attrs->padsEnd[i];
    if (!k || *k < 1 || !small(*k) || !small(s) || !small(d) || !small(pb) ||
        !small(pe))
      continue;
    Sym in = e.dim(x, 2 + i);
    Sym extent;
    if (attrs->autoPad == shape::AutoPad::SameUpper ||
        attrs->autoPad == shape::AutoPad::SameLower) {
      extent = s == 1 ? in
                      : e.internOp("ceildiv", e.canonical(in), Sym::constant(s),
                                   out, 2 + i);
    } else {
      int64_t shift = pb + pe - ((*k - 1) * d + 1);
      extent = s == 1 ? in.plus(shift + 1)
                      : e.internOp("floordiv", e.canonical(in.plus(shift)),
                                   Sym::constant(s), out, 2 + i)
                            .plus(1);
    }
    e.relate(e.dim(out, 2 + i), extent, "sliding window");
  }
}

static void convLike(Engine &e, Operation *op, Value x, Value w, Value out) {
  if (Engine::rankOf(x) < 2 || Engine::rankOf(out) != Engine::rankOf(x))
    return;
  e.relateDims(out, 0, x, 0, "batch");
  if (w && Engine::rankOf(w) >= 1)
    e.relateDims(out, 1, w, 0, "output channels");
  windowDims(e, op, x, w, out);
}

void convRule(Engine &e, Operation *op) {
  convLike(e, op, op->getOperand(0), op->getOperand(1), op->getResult(0));
}

/// QLinearConv(x, x_scale, x_zero, w, ...).
void qlinearConvRule(Engine &e, Operation *op) {
  convLike(e, op, op->getOperand(0), op->getOperand(3), op->getResult(0));
}

void convTransposeRule(Engine &e, Operation *op) {
  Value x = op->getOperand(0), out = op->getResult(0);
  if (Engine::rankOf(x) < 2 || Engine::rankOf(out) != Engine::rankOf(x))
    return;
  e.relateDims(out, 0, x, 0, "batch");
}

void poolRule(Engine &e, Operation *op) {
  Value x = op->getOperand(0);
  int64_t rank = Engine::rankOf(x);
  for (Value out : op->getResults()) {
    if (rank < 2 || Engine::rankOf(out) != rank)
      continue;
    e.relateDims(out, 0, x, 0, "batch");
    e.relateDims(out, 1, x, 1, "channels");
    if (!isa<ONNXGlobalAveragePoolOp, ONNXGlobalMaxPoolOp, ONNXGlobalLpPoolOp>(
            op))
      windowDims(e, op, x, Value(), out);
  }
  if (op->getNumResults() == 2)
    sameShape(e, op->getResult(0), op->getResult(1), "indices");
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// If: a result dim is proven when both branches yield the same one.
void ifRule(Engine &e, Operation *op) {
  if (op->getNumRegions() != 2 || op->getRegion(0).empty() ||
      op->getRegion(1).empty())
    return;
  Block &thenBlock = op->getRegion(0).front();
  Block &elseBlock = op->getRegion(1).front();
  if (!thenBlock.mightHaveTerminator() || !elseBlock.mightHaveTerminator())
    return;
  Operation *thenYield = thenBlock.getTerminator();
  Operation *elseYield = elseBlock.getTerminator();
  if (thenYield->getNumOperands() != op->getNumResults() ||
      elseYield->getNumOperands() != op->getNumResults())
    return;
  for (auto [k, out] : llvm::enumerate(op->getResults())) {
    Value a = thenYield->getOperand(k), b = elseYield->getOperand(k);
    int64_t rank = Engine::rankOf(out);
    if (rank < 0 || Engine::rankOf(a) != rank || Engine::rankOf(b) != rank)
      continue;
    for (int64_t j = 0; j < rank; ++j)
      if (e.provablyEqual(e.dim(a, j), e.dim(b, j)))
        e.relateDims(out, j, a, j, "both branches");
  }
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

template <typename... Ops>
static void add(llvm::StringMap<RuleFn> &table, RuleFn rule) {
  (table.try_emplace(Ops::getOperationName(), rule), ...);
}

static llvm::StringMap<RuleFn> buildRuleTable() {
  llvm::StringMap<RuleFn> t;
  // Result 0 has operand 0's shape.
  add<ONNXAbsOp, ONNXAcosOp, ONNXAcoshOp, ONNXAsinOp, ONNXAsinhOp, ONNXAtanOp,
      ONNXAtanhOp, ONNXCeilOp, ONNXCeluOp, ONNXCosOp, ONNXCoshOp, ONNXEluOp,
      ONNXErfOp, ONNXExpOp, ONNXFloorOp, ONNXHardSigmoidOp, ONNXHardSwishOp,
      ONNXHardmaxOp, ONNXIsInfOp, ONNXIsNaNOp, ONNXLeakyReluOp, ONNXLogOp,
      ONNXLogSoftmaxOp, ONNXNegOp, ONNXNotOp, ONNXReciprocalOp, ONNXReluOp,
      ONNXRoundOp, ONNXSeluOp, ONNXShrinkOp, ONNXSigmoidOp, ONNXSignOp,
      ONNXSinOp, ONNXSinhOp, ONNXSoftmaxOp, ONNXSoftplusOp, ONNXSoftsignOp,
      ONNXSqrtOp, ONNXTanOp, ONNXTanhOp, ONNXThresholdedReluOp, ONNXCastLikeOp,
      ONNXClipOp, ONNXCumSumOp, ONNXTriluOp, ONNXReverseSequenceOp,
      ONNXLpNormalizationOp, ONNXLRNOp, ONNXMeanVarianceNormalizationOp,
      ONNXInstanceNormalizationOp, ONNXBatchNormalizationOp,
      ONNXQuantizeLinearOp, ONNXDequantizeLinearOp, ONNXDynamicQuantizeLinearOp,
      ONNXEyeLikeOp, ONNXRandomNormalLikeOp, ONNXRandomUniformLikeOp,
      ONNXBernoulliOp, ONNXScatterOp, ONNXScatterElementsOp, ONNXScatterNDOp>(
      t, unaryRule);
  add<ONNXCastOp, ONNXIdentityOp>(t, castRule);
  add<ONNXDropoutOp>(t, allResultsLikeInputRule);
  // Multidirectional broadcast.
  add<ONNXAddOp, ONNXSubOp, ONNXMulOp, ONNXDivOp>(t, arithmeticRule);
  add<ONNXEqualOp>(t, equalRule);
  add<ONNXWhereOp>(t, whereRule);
  add<ONNXPowOp, ONNXModOp, ONNXAndOp, ONNXOrOp, ONNXXorOp, ONNXGreaterOp,
      ONNXGreaterOrEqualOp, ONNXLessOp, ONNXLessOrEqualOp, ONNXMaxOp, ONNXMinOp,
      ONNXMeanOp, ONNXSumOp, ONNXBitShiftOp, ONNXPReluOp>(t, broadcastRule);
  // Linear algebra.
  add<ONNXMatMulOp, ONNXMatMulIntegerOp>(t, matmulRule);
  add<ONNXQLinearMatMulOp>(t, qlinearMatmulRule);
  add<ONNXGemmOp>(t, gemmRule);
  // Data movement and shape values.
  add<ONNXTransposeOp>(t, transposeRule);
  add<ONNXReshapeOp>(t, reshapeRule);
  add<ONNXFlattenOp>(t, flattenRule);
  add<ONNXUnsqueezeOp>(t, unsqueezeRule);
  add<ONNXSqueezeOp>(t, squeezeRule);
  add<ONNXConcatOp>(t, concatRule);
  add<ONNXSliceOp>(t, sliceRule);
  add<ONNXPadOp>(t, padRule);
  add<ONNXGatherOp>(t, gatherRule);
  add<ONNXGatherElementsOp>(t, gatherElementsRule);
  add<ONNXShapeOp>(t, shapeRule);
  add<ONNXSizeOp>(t, sizeRule);
  add<ONNXExpandOp>(t, expandRule);
  add<ONNXConstantOfShapeOp>(t, constantOfShapeRule);
  add<ONNXRangeOp>(t, rangeRule);
  add<ONNXTileOp>(t, tileRule);
  add<ONNXSplitOp>(t, splitRule);
  // Reductions and normalization.
  add<ONNXReduceL1Op, ONNXReduceL2Op, ONNXReduceLogSumOp, ONNXReduceLogSumExpOp,
      ONNXReduceMaxOp, ONNXReduceMeanOp, ONNXReduceMinOp, ONNXReduceProdOp,
      ONNXReduceSumOp, ONNXReduceSumSquareOp>(t, reduceRule);
  add<ONNXArgMaxOp, ONNXArgMinOp>(t, argReduceRule);
  add<ONNXTopKOp>(t, topKRule);
  add<ONNXLayerNormalizationOp>(t, layerNormRule);
  // onyx-cuda-form-layer-norm's op (every output has the input's dims; the
  // tensor.cast it may put after one), formed on the onnx graph before the
  // lowering analyses it.
  t.try_emplace("onyx.layer_norm", allResultsLikeInputRule);
  t.try_emplace("tensor.cast", unaryRule);
  // Convolution and pooling.
  add<ONNXConvOp, ONNXConvIntegerOp>(t, convRule);
  add<ONNXQLinearConvOp>(t, qlinearConvRule);
  add<ONNXConvTransposeOp>(t, convTransposeRule);
  add<ONNXAveragePoolOp, ONNXMaxPoolOp, ONNXLpPoolOp, ONNXGlobalAveragePoolOp,
      ONNXGlobalMaxPoolOp, ONNXGlobalLpPoolOp>(t, poolRule);
  // Control flow.
  add<ONNXIfOp>(t, ifRule);
  return t;
}

RuleFn lookupRule(Operation *op) {
  static const llvm::StringMap<RuleFn> table = buildRuleTable();
  auto it = table.find(op->getName().getStringRef());
  if (it != table.end())
    return it->second;
  if (op->hasTrait<OpTrait::SameOperandsAndResultShape>())
    return sameOperandsAndResultShapeRule;
  return nullptr;
}

} // namespace onyx::dim_analysis_detail
