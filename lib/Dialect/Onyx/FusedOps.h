//===- FusedOps.h - What onyx.attention and onyx.layer_norm share -*- C++ -*-//
//
// Both are destination-passing ops (one result per destination on tensors,
// none on buffers) whose backends address every operand as a row-major block: a
// strided view among them is copied into a dense buffer when they
// bufferize.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_DIALECT_ONYX_FUSEDOPS_H
#define ONYX_LIB_DIALECT_ONYX_FUSEDOPS_H

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace onyx {

/// The buffer of `tensor`, copied into a dense identity-layout buffer when
/// it is a strided view.
mlir::FailureOr<mlir::Value>
denseBuffer(mlir::RewriterBase &rewriter, mlir::Location loc,
            mlir::Value tensor,
            const mlir::bufferization::BufferizationOptions &options,
            mlir::bufferization::BufferizationState &state);

/// On buffers: `op` writes its `destinations` and reads every other buffer
/// operand. On tensors: no effects.
void readsOperandsWritesDestinations(
    mlir::Operation *op, llvm::ArrayRef<mlir::OpOperand *> destinations,
    llvm::SmallVectorImpl<
        mlir::SideEffects::EffectInstance<mlir::MemoryEffects::Effect>>
        &effects);

/// On tensors one result per destination, of its type; on buffers none
/// (and the destinations are all tensors or all buffers).
mlir::LogicalResult
verifyDestinations(mlir::Operation *op,
                   llvm::ArrayRef<mlir::OpOperand *> destinations);

/// Result i aliases destination i (equivalent); nothing else aliases.
mlir::bufferization::AliasingValueList
destinationAliasing(mlir::Operation *op, mlir::OpOperand &operand,
                    llvm::ArrayRef<mlir::OpOperand *> destinations);

} // namespace onyx

#endif // ONYX_LIB_DIALECT_ONYX_FUSEDOPS_H
