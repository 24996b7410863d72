//===- SnapshotDeviceScalars.cpp - Payload scalars device code reads ------===//
//
// A payload scalar that only device code uses (kernels, or host loops that
// onyx-cuda-form-serial-kernels will run as kernels) is read by each kernel
// that uses it, later than the host load stood: by then a kernel may have
// overwritten its buffer (DynamicQuantizeLinear reuses one buffer for the
// min and then the max; the pool planner may give a dead slot to a later
// temporary because the load was the buffer's last use). It is first
// copied, on the device and in stream order, into a temporary of its own:
//
//   %v = memref.load %r[] : memref<f32>        // %r: a temporary
//   ==>
//   %s = onyx.alloc_temp %ctx : memref<f32>
//   memref.copy %r, %s                          // a copy kernel, later
//   %v = memref.load %s[] : memref<f32>
//
// Graph inputs are never written, so their loads stay. The entry's body is
// walked together with the blocks of host control flow around device work
// (a Loop body, an If branch).
//
//===----------------------------------------------------------------------===//

#include "DeviceData.h"
#include "SerialKernels.h"

#include "onyx/Dialect/Onyx/OnyxDialect.h"
#include "onyx/Target/CUDA/Passes.h"

namespace onyx {
#define GEN_PASS_DEF_CUDASNAPSHOTDEVICESCALARS
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;
using namespace onyx::cuda;

namespace {

/// Whether every use of `value`, followed through pure scalar ops, is
/// device code: a kernel body or a serial-kernel candidate of `block`.
bool usedOnlyOnDevice(Value value, Block &block) {
  for (Operation *user : value.getUsers()) {
    if (isInDispatch(user))
      continue;
    Operation *inBlock = block.findAncestorOpInBlock(*user);
    if (inBlock && (inBlock != user || isa<memref::StoreOp>(user)) &&
        isSerialCandidate(inBlock))
      continue;
    if (isPure(user) && user->getNumRegions() == 0 &&
        user->getNumResults() == 1 &&
        isSupportedScalarType(user->getResult(0).getType()) &&
        usedOnlyOnDevice(user->getResult(0), block))
      continue;
    return false;
  }
  return true;
}

/// Snapshots `load` when only device code uses its value.
LogicalResult snapshotDeviceScalar(memref::LoadOp load, Block &block) {
  Value root = rootBuffer(load.getMemRef());
  if (isHostMemory(load.getMemRef()) ||
      isa_and_nonnull<GetInputOp>(root.getDefiningOp()) ||
      !usedOnlyOnDevice(load.getResult(), block))
    return success();
  auto func = load->getParentOfType<func::FuncOp>();
  Value context = func.getArgument(0);
  if (!isa<ContextType>(context.getType()))
    return load.emitError("device scalars need the bound entry function "
                          "(onyx-bind-entry-context)");
  OpBuilder b(load);
  Location loc = load.getLoc();
  MemRefType type = load.getMemRefType();
  Value element = load.getMemRef();
  SmallVector<Value> at;
  if (type.getRank() > 0) {
    element = elementView(b, load);
    at.push_back(arith::ConstantIndexOp::create(b, loc, 0));
  }
  auto copyType = type.getRank() > 0
                      ? MemRefType::get({1}, type.getElementType())
                      : MemRefType::get({}, type.getElementType());
  auto copy = AllocTempOp::create(b, loc, copyType, context, ValueRange{});
  memref::CopyOp::create(b, loc, element, copy);
  auto snapshot = memref::LoadOp::create(b, loc, copy, at);
  load.getResult().replaceAllUsesWith(snapshot.getResult());
  load.erase();
  return success();
}

/// The loads of `block`, then the blocks of the host control flow in it
/// (not of the loops that become serial kernels).
LogicalResult snapshotBlock(Block &block) {
  SmallVector<memref::LoadOp> loads(block.getOps<memref::LoadOp>());
  for (memref::LoadOp load : loads)
    if (failed(snapshotDeviceScalar(load, block)))
      return failure();
  for (Operation &op : block) {
    if (!isHostControlFlowOverDevice(&op) || isSerialCandidate(&op))
      continue;
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        if (failed(snapshotBlock(nested)))
          return failure();
  }
  return success();
}

struct CUDASnapshotDeviceScalarsPass
    : public onyx::impl::CUDASnapshotDeviceScalarsBase<
          CUDASnapshotDeviceScalarsPass> {
  void runOnOperation() override {
    for (func::FuncOp func : hostFunctions(getOperation()))
      if (failed(snapshotBlock(func.getBody().front())))
        return signalPassFailure();
  }
};

} // namespace
