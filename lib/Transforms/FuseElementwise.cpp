//===- FuseElementwise.cpp - Dispatch regions on tensors ------------------===//
//
// Every top-level linalg op that survives bufferization is one kernel on the
// CUDA target and one loop nest on the CPU, and every tensor between two of
// them is a buffer. The ONNX lowering emits one generic per ONNX node, so a
// LayerNorm written out as ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add
// is eleven kernels and six full-size temporaries. This pass forms dispatch
// regions on tensors, before bufferization, with upstream's elementwise
// fusion (linalg::populateElementwiseOpsFusionPatterns): an all-parallel
// producer generic is inlined into the body of the generic that consumes it
// (elementwise, broadcasting, or a reduction), and the intermediate tensor
// disappears.
//
// What may fuse is decided by `allowFusion` (the control function):
//
//   * Library ops stay whole. A contraction or convolution (a reduction
//     whose body multiplies two different inputs) becomes a cuBLASLt/cuDNN
//     call on CUDA and a BLAS call on the CPU; fusing a transpose or a scale
//     into it would turn it into a naive kernel. So nothing fuses into them.
//   * Library epilogues stay whole: the bias Add after a GEMM, the Relu or
//     residual Add after a convolution, and the Relu after that residual Add
//     (lib/Target/CUDA/LowerLibraryCalls.cpp folds them into the call). They
//     neither fuse into their consumer nor absorb a producer.
//   * A producer fuses only when the consumer is its only user: then its
//     tensor disappears. (Upstream would otherwise keep the producer's result
//     as a second result of the fused op: no buffer saved, and a reduction
//     with two outputs loses the CUDA warp-reduction kernel.)
//   * A consumer that reads the producer through a broadcasting map (a
//     LayerNorm's per-row statistics read by every element of the row)
//     recomputes the producer once per broadcast element: allowed only for
//     cheap producers (a few arithmetic ops, sqrt; no exp/erf/pow), whose
//     recomputation costs less than a kernel launch and a pass over memory.
//
// Payload sizes are counted in ops with constants free and a bf16 <-> f32
// conversion as one op, as f16's extf / truncf are: the ONNX lowering writes
// bf16 conversions out with integer ops (a bf16 Mul is 15 ops, its f16 form
// 3), and counted op by op, bf16 chains exceeded both bounds and stayed
// several kernels (GPT-2's tanh-GELU: six in bf16, one in f16).
//
// Three rewrites run with the fusion patterns to give it more to fuse:
//
//   * Cheap producers with several users, all of which could fuse them
//     (x - mean, read by the variance and by the normalization; the scaled
//     attention scores, read by the three softmax steps), are cloned once per
//     user: each copy then fuses, and the full-size intermediate is never
//     stored. The recomputation is a few arithmetic ops per element; the
//     saving a write and a read of the tensor per user.
//   * Named data-movement ops (linalg.transpose, broadcast, copy) feeding a
//     consumer that may fuse them are generalized, so that they fuse too.
//   * A `tensor.extract` in a body at exactly the loop indices, from a
//     tensor whose dims are provably the loop extents (the MatMul lowering's
//     run-time broadcast copies once DimAnalysis has proven the batch dims
//     equal), becomes an input operand read through the matching map: the
//     copy is then an identity generic, which canonicalization removes.
//
// After fusion, a `linalg.fill` shared by several ops (CSE merges the zero
// initializations of all GEMMs and reductions of a layer) is cloned for each
// user: a shared fill bufferizes to one filled buffer plus a copy per user,
// while a fill per user writes straight into that user's buffer (and is
// absorbed by the library call on CUDA). The same holds for a broadcast of
// a constant into an empty tensor (a convolution's bias as its initial
// value: two convolutions of one Fire module with equal biases share it
// after CSE), and for the reshapes between such an initializer and its
// users; they are cloned per user too.
//
//===----------------------------------------------------------------------===//

#include "onyx/Analysis/Contraction.h"
#include "onyx/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace onyx {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "onyx/Transforms/Passes.h.inc"
} // namespace onyx

using namespace mlir;

