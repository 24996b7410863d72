//===- Pooling.cpp - Pooling ops ------------------------------------------===//
//
// MaxPool (with its Indices), AveragePool, LpPool and the global pools. The
// windowed pools are linalg.generics whose kernel taps are reduction loops
// over the explicitly padded input, built with the window machinery of
// Convolution.cpp (ConvolutionCommon.h); result dims and paddings come from
// lib/Shape/ConvolutionShapes.cpp. AveragePool divides by the number of
// taps inside the input (or the explicit padding with count_include_pad),
// computed per output position.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionCommon.h"

using namespace mlir;

namespace onyx::conversion::convolution {
namespace {

Value add(OpBuilder &b, Location l, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, l, x, y);
  return arith::AddIOp::create(b, l, x, y);
}

/// A tensor of `dims` whose extents bound the tap loops of a pooling
/// generic (its contents are never read).
Value kernelBounds(OpBuilder &b, Location loc, ArrayRef<int64_t> kernel,
                   Type elementType) {
  SmallVector<OpFoldResult> dims;
  for (int64_t k : kernel)
    dims.push_back(b.getIndexAttr(k));
  return emptyTensor(b, loc, dims, elementType);
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// What every windowed pool starts from.
struct PoolSetup {
  WindowAttrs attrs;
  shape::PoolShape shape;
  SmallVector<int64_t> kernel;
  Type elementType;
};

FailureOr<PoolSetup> setUpPool(Operation *op, OpBuilder &b, Value x,
                               bool allowIntegers) {
  auto xType = requireRanked(op, x, "the input X");
  if (failed(xType))
    return failure();
  PoolSetup setup;
  setup.elementType = xType->getElementType();
  bool isInteger = isa<IntegerType>(setup.elementType);
  if (!isa<FloatType>(setup.elementType) && !(allowIntegers && isInteger))
    return op->emitError() << op->getName().getStringRef().drop_front(5)
                           << " on " << setup.elementType
                           << " is not supported";
  int64_t rank = xType->getRank() - 2;
  if (rank < 1)
    return op->emitError("the input must have rank >= 3 ([N, C, spatial...])");
  auto attrs = shape::getWindowAttrs(op, rank);
  if (failed(attrs))
    return failure();
  setup.attrs = *attrs;
  setup.kernel = intList(op->getAttrOfType<ArrayAttr>("kernel_shape"));
  auto shape =
      shape::poolShape(b, op->getLoc(), x, setup.kernel, setup.attrs, op);
  if (failed(shape))
    return failure();
  setup.shape = *shape;
  return setup;
}

/// Maps of a pooling generic over loops n, c, o..., t...: the padded input,
/// the kernel-bounds tensor and the result.
SmallVector<AffineMap> poolMaps(const WindowLoops &loops,
                                const WindowAttrs &attrs, int64_t results) {
  SmallVector<AffineExpr> xExprs = {loops.loop(0), loops.loop(1)};
  SmallVector<AffineExpr> kExprs, yExprs = {loops.loop(0), loops.loop(1)};
  for (int64_t i = 0; i < loops.rank; ++i) {
    xExprs.push_back(loops.read(i, attrs.strides[i], attrs.dilations[i]));
    kExprs.push_back(loops.tap(i));
    yExprs.push_back(loops.out(i));
  }
  SmallVector<AffineMap> maps = {loops.map(xExprs), loops.map(kExprs)};
  maps.append(results, loops.map(yExprs));
  return maps;
}

/// MaxPool's Indices: the flat position of the input element in
/// [N, C, D1...] order (row-major spatial dims, or column-major with
/// storage_order 1), padding not counted.
Value flatInputIndex(OpBuilder &b, Location loc, const WindowLoops &loops,
                     const WindowAttrs &attrs, ArrayRef<WindowDim> window,
                     ArrayRef<Value> extents /*N, C, D...*/, bool columnMajor) {
  int64_t rank = loops.rank;
  SmallVector<Value> positions;
  for (int64_t i = 0; i < rank; ++i) {
    Value o = loopIndex(b, loc, loops.outLoop(i));
    Value t = loopIndex(b, loc, loops.tapLoop(i));
    Value s = arith::ConstantIndexOp::create(b, loc, attrs.strides[i]);
    Value d = arith::ConstantIndexOp::create(b, loc, attrs.dilations[i]);
    Value padded =
        arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, o, s),
                              arith::MulIOp::create(b, loc, t, d));
    positions.push_back(arith::SubIOp::create(
        b, loc, padded, shape::toValue(b, loc, window[i].padBegin)));
  }
  // (n * C + c) * prod(D) + spatial offset.
  Value flat = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, loopIndex(b, loc, 0), extents[1]),
      loopIndex(b, loc, 1));
  Value spatial;
  if (!columnMajor) {
    spatial = positions[0];
    for (int64_t i = 1; i < rank; ++i)
      spatial = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, spatial, extents[2 + i]),
          positions[i]);
  } else {
    spatial = positions[rank - 1];
    for (int64_t i = rank - 2; i >= 0; --i)
      spatial = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, spatial, extents[2 + i]),
          positions[i]);
  }
  for (int64_t i = 0; i < rank; ++i)
    flat = arith::MulIOp::create(b, loc, flat, extents[2 + i]);
  return arith::AddIOp::create(b, loc, flat, spatial);
}

