//===- Reduction.cpp - Reduce*, ArgMax/ArgMin and Hardmax -----------------===//
//
// A Reduce* op is a fold of its (optionally pre-mapped) input into an
// accumulator filled with the fold's identity, one linalg.generic whose
// reduction loops are the reduced dims, followed by an elementwise generic
// for what comes after the fold (Mean's division, L2's sqrt, ...). The
// identity is what a zero-size reduction returns.
//
// Axes known at compile time (the attribute, or a constant axes input) pick
// the reduction loops statically and the accumulator has the result's dims.
// Axes read at run time (ReduceSum's axes input fed by the caller) cannot
// pick loops, so each input dim i gets a parallel loop l_i over its kept
// extent (1 when reduced) and a reduction loop k_i over its folded extent
// (1 when kept), and the input is read at l + k: one of the two ranges is
// trivial, so every element is visited exactly once. The accumulator then
// has the keepdims layout and is reshaped when keepdims=0.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "onyx/Shape/ReductionShapes.h"

using namespace mlir;

namespace onyx::conversion {
namespace {

//===----------------------------------------------------------------------===//
// Scalar pieces
//===----------------------------------------------------------------------===//

enum class Combine { Add, Mul, Max, Min };
/// Applied to each input element before it is folded.
enum class Pre { None, Abs, Square, ExpShifted };
/// Applied to each folded value.
enum class Post { None, Sqrt, Log, Mean, LogShifted };

bool isFloat(Type type) { return isa<FloatType>(type); }

/// The fold's identity: what an empty reduction yields.
Value identityValue(OpBuilder &b, Location loc, Combine combine, Type type) {
  switch (combine) {
  case Combine::Add:
    return scalarConstant(b, loc, type, 0.0);
  case Combine::Mul:
    return scalarConstant(b, loc, type, 1.0);
  case Combine::Max:
  case Combine::Min:
    break;
  }
  bool lowest = combine == Combine::Max;
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(floatType,
                       APFloat::getInf(floatType.getFloatSemantics(), lowest)));
  unsigned width = type.getIntOrFloatBitWidth();
  // Bool (ReduceMax/Min-20): max is any, min is all.
  if (width == 1)
    return arith::ConstantOp::create(b, loc,
                                     b.getIntegerAttr(type, lowest ? 0 : 1));
  APInt value = lowest ? APInt::getSignedMinValue(width)
                       : APInt::getSignedMaxValue(width);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, value));
}

Value combineValues(OpBuilder &b, Location loc, Combine combine, Value acc,
                    Value x) {
  bool f = isFloat(x.getType());
  switch (combine) {
  case Combine::Add:
    return f ? arith::AddFOp::create(b, loc, acc, x).getResult()
             : arith::AddIOp::create(b, loc, acc, x).getResult();
  case Combine::Mul:
    return f ? arith::MulFOp::create(b, loc, acc, x).getResult()
             : arith::MulIOp::create(b, loc, acc, x).getResult();
  case Combine::Max:
    // maximumf propagates NaN, like numpy's max; bool max is or.
    if (x.getType().isInteger(1))
      return arith::OrIOp::create(b, loc, acc, x);
    return f ? arith::MaximumFOp::create(b, loc, acc, x).getResult()
             : arith::MaxSIOp::create(b, loc, acc, x).getResult();
  case Combine::Min:
    if (x.getType().isInteger(1))
      return arith::AndIOp::create(b, loc, acc, x);
    return f ? arith::MinimumFOp::create(b, loc, acc, x).getResult()
             : arith::MinSIOp::create(b, loc, acc, x).getResult();
  }
  llvm_unreachable("unknown combine");
}

/// The shift LogSumExp subtracts before exp: the max when finite, else 0
/// (an all -inf or +inf slice must give log(sum(exp(x))), not NaN).
Value stableShift(OpBuilder &b, Location loc, Value max) {
  auto type = cast<FloatType>(max.getType());
  Value inf = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(type, APFloat::getInf(type.getFloatSemantics())));
  Value finite = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE,
                                       math::AbsFOp::create(b, loc, max), inf);
  return arith::SelectOp::create(b, loc, finite, max,
                                 scalarConstant(b, loc, type, 0.0));
}

