//===- ResizeShapes.cpp - Result shapes of Resize and Upsample ------------===//
//
// See include/onyx/Shape/ResizeShapes.h.
//
//===----------------------------------------------------------------------===//

#include "onyx/Shape/ResizeShapes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;

namespace onyx::shape {

//===----------------------------------------------------------------------===//
// F64Math
//===----------------------------------------------------------------------===//

Value F64Math::value(F64 x) {
  if (x.known)
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(*x.known));
  return x.value;
}

F64 F64Math::add(F64 x, F64 y) {
  if (x.known && y.known)
    return cst(*x.known + *y.known);
  if (y.known == 0.0)
    return x;
  return of(arith::AddFOp::create(b, loc, value(x), value(y)));
}

F64 F64Math::sub(F64 x, F64 y) {
  if (x.known && y.known)
    return cst(*x.known - *y.known);
  if (y.known == 0.0)
    return x;
  return of(arith::SubFOp::create(b, loc, value(x), value(y)));
}

F64 F64Math::mul(F64 x, F64 y) {
  if (x.known && y.known)
    return cst(*x.known * *y.known);
  if (y.known == 1.0)
    return x;
  if (x.known == 1.0)
    return y;
  return of(arith::MulFOp::create(b, loc, value(x), value(y)));
}

F64 F64Math::div(F64 x, F64 y) {
  if (x.known && y.known)
    return cst(*x.known / *y.known);
  if (y.known == 1.0)
    return x;
  return of(arith::DivFOp::create(b, loc, value(x), value(y)));
}

F64 F64Math::floor(F64 x) {
  if (x.known)
    return cst(std::floor(*x.known));
  return of(math::FloorOp::create(b, loc, x.value));
}

F64 F64Math::ceil(F64 x) {
  if (x.known)
    return cst(std::ceil(*x.known));
  return of(math::CeilOp::create(b, loc, x.value));
}

F64 F64Math::abs(F64 x) {
  if (x.known)
    return cst(std::fabs(*x.known));
  return of(math::AbsFOp::create(b, loc, x.value));
}

F64 F64Math::roundEven(F64 x) {
  if (x.known)
    return cst(std::nearbyint(*x.known));
  return of(math::RoundEvenOp::create(b, loc, x.value));
}

F64 F64Math::rem(F64 x, F64 y) {
  if (x.known && y.known)
    return cst(std::fmod(*x.known, *y.known));
  return of(arith::RemFOp::create(b, loc, value(x), value(y)));
}

F64 F64Math::clamp(F64 x, F64 lo, F64 hi) {
  if (x.known && lo.known && hi.known)
    return cst(std::max(*lo.known, std::min(*x.known, *hi.known)));
  Value upper = arith::MinNumFOp::create(b, loc, value(x), value(hi));
  return of(arith::MaxNumFOp::create(b, loc, value(lo), upper));
}

F64 F64Math::select(Cond c, F64 x, F64 y) {
  if (c.known)
    return *c.known ? x : y;
  if (x.known && y.known && *x.known == *y.known)
    return x;
  return of(arith::SelectOp::create(b, loc, c.value, value(x), value(y)));
}

Cond F64Math::cmp(arith::CmpFPredicate pred, F64 x, F64 y) {
  if (x.known && y.known) {
    double l = *x.known, r = *y.known;
    switch (pred) {
    case arith::CmpFPredicate::OEQ:
      return Cond::of(l == r);
    case arith::CmpFPredicate::ONE:
      return Cond::of(l != r);
    case arith::CmpFPredicate::OLT:
      return Cond::of(l < r);
    case arith::CmpFPredicate::OLE:
      return Cond::of(l <= r);
    case arith::CmpFPredicate::OGT:
      return Cond::of(l > r);
    case arith::CmpFPredicate::OGE:
      return Cond::of(l >= r);
    default:
      break;
    }
  }
  return Cond::of(
      arith::CmpFOp::create(b, loc, pred, value(x), value(y)).getResult());
}

