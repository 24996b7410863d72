//===- DataMovementShapes.h - Result shapes of data-movement ops -*- C++
//-*-===//
//
// Result dims of the ONNX data-movement and shape operators (Shape, Slice,
// Gather, Pad, Expand, ...), as OpFoldResults. Most of these operators take
// part of their shape from a tensor's *contents* (axes, pads, repeats, a
// target shape): such an input is an IntList, known at compile time or read
// with `tensor.extract` at run time. The formulas are written once, on
// IndexMath, which folds whatever is static, so a constant `starts` gives
// static dims and a run-time one gives SSA dims from the same code.
//
// Every rule ONNX states about such an input (an axis in range, a pad that
// leaves a non-negative extent, ...) is checked: at compile time when the
// values are known (an error on the op), else with `onyx.assert`.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_SHAPE_DATAMOVEMENTSHAPES_H
#define ONYX_SHAPE_DATAMOVEMENTSHAPES_H

#include "onyx/Shape/ShapeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace onyx::shape {

/// An i1 condition that may be known at compile time.
struct Cond {
  std::optional<bool> known;
  mlir::Value value; ///< set when !known

  static Cond of(bool v) { return Cond{v, mlir::Value()}; }
  static Cond of(mlir::Value v) { return Cond{std::nullopt, v}; }
  bool isTrue() const { return known && *known; }
  bool isFalse() const { return known && !*known; }
};

/// Index arithmetic on OpFoldResults that folds static operands (and the
/// identities x+0, x*1, ...), so shape formulas need no static special case.
/// Division and remainder are signed and round as named.
class IndexMath {
public:
  IndexMath(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  OpFoldResult cst(int64_t v);
  mlir::Value value(OpFoldResult v);
  mlir::Value value(Cond c);

  OpFoldResult add(OpFoldResult x, OpFoldResult y);
  OpFoldResult sub(OpFoldResult x, OpFoldResult y);
  OpFoldResult mul(OpFoldResult x, OpFoldResult y);
  /// Rounds toward -inf; `y` must be non-zero (callers check or guard).
  OpFoldResult floorDiv(OpFoldResult x, OpFoldResult y);
  /// Rounds toward +inf; `y` must be non-zero.
  OpFoldResult ceilDiv(OpFoldResult x, OpFoldResult y);
  /// x mod y in [0, y) for y > 0.
  OpFoldResult floorMod(OpFoldResult x, OpFoldResult y);
  OpFoldResult min(OpFoldResult x, OpFoldResult y);
  OpFoldResult max(OpFoldResult x, OpFoldResult y);
  /// max(lo, min(x, hi)).
  OpFoldResult clamp(OpFoldResult x, OpFoldResult lo, OpFoldResult hi);
  OpFoldResult select(Cond c, OpFoldResult x, OpFoldResult y);

  Cond cmp(mlir::arith::CmpIPredicate pred, OpFoldResult x, OpFoldResult y);
  Cond eq(OpFoldResult x, OpFoldResult y);
  Cond lt(OpFoldResult x, OpFoldResult y);
  Cond le(OpFoldResult x, OpFoldResult y);
  Cond andOf(Cond x, Cond y);
  Cond orOf(Cond x, Cond y);
  Cond notOf(Cond x);

  /// Requires `ok`. Statically false: an error on `diagOp` with the message
  /// (args substituted where static); unknown: an `onyx.assert`. `message`
  /// uses {0}..{3} for `args`.
  mlir::LogicalResult require(Cond ok, llvm::StringRef message,
                              llvm::ArrayRef<OpFoldResult> args,
                              mlir::Operation *diagOp);

  mlir::OpBuilder &b;
  mlir::Location loc;
};

/// A 1-D list of integers that an op takes as an input: its values when
/// they are compile-time constants, else the tensor to read at run time
/// (any integer element type; a float tensor is truncated toward zero).
/// An absent optional input is an empty, absent list.
class IntList {
public:
  static IntList constant(llvm::ArrayRef<int64_t> values);
  static IntList tensor(mlir::Value tensor);
  static IntList absent() { return IntList(); }