namespace {

/// The payload cost (payloadCost, below) a producer may have and still count
/// as cheap to recompute.
constexpr unsigned kMaxCheapOps = 4;
/// The payload cost a fused generic may reach (keeps kernels compilable and
/// register pressure sane).
constexpr unsigned kMaxFusedOps = 48;

/// Whether `v` is the integer constant `value`.
bool isIntConstant(Value v, int64_t value) {
  APInt bits;
  return matchPattern(v, m_ConstantInt(&bits)) && bits == value;
}

/// Adds to `steps` the integer ops that feed `trunc` with the bits of an
/// f32 rounded to bf16, when they are that rounding as the ONNX lowering
/// writes it out (lib/Conversion/ONNXToTensor/Elementwise.cpp):
/// trunci(select(isnan(v), quiet NaN, round to nearest even of
/// bitcast(v) >> 16)) : i16, about ten integer ops that all compute the one
/// conversion (none is used outside it). `trunc` itself is not added: it
/// stands for the conversion. Returns whether they were.
bool addBF16Rounding(arith::TruncIOp trunc,
                     llvm::DenseSet<Operation *> &steps) {
  if (!trunc.getType().isInteger(16))
    return false;
  Block *body = trunc->getBlock();
  llvm::SetVector<Operation *> slice;
  unsigned casts = 0, nanChecks = 0;
  SmallVector<Operation *> worklist = {trunc};
  while (!worklist.empty()) {
    Operation *at = worklist.pop_back_val();
    for (Value operand : at->getOperands()) {
      // The f32 value being rounded (read by the bitcast and the NaN check).
      if (isa<FloatType>(operand.getType()))
        continue;
      Operation *def = operand.getDefiningOp();
      if (!def || def->getBlock() != body || isa<arith::ConstantOp>(def) ||
          slice.contains(def))
        continue;
      if (auto cast = dyn_cast<arith::BitcastOp>(def)) {
        if (!cast.getIn().getType().isF32())
          return false;
        ++casts;
      } else if (auto cmp = dyn_cast<arith::CmpFOp>(def)) {
        if (cmp.getPredicate() != arith::CmpFPredicate::UNO)
          return false;
        ++nanChecks;
      } else if (!isa<arith::SelectOp, arith::OrIOp, arith::ShRUIOp,
                      arith::AddIOp, arith::AndIOp>(def)) {
        return false;
      }
      slice.insert(def);
      worklist.push_back(def);
    }
  }
  if (casts != 1 || nanChecks != 1)
    return false;
  for (Operation *step : slice)
    for (Operation *user : step->getUsers())
      if (user != trunc && !slice.contains(user))
        return false;
  steps.insert(slice.begin(), slice.end());
  return true;
}

/// Adds to `steps` the ops of the bf16 <-> f32 conversions that `op` ends,
/// written out with integer ops, other than the one op each conversion
/// counts as:
///   bitcast(rounding bits) : i16 to bf16 -- a rounding (counted: the
///     trunci);
///   bitcast(shli(extui(bitcast x : bf16 to i16), 16)) : i32 to f32 -- an
///     extension (counted: the last bitcast);
///   bitcast(shli(extui(rounding bits), 16)) : i32 to f32 -- a rounding and
///     an extension whose bf16 bitcasts canonicalization folded when fusion
///     joined them (counted: the trunci and the last bitcast).
void addBF16Conversions(arith::BitcastOp op,
                        llvm::DenseSet<Operation *> &steps) {
  if (op.getType().isBF16()) {
    auto trunc = op.getIn().getDefiningOp<arith::TruncIOp>();
    if (trunc && trunc->hasOneUse() && addBF16Rounding(trunc, steps))
      steps.insert(op);
    return;
  }
  if (!op.getType().isF32())
    return;
  auto shl = op.getIn().getDefiningOp<arith::ShLIOp>();
  if (!shl || !isIntConstant(shl.getRhs(), 16) || !shl->hasOneUse())
    return;
  auto ext = shl.getLhs().getDefiningOp<arith::ExtUIOp>();
  if (!ext || !ext->hasOneUse() || !ext.getIn().getType().isInteger(16))
    return;
  if (auto bits = ext.getIn().getDefiningOp<arith::BitcastOp>()) {
    if (!bits.getIn().getType().isBF16() || !bits->hasOneUse())
      return;
    steps.insert(bits);
  } else if (auto trunc = ext.getIn().getDefiningOp<arith::TruncIOp>()) {
    if (!trunc->hasOneUse() || !addBF16Rounding(trunc, steps))
      return;
  } else {
    return;
  }
  steps.insert(shl);
  steps.insert(ext);
}

/// What a generic's payload costs, in ops (yield excluded): constants are
/// free, and a bf16 <-> f32 conversion written out with integer ops counts
/// as one op, like f16's extf / truncf (also in a fused body, where a
/// rounding and the extension of its result lost their bf16 bitcasts). The
/// bounds below then treat a bf16 body as the f16 body of the same computation
/// (a bf16 Mul is 15 ops written out, its f16 form 3), so that bf16 chains fuse
/// as f16 ones do.
///
/// An op that repeats an earlier one (same name, attributes, result types
/// and operands, up to earlier repeats) counts once: a cheap producer
/// cloned for several users fuses into their common consumer once per
/// user (GPT-2's bias Add, read five times by its tanh-GELU), and CSE
/// merges the copies after fusion. Counted op by op, those copies kept
/// the GELU's last Mul out of its kernel.
unsigned payloadCost(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  llvm::DenseSet<Operation *> steps;
  for (auto cast : body.getOps<arith::BitcastOp>())
    addBF16Conversions(cast, steps);
  // Local value numbering: each result's first equivalent.
  llvm::DenseMap<Value, Value> leader;
  auto lead = [&](Value v) {
    auto it = leader.find(v);
    return it == leader.end() ? v : it->second;
  };
  auto repeats = [&](Operation *a, Operation *b) {
    return a->getName() == b->getName() &&
           a->getAttrDictionary() == b->getAttrDictionary() &&
           a->getResultTypes() == b->getResultTypes() &&
           a->getNumOperands() == b->getNumOperands() &&
           llvm::all_of(
               llvm::zip(a->getOperands(), b->getOperands()), [&](auto pair) {
                 return lead(std::get<0>(pair)) == lead(std::get<1>(pair));
               });
  };
  SmallVector<Operation *> distinct;
  unsigned cost = 0;
  for (Operation &inner : body.without_terminator()) {
    Operation *earlier = nullptr;
    if (inner.getNumRegions() == 0 && isMemoryEffectFree(&inner))
      for (Operation *prev : distinct)
        if (repeats(prev, &inner)) {
          earlier = prev;
          break;
        }
    if (earlier) {
      for (auto [mine, theirs] :
           llvm::zip(inner.getResults(), earlier->getResults()))
        leader[mine] = theirs;
      continue;
    }
    distinct.push_back(&inner);
    if (!isa<arith::ConstantOp>(inner) && !steps.contains(&inner))
      ++cost;
  }
  return cost;
}

/// Contractions and convolutions (onyx/Analysis/Contraction.h) run through
/// libraries (BLAS, cuBLASLt, cuDNN), which want plain operands.
bool isLibraryOp(Operation *op) { return onyx::isContractionOrConvolution(op); }

bool isZeroConstant(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  auto attr = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
  return attr && attr.getValue().isZero();
}

/// A value the payload reads from a tensor: a block argument of an input,
/// or a `tensor.extract` (the Add lowering reads operands it broadcasts at
/// run time that way, `select(dim == 1, 0, i)` indices).
bool isTensorRead(Value v, Block &body) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner() == &body;
  auto extract = v.getDefiningOp<tensor::ExtractOp>();
  return extract && extract->getBlock() == &body;
}

