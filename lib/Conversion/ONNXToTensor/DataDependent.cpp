//===- DataDependent.cpp - Ops whose result shapes come from tensor data --===//
//
// NonZero, Compress, Unique, NonMaxSuppression and TopK (k from a tensor).
//
// Each lowering follows one pattern (docs/data-dependent.md):
//
//   1. a destination of the *capacity*, an upper bound from descriptor
//      extents (lib/Shape/DataDependentShapes.cpp);
//   2. a kernel (scf loops on tensors) that fills it and writes the number
//      of valid entries into a count tensor (tensor<i64>);
//   3. the count read with a plain `tensor.extract` (a payload scalar: how
//      it becomes visible to host code is the backend's business), and the
//      valid part cut out with `tensor.extract_slice`, so that consumers see
//      exactly the ONNX shape, never the padded one.
//
// The kernels are sequential loops on tensors (tensor.extract/insert with
// the tensors carried as iter_args), which One-Shot Bufferize turns into
// in-place loads and stores. Where a conditional append is needed they
// write unconditionally at the current count, which is always in bounds,
// and advance the count by the predicate: no branch, and later writes
// overwrite the unused slot.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "onyx/Shape/DataDependentShapes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace onyx::conversion {
namespace {

//===----------------------------------------------------------------------===//
// Kernel building
//===----------------------------------------------------------------------===//

/// A small builder for the sequential kernels: index and element
/// arithmetic, tensor element access, scf loops and branches.
struct KB {
  OpBuilder &b;
  Location loc;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value i64(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 64); }
  Value flag(bool v) { return arith::ConstantIntOp::create(b, loc, v, 1); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value eq(Value x, Value y) { return cmp(arith::CmpIPredicate::eq, x, y); }
  Value lt(Value x, Value y) { return cmp(arith::CmpIPredicate::slt, x, y); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value andOf(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value orOf(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value notOf(Value x) { return arith::XOrIOp::create(b, loc, x, flag(true)); }
  /// i1 -> index (0 or 1).
  Value indexOfFlag(Value f) {
    return arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        arith::ExtUIOp::create(b, loc, b.getI64Type(), f));
  }
  Value toI64(Value index) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  }
  Value toIndex(Value i) {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), i);
  }
  Value value(OpFoldResult v) { return shape::toValue(b, loc, v); }

  Value extract(Value t, ValueRange indices) {
    return tensor::ExtractOp::create(b, loc, t, indices);
  }
  Value insert(Value v, Value t, ValueRange indices) {
    return tensor::InsertOp::create(b, loc, v, t, indices);
  }
  /// The index stored in the rank-0 i64 tensor `t`.
  Value readCount(Value t) { return toIndex(extract(t, {})); }
  Value writeCount(Value count, Value t) { return insert(toI64(count), t, {}); }

