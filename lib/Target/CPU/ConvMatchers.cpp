//===- ConvMatchers.cpp - Matchers of onyx-cpu-lower-convolutions --------===//
//
// See ConvMatchers.h and LowerConvolutions.cpp's header.
//
//===----------------------------------------------------------------------===//

#include "ConvMatchers.h"

#include "onyx/Dialect/Onyx/OnyxDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace onyx::cpu_conv {

/// A dense f32 buffer with the identity layout: a plain pointer.
bool isDenseF32(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  return type && type.getElementType().isF32() && type.getLayout().isIdentity();
}

Value reshapeRoot(Value buffer) {
  while (true) {
    if (auto e = buffer.getDefiningOp<memref::ExpandShapeOp>())
      buffer = e.getSrc();
    else if (auto c = buffer.getDefiningOp<memref::CollapseShapeOp>())
      buffer = c.getSrc();
    else
      return buffer;
  }
}

/// Ops that may sit between the convolution and what folds into it: they
/// write no tensor data.
bool isNeutral(Operation *op) {
  return !isa<linalg::LinalgOp, func::CallOp, memref::StoreOp, memref::CopyOp>(
             op) &&
         op->getNumRegions() == 0;
}

bool isZeroConstant(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  auto value = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
  return value && value.getValue().isZero();
}

std::optional<SmallVector<unsigned>> mapDims(AffineMap map) {
  SmallVector<unsigned> dims;
  for (AffineExpr expr : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim)
      return std::nullopt;
    dims.push_back(dim.getPosition());
  }
  return dims;
}

/// `yield out + in0 * in1` on dense f32 buffers, the output not an input.
bool isMulAdd(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureBufferSemantics())
    return false;
  Block &body = op.getRegion().front();
  auto ops = body.without_terminator();
  if (std::distance(ops.begin(), ops.end()) != 2)
    return false;
  auto mul = dyn_cast<arith::MulFOp>(&*ops.begin());
  auto add = dyn_cast<arith::AddFOp>(&*std::next(ops.begin()));
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (!mul || !add || yield.getOperand(0) != add.getResult())
    return false;
  Value a = body.getArgument(0), b = body.getArgument(1),
        out = body.getArgument(2);
  if (!((mul.getLhs() == a && mul.getRhs() == b) ||
        (mul.getLhs() == b && mul.getRhs() == a)) ||
      !((add.getLhs() == out && add.getRhs() == mul.getResult()) ||
        (add.getRhs() == out && add.getLhs() == mul.getResult())))
    return false;
  for (Value v : op->getOperands())
    if (!isDenseF32(v))
      return false;
  Value root = reshapeRoot(op.getDpsInits()[0]);
  return llvm::none_of(op.getDpsInputs(),
                       [&](Value in) { return reshapeRoot(in) == root; });
}

/// A linear affine expression in the loops: coefficient per loop; false
/// for anything else (constants included: the input is already padded).
bool linearCoefficients(AffineExpr expr, llvm::DenseMap<unsigned, int64_t> &out,
                        int64_t scale = 1) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
    out[dim.getPosition()] += scale;
    return true;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return false;
  if (bin.getKind() == AffineExprKind::Add)
    return linearCoefficients(bin.getLHS(), out, scale) &&
           linearCoefficients(bin.getRHS(), out, scale);
  if (bin.getKind() == AffineExprKind::Mul) {
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      return linearCoefficients(bin.getLHS(), out, scale * c.getValue());
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getLHS()))
      return linearCoefficients(bin.getRHS(), out, scale * c.getValue());
  }
  return false;
}

