//===- NewDataMovement.cpp - Newer data-movement operators ----------------===//
//
//   CumProd (26)        CumSum's scan with a product: an scf.for nest over
//                       [outer, extent, inner] around a run-time axis
//   CenterCropPad (18)  one index generic: each output element reads the
//                       input at a per-dim offset, or is 0 (padding)
//   Col2Im (18)         a generic over the image with a reduction over the
//                       block positions: every column entry that lands on
//                       an image element is summed into it
//   TensorScatter (24)  a generic over the cache: an element inside the
//                       written window reads the update, the others the
//                       past cache (linear or circular write positions)
//   AffineGrid (20)     theta applied to the normalized base grid, in f64
//   BitCast (26)        an elementwise reinterpretation of equal widths
//
// Extents come from lib/Shape/NewOperatorShapes.cpp; size-giving inputs
// (shape, image_shape, block_shape, size) may be data read at run time.
//
//===----------------------------------------------------------------------===//

#include "NewOperators.h"

#include "onyx/Shape/NewOperatorShapes.h"

#include "mlir/Dialect/SCF/Utils/Utils.h"

using namespace mlir;

namespace onyx::conversion {
namespace {

using namespace newops;

/// `v` if the condition holds, else `zero` (index values).
Value selectIndex(OpBuilder &b, Location loc, Value cond, Value v,
                  Value zero) {
  return arith::SelectOp::create(b, loc, cond, v, zero);
}

//===----------------------------------------------------------------------===//
// CumProd
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerCumProd(Operation *op, OpBuilder &b) {
  auto cumprod = cast<onnx::ONNXCumProdOp>(op);
  Location loc = op->getLoc();
  Value x = cumprod.getX();
  auto type = requireRanked(op, x, "the input");
  if (failed(type))
    return failure();
  Type elementType = type->getElementType();
  Type computeType = signless(elementType);
  if (!isa<FloatType>(computeType) && !computeType.isSignlessInteger())
    return op->emitError() << "CumProd: element type " << elementType
                           << " is not supported";
  if (computeType.isInteger(1))
    return op->emitError("CumProd: bool inputs are not supported");
  if (failed(requireRanked(op, cumprod.getAxis(), "the axis")))
    return failure();
  OpFoldResult axis = scalarIndexOf(b, loc, cumprod.getAxis());
  auto view = shape::axisView(b, loc, x, axis, op);
  if (failed(view))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, shape::getDims(b, loc, x));
  if (failed(dims))
    return failure();
  SmallVector<OpFoldResult> viewDims = {view->outer, view->extent, view->inner};
  Value x3 = reshapeTo(b, loc, x, viewDims);
  Value init = emptyTensor(b, loc, viewDims, elementType);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value extent = shape::toValue(b, loc, view->extent);
  Value lastIndex = arith::SubIOp::create(b, loc, extent, one);
  // float16/bfloat16 products are formed in f32 and rounded at each step
  // (what a reference accumulating in the narrow type holds).
  Type carryType =
      isa<FloatType>(computeType) ? computeFloatType(b, computeType)
                                  : computeType;
  Value unit = scalarConstant(b, loc, carryType, 1.0);
  bool reverse = cumprod.getReverse() != 0;
  bool exclusive = cumprod.getExclusive() != 0;
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, {zero, zero},
      {shape::toValue(b, loc, view->outer),
       shape::toValue(b, loc, view->inner)},
      {one, one}, ValueRange{init},
      [&](OpBuilder &nb, Location nl, ValueRange ivs,
          ValueRange args) -> scf::ValueVector {
        auto scan = scf::ForOp::create(
            nb, nl, zero, extent, one, ValueRange{args[0], unit},
            [&](OpBuilder &fb, Location fl, Value t, ValueRange iter) {
              Value pos =
                  reverse
                      ? arith::SubIOp::create(fb, fl, lastIndex, t).getResult()
                      : t;
              SmallVector<Value> at = {ivs[0], pos, ivs[1]};
              Value v = toSignless(
                  fb, fl, tensor::ExtractOp::create(fb, fl, x3, at));
              if (isa<FloatType>(v.getType()))
                v = convertFloat(fb, fl, v, carryType);
              Value product = mul(fb, fl, iter[1], v);
              if (isa<FloatType>(product.getType()))
                product = roundThrough(fb, fl, product, computeType);
              Value out = exclusive ? iter[1] : product;
              if (isa<FloatType>(out.getType()))
                out = convertFloat(fb, fl, out, computeType);
              Value acc = tensor::InsertOp::create(
                  fb, fl, fromSignless(fb, fl, out, elementType), iter[0], at);
              scf::YieldOp::create(fb, fl, ValueRange{acc, product});
            });
        return {scan.getResult(0)};
      });
  return SmallVector<Value>{reshapeTo(b, loc, nest.results.front(), *dims)};
}

