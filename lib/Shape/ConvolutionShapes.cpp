//===- ConvolutionShapes.cpp - Sliding-window result shapes ---------------===//
//
// Index arithmetic here folds to attributes whenever its operands are
// static, so static models get static types; dynamic extents become arith
// ops on `index` (valid anywhere, unlike affine.apply, whose operands must be
// affine symbols).
//
//===----------------------------------------------------------------------===//

#include "onyx/Shape/ConvolutionShapes.h"
#include "onyx/Shape/ShapeHelpers.h"

#include "onyx/Dialect/Onyx/OnyxDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace onyx::shape {
namespace {

//===----------------------------------------------------------------------===//
// Folding index arithmetic
//===----------------------------------------------------------------------===//

/// Builds index arithmetic on OpFoldResults; a result is an attribute when
/// every operand is.
class IndexMath {
public:
  IndexMath(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  OpFoldResult c(int64_t v) { return b.getIndexAttr(v); }
  OpFoldResult add(OpFoldResult x, OpFoldResult y) {
    // x + 0 stays x, so that an unpadded dynamic extent is provably the
    // input's and no padding copy is made.
    if (getStatic(y) == 0)
      return x;
    if (getStatic(x) == 0)
      return y;
    return binary<arith::AddIOp>(x, y,
                                 [](int64_t p, int64_t q) { return p + q; });
  }
  OpFoldResult add(OpFoldResult x, int64_t y) { return add(x, c(y)); }
  OpFoldResult sub(OpFoldResult x, OpFoldResult y) {
    if (getStatic(y) == 0)
      return x;
    return binary<arith::SubIOp>(x, y,
                                 [](int64_t p, int64_t q) { return p - q; });
  }
  OpFoldResult sub(OpFoldResult x, int64_t y) { return sub(x, c(y)); }
  OpFoldResult mul(OpFoldResult x, int64_t y) {
    if (y == 1)
      return x;
    return binary<arith::MulIOp>(x, c(y),
                                 [](int64_t p, int64_t q) { return p * q; });
  }
  /// Floor division by a positive constant.
  OpFoldResult floorDiv(OpFoldResult x, int64_t y) {
    return roundedDiv(x, y, /*up=*/false);
  }
  /// Ceiling division by a positive constant.
  OpFoldResult ceilDiv(OpFoldResult x, int64_t y) {
    return roundedDiv(x, y, /*up=*/true);
  }
  OpFoldResult max(OpFoldResult x, OpFoldResult y) {
    return binary<arith::MaxSIOp>(
        x, y, [](int64_t p, int64_t q) { return std::max(p, q); });
  }
  OpFoldResult max(OpFoldResult x, int64_t y) { return max(x, c(y)); }
  /// x - 1 when lhs >= rhs, else x.
  OpFoldResult decrementIfGe(OpFoldResult x, OpFoldResult lhs,
                             OpFoldResult rhs) {
    auto sx = getStatic(x), sl = getStatic(lhs), sr = getStatic(rhs);
    if (sl && sr)
      return *sl >= *sr ? sub(x, 1) : x;
    if (sx && sl && sr)
      return c(*sl >= *sr ? *sx - 1 : *sx);
    Value ge =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                              toValue(b, loc, lhs), toValue(b, loc, rhs));
    Value vx = toValue(b, loc, x);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    return arith::SelectOp::create(b, loc, ge,
                                   arith::SubIOp::create(b, loc, vx, one), vx)
        .getResult();
  }
  OpFoldResult min(OpFoldResult x, OpFoldResult y) {
    return binary<arith::MinSIOp>(
        x, y, [](int64_t p, int64_t q) { return std::min(p, q); });
  }