std::optional<ConvMatch> matchConv(linalg::GenericOp op) {
  if (!isMulAdd(op))
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto yDims = mapDims(maps[2]);
  auto wDims = mapDims(maps[1]);
  if (!yDims || !wDims || yDims->size() < 4 || yDims->size() > 6 ||
      wDims->size() != yDims->size() ||
      maps[0].getNumResults() != yDims->size())
    return std::nullopt;
  int64_t rank = int64_t(yDims->size()) - 3;
  unsigned numLoops = op.getNumLoops();
  if (numLoops != unsigned(3 + 2 * rank + 1))
    return std::nullopt;
  unsigned n = (*yDims)[0], g = (*yDims)[1], m = (*yDims)[2];
  if ((*wDims)[0] != g || (*wDims)[1] != m)
    return std::nullopt;
  unsigned c = (*wDims)[2];
  SmallVector<unsigned> outs(yDims->begin() + 3, yDims->end());
  SmallVector<unsigned> taps(wDims->begin() + 3, wDims->end());
  // Every loop exactly once among n, g, m, outs, c, taps.
  llvm::SmallBitVector seen(numLoops);
  SmallVector<unsigned> all = {n, g, m, c};
  all.append(outs);
  all.append(taps);
  for (unsigned d : all) {
    if (seen.test(d))
      return std::nullopt;
    seen.set(d);
  }
  if (seen.count() != numLoops)
    return std::nullopt;
  auto iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> parallel = {n, g, m};
  parallel.append(outs);
  for (unsigned d : parallel)
    if (!linalg::isParallelIterator(iterators[d]))
      return std::nullopt;
  SmallVector<unsigned> reduction = {c};
  reduction.append(taps);
  for (unsigned d : reduction)
    if (!linalg::isReductionIterator(iterators[d]))
      return std::nullopt;
  // X[n, g, c, o * s + t * d].
  AffineMap xMap = maps[0];
  auto isDim = [&](unsigned r, unsigned d) {
    auto dim = dyn_cast<AffineDimExpr>(xMap.getResult(r));
    return dim && dim.getPosition() == d;
  };
  if (!isDim(0, n) || !isDim(1, g) || !isDim(2, c))
    return std::nullopt;
  ConvMatch match;
  match.rank = rank;
  auto wType = cast<MemRefType>(op.getDpsInputs()[1].getType());
  for (int64_t i = 0; i < rank; ++i) {
    llvm::DenseMap<unsigned, int64_t> coefficients;
    if (!linearCoefficients(xMap.getResult(3 + i), coefficients))
      return std::nullopt;
    int64_t stride = coefficients.lookup(outs[i]);
    int64_t dilation = coefficients.lookup(taps[i]);
    coefficients.erase(outs[i]);
    coefficients.erase(taps[i]);
    for (auto &entry : coefficients)
      if (entry.second != 0)
        return std::nullopt;
    if (stride <= 0)
      return std::nullopt;
    if (dilation <= 0) {
      // No tap term: only a kernel extent of 1 reads like that.
      if (dilation < 0 || wType.getDimSize(3 + i) != 1)
        return std::nullopt;
      dilation = 1;
    }
    match.strides.push_back(stride);
    match.dilations.push_back(dilation);
  }
  match.x = op.getDpsInputs()[0];
  match.w = op.getDpsInputs()[1];
  match.y = op.getDpsInits()[0];
  return match;
}

/// Whether `buffer` is read only by `allowed` (and dims, and views only
/// they use).
bool onlyUsedBy(Value buffer, ArrayRef<Operation *> allowed) {
  for (Operation *user : buffer.getUsers()) {
    if (isa<memref::DimOp>(user) || llvm::any_of(allowed, [&](Operation *op) {
          return op == user || op->isProperAncestor(user);
        }))
      continue;
    if (auto view = dyn_cast<memref::ExpandShapeOp>(user))
      if (onlyUsedBy(view.getResult(), allowed))
        continue;
    return false;
  }
  return true;
}

