//===- ConcatSlices.h - Convolution outputs into a Concat -------*- C++ -*-===//
//
// Part of onyx-cpu-lower-convolutions (LowerConvolutions.cpp): a Concat of
// convolution outputs (SqueezeNet's Fire modules, Inception blocks) is,
// after bufferization, a buffer B and per input a
//
//   linalg.copy ins(%y) outs(memref.subview B[0, c0, 0...][n, m, out...])
//
// When %y is only written by the convolution call and read by that copy,
// the call can write the slice itself (ONYXRT_CONV_Y_IMAGE_STRIDE): the
// copy and %y's buffer go.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_TARGET_CPU_CONCATSLICES_H
#define ONYX_LIB_TARGET_CPU_CONCATSLICES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace onyx {

/// The channel slice a convolution's output is copied into.
struct ConcatSlice {
  mlir::linalg::CopyOp copy; // erased once the call writes the slice
  mlir::Value buffer;        // B: dense f32, identity layout
  int64_t channel;           // c0: the slice's first channel
  int64_t channelEnd;        // one past its last
};

/// Finds the copy of `y` (the call's dense [n, m, out...] output; the call
/// is to be built right before `at`) into a channel slice of another
/// buffer, when:
///  - y is used only by `writers` (the ops the call replaces), the copy,
///    and dims and views only those use;
///  - the copy follows `at` in its block and writes a subview of a dense
///    buffer B of y's rank with offset 0 in every dim but the channel dim
///    (static c0), unit strides, and B's extents in the spatial dims;
///  - every other use of B is a dim, a subview only written by copies at
///    disjoint static channels, an op of `sliceWrites` (the pointer of an
///    earlier call writing a slice: its channel range) at disjoint
///    channels, or comes after the copy;
///  - B's allocation is before `at` or can move there (its operands are
///    defined before `at`); it is then moved.
using SliceWrites =
    llvm::DenseMap<mlir::Operation *, std::pair<int64_t, int64_t>>;
std::optional<ConcatSlice>
findConcatSlice(mlir::Value y, mlir::Operation *at,
                llvm::ArrayRef<mlir::Operation *> writers,
                const SliceWrites &sliceWrites);

} // namespace onyx

#endif // ONYX_LIB_TARGET_CPU_CONCATSLICES_H
