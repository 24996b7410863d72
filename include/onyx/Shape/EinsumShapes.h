//===- EinsumShapes.h - Einsum equations and result dims --------*- C++ -*-===//
//
// The Einsum equation parser and the op's result dims. The parser turns
// the equation into one label per operand dim (ellipsis dims included, so
// that later code never sees `...`), and the shape helper gives every
// label its extent: letters must agree wherever they occur (checked at
// run time when not provable), ellipsis dims broadcast like numpy.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_SHAPE_EINSUMSHAPES_H
#define ONYX_SHAPE_EINSUMSHAPES_H

#include "onyx/Shape/ShapeHelpers.h"

namespace onyx::shape {

/// A parsed Einsum equation. Labels are numbered 0..numLabels-1: first the
/// ellipsis dims (right-aligned across operands, as numpy broadcasts them),
/// then the letters in order of first appearance.
struct EinsumEquation {
  /// Per operand: the label of each of its dims.
  llvm::SmallVector<llvm::SmallVector<int64_t>> operands;
  /// The label of each result dim (explicit `->` output, or numpy's
  /// implicit output: ellipsis dims, then letters used once, sorted).
  llvm::SmallVector<int64_t> output;
  /// Per label: its letter, or 0 for an ellipsis dim.
  llvm::SmallVector<char> letters;
  /// How many labels are ellipsis dims (the broadcast rank of the `...`s).
  int64_t ellipsisRank = 0;

  int64_t numLabels() const { return int64_t(letters.size()); }
};

/// Parses `equation` for operands of the given ranks; malformed equations
/// (unknown characters, a letter repeated in the output, an output letter
/// absent from the inputs, a term that does not match its operand's rank,
/// a wrong operand count) are reported on `diagOp`.
mlir::FailureOr<EinsumEquation> parseEinsum(llvm::StringRef equation,
                                            llvm::ArrayRef<int64_t> ranks,
                                            mlir::Operation *diagOp);

/// Result dims of an Einsum.
struct EinsumShape {
  EinsumEquation equation;
  /// Per label: its extent.
  llvm::SmallVector<OpFoldResult> extents;
  /// Per operand: how each of its dims reaches its label's extent (letters
  /// are always Equal; ellipsis dims may broadcast).
  llvm::SmallVector<OperandBroadcast> operands;
  /// Result dims.
  llvm::SmallVector<OpFoldResult> dims;
};

mlir::FailureOr<EinsumShape> einsumShape(mlir::OpBuilder &b, mlir::Location loc,
                                         llvm::StringRef equation,
                                         mlir::ValueRange operands,
                                         mlir::Operation *diagOp);

} // namespace onyx::shape

#endif // ONYX_SHAPE_EINSUMSHAPES_H