Value applyPre(OpBuilder &b, Location loc, Pre pre, Value x, Value max) {
  bool f = isFloat(x.getType());
  switch (pre) {
  case Pre::None:
    return x;
  case Pre::Abs:
    return f ? math::AbsFOp::create(b, loc, x).getResult()
             : math::AbsIOp::create(b, loc, x).getResult();
  case Pre::Square:
    return f ? arith::MulFOp::create(b, loc, x, x).getResult()
             : arith::MulIOp::create(b, loc, x, x).getResult();
  case Pre::ExpShifted:
    return math::ExpOp::create(
        b, loc, arith::SubFOp::create(b, loc, x, stableShift(b, loc, max)));
  }
  llvm_unreachable("unknown pre-map");
}

/// `count` (an index extent) as a scalar of `type`.
Value countAsScalar(OpBuilder &b, Location loc, OpFoldResult count, Type type) {
  Value index = shape::toValue(b, loc, count);
  if (!isFloat(type))
    return arith::IndexCastOp::create(b, loc, type, index);
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  return arith::SIToFPOp::create(b, loc, type, i64);
}

//===----------------------------------------------------------------------===//
// Reduction loops
//===----------------------------------------------------------------------===//

/// How a fold iterates: its loops, where it reads the input, where it
/// accumulates, and (axes known at run time only) a tensor that exists to
/// bound the reduction loops.
struct ReductionLoops {
  SmallVector<utils::IteratorType> iterators;
  AffineMap inputMap, accMap;
  Value bound;
  AffineMap boundMap;
  SmallVector<OpFoldResult> accDims;
};

/// One loop per input dim; the accumulator has the result's dims (reduced
/// dims dropped, or read at index 0 with keepdims).
ReductionLoops staticLoops(MLIRContext *ctx, const shape::ReduceShape &shape,
                           bool keepDims) {
  int64_t rank = int64_t(shape.reduced.size());
  ReductionLoops loops;
  SmallVector<AffineExpr> accExprs;
  for (int64_t i = 0; i < rank; ++i) {
    bool reduced = shape.reduced[i];
    loops.iterators.push_back(reduced ? utils::IteratorType::reduction
                                      : utils::IteratorType::parallel);
    if (!reduced)
      accExprs.push_back(getAffineDimExpr(unsigned(i), ctx));
    else if (keepDims)
      accExprs.push_back(getAffineConstantExpr(0, ctx));
  }
  loops.inputMap = AffineMap::getMultiDimIdentityMap(unsigned(rank), ctx);
  loops.accMap = AffineMap::get(unsigned(rank), 0, accExprs, ctx);
  loops.accDims = shape.dims;
  return loops;
}

/// Loops l_0..l_{r-1} (parallel, kept extents) then k_0..k_{r-1}
/// (reduction, folded extents); the input is read at l + k.
ReductionLoops runtimeLoops(OpBuilder &b, Location loc,
                            const shape::RuntimeReduceShape &shape) {
  MLIRContext *ctx = b.getContext();
  unsigned rank = unsigned(shape.reduced.size());
  ReductionLoops loops;
  loops.iterators.assign(rank, utils::IteratorType::parallel);
  loops.iterators.append(rank, utils::IteratorType::reduction);
  SmallVector<AffineExpr> inputExprs, accExprs, boundExprs;
  for (unsigned i = 0; i < rank; ++i) {
    AffineExpr l = getAffineDimExpr(i, ctx),
               k = getAffineDimExpr(rank + i, ctx);
    inputExprs.push_back(l + k);
    accExprs.push_back(l);
    boundExprs.push_back(k);
  }
  loops.inputMap = AffineMap::get(2 * rank, 0, inputExprs, ctx);
  loops.accMap = AffineMap::get(2 * rank, 0, accExprs, ctx);
  loops.boundMap = AffineMap::get(2 * rank, 0, boundExprs, ctx);
  // Never read; i8 keeps its buffer small.
  loops.bound = emptyTensor(b, loc, shape.foldedDims, b.getI8Type());
  loops.accDims = shape.keptDims;
  return loops;
}

