//===- LinearAlgebra.cpp - MatMul and Gemm --------------------------------===//
//
// Both lower to one contraction linalg.generic (batch dims broadcast like
// elementwise operands), plus an epilogue for Gemm's alpha/beta/C.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;

namespace onyx::conversion {
namespace {

Value multiplyAdd(OpBuilder &b, Location l, Value x, Value y, Value acc) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, l, acc, arith::MulFOp::create(b, l, x, y));
  return arith::AddIOp::create(b, l, acc, arith::MulIOp::create(b, l, x, y));
}

FailureOr<SmallVector<Value>> lowerMatMul(Operation *op, OpBuilder &b) {
  auto matmul = cast<onnx::ONNXMatMulOp>(op);
  Location loc = op->getLoc();
  Value lhs = matmul.getA(), rhs = matmul.getB();
  auto lhsType = requireRanked(op, lhs, "input A");
  auto rhsType = requireRanked(op, rhs, "input B");
  if (failed(lhsType) || failed(rhsType))
    return failure();
  Type elementType = lhsType->getElementType();
  if (failed(requireSupportedElement(op, elementType)))
    return failure();
  if (rhsType->getElementType() != elementType)
    return op->emitError("A and B have different element types");

  auto shape = shape::matmulShape(b, loc, lhs, rhs, op);
  if (failed(shape))
    return failure();
  int64_t batchRank = int64_t(shape->batch.dims.size());
  // Loops: batch..., [m], [n], k.
  int64_t loop = batchRank;
  int64_t mLoop = shape->lhsIsVector ? -1 : loop++;
  int64_t nLoop = shape->rhsIsVector ? -1 : loop++;
  int64_t kLoop = loop++;

  // An operand whose batch dims broadcast only at run time is first
  // expanded to the result's batch dims, so that every loop of the
  // contraction is bounded by an operand read through an indexing map.
  auto expandBatch = [&](Value operand,
                         const shape::OperandBroadcast &bc) -> Value {
    if (llvm::none_of(bc.kinds, [](shape::BroadcastKind k) {
          return k == shape::BroadcastKind::Runtime;
        }))
      return operand;
    auto type = cast<RankedTensorType>(operand.getType());
    int64_t trailing = type.getRank() - int64_t(bc.kinds.size());
    OperandAccess access = broadcastAccess(operand, bc, batchRank);
    SmallVector<OpFoldResult> dims = shape->batch.dims;
    SmallVector<OpFoldResult> own = shape::getDims(b, loc, operand);
    for (int64_t i = 0; i < trailing; ++i) {
      access.loops.push_back(batchRank + i);
      access.isOne.push_back(Value());
      dims.push_back(own[bc.kinds.size() + i]);
    }
    int64_t rank = batchRank + trailing;
    SmallVector<int64_t> loops = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    Value init = emptyTensor(b, loc, dims, elementType);
    return buildGeneric(
        b, loc, {access}, init, loops, iters,
        [](OpBuilder &, Location, ValueRange in, Value) { return in[0]; });
  };
  shape::OperandBroadcast equalBatch;
  equalBatch.kinds.assign(batchRank, shape::BroadcastKind::Equal);
  equalBatch.isOne.assign(batchRank, Value());
  Value lhsExpanded = expandBatch(lhs, shape->batch.operands[0]);
  Value rhsExpanded = expandBatch(rhs, shape->batch.operands[1]);
  OperandAccess a = broadcastAccess(
      lhsExpanded, lhsExpanded == lhs ? shape->batch.operands[0] : equalBatch,
      batchRank);
  if (!shape->lhsIsVector) {
    a.loops.push_back(mLoop);
    a.isOne.push_back(Value());
  }
  a.loops.push_back(kLoop);
  a.isOne.push_back(Value());

  OperandAccess c = broadcastAccess(
      rhsExpanded, rhsExpanded == rhs ? shape->batch.operands[1] : equalBatch,
      batchRank);
  c.loops.push_back(kLoop);
  c.isOne.push_back(Value());
  if (!shape->rhsIsVector) {
    c.loops.push_back(nLoop);
    c.isOne.push_back(Value());
  }

  SmallVector<int64_t> outLoops =
      llvm::to_vector(llvm::seq<int64_t>(0, batchRank));
  if (mLoop >= 0)
    outLoops.push_back(mLoop);
  if (nLoop >= 0)
    outLoops.push_back(nLoop);
  SmallVector<utils::IteratorType> iterators(loop,
                                             utils::IteratorType::parallel);
  iterators[kLoop] = utils::IteratorType::reduction;

  Value init = filledTensor(b, loc, shape->dims,
                            scalarConstant(b, loc, elementType, 0.0));
  Value result =
      buildGeneric(b, loc, {a, c}, init, outLoops, iterators,
                   [](OpBuilder &nb, Location nl, ValueRange in, Value acc) {
                     return multiplyAdd(nb, nl, in[0], in[1], acc);
                   });
  return SmallVector<Value>{result};
}