  /// Checks `lhs <pred> rhs`: an error on `diagOp` when both are static and
  /// it fails, an onyx.assert when either is dynamic. `message` may use {0}
  /// and {1} for the two values.
  LogicalResult require(arith::CmpIPredicate pred, OpFoldResult lhs,
                        OpFoldResult rhs, const Twine &message,
                        Operation *diagOp) {
    using P = arith::CmpIPredicate;
    if (provablyEqual(lhs, rhs) &&
        (pred == P::eq || pred == P::sge || pred == P::sle))
      return success();
    auto sl = getStatic(lhs), sr = getStatic(rhs);
    if (sl && sr) {
      if (arith::applyCmpPredicate(pred, APInt(64, *sl, true),
                                   APInt(64, *sr, true)))
        return success();
      std::string text = message.str();
      replaceAll(text, "{0}", std::to_string(*sl));
      replaceAll(text, "{1}", std::to_string(*sr));
      return diagOp->emitError() << text;
    }
    Value l = toValue(b, loc, lhs), r = toValue(b, loc, rhs);
    Value ok = arith::CmpIOp::create(b, loc, pred, l, r);
    AssertOp::create(b, loc, ok, b.getStringAttr(message), ValueRange{l, r});
    return success();
  }

private:
  template <typename OpTy, typename Fold>
  OpFoldResult binary(OpFoldResult x, OpFoldResult y, Fold fold) {
    auto sx = getStatic(x), sy = getStatic(y);
    if (sx && sy)
      return c(fold(*sx, *sy));
    return OpTy::create(b, loc, toValue(b, loc, x), toValue(b, loc, y))
        .getResult();
  }

  /// x / y rounded down or up, y > 0. Built from divsi (which truncates)
  /// because the CPU pipeline does not expand arith.floordivsi/ceildivsi:
  /// the numerator is first moved by y - 1 towards the rounding direction
  /// when truncation would round the wrong way.
  OpFoldResult roundedDiv(OpFoldResult x, int64_t y, bool up) {
    if (y == 1)
      return x;
    if (auto sx = getStatic(x)) {
      int64_t q = *sx / y, r = *sx % y;
      if (r != 0 && ((r > 0) == up))
        q += up ? 1 : -1;
      return c(q);
    }
    Value v = cast<Value>(x);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value shift = arith::ConstantIndexOp::create(b, loc, up ? y - 1 : 1 - y);
    Value moves = arith::CmpIOp::create(
        b, loc, up ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt, v,
        zero);
    Value shifted = arith::SelectOp::create(
        b, loc, moves, arith::AddIOp::create(b, loc, v, shift), v);
    return arith::DivSIOp::create(b, loc, shifted,
                                  arith::ConstantIndexOp::create(b, loc, y))
        .getResult();
  }

  static void replaceAll(std::string &text, StringRef what, StringRef with) {
    for (size_t pos = text.find(what); pos != std::string::npos;
         pos = text.find(what, pos + with.size()))
      text.replace(pos, what.size(), with.str());
  }