/// Whether `buffer` is used only by `allowed` (and dims, and views only
/// they use) from `start` on: every other user sits before `start` in its
/// block (e.g. the ops that computed the buffer's previous contents, which
/// `start`, the write of the convolution's result, replaces).
bool onlyUsedFrom(Value buffer, Operation *start,
                  ArrayRef<Operation *> allowed) {
  Block *block = start->getBlock();
  for (Operation *user : buffer.getUsers()) {
    if (isa<memref::DimOp>(user) || llvm::any_of(allowed, [&](Operation *op) {
          return op == user || op->isProperAncestor(user);
        }))
      continue;
    if (auto view = dyn_cast<memref::ExpandShapeOp>(user))
      if (onlyUsedFrom(view.getResult(), start, allowed))
        continue;
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (ancestor && ancestor != start && ancestor->isBeforeInBlock(start))
      continue;
    return false;
  }
  return true;
}

/// The sizes a buffer was given, to prove two buffers have equal dims.
std::optional<SmallVector<Value>> dynamicSizes(Value buffer) {
  if (auto view = buffer.getDefiningOp<memref::ViewOp>())
    return SmallVector<Value>(view.getSizes());
  if (auto alloc = buffer.getDefiningOp<AllocTempOp>())
    return SmallVector<Value>(alloc.getDynamicSizes());
  if (auto alloc = buffer.getDefiningOp<AllocOutputOp>())
    return SmallVector<Value>(alloc.getDynamicSizes());
  if (auto alloc = buffer.getDefiningOp<memref::AllocOp>())
    return SmallVector<Value>(alloc.getDynamicSizes());
  return std::nullopt;
}

bool isIdentityGeneric(linalg::GenericOp g, unsigned inputs) {
  if (!g.hasPureBufferSemantics() || g.getNumDpsInputs() != inputs ||
      g.getNumDpsInits() != 1 || g.getNumLoops() != g.getNumParallelLoops())
    return false;
  return llvm::all_of(g.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); });
}

/// The Conv lowering's bias broadcast into `out` (`yield %bias[c]`) right
/// before the convolution.
linalg::GenericOp findBiasBroadcast(Operation *conv, Value out) {
  for (Operation *prev = conv->getPrevNode(); prev;
       prev = prev->getPrevNode()) {
    if (isNeutral(prev))
      continue;
    auto g = dyn_cast<linalg::GenericOp>(prev);
    if (!g || !g.hasPureBufferSemantics() || g.getNumDpsInputs() != 1 ||
        g.getNumDpsInits() != 1 || g.getDpsInits()[0] != out ||
        g.getNumLoops() != g.getNumParallelLoops() || g.getNumLoops() < 3)
      return {};
    SmallVector<AffineMap> maps = g.getIndexingMapsArray();
    auto biasType = dyn_cast<MemRefType>(g.getDpsInputs()[0].getType());
    if (!maps[1].isIdentity() || maps[0].getNumResults() != 1 ||
        maps[0].getResult(0) != getAffineDimExpr(1, g.getContext()) ||
        !biasType || biasType.getRank() != 1 ||
        !isDenseF32(g.getDpsInputs()[0]))
      return {};
    Block &body = g.getRegion().front();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    if (body.getOperations().size() != 1 ||
        yield.getOperand(0) != body.getArgument(0))
      return {};
    return g;
  }
  return {};
}

/// ONNX Relu of `out` right after `after`: a generic `max(in, 0)` from
/// `out` into a buffer of the same type.
linalg::GenericOp findRelu(Operation *after, Value out) {
  Operation *next = after->getNextNode();
  while (next && isNeutral(next))
    next = next->getNextNode();
  auto g = dyn_cast_or_null<linalg::GenericOp>(next);
  if (!g || !isIdentityGeneric(g, 1) || g.getDpsInputs()[0] != out ||
      g.getDpsInits()[0].getType() != out.getType())
    return {};
  Block &body = g.getRegion().front();
  if (body.getOperations().size() != 2)
    return {};
  Operation *max = &body.front();
  if (!isa<arith::MaximumFOp, arith::MaxNumFOp>(max) ||
      cast<linalg::YieldOp>(body.getTerminator()).getOperand(0) !=
          max->getResult(0))
    return {};
  Value in = body.getArgument(0);
  if (!((max->getOperand(0) == in && isZeroConstant(max->getOperand(1))) ||
        (max->getOperand(1) == in && isZeroConstant(max->getOperand(0)))))
    return {};
  return g;
}

