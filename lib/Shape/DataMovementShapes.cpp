//===- DataMovementShapes.cpp - Result shapes of data-movement ops --------===//
//
// Unsqueeze, Squeeze, Concat, Split, Slice, Expand, Tile, Pad,
// ConstantOfShape and Range, and the declared-dims match; the gather and
// scatter families, DepthToSpace, SpaceToDepth, OneHot and axis views are
// in DataMovementIndexingShapes.cpp, IndexMath and IntList in
// IndexMath.cpp.
//
//===----------------------------------------------------------------------===//

#include "DataMovementShapesCommon.h"

#include "onyx/Dialect/Onyx/OnyxDialect.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using arith::CmpIPredicate;

namespace onyx::shape {

//===----------------------------------------------------------------------===//
// Shared pieces
//===----------------------------------------------------------------------===//

/// dims[i] for a run-time `i` (one of 0..size-1).
OpFoldResult pick(IndexMath &m, ArrayRef<OpFoldResult> dims, OpFoldResult i) {
  if (auto s = getStatic(i))
    return dims[*s];
  OpFoldResult result = dims.empty() ? m.cst(0) : dims.back();
  for (int64_t j = int64_t(dims.size()) - 2; j >= 0; --j)
    result = m.select(m.eq(i, m.cst(j)), dims[j], result);
  return result;
}

/// An axis in [-rank, rank) made non-negative (range checked by callers).
OpFoldResult normalize(IndexMath &m, OpFoldResult axis, int64_t rank) {
  return m.select(m.lt(axis, m.cst(0)), m.add(axis, m.cst(rank)), axis);
}

Cond inRange(IndexMath &m, OpFoldResult v, int64_t lo, int64_t hi) {
  return m.andOf(m.le(m.cst(lo), v), m.lt(v, m.cst(hi)));
}

LogicalResult requireNonNegative(IndexMath &m, OpFoldResult v,
                                 StringRef message, Operation *diagOp) {
  return m.require(m.le(m.cst(0), v), message, {v}, diagOp);
}

namespace {

/// Which of `rank` positions the `count` axes of `axes` (each in
/// [-rank, rank)) select; checks the range and that no axis repeats.
FailureOr<SmallVector<Cond>> markAxes(IndexMath &m, const IntList &axes,
                                      int64_t count, int64_t rank,
                                      StringRef opName, Operation *diagOp) {
  SmallVector<OpFoldResult> normalized;
  for (int64_t k = 0; k < count; ++k) {
    OpFoldResult a = axes.get(m, k);
    if (failed(m.require(
            inRange(m, a, -rank, rank),
            (opName + ": axis {0} is out of range for rank {1}").str(),
            {a, m.cst(rank)}, diagOp)))
      return failure();
    normalized.push_back(normalize(m, a, rank));
  }
  SmallVector<Cond> marked;
  Cond unique = Cond::of(true);
  for (int64_t i = 0; i < rank; ++i) {
    Cond hit = Cond::of(false);
    for (OpFoldResult a : normalized) {
      Cond here = m.eq(a, m.cst(i));
      // A second hit on the same position is a repeated axis.
      unique = m.andOf(unique, m.notOf(m.andOf(hit, here)));
      hit = m.orOf(hit, here);
    }
    marked.push_back(hit);
  }
  if (failed(m.require(unique, (opName + ": the axes repeat an axis").str(), {},
                       diagOp)))
    return failure();
  return marked;
}

/// Positions whose Cond is statically true, if all are static.
std::optional<SmallVector<int64_t>> staticPositions(ArrayRef<Cond> marked) {
  SmallVector<int64_t> positions;
  for (auto [i, c] : llvm::enumerate(marked)) {
    if (!c.known)
      return std::nullopt;
    if (*c.known)
      positions.push_back(int64_t(i));
  }
  return positions;
}

/// The dims of `in` that are not `dropped`, in order, as `outRank` dims:
/// out[j] is the in[i] with i - (#dropped before i) == j.
SmallVector<OpFoldResult> keptDims(IndexMath &m, ArrayRef<OpFoldResult> in,
                                   ArrayRef<Cond> dropped, int64_t outRank) {
  SmallVector<OpFoldResult> out(outRank, m.cst(1));
  OpFoldResult droppedBefore = m.cst(0);
  SmallVector<OpFoldResult> position;
  for (size_t i = 0; i < in.size(); ++i) {
    position.push_back(m.sub(m.cst(int64_t(i)), droppedBefore));
    droppedBefore =
        m.add(droppedBefore, m.select(dropped[i], m.cst(1), m.cst(0)));
  }
  for (int64_t j = 0; j < outRank; ++j) {
    OpFoldResult d = m.cst(1);
    for (size_t i = 0; i < in.size(); ++i) {
      Cond here = m.andOf(m.notOf(dropped[i]), m.eq(position[i], m.cst(j)));
      d = m.select(here, in[i], d);
    }
    out[j] = d;
  }
  return out;
}

OpFoldResult product(IndexMath &m, ArrayRef<OpFoldResult> dims) {
  OpFoldResult p = m.cst(1);
  for (OpFoldResult d : dims)
    p = m.mul(p, d);
  return p;
}

} // namespace

FailureOr<SmallVector<OpFoldResult>>
matchDeclared(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> dims,
              Type declared, StringRef what, Operation *diagOp) {
  SmallVector<OpFoldResult> result(dims.begin(), dims.end());
  auto type = dyn_cast<RankedTensorType>(declared);
  if (!type)
    return result;
  if (type.getRank() != int64_t(dims.size()))
    return diagOp->emitError() << what << " has rank " << dims.size()
                               << " but the model declares " << declared;
  IndexMath m(b, loc);
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (type.isDynamicDim(i))
      continue;
    OpFoldResult want = m.cst(type.getDimSize(i));
    if (failed(m.require(m.eq(dims[i], want),
                         (what + " dim " + std::to_string(i) +
                          " is {0} but the model declares {1}")
                             .str(),
                         {dims[i], want}, diagOp)))
      return failure();
    result[i] = want;
  }
  return result;
}