  bool isAbsent() const { return !isConstantList && !source; }
  bool isConstant() const { return isConstantList; }
  llvm::ArrayRef<int64_t> constantValues() const { return values; }
  /// The number of entries if known at compile time.
  std::optional<int64_t> staticSize() const;
  OpFoldResult size(IndexMath &m) const;
  /// Entry `k`; the caller has established (statically or by an assert
  /// emitted before this read) that `k` is below the size.
  OpFoldResult get(IndexMath &m, int64_t k) const;
  /// Entry `k`, or `fallback` when the list is shorter: a guarded read
  /// when the size is only known at run time.
  OpFoldResult getOr(IndexMath &m, int64_t k, OpFoldResult fallback) const;
  /// The same for a run-time position `k` (any value; out of [0, size)
  /// gives `fallback`).
  OpFoldResult getOr(IndexMath &m, OpFoldResult k, OpFoldResult fallback) const;
  /// Requires exactly `expected` entries.
  mlir::LogicalResult requireSize(IndexMath &m, int64_t expected,
                                  llvm::StringRef what,
                                  mlir::Operation *diagOp) const;

private:
  bool isConstantList = false;
  llvm::SmallVector<int64_t> values;
  mlir::Value source;
};

/// An integer, bool or float element value as an index (floats truncate
/// toward zero).
mlir::Value indexFromElement(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value element);

/// Reads the first element of a scalar (or one-element) tensor as an
/// index, converting from any integer or float element type.
mlir::Value readScalarIndex(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value tensor);

/// Checks the computed `dims` of a result against the rank and static dims
/// the model declares for it (`declared`); a dim computed as dynamic but
/// declared static is asserted at run time and becomes static. Returns the
/// refined dims.
mlir::FailureOr<llvm::SmallVector<OpFoldResult>>
matchDeclared(mlir::OpBuilder &b, mlir::Location loc,
              llvm::ArrayRef<OpFoldResult> dims, mlir::Type declared,
              llvm::StringRef what, mlir::Operation *diagOp);

/// The element count of `input`.
OpFoldResult numElements(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value input);

/// Shape(start, end): the range [first, last) of dims it returns, clamped
/// to [0, rank] after negative values count from the back.
std::pair<int64_t, int64_t> shapeOpRange(int64_t rank, int64_t start,
                                         std::optional<int64_t> end);

/// Unsqueeze: `outRank` dims, 1 at each axis (axes in [-outRank, outRank),
/// no repeats), the input dims in order elsewhere. `unitAxes` gets the
/// normalized sorted axes when they are constants.
mlir::FailureOr<llvm::SmallVector<OpFoldResult>>
unsqueezeShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
               const IntList &axes, int64_t outRank,
               std::optional<llvm::SmallVector<int64_t>> *unitAxes,
               mlir::Operation *diagOp);

/// Squeeze: the input dims without the axes (each checked to be 1); with
/// no axes, without every dim of extent 1 (then each dim must be static, or
/// `outRank` must say how many remain). `unitAxes` as for Unsqueeze.
mlir::FailureOr<llvm::SmallVector<OpFoldResult>>
squeezeShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
             const IntList &axes, std::optional<int64_t> outRank,
             std::optional<llvm::SmallVector<int64_t>> *unitAxes,
             mlir::Operation *diagOp);

/// Concat along `axis`: the other dims must agree; `offsets[i]` is where
/// input i starts along the axis.
struct ConcatShape {
  llvm::SmallVector<OpFoldResult> dims;
  llvm::SmallVector<OpFoldResult> offsets;
};
mlir::FailureOr<ConcatShape> concatShape(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::ValueRange inputs, int64_t axis,
                                         mlir::Operation *diagOp);

/// A strided window of a tensor: per dim the first element read, the
/// number read (the result extent) and the stride (may be negative).
struct Window {
  llvm::SmallVector<OpFoldResult> offsets, sizes, strides;
};

/// Split into `numOutputs` windows along `axis`: sizes from `split`, or
/// equal parts (the extent must divide evenly) when it is absent. With
/// `ceilParts` (Split-18's num_outputs) and no `split`, every part but the
/// last is ceil(extent / numOutputs) and the last takes what remains.
mlir::FailureOr<llvm::SmallVector<Window>>
splitShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
           int64_t axis, const IntList &split, int64_t numOutputs,
           mlir::Operation *diagOp, bool ceilParts = false);

/// Slice: the window ONNX selects (negative starts/ends count from the
/// back, then clamp; steps may be negative; absent axes are 0..n-1, absent
/// steps are 1).
mlir::FailureOr<Window> sliceShape(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value input, const IntList &starts,
                                   const IntList &ends, const IntList &axes,
                                   const IntList &steps,
                                   mlir::Operation *diagOp);