/// ONNX Clip of `out` right after `after` with constant bounds: a generic
/// `minimumf(maximumf(in, lo), hi)` from `out` into a buffer of the same
/// type (the NaN-propagating forms only: the call keeps NaN).
linalg::GenericOp findClip(Operation *after, Value out, float &lo, float &hi) {
  Operation *next = after->getNextNode();
  while (next && isNeutral(next))
    next = next->getNextNode();
  auto g = dyn_cast_or_null<linalg::GenericOp>(next);
  if (!g || !isIdentityGeneric(g, 1) || g.getDpsInputs()[0] != out ||
      g.getDpsInits()[0].getType() != out.getType())
    return {};
  Block &body = g.getRegion().front();
  if (body.getOperations().size() != 3)
    return {};
  auto max = dyn_cast<arith::MaximumFOp>(&body.front());
  auto min = dyn_cast<arith::MinimumFOp>(max ? max->getNextNode() : nullptr);
  if (!max || !min ||
      cast<linalg::YieldOp>(body.getTerminator()).getOperand(0) !=
          min.getResult())
    return {};
  auto constant = [](Value v, float &f) {
    auto cst = v.getDefiningOp<arith::ConstantOp>();
    auto value = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
    if (!value || !value.getType().isF32())
      return false;
    f = value.getValue().convertToFloat();
    return true;
  };
  Value in = body.getArgument(0);
  Value loValue = max.getLhs() == in ? max.getRhs() : max.getLhs();
  Value hiValue = min.getLhs() == max.getResult() ? min.getRhs() : min.getLhs();
  if ((max.getLhs() != in && max.getRhs() != in) ||
      (min.getLhs() != max.getResult() && min.getRhs() != max.getResult()) ||
      !constant(loValue, lo) || !constant(hiValue, hi))
    return {};
  return g;
}

/// Whether `size` is the extent of dim `d` of `buffer`: its static size,
/// a memref.dim of it, or the dynamic size it was given.
bool isExtent(Value size, Value buffer, int64_t d) {
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.isDynamicDim(d)) {
    auto c = getConstantIntValue(size);
    return c && *c == type.getDimSize(d);
  }
  if (auto dimOp = size.getDefiningOp<memref::DimOp>()) {
    auto index = getConstantIntValue(dimOp.getIndex());
    if (dimOp.getSource() == buffer && index && *index == d)
      return true;
  }
  auto sizes = dynamicSizes(buffer);
  return sizes && (*sizes)[type.getDynamicDimIndex(d)] == size;
}

/// Whether `bound` is the extent of dim `d` of `buffer` minus one.
bool isExtentMinusOne(Value bound, Value buffer, int64_t d) {
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.isDynamicDim(d)) {
    auto c = getConstantIntValue(bound);
    return c && *c == type.getDimSize(d) - 1;
  }
  auto isConst = [](Value v, int64_t k) {
    auto c = getConstantIntValue(v);
    return c && *c == k;
  };
  // extent - 1, extent + -1.
  if (auto sub = bound.getDefiningOp<arith::SubIOp>())
    if (isConst(sub.getRhs(), 1) && isExtent(sub.getLhs(), buffer, d))
      return true;
  if (auto add = bound.getDefiningOp<arith::AddIOp>())
    if ((isConst(add.getRhs(), -1) && isExtent(add.getLhs(), buffer, d)) ||
        (isConst(add.getLhs(), -1) && isExtent(add.getRhs(), buffer, d)))
      return true;
  // The extent was computed as bound + 1.
  auto sizes = dynamicSizes(buffer);
  SmallVector<Value> candidates;
  if (sizes)
    candidates.push_back((*sizes)[type.getDynamicDimIndex(d)]);
  for (Value size : candidates)
    if (auto add = size.getDefiningOp<arith::AddIOp>())
      if ((add.getLhs() == bound && isConst(add.getRhs(), 1)) ||
          (add.getRhs() == bound && isConst(add.getLhs(), 1)))
        return true;
  return false;
}