  // Element comparisons (float: ordered; integer: signed).
  Value elemCmp(arith::CmpFPredicate fp, arith::CmpIPredicate ip, Value x,
                Value y) {
    if (isa<FloatType>(x.getType()))
      return arith::CmpFOp::create(b, loc, fp, x, y);
    return arith::CmpIOp::create(b, loc, ip, x, y);
  }
  Value elemEq(Value x, Value y) {
    return elemCmp(arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq, x, y);
  }
  Value elemLt(Value x, Value y) {
    return elemCmp(arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt, x, y);
  }
  Value elemGt(Value x, Value y) {
    return elemCmp(arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt, x, y);
  }
  /// Unique's total order on floats (numpy.unique's, equal_nan=True): every
  /// NaN equals every NaN and is above every other value; integers as
  /// elemEq/elemLt. (IEEE comparisons make NaN equal to nothing and below
  /// nothing, so several NaNs took one sorted position and left another
  /// unwritten: Unique segfaulted.)
  Value isNaN(Value x) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  }
  Value elemEqNaN(Value x, Value y) {
    if (!isa<FloatType>(x.getType()))
      return elemEq(x, y);
    return orOf(elemEq(x, y), andOf(isNaN(x), isNaN(y)));
  }
  Value elemLtNaNLast(Value x, Value y) {
    if (!isa<FloatType>(x.getType()))
      return elemLt(x, y);
    return orOf(elemLt(x, y), andOf(notOf(isNaN(x)), isNaN(y)));
  }
  /// x != 0 (NaN counts as non-zero, as in numpy).
  Value elemNonZero(Value x) {
    Value zero = scalarConstant(b, loc, x.getType(), 0.0);
    if (isa<FloatType>(x.getType()))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }

  using LoopBody =
      function_ref<SmallVector<Value>(KB &, Value iv, ValueRange args)>;
  /// scf.for iv in [lb, ub) carrying `inits`; returns the final values.
  SmallVector<Value> loop(Value lb, Value ub, ValueRange inits, LoopBody body) {
    auto forOp = scf::ForOp::create(
        b, loc, lb, ub, idx(1), inits,
        [&](OpBuilder &nb, Location nl, Value iv, ValueRange args) {
          KB k{nb, nl};
          SmallVector<Value> yields = body(k, iv, args);
          scf::YieldOp::create(nb, nl, yields);
        });
    return SmallVector<Value>(forOp.getResults());
  }

  using NestBody = function_ref<SmallVector<Value>(KB &, ArrayRef<Value> ivs,
                                                   ValueRange args)>;
  /// Nested loops over [0, ubs[i]) (none: the body runs once).
  SmallVector<Value> nest(ArrayRef<Value> ubs, ValueRange inits,
                          NestBody body) {
    SmallVector<Value> ivs;
    std::function<SmallVector<Value>(KB &, size_t, ValueRange)> level =
        [&](KB &k, size_t d, ValueRange args) -> SmallVector<Value> {
      if (d == ubs.size())
        return body(k, ivs, args);
      return k.loop(k.idx(0), ubs[d], args,
                    [&](KB &k2, Value iv, ValueRange inner) {
                      ivs.push_back(iv);
                      SmallVector<Value> r = level(k2, d + 1, inner);
                      ivs.pop_back();
                      return r;
                    });
    };
    return level(*this, 0, inits);
  }

  using BranchBody = function_ref<SmallVector<Value>(KB &)>;
  /// scf.if with results (types from the then branch).
  SmallVector<Value> branch(Value cond, BranchBody thenBody,
                            BranchBody elseBody) {
    auto ifOp = scf::IfOp::create(
        b, loc, cond,
        [&](OpBuilder &nb, Location nl) {
          KB k{nb, nl};
          scf::YieldOp::create(nb, nl, thenBody(k));
        },
        [&](OpBuilder &nb, Location nl) {
          KB k{nb, nl};
          scf::YieldOp::create(nb, nl, elseBody(k));
        });
    return SmallVector<Value>(ifOp.getResults());
  }

  /// Row-major multi-index of `linear` over `dims`.
  SmallVector<Value> delinearize(Value linear, ArrayRef<Value> dims) {
    SmallVector<Value> indices(dims.size());
    for (int64_t d = int64_t(dims.size()) - 1; d >= 0; --d) {
      if (d == 0) {
        indices[d] = linear;
        break;
      }
      indices[d] = arith::RemUIOp::create(b, loc, linear, dims[d]);
      linear = arith::DivUIOp::create(b, loc, linear, dims[d]);
    }
    return indices;
  }
};

/// Index values of all dims of `t`.
SmallVector<Value> dimValues(OpBuilder &b, Location loc, Value t) {
  SmallVector<Value> dims;
  for (OpFoldResult d : shape::getDims(b, loc, t))
    dims.push_back(shape::toValue(b, loc, d));
  return dims;
}

/// A rank-0 i64 tensor holding 0: a kernel's count.
Value zeroCount(OpBuilder &b, Location loc) {
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
  return tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, b.getI64Type()), ValueRange{zero});
}

/// Entries [0, count) of a capacity-sized tensor along dim 0 (the other
/// dims whole): the ONNX-shaped result.
Value validPart(OpBuilder &b, Location loc, Value capacity,
                ArrayRef<OpFoldResult> dims) {
  int64_t rank = int64_t(dims.size());
  SmallVector<OpFoldResult> zeros(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> ones(rank, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, capacity, zeros, dims, ones);
}

/// Checks `value` against the type the model declares for result `index`
/// (declared static dims are asserted at run time where the value's are
/// dynamic) and casts it to the refined type. The valid part of a
/// capacity-sized tensor (an extract_slice) that is a graph output is
/// copied into a fresh tensor of exactly its shape here, with a loop, and
/// becomes the output buffer itself (instead of a strided memref.copy into
/// the output later). Other consumers read the view.
FailureOr<Value> matchResult(OpBuilder &b, Location loc, Operation *op,
                             unsigned index, Value value) {
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, value);
  if (value.getDefiningOp<tensor::ExtractSliceOp>() &&
      llvm::any_of(op->getResult(index).getUsers(),
                   [](Operation *u) { return isa<func::ReturnOp>(u); })) {
    Value fresh = emptyTensor(
        b, loc, dims, cast<RankedTensorType>(value.getType()).getElementType());
    value = linalg::CopyOp::create(b, loc, value, fresh).getResult(0);
  }
  auto refined =
      shape::matchDeclared(b, loc, dims, op->getResult(index).getType(),
                           (op->getName().getStringRef().drop_front(5) +
                            " result " + std::to_string(index))
                               .str(),
                           op);
  if (failed(refined))
    return failure();
  auto type = RankedTensorType::get(
      shape::toStaticShape(*refined),
      cast<RankedTensorType>(value.getType()).getElementType());
  if (type == value.getType())
    return value;
  return tensor::CastOp::create(b, loc, type, value).getResult();
}

