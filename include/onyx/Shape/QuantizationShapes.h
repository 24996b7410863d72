//===- QuantizationShapes.h - Shapes of the quantization family -*- C++ -*-===//
//
// Result dims and parameter layouts of the quantization operators
// (QuantizeLinear, DequantizeLinear, MatMulInteger, QLinearMatMul) and of
// the window generators (HannWindow, HammingWindow, BlackmanWindow), as
// OpFoldResults.
//
// The quantized operators keep their input's dims (or MatMul's, from
// matmulShape); what is theirs is the layout of a scale or zero point
// against the tensor it describes: a scalar, a 1-D tensor along one axis
// (per-axis / per-row / per-column), or a tensor of the operand's rank
// broadcast to it. The lengths are checked statically when known, else with
// `onyx.assert`.
//
// A window's length is the *value* of its scalar `size` input: a constant
// when `size` is one, else read with `tensor.extract` at run time (a
// payload-dependent extent, like Range's).
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_SHAPE_QUANTIZATIONSHAPES_H
#define ONYX_SHAPE_QUANTIZATIONSHAPES_H

#include "onyx/Shape/DataMovementShapes.h"

namespace onyx::shape {

/// How a quantization parameter of dims `paramDims` applies to an operand
/// of dims `dims`:
///  - rank 0: per tensor (no kinds);
///  - rank 1 and `axis` < 0: per tensor, its length checked to be 1 (one
///    kind, `One`);
///  - rank 1 and `axis` >= 0: along dim `axis` of the operand, its length
///    equal to that dim or 1 (one kind, against `dims[axis]`);
///  - rank == rank(dims) > 1: unidirectionally broadcast to `dims` (one kind
///    per dim; MatMulInteger's [D1, D2, M, 1] zero points).
/// `what` names the parameter in messages; anything else is an error.
mlir::FailureOr<OperandBroadcast>
quantParamBroadcast(mlir::OpBuilder &b, mlir::Location loc,
                    llvm::ArrayRef<OpFoldResult> paramDims,
                    llvm::ArrayRef<OpFoldResult> dims, int64_t axis,
                    llvm::StringRef what, mlir::Operation *diagOp);

/// Blocked quantization (QuantizeLinear/DequantizeLinear from opset 21,
/// `block_size` > 0): the parameter has the operand's rank and its dims,
/// except along `axis`, where it has ceil(dims[axis] / blockSize) entries
/// (element i of the axis uses entry i / blockSize). Checked statically
/// when known, else with `onyx.assert`; `what` names the parameter.
mlir::LogicalResult checkBlockedParam(mlir::OpBuilder &b, mlir::Location loc,
                                      llvm::ArrayRef<OpFoldResult> paramDims,
                                      llvm::ArrayRef<OpFoldResult> dims,
                                      int64_t axis, int64_t blockSize,
                                      llvm::StringRef what,
                                      mlir::Operation *diagOp);

/// HannWindow / HammingWindow / BlackmanWindow: the output length, the value
/// of the one-entry `size` list clamped at 0 (the operators' function bodies
/// generate Range(0, size, 1), empty for a negative size).
mlir::FailureOr<OpFoldResult> windowLength(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           const IntList &size,
                                           mlir::Operation *diagOp);

} // namespace onyx::shape

#endif // ONYX_SHAPE_QUANTIZATIONSHAPES_H
