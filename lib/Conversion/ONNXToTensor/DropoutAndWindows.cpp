//===- DropoutAndWindows.cpp - Dropout and the window generators ----------===//
//
// Dropout in inference mode is the identity with an all-true mask. Training
// mode draws a random mask whose stream cannot match the reference
// implementation's, so it is refused (statically when training_mode and
// ratio are constants, else by a run-time check); training mode with ratio
// 0 keeps every element and is the identity too.
//
// A window's length is the value of its `size` input (shape::windowLength),
// a data-dependent extent like Range's; each element is computed from its
// index in f64 and converted to `output_datatype`.
//
//===----------------------------------------------------------------------===//

#include "QuantizationCommon.h"

#include "onyx/Shape/QuantizationShapes.h"

#include <cmath>

using namespace mlir;

namespace onyx::conversion::quantization {
namespace {

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerDropout(Operation *op, OpBuilder &b) {
  auto dropout = cast<onnx::ONNXDropoutOp>(op);
  Location loc = op->getLoc();
  Value data = dropout.getData(), ratio = dropout.getRatio(),
        training = dropout.getTrainingMode();
  if (failed(requireRanked(op, data, "the input data")))
    return failure();
  constexpr StringLiteral kRandom =
      "Dropout in training mode with a ratio above 0 draws a random mask, "
      "which is not supported (its random stream cannot match the "
      "reference)";

  // Training mode is off when the input is absent or a constant false.
  std::optional<bool> isTraining = false;
  if (!isAbsent(training)) {
    auto type = requireRanked(op, training, "training_mode");
    if (failed(type))
      return failure();
    if (type->getNumElements() != 1 || !type->getElementType().isInteger(1))
      return op->emitError("training_mode must be a bool scalar");
    isTraining = std::nullopt;
    if (auto values = getConstantInts(training))
      isTraining = (*values)[0] != 0;
  }
  if (isTraining != false) {
    // The ratio defaults to 0.5.
    std::optional<double> knownRatio = 0.5;
    if (!isAbsent(ratio)) {
      auto type = requireRanked(op, ratio, "ratio");
      if (failed(type))
        return failure();
      if (type->getNumElements() != 1 ||
          !isa<FloatType>(type->getElementType()))
        return op->emitError("ratio must be a float scalar");
      knownRatio = getConstantFloat(ratio);
    }
    bool trainingKnown = isTraining.has_value();
    if (trainingKnown && knownRatio) {
      if (*knownRatio > 0.0)
        return op->emitError(kRandom);
    } else {
      // Checked at run time: training_mode && ratio > 0 is refused.
      Value random = trainingKnown ? arith::ConstantIntOp::create(b, loc, 1, 1)
                                   : readFirst(b, loc, training);
      if (!knownRatio) {
        Value r = readFirst(b, loc, ratio);
        Value positive =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, r,
                                  scalarConstant(b, loc, r.getType(), 0.0));
        random = arith::AndIOp::create(b, loc, random, positive);
      } else if (*knownRatio <= 0.0) {
        random = arith::ConstantIntOp::create(b, loc, 0, 1);
      }
      Value ok = arith::XOrIOp::create(
          b, loc, random, arith::ConstantIntOp::create(b, loc, 1, 1));
      shape::IndexMath m(b, loc);
      if (failed(m.require(shape::Cond::of(ok), kRandom, {}, op)))
        return failure();
    }
  }
  // Every element kept: the data itself and an all-true mask.
  SmallVector<Value> results = {data, Value()};
  if (!isa<NoneType>(dropout.getMask().getType()))
    results[1] = filledTensor(b, loc, shape::getDims(b, loc, data),
                              arith::ConstantIntOp::create(b, loc, 1, 1));
  return results;
}

//===----------------------------------------------------------------------===//
// HannWindow, HammingWindow, BlackmanWindow
//===----------------------------------------------------------------------===//

/// The element type of an ONNX TensorProto data type code (numeric types).
std::optional<Type> typeForCode(MLIRContext *ctx, int64_t code) {
  switch (code) {
  case 1:
    return Float32Type::get(ctx);
  case 2:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case 3:
    return IntegerType::get(ctx, 8);
  case 4:
    return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case 5:
    return IntegerType::get(ctx, 16);
  case 6:
    return IntegerType::get(ctx, 32);
  case 7:
    return IntegerType::get(ctx, 64);
  case 10:
    return Float16Type::get(ctx);
  case 11:
    return Float64Type::get(ctx);
  case 12:
    return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case 13:
    return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  case 16:
    return BFloat16Type::get(ctx);
  default:
    return std::nullopt;
  }
}

/// Generalized cosine windows: w[n] = sum_k (-1)^k a_k cos(2 pi k n / N),
/// N = size when periodic, size - 1 when symmetric.
template <typename OpTy>
FailureOr<SmallVector<Value>> lowerWindow(Operation *op, OpBuilder &b,
                                          ArrayRef<double> coefficients) {
  auto window = cast<OpTy>(op);
  Location loc = op->getLoc();
  Value size = window.getSize();
  StringRef name = op->getName().getStringRef().drop_front(5);
  auto sizeType = requireRanked(op, size, "size");
  if (failed(sizeType))
    return failure();
  if (sizeType->getRank() > 1 ||
      !sizeType->getElementType().isSignlessInteger())
    return op->emitError("size must be an integer scalar");
  std::optional<Type> elementType =
      typeForCode(b.getContext(), window.getOutputDatatype());
  if (!elementType)
    return op->emitError() << "output_datatype " << window.getOutputDatatype()
                           << " is not a supported numeric type";

  shape::IntList sizeList = shape::IntList::tensor(size);
  if (auto values = getConstantInts(size))
    sizeList = shape::IntList::constant(*values);
  auto length = shape::windowLength(b, loc, sizeList, op);
  if (failed(length))
    return failure();
  auto dims =
      shape::matchDeclared(b, loc, {*length}, op->getResult(0).getType(),
                           (name + " result 0").str(), op);
  if (failed(dims))
    return failure();

  // N as f64, from the (clamped) length: a negative size gives no elements,
  // so N is never read then.
  Type f64 = b.getF64Type();
  Value n = arith::SIToFPOp::create(
      b, loc, f64,
      arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                 shape::toValue(b, loc, *length)));
  if (window.getPeriodic() == 0)
    n = arith::SubFOp::create(b, loc, n, scalarConstant(b, loc, f64, 1.0));
  Value step =
      arith::DivFOp::create(b, loc, scalarConstant(b, loc, f64, 2.0 * M_PI), n);