FailureOr<SmallVector<Value>> lowerGemm(Operation *op, OpBuilder &b) {
  auto gemm = cast<onnx::ONNXGemmOp>(op);
  Location loc = op->getLoc();
  auto aType = requireRanked(op, gemm.getA(), "input A");
  auto bType = requireRanked(op, gemm.getB(), "input B");
  if (failed(aType) || failed(bType))
    return failure();
  Type elementType = aType->getElementType();
  if (!isa<FloatType>(elementType))
    return op->emitError() << "Gemm on " << elementType
                           << " is not supported yet";
  bool transA = gemm.getTransA() != 0, transB = gemm.getTransB() != 0;
  auto shape =
      shape::gemmShape(b, loc, gemm.getA(), gemm.getB(), transA, transB, op);
  if (failed(shape))
    return failure();

  // Loops: m, n, k.
  OperandAccess a;
  a.tensor = gemm.getA();
  a.loops = transA ? SmallVector<int64_t>{2, 0} : SmallVector<int64_t>{0, 2};
  a.isOne = {Value(), Value()};
  OperandAccess bm;
  bm.tensor = gemm.getB();
  bm.loops = transB ? SmallVector<int64_t>{1, 2} : SmallVector<int64_t>{2, 1};
  bm.isOne = {Value(), Value()};
  SmallVector<OpFoldResult> outDims = {shape->m, shape->n};
  Value zero = scalarConstant(b, loc, elementType, 0.0);
  Value init = filledTensor(b, loc, outDims, zero);
  Value product = buildGeneric(
      b, loc, {a, bm}, init, {0, 1},
      {utils::IteratorType::parallel, utils::IteratorType::parallel,
       utils::IteratorType::reduction},
      [](OpBuilder &nb, Location nl, ValueRange in, Value acc) {
        return multiplyAdd(nb, nl, in[0], in[1], acc);
      });

  double alpha = gemm.getAlpha().convertToDouble();
  double beta = gemm.getBeta().convertToDouble();
  Value c = gemm.getC();
  bool hasC = !isa<NoneType>(c.getType()) && beta != 0.0;
  if (alpha == 1.0 && !hasC)
    return SmallVector<Value>{product};

  // Epilogue: alpha * product + beta * C (C broadcast to (M, N)).
  SmallVector<OperandAccess> inputs = {identityAccess(product)};
  if (hasC) {
    auto cType = requireRanked(op, c, "input C");
    if (failed(cType))
      return failure();
    auto bc = shape::broadcastTo(b, loc, shape::getDims(b, loc, c), outDims, op,
                                 /*operandIndex=*/2);
    if (failed(bc))
      return failure();
    inputs.push_back(broadcastAccess(c, *bc, 2));
  }
  Value alphaV = scalarConstant(b, loc, elementType, alpha);
  Value betaV = scalarConstant(b, loc, elementType, beta);
  Value result = buildGeneric(
      b, loc, inputs, emptyTensor(b, loc, outDims, elementType), {0, 1},
      {utils::IteratorType::parallel, utils::IteratorType::parallel},
      [&](OpBuilder &nb, Location nl, ValueRange in, Value) {
        Value v = arith::MulFOp::create(nb, nl, alphaV, in[0]);
        if (in.size() > 1)
          v = arith::AddFOp::create(
              nb, nl, v, arith::MulFOp::create(nb, nl, betaV, in[1]));
        return v;
      });
  return SmallVector<Value>{result};
}

} // namespace

void addLinearAlgebraLowerings(LoweringTable &t) {
  t["onnx.MatMul"] = lowerMatMul;
  t["onnx.Gemm"] = lowerGemm;
}

} // namespace onyx::conversion