/// `yield a + b` or `yield max(a, 0)` of tensor reads, with nothing else in
/// the body but index arithmetic: the shapes of the epilogues the CUDA
/// library calls absorb.
bool isAddOrRelu(linalg::GenericOp op, bool *isRelu = nullptr) {
  if (op.getNumDpsInits() != 1 || op.getNumParallelLoops() != op.getNumLoops())
    return false;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1)
    return false;
  Operation *result = yield.getOperand(0).getDefiningOp();
  if (!result || result->getBlock() != &body)
    return false;
  for (Operation &inner : body.without_terminator())
    if (&inner != result &&
        !isa<linalg::IndexOp, arith::SelectOp, arith::CmpIOp, arith::ConstantOp,
             tensor::ExtractOp>(inner))
      return false;
  // Binary ops only (a unary result has no operand 1 to read).
  if (result->getNumOperands() != 2)
    return false;
  Value lhs = result->getOperand(0), rhs = result->getOperand(1);
  if (isa<arith::AddFOp>(result))
    return isTensorRead(lhs, body) && isTensorRead(rhs, body);
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(result)) {
    if (isRelu)
      *isRelu = true;
    return (isTensorRead(lhs, body) && isZeroConstant(rhs)) ||
           (isTensorRead(rhs, body) && isZeroConstant(lhs));
  }
  return false;
}

