//===- FuseAttention.cpp - Attention subgraphs as one onyx.attention ------===//
//
// On tensors, after the ONNX lowering and before elementwise fusion. From
// each batched contraction P x V (the second MatMul of an attention block)
// it walks back:
//
//   P = exp(X - max_j X) / sum_j exp(X - max_j X)    Softmax over the last dim
//   X = S * c | S / c | (S * c) + mask | Where(mask, S * c, fill)
//                                                   scale, then the mask
//   S = Q x K^T                                     the first MatMul
//
// through the copies the MatMul lowering inserts (broadcast copies written
// as tensor.extract at the loop indices, where an index is `select(E == 1,
// 0, i)` with E the source's own extent) and linalg.transpose, so that the
// new op reads the untransposed Q, K and V (`query_dims`...). Every index
// map and body is checked exactly; a chain that does not match stays as it
// is. The scores, the softmax and its copies die and are erased.
//
// The mask is any f32 tensor the mask Add reads at the score's indices (or
// at constant 0 of a static extent-1 dim): BERT's padding mask [B, 1, 1, S],
// the causal masks GPT-2's and Llama's graphs build ([B, 1, S, S]). A dim
// of extent 1 broadcasts at run time, as ONNX broadcasting does (the
// lowering's checks admit only 1 or the full extent), for every operand.
//
// f16/bf16 blocks fuse too, also in the form `--precision=fp16|bf16` gives
// an fp32 model: the Softmax (and the mask after its Cast) in f32 between a
// pure conversion from the half type and one back to it (the kernel's
// softmax is f32 anyway).
//
//===----------------------------------------------------------------------===//

#include "onyx/Dialect/Onyx/OnyxAttention.h"
#include "onyx/Target/CUDA/Passes.h"

#include "LibraryCalls.h"
#include "TensorExtents.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <optional>

