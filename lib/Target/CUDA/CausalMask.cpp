//===- CausalMask.cpp - A causal Where mask recognized as one -------------===//
//
// On tensors, after onyx-fuse-attention and onyx-cuda-fold-head-split (the
// CUDA pipeline). GPT-2's graph (and every exporter's `torch.where(i >= j,
// scores, lowest)` with i and j from arange) builds its causal mask as
//
//   %qi = linalg.generic outs(tensor<?xi64>) { index_cast(linalg.index 0) }
//   %kj = linalg.generic outs(tensor<?xi64>) { index_cast(linalg.index 0) }
//   %m  = linalg.generic ins(expand(%qi) : ?x1, expand(%kj) : 1x?)
//                        outs(tensor<?x?xi1>) { cmpi sge, %in0, %in1 }
//
// and onyx.attention selects with it (`mask_fill`, fill where false). Such a
// mask holds `j <= i + c` at its (query i, key j) indices, c = 0 for
// `i >= j` (`j <= i`) and -1 for `i > j` (`j < i`); the pass records c as
// `causal_shift`, and the CUDA kernel computes the mask from the indices
// instead of staging it tile by tile (and skips the tiles past the
// diagonal without reading anything). The mask stays an operand (its
// strides tell the kernel where it broadcasts, so a mask of extent 1 gives
// the same result as reading it), and its generic still runs once per call.
//
// An index in the comparison is either `index_cast(linalg.index d)` in the
// mask generic itself or an input read along loop d that is an iota (a
// generic yielding index_cast(linalg.index 0), expanded with static unit
// dims); the generic is elementwise (every loop parallel, the output
// written through the identity map, the comparison yielded). Anything else
// keeps its mask as it is (lib/Target/CUDA/CausalMask.cpp).
//
//===----------------------------------------------------------------------===//

#include "onyx/Dialect/Onyx/OnyxAttention.h"
#include "onyx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <optional>

namespace onyx {
#define GEN_PASS_DEF_CUDACAUSALMASK
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

namespace {

/// `v` is `index_cast(linalg.index d)` to an integer of at least 32 bits
/// (a narrower one wraps at lengths the model may run at): d.
std::optional<int64_t> castIndexLoop(Value v) {
  auto cast = v.getDefiningOp<arith::IndexCastOp>();
  auto index =
      cast ? cast.getIn().getDefiningOp<linalg::IndexOp>() : linalg::IndexOp();
  auto type = cast ? dyn_cast<IntegerType>(cast.getType()) : IntegerType();
  if (!index || !type || type.getWidth() < 32)
    return std::nullopt;
  return int64_t(index.getDim());
}

/// `t` holds its index along dim `pos` at every index (t[x] = x[pos]): a
/// rank-1 generic with no inputs yielding index_cast(linalg.index 0),
/// expanded (tensor.expand_shape) with static unit dims around it. Returns
/// pos.
std::optional<int64_t> iotaDim(Value t) {
  auto type = dyn_cast<RankedTensorType>(t.getType());
  if (!type)
    return std::nullopt;
  std::optional<int64_t> pos = 0;
  if (auto expand = t.getDefiningOp<tensor::ExpandShapeOp>()) {
    if (expand.getSrcType().getRank() != 1)
      return std::nullopt;
    pos.reset();
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (type.getDimSize(d) == 1)
        continue;
      if (pos)
        return std::nullopt; // two dims that may exceed 1
      pos = d;
    }
    if (!pos) // every dim static 1: the one element is 0
      pos = 0;
    t = expand.getSrc();
  } else if (type.getRank() != 1) {
    return std::nullopt;
  }
  auto g = t.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 0 || g.getNumDpsInits() != 1 ||
      g.getNumLoops() != 1 ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
  std::optional<int64_t> loop = castIndexLoop(yield.getValues()[0]);
  if (!loop || *loop != 0)
    return std::nullopt;
  return pos;
}

/// The loop whose index the scalar `v` of generic `g`'s body is.
std::optional<int64_t> loopOf(linalg::GenericOp g, Value v) {
  if (std::optional<int64_t> loop = castIndexLoop(v))
    return loop;
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != g.getBody() ||
      arg.getArgNumber() >= g.getNumDpsInputs())
    return std::nullopt;
  OpOperand *operand = g.getDpsInputOperand(arg.getArgNumber());
  std::optional<int64_t> pos = iotaDim(operand->get());
  if (!pos)
    return std::nullopt;
  auto expr = dyn_cast<AffineDimExpr>(
      g.getMatchingIndexingMap(operand).getResult(*pos));
  if (!expr)
    return std::nullopt;
  return int64_t(expr.getPosition());
}

/// The shift c of a mask that holds `j <= i + c` at query index i (loop
/// `queryLoop`) and key index j (loop `keyLoop`), or nullopt.
std::optional<int64_t> causalShiftOf(Value mask, int64_t queryLoop,
                                     int64_t keyLoop) {
  auto g = mask.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInits() != 1 ||
      g.getNumParallelLoops() != g.getNumLoops() ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
    return std::nullopt;
  // What the body yields is the comparison (other ops in a generic's body
  // are pure and do not matter).
  auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
  auto cmp = yield.getValues()[0].getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return std::nullopt;
  std::optional<int64_t> lhs = loopOf(g, cmp.getLhs()),
                         rhs = loopOf(g, cmp.getRhs());
  if (!lhs || !rhs)
    return std::nullopt;
  using P = arith::CmpIPredicate;
  P pred = cmp.getPredicate();
  // Both sides are indices (non-negative): signed and unsigned agree.
  if (*lhs == queryLoop && *rhs == keyLoop) { // i pred j
    if (pred == P::sge || pred == P::uge)
      return 0; // i >= j
    if (pred == P::sgt || pred == P::ugt)
      return -1;                                     // i > j
  } else if (*lhs == keyLoop && *rhs == queryLoop) { // j pred i
    if (pred == P::sle || pred == P::ule)
      return 0; // j <= i
    if (pred == P::slt || pred == P::ult)
      return -1; // j < i
  }
  return std::nullopt;
}

struct CUDACausalMaskPass
    : public onyx::impl::CUDACausalMaskBase<CUDACausalMaskPass> {
  void runOnOperation() override {
    getOperation().walk([](AttentionOp op) {
      Value mask = op.getMask();
      ArrayRef<int64_t> dims = op.getMaskDims();
      if (!mask || !op.getMaskFill() || op.getMaskFillWhereTrue() ||
          op.getCausalShift() || !isa<RankedTensorType>(mask.getType()) ||
          dims.size() != 4 || dims[2] < 0 || dims[3] < 0)
        return;
      // The mask generic's output is the mask (identity map): its loop d
      // is mask dim d.
      if (std::optional<int64_t> shift = causalShiftOf(mask, dims[2], dims[3]))
        op.setCausalShift(*shift);
    });
  }
};

} // namespace
