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
// are index bookkeeping of the ONNX operator definitions.
//
//===----------------------------------------------------------------------===//

#include "DimAnalysisEngine.h"

#include "onyx/Dialect/ONNX/ONNXDialect.h"
#include "onyx/Shape/DataMovementShapes.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace onyx;
using namespace onyx::onnx;
using namespace onyx::dim_analysis_detail;

namespace {

/// Slice bounds at or beyond this mean "to the end" (models use INT32_MAX
/// or INT64_MAX; no axis of a real tensor is that long).
constexpr int64_t kToEnd = std::numeric_limits<int32_t>::max();

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

/// Product of `factors` as a Sym: a constant, or the single non-constant
/// factor when the constant ones multiply to 1.
Sym productOf(Engine &e, ArrayRef<Sym> factors) {
  int64_t constant = 1;
  Sym symbolic;
  bool haveSymbolic = false;
  for (Sym f : factors) {
    Sym c = e.canonical(f);
    if (!c.isKnown())
      return Sym();
    if (c.isConstant()) {
      if (c.offset != 0 && std::abs(constant) > (int64_t(1) << 40) / std::abs(c.offset))
        return Sym();
      constant *= c.offset;
      continue;
    }
    if (haveSymbolic)
      return Sym();
    haveSymbolic = true;
    symbolic = c;
  }
  if (!haveSymbolic)
    return Sym::constant(constant);
  if (constant == 0)
    return Sym::constant(0);
  return constant == 1 ? symbolic : Sym();
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

void matmulLike(Engine &e, Value a, Value b, Value out) {
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
// Data movement
//===----------------------------------------------------------------------===//

void transposeRule(Engine &e, Operation *op) {
  auto transpose = cast<ONNXTransposeOp>(op);
  Value in = transpose.getData(), out = transpose.getTransposed();
  int64_t rank = Engine::rankOf(in);
  if (rank < 0 || rank != Engine::rankOf(out))
    return;
  SmallVector<int64_t> perm;
  if (auto p = intsAttr(op, "perm"))
    perm = *p;
  else
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  if (int64_t(perm.size()) != rank)
    return;
  for (int64_t i = 0; i < rank; ++i)
    if (auto axis = normalizeAxis(perm[i], rank))
      e.relateDims(out, i, in, *axis, "permuted dim");
}

/// Reshape: each entry of the target shape is a dim of the result, except
/// that 0 copies the input dim (unless allowzero) and -1 is inferred. A
/// symbolic entry is the result dim only if it cannot be 0 or -1, or if it
/// equals the input dim it would copy.
void reshapeRule(Engine &e, Operation *op) {
  auto reshape = cast<ONNXReshapeOp>(op);
  Value in = reshape.getData(), out = reshape.getReshaped();
  sameContent(e, in, out);
  int64_t rin = Engine::rankOf(in), rout = Engine::rankOf(out);
  const SymList *shape = e.content(reshape.getShape());
  if (rin < 0 || rout < 0 || !shape || int64_t(shape->size()) != rout)
    return;
  bool allowZero = reshape.getAllowzero() != 0;
  SymList entries(rout);
  int64_t inferred = -1;
  for (int64_t i = 0; i < rout; ++i) {
    Sym s = e.canonical((*shape)[i]);
    if (!s.isKnown())
      continue;
    if (s.isConstant()) {
      if (s.offset == -1) {
        if (inferred >= 0)
          return; // two -1: the op fails
        inferred = i;
      } else if (s.offset == 0 && !allowZero) {
        if (i >= rin)
          return;
        entries[i] = e.dim(in, i);
      } else if (s.offset >= 0) {
        entries[i] = s;
      }
      continue;
    }
    auto lb = e.lowerBound(s);
    if (allowZero ? (lb && *lb >= 0) : (lb && *lb >= 1))
      entries[i] = s;
    else if (!allowZero && i < rin && e.provablyEqual(s, e.dim(in, i)))
      entries[i] = s; // 0 would copy the input dim, which is 0 too
  }
  for (int64_t i = 0; i < rout; ++i)
    if (entries[i].isKnown())
      e.relate(e.dim(out, i), entries[i], "shape entry");
  if (inferred < 0)
    return;
  // -1 = (product of the input dims) / (product of the other entries).
  // Cancel equal symbolic factors (the op checks the divisor is not 0).
  SymList numerator, denominator;
  int64_t numConst = 1, denConst = 1;
  auto split = [&](Sym s, SymList &symbolic, int64_t &constant) {
    Sym c = e.canonical(s);
    if (!c.isKnown())
      return false;
    if (c.isConstant()) {
      if (c.offset < 0 || (c.offset && constant > (int64_t(1) << 40) / c.offset))
        return false;
      constant *= c.offset;
    } else {
      symbolic.push_back(c);
    }
    return true;
  };
  for (int64_t i = 0; i < rin; ++i)
    if (!split(e.dim(in, i), numerator, numConst))
      return;
  for (int64_t i = 0; i < rout; ++i)
    if (i != inferred && !split(entries[i], denominator, denConst))
      return;
  for (Sym d : denominator) {
    auto it = llvm::find_if(numerator, [&](Sym n) {
      return n.node == d.node && n.offset == d.offset;
    });
    if (it == numerator.end())
      return;
    numerator.erase(it);
  }
  if (denConst == 0)
    return;
  if (numerator.empty()) {
    if (numConst % denConst == 0)
      e.relate(e.dim(out, inferred), Sym::constant(numConst / denConst),
               "inferred -1 entry");
  } else if (numerator.size() == 1 && numConst == denConst) {
    e.relate(e.dim(out, inferred), numerator.front(), "inferred -1 entry");
  }
}

void flattenRule(Engine &e, Operation *op) {
  auto flatten = cast<ONNXFlattenOp>(op);
  Value in = flatten.getInput(), out = flatten.getOutput();
  int64_t rank = Engine::rankOf(in);
  if (rank < 0 || Engine::rankOf(out) != 2)
    return;
  int64_t axis = flatten.getAxis();
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return;
  SymList dims = e.dims(in);
  ArrayRef<Sym> all(dims);
  e.relate(e.dim(out, 0), productOf(e, all.take_front(axis)), "product of dims");
  e.relate(e.dim(out, 1), productOf(e, all.drop_front(axis)), "product of dims");
}

void unsqueezeRule(Engine &e, Operation *op) {
  auto unsqueeze = cast<ONNXUnsqueezeOp>(op);
  Value in = unsqueeze.getData(), out = unsqueeze.getExpanded();
  sameContent(e, in, out);
  int64_t rin = Engine::rankOf(in), rout = Engine::rankOf(out);
  auto axes = e.constantInts(unsqueeze.getAxes());
  if (rin < 0 || rout < 0 || !axes || rin + int64_t(axes->size()) != rout)
    return;
  SmallVector<bool> unit(rout, false);
  for (int64_t a : *axes) {
    auto axis = normalizeAxis(a, rout);
    if (!axis || unit[*axis])
      return;
    unit[*axis] = true;
  }
  for (int64_t i = 0, j = 0; i < rout; ++i) {
    if (unit[i])
      e.relate(e.dim(out, i), Sym::constant(1), "inserted unit dim");
    else
      e.relateDims(out, i, in, j++, "kept dim");
  }
}

void squeezeRule(Engine &e, Operation *op) {
  auto squeeze = cast<ONNXSqueezeOp>(op);
  Value in = squeeze.getData(), out = squeeze.getSqueezed();
  sameContent(e, in, out);
  int64_t rin = Engine::rankOf(in), rout = Engine::rankOf(out);
  if (rin < 0 || rout < 0)
    return;
  SmallVector<bool> dropped(rin, false);
  if (!isAbsent(squeeze.getAxes())) {
    auto axes = e.constantInts(squeeze.getAxes());
    if (!axes)
      return;
    for (int64_t a : *axes) {
      auto axis = normalizeAxis(a, rin);
      if (!axis)
        return;
      dropped[*axis] = true;
    }
  } else {
    // No axes: every dim of extent 1 goes. Without a proven constant a
    // dynamic dim might be 1, so the result rank must tell.
    for (int64_t i = 0; i < rin; ++i)
      dropped[i] = e.constantOf(e.dim(in, i)) == std::optional<int64_t>(1);
  }
  if (rin - llvm::count(dropped, true) != rout)
    return;
  for (int64_t i = 0, j = 0; i < rin; ++i)
    if (!dropped[i])
      e.relateDims(out, j++, in, i, "kept dim");
}

void concatRule(Engine &e, Operation *op) {
  auto concat = cast<ONNXConcatOp>(op);
  Value out = concat.getConcatResult();
  int64_t rank = Engine::rankOf(out);
  if (rank < 0)
    return;
  auto axis = normalizeAxis(concat.getAxis(), rank);
  if (!axis)
    return;
  // Shape values: the elements, in order.
  if (e.isFirstVisit() && rank == 1) {
    SymList elements;
    bool known = true;
    for (Value in : concat.getInputs()) {
      const SymList *part = e.content(in);
      if (!part) {
        known = false;
        break;
      }
      elements.append(part->begin(), part->end());
    }
    if (known)
      e.setContent(out, std::move(elements));
  }
  // Other axes: every input's dim is the result's (the op requires it).
  // Along the axis: the sum, an offset when one input is symbolic.
  int64_t constant = 0;
  Sym symbolic;
  int numSymbolic = 0;
  for (Value in : concat.getInputs()) {
    if (Engine::rankOf(in) != rank)
      return;
    for (int64_t j = 0; j < rank; ++j)
      if (j != *axis)
        e.relateDims(out, j, in, j, "other axes");
    Sym d = e.canonical(e.dim(in, *axis));
    if (d.isConstant()) {
      constant += d.offset;
    } else {
      ++numSymbolic;
      symbolic = d;
    }
  }
  if (numSymbolic == 0)
    e.relate(e.dim(out, *axis), Sym::constant(constant), "sum along the axis");
  else if (numSymbolic == 1)
    e.relate(e.dim(out, *axis), symbolic.plus(constant), "sum along the axis");
}

/// A Slice bound, from the start of the axis or relative to its end.
struct Bound {
  bool fromEnd; ///< value = extent + delta, clamped to [0, extent]
  int64_t value;
};

std::optional<Bound> sliceBound(Engine &e, Sym bound, Sym extent) {
  Sym c = e.canonical(bound);
  if (c.isConstant()) {
    if (c.offset >= kToEnd)
      return Bound{true, 0};
    if (c.offset < 0)
      return Bound{true, std::max(c.offset, -kToEnd)};
    return Bound{false, c.offset};
  }
  Sym x = e.canonical(extent);
  if (c.isKnown() && x.isKnown() && !x.isConstant() && c.node == x.node)
    return Bound{true, std::min<int64_t>(c.offset - x.offset, 0)};
  return std::nullopt;
}

/// The extent of a step-1 slice [start, end) of an axis of extent `in`:
/// proven when the lower bound of `in` rules out clamping.
Sym sliceExtent(Engine &e, Sym in, Bound start, Bound end) {
  int64_t lb = e.lowerBound(in).value_or(0);
  if (!start.fromEnd && end.fromEnd) {
    // [s, in + d): in + d - s, provided in + d >= s.
    if (start.value == 0 && end.value == 0)
      return in;
    if (lb + end.value >= start.value)
      return in.plus(end.value - start.value);
    return Sym();
  }
  if (!start.fromEnd && !end.fromEnd) {
    if (lb >= end.value)
      return Sym::constant(std::max<int64_t>(end.value - start.value, 0));
    return Sym();
  }
  if (start.fromEnd && end.fromEnd) {
    if (lb + std::min(start.value, end.value) >= 0)
      return Sym::constant(std::max<int64_t>(end.value - start.value, 0));
    return Sym();
  }
  return Sym();
}

void sliceRule(Engine &e, Operation *op) {
  auto slice = cast<ONNXSliceOp>(op);
  Value in = slice.getData(), out = slice.getOutput();
  int64_t rank = Engine::rankOf(in);
  if (rank < 0 || rank != Engine::rankOf(out))
    return;
  const SymList *starts = e.content(slice.getStarts());
  const SymList *ends = e.content(slice.getEnds());
  if (!starts || !ends || starts->size() != ends->size())
    return;
  size_t n = starts->size();
  SmallVector<int64_t> axes, steps(n, 1);
  if (!isAbsent(slice.getAxes())) {
    auto a = e.constantInts(slice.getAxes());
    if (!a || a->size() != n)
      return;
    axes = *a;
  } else {
    for (size_t i = 0; i < n; ++i)
      axes.push_back(int64_t(i));
  }
  if (!isAbsent(slice.getSteps())) {
    auto s = e.constantInts(slice.getSteps());
    if (!s || s->size() != n)
      return;
    steps = *s;
  }
  // Shape values: slice the elements (their count is static).
  const SymList *data = e.content(in);
  if (e.isFirstVisit() && data && rank == 1 && n == 1) {
    auto s = e.constantOf((*starts)[0]), t = e.constantOf((*ends)[0]);
    int64_t len = int64_t(data->size()), step = steps[0];
    if (s && t && step != 0 && normalizeAxis(axes[0], 1)) {
      auto clampTo = [](int64_t v, int64_t lo, int64_t hi) {
        return std::max(lo, std::min(v, hi));
      };
      int64_t first = *s < 0 ? *s + len : *s, last = *t < 0 ? *t + len : *t;
      SymList elements;
      if (step > 0) {
        first = clampTo(first, 0, len);
        last = clampTo(last, 0, len);
        for (int64_t i = first; i < last; i += step)
          elements.push_back((*data)[i]);
      } else {
        first = clampTo(first, 0, len - 1);
        last = clampTo(last, -1, len - 1);
        for (int64_t i = first; i > last; i += step)
          elements.push_back((*data)[i]);
      }
      e.setContent(out, std::move(elements));
    }
  }
  SmallVector<bool> sliced(rank, false);
  for (size_t i = 0; i < n; ++i) {
    auto axis = normalizeAxis(axes[i], rank);
    if (!axis || sliced[*axis])
      return;
    sliced[*axis] = true;
    Sym extent = e.dim(in, *axis);
    auto start = sliceBound(e, (*starts)[i], extent);
    auto end = sliceBound(e, (*ends)[i], extent);
    Sym result;
    if (start && end && steps[i] == 1) {
      result = sliceExtent(e, extent, *start, *end);
    } else if (start && end && steps[i] == -1 && start->fromEnd &&
               start->value >= -1 && end->fromEnd && end->value <= -kToEnd) {
      result = extent; // the whole axis, reversed
    }
    if (result.isKnown())
      e.relate(e.dim(out, *axis), result, "sliced extent");
  }
  for (int64_t j = 0; j < rank; ++j)
    if (!sliced[j])
      e.relateDims(out, j, in, j, "other axes");
}

void padRule(Engine &e, Operation *op) {
  auto pad = cast<ONNXPadOp>(op);
  Value in = pad.getData(), out = pad.getOutput();
  int64_t rank = Engine::rankOf(in);
  if (rank < 0 || rank != Engine::rankOf(out))
    return;
  auto pads = e.constantInts(pad.getPads());
  if (!pads || int64_t(pads->size()) != 2 * rank)
    return;
  for (int64_t i = 0; i < rank; ++i)
    e.relateDims(out, i, in, i, "padded extent", (*pads)[i] + (*pads)[i + rank]);
}

void gatherRule(Engine &e, Operation *op) {
  auto gather = cast<ONNXGatherOp>(op);
  Value data = gather.getData(), indices = gather.getIndices(),
        out = gather.getOutput();
  int64_t rd = Engine::rankOf(data), ri = Engine::rankOf(indices),
          ro = Engine::rankOf(out);
  if (rd < 1 || ri < 0 || ro != rd - 1 + ri)
    return;
  auto axis = normalizeAxis(gather.getAxis(), rd);
  if (!axis)
    return;
  for (int64_t j = 0; j < *axis; ++j)
    e.relateDims(out, j, data, j, "data dims");
  for (int64_t j = 0; j < ri; ++j)
    e.relateDims(out, *axis + j, indices, j, "indices dims");
  for (int64_t j = *axis + 1; j < rd; ++j)
    e.relateDims(out, j - 1 + ri, data, j, "data dims");
  // Shape values: pick elements.
  const SymList *elements = e.content(data);
  auto picks = e.constantInts(indices);
  if (e.isFirstVisit() && elements && picks && rd == 1) {
    SymList result;
    for (int64_t p : *picks) {
      auto i = normalizeAxis(p, int64_t(elements->size()));
      if (!i)
        return;
      result.push_back((*elements)[*i]);
    }
    e.setContent(out, std::move(result));
  }
}

void gatherElementsRule(Engine &e, Operation *op) {
  sameShape(e, op->getOperand(1), op->getResult(0), "indices shape");
}

void shapeRule(Engine &e, Operation *op) {
  auto shapeOp = cast<ONNXShapeOp>(op);
  int64_t rank = Engine::rankOf(shapeOp.getData());
  if (rank < 0 || !e.isFirstVisit())
    return;
  auto [first, last] =
      shape::shapeOpRange(rank, shapeOp.getStart(), shapeOp.getEnd());
  SymList elements;
  for (int64_t i = first; i < last; ++i)
    elements.push_back(e.dim(shapeOp.getData(), i));
  e.setContent(shapeOp.getShape(), std::move(elements));
}

void sizeRule(Engine &e, Operation *op) {
  if (!e.isFirstVisit())
    return;
  Value data = op->getOperand(0);
  if (Engine::rankOf(data) < 0)
    return;
  Sym product = productOf(e, e.dims(data));
  if (product.isKnown())
    e.setContent(op->getResult(0), {product});
}

void expandRule(Engine &e, Operation *op) {
  auto expand = cast<ONNXExpandOp>(op);
  Value in = expand.getInput(), out = expand.getOutput();
  const SymList *shape = e.content(expand.getShape());
  int64_t rin = Engine::rankOf(in), rout = Engine::rankOf(out);
  if (!shape || rin < 0 || rout < 0 ||
      rout != std::max<int64_t>(rin, int64_t(shape->size())))
    return;
  relateBroadcast(e, {e.dims(in), *shape}, e.dims(out), "broadcast");
}

void constantOfShapeRule(Engine &e, Operation *op) {
  Value out = op->getResult(0);
  const SymList *shape = e.content(op->getOperand(0));
  if (!shape || int64_t(shape->size()) != Engine::rankOf(out))
    return;
  for (size_t i = 0; i < shape->size(); ++i)
    e.relate(e.dim(out, int64_t(i)), (*shape)[i], "shape entry");
}

void rangeRule(Engine &e, Operation *op) {
  Value out = op->getResult(0);
  if (Engine::rankOf(out) != 1)
    return;
  const SymList *start = e.content(op->getOperand(0));
  const SymList *limit = e.content(op->getOperand(1));
  const SymList *delta = e.content(op->getOperand(2));
  if (!start || !limit || !delta || start->size() != 1 ||
      limit->size() != 1 || delta->size() != 1)
    return;
  auto s = e.constantOf((*start)[0]), d = e.constantOf((*delta)[0]);
  if (!s || d != std::optional<int64_t>(1))
    return;
  // max(limit - start, 0) elements.
  Sym length = e.canonical((*limit)[0]).plus(-*s);
  if (!length.isKnown())
    return;
  if (auto c = e.constantOf(length))
    e.relate(e.dim(out, 0), Sym::constant(std::max<int64_t>(*c, 0)), "length");
  else if (auto lb = e.lowerBound(length); lb && *lb >= 0)
    e.relate(e.dim(out, 0), length, "length");
}

void tileRule(Engine &e, Operation *op) {
  Value in = op->getOperand(0), out = op->getResult(0);
  int64_t rank = Engine::rankOf(in);
  auto repeats = e.constantInts(op->getOperand(1));
  if (rank < 0 || rank != Engine::rankOf(out) || !repeats ||
      int64_t(repeats->size()) != rank)
    return;
  for (int64_t i = 0; i < rank; ++i)
    if ((*repeats)[i] == 1)
      e.relateDims(out, i, in, i, "repeated once");
    else if (auto c = e.constantOf(e.dim(in, i)))
      e.relate(e.dim(out, i), Sym::constant(*c * (*repeats)[i]), "repeated");
}

void splitRule(Engine &e, Operation *op) {
  auto split = cast<ONNXSplitOp>(op);
  Value in = split.getInput();
  int64_t rank = Engine::rankOf(in);
  if (rank < 0)
    return;
  auto axis = normalizeAxis(split.getAxis(), rank);
  if (!axis)
    return;
  std::optional<SmallVector<int64_t>> sizes;
  if (!isAbsent(split.getSplit()))
    sizes = e.constantInts(split.getSplit());
  auto outputs = split.getOutputs();
  for (auto [k, out] : llvm::enumerate(outputs)) {
    if (Engine::rankOf(out) != rank)
      continue;
    for (int64_t j = 0; j < rank; ++j)
      if (j != *axis)
        e.relateDims(out, j, in, j, "other axes");
    if (outputs.size() == 1)
      e.relateDims(out, *axis, in, *axis, "one output");
    else if (sizes && sizes->size() == outputs.size())
      e.relate(e.dim(out, *axis), Sym::constant((*sizes)[k]), "split size");
    else if (isAbsent(split.getSplit()) && k > 0)
      e.relateDims(out, *axis, outputs[0], *axis, "equal parts");
  }
}

/// Reductions with `axes` (attribute or input) and `keepdims`.
void reduceRule(Engine &e, Operation *op) {
  Value in = op->getOperand(0), out = op->getResult(0);
  int64_t rank = Engine::rankOf(in), rout = Engine::rankOf(out);
  if (rank < 0 || rout < 0)
    return;
  bool keepDims = intAttr(op, "keepdims", 1) != 0;
  std::optional<SmallVector<int64_t>> axes = intsAttr(op, "axes");
  if (!axes && op->getNumOperands() > 1) {
    if (isAbsent(op->getOperand(1)))
      axes = SmallVector<int64_t>();
    else
      axes = e.constantInts(op->getOperand(1));
    if (!axes)
      return;
  }
  if (!axes)
    axes = SmallVector<int64_t>();
  SmallVector<bool> reduced(rank, false);
  if (axes->empty()) {
    if (intAttr(op, "noop_with_empty_axes", 0) != 0) {
      sameShape(e, in, out, "no axes");
      return;
    }
    reduced.assign(rank, true);
  }
  for (int64_t a : *axes) {
    auto axis = normalizeAxis(a, rank);
    if (!axis)
      return;
    reduced[*axis] = true;
  }
  int64_t expected = keepDims ? rank : rank - llvm::count(reduced, true);
  if (rout != expected)
    return;
  for (int64_t i = 0, j = 0; i < rank; ++i) {
    if (reduced[i]) {
      if (keepDims)
        e.relate(e.dim(out, j++), Sym::constant(1), "kept reduced dim");
      continue;
    }
    e.relateDims(out, j++, in, i, "kept axis");
  }
}

/// ArgMax/ArgMin: one axis attribute.
void argReduceRule(Engine &e, Operation *op) {
  Value in = op->getOperand(0), out = op->getResult(0);
  int64_t rank = Engine::rankOf(in);
  if (rank < 0)
    return;
  auto axis = normalizeAxis(intAttr(op, "axis", 0), rank);
  if (!axis)
    return;
  bool keepDims = intAttr(op, "keepdims", 1) != 0;
  if (Engine::rankOf(out) != (keepDims ? rank : rank - 1))
    return;
  for (int64_t i = 0, j = 0; i < rank; ++i) {
    if (i == *axis) {
      if (keepDims)
        e.relate(e.dim(out, j++), Sym::constant(1), "kept reduced dim");
      continue;
    }
    e.relateDims(out, j++, in, i, "kept axis");
  }
}

void topKRule(Engine &e, Operation *op) {
  auto topK = cast<ONNXTopKOp>(op);
  Value in = topK.getX();
  int64_t rank = Engine::rankOf(in);
  if (rank < 0)
    return;
  auto axis = normalizeAxis(topK.getAxis(), rank);
  if (!axis)
    return;
  const SymList *k = e.content(topK.getK());
  for (Value out : {topK.getValues(), topK.getIndices()}) {
    if (Engine::rankOf(out) != rank)
      continue;
    for (int64_t j = 0; j < rank; ++j)
      if (j != *axis)
        e.relateDims(out, j, in, j, "other axes");
    if (k && k->size() == 1)
      e.relate(e.dim(out, *axis), (*k)[0], "K");
  }
  sameShape(e, topK.getValues(), topK.getIndices(), "values and indices");
}

void layerNormRule(Engine &e, Operation *op) {
  auto norm = cast<ONNXLayerNormalizationOp>(op);
  Value x = norm.getX();
  sameShape(e, x, norm.getY(), "same shape");
  int64_t rank = Engine::rankOf(x);
  if (rank < 0)
    return;
  auto axis = normalizeAxis(norm.getAxis(), rank);
  if (!axis)
    return;
  for (Value stat : {norm.getMean(), norm.getInvStdDev()}) {
    if (isAbsent(stat) || Engine::rankOf(stat) != rank)
      continue;
    for (int64_t j = 0; j < *axis; ++j)
      e.relateDims(stat, j, x, j, "statistics dims");
  }
}

//===----------------------------------------------------------------------===//
// Convolution and pooling: batch and channels only (the spatial extents are
// sliding-window arithmetic, not equalities).
//===----------------------------------------------------------------------===//

void convLike(Engine &e, Value x, Value w, Value out) {
  if (Engine::rankOf(x) < 2 || Engine::rankOf(out) != Engine::rankOf(x))
    return;
  e.relateDims(out, 0, x, 0, "batch");
  if (w && Engine::rankOf(w) >= 1)
    e.relateDims(out, 1, w, 0, "output channels");
}

void convRule(Engine &e, Operation *op) {
  convLike(e, op->getOperand(0), op->getOperand(1), op->getResult(0));
}

/// QLinearConv(x, x_scale, x_zero, w, ...).
void qlinearConvRule(Engine &e, Operation *op) {
  convLike(e, op->getOperand(0), op->getOperand(3), op->getResult(0));
}

void convTransposeRule(Engine &e, Operation *op) {
  convLike(e, op->getOperand(0), Value(), op->getResult(0));
}

void poolRule(Engine &e, Operation *op) {
  Value x = op->getOperand(0);
  int64_t rank = Engine::rankOf(x);
  for (Value out : op->getResults()) {
    if (rank < 2 || Engine::rankOf(out) != rank)
      continue;
    e.relateDims(out, 0, x, 0, "batch");
    e.relateDims(out, 1, x, 1, "channels");
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
void add(llvm::StringMap<RuleFn> &table, RuleFn rule) {
  (table.try_emplace(Ops::getOperationName(), rule), ...);
}

llvm::StringMap<RuleFn> buildRuleTable() {
  llvm::StringMap<RuleFn> t;
  // Result 0 has operand 0's shape.
  add<ONNXAbsOp, ONNXAcosOp, ONNXAcoshOp, ONNXAsinOp, ONNXAsinhOp, ONNXAtanOp,
      ONNXAtanhOp, ONNXCeilOp, ONNXCeluOp, ONNXCosOp, ONNXCoshOp, ONNXEluOp,
      ONNXErfOp, ONNXExpOp, ONNXFloorOp, ONNXHardSigmoidOp, ONNXHardSwishOp,
      ONNXHardmaxOp, ONNXIsInfOp, ONNXIsNaNOp, ONNXLeakyReluOp, ONNXLogOp,
      ONNXLogSoftmaxOp, ONNXNegOp, ONNXNotOp, ONNXReciprocalOp, ONNXReluOp,
      ONNXRoundOp, ONNXSeluOp, ONNXShrinkOp, ONNXSigmoidOp, ONNXSignOp,
      ONNXSinOp, ONNXSinhOp, ONNXSoftmaxOp, ONNXSoftplusOp, ONNXSoftsignOp,
      ONNXSqrtOp, ONNXTanOp, ONNXTanhOp, ONNXThresholdedReluOp,
      ONNXCastLikeOp, ONNXClipOp, ONNXCumSumOp, ONNXTriluOp,
      ONNXReverseSequenceOp, ONNXLpNormalizationOp, ONNXLRNOp,
      ONNXMeanVarianceNormalizationOp, ONNXInstanceNormalizationOp,
      ONNXBatchNormalizationOp, ONNXQuantizeLinearOp, ONNXDequantizeLinearOp,
      ONNXDynamicQuantizeLinearOp, ONNXEyeLikeOp, ONNXRandomNormalLikeOp,
      ONNXRandomUniformLikeOp, ONNXBernoulliOp, ONNXScatterOp,
      ONNXScatterElementsOp, ONNXScatterNDOp>(t, unaryRule);
  add<ONNXCastOp, ONNXIdentityOp>(t, castRule);
  add<ONNXDropoutOp>(t, allResultsLikeInputRule);
  // Multidirectional broadcast.
  add<ONNXAddOp, ONNXSubOp, ONNXMulOp, ONNXDivOp>(t, arithmeticRule);
  add<ONNXEqualOp>(t, equalRule);
  add<ONNXWhereOp>(t, whereRule);
  add<ONNXPowOp, ONNXModOp, ONNXAndOp, ONNXOrOp, ONNXXorOp, ONNXGreaterOp,
      ONNXGreaterOrEqualOp, ONNXLessOp, ONNXLessOrEqualOp, ONNXMaxOp,
      ONNXMinOp, ONNXMeanOp, ONNXSumOp, ONNXBitShiftOp, ONNXPReluOp>(
      t, broadcastRule);
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
  add<ONNXReduceL1Op, ONNXReduceL2Op, ONNXReduceLogSumOp,
      ONNXReduceLogSumExpOp, ONNXReduceMaxOp, ONNXReduceMeanOp,
      ONNXReduceMinOp, ONNXReduceProdOp, ONNXReduceSumOp,
      ONNXReduceSumSquareOp>(t, reduceRule);
  add<ONNXArgMaxOp, ONNXArgMinOp>(t, argReduceRule);
  add<ONNXTopKOp>(t, topKRule);
  add<ONNXLayerNormalizationOp>(t, layerNormRule);
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

} // namespace

RuleFn onyx::dim_analysis_detail::lookupRule(Operation *op) {
  static const llvm::StringMap<RuleFn> table = buildRuleTable();
  auto it = table.find(op->getName().getStringRef());
  if (it != table.end())
    return it->second;
  if (op->hasTrait<OpTrait::SameOperandsAndResultShape>())
    return sameOperandsAndResultShapeRule;
  return nullptr;
}
