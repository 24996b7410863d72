//===- SerialKernels.h - Host loops over device data ------------*- C++ -*-===//
//
// Which host code runs as a serial kernel (onyx-cuda-form-serial-kernels):
// a host loop nest, or a lone store, that reads or writes device data
// element by element — the CPU form of CumSum, TopK, NonZero, Unique,
// Compress, NonMaxSuppression, the scatters. onyx-cuda-snapshot-device-scalars
// asks too: a payload scalar such a loop reads is device code's.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_TARGET_CUDA_SERIALKERNELS_H
#define ONYX_LIB_TARGET_CUDA_SERIALKERNELS_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace onyx::cuda {

/// Whether `op` (host code) is a loop nest or a lone store over device data
/// that can run in a kernel: the data stays on the device and the host
/// neither synchronizes per element nor walks device memory. Loops that
/// only wrap structured ops (a Loop body, an RNN's time steps) stay host
/// control flow around parallel kernels unless they also store elements
/// themselves.
bool isSerialCandidate(mlir::Operation *op);

/// Whether the iterations of `loop` (host code, run as a kernel) may run
/// concurrently: no loop-carried values, the bounds known on the host
/// (`isDeviceValue` false for each), no structured ops or views made
/// inside, and every buffer the body writes indexed by the loop's induction
/// variable in one fixed position by every access to it (so iterations
/// write, and read back, disjoint slices); buffers only read are free. A
/// buffer written in the body must not be reachable under another name (a
/// view of it) in the body.
bool independentIterations(mlir::scf::ForOp loop,
                           llvm::function_ref<bool(mlir::Value)> isDeviceValue);

} // namespace onyx::cuda

#endif // ONYX_LIB_TARGET_CUDA_SERIALKERNELS_H