/// Whether `value` is a library op's result, possibly reshaped (the Conv
/// lowering computes in [n, g, m, ...] and collapses the group dim).
bool isLibraryResult(Value value) {
  while (true) {
    if (auto op = value.getDefiningOp<tensor::CollapseShapeOp>())
      value = op.getSrc();
    else if (auto op = value.getDefiningOp<tensor::ExpandShapeOp>())
      value = op.getSrc();
    else if (auto op = value.getDefiningOp<tensor::CastOp>())
      value = op.getSource();
    else
      return isLibraryOp(value.getDefiningOp());
  }
}

/// Whether `op` reads (as an operand or through `tensor.extract`) the
/// result of a library op.
bool readsLibraryResult(linalg::GenericOp op) {
  if (llvm::any_of(op.getDpsInputs(), isLibraryResult))
    return true;
  for (auto extract : op.getRegion().front().getOps<tensor::ExtractOp>())
    if (isLibraryResult(extract.getTensor()))
      return true;
  return false;
}

/// Whether `op` is an epilogue a library call absorbs on CUDA: an Add or a
/// Relu reading a contraction/convolution result, or a Relu reading such
/// an Add (conv + bias + residual, then Relu: one cuDNN call).
bool isLibraryEpilogue(linalg::GenericOp op) {
  bool relu = false;
  if (!isAddOrRelu(op, &relu))
    return false;
  if (readsLibraryResult(op))
    return true;
  if (!relu || op.getNumDpsInputs() != 1)
    return false;
  auto add = op.getDpsInputs()[0].getDefiningOp<linalg::GenericOp>();
  bool addIsRelu = false;
  return add && isAddOrRelu(add, &addIsRelu) && !addIsRelu &&
         readsLibraryResult(add);
}

/// Cheap to compute again per use or per broadcast element: a few
/// arithmetic ops (sqrt included), no transcendental functions, no reads of
/// other tensors.
bool isCheap(linalg::GenericOp op) {
  if (payloadCost(op) > kMaxCheapOps)
    return false;
  for (Operation &inner : op.getRegion().front().without_terminator()) {
    if (isa<math::SqrtOp, math::RsqrtOp, math::AbsFOp>(inner))
      continue;
    if (inner.getDialect() != inner.getContext()->getLoadedDialect("arith") &&
        !isa<linalg::IndexOp>(inner))
      return false;
  }
  return true;
}

/// Whether the consumer of `use` reads the producer's result through a map
/// that repeats elements (some consumer loop does not index it).
bool readsRepeatedly(OpOperand &use) {
  auto consumer = cast<linalg::LinalgOp>(use.getOwner());
  return !consumer.getMatchingIndexingMap(&use).isPermutation();
}

/// A consumer that may absorb producers at all.
bool isFusableConsumer(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && generic.hasPureTensorSemantics() && !isLibraryOp(op) &&
         !isLibraryEpilogue(generic) && payloadCost(generic) <= kMaxFusedOps;
}

/// Whether `producer` may be inlined into the consumer of `use`, its
/// other users aside.
bool mayFuseInto(linalg::GenericOp producer, OpOperand &use) {
  // Same block: a producer outside a loop would be recomputed at every
  // iteration of a consumer inside it.
  Operation *consumer = use.getOwner();
  if (!isFusableConsumer(consumer) ||
      consumer->getBlock() != producer->getBlock() ||
      isLibraryEpilogue(producer) || producer->getNumResults() != 1)
    return false;
  if (readsRepeatedly(use) && !isCheap(producer))
    return false;
  return payloadCost(producer) +
             payloadCost(cast<linalg::GenericOp>(consumer)) <=
         kMaxFusedOps;
}

/// The control function: fuse the producer of `use` into its consumer when
/// that is its only user (its tensor then disappears).
bool allowFusion(OpOperand *use) {
  auto producer = use->get().getDefiningOp<linalg::GenericOp>();
  return producer && mayFuseInto(producer, *use) &&
         llvm::all_of(producer->getUsers(),
                      [&](Operation *user) { return user == use->getOwner(); });
}

/// Clones a cheap multi-user producer once per user when every user could
/// fuse it (see the file comment).
struct DuplicateCheapProducer : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op->getNumResults() != 1 || !op.hasPureTensorSemantics() ||
        op.getNumParallelLoops() != op.getNumLoops() || !isCheap(op) ||
        isLibraryEpilogue(op) || op->getResult(0).hasOneUse() ||
        op->getResult(0).use_empty())
      return failure();
    for (OpOperand &use : op->getResult(0).getUses())
      if (!linalg::areElementwiseOpsFusable(&use) || !mayFuseInto(op, use))
        return failure();
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : op->getResult(0).getUses())
      uses.push_back(&use);
    for (OpOperand *use : llvm::drop_begin(uses)) {
      rewriter.setInsertionPoint(op);
      Operation *clone = rewriter.clone(*op);
      rewriter.modifyOpInPlace(use->getOwner(),
                               [&] { use->set(clone->getResult(0)); });
    }
    return success();
  }
};

