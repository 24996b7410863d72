//===- ReassociateSums.cpp - Float sums the vectorizer may reorder --------===//
//
// After onyx-cpu-register-accumulators, a float sum (Softmax's sum of exps,
// LayerNorm's mean and variance, ReduceSum / ReduceMean) is an scf.for whose
// iter_args accumulator is updated by one `arith.addf`. Without a
// reassociation flag LLVM's loop vectorizer keeps the scalar order
// (`force-ordered-reductions`, lib/Target/CPU/EmitArtifact.cpp): one
// `llvm.vector.reduce.fadd` per vector of 8, a chain of dependent adds of
// about 4 cycles each, so the loop runs at one element every 4 cycles
// whatever the width (the encoder's Softmax sum: 1.4 ns per element, half of
// its 1-thread time). With `fastmath<reassoc>` on that add the vectorizer
// keeps several vector partial sums and adds them at the end: the same
// terms, summed in another (fixed) order.
//
// Results: a row's sum still runs whole on one thread, in an order fixed by
// the compiled code, so it does not depend on the thread count; it differs
// from the scalar order by fp32 rounding (partial sums are usually more
// accurate than one running sum). Only f32 and f64 accumulators, and only
// in loops without float extensions or truncations (onyx-cpu-widen-half-
// reductions' f16 sums keep their one running f32 sum, as ONNX Runtime's).
//
//===----------------------------------------------------------------------===//

#include "onyx/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace onyx {
#define GEN_PASS_DEF_CPUREASSOCIATESUMS
#include "onyx/Target/CPU/Passes.h.inc"
} // namespace onyx

using namespace mlir;

namespace {

struct CPUReassociateSumsPass
    : public onyx::impl::CPUReassociateSumsBase<CPUReassociateSumsPass> {
  void runOnOperation() override {
    getOperation()->walk([&](scf::ForOp loop) {
      bool mixedWidths = false;
      loop.getBody()->walk([&](Operation *op) {
        if (isa<arith::ExtFOp, arith::TruncFOp>(op))
          mixedWidths = true;
      });
      if (mixedWidths)
        return;
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      for (auto [arg, next] :
           llvm::zip(loop.getRegionIterArgs(), yield.getOperands())) {
        Type type = arg.getType();
        if (!type.isF32() && !type.isF64())
          continue;
        // acc' = acc + x (or x + acc), the accumulator used only there.
        auto add = next.getDefiningOp<arith::AddFOp>();
        if (!add || add->getBlock() != loop.getBody() || !arg.hasOneUse() ||
            (add.getLhs() != arg && add.getRhs() != arg) ||
            add.getLhs() == add.getRhs() || !add->hasOneUse())
          continue;
        add.setFastmath(add.getFastmath() | arith::FastMathFlags::reassoc);
      }
    });
  }
};

} // namespace
