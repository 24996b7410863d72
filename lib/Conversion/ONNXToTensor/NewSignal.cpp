//===- NewSignal.cpp - DFT, STFT and MelWeightMatrix ----------------------===//
//
//   DFT (20)              a direct O(N^2) transform: one generic over the
//                         result with a reduction over the input positions
//                         along the axis (a run-time axis is allowed);
//                         forward, inverse (1 / L), RFFT (onesided) and
//                         IRFFT (onesided inverse: the Hermitian half
//                         counted twice, real result)
//   STFT (17)             the same per frame: frame f reads positions
//                         f * step + n, weighted by the window
//   MelWeightMatrix (17)  each element from its (bin, mel) indices: the
//                         triangular filters of the reference
//
// Sums and angles are f64; the angle of k * n is 2 pi ((k n) mod L) / L,
// exact in the index arithmetic, so long transforms lose no precision.
// Shapes: lib/Shape/NewOperatorShapes.cpp (dftShape, stftShape,
// melWeightMatrixShape).
//
//===----------------------------------------------------------------------===//

#include "NewOperators.h"

#include "onyx/Shape/NewOperatorShapes.h"


using namespace mlir;

namespace onyx::conversion {
namespace {

using namespace newops;

Value f64Of(OpBuilder &b, Location loc, Value index) {
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  return arith::SIToFPOp::create(b, loc, b.getF64Type(), i64);
}

/// cos and sin of 2 pi ((k * n) mod length) / length.
std::pair<Value, Value> twiddle(OpBuilder &b, Location loc, Value k, Value n,
                                Value length) {
  Value product = arith::MulIOp::create(b, loc, k, n);
  Value r = arith::RemUIOp::create(b, loc, product, length);
  Value angle = arith::DivFOp::create(
      b, loc,
      arith::MulFOp::create(b, loc,
                            scalarConstant(b, loc, b.getF64Type(),
                                           2.0 * 3.14159265358979323846),
                            f64Of(b, loc, r)),
      f64Of(b, loc, length));
  return {math::CosOp::create(b, loc, angle), math::SinOp::create(b, loc, angle)};
}

/// A generic over `dims` whose f64 result sums `term` over `terms`
/// reduction steps (a loop bounded by a tensor that is never read).
Value sumGeneric(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> dims,
                 OpFoldResult terms,
                 llvm::function_ref<Value(OpBuilder &, Location, ValueRange ivs,
                                          Value t)>
                     term) {
  int64_t rank = int64_t(dims.size());
  Value window = emptyTensor(b, loc, {terms}, b.getI8Type());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Type f64 = b.getF64Type();
  Value init = filledTensor(b, loc, dims, scalarConstant(b, loc, f64, 0.0));
  return buildGeneric(
      b, loc, {projectedAccess(window, {rank})}, init,
      llvm::to_vector(llvm::seq<int64_t>(0, rank)), iterators,
      [&](OpBuilder &nb, Location nl, ValueRange, Value acc) {
        SmallVector<Value> ivs;
        for (int64_t i = 0; i < rank; ++i)
          ivs.push_back(linalg::IndexOp::create(nb, nl, uint64_t(i)));
        Value t = linalg::IndexOp::create(nb, nl, uint64_t(rank));
        return arith::AddFOp::create(nb, nl, acc, term(nb, nl, ivs, t))
            .getResult();
      });
}

/// `sum` (f64) times `scale` (null: 1) in `type`.
Value finish(OpBuilder &b, Location loc, Value sum, Type type, Value scale) {
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, sum);
  return indexGeneric(b, loc, dims, type, {identityAccess(sum)},
                      [&](OpBuilder &nb, Location nl, ValueRange,
                          ValueRange in) {
                        Value v = in[0];
                        if (scale)
                          v = arith::MulFOp::create(nb, nl, v, scale);
                        return convertFloat(nb, nl, v, type);
                      });
}

/// The optional scalar integer input `value` as an index, if present.
std::optional<OpFoldResult> optionalScalar(OpBuilder &b, Location loc,
                                           Value value) {
  if (isAbsent(value))
    return std::nullopt;
  return scalarIndexOf(b, loc, value);
}

/// Checks that `value` is an absent or a one-element integer tensor.
LogicalResult requireScalarInt(Operation *op, Value value, StringRef what) {
  if (isAbsent(value))
    return success();
  auto type = requireRanked(op, value, what);
  if (failed(type))
    return failure();
  if (!isa<IntegerType>(type->getElementType()) || type->getRank() > 1 ||
      (type->getRank() == 1 && type->getDimSize(0) != 1 &&
       !type->isDynamicDim(0)))
    return op->emitError() << what << " must be an integer scalar, got "
                           << value.getType();
  return success();
}

//===----------------------------------------------------------------------===//
// DFT
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerDFT(Operation *op, OpBuilder &b) {
  auto dft = cast<onnx::ONNXDFTOp>(op);
  Location loc = op->getLoc();
  Value input = dft.getInput();
  auto type = requireRanked(op, input, "the input");
  if (failed(type))
    return failure();
  auto elementType = dyn_cast<FloatType>(type->getElementType());
  if (!elementType)
    return op->emitError("DFT: the input must be floating-point");
  if (failed(requireScalarInt(op, dft.getDftLength(), "DFT: dft_length")) ||
      failed(requireScalarInt(op, dft.getAxis(), "DFT: axis")))
    return failure();
  bool inverse = dft.getInverse() != 0, onesided = dft.getOnesided() != 0;
  bool irfft = inverse && onesided;
  shape::IndexMath m(b, loc);
  OpFoldResult axis = isAbsent(dft.getAxis())
                          ? m.cst(-2)
                          : scalarIndexOf(b, loc, dft.getAxis());
  auto shape = shape::dftShape(b, loc, input, axis,
                               optionalScalar(b, loc, dft.getDftLength()),
                               inverse, onesided, op);
  if (failed(shape))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, shape->dims);
  if (failed(dims))
    return failure();
  int64_t rank = type->getRank();
  Value length = m.value(shape->length);
  Value isComplex = m.value(m.eq(shape->components, m.cst(2)));
  Value sum = sumGeneric(
      b, loc, *dims, shape->terms,
      [&](OpBuilder &nb, Location nl, ValueRange ivs, Value t) -> Value {
        shape::IndexMath bm(nb, nl);
        // The output position k along the axis, and the input element
        // at position t there.
        OpFoldResult k = ivs[0];
        SmallVector<Value> at;
        for (int64_t i = 0; i < rank - 1; ++i) {
          shape::Cond here = bm.eq(shape->axis, bm.cst(i));
          if (i > 0)
            k = bm.select(here, ivs[i], k);
          at.push_back(bm.value(bm.select(here, t, ivs[i])));
        }
        Value zeroIndex = bm.value(bm.cst(0));
        at.push_back(zeroIndex);
        Value re = convertFloat(
            nb, nl, tensor::ExtractOp::create(nb, nl, input, at), nb.getF64Type());
        at.back() = arith::SelectOp::create(nb, nl, isComplex,
                                            bm.value(bm.cst(1)), zeroIndex);
        Value zero = scalarConstant(nb, nl, nb.getF64Type(), 0.0);
        Value im = arith::SelectOp::create(
            nb, nl, isComplex,
            convertFloat(nb, nl, tensor::ExtractOp::create(nb, nl, input, at),
                         nb.getF64Type()),
            zero);
        auto [c, s] = twiddle(nb, nl, bm.value(k), t, length);
        auto mulf = [&](Value x, Value y) {
          return arith::MulFOp::create(nb, nl, x, y).getResult();
        };
        if (irfft) {
          // Hermitian symmetry: bins other than 0 and L / 2 stand for two.
          Value edge = arith::OrIOp::create(
              nb, nl,
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, t,
                                    zeroIndex),
              arith::CmpIOp::create(
                  nb, nl, arith::CmpIPredicate::eq,
                  arith::AddIOp::create(nb, nl, t, t), length));
          Value v = arith::SubFOp::create(nb, nl, mulf(re, c), mulf(im, s));
          Value twice = mulf(scalarConstant(nb, nl, nb.getF64Type(), 2.0), v);
          // The edge bins' imaginary parts do not contribute (numpy's
          // irfft ignores them).
          return arith::SelectOp::create(nb, nl, edge, mulf(re, c), twice);
        }
        // Forward e^{-i theta}, inverse e^{+i theta}.
        Value real, imag;
        if (inverse) {
          real = arith::SubFOp::create(nb, nl, mulf(re, c), mulf(im, s));
          imag = arith::AddFOp::create(nb, nl, mulf(re, s), mulf(im, c));
        } else {
          real = arith::AddFOp::create(nb, nl, mulf(re, c), mulf(im, s));
          imag = arith::SubFOp::create(nb, nl, mulf(im, c), mulf(re, s));
        }
        Value first = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                            ivs[rank - 1], zeroIndex);
        return arith::SelectOp::create(nb, nl, first, real, imag);
      });
  Value scale;
  if (inverse)
    scale = arith::DivFOp::create(
        b, loc, scalarConstant(b, loc, b.getF64Type(), 1.0), f64Of(b, loc, length));
  return SmallVector<Value>{finish(b, loc, sum, elementType, scale)};
}