Value maxOf(OpBuilder &b, Location loc, Value x, Value y, bool asUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, loc, x, y);
  if (asUnsigned)
    return arith::MaxUIOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}

/// x > y, false for NaN x (the first maximum wins).
Value greaterThan(OpBuilder &b, Location loc, Value x, Value y,
                  bool asUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, y);
  return arith::CmpIOp::create(
      b, loc,
      asUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt, x, y);
}

FailureOr<SmallVector<Value>> lowerMaxPool(Operation *op, OpBuilder &b) {
  auto pool = cast<onnx::ONNXMaxPoolOp>(op);
  Location loc = op->getLoc();
  auto setup = setUpPool(op, b, pool.getX(), /*allowIntegers=*/true);
  if (failed(setup))
    return failure();
  int64_t storageOrder = pool.getStorageOrder();
  if (storageOrder != 0 && storageOrder != 1)
    return op->emitError() << "storage_order must be 0 or 1; it is "
                           << storageOrder;
  bool wantIndices = !isa<NoneType>(pool.getIndices().getType());
  // arith works on signless integers: unsigned inputs are reinterpreted
  // (and compared as unsigned) and the result reinterpreted back.
  Type elementType = setup->elementType;
  bool asUnsigned = isUnsignedInt(elementType);
  Type computeType = signlessOf(elementType);
  Value x = castElements(b, loc, pool.getX(), computeType);

  Value lowest = lowestValue(b, loc, computeType, asUnsigned);
  Value padded = padForWindow(b, loc, x, setup->shape.window, lowest);
  int64_t rank = int64_t(setup->kernel.size());
  WindowLoops loops{2, rank, 0, b.getContext()};
  Value bounds = kernelBounds(b, loc, setup->kernel, computeType);
  SmallVector<Value> inits = {filledTensor(b, loc, setup->shape.dims, lowest)};
  SmallVector<Value> extents;
  if (wantIndices) {
    inits.push_back(filledTensor(b, loc, setup->shape.dims,
                                 scalarConstant(b, loc, b.getI64Type(), 0)));
    for (OpFoldResult d : shape::getDims(b, loc, x))
      extents.push_back(shape::toValue(b, loc, d));
  }
  SmallVector<Value> results = buildWindowGeneric(
      b, loc, {padded, bounds}, inits,
      poolMaps(loops, setup->attrs, int64_t(inits.size())), loops.iterators(),
      [&](OpBuilder &nb, Location nl, ValueRange args) -> SmallVector<Value> {
        Value v = args[0], acc = args[2];
        if (!wantIndices)
          return {maxOf(nb, nl, acc, v, asUnsigned)};
        Value better = greaterThan(nb, nl, v, acc, asUnsigned);
        Value index =
            flatInputIndex(nb, nl, loops, setup->attrs, setup->shape.window,
                           extents, storageOrder == 1);
        index = arith::IndexCastOp::create(nb, nl, nb.getI64Type(), index);
        return {arith::SelectOp::create(nb, nl, better, v, acc),
                arith::SelectOp::create(nb, nl, better, index, args[3])};
      });
  results[0] = castElements(b, loc, results[0], elementType);
  if (!wantIndices)
    results.push_back(Value());
  return results;
}

