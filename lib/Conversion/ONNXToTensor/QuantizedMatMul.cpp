//===- QuantizedMatMul.cpp - MatMulInteger and QLinearMatMul --------------===//
//
// MatMulInteger and QLinearMatMul are GEMM-class work and must reach BLAS
// (LowerContractionsToBLAS handles f32/f64 contractions only). The operands
// minus their zero points are widened to f64 and multiplied by the ordinary
// MatMul lowering (the same contraction generic, shape::matmulShape, batch
// broadcasting), which the CPU backend sends to cblas_dgemm. This is exact:
// each product of two zero-point-adjusted 8-bit values has magnitude at most
// 255 * 255 < 2^16, so any sum of fewer than 2^37 of them is an integer
// below 2^53, represented exactly by f64 whatever the summation order. The
// f64 result is converted back to i32 (MatMulInteger) or requantized
// (QLinearMatMul).
//
// Scales and zero points are read as Quantization.cpp's paramAccess says
// (QuantizationCommon.h).
//
//===----------------------------------------------------------------------===//

#include "QuantizationCommon.h"

using namespace mlir;

namespace onyx::conversion::quantization {
namespace {

//===----------------------------------------------------------------------===//
// MatMulInteger, QLinearMatMul
//===----------------------------------------------------------------------===//

/// `t` (8-bit) minus its zero point, as f64. The zero point is a scalar, a
/// vector along `axis` (A's rows, B's columns; -1 when the operand has no
/// such dim) or of t's rank.
FailureOr<Value> widenMinusZeroPoint(Operation *op, OpBuilder &b, Value t,
                                     Value zeroPoint, int64_t axis,
                                     StringRef what) {
  Location loc = op->getLoc();
  auto type = requireRanked(op, t, what);
  if (failed(type))
    return failure();
  if (failed(require8Bit(op, type->getElementType(), what)))
    return failure();
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, t);
  SmallVector<OperandAccess> inputs = {identityAccess(t)};
  std::string zpWhat = ("the zero point of " + what).str();
  if (!isAbsent(zeroPoint)) {
    auto zpType = requireRanked(op, zeroPoint, zpWhat);
    if (failed(zpType))
      return failure();
    if (zpType->getElementType() != type->getElementType())
      return op->emitError()
             << zpWhat << " must have element type " << type->getElementType()
             << "; it is " << zeroPoint.getType();
    auto access = paramAccess(op, b, zeroPoint, zpWhat, dims, axis);
    if (failed(access))
      return failure();
    inputs.push_back(*access);
  }
  Type f64 = b.getF64Type();
  int64_t rank = type->getRank();
  return buildGeneric(
      b, loc, inputs, emptyTensor(b, loc, dims, f64), iota(rank),
      SmallVector<IteratorType>(rank, IteratorType::parallel),
      [&](OpBuilder &nb, Location nl, ValueRange in, Value) -> Value {
        Value v = toFloat(nb, nl, in[0], f64);
        if (in.size() > 1)
          v = arith::SubFOp::create(nb, nl, v, toFloat(nb, nl, in[1], f64));
        return v;
      });
}

/// The f64 product of two f64 tensors by the ordinary MatMul lowering: a
/// detached onnx.MatMul on them is lowered with the table's entry (the
/// contraction generic that the CPU backend sends to BLAS) and dropped.
FailureOr<Value> matmulF64(Operation *op, OpBuilder &b, Value lhs, Value rhs) {
  static const LoweringTable table = [] {
    LoweringTable t;
    addLinearAlgebraLowerings(t);
    return t;
  }();
  OpBuilder detached(b.getContext());
  auto matmul = onnx::ONNXMatMulOp::create(
      detached, op->getLoc(), UnrankedTensorType::get(b.getF64Type()), lhs,
      rhs);
  FailureOr<SmallVector<Value>> product =
      table.lookup("onnx.MatMul")(matmul, b);
  matmul->erase();
  if (failed(product))
    return failure();
  return (*product)[0];
}

/// Where A's rows and B's columns are among the operand dims (-1 for a
/// vector operand, which has none).
int64_t rowAxis(Value a) {
  int64_t rank = cast<RankedTensorType>(a.getType()).getRank();
  return rank >= 2 ? rank - 2 : -1;
}
int64_t columnAxis(Value bMat) {
  int64_t rank = cast<RankedTensorType>(bMat.getType()).getRank();
  return rank >= 2 ? rank - 1 : -1;
}

FailureOr<SmallVector<Value>> lowerMatMulInteger(Operation *op, OpBuilder &b) {
  auto mmi = cast<onnx::ONNXMatMulIntegerOp>(op);
  Location loc = op->getLoc();
  Value a = mmi.getA(), bMat = mmi.getB();
  if (failed(requireRanked(op, a, "input A")) ||
      failed(requireRanked(op, bMat, "input B")))
    return failure();
  auto lhs =
      widenMinusZeroPoint(op, b, a, mmi.getAZeroPoint(), rowAxis(a), "input A");
  if (failed(lhs))
    return failure();
  auto rhs = widenMinusZeroPoint(op, b, bMat, mmi.getBZeroPoint(),
                                 columnAxis(bMat), "input B");
  if (failed(rhs))
    return failure();
  auto product = matmulF64(op, b, *lhs, *rhs);
  if (failed(product))
    return failure();
  // Exact integers in f64 (see the file header) back to i32.
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, *product);
  int64_t rank = int64_t(dims.size());
  Type i32 = b.getI32Type();
  Value result = buildGeneric(
      b, loc, {identityAccess(*product)}, emptyTensor(b, loc, dims, i32),
      iota(rank), SmallVector<IteratorType>(rank, IteratorType::parallel),
      [&](OpBuilder &nb, Location nl, ValueRange in, Value) -> Value {
        return arith::FPToSIOp::create(nb, nl, i32, in[0]);
      });
  return SmallVector<Value>{result};
}

