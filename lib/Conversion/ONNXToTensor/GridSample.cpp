//===- GridSample.cpp - GridSample ----------------------------------------===//
//
// GridSample (opset 16: 4-D X and grid; opset 20 also 5-D, volumetric,
// for linear and nearest; bilinear/linear, nearest, bicubic/cubic; zeros,
// border, reflection padding; align_corners) follows PyTorch's
// grid_sample, which the ONNX tests were generated from: one generic over
// [N, C, (D_out,) H_out, W_out] reading the grid's coordinates (x samples
// the last dim), then 1, 2 or 4 taps per spatial dim at clamped indices
// (their tensor product), each tap off the input reading 0. Bilinear and
// nearest apply the padding rule to the coordinate, bicubic to each tap, as
// PyTorch does; nearest rounds half to even (nearbyint).
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

  int64_t rank = type->getRank(), spatial = rank - 2;
  if (sampler.mode == Mode::Cubic && spatial != 2)
    return op->emitError() << "GridSample: " << mode
                           << " interpolation is defined for 2-D inputs only, "
                              "got "
                           << input.getType();

  // The spatial extents as f64, once outside the generic; axes[s] is input
  // dim 2 + s, sampled by grid component spatial - 1 - s (x is the last).
  F64Math f(b, loc);
  SmallVector<GridAxis> axes;
  for (int64_t d = 2; d < rank; ++d) {
    F64 size = f.fromIndex(shape::getDim(b, loc, input, d));
    axes.push_back(GridAxis{size, f.sub(size, f.cst(1.0))});
  }

  Value result = indexGeneric(
      b, loc, *dims, elementType,
      [&](OpBuilder &nb, Location nl, ValueRange ivs) -> Value {
        F64Math f(nb, nl);
        shape::IndexMath m(nb, nl);
        // Per spatial dim: the taps' (clamped) indices, whether each is on
        // the input, and their weights (none for nearest).
        SmallVector<AxisReads> reads;
        SmallVector<SmallVector<F64>> weights;
        for (int64_t s = 0; s < spatial; ++s) {
          SmallVector<Value> at = {ivs[0]};
          at.append(ivs.begin() + 2, ivs.end());
          at.push_back(arith::ConstantIndexOp::create(nb, nl, spatial - 1 - s));
          F64 g = f.of(f.extend(tensor::ExtractOp::create(nb, nl, grid, at)));
          const GridAxis &a = axes[s];
          SmallVector<F64> pos, w;
          if (sampler.mode == Mode::Nearest) {
            pos = {
                f.roundEven(sampler.pad(f, sampler.unnormalize(f, g, a), a))};
          } else if (sampler.mode == Mode::Linear) {
            F64 i = sampler.pad(f, sampler.unnormalize(f, g, a), a);
            F64 lo = f.floor(i);
            F64 hi = f.add(lo, f.cst(1.0));
            pos = {lo, hi};
            w = {f.sub(hi, i), f.sub(i, lo)};
          } else {
            // Bicubic: the padding rule applies to each tap.
            F64 i = sampler.unnormalize(f, g, a);
            F64 lo = f.floor(i);
            w = cubicWeights(f, f.sub(i, lo), -0.75);
            for (int k = -1; k <= 2; ++k)
              pos.push_back(sampler.pad(f, f.add(lo, f.cst(k)), a));
          }
          reads.push_back(axisReads(f, pos, a));
          weights.push_back(w);
        }

        // The tensor product of the taps, outermost dim first; a tap off
        // the input reads 0.
        SmallVector<Value> indices = {ivs[0], ivs[1]};
        indices.resize(rank);
        Value zero = f.value(f.cst(0.0));
        std::function<Value(int64_t, Cond)> sample = [&](int64_t s,
                                                         Cond inside) -> Value {
          if (s == spatial) {
            Value v = tensor::ExtractOp::create(nb, nl, input, indices);
            if (sampler.mode != Mode::Nearest)
              v = f.extend(v);
            if (inside.isTrue())
              return v;
            Value off = sampler.mode == Mode::Nearest
                            ? scalarConstant(nb, nl, elementType, 0.0)
                            : zero;
            return arith::SelectOp::create(nb, nl, m.value(inside), v, off);
          }
          Value sum;
          for (size_t k = 0; k < reads[s].indices.size(); ++k) {
            indices[2 + s] = reads[s].indices[k];
            Value v = sample(s + 1, m.andOf(inside, reads[s].inside[k]));
            if (sampler.mode == Mode::Nearest)
              return v;
            Value term =
                arith::MulFOp::create(nb, nl, f.value(weights[s][k]), v);
            sum = sum ? arith::AddFOp::create(nb, nl, sum, term).getResult()
                      : term;
          }
          return sum;
        };
        Value v = sample(0, Cond::of(true));
        if (sampler.mode != Mode::Nearest && !elementType.isF64())
          v = arith::TruncFOp::create(nb, nl, elementType, v);
        return v;
      });
  return SmallVector<Value>{result};
}

} // namespace

void addGridSampleLowerings(LoweringTable &t) {
  t["onnx.GridSample"] = lowerGridSample;
}

} // namespace onyx::conversion