/// The Conv lowering's zero padding of the convolution's input: the generic
/// right before `conv` (past neutral ops and `bias`) writing all of `padded`
/// (dims [N, C, spatial...]) as
///   select(in bounds, src[n, c, i - p...] (indices clamped), 0)
/// with a dense `src` of the same N and C (a dim without a begin pad reads
/// the clamped `i`). Returns it with `src` and the begin pad of each dim.
/// With `fill`, the padding value may be any f32 constant (the MaxPool
/// lowering's -inf), returned there.
linalg::GenericOp findPadding(Operation *conv, Operation *bias, Value padded,
                              Value &src, SmallVector<int64_t> &pads,
                              std::optional<float> *fill, bool channelsLast) {
  Operation *prev = conv->getPrevNode();
  while (prev && (isNeutral(prev) || prev == bias))
    prev = prev->getPrevNode();
  auto g = dyn_cast_or_null<linalg::GenericOp>(prev);
  auto paddedType = dyn_cast<MemRefType>(padded.getType());
  if (!g || !g.hasPureBufferSemantics() || g.getNumDpsInputs() != 0 ||
      g.getNumDpsInits() != 1 || g.getDpsInits()[0] != padded ||
      g.getNumLoops() != g.getNumParallelLoops() ||
      !g.getIndexingMapsArray()[0].isIdentity() || !paddedType ||
      !paddedType.getLayout().isIdentity() ||
      !isa<FloatType>(paddedType.getElementType()))
    return {};
  // N and C (the dims the padding does not touch): [N, C, spatial...], or
  // [N, spatial..., C] channels last.
  int64_t channelDim = channelsLast ? paddedType.getRank() - 1 : 1;
  auto isBatchOrChannel = [&](int64_t d) { return d == 0 || d == channelDim; };
  Block &body = g.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto select = yield.getOperand(0).getDefiningOp<arith::SelectOp>();
  if (!select || select->getBlock() != &body)
    return {};
  if (fill) {
    auto cst = select.getFalseValue().getDefiningOp<arith::ConstantOp>();
    auto value = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
    if (!value || !value.getType().isF32())
      return {};
    *fill = value.getValue().convertToFloat();
  } else if (!isZeroConstant(select.getFalseValue())) {
    return {};
  }
  auto load = select.getTrueValue().getDefiningOp<memref::LoadOp>();
  if (!load || load->getBlock() != &body)
    return {};
  src = load.getMemRef();
  auto srcType = dyn_cast<MemRefType>(src.getType());
  if (!srcType ||
      srcType !=
          MemRefType::get(srcType.getShape(), paddedType.getElementType()) ||
      srcType.getRank() != paddedType.getRank() ||
      src.getParentBlock() == &body || reshapeRoot(src) == reshapeRoot(padded))
    return {};
  std::optional<SmallVector<Value>> paddedSizes = dynamicSizes(padded);
  auto intConstant = [](Value v) { return getConstantIntValue(v); };
  auto isIndex = [&](Value v, int64_t d) {
    auto idx = v.getDefiningOp<linalg::IndexOp>();
    return idx && idx->getBlock() == &body && int64_t(idx.getDim()) == d;
  };
  // The shifted index `index d - p` of each padded dim.
  SmallVector<Value> shifted(paddedType.getRank());
  pads.assign(paddedType.getRank(), 0);
  for (auto [d, index] : llvm::enumerate(load.getIndices())) {
    auto constantIndex = intConstant(index);
    if (isIndex(index, d) || (constantIndex && *constantIndex == 0 &&
                              paddedType.getDimSize(d) == 1)) {
      // N and C: the same extents (the call addresses the source by them).
      if (isBatchOrChannel(d)) {
        Value extent =
            !paddedType.isDynamicDim(d)
                ? Value()
                : (paddedSizes
                       ? (*paddedSizes)[paddedType.getDynamicDimIndex(d)]
                       : Value());
        bool same =
            extent ? isExtent(extent, src, d)
                   : !paddedType.isDynamicDim(d) && !srcType.isDynamicDim(d) &&
                         srcType.getDimSize(d) == paddedType.getDimSize(d);
        if (!same)
          return {};
      }
      continue;
    }
    // clamp(index d - p, 0, size - 1) as maxsi(minsi(.)) or minsi(maxsi(.)).
    Operation *outer = index.getDefiningOp();
    if (isBatchOrChannel(d) || !outer || outer->getBlock() != &body ||
        !isa<arith::MaxSIOp, arith::MinSIOp>(outer))
      return {};
    Operation *inner = outer->getOperand(0).getDefiningOp();
    if (!inner || !isa<arith::MaxSIOp, arith::MinSIOp>(inner) ||
        isa<arith::MaxSIOp>(inner) == isa<arith::MaxSIOp>(outer))
      return {};
    Value lower = isa<arith::MaxSIOp>(outer) ? outer->getOperand(1)
                                             : inner->getOperand(1);
    Value upper = isa<arith::MaxSIOp>(outer) ? inner->getOperand(1)
                                             : outer->getOperand(1);
    auto lowerValue = intConstant(lower);
    if (!lowerValue || *lowerValue != 0 || !isExtentMinusOne(upper, src, d))
      return {};
    Value position = inner->getOperand(0);
    if (isIndex(position, d)) {
      // No begin pad (e.g. ceil_mode's overhang at the end only).
      shifted[d] = position;
      continue;
    }
    auto sub = position.getDefiningOp<arith::SubIOp>();
    if (!sub || !isIndex(sub.getLhs(), d))
      return {};
    auto p = intConstant(sub.getRhs());
    if (!p || *p < 0)
      return {};
    pads[d] = *p;
    shifted[d] = sub.getResult();
  }
  // The condition: for each padded dim, exactly `shifted >= 0` and
  // `shifted <= size - 1`, joined by andi.
  SmallVector<Value> leaves, work = {select.getCondition()};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto a = v.getDefiningOp<arith::AndIOp>();
        a && a->getBlock() == &body) {
      work.push_back(a.getLhs());
      work.push_back(a.getRhs());
    } else {
      leaves.push_back(v);
    }
  }
  SmallVector<int> lowSeen(paddedType.getRank(), 0),
      highSeen(paddedType.getRank(), 0);
  for (Value leaf : leaves) {
    auto cmp = leaf.getDefiningOp<arith::CmpIOp>();
    if (!cmp || cmp->getBlock() != &body)
      return {};
    auto it = llvm::find(shifted, cmp.getLhs());
    if (it == shifted.end() || !*it)
      return {};
    int64_t d = it - shifted.begin();
    auto bound = intConstant(cmp.getRhs());
    if (cmp.getPredicate() == arith::CmpIPredicate::sge && bound && *bound == 0)
      ++lowSeen[d];
    else if (cmp.getPredicate() == arith::CmpIPredicate::sle &&
             isExtentMinusOne(cmp.getRhs(), src, d))
      ++highSeen[d];
    else
      return {};
  }
  // Without a begin pad the lower check may have folded away (an index is
  // never negative).
  for (int64_t d = 0; d < paddedType.getRank(); ++d)
    if (shifted[d] && (lowSeen[d] > 1 || (lowSeen[d] == 0 && pads[d] != 0) ||
                       highSeen[d] != 1))
      return {};
  return g;
}