F64 F64Math::fromIndex(OpFoldResult v) {
  if (auto s = getStatic(v))
    return cst(double(*s));
  Value i64 =
      arith::IndexCastOp::create(b, loc, b.getI64Type(), cast<Value>(v));
  return of(arith::SIToFPOp::create(b, loc, b.getF64Type(), i64));
}

OpFoldResult F64Math::toIndex(F64 x) {
  if (x.known)
    return b.getIndexAttr(int64_t(*x.known));
  Value i64 = arith::FPToSIOp::create(b, loc, b.getI64Type(), x.value);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), i64).getResult();
}

Value F64Math::extend(Value element) {
  if (element.getType().isF64())
    return element;
  return arith::ExtFOp::create(b, loc, b.getF64Type(), element);
}

//===----------------------------------------------------------------------===//
// FloatList
//===----------------------------------------------------------------------===//

FloatList FloatList::constant(ArrayRef<double> values) {
  FloatList list;
  list.isConstantList = true;
  list.values.assign(values.begin(), values.end());
  return list;
}

FloatList FloatList::tensor(Value tensor) {
  FloatList list;
  list.source = tensor;
  return list;
}

std::optional<int64_t> FloatList::staticSize() const {
  if (isConstantList)
    return int64_t(values.size());
  if (!source)
    return 0;
  auto type = cast<RankedTensorType>(source.getType());
  if (type.getRank() == 0)
    return 1;
  if (type.isDynamicDim(0))
    return std::nullopt;
  return type.getDimSize(0);
}

OpFoldResult FloatList::size(IndexMath &m) const {
  if (auto s = staticSize())
    return m.cst(*s);
  return tensor::DimOp::create(m.b, m.loc, source, 0).getResult();
}

F64 FloatList::get(F64Math &f, int64_t k) const {
  if (isConstantList)
    return f.cst(values[k]);
  assert(source && "reading an absent list");
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<Value> indices;
  for (int64_t i = 0; i < type.getRank(); ++i)
    indices.push_back(arith::ConstantIndexOp::create(f.b, f.loc, k));
  Value element = tensor::ExtractOp::create(f.b, f.loc, source, indices);
  return f.of(f.extend(element));
}

//===----------------------------------------------------------------------===//
// Resize
//===----------------------------------------------------------------------===//

