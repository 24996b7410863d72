//===- HoistInvariantLoads.cpp - Row-invariant loads out of inner loops ---===//
//
// After convert-linalg-to-parallel-loops an elementwise op is one
// multi-dimensional scf.parallel with a straight-line body. Operands
// broadcast along the innermost dim are loads at indices invariant in it:
// Softmax's last op, `x[i, j] = exp(x[i, j] - max[i]) / sum[i]` (in place),
// reads max[i] and sum[i] in every iteration. LLVM cannot hoist those loads
// across the loop's stores (every temporary is a view of one pool at a
// run-time offset), so it reloads them per element and does not vectorize
// the loop (scalar expf, 19 % of the transformer encoder's time). This pass
// splits the innermost dim off and loads them once per row:
//
//   scf.if %lb_j < %ub_j {                       // omitted when known true
//     scf.parallel (%i...) = ... {               // the outer dims
//       %m = memref.load %max[%i]                // the invariant loads
//       scf.parallel (%j) = (%lb_j) to (%ub_j) step (%s_j) {
//         <the rest of the body>
//       }
//     }
//   }
//
// (a 1-D loop keeps its form, the loads go in front of it under the same
// guard). The guard keeps the loads from running when the original loop
// would run no iteration; an empty outer dim runs none of them either.
//
// Legality. The loop is an scf.parallel: its iterations may run in any order
// and in parallel, and a data race is undefined behaviour (SCFOps.td). Take a
// hoisted load of location A at outer point i, and a store that may write A
// at iteration (i', j'):
// - i' != i, or i' == i and the innermost dim has two or more iterations
//   (then some j != j' reads A too): the store and a load of A are in
//   different iterations, a race. Only a racy loop could observe the
//   difference, so the hoisted value is the one every iteration would read.
// - i' == i and the innermost dim has one iteration: the store is in the
//   load's own iteration. The pass hoists only loads that come before every
//   store of the body, so the load still reads A before any store of the
//   iteration, as it did.
// Hence the result is unchanged whenever the original loop was race-free.
//
// Why Onyx's loops are race-free (the reasoning of RegisterAccumulators.cpp;
// onyx-cpu-parallelize-loops relies on the same for the outer dims). At this
// point in buildCPUCodegenPipeline every scf.parallel comes from
// convert-linalg-to-parallel-loops, one per linalg op on buffers, over the
// op's parallel dims; the body loads each input at its indexing map, then
// stores each result at its output map. Stores of different iterations hit
// different output elements (the pass requires every store to index with the
// innermost induction variable). A load can alias a store only where
// bufferization gave two operands one buffer, and One-Shot Bufferize does
// that inside one op only for elementwise access (all dims parallel, identity
// indexing maps: bufferizesToElementwiseAccess), onyx-elementwise-in-place
// only for an input read through the identity map; both are same-iteration
// accesses, never invariant in the innermost dim. Otherwise an op's operands
// are different buffers live at the op, and the memory plan never overlaps
// buffers whose lifetimes overlap (docs/memory-planning.md; lifetimes are
// inclusive). So the loaded locations a hoisted load reads are never
// stored in the loop at all.
//
// What is hoisted: loads directly in a straight-line body (memref loads and
// stores and ops without memory effects or regions, no loop results), from a
// buffer defined outside the loop, at indices that do not depend on the
// innermost induction variable (outer induction variables, values defined
// outside, or pure index arithmetic of those, which is cloned), placed before
// every store. Loops with other ops, calls, nested regions, reductions, or no
// such load are left as they are. The IR's arithmetic does not change (the
// loop then vectorizes, so LLVM may map its exp to libmvec's, which rounds
// differently from libm's by an ulp or so, as in every vectorized loop).
//
//===----------------------------------------------------------------------===//

#include "onyx/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

namespace onyx {
#define GEN_PASS_DEF_CPUHOISTINVARIANTLOADS
#include "onyx/Target/CPU/Passes.h.inc"
} // namespace onyx

using namespace mlir;

namespace {

/// Whether the body holds only memref loads and stores and ops without memory
/// effects or regions, and at least one store.
bool isStraightLine(scf::ParallelOp loop) {
  if (loop.getNumResults() != 0)
    return false;
  bool stores = false;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (isa<memref::LoadOp>(op))
      continue;
    if (isa<memref::StoreOp>(op)) {
      stores = true;
      continue;
    }
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
      return false;
  }
  return stores;
}

/// Finds the loads to hoist and the body ops their indices need (in `slice`).
class Analysis {
public:
  explicit Analysis(scf::ParallelOp loop)
      : loop(loop), inner(loop.getInductionVars().back()) {}

