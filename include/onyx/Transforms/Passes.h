//===- Passes.h - Onyx passes -----------------------------------*- C++ -*-===//
#ifndef ONYX_TRANSFORMS_PASSES_H
#define ONYX_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "onyx/Dialect/Onyx/OnyxDialect.h"

namespace onyx {

#define GEN_PASS_DECL
#include "onyx/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "onyx/Transforms/Passes.h.inc"

/// Name of the module attribute holding the runtime metadata text.
inline constexpr llvm::StringLiteral kModelMetadataAttrName =
    "onyx.model_metadata";
/// Name of the generated entry function.
inline constexpr llvm::StringLiteral kEntryFuncName = "onyx_main";

} // namespace onyx

#endif // ONYX_TRANSFORMS_PASSES_H
