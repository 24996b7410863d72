//===- Resize.cpp - Resize and Upsample ----------------------------------===//
//
// ONNX Resize (opset 13 form; opset 11 is imported into it) and Upsample
// (opset 9/10) on any rank, every mode: nearest (four rounding rules),
// linear and cubic (cubic_coeff_a, exclude_outside), with the coordinate
// transformations half_pixel, half_pixel_symmetric, pytorch_half_pixel,
// align_corners, asymmetric, tf_half_pixel_for_nn and tf_crop_and_resize
// (roi, extrapolation_value). Resize-18's `axes` (scales/sizes/roi for a
// subset of dims) and `keep_aspect_ratio_policy` are applied by
// lib/Shape/NewOperatorShapes.cpp around shape::resizeShape.
//
// Design:
//  - Output extents come from lib/Shape/ResizeShapes (shape::resizeShape):
//    scales and sizes are constants (static dims) or read at run time
//    (SSA dims); the same function also gives each dim's scale factor and
//    the "resized length" (input * scale, unfloored) the ONNX reference
//    uses in its coordinate formulas.
//  - The interpolation is a linalg.generic over the output whose body maps
//    each output index (linalg.index) to a source coordinate, in f64 and in
//    the reference's operation order (so nearest rounding decisions match
//    it exactly), and reads the input with tensor.extract at clamped
//    indices: clamping is exactly the reference's edge padding. Nearest
//    takes 1 tap per resized dim, linear 2, cubic 4; the value is the
//    tensor product of the per-dim taps, accumulated in f64.
//  - Dims known to be unresized (constant scale 1 / size equal to a static
//    extent, and no cropping roi) take no taps: the index passes through.
//    Scales read at run time make every dim a candidate, so to bound the
//    tap count (cubic on 4 dims would be 256 reads per element) the
//    resized dims are processed in groups of at most 16 taps, one generic
//    per group: interpolation is separable, so this is the same result up
//    to rounding (intermediates are f32 or wider).
//  - tf_crop_and_resize: a coordinate outside [0, in - 1] in any dim gives
//    extrapolation_value (the reference's per-dim rule; its weights sum to
//    1, so nesting does not change the value).
//  - antialias (Resize-18): linear and cubic downscaling with the filter
//    stretched by 1/scale, one generic per resized dim whose body loops over
//    the 2 * ceil(support / scale) taps (a run-time count when the scale
//    is); see resizeAntialiasedAxis.
//  - Not supported (clean errors): linear/cubic on integer element types;
//    antialias with nearest (undefined in ONNX);
//    exclude_outside is ignored by nearest (as in ONNX Runtime: the
//    reference would divide by zero).
//
//===----------------------------------------------------------------------===//

#include "DataMovementCommon.h"
#include "GridSample.h"

#include "onyx/Shape/NewOperatorShapes.h"
#include "onyx/Shape/ResizeShapes.h"

using namespace mlir;

namespace onyx::conversion {

namespace {

using shape::Cond;
using shape::F64;
using shape::F64Math;

enum class Mode { Nearest, Linear, Cubic };
enum class Coord {
  HalfPixel,
  HalfPixelSymmetric,
  PytorchHalfPixel,
  AlignCorners,
  Asymmetric,
  TfHalfPixelForNN,
  TfCropAndResize
};
/// Simple: Upsample's rule (floor, or ceil when downscaling), as ONNX
/// Runtime implements it.
enum class NearestMode {
  RoundPreferFloor,
  RoundPreferCeil,
  Floor,
  Ceil,
  Simple
};

struct Interpolation {
  Mode mode = Mode::Nearest;
  Coord coord = Coord::HalfPixel;
  NearestMode nearest = NearestMode::RoundPreferFloor;
  double cubicA = -0.75;
  bool excludeOutside = false;
  double extrapolation = 0.0;
  /// Resize-18: downscaling stretches the linear/cubic filter by 1/scale.
  bool antialias = false;

