//===- FusedOps.cpp - What onyx.attention and onyx.layer_norm share ------===//
#include "FusedOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

/// The buffer of `tensor`, copied into a dense identity-layout buffer when
/// it is a strided view.
FailureOr<Value>
onyx::denseBuffer(RewriterBase &rewriter, Location loc, Value tensor,
                  const bufferization::BufferizationOptions &options,
                  bufferization::BufferizationState &state) {
  FailureOr<Value> buffer =
      bufferization::getBuffer(rewriter, tensor, options, state);
  if (failed(buffer))
    return failure();
  auto type = cast<MemRefType>(buffer->getType());
  if (type.getLayout().isIdentity())
    return *buffer;
  auto dense = MemRefType::get(type.getShape(), type.getElementType());
  SmallVector<Value> dynSizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynSizes.push_back(memref::DimOp::create(rewriter, loc, *buffer, d));
  Value copy = memref::AllocOp::create(rewriter, loc, dense, dynSizes);
  memref::CopyOp::create(rewriter, loc, *buffer, copy);
  return copy;
}

void onyx::readsOperandsWritesDestinations(
    Operation *op, ArrayRef<OpOperand *> destinations,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!isa<MemRefType>(destinations.front()->get().getType()))
    return;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    if (llvm::is_contained(destinations, &operand))
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
    else
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}

LogicalResult onyx::verifyDestinations(Operation *op,
                                       ArrayRef<OpOperand *> destinations) {
  bool tensors = isa<RankedTensorType>(destinations.front()->get().getType());
  for (OpOperand *d : destinations)
    if (isa<RankedTensorType>(d->get().getType()) != tensors)
      return op->emitOpError("destinations must be all tensors or all buffers");
  if (!tensors)
    return op->getNumResults() == 0
               ? success()
               : op->emitOpError("has no results on buffers");
  if (op->getNumResults() != destinations.size())
    return op->emitOpError("on tensors has one result per destination");
  for (auto [d, r] : llvm::zip(destinations, op->getResults()))
    if (d->get().getType() != r.getType())
      return op->emitOpError("result types must be their destinations'");
  return success();
}

bufferization::AliasingValueList
onyx::destinationAliasing(Operation *op, OpOperand &operand,
                          ArrayRef<OpOperand *> destinations) {
  if (op->getNumResults() == 0)
    return {};
  for (auto [d, r] : llvm::zip(destinations, op->getResults()))
    if (d == &operand)
      return {{r, bufferization::BufferRelation::Equivalent}};
  return {};
}