namespace onyx {
#define GEN_PASS_DEF_CUDAFUSEATTENTION
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

namespace {

/// The element types the kernels take.
bool isAttentionFloat(Type t) { return t.isF32() || t.isF16() || t.isBF16(); }

/// `v` without an extension from f16/bf16 to f32 (the lowering computes
/// half-precision elementwise bodies in f32 between an extension and a
/// truncation): arith.extf, or for bf16 the bit-level extension it writes
/// out, bitcast(shli(extui(bitcast x : bf16 to i16), 16)) : f32.
Value stripExt(Value v) {
  if (auto ext = v.getDefiningOp<arith::ExtFOp>())
    if (ext.getType().isF32() &&
        (ext.getIn().getType().isF16() || ext.getIn().getType().isBF16()))
      return ext.getIn();
  auto cast = v.getDefiningOp<arith::BitcastOp>();
  if (!cast || !cast.getType().isF32())
    return v;
  auto shl = cast.getIn().getDefiningOp<arith::ShLIOp>();
  if (!shl || !isConstantIntValue(shl.getRhs(), 16))
    return v;
  auto ext = shl.getLhs().getDefiningOp<arith::ExtUIOp>();
  auto in = ext ? ext.getIn().getDefiningOp<arith::BitcastOp>() : nullptr;
  if (!in || !in.getIn().getType().isBF16())
    return v;
  return in.getIn();
}

/// The f32 value `v` (of element type `element`, f16 or bf16) truncates:
/// arith.truncf, or for bf16 the round-to-nearest-even the lowering writes
/// out, bitcast(trunci(select(cmpf uno y, y; quiet NaN; shrui(addi(bitcast
/// y, bias), 16)))) : bf16. NULL if neither.
Value truncatedFrom(Value v, Type element) {
  if (auto trunc = v.getDefiningOp<arith::TruncFOp>())
    return trunc.getIn().getType().isF32() ? trunc.getIn() : Value();
  auto cast = v.getDefiningOp<arith::BitcastOp>();
  if (!element.isBF16() || !cast || !cast.getType().isBF16())
    return Value();
  auto trunc = cast.getIn().getDefiningOp<arith::TruncIOp>();
  auto sel = trunc ? trunc.getIn().getDefiningOp<arith::SelectOp>() : nullptr;
  auto cmp = sel ? sel.getCondition().getDefiningOp<arith::CmpFOp>() : nullptr;
  if (!cmp || cmp.getPredicate() != arith::CmpFPredicate::UNO ||
      cmp.getLhs() != cmp.getRhs() || !cmp.getLhs().getType().isF32())
    return Value();
  auto shr = sel.getFalseValue().getDefiningOp<arith::ShRUIOp>();
  auto add = shr ? shr.getLhs().getDefiningOp<arith::AddIOp>() : nullptr;
  if (!add || !isConstantIntValue(shr.getRhs(), 16))
    return Value();
  auto bits = add.getLhs().getDefiningOp<arith::BitcastOp>();
  if (!bits || bits.getIn() != cmp.getLhs())
    return Value();
  return cmp.getLhs();
}

/// How a tensor is read inside a generic: for each of its dims the loop
/// that indexes it, or -1 for constant 0 on a static extent-1 dim.
struct Access {
  Value source;
  SmallVector<int64_t> loops;
};

/// `idx` is `linalg.index d`, or `select(E == 1, 0, linalg.index d)` with E
/// the extent of `source`'s dim `pos` (the read is then the same for every
/// index in range); returns d. -1 for constant 0 when the dim is static 1.
std::optional<int64_t> indexLoop(Value idx, Value source, int64_t pos) {
  if (auto index = idx.getDefiningOp<linalg::IndexOp>())
    return int64_t(index.getDim());
  if (std::optional<int64_t> c = getConstantIntValue(idx)) {
    auto type = cast<RankedTensorType>(source.getType());
    if (*c == 0 && type.getDimSize(pos) == 1)
      return -1;
    return std::nullopt;
  }
  auto sel = idx.getDefiningOp<arith::SelectOp>();
  if (!sel || !isConstantIntValue(sel.getTrueValue(), 0))
    return std::nullopt;
  auto index = sel.getFalseValue().getDefiningOp<linalg::IndexOp>();
  auto cmp = sel.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!index || !cmp || cmp.getPredicate() != arith::CmpIPredicate::eq)
    return std::nullopt;
  Value extent;
  if (isConstantIntValue(cmp.getRhs(), 1))
    extent = cmp.getLhs();
  else if (isConstantIntValue(cmp.getLhs(), 1))
    extent = cmp.getRhs();
  else
    return std::nullopt;
  if (!sameExtent(extent, extentOf(source, pos)))
    return std::nullopt;
  return int64_t(index.getDim());
}

/// The access a scalar `v` of generic `g`'s body is: a block argument of an
/// input (its map: loops or constant 0 on static extent-1 dims), or a
/// tensor.extract of a tensor defined outside at loop indices.
std::optional<Access> accessOf(linalg::GenericOp g, Value v) {
  Access access;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner() != g.getBody() ||
        arg.getArgNumber() >= g.getNumDpsInputs())
      return std::nullopt;
    OpOperand *operand = g.getDpsInputOperand(arg.getArgNumber());
    access.source = operand->get();
    auto type = dyn_cast<RankedTensorType>(access.source.getType());
    if (!type)
      return std::nullopt;
    AffineMap map = g.getMatchingIndexingMap(operand);
    for (auto [pos, expr] : llvm::enumerate(map.getResults())) {
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        access.loops.push_back(dim.getPosition());
      else if (auto c = dyn_cast<AffineConstantExpr>(expr);
               c && c.getValue() == 0 && type.getDimSize(pos) == 1)
        access.loops.push_back(-1);
      else
        return std::nullopt;
    }
    return access;
  }
  auto extract = v.getDefiningOp<tensor::ExtractOp>();
  if (!extract || extract.getTensor().getParentBlock() == g.getBody())
    return std::nullopt;
  if (auto def = extract.getTensor().getDefiningOp(); def && g->isAncestor(def))
    return std::nullopt;
  access.source = extract.getTensor();
  for (auto [pos, idx] : llvm::enumerate(extract.getIndices())) {
    std::optional<int64_t> loop = indexLoop(idx, access.source, pos);
    if (!loop)
      return std::nullopt;
    access.loops.push_back(*loop);
  }
  return access;
}