/// The number of taps t in [0, K) of output position `o` whose padded
/// position o * s + t * d lies in [lo, hi).
Value tapsInRange(OpBuilder &b, Location loc, Value o, int64_t stride,
                  int64_t dilation, int64_t kernel, Value lo, Value hi) {
  Value start = arith::MulIOp::create(
      b, loc, o, arith::ConstantIndexOp::create(b, loc, stride));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  // ceil(max(v, 0) / d): the first tap at or past a distance v.
  auto tapsBefore = [&](Value bound) -> Value {
    Value v = arith::MaxSIOp::create(
        b, loc, zero, arith::SubIOp::create(b, loc, bound, start));
    Value up = arith::AddIOp::create(
        b, loc, v, arith::ConstantIndexOp::create(b, loc, dilation - 1));
    return arith::DivUIOp::create(
        b, loc, up, arith::ConstantIndexOp::create(b, loc, dilation));
  };
  Value first = tapsBefore(lo);
  Value end = arith::MinSIOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, kernel), tapsBefore(hi));
  return arith::MaxSIOp::create(b, loc, zero,
                                arith::SubIOp::create(b, loc, end, first));
}

/// Sum of the window (zero padding) of every output position; the common
/// first step of AveragePool and LpPool. `term` maps an element to what is
/// summed.
Value windowSum(OpBuilder &b, Location loc, Value x, const PoolSetup &setup,
                function_ref<Value(OpBuilder &, Location, Value)> term) {
  Value zero = scalarConstant(b, loc, setup.elementType, 0.0);
  Value padded = padForWindow(b, loc, x, setup.shape.window, zero);
  int64_t rank = int64_t(setup.kernel.size());
  WindowLoops loops{2, rank, 0, b.getContext()};
  Value bounds = kernelBounds(b, loc, setup.kernel, setup.elementType);
  Value init = filledTensor(b, loc, setup.shape.dims, zero);
  return buildWindowGeneric(b, loc, {padded, bounds}, {init},
                            poolMaps(loops, setup.attrs, 1), loops.iterators(),
                            [&](OpBuilder &nb, Location nl, ValueRange args) {
                              return SmallVector<Value>{
                                  add(nb, nl, args[2], term(nb, nl, args[0]))};
                            })
      .front();
}

