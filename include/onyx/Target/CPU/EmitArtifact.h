//===- EmitArtifact.h - LLVM dialect to object and shared library -*- C++
//-*-===//
#ifndef ONYX_TARGET_CPU_EMITARTIFACT_H
#define ONYX_TARGET_CPU_EMITARTIFACT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace onyx {

/// Translates an LLVM-dialect module to LLVM IR, optimizes it and prints it.
/// Embedded weights are flat byte arrays (see flattenConstantGlobals). With
/// `timing`, each step is timed in a scope nested under it.
bool emitLLVMIR(mlir::ModuleOp module, llvm::raw_ostream &os,
                std::string &error, mlir::TimingScope *timing = nullptr,
                llvm::StringRef cpu = "x86-64-v2");

/// Translates, optimizes, emits a PIC object and links it with the runtime
/// library into the shared library `outputPath`.
/// The code is built for `cpu` (see isSupportedCPU); the session-creation
/// entry points refuse, with one error, a host that lacks an extension the
/// code was built with (runtime/src/cpu/Features.cpp).
bool emitSharedLibrary(mlir::ModuleOp module, const std::string &outputPath,
                       std::string &error, mlir::TimingScope *timing = nullptr,
                       llvm::StringRef cpu = "x86-64-v2");

/// The --cpu names: "native" (the compiling host's CPU and features),
/// "x86-64", "x86-64-v2", "x86-64-v3" (AVX2, FMA) and "x86-64-v4"
/// (AVX-512).
bool isSupportedCPU(llvm::StringRef cpu);

/// Rewrites every constant `llvm.mlir.global` whose initializer is a
/// non-splat dense or dense_resource elements attribute of byte-sized
/// integers or floats (the model's weights and other constant tensors) into
/// one flat `!llvm.array<bytes x i8>` holding the same bytes, aligned to at
/// least 64 bytes (or the element size, for small ones). Users reach globals
/// through `llvm.mlir.addressof`, so only the global changes. Returns the
/// number of globals rewritten.
unsigned flattenConstantGlobals(mlir::ModuleOp module);

/// Directory holding libonyx_runtime.so: $ONYX_RUNTIME_DIR, else ../lib
/// next to the running executable.
std::string findRuntimeLibraryDir();

} // namespace onyx

#endif // ONYX_TARGET_CPU_EMITARTIFACT_H