bool isIdentityAccess(const Access &a, unsigned rank) {
  if (a.loops.size() != rank)
    return false;
  for (unsigned i = 0; i < rank; ++i)
    if (a.loops[i] != int64_t(i))
      return false;
  return true;
}

/// An elementwise generic: all loops parallel, one init read through the
/// identity map (or not at all), rank `rank`.
bool isElementwise(linalg::GenericOp g, unsigned rank) {
  return g && g.getNumDpsInits() == 1 && g.getNumLoops() == rank &&
         g.getNumParallelLoops() == rank &&
         g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() &&
         isa<RankedTensorType>(g.getResult(0).getType());
}

Value yielded(linalg::GenericOp g) {
  return cast<linalg::YieldOp>(g.getBody()->getTerminator()).getOperand(0);
}

/// The input of `g` when `g` is a pure conversion of a rank-4 tensor read
/// at the identity (the lowering of onnx.Cast that `--precision=fp16|bf16`
/// places around an f32 Softmax): from `from` to `to`, one of them f32 and
/// the other f16 or bf16 (`extf` / `truncf`, or bf16's bit-level forms).
/// Null otherwise.
Value castSource(linalg::GenericOp g, Type from, Type to) {
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumLoops() != 4 || g.getNumParallelLoops() != 4)
    return Value();
  for (AffineMap map : g.getIndexingMapsArray())
    if (!map.isIdentity())
      return Value();
  auto inType = dyn_cast<RankedTensorType>(g.getDpsInputs()[0].getType());
  auto outType = dyn_cast<RankedTensorType>(g.getResult(0).getType());
  if (!inType || !outType || inType.getElementType() != from ||
      outType.getElementType() != to)
    return Value();
  Value arg = g.getBody()->getArgument(0), y = yielded(g);
  bool ok = false;
  if (from.isF32() && (to.isF16() || to.isBF16()))
    ok = truncatedFrom(y, to) == arg;
  else if (to.isF32() && (from.isF16() || from.isBF16()))
    ok = y != arg && stripExt(y) == arg;
  return ok ? g.getDpsInputs()[0] : Value();
}

/// A rank-4 tensor as a view of `source`: dim i of the tensor is dim
/// `dims[i]` of the source (a permutation).
struct View {
  Value source;
  SmallVector<int64_t, 4> dims = {0, 1, 2, 3};
};

/// Looks through linalg.transpose and the MatMul lowering's (broadcast)
/// copies of rank-4 f32 tensors (not through tensor.cast: the static depth
/// the kernel needs is often only in the cast's type).
View viewOf(Value t, SmallVectorImpl<Operation *> &chain) {
  View view{t};
  for (int step = 0; step < 8; ++step) {
    Operation *def = view.source.getDefiningOp();
    if (!def)
      break;
    if (auto transpose = dyn_cast<linalg::TransposeOp>(def)) {
      ArrayRef<int64_t> perm = transpose.getPermutation();
      // result dim i = input dim perm[i]
      for (int64_t &d : view.dims)
        d = perm[d];
      chain.push_back(def);
      view.source = transpose.getInput();
      continue;
    }
    auto g = dyn_cast<linalg::GenericOp>(def);
    if (!isElementwise(g, 4) || g.getNumDpsInputs() != 0)
      break;
    std::optional<Access> access = accessOf(g, yielded(g));
    if (!access || access->loops.size() != 4)
      break;
    // source dim p is read at loop access->loops[p]: tensor dim l = source
    // dim p.
    SmallVector<int64_t, 4> inverse(4, -1);
    bool ok = true;
    for (auto [p, l] : llvm::enumerate(access->loops)) {
      if (l < 0 || inverse[l] != -1) {
        ok = false;
        break;
      }
      inverse[l] = p;
    }
    if (!ok)
      break;
    for (int64_t &d : view.dims)
      d = inverse[d];
    chain.push_back(def);
    view.source = access->source;
  }
  return view;
}

