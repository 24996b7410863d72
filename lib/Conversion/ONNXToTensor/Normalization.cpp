//===- Normalization.cpp - Softmax and LogSoftmax -------------------------===//
//
// Opset-13 semantics: normalize along one axis. Three generics: the max
// along the axis, the sum of exp(x - max), and the normalized result.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;

namespace onyx::conversion {
namespace {

template <bool IsLog>
FailureOr<SmallVector<Value>> lowerSoftmax(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  Value input = op->getOperand(0);
  auto type = requireRanked(op, input, "the input");
  if (failed(type))
    return failure();
  auto elementType = dyn_cast<FloatType>(type->getElementType());
  if (!elementType)
    return op->emitError("expects a floating-point input");
  int64_t rank = type->getRank();
  int64_t axisAttr = op->getAttrOfType<IntegerAttr>("axis")
                         ? op->getAttrOfType<IntegerAttr>("axis").getInt()
                         : -1;
  if (rank == 0)
    return op->emitError("expects an input of rank >= 1");
  auto axis = normalizeAxis(op, axisAttr, rank);
  if (failed(axis))
    return failure();

  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, input);
  SmallVector<OpFoldResult> reducedDims = shape::dropDim(dims, *axis);
  SmallVector<int64_t> allLoops = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  SmallVector<int64_t> reducedLoops;
  for (int64_t i = 0; i < rank; ++i)
    if (i != *axis)
      reducedLoops.push_back(i);
  SmallVector<utils::IteratorType> reduceIters(rank,
                                               utils::IteratorType::parallel);
  reduceIters[*axis] = utils::IteratorType::reduction;
  SmallVector<utils::IteratorType> parallelIters(
      rank, utils::IteratorType::parallel);

  OperandAccess x = identityAccess(input);
  auto reducedAccess = [&](Value t) {
    OperandAccess a;
    a.tensor = t;
    a.loops = reducedLoops;
    a.isOne.assign(reducedLoops.size(), Value());
    return a;
  };

  Value negInf = arith::ConstantOp::create(
      b, loc,
      b.getFloatAttr(elementType,
                     APFloat::getInf(elementType.getFloatSemantics(), true)));
  Value maxInit = filledTensor(b, loc, reducedDims, negInf);
  Value max = buildGeneric(
      b, loc, {x}, maxInit, reducedLoops, reduceIters,
      [](OpBuilder &nb, Location nl, ValueRange in, Value acc) {
        return arith::MaximumFOp::create(nb, nl, acc, in[0]);
      });

  Value zero = scalarConstant(b, loc, elementType, 0.0);
  Value sumInit = filledTensor(b, loc, reducedDims, zero);
  Value sum = buildGeneric(
      b, loc, {x, reducedAccess(max)}, sumInit, reducedLoops, reduceIters,
      [](OpBuilder &nb, Location nl, ValueRange in, Value acc) {
        Value e = math::ExpOp::create(
            nb, nl, arith::SubFOp::create(nb, nl, in[0], in[1]));
        return arith::AddFOp::create(nb, nl, acc, e);
      });

  Value init = emptyTensor(b, loc, dims, elementType);
  Value result = buildGeneric(
      b, loc, {x, reducedAccess(max), reducedAccess(sum)}, init, allLoops,
      parallelIters, [](OpBuilder &nb, Location nl, ValueRange in, Value) {
        Value shifted = arith::SubFOp::create(nb, nl, in[0], in[1]);
        if (IsLog)
          return arith::SubFOp::create(nb, nl, shifted,
                                       math::LogOp::create(nb, nl, in[2]))
              .getResult();
        return arith::DivFOp::create(nb, nl,
                                     math::ExpOp::create(nb, nl, shifted),
                                     in[2])
            .getResult();
      });
  return SmallVector<Value>{result};
}

} // namespace

void addNormalizationLowerings(LoweringTable &t) {
  t["onnx.Softmax"] = lowerSoftmax<false>;
  t["onnx.LogSoftmax"] = lowerSoftmax<true>;
}

} // namespace onyx::conversion
