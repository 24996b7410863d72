//===- CUDATarget.h - The CUDA code generation target -----------*- C++ -*-===//
//
// What the rest of the compiler needs to know about the CUDA target: the
// dialects, interfaces and translations its passes use (registered once with
// the other Onyx dialects) and where the CUDA toolkit is. The passes
// themselves are declared in onyx/Target/CUDA/Passes.td (onyx-cuda-*); the
// pipeline is buildCUDACodegenPipeline in onyx/Pipelines/Pipelines.h.
//
// The kernel ABI (docs/cuda-backend.md): one kernel per dispatch, arguments
// are the bare base pointers of the buffer bindings followed by i64 scalars
// (dynamic offsets, sizes and strides of the bindings, then captured
// scalars); the host packs them as 8-byte slots for onyxrt_cuda_launch.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_TARGET_CUDA_CUDATARGET_H
#define ONYX_TARGET_CUDA_CUDATARGET_H

#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace onyx {

/// Registers the GPU and NVVM dialects, the NVVM target interface (PTX and
/// cubin serialization), the to-LLVM conversion interfaces that
/// convert-gpu-to-nvvm uses inside kernels, and the LLVM IR translations.
void registerCUDATargetDialects(mlir::DialectRegistry &registry);

/// The CUDA toolkit root holding bin/ptxas and nvvm/libdevice: `requested`
/// when not empty, else $CUDA_HOME, $CUDA_PATH, /usr/local/cuda, else the
/// parent of the directory of a `ptxas` found on PATH. Empty when none has
/// bin/ptxas.
std::string findCUDAToolkit(llvm::StringRef requested = "");

} // namespace onyx

#endif // ONYX_TARGET_CUDA_CUDATARGET_H
