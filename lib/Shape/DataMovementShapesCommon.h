//===- DataMovementShapesCommon.h - Shared shape formulas -------*- C++ -*-===//
//
// Private to DataMovementShapes.cpp and DataMovementIndexingShapes.cpp: the
// small IndexMath formulas both use. DataMovementShapes.cpp defines them.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_SHAPE_DATAMOVEMENTSHAPESCOMMON_H
#define ONYX_LIB_SHAPE_DATAMOVEMENTSHAPESCOMMON_H

#include "onyx/Shape/DataMovementShapes.h"

namespace onyx::shape {

/// dims[i] for a run-time `i` (one of 0..size-1).
OpFoldResult pick(IndexMath &m, llvm::ArrayRef<OpFoldResult> dims,
                  OpFoldResult i);
/// An axis in [-rank, rank) made non-negative (range checked by callers).
OpFoldResult normalize(IndexMath &m, OpFoldResult axis, int64_t rank);
/// lo <= v < hi.
Cond inRange(IndexMath &m, OpFoldResult v, int64_t lo, int64_t hi);
/// Requires v >= 0; `message` uses {0} for v.
mlir::LogicalResult requireNonNegative(IndexMath &m, OpFoldResult v,
                                       llvm::StringRef message,
                                       mlir::Operation *diagOp);

} // namespace onyx::shape

#endif // ONYX_LIB_SHAPE_DATAMOVEMENTSHAPESCOMMON_H