/// The residual Add right after the convolution: an elementwise generic
/// writing `out = y + r` (or r + y), `r` a buffer of y's type and dims.
/// The Add lowering reads its operands with run-time broadcast selects,
/// `select(dim == 1, 0, i)`, the identity when the dims are the output's.
std::pair<linalg::GenericOp, Value> findResidualAdd(Operation *conv, Value y) {
  auto none = std::make_pair(linalg::GenericOp(), Value());
  Operation *next = conv->getNextNode();
  while (next && isNeutral(next))
    next = next->getNextNode();
  auto g = dyn_cast_or_null<linalg::GenericOp>(next);
  if (!g || !g.hasPureBufferSemantics() || g.getNumDpsInits() != 1 ||
      g.getNumLoops() != g.getNumParallelLoops())
    return none;
  Value out = g.getDpsInits()[0];
  if (out.getType() != y.getType() ||
      !g.getIndexingMapsArray().back().isIdentity())
    return none;
  Block &body = g.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add || add->getBlock() != &body)
    return none;
  auto type = cast<MemRefType>(out.getType());
  std::optional<SmallVector<Value>> sizes;
  if (!type.hasStaticShape()) {
    sizes = dynamicSizes(out);
    auto ySizes = dynamicSizes(y);
    if (!sizes || !ySizes || *sizes != *ySizes)
      return none;
  }
  auto extent = [&](unsigned d) -> Value {
    return type.isDynamicDim(d) ? (*sizes)[type.getDynamicDimIndex(d)]
                                : Value();
  };
  auto isOne = [](Value v) {
    auto c = getConstantIntValue(v);
    return c && *c == 1;
  };
  auto operandBuffer = [&](Value v) -> Value {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != &body || arg.getArgNumber() >= g.getNumDpsInputs())
        return {};
      OpOperand *operand = g.getDpsInputOperand(arg.getArgNumber());
      if (!g.getMatchingIndexingMap(operand).isIdentity())
        return {};
      return operand->get();
    }
    auto load = v.getDefiningOp<memref::LoadOp>();
    if (!load || load->getBlock() != &body)
      return {};
    for (auto [d, index] : llvm::enumerate(load.getIndices())) {
      Value i = index;
      if (auto select = i.getDefiningOp<arith::SelectOp>()) {
        auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
        auto zero = getConstantIntValue(select.getTrueValue());
        if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq || !zero ||
            *zero != 0 || !extent(d) ||
            !((cmp.getLhs() == extent(d) && isOne(cmp.getRhs())) ||
              (cmp.getRhs() == extent(d) && isOne(cmp.getLhs()))))
          return {};
        i = select.getFalseValue();
      }
      auto idx = i.getDefiningOp<linalg::IndexOp>();
      if (!idx || idx.getDim() != d)
        return {};
    }
    Value buffer = load.getMemRef();
    if (buffer.getType() != out.getType())
      return {};
    if (!type.hasStaticShape()) {
      auto bufferSizes = dynamicSizes(buffer);
      if (!bufferSizes || *bufferSizes != *sizes)
        return {};
    }
    return buffer;
  };
  Value lhs = operandBuffer(add.getLhs()), rhs = operandBuffer(add.getRhs());
  if (!lhs || !rhs || !isDenseF32(lhs) || !isDenseF32(rhs) || !isDenseF32(out))
    return none;
  for (Operation &inner : body.without_terminator())
    if (!isa<linalg::IndexOp, arith::SelectOp, arith::CmpIOp, arith::ConstantOp,
             memref::LoadOp, arith::AddFOp>(inner))
      return none;
  if (lhs == y && rhs != y)
    return {g, rhs};
  if (rhs == y && lhs != y)
    return {g, lhs};
  return none;
}

