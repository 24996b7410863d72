//===- FormSerialKernels.cpp - Host loops over device data as kernels -----===//
//
// A host loop nest (or a lone store) that reads or writes device data
// element by element - the CPU form of CumSum, TopK, NonZero, Unique,
// Compress, NonMaxSuppression, the scatters; a Shape result written element
// by element - runs as a kernel of one thread (isSerialCandidate): the data
// stays on the device and the host neither synchronizes per element nor
// walks device memory.
//
//   %count = scf.for ... iter_args(%acc = %c0) { memref.load %x[%i] ... }
//   ==>
//   %results = onyx.alloc_temp %ctx : memref<1xi64>
//   gpu.launch_func @main_dispatch_0::@main_dispatch_0
//       blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(...)
//   %host = memref.alloca() : memref<1xi64>
//   gpu.memcpy %host, %results {onyx.readback}
//   %count = ... memref.load %host[%c0] ...
//
// The nest is cloned into the kernel, its linalg ops and copies lowered to
// loops there; its scalar results (NonZero's count, which sizes the output)
// come back through a small device buffer and one synchronized readback.
// When the outer loop's iterations write disjoint slices
// (independentIterations: CumSum's rows, TopK's rows, a scatter along the
// last axis) they run on separate threads instead: lb + thread * step,
// step * threads, 256 a block. The model metadata gains `serial <node>`.
//
//===----------------------------------------------------------------------===//

#include "DeviceData.h"
#include "KernelBuilder.h"
#include "SerialKernels.h"

#include "onyx/Dialect/Onyx/OnyxDialect.h"
#include "onyx/Target/CUDA/Passes.h"
#include "onyx/Transforms/ModelMetadata.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace onyx {
#define GEN_PASS_DEF_CUDAFORMSERIALKERNELS
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;
using namespace onyx::cuda;

namespace {

/// The model metadata gains `serial <node>` once per node with a serial
/// kernel: its time grows with the data on one GPU thread, which callers
/// (and scripts/gpu/run_suite.py's large-shape timing) should know.
void noteSerialKernel(ModuleOp module, StringRef node) {
  metadata::appendOnce(module, metadata::serialLine(node));
}

/// Inside a serial kernel: structured ops and copies become loops.
void lowerStructuredOpsToLoops(Operation *root) {
  SmallVector<Operation *> structured;
  root->walk<WalkOrder::PreOrder>([&](Operation *inner) {
    if (isa<linalg::LinalgOp, memref::CopyOp>(inner)) {
      structured.push_back(inner);
      return WalkResult::skip();
    }
    return WalkResult::advance();
  });
  IRRewriter rewriter(root->getContext());
  for (Operation *op : structured) {
    rewriter.setInsertionPoint(op);
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      op = linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(),
                                  copy.getTarget());
      rewriter.eraseOp(copy);
    }
    rewriter.setInsertionPoint(op);
    if (succeeded(
            linalg::linalgOpToLoops(rewriter, cast<linalg::LinalgOp>(op))))
      rewriter.eraseOp(op);
  }
}

/// Which host values a serial kernel of `block` recomputes on the device.
/// The blocks are visited outside in, each before the host control flow in
/// it, and onyx-cuda-insert-readbacks (which runs next) makes host values
/// of the payload reads of an enclosing block that host code needs, so a
/// load of device memory counts as device data when it is in `block`
/// itself, or when only kernels use it (then nothing reads it back).
class SerialKernelData {
public:
  SerialKernelData(DeviceDataFlow &flow, Block *block)
      : flow(flow), block(block) {}

  bool isDeviceValue(Value value) {
    Operation *def = value.getDefiningOp();
    if (!def || isInDispatch(def))
      return false;
    auto found = memo.find(def);
    if (found != memo.end())
      return found->second;
    bool result = false;
    if (auto load = dyn_cast<memref::LoadOp>(def)) {
      result = !isHostMemory(load.getMemRef()) &&
               (load->getBlock() == block || flow.onlyFeedsKernels(load));
    } else if (isPure(def) && def->getNumRegions() == 0 &&
               llvm::all_of(def->getResultTypes(), isSupportedScalarType)) {
      for (Value operand : def->getOperands())
        if (!isa<BaseMemRefType>(operand.getType()) && isDeviceValue(operand))
          result = true;
    }
    memo[def] = result;
    return result;
  }

private:
  DeviceDataFlow &flow;
  Block *block;
  DenseMap<Operation *, bool> memo;
};

