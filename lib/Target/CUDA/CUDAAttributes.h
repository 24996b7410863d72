//===- CUDAAttributes.h - Attributes the CUDA passes hand on ----*- C++ -*-===//
//
// The discardable attributes by which one CUDA pass tells a later one what
// it decided; each is named here only.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_TARGET_CUDA_CUDAATTRIBUTES_H
#define ONYX_LIB_TARGET_CUDA_CUDAATTRIBUTES_H

#include "llvm/ADT/StringRef.h"

namespace onyx::cuda {

/// On a gpu.memcpy: a copy of device data to the host that the host waits
/// for (onyx-cuda-insert-readbacks, onyx-cuda-form-serial-kernels;
/// onyx-cuda-lower-launches: pinned staging, one wait per point).
inline constexpr llvm::StringLiteral kReadbackAttr = "onyx.readback";
/// On a gpu.memcpy of host constant data into a temporary that only kernels
/// and library calls read: the temporary is the session's device copy
/// (onyx-cuda-lower-launches: onyxrt_cuda_constant).
inline constexpr llvm::StringLiteral kSessionConstantAttr =
    "onyx.session_constant";
/// On a library call: its i32 result is a status to check
/// (onyx-cuda-lower-launches).
inline constexpr llvm::StringLiteral kStatusAttr = "onyx.cuda_status";
/// On a warp reduction: the constant its output was filled with, absorbed
/// (onyx-cuda-outline-dispatches, onyx-cuda-lower-reductions).
inline constexpr llvm::StringLiteral kReductionInitAttr = "onyx.reduction_init";
/// On a gpu.launch_func: the node it runs (error messages, profiles).
inline constexpr llvm::StringLiteral kNodeAttr = "onyx.node";

} // namespace onyx::cuda

#endif // ONYX_LIB_TARGET_CUDA_CUDAATTRIBUTES_H