//===----------------------------------------------------------------------===//
// CenterCropPad
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerCenterCropPad(Operation *op, OpBuilder &b) {
  auto ccp = cast<onnx::ONNXCenterCropPadOp>(op);
  Location loc = op->getLoc();
  Value input = ccp.getInputData();
  auto type = requireRanked(op, input, "the input");
  if (failed(type) ||
      failed(requireSupportedElement(op, type->getElementType())))
    return failure();
  Type elementType = type->getElementType();
  auto axes =
      axesAttribute(op, ccp.getAxesAttr(), type->getRank(), "CenterCropPad");
  if (failed(axes))
    return failure();
  auto target = intListOf(op, ccp.getShape(), "CenterCropPad: shape");
  if (failed(target))
    return failure();
  auto shape = shape::centerCropPadShape(b, loc, input, *target, *axes, op);
  if (failed(shape))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, shape->dims);
  if (failed(dims))
    return failure();
  SmallVector<OpFoldResult> in = shape::getDims(b, loc, input);
  Value fill = scalarConstant(b, loc, elementType, 0.0);
  Value result = indexGeneric(
      b, loc, *dims, elementType,
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        shape::IndexMath bm(nb, nl);
        SmallVector<Value> indices;
        shape::Cond inside = shape::Cond::of(true);
        for (auto [iv, offset, n] : llvm::zip(ivs, shape->offsets, in)) {
          OpFoldResult src = bm.add(iv, offset);
          if (shape::getStatic(offset) != 0)
            inside = bm.andOf(inside,
                              bm.andOf(bm.le(bm.cst(0), src), bm.lt(src, n)));
          indices.push_back(bm.value(src));
        }
        if (inside.isTrue())
          return tensor::ExtractOp::create(nb, nl, input, indices).getResult();
        // Only elements inside the input are read (it may be empty).
        auto branch = scf::IfOp::create(
            nb, nl, bm.value(inside),
            [&](OpBuilder &tb, Location tl) {
              scf::YieldOp::create(
                  tb, tl,
                  tensor::ExtractOp::create(tb, tl, input, indices).getResult());
            },
            [&](OpBuilder &eb, Location el) {
              scf::YieldOp::create(eb, el, fill);
            });
        return branch.getResult(0);
      });
  return SmallVector<Value>{result};
}