  SmallVector<memref::LoadOp> run(llvm::SetVector<Operation *> &slice) {
    Block *body = loop.getBody();
    // Every store indexes with the innermost induction variable (different
    // iterations write different elements); the loads to hoist come before
    // the first store.
    Operation *firstStore = nullptr;
    for (auto store : body->getOps<memref::StoreOp>()) {
      if (!llvm::is_contained(store.getIndices(), inner))
        return {};
      if (!firstStore)
        firstStore = store;
    }
    SmallVector<memref::LoadOp> loads;
    for (auto load : body->getOps<memref::LoadOp>()) {
      if (!load->isBeforeInBlock(firstStore))
        break;
      if (!loop.isDefinedOutsideOfLoop(load.getMemRef()))
        continue;
      llvm::SetVector<Operation *> needed;
      if (!llvm::all_of(load.getIndices(), [&](Value index) {
            return isInvariant(index, needed);
          }))
        continue;
      slice.insert(needed.begin(), needed.end());
      loads.push_back(load);
    }
    return loads;
  }

private:
  /// Whether `value` does not depend on the innermost induction variable:
  /// defined outside the loop, an outer induction variable, or computed in
  /// the body by pure ops from such values (collected in `needed`).
  bool isInvariant(Value value, llvm::SetVector<Operation *> &needed) {
    if (value == inner)
      return false;
    if (loop.isDefinedOutsideOfLoop(value) || isa<BlockArgument>(value))
      return true;
    Operation *op = value.getDefiningOp();
    if (isa<memref::LoadOp>(op))
      return false;
    for (Value operand : op->getOperands())
      if (!isInvariant(operand, needed))
        return false;
    needed.insert(op);
    return true;
  }

  scf::ParallelOp loop;
  Value inner;
};

/// Erases the index arithmetic left without uses in the inner loop (last
/// users first).
void eraseDead(IRRewriter &rewriter, const llvm::SetVector<Operation *> &ops) {
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty())
      rewriter.eraseOp(op);
}

void hoist(IRRewriter &rewriter, scf::ParallelOp loop,
           ArrayRef<memref::LoadOp> loads,
           const llvm::SetVector<Operation *> &slice) {
  Location loc = loop.getLoc();
  unsigned numDims = loop.getNumLoops();
  Value lb = loop.getLowerBound().back();
  Value ub = loop.getUpperBound().back();
  Value step = loop.getStep().back();
  rewriter.setInsertionPoint(loop);
  std::optional<int64_t> lbConst = getConstantIntValue(lb);
  std::optional<int64_t> ubConst = getConstantIntValue(ub);
  if (lbConst && ubConst) {
    // An innermost dim known empty: the loop runs nothing, leave it.
    if (*lbConst >= *ubConst)
      return;
  } else {
    Value nonEmpty =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, lb, ub);
    auto guard = scf::IfOp::create(rewriter, loc, nonEmpty, /*withElse=*/false);
    rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
  }

  Block *body = loop.getBody();
  IRMapping mapping;
  scf::ParallelOp outer;
  if (numDims > 1) {
    outer = scf::ParallelOp::create(
        rewriter, loc, loop.getLowerBound().drop_back(),
        loop.getUpperBound().drop_back(), loop.getStep().drop_back());
    for (auto [from, to] : llvm::zip(loop.getBody()->getArguments().drop_back(),
                                     outer.getInductionVars()))
      mapping.map(from, to);
    rewriter.setInsertionPoint(outer.getBody()->getTerminator());
  }
  // The index arithmetic in body order, then the loads.
  for (Operation &op : body->without_terminator())
    if (slice.contains(&op))
      rewriter.clone(op, mapping);
  for (memref::LoadOp load : loads) {
    Operation *hoisted = rewriter.clone(*load, mapping);
    rewriter.replaceAllUsesWith(load.getResult(), hoisted->getResult(0));
    rewriter.eraseOp(load);
  }
  if (numDims == 1) {
    // The loop itself is the inner loop: it goes after the loads.
    Operation *anchor = &*rewriter.getInsertionPoint();
    if (loop->getBlock() != anchor->getBlock())
      rewriter.moveOpBefore(loop, anchor);
    eraseDead(rewriter, slice);
    return;
  }
  auto innerLoop = scf::ParallelOp::create(rewriter, loc, ValueRange{lb},
                                           ValueRange{ub}, ValueRange{step});
  SmallVector<Value> ivs(outer.getInductionVars());
  ivs.push_back(innerLoop.getInductionVars().front());
  rewriter.eraseOp(innerLoop.getBody()->getTerminator());
  rewriter.inlineBlockBefore(body, innerLoop.getBody(),
                             innerLoop.getBody()->end(), ivs);
  rewriter.eraseOp(loop);
  eraseDead(rewriter, slice);
}

struct CPUHoistInvariantLoadsPass
    : public onyx::impl::CPUHoistInvariantLoadsBase<
          CPUHoistInvariantLoadsPass> {
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> loops;
    getOperation()->walk([&](scf::ParallelOp loop) {
      if (isStraightLine(loop))
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : loops) {
      llvm::SetVector<Operation *> slice;
      SmallVector<memref::LoadOp> loads = Analysis(loop).run(slice);
      if (!loads.empty())
        hoist(rewriter, loop, loads, slice);
    }
  }
};

} // namespace
