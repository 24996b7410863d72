//===- LowerDispatchLoops.cpp - Dispatch kernels as grid-stride loops -----===//
//
// The op of each dispatch kernel (onyx-cuda-outline-dispatches) that no
// earlier pass lowered becomes a grid-stride loop over its linearized
// parallel iteration space: each thread owns the output elements of its
// points and walks the reduction dims (if any) serially, in iteration order.
//
//   scf.for %i = %thread to %total step %threads {    // parallel points
//     %d1 = %i mod n1, %d0 = %i / n1                    // delinearized
//     scf.for %k = 0 to nk { ...loads, body, stores }   // reduction dims
//   }
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "onyx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace onyx {
#define GEN_PASS_DEF_CUDALOWERDISPATCHLOOPS
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;
using namespace onyx::cuda;

namespace {

/// The loop nest of `generic` (in a kernel), built at `kb`.
void buildDispatchLoops(OpBuilder &kb, linalg::GenericOp generic,
                        const DispatchLoops &loops) {
  Location loc = generic.getLoc();
  ArrayRef<Value> loopSizes = loops.sizes;
  Value total = arith::ConstantIndexOp::create(kb, loc, 1);
  for (int64_t d : loops.parallelDims)
    total = arith::MulIOp::create(kb, loc, total, loopSizes[d]);
  auto [start, step] = gridStride(kb, loc);
  auto loop = scf::ForOp::create(kb, loc, start, total, step);

  OpBuilder lb(loop.getBody()->getTerminator());
  SmallVector<Value> ivs(loopSizes.size());
  delinearize(lb, loc, loop.getInductionVar(), loops.parallelDims, loopSizes,
              ivs);
  // Reduction dims: serial loops, in iteration order.
  for (int64_t d : loops.reductionDims) {
    Value zero = arith::ConstantIndexOp::create(lb, loc, 0);
    Value one = arith::ConstantIndexOp::create(lb, loc, 1);
    auto inner = scf::ForOp::create(lb, loc, zero, loopSizes[d], one);
    ivs[d] = inner.getInductionVar();
    lb.setInsertionPoint(inner.getBody()->getTerminator());
  }
  auto applyMap = [&](AffineMap indexing) {
    return applyIndexing(lb, loc, indexing, ivs);
  };

  Block &body = generic.getRegion().front();
  IRMapping bodyMap;
  for (OpOperand &operand : generic->getOpOperands()) {
    BlockArgument arg = body.getArgument(operand.getOperandNumber());
    Value value = operand.get();
    if (!isa<MemRefType>(value.getType())) {
      bodyMap.map(arg, value);
      continue;
    }
    if (generic.isDpsInit(&operand) && arg.use_empty())
      continue;
    bodyMap.map(arg, memref::LoadOp::create(
                         lb, loc, value,
                         applyMap(generic.getMatchingIndexingMap(&operand))));
  }
  for (Operation &bodyOp : body.without_terminator())
    lb.clone(bodyOp, bodyMap);
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  for (OpOperand &init : generic.getDpsInitsMutable()) {
    unsigned i = init.getOperandNumber() - generic.getNumDpsInputs();
    memref::StoreOp::create(
        lb, loc, bodyMap.lookupOrDefault(yield.getOperand(i)), init.get(),
        applyMap(generic.getMatchingIndexingMap(&init)));
  }
  // linalg.index (also in nested regions of the body) is the loop index.
  replaceIndexOps(loop, ivs);
}

struct CUDALowerDispatchLoopsPass
    : public onyx::impl::CUDALowerDispatchLoopsBase<
          CUDALowerDispatchLoopsPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::GPUFuncOp kernel) {
      linalg::GenericOp generic = dispatchRoot(kernel);
      if (!generic)
        return;
      OpBuilder kb(generic->getContext());
      kb.setInsertionPointAfter(generic);
      DispatchLoops loops = dispatchLoops(kb, generic);
      buildDispatchLoops(kb, generic, loops);
      generic.erase();
      foldBindingDims(kernel);
    });
  }
};

} // namespace
