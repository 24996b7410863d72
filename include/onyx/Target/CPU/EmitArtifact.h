//===- EmitArtifact.h - LLVM dialect to object and shared library -*- C++
//-*-===//
#ifndef ONYX_TARGET_CPU_EMITARTIFACT_H
#define ONYX_TARGET_CPU_EMITARTIFACT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace onyx {

/// Translates an LLVM-dialect module to LLVM IR, optimizes it and prints it.
bool emitLLVMIR(mlir::ModuleOp module, llvm::raw_ostream &os,
                std::string &error);

/// Translates, optimizes, emits a PIC object and links it with the runtime
/// library into the shared library `outputPath`.
bool emitSharedLibrary(mlir::ModuleOp module, const std::string &outputPath,
                       std::string &error);

/// Directory holding libonyx_runtime.so: $ONYX_RUNTIME_DIR, else ../lib
/// next to the running executable.
std::string findRuntimeLibraryDir();

} // namespace onyx

#endif // ONYX_TARGET_CPU_EMITARTIFACT_H