FailureOr<SmallVector<Value>> lowerAveragePool(Operation *op, OpBuilder &b) {
  auto pool = cast<onnx::ONNXAveragePoolOp>(op);
  Location loc = op->getLoc();
  auto setup = setUpPool(op, b, pool.getX(), /*allowIntegers=*/false);
  if (failed(setup))
    return failure();
  bool includePad = pool.getCountIncludePad() != 0;
  Value sum = windowSum(b, loc, pool.getX(), *setup,
                        [](OpBuilder &, Location, Value v) { return v; });

  // The divisor: the taps inside the input, or inside input and explicit
  // padding with count_include_pad (never the ceil_mode overhang). Constant
  // when no window reaches past what is counted.
  int64_t rank = int64_t(setup->kernel.size());
  ArrayRef<WindowDim> window = setup->shape.window;
  bool constantCount = llvm::all_of(window, [&](const WindowDim &d) {
    bool noOverhang =
        shape::getStatic(d.padHigh) == shape::getStatic(d.padEnd) &&
        shape::getStatic(d.padEnd).has_value();
    bool noPad =
        shape::getStatic(d.padBegin) == 0 && shape::getStatic(d.padHigh) == 0;
    return includePad ? noOverhang : noPad;
  });
  SmallVector<Value> lo, hi;
  if (!constantCount) {
    SmallVector<OpFoldResult> xDims = shape::getDims(b, loc, pool.getX());
    for (int64_t i = 0; i < rank; ++i) {
      Value begin = shape::toValue(b, loc, window[i].padBegin);
      Value inputEnd = arith::AddIOp::create(
          b, loc, begin, shape::toValue(b, loc, xDims[2 + i]));
      if (includePad) {
        lo.push_back(arith::ConstantIndexOp::create(b, loc, 0));
        hi.push_back(arith::AddIOp::create(
            b, loc, inputEnd, shape::toValue(b, loc, window[i].padEnd)));
      } else {
        lo.push_back(begin);
        hi.push_back(inputEnd);
      }
    }
  }
  int64_t fullCount = 1;
  for (int64_t k : setup->kernel)
    fullCount *= k;
  Type elementType = setup->elementType;
  SmallVector<IteratorType> iters(rank + 2, IteratorType::parallel);
  Value init = emptyTensor(b, loc, setup->shape.dims, elementType);
  Value result = buildGeneric(
      b, loc, {identityAccess(sum)}, init, iota(rank + 2), iters,
      [&](OpBuilder &nb, Location nl, ValueRange in, Value) -> Value {
        Value count;
        if (constantCount) {
          count = scalarConstant(nb, nl, elementType, double(fullCount));
        } else {
          Value taps = arith::ConstantIndexOp::create(nb, nl, 1);
          for (int64_t i = 0; i < rank; ++i)
            taps = arith::MulIOp::create(
                nb, nl, taps,
                tapsInRange(nb, nl, loopIndex(nb, nl, 2 + i),
                            setup->attrs.strides[i], setup->attrs.dilations[i],
                            setup->kernel[i], lo[i], hi[i]));
          // A ceil_mode window may lie entirely in the end padding; it
          // averages to 0 rather than 0/0.
          taps = arith::MaxSIOp::create(
              nb, nl, taps, arith::ConstantIndexOp::create(nb, nl, 1));
          Value taps64 =
              arith::IndexCastOp::create(nb, nl, nb.getI64Type(), taps);
          count = arith::SIToFPOp::create(nb, nl, elementType, taps64);
        }
        return arith::DivFOp::create(nb, nl, in[0], count);
      });
  return SmallVector<Value>{result};
}

/// |v|^p for the Lp pools.
Value lpTerm(OpBuilder &b, Location loc, Value v, int64_t p) {
  Value a = math::AbsFOp::create(b, loc, v);
  if (p == 1)
    return a;
  if (p == 2)
    return arith::MulFOp::create(b, loc, a, a);
  return math::PowFOp::create(b, loc, a,
                              scalarConstant(b, loc, v.getType(), double(p)));
}

/// sum^(1/p) for the Lp pools.
Value lpRoot(OpBuilder &b, Location loc, Value sum, int64_t p) {
  if (p == 1)
    return sum;
  if (p == 2)
    return math::SqrtOp::create(b, loc, sum);
  return math::PowFOp::create(
      b, loc, sum, scalarConstant(b, loc, sum.getType(), 1.0 / double(p)));
}

/// Elementwise `fn` over `t`.
Value mapElements(OpBuilder &b, Location loc, Value t,
                  function_ref<Value(OpBuilder &, Location, Value)> fn) {
  auto type = cast<RankedTensorType>(t.getType());
  int64_t rank = type.getRank();
  SmallVector<IteratorType> iters(rank, IteratorType::parallel);
  Value init =
      emptyTensor(b, loc, shape::getDims(b, loc, t), type.getElementType());
  return buildGeneric(b, loc, {identityAccess(t)}, init, iota(rank), iters,
                      [&](OpBuilder &nb, Location nl, ValueRange in, Value) {
                        return fn(nb, nl, in[0]);
                      });
}