//===----------------------------------------------------------------------===//
// Col2Im
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerCol2Im(Operation *op, OpBuilder &b) {
  auto col2im = cast<onnx::ONNXCol2ImOp>(op);
  Location loc = op->getLoc();
  Value input = col2im.getInput();
  auto type = requireRanked(op, input, "the input");
  if (failed(type) ||
      failed(requireSupportedElement(op, type->getElementType())))
    return failure();
  Type elementType = type->getElementType();
  if (elementType.isInteger(1))
    return op->emitError("Col2Im: bool inputs are not supported");
  auto image = intListOf(op, col2im.getImageShape(), "Col2Im: image_shape");
  auto block = intListOf(op, col2im.getBlockShape(), "Col2Im: block_shape");
  if (failed(image) || failed(block))
    return failure();
  // The number of spatial dims: a static list length, or the result rank.
  std::optional<int64_t> spatialRank = image->staticSize();
  if (!spatialRank)
    spatialRank = block->staticSize();
  if (!spatialRank)
    if (auto rank = declaredRank(op, 0))
      spatialRank = *rank - 2;
  if (!spatialRank || *spatialRank < 1)
    return op->emitError("Col2Im: the number of spatial dims is unknown "
                         "(image_shape, block_shape and the result have no "
                         "static length or rank)");
  int64_t r = *spatialRank;
  auto dilations =
      intsAttribute(op, col2im.getDilationsAttr(), r, 1, "Col2Im: dilations");
  auto pads = intsAttribute(op, col2im.getPadsAttr(), 2 * r, 0, "Col2Im: pads");
  auto strides =
      intsAttribute(op, col2im.getStridesAttr(), r, 1, "Col2Im: strides");
  if (failed(dilations) || failed(pads) || failed(strides))
    return failure();
  for (int64_t d = 0; d < r; ++d) {
    if ((*dilations)[d] < 1 || (*strides)[d] < 1)
      return op->emitError("Col2Im: dilations and strides must be positive");
    if ((*pads)[d] < 0 || (*pads)[d + r] < 0)
      return op->emitError("Col2Im: pads must be non-negative");
  }
  auto shape = shape::col2ImShape(b, loc, input, *image, *block, r, *dilations,
                                  *pads, *strides, op);
  if (failed(shape))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, shape->dims);
  if (failed(dims))
    return failure();

  // Loops: the image's (N, C, spatial...), then the block position k
  // (bounded by a tensor that is never read). Image element i of dim d is
  // covered by block position k_d at column position
  // (i + pad_begin - k_d * dilation) / stride when that divides and lies in
  // [0, blocks).
  int64_t outRank = r + 2;
  Value window = emptyTensor(b, loc, {shape->kernelSize}, b.getI8Type());
  OperandAccess windowAccess = projectedAccess(window, {outRank});
  SmallVector<utils::IteratorType> iterators(outRank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  SmallVector<int64_t> outLoops = llvm::to_vector(llvm::seq<int64_t>(0, outRank));
  Value zero = scalarConstant(b, loc, elementType, 0.0);
  Value result = buildGeneric(
      b, loc, {windowAccess}, filledTensor(b, loc, *dims, zero), outLoops,
      iterators, [&](OpBuilder &nb, Location nl, ValueRange, Value acc) {
        shape::IndexMath bm(nb, nl);
        Value k = linalg::IndexOp::create(nb, nl, uint64_t(outRank));
        // k's coordinates in the block, row-major (last dim fastest).
        SmallVector<OpFoldResult> kd(r);
        OpFoldResult rest = k;
        for (int64_t d = r - 1; d >= 0; --d) {
          kd[d] = bm.floorMod(rest, shape->block[d]);
          rest = bm.floorDiv(rest, shape->block[d]);
        }
        shape::Cond valid = shape::Cond::of(true);
        OpFoldResult column = bm.cst(0);
        for (int64_t d = 0; d < r; ++d) {
          Value i = linalg::IndexOp::create(nb, nl, uint64_t(d + 2));
          OpFoldResult num = bm.sub(bm.add(i, bm.cst((*pads)[d])),
                                    bm.mul(kd[d], bm.cst((*dilations)[d])));
          OpFoldResult pos = bm.floorDiv(num, bm.cst((*strides)[d]));
          valid = bm.andOf(valid, bm.le(bm.cst(0), num));
          valid = bm.andOf(
              valid, bm.eq(bm.mul(pos, bm.cst((*strides)[d])), num));
          valid = bm.andOf(valid, bm.lt(pos, shape->blocks[d]));
          column = bm.add(bm.mul(column, shape->blocks[d]), pos);
        }
        Value ok = bm.value(valid);
        Value zeroIndex = bm.value(bm.cst(0));
        Value n = linalg::IndexOp::create(nb, nl, 0);
        Value c = linalg::IndexOp::create(nb, nl, 1);
        OpFoldResult row = bm.add(bm.mul(c, shape->kernelSize), k);
        Value at[] = {n, bm.value(row),
                      selectIndex(nb, nl, ok, bm.value(column), zeroIndex)};
        Value v = tensor::ExtractOp::create(nb, nl, input, at);
        Value contribution = arith::SelectOp::create(nb, nl, ok, v, zero);
        return add(nb, nl, acc, contribution);
      });
  return SmallVector<Value>{result};
}

