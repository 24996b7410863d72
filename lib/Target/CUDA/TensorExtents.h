//===- TensorExtents.h - The extent of a tensor dim, traced ------*- C++
//-*-===//
//
// The CUDA pattern passes (onyx-fuse-attention, onyx-cuda-fold-head-split)
// prove that two dims are the same extent by finding the SSA value (or
// constant) that sized each: through destination-passing ops (a result has
// its init's dims), tensor.cast, tensor.empty and tensor.reshape of a
// tensor.from_elements shape.
//
//===----------------------------------------------------------------------===//

#ifndef ONYX_LIB_TARGET_CUDA_TENSOREXTENTS_H
#define ONYX_LIB_TARGET_CUDA_TENSOREXTENTS_H

#include "mlir/IR/OpDefinition.h"

namespace onyx {

/// `v` without `select %c, %x, %x` (both arms equal) around it.
mlir::Value stripSameSelect(mlir::Value v);

/// The extent of dim `pos` of tensor `t` as an SSA value or a constant,
/// traced through the ops that define shapes; null when unknown.
mlir::OpFoldResult extentOf(mlir::Value t, int64_t pos);

/// Whether `a` and `b` are known to be the same extent: equal constants or
/// the same SSA value (up to same-arm selects). False when either is null.
bool sameExtent(mlir::OpFoldResult a, mlir::OpFoldResult b);

} // namespace onyx

#endif // ONYX_LIB_TARGET_CUDA_TENSOREXTENTS_H