/// `out + a * b` of the block arguments (either order).
bool isMulAddBody(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (body->getNumArguments() != 3 ||
      !isAttentionFloat(body->getArgument(0).getType()))
    return false;
  auto add = cast<linalg::YieldOp>(body->getTerminator())
                 .getOperand(0)
                 .getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value out = body->getArgument(2);
  Value other = add.getLhs() == out ? add.getRhs() : add.getLhs();
  if ((add.getLhs() != out && add.getRhs() != out))
    return false;
  auto mul = other.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return false;
  Value a = body->getArgument(0), b = body->getArgument(1);
  return (mul.getLhs() == a && mul.getRhs() == b) ||
         (mul.getLhs() == b && mul.getRhs() == a);
}

/// A batched contraction C[d0, d1, d2, d3] += A[d0, d1, d2, d4] *
/// B[d0, d1, d4, d3] on f32, f16 or bf16 whose init is a zero fill.
bool isBatchedMatmul(linalg::GenericOp g) {
  if (!g || g.getNumDpsInputs() != 2 || g.getNumDpsInits() != 1 ||
      g.getNumLoops() != 5 || g.getNumReductionLoops() != 1 ||
      !linalg::isReductionIterator(g.getIteratorTypesArray()[4]) ||
      !isMulAddBody(g))
    return false;
  MLIRContext *ctx = g.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  if (maps[0] != AffineMap::get(5, 0, {d(0), d(1), d(2), d(4)}, ctx) ||
      maps[1] != AffineMap::get(5, 0, {d(0), d(1), d(4), d(3)}, ctx) ||
      maps[2] != AffineMap::get(5, 0, {d(0), d(1), d(2), d(3)}, ctx))
    return false;
  return cuda::isZeroFill(g.getDpsInits()[0]);
}

/// A float splat: an arith.constant scalar or a 0-d/splat tensor constant.
std::optional<double> splatValue(Value v) {
  FloatAttr f;
  if (matchPattern(v, m_Constant(&f)))
    return f.getValueAsDouble();
  DenseElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)) && dense.isSplat() &&
      isa<FloatType>(dense.getElementType()))
    return dense.getSplatValue<APFloat>().convertToDouble();
  return std::nullopt;
}

/// The constant a scalar of `g`'s body is (defined outside, or a 0-d input
/// read through an empty map).
std::optional<double> bodyConstant(linalg::GenericOp g, Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner() != g.getBody() ||
        arg.getArgNumber() >= g.getNumDpsInputs())
      return std::nullopt;
    OpOperand *operand = g.getDpsInputOperand(arg.getArgNumber());
    if (g.getMatchingIndexingMap(operand).getNumResults() != 0 &&
        !isa<RankedTensorType>(operand->get().getType()))
      return std::nullopt;
    auto type = dyn_cast<RankedTensorType>(operand->get().getType());
    if (!type)
      return splatValue(operand->get());
    // A splat tensor read anywhere is the same constant.
    return splatValue(operand->get());
  }
  if (v.getParentBlock() == g.getBody())
    return std::nullopt;
  return splatValue(v);
}

/// What the walk from the scores to the softmax input found.
struct Scores {
  linalg::GenericOp qk;
  double scale = 1.0;
  std::optional<Access> mask;
  /// A Where mask (i1): the score where the mask is false (true with
  /// fillWhereTrue).
  std::optional<double> fill;
  bool fillWhereTrue = false;
  SmallVector<Operation *> chain;
};

/// Each mask dim read at a distinct loop (or at constant 0 on extent 1).
/// An additive mask is f32 or the scores' element type `scoreType`.
bool isMaskAccess(const Access &a, bool boolean, Type scoreType) {
  auto type = cast<RankedTensorType>(a.source.getType());
  Type element = type.getElementType();
  if ((boolean ? !element.isInteger(1)
               : !(element.isF32() || element == scoreType)) ||
      type.getRank() > 4 || type.getRank() < 1)
    return false;
  llvm::SmallBitVector seen(4);
  for (int64_t l : a.loops) {
    if (l >= 0 && seen.test(l))
      return false;
    if (l >= 0)
      seen.set(l);
  }
  return true;
}