  int64_t taps() const {
    return mode == Mode::Nearest ? 1 : mode == Mode::Linear ? 2 : 4;
  }
};

/// The values one dim's coordinate transformation needs, computed once
/// outside the generics.
struct AxisPlan {
  bool resized = false;
  F64 inMinus1, scale, lengthMinus1;
  /// half_pixel_symmetric only: in / 2 * (1 - out / length).
  F64 symmetricOffset;
  Cond lengthIsOne;
  F64 roiStart, roiEnd; ///< tf_crop_and_resize only
};

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// A float list input: absent, constant, or a 0-/1-D float tensor read at
/// run time.
FailureOr<shape::FloatList> floatListOf(Operation *op, Value value,
                                        StringRef what) {
  if (!value || isa<NoneType>(value.getType()))
    return shape::FloatList::absent();
  if (auto values = getConstantFloats(value))
    return shape::FloatList::constant(*values);
  auto type = requireRanked(op, value, what);
  if (failed(type))
    return failure();
  if (type->getRank() > 1)
    return op->emitError() << what << " must be 1-D, got " << value.getType();
  if (!isa<FloatType>(type->getElementType()))
    return op->emitError() << what << " must hold floats, got "
                           << value.getType();
  return shape::FloatList::tensor(value);
}

FailureOr<Interpolation> resizeAttributes(onnx::ONNXResizeOp resize) {
  Operation *op = resize.getOperation();
  Interpolation ip;
  StringRef mode = resize.getMode();
  if (mode == "nearest")
    ip.mode = Mode::Nearest;
  else if (mode == "linear")
    ip.mode = Mode::Linear;
  else if (mode == "cubic")
    ip.mode = Mode::Cubic;
  else
    return op->emitError() << "Resize: mode '" << mode << "' is not supported";

  StringRef coord = resize.getCoordinateTransformationMode();
  if (coord == "half_pixel")
    ip.coord = Coord::HalfPixel;
  else if (coord == "half_pixel_symmetric")
    ip.coord = Coord::HalfPixelSymmetric;
  else if (coord == "pytorch_half_pixel")
    ip.coord = Coord::PytorchHalfPixel;
  else if (coord == "align_corners")
    ip.coord = Coord::AlignCorners;
  else if (coord == "asymmetric")
    ip.coord = Coord::Asymmetric;
  else if (coord == "tf_half_pixel_for_nn")
    ip.coord = Coord::TfHalfPixelForNN;
  else if (coord == "tf_crop_and_resize")
    ip.coord = Coord::TfCropAndResize;
  else
    return op->emitError() << "Resize: coordinate_transformation_mode '"
                           << coord << "' is not supported";

  StringRef nearest = resize.getNearestMode();
  if (nearest == "round_prefer_floor")
    ip.nearest = NearestMode::RoundPreferFloor;
  else if (nearest == "round_prefer_ceil")
    ip.nearest = NearestMode::RoundPreferCeil;
  else if (nearest == "floor")
    ip.nearest = NearestMode::Floor;
  else if (nearest == "ceil")
    ip.nearest = NearestMode::Ceil;
  else
    return op->emitError() << "Resize: nearest_mode '" << nearest
                           << "' is not supported";

  ip.cubicA = resize.getCubicCoeffA().convertToDouble();
  ip.excludeOutside = resize.getExcludeOutside() != 0;
  ip.extrapolation = resize.getExtrapolationValue().convertToDouble();
  ip.antialias = resize.getAntialias() != 0;
  if (ip.antialias && ip.mode == Mode::Nearest)
    return op->emitError()
           << "Resize: antialias = " << resize.getAntialias()
           << " is defined for the linear and cubic modes only, not 'nearest'";
  return ip;
}

//===----------------------------------------------------------------------===//
// Coordinates and taps
//===----------------------------------------------------------------------===//

/// The source coordinate of output position `x` along a dim, as the ONNX
/// reference computes it (same operations, same order). For
/// tf_crop_and_resize, `outside` gets "the coordinate is off the input".
F64 sourceCoordinate(F64Math &f, const Interpolation &ip, const AxisPlan &a,
                     F64 x, Cond &outside) {
  outside = Cond::of(false);
  switch (ip.coord) {
  case Coord::HalfPixel:
    return f.sub(f.div(f.add(x, f.cst(0.5)), a.scale), f.cst(0.5));
  case Coord::HalfPixelSymmetric:
    return f.sub(f.add(a.symmetricOffset, f.div(f.add(x, f.cst(0.5)), a.scale)),
                 f.cst(0.5));
  case Coord::PytorchHalfPixel:
    return f.select(a.lengthIsOne, f.cst(-0.5),
                    f.sub(f.div(f.add(x, f.cst(0.5)), a.scale), f.cst(0.5)));
  case Coord::AlignCorners:
    return f.select(a.lengthIsOne, f.cst(0.0),
                    f.div(f.mul(x, a.inMinus1), a.lengthMinus1));
  case Coord::Asymmetric:
    return f.div(x, a.scale);
  case Coord::TfHalfPixelForNN:
    return f.div(f.add(x, f.cst(0.5)), a.scale);
  case Coord::TfCropAndResize: {
    F64 span = f.sub(a.roiEnd, a.roiStart);
    F64 single = f.div(f.mul(span, a.inMinus1), f.cst(2.0));
    F64 general = f.div(f.mul(f.mul(x, span), a.inMinus1), a.lengthMinus1);
    F64 xo = f.add(f.select(a.lengthIsOne, single, general),
                   f.mul(a.roiStart, a.inMinus1));
    shape::IndexMath m(f.b, f.loc);
    Cond below = f.cmp(arith::CmpFPredicate::OLT, xo, f.cst(0.0));
    Cond above = f.cmp(arith::CmpFPredicate::OGT, xo, a.inMinus1);
    outside = m.orOf(below, above);
    return xo;
  }
  }
  llvm_unreachable("coordinate mode");
}

/// One dim's taps: input indices (clamped) and their weights (empty for
/// nearest).
struct Taps {
  SmallVector<Value> indices;
  SmallVector<Value> weights;
  Cond outside;
};

Taps axisTaps(F64Math &f, const Interpolation &ip, const AxisPlan &a,
              Value iv) {
  shape::IndexMath m(f.b, f.loc);
  Taps taps;
  F64 x = f.fromIndex(iv);
  F64 xo = sourceCoordinate(f, ip, a, x, taps.outside);
  auto clampedIndex = [&](F64 position) {
    return m.value(f.toIndex(f.clamp(position, f.cst(0.0), a.inMinus1)));
  };

  if (ip.mode == Mode::Nearest) {
    // The reference's rules on the ratio xo - floor(xo) (0 for an integral
    // xo, which then always picks xo itself).
    auto rounded = [&](arith::CmpFPredicate belowHalf) {
      F64 fl = f.floor(xo);
      F64 r = f.sub(xo, fl);
      Cond low = f.cmp(belowHalf, r, f.cst(0.5));
      return f.select(low, fl, f.add(fl, f.cst(1.0)));
    };
    F64 pick;
    switch (ip.nearest) {
    case NearestMode::RoundPreferFloor:
      pick = rounded(arith::CmpFPredicate::OLE);
      break;
    case NearestMode::RoundPreferCeil:
      pick = rounded(arith::CmpFPredicate::OLT);
      break;
    case NearestMode::Floor:
      pick = f.floor(xo);
      break;
    case NearestMode::Ceil:
      pick = f.ceil(xo);
      break;
    case NearestMode::Simple: {
      Cond down = f.cmp(arith::CmpFPredicate::OLT, a.scale, f.cst(1.0));
      if (down.known) {
        pick = *down.known ? f.ceil(xo) : f.floor(xo);
      } else {
        F64 up = f.ceil(xo);
        pick = f.select(down, up, f.floor(xo));
      }
      break;
    }
    }
    taps.indices.push_back(clampedIndex(pick));
    return taps;
  }

  // The reference picks the taps nearest to xo, preferring lower ones, so
  // the left neighbour is ceil(xo) - 1 and the ratio lies in (0, 1].
  F64 base = f.sub(f.ceil(xo), f.cst(1.0));
  F64 r = f.sub(xo, base);
  SmallVector<F64> positions, weights;
  if (ip.mode == Mode::Linear) {
    positions = {base, f.add(base, f.cst(1.0))};
    weights = {f.sub(f.cst(1.0), r), r};
  } else {
    positions = {f.sub(base, f.cst(1.0)), base, f.add(base, f.cst(1.0)),
                 f.add(base, f.cst(2.0))};
    weights = cubicWeights(f, r, ip.cubicA);
  }
  if (ip.excludeOutside) {
    // Taps off the input get weight 0; the others are renormalized.
    F64 sum = f.cst(0.0);
    for (size_t k = 0; k < weights.size(); ++k) {
      Cond notBelow =
          f.cmp(arith::CmpFPredicate::OGE, positions[k], f.cst(0.0));
      Cond notAbove =
          f.cmp(arith::CmpFPredicate::OLE, positions[k], a.inMinus1);
      Cond in = m.andOf(notBelow, notAbove);
      weights[k] = f.select(in, weights[k], f.cst(0.0));
      sum = f.add(sum, weights[k]);
    }
    for (F64 &w : weights)
      w = f.div(w, sum);
  }
  for (size_t k = 0; k < positions.size(); ++k) {
    taps.indices.push_back(clampedIndex(positions[k]));
    taps.weights.push_back(f.value(weights[k]));
  }
  return taps;
}

//===----------------------------------------------------------------------===//
// The generics
//===----------------------------------------------------------------------===//

/// One generic resizing the dims in `group` of `source` (whose other dims
/// already have their final extents or are not resized by this step).
Value resizeGroup(OpBuilder &b, Location loc, const Interpolation &ip,
                  ArrayRef<AxisPlan> plan, ArrayRef<int64_t> group,
                  Value source, ArrayRef<OpFoldResult> dims, Type resultType) {
  return indexGeneric(
      b, loc, dims, resultType,
      [&](OpBuilder &nb, Location nl, ValueRange ivs) -> Value {
        F64Math f(nb, nl);
        shape::IndexMath m(nb, nl);
        SmallVector<Value> indices(ivs.begin(), ivs.end());
        SmallVector<Taps> taps;
        Cond outside = Cond::of(false);
        for (int64_t d : group) {
          taps.push_back(axisTaps(f, ip, plan[d], ivs[d]));
          outside = m.orOf(outside, taps.back().outside);
        }
        Type sourceElement =
            cast<RankedTensorType>(source.getType()).getElementType();

        if (ip.mode == Mode::Nearest) {
          for (size_t g = 0; g < group.size(); ++g)
            indices[group[g]] = taps[g].indices[0];
          Value v = tensor::ExtractOp::create(nb, nl, source, indices);
          if (!outside.isFalse())
            v = arith::SelectOp::create(
                nb, nl, m.value(outside),
                scalarConstant(nb, nl, sourceElement, ip.extrapolation), v);
          return v;
        }

        // Sum over the tap product, one dim per level.
        std::function<Value(size_t)> accumulate = [&](size_t level) -> Value {
          if (level == group.size())
            return f.extend(tensor::ExtractOp::create(nb, nl, source, indices));
          const Taps &t = taps[level];
          Value sum;
          for (size_t k = 0; k < t.indices.size(); ++k) {
            indices[group[level]] = t.indices[k];
            Value term = arith::MulFOp::create(nb, nl, t.weights[k],
                                               accumulate(level + 1));
            sum = sum ? arith::AddFOp::create(nb, nl, sum, term).getResult()
                      : term;
          }
          return sum;
        };
        Value v = accumulate(0);
        if (!outside.isFalse())
          v = arith::SelectOp::create(nb, nl, m.value(outside),
                                      f.value(f.cst(ip.extrapolation)), v);
        if (!resultType.isF64())
          v = arith::TruncFOp::create(nb, nl, resultType, v);
        return v;
      });
}

/// Antialiased linear or cubic resizing of dim `d` of `source` (Resize-18's
/// antialias = 1). With s = min(scale, 1) the filter is stretched by 1/s:
/// output position x reads the 2 * ceil(support / s) inputs i nearest to
/// its source coordinate xo (support 1 for linear, 2 for cubic; the first
/// is ceil(xo) - taps / 2, indices clamped as the edge padding), weighted
/// by filter(|i - xo| * s) and normalized to sum 1; exclude_outside drops
/// the taps off the input from both sums. Upscaling (s = 1) is the plain
/// filter. The tap count is a loop bound, so run-time scales work.
Value resizeAntialiasedAxis(OpBuilder &b, Location loc, const Interpolation &ip,
                            const AxisPlan &a, int64_t d, Value source,
                            ArrayRef<OpFoldResult> dims, Type resultType) {
  F64Math f(b, loc);
  shape::IndexMath m(b, loc);
  double support = ip.mode == Mode::Linear ? 1.0 : 2.0;
  Cond down = f.cmp(arith::CmpFPredicate::OLT, a.scale, f.cst(1.0));
  F64 s = f.select(down, a.scale, f.cst(1.0));
  F64 taps = f.mul(f.cst(2.0), f.ceil(f.div(f.cst(support), s)));
  Value tapCount = m.value(f.toIndex(taps));
  Value halfTaps = f.value(f.div(taps, f.cst(2.0)));
  Value scale = f.value(s);
  Value inMinus1 = f.value(a.inMinus1);
  return indexGeneric(
      b, loc, dims, resultType,
      [&](OpBuilder &nb, Location nl, ValueRange ivs) -> Value {
        F64Math g(nb, nl);
        shape::IndexMath n(nb, nl);
        Cond outside;
        F64 xo = sourceCoordinate(g, ip, a, g.fromIndex(ivs[d]), outside);
        F64 first = g.sub(g.ceil(xo), g.of(halfTaps));
        Value zero = g.value(g.cst(0.0));
        auto loop = scf::ForOp::create(
            nb, nl, n.value(n.cst(0)), tapCount, n.value(n.cst(1)),
            ValueRange{zero, zero},
            [&](OpBuilder &lb, Location ll, Value j, ValueRange sums) {
              F64Math h(lb, ll);
              shape::IndexMath k(lb, ll);
              F64 pos = h.add(first, h.fromIndex(j));
              F64 t = h.abs(h.mul(h.sub(pos, xo), h.of(scale)));
              F64 w;
              if (ip.mode == Mode::Linear) {
                w = h.clamp(h.sub(h.cst(1.0), t), h.cst(0.0), h.cst(1.0));
              } else {
                // Keys' kernel: |t| <= 1, 1 < |t| < 2, else 0.
                double A = ip.cubicA;
                F64 inner = h.add(
                    h.mul(h.mul(h.sub(h.mul(h.cst(A + 2), t), h.cst(A + 3)), t),
                          t),
                    h.cst(1.0));
                F64 outer = h.sub(
                    h.mul(
                        h.add(h.mul(h.sub(h.mul(h.cst(A), t), h.cst(5 * A)), t),
                              h.cst(8 * A)),
                        t),
                    h.cst(4 * A));
                w = h.select(
                    h.cmp(arith::CmpFPredicate::OLE, t, h.cst(1.0)), inner,
                    h.select(h.cmp(arith::CmpFPredicate::OLT, t, h.cst(2.0)),
                             outer, h.cst(0.0)));
              }
              if (ip.excludeOutside) {
                Cond in = k.andOf(
                    h.cmp(arith::CmpFPredicate::OGE, pos, h.cst(0.0)),
                    h.cmp(arith::CmpFPredicate::OLE, pos, h.of(inMinus1)));
                w = h.select(in, w, h.cst(0.0));
              }
              SmallVector<Value> indices(ivs.begin(), ivs.end());
              indices[d] =
                  k.value(h.toIndex(h.clamp(pos, h.cst(0.0), h.of(inMinus1))));
              F64 v = h.of(
                  h.extend(tensor::ExtractOp::create(lb, ll, source, indices)));
              F64 acc = h.add(h.of(sums[0]), h.mul(w, v));
              F64 total = h.add(h.of(sums[1]), w);
              scf::YieldOp::create(lb, ll,
                                   ValueRange{h.value(acc), h.value(total)});
            });
        Value v =
            g.value(g.div(g.of(loop.getResult(0)), g.of(loop.getResult(1))));
        if (!outside.isFalse())
          v = arith::SelectOp::create(nb, nl, n.value(outside),
                                      g.value(g.cst(ip.extrapolation)), v);
        if (!resultType.isF64())
          v = arith::TruncFOp::create(nb, nl, resultType, v);
        return v;
      });
}

/// Resizes `input` to `shape` with `ip`; `roi` only for tf_crop_and_resize.
FailureOr<Value> lowerInterpolation(Operation *op, OpBuilder &b,
                                    const Interpolation &ip, Value input,
                                    const shape::ResizeShape &shape,
                                    const shape::FloatList &roi,
                                    ArrayRef<OpFoldResult> resultDims,
                                    StringRef opName) {
  Location loc = op->getLoc();
  auto type = cast<RankedTensorType>(input.getType());
  Type elementType = type.getElementType();
  int64_t rank = type.getRank();
  if (ip.mode != Mode::Nearest && !isa<FloatType>(elementType))
    return op->emitError() << opName << ": linear and cubic interpolation of "
                           << elementType << " is not supported";

  F64Math f(b, loc);
  shape::IndexMath m(b, loc);
  if (ip.coord == Coord::TfCropAndResize) {
    if (roi.isAbsent())
      return op->emitError()
             << opName << ": tf_crop_and_resize needs the roi input";
    OpFoldResult n = roi.size(m);
    if (failed(m.require(m.eq(n, m.cst(2 * rank)),
                         opName.str() + ": roi has {0} entries, expected {1}",
                         {n, m.cst(2 * rank)}, op)))
      return failure();
  }

  SmallVector<AxisPlan> plan(rank);
  SmallVector<int64_t> resized;
  for (int64_t d = 0; d < rank; ++d) {
    const shape::ResizeDim &dim = shape.axes[d];
    AxisPlan &a = plan[d];
    a.resized = !dim.identity;
    if (ip.coord == Coord::TfCropAndResize) {
      a.roiStart = roi.get(f, d);
      a.roiEnd = roi.get(f, d + rank);
      if (a.roiStart.known != 0.0 || a.roiEnd.known != 1.0)
        a.resized = true;
    }
    if (!a.resized)
      continue;
    resized.push_back(d);
    a.inMinus1 = f.sub(f.fromIndex(dim.input), f.cst(1.0));
    a.scale = dim.scale;
    if (ip.coord == Coord::HalfPixelSymmetric) {
      // The reference: adjustment = out / length, center = in / 2,
      // offset = center * (1 - adjustment).
      F64 adjustment = f.div(f.fromIndex(dim.output), dim.length);
      F64 center = f.div(f.fromIndex(dim.input), f.cst(2.0));
      a.symmetricOffset = f.mul(center, f.sub(f.cst(1.0), adjustment));
    }
    // The modes with a special case for a resized length of 1.
    if (ip.coord == Coord::PytorchHalfPixel ||
        ip.coord == Coord::AlignCorners || ip.coord == Coord::TfCropAndResize) {
      a.lengthMinus1 = f.sub(dim.length, f.cst(1.0));
      a.lengthIsOne = f.cmp(arith::CmpFPredicate::OEQ, dim.length, f.cst(1.0));
    }
  }
  if (resized.empty())
    return castToDims(b, loc, input, resultDims);

  // Intermediates keep at least f32 precision.
  Type intermediate = elementType;
  if (auto ft = dyn_cast<FloatType>(elementType); ft && ft.getWidth() < 32)
    intermediate = b.getF32Type();
  Value current = input;
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, input);

