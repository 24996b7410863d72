//===- WarpReductions.h - One warp per output element -----------*- C++ -*-===//
//
// Long f32 reductions whose body is `yield C(out, v)` with C one of add,
// mul, max, min (LayerNorm's sums, Softmax's max and sum, ReduceSum/Mean/
// Max, pooling averages) run with one warp per output element
// (onyx-cuda-lower-reductions). onyx-cuda-outline-dispatches asks which
// generics those are (their grid has 32 threads per output element) and
// absorbs a constant fill of the output right before one.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_TARGET_CUDA_WARPREDUCTIONS_H
#define ONYX_LIB_TARGET_CUDA_WARPREDUCTIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"

namespace onyx::cuda {

/// Lanes of a warp: a warp-reduction kernel gives one warp to each output
/// element.
inline constexpr int64_t kWarpSize = 32;

/// The combining op of a reduction generic that one warp per output element
/// can run: one output, its body `yield C(out, v)` with `out` used only by C
/// and C an associative, commutative f32 op (add, mul, max, min). Each lane
/// then folds a strided share of the reduction space into a register
/// starting from C's identity, the lanes combine with shuffles, and lane 0
/// combines the result into the output element. Reductions whose static
/// size is below a warp stay serial (one thread per output element).
mlir::Operation *warpReductionCombiner(mlir::linalg::GenericOp op);

/// A constant fill of a warp reduction's output right before it (the
/// softmax max's -inf, a sum's 0): the reduction carries the constant
/// (`onyx.reduction_init`), so that its lane 0 writes combine(fill, sum of
/// the lanes) instead of combining into the stored element, and the fill
/// goes away.
void absorbReductionFills(mlir::func::FuncOp func);

} // namespace onyx::cuda

#endif // ONYX_LIB_TARGET_CUDA_WARPREDUCTIONS_H
