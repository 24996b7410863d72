//===- HostStackBuffers.cpp - Small host-only buffers on the host ---------===//
//
// In a CUDA session temporaries and pools are device memory. Small static
// buffers that only the entry's own host code touches (the shape operands
// of memref.reshape, built with memref.store) may have been placed in a
// pool or a temporary by the memory plan: they become host stack buffers,
// so that the host writes and reads them without a kernel or a readback.
//
//===----------------------------------------------------------------------===//

#include "DeviceData.h"

#include "onyx/Dialect/Onyx/OnyxDialect.h"
#include "onyx/Target/CUDA/Passes.h"

namespace onyx {
#define GEN_PASS_DEF_CUDAHOSTSTACKBUFFERS
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;
using namespace onyx::cuda;

namespace {

/// Whether `op`'s buffer is small, static and used only by loads and stores
/// of its own block or as the shape of a memref.reshape.
bool isHostOnlyBuffer(Operation *op) {
  auto type = dyn_cast<MemRefType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
      !isSupportedScalarType(type.getElementType()) ||
      type.getNumElements() > 512)
    return false;
  bool hostOnly = !op->use_empty();
  for (Operation *user : op->getUsers()) {
    // Loads and stores of the entry's own block; those nested in loops or
    // kernels may run on the device (serial kernels).
    if (isa<memref::LoadOp, memref::StoreOp>(user) &&
        user->getBlock() == op->getBlock())
      continue;
    if (auto reshape = dyn_cast<memref::ReshapeOp>(user))
      if (reshape.getShape() == op->getResult(0) &&
          reshape.getSource() != op->getResult(0))
        continue;
    hostOnly = false;
  }
  return hostOnly;
}

struct CUDAHostStackBuffersPass
    : public onyx::impl::CUDAHostStackBuffersBase<CUDAHostStackBuffersPass> {
  void runOnOperation() override {
    for (func::FuncOp func : hostFunctions(getOperation())) {
      SmallVector<Operation *> candidates;
      for (Block &block : func.getBody())
        for (Operation &op : block)
          if (isa<memref::ViewOp, AllocTempOp, memref::AllocOp>(op))
            candidates.push_back(&op);
      for (Operation *op : candidates) {
        if (!isHostOnlyBuffer(op))
          continue;
        OpBuilder b(op);
        auto alloca = memref::AllocaOp::create(
            b, op->getLoc(), cast<MemRefType>(op->getResult(0).getType()));
        op->getResult(0).replaceAllUsesWith(alloca.getResult());
        op->erase();
      }
    }
  }
};

} // namespace
