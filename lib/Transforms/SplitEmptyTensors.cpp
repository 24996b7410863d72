//===- SplitEmptyTensors.cpp - One tensor.empty per use -------------------===//
//
// CSE makes the `tensor.empty`s of equal shape one value: every layer's
// attention output, LayerNorm output or matmul destination of a
// transformer then names the same tensor.empty. One-Shot Bufferize
// allocates one buffer per tensor.empty and writes each user in place into
// it wherever that is legal (the previous layer's value is dead by then),
// so the twelve layers share one buffer whose lifetime runs from the first
// layer to the last. The pool planner sees one temporary live across the
// whole model, and the memory it holds at every other layer's peak is
// counted as live there (BERT-base fp32 at batch 32: 12 MiB of 84).
//
// Before bufferization, every use of a tensor.empty after the first in the
// same block gets its own clone, created right before the user: each
// buffer then lives from its user to its last reader, and the pool packs
// them by lifetime. A tensor.empty's contents are undefined, so giving each
// user its own is the same program. Uses inside nested regions keep the
// original (an allocation inside a loop body is not planned).
//
//===----------------------------------------------------------------------===//

#include "onyx/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace onyx {
#define GEN_PASS_DEF_SPLITEMPTYTENSORS
#include "onyx/Transforms/Passes.h.inc"
} // namespace onyx

using namespace mlir;

namespace {

struct SplitEmptyTensorsPass
    : public onyx::impl::SplitEmptyTensorsBase<SplitEmptyTensorsPass> {
  void runOnOperation() override {
    // Per block, in program order: the first user of a tensor.empty of
    // this block keeps it, every later user gets a clone right before it.
    getOperation().walk([](Block *block) {
      llvm::SmallPtrSet<Operation *, 32> used;
      for (Operation &op : *block) {
        for (OpOperand &operand : op.getOpOperands()) {
          auto empty = operand.get().getDefiningOp<tensor::EmptyOp>();
          if (!empty || empty->getBlock() != block)
            continue;
          if (used.insert(empty).second)
            continue;
          OpBuilder b(&op);
          operand.set(b.clone(*empty)->getResult(0));
        }
      }
    });
  }
};

} // namespace
