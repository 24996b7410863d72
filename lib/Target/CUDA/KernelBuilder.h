//===- KernelBuilder.h - Host ops into NVVM kernels -------------*- C++ -*-===//
//
// What the passes that make kernels share (onyx-cuda-form-serial-kernels,
// onyx-cuda-outline-dispatches): the kernel ABI of docs/cuda-backend.md.
//
//  * collectInterface: the buffers a host op touches (bindings, a bare base
//    pointer each) and the i64 scalars it needs (dynamic offsets, sizes and
//    strides of the bindings, deduplicated by SSA value, then the scalars it
//    captures); host constants are bound through their session copy on the
//    device; host values computed from device data are recomputed in the
//    kernel;
//  * createKernel: a `gpu.module` for `#nvvm.target<chip>` holding one
//    `gpu.func` over that interface, whose body bindInterface starts
//    (scalars from their slots, each binding rebuilt with
//    memref.reinterpret_cast);
//  * launchKernel: the host's gpu.launch_func on a 1-D grid.
//
// Kernels are named `<func>_dispatch_<N>` in creation order;
// onyx-cuda-deduplicate-kernels merges identical ones at the end.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_TARGET_CUDA_KERNELBUILDER_H
#define ONYX_LIB_TARGET_CUDA_KERNELBUILDER_H

#include "DeviceData.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

#include <tuple>