  OpBuilder &b;
  Location loc;
};

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

/// The integer list attribute `name` of `op`, or `defaultValue` repeated
/// `size` times when absent. Errors when the length is not `size`.
FailureOr<SmallVector<int64_t>> getIntList(Operation *op, StringRef name,
                                           size_t size, int64_t defaultValue) {
  auto attr = op->getAttrOfType<ArrayAttr>(name);
  if (!attr)
    return SmallVector<int64_t>(size, defaultValue);
  if (attr.size() != size)
    return op->emitError() << "attribute '" << name << "' has " << attr.size()
                           << " entries; expected " << size;
  SmallVector<int64_t> values;
  for (Attribute a : attr)
    values.push_back(cast<IntegerAttr>(a).getInt());
  return values;
}

FailureOr<AutoPad> parseAutoPad(Operation *op) {
  auto attr = op->getAttrOfType<StringAttr>("auto_pad");
  StringRef value = attr ? attr.getValue() : "NOTSET";
  if (value == "NOTSET" || value.empty())
    return AutoPad::NotSet;
  if (value == "VALID")
    return AutoPad::Valid;
  if (value == "SAME_UPPER")
    return AutoPad::SameUpper;
  if (value == "SAME_LOWER")
    return AutoPad::SameLower;
  return op->emitError() << "unknown auto_pad value '" << value << "'";
}

/// Rank >= 3 ([N, C, spatial...]); the spatial rank.
FailureOr<int64_t> spatialRankOf(Value x, StringRef what, Operation *diagOp) {
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  if (rank < 3)
    return diagOp->emitError()
           << what << " must have rank >= 3 ([N, C, spatial...]); it has rank "
           << rank;
  return rank - 2;
}

/// Kernel extents: `kernelShape` when given (checked against W's spatial
/// dims), else W's spatial dims.
FailureOr<SmallVector<OpFoldResult>>
kernelExtents(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> wDims,
              std::optional<ArrayRef<int64_t>> kernelShape, Operation *diagOp) {
  SmallVector<OpFoldResult> kernel(wDims.drop_front(2));
  if (!kernelShape)
    return kernel;
  if (kernelShape->size() != kernel.size())
    return diagOp->emitError() << "kernel_shape has " << kernelShape->size()
                               << " entries but the weights have "
                               << kernel.size() << " spatial dims";
  for (auto [i, k] : llvm::enumerate(*kernelShape)) {
    OpFoldResult attr = b.getIndexAttr(k);
    if (failed(checkEqual(
            b, loc, attr, kernel[i],
            "kernel_shape vs weight spatial dim " + std::to_string(i), diagOp)))
      return failure();
    kernel[i] = attr;
  }
  return kernel;
}

/// Dilated kernel extent (k - 1) * d + 1.
OpFoldResult effectiveKernel(IndexMath &m, OpFoldResult k, int64_t dilation) {
  return m.add(m.mul(m.sub(k, 1), dilation), 1);
}

} // namespace

FailureOr<WindowAttrs> getWindowAttrs(Operation *op, int64_t spatialRank) {
  WindowAttrs attrs;
  auto autoPad = parseAutoPad(op);
  auto strides = getIntList(op, "strides", spatialRank, 1);
  auto dilations = getIntList(op, "dilations", spatialRank, 1);
  auto pads = getIntList(op, "pads", 2 * spatialRank, 0);
  if (failed(autoPad) || failed(strides) || failed(dilations) || failed(pads))
    return failure();
  attrs.autoPad = *autoPad;
  attrs.strides = *strides;
  attrs.dilations = *dilations;
  if (llvm::any_of(attrs.strides, [](int64_t s) { return s < 1; }))
    return op->emitError("strides must be positive");
  if (llvm::any_of(attrs.dilations, [](int64_t d) { return d < 1; }))
    return op->emitError("dilations must be positive");
  if (attrs.autoPad == AutoPad::NotSet) {
    if (llvm::any_of(*pads, [](int64_t p) { return p < 0; }))
      return op->emitError("negative pads are not supported");
    attrs.padsBegin.assign(pads->begin(), pads->begin() + spatialRank);
    attrs.padsEnd.assign(pads->begin() + spatialRank, pads->end());
  } else {
    // ONNX: explicit pads are ignored (and should be absent) with auto_pad.
    attrs.padsBegin.assign(spatialRank, 0);
    attrs.padsEnd.assign(spatialRank, 0);
  }
  if (auto ceil = op->getAttrOfType<IntegerAttr>("ceil_mode"))
    attrs.ceilMode = ceil.getInt() != 0;
  return attrs;
}

