//===- RecurrentShapes.cpp - Result dims of RNN, GRU and LSTM -------------===//
//
// The extents come from X (sequence, batch, input) and from the
// hidden_size attribute (else R's last dim); every other operand is checked
// against them, statically where both sides are known and with
// `onyx.assert` otherwise, so a malformed model is a clean error instead of
// an out-of-bounds read in the recurrence.
//
//===----------------------------------------------------------------------===//

#include "onyx/Shape/RecurrentShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace onyx::shape {
namespace {

bool present(Value v) { return v && !isa<NoneType>(v.getType()); }

/// Checks that `value` has rank `rank` and extents `expected`.
LogicalResult checkOperand(OpBuilder &b, Location loc, Value value,
                           StringRef name, ArrayRef<OpFoldResult> expected,
                           Operation *diagOp) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return diagOp->emitError() << name << " has unknown rank";
  if (type.getRank() != int64_t(expected.size()))
    return diagOp->emitError() << name << " has rank " << type.getRank()
                               << ", expected " << expected.size();
  for (auto [i, e] : llvm::enumerate(expected)) {
    std::string what = (name + " dim " + Twine(i)).str();
    if (failed(checkEqual(b, loc, getDim(b, loc, value, int64_t(i)), e, what,
                          diagOp)))
      return failure();
  }
  return success();
}

} // namespace

FailureOr<RecurrentShape>
recurrentShape(OpBuilder &b, Location loc, const RecurrentOperands &ops,
               int64_t numGates, std::optional<int64_t> hiddenSize,
               int64_t numDirections, int64_t layout, Operation *diagOp) {
  if (layout != 0 && layout != 1)
    return diagOp->emitError() << "layout " << layout << " is not 0 or 1";
  auto xType = dyn_cast<RankedTensorType>(ops.x.getType());
  if (!xType || xType.getRank() != 3)
    return diagOp->emitError("X must have rank 3");
  auto rType = dyn_cast<RankedTensorType>(ops.r.getType());
  if (!rType || rType.getRank() != 3)
    return diagOp->emitError("R must have rank 3");

  RecurrentShape s;
  s.numDirections = numDirections;
  s.seqLength = getDim(b, loc, ops.x, layout == 0 ? 0 : 1);
  s.batch = getDim(b, loc, ops.x, layout == 0 ? 1 : 0);
  s.inputSize = getDim(b, loc, ops.x, 2);
  if (hiddenSize) {
    if (*hiddenSize <= 0)
      return diagOp->emitError()
             << "hidden_size " << *hiddenSize << " is not positive";
    s.hidden = b.getIndexAttr(*hiddenSize);
  } else {
    s.hidden = getDim(b, loc, ops.r, 2);
  }
  OpFoldResult dirs = b.getIndexAttr(numDirections);
  s.gateRows = productOf(b, loc, {b.getIndexAttr(numGates), s.hidden});

  if (failed(checkOperand(b, loc, ops.w, "W", {dirs, s.gateRows, s.inputSize},
                          diagOp)) ||
      failed(checkOperand(b, loc, ops.r, "R", {dirs, s.gateRows, s.hidden},
                          diagOp)))
    return failure();
  if (present(ops.bias) &&
      failed(checkOperand(
          b, loc, ops.bias, "B",
          {dirs, productOf(b, loc, {b.getIndexAttr(2), s.gateRows})}, diagOp)))
    return failure();
  if (present(ops.sequenceLens) &&
      failed(checkOperand(b, loc, ops.sequenceLens, "sequence_lens", {s.batch},
                          diagOp)))
    return failure();

  s.state = {dirs, s.batch, s.hidden};
  s.yH = layout == 0 ? s.state
                     : SmallVector<OpFoldResult>{s.batch, dirs, s.hidden};
  s.y = layout == 0
            ? SmallVector<OpFoldResult>{s.seqLength, dirs, s.batch, s.hidden}
            : SmallVector<OpFoldResult>{s.batch, s.seqLength, dirs, s.hidden};
  if (present(ops.initialH) &&
      failed(checkOperand(b, loc, ops.initialH, "initial_h", s.yH, diagOp)))
    return failure();
  if (present(ops.initialC) &&
      failed(checkOperand(b, loc, ops.initialC, "initial_c", s.yH, diagOp)))
    return failure();
  if (present(ops.peepholes) &&
      failed(checkOperand(
          b, loc, ops.peepholes, "P",
          {dirs, productOf(b, loc, {b.getIndexAttr(3), s.hidden})}, diagOp)))
    return failure();
  return s;
}

} // namespace onyx::shape