FailureOr<ResizeShape> resizeShape(OpBuilder &b, Location loc, Value input,
                                   const FloatList &scales,
                                   const IntList &sizes, StringRef opName,
                                   Operation *diagOp) {
  IndexMath m(b, loc);
  F64Math f(b, loc);
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  std::string op = opName.str();

  // A present but statically empty list is how opset 11 (and exporters
  // for opset 13) say "not given".
  bool haveSizes = !sizes.isAbsent() && sizes.staticSize() != 0;
  bool haveScales = !scales.isAbsent() && scales.staticSize() != 0;
  if (haveSizes && haveScales) {
    // Both present with run-time lengths: ONNX allows only one of them to
    // be non-empty, and sizes is the one that can be.
    OpFoldResult n = scales.size(m);
    if (failed(m.require(m.eq(n, m.cst(0)),
                         op + ": scales ({0} entries) and sizes are both "
                              "given; only one may be",
                         {n}, diagOp)))
      return failure();
    haveScales = false;
  }
  if (!haveSizes && !haveScales)
    return diagOp->emitError()
           << op << ": one of scales and sizes must be given";

  OpFoldResult n = haveSizes ? sizes.size(m) : scales.size(m);
  if (failed(m.require(m.eq(n, m.cst(rank)),
                       op + (haveSizes ? ": sizes" : ": scales") +
                           " has {0} entries, expected one per input dim "
                           "({1})",
                       {n, m.cst(rank)}, diagOp)))
    return failure();

  ResizeShape shape;
  for (int64_t i = 0; i < rank; ++i) {
    std::string dimName = op + ": dim " + std::to_string(i);
    ResizeDim dim;
    dim.input = getDim(b, loc, input, i);
    F64 in = f.fromIndex(dim.input);
    if (haveSizes) {
      dim.output = sizes.get(m, i);
      if (failed(m.require(m.le(m.cst(0), dim.output),
                           dimName + ": sizes entry {0} is negative",
                           {dim.output}, diagOp)))
        return failure();
      dim.length = f.fromIndex(dim.output);
      dim.scale = f.div(dim.length, in);
      auto si = getStatic(dim.input), so = getStatic(dim.output);
      dim.identity = si && so && *si == *so;
    } else {
      dim.scale = scales.get(f, i);
      dim.length = f.mul(in, dim.scale);
      // Checked before the length becomes an index: a non-positive, NaN
      // or huge scale would make a meaningless extent.
      Cond positive = f.cmp(arith::CmpFPredicate::OGT, dim.scale, f.cst(0.0));
      Cond bounded =
          f.cmp(arith::CmpFPredicate::OLT, dim.length, f.cst(0x1p52));
      Cond ok = m.andOf(positive, bounded);
      if (failed(m.require(ok,
                           dimName + ": the scale must be positive and give an "
                                     "extent below 2^52 (input extent {0})",
                           {dim.input}, diagOp)))
        return failure();
      dim.output = f.toIndex(f.floor(dim.length));
      dim.identity = dim.scale.known == 1.0;
    }
    // An empty input dim has nothing to interpolate from.
    Cond noOutput = m.eq(dim.output, m.cst(0));
    Cond haveInput = m.lt(m.cst(0), dim.input);
    if (failed(m.require(m.orOf(noOutput, haveInput),
                         dimName + ": cannot resize an empty dim to extent {0}",
                         {dim.output}, diagOp)))
      return failure();
    shape.dims.push_back(dim.output);
    shape.axes.push_back(dim);
  }
  return shape;
}

//===----------------------------------------------------------------------===//
// GridSample
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<OpFoldResult>> gridSampleShape(OpBuilder &b, Location loc,
                                                     Value input, Value grid,
                                                     Operation *diagOp) {
  auto inputType = cast<RankedTensorType>(input.getType());
  auto gridType = cast<RankedTensorType>(grid.getType());
  int64_t rank = inputType.getRank();
  if ((rank != 4 && rank != 5) || gridType.getRank() != rank)
    return diagOp->emitError()
           << "GridSample: X must be [N, C, H, W] with grid [N, H_out, W_out, "
              "2], or [N, C, D, H, W] with grid [N, D_out, H_out, W_out, 3], "
              "got "
           << inputType << " and " << gridType;
  int64_t spatial = rank - 2;
  SmallVector<OpFoldResult> x = getDims(b, loc, input);
  SmallVector<OpFoldResult> g = getDims(b, loc, grid);
  if (failed(checkEqual(b, loc, x[0], g[0], "GridSample: batch of X and grid",
                        diagOp)) ||
      failed(checkEqual(b, loc, g[rank - 1], b.getIndexAttr(spatial),
                        "GridSample: grid's last dim and the spatial rank",
                        diagOp)))
    return failure();
  // Every sample reads the input (at clamped positions), so it must hold
  // something; PyTorch rejects empty spatial dims too.
  IndexMath m(b, loc);
  Cond nonEmpty = Cond::of(true);
  for (int64_t d = 2; d < rank; ++d)
    nonEmpty = m.andOf(nonEmpty, m.lt(m.cst(0), x[d]));
  SmallVector<OpFoldResult> spatialDims(x.begin() + 2, x.end());
  std::string message = "GridSample: X's spatial dims {0}";
  for (int64_t d = 1; d < spatial; ++d)
    message += " x {" + std::to_string(d) + "}";
  if (failed(m.require(nonEmpty, message + " must be non-empty", spatialDims,
                       diagOp)))
    return failure();
  SmallVector<OpFoldResult> dims = {x[0], x[1]};
  dims.append(g.begin() + 1, g.end() - 1);
  return dims;
}

} // namespace onyx::shape