namespace onyx::cuda {

/// Grid-stride loops cover any size; the grid is capped well inside the
/// hardware limit.
inline constexpr int64_t kMaxGridBlocks = int64_t(1) << 20;

/// One dispatch in the making: the host values the kernel needs.
struct DispatchInterface {
  /// Distinct buffers (operands and captures), in first-use order.
  llvm::SetVector<mlir::Value> bindings;
  /// Host values passed as i64 slots: dynamic offsets/sizes/strides of the
  /// bindings and captured scalars, deduplicated.
  llvm::SetVector<mlir::Value> scalars;
  /// Per binding: the host value of each dim (null for static dims), and of
  /// each stride and the offset when the layout is strided and dynamic.
  llvm::SmallVector<llvm::SmallVector<mlir::Value>> sizes;
  llvm::SmallVector<llvm::SmallVector<mlir::Value>> strides;
  llvm::SmallVector<mlir::Value> offsets;
  /// Host base buffers (extract_strided_metadata), one per binding.
  llvm::SmallVector<mlir::Value> bases;
  /// Ops cloned into the kernel before the loop, in order: constants, and
  /// host ops that read device data (a scalar input's memref.load and what
  /// is computed from it), which must run on the device.
  llvm::SetVector<mlir::Operation *> constants;
  llvm::SetVector<mlir::Operation *> rematerialized;
};

/// Host side: a scalar as the i64 bits of a kernel argument slot.
mlir::Value toI64(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value);
/// Kernel side: the inverse of toI64.
mlir::Value fromI64(mlir::OpBuilder &b, mlir::Location loc, mlir::Value slot,
                    mlir::Type type);

/// This thread's index in the grid and the number of threads in it: the
/// start and step of a grid-stride loop.
std::pair<mlir::Value, mlir::Value> gridStride(mlir::OpBuilder &b,
                                               mlir::Location loc);

/// Delinearizes `linear` over `dims` (innermost fastest) into `ivs`.
void delinearize(mlir::OpBuilder &b, mlir::Location loc, mlir::Value linear,
                 llvm::ArrayRef<int64_t> dims,
                 llvm::ArrayRef<mlir::Value> loopSizes,
                 llvm::SmallVectorImpl<mlir::Value> &ivs);

/// Indices of `indexing` at `ivs`.
llvm::SmallVector<mlir::Value> applyIndexing(mlir::OpBuilder &b,
                                             mlir::Location loc,
                                             mlir::AffineMap indexing,
                                             llvm::ArrayRef<mlir::Value> ivs);

/// Shape ties in a finished kernel: a dim of a rebuilt binding is the size
/// it was rebuilt with.
void foldBindingDims(mlir::gpu::GPUFuncOp kernel);

/// The linalg op onyx-cuda-outline-dispatches put in `kernel` (on the
/// rebuilt bindings), while no pass has lowered it yet.
mlir::linalg::GenericOp dispatchRoot(mlir::gpu::GPUFuncOp kernel);

/// The iteration space of a dispatch's op inside its kernel: the loop
/// sizes (from the rebuilt buffers, created right after the op) and its
/// parallel and reduction dims, in loop order.
struct DispatchLoops {
  llvm::SmallVector<mlir::Value> sizes;
  llvm::SmallVector<int64_t> parallelDims, reductionDims;
};
DispatchLoops dispatchLoops(mlir::OpBuilder &kb, mlir::linalg::GenericOp op);

/// How the vectorized grid-stride loop (onyx-cuda-lower-dispatch-loops)
/// accesses an operand of an all-parallel dispatch op, each thread handling
/// W consecutive points of the innermost loop:
///  * Vector: W contiguous elements with one vector access (the operand's
///    innermost index is the innermost loop, which indexes nothing else, its
///    innermost stride is statically 1, and its element type is a float or
///    integer of 8 to 64 bits);
///  * Invariant: one scalar access for all W points (its map does not use
///    the innermost loop: a bias per row, a LayerNorm's row statistics);
///  * PerLane: W scalar accesses (anything else: a transposed read, i1).
enum class LaneAccess { Vector, Invariant, PerLane };
LaneAccess laneAccess(mlir::linalg::GenericOp op, mlir::OpOperand &operand);

/// The points per thread W of the vectorized grid-stride loop of an
/// all-parallel dispatch op: 16 bytes of the narrowest element type among
/// its Vector operands, at most 8 (8 for f16/bf16, 4 for f32); 1 (a scalar
/// loop only) when an output is not a Vector access, no operand is, or the
/// innermost loop's static size is not a multiple of W. The host launches
/// ceil(points / W) threads for W > 1; the kernel takes the vector loop when
/// the run-time conditions hold (aligned bases, offsets and strides, a
/// dynamic innermost size a multiple of W) and the scalar one otherwise.
int64_t dispatchVectorWidth(mlir::linalg::GenericOp op);

/// The W of a warp reduction over the innermost loop alone
/// (onyx-cuda-lower-reductions): each lane folds W consecutive points per
/// step, the Vector inputs read with one vector access; 16 bytes of their
/// narrowest element type, at most 8; 1 when no input is a Vector access
/// or the innermost loop's static size is not a multiple of W.
int64_t reductionVectorWidth(mlir::linalg::GenericOp op);

/// The alignment claimed by a W-element vector access of `type`'s
/// elements: 16 bytes, or the vector's size when smaller.
llvm::MaybeAlign vectorAlignment(mlir::MemRefType type, int64_t width);

/// In a kernel: whether the vector accesses of `generic` at W = `width` are
/// aligned (an i1): the innermost loop's size is a multiple of W, and every
/// Vector operand's base is 16-byte aligned and its offset and outer
/// strides are multiples of W elements (pool offsets are 256-byte aligned;
/// a view, a caller's buffer may not be).
mlir::Value vectorAccessConditions(mlir::OpBuilder &kb,
                                   mlir::linalg::GenericOp generic,
                                   const DispatchLoops &loops, int64_t width);

/// The input reads of W = `width` lanes at `ivs` (the innermost index a
/// multiple of W; lane k at innermost index + k), mapped into `laneMaps`
/// (one per lane): a vector load for a Vector operand, one load for an
/// Invariant one, one per lane for a PerLane one. Outputs the body reads
/// are read too, except a reduction's (its accumulator). Returns each
/// lane's loop indices.
llvm::SmallVector<llvm::SmallVector<mlir::Value>>
loadLanes(mlir::OpBuilder &b, mlir::Location loc,
          mlir::linalg::GenericOp generic, llvm::ArrayRef<mlir::Value> ivs,
          int64_t width, llvm::MutableArrayRef<mlir::IRMapping> laneMaps);

/// The body of `generic` (its yield and `skip` excepted) cloned once per
/// lane, its linalg.index ops the lane's loop indices.
void cloneLanes(mlir::OpBuilder &b, mlir::linalg::GenericOp generic,
                llvm::ArrayRef<llvm::SmallVector<mlir::Value>> laneIvs,
                llvm::MutableArrayRef<mlir::IRMapping> laneMaps,
                mlir::Operation *skip = nullptr);

/// In `kernel`, the bf16 <-> f32 conversions the ONNX lowering writes out
/// with integer ops (the host's libgcc lacks __truncsfbf2) become
/// arith.truncf / arith.extf, which the GPU does in one instruction each
/// (`cvt.rn.bf16.f32`; the extension exact): the same round-to-nearest-even
/// result for every non-NaN value, a NaN still a NaN (not its payload).
void useNativeBF16Conversions(mlir::gpu::GPUFuncOp kernel);

/// In `kernel`, a half-precision division by a constant c
/// (`truncf(divf(extf(x : T), c)) : T`, T f16 or bf16) becomes a
/// multiplication by RN(1 / c) where that gives the same T result for every
/// value of T, checked exhaustively on the host (HalfDivision.cpp).
void divideHalfByReciprocals(mlir::gpu::GPUFuncOp kernel);

/// linalg.index ops under `root` (also in nested regions of the body)
/// become the loop indices `ivs`.
void replaceIndexOps(mlir::Operation *root, llvm::ArrayRef<mlir::Value> ivs);

/// Marks `module` as holding kernels (gpu.container_module) and run by a
/// CUDA session (the metadata line `device cuda`).
void markCUDAModule(mlir::ModuleOp module);

/// The builder of one pass's kernels, for one host function at a time.
class KernelBuilder {
public:
  KernelBuilder(mlir::ModuleOp module, llvm::StringRef chip, int64_t blockSize);