OpFoldResult numElements(OpBuilder &b, Location loc, Value input) {
  IndexMath m(b, loc);
  return product(m, getDims(b, loc, input));
}

std::pair<int64_t, int64_t> shapeOpRange(int64_t rank, int64_t start,
                                         std::optional<int64_t> end) {
  auto clampAxis = [&](int64_t v) {
    if (v < 0)
      v += rank;
    return std::clamp<int64_t>(v, 0, rank);
  };
  int64_t first = clampAxis(start);
  int64_t last = end ? clampAxis(*end) : rank;
  return {first, std::max(first, last)};
}

//===----------------------------------------------------------------------===//
// Unsqueeze, Squeeze
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<OpFoldResult>>
unsqueezeShape(OpBuilder &b, Location loc, Value input, const IntList &axes,
               int64_t outRank, std::optional<SmallVector<int64_t>> *unitAxes,
               Operation *diagOp) {
  IndexMath m(b, loc);
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  int64_t numAxes = outRank - int64_t(in.size());
  if (numAxes < 0)
    return diagOp->emitError() << "Unsqueeze: result rank " << outRank
                               << " is below the input rank " << in.size();
  if (failed(axes.requireSize(m, numAxes, "Unsqueeze: axes", diagOp)))
    return failure();
  auto marked = markAxes(m, axes, numAxes, outRank, "Unsqueeze", diagOp);
  if (failed(marked))
    return failure();
  if (unitAxes)
    if (auto positions = staticPositions(*marked))
      *unitAxes = *positions;
  // The input dims fill the positions that are not new axes, in order: the
  // inverse of dropping the new axes from the result.
  SmallVector<OpFoldResult> out(outRank, m.cst(1));
  OpFoldResult insertedBefore = m.cst(0);
  for (int64_t j = 0; j < outRank; ++j) {
    OpFoldResult source = m.sub(m.cst(j), insertedBefore);
    OpFoldResult d =
        in.empty() ? m.cst(1)
                   : pick(m, in, m.min(source, m.cst(int64_t(in.size()) - 1)));
    out[j] = m.select((*marked)[j], m.cst(1), d);
    insertedBefore =
        m.add(insertedBefore, m.select((*marked)[j], m.cst(1), m.cst(0)));
  }
  return out;
}

