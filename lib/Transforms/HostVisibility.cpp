//===- HostVisibility.cpp - Payload scalars that host code needs ----------===//
//
// RFC Fix 3, the backend half. Normalized IR says only *which* value host
// code needs: a payload scalar is a plain `tensor.extract`, after
// bufferization a `memref.load`. This pass, after bufferization and entry
// binding, decides for each such load whose value host code uses (an
// allocation or view size, a loop bound or condition, a branch, a check):
//
//   * proven host-visible: the buffer is a constant global, a stack buffer
//     or external weights (host memory on every target) - left alone;
//   * made visible: on the CPU every buffer is host memory, so the load
//     becomes `onyx.readback_scalar`, which the runtime checks lowering
//     turns into a counted host synchronization (`onyxrt_host_sync`: the
//     fault-injection point, and what `onyx-run --stats` counts) followed by
//     the load. Readbacks at the same point (no kernel or store between
//     them) share one synchronization;
//   * target=cuda: left to the CUDA outliner, which downloads what host
//     logic reads (one synchronized copy per buffer per point), runs host
//     loop nests over device data as one-thread kernels, and rejects the
//     reads it cannot make visible (a whole dynamically sized buffer) with
//     an error naming the node.
//
// Values that only kernels use (a Clip bound loaded on the host and
// captured by a linalg body) are not host logic and stay loads.
//
//===----------------------------------------------------------------------===//

#include "onyx/Dialect/Onyx/OnyxDialect.h"
#include "onyx/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace onyx {
#define GEN_PASS_DEF_HOSTVISIBILITY
#include "onyx/Transforms/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

namespace {

/// True when host code needs `value`: it reaches, through side-effect-free
/// scalar arithmetic, a size, a bound, a condition or a check.
bool feedsHostLogic(Value value) {
  SmallVector<Value> worklist = {value};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<AllocTempOp, AllocOutputOp, memref::AllocOp, memref::AllocaOp,
              memref::ViewOp, memref::SubViewOp, memref::ReinterpretCastOp,
              memref::ExpandShapeOp, AssertOp, scf::IfOp, scf::ConditionOp,
              cf::CondBranchOp>(user))
        return true;
      if (auto forOp = dyn_cast<scf::ForOp>(user))
        if (use.getOperandNumber() < 3) // lower bound, upper bound, step
          return true;
      if (user->getNumRegions() == 0 && user->getNumResults() == 1 &&
          isMemoryEffectFree(user) &&
          user->getResult(0).getType().isIntOrIndexOrFloat())
        worklist.push_back(user->getResult(0));
    }
  }
  return false;
}

/// The buffer a view/cast chain starts from.
Value rootBuffer(Value buffer) {
  while (Operation *def = buffer.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      buffer = view.getViewSource();
    else if (auto cast = dyn_cast<memref::CastOp>(def))
      buffer = cast.getSource();
    else
      break;
  }
  return buffer;
}

/// Host memory on every target: constants, stack buffers, external weights.
bool provenHostVisible(Value buffer) {
  Operation *def = rootBuffer(buffer).getDefiningOp();
  return def && isa<memref::GetGlobalOp, memref::AllocaOp, GetWeightOp>(def);
}