/// Folds `input`, pre-mapped by `pre`, into a fresh accumulator. `max`
/// (accumulator-shaped) is read alongside for Pre::ExpShifted.
Value foldInput(OpBuilder &b, Location loc, const ReductionLoops &loops,
                Value input, Combine combine, Pre pre, Value max) {
  Type elementType = cast<RankedTensorType>(input.getType()).getElementType();
  Value init = filledTensor(b, loc, loops.accDims,
                            identityValue(b, loc, combine, elementType));
  SmallVector<Value> inputs{input};
  SmallVector<AffineMap> maps{loops.inputMap};
  if (max) {
    inputs.push_back(max);
    maps.push_back(loops.accMap);
  }
  if (loops.bound) {
    inputs.push_back(loops.bound);
    maps.push_back(loops.boundMap);
  }
  maps.push_back(loops.accMap);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      loops.iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value x = applyPre(nb, nl, pre, args[0], max ? args[1] : Value());
        linalg::YieldOp::create(nb, nl,
                                combineValues(nb, nl, combine, args.back(), x));
      });
  return generic.getResult(0);
}

/// Applies `post` to every folded value; `max` is LogSumExp's shift and
/// `count` Mean's divisor.
Value applyPost(OpBuilder &b, Location loc, Post post, Value folded, Value max,
                OpFoldResult count, ArrayRef<OpFoldResult> accDims) {
  if (post == Post::None)
    return folded;
  Type elementType = cast<RankedTensorType>(folded.getType()).getElementType();
  Value divisor;
  if (post == Post::Mean)
    divisor = countAsScalar(b, loc, count, elementType);
  SmallVector<OperandAccess> inputs{identityAccess(folded)};
  if (max)
    inputs.push_back(identityAccess(max));
  int64_t rank = int64_t(accDims.size());
  SmallVector<int64_t> loops = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return buildGeneric(
      b, loc, inputs, emptyTensor(b, loc, accDims, elementType), loops,
      iterators, [&](OpBuilder &nb, Location nl, ValueRange in, Value) {
        Value v = in[0];
        switch (post) {
        case Post::None:
          return v;
        case Post::Sqrt:
          return math::SqrtOp::create(nb, nl, v).getResult();
        case Post::Log:
          return math::LogOp::create(nb, nl, v).getResult();
        case Post::Mean:
          // An empty slice gives 0/0: NaN for floats, as numpy.
          return isFloat(elementType)
                     ? arith::DivFOp::create(nb, nl, v, divisor).getResult()
                     : arith::DivSIOp::create(nb, nl, v, divisor).getResult();
        case Post::LogShifted:
          return arith::AddFOp::create(nb, nl, math::LogOp::create(nb, nl, v),
                                       stableShift(nb, nl, in[1]))
              .getResult();
        }
        llvm_unreachable("unknown post-map");
      });
}

/// Reshape of `input` to `dims` (computed by the shape library).
Value reshapeTo(OpBuilder &b, Location loc, Value input,
                ArrayRef<OpFoldResult> dims) {
  auto inType = cast<RankedTensorType>(input.getType());
  SmallVector<Value> extents;
  for (OpFoldResult d : dims)
    extents.push_back(shape::toValue(b, loc, d));
  auto resultType = RankedTensorType::get(shape::toStaticShape(dims),
                                          inType.getElementType());
  Value shapeTensor = tensor::FromElementsOp::create(
      b, loc,
      RankedTensorType::get({int64_t(extents.size())}, b.getIndexType()),
      extents);
  return tensor::ReshapeOp::create(b, loc, resultType, input, shapeTensor);
}

//===----------------------------------------------------------------------===//
// Reduce*
//===----------------------------------------------------------------------===//

/// An integer attribute of `op`, or its ONNX default when absent. The
/// Reduce* ops are lowered by one template, so attributes are read by name.
int64_t intAttr(Operation *op, StringRef name, int64_t defaultValue) {
  if (auto attr = op->getAttrOfType<IntegerAttr>(name))
    return attr.getInt();
  return defaultValue;
}