struct CUDAFormSerialKernelsPass
    : public onyx::impl::CUDAFormSerialKernelsBase<CUDAFormSerialKernelsPass> {
  using CUDAFormSerialKernelsBase::CUDAFormSerialKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    markCUDAModule(module);
    KernelBuilder builder(module, chip, blockSize);
    for (func::FuncOp func : hostFunctions(module)) {
      builder.startFunction();
      DeviceDataFlow flow;
      if (failed(formInBlock(builder, flow, func.getBody().front())))
        return signalPassFailure();
    }
  }

  /// The serial candidates of `block`, then those of the host control flow
  /// in it.
  LogicalResult formInBlock(KernelBuilder &builder, DeviceDataFlow &flow,
                            Block &block) {
    SmallVector<Operation *> ops;
    for (Operation &op : block)
      ops.push_back(&op);
    for (Operation *op : ops)
      if (isSerialCandidate(op) && failed(outlineSerial(builder, flow, op)))
        return failure();
    for (Operation &op : block) {
      if (!isHostControlFlowOverDevice(&op))
        continue;
      for (Region &region : op.getRegions())
        for (Block &nested : region)
          if (failed(formInBlock(builder, flow, nested)))
            return failure();
    }
    return success();
  }

  /// Outlines `op` as a serial kernel. Its scalar results, which host code
  /// may need (NonZero's count sizes the result), come back through a small
  /// device buffer and one synchronized download.
  LogicalResult outlineSerial(KernelBuilder &builder, DeviceDataFlow &flow,
                              Operation *op) {
    auto func = op->getParentOfType<func::FuncOp>();
    auto module = func->getParentOfType<ModuleOp>();
    Location loc = op->getLoc();
    OpBuilder hb(op);
    Value results;
    auto i64 = hb.getI64Type();
    auto resultsType = MemRefType::get({int64_t(op->getNumResults())}, i64);
    if (op->getNumResults()) {
      Value context = func.getArgument(0);
      if (!isa<ContextType>(context.getType()))
        return op->emitError("serial kernels need the bound entry function "
                             "(onyx-bind-entry-context)");
      results =
          AllocTempOp::create(hb, loc, resultsType, context, ValueRange{});
    }
    SerialKernelData data(flow, op->getBlock());
    auto isDeviceValue = [&](Value v) { return data.isDeviceValue(v); };
    DispatchInterface iface;
    if (failed(builder.collectInterface(hb, op, iface, isDeviceValue, results)))
      return failure();
    // An outer loop whose iterations touch disjoint slices of what they
    // write runs its iterations on separate threads (grid-stride).
    auto rows = dyn_cast<scf::ForOp>(op);
    if (rows && !independentIterations(rows, isDeviceValue))
      rows = {};
    int64_t threads = rows ? blockSize : 1;
    gpu::GPUFuncOp kernel = builder.createKernel(
        func, loc, iface, threads, [&](OpBuilder &kb, gpu::GPUFuncOp fn) {
          IRMapping map = builder.bindInterface(kb, fn, loc, iface);
          Operation *clone = kb.clone(*op, map);
          if (rows) {
            // lb' = lb + thread * step, step' = step * threads in the grid.
            auto loop = cast<scf::ForOp>(clone);
            OpBuilder lb(loop);
            auto [thread, all] = gridStride(lb, loc);
            Value step = loop.getStep();
            loop.getLowerBoundMutable().assign(arith::AddIOp::create(
                lb, loc, loop.getLowerBound(),
                arith::MulIOp::create(lb, loc, thread, step)));
            loop.getStepMutable().assign(
                arith::MulIOp::create(lb, loc, step, all));
          }
          for (auto [i, result] : llvm::enumerate(clone->getResults())) {
            Value index = arith::ConstantIndexOp::create(kb, loc, i);
            memref::StoreOp::create(kb, loc, toI64(kb, loc, result),
                                    map.lookup(results), ValueRange{index});
          }
          lowerStructuredOpsToLoops(clone);
          gpu::ReturnOp::create(kb, loc);
          foldBindingDims(fn);
        });
    SmallVector<Value> hostArgs = builder.hostArguments(hb, loc, iface);
    Value one = arith::ConstantIndexOp::create(hb, loc, 1);
    Value blocks = one, block = one;
    if (rows) {
      // ceil((ub - lb) / step) iterations (0 when ub <= lb), 256 a block.
      Value span = arith::SubIOp::create(
          hb, loc,
          arith::MaxSIOp::create(hb, loc, rows.getUpperBound(),
                                 rows.getLowerBound()),
          rows.getLowerBound());
      Value trips = arith::DivUIOp::create(
          hb, loc,
          arith::AddIOp::create(
              hb, loc, span,
              arith::SubIOp::create(hb, loc, rows.getStep(), one)),
          rows.getStep());
      block = arith::ConstantIndexOp::create(hb, loc, blockSize);
      blocks = builder.gridBlocks(hb, loc, trips);
    }
    builder.launchKernel(hb, loc, kernel, blocks, block, hostArgs);
    noteSerialKernel(module, nodeNameOf(loc));
    if (results) {
      auto copy = memref::AllocaOp::create(hb, loc, resultsType);
      auto memcpy =
          gpu::MemcpyOp::create(hb, loc, Type(), ValueRange{}, copy, results);
      memcpy->setAttr(kReadbackAttr, hb.getUnitAttr());
      for (auto [i, result] : llvm::enumerate(op->getResults())) {
        Value index = arith::ConstantIndexOp::create(hb, loc, i);
        Value bits = memref::LoadOp::create(hb, loc, copy, ValueRange{index});
        result.replaceAllUsesWith(fromI64(hb, loc, bits, result.getType()));
      }
    }
    op->erase();
    flow.invalidate();
    return success();
  }
};

} // namespace
