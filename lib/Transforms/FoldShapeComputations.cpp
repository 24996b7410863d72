//===- FoldShapeComputations.cpp - Host scalars out of shape tensors ------===//
//
// Exporters compute shapes with tensor ops: PyTorch's MultiheadAttention
// takes `Shape`, `Gather`s one dim, `Div`s it by the head count, `Mul`s it
// back, `Concat`s the pieces and feeds the result to `Reshape` or `Slice`.
// The ONNX -> tensor conversion lowers those ops like any others (small
// linalg.generics, insert_slices, reshapes) and the consumer reads the
// values it needs with `tensor.extract` (issue 7's contract). Left alone,
// every such read is a *payload* read: on the GPU a synchronized readback,
// and for the memory planner a value that cannot move, which splits the
// pools into dominance domains that cannot share memory.
//
// This pass forwards `tensor.extract` through the ops that carried the value,
// until it reaches what the value really is (a `tensor.dim`, a constant, a
// `tensor.from_elements` of index arithmetic), where upstream folds finish
// the job:
//
//   extract(linalg.generic elementwise)  -> the body on extracts of inputs
//   extract(linalg.copy ins(x))          -> extract(x)
//   extract(tensor.insert_slice s into d)-> extract(s) inside, extract(d)
//                                           outside the inserted box
//   extract(tensor.extract_slice s)      -> extract(s) at offset + i*stride
//   extract(tensor.reshape / expand_shape / collapse_shape x)
//                                        -> extract(x) at the same linear
//                                           position
//
// Only extracts at constant positions of small static tensors (at most
// kMaxElements elements) are forwarded: shape tensors, not activations.
// Every rewrite is exact (the same element is computed from the same
// inputs), so a value that truly depends on data stays a payload read.
//
//===----------------------------------------------------------------------===//

#include "onyx/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace onyx {
#define GEN_PASS_DEF_FOLDSHAPECOMPUTATIONS
#include "onyx/Transforms/Passes.h.inc"
} // namespace onyx

using namespace mlir;

namespace {

constexpr int64_t kMaxElements = 64;

/// The constant positions of an extract, if all are constants.
std::optional<SmallVector<int64_t>> constantIndices(tensor::ExtractOp op) {
  SmallVector<int64_t> indices;
  for (Value v : op.getIndices()) {
    APInt value;
    if (!matchPattern(v, m_ConstantInt(&value)))
      return std::nullopt;
    indices.push_back(value.getSExtValue());
  }
  return indices;
}

/// A small, static tensor: a shape tensor, not an activation.
bool isSmallStatic(Value tensor) {
  auto type = dyn_cast<RankedTensorType>(tensor.getType());
  return type && type.hasStaticShape() && type.getNumElements() <= kMaxElements;
}

int64_t linearize(ArrayRef<int64_t> indices, ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (auto [i, n] : llvm::zip(indices, shape))
    linear = linear * n + i;
  return linear;
}

SmallVector<int64_t> delinearize(int64_t linear, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> indices(shape.size());
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    indices[d] = shape[d] == 0 ? 0 : linear % shape[d];
    linear = shape[d] == 0 ? 0 : linear / shape[d];
  }
  return indices;
}

/// Replaces `op` with an extract of `source` at constant `indices`.
void replaceWithExtract(PatternRewriter &rewriter, tensor::ExtractOp op,
                        Value source, ArrayRef<int64_t> indices) {
  SmallVector<Value> values;
  for (int64_t i : indices)
    values.push_back(arith::ConstantIndexOp::create(rewriter, op.getLoc(), i));
  rewriter.replaceOpWithNewOp<tensor::ExtractOp>(op, source, values);
}

struct ExtractOfElementwiseGeneric : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractOp op,
                                PatternRewriter &rewriter) const override {
    auto generic = op.getTensor().getDefiningOp<linalg::GenericOp>();
    auto indices = constantIndices(op);
    if (!generic || !indices || !isSmallStatic(op.getTensor()) ||
        generic.getNumDpsInits() != 1 || generic.getNumResults() != 1 ||
        generic.getNumReductionLoops() != 0)
      return failure();
    AffineMap outMap =
        generic.getIndexingMapMatchingResult(cast<OpResult>(op.getTensor()));
    if (!outMap.isIdentity())
      return failure();
    Block &body = generic.getRegion().front();
    // The body must not read the output's old value and must be free of
    // memory effects (tensor.extract of a captured tensor is fine). It need
    // not be speculatable: the generic computes this very element, so the
    // host evaluates the same ops on the same values (a guarded division
    // stays guarded).
    if (!body.getArgument(body.getNumArguments() - 1).use_empty())
      return failure();
    for (Operation &inner : body.without_terminator())
      if (!isMemoryEffectFree(&inner))
        return failure();

    Location loc = op.getLoc();
    IRMapping mapping;
    for (OpOperand *input : generic.getDpsInputOperands()) {
      AffineMap map = generic.getMatchingIndexingMap(input);
      Value operand = input->get();
      Value scalar;
      if (!isa<RankedTensorType>(operand.getType())) {
        scalar = operand; // a scalar input
      } else {
        SmallVector<int64_t> at;
        for (AffineExpr e : map.getResults()) {
          AffineExpr folded = e.replaceDims(
              llvm::map_to_vector(*indices, [&](int64_t i) -> AffineExpr {
                return getAffineConstantExpr(i, rewriter.getContext());
              }));
          auto c = dyn_cast<AffineConstantExpr>(folded);
          if (!c)
            return failure();
          at.push_back(c.getValue());
        }
        SmallVector<Value> atValues;
        for (int64_t i : at)
          atValues.push_back(arith::ConstantIndexOp::create(rewriter, loc, i));
        scalar = tensor::ExtractOp::create(rewriter, loc, operand, atValues);
      }
      mapping.map(body.getArgument(input->getOperandNumber()), scalar);
    }
    for (Operation &inner : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        mapping.map(index.getResult(),
                    arith::ConstantIndexOp::create(rewriter, loc,
                                                   (*indices)[index.getDim()]));
        continue;
      }
      rewriter.clone(inner, mapping);
    }
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    rewriter.replaceOp(op, mapping.lookupOrDefault(yield.getOperand(0)));
    return success();
  }
};

