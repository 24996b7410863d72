//===- SplitMinMaxReductions.cpp - Max/min reductions as parallel chains --===//
//
// After onyx-cpu-register-accumulators, a max or min reduction (Softmax's
// row max, ReduceMax / ReduceMin, ArgMax's value) is an innermost scf.for
// whose iter_args accumulator is updated by one `arith.maximumf` (or
// minimumf, maxsi, minsi, maxui, minui). LLVM vectorizes none of the float
// ones (`llvm.maximum` has no vector reduction on x86 it will use), so the
// loop is one dependent chain of the NaN- and signed-zero-aware maximum
// sequence: about 10 cycles per element. The causal decoder's Softmax max
// (4 x 128 x 128 scores per block) took 0.5 ms of a 2.4 ms call.
//
// This pass gives such a loop 8 accumulators: a main loop whose step is 8
// times the original's runs 8 copies of the body (iterations i, i + s,
// ..., i + 7s, in that order), each with its own accumulator, all starting
// from the loop's initial value; their 8 results are combined with the
// same operation; a remainder loop (the original, from the main loop's end)
// continues from there. The 8 chains are independent (the out-of-order
// core overlaps them, and LLVM's SLP vectorizer may pack them).
//
// Exact: maximum and minimum (IEEE 754-2019, NaN-propagating, -0 < +0) and
// the integer max/min are associative and commutative and idempotent, so
// any grouping of the same terms, with the initial value repeated, gives
// the same bits. (maxnumf / minnumf are not taken: their signed zeros may
// depend on the order.) Side effects of the body happen in the original
// order. Only loops with index induction variables, no nested loops, and
// iter_args that are all such reductions (each accumulator used only by its
// max/min, whose result only the yield uses).
//
//===----------------------------------------------------------------------===//

#include "onyx/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace onyx {
#define GEN_PASS_DEF_CPUSPLITMINMAXREDUCTIONS
#include "onyx/Target/CPU/Passes.h.inc"
} // namespace onyx

using namespace mlir;

namespace {

constexpr int64_t kChains = 8;

bool isExactMinMax(Operation *op) {
  return isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxSIOp,
             arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp>(op);
}

/// The max/min op that updates each accumulator, or an empty list when the
/// loop is not one this pass splits.
SmallVector<Operation *> reductionOps(scf::ForOp loop) {
  if (loop.getNumRegionIterArgs() == 0 ||
      !loop.getInductionVar().getType().isIndex())
    return {};
  bool nested = false;
  loop.getBody()->walk([&](Operation *op) {
    if (op->getNumRegions() > 0)
      nested = true;
  });
  if (nested)
    return {};
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  SmallVector<Operation *> ops;
  for (auto [arg, next] :
       llvm::zip(loop.getRegionIterArgs(), yield.getOperands())) {
    Operation *op = next.getDefiningOp();
    if (!op || op->getBlock() != loop.getBody() || !isExactMinMax(op) ||
        !arg.hasOneUse() || *arg.getUsers().begin() != op || !op->hasOneUse() ||
        op->getOperand(0) == op->getOperand(1))
      return {};
    ops.push_back(op);
  }
  return ops;
}

void split(scf::ForOp loop, ArrayRef<Operation *> reductions) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  auto cst = [&](OpBuilder &builder, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, v);
  };
  // Main trips: the trip count rounded down to a multiple of kChains.
  Value zero = cst(b, 0), chains = cst(b, kChains);
  Value span = arith::SubIOp::create(b, loc, ub, lb);
  Value trips = arith::MaxSIOp::create(
      b, loc, arith::CeilDivSIOp::create(b, loc, span, step), zero);
  Value mainTrips = arith::MulIOp::create(
      b, loc, arith::DivSIOp::create(b, loc, trips, chains), chains);
  Value mainEnd = arith::AddIOp::create(
      b, loc, lb, arith::MulIOp::create(b, loc, mainTrips, step));
  Value mainStep = arith::MulIOp::create(b, loc, step, chains);

  int64_t count = loop.getNumRegionIterArgs();
  SmallVector<Value> inits;
  for (int64_t c = 0; c < kChains; ++c)
    llvm::append_range(inits, loop.getInitArgs());
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  auto main = scf::ForOp::create(
      b, loc, lb, mainEnd, mainStep, inits,
      [&](OpBuilder &nb, Location l, Value iv, ValueRange accs) {
        SmallVector<Value> next(accs.size());
        for (int64_t c = 0; c < kChains; ++c) {
          IRMapping map;
          Value ivc = iv;
          if (c > 0)
            ivc = arith::AddIOp::create(
                nb, l, iv, arith::MulIOp::create(nb, l, step, cst(nb, c)));
          map.map(loop.getInductionVar(), ivc);
          for (int64_t k = 0; k < count; ++k)
            map.map(loop.getRegionIterArgs()[k], accs[c * count + k]);
          for (Operation &op : loop.getBody()->without_terminator())
            nb.clone(op, map);
          for (int64_t k = 0; k < count; ++k)
            next[c * count + k] = map.lookup(yield.getOperand(k));
        }
        scf::YieldOp::create(nb, l, next);
      });
  // The chains' results combined by the same operation.
  b.setInsertionPointAfter(main);
  SmallVector<Value> combined;
  for (int64_t k = 0; k < count; ++k) {
    Operation *proto = reductions[k];
    Value acc = main.getResult(k);
    for (int64_t c = 1; c < kChains; ++c) {
      IRMapping map;
      map.map(proto->getOperand(0), acc);
      map.map(proto->getOperand(1), main.getResult(c * count + k));
      acc = b.clone(*proto, map)->getResult(0);
    }
    combined.push_back(acc);
  }
  // The remainder: the original loop from the main loop's end.
  auto rest = cast<scf::ForOp>(b.clone(*loop));
  rest.getLowerBoundMutable().assign(mainEnd);
  rest.getInitArgsMutable().assign(combined);
  loop.replaceAllUsesWith(rest.getResults());
  loop.erase();
}

struct CPUSplitMinMaxReductionsPass
    : public onyx::impl::CPUSplitMinMaxReductionsBase<
          CPUSplitMinMaxReductionsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<scf::ForOp, SmallVector<Operation *>>> work;
    getOperation()->walk([&](scf::ForOp loop) {
      SmallVector<Operation *> ops = reductionOps(loop);
      if (!ops.empty())
        work.emplace_back(loop, std::move(ops));
    });
    for (auto &[loop, ops] : work)
      split(loop, ops);
  }
};

} // namespace
