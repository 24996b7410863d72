//===- FoldHeadSplit.cpp - onyx.attention reads a fused QKV in place
//-------===//
//
// On tensors, right after onyx-fuse-attention (the CUDA pipeline). GPT-2's
// c_attn (and every fused QKV projection) writes Q, K and V side by side,
// [.., 3 * H * D]; the exporter splits them (Split: the lowering's
// extract_slice + linalg.copy for each part) and reshapes each part to
// [B, S, H, D] for the attention. Each copy writes and then reads again
// B x S x H x D elements, three per layer. An attention operand of the form
//
//   tensor.reshape(linalg.copy(extract_slice(T[0, .., 0, off]
//                                            [T's dims, .., H * D])),
//                  [e0, e1, H, D])            (tensor.cast around it)
//
// with T's last dim W static, off and W multiples of D, and the operand's
// head and depth dims the reshape's last two, is read from T itself:
// the operand becomes tensor.reshape(T, [e0, e1, W / D, D]) (no copy: T is
// one dense buffer) and `head_offsets` records off / D, the first head it
// reads. Row r of the copy is row r of T (the slice keeps every leading
// dim whole, checked through the tensor.empty that sized T's producer), so
// both reshapes put element (i0, i1, h, e) at T's row i0 * e1 + i1,
// column off + h * D + e. The copies, left without users, die.
//
//===----------------------------------------------------------------------===//

#include "onyx/Dialect/Onyx/OnyxAttention.h"
#include "onyx/Target/CUDA/Passes.h"

#include "TensorExtents.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

namespace onyx {
#define GEN_PASS_DEF_CUDAFOLDHEADSPLIT
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

namespace {

/// What an attention operand reads, when it is one part of a split
/// projection: the projection T, the reshape's leading extents and the
/// head size, and the first head of the part.
struct SplitHeads {
  Value source;
  Value e0, e1;
  int64_t depth, headOffset;
};

/// `operand` (whose head and depth dims are its dims 2 and 3, `dims`
/// naming the operand dim of logical batch, head, sequence, depth) as a
/// reshaped part of a split projection.
std::optional<SplitHeads> matchSplitHeads(Value operand,
                                          ArrayRef<int64_t> dims) {
  if (dims[1] != 2 || dims[3] != 3)
    return std::nullopt;
  if (auto cast = operand.getDefiningOp<tensor::CastOp>())
    operand = cast.getSource();
  auto reshape = operand.getDefiningOp<tensor::ReshapeOp>();
  if (!reshape)
    return std::nullopt;
  auto shape = reshape.getShape().getDefiningOp<tensor::FromElementsOp>();
  if (!shape || shape.getElements().size() != 4)
    return std::nullopt;
  std::optional<int64_t> heads = getConstantIntValue(shape.getElements()[2]);
  std::optional<int64_t> depth = getConstantIntValue(shape.getElements()[3]);
  if (!heads || !depth || *heads < 1 || *depth < 1)
    return std::nullopt;
  Value part = reshape.getSource();
  if (auto copy = part.getDefiningOp<linalg::CopyOp>()) {
    if (!copy.hasPureTensorSemantics())
      return std::nullopt;
    part = copy.getInputs()[0];
  }
  auto slice = part.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice)
    return std::nullopt;
  auto sourceType = dyn_cast<RankedTensorType>(slice.getSource().getType());
  int64_t rank = sourceType ? sourceType.getRank() : 0;
  if (rank < 2 || slice.getType().getRank() != rank)
    return std::nullopt;
  int64_t width = sourceType.getDimSize(rank - 1);
  SmallVector<OpFoldResult> offsets = slice.getMixedOffsets(),
                            sizes = slice.getMixedSizes(),
                            strides = slice.getMixedStrides();
  std::optional<int64_t> offset = getConstantIntValue(offsets[rank - 1]);
  std::optional<int64_t> size = getConstantIntValue(sizes[rank - 1]);
  if (ShapedType::isDynamic(width) || !offset || !size ||
      *size != *heads * *depth || *offset % *depth != 0 || width % *depth != 0)
    return std::nullopt;
  for (int64_t d = 0; d < rank; ++d) {
    if (!isConstantIntValue(strides[d], 1))
      return std::nullopt;
    if (d == rank - 1)
      break;
    // Every leading dim whole: the part's rows are the projection's.
    if (!isConstantIntValue(offsets[d], 0) ||
        !sameExtent(sizes[d], extentOf(slice.getSource(), d)))
      return std::nullopt;
  }
  return SplitHeads{slice.getSource(), shape.getElements()[0],
                    shape.getElements()[1], *depth, *offset / *depth};
}

/// The projection viewed as [e0, e1, W / D, D].
Value headsView(OpBuilder &b, Location loc, const SplitHeads &split) {
  auto sourceType = cast<RankedTensorType>(split.source.getType());
  int64_t width = sourceType.getDimSize(sourceType.getRank() - 1);
  Value allHeads = arith::ConstantIndexOp::create(b, loc, width / split.depth);
  Value depth = arith::ConstantIndexOp::create(b, loc, split.depth);
  Value shape = tensor::FromElementsOp::create(
      b, loc, ValueRange{split.e0, split.e1, allHeads, depth});
  auto staticOr = [](Value v) {
    std::optional<int64_t> c = getConstantIntValue(v);
    return c ? *c : ShapedType::kDynamic;
  };
  auto type = RankedTensorType::get({staticOr(split.e0), staticOr(split.e1),
                                     width / split.depth, split.depth},
                                    sourceType.getElementType());
  return tensor::ReshapeOp::create(b, loc, type, split.source, shape);
}

void fold(AttentionOp op) {
  Value operands[] = {op.getQuery(), op.getKey(), op.getValue()};
  ArrayRef<int64_t> dims[] = {op.getQueryDims(), op.getKeyDims(),
                              op.getValueDims()};
  SmallVector<int64_t, 3> offsets = op.getHeadOffsetsOrZero();
  OpBuilder b(op);
  bool changed = false;
  for (int i = 0; i < 3; ++i) {
    if (offsets[i] != 0)
      continue;
    std::optional<SplitHeads> split = matchSplitHeads(operands[i], dims[i]);
    if (!split)
      continue;
    operands[i] = headsView(b, op.getLoc(), *split);
    offsets[i] = split->headOffset;
    changed = true;
  }
  if (!changed)
    return;
  llvm::SmallSetVector<Value, 3> dead;
  for (Value v : {op.getQuery(), op.getKey(), op.getValue()})
    dead.insert(v);
  op.getQueryMutable().assign(operands[0]);
  op.getKeyMutable().assign(operands[1]);
  op.getValueMutable().assign(operands[2]);
  op.setHeadOffsets(offsets);
  // The casts, reshapes and copies read through die with their last user.
  for (Value v : dead) {
    while (v && v.use_empty()) {
      Operation *def = v.getDefiningOp();
      if (!def || !isa<tensor::CastOp, tensor::ReshapeOp, linalg::CopyOp,
                       tensor::ExtractSliceOp>(def))
        break;
      Value next = def->getOperand(0);
      if (auto copy = dyn_cast<linalg::CopyOp>(def))
        next = copy.getInputs()[0];
      def->erase();
      v = next;
    }
  }
}

struct CUDAFoldHeadSplitPass
    : public onyx::impl::CUDAFoldHeadSplitBase<CUDAFoldHeadSplitPass> {
  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation().walk([&](AttentionOp op) {
      if (isa<RankedTensorType>(op.getInit().getType()))
        ops.push_back(op);
    });
    for (AttentionOp op : ops)
      fold(op);
  }
};

} // namespace