/// A fresh `dims` tensor whose element at each index is `body(indices)`.
Value generate(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> dims,
               Type elementType,
               function_ref<Value(KB &, ArrayRef<Value>)> body) {
  Value init = emptyTensor(b, loc, dims, elementType);
  int64_t rank = int64_t(dims.size());
  auto map = AffineMap::getMultiDimIdentityMap(unsigned(rank), b.getContext());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{map}, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange) {
        KB k{nb, nl};
        SmallVector<Value> ivs;
        for (int64_t i = 0; i < rank; ++i)
          ivs.push_back(linalg::IndexOp::create(nb, nl, uint64_t(i)));
        linalg::YieldOp::create(nb, nl, body(k, ivs));
      });
  return generic.getResult(0);
}

/// An integer list input: constant when it is one, else read at run time.
FailureOr<shape::IntList> intListOf(Operation *op, Value value,
                                    StringRef what) {
  if (isa<NoneType>(value.getType()))
    return shape::IntList::absent();
  if (auto values = getConstantInts(value))
    return shape::IntList::constant(*values);
  auto type = requireRanked(op, value, what);
  if (failed(type))
    return failure();
  if (type->getRank() > 1 || !type->getElementType().isSignlessInteger())
    return op->emitError() << what << " must be a 0-D or 1-D integer tensor";
  return shape::IntList::tensor(value);
}

