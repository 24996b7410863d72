//===- SerialKernels.cpp - Host loops over device data --------------------===//

#include "SerialKernels.h"

#include "DeviceData.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace onyx::cuda {

namespace {

/// Whether `op` and everything nested in it can run in a kernel, and
/// what it uses from above can be passed to one.
bool runsInSerialKernel(Operation *op) {
  for (Type type : op->getResultTypes())
    if (!isSupportedScalarType(type))
      return false;
  WalkResult walk = op->walk<WalkOrder::PreOrder>([&](Operation *inner) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(inner))
      return linalgOp.hasPureBufferSemantics() ? WalkResult::skip()
                                               : WalkResult::interrupt();
    if (auto alloca = dyn_cast<memref::AllocaOp>(inner))
      return alloca.getType().hasStaticShape() ? WalkResult::advance()
                                               : WalkResult::interrupt();
    if (isa<memref::LoadOp, memref::StoreOp, memref::DimOp, memref::SubViewOp,
            memref::CastOp, memref::ReinterpretCastOp, memref::ExpandShapeOp,
            memref::CollapseShapeOp, memref::CopyOp,
            memref::ExtractStridedMetadataOp, memref::ViewOp>(inner))
      return WalkResult::advance();
    StringRef dialect =
        inner->getDialect() ? inner->getDialect()->getNamespace() : StringRef();
    if (dialect == "arith" || dialect == "math" || dialect == "scf" ||
        dialect == "index" || dialect == "ub" || dialect == "affine")
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return false;
  llvm::SetVector<Value> captured(op->getOperands().begin(),
                                  op->getOperands().end());
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  for (Value value : captured) {
    if (auto type = dyn_cast<MemRefType>(value.getType())) {
      Space space = spaceOf(value);
      if (space == Space::Mixed)
        return false;
      // Host constants are uploaded once per session; stack buffers and
      // weights with dynamic shapes cannot be.
      if (space == Space::Host &&
          (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
           isa_and_nonnull<memref::AllocaOp>(
               rootBuffer(value).getDefiningOp())))
        return false;
      continue;
    }
    if (!isSupportedScalarType(value.getType()))
      return false;
  }
  return true;
}

} // namespace

bool isSerialCandidate(Operation *op) {
  if (isa<linalg::LinalgOp, memref::CopyOp, gpu::LaunchFuncOp, gpu::MemcpyOp>(
          op))
    return false;
  if (!op->getNumRegions() && !isa<memref::StoreOp>(op))
    return false;
  bool access = false, store = false, structured = false;
  op->walk<WalkOrder::PreOrder>([&](Operation *inner) {
    if (isa<linalg::LinalgOp, memref::CopyOp>(inner)) {
      structured = true;
      return WalkResult::skip();
    }
    if (auto load = dyn_cast<memref::LoadOp>(inner))
      access |= !isHostMemory(load.getMemRef());
    if (auto st = dyn_cast<memref::StoreOp>(inner))
      if (!isHostMemory(st.getMemRef()))
        access = store = true;
    return WalkResult::advance();
  });
  if (!access || (structured && !store))
    return false;
  return runsInSerialKernel(op);
}

bool independentIterations(scf::ForOp loop,
                           function_ref<bool(Value)> isDeviceValue) {
  if (loop.getNumResults() != 0)
    return false;
  for (Value bound :
       {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
    if (isDeviceValue(bound))
      return false;
  Value iv = loop.getInductionVar();
  // The buffer a memref designates through views, but not through
  // memref.view (distinct live pool views never overlap).
  auto base = [](Value memref) {
    while (Operation *def = memref.getDefiningOp()) {
      if (isa<memref::ViewOp>(def))
        break;
      if (auto view = dyn_cast<ViewLikeOpInterface>(def))
        memref = view.getViewSource();
      else if (auto reshape = dyn_cast<memref::ReshapeOp>(def))
        memref = reshape.getSource();
      else
        break;
    }
    return memref;
  };
  DenseMap<Value, int64_t> written; // buffer -> position of the iv
  SmallVector<std::pair<Value, ValueRange>> loads;
  bool ok = true;
  loop.getBody()->walk([&](Operation *inner) {
    if (isa<linalg::LinalgOp, memref::CopyOp, ViewLikeOpInterface,
            memref::ReshapeOp>(inner) &&
        !isa<memref::AllocaOp>(inner)) {
      ok = false;
      return WalkResult::interrupt();
    }
    if (auto store = dyn_cast<memref::StoreOp>(inner)) {
      if (isa_and_nonnull<memref::AllocaOp>(
              store.getMemRef().getDefiningOp()) &&
          loop->isProperAncestor(store.getMemRef().getDefiningOp()))
        return WalkResult::advance(); // private to the iteration
      auto indices = store.getIndices();
      auto it = llvm::find(indices, iv);
      if (it == indices.end()) {
        ok = false;
        return WalkResult::interrupt();
      }
      int64_t position = it - indices.begin();
      auto [entry, inserted] = written.try_emplace(store.getMemRef(), position);
      if (!inserted && entry->second != position)
        ok = false;
    } else if (auto load = dyn_cast<memref::LoadOp>(inner)) {
      loads.push_back({load.getMemRef(), load.getIndices()});
    }
    return ok ? WalkResult::advance() : WalkResult::interrupt();
  });
  if (!ok || written.empty())
    return false;
  DenseSet<Value> writtenBases;
  for (auto &entry : written)
    writtenBases.insert(base(entry.first));
  if (writtenBases.size() != written.size())
    return false; // two names for one written buffer
  for (auto &[buffer, indices] : loads) {
    auto entry = written.find(buffer);
    if (entry == written.end()) {
      if (writtenBases.contains(base(buffer)))
        return false; // another name for a written buffer
      continue;
    }
    if (int64_t(indices.size()) <= entry->second ||
        indices[entry->second] != iv)
      return false;
  }
  return true;
}

} // namespace onyx::cuda