/// The axes of a Reduce* op: constant (the opset-13 attribute, or an axes
/// input that is a constant or statically empty), or a run-time tensor.
struct ReduceAxes {
  std::optional<SmallVector<int64_t>> constant;
  Value tensor;
};

FailureOr<ReduceAxes> readAxes(Operation *op) {
  ReduceAxes axes;
  if (auto attr = op->getAttrOfType<ArrayAttr>("axes")) {
    axes.constant.emplace();
    for (Attribute a : attr)
      axes.constant->push_back(cast<IntegerAttr>(a).getInt());
    return axes;
  }
  if (op->getNumOperands() < 2 || isa<NoneType>(op->getOperand(1).getType())) {
    axes.constant.emplace();
    return axes;
  }
  Value input = op->getOperand(1);
  if (auto values = getConstantInts(input)) {
    axes.constant = std::move(*values);
    return axes;
  }
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!type || type.getRank() != 1 || !isa<IntegerType>(type.getElementType()))
    return op->emitError() << "axes must be a 1-D integer tensor, got "
                           << input.getType();
  if (type.getDimSize(0) == 0) {
    axes.constant.emplace();
    return axes;
  }
  axes.tensor = input;
  return axes;
}

/// Checks at run time that `dims` agree with the static extents of the
/// op's declared result type.
LogicalResult checkDeclaredDims(OpBuilder &b, Location loc, Operation *op,
                                ArrayRef<OpFoldResult> dims) {
  auto declared = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!declared || declared.getRank() != int64_t(dims.size()))
    return success();
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (declared.isDynamicDim(i))
      continue;
    std::string what = "result dim " + std::to_string(i) +
                       " (from the run-time axes) and its declared extent";
    if (failed(shape::checkEqual(
            b, loc, dim, b.getIndexAttr(declared.getDimSize(i)), what, op)))
      return failure();
  }
  return success();
}

template <Combine C, Pre P, Post Q>
FailureOr<SmallVector<Value>> lowerReduce(Operation *op, OpBuilder &b) {
  constexpr bool floatOnly = P == Pre::ExpShifted || Q == Post::Sqrt ||
                             Q == Post::Log || Q == Post::LogShifted;
  Location loc = op->getLoc();
  Value input = op->getOperand(0);
  auto type = requireRanked(op, input, "the input");
  if (failed(type))
    return failure();
  Type elementType = type->getElementType();
  if (failed(requireSupportedElement(op, elementType)))
    return failure();
  if (floatOnly && !isFloat(elementType))
    return op->emitError() << "expects a floating-point input, got "
                           << elementType;
  bool keepDims = intAttr(op, "keepdims", 1) != 0;
  bool noopWithEmptyAxes = intAttr(op, "noop_with_empty_axes", 0) != 0;
  auto axes = readAxes(op);
  if (failed(axes))
    return failure();

  ReductionLoops loops;
  OpFoldResult count;
  std::optional<SmallVector<OpFoldResult>> reshapeDims;
  if (axes->constant) {
    auto shape = shape::reduceShape(b, loc, input, *axes->constant, keepDims,
                                    noopWithEmptyAxes, op);
    if (failed(shape))
      return failure();
    loops = staticLoops(b.getContext(), *shape, keepDims);
    count = shape->count;
  } else {
    // Without keepdims the result rank depends on the axes' values; the
    // declared type (kept in both modes) says what the graph expects.
    int64_t resultRank = type->getRank();
    if (!keepDims) {
      auto declared = dyn_cast<RankedTensorType>(op->getResult(0).getType());
      if (!declared)
        return op->emitError("axes are known only at run time and keepdims=0, "
                             "but the result rank is not declared");
      resultRank = declared.getRank();
    }
    auto shape =
        shape::reduceShapeFromTensor(b, loc, input, axes->tensor, keepDims,
                                     noopWithEmptyAxes, resultRank, op);
    if (failed(shape))
      return failure();
    // The declared result type was written without knowing the axes; the
    // result is cast to it, so static extents there must hold at run time.
    if (failed(checkDeclaredDims(b, loc, op, shape->dims)))
      return failure();
    loops = runtimeLoops(b, loc, *shape);
    count = shape->count;
    if (!keepDims)
      reshapeDims = shape->dims;
  }

  Value max;
  if (P == Pre::ExpShifted)
    max = foldInput(b, loc, loops, input, Combine::Max, Pre::None, Value());
  Value folded = foldInput(b, loc, loops, input, C, P, max);
  Value result = applyPost(b, loc, Q, folded, max, count, loops.accDims);
  if (reshapeDims)
    result = reshapeTo(b, loc, result, *reshapeDims);
  return SmallVector<Value>{result};
}

