//===- InsertReadbacks.cpp - What host code reads of device data ----------===//
//
// RFC Fix 3 on the CUDA target, per use: a host op that needs device data
// it cannot leave to a kernel (a size computed from a shape input, the
// shape operand of memref.reshape) reads a synchronized copy:
//
//   %v = memref.load %shape[%c0] : memref<2xi64>     // device memory
//   ==>
//   %host = memref.alloca() : memref<2xi64>
//   gpu.memcpy %host, %shape {onyx.readback}
//   %v = memref.load %host[%c0] : memref<2xi64>
//
// The whole buffer when it is static and at most kMaxWholeReadback
// elements (shared by the other reads of it at the same point), else the
// one element. Readbacks are issued right after the last op that may write
// device memory (or after what they need), not at their use, so that the
// readbacks of one point are adjacent and share one synchronization
// (onyx-cuda-lower-launches). Loads whose values only feed kernels are left
// alone: the kernels load them on the device, without a sync.
//
// Then the rest of the host code is checked: a sequence element inserted
// from host memory is inserted from its session copy on the device (the
// runtime copies elements device to device); a host op that still reads or
// writes device data, or needs a value computed from it, is an error
// naming the node. The entry's body is walked together with the blocks of
// host control flow around device work.
//
//===----------------------------------------------------------------------===//

#include "DeviceData.h"
#include "KernelBuilder.h"

#include "onyx/Dialect/Onyx/OnyxDialect.h"
#include "onyx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace onyx {
#define GEN_PASS_DEF_CUDAINSERTREADBACKS
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;
using namespace onyx::cuda;