//===----------------------------------------------------------------------===//
// STFT
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerSTFT(Operation *op, OpBuilder &b) {
  auto stft = cast<onnx::ONNXSTFTOp>(op);
  Location loc = op->getLoc();
  Value signal = stft.getSignal();
  auto type = requireRanked(op, signal, "the signal");
  if (failed(type))
    return failure();
  auto elementType = dyn_cast<FloatType>(type->getElementType());
  if (!elementType)
    return op->emitError("STFT: the signal must be floating-point");
  if (failed(requireScalarInt(op, stft.getFrameStep(), "STFT: frame_step")) ||
      failed(requireScalarInt(op, stft.getFrameLength(), "STFT: frame_length")))
    return failure();
  Value window = stft.getWindow();
  bool hasWindow = !isAbsent(window);
  if (hasWindow) {
    auto windowType = requireRanked(op, window, "the window");
    if (failed(windowType))
      return failure();
    if (windowType->getElementType() != elementType)
      return op->emitError() << "STFT: the window has element type "
                             << windowType->getElementType()
                             << " but the signal has " << elementType;
  }
  bool onesided = stft.getOnesided() != 0;
  auto shape = shape::stftShape(
      b, loc, signal, scalarIndexOf(b, loc, stft.getFrameStep()),
      hasWindow ? window : Value(),
      optionalScalar(b, loc, stft.getFrameLength()), onesided, op);
  if (failed(shape))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, shape->dims);
  if (failed(dims))
    return failure();
  shape::IndexMath m(b, loc);
  Value frame = m.value(shape->frameLength);
  Value step = m.value(shape->frameStep);
  Value isComplex = m.value(m.eq(shape->components, m.cst(2)));
  Type type32 = elementType;
  Value sum = sumGeneric(
      b, loc, *dims, shape->frameLength,
      [&](OpBuilder &nb, Location nl, ValueRange ivs, Value n) -> Value {
        // ivs: batch, frame, bin, component.
        Value pos = arith::AddIOp::create(
            nb, nl, arith::MulIOp::create(nb, nl, ivs[1], step), n);
        Value zeroIndex = arith::ConstantIndexOp::create(nb, nl, 0);
        Value oneIndex = arith::ConstantIndexOp::create(nb, nl, 1);
        // The windowed sample, multiplied in the signal's type as the
        // reference does, then widened.
        auto sample = [&](Value component) {
          Value v = tensor::ExtractOp::create(
              nb, nl, signal, ValueRange{ivs[0], pos, component});
          if (hasWindow)
            v = roundThrough(
                nb, nl,
                arith::MulFOp::create(
                    nb, nl, convertFloat(nb, nl, v, computeFloatType(nb, type32)),
                    convertFloat(
                        nb, nl, tensor::ExtractOp::create(nb, nl, window, n),
                        computeFloatType(nb, type32))),
                type32);
          return convertFloat(nb, nl, v, nb.getF64Type());
        };
        Value re = sample(zeroIndex);
        Value im = arith::SelectOp::create(
            nb, nl, isComplex,
            sample(arith::SelectOp::create(nb, nl, isComplex, oneIndex,
                                           zeroIndex)),
            scalarConstant(nb, nl, nb.getF64Type(), 0.0));
        auto [c, s] = twiddle(nb, nl, ivs[2], n, frame);
        auto mulf = [&](Value x, Value y) {
          return arith::MulFOp::create(nb, nl, x, y).getResult();
        };
        Value real = arith::AddFOp::create(nb, nl, mulf(re, c), mulf(im, s));
        Value imag = arith::SubFOp::create(nb, nl, mulf(im, c), mulf(re, s));
        Value first = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                            ivs[3], zeroIndex);
        return arith::SelectOp::create(nb, nl, first, real, imag);
      });
  return SmallVector<Value>{finish(b, loc, sum, elementType, Value())};
}