FailureOr<SmallVector<OpFoldResult>>
squeezeShape(OpBuilder &b, Location loc, Value input, const IntList &axes,
             std::optional<int64_t> outRank,
             std::optional<SmallVector<int64_t>> *unitAxes, Operation *diagOp) {
  IndexMath m(b, loc);
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  int64_t rank = int64_t(in.size());
  SmallVector<Cond> dropped;
  if (axes.isAbsent()) {
    // Every extent-1 dim goes; how many must be known to type the result.
    for (OpFoldResult d : in)
      dropped.push_back(m.eq(d, m.cst(1)));
    auto positions = staticPositions(dropped);
    if (!positions && !outRank)
      return diagOp->emitError(
          "Squeeze without axes: which dims are 1 is only known at run "
          "time and the result rank is not declared");
    int64_t keep = positions ? rank - int64_t(positions->size()) : *outRank;
    if (!positions) {
      OpFoldResult count = m.cst(0);
      for (Cond c : dropped)
        count = m.add(count, m.select(c, m.cst(1), m.cst(0)));
      if (failed(m.require(m.eq(count, m.cst(rank - keep)),
                           "Squeeze: the input has {0} dims of extent 1 but "
                           "the result drops {1}",
                           {count, m.cst(rank - keep)}, diagOp)))
        return failure();
    } else if (unitAxes) {
      *unitAxes = *positions;
    }
    return keptDims(m, in, dropped, keep);
  }

  std::optional<int64_t> numAxes = axes.staticSize();
  if (!numAxes && !outRank)
    return diagOp->emitError("Squeeze: the number of axes is only known at "
                             "run time and the result rank is not declared");
  if (!numAxes) {
    numAxes = rank - *outRank;
    if (*numAxes < 0)
      return diagOp->emitError()
             << "Squeeze: the declared result rank " << *outRank
             << " is above the input rank " << rank;
    if (failed(axes.requireSize(m, *numAxes, "Squeeze: axes", diagOp)))
      return failure();
  }
  // Each squeezed axis is a distinct input dim: more axes than dims can
  // never be valid (whatever their values).
  if (*numAxes > rank)
    return diagOp->emitError()
           << "Squeeze: " << *numAxes << " axes for an input of rank " << rank;
  auto marked = markAxes(m, axes, *numAxes, rank, "Squeeze", diagOp);
  if (failed(marked))
    return failure();
  for (int64_t i = 0; i < rank; ++i) {
    Cond ok = m.orOf(m.notOf((*marked)[i]), m.eq(in[i], m.cst(1)));
    if (failed(m.require(ok, "Squeeze: axis {0} has extent {1}, not 1",
                         {m.cst(i), in[i]}, diagOp)))
      return failure();
  }
  if (unitAxes)
    if (auto positions = staticPositions(*marked))
      *unitAxes = *positions;
  return keptDims(m, in, *marked, rank - *numAxes);
}

//===----------------------------------------------------------------------===//
// Concat, Split, Slice
//===----------------------------------------------------------------------===//

FailureOr<ConcatShape> concatShape(OpBuilder &b, Location loc,
                                   ValueRange inputs, int64_t axis,
                                   Operation *diagOp) {
  IndexMath m(b, loc);
  SmallVector<SmallVector<OpFoldResult>> all;
  for (Value v : inputs)
    all.push_back(getDims(b, loc, v));
  size_t rank = all.front().size();
  ConcatShape shape;
  shape.dims = all.front();
  OpFoldResult offset = m.cst(0);
  for (auto [i, dims] : llvm::enumerate(all)) {
    if (dims.size() != rank)
      return diagOp->emitError()
             << "Concat: input " << i << " has rank " << dims.size()
             << ", input 0 has rank " << rank;
    for (size_t d = 0; d < rank; ++d) {
      if (int64_t(d) == axis)
        continue;
      // Prefer a static extent for the result.
      if (!getStatic(shape.dims[d]) && getStatic(dims[d]))
        shape.dims[d] = dims[d];
    }
    shape.offsets.push_back(offset);
    offset = m.add(offset, dims[axis]);
  }
  shape.dims[axis] = offset;
  for (auto [i, dims] : llvm::enumerate(all))
    for (size_t d = 0; d < rank; ++d)
      if (int64_t(d) != axis &&
          failed(checkEqual(b, loc, dims[d], shape.dims[d],
                            "Concat: input " + std::to_string(i) + " dim " +
                                std::to_string(d),
                            diagOp)))
        return failure();
  return shape;
}