FailureOr<SmallVector<WindowDim>> slidingWindow(OpBuilder &b, Location loc,
                                                ArrayRef<OpFoldResult> input,
                                                ArrayRef<OpFoldResult> kernel,
                                                const WindowAttrs &attrs,
                                                Operation *diagOp) {
  IndexMath m(b, loc);
  SmallVector<WindowDim> dims;
  for (size_t i = 0; i < input.size(); ++i) {
    int64_t s = attrs.strides[i];
    OpFoldResult in = input[i];
    OpFoldResult effK = effectiveKernel(m, kernel[i], attrs.dilations[i]);
    WindowDim dim;
    if (attrs.autoPad == AutoPad::SameUpper ||
        attrs.autoPad == AutoPad::SameLower) {
      // out = ceil(in / s); the padding completes the last window, the odd
      // element going to the end (UPPER) or the beginning (LOWER).
      dim.output = m.ceilDiv(in, s);
      OpFoldResult total =
          m.max(m.sub(m.add(m.mul(m.sub(dim.output, 1), s), effK), in), 0);
      OpFoldResult half = m.floorDiv(total, 2);
      bool upper = attrs.autoPad == AutoPad::SameUpper;
      dim.padBegin = upper ? half : m.sub(total, half);
      dim.padEnd = upper ? m.sub(total, half) : half;
    } else {
      dim.padBegin = m.c(attrs.padsBegin[i]);
      dim.padEnd = m.c(attrs.padsEnd[i]);
    }
    OpFoldResult padded = m.add(m.add(in, dim.padBegin), dim.padEnd);
    if (failed(m.require(arith::CmpIPredicate::sge, padded, effK,
                         "the padded input extent {0} is smaller than the "
                         "dilated kernel extent {1} (spatial dim " +
                             std::to_string(i) + ")",
                         diagOp)))
      return failure();

    if (attrs.autoPad == AutoPad::NotSet || attrs.autoPad == AutoPad::Valid) {
      OpFoldResult span = m.sub(padded, effK);
      if (attrs.ceilMode && attrs.autoPad == AutoPad::NotSet) {
        // ceil_mode keeps a partial last window, but not one that starts
        // in the end padding (ONNX's rule: one window fewer when
        // (out - 1) * s >= in + padBegin).
        OpFoldResult out = m.add(m.ceilDiv(span, s), 1);
        dim.output = m.decrementIfGe(out, m.mul(m.sub(out, 1), s),
                                     m.add(in, dim.padBegin));
      } else {
        dim.output = m.add(m.floorDiv(span, s), 1);
      }
    }
    // The last window reads up to (out - 1) * s + effK.
    dim.padHigh = dim.padEnd;
    if (attrs.ceilMode) {
      OpFoldResult reach = m.add(m.mul(m.sub(dim.output, 1), s), effK);
      dim.padHigh = m.add(dim.padEnd, m.max(m.sub(reach, padded), 0));
    }
    dim.padded = m.add(m.add(in, dim.padBegin), dim.padHigh);
    dims.push_back(dim);
  }
  return dims;
}

FailureOr<ConvShape> convShape(OpBuilder &b, Location loc, Value x, Value w,
                               int64_t group,
                               std::optional<ArrayRef<int64_t>> kernelShape,
                               const WindowAttrs &attrs, Operation *diagOp) {
  auto spatialRank = spatialRankOf(x, "the input X", diagOp);
  if (failed(spatialRank))
    return failure();
  if (cast<RankedTensorType>(w.getType()).getRank() != *spatialRank + 2)
    return diagOp->emitError() << "the weights must have rank "
                               << *spatialRank + 2 << " like the input";
  if (group < 1)
    return diagOp->emitError() << "group must be positive; it is " << group;
  IndexMath m(b, loc);
  SmallVector<OpFoldResult> xDims = getDims(b, loc, x);
  SmallVector<OpFoldResult> wDims = getDims(b, loc, w);

  ConvShape shape;
  shape.batch = xDims[0];
  OpFoldResult inChannels = xDims[1], outChannels = wDims[0];
  // C = group * (C / group), and W holds C / group input channels.
  if (failed(checkEqual(b, loc, inChannels, m.mul(wDims[1], group),
                        "Conv: input channels vs group * weight dim 1",
                        diagOp)))
    return failure();
  shape.inChannelsPerGroup = m.floorDiv(inChannels, group);
  shape.outChannelsPerGroup = m.floorDiv(outChannels, group);
  if (failed(m.require(arith::CmpIPredicate::eq, outChannels,
                       m.mul(shape.outChannelsPerGroup, group),
                       "Conv: the {0} output channels (weight dim 0) do not "
                       "split into group = " +
                           std::to_string(group) + " groups",
                       diagOp)))
    return failure();

  auto kernel = kernelExtents(b, loc, wDims, kernelShape, diagOp);
  if (failed(kernel))
    return failure();
  shape.kernel = *kernel;
  auto window = slidingWindow(b, loc, ArrayRef(xDims).drop_front(2),
                              shape.kernel, attrs, diagOp);
  if (failed(window))
    return failure();
  shape.window = *window;
  shape.dims = {shape.batch, outChannels};
  for (const WindowDim &d : shape.window)
    shape.dims.push_back(d.output);
  return shape;
}