FailureOr<SmallVector<Value>> lowerLpPool(Operation *op, OpBuilder &b) {
  auto pool = cast<onnx::ONNXLpPoolOp>(op);
  Location loc = op->getLoc();
  int64_t p = pool.getP();
  if (p < 1)
    return op->emitError() << "LpPool needs p >= 1; it is " << p;
  auto setup = setUpPool(op, b, pool.getX(), /*allowIntegers=*/false);
  if (failed(setup))
    return failure();
  Value sum = windowSum(b, loc, pool.getX(), *setup,
                        [&](OpBuilder &nb, Location nl, Value v) {
                          return lpTerm(nb, nl, v, p);
                        });
  return SmallVector<Value>{
      mapElements(b, loc, sum, [&](OpBuilder &nb, Location nl, Value v) {
        return lpRoot(nb, nl, v, p);
      })};
}

//===----------------------------------------------------------------------===//
// Global pools
//===----------------------------------------------------------------------===//

enum class GlobalKind { Average, Max, Lp };

/// Reduces the spatial dims of X [N, C, S...] into [N, C, 1...].
template <GlobalKind Kind>
FailureOr<SmallVector<Value>> lowerGlobalPool(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  Value x = op->getOperand(0);
  auto xType = requireRanked(op, x, "the input X");
  if (failed(xType))
    return failure();
  Type elementType = xType->getElementType();
  if (!isa<FloatType>(elementType))
    return op->emitError() << op->getName().getStringRef().drop_front(5)
                           << " on " << elementType << " is not supported";
  int64_t p = 2;
  if (Kind == GlobalKind::Lp) {
    p = cast<onnx::ONNXGlobalLpPoolOp>(op).getP();
    if (p < 1)
      return op->emitError() << "GlobalLpPool needs p >= 1; it is " << p;
  }
  auto dims = shape::globalPoolShape(b, loc, x, op);
  if (failed(dims))
    return failure();
  int64_t rank = xType->getRank();
  Value start = Kind == GlobalKind::Max
                    ? lowestValue(b, loc, elementType, false)
                    : scalarConstant(b, loc, elementType, 0.0);
  SmallVector<IteratorType> iters(rank, IteratorType::reduction);
  iters[0] = iters[1] = IteratorType::parallel;
  SmallVector<int64_t> outLoops(rank, -1);
  outLoops[0] = 0;
  outLoops[1] = 1;
  Value reduced = buildGeneric(
      b, loc, {identityAccess(x)}, filledTensor(b, loc, *dims, start), outLoops,
      iters,
      [&](OpBuilder &nb, Location nl, ValueRange in, Value acc) -> Value {
        if (Kind == GlobalKind::Max)
          return arith::MaximumFOp::create(nb, nl, acc, in[0]);
        if (Kind == GlobalKind::Lp)
          return arith::AddFOp::create(nb, nl, acc, lpTerm(nb, nl, in[0], p));
        return arith::AddFOp::create(nb, nl, acc, in[0]);
      });
  if (Kind == GlobalKind::Max)
    return SmallVector<Value>{reduced};
  if (Kind == GlobalKind::Lp)
    return SmallVector<Value>{
        mapElements(b, loc, reduced, [&](OpBuilder &nb, Location nl, Value v) {
          return lpRoot(nb, nl, v, p);
        })};

  // Mean: divide by the number of spatial elements.
  Value count = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t i = 2; i < rank; ++i)
    count = arith::MulIOp::create(
        b, loc, count, shape::toValue(b, loc, shape::getDim(b, loc, x, i)));
  Value countF = arith::SIToFPOp::create(
      b, loc, elementType,
      arith::IndexCastOp::create(b, loc, b.getI64Type(), count));
  return SmallVector<Value>{
      mapElements(b, loc, reduced, [&](OpBuilder &nb, Location nl, Value v) {
        return arith::DivFOp::create(nb, nl, v, countF);
      })};
}

} // namespace

void addPoolingLowerings(LoweringTable &t) {
  t["onnx.MaxPool"] = lowerMaxPool;
  t["onnx.AveragePool"] = lowerAveragePool;
  t["onnx.LpPool"] = lowerLpPool;
  t["onnx.GlobalAveragePool"] = lowerGlobalPool<GlobalKind::Average>;
  t["onnx.GlobalMaxPool"] = lowerGlobalPool<GlobalKind::Max>;
  t["onnx.GlobalLpPool"] = lowerGlobalPool<GlobalKind::Lp>;
}

} // namespace onyx::conversion::convolution