/// A zero linalg.fill of exactly `out` right before `op` (nothing in
/// between writes tensor data) is erased: the call overwrites.
bool absorbZeroFill(Operation *op, Value out) {
  Value root = reshapeRoot(out);
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev)) {
      if (fill.hasPureBufferSemantics() &&
          reshapeRoot(fill.getDpsInits()[0]) == root &&
          isZeroConstant(fill.getInputs()[0])) {
        fill.erase();
        return true;
      }
      return false;
    }
    if (!isNeutral(prev))
      return false;
  }
  return false;
}

std::optional<PoolMatch> matchMaxPool(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return std::nullopt;
  Value x = op.getDpsInputs()[0], window = op.getDpsInputs()[1],
        y = op.getDpsInits()[0];
  auto windowType = dyn_cast<MemRefType>(window.getType());
  if (!isDenseF32(x) || !isDenseF32(y) || !windowType ||
      !windowType.hasStaticShape())
    return std::nullopt;
  int64_t rank = windowType.getRank();
  auto yType = cast<MemRefType>(y.getType());
  if (rank < 1 || rank > 3 || yType.getRank() != rank + 2 ||
      cast<MemRefType>(x.getType()).getRank() != rank + 2 ||
      op.getNumLoops() != unsigned(2 + 2 * rank))
    return std::nullopt;
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 2)
    return std::nullopt;
  auto max = dyn_cast<arith::MaximumFOp>(&body.front());
  if (!max || max.getLhs() != body.getArgument(2) ||
      max.getRhs() != body.getArgument(0) ||
      cast<linalg::YieldOp>(body.getTerminator()).getOperand(0) !=
          max.getResult())
    return std::nullopt;
  auto iterators = op.getIteratorTypesArray();
  for (int64_t i = 0; i < 2 + 2 * rank; ++i)
    if (i < 2 + rank ? !linalg::isParallelIterator(iterators[i])
                     : !linalg::isReductionIterator(iterators[i]))
      return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto isDim = [](AffineExpr e, int64_t d) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    return dim && int64_t(dim.getPosition()) == d;
  };
  for (int64_t i = 0; i < 2 + rank; ++i)
    if (!isDim(maps[2].getResult(i), i))
      return std::nullopt;
  for (int64_t i = 0; i < rank; ++i)
    if (!isDim(maps[1].getResult(i), 2 + rank + i))
      return std::nullopt;
  if (maps[0].getNumResults() != unsigned(2 + rank) ||
      !isDim(maps[0].getResult(0), 0) || !isDim(maps[0].getResult(1), 1))
    return std::nullopt;
  PoolMatch match;
  match.x = x;
  match.y = y;
  match.rank = rank;
  for (int64_t i = 0; i < rank; ++i) {
    llvm::DenseMap<unsigned, int64_t> coefficients;
    if (!linearCoefficients(maps[0].getResult(2 + i), coefficients))
      return std::nullopt;
    int64_t stride = coefficients.lookup(2 + i);
    int64_t dilation = coefficients.lookup(2 + rank + i);
    coefficients.erase(2 + i);
    coefficients.erase(2 + rank + i);
    for (auto &entry : coefficients)
      if (entry.second != 0)
        return std::nullopt;
    if (stride <= 0 || dilation < 0 ||
        (dilation == 0 && windowType.getDimSize(i) != 1))
      return std::nullopt;
    match.kernel.push_back(windowType.getDimSize(i));
    match.strides.push_back(stride);
    match.dilations.push_back(std::max<int64_t>(dilation, 1));
  }
  return match;
}

/// A linalg.fill of exactly `out` with an f32 constant right before `op`
/// (nothing in between writes tensor data): erased, its value returned.
std::optional<float> absorbFill(Operation *op, Value out) {
  Value root = reshapeRoot(out);
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev)) {
      auto cst = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
      auto value = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
      if (!fill.hasPureBufferSemantics() ||
          reshapeRoot(fill.getDpsInits()[0]) != root || !value ||
          !value.getType().isF32())
        return std::nullopt;
      float v = value.getValue().convertToFloat();
      fill.erase();
      return v;
    }
    if (!isNeutral(prev))
      return std::nullopt;
  }
  return std::nullopt;
}

} // namespace onyx::cpu_conv
