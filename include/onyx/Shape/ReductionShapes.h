//===- ReductionShapes.h - Result dims of reductions and losses -*- C++ -*-===//
//
// Result dims of the ONNX ops that fold dims away: Reduce*, ArgMax/ArgMin,
// the statistics outputs of the normalizations, and the losses. Like every
// helper of lib/Shape, they return OpFoldResults and emit `onyx.assert`
// for what can only be checked at run time.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_SHAPE_REDUCTIONSHAPES_H
#define ONYX_SHAPE_REDUCTIONSHAPES_H

#include "onyx/Shape/ShapeHelpers.h"

namespace onyx::shape {

/// A reduction over axes known at compile time.
struct ReduceShape {
  /// Per input dim: folded into the result.
  llvm::SmallVector<bool> reduced;
  /// Result dims in the keepdims=1 layout (reduced dims are 1).
  llvm::SmallVector<OpFoldResult> keptDims;
  /// Result dims as the op returns them (keepdims honoured).
  llvm::SmallVector<OpFoldResult> dims;
  /// How many input elements fold into one result element.
  OpFoldResult count;
};

/// ONNX Reduce* dims for the constant `axes` (negative ones count from the
/// end). Empty `axes` reduces every dim, or none with `noopWithEmptyAxes`.
/// Out-of-range and repeated axes are reported on `diagOp`.
mlir::FailureOr<ReduceShape> reduceShape(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value input,
                                         llvm::ArrayRef<int64_t> axes,
                                         bool keepDims, bool noopWithEmptyAxes,
                                         mlir::Operation *diagOp);

/// A reduction over axes read at run time from a 1-D integer tensor.
struct RuntimeReduceShape {
  /// Per input dim: an i1 "this dim is folded".
  llvm::SmallVector<mlir::Value> reduced;
  /// Result dims in the keepdims=1 layout: 1 where reduced, else the dim.
  llvm::SmallVector<OpFoldResult> keptDims;
  /// Per input dim: the dim where reduced, else 1 (the extents folded).
  llvm::SmallVector<OpFoldResult> foldedDims;
  /// Result dims as the op returns them; without keepdims the kept dims
  /// are compacted at run time into `resultRank` dims.
  llvm::SmallVector<OpFoldResult> dims;
  /// How many input elements fold into one result element.
  OpFoldResult count;
};

/// ONNX Reduce* dims for axes held in the 1-D integer tensor `axesTensor`.
/// The entries are range-checked and checked for repeats at run time; an
/// empty tensor reduces every dim unless `noopWithEmptyAxes`. Without
/// `keepDims` the result has `resultRank` dims (the declared rank), and the
/// number of kept dims is checked against it.
mlir::FailureOr<RuntimeReduceShape>
reduceShapeFromTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                      mlir::Value axesTensor, bool keepDims,
                      bool noopWithEmptyAxes, int64_t resultRank,
                      mlir::Operation *diagOp);

/// NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss: `input` is
/// (N, C, d1..dk), `target` (N, d1..dk), the optional `weight` (C). Checks
/// the extents agree. The loss has the target's dims when not reduced.
struct LossShape {
  llvm::SmallVector<OpFoldResult> targetDims;
  OpFoldResult classes;
  /// Result dims: the target's for reduction "none", else none (a scalar).
  llvm::SmallVector<OpFoldResult> dims;
};
mlir::FailureOr<LossShape> lossShape(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::Value input, mlir::Value target,
                                     mlir::Value weight, bool reduced,
                                     mlir::Operation *diagOp);

/// Checks that the 1-D per-channel operand `param` has `channels` entries
/// (BatchNormalization's scale/B/mean/var, InstanceNormalization's
/// scale/B). `what` names it in the message.
mlir::LogicalResult checkChannelParam(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value param, OpFoldResult channels,
                                      llvm::StringRef what,
                                      mlir::Operation *diagOp);

} // namespace onyx::shape

#endif // ONYX_SHAPE_REDUCTIONSHAPES_H