/// X (the softmax input, rank 4) as `QK * c`, `QK / c`, `... + mask`, all
/// of one element type (f32, f16 or bf16; a half type's bodies may compute
/// in f32 between extf and a final truncf). With `operand` a half type and
/// X f32 (`--precision=fp16|bf16` keeps the Softmax in f32), the chain
/// crosses one pure conversion from `operand` to f32 (the scale usually
/// before it, in the half type, the mask after it, in f32); QK is of type
/// `operand`.
std::optional<Scores> matchScores(Value x, Type operand) {
  Scores scores;
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  if (!xType || !isAttentionFloat(xType.getElementType()))
    return std::nullopt;
  Type element = xType.getElementType();
  if (element != operand && !(element.isF32() && !operand.isF32()))
    return std::nullopt;
  bool sawMask = false, sawScale = false;
  for (int step = 0; step < 7; ++step) {
    auto g = x.getDefiningOp<linalg::GenericOp>();
    if (!g)
      return std::nullopt;
    if (isBatchedMatmul(g)) {
      if (element != operand)
        return std::nullopt;
      scores.qk = g;
      return scores;
    }
    if (element != operand) {
      if (Value half = castSource(g, operand, element)) {
        element = operand;
        scores.chain.push_back(g);
        x = half;
        continue;
      }
    }
    if (!isElementwise(g, 4) ||
        cast<RankedTensorType>(g.getResult(0).getType()).getElementType() !=
            element)
      return std::nullopt;
    Value y = yielded(g);
    if (!element.isF32())
      if (Value wide = truncatedFrom(y, element))
        y = wide;
    Operation *op = y.getDefiningOp();
    if (!op || op->getBlock() != g.getBody() || op->getNumOperands() < 2)
      return std::nullopt;
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    if (!element.isF32()) {
      lhs = stripExt(lhs);
      rhs = stripExt(rhs);
    }
    std::optional<Access> next;
    if (auto sel = dyn_cast<arith::SelectOp>(op)) {
      // Where(mask, scores, c) or Where(mask, c, scores).
      if (sawMask || sawScale)
        return std::nullopt;
      sawMask = true;
      std::optional<Access> ma = accessOf(g, sel.getCondition());
      if (!ma || !isMaskAccess(*ma, /*boolean=*/true, element))
        return std::nullopt;
      for (int order = 0; order < 2 && !next; ++order) {
        Value sv = order == 0 ? sel.getTrueValue() : sel.getFalseValue();
        Value cv = order == 0 ? sel.getFalseValue() : sel.getTrueValue();
        if (!element.isF32()) {
          sv = stripExt(sv);
          cv = stripExt(cv);
        }
        std::optional<Access> sa = accessOf(g, sv);
        std::optional<double> c = bodyConstant(g, cv);
        if (!sa || !c || std::isnan(*c) || !isIdentityAccess(*sa, 4) ||
            !sa->source.getDefiningOp<linalg::GenericOp>())
          continue;
        next = sa;
        scores.mask = ma;
        scores.fill = *c;
        scores.fillWhereTrue = order == 1;
      }
    } else if (op->getNumOperands() != 2) {
      return std::nullopt;
    } else if (isa<arith::MulFOp, arith::DivFOp>(op)) {
      sawScale = true;
      std::optional<double> c = bodyConstant(g, rhs);
      Value s = lhs;
      if (!c && isa<arith::MulFOp>(op)) {
        c = bodyConstant(g, lhs);
        s = rhs;
      }
      if (!c || *c == 0.0 || !std::isfinite(*c))
        return std::nullopt;
      scores.scale *= isa<arith::MulFOp>(op) ? *c : 1.0 / *c;
      next = accessOf(g, s);
    } else if (isa<arith::AddFOp>(op)) {
      // Walking back from the softmax: a scale seen already comes after
      // this Add, and would scale the mask too; one mask only.
      if (sawMask || sawScale)
        return std::nullopt;
      sawMask = true;
      // Which operand is the running scores: the one produced by the chain
      // (a generic of rank 4 read at the identity).
      for (int order = 0; order < 2 && !next; ++order) {
        Value s = order == 0 ? lhs : rhs, m = order == 0 ? rhs : lhs;
        std::optional<Access> sa = accessOf(g, s), ma = accessOf(g, m);
        if (!sa || !ma || !isIdentityAccess(*sa, 4) ||
            !sa->source.getDefiningOp<linalg::GenericOp>())
          continue;
        if (!isMaskAccess(*ma, /*boolean=*/false, element))
          continue;
        next = sa;
        scores.mask = ma;
      }
    } else {
      return std::nullopt;
    }
    if (!next || !isIdentityAccess(*next, 4))
      return std::nullopt;
    scores.chain.push_back(g);
    x = next->source;
  }
  return std::nullopt;
}

