//===- NewOperatorShapes.h - Result shapes of the newer operators -*- C++
//-*-===//
//
// Result dims of CenterCropPad (18), Col2Im (18), AffineGrid (20),
// GroupNormalization (21), TensorScatter (24), DFT (20), STFT (17) and
// MelWeightMatrix (17), and Resize-18's `axes`
// and `keep_aspect_ratio_policy` on top of shape::resizeShape. Their size-giving inputs
// (a target shape, an image and block shape, an output size) are IntLists:
// constants fold to static dims, anything else is read at run time; every
// rule ONNX states about them is checked, statically or with `onyx.assert`.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_SHAPE_NEWOPERATORSHAPES_H
#define ONYX_SHAPE_NEWOPERATORSHAPES_H

#include "onyx/Shape/DataMovementShapes.h"
#include "onyx/Shape/ResizeShapes.h"

namespace onyx::shape {

/// CenterCropPad: dim `axes[k]` becomes `shape[k]` (shape >= 0, one entry
/// per axis); the others keep their extent. Output index o of a dim reads
/// input index o + offsets[dim] (0 for unchanged dims): a crop starts
/// floor((in - out) / 2) into the input, a pad floor((out - in) / 2) into
/// the output, so the extra element of an odd difference is on the right.
struct CenterCropPadShape {
  llvm::SmallVector<OpFoldResult> dims, offsets;
};
mlir::FailureOr<CenterCropPadShape>
centerCropPadShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                   const IntList &shape, llvm::ArrayRef<int64_t> axes,
                   mlir::Operation *diagOp);

/// Col2Im: input [N, C * prod(block), L] and `spatialRank` entries of
/// image_shape and block_shape give [N, C, image...]. Per spatial dim the
/// number of block positions is
///   blocks = (image + pad_begin + pad_end - dilation * (block - 1) - 1)
///            / stride + 1,
/// which must be >= 1, and L must be their product. Attribute lists are
/// already complete (one entry per spatial dim, pads begin then end).
struct Col2ImShape {
  llvm::SmallVector<OpFoldResult> dims;
  llvm::SmallVector<OpFoldResult> image, block, blocks;
  OpFoldResult kernelSize; ///< prod(block)
};
mlir::FailureOr<Col2ImShape>
col2ImShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
            const IntList &imageShape, const IntList &blockShape,
            int64_t spatialRank, llvm::ArrayRef<int64_t> dilations,
            llvm::ArrayRef<int64_t> pads, llvm::ArrayRef<int64_t> strides,
            mlir::Operation *diagOp);

/// AffineGrid: theta [N, r, r + 1] and size [N, C, spatial...] (r + 2
/// entries, r = `spatialRank`, 2 or 3) give [N, spatial..., r]; size[0]
/// must be theta's N, the spatial extents non-negative.
mlir::FailureOr<llvm::SmallVector<OpFoldResult>>
affineGridShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value theta,
                const IntList &size, int64_t spatialRank,
                mlir::Operation *diagOp);

/// GroupNormalization: X [N, C, spatial...] seen as [N, G, C / G, S] (S the
/// product of the spatial dims, 1 without any); C must be a multiple of
/// `numGroups` (>= 1).
mlir::FailureOr<llvm::SmallVector<OpFoldResult>>
groupNormView(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
              int64_t numGroups, mlir::Operation *diagOp);

/// TensorScatter: `update` has the cache's rank and extents except along
/// `axis` (normalized, >= 1), where its extent is at most the cache's;
/// `writeIndices` (null when absent) is 1-D with one entry per batch.
/// Returns the cache's dims.
mlir::FailureOr<llvm::SmallVector<OpFoldResult>>
tensorScatterShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cache,
                   mlir::Value update, mlir::Value writeIndices, int64_t axis,
                   mlir::Operation *diagOp);

/// DFT-20 of `input` [signal dims..., 1 or 2] along `axis` (a run-time
/// value is allowed: in [-r, -2] or [0, r - 2], r the input rank) with
/// `length` (dft_length; null: the axis extent, or 2 * (extent - 1) for
/// the inverse one-sided transform, IRFFT), which must be positive.
struct DFTShape {
  llvm::SmallVector<OpFoldResult> dims; ///< the result's
  OpFoldResult axis;                    ///< normalized
  OpFoldResult length;                  ///< the transform length L
  /// The input positions along the axis that take part: min(extent, L),
  /// or min(extent, L / 2 + 1) for IRFFT.
  OpFoldResult terms;
  OpFoldResult components; ///< the input's last extent (1 or 2)
};
mlir::FailureOr<DFTShape> dftShape(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value input, OpFoldResult axis,
                                   std::optional<OpFoldResult> length,
                                   bool inverse, bool onesided,
                                   mlir::Operation *diagOp);

/// STFT-17 of `signal` [batch, length, 1 or 2] with `frameStep` (>= 1),
/// the optional window (1-D, null when absent) and frame length (absent:
/// the window's extent, else the signal length; both given: equal):
/// [batch, frames, bins, 2] with frames = (length - frame) / step + 1 and
/// bins = frame / 2 + 1 when `onesided`, else frame.
struct STFTShape {
  llvm::SmallVector<OpFoldResult> dims;
  OpFoldResult frameLength, frameStep, components;
};
mlir::FailureOr<STFTShape>
stftShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value signal,
          OpFoldResult frameStep, mlir::Value window,
          std::optional<OpFoldResult> frameLength, bool onesided,
          mlir::Operation *diagOp);

/// MelWeightMatrix-17: [dft_length / 2 + 1, num_mel_bins] (dft_length >= 1,
/// num_mel_bins >= 1).
mlir::FailureOr<llvm::SmallVector<OpFoldResult>>
melWeightMatrixShape(mlir::OpBuilder &b, mlir::Location loc,
                     OpFoldResult numMelBins, OpFoldResult dftLength,
                     mlir::Operation *diagOp);

/// Resize-18 `axes` (normalized, no repeats): scales, sizes and (when
/// `withRoi`) roi name only these dims, in this order; spreads them over
/// every dim of `input` (scale 1, the input extent, roi [0, 1] elsewhere)
/// so that resizeShape and the interpolation see the full-rank form. Each
/// given list must have one entry per axis (roi two). Scales and sizes
/// both present with run-time lengths: scales must be empty (checked) and
/// is dropped, as resizeShape does.
mlir::LogicalResult expandResizeAxes(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::Value input,
                                     llvm::ArrayRef<int64_t> axes,
                                     FloatList &scales, IntList &sizes,
                                     FloatList &roi, bool withRoi,
                                     mlir::Operation *diagOp);

/// Resize-18 `keep_aspect_ratio_policy` "not_larger" / "not_smaller" (with
/// sizes): the dims in `axes` share one scale, the smallest / largest of
/// their sizes[i] / input ratios, and become round_half_up(scale * input);
/// the other dims keep their extent. Updates `shape` (computed from the
/// full-rank sizes) in place.
mlir::LogicalResult applyKeepAspectRatio(mlir::OpBuilder &b,
                                         mlir::Location loc,
                                         ResizeShape &shape,
                                         llvm::ArrayRef<int64_t> axes,
                                         bool notLarger,
                                         mlir::Operation *diagOp);

} // namespace onyx::shape

#endif // ONYX_SHAPE_NEWOPERATORSHAPES_H