FailureOr<SmallVector<Window>> splitShape(OpBuilder &b, Location loc,
                                          Value input, int64_t axis,
                                          const IntList &split,
                                          int64_t numOutputs, Operation *diagOp,
                                          bool ceilParts) {
  IndexMath m(b, loc);
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  OpFoldResult extent = in[axis];
  SmallVector<OpFoldResult> sizes;
  if (split.isAbsent()) {
    if (numOutputs < 1)
      return diagOp->emitError("Split: no outputs");
    OpFoldResult parts = m.cst(numOutputs);
    if (ceilParts) {
      // ceil(extent / n) each; the last part is what remains (ONNX requires
      // it to be non-empty, i.e. extent > (n - 1) * chunk).
      OpFoldResult chunk =
          m.floorDiv(m.add(extent, m.cst(numOutputs - 1)), parts);
      OpFoldResult before = m.mul(chunk, m.cst(numOutputs - 1));
      if (failed(m.require(m.lt(before, extent),
                           "Split: extent {0} does not split into {1} parts "
                           "of ceil(extent / {1}) with a non-empty last one",
                           {extent, parts}, diagOp)))
        return failure();
      sizes.assign(numOutputs - 1, chunk);
      sizes.push_back(m.sub(extent, before));
    } else if (failed(
                   m.require(m.eq(m.floorMod(extent, parts), m.cst(0)),
                             "Split: extent {0} does not split into {1} equal "
                             "parts",
                             {extent, parts}, diagOp))) {
      return failure();
    } else {
      sizes.assign(numOutputs, m.floorDiv(extent, parts));
    }
  } else {
    if (failed(split.requireSize(m, numOutputs, "Split: split", diagOp)))
      return failure();
    OpFoldResult total = m.cst(0);
    for (int64_t k = 0; k < numOutputs; ++k) {
      OpFoldResult s = split.get(m, k);
      if (failed(requireNonNegative(m, s, "Split: negative size {0}", diagOp)))
        return failure();
      sizes.push_back(s);
      total = m.add(total, s);
    }
    if (failed(m.require(m.eq(total, extent),
                         "Split: the sizes add up to {0}, the extent is {1}",
                         {total, extent}, diagOp)))
      return failure();
  }
  SmallVector<Window> windows;
  OpFoldResult offset = m.cst(0);
  for (OpFoldResult s : sizes) {
    Window w;
    w.sizes = in;
    w.sizes[axis] = s;
    w.offsets.assign(in.size(), m.cst(0));
    w.offsets[axis] = offset;
    w.strides.assign(in.size(), m.cst(1));
    windows.push_back(std::move(w));
    offset = m.add(offset, s);
  }
  return windows;
}