/// P = exp(X - M) / S with M = max_j X (init -inf or the lowest float), S =
/// sum_j exp(X - M) (init 0), reductions over the last dim. Returns X.
std::optional<Value> matchSoftmax(Value p,
                                  SmallVectorImpl<Operation *> &chain) {
  auto div = p.getDefiningOp<linalg::GenericOp>();
  if (!isElementwise(div, 4) || div.getNumDpsInputs() != 3)
    return std::nullopt;
  MLIRContext *ctx = div.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineMap id = AffineMap::getMultiDimIdentityMap(4, ctx);
  AffineMap row = AffineMap::get(4, 0, {d(0), d(1), d(2)}, ctx);
  SmallVector<AffineMap> maps = div.getIndexingMapsArray();
  if (maps[0] != id || maps[1] != row || maps[2] != row)
    return std::nullopt;
  Block *body = div.getBody();
  auto divf = yielded(div).getDefiningOp<arith::DivFOp>();
  if (!divf || divf.getRhs() != body->getArgument(2))
    return std::nullopt;
  auto exp = divf.getLhs().getDefiningOp<math::ExpOp>();
  auto sub = exp ? exp.getOperand().getDefiningOp<arith::SubFOp>() : nullptr;
  if (!sub || sub.getLhs() != body->getArgument(0) ||
      sub.getRhs() != body->getArgument(1))
    return std::nullopt;
  Value x = div.getDpsInputs()[0], maxV = div.getDpsInputs()[1],
        sumV = div.getDpsInputs()[2];
  // max_j X
  auto maxG = maxV.getDefiningOp<linalg::GenericOp>();
  auto isRowReduction = [&](linalg::GenericOp g, unsigned inputs) {
    if (!g || g.getNumDpsInputs() != inputs || g.getNumDpsInits() != 1 ||
        g.getNumLoops() != 4 || g.getNumReductionLoops() != 1 ||
        !linalg::isReductionIterator(g.getIteratorTypesArray()[3]))
      return false;
    SmallVector<AffineMap> m = g.getIndexingMapsArray();
    return m[0] == id && m.back() == row && (inputs == 1 || m[1] == row);
  };
  if (!isRowReduction(maxG, 1) || maxG.getDpsInputs()[0] != x)
    return std::nullopt;
  auto maxf = yielded(maxG).getDefiningOp<arith::MaximumFOp>();
  Block *mb = maxG.getBody();
  if (!maxf || !((maxf.getLhs() == mb->getArgument(0) &&
                  maxf.getRhs() == mb->getArgument(1)) ||
                 (maxf.getLhs() == mb->getArgument(1) &&
                  maxf.getRhs() == mb->getArgument(0))))
    return std::nullopt;
  auto maxFill = maxG.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  std::optional<double> maxInit =
      maxFill ? splatValue(maxFill.getInputs()[0]) : std::nullopt;
  if (!maxInit || *maxInit > -3.4e38)
    return std::nullopt;
  // sum_j exp(X - M)
  auto sumG = sumV.getDefiningOp<linalg::GenericOp>();
  if (!isRowReduction(sumG, 2) || sumG.getDpsInputs()[0] != x ||
      sumG.getDpsInputs()[1] != maxV)
    return std::nullopt;
  Block *sb = sumG.getBody();
  auto add = yielded(sumG).getDefiningOp<arith::AddFOp>();
  if (!add)
    return std::nullopt;
  Value e = add.getLhs() == sb->getArgument(2) ? add.getRhs() : add.getLhs();
  if (add.getLhs() != sb->getArgument(2) && add.getRhs() != sb->getArgument(2))
    return std::nullopt;
  auto sexp = e.getDefiningOp<math::ExpOp>();
  auto ssub = sexp ? sexp.getOperand().getDefiningOp<arith::SubFOp>() : nullptr;
  if (!ssub || ssub.getLhs() != sb->getArgument(0) ||
      ssub.getRhs() != sb->getArgument(1))
    return std::nullopt;
  if (!cuda::isZeroFill(sumG.getDpsInits()[0]))
    return std::nullopt;
  chain.append({div, maxG, sumG});
  return x;
}

