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
// The delinearization divides in 32 bits when the parallel space has under
// 2^31 points (a 64-bit division is a long subroutine on the GPU, and
// elementwise kernels over a dynamic dim spent most of their time there):
// statically, or else behind `scf.if %total <= 2^31 - 1` with the 64-bit
// loop in the else branch.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "onyx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <limits>

namespace onyx {
#define GEN_PASS_DEF_CUDALOWERDISPATCHLOOPS
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;
using namespace onyx::cuda;

namespace {

/// `linear` (below 2^31) as the indices of `dims`, innermost fastest, with
/// 32-bit divisions.
void delinearize32(OpBuilder &b, Location loc, Value linear,
                   ArrayRef<int64_t> dims, ArrayRef<Value> loopSizes,
                   SmallVectorImpl<Value> &ivs) {
  Type i32 = b.getI32Type(), index = b.getIndexType();
  Value rest = arith::IndexCastUIOp::create(b, loc, i32, linear);
  for (int64_t k = int64_t(dims.size()) - 1; k >= 0; --k) {
    int64_t d = dims[k];
    if (k == 0) {
      ivs[d] = arith::IndexCastUIOp::create(b, loc, index, rest);
      break;
    }
    Value size = arith::IndexCastUIOp::create(b, loc, i32, loopSizes[d]);
    ivs[d] = arith::IndexCastUIOp::create(
        b, loc, index, arith::RemUIOp::create(b, loc, rest, size));
    rest = arith::DivUIOp::create(b, loc, rest, size);
  }
}

/// The grid-stride loop over `total` parallel points of `generic` (in a
/// kernel), built at `kb`; `narrow`: delinearized in 32 bits.
void buildDispatchLoop(OpBuilder &kb, linalg::GenericOp generic,
                       const DispatchLoops &loops, Value total, bool narrow) {
  Location loc = generic.getLoc();
  ArrayRef<Value> loopSizes = loops.sizes;
  auto [start, step] = gridStride(kb, loc);
  auto loop = scf::ForOp::create(kb, loc, start, total, step);

  OpBuilder lb(loop.getBody()->getTerminator());
  SmallVector<Value> ivs(loopSizes.size());
  if (narrow)
    delinearize32(lb, loc, loop.getInductionVar(), loops.parallelDims,
                  loopSizes, ivs);
  else
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

/// The loop nest of `generic` (in a kernel), built at `kb`.
void buildDispatchLoops(OpBuilder &kb, linalg::GenericOp generic,
                        const DispatchLoops &loops) {
  Location loc = generic.getLoc();
  Value total = arith::ConstantIndexOp::create(kb, loc, 1);
  for (int64_t d : loops.parallelDims)
    total = arith::MulIOp::create(kb, loc, total, loops.sizes[d]);
  constexpr int64_t narrowLimit = std::numeric_limits<int32_t>::max();
  // One parallel dim: nothing to divide.
  if (loops.parallelDims.size() < 2) {
    buildDispatchLoop(kb, generic, loops, total, /*narrow=*/false);
    return;
  }
  if (std::optional<int64_t> known = getConstantIntValue(total)) {
    buildDispatchLoop(kb, generic, loops, total, *known <= narrowLimit);
    return;
  }
  Value fits = arith::CmpIOp::create(
      kb, loc, arith::CmpIPredicate::ule, total,
      arith::ConstantIndexOp::create(kb, loc, narrowLimit));
  auto branch = scf::IfOp::create(kb, loc, fits, /*withElseRegion=*/true);
  OpBuilder tb = branch.getThenBodyBuilder();
  buildDispatchLoop(tb, generic, loops, total, /*narrow=*/true);
  OpBuilder eb = branch.getElseBodyBuilder();
  buildDispatchLoop(eb, generic, loops, total, /*narrow=*/false);
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
