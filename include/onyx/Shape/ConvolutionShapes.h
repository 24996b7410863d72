//===- ConvolutionShapes.h - Sliding-window result shapes -------*- C++ -*-===//
//
// Result dims of Conv, ConvInteger, QLinearConv, ConvTranspose and the
// pooling operators, plus the extents of the intermediate tensors their
// lowerings build (padded inputs, ConvTranspose's dilated input). Dims are
// OpFoldResults like everywhere in lib/Shape: static inputs give static
// extents, dynamic ones index arithmetic (affine.apply/min/max, folded where
// possible).
//
// Layout is ONNX's: [N, C, spatial...] for data, [M, C/group, kernel...] for
// Conv weights and [C, M/group, kernel...] for ConvTranspose weights.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_SHAPE_CONVOLUTIONSHAPES_H
#define ONYX_SHAPE_CONVOLUTIONSHAPES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"

namespace onyx::shape {

using mlir::OpFoldResult;

enum class AutoPad { NotSet, Valid, SameUpper, SameLower };

/// The window attributes shared by the sliding-window operators, one entry
/// per spatial dim, ONNX defaults filled in.
struct WindowAttrs {
  AutoPad autoPad = AutoPad::NotSet;
  llvm::SmallVector<int64_t> strides;
  llvm::SmallVector<int64_t> dilations;
  /// Explicit pads (only meaningful with auto_pad NOTSET; zero otherwise).
  llvm::SmallVector<int64_t> padsBegin, padsEnd;
  bool ceilMode = false;
};

/// Reads `auto_pad`, `strides`, `dilations`, `pads` and `ceil_mode` of `op`
/// (any of them may be absent) for `spatialRank` spatial dims, and checks
/// their lengths and ranges. Errors are reported on `op`.
mlir::FailureOr<WindowAttrs> getWindowAttrs(mlir::Operation *op,
                                            int64_t spatialRank);

/// How one spatial dim of the (padded) input is read by the windows.
struct WindowDim {
  OpFoldResult output;   ///< output extent
  OpFoldResult padBegin; ///< padding before the input
  OpFoldResult padEnd;   ///< padding after the input (ONNX's end pad)
  /// The padding after the input to materialize: padEnd plus what
  /// ceil_mode's partial last window reads past it, so that every window
  /// lies within the padded input.
  OpFoldResult padHigh;
  /// Extent of the padded input: input + padBegin + padHigh.
  OpFoldResult padded;
};

/// Output extents and paddings of a sliding window over `input` (spatial
/// extents) with `kernel` taps per dim. Implements ONNX's formulas for
/// explicit pads, VALID, SAME_UPPER/SAME_LOWER and ceil_mode (as ONNX
/// 1.12's shape inference: a partial last window is kept even when it starts
/// in the end padding). Checks that the padded input holds at least one
/// window (statically or at run time).
mlir::FailureOr<llvm::SmallVector<WindowDim>>
slidingWindow(mlir::OpBuilder &b, mlir::Location loc,
              llvm::ArrayRef<OpFoldResult> input,
              llvm::ArrayRef<OpFoldResult> kernel, const WindowAttrs &attrs,
              mlir::Operation *diagOp);

/// Conv (and ConvInteger/QLinearConv): X [N, C, S...], W [M, C/group, K...].
struct ConvShape {
  llvm::SmallVector<OpFoldResult> dims; ///< [N, M, O...]
  OpFoldResult batch;
  OpFoldResult inChannelsPerGroup;  ///< C / group
  OpFoldResult outChannelsPerGroup; ///< M / group
  llvm::SmallVector<OpFoldResult> kernel;
  llvm::SmallVector<WindowDim> window;
};

/// Checks the channel counts against `group` (statically or at run time)
/// and, when given, `kernelShape` against W's spatial dims.
mlir::FailureOr<ConvShape>
convShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, mlir::Value w,
          int64_t group, std::optional<llvm::ArrayRef<int64_t>> kernelShape,
          const WindowAttrs &attrs, mlir::Operation *diagOp);

/// ConvTranspose: X [N, C, S...], W [C, M/group, K...]. The lowering runs a
/// stride-1 convolution with the flipped kernel over `dilatedInput`: zeros
/// of [N, C, dilatedExtent...] with X's element i of each spatial dim at
/// inputOffset + i * stride.
struct ConvTransposeShape {
  llvm::SmallVector<OpFoldResult> dims; ///< [N, M, O...]
  OpFoldResult batch;
  OpFoldResult inChannelsPerGroup;  ///< C / group
  OpFoldResult outChannelsPerGroup; ///< M / group (W's dim 1)
  llvm::SmallVector<OpFoldResult> kernel;
  llvm::SmallVector<OpFoldResult> output;        ///< O...
  llvm::SmallVector<OpFoldResult> inputOffset;   ///< per spatial dim
  llvm::SmallVector<OpFoldResult> dilatedExtent; ///< per spatial dim
};

/// `outputPadding` and `outputShape` are the attributes (empty when absent;
/// outputShape may list the spatial dims only or all dims). With
/// outputShape, the pads follow from it as the ONNX spec describes.
mlir::FailureOr<ConvTransposeShape> convTransposeShape(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, mlir::Value w,
    int64_t group, std::optional<llvm::ArrayRef<int64_t>> kernelShape,
    const WindowAttrs &attrs, llvm::ArrayRef<int64_t> outputPadding,
    llvm::ArrayRef<int64_t> outputShape, mlir::Operation *diagOp);

/// MaxPool, AveragePool, LpPool: X [N, C, S...] with `kernelShape`.
struct PoolShape {
  llvm::SmallVector<OpFoldResult> dims; ///< [N, C, O...]
  llvm::SmallVector<WindowDim> window;
};
mlir::FailureOr<PoolShape> poolShape(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::Value x,
                                     llvm::ArrayRef<int64_t> kernelShape,
                                     const WindowAttrs &attrs,
                                     mlir::Operation *diagOp);

/// Global pools: [N, C, 1...]; errors on `diagOp` below rank 3.
mlir::FailureOr<llvm::SmallVector<OpFoldResult>>
globalPoolShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                mlir::Operation *diagOp);

} // namespace onyx::shape

#endif // ONYX_SHAPE_CONVOLUTIONSHAPES_H