//===----------------------------------------------------------------------===//
// TensorScatter
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerTensorScatter(Operation *op, OpBuilder &b) {
  auto scatter = cast<onnx::ONNXTensorScatterOp>(op);
  Location loc = op->getLoc();
  Value cache = scatter.getPastCache(), update = scatter.getUpdate();
  Value writeIndices = scatter.getWriteIndices();
  auto cacheType = requireRanked(op, cache, "past_cache");
  auto updateType = requireRanked(op, update, "update");
  if (failed(cacheType) || failed(updateType))
    return failure();
  Type elementType = cacheType->getElementType();
  if (updateType->getElementType() != elementType)
    return op->emitError() << "TensorScatter: update has element type "
                           << updateType->getElementType()
                           << " but past_cache has " << elementType;
  int64_t rank = cacheType->getRank();
  if (rank < 2)
    return op->emitError("TensorScatter: past_cache must have rank >= 2");
  auto axis = normalizeAxis(op, scatter.getAxis(), rank);
  if (failed(axis))
    return failure();
  if (*axis == 0)
    return op->emitError("TensorScatter: axis cannot be 0 (the batch dim)");
  StringRef mode = scatter.getMode();
  bool circular = mode == "circular";
  if (!circular && mode != "linear")
    return op->emitError() << "TensorScatter: mode '" << mode
                           << "' is not supported";
  bool hasIndices = !isAbsent(writeIndices);
  if (hasIndices) {
    auto type = requireRanked(op, writeIndices, "write_indices");
    if (failed(type))
      return failure();
    if (!type->getElementType().isSignlessInteger())
      return op->emitError("TensorScatter: write_indices must be integers");
  }
  auto shape = shape::tensorScatterShape(
      b, loc, cache, update, hasIndices ? writeIndices : Value(), *axis, op);
  if (failed(shape))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, *shape);
  if (failed(dims))
    return failure();
  OpFoldResult maxLength = (*shape)[*axis];
  OpFoldResult length = shape::getDim(b, loc, update, *axis);

  if (hasIndices && !circular) {
    // Linear writes must stay inside the cache: 0 <= w and w + length <=
    // max_sequence_length for every batch entry (min/max folded first).
    Type i64 = b.getI64Type();
    Value lo = filledTensor(
        b, loc, {},
        arith::ConstantIntOp::create(b, loc, i64,
                                     std::numeric_limits<int64_t>::max()));
    Value hi = filledTensor(
        b, loc, {},
        arith::ConstantIntOp::create(b, loc, i64,
                                     std::numeric_limits<int64_t>::min()));
    MLIRContext *ctx = b.getContext();
    AffineMap inMap = AffineMap::getMultiDimIdentityMap(1, ctx);
    AffineMap outMap = AffineMap::get(1, 0, {}, ctx);
    auto bounds = linalg::GenericOp::create(
        b, loc, TypeRange{lo.getType(), hi.getType()}, ValueRange{writeIndices},
        ValueRange{lo, hi}, ArrayRef<AffineMap>{inMap, outMap, outMap},
        ArrayRef<utils::IteratorType>{utils::IteratorType::reduction},
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value v = args[0];
          if (v.getType() != i64)
            v = arith::ExtSIOp::create(nb, nl, i64, v);
          linalg::YieldOp::create(
              nb, nl,
              ValueRange{arith::MinSIOp::create(nb, nl, args[1], v),
                         arith::MaxSIOp::create(nb, nl, args[2], v)});
        });
    shape::IndexMath m(b, loc);
    OpFoldResult first =
        shape::indexFromElement(b, loc, readScalar(b, loc, bounds.getResult(0)));
    OpFoldResult last =
        shape::indexFromElement(b, loc, readScalar(b, loc, bounds.getResult(1)));
    // An empty batch folds to (max, min): nothing to check.
    shape::Cond empty = m.lt(last, first);
    if (failed(m.require(m.orOf(empty, m.le(m.cst(0), first)),
                         "TensorScatter: negative write index {0}", {first},
                         op)) ||
        failed(m.require(m.orOf(empty, m.le(m.add(last, length), maxLength)),
                         "TensorScatter: write index {0} + sequence length "
                         "{1} exceeds max_sequence_length {2} (linear mode)",
                         {last, length, maxLength}, op)))
      return failure();
  }

  SmallVector<OperandAccess> inputs = {identityAccess(cache)};
  if (hasIndices)
    inputs.push_back(projectedAccess(writeIndices, {0}));
  int64_t axisDim = *axis;
  Value result = indexGeneric(
      b, loc, *dims, elementType, inputs,
      [&](OpBuilder &nb, Location nl, ValueRange ivs, ValueRange in) {
        shape::IndexMath bm(nb, nl);
        OpFoldResult w = hasIndices
                             ? OpFoldResult(shape::indexFromElement(nb, nl, in[1]))
                             : bm.cst(0);
        // The update position this element would come from.
        OpFoldResult j = bm.sub(ivs[axisDim], w);
        if (circular)
          j = bm.floorMod(j, maxLength);
        shape::Cond written =
            circular ? bm.lt(j, length)
                     : bm.andOf(bm.le(bm.cst(0), j), bm.lt(j, length));
        SmallVector<Value> at(ivs);
        at[axisDim] = bm.value(j);
        auto branch = scf::IfOp::create(
            nb, nl, bm.value(written),
            [&](OpBuilder &tb, Location tl) {
              scf::YieldOp::create(
                  tb, tl,
                  tensor::ExtractOp::create(tb, tl, update, at).getResult());
            },
            [&](OpBuilder &eb, Location el) {
              scf::YieldOp::create(eb, el, in[0]);
            });
        return branch.getResult(0);
      });
  return SmallVector<Value>{result};
}