  // Antialiasing: one dim at a time, in order (as the reference).
  if (ip.antialias) {
    for (size_t i = 0; i < resized.size(); ++i) {
      int64_t d = resized[i];
      dims[d] = resultDims[d];
      current = resizeAntialiasedAxis(b, loc, ip, plan[d], d, current, dims,
                                      i + 1 == resized.size() ? elementType
                                                              : intermediate);
    }
    return current;
  }

  // Groups of at most 16 taps (see the file comment).
  int64_t perGroup = ip.mode == Mode::Nearest  ? rank
                     : ip.mode == Mode::Linear ? 4
                                               : 2;
  SmallVector<SmallVector<int64_t>> groups;
  for (size_t i = 0; i < resized.size(); i += perGroup)
    groups.push_back(SmallVector<int64_t>(
        resized.begin() + i,
        resized.begin() + std::min<size_t>(i + perGroup, resized.size())));

  for (size_t g = 0; g < groups.size(); ++g) {
    for (int64_t d : groups[g])
      dims[d] = resultDims[d];
    bool last = g + 1 == groups.size();
    current = resizeGroup(b, loc, ip, plan, groups[g], current, dims,
                          last ? elementType : intermediate);
  }
  return current;
}

//===----------------------------------------------------------------------===//
// Resize, Upsample
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerResize(Operation *op, OpBuilder &b) {
  auto resize = cast<onnx::ONNXResizeOp>(op);
  Location loc = op->getLoc();
  Value input = resize.getX();
  auto type = requireRanked(op, input, "the input");
  if (failed(type) ||
      failed(requireSupportedElement(op, type->getElementType())))
    return failure();
  auto ip = resizeAttributes(resize);
  if (failed(ip))
    return failure();
  auto scales = floatListOf(op, resize.getScales(), "Resize: scales");
  auto roi = floatListOf(op, resize.getRoi(), "Resize: roi");
  auto sizes = intListOf(op, resize.getSizes(), "Resize: sizes");
  if (failed(scales) || failed(roi) || failed(sizes))
    return failure();
  // Resize-18: lists for a subset of dims, and aspect-ratio policies.
  int64_t rank = type->getRank();
  SmallVector<int64_t> axes;
  if (auto attr = resize.getAxesAttr()) {
    SmallVector<bool> seen(rank, false);
    for (Attribute a : attr) {
      int64_t axis = cast<IntegerAttr>(a).getInt();
      if (axis < -rank || axis >= rank)
        return op->emitError() << "Resize: axis " << axis
                               << " is out of range for rank " << rank;
      axis = axis < 0 ? axis + rank : axis;
      if (seen[axis])
        return op->emitError() << "Resize: axis " << axis << " is repeated";
      seen[axis] = true;
      axes.push_back(axis);
    }
    if (failed(
            shape::expandResizeAxes(b, loc, input, axes, *scales, *sizes, *roi,
                                    ip->coord == Coord::TfCropAndResize, op)))
      return failure();
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  StringRef policy = resize.getKeepAspectRatioPolicy();
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return op->emitError() << "Resize: keep_aspect_ratio_policy '" << policy
                           << "' is not supported";
  auto shape = shape::resizeShape(b, loc, input, *scales, *sizes, "Resize", op);
  if (failed(shape))
    return failure();
  // The policy applies to sizes only (scales ignore it, as the reference).
  bool withSizes = !sizes->isAbsent() && sizes->staticSize() != 0;
  if (policy != "stretch" && withSizes &&
      failed(shape::applyKeepAspectRatio(b, loc, *shape, axes,
                                         policy == "not_larger", op)))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, shape->dims);
  if (failed(dims))
    return failure();
  auto result =
      lowerInterpolation(op, b, *ip, input, *shape, *roi, *dims, "Resize");
  if (failed(result))
    return failure();
  return SmallVector<Value>{*result};
}

FailureOr<SmallVector<Value>> lowerUpsample(Operation *op, OpBuilder &b) {
  auto upsample = cast<onnx::ONNXUpsampleOp>(op);
  Location loc = op->getLoc();
  Value input = upsample.getX();
  auto type = requireRanked(op, input, "the input");
  if (failed(type) ||
      failed(requireSupportedElement(op, type->getElementType())))
    return failure();
  // Upsample: asymmetric coordinates; nearest floors (ceils when a scale
  // is below 1, as ONNX Runtime does).
  Interpolation ip;
  ip.coord = Coord::Asymmetric;
  StringRef mode = upsample.getMode();
  if (mode == "nearest") {
    ip.mode = Mode::Nearest;
    ip.nearest = NearestMode::Simple;
  } else if (mode == "linear" || mode == "bilinear") {
    ip.mode = Mode::Linear;
  } else {
    return op->emitError() << "Upsample: mode '" << mode
                           << "' is not supported";
  }
  auto scales = floatListOf(op, upsample.getScales(), "Upsample: scales");
  if (failed(scales))
    return failure();
  auto shape = shape::resizeShape(b, loc, input, *scales,
                                  shape::IntList::absent(), "Upsample", op);
  if (failed(shape))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, shape->dims);
  if (failed(dims))
    return failure();
  auto result = lowerInterpolation(
      op, b, ip, input, *shape, shape::FloatList::absent(), *dims, "Upsample");
  if (failed(result))
    return failure();
  return SmallVector<Value>{*result};
}

} // namespace

SmallVector<F64> cubicWeights(F64Math &f, F64 r, double a) {
  // ((A * t - 5A) * t + 8A) * t - 4A for the outer taps (t = r + 1 or
  // 2 - r), ((A + 2) * t - (A + 3)) * t * t + 1 for the inner ones.
  auto outer = [&](F64 t) {
    F64 v = f.sub(f.mul(f.cst(a), t), f.cst(5 * a));
    v = f.add(f.mul(v, t), f.cst(8 * a));
    return f.sub(f.mul(v, t), f.cst(4 * a));
  };
  auto inner = [&](F64 t) {
    F64 v = f.sub(f.mul(f.cst(a + 2), t), f.cst(a + 3));
    return f.add(f.mul(f.mul(v, t), t), f.cst(1.0));
  };
  F64 s = f.sub(f.cst(1.0), r);
  return {outer(f.add(r, f.cst(1.0))), inner(r), inner(s),
          outer(f.add(s, f.cst(1.0)))};
}

void addResizeLowerings(LoweringTable &t) {
  t["onnx.Resize"] = lowerResize;
  t["onnx.Upsample"] = lowerUpsample;
  addGridSampleLowerings(t);
}

} // namespace onyx::conversion