SmallVector<int64_t> toDims(ArrayRef<int64_t> d) {
  return SmallVector<int64_t>(d.begin(), d.end());
}

/// Rewrites one P x V contraction; true when it did.
bool fuse(linalg::GenericOp pv) {
  if (!isBatchedMatmul(pv))
    return false;
  SmallVector<Operation *> chain;
  // P through identity copies only (no transposes: P is [B, H, Sq, Sk]).
  View pView = viewOf(pv.getDpsInputs()[0], chain);
  if (pView.dims != SmallVector<int64_t, 4>{0, 1, 2, 3})
    return false;
  for (Operation *op : chain)
    if (isa<linalg::TransposeOp>(op))
      return false;
  Type element =
      cast<RankedTensorType>(pv.getResult(0).getType()).getElementType();
  if (!isAttentionFloat(element))
    return false;
  // `--precision=fp16|bf16` keeps the Softmax in f32: P is its conversion
  // to the half type (the kernel's softmax is f32 anyway).
  Value p = pView.source;
  if (!element.isF32())
    if (Value wide = castSource(p.getDefiningOp<linalg::GenericOp>(),
                                Float32Type::get(pv.getContext()), element)) {
      chain.push_back(p.getDefiningOp());
      p = wide;
    }
  std::optional<Value> x = matchSoftmax(p, chain);
  if (!x)
    return false;
  Type softmaxType = cast<RankedTensorType>(p.getType()).getElementType();
  std::optional<Scores> scores = matchScores(*x, element);
  if (!scores)
    return false;
  View q = viewOf(scores->qk.getDpsInputs()[0], chain);
  View kt = viewOf(scores->qk.getDpsInputs()[1], chain);
  View v = viewOf(pv.getDpsInputs()[1], chain);
  // One element type (f32, f16 or bf16) for Q, K, V, the scores and the
  // output; the softmax in it or (with a half type) in f32.
  for (Value t : {q.source, kt.source, v.source, *x}) {
    auto type = dyn_cast<RankedTensorType>(t.getType());
    Type want = t == *x ? softmaxType : element;
    if (!type || type.getRank() != 4 || type.getElementType() != want)
      return false;
  }
  // The kernel keeps a query row and its output row in registers: static
  // depths up to 128.
  auto depthOf = [](const View &view) {
    return cast<RankedTensorType>(view.source.getType())
        .getDimSize(view.dims[3]);
  };
  int64_t qDepth = depthOf(q), vDepth = depthOf(v);
  if (ShapedType::isDynamic(qDepth) || ShapedType::isDynamic(vDepth) ||
      qDepth > 128 || vDepth > 128 || qDepth < 1 || vDepth < 1)
    return false;
  // K^T is [b, h, d, j]; the op's key is logical [b, h, j, d].
  SmallVector<int64_t> keyDims = {kt.dims[0], kt.dims[1], kt.dims[3],
                                  kt.dims[2]};
  SmallVector<int64_t> maskDims = {-1, -1, -1, -1};
  Value mask;
  if (scores->mask) {
    mask = scores->mask->source;
    for (auto [pos, loop] : llvm::enumerate(scores->mask->loops))
      if (loop >= 0)
        maskDims[loop] = pos;
  }
  auto fill = pv.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  Value init = fill.getOutputs()[0];
  OpBuilder b(pv);
  auto attention = AttentionOp::create(
      b, pv.getLoc(), pv.getResult(0).getType(), q.source, kt.source, v.source,
      mask, init, b.getF64FloatAttr(scores->scale),
      b.getDenseI64ArrayAttr(toDims(q.dims)), b.getDenseI64ArrayAttr(keyDims),
      b.getDenseI64ArrayAttr(toDims(v.dims)), b.getDenseI64ArrayAttr(maskDims),
      b.getI64IntegerAttr(1),
      scores->fill ? b.getF64FloatAttr(*scores->fill) : FloatAttr(),
      scores->fillWhereTrue ? b.getUnitAttr() : UnitAttr(),
      /*out_dims=*/DenseI64ArrayAttr(), /*head_offsets=*/DenseI64ArrayAttr(),
      /*causal_shift=*/IntegerAttr());
  pv.getResult(0).replaceAllUsesWith(attention.getResult());
  // Erase what died (the matched ops and the fills feeding them), users
  // first; each op once.
  llvm::SetVector<Operation *> dead;
  dead.insert(pv);
  dead.insert(chain.begin(), chain.end());
  dead.insert(scores->chain.begin(), scores->chain.end());
  dead.insert(scores->qk);
  llvm::DenseSet<Operation *> gone;
  bool erased = true;
  while (erased) {
    erased = false;
    for (Operation *op : dead.takeVector()) {
      if (gone.contains(op))
        continue;
      if (!op->use_empty()) {
        dead.insert(op);
        continue;
      }
      for (Value operand : op->getOperands())
        if (auto f = operand.getDefiningOp<linalg::FillOp>())
          dead.insert(f);
      gone.insert(op);
      op->erase();
      erased = true;
    }
  }
  return true;
}