FailureOr<ConvTransposeShape>
convTransposeShape(OpBuilder &b, Location loc, Value x, Value w, int64_t group,
                   std::optional<ArrayRef<int64_t>> kernelShape,
                   const WindowAttrs &attrs, ArrayRef<int64_t> outputPadding,
                   ArrayRef<int64_t> outputShape, Operation *diagOp) {
  auto spatialRank = spatialRankOf(x, "the input X", diagOp);
  if (failed(spatialRank))
    return failure();
  int64_t r = *spatialRank;
  if (cast<RankedTensorType>(w.getType()).getRank() != r + 2)
    return diagOp->emitError()
           << "the weights must have rank " << r + 2 << " like the input";
  if (group < 1)
    return diagOp->emitError() << "group must be positive; it is " << group;
  SmallVector<int64_t> padding(outputPadding);
  if (padding.empty())
    padding.assign(r, 0);
  if (int64_t(padding.size()) != r)
    return diagOp->emitError() << "output_padding has " << padding.size()
                               << " entries; expected " << r;
  if (llvm::any_of(padding, [](int64_t p) { return p < 0; }))
    return diagOp->emitError("output_padding must be non-negative");
  ArrayRef<int64_t> requested = outputShape;
  if (int64_t(requested.size()) == r + 2)
    requested = requested.drop_front(2); // [N, M, spatial...] form
  if (!requested.empty() && int64_t(requested.size()) != r)
    return diagOp->emitError() << "output_shape has " << outputShape.size()
                               << " entries; expected " << r;

  IndexMath m(b, loc);
  SmallVector<OpFoldResult> xDims = getDims(b, loc, x);
  SmallVector<OpFoldResult> wDims = getDims(b, loc, w);
  ConvTransposeShape shape;
  shape.batch = xDims[0];
  OpFoldResult inChannels = xDims[1];
  if (failed(checkEqual(b, loc, inChannels, wDims[0],
                        "ConvTranspose: input channels vs weight dim 0",
                        diagOp)))
    return failure();
  shape.inChannelsPerGroup = m.floorDiv(inChannels, group);
  if (failed(m.require(arith::CmpIPredicate::eq, inChannels,
                       m.mul(shape.inChannelsPerGroup, group),
                       "ConvTranspose: the {0} input channels do not split "
                       "into group = " +
                           std::to_string(group) + " groups",
                       diagOp)))
    return failure();
  shape.outChannelsPerGroup = wDims[1];
  auto kernel = kernelExtents(b, loc, wDims, kernelShape, diagOp);
  if (failed(kernel))
    return failure();
  shape.kernel = *kernel;
  shape.dims = {shape.batch, m.mul(shape.outChannelsPerGroup, group)};

  for (int64_t i = 0; i < r; ++i) {
    int64_t s = attrs.strides[i];
    OpFoldResult in = xDims[i + 2];
    OpFoldResult effK = effectiveKernel(m, shape.kernel[i], attrs.dilations[i]);
    // The unpadded ("full") output extent.
    OpFoldResult full = m.add(m.add(m.mul(m.sub(in, 1), s), effK), padding[i]);
    OpFoldResult out, padBegin;
    bool sameAuto = attrs.autoPad == AutoPad::SameUpper ||
                    attrs.autoPad == AutoPad::SameLower;
    if (!requested.empty() || sameAuto) {
      // The output extent is given (or in * s for SAME); the pads make up
      // the difference, the odd one at the end for SAME_UPPER and at the
      // beginning otherwise (floor division, as the ONNX reference).
      out = requested.empty() ? m.mul(in, s) : m.c(requested[i]);
      OpFoldResult total = m.sub(full, out);
      OpFoldResult half = m.floorDiv(total, 2);
      padBegin =
          attrs.autoPad == AutoPad::SameUpper ? half : m.sub(total, half);
    } else {
      padBegin = m.c(attrs.padsBegin[i]);
      out = m.sub(m.sub(full, attrs.padsBegin[i]), attrs.padsEnd[i]);
    }
    if (failed(m.require(arith::CmpIPredicate::sgt, out, m.c(0),
                         "ConvTranspose: output extent {0} is not positive "
                         "(spatial dim " +
                             std::to_string(i) + ")",
                         diagOp)))
      return failure();
    // Output o reads dilated positions o + t * dilation for the flipped
    // taps t; input element j sits at (effK - 1 - padBegin) + j * s.
    OpFoldResult offset = m.sub(m.sub(effK, 1), padBegin);
    OpFoldResult extent = m.add(out, m.sub(effK, 1));
    // Pads that crop more than the kernel reaches would need the input
    // cropped too; they are rejected.
    if (failed(m.require(arith::CmpIPredicate::sge, offset, m.c(0),
                         "ConvTranspose: a begin pad of more than the dilated "
                         "kernel extent minus 1 is not supported (offset {0}, "
                         "spatial dim " +
                             std::to_string(i) + ")",
                         diagOp)))
      return failure();
    OpFoldResult last = m.add(offset, m.mul(m.sub(in, 1), s));
    if (failed(m.require(arith::CmpIPredicate::slt, last, extent,
                         "ConvTranspose: an end pad of more than the dilated "
                         "kernel extent minus 1 plus output_padding is not "
                         "supported (last input position {0}, extent {1}, "
                         "spatial dim " +
                             std::to_string(i) + ")",
                         diagOp)))
      return failure();
    shape.output.push_back(out);
    shape.inputOffset.push_back(offset);
    shape.dilatedExtent.push_back(extent);
    shape.dims.push_back(out);
  }
  return shape;
}

