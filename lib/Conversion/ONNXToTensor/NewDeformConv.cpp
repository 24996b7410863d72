//===- NewDeformConv.cpp - DeformConv (opset 19/22) -----------------------===//
//
// A 2-D convolution whose taps move: tap (kh, kw) of output position
// (i, j) reads the input at
//
//   h = i * stride_h - pad_top  + kh * dilation_h + offset[.., 2 t,     i, j]
//   w = j * stride_w - pad_left + kw * dilation_w + offset[.., 2 t + 1, i, j]
//
// (t = the tap's index within its offset group) by bilinear interpolation
// with zeros outside the image (GridSample with align_corners=1 and zero
// padding, as the ONNX reference computes it), times the tap's mask
// (default 1). One generic over (n, oc, i, j) with reductions over the
// group's input channels and the taps; every read is a tensor.extract at
// computed indices, clamped into the tensor and selected away when outside.
// Coordinates and the bilinear weights are f64, the sum is in the
// element type's compute type (f32 for f16/bf16). Extents may be symbolic.
//
//===----------------------------------------------------------------------===//

#include "NewOperators.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace onyx::conversion {
namespace {

using namespace newops;

FailureOr<SmallVector<Value>> lowerDeformConv(Operation *op, OpBuilder &b) {
  auto dc = cast<onnx::ONNXDeformConvOp>(op);
  Location loc = op->getLoc();
  Value x = dc.getX(), w = dc.getW(), offset = dc.getOffset();
  Value bias = dc.getB(), mask = dc.getMask();
  bool hasBias = !isa<NoneType>(bias.getType());
  bool hasMask = !isa<NoneType>(mask.getType());
  auto xType = requireRanked(op, x, "DeformConv: X");
  auto wType = requireRanked(op, w, "DeformConv: W");
  auto oType = requireRanked(op, offset, "DeformConv: offset");
  if (failed(xType) || failed(wType) || failed(oType))
    return failure();
  if (xType->getRank() != 4)
    return op->emitError() << "DeformConv: only 2-D images (X of rank 4) are "
                              "supported, X is "
                           << x.getType();
  if (wType->getRank() != 4 || oType->getRank() != 4)
    return op->emitError("DeformConv: W and offset must have rank 4");
  auto element = dyn_cast<FloatType>(xType->getElementType());
  if (!element)
    return op->emitError() << "DeformConv: X must be floating-point, got "
                           << xType->getElementType();
  for (Value v : {w, offset, bias, mask}) {
    if (isa<NoneType>(v.getType()))
      continue;
    if (cast<ShapedType>(v.getType()).getElementType() != element)
      return op->emitError() << "DeformConv: every input must be " << element
                             << ", got " << v.getType();
  }
  auto list = [&](std::optional<ArrayAttr> attr, StringRef name, int64_t size,
                  int64_t fallback) -> FailureOr<SmallVector<int64_t>> {
    SmallVector<int64_t> values;
    if (!attr) {
      values.assign(size, fallback);
      return values;
    }
    for (Attribute a : *attr)
      values.push_back(cast<IntegerAttr>(a).getInt());
    if (int64_t(values.size()) != size)
      return op->emitError() << "DeformConv: " << name << " must have " << size
                             << " entries, got " << values.size();
    return values;
  };
  auto strides = list(dc.getStrides(), "strides", 2, 1);
  auto dilations = list(dc.getDilations(), "dilations", 2, 1);
  auto pads = list(dc.getPads(), "pads", 4, 0);
  if (failed(strides) || failed(dilations) || failed(pads))
    return failure();
  int64_t group = dc.getGroup(), offsetGroup = dc.getOffsetGroup();
  if (group < 1 || offsetGroup < 1)
    return op->emitError("DeformConv: group and offset_group must be >= 1");

  SmallVector<OpFoldResult> xd = shape::getDims(b, loc, x);
  SmallVector<OpFoldResult> wd = shape::getDims(b, loc, w);
  SmallVector<OpFoldResult> od = shape::getDims(b, loc, offset);
  if (auto ks = list(dc.getKernelShape(), "kernel_shape", 2, -1); failed(ks)) {
    return failure();
  } else if (dc.getKernelShape()) {
    for (int i = 0; i < 2; ++i)
      if (failed(shape::checkEqual(
              b, loc, wd[2 + i], b.getIndexAttr((*ks)[i]),
              "DeformConv: W dim " + std::to_string(2 + i) + " / kernel_shape",
              op)))
        return failure();
  }
  // Index arithmetic on run-time extents.
  auto idx = [&](OpFoldResult v) { return shape::toValue(b, loc, v); };
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value xc = idx(xd[1]), oc = idx(wd[0]), icPerGroup = idx(wd[1]);
  Value kh = idx(wd[2]), kw = idx(wd[3]);
  // C = W[1] * group, M % group == 0, C % offset_group == 0, offset has
  // 2 * offset_group * kh * kw channels, and the output size matches.
  Value ocPerGroup = arith::DivUIOp::create(b, loc, oc, cst(group));
  if (failed(shape::checkEqual(
          b, loc,
          arith::MulIOp::create(b, loc, icPerGroup, cst(group)).getResult(),
          xd[1], "DeformConv: W dim 1 * group / X channels", op)) ||
      failed(shape::checkEqual(
          b, loc,
          arith::MulIOp::create(b, loc, ocPerGroup, cst(group)).getResult(),
          wd[0], "DeformConv: W dim 0 (a multiple of group)", op)))
    return failure();
  Value icPerOffsetGroup = arith::DivUIOp::create(b, loc, xc, cst(offsetGroup));
  if (failed(shape::checkEqual(
          b, loc,
          arith::MulIOp::create(b, loc, icPerOffsetGroup, cst(offsetGroup))
              .getResult(),
          xd[1], "DeformConv: X channels (a multiple of offset_group)", op)))
    return failure();
  Value taps = arith::MulIOp::create(b, loc, kh, kw);
  Value offsetChannels = arith::MulIOp::create(
      b, loc, arith::MulIOp::create(b, loc, taps, cst(2 * offsetGroup)),
      cst(1));
  if (failed(shape::checkEqual(b, loc, od[1], offsetChannels,
                               "DeformConv: offset channels / 2 * "
                               "offset_group * kernel size",
                               op)) ||
      failed(shape::checkEqual(b, loc, od[0], xd[0],
                               "DeformConv: offset dim 0 / batch", op)))
    return failure();
  // Output extent: (in + pads - ((k - 1) * d + 1)) / s + 1, which the
  // offset's spatial dims must equal.
  for (int i = 0; i < 2; ++i) {
    Value k = i == 0 ? kh : kw;
    Value span = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, arith::SubIOp::create(b, loc, k, cst(1)),
                              cst((*dilations)[i])),
        cst(1));
    Value padded = arith::AddIOp::create(b, loc, idx(xd[2 + i]),
                                         cst((*pads)[i] + (*pads)[i + 2]));
    Value out = arith::AddIOp::create(
        b, loc,
        arith::DivSIOp::create(b, loc,
                               arith::SubIOp::create(b, loc, padded, span),
                               cst((*strides)[i])),
        cst(1));
    if (failed(shape::checkEqual(b, loc, od[2 + i], out,
                                 "DeformConv: offset dim " +
                                     std::to_string(2 + i) +
                                     " / the output size",
                                 op)))
      return failure();
  }
  if (hasMask) {
    auto mType = requireRanked(op, mask, "DeformConv: mask");
    if (failed(mType))
      return failure();
    if (mType->getRank() != 4)
      return op->emitError("DeformConv: mask must have rank 4");
    SmallVector<OpFoldResult> md = shape::getDims(b, loc, mask);
    Value maskChannels = arith::MulIOp::create(b, loc, taps, cst(offsetGroup));
    OpFoldResult want[] = {xd[0], maskChannels, od[2], od[3]};
    for (int i = 0; i < 4; ++i)
      if (failed(shape::checkEqual(b, loc, md[i], want[i],
                                   "DeformConv: mask dim " + std::to_string(i),
                                   op)))
        return failure();
  }
  if (hasBias) {
    auto bType = requireRanked(op, bias, "DeformConv: B");
    if (failed(bType))
      return failure();
    if (bType->getRank() != 1)
      return op->emitError("DeformConv: B must have rank 1");
    if (failed(shape::checkEqual(b, loc, shape::getDim(b, loc, bias, 0), wd[0],
                                 "DeformConv: B / output channels", op)))
      return failure();
  }
  auto outDims = declaredDims(b, loc, op, 0, {xd[0], wd[0], od[2], od[3]});
  if (failed(outDims))
    return failure();

  Type compute = computeFloatType(b, element);
  Type f64 = b.getF64Type();
  Value height = idx(xd[2]), width = idx(xd[3]);
  Value init =
      filledTensor(b, loc, *outDims, scalarConstant(b, loc, compute, 0.0));
  // Loops: n, oc, i, j | c (within the group), kh, kw. W [oc, c, kh, kw]
  // gives the reduction extents.
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.append(3, utils::IteratorType::reduction);
  Value sum = buildGeneric(
      b, loc, {projectedAccess(w, {1, 4, 5, 6})}, init, {0, 1, 2, 3}, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange in, Value acc) {
        auto loop = [&](int64_t l) {
          return linalg::IndexOp::create(nb, nl, uint64_t(l)).getResult();
        };
        auto c = [&](int64_t v) {
          return arith::ConstantIndexOp::create(nb, nl, v).getResult();
        };
        auto mul = [&](Value a, Value v) {
          return arith::MulIOp::create(nb, nl, a, v).getResult();
        };
        auto add = [&](Value a, Value v) {
          return arith::AddIOp::create(nb, nl, a, v).getResult();
        };
        auto toF64 = [&](Value i) {
          return arith::SIToFPOp::create(
                     nb, nl, f64,
                     arith::IndexCastOp::create(nb, nl, nb.getI64Type(), i))
              .getResult();
        };
        Value n = loop(0), o = loop(1), i = loop(2), j = loop(3);
        Value ci = loop(4), ti = loop(5), tj = loop(6);
        Value g = arith::DivUIOp::create(nb, nl, o, ocPerGroup);
        Value ic = add(mul(g, icPerGroup), ci);
        Value og = arith::DivUIOp::create(nb, nl, ic, icPerOffsetGroup);
        Value tap = add(mul(add(mul(og, kh), ti), kw), tj);
        Value offH = tensor::ExtractOp::create(
            nb, nl, offset, ValueRange{n, mul(tap, c(2)), i, j});
        Value offW = tensor::ExtractOp::create(
            nb, nl, offset, ValueRange{n, add(mul(tap, c(2)), c(1)), i, j});
        auto coord = [&](Value pos, Value t, int64_t dim, Value off) {
          Value base =
              add(mul(pos, c((*strides)[dim])), mul(t, c((*dilations)[dim])));
          Value f = arith::SubFOp::create(
              nb, nl, toF64(base),
              scalarConstant(nb, nl, f64, double((*pads)[dim])));
          return arith::AddFOp::create(nb, nl, f,
                                       convertFloat(nb, nl, off, f64))
              .getResult();
        };
        Value h = coord(i, ti, 0, offH), wv = coord(j, tj, 1, offW);
        Value h0f = math::FloorOp::create(nb, nl, h);
        Value w0f = math::FloorOp::create(nb, nl, wv);
        Value lh = arith::SubFOp::create(nb, nl, h, h0f);
        Value lw = arith::SubFOp::create(nb, nl, wv, w0f);
        Value one = scalarConstant(nb, nl, f64, 1.0);
        Value zeroF = scalarConstant(nb, nl, f64, 0.0);
        // Corner indices in i64 (coordinates may lie far outside).
        auto toI64 = [&](Value f) {
          return arith::FPToSIOp::create(nb, nl, nb.getI64Type(), f)
              .getResult();
        };
        Value h0 = toI64(h0f), w0 = toI64(w0f);
        Value hI = arith::IndexCastOp::create(nb, nl, nb.getI64Type(), height);
        Value wI = arith::IndexCastOp::create(nb, nl, nb.getI64Type(), width);
        Value one64 = arith::ConstantIntOp::create(nb, nl, 1, 64);
        Value zero64 = arith::ConstantIntOp::create(nb, nl, 0, 64);
        auto corner = [&](Value hh, Value ww) {
          Value inH = arith::AndIOp::create(
              nb, nl,
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sge, hh,
                                    zero64),
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, hh, hI));
          Value inW = arith::AndIOp::create(
              nb, nl,
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sge, ww,
                                    zero64),
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, ww, wI));
          Value inside = arith::AndIOp::create(nb, nl, inH, inW);
          auto clampIdx = [&](Value v, Value limit) {
            Value hi = arith::SubIOp::create(nb, nl, limit, one64);
            Value c0 = arith::MaxSIOp::create(nb, nl, v, zero64);
            Value c1 = arith::MinSIOp::create(nb, nl, c0, hi);
            return arith::IndexCastOp::create(nb, nl, nb.getIndexType(), c1)
                .getResult();
          };
          Value v = tensor::ExtractOp::create(
              nb, nl, x, ValueRange{n, ic, clampIdx(hh, hI), clampIdx(ww, wI)});
          return arith::SelectOp::create(nb, nl, inside,
                                         convertFloat(nb, nl, v, f64), zeroF)
              .getResult();
        };
        Value h1 = arith::AddIOp::create(nb, nl, h0, one64);
        Value w1 = arith::AddIOp::create(nb, nl, w0, one64);
        Value uh = arith::SubFOp::create(nb, nl, one, lh);
        Value uw = arith::SubFOp::create(nb, nl, one, lw);
        auto term = [&](Value wt1, Value wt2, Value v) {
          return arith::MulFOp::create(
                     nb, nl, arith::MulFOp::create(nb, nl, wt1, wt2), v)
              .getResult();
        };
        Value sample = arith::AddFOp::create(
            nb, nl,
            arith::AddFOp::create(nb, nl, term(uh, uw, corner(h0, w0)),
                                  term(uh, lw, corner(h0, w1))),
            arith::AddFOp::create(nb, nl, term(lh, uw, corner(h1, w0)),
                                  term(lh, lw, corner(h1, w1))));
        Value value = arith::MulFOp::create(nb, nl, sample,
                                            convertFloat(nb, nl, in[0], f64));
        if (hasMask) {
          Value m =
              tensor::ExtractOp::create(nb, nl, mask, ValueRange{n, tap, i, j});
          value = arith::MulFOp::create(nb, nl, value,
                                        convertFloat(nb, nl, m, f64));
        }
        return arith::AddFOp::create(nb, nl, acc,
                                     convertFloat(nb, nl, value, compute))
            .getResult();
      });
  // Y = sum + B, in the element type.
  SmallVector<OperandAccess> accesses = {identityAccess(sum)};
  if (hasBias)
    accesses.push_back(projectedAccess(bias, {1}));
  SmallVector<utils::IteratorType> parallel(4, utils::IteratorType::parallel);
  Value y = buildGeneric(
      b, loc, accesses, emptyTensor(b, loc, *outDims, element), {0, 1, 2, 3},
      parallel, [&](OpBuilder &nb, Location nl, ValueRange in, Value) {
        Value v = in[0];
        if (hasBias)
          v = arith::AddFOp::create(nb, nl, v,
                                    convertFloat(nb, nl, in[1], compute));
        return convertFloat(nb, nl, v, element);
      });
  return SmallVector<Value>{y};
}

} // namespace

void addNewDeformConvLowerings(LoweringTable &t) {
  t["onnx.DeformConv"] = lowerDeformConv;
}

} // namespace onyx::conversion