  /// Starts on `func`: nothing cached from another function is reused.
  void startFunction();

  /// The bindings and scalars a kernel running `op` needs, plus `extra` (a
  /// device buffer the kernel writes, if any). `isDeviceValue` says which
  /// captured host values are computed from device data (recomputed in the
  /// kernel).
  mlir::LogicalResult
  collectInterface(mlir::OpBuilder &hb, mlir::Operation *op,
                   DispatchInterface &iface,
                   llvm::function_ref<bool(mlir::Value)> isDeviceValue,
                   mlir::Value extra = mlir::Value());

  /// Kernel side of `iface`: the scalars from their i64 slots, the cloned
  /// constants, each binding rebuilt from its base pointer and dims, and the
  /// rematerialized host computations of device data.
  mlir::IRMapping bindInterface(mlir::OpBuilder &kb,
                                mlir::gpu::GPUFuncOp kernel, mlir::Location loc,
                                const DispatchInterface &iface);

  /// A kernel over `iface` (bindings as bare base pointers, then i64 slots)
  /// with `threads` threads per block, its body built by `build`.
  mlir::gpu::GPUFuncOp createKernel(
      mlir::func::FuncOp func, mlir::Location loc,
      const DispatchInterface &iface, int64_t threads,
      llvm::function_ref<void(mlir::OpBuilder &, mlir::gpu::GPUFuncOp)> build);

  /// The host arguments of a launch over `iface`.
  llvm::SmallVector<mlir::Value> hostArguments(mlir::OpBuilder &hb,
                                               mlir::Location loc,
                                               const DispatchInterface &iface);

  /// Blocks of `blockSize` threads for `threads` threads (ceil), capped at
  /// kMaxGridBlocks (grid-stride loops cover the rest); 0 threads launch
  /// nothing (the runtime skips an empty grid).
  mlir::Value gridBlocks(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value threads);

  /// The host launch of `kernel` on a 1-D grid, labelled with the node.
  void launchKernel(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::gpu::GPUFuncOp kernel, mlir::Value blocks,
                    mlir::Value block, mlir::ValueRange args);

  /// Host memory a kernel reads (a constant, an external weight) is read
  /// from its device copy, made once per session: a call temporary filled by
  /// a `gpu.memcpy {onyx.session_constant}` right after the buffer's
  /// definition, which onyx-cuda-lower-launches turns into the runtime's
  /// session constant (onyxrt_cuda_constant). A copy an earlier pass made
  /// is reused.
  mlir::FailureOr<mlir::Value> deviceCopyOf(mlir::Value buffer,
                                            mlir::Operation *user);

  int64_t getBlockSize() const { return blockSize; }

private:
  /// The host value of dim `d` of `buffer`, reusing the sizes the buffer was
  /// allocated with or an existing memref.dim, so that equal dims are one
  /// kernel argument.
  mlir::Value resolveDim(mlir::OpBuilder &b, mlir::Operation *anchor,
                         mlir::Value buffer, int64_t d);
  /// The device copy deviceCopyOf made of `buffer` (in this pass or an
  /// earlier one), if any.
  mlir::Value existingDeviceCopy(mlir::Value buffer);

  mlir::ModuleOp module;
  std::string chip;
  int64_t blockSize;
  unsigned nextKernel = 0;
  llvm::DenseMap<std::tuple<mlir::Value, int64_t, mlir::Block *>, mlir::Value>
      dimCache;
  /// Device copies of host buffers, by host buffer.
  llvm::DenseMap<mlir::Value, mlir::Value> uploads;
  llvm::DenseMap<mlir::Value, mlir::Value> deviceCopies;
};

} // namespace onyx::cuda

#endif // ONYX_LIB_TARGET_CUDA_KERNELBUILDER_H