//===----------------------------------------------------------------------===//
// AffineGrid
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerAffineGrid(Operation *op, OpBuilder &b) {
  auto grid = cast<onnx::ONNXAffineGridOp>(op);
  Location loc = op->getLoc();
  Value theta = grid.getTheta();
  auto type = requireRanked(op, theta, "theta");
  if (failed(type))
    return failure();
  auto elementType = dyn_cast<FloatType>(type->getElementType());
  if (!elementType)
    return op->emitError("AffineGrid: theta must be floating-point");
  auto size = intListOf(op, grid.getSize(), "AffineGrid: size");
  if (failed(size))
    return failure();
  // 2-D or 3-D: from size's length, theta's dims or the result's rank.
  std::optional<int64_t> spatialRank;
  if (auto n = size->staticSize())
    spatialRank = *n - 2;
  else if (type->getRank() == 3 && !type->isDynamicDim(1))
    spatialRank = type->getDimSize(1);
  else if (auto rank = declaredRank(op, 0))
    spatialRank = *rank - 2;
  if (!spatialRank)
    return op->emitError("AffineGrid: cannot tell 2-D from 3-D (size, theta "
                         "and the result have no static length or dims)");
  if (*spatialRank != 2 && *spatialRank != 3)
    return op->emitError() << "AffineGrid: only 2-D and 3-D grids exist, got "
                           << *spatialRank << " spatial dims";
  int64_t r = *spatialRank;
  auto shape = shape::affineGridShape(b, loc, theta, *size, r, op);
  if (failed(shape))
    return failure();
  auto dims = declaredDims(b, loc, op, 0, *shape);
  if (failed(dims))
    return failure();
  bool alignCorners = grid.getAlignCorners() != 0;
  Type f64 = b.getF64Type();
  // Per spatial dim, as f64: the extent (the base grid's denominators).
  SmallVector<Value> extents;
  for (int64_t d = 0; d < r; ++d) {
    Value e = arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                         shape::toValue(b, loc, (*dims)[d + 1]));
    extents.push_back(arith::SIToFPOp::create(b, loc, f64, e));
  }
  Value result = indexGeneric(
      b, loc, *dims, elementType,
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        auto c = [&](double v) { return scalarConstant(nb, nl, f64, v); };
        // The normalized position of index i in an extent of n:
        //   align_corners: -1 + i * 2 / (n - 1)  (0 when n == 1)
        //   otherwise:     -1 + (2 i + 1) / n
        auto base = [&](Value i, Value n) -> Value {
          Value fi = arith::SIToFPOp::create(
              nb, nl, f64,
              arith::IndexCastOp::create(nb, nl, nb.getI64Type(), i));
          if (alignCorners) {
            Value step = arith::DivFOp::create(
                nb, nl, c(2.0), arith::SubFOp::create(nb, nl, n, c(1.0)));
            Value v = arith::AddFOp::create(
                nb, nl, c(-1.0), arith::MulFOp::create(nb, nl, fi, step));
            Value single = arith::CmpFOp::create(
                nb, nl, arith::CmpFPredicate::OLE, n, c(1.0));
            return arith::SelectOp::create(nb, nl, single, c(0.0), v);
          }
          Value step = arith::DivFOp::create(nb, nl, c(2.0), n);
          Value first = arith::AddFOp::create(
              nb, nl, c(-1.0), arith::DivFOp::create(nb, nl, step, c(2.0)));
          return arith::AddFOp::create(nb, nl, first,
                                       arith::MulFOp::create(nb, nl, fi, step));
        };
        // Homogeneous base position (x, y[, z], 1): x follows the last
        // spatial dim, y the one before, z the first of three.
        SmallVector<Value> position;
        for (int64_t d = r - 1; d >= 0; --d)
          position.push_back(base(ivs[d + 1], extents[d]));
        position.push_back(c(1.0));
        Value component = ivs[r + 1];
        Value sum = c(0.0);
        for (int64_t j = 0; j <= r; ++j) {
          Value at[] = {ivs[0], component,
                        arith::ConstantIndexOp::create(nb, nl, j)};
          Value t = convertFloat(nb, nl,
                                 tensor::ExtractOp::create(nb, nl, theta, at),
                                 f64);
          sum = arith::AddFOp::create(
              nb, nl, sum, arith::MulFOp::create(nb, nl, t, position[j]));
        }
        return convertFloat(nb, nl, sum, elementType);
      });
  return SmallVector<Value>{result};
}

