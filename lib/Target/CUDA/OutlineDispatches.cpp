//===- OutlineDispatches.cpp - Top-level linalg ops to GPU kernels --------===//
//
// The IREE seed's dispatch outlining for the CUDA target. After
// bufferization, pooling, the library calls and host visibility, every
// linalg op of the entry function outside kernels (top level, or inside
// host control flow such as a Loop body: the launch stays where the op was)
// is one dispatch:
//
//   linalg.generic ins(%a, %b : memref<?x?xf32>, memref<?xf32>)
//                  outs(%o : memref<?x?xf32>) {...}
//
// becomes, on the host,
//
//   %base_a, ... = memref.extract_strided_metadata %a
//   gpu.launch_func @main_dispatch_0::@main_dispatch_0
//       blocks in (%grid, %c1, %c1) threads in (%c256, %c1, %c1)
//       args(%base_a : memref<f32>, %base_b : memref<f32>,
//            %base_o : memref<f32>, %d0 : i64, %d1 : i64)
//
// and a `gpu.module @main_dispatch_0 [#nvvm.target<chip = "sm_90">]` whose
// kernel rebuilds each binding from its base pointer and the dynamic dims
// (memref.reinterpret_cast: the shape ties folded into the loads and
// stores) and holds the op on the rebuilt buffers, for
// onyx-cuda-lower-reductions and onyx-cuda-lower-dispatch-loops to lower.
// Dynamic dims are scalar arguments, deduplicated by SSA value, so one
// compiled kernel serves every shape. The grid covers the op's parallel
// iteration space, 32 threads per point for a warp reduction, one thread
// per W points for a vectorized elementwise loop (dispatchVectorWidth).
//
// Before outlining, copies become linalg.copy and named ops generics, and a
// constant fill right before a warp reduction is absorbed into it; after,
// the host reads of device data that kernels now recompute are erased.
//
//===----------------------------------------------------------------------===//

#include "DeviceData.h"
#include "KernelBuilder.h"
#include "WarpReductions.h"

#include "onyx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallBitVector.h"

namespace onyx {
#define GEN_PASS_DEF_CUDAOUTLINEDISPATCHES
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;
using namespace onyx::cuda;

namespace {

/// Whether a kernel can run `op`: one thread (or warp) owns each output
/// element.
LogicalResult checkDispatchable(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics())
    return op->emitError() << "'" << op->getName()
                           << "' on tensors reached the cuda target";
  // GEMMs and convolutions that cuBLASLt/cuDNN can run are library calls
  // by now (onyx-cuda-lower-library-calls); what is left (other element
  // types, strided views, ...) runs as a reduction kernel.
  // One thread per output element, serially over the reduction dims:
  // each output element must belong to one thread.
  if (op.getNumLoops() != op.getNumParallelLoops() + op.getNumReductionLoops())
    return op->emitError() << "'" << op->getName()
                           << "' has iterators other than parallel and "
                              "reduction; not supported on cuda yet";
  {
    for (OpOperand &init : op.getDpsInitsMutable()) {
      AffineMap map = op.getMatchingIndexingMap(&init);
      llvm::SmallBitVector seen(op.getNumLoops());
      for (AffineExpr expr : map.getResults())
        if (auto dim = dyn_cast<AffineDimExpr>(expr))
          seen.set(dim.getPosition());
      for (unsigned d = 0; d < op.getNumLoops(); ++d)
        if (linalg::isParallelIterator(op.getIteratorTypesArray()[d]) &&
            !seen.test(d))
          return op->emitError()
                 << "'" << op->getName()
                 << "' writes one output element from several parallel "
                    "iterations; not supported on cuda yet";
    }
  }
  return success();
}

/// Copies become linalg.copy and named linalg ops generics, in the entry
/// and in its host control flow; each is checked to be dispatchable.
LogicalResult prepareDispatches(func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<memref::CopyOp, linalg::LinalgOp>(op)) {
      ops.push_back(op);
      return WalkResult::skip();
    }
    return WalkResult::advance();
  });
  IRRewriter rewriter(func.getContext());
  for (Operation *op : ops) {
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      rewriter.setInsertionPoint(copy);
      op = linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(),
                                  copy.getTarget());
      rewriter.eraseOp(copy);
    }
    auto linalgOp = cast<linalg::LinalgOp>(op);
    if (failed(checkDispatchable(linalgOp)))
      return failure();
    if (!isa<linalg::GenericOp>(op)) {
      rewriter.setInsertionPoint(op);
      if (failed(linalg::generalizeNamedOp(rewriter, linalgOp)))
        return op->emitError() << "'" << op->getName()
                               << "' cannot be generalized for the cuda target";
    }
  }
  return success();
}