  Type outType = *elementType;
  Value init = emptyTensor(b, loc, *dims, outType);
  auto map = AffineMap::getMultiDimIdentityMap(1, b.getContext());
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{map}, ArrayRef<IteratorType>{IteratorType::parallel},
      [&](OpBuilder &nb, Location nl, ValueRange) {
        Value i = arith::IndexCastOp::create(
            nb, nl, nb.getI64Type(), linalg::IndexOp::create(nb, nl, 0));
        Value angle = arith::MulFOp::create(
            nb, nl, arith::SIToFPOp::create(nb, nl, f64, i), step);
        Value w = scalarConstant(nb, nl, f64, coefficients[0]);
        for (size_t k = 1; k < coefficients.size(); ++k) {
          Value x = k == 1 ? angle
                           : arith::MulFOp::create(
                                 nb, nl, angle,
                                 scalarConstant(nb, nl, f64, double(k)))
                                 .getResult();
          Value c = math::CosOp::create(nb, nl, x);
          Value term = arith::MulFOp::create(
              nb, nl, scalarConstant(nb, nl, f64, coefficients[k]), c);
          w = k % 2 ? arith::SubFOp::create(nb, nl, w, term).getResult()
                    : arith::AddFOp::create(nb, nl, w, term).getResult();
        }
        Value out;
        if (isa<FloatType>(outType)) {
          out = toFloat(nb, nl, w, outType);
        } else {
          Type signless = signlessOf(outType);
          out = isUnsignedInt(outType)
                    ? arith::FPToUIOp::create(nb, nl, signless, w).getResult()
                    : arith::FPToSIOp::create(nb, nl, signless, w).getResult();
          out = castScalar(nb, nl, out, outType);
        }
        linalg::YieldOp::create(nb, nl, out);
      });
  return SmallVector<Value>{generic.getResult(0)};
}

} // namespace

void addDropoutAndWindowLowerings(LoweringTable &t) {
  t["onnx.Dropout"] = lowerDropout;
  t["onnx.HannWindow"] = [](Operation *op, OpBuilder &b) {
    return lowerWindow<onnx::ONNXHannWindowOp>(op, b, {0.5, 0.5});
  };
  t["onnx.HammingWindow"] = [](Operation *op, OpBuilder &b) {
    return lowerWindow<onnx::ONNXHammingWindowOp>(op, b,
                                                  {25.0 / 46.0, 21.0 / 46.0});
  };
  t["onnx.BlackmanWindow"] = [](Operation *op, OpBuilder &b) {
    return lowerWindow<onnx::ONNXBlackmanWindowOp>(op, b, {0.42, 0.5, 0.08});
  };
}

} // namespace onyx::conversion::quantization