/// Generalizes a named data-movement op whose only user may fuse it.
template <typename NamedOp>
struct GeneralizeForFusion : OpRewritePattern<NamedOp> {
  using OpRewritePattern<NamedOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(NamedOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
        !op->getResult(0).hasOneUse())
      return failure();
    OpOperand &use = *op->getResult(0).getUses().begin();
    auto consumer = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!consumer || !isFusableConsumer(consumer) || !consumer.isDpsInput(&use))
      return failure();
    // Only where upstream fusion will take it: the consumer reads it through
    // a map over all of the op's loops.
    if (consumer.getMatchingIndexingMap(&use).getNumResults() !=
        cast<linalg::LinalgOp>(op.getOperation()).getNumLoops())
      return failure();
    return linalg::generalizeNamedOp(rewriter, op);
  }
};

/// An extent: a static size, or the SSA value a dynamic size comes from.
struct Extent {
  int64_t size = ShapedType::kDynamic;
  Value value; // the dynamic size, or the tensor when unknown
  int64_t dim = -1;
  bool operator==(const Extent &o) const {
    return size == o.size && value == o.value && dim == o.dim;
  }
};

/// Where dim `d` of `tensor` comes from, following destinations to the
/// tensor.empty that sized them.
Extent extentOf(Value tensor, int64_t d) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(d))
    return {type.getDimSize(d), Value(), -1};
  while (true) {
    if (auto empty = tensor.getDefiningOp<tensor::EmptyOp>())
      return {ShapedType::kDynamic, empty.getDynamicSize(d), -1};
    if (auto dps = tensor.getDefiningOp<DestinationStyleOpInterface>()) {
      tensor = dps.getTiedOpOperand(cast<OpResult>(tensor))->get();
      continue;
    }
    if (auto cast = tensor.getDefiningOp<tensor::CastOp>()) {
      if (cast.getSource().getType().isDynamicDim(d)) {
        tensor = cast.getSource();
        continue;
      }
    }
    return {ShapedType::kDynamic, tensor, d};
  }
}

/// Turns `tensor.extract %t[i...]` at loop indices into an input operand.
struct ExtractToOperand : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInits() == 0 ||
        op.getNumParallelLoops() != op.getNumLoops())
      return failure();
    OpOperand *init = op.getDpsInitOperand(0);
    AffineMap initMap = op.getMatchingIndexingMap(init);
    if (!initMap.isIdentity())
      return failure();
    Block &body = op.getRegion().front();
    for (auto extract : body.getOps<tensor::ExtractOp>()) {
      Value source = extract.getTensor();
      // Defined outside the generic (it then dominates it).
      if (op.getRegion().isAncestor(source.getParentRegion()))
        continue;
      SmallVector<AffineExpr> exprs;
      llvm::SmallBitVector seen(op.getNumLoops());
      bool ok = true;
      for (auto [k, index] : llvm::enumerate(extract.getIndices())) {
        auto idx = index.getDefiningOp<linalg::IndexOp>();
        if (!idx || idx->getBlock() != &body || seen.test(idx.getDim())) {
          ok = false;
          break;
        }
        seen.set(idx.getDim());
        // The tensor's dim must be the loop's extent (linalg reads operands
        // whole; an extract may read a prefix).
        if (!(extentOf(source, k) == extentOf(init->get(), idx.getDim()))) {
          ok = false;
          break;
        }
        exprs.push_back(rewriter.getAffineDimExpr(idx.getDim()));
      }
      if (!ok)
        continue;
      AffineMap map =
          AffineMap::get(op.getNumLoops(), 0, exprs, rewriter.getContext());
      SmallVector<Value> inputs(op.getDpsInputs());
      inputs.push_back(source);
      SmallVector<AffineMap> maps;
      for (OpOperand *in : op.getDpsInputOperands())
        maps.push_back(op.getMatchingIndexingMap(in));
      maps.push_back(map);
      for (OpOperand &out : op.getDpsInitsMutable())
        maps.push_back(op.getMatchingIndexingMap(&out));
      auto fused = linalg::GenericOp::create(
          rewriter, op.getLoc(), op->getResultTypes(), inputs, op.getDpsInits(),
          maps, op.getIteratorTypesArray());
      rewriter.inlineRegionBefore(op.getRegion(), fused.getRegion(),
                                  fused.getRegion().end());
      Block &newBody = fused.getRegion().front();
      BlockArgument arg = newBody.insertArgument(
          op.getNumDpsInputs(), extract.getType(), extract.getLoc());
      rewriter.replaceOp(extract, arg);
      rewriter.replaceOp(op, fused->getResults());
      return success();
    }
    return failure();
  }
};