/// The optional integer attribute `name`.
std::optional<int64_t> intAttr(Operation *op, StringRef name) {
  if (auto a = op->getAttrOfType<IntegerAttr>(name))
    return a.getInt();
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Entry access (Compress, Unique)
//===----------------------------------------------------------------------===//

/// Reads elements of `input` as entries of an EntryView.
struct EntryReader {
  Value input;
  const shape::EntryView &view;
  SmallVector<Value> dims;      ///< all input dims
  SmallVector<Value> otherDims; ///< the dims off the axis

  EntryReader(OpBuilder &b, Location loc, Value input,
              const shape::EntryView &view)
      : input(input), view(view) {
    dims = dimValues(b, loc, input);
    for (auto [i, d] : llvm::enumerate(dims))
      if (!view.axis || int64_t(i) != *view.axis)
        otherDims.push_back(d);
  }

  /// The input index of element `e` of entry `a`.
  SmallVector<Value> indexOf(KB &k, Value a, Value e) {
    if (!view.axis)
      return k.delinearize(a, dims);
    SmallVector<Value> indices = k.delinearize(e, otherDims);
    indices.insert(indices.begin() + *view.axis, a);
    return indices;
  }
  Value read(KB &k, Value a, Value e) {
    return k.extract(input, indexOf(k, a, e));
  }

  /// The input element at result index `ivs` of a selection whose entry
  /// positions are given by `entryOf` (a 1-D i64 tensor).
  Value gather(KB &k, ArrayRef<Value> ivs, Value entryOf) {
    if (!view.axis)
      return k.extract(
          input, k.delinearize(k.toIndex(k.extract(entryOf, ivs[0])), dims));
    SmallVector<Value> indices(ivs.begin(), ivs.end());
    indices[*view.axis] = k.toIndex(k.extract(entryOf, indices[*view.axis]));
    return k.extract(input, indices);
  }
};

/// The entries of `input` listed (as i64 entry numbers) in `entryOf`,
/// `count` of them: the selection's ONNX-shaped result.
Value gatherEntries(OpBuilder &b, Location loc, Value input,
                    const shape::EntryView &view, Value entryOf,
                    OpFoldResult count) {
  EntryReader reader(b, loc, input, view);
  return generate(b, loc, shape::selectedEntriesShape(view, count),
                  cast<RankedTensorType>(input.getType()).getElementType(),
                  [&](KB &k, ArrayRef<Value> ivs) {
                    return reader.gather(k, ivs, entryOf);
                  });
}

//===----------------------------------------------------------------------===//
// NonZero
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerNonZero(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  Value x = op->getOperand(0);
  auto type = requireRanked(op, x, "NonZero input");
  if (failed(type) ||
      failed(requireSupportedElement(op, type->getElementType())))
    return failure();
  int64_t rank = type->getRank();
  Type i64 = b.getI64Type();

  // Capacity [rank, numElements]; the kernel appends each non-zero
  // element's coordinates as a column and counts them.
  SmallVector<OpFoldResult> capacity = shape::nonZeroCapacity(b, loc, x);
  Value init = emptyTensor(b, loc, capacity, i64);
  SmallVector<Value> dims = dimValues(b, loc, x);
  KB k{b, loc};
  SmallVector<Value> kernel =
      k.loop(k.idx(0), k.value(capacity[1]), {init, zeroCount(b, loc)},
             [&](KB &k, Value i, ValueRange args) -> SmallVector<Value> {
               SmallVector<Value> indices = k.delinearize(i, dims);
               Value nonZero = k.elemNonZero(k.extract(x, indices));
               Value count = k.readCount(args[1]);
               // count <= i < capacity: the write is in bounds; a zero
               // element's column is overwritten by the next non-zero one.
               Value out = args[0];
               for (int64_t d = 0; d < rank; ++d)
                 out = k.insert(k.toI64(indices[d]), out, {k.idx(d), count});
               Value next = k.add(count, k.indexOfFlag(nonZero));
               return {out, k.writeCount(next, args[1])};
             });

  // The count is a payload scalar: plain tensor.extract, then the valid
  // columns [rank, count].
  SmallVector<OpFoldResult> dimsOut = shape::nonZeroShape(b, loc, x, kernel[1]);
  SmallVector<OpFoldResult> zeros(2, b.getIndexAttr(0));
  SmallVector<OpFoldResult> ones(2, b.getIndexAttr(1));
  Value valid =
      tensor::ExtractSliceOp::create(b, loc, kernel[0], zeros, dimsOut, ones);
  FailureOr<Value> result = matchResult(b, loc, op, 0, valid);
  if (failed(result))
    return failure();
  return SmallVector<Value>{*result};
}

//===----------------------------------------------------------------------===//
// TopK
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerTopK(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  Value x = op->getOperand(0);
  auto type = requireRanked(op, x, "TopK input");
  if (failed(type) ||
      failed(requireSupportedElement(op, type->getElementType())))
    return failure();
  int64_t rank = type->getRank();
  if (rank == 0)
    return op->emitError("TopK: the input must have rank >= 1");
  FailureOr<int64_t> axis =
      normalizeAxis(op, intAttr(op, "axis").value_or(-1), rank);
  if (failed(axis))
    return failure();
  bool largest = intAttr(op, "largest").value_or(1) != 0;
  FailureOr<shape::IntList> kList = intListOf(op, op->getOperand(1), "TopK: K");
  if (failed(kList))
    return failure();
  auto shape = shape::topKShape(b, loc, x, *axis, *kList, op);
  if (failed(shape))
    return failure();

  Type elementType = type->getElementType();
  Value valuesInit = emptyTensor(b, loc, shape->dims, elementType);
  Value indicesInit = emptyTensor(b, loc, shape->dims, b.getI64Type());
  SmallVector<Value> dims = dimValues(b, loc, x);
  SmallVector<Value> outer;
  for (int64_t d = 0; d < rank; ++d)
    if (d != *axis)
      outer.push_back(dims[d]);
  Value extent = dims[*axis];
  KB k{b, loc};
  Value kValue = k.value(shape->k);

  // (v, a) comes before (w, c): a better value, or the same value at a
  // lower index (ties keep the lower index first). Floats in Unique's total
  // order, NaN above every number and equal to every NaN (numpy's sort and
  // the ONNX reference's, PyTorch's topk): NaNs come first with largest=1,
  // last with largest=0. (With IEEE comparisons a NaN was after nothing, so
  // every later pick repeated it: [nan, nan, nan] at index [0, 0, 0].)
  auto before = [&](KB &k, Value v, Value a, Value w, Value c) {
    Value better = largest ? k.elemLtNaNLast(w, v) : k.elemLtNaNLast(v, w);
    return k.orOf(better, k.andOf(k.elemEqNaN(v, w), k.lt(a, c)));
  };

  // Per line along the axis, the j-th result is the first element (in the
  // order above) after the (j-1)-th: a selection, O(k * extent) per line.
  SmallVector<Value> results = k.nest(
      outer, {valuesInit, indicesInit},
      [&](KB &k, ArrayRef<Value> ivs, ValueRange args) -> SmallVector<Value> {
        auto at = [&](Value a) {
          SmallVector<Value> indices(ivs.begin(), ivs.end());
          indices.insert(indices.begin() + *axis, a);
          return indices;
        };
        Value zeroValue = scalarConstant(k.b, k.loc, elementType, 0.0);
        SmallVector<Value> picked = k.loop(
            k.idx(0), kValue, {args[0], args[1], zeroValue, k.idx(0)},
            [&](KB &k, Value j, ValueRange st) -> SmallVector<Value> {
              Value first = k.eq(j, k.idx(0));
              SmallVector<Value> best = k.loop(
                  k.idx(0), extent, {st[2], k.idx(0), k.flag(false)},
                  [&](KB &k, Value a, ValueRange bs) -> SmallVector<Value> {
                    Value v = k.extract(x, at(a));
                    Value afterPrev =
                        k.orOf(first, before(k, st[2], st[3], v, a));
                    Value better =
                        k.orOf(k.notOf(bs[2]), before(k, v, a, bs[0], bs[1]));
                    Value take = k.andOf(afterPrev, better);
                    return {k.select(take, v, bs[0]), k.select(take, a, bs[1]),
                            k.orOf(bs[2], take)};
                  });
              Value values = k.insert(best[0], st[0], at(j));
              Value indices = k.insert(k.toI64(best[1]), st[1], at(j));
              return {values, indices, best[0], best[1]};
            });
        return {picked[0], picked[1]};
      });

  FailureOr<Value> values = matchResult(b, loc, op, 0, results[0]);
  FailureOr<Value> indices = matchResult(b, loc, op, 1, results[1]);
  if (failed(values) || failed(indices))
    return failure();
  return SmallVector<Value>{*values, *indices};
}

//===----------------------------------------------------------------------===//
// Compress
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerCompress(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  Value x = op->getOperand(0);
  Value condition = op->getOperand(1);
  auto type = requireRanked(op, x, "Compress input");
  auto condType = requireRanked(op, condition, "Compress condition");
  if (failed(type) || failed(condType) ||
      failed(requireSupportedElement(op, type->getElementType())))
    return failure();
  if (condType->getRank() > 1)
    return op->emitError("Compress: the condition must be 1-D");
  std::optional<int64_t> axis;
  if (auto a = intAttr(op, "axis")) {
    FailureOr<int64_t> n = normalizeAxis(op, *a, type->getRank());
    if (failed(n))
      return failure();
    axis = *n;
  }
  auto view = shape::entryView(b, loc, x, axis, op);
  if (failed(view))
    return failure();
  OpFoldResult length = shape::compressLength(b, loc, *view, condition);

  // Kernel: the numbers of the selected entries, in order, and their count.
  KB k{b, loc};
  Value selectedInit = emptyTensor(b, loc, {length}, b.getI64Type());
  SmallVector<Value> kernel =
      k.loop(k.idx(0), k.value(length), {selectedInit, zeroCount(b, loc)},
             [&](KB &k, Value j, ValueRange args) -> SmallVector<Value> {
               SmallVector<Value> at;
               if (condType->getRank() == 1)
                 at.push_back(j);
               Value keep = k.elemNonZero(k.extract(condition, at));
               Value count = k.readCount(args[1]);
               Value selected = k.insert(k.toI64(j), args[0], {count});
               return {selected, k.writeCount(k.add(count, k.indexOfFlag(keep)),
                                              args[1])};
             });
  Value count = shape::extentFromTensor(b, loc, kernel[1]);
  Value output = gatherEntries(b, loc, x, *view, kernel[0], count);
  FailureOr<Value> result = matchResult(b, loc, op, 0, output);
  if (failed(result))
    return failure();
  return SmallVector<Value>{*result};
}

//===----------------------------------------------------------------------===//
// Unique
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerUnique(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  Value x = op->getOperand(0);
  auto type = requireRanked(op, x, "Unique input");
  if (failed(type) ||
      failed(requireSupportedElement(op, type->getElementType())))
    return failure();
  std::optional<int64_t> axis;
  if (auto a = intAttr(op, "axis")) {
    FailureOr<int64_t> n = normalizeAxis(op, *a, type->getRank());
    if (failed(n))
      return failure();
    axis = *n;
  }
  bool sorted = intAttr(op, "sorted").value_or(1) != 0;
  auto view = shape::entryView(b, loc, x, axis, op);
  if (failed(view))
    return failure();
  EntryReader reader(b, loc, x, *view);
  KB k{b, loc};
  Value entries = k.value(view->entries);
  Value entrySize = k.value(view->entrySize);
  Type i64 = b.getI64Type();

  // Entry equality and lexicographic order (numpy's order of rows), on
  // elements ordered with every NaN equal and above all numbers (numpy's
  // equal_nan=True, what the ONNX reference's np.unique gives for 1-D), so
  // that `compare` is a total order and each unique gets its own position.
  auto equal = [&](KB &k, Value a, Value c) {
    return k.loop(k.idx(0), entrySize, {k.flag(true)},
                  [&](KB &k, Value e, ValueRange st) -> SmallVector<Value> {
                    return {k.andOf(st[0], k.elemEqNaN(reader.read(k, a, e),
                                                       reader.read(k, c, e)))};
                  })[0];
  };
  /// -1, 0, 1 as entry a is below, equal to, above entry c.
  auto compare = [&](KB &k, Value a, Value c) {
    return k.loop(k.idx(0), entrySize, {k.idx(0)},
                  [&](KB &k, Value e, ValueRange st) -> SmallVector<Value> {
                    Value va = reader.read(k, a, e), vc = reader.read(k, c, e);
                    Value sign = k.select(
                        k.elemLtNaNLast(va, vc), k.idx(-1),
                        k.select(k.elemLtNaNLast(vc, va), k.idx(1), k.idx(0)));
                    return {k.select(k.eq(st[0], k.idx(0)), sign, st[0])};
                  })[0];
  };

  // 1. first[a]: the first entry equal to entry a.
  Value firstInit = emptyTensor(b, loc, {view->entries}, i64);
  Value first =
      k.loop(k.idx(0), entries, {firstInit},
             [&](KB &k, Value a, ValueRange args) -> SmallVector<Value> {
               Value f = k.loop(
                   k.idx(0), a, {a},
                   [&](KB &k, Value c, ValueRange st) -> SmallVector<Value> {
                     return k.branch(
                         k.eq(st[0], a),
                         [&](KB &k) -> SmallVector<Value> {
                           return {k.select(equal(k, a, c), c, a)};
                         },
                         [&](KB &) -> SmallVector<Value> { return {st[0]}; });
                   })[0];
               return {k.insert(k.toI64(f), args[0], {a})};
             })[0];
  auto isFirst = [&](KB &k, Value a) {
    return k.eq(k.toIndex(k.extract(first, {a})), a);
  };

  // 2. position[a] of each first occurrence among the unique entries
  // (order of appearance, or sorted), and their count.
  Value positionInit = emptyTensor(b, loc, {view->entries}, i64);
  SmallVector<Value> positions = k.loop(
      k.idx(0), entries, {positionInit, zeroCount(b, loc)},
      [&](KB &k, Value a, ValueRange args) -> SmallVector<Value> {
        Value count = k.readCount(args[1]);
        Value fresh = isFirst(k, a);
        Value position = count;
        if (sorted)
          position = k.branch(
              fresh,
              [&](KB &k) -> SmallVector<Value> {
                return k.loop(
                    k.idx(0), entries, {k.idx(0)},
                    [&](KB &k, Value c, ValueRange st) -> SmallVector<Value> {
                      Value below = k.branch(
                          isFirst(k, c),
                          [&](KB &k) -> SmallVector<Value> {
                            return {k.eq(compare(k, c, a), k.idx(-1))};
                          },
                          [&](KB &k) -> SmallVector<Value> {
                            return {k.flag(false)};
                          })[0];
                      return {k.add(st[0], k.indexOfFlag(below))};
                    });
              },
              [&](KB &k) -> SmallVector<Value> { return {k.idx(0)}; })[0];
        return {k.insert(k.toI64(position), args[0], {a}),
                k.writeCount(k.add(count, k.indexOfFlag(fresh)), args[1])};
      });

  // 3. For each entry, its unique's position (inverse_indices); for each
  // unique, its first entry (indices; slot `entries` takes the writes of
  // repeated entries) and its number of occurrences (counts).
  OpFoldResult entriesPlusOne = k.add(entries, k.idx(1));
  Value representativeInit = emptyTensor(b, loc, {entriesPlusOne}, i64);
  Value inverseInit = emptyTensor(b, loc, {view->entries}, i64);
  Value countsInit = filledTensor(b, loc, {view->entries}, k.i64(0));
  SmallVector<Value> tables =
      k.loop(k.idx(0), entries, {representativeInit, inverseInit, countsInit},
             [&](KB &k, Value a, ValueRange args) -> SmallVector<Value> {
               Value f = k.toIndex(k.extract(first, {a}));
               Value p64 = k.extract(positions[0], {f});
               Value p = k.toIndex(p64);
               Value slot = k.select(k.eq(f, a), p, entries);
               Value representative = k.insert(k.toI64(a), args[0], {slot});
               Value inverse = k.insert(p64, args[1], {a});
               Value occurrences = k.add(k.extract(args[2], {p}), k.i64(1));
               Value counts = k.insert(occurrences, args[2], {p});
               return {representative, inverse, counts};
             });

  Value uniqueCount = shape::extentFromTensor(b, loc, positions[1]);
  SmallVector<Value> results;
  results.push_back(gatherEntries(b, loc, x, *view, tables[0], uniqueCount));
  results.push_back(validPart(b, loc, tables[0], {uniqueCount}));
  results.push_back(tables[1]);
  results.push_back(validPart(b, loc, tables[2], {uniqueCount}));
  for (unsigned i = 0; i < 4; ++i) {
    if (isa<NoneType>(op->getResult(i).getType())) {
      results[i] = Value();
      continue;
    }
    FailureOr<Value> r = matchResult(b, loc, op, i, results[i]);
    if (failed(r))
      return failure();
    results[i] = *r;
  }
  return results;
}

//===----------------------------------------------------------------------===//
// NonMaxSuppression
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerNonMaxSuppression(Operation *op,
                                                     OpBuilder &b) {
  Location loc = op->getLoc();
  Value boxes = op->getOperand(0);
  Value scores = op->getOperand(1);
  auto boxesType = requireRanked(op, boxes, "NonMaxSuppression boxes");
  auto scoresType = requireRanked(op, scores, "NonMaxSuppression scores");
  if (failed(boxesType) || failed(scoresType))
    return failure();
  Type ft = boxesType->getElementType();
  if (!isa<FloatType>(ft) || scoresType->getElementType() != ft)
    return op->emitError("NonMaxSuppression: boxes and scores must be floats "
                         "of one type");
  bool centerPoint = intAttr(op, "center_point_box").value_or(0) != 0;
  auto shape = shape::nmsShape(b, loc, boxes, scores, op);
  if (failed(shape))
    return failure();
  KB k{b, loc};

  auto present = [&](unsigned i) {
    return !isa<NoneType>(op->getOperand(i).getType());
  };
  auto readFloat = [&](unsigned i) -> FailureOr<Value> {
    auto t = requireRanked(op, op->getOperand(i), "NonMaxSuppression input");
    if (failed(t))
      return failure();
    if (t->getElementType() != ft)
      return op->emitError("NonMaxSuppression: thresholds must have the "
                           "boxes' element type");
    SmallVector<Value> zeros(t->getRank(), k.idx(0));
    return k.extract(op->getOperand(i), zeros);
  };
  // A negative limit selects nothing, like 0 (the default).
  Value maxPerClass = k.idx(0);
  if (present(2)) {
    auto t = requireRanked(op, op->getOperand(2), "max_output_boxes_per_class");
    if (failed(t))
      return failure();
    maxPerClass = arith::MaxSIOp::create(
        b, loc, shape::readScalarIndex(b, loc, op->getOperand(2)), k.idx(0));
  }
  Value iouThreshold = scalarConstant(b, loc, ft, 0.0);
  if (present(3)) {
    auto v = readFloat(3);
    if (failed(v))
      return failure();
    iouThreshold = *v;
  }
  std::optional<Value> scoreThreshold;
  if (present(4)) {
    auto v = readFloat(4);
    if (failed(v))
      return failure();
    scoreThreshold = *v;
  }

  Value numBatches = k.value(shape->batches);
  Value numClasses = k.value(shape->classes);
  Value numBoxes = k.value(shape->boxes);
  Value outInit = emptyTensor(b, loc, shape->capacity, b.getI64Type());

  // The corners of box j of batch n: (ymin, xmin, ymax, xmax).
  auto corners = [&](KB &k, Value n, Value j) {
    SmallVector<Value> c;
    for (int64_t i = 0; i < 4; ++i)
      c.push_back(k.extract(boxes, {n, j, k.idx(i)}));
    auto minf = [&](Value p, Value q) {
      return arith::MinimumFOp::create(k.b, k.loc, p, q).getResult();
    };
    auto maxf = [&](Value p, Value q) {
      return arith::MaximumFOp::create(k.b, k.loc, p, q).getResult();
    };
    if (!centerPoint) // [y1, x1, y2, x2], corners in either order
      return SmallVector<Value>{minf(c[0], c[2]), minf(c[1], c[3]),
                                maxf(c[0], c[2]), maxf(c[1], c[3])};
    // [x_center, y_center, width, height]
    Value half = scalarConstant(k.b, k.loc, ft, 0.5);
    Value hw = arith::MulFOp::create(k.b, k.loc, c[2], half);
    Value hh = arith::MulFOp::create(k.b, k.loc, c[3], half);
    return SmallVector<Value>{arith::SubFOp::create(k.b, k.loc, c[1], hh),
                              arith::SubFOp::create(k.b, k.loc, c[0], hw),
                              arith::AddFOp::create(k.b, k.loc, c[1], hh),
                              arith::AddFOp::create(k.b, k.loc, c[0], hw)};
  };
  // IoU(p, q) > threshold, as onnxruntime decides it (no overlap, an empty
  // box or an empty union never suppresses).
  auto overlaps = [&](KB &k, Value n, Value p, Value q) {
    SmallVector<Value> a = corners(k, n, p), c = corners(k, n, q);
    auto sub = [&](Value x, Value y) {
      return arith::SubFOp::create(k.b, k.loc, x, y).getResult();
    };
    auto mulf = [&](Value x, Value y) {
      return arith::MulFOp::create(k.b, k.loc, x, y).getResult();
    };
    auto gt = [&](Value x, Value y) {
      return arith::CmpFOp::create(k.b, k.loc, arith::CmpFPredicate::OGT, x, y)
          .getResult();
    };
    Value zero = scalarConstant(k.b, k.loc, ft, 0.0);
    Value iy0 = arith::MaximumFOp::create(k.b, k.loc, a[0], c[0]);
    Value ix0 = arith::MaximumFOp::create(k.b, k.loc, a[1], c[1]);
    Value iy1 = arith::MinimumFOp::create(k.b, k.loc, a[2], c[2]);
    Value ix1 = arith::MinimumFOp::create(k.b, k.loc, a[3], c[3]);
    Value ok = k.andOf(gt(iy1, iy0), gt(ix1, ix0));
    Value inter = mulf(sub(iy1, iy0), sub(ix1, ix0));
    Value areaA = mulf(sub(a[2], a[0]), sub(a[3], a[1]));
    Value areaC = mulf(sub(c[2], c[0]), sub(c[3], c[1]));
    Value uni = sub(arith::AddFOp::create(k.b, k.loc, areaA, areaC), inter);
    ok = k.andOf(ok, k.andOf(gt(inter, zero), gt(areaA, zero)));
    ok = k.andOf(ok, k.andOf(gt(areaC, zero), gt(uni, zero)));
    Value iou = arith::DivFOp::create(k.b, k.loc, inter, uni);
    return k.andOf(ok, gt(iou, iouThreshold));
  };

  SmallVector<Value> ubs = {numBatches, numClasses};
  SmallVector<Value> kernel = k.nest(
      ubs, {outInit, zeroCount(b, loc)},
      [&](KB &k, ArrayRef<Value> ivs, ValueRange args) -> SmallVector<Value> {
        Value n = ivs[0], cls = ivs[1];
        Value classStart = k.readCount(args[1]);
        auto score = [&](KB &k, Value j) {
          return k.extract(scores, {n, cls, j});
        };
        // (s, i) comes before (t, j): a higher score, ties by lower index.
        auto before = [&](KB &k, Value s, Value i, Value t, Value j) {
          return k.orOf(k.elemGt(s, t), k.andOf(k.elemEq(s, t), k.lt(i, j)));
        };
        Value zeroScore = scalarConstant(k.b, k.loc, ft, 0.0);
        SmallVector<Type> stateTypes = {ft,
                                        k.b.getIndexType(),
                                        k.b.getI1Type(),
                                        k.b.getIndexType(),
                                        args[0].getType(),
                                        args[1].getType()};
        // Candidates in score order (each the first after the previous
        // one), each kept unless it overlaps one already selected, until
        // the class has its limit or no candidate is left.
        auto loop = scf::WhileOp::create(
            k.b, k.loc, stateTypes,
            ValueRange{zeroScore, k.idx(0), k.flag(false), k.idx(0), args[0],
                       args[1]},
            [&](OpBuilder &nb, Location nl, ValueRange st) {
              KB k{nb, nl};
              SmallVector<Value> best = k.loop(
                  k.idx(0), numBoxes, {st[0], k.idx(0), k.flag(false)},
                  [&](KB &k, Value j, ValueRange bs) -> SmallVector<Value> {
                    Value s = score(k, j);
                    Value ok =
                        k.orOf(k.notOf(st[2]), before(k, st[0], st[1], s, j));
                    if (scoreThreshold)
                      ok = k.andOf(ok, k.elemGt(s, *scoreThreshold));
                    Value better =
                        k.orOf(k.notOf(bs[2]), before(k, s, j, bs[0], bs[1]));
                    Value take = k.andOf(ok, better);
                    return {k.select(take, s, bs[0]), k.select(take, j, bs[1]),
                            k.orOf(bs[2], take)};
                  });
              Value go = k.andOf(best[2], k.lt(st[3], maxPerClass));
              scf::ConditionOp::create(nb, nl, go,
                                       ValueRange{best[0], best[1],
                                                  k.flag(true), st[3], st[4],
                                                  st[5]});
            },
            [&](OpBuilder &nb, Location nl, ValueRange st) {
              KB k{nb, nl};
              Value candidate = st[1];
              Value suppressed = k.loop(
                  k.idx(0), st[3], {k.flag(false)},
                  [&](KB &k, Value r, ValueRange sup) -> SmallVector<Value> {
                    Value row = k.add(classStart, r);
                    Value kept = k.toIndex(k.extract(st[4], {row, k.idx(2)}));
                    return {k.orOf(sup[0], overlaps(k, n, kept, candidate))};
                  })[0];
              // Write the row at the count (in bounds: at most one row per
              // box and class), then advance past it if it is kept.
              Value count = k.readCount(st[5]);
              Value out = st[4];
              Value triple[3] = {n, cls, candidate};
              for (int64_t c = 0; c < 3; ++c)
                out = k.insert(k.toI64(triple[c]), out, {count, k.idx(c)});
              Value keep = k.indexOfFlag(k.notOf(suppressed));
              scf::YieldOp::create(
                  nb, nl,
                  ValueRange{st[0], st[1], st[2], k.add(st[3], keep), out,
                             k.writeCount(k.add(count, keep), st[5])});
            });
        return {loop.getResult(4), loop.getResult(5)};
      });

  Value count = shape::extentFromTensor(b, loc, kernel[1]);
  Value selected = validPart(b, loc, kernel[0], {count, b.getIndexAttr(3)});
  FailureOr<Value> result = matchResult(b, loc, op, 0, selected);
  if (failed(result))
    return failure();
  return SmallVector<Value>{*result};
}

} // namespace

void addDataDependentLowerings(LoweringTable &t) {
  t["onnx.NonZero"] = lowerNonZero;
  t["onnx.TopK"] = lowerTopK;
  t["onnx.Compress"] = lowerCompress;
  t["onnx.Unique"] = lowerUnique;
  t["onnx.NonMaxSuppression"] = lowerNonMaxSuppression;
}

} // namespace onyx::conversion