/// Erases the host ops whose device-data values all moved into kernels.
void eraseDeadDeviceReads(DeviceDataFlow &flow, func::FuncOp func) {
  SmallVector<Operation *> ops;
  for (Block &block : func.getBody())
    for (Operation &op : block)
      ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty() && op->getNumResults() > 0 &&
        llvm::any_of(op->getResults(),
                     [&](Value r) { return flow.dependsOnDeviceData(r); }))
      op->erase();
}

struct CUDAOutlineDispatchesPass
    : public onyx::impl::CUDAOutlineDispatchesBase<CUDAOutlineDispatchesPass> {
  using CUDAOutlineDispatchesBase::CUDAOutlineDispatchesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    markCUDAModule(module);
    KernelBuilder builder(module, chip, blockSize);
    for (func::FuncOp func : hostFunctions(module)) {
      builder.startFunction();
      DeviceDataFlow flow;
      if (failed(prepareDispatches(func)))
        return signalPassFailure();
      absorbReductionFills(func);
      // Top-level generics and those inside host control flow (a Loop
      // body, an RNN's time steps): the launch stays where the op was.
      SmallVector<linalg::GenericOp> dispatches;
      func.walk([&](linalg::GenericOp generic) {
        if (!generic->getParentOfType<linalg::LinalgOp>())
          dispatches.push_back(generic);
      });
      for (linalg::GenericOp op : dispatches)
        if (failed(outline(builder, flow, func, op)))
          return signalPassFailure();
      eraseDeadDeviceReads(flow, func);
    }
  }

  LogicalResult outline(KernelBuilder &builder, DeviceDataFlow &flow,
                        func::FuncOp func, linalg::GenericOp op) {
    Location loc = op.getLoc();
    OpBuilder hb(op);
    DispatchInterface iface;
    auto isDeviceValue = [&](Value v) { return flow.dependsOnDeviceData(v); };
    if (failed(builder.collectInterface(hb, op, iface, isDeviceValue)))
      return failure();
    gpu::GPUFuncOp kernel = builder.createKernel(
        func, loc, iface, blockSize, [&](OpBuilder &kb, gpu::GPUFuncOp fn) {
          IRMapping map = builder.bindInterface(kb, fn, loc, iface);
          kb.clone(*op, map);
          gpu::ReturnOp::create(kb, loc);
        });

    // The host launch: grid from the parallel iteration space.
    SmallVector<Value> hostArgs = builder.hostArguments(hb, loc, iface);
    Value total = arith::ConstantIndexOp::create(hb, loc, 1);
    auto linalgOp = cast<linalg::LinalgOp>(op.getOperation());
    SmallVector<utils::IteratorType> iterators =
        linalgOp.getIteratorTypesArray();
    for (auto [d, range] : llvm::enumerate(linalgOp.createLoopRanges(hb, loc)))
      if (linalg::isParallelIterator(iterators[d]))
        total = arith::MulIOp::create(
            hb, loc, total,
            getValueOrCreateConstantIndexOp(hb, loc, range.size));
    if (warpReductionCombiner(op))
      total = arith::MulIOp::create(
          hb, loc, total, arith::ConstantIndexOp::create(hb, loc, kWarpSize));
    // A vectorized loop (dispatchVectorWidth): a thread per W points.
    if (int64_t width = dispatchVectorWidth(op); width > 1)
      total = arith::DivUIOp::create(
          hb, loc,
          arith::AddIOp::create(
              hb, loc, total,
              arith::ConstantIndexOp::create(hb, loc, width - 1)),
          arith::ConstantIndexOp::create(hb, loc, width));
    builder.launchKernel(hb, loc, kernel, builder.gridBlocks(hb, loc, total),
                         arith::ConstantIndexOp::create(hb, loc, blockSize),
                         hostArgs);
    op.erase();
    return success();
  }
};

} // namespace