//===----------------------------------------------------------------------===//
// ArgMax, ArgMin, Hardmax
//===----------------------------------------------------------------------===//

/// Is `x` a better candidate than the current `best`? Strictly better keeps
/// the first of equal extremes; `orEqual` (select_last_index) the last. The
/// fold visits the axis in ascending order (the generic's reduction loop
/// lowers to a sequential loop), which the tie rule relies on.
///
/// Floats: a NaN is the extreme of both ArgMax and ArgMin (numpy's argmax /
/// argmin, which the ONNX reference uses, and PyTorch's): the first NaN
/// wins, or the last one with select_last_index; no number replaces a NaN.
Value isBetter(OpBuilder &b, Location loc, Value x, Value best, bool isMax,
               bool orEqual) {
  if (isFloat(x.getType())) {
    auto pred =
        isMax
            ? (orEqual ? arith::CmpFPredicate::OGE : arith::CmpFPredicate::OGT)
            : (orEqual ? arith::CmpFPredicate::OLE : arith::CmpFPredicate::OLT);
    Value ordered = arith::CmpFOp::create(b, loc, pred, x, best);
    Value xNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    if (orEqual)
      return arith::OrIOp::create(b, loc, ordered, xNaN);
    Value bestNumber =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, best, best);
    return arith::OrIOp::create(
        b, loc, ordered, arith::AndIOp::create(b, loc, xNaN, bestNumber));
  }
  auto pred =
      isMax ? (orEqual ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sgt)
            : (orEqual ? arith::CmpIPredicate::sle : arith::CmpIPredicate::slt);
  return arith::CmpIOp::create(b, loc, pred, x, best);
}

/// The i64 index of the extreme element of `input` along `axis`, with the
/// dims of `shape` (a reduction of that one axis). One generic carries the
/// running extreme and its index.
Value buildArgReduce(OpBuilder &b, Location loc, Value input, int64_t axis,
                     const shape::ReduceShape &shape, bool keepDims, bool isMax,
                     bool selectLast) {
  Type elementType = cast<RankedTensorType>(input.getType()).getElementType();
  ReductionLoops loops = staticLoops(b.getContext(), shape, keepDims);
  Value bestInit = filledTensor(
      b, loc, loops.accDims,
      identityValue(b, loc, isMax ? Combine::Max : Combine::Min, elementType));
  Value indexInit = filledTensor(b, loc, loops.accDims,
                                 scalarConstant(b, loc, b.getI64Type(), 0));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{bestInit.getType(), indexInit.getType()},
      ValueRange{input}, ValueRange{bestInit, indexInit},
      SmallVector<AffineMap>{loops.inputMap, loops.accMap, loops.accMap},
      loops.iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value x = args[0], best = args[1], bestIndex = args[2];
        Value better = isBetter(nb, nl, x, best, isMax, selectLast);
        Value index = arith::IndexCastOp::create(
            nb, nl, nb.getI64Type(),
            linalg::IndexOp::create(nb, nl, uint64_t(axis)));
        linalg::YieldOp::create(
            nb, nl,
            ValueRange{
                arith::SelectOp::create(nb, nl, better, x, best),
                arith::SelectOp::create(nb, nl, better, index, bestIndex)});
      });
  return generic.getResult(1);
}

