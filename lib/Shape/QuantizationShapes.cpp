//===- QuantizationShapes.cpp - Shapes of the quantization family ---------===//
//
// Parameter layouts of the quantized operators and window lengths; see
// QuantizationShapes.h.
//
//===----------------------------------------------------------------------===//

#include "onyx/Shape/QuantizationShapes.h"

using namespace mlir;

namespace onyx::shape {

FailureOr<OperandBroadcast>
quantParamBroadcast(OpBuilder &b, Location loc,
                    ArrayRef<OpFoldResult> paramDims,
                    ArrayRef<OpFoldResult> dims, int64_t axis, StringRef what,
                    Operation *diagOp) {
  int64_t rank = int64_t(paramDims.size());
  if (rank == 0)
    return OperandBroadcast();
  if (rank == 1 && axis < 0) {
    // Per tensor: a one-entry vector. Reading entry 0 is right once the
    // length is known to be 1.
    if (failed(checkEqual(b, loc, paramDims[0], b.getIndexAttr(1),
                          (what + " length vs 1").str(), diagOp)))
      return failure();
    OperandBroadcast one;
    one.kinds = {BroadcastKind::One};
    one.isOne = {Value()};
    return one;
  }
  if (rank == 1) {
    // Along `axis`: as many entries as the axis extent, or one (broadcast).
    assert(axis < int64_t(dims.size()) && "axis out of range");
    OpFoldResult length = paramDims[0], extent = dims[axis];
    OperandBroadcast along;
    along.isOne = {Value()};
    if (provablyEqual(length, extent)) {
      along.kinds = {BroadcastKind::Equal};
      return along;
    }
    if (getStatic(length) == 1) {
      along.kinds = {BroadcastKind::One};
      return along;
    }
    IndexMath m(b, loc);
    Cond isOne = m.eq(length, m.cst(1));
    if (failed(m.require(m.orOf(m.eq(length, extent), isOne),
                         (what + " has {0} entries but axis " +
                          std::to_string(axis) + " has extent {1}")
                             .str(),
                         {length, extent}, diagOp)))
      return failure();
    // A static length other than 1 now equals the extent (just asserted).
    if (isOne.isFalse()) {
      along.kinds = {BroadcastKind::Equal};
      return along;
    }
    along.kinds = {BroadcastKind::Runtime};
    along.isOne = {m.value(isOne)};
    return along;
  }
  if (rank == int64_t(dims.size()))
    return broadcastTo(b, loc, paramDims, dims, diagOp);
  return diagOp->emitError()
         << what << " of rank " << rank
         << " is neither a scalar, a 1-D tensor nor of the operand's rank "
         << dims.size();
}

LogicalResult checkBlockedParam(OpBuilder &b, Location loc,
                                ArrayRef<OpFoldResult> paramDims,
                                ArrayRef<OpFoldResult> dims, int64_t axis,
                                int64_t blockSize, StringRef what,
                                Operation *diagOp) {
  assert(blockSize > 0 && axis >= 0 && axis < int64_t(dims.size()) &&
         "bad blocked quantization arguments");
  if (paramDims.size() != dims.size())
    return diagOp->emitError()
           << what << " has rank " << paramDims.size()
           << ", but blocked quantization needs the input's rank "
           << dims.size();
  IndexMath m(b, loc);
  for (int64_t d = 0; d < int64_t(dims.size()); ++d) {
    OpFoldResult want = d == axis ? m.ceilDiv(dims[d], m.cst(blockSize))
                                  : dims[d];
    std::string message =
        (what + " dim " + std::to_string(d) + " is {0}, but " +
         (d == axis ? "block_size " + std::to_string(blockSize) +
                          " along axis " + std::to_string(axis) +
                          " needs {1} blocks"
                    : std::string("the input has {1}")))
            .str();
    if (failed(m.require(m.eq(paramDims[d], want), message,
                         {paramDims[d], want}, diagOp)))
      return failure();
  }
  return success();
}

FailureOr<OpFoldResult> windowLength(OpBuilder &b, Location loc,
                                     const IntList &size, Operation *diagOp) {
  IndexMath m(b, loc);
  if (failed(size.requireSize(m, 1, "window size", diagOp)))
    return failure();
  return m.max(size.get(m, 0), m.cst(0));
}

} // namespace onyx::shape
