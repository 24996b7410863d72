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

void onyx::readsOperandsWritesInit(
    Operation *op, OpOperand &init,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!isa<MemRefType>(init.get().getType()))
    return;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    if (&operand == &init)
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
    else
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}

LogicalResult onyx::verifyDestination(Operation *op, Value init, Value result) {
  bool tensors = isa<RankedTensorType>(init.getType());
  if (tensors != (result != nullptr) ||
      (tensors && result.getType() != init.getType()))
    return op->emitOpError("on tensors the result has init's type; on "
                           "buffers there is none");
  return success();
}

bufferization::AliasingValueList
onyx::destinationAliasing(OpOperand &operand, OpOperand &init, Value result) {
  if (&operand != &init || !result)
    return {};
  return {{result, bufferization::BufferRelation::Equivalent}};
}