template <typename OpTy, bool IsMax>
FailureOr<SmallVector<Value>> lowerArgReduce(Operation *op, OpBuilder &b) {
  auto argOp = cast<OpTy>(op);
  Location loc = op->getLoc();
  Value input = argOp.getData();
  auto type = requireRanked(op, input, "the input");
  if (failed(type))
    return failure();
  if (failed(requireSupportedElement(op, type->getElementType())))
    return failure();
  if (type->getRank() == 0)
    return op->emitError("expects an input of rank >= 1");
  auto axis = normalizeAxis(op, argOp.getAxis(), type->getRank());
  if (failed(axis))
    return failure();
  bool keepDims = argOp.getKeepdims() != 0;
  auto shape = shape::reduceShape(b, loc, input, {*axis}, keepDims,
                                  /*noopWithEmptyAxes=*/false, op);
  if (failed(shape))
    return failure();
  return SmallVector<Value>{buildArgReduce(b, loc, input, *axis, *shape,
                                           keepDims, IsMax,
                                           argOp.getSelectLastIndex() != 0)};
}

/// One-hot of the first maximum along `axis`.
FailureOr<SmallVector<Value>> lowerHardmax(Operation *op, OpBuilder &b) {
  auto hardmax = cast<onnx::ONNXHardmaxOp>(op);
  Location loc = op->getLoc();
  Value input = hardmax.getInput();
  auto type = requireRanked(op, input, "the input");
  if (failed(type))
    return failure();
  Type elementType = type->getElementType();
  if (failed(requireSupportedElement(op, elementType)))
    return failure();
  int64_t rank = type->getRank();
  if (rank == 0)
    return op->emitError("expects an input of rank >= 1");
  auto axis = normalizeAxis(op, hardmax.getAxis(), rank);
  if (failed(axis))
    return failure();
  auto shape = shape::reduceShape(b, loc, input, {*axis}, /*keepDims=*/true,
                                  /*noopWithEmptyAxes=*/false, op);
  if (failed(shape))
    return failure();
  Value argmax = buildArgReduce(b, loc, input, *axis, *shape,
                                /*keepDims=*/true, /*isMax=*/true,
                                /*selectLast=*/false);

  OperandAccess winner = identityAccess(argmax);
  winner.loops[*axis] = -1;
  SmallVector<int64_t> loops = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value one = scalarConstant(b, loc, elementType, 1.0);
  Value zero = scalarConstant(b, loc, elementType, 0.0);
  Value result = buildGeneric(
      b, loc, {winner},
      emptyTensor(b, loc, shape::getDims(b, loc, input), elementType), loops,
      iterators, [&](OpBuilder &nb, Location nl, ValueRange in, Value) {
        Value index = arith::IndexCastOp::create(
            nb, nl, nb.getI64Type(),
            linalg::IndexOp::create(nb, nl, uint64_t(*axis)));
        Value hit = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                          index, in[0]);
        return arith::SelectOp::create(nb, nl, hit, one, zero).getResult();
      });
  return SmallVector<Value>{result};
}

} // namespace

void addReductionLowerings(LoweringTable &t) {
  t["onnx.ReduceSum"] = lowerReduce<Combine::Add, Pre::None, Post::None>;
  t["onnx.ReduceMean"] = lowerReduce<Combine::Add, Pre::None, Post::Mean>;
  t["onnx.ReduceMax"] = lowerReduce<Combine::Max, Pre::None, Post::None>;
  t["onnx.ReduceMin"] = lowerReduce<Combine::Min, Pre::None, Post::None>;
  t["onnx.ReduceProd"] = lowerReduce<Combine::Mul, Pre::None, Post::None>;
  t["onnx.ReduceL1"] = lowerReduce<Combine::Add, Pre::Abs, Post::None>;
  t["onnx.ReduceL2"] = lowerReduce<Combine::Add, Pre::Square, Post::Sqrt>;
  t["onnx.ReduceLogSum"] = lowerReduce<Combine::Add, Pre::None, Post::Log>;
  t["onnx.ReduceLogSumExp"] =
      lowerReduce<Combine::Add, Pre::ExpShifted, Post::LogShifted>;
  t["onnx.ReduceSumSquare"] =
      lowerReduce<Combine::Add, Pre::Square, Post::None>;
  t["onnx.ArgMax"] = lowerArgReduce<onnx::ONNXArgMaxOp, true>;
  t["onnx.ArgMin"] = lowerArgReduce<onnx::ONNXArgMinOp, false>;
  t["onnx.Hardmax"] = lowerHardmax;
}

} // namespace onyx::conversion
