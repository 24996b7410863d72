//===- WidenHalfReductions.cpp - f16 sums accumulated in f32 --------------===//
//
// The ONNX lowerings keep a float16 op in float16: a MatMul, Conv or
// ReduceSum on f16 buffers is a linalg op whose accumulator is the f16
// output, so every partial sum is rounded to 11 bits. ONNX Runtime, PyTorch
// and the ONNX reference (numpy) accumulate half-precision dot products and
// sums in f32 and round once. This pass gives the CPU target that rule: a
// linalg op on buffers with an f16 output, reduction loops, and a body
// `yield(out + x)` becomes an explicit loop nest — the parallel loops
// outside, the reduction loops inside carrying an f32 accumulator that
// starts at the output's value — with the body's float arithmetic carried
// out in f32 (f16 operands widened exactly), and one rounding to f16 when
// the result is stored. Other ops (other combiners, bf16, non-projected
// outputs) are left to the generic linalg-to-loops lowering. The CUDA
// target's library calls already accumulate in f32.
//
//===----------------------------------------------------------------------===//

#include "onyx/Target/CPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace onyx {
#define GEN_PASS_DEF_CPUWIDENHALFREDUCTIONS
#include "onyx/Target/CPU/Passes.h.inc"
} // namespace onyx

using namespace mlir;

namespace {

/// Float arithmetic the body may hold, recomputed in f32.
bool isPromotable(Operation *op) {
  return isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
             arith::NegFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp>(op);
}

/// The accumulated term when the body is `yield(out + x)` (either order)
/// and the output argument has no other use; null otherwise.
Value accumulatedTerm(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1)
    return Value();
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add || add->getBlock() != &body)
    return Value();
  Value out = body.getArgument(body.getNumArguments() - 1);
  if (!out.hasOneUse())
    return Value();
  if (add.getLhs() == out)
    return add.getRhs();
  if (add.getRhs() == out)
    return add.getLhs();
  return Value();
}

bool isCandidate(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() == 0)
    return false;
  auto outType = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
  if (!outType || !outType.getElementType().isF16())
    return false;
  // The output follows exactly the parallel loops, in some order.
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!outMap.isProjectedPermutation() ||
      outMap.getNumResults() != op.getNumParallelLoops())
    return false;
  for (AffineExpr e : outMap.getResults())
    if (!linalg::isParallelIterator(
            op.getIteratorTypesArray()[cast<AffineDimExpr>(e).getPosition()]))
      return false;
  if (!accumulatedTerm(op))
    return false;
  for (Operation &inner : op.getRegion().front().without_terminator())
    if (inner.getNumRegions() != 0)
      return false;
  return true;
}

