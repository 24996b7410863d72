//===- DeviceData.h - Where data lives in a CUDA session --------*- C++ -*-===//
//
// What every CUDA pass that decides between host and device needs to know
// (docs/cuda-backend.md, "Where data lives, and what the host may read"):
//
//  * which buffers are host memory (constants, external weights, stack
//    buffers) and which device memory (inputs, outputs, temporaries, pools);
//  * which host values are computed from device data (a memref.load of a
//    device buffer, directly or through pure scalar ops) and whether only
//    kernels use them (then the kernels recompute them on the device);
//  * the attribute names the passes hand to each other (CUDAAttributes.h).
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_TARGET_CUDA_DEVICEDATA_H
#define ONYX_LIB_TARGET_CUDA_DEVICEDATA_H

#include "CUDAAttributes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "onyx/Support/NodeNames.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace onyx::cuda {

/// Scalars a kernel argument slot (8 bytes) can carry.
bool isSupportedScalarType(mlir::Type type);

/// The buffer a chain of views starts from.
mlir::Value rootBuffer(mlir::Value buffer);

/// Where a buffer lives in a CUDA session: constants, external weights and
/// stack buffers on the host; inputs, outputs, temporaries and pools on the
/// device. A select between the two (ONNX If on buffers) is mixed.
enum class Space { Host, Device, Mixed };
Space spaceOf(mlir::Value buffer);

/// Whether `buffer` is (a view of) host memory.
inline bool isHostMemory(mlir::Value buffer) {
  return spaceOf(buffer) == Space::Host;
}

/// Whether `op` is inside a linalg op's region or is one.
bool isInDispatch(mlir::Operation *op);

/// Whether `op` reads or writes the data of a device buffer.
bool touchesDeviceData(mlir::Operation *op);

/// Whether `op` is host control flow (a Loop body, an If branch, an RNN's
/// time steps) around kernels or device data: its blocks are host code that
/// the CUDA passes walk like the entry's.
bool isHostControlFlowOverDevice(mlir::Operation *op);

/// The element `load` reads, as a one-element view (rank > 0).
mlir::Value elementView(mlir::OpBuilder &b, mlir::memref::LoadOp load);

/// The functions the CUDA passes work on: the bound entry (onyx_main) when
/// there is one, else every defined function.
llvm::SmallVector<mlir::func::FuncOp> hostFunctions(mlir::ModuleOp module);

/// Host values computed from device data, memoized. Invalidate after
/// rewriting the loads or their users.
class DeviceDataFlow {
public:
  /// Whether the host value `value` is computed from device data (a
  /// memref.load of a device buffer, directly or through pure scalar ops):
  /// such values can only be used by kernels, which recompute them.
  bool dependsOnDeviceData(mlir::Value value);

  /// Whether every use of the device-data values of `op`, followed through
  /// the host scalar ops computed from them, ends in a kernel (which can
  /// recompute them on the device).
  bool onlyFeedsKernels(mlir::Operation *op);

  void invalidate() { memo.clear(); }

private:
  llvm::DenseMap<mlir::Operation *, bool> memo;
};

} // namespace onyx::cuda

#endif // ONYX_LIB_TARGET_CUDA_DEVICEDATA_H
