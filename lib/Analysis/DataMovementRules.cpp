//===- DataMovementRules.cpp - DimAnalysis rules of data movement ---------===//
//
// What data-movement, shape and reduction operators prove about dims:
// Transpose, Reshape, Flatten, (Un)Squeeze, Concat, Slice, Pad, Gather,
// Shape, Size, Expand, ConstantOfShape, Range, Tile, Split, reductions,
// TopK, LayerNormalization. Several also describe the elements of small
// integer tensors (shape values), so shapes built at run time with
// Shape/Gather/Concat reach Reshape and Expand. The contract is that of
// DimRules.cpp: sound facts only, where ONNX leaves a choice (a Slice that
// may clamp, a Reshape entry that may be 0) nothing unless a bound settles
// it.
//
//===----------------------------------------------------------------------===//

#include "DimRules.h"

#include "onyx/Dialect/ONNX/ONNXDialect.h"
#include "onyx/Shape/DataMovementShapes.h"

using namespace mlir;
using namespace onyx::onnx;

namespace onyx::dim_analysis_detail {

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
/// symbolic entry `s` is the result dim when it can be neither -1 nor 0, or
/// when it is >= 0 and `s == 0` implies that the input dim it would copy is
/// 0 too (it is that dim, or a product with all of `s`'s factors that may
/// be 0: `[seq, batch * 4, 16]` of `[seq, batch, 64]`). Then the element
/// count (the op requires in and out to have as many elements): a -1 entry
/// is the input dims' product over the other result dims (the op checks
/// that divisor is not 0), and any result dim whose companions are provably
/// non-zero is that quotient too, when it is exact: `[seq * batch, 64]` of
/// `[seq, 4 * batch, 16]`.
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
    if (allowZero) {
      if (e.provablyNonNegative(s))
        entries[i] = s;
    } else if (e.provablyNonNegative(s) && e.provablyNonZero(s)) {
      entries[i] = s;
    } else if (i < rin && e.provablyEqual(s, e.dim(in, i))) {
      entries[i] = s; // 0 would copy the input dim, which is 0 too
    } else if (i < rin && e.provablyNonNegative(s) &&
               e.zeroImplies(s, e.dim(in, i))) {
      entries[i] = s; // likewise
    }
  }
  for (int64_t i = 0; i < rout; ++i)
    if (entries[i].isKnown())
      e.relate(e.dim(out, i), entries[i], "shape entry");

  // The element count: product(in) == product(out).
  Monomial numerator;
  for (int64_t i = 0; i < rin; ++i) {
    auto m = e.monomialOf(e.dim(in, i));
    if (!m || !multiplyMonomial(numerator, *m))
      return;
  }
  SmallVector<std::optional<Monomial>> outs;
  SmallVector<bool> nonZero;
  for (int64_t i = 0; i < rout; ++i) {
    outs.push_back(e.monomialOf(e.dim(out, i)));
    nonZero.push_back(inferred >= 0 || e.provablyNonZero(e.dim(out, i)));
  }
  for (int64_t i = 0; i < rout; ++i) {
    if (inferred >= 0 && i != inferred)
      continue;
    Monomial denominator;
    bool ok = true;
    for (int64_t j = 0; j < rout && ok; ++j)
      if (j != i)
        ok = outs[j] && nonZero[j] && multiplyMonomial(denominator, *outs[j]);
    if (!ok)
      continue;
    if (auto q = divideMonomial(numerator, denominator))
      e.relate(e.dim(out, i), e.intern(*q),
               i == inferred ? "inferred -1 entry" : "element count");
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
  e.relate(e.dim(out, 0), productOf(e, all.take_front(axis)),
           "product of dims");
  e.relate(e.dim(out, 1), productOf(e, all.drop_front(axis)),
           "product of dims");
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
namespace {

/// Slice bounds at or beyond this mean "to the end" (models use INT32_MAX
/// or INT64_MAX; no axis of a real tensor is that long).
constexpr int64_t kToEnd = std::numeric_limits<int32_t>::max();

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

} // namespace

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
  // With Pad-18's axes the pads name a subset of the axes: no fact here.
  if (!pads || int64_t(pads->size()) != 2 * rank ||
      !isa<NoneType>(pad.getAxes().getType()))
    return;
  for (int64_t i = 0; i < rank; ++i)
    e.relateDims(out, i, in, i, "padded extent",
                 (*pads)[i] + (*pads)[i + rank]);
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
  if (!start || !limit || !delta || start->size() != 1 || limit->size() != 1 ||
      delta->size() != 1)
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

} // namespace onyx::dim_analysis_detail