//===----------------------------------------------------------------------===//
// BitCast
//===----------------------------------------------------------------------===//

/// The storage width of an element type in bits (bool is one byte, as in
/// ONNX); 0 for types BitCast does not handle.
unsigned storageBits(Type type) {
  if (type.isInteger(1))
    return 8;
  if (isa<IntegerType, FloatType>(type))
    return type.getIntOrFloatBitWidth();
  return 0;
}

FailureOr<SmallVector<Value>> lowerBitCast(Operation *op, OpBuilder &b) {
  auto bitcast = cast<onnx::ONNXBitCastOp>(op);
  Location loc = op->getLoc();
  Value input = bitcast.getInput();
  auto type = requireRanked(op, input, "the input");
  if (failed(type))
    return failure();
  Type from = type->getElementType();
  Type to = cast<ShapedType>(op->getResult(0).getType()).getElementType();
  unsigned fromBits = storageBits(from), toBits = storageBits(to);
  if (!fromBits || !toBits)
    return op->emitError() << "BitCast: " << from << " -> " << to
                           << " is not supported";
  if (fromBits != toBits)
    return op->emitError() << "BitCast: " << from << " (" << fromBits
                           << " bits) and " << to << " (" << toBits
                           << " bits) differ in width; ONNX requires equal "
                              "widths";
  auto dims = declaredDims(b, loc, op, 0, shape::getDims(b, loc, input));
  if (failed(dims))
    return failure();
  Type bits = b.getIntegerType(fromBits);
  Value result = indexGeneric(
      b, loc, *dims, to, {identityAccess(input)},
      [&](OpBuilder &nb, Location nl, ValueRange, ValueRange in) -> Value {
        // Element -> its bits as a signless integer -> the target type.
        Value v = toSignless(nb, nl, in[0]);
        if (v.getType().isInteger(1))
          v = arith::ExtUIOp::create(nb, nl, bits, v);
        else if (isa<FloatType>(v.getType()))
          v = arith::BitcastOp::create(nb, nl, bits, v);
        if (to.isInteger(1))
          return arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ne, v,
                                       scalarConstant(nb, nl, bits, 0.0));
        if (isa<FloatType>(to))
          return arith::BitcastOp::create(nb, nl, to, v);
        return fromSignless(nb, nl, v, to);
      });
  return SmallVector<Value>{result};
}

} // namespace

void addNewDataMovementLowerings(LoweringTable &t) {
  t["onnx.CumProd"] = lowerCumProd;
  t["onnx.CenterCropPad"] = lowerCenterCropPad;
  t["onnx.Col2Im"] = lowerCol2Im;
  t["onnx.TensorScatter"] = lowerTensorScatter;
  t["onnx.AffineGrid"] = lowerAffineGrid;
  t["onnx.BitCast"] = lowerBitCast;
}

} // namespace onyx::conversion