FailureOr<SmallVector<Value>> lowerQLinearMatMul(Operation *op, OpBuilder &b) {
  auto qmm = cast<onnx::ONNXQLinearMatMulOp>(op);
  Location loc = op->getLoc();
  Value a = qmm.getA(), bMat = qmm.getB();
  auto aType = requireRanked(op, a, "input a");
  auto bType = requireRanked(op, bMat, "input b");
  auto yzpType = requireRanked(op, qmm.getYZeroPoint(), "y_zero_point");
  if (failed(aType) || failed(bType) || failed(yzpType))
    return failure();
  auto yInt = require8Bit(op, yzpType->getElementType(), "y_zero_point");
  if (failed(yInt))
    return failure();
  for (auto [scale, what] :
       {std::pair<Value, StringRef>{qmm.getAScale(), "a_scale"},
        {qmm.getBScale(), "b_scale"},
        {qmm.getYScale(), "y_scale"}}) {
    auto type = requireRanked(op, scale, what);
    if (failed(type))
      return failure();
    if (!type->getElementType().isF32())
      return op->emitError()
             << what << " must be f32; it is " << scale.getType();
  }
  auto lhs =
      widenMinusZeroPoint(op, b, a, qmm.getAZeroPoint(), rowAxis(a), "input a");
  if (failed(lhs))
    return failure();
  auto rhs = widenMinusZeroPoint(op, b, bMat, qmm.getBZeroPoint(),
                                 columnAxis(bMat), "input b");
  if (failed(rhs))
    return failure();
  auto product = matmulF64(op, b, *lhs, *rhs);
  if (failed(product))
    return failure();

  // Requantize: y = saturate(round_half_even(acc * (a_scale * b_scale /
  // y_scale)) + y_zero_point) in f32, as QLinearConv does. a's and y's
  // parameters may be per row (the result's m loop), b's per column (n).
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, *product);
  int64_t rank = int64_t(dims.size());
  bool lhsIsVector = aType->getRank() == 1, rhsIsVector = bType->getRank() == 1;
  int64_t nLoop = rhsIsVector ? -1 : rank - 1;
  int64_t mLoop = lhsIsVector ? -1 : (rhsIsVector ? rank - 1 : rank - 2);
  auto aScale = paramAccess(op, b, qmm.getAScale(), "a_scale", dims, mLoop);
  auto bScale = paramAccess(op, b, qmm.getBScale(), "b_scale", dims, nLoop);
  auto yScale = paramAccess(op, b, qmm.getYScale(), "y_scale", dims, mLoop);
  auto yZero =
      paramAccess(op, b, qmm.getYZeroPoint(), "y_zero_point", dims, mLoop);
  if (failed(aScale) || failed(bScale) || failed(yScale) || failed(yZero))
    return failure();
  Type f32 = b.getF32Type();
  Value result = buildGeneric(
      b, loc, {identityAccess(*product), *aScale, *bScale, *yScale, *yZero},
      emptyTensor(b, loc, dims, *yInt), iota(rank),
      SmallVector<IteratorType>(rank, IteratorType::parallel),
      [&](OpBuilder &nb, Location nl, ValueRange in, Value) -> Value {
        Value scale = arith::DivFOp::create(
            nb, nl, arith::MulFOp::create(nb, nl, in[1], in[2]), in[3]);
        Value acc = arith::TruncFOp::create(nb, nl, f32, in[0]);
        Value r = math::RoundEvenOp::create(
            nb, nl, arith::MulFOp::create(nb, nl, acc, scale));
        r = arith::AddFOp::create(nb, nl, r, toFloat(nb, nl, in[4], f32));
        return saturateTo(nb, nl, r, *yInt);
      });
  return SmallVector<Value>{result};
}

} // namespace

void addQuantizedMatMulLowerings(LoweringTable &t) {
  t["onnx.MatMulInteger"] = lowerMatMulInteger;
  t["onnx.QLinearMatMul"] = lowerQLinearMatMul;
}

} // namespace onyx::conversion::quantization
