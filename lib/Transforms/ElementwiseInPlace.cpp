//===- ElementwiseInPlace.cpp - Elementwise results into dying inputs -----===//
//
// The ONNX -> tensor conversion gives every op a fresh destination
// (`tensor.empty`). For a chain of elementwise ops (GELU's x * 0.5 *
// (1 + erf(x / sqrt 2)), a residual add, a scale) the memory planner then
// needs two buffers at every step: the input dies at the op that writes the
// output, and lifetimes are inclusive. When an elementwise generic reads a
// tensor of exactly its result's type through the identity map, and that
// tensor has no other use, the result can overwrite it: this pass makes
// that tensor the generic's destination, and One-Shot Bufferize then writes
// in place (it still copies where the buffer is not writable, e.g. a
// constant, or aliases something read later).
//
// Conditions, each needed for correctness:
//   * all loops parallel and the output map the identity, so element i of
//     the result depends on element i of the input only;
//   * the reused input is read through the identity map and used nowhere
//     else (not captured by the body either: run-time broadcasting reads
//     inputs with tensor.extract at other positions inside the body);
//   * the body ignores the old destination value (its block argument is
//     unused), since it now holds the input;
//   * the input is not a function argument nor a view of one: graph inputs
//     belong to the caller and bufferize as writable, so writing them would
//     clobber the user's data.
//
// onyx.layer_norm (the CUDA target's fused LayerNorm) gets the same: each
// destination (out, out2, sum) made of a tensor.empty may take the place of
// the input x or the residual when that has its type and dies there (one
// use, not a graph input's view), one input per destination. The kernel
// allows it: an output is either disjoint from an input or exactly it, and
// each element is read before it is written by the same thread
// (layerNormOverlap, runtime/src/cuda/LayerNormLaunch.h). (It did not
// change BERT's activation figure on the GPU, 2026-12-07. The [B, S,
// hidden] buffer in excess at the planned peak, from --emit=buffers, was
// the attention output: one buffer shared by every layer through a CSE'd
// tensor.empty, and so live for the whole call; onyx-split-empty-tensors
// removed it.)
//
//===----------------------------------------------------------------------===//

#include "onyx/Dialect/Onyx/OnyxLayerNorm.h"
#include "onyx/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace onyx {
#define GEN_PASS_DEF_ELEMENTWISEINPLACE
#include "onyx/Transforms/Passes.h.inc"
} // namespace onyx

using namespace mlir;

namespace {

/// True when `value` is, or is a view of, a function argument: a buffer the
/// caller owns (tensor reshapes, casts and slices alias their source after
/// bufferization).
bool viewsArgument(Value value) {
  while (true) {
    if (isa<BlockArgument>(value))
      return true;
    Operation *def = value.getDefiningOp();
    if (auto op = dyn_cast<tensor::ExpandShapeOp>(def))
      value = op.getSrc();
    else if (auto op = dyn_cast<tensor::CollapseShapeOp>(def))
      value = op.getSrc();
    else if (auto op = dyn_cast<tensor::ReshapeOp>(def))
      value = op.getSource();
    else if (auto op = dyn_cast<tensor::CastOp>(def))
      value = op.getSource();
    else if (auto op = dyn_cast<tensor::ExtractSliceOp>(def))
      value = op.getSource();
    else
      return false;
  }
}

/// The input the result of `generic` may overwrite, if any.
OpOperand *reusableInput(linalg::GenericOp generic) {
  if (generic.getNumDpsInits() != 1 || generic.getNumResults() != 1 ||
      !generic.hasPureTensorSemantics() ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return nullptr;
  OpOperand *init = generic.getDpsInitOperand(0);
  if (!init->get().getDefiningOp<tensor::EmptyOp>() ||
      !generic.getMatchingIndexingMap(init).isIdentity())
    return nullptr;
  Block &body = generic.getRegion().front();
  if (!body.getArgument(init->getOperandNumber()).use_empty())
    return nullptr;
  Type resultType = generic.getResult(0).getType();
  for (OpOperand *input : generic.getDpsInputOperands()) {
    Value value = input->get();
    if (value.getType() != resultType || viewsArgument(value) ||
        !value.hasOneUse() ||
        !generic.getMatchingIndexingMap(input).isIdentity())
      continue;
    // Same extents as the destination: both are indexed by the identity
    // map over the same loops, so linalg's semantics make them equal.
    return input;
  }
  return nullptr;
}

struct ElementwiseInPlacePass
    : public onyx::impl::ElementwiseInPlaceBase<ElementwiseInPlacePass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, OpOperand *>> rewrites;
    getOperation().walk([&](linalg::GenericOp generic) {
      if (OpOperand *input = reusableInput(generic))
        rewrites.push_back({generic, input});
    });
    for (auto [generic, input] : rewrites)
      generic.getDpsInitOperand(0)->set(input->get());
    getOperation().walk([](onyx::LayerNormOp op) { reuseRows(op); });
  }

  /// onyx.layer_norm's destinations over its dying x / residual.
  static void reuseRows(onyx::LayerNormOp op) {
    if (!isa<RankedTensorType>(op.getInit().getType()))
      return;
    SmallVector<Value> rows = {op.getInput()};
    if (Value residual = op.getResidual())
      rows.push_back(residual);
    for (OpOperand *destination : op.getDestinations()) {
      if (!destination->get().getDefiningOp<tensor::EmptyOp>())
        continue;
      for (Value &row : rows) {
        if (!row || row.getType() != destination->get().getType() ||
            viewsArgument(row) || !row.hasOneUse())
          continue;
        destination->set(row);
        row = nullptr;
        break;
      }
    }
  }
};

} // namespace
