//===- GridSample.cpp - GridSample ----------------------------------------===//
//
// GridSample (opset 16: 4-D X and grid; bilinear, nearest, bicubic; zeros,
// border, reflection padding; align_corners) follows PyTorch's
// grid_sample, which the ONNX tests were generated from: one generic over
// [N, C, H_out, W_out] reading the two grid coordinates, then 1, 2 x 2 or
// 4 x 4 taps at clamped indices, each tap off the input reading 0.
// Bilinear and nearest apply the padding rule to the coordinate, bicubic
// to each tap, as PyTorch does; nearest rounds half to even (nearbyint).
//
//===----------------------------------------------------------------------===//

#include "GridSample.h"
#include "DataMovementCommon.h"

using namespace mlir;

namespace onyx::conversion {

namespace {

using shape::Cond;
using shape::F64;
using shape::F64Math;

enum class Mode { Nearest, Linear, Cubic };
enum class GridPadding { Zeros, Border, Reflection };

/// One spatial dim of GridSample's input: its extent as f64.
struct GridAxis {
  F64 size, sizeMinus1;
};

/// GridSample's coordinate rules, as PyTorch's grid_sample (which the ONNX
/// tests come from) writes them: the same operations in the same order.
struct GridSampler {
  Mode mode = Mode::Linear;
  GridPadding padding = GridPadding::Zeros;
  bool alignCorners = false;

  /// Grid value in [-1, 1] -> input position.
  F64 unnormalize(F64Math &f, F64 coord, const GridAxis &a) const {
    F64 shifted = f.add(coord, f.cst(1.0));
    if (alignCorners)
      return f.mul(f.div(shifted, f.cst(2.0)), a.sizeMinus1);
    return f.div(f.sub(f.mul(shifted, a.size), f.cst(1.0)), f.cst(2.0));
  }

  /// Reflects `in` into [twiceLow / 2, twiceHigh / 2].
  F64 reflect(F64Math &f, F64 in, F64 twiceLow, F64 twiceHigh) const {
    F64 low = f.div(twiceLow, f.cst(2.0));
    F64 span = f.div(f.sub(twiceHigh, twiceLow), f.cst(2.0));
    F64 v = f.abs(f.sub(in, low));
    F64 extra = f.rem(v, span);
    F64 flips = f.floor(f.div(v, span));
    F64 halfFlips = f.floor(f.div(flips, f.cst(2.0)));
    F64 parity = f.sub(flips, f.mul(f.cst(2.0), halfFlips));
    Cond even = f.cmp(arith::CmpFPredicate::OEQ, parity, f.cst(0.0));
    F64 forward = f.add(extra, low);
    F64 backward = f.add(f.sub(span, extra), low);
    F64 reflected = f.select(even, forward, backward);
    // An empty range (align_corners on a dim of 1) maps everything to 0.
    Cond empty = f.cmp(arith::CmpFPredicate::OEQ, twiceLow, twiceHigh);
    return f.select(empty, f.cst(0.0), reflected);
  }

  /// The padding rule applied to a position (compute_coordinates).
  F64 pad(F64Math &f, F64 x, const GridAxis &a) const {
    switch (padding) {
    case GridPadding::Zeros:
      return x;
    case GridPadding::Border:
      return f.clamp(x, f.cst(0.0), a.sizeMinus1);
    case GridPadding::Reflection: {
      F64 r = alignCorners
                  ? reflect(f, x, f.cst(0.0), f.mul(f.cst(2.0), a.sizeMinus1))
                  : reflect(f, x, f.cst(-1.0),
                            f.sub(f.mul(f.cst(2.0), a.size), f.cst(1.0)));
      return f.clamp(r, f.cst(0.0), a.sizeMinus1);
    }
    }
    llvm_unreachable("padding mode");
  }
};

/// Integral positions along one axis: the clamped indices to read and
/// whether each lies on the input (else the tap reads 0).
struct AxisReads {
  SmallVector<Value> indices;
  SmallVector<Cond> inside;
};

AxisReads axisReads(F64Math &f, ArrayRef<F64> positions, const GridAxis &a) {
  shape::IndexMath m(f.b, f.loc);
  AxisReads reads;
  for (F64 p : positions) {
    Cond notBelow = f.cmp(arith::CmpFPredicate::OGE, p, f.cst(0.0));
    Cond notAbove = f.cmp(arith::CmpFPredicate::OLE, p, a.sizeMinus1);
    reads.inside.push_back(m.andOf(notBelow, notAbove));
    reads.indices.push_back(
        m.value(f.toIndex(f.clamp(p, f.cst(0.0), a.sizeMinus1))));
  }
  return reads;
}

FailureOr<SmallVector<Value>> lowerGridSample(Operation *op, OpBuilder &b) {
  auto gs = cast<onnx::ONNXGridSampleOp>(op);
  Location loc = op->getLoc();
  Value input = gs.getX(), grid = gs.getGrid();
  auto type = requireRanked(op, input, "X");
  auto gridType = requireRanked(op, grid, "grid");
  if (failed(type) || failed(gridType) ||
      failed(requireSupportedElement(op, type->getElementType())))
    return failure();
  Type elementType = type->getElementType();
  if (!isa<FloatType>(gridType->getElementType()))
    return op->emitError() << "GridSample: grid must hold floats, got "
                           << grid.getType();

  GridSampler sampler;
  StringRef mode = gs.getMode();
  // Opset 20 renamed bilinear/bicubic to linear/cubic.
  if (mode == "bilinear" || mode == "linear")
    sampler.mode = Mode::Linear;
  else if (mode == "nearest")
    sampler.mode = Mode::Nearest;
  else if (mode == "bicubic" || mode == "cubic")
    sampler.mode = Mode::Cubic;
  else
    return op->emitError() << "GridSample: mode '" << mode
                           << "' is not supported";
  StringRef padding = gs.getPaddingMode();
  if (padding == "zeros")
    sampler.padding = GridPadding::Zeros;
  else if (padding == "border")
    sampler.padding = GridPadding::Border;
  else if (padding == "reflection")
    sampler.padding = GridPadding::Reflection;
  else
    return op->emitError() << "GridSample: padding_mode '" << padding
                           << "' is not supported";
  sampler.alignCorners = gs.getAlignCorners() != 0;
  if (sampler.mode != Mode::Nearest && !isa<FloatType>(elementType))
    return op->emitError() << "GridSample: " << mode << " interpolation of "
                           << elementType << " is not supported";

  auto shape = shape::gridSampleShape(b, loc, input, grid, op);
  if (failed(shape))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, *shape);
  if (failed(dims))
    return failure();