namespace {

/// Host reads of device buffers up to this many elements download the whole
/// buffer (shared by the other reads at the same point); larger ones only
/// the element read.
constexpr int64_t kMaxWholeReadback = 4096;

struct CUDAInsertReadbacksPass
    : public onyx::impl::CUDAInsertReadbacksBase<CUDAInsertReadbacksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (func::FuncOp func : hostFunctions(module)) {
      // Only for the session copies of sequence elements.
      KernelBuilder builder(module, /*chip=*/"", /*blockSize=*/1);
      DeviceDataFlow flow;
      if (failed(visitBlock(builder, flow, func.getBody().front())))
        return signalPassFailure();
    }
  }

  LogicalResult visitBlock(KernelBuilder &builder, DeviceDataFlow &flow,
                           Block &block) {
    if (failed(insertReadbacks(flow, block)))
      return failure();
    return checkHostOps(builder, flow, block);
  }

  /// The readbacks of the host ops of `block`.
  LogicalResult insertReadbacks(DeviceDataFlow &flow, Block &body) {
    SmallVector<Operation *> ops;
    for (Operation &op : body)
      ops.push_back(&op);
    // Host copies already made of a device buffer, reusable until something
    // may write device memory again (a kernel, a library call, a copy) or
    // control leaves the block: the shape entries Reshape reads one by one
    // then share one download and one synchronization.
    DenseMap<Value, Value> hostCopies;
    // The last op that may write device memory. Readbacks are issued right
    // after it (or after what they need), not at their use, so that the
    // readbacks of one point are adjacent and share one synchronization
    // (onyx-cuda-lower-launches).
    Operation *lastBarrier = nullptr;
    auto readbackPoint = [&](OpBuilder &b, ValueRange needed) {
      Operation *after = lastBarrier;
      for (Value value : needed)
        if (Operation *def = value.getDefiningOp())
          if (Operation *inBody = body.findAncestorOpInBlock(*def))
            if (!after || after->isBeforeInBlock(inBody))
              after = inBody;
      if (after)
        b.setInsertionPointAfter(after);
      else
        b.setInsertionPointToStart(&body);
    };
    for (Operation *op : ops) {
      // gpu.memcpy: session-constant uploads of onyx-cuda-lower-library-calls
      // and serial kernels' result readbacks.
      if (isa<linalg::LinalgOp, memref::CopyOp, gpu::MemcpyOp,
              gpu::LaunchFuncOp>(op) ||
          op->getNumRegions()) {
        hostCopies.clear();
        lastBarrier = op;
        continue;
      }
      if (isa<CallOpInterface>(op)) {
        hostCopies.clear();
        lastBarrier = op;
      }
      auto iface = dyn_cast<MemoryEffectOpInterface>(op);
      if (!iface)
        continue;
      if (isa<memref::LoadOp>(op) && flow.onlyFeedsKernels(op))
        continue;
      SmallVector<MemoryEffects::EffectInstance> effects;
      iface.getEffects(effects);
      llvm::SetVector<Value> reads;
      for (auto &effect : effects) {
        Value value = effect.getValue();
        if (!value || !isa<BaseMemRefType>(value.getType()))
          continue;
        if (isa<MemoryEffects::Write>(effect.getEffect()) &&
            !isHostMemory(value))
          return op->emitError()
                 << "writing tensor data on the host ('" << op->getName()
                 << "') is not supported on cuda yet (the data is on the "
                    "device)";
        if (isa<MemoryEffects::Read>(effect.getEffect()) &&
            spaceOf(value) == Space::Mixed)
          return op->emitError()
                 << "the host reads a tensor that is host memory on one "
                    "path and device memory on another ('"
                 << op->getName() << "' of " << value.getType()
                 << "); not supported on cuda yet";
        if (isa<MemoryEffects::Read>(effect.getEffect()) &&
            !isHostMemory(value))
          reads.insert(value);
      }
      // One element of a dynamically shaped or large buffer: copy just that
      // element.
      if (auto load = dyn_cast<memref::LoadOp>(op);
          load && reads.size() == 1 && load.getMemRefType().getRank() > 0 &&
          (!load.getMemRefType().hasStaticShape() ||
           load.getMemRefType().getNumElements() > kMaxWholeReadback)) {
        MemRefType type = load.getMemRefType();
        OpBuilder b(op);
        Location loc = op->getLoc();
        SmallVector<Value> needed(load.getIndices());
        needed.push_back(load.getMemRef());
        readbackPoint(b, needed);
        Value element = elementView(b, load);
        auto copy = memref::AllocaOp::create(
            b, loc, MemRefType::get({1}, type.getElementType()));
        auto memcpy =
            gpu::MemcpyOp::create(b, loc, Type(), ValueRange{}, copy, element);
        memcpy->setAttr(kReadbackAttr, b.getUnitAttr());
        b.setInsertionPoint(op);
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        auto hostLoad = memref::LoadOp::create(b, loc, copy, ValueRange{zero});
        load.getResult().replaceAllUsesWith(hostLoad.getResult());
        load.erase();
        flow.invalidate();
        continue;
      }
      for (Value buffer : reads) {
        if (Value copy = hostCopies.lookup(buffer)) {
          op->replaceUsesOfWith(buffer, copy);
          continue;
        }
        auto type = dyn_cast<MemRefType>(buffer.getType());
        if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
            type.getNumElements() > kMaxWholeReadback ||
            !isSupportedScalarType(type.getElementType()))
          return op->emitError()
                 << "the host needs the value of a tensor that lives on the "
                    "device ('"
                 << op->getName() << "' of " << buffer.getType()
                 << "); a synchronized readback needs a small static buffer";
        OpBuilder b(op);
        readbackPoint(b, buffer);
        auto copy = memref::AllocaOp::create(b, op->getLoc(), type);
        auto memcpy = gpu::MemcpyOp::create(b, op->getLoc(), Type(),
                                            ValueRange{}, copy, buffer);
        memcpy->setAttr(kReadbackAttr, b.getUnitAttr());
        op->replaceUsesOfWith(buffer, copy);
        hostCopies[buffer] = copy;
      }
      if (!reads.empty())
        flow.invalidate();
    }
    return success();
  }

  /// What is left of `block`'s host code must not touch device data; the
  /// blocks of host control flow in it are visited in order.
  LogicalResult checkHostOps(KernelBuilder &builder, DeviceDataFlow &flow,
                             Block &block) {
    SmallVector<Operation *> ops;
    for (Operation &op : block)
      ops.push_back(&op);
    for (Operation *op : ops) {
      // Kernels to be (onyx-cuda-outline-dispatches).
      if (isa<linalg::LinalgOp, memref::CopyOp>(op))
        continue;
      // The runtime copies an inserted element device to device: a host
      // constant is inserted from its session copy on the device.
      if (auto insert = dyn_cast<SeqInsertOp>(op)) {
        Value element = insert.getElement();
        Space space = spaceOf(element);
        if (space == Space::Mixed)
          return op->emitError("a sequence element that is host memory on "
                               "one path and device memory on another; not "
                               "supported on cuda yet");
        if (space == Space::Host) {
          FailureOr<Value> copy = builder.deviceCopyOf(element, op);
          if (failed(copy))
            return failure();
          insert.getElementMutable().assign(*copy);
        }
        continue;
      }
      // A device value computed on the host is fine when only kernels use
      // it: they recompute it.
      if (op->getNumResults() > 0 &&
          llvm::any_of(op->getResults(),
                       [&](Value r) { return flow.dependsOnDeviceData(r); })) {
        if (flow.onlyFeedsKernels(op))
          continue;
        return op->emitError()
               << "the host needs the value of a tensor that lives on the "
                  "device ('"
               << op->getName()
               << "'); reading device data on the host is not supported on "
                  "cuda yet";
      }
      // Host control flow around kernels or device data: its blocks are
      // host code too.
      if (op->getNumRegions() && !isa<gpu::LaunchFuncOp>(op)) {
        if (!isHostControlFlowOverDevice(op))
          continue;
        for (Region &region : op->getRegions())
          for (Block &nested : region)
            if (failed(visitBlock(builder, flow, nested)))
              return failure();
        continue;
      }
      if (isa<gpu::MemcpyOp, gpu::LaunchFuncOp>(op)) // readbacks, kernels
        continue;
      if (touchesDeviceData(op))
        return op->emitError()
               << "reading or writing tensor data on the host ('"
               << op->getName()
               << "') is not supported on cuda yet (the data is on the "
                  "device)";
    }
    return success();
  }
};

} // namespace