struct ExtractOfCopy : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractOp op,
                                PatternRewriter &rewriter) const override {
    auto copy = op.getTensor().getDefiningOp<linalg::CopyOp>();
    if (!copy || copy.getNumDpsInputs() != 1 ||
        !isa<RankedTensorType>(copy.getDpsInputs()[0].getType()))
      return failure();
    rewriter.replaceOpWithNewOp<tensor::ExtractOp>(op, copy.getDpsInputs()[0],
                                                   op.getIndices());
    return success();
  }
};

struct ExtractOfInsertSlice : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractOp op,
                                PatternRewriter &rewriter) const override {
    auto insert = op.getTensor().getDefiningOp<tensor::InsertSliceOp>();
    auto indices = constantIndices(op);
    if (!insert || !indices || !isSmallStatic(op.getTensor()))
      return failure();
    ArrayRef<int64_t> offsets = insert.getStaticOffsets();
    ArrayRef<int64_t> sizes = insert.getStaticSizes();
    ArrayRef<int64_t> strides = insert.getStaticStrides();
    if (ShapedType::isDynamicShape(offsets) ||
        ShapedType::isDynamicShape(sizes) ||
        ShapedType::isDynamicShape(strides) ||
        insert.getSourceType().getRank() != int64_t(sizes.size()))
      return failure(); // rank-reducing inserts are left alone
    SmallVector<int64_t> inner;
    bool inside = true;
    for (size_t d = 0; d < indices->size(); ++d) {
      int64_t rel = (*indices)[d] - offsets[d];
      if (rel < 0 || rel % strides[d] != 0 || rel / strides[d] >= sizes[d]) {
        inside = false;
        break;
      }
      inner.push_back(rel / strides[d]);
    }
    if (inside)
      replaceWithExtract(rewriter, op, insert.getSource(), inner);
    else
      rewriter.replaceOpWithNewOp<tensor::ExtractOp>(op, insert.getDest(),
                                                     op.getIndices());
    return success();
  }
};

struct ExtractOfExtractSlice : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractOp op,
                                PatternRewriter &rewriter) const override {
    auto slice = op.getTensor().getDefiningOp<tensor::ExtractSliceOp>();
    auto indices = constantIndices(op);
    if (!slice || !indices || !isSmallStatic(op.getTensor()))
      return failure();
    ArrayRef<int64_t> offsets = slice.getStaticOffsets();
    ArrayRef<int64_t> strides = slice.getStaticStrides();
    if (ShapedType::isDynamicShape(offsets) ||
        ShapedType::isDynamicShape(strides) ||
        slice.getSourceType().getRank() != int64_t(indices->size()))
      return failure(); // rank-reducing slices are left alone
    SmallVector<int64_t> at;
    for (size_t d = 0; d < indices->size(); ++d)
      at.push_back(offsets[d] + (*indices)[d] * strides[d]);
    replaceWithExtract(rewriter, op, slice.getSource(), at);
    return success();
  }
};

/// Reshapes of every kind keep the row-major linear position.
struct ExtractOfReshape : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractOp op,
                                PatternRewriter &rewriter) const override {
    Operation *def = op.getTensor().getDefiningOp();
    auto indices = constantIndices(op);
    if (!def || !indices || !isSmallStatic(op.getTensor()))
      return failure();
    Value source;
    if (auto r = dyn_cast<tensor::ReshapeOp>(def))
      source = r.getSource();
    else if (auto e = dyn_cast<tensor::ExpandShapeOp>(def))
      source = e.getSrc();
    else if (auto c = dyn_cast<tensor::CollapseShapeOp>(def))
      source = c.getSrc();
    else
      return failure();
    if (!isSmallStatic(source))
      return failure();
    auto resultShape = cast<RankedTensorType>(op.getTensor().getType());
    auto sourceShape = cast<RankedTensorType>(source.getType());
    int64_t linear = linearize(*indices, resultShape.getShape());
    replaceWithExtract(rewriter, op, source,
                       delinearize(linear, sourceShape.getShape()));
    return success();
  }
};

struct FoldShapeComputationsPass
    : public onyx::impl::FoldShapeComputationsBase<FoldShapeComputationsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<ExtractOfElementwiseGeneric, ExtractOfCopy,
                 ExtractOfInsertSlice, ExtractOfExtractSlice, ExtractOfReshape>(
        ctx);
    // The folds that finish the job: extract of from_elements / constants,
    // index_cast chains, dims of casts.
    tensor::ExtractOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::DimOp::getCanonicalizationPatterns(patterns, ctx);
    arith::IndexCastOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
