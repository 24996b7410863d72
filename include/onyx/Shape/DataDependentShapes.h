//===- DataDependentShapes.h - Shapes that depend on tensor data -*- C++
//-*-===//
//
// Result dims of operators whose output extents come from tensor *payload*
// (NonZero, Compress, Unique, NonMaxSuppression, TopK's k) and of the
// control-flow operators (If, Loop, Scan), as OpFoldResults.
//
// The contract (RFC Fix 3, docs/data-dependent.md): a kernel that decides an
// extent writes it into a tensor (a count); the extent is read from that
// tensor with a plain `tensor.extract` (`extentFromTensor`). Nothing here
// says how the value becomes visible to host code: that is a backend
// decision made after bufferization (on the CPU, a load).
//
// A result whose size is only known after its kernel ran is built in two
// steps: a capacity-sized destination (an upper bound computed from
// descriptor extents), then the valid part `[0, count)` cut out with
// `tensor.extract_slice`, so every consumer sees exactly the ONNX shape.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_SHAPE_DATADEPENDENTSHAPES_H
#define ONYX_SHAPE_DATADEPENDENTSHAPES_H

#include "onyx/Shape/DataMovementShapes.h"

#include "mlir/IR/BuiltinTypes.h"

namespace onyx::shape {

/// The extent a kernel wrote into the scalar (or one-element) integer tensor
/// `count`: `tensor.extract` + `arith.index_cast`. A payload scalar read;
/// the backend decides how it becomes host-visible.
mlir::Value extentFromTensor(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value count);

/// NonZero of `input` (rank r): the capacity [r, numElements(input)].
llvm::SmallVector<OpFoldResult>
nonZeroCapacity(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input);
/// NonZero: the ONNX shape [r, count], count read from the kernel's
/// `countTensor`.
llvm::SmallVector<OpFoldResult> nonZeroShape(mlir::OpBuilder &b,
                                             mlir::Location loc,
                                             mlir::Value input,
                                             mlir::Value countTensor);

/// TopK along the normalized `axis`: `k` (from a one-element tensor: a
/// constant, or read with tensor.extract) must be in [0, extent]; the result
/// dims are the input's with the axis extent replaced by k.
struct TopKShape {
  llvm::SmallVector<OpFoldResult> dims;
  OpFoldResult k, extent;
};
mlir::FailureOr<TopKShape> topKShape(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::Value input, int64_t axis,
                                     const IntList &k, mlir::Operation *diagOp);

/// A tensor seen as a list of `entries` along `axis` (each entry the slice
/// of the other dims), or as the list of its elements when `axis` is
/// absent (Compress and Unique without an axis flatten their input).
struct EntryView {
  std::optional<int64_t> axis; ///< normalized; absent: flattened
  OpFoldResult entries;        ///< extent along the axis / element count
  OpFoldResult entrySize;      ///< elements per entry (product of the others)
  llvm::SmallVector<OpFoldResult> dims; ///< the input dims
};
mlir::FailureOr<EntryView> entryView(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::Value input,
                                     std::optional<int64_t> axis,
                                     mlir::Operation *diagOp);
/// The dims of a selection of `count` entries of `view`: the input dims
/// with the axis extent replaced by count, or [count] when flattened.
llvm::SmallVector<OpFoldResult> selectedEntriesShape(const EntryView &view,
                                                     OpFoldResult count);

/// Compress: the number of condition entries that take part,
/// min(len(condition), entries).
OpFoldResult compressLength(mlir::OpBuilder &b, mlir::Location loc,
                            const EntryView &view, mlir::Value condition);

/// NonMaxSuppression: boxes [B, N, 4] and scores [B, C, N], checked to
/// agree; the capacity of selected_indices is [B * C * N, 3].
struct NMSShape {
  OpFoldResult batches, classes, boxes;
  llvm::SmallVector<OpFoldResult> capacity;
};
mlir::FailureOr<NMSShape> nmsShape(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value boxes, mlir::Value scores,
                                   mlir::Operation *diagOp);

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// The type both `a` and `b` can be cast to: the same element type and
/// rank, dims kept where they agree, dynamic where they differ. Failure
/// (nothing emitted) when element types or ranks differ.
mlir::FailureOr<mlir::RankedTensorType> joinTypes(mlir::RankedTensorType a,
                                                  mlir::RankedTensorType b);

/// Scan: every scan input's extent along its axis (`axes` normalized) is
/// the sequence length; they are checked equal.
mlir::FailureOr<OpFoldResult> scanLength(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::ValueRange inputs,
                                         llvm::ArrayRef<int64_t> axes,
                                         mlir::Operation *diagOp);

/// Stacked scan outputs (Loop, Scan): `count` at position `axis` (in
/// [0, rank]) of the element dims.
llvm::SmallVector<OpFoldResult>
stackedShape(llvm::ArrayRef<OpFoldResult> elementDims, OpFoldResult count,
             int64_t axis);

/// Capacity of a growing stack that must hold `needed` entries and now has
/// `capacity`: max(needed, 2 * capacity), at most `bound` when given.
OpFoldResult grownCapacity(mlir::OpBuilder &b, mlir::Location loc,
                           OpFoldResult capacity, OpFoldResult needed,
                           std::optional<OpFoldResult> bound);

} // namespace onyx::shape

#endif // ONYX_SHAPE_DATADEPENDENTSHAPES_H