/// The outermost host loop around `op` whose body launches no kernel and
/// writes no model buffer: everything it reads was computed before it.
Operation *outermostReadOnlyLoop(Operation *op, func::FuncOp func) {
  Operation *found = nullptr;
  for (Operation *p = op->getParentOp(); p && p != func; p = p->getParentOp()) {
    if (!isa<scf::ForOp, scf::WhileOp>(p))
      continue;
    bool readOnly = true;
    p->walk([&](Operation *inner) {
      if (isa<linalg::LinalgOp>(inner) ||
          (isa<memref::StoreOp>(inner) &&
           !provenHostVisible(cast<memref::StoreOp>(inner).getMemRef())) ||
          isa<func::CallOp, AllocOutputOp, AllocTempOp>(inner)) {
        readOnly = false;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (!readOnly)
      break;
    found = p;
  }
  return found;
}

/// The buffer a memref designates: through subviews, casts and reshapes,
/// but not through memref.view (each view of a pool is its own buffer).
Value bufferOf(Value memref) {
  while (Operation *def = memref.getDefiningOp()) {
    if (isa<memref::ViewOp>(def))
      break;
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      memref = view.getViewSource();
    else if (auto cast = dyn_cast<memref::CastOp>(def))
      memref = cast.getSource();
    else
      break;
  }
  return memref;
}

/// Constant indices of a load or store, if all are constants.
std::optional<SmallVector<int64_t>> constantIndices(ValueRange indices) {
  SmallVector<int64_t> result;
  for (Value v : indices) {
    APInt c;
    if (!matchPattern(v, m_ConstantInt(&c)))
      return std::nullopt;
    result.push_back(c.getSExtValue());
  }
  return result;
}

/// Host code that stored a value into a small buffer and reads it back
/// (the shape operand of memref.reshape, whose dims canonicalize to loads)
/// needs no readback: the value is the one it stored. Forwards such loads
/// from the last store to the same constant position in the same block, as
/// long as nothing between may have written the buffer.
void forwardHostStores(func::FuncOp func) {
  SmallVector<memref::LoadOp> loads;
  func.walk([&](memref::LoadOp load) {
    if (!load->getParentOfType<linalg::LinalgOp>())
      loads.push_back(load);
  });
  for (memref::LoadOp load : loads) {
    auto at = constantIndices(load.getIndices());
    if (!at)
      continue;
    for (Operation *prev = load->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      if (auto store = dyn_cast<memref::StoreOp>(prev)) {
        if (store.getMemRef() != load.getMemRef()) {
          // Another buffer, unless one is a view of the other. Distinct
          // pool views that are both live here never overlap.
          if (bufferOf(store.getMemRef()) == bufferOf(load.getMemRef()))
            break;
          continue;
        }
        auto storedAt = constantIndices(store.getIndices());
        if (!storedAt)
          break;
        if (*storedAt != *at)
          continue;
        load.getResult().replaceAllUsesWith(store.getValueToStore());
        load.erase();
        break;
      }
      if (isMemoryEffectFree(prev) && prev->getNumRegions() == 0)
        continue;
      // Views and reshapes read nothing and write nothing.
      if (isa<ViewLikeOpInterface, memref::ReshapeOp>(prev))
        continue;
      break; // anything else may write the buffer
    }
  }
}

struct HostVisibilityPass
    : public onyx::impl::HostVisibilityBase<HostVisibilityPass> {
  using HostVisibilityBase::HostVisibilityBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (target != "cpu" && target != "cuda") {
      module.emitError() << "unknown host-visibility target '" << target
                         << "' (expected cpu or cuda)";
      return signalPassFailure();
    }
    auto func = module.lookupSymbol<func::FuncOp>(kEntryFuncName);
    if (!func || func.getBody().empty())
      return;
    Value context = func.getArgument(0);
    forwardHostStores(func);

    SmallVector<memref::LoadOp> hostReads;
    func.walk([&](memref::LoadOp load) {
      if (load->getParentOfType<linalg::LinalgOp>())
        return; // a kernel's own read
      if (provenHostVisible(load.getMemRef()) ||
          !feedsHostLogic(load.getResult()))
        return;
      hostReads.push_back(load);
    });

    // cuda: the outliner (onyx-cuda-outline-dispatches) downloads what
    // host logic reads and runs host loop nests over device data as serial
    // kernels, so nothing is rewritten here.
    if (target == "cuda")
      return;

    // CPU: every host read becomes a readback. Inside a host loop that only
    // reads model buffers (checks over computed indices) one
    // synchronization before the outermost such loop covers them all;
    // otherwise the first of each run of readbacks with nothing that could
    // write memory between them carries the synchronization.
    DenseSet<Operation *> syncedLoops;
    for (memref::LoadOp load : hostReads) {
      if (Operation *loop = outermostReadOnlyLoop(load, func)) {
        if (syncedLoops.insert(loop).second) {
          OpBuilder b(loop);
          HostSyncOp::create(b, load.getLoc(), context);
        }
        OpBuilder b(load);
        auto readback = ReadbackScalarOp::create(
            b, load.getLoc(), load.getType(), context, load.getMemRef(),
            load.getIndices(), b.getBoolAttr(false));
        load.replaceAllUsesWith(readback.getResult());
        load.erase();
        continue;
      }
      bool sync = true;
      for (Operation *prev = load->getPrevNode(); prev;
           prev = prev->getPrevNode()) {
        if (isa<ReadbackScalarOp>(prev)) {
          sync = false;
          break;
        }
        if (!isMemoryEffectFree(prev) || prev->getNumRegions() != 0)
          break;
      }
      OpBuilder b(load);
      auto readback = ReadbackScalarOp::create(
          b, load.getLoc(), load.getType(), context, load.getMemRef(),
          load.getIndices(), b.getBoolAttr(sync));
      load.replaceAllUsesWith(readback.getResult());
      load.erase();
    }
  }
};

} // namespace