FailureOr<Window> sliceShape(OpBuilder &b, Location loc, Value input,
                             const IntList &starts, const IntList &ends,
                             const IntList &axes, const IntList &steps,
                             Operation *diagOp) {
  IndexMath m(b, loc);
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  int64_t rank = int64_t(in.size());

  // How many (start, end, axis, step) entries there are, and an upper
  // bound to unroll over when that is only known at run time.
  OpFoldResult count = starts.size(m);
  std::optional<int64_t> staticCount = starts.staticSize();
  for (const IntList *other : {&ends, &axes, &steps}) {
    if (other->isAbsent())
      continue;
    if (!staticCount)
      staticCount = other->staticSize();
    OpFoldResult n = other->size(m);
    if (failed(m.require(m.eq(n, count),
                         "Slice: starts has {0} entries but another list "
                         "has {1}",
                         {count, n}, diagOp)))
      return failure();
  }
  int64_t maxCount = staticCount ? *staticCount : rank;
  if (!staticCount &&
      failed(m.require(m.le(count, m.cst(rank)),
                       "Slice: {0} entries for a rank-{1} input",
                       {count, m.cst(rank)}, diagOp)))
    return failure();
  if (axes.isAbsent() && maxCount > rank)
    return diagOp->emitError() << "Slice: " << maxCount
                               << " entries for a rank-" << rank << " input";

  SmallVector<OpFoldResult> first(rank, m.cst(0)), last(in),
      step(rank, m.cst(1));
  SmallVector<OpFoldResult> hits(rank, m.cst(0));
  for (int64_t k = 0; k < maxCount; ++k) {
    Cond present = staticCount ? Cond::of(true) : m.lt(m.cst(k), count);
    OpFoldResult axis = axes.isAbsent() ? m.cst(k) : axes.getOr(m, k, m.cst(0));
    if (failed(
            m.require(m.orOf(m.notOf(present), inRange(m, axis, -rank, rank)),
                      "Slice: axis {0} is out of range for rank {1}",
                      {axis, m.cst(rank)}, diagOp)))
      return failure();
    axis = normalize(m, axis, rank);
    OpFoldResult s = starts.getOr(m, k, m.cst(0));
    OpFoldResult e = ends.getOr(m, k, m.cst(0));
    OpFoldResult st = steps.isAbsent() ? m.cst(1) : steps.getOr(m, k, m.cst(1));
    if (failed(m.require(m.orOf(m.notOf(present), m.notOf(m.eq(st, m.cst(0)))),
                         "Slice: a step is 0", {}, diagOp)))
      return failure();
    for (int64_t d = 0; d < rank; ++d) {
      Cond hit = m.andOf(present, m.eq(axis, m.cst(d)));
      first[d] = m.select(hit, s, first[d]);
      last[d] = m.select(hit, e, last[d]);
      step[d] = m.select(hit, st, step[d]);
      hits[d] = m.add(hits[d], m.select(hit, m.cst(1), m.cst(0)));
    }
  }
  // Without axes entry k slices axis k: nothing can repeat.
  for (int64_t d = 0; d < rank && !axes.isAbsent(); ++d)
    if (failed(m.require(m.le(hits[d], m.cst(1)),
                         "Slice: axis {0} is sliced more than once", {m.cst(d)},
                         diagOp)))
      return failure();

  Window w;
  for (int64_t d = 0; d < rank; ++d) {
    OpFoldResult n = in[d];
    OpFoldResult s =
        m.select(m.lt(first[d], m.cst(0)), m.add(first[d], n), first[d]);
    OpFoldResult e =
        m.select(m.lt(last[d], m.cst(0)), m.add(last[d], n), last[d]);
    Cond forward = m.lt(m.cst(0), step[d]);
    // Forward: [s, e) within [0, n]. Backward: s down to e (exclusive)
    // within [n-1, -1].
    OpFoldResult nMinus1 = m.sub(n, m.cst(1));
    OpFoldResult sFwd = m.clamp(s, m.cst(0), n);
    OpFoldResult eFwd = m.clamp(e, m.cst(0), n);
    OpFoldResult sBwd = m.clamp(s, m.cst(0), nMinus1);
    OpFoldResult eBwd = m.clamp(e, m.cst(-1), nMinus1);
    OpFoldResult sizeFwd, sizeBwd;
    if (!forward.isFalse())
      sizeFwd = m.ceilDiv(m.sub(eFwd, sFwd), step[d]);
    if (!forward.isTrue())
      sizeBwd = m.ceilDiv(m.sub(sBwd, eBwd), m.sub(m.cst(0), step[d]));
    OpFoldResult size = forward.isTrue() ? sizeFwd
                        : forward.isFalse()
                            ? sizeBwd
                            : m.select(forward, sizeFwd, sizeBwd);
    // An empty dim stays empty whatever the clamps above made of it.
    size = m.min(m.max(size, m.cst(0)), n);
    w.offsets.push_back(m.select(forward, sFwd, sBwd));
    w.sizes.push_back(size);
    w.strides.push_back(step[d]);
  }
  return w;
}

//===----------------------------------------------------------------------===//
// Expand, Tile, Pad, ConstantOfShape, Range
//===----------------------------------------------------------------------===//

FailureOr<BroadcastShape> expandShape(OpBuilder &b, Location loc, Value input,
                                      const IntList &shape, int64_t outRank,
                                      Operation *diagOp) {
  IndexMath m(b, loc);
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  OpFoldResult count = shape.size(m);
  if (failed(m.require(m.le(count, m.cst(outRank)),
                       "Expand: the shape has {0} entries for a rank-{1} "
                       "result",
                       {count, m.cst(outRank)}, diagOp)))
    return failure();
  // The shape is right-aligned to the result: result axis a reads entry
  // count - outRank + a, and axes before the shape's first entry are 1.
  SmallVector<OpFoldResult> target;
  for (int64_t a = 0; a < outRank; ++a) {
    OpFoldResult k = m.add(m.sub(count, m.cst(outRank)), m.cst(a));
    OpFoldResult entry = shape.getOr(m, k, m.cst(1));
    if (failed(requireNonNegative(m, entry, "Expand: negative extent {0}",
                                  diagOp)))
      return failure();
    target.push_back(entry);
  }
  return broadcastDims(b, loc, {in, target}, diagOp);
}