FailureOr<PoolShape> poolShape(OpBuilder &b, Location loc, Value x,
                               ArrayRef<int64_t> kernelShape,
                               const WindowAttrs &attrs, Operation *diagOp) {
  auto spatialRank = spatialRankOf(x, "the input X", diagOp);
  if (failed(spatialRank))
    return failure();
  if (int64_t(kernelShape.size()) != *spatialRank)
    return diagOp->emitError()
           << "kernel_shape has " << kernelShape.size()
           << " entries but the input has " << *spatialRank << " spatial dims";
  if (llvm::any_of(kernelShape, [](int64_t k) { return k < 1; }))
    return diagOp->emitError("kernel_shape entries must be positive");
  SmallVector<OpFoldResult> xDims = getDims(b, loc, x);
  SmallVector<OpFoldResult> kernel;
  for (int64_t k : kernelShape)
    kernel.push_back(b.getIndexAttr(k));
  auto window = slidingWindow(b, loc, ArrayRef(xDims).drop_front(2), kernel,
                              attrs, diagOp);
  if (failed(window))
    return failure();
  PoolShape shape;
  shape.window = *window;
  shape.dims = {xDims[0], xDims[1]};
  for (const WindowDim &d : shape.window)
    shape.dims.push_back(d.output);
  return shape;
}

FailureOr<SmallVector<OpFoldResult>>
globalPoolShape(OpBuilder &b, Location loc, Value x, Operation *diagOp) {
  auto spatialRank = spatialRankOf(x, "the input X", diagOp);
  if (failed(spatialRank))
    return failure();
  SmallVector<OpFoldResult> dims = {getDim(b, loc, x, 0), getDim(b, loc, x, 1)};
  dims.append(*spatialRank, b.getIndexAttr(1));
  return dims;
}

} // namespace onyx::shape