  // The spatial extents as f64, once outside the generic.
  F64Math f(b, loc);
  auto axisOf = [&](int64_t d) {
    F64 size = f.fromIndex(shape::getDim(b, loc, input, d));
    return GridAxis{size, f.sub(size, f.cst(1.0))};
  };
  GridAxis height = axisOf(2), width = axisOf(3);

  Value result = indexGeneric(
      b, loc, *dims, elementType,
      [&](OpBuilder &nb, Location nl, ValueRange ivs) -> Value {
        F64Math f(nb, nl);
        shape::IndexMath m(nb, nl);
        Value n = ivs[0], c = ivs[1];
        auto gridAt = [&](int64_t k) {
          Value kk = arith::ConstantIndexOp::create(nb, nl, k);
          return f.of(f.extend(tensor::ExtractOp::create(
              nb, nl, grid, ValueRange{n, ivs[2], ivs[3], kk})));
        };
        F64 gx = gridAt(0), gy = gridAt(1);

        if (sampler.mode == Mode::Nearest) {
          F64 ix = sampler.pad(f, sampler.unnormalize(f, gx, width), width);
          F64 iy = sampler.pad(f, sampler.unnormalize(f, gy, height), height);
          AxisReads xs = axisReads(f, {f.roundEven(ix)}, width);
          AxisReads ys = axisReads(f, {f.roundEven(iy)}, height);
          Value v = tensor::ExtractOp::create(
              nb, nl, input, ValueRange{n, c, ys.indices[0], xs.indices[0]});
          Cond inside = m.andOf(ys.inside[0], xs.inside[0]);
          if (inside.isTrue())
            return v;
          return arith::SelectOp::create(
              nb, nl, m.value(inside), v,
              scalarConstant(nb, nl, elementType, 0.0));
        }

        // Taps and weights per axis; the value is their tensor product,
        // with taps off the input reading 0.
        SmallVector<F64> xPos, yPos, xWeights, yWeights;
        if (sampler.mode == Mode::Linear) {
          F64 ix = sampler.pad(f, sampler.unnormalize(f, gx, width), width);
          F64 iy = sampler.pad(f, sampler.unnormalize(f, gy, height), height);
          auto linear = [&](F64 i, SmallVector<F64> &pos, SmallVector<F64> &w) {
            F64 lo = f.floor(i);
            F64 hi = f.add(lo, f.cst(1.0));
            pos = {lo, hi};
            w = {f.sub(hi, i), f.sub(i, lo)};
          };
          linear(ix, xPos, xWeights);
          linear(iy, yPos, yWeights);
        } else {
          // Bicubic: the padding rule applies to each tap.
          F64 ix = sampler.unnormalize(f, gx, width);
          F64 iy = sampler.unnormalize(f, gy, height);
          auto cubic = [&](F64 i, const GridAxis &a, SmallVector<F64> &pos,
                           SmallVector<F64> &w) {
            F64 lo = f.floor(i);
            w = cubicWeights(f, f.sub(i, lo), -0.75);
            for (int k = -1; k <= 2; ++k)
              pos.push_back(sampler.pad(f, f.add(lo, f.cst(k)), a));
          };
          cubic(ix, width, xPos, xWeights);
          cubic(iy, height, yPos, yWeights);
        }
        AxisReads xs = axisReads(f, xPos, width);
        AxisReads ys = axisReads(f, yPos, height);
        Value zero = f.value(f.cst(0.0));
        Value sum;
        for (size_t i = 0; i < ys.indices.size(); ++i) {
          Value row;
          for (size_t k = 0; k < xs.indices.size(); ++k) {
            Value v = f.extend(tensor::ExtractOp::create(
                nb, nl, input, ValueRange{n, c, ys.indices[i], xs.indices[k]}));
            Cond inside = m.andOf(ys.inside[i], xs.inside[k]);
            if (!inside.isTrue())
              v = arith::SelectOp::create(nb, nl, m.value(inside), v, zero);
            Value term = arith::MulFOp::create(nb, nl, f.value(xWeights[k]), v);
            row = row ? arith::AddFOp::create(nb, nl, row, term).getResult()
                      : term;
          }
          Value term = arith::MulFOp::create(nb, nl, f.value(yWeights[i]), row);
          sum =
              sum ? arith::AddFOp::create(nb, nl, sum, term).getResult() : term;
        }
        if (!elementType.isF64())
          sum = arith::TruncFOp::create(nb, nl, elementType, sum);
        return sum;
      });
  return SmallVector<Value>{result};
}

} // namespace

void addGridSampleLowerings(LoweringTable &t) {
  t["onnx.GridSample"] = lowerGridSample;
}

} // namespace onyx::conversion