struct FuseElementwisePass
    : public onyx::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, allowFusion);
    patterns.add<DuplicateCheapProducer, ExtractToOperand,
                 GeneralizeForFusion<linalg::TransposeOp>,
                 GeneralizeForFusion<linalg::BroadcastOp>,
                 GeneralizeForFusion<linalg::CopyOp>>(context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();

    // One initializer per user (see the file comment), right before it: CSE
    // left the shared one at its first occurrence, possibly layers earlier,
    // and its buffer would live from there.
    SmallVector<Operation *> inits;
    getOperation().walk([&](Operation *op) {
      if (isCheapInitializer(op) && !op->use_empty())
        inits.push_back(op);
    });
    IRRewriter rewriter(context);
    for (Operation *init : inits)
      clonePerUser(rewriter, init);
  }

  /// A linalg.fill, or an all-parallel generic into an empty tensor that
  /// reads only constants and not its output (a bias broadcast): as cheap
  /// to recompute into each user's buffer as to copy from a shared one.
  static bool isCheapInitializer(Operation *op) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || !linalgOp.hasPureTensorSemantics() ||
        op->getNumResults() != 1)
      return false;
    if (isa<linalg::FillOp>(op))
      return true;
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic || generic.getNumDpsInits() != 1 ||
        generic.getNumReductionLoops() != 0 ||
        generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0)) ||
        !generic.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>())
      return false;
    // A body that reads tensors itself (`tensor.extract` of an operand read
    // with run-time broadcast selects: the Add lowering's form) computes
    // from data, not constants: a copy per user would compute it twice
    // (ResNet's residual Add + Relu, once per reader of the block output).
    WalkResult reads = generic.getRegion().walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (isa<ShapedType>(operand.getType()) &&
            !generic.getRegion().isAncestor(operand.getParentRegion()) &&
            !matchPattern(operand, m_Constant()))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (reads.wasInterrupted())
      return false;
    return llvm::all_of(generic.getDpsInputs(), [](Value input) {
      return matchPattern(input, m_Constant());
    });
  }

  /// Gives every user of `op`'s result (through expand/collapse reshapes,
  /// which are cloned along) its own copy of `op`, right before the user.
  static void clonePerUser(IRRewriter &rewriter, Operation *op) {
    // A reshape with several users first becomes one reshape per user.
    SmallVector<Operation *> reshapes;
    for (Operation *user : op->getResult(0).getUsers())
      if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user) &&
          !user->getResult(0).hasOneUse())
        reshapes.push_back(user);
    // The call erases the reshape once every user has its own copy (it
    // must not be touched after that: a use after free that valgrind
    // showed on SqueezeNet, and an occasional double free).
    for (Operation *reshape : reshapes)
      clonePerUser(rewriter, reshape);
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : op->getResult(0).getUses())
      uses.push_back(&use);
    bool allMoved = true;
    for (OpOperand *use : uses) {
      Operation *user = use->getOwner();
      if (user->getBlock() != op->getBlock() || user->isBeforeInBlock(op)) {
        allMoved = false;
        continue;
      }
      rewriter.setInsertionPoint(user);
      Operation *clone = rewriter.clone(*op);
      // Its own empty tensor too: clones of one tensor.empty bufferize to
      // one buffer, live from the first clone to the last user.
      if (auto dps = dyn_cast<DestinationStyleOpInterface>(clone))
        for (OpOperand &init : dps.getDpsInitsMutable())
          if (auto empty = init.get().getDefiningOp<tensor::EmptyOp>()) {
            rewriter.setInsertionPoint(clone);
            init.set(rewriter.clone(*empty)->getResult(0));
          }
      use->set(clone->getResult(0));
    }
    if (!allMoved)
      return;
    SmallVector<Operation *> empties;
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
      for (Value init : dps.getDpsInits())
        if (auto empty = init.getDefiningOp<tensor::EmptyOp>())
          empties.push_back(empty);
    rewriter.eraseOp(op);
    for (Operation *empty : empties)
      if (empty->use_empty())
        rewriter.eraseOp(empty);
  }
};

} // namespace