/// Gather: data[:axis] + indices dims + data[axis+1:].
llvm::SmallVector<OpFoldResult> gatherShape(mlir::OpBuilder &b,
                                            mlir::Location loc,
                                            mlir::Value data,
                                            mlir::Value indices, int64_t axis);

/// GatherElements / ScatterElements: the indices dims, which must not
/// exceed the data dims off `axis` (ranks equal). For a scatter, `updates`
/// must have the indices' dims.
mlir::FailureOr<llvm::SmallVector<OpFoldResult>>
elementsIndexShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value data,
                   mlir::Value indices, mlir::Value updates, int64_t axis,
                   mlir::Operation *diagOp);

/// GatherND / ScatterND: the length of the index tuples (indices' last
/// dim), from its static extent or from the rank the result must have
/// (`resultRank`, the updates' rank for a scatter); checked at run time.
mlir::FailureOr<int64_t>
indexTupleLength(mlir::OpBuilder &b, mlir::Location loc, mlir::Value data,
                 mlir::Value indices, int64_t batchDims,
                 std::optional<int64_t> resultRank, mlir::Operation *diagOp);

/// GatherND: data[:b] + indices[b:-1] + data[b+k:], with the batch dims
/// of data and indices checked equal.
mlir::FailureOr<llvm::SmallVector<OpFoldResult>>
gatherNDShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value data,
              mlir::Value indices, int64_t batchDims, int64_t tupleLength,
              mlir::Operation *diagOp);

/// ScatterND: checks updates dims = indices[:-1] + data[k:].
mlir::LogicalResult scatterNDCheck(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value data, mlir::Value indices,
                                   mlir::Value updates, int64_t tupleLength,
                                   mlir::Operation *diagOp);

/// Expand: `input` broadcast (multidirectionally) with the shape in
/// `shape`, which has at most `outRank` entries; operands[0] says how the
/// input is read.
mlir::FailureOr<BroadcastShape>
expandShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
            const IntList &shape, int64_t outRank, mlir::Operation *diagOp);

/// Tile: input dim i times repeats[i] (repeats >= 0, one per dim).
mlir::FailureOr<llvm::SmallVector<OpFoldResult>>
tileShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
          const IntList &repeats, mlir::Operation *diagOp);

/// Pad: pads = [x1_begin, x2_begin, ..., x1_end, x2_end, ...] (negative
/// values crop); `low[i]` is the begin pad of dim i.
struct PadShape {
  llvm::SmallVector<OpFoldResult> dims, low;
};
mlir::FailureOr<PadShape> padShape(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value input, const IntList &pads,
                                   mlir::Operation *diagOp);

/// A shape given as data (ConstantOfShape): `rank` non-negative entries.
mlir::FailureOr<llvm::SmallVector<OpFoldResult>>
shapeFromList(mlir::OpBuilder &b, mlir::Location loc, const IntList &shape,
              int64_t rank, mlir::Operation *diagOp);

/// Range: max(ceil((limit - start) / delta), 0) from scalar element
/// values (integer or float); delta must be non-zero.
mlir::FailureOr<OpFoldResult> rangeLength(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value start,
                                          mlir::Value limit, mlir::Value delta,
                                          mlir::Operation *diagOp);

/// DepthToSpace: [N, C / bs^2, H * bs, W * bs] (C divisible by bs^2).
mlir::FailureOr<llvm::SmallVector<OpFoldResult>>
depthToSpaceShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                  int64_t blockSize, mlir::Operation *diagOp);
/// SpaceToDepth: [N, C * bs^2, H / bs, W / bs] (H, W divisible by bs).
mlir::FailureOr<llvm::SmallVector<OpFoldResult>>
spaceToDepthShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                  int64_t blockSize, mlir::Operation *diagOp);

/// OneHot: the indices dims with `depth` inserted at `axis` (in
/// [0, rank]); depth must be positive.
mlir::FailureOr<llvm::SmallVector<OpFoldResult>>
oneHotShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value indices,
            OpFoldResult depth, int64_t axis, mlir::Operation *diagOp);

/// A tensor seen as [outer, extent, inner] around a run-time `axis` (in
/// [-rank, rank), checked): the products of the dims before and after it.
struct AxisView {
  OpFoldResult axis, outer, extent, inner;
};
mlir::FailureOr<AxisView> axisView(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value input, OpFoldResult axis,
                                   mlir::Operation *diagOp);

} // namespace onyx::shape

#endif // ONYX_SHAPE_DATAMOVEMENTSHAPES_H
