//===- FusedOps.h - What onyx.attention and onyx.layer_norm share -*- C++ -*-//
//
// Both are destination-passing ops (`init`; a result on tensors, none on
// buffers) whose backends address every operand as a row-major block: a
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

/// On buffers: `op` writes `init` and reads every other buffer operand. On
/// tensors: no effects.
void readsOperandsWritesInit(
    mlir::Operation *op, mlir::OpOperand &init,
    llvm::SmallVectorImpl<
        mlir::SideEffects::EffectInstance<mlir::MemoryEffects::Effect>>
        &effects);

/// On tensors the result has init's type; on buffers there is none.
mlir::LogicalResult verifyDestination(mlir::Operation *op, mlir::Value init,
                                      mlir::Value result);

/// The result aliases `init` (equivalent), nothing else aliases.
mlir::bufferization::AliasingValueList
destinationAliasing(mlir::OpOperand &operand, mlir::OpOperand &init,
                    mlir::Value result);

} // namespace onyx

#endif // ONYX_LIB_DIALECT_ONYX_FUSEDOPS_H