/// The exporters merge the heads back right after attention: a Transpose
/// [B, H, S, D] -> [B, S, H, D] before the Reshape to [B, S, H * D]. When the
/// op's result feeds only such a `linalg.transpose`, the op writes the
/// transposed layout itself (`out_dims`): one pass and one buffer fewer.
static void foldOutputTranspose(AttentionOp op) {
  if (!op.getResult() || op.getOutDims() || !op.getResult().hasOneUse())
    return;
  auto transpose =
      dyn_cast<linalg::TransposeOp>(*op.getResult().getUsers().begin());
  if (!transpose || transpose.getInput() != op.getResult() ||
      !transpose.getInit().getDefiningOp<tensor::EmptyOp>())
    return;
  // out[j] = in[perm[j]]: the logical dim l lands at the j with perm[j] = l.
  ArrayRef<int64_t> perm = transpose.getPermutation();
  SmallVector<int64_t> outDims(4, -1);
  for (auto [j, l] : llvm::enumerate(perm))
    outDims[l] = int64_t(j);
  OpBuilder b(transpose);
  auto folded = AttentionOp::create(
      b, op.getLoc(), transpose.getInit().getType(), op.getQuery(), op.getKey(),
      op.getValue(), op.getMask(), transpose.getInit(), op.getScaleAttr(),
      op.getQueryDimsAttr(), op.getKeyDimsAttr(), op.getValueDimsAttr(),
      op.getMaskDimsAttr(), op.getKvGroupAttr(), op.getMaskFillAttr(),
      op.getMaskFillWhereTrueAttr(), b.getDenseI64ArrayAttr(outDims),
      op.getHeadOffsetsAttr(), op.getCausalShiftAttr());
  transpose.getResult()[0].replaceAllUsesWith(folded.getResult());
  transpose->erase();
  Value oldInit = op.getInit();
  op->erase();
  if (Operation *init = oldInit.getDefiningOp())
    if (init->use_empty() && isa<tensor::EmptyOp>(init))
      init->erase();
}

struct CUDAFuseAttentionPass
    : public onyx::impl::CUDAFuseAttentionBase<CUDAFuseAttentionPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk([&](linalg::GenericOp g) {
      if (g.hasPureTensorSemantics() && isBatchedMatmul(g))
        candidates.push_back(g);
    });
    // A QK contraction of one block is never the PV of another: a
    // candidate erased as a QK is skipped by the set below.
    llvm::DenseSet<Operation *> alive(candidates.begin(), candidates.end());
    for (linalg::GenericOp pv : candidates) {
      if (!alive.contains(pv) || !fuse(pv))
        continue;
      // The rewrite erased its QK contraction (a candidate too).
      alive.clear();
      getOperation().walk([&](linalg::GenericOp g) { alive.insert(g); });
    }
    SmallVector<AttentionOp> fused;
    getOperation().walk([&](AttentionOp op) { fused.push_back(op); });
    for (AttentionOp op : fused)
      foldOutputTranspose(op);
  }
};

} // namespace