//===----------------------------------------------------------------------===//
// MelWeightMatrix
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerMelWeightMatrix(Operation *op,
                                                   OpBuilder &b) {
  auto mel = cast<onnx::ONNXMelWeightMatrixOp>(op);
  Location loc = op->getLoc();
  for (auto [value, what] :
       {std::pair<Value, StringRef>{mel.getNumMelBins(), "num_mel_bins"},
        std::pair<Value, StringRef>{mel.getDftLength(), "dft_length"},
        std::pair<Value, StringRef>{mel.getSampleRate(), "sample_rate"}})
    if (failed(requireScalarInt(op, value, ("MelWeightMatrix: " + what).str())))
      return failure();
  Value lower = mel.getLowerEdgeHertz(), upper = mel.getUpperEdgeHertz();
  auto lowerType = requireRanked(op, lower, "lower_edge_hertz");
  auto upperType = requireRanked(op, upper, "upper_edge_hertz");
  if (failed(lowerType) || failed(upperType))
    return failure();
  auto hzType = dyn_cast<FloatType>(lowerType->getElementType());
  if (!hzType || upperType->getElementType() != hzType)
    return op->emitError("MelWeightMatrix: lower_edge_hertz and "
                         "upper_edge_hertz must be floats of one type");
  auto resultType = dyn_cast<FloatType>(
      cast<ShapedType>(op->getResult(0).getType()).getElementType());
  if (!resultType)
    return op->emitError("MelWeightMatrix: output_datatype must be a float "
                         "type");
  OpFoldResult numMel = scalarIndexOf(b, loc, mel.getNumMelBins());
  OpFoldResult dftLength = scalarIndexOf(b, loc, mel.getDftLength());
  OpFoldResult sampleRate = scalarIndexOf(b, loc, mel.getSampleRate());
  auto shape = shape::melWeightMatrixShape(b, loc, numMel, dftLength, op);
  if (failed(shape))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, *shape);
  if (failed(dims))
    return failure();
  shape::IndexMath m(b, loc);
  if (failed(m.require(m.le(m.cst(1), sampleRate),
                       "MelWeightMatrix: sample_rate {0} must be positive",
                       {sampleRate}, op)))
    return failure();
  // The mel edges in the edges' type (the reference computes them on
  // scalars of that type): 2595 * log10(1 + hz / 700).
  Type compute = computeFloatType(b, hzType);
  auto toMel = [&](Value hz) {
    Value v = convertFloat(b, loc, readScalar(b, loc, hz), compute);
    auto c = [&](double x) { return scalarConstant(b, loc, compute, x); };
    auto r = [&](Value x) { return roundThrough(b, loc, x, hzType); };
    Value q = r(arith::DivFOp::create(b, loc, v, c(700.0)));
    Value l = r(math::Log10Op::create(b, loc, r(arith::AddFOp::create(b, loc, c(1.0), q))));
    return r(arith::MulFOp::create(b, loc, c(2595.0), l));
  };
  Value melLow = toMel(lower), melHigh = toMel(upper);
  // mel_step = (high - low) / (num_mel_bins + 2), in the same type.
  Value count = arith::SIToFPOp::create(
      b, loc, compute,
      arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                 m.value(m.add(numMel, m.cst(2)))));
  Value step = roundThrough(
      b, loc,
      arith::DivFOp::create(
          b, loc, roundThrough(b, loc, arith::SubFOp::create(b, loc, melHigh, melLow), hzType),
          count),
      hzType);
  Type f64 = b.getF64Type();
  Value step64 = convertFloat(b, loc, step, f64);
  Value low64 = convertFloat(b, loc, melLow, f64);
  Value lengthPlus1 = f64Of(b, loc, m.value(m.add(dftLength, m.cst(1))));
  Value rate = f64Of(b, loc, m.value(sampleRate));
  Value result = indexGeneric(
      b, loc, *dims, resultType,
      [&](OpBuilder &nb, Location nl, ValueRange ivs) -> Value {
        auto c = [&](double x) { return scalarConstant(nb, nl, f64, x); };
        // The spectrogram bin of mel point p (f64, as numpy):
        //   hz = 700 * (10^((p * step + low) / 2595) - 1)
        //   bin = ((dft_length + 1) * hz) // sample_rate
        auto binOf = [&](Value p) {
          Value melValue = arith::AddFOp::create(
              nb, nl, arith::MulFOp::create(nb, nl, f64Of(nb, nl, p), step64),
              low64);
          Value power = math::PowFOp::create(
              nb, nl, c(10.0), arith::DivFOp::create(nb, nl, melValue, c(2595.0)));
          Value hz = arith::MulFOp::create(
              nb, nl, c(700.0), arith::SubFOp::create(nb, nl, power, c(1.0)));
          Value a = arith::MulFOp::create(nb, nl, lengthPlus1, hz);
          // Python's float floor division: (a - fmod(a, b)) / b, rounded
          // to the nearest integer below.
          Value mod = arith::RemFOp::create(nb, nl, a, rate);
          Value adjust = arith::AndIOp::create(
              nb, nl,
              arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::ONE, mod,
                                    c(0.0)),
              arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OLT, mod,
                                    c(0.0)));
          mod = arith::SelectOp::create(
              nb, nl, adjust, arith::AddFOp::create(nb, nl, mod, rate), mod);
          Value div = arith::DivFOp::create(
              nb, nl, arith::SubFOp::create(nb, nl, a, mod), rate);
          Value floored = math::FloorOp::create(nb, nl, div);
          Value up = arith::CmpFOp::create(
              nb, nl, arith::CmpFPredicate::OGT,
              arith::SubFOp::create(nb, nl, div, floored), c(0.5));
          return arith::SelectOp::create(
              nb, nl, up, arith::AddFOp::create(nb, nl, floored, c(1.0)),
              floored);
        };
        Value j = f64Of(nb, nl, ivs[0]);
        Value i = ivs[1];
        Value one = arith::ConstantIndexOp::create(nb, nl, 1);
        Value two = arith::ConstantIndexOp::create(nb, nl, 2);
        Value lo = binOf(i);
        Value center = binOf(arith::AddIOp::create(nb, nl, i, one));
        Value hi = binOf(arith::AddIOp::create(nb, nl, i, two));
        auto cmp = [&](arith::CmpFPredicate p, Value x, Value y) {
          return arith::CmpFOp::create(nb, nl, p, x, y).getResult();
        };
        auto andOf = [&](Value x, Value y) {
          return arith::AndIOp::create(nb, nl, x, y).getResult();
        };
        // j == center: 1; lo <= j < center: rising; center < j < hi:
        // falling; else 0.
        Value rising = arith::DivFOp::create(
            nb, nl, arith::SubFOp::create(nb, nl, j, lo),
            arith::SubFOp::create(nb, nl, center, lo));
        Value falling = arith::DivFOp::create(
            nb, nl, arith::SubFOp::create(nb, nl, hi, j),
            arith::SubFOp::create(nb, nl, hi, center));
        Value v = c(0.0);
        v = arith::SelectOp::create(
            nb, nl,
            andOf(cmp(arith::CmpFPredicate::OGT, j, center),
                  cmp(arith::CmpFPredicate::OLT, j, hi)),
            falling, v);
        v = arith::SelectOp::create(
            nb, nl,
            andOf(cmp(arith::CmpFPredicate::OGE, j, lo),
                  cmp(arith::CmpFPredicate::OLT, j, center)),
            rising, v);
        v = arith::SelectOp::create(nb, nl, cmp(arith::CmpFPredicate::OEQ, j, center),
                                    c(1.0), v);
        return convertFloat(nb, nl, v, resultType);
      });
  return SmallVector<Value>{result};
}

} // namespace

void addNewSignalLowerings(LoweringTable &t) {
  t["onnx.DFT"] = lowerDFT;
  t["onnx.STFT"] = lowerSTFT;
  t["onnx.MelWeightMatrix"] = lowerMelWeightMatrix;
}

} // namespace onyx::conversion
