//===- RegisterAccumulators.cpp - Reduction accumulators in registers -----===//
//
// convert-linalg-to-loops lowers a reduction (Softmax's max and sum,
// LayerNorm's mean, ReduceSum, pooling windows) to loops whose innermost
// body loads the accumulator out[i], combines it with the input and stores it
// back: one load and one store of the same, loop-invariant address in every
// iteration. LLVM keeps such a value in a register only if it can prove that
// no other access in the loop aliases it; the CPU target's temporaries are
// views into one pool at run-time offsets, so it cannot, and the loop stays
// scalar (with the exp of Softmax's sum inside it).
//
// Here the loop is rewritten to
//
//   %init = memref.load %out[%i]
//   %acc = scf.for ... iter_args(%a = %init) { ...; scf.yield %new }
//   memref.store %acc, %out[%i]
//
// when its body holds only memref loads and stores and ops without memory
// effects or regions (what linalg-to-loops emits), and the buffer is read
// once and then written once at the same indices, all defined outside the
// loop, with no other use of the buffer in the loop. Every loop in the CPU
// pipeline at this point comes from a linalg op or from the ONNX control-flow
// lowerings (whose bodies call the runtime or hold regions, so they are left
// alone); a linalg op's outputs do not alias its inputs (One-Shot
// Bufferization only makes an elementwise op's operands share a buffer, and
// the memory plan never overlaps buffers that are live together). The same
// arithmetic runs in the same order: results are bit-identical.
//
//===----------------------------------------------------------------------===//

#include "onyx/Target/CPU/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace onyx {
#define GEN_PASS_DEF_CPUREGISTERACCUMULATORS
#include "onyx/Target/CPU/Passes.h.inc"
} // namespace onyx

using namespace mlir;

namespace {

/// Whether the body holds only loads, stores and ops without memory effects
/// or regions.
bool isSimpleBody(scf::ForOp loop) {
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (isa<memref::LoadOp, memref::StoreOp>(op))
      continue;
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
      return false;
  }
  return true;
}

/// The (load, store) pairs of the loop's body that can be carried in
/// registers.
SmallVector<std::pair<memref::LoadOp, memref::StoreOp>>
findAccumulators(scf::ForOp loop) {
  SmallVector<std::pair<memref::LoadOp, memref::StoreOp>> result;
  Block *body = loop.getBody();
  for (auto load : body->getOps<memref::LoadOp>()) {
    Value buffer = load.getMemRef();
    if (!loop.isDefinedOutsideOfLoop(buffer) ||
        !llvm::all_of(load.getIndices(), [&](Value index) {
          return loop.isDefinedOutsideOfLoop(index);
        }))
      continue;
    memref::StoreOp store;
    bool otherUse = false;
    for (Operation *user : buffer.getUsers()) {
      if (user == load.getOperation() || !loop->isAncestor(user))
        continue;
      auto candidate = dyn_cast<memref::StoreOp>(user);
      if (!candidate || store || candidate->getBlock() != body ||
          candidate.getIndices() != load.getIndices() ||
          candidate.getValueToStore() == buffer) {
        otherUse = true;
        break;
      }
      store = candidate;
    }
    if (otherUse || !store || !load->isBeforeInBlock(store))
      continue;
    result.push_back({load, store});
  }
  return result;
}

void promote(scf::ForOp loop,
             ArrayRef<std::pair<memref::LoadOp, memref::StoreOp>> pairs) {
  OpBuilder builder(loop);
  SmallVector<Value> inits;
  for (auto [load, store] : pairs)
    inits.push_back(memref::LoadOp::create(builder, load.getLoc(),
                                           load.getMemRef(), load.getIndices())
                        .getResult());
  auto yieldValues = [&](OpBuilder &, Location,
                         ArrayRef<BlockArgument>) -> SmallVector<Value> {
    SmallVector<Value> values;
    for (auto [load, store] : pairs)
      values.push_back(store.getValueToStore());
    return values;
  };
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, inits,
      /*replaceInitOperandUsesInLoop=*/false, yieldValues);
  if (failed(replaced))
    return;
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  unsigned first = newLoop.getNumRegionIterArgs() - pairs.size();
  builder.setInsertionPointAfter(newLoop);
  for (auto [i, pair] : llvm::enumerate(pairs)) {
    auto [load, store] = pair;
    load.getResult().replaceAllUsesWith(newLoop.getRegionIterArgs()[first + i]);
    memref::StoreOp::create(builder, store.getLoc(),
                            newLoop.getResult(first + i), store.getMemRef(),
                            store.getIndices());
    store->erase();
    load->erase();
  }
}

struct CPURegisterAccumulatorsPass
    : public onyx::impl::CPURegisterAccumulatorsBase<
          CPURegisterAccumulatorsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (isSimpleBody(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      auto pairs = findAccumulators(loop);
      if (!pairs.empty())
        promote(loop, pairs);
    }
  }
};

} // namespace