void widen(linalg::GenericOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type f32 = b.getF32Type();
  SmallVector<Range> ranges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc);
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> parallel, reduction;
  for (auto [i, it] : llvm::enumerate(iterators))
    (linalg::isParallelIterator(it) ? parallel : reduction).push_back(i);
  auto bounds = [&](ArrayRef<unsigned> dims, SmallVector<Value> &lbs,
                    SmallVector<Value> &ubs, SmallVector<Value> &steps) {
    for (unsigned d : dims) {
      lbs.push_back(getValueOrCreateConstantIndexOp(b, loc, ranges[d].offset));
      ubs.push_back(getValueOrCreateConstantIndexOp(b, loc, ranges[d].size));
      steps.push_back(
          getValueOrCreateConstantIndexOp(b, loc, ranges[d].stride));
    }
  };
  SmallVector<Value> plb, pub, pst, rlb, rub, rst;
  bounds(parallel, plb, pub, pst);
  bounds(reduction, rlb, rub, rst);
  Value output = op.getDpsInits()[0];
  Type halfType = cast<MemRefType>(output.getType()).getElementType();
  Block &body = op.getRegion().front();
  Value term = accumulatedTerm(op);
  Operation *combiner = body.getTerminator()->getOperand(0).getDefiningOp();
  unsigned numLoops = iterators.size();

  // Indices of an operand under `map` at the loop values `ivs`.
  auto indicesOf = [](OpBuilder &nb, Location nl, AffineMap map,
                      ArrayRef<Value> ivs) {
    SmallVector<Value> indices;
    for (unsigned r = 0; r < map.getNumResults(); ++r)
      indices.push_back(
          affine::AffineApplyOp::create(nb, nl, map.getSubMap({r}), ivs));
    return indices;
  };

  scf::buildLoopNest(
      b, loc, plb, pub, pst, [&](OpBuilder &pb, Location pl, ValueRange pivs) {
        SmallVector<Value> ivs(numLoops);
        for (auto [k, d] : llvm::enumerate(parallel))
          ivs[d] = pivs[k];
        AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
        SmallVector<Value> outIdx;
        for (AffineExpr e : outMap.getResults())
          outIdx.push_back(ivs[cast<AffineDimExpr>(e).getPosition()]);
        Value init = memref::LoadOp::create(pb, pl, output, outIdx);
        Value acc0 = arith::ExtFOp::create(pb, pl, f32, init);
        scf::LoopNest nest = scf::buildLoopNest(
            pb, pl, rlb, rub, rst, ValueRange{acc0},
            [&](OpBuilder &rb, Location rl, ValueRange rivs,
                ValueRange args) -> scf::ValueVector {
              SmallVector<Value> all = ivs;
              for (auto [k, d] : llvm::enumerate(reduction))
                all[d] = rivs[k];
              IRMapping map;
              // Inputs read at their maps.
              for (OpOperand *in : op.getDpsInputOperands()) {
                Value arg = body.getArgument(in->getOperandNumber());
                if (!isa<MemRefType>(in->get().getType())) {
                  map.map(arg, in->get());
                  continue;
                }
                AffineMap m = op.getMatchingIndexingMap(in);
                map.map(arg, memref::LoadOp::create(rb, rl, in->get(),
                                                    indicesOf(rb, rl, m, all)));
              }
              // f32 versions of values that were f16 in the body.
              DenseMap<Value, Value> wide;
              auto f32Of = [&](Value original) -> Value {
                if (auto it = wide.find(original); it != wide.end())
                  return it->second;
                Value v = map.lookupOrDefault(original);
                if (v.getType().isF32())
                  return v;
                if (isa<FloatType>(v.getType()) &&
                    cast<FloatType>(v.getType()).getWidth() < 32)
                  return arith::ExtFOp::create(rb, rl, f32, v);
                return v;
              };
              for (Operation &inner : body.without_terminator()) {
                if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
                  map.map(index.getResult(), all[index.getDim()]);
                  continue;
                }
                if (&inner == combiner)
                  continue; // out + x: the f32 accumulation below
                if (isPromotable(&inner) && inner.getNumResults() == 1 &&
                    inner.getResult(0).getType() == halfType) {
                  SmallVector<Value> operands;
                  for (Value o : inner.getOperands())
                    operands.push_back(f32Of(o));
                  OperationState state(rl, inner.getName().getStringRef(),
                                       operands, TypeRange{f32},
                                       inner.getAttrs());
                  Operation *w = rb.create(state);
                  wide[inner.getResult(0)] = w->getResult(0);
                  // Narrow uses outside the promoted set read it rounded.
                  map.map(inner.getResult(0),
                          arith::TruncFOp::create(rb, rl, halfType,
                                                  w->getResult(0)));
                  continue;
                }
                if (auto ext = dyn_cast<arith::ExtFOp>(inner);
                    ext && ext.getType().isF32()) {
                  Value w = f32Of(ext.getIn());
                  map.map(ext.getResult(), w);
                  continue;
                }
                rb.clone(inner, map);
              }
              Value sum = arith::AddFOp::create(rb, rl, args[0], f32Of(term));
              return {sum};
            });
        Value rounded =
            arith::TruncFOp::create(pb, pl, halfType, nest.results.front());
        memref::StoreOp::create(pb, pl, rounded, output, outIdx);
      });
  op.erase();
}

struct CPUWidenHalfReductions
    : onyx::impl::CPUWidenHalfReductionsBase<CPUWidenHalfReductions> {
  void runOnOperation() override {
    // Named half-precision contractions (matmul, batch_matmul) become
    // generics first, so that one rule covers them.
    SmallVector<linalg::LinalgOp> named;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::GenericOp>(op) && op.hasPureBufferSemantics() &&
          op.getNumReductionLoops() > 0 && op.getNumDpsInits() == 1)
        if (auto t = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
            t && t.getElementType().isF16())
          named.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }
    SmallVector<linalg::GenericOp> candidates;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (isCandidate(op))
        candidates.push_back(op);
    });
    for (linalg::GenericOp op : candidates)
      widen(op);
  }
};

} // namespace
