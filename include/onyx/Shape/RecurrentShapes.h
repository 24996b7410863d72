//===- RecurrentShapes.h - Result dims of RNN, GRU and LSTM -----*- C++ -*-===//
//
// The recurrent ops' result dims and the consistency of their operands:
// X is [seq, batch, input] (layout 0) or [batch, seq, input] (layout 1),
// W [dirs, gates*hidden, input], R [dirs, gates*hidden, hidden], B
// [dirs, 2*gates*hidden], sequence_lens [batch], initial_h/initial_c
// [dirs, batch, hidden] (layout 1: [batch, dirs, hidden]), P [dirs,
// 3*hidden]. Extents that cannot be proven to agree are checked at run
// time, so the lowering can index every operand freely.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_SHAPE_RECURRENTSHAPES_H
#define ONYX_SHAPE_RECURRENTSHAPES_H

#include "onyx/Shape/ShapeHelpers.h"

namespace onyx::shape {

/// The optional operands of a recurrent op (null when absent).
struct RecurrentOperands {
  mlir::Value x, w, r, bias, sequenceLens, initialH, initialC, peepholes;
};

struct RecurrentShape {
  int64_t numDirections = 1;
  /// Extents of the computation.
  OpFoldResult seqLength, batch, inputSize, hidden;
  /// gates * hidden (rows of W and R).
  OpFoldResult gateRows;
  /// Result dims with the layout applied: Y is [seq, dirs, batch, hidden]
  /// (layout 1: [batch, seq, dirs, hidden]); Y_h and Y_c are [dirs, batch,
  /// hidden] (layout 1: [batch, dirs, hidden]).
  llvm::SmallVector<OpFoldResult> y, yH;
  /// The state dims [dirs, batch, hidden] the recurrence carries.
  llvm::SmallVector<OpFoldResult> state;
};

/// `numGates`: 1 (RNN), 3 (GRU), 4 (LSTM). `hiddenSize`: the attribute if
/// present (else R's last dim). Operand ranks and static mismatches are
/// reported on `diagOp`; the rest is checked at run time.
mlir::FailureOr<RecurrentShape>
recurrentShape(mlir::OpBuilder &b, mlir::Location loc,
               const RecurrentOperands &operands, int64_t numGates,
               std::optional<int64_t> hiddenSize, int64_t numDirections,
               int64_t layout, mlir::Operation *diagOp);

} // namespace onyx::shape

#endif // ONYX_SHAPE_RECURRENTSHAPES_H