FailureOr<SmallVector<OpFoldResult>> tileShape(OpBuilder &b, Location loc,
                                               Value input,
                                               const IntList &repeats,
                                               Operation *diagOp) {
  IndexMath m(b, loc);
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  if (failed(
          repeats.requireSize(m, int64_t(in.size()), "Tile: repeats", diagOp)))
    return failure();
  SmallVector<OpFoldResult> out;
  for (size_t i = 0; i < in.size(); ++i) {
    OpFoldResult r = repeats.get(m, int64_t(i));
    if (failed(requireNonNegative(m, r, "Tile: negative repeat count {0}",
                                  diagOp)))
      return failure();
    out.push_back(m.mul(in[i], r));
  }
  return out;
}

FailureOr<PadShape> padShape(OpBuilder &b, Location loc, Value input,
                             const IntList &pads, Operation *diagOp) {
  IndexMath m(b, loc);
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  int64_t rank = int64_t(in.size());
  if (failed(pads.requireSize(m, 2 * rank, "Pad: pads", diagOp)))
    return failure();
  PadShape shape;
  for (int64_t i = 0; i < rank; ++i) {
    OpFoldResult lo = pads.get(m, i), hi = pads.get(m, rank + i);
    OpFoldResult d = m.add(m.add(in[i], lo), hi);
    if (failed(m.require(m.le(m.cst(0), d),
                         "Pad: dim " + std::to_string(i) +
                             " of extent {0} padded by {1} and {2} is "
                             "negative",
                         {in[i], lo, hi}, diagOp)))
      return failure();
    shape.dims.push_back(d);
    shape.low.push_back(lo);
  }
  return shape;
}

FailureOr<SmallVector<OpFoldResult>> shapeFromList(OpBuilder &b, Location loc,
                                                   const IntList &shape,
                                                   int64_t rank,
                                                   Operation *diagOp) {
  IndexMath m(b, loc);
  if (failed(shape.requireSize(m, rank, "the shape", diagOp)))
    return failure();
  SmallVector<OpFoldResult> dims;
  for (int64_t i = 0; i < rank; ++i) {
    OpFoldResult d = shape.get(m, i);
    if (failed(requireNonNegative(m, d, "negative extent {0} in the shape",
                                  diagOp)))
      return failure();
    dims.push_back(d);
  }
  return dims;
}

FailureOr<OpFoldResult> rangeLength(OpBuilder &b, Location loc, Value start,
                                    Value limit, Value delta,
                                    Operation *diagOp) {
  IndexMath m(b, loc);
  auto read = [&](Value t) {
    auto type = cast<RankedTensorType>(t.getType());
    SmallVector<Value> zeros(type.getRank(),
                             arith::ConstantIndexOp::create(b, loc, 0));
    return tensor::ExtractOp::create(b, loc, t, zeros).getResult();
  };
  Value s = read(start), l = read(limit), d = read(delta);
  Type type = s.getType();
  if (isa<FloatType>(type)) {
    Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 0.0));
    Value nonZero =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, d, zero);
    if (failed(m.require(Cond::of(nonZero), "Range: delta is 0", {}, diagOp)))
      return failure();
    Value q =
        arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, l, s), d);
    q = math::CeilOp::create(b, loc, q);
    q = arith::MaximumFOp::create(b, loc, q, zero);
    Value n = arith::FPToSIOp::create(b, loc, b.getI64Type(), q);
    return OpFoldResult(
        arith::IndexCastOp::create(b, loc, b.getIndexType(), n).getResult());
  }
  auto toIndex = [&](Value v) -> OpFoldResult {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v).getResult();
  };
  OpFoldResult is = toIndex(s), il = toIndex(l), id = toIndex(d);
  if (failed(m.require(m.notOf(m.eq(id, m.cst(0))), "Range: delta is 0", {},
                       diagOp)))
    return failure();
  return m.max(m.ceilDiv(m.sub(il, is), id), m.cst(0));
}

} // namespace onyx::shape
