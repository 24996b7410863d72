//===- ControlFlow.cpp - If, Loop and Scan as scf on tensors --------------===//
//
//   onnx.If   -> scf.if, the condition read with tensor.extract; branch
//                results of different static shapes get a common type.
//   onnx.Loop -> scf.while (trip count and condition both optional) whose
//                iter_args are the loop counter, the condition, the
//                loop-carried values and one growing stack per scan output.
//   onnx.Scan -> scf.while over the sequence, scan inputs sliced per
//                iteration, scan outputs stacked (either direction, any
//                axis).
//
// A body is lowered with the same table as the graph (`lowerONNXOpsIn`),
// then its ops are moved into the scf region. Loop-carried values may
// change shape between iterations: the body is first lowered with the
// initial values' types; where a yielded type differs, the carried type is
// generalized (those dims become dynamic) and a fresh copy of the body is
// lowered again. Each retry makes at least one more dim dynamic, so this
// ends. A rank change is rejected.
//
// Scan outputs go into a stack [capacity, element dims...] that is
// reallocated (doubling, bounded by the trip count when there is one; for
// Scan, the sequence length at once) when full; the element shape of the
// first iteration is the shape of all (checked at run time). After the
// loop the valid entries are cut out with tensor.extract_slice. See
// docs/data-dependent.md.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "onyx/Shape/DataDependentShapes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace onyx::conversion {
namespace {

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The boolean in the one-element tensor `t` (If's and Loop's condition),
/// read with tensor.extract: a payload scalar.
FailureOr<Value> readCondition(OpBuilder &b, Location loc, Operation *op,
                               Value t) {
  auto type = requireRanked(op, t, "the condition");
  if (failed(type))
    return failure();
  if (failed(shape::checkEqual(b, loc, shape::numElements(b, loc, t),
                               b.getIndexAttr(1),
                               "element count of the condition and 1", op)))
    return failure();
  SmallVector<Value> zeros(type->getRank(), indexConst(b, loc, 0));
  Value v = tensor::ExtractOp::create(b, loc, t, zeros);
  if (v.getType().isInteger(1))
    return v;
  Value zero = scalarConstant(b, loc, v.getType(), 0.0);
  if (isa<FloatType>(v.getType()))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero)
        .getResult();
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero)
      .getResult();
}

/// `v` as type `type` (tensor.cast when they differ). A sequence or tensor
/// where an optional is carried (a Loop whose body takes an optional and
/// yields its value) is wrapped.
Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  if (auto optType = dyn_cast<OptionalType>(type)) {
    if (isa<RankedTensorType>(v.getType())) {
      Value empty = SeqEmptyOp::create(
          b, loc, SequenceType::get(b.getContext(), optType.getPayloadType()));
      v = SeqInsertOp::create(b, loc, empty.getType(), empty, v, Value());
    }
    return OptionalWrapOp::create(b, loc, type, v);
  }
  return tensor::CastOp::create(b, loc, type, v);
}

/// Whether a loop-carried handle of type `carried` may be yielded as
/// `yielded` (the same type, or an optional's value).
bool carriesHandle(Type carried, Type yielded) {
  if (carried == yielded)
    return true;
  auto optType = dyn_cast<OptionalType>(carried);
  if (!optType)
    return false;
  if (auto seq = dyn_cast<SequenceType>(yielded))
    return seq == optType.getPayloadType();
  auto tensor = dyn_cast<RankedTensorType>(yielded);
  return tensor && tensor.getElementType() == optType.getPayloadType();
}

/// Checks each result against its declared type (matchDeclared) and casts
/// it to the refined type.
FailureOr<SmallVector<Value>> matchResults(OpBuilder &b, Location loc,
                                           Operation *op,
                                           ArrayRef<Value> values) {
  SmallVector<Value> results;
  for (auto [i, original] : llvm::enumerate(values)) {
    Value value = original;
    // Sequence/optional handles (Sequence.cpp) have no shape to match.
    if (isHandleType(value.getType())) {
      // A Loop carrying an optional whose result is declared as its value.
      if (isa<OptionalType>(value.getType()) &&
          isa<SequenceType>(convertHandleType(op->getResult(i).getType())))
        value = OptionalUnwrapOp::create(
            b, loc, convertHandleType(op->getResult(i).getType()), value);
      results.push_back(value);
      continue;
    }
    auto type = cast<RankedTensorType>(value.getType());
    // A graph output gets a fresh buffer of its exact shape here, filled
    // by a loop, which becomes the output buffer itself: after
    // bufferization the result may be a view with a layout (the entries of
    // a stack, an scf result), which would otherwise be copied into the
    // output with a strided memref.copy.
    if (llvm::any_of(op->getResult(i).getUsers(),
                     [](Operation *u) { return isa<func::ReturnOp>(u); })) {
      Value fresh = emptyTensor(b, loc, shape::getDims(b, loc, value),
                                type.getElementType());
      value = linalg::CopyOp::create(b, loc, value, fresh).getResult(0);
    }
    auto refined = shape::matchDeclared(
        b, loc, shape::getDims(b, loc, value), op->getResult(i).getType(),
        (op->getName().getStringRef().drop_front(5) + " output " +
         std::to_string(i))
            .str(),
        op);
    if (failed(refined))
      return failure();
    results.push_back(
        castTo(b, loc, value,
               RankedTensorType::get(shape::toStaticShape(*refined),
                                     type.getElementType())));
  }
  return results;
}

/// The ranked tensor type of a yielded value, or an error on `op`.
FailureOr<RankedTensorType> yieldedType(Operation *op, Value v,
                                        const Twine &what) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return op->emitError() << what << " is not a ranked tensor (" << v.getType()
                           << ")";
  return type;
}

//===----------------------------------------------------------------------===//
// Bodies
//===----------------------------------------------------------------------===//

/// A lowered copy of a loop body, still inside a clone of the onnx op.
struct LoweredBody {
  Operation *scratch = nullptr;
  Block *block = nullptr;
  SmallVector<Value> yielded;

  void refreshYielded() {
    Operation *yield = block->getTerminator();
    yielded.assign(yield->operand_begin(), yield->operand_end());
  }
};

/// Lowers a copy of `op`'s body whose block arguments are `leading`, the
/// carried values, then `trailing`. Carried values are yielded from
/// position `carriedYield` on; their types are generalized until the body
/// yields what it receives. On success the caller moves the ops out and
/// erases `scratch`.
FailureOr<LoweredBody> lowerLoopBody(OpBuilder &b, Operation *op,
                                     ArrayRef<Type> leading,
                                     SmallVectorImpl<Type> &carried,
                                     ArrayRef<Type> trailing,
                                     unsigned carriedYield) {
  Block &original = op->getRegion(0).front();
  size_t numArgs = leading.size() + carried.size() + trailing.size();
  if (original.getNumArguments() != numArgs)
    return op->emitError() << "the body takes " << original.getNumArguments()
                           << " inputs, expected " << numArgs;
  while (true) {
    LoweredBody body;
    body.scratch = b.clone(*op);
    body.block = &body.scratch->getRegion(0).front();
    SmallVector<Type> types(leading.begin(), leading.end());
    types.append(carried.begin(), carried.end());
    types.append(trailing.begin(), trailing.end());
    for (auto [arg, type] : llvm::zip(body.block->getArguments(), types))
      arg.setType(type);
    if (failed(lowerONNXOpsIn(*body.block))) {
      body.scratch->erase();
      return failure();
    }
    Operation *yield = body.block->getTerminator();
    body.yielded.assign(yield->operand_begin(), yield->operand_end());
    if (body.yielded.size() < carriedYield + carried.size()) {
      body.scratch->erase();
      return op->emitError()
             << "the body yields " << body.yielded.size()
             << " values, expected at least " << carriedYield + carried.size();
    }
    bool changed = false;
    for (auto [j, type] : llvm::enumerate(carried)) {
      Type leaving = body.yielded[carriedYield + j].getType();
      auto yielded = dyn_cast<RankedTensorType>(leaving);
      auto entering = dyn_cast<RankedTensorType>(type);
      // A sequence/optional handle carries any element shapes: its type
      // must only stay the same.
      if (isHandleType(type) && carriesHandle(type, leaving))
        continue;
      FailureOr<RankedTensorType> joined =
          yielded && entering ? shape::joinTypes(entering, yielded)
                              : FailureOr<RankedTensorType>(failure());
      if (failed(joined)) {
        body.scratch->erase();
        return op->emitError()
               << "loop-carried value " << j << " enters the body as " << type
               << " and leaves it as " << leaving
               << " (element type and rank must stay the same)";
      }
      if (*joined != type) {
        type = *joined;
        changed = true;
      }
    }
    if (!changed)
      return body;
    body.scratch->erase();
  }
}

/// Moves the ops of `from` (without its terminator) to the end of `to`.
void spliceBody(Block &from, Block &to) {
  Operation *terminator = from.getTerminator();
  to.getOperations().splice(to.end(), from.getOperations(), from.begin(),
                            Block::iterator(terminator));
}

//===----------------------------------------------------------------------===//
// Stacks of scan outputs
//===----------------------------------------------------------------------===//

/// `source` copied into the window [offsets, sizes) (unit strides) of
/// `dest`; `source` may drop the window's unit dims. The copy is a
/// linalg.copy into the extract_slice that the insert_slice puts back, so
/// bufferization writes in place (a plain insert_slice would bufferize to
/// a strided memref.copy).
Value copyIntoSlice(OpBuilder &b, Location loc, Value source, Value dest,
                    ArrayRef<OpFoldResult> offsets,
                    ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> ones(offsets.size(), b.getIndexAttr(1));
  auto sourceType = cast<RankedTensorType>(source.getType());
  auto slotType = tensor::ExtractSliceOp::inferCanonicalRankReducedResultType(
      sourceType.getRank(), cast<RankedTensorType>(dest.getType()), sizes);
  Value slot = tensor::ExtractSliceOp::create(b, loc, slotType, dest, offsets,
                                              sizes, ones);
  Value copied =
      linalg::CopyOp::create(b, loc, castTo(b, loc, source, slotType), slot)
          .getResult(0);
  return tensor::InsertSliceOp::create(b, loc, copied, dest, offsets, sizes,
                                       ones);
}

/// A stack for the elements of one scan output: [capacity, element dims].
struct Stack {
  Value init;
  /// Allocated with its final capacity before the loop (the element shape
  /// is static and the number of iterations known): never reallocated, so
  /// the loop updates it in place.
  bool preallocated = false;
};

/// A stack for elements of `elementType`. With a static element shape and
/// a known number of iterations, `capacity` entries up front; else empty
/// ([0, element's static dims or 0]) and grown by the loop.
Stack makeStack(OpBuilder &b, Location loc, RankedTensorType elementType,
                std::optional<Value> capacity) {
  Stack stack;
  SmallVector<int64_t> shape = {ShapedType::kDynamic};
  shape.append(elementType.getShape().begin(), elementType.getShape().end());
  auto stackType = RankedTensorType::get(shape, elementType.getElementType());
  SmallVector<OpFoldResult> dims;
  if (capacity && elementType.hasStaticShape()) {
    stack.preallocated = true;
    dims.push_back(*capacity);
  } else {
    dims.push_back(b.getIndexAttr(0));
  }
  for (int64_t d : elementType.getShape())
    dims.push_back(b.getIndexAttr(ShapedType::isDynamic(d) ? 0 : d));
  // (scf.while keeps this more dynamic iter_arg type; see lowerScan.)
  stack.init =
      castTo(b, loc, emptyTensor(b, loc, dims, elementType.getElementType()),
             stackType);
  return stack;
}

/// Writes `element` at `position` of `stack`, which holds `count` entries
/// so far. The element must have the shape of the earlier ones (checked).
/// Unless preallocated, a full stack is first reallocated to
/// `grownCapacity(capacity, needed, bound)`, keeping its entries.
Value pushToStack(OpBuilder &b, Location loc, Value stack, bool preallocated,
                  Value count, Value position, Value element, Value needed,
                  std::optional<Value> bound, int64_t output) {
  auto stackType = cast<RankedTensorType>(stack.getType());
  int64_t rank = stackType.getRank() - 1;
  SmallVector<OpFoldResult> elementDims = shape::getDims(b, loc, element);
  Value zero = indexConst(b, loc, 0);
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, count, zero);
  for (int64_t d = 0; d < rank; ++d) {
    if (!stackType.isDynamicDim(d + 1))
      continue;
    Value now = shape::toValue(b, loc, elementDims[d]);
    Value before = tensor::DimOp::create(b, loc, stack, d + 1);
    Value same =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, now, before);
    Value ok = arith::OrIOp::create(b, loc, first, same);
    AssertOp::create(b, loc, ok,
                     b.getStringAttr("scan output " + std::to_string(output) +
                                     " dim " + std::to_string(d) +
                                     " is {0} in iteration {1} but {2} before"),
                     ValueRange{now, count, before});
  }
  if (!preallocated) {
    Value capacity = tensor::DimOp::create(b, loc, stack, 0);
    Value full = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, count,
                                       capacity);
    auto grow = scf::IfOp::create(
        b, loc, full,
        [&](OpBuilder &nb, Location nl) {
          OpFoldResult grown = shape::grownCapacity(
              nb, nl, capacity, needed,
              bound ? std::optional<OpFoldResult>(*bound) : std::nullopt);
          Value fresh =
              emptyTensor(nb, nl, shape::stackedShape(elementDims, grown, 0),
                          stackType.getElementType());
          // The new stack keeps the `count` entries written so far (none in
          // the first iteration, whose element may have another shape than
          // the empty stack): one generic over the whole new stack that
          // reads the old one element by element where an entry exists. (A
          // copy through extract_slice/insert_slice could be materialized
          // with a strided memref.copy, which the CPU runtime lacks.)
          auto map = AffineMap::getMultiDimIdentityMap(unsigned(rank + 1),
                                                       nb.getContext());
          SmallVector<utils::IteratorType> iterators(
              rank + 1, utils::IteratorType::parallel);
          auto copy = linalg::GenericOp::create(
              nb, nl, TypeRange{fresh.getType()}, ValueRange{},
              ValueRange{fresh}, ArrayRef<AffineMap>{map}, iterators,
              [&](OpBuilder &gb, Location gl, ValueRange) {
                SmallVector<Value> ivs;
                for (int64_t i = 0; i <= rank; ++i)
                  ivs.push_back(linalg::IndexOp::create(gb, gl, uint64_t(i)));
                Value kept = arith::CmpIOp::create(
                    gb, gl, arith::CmpIPredicate::ult, ivs[0], count);
                auto read = scf::IfOp::create(
                    gb, gl, kept,
                    [&](OpBuilder &rb, Location rl) {
                      scf::YieldOp::create(rb, rl,
                                           ValueRange{tensor::ExtractOp::create(
                                               rb, rl, stack, ivs)});
                    },
                    [&](OpBuilder &rb, Location rl) {
                      scf::YieldOp::create(
                          rb, rl,
                          scalarConstant(rb, rl, stackType.getElementType(),
                                         0.0));
                    });
                linalg::YieldOp::create(gb, gl, read.getResult(0));
              });
          Value kept = copy.getResult(0);
          scf::YieldOp::create(nb, nl, castTo(nb, nl, kept, stackType));
        },
        [&](OpBuilder &nb, Location nl) {
          scf::YieldOp::create(nb, nl, stack);
        });
    stack = grow.getResult(0);
  }
  SmallVector<OpFoldResult> offsets(rank + 1, b.getIndexAttr(0));
  offsets[0] = position;
  SmallVector<OpFoldResult> sizes =
      shape::stackedShape(elementDims, b.getIndexAttr(1), 0);
  return copyIntoSlice(b, loc, element, stack, offsets, sizes);
}

/// The first `count` entries of a stack.
Value stackEntries(OpBuilder &b, Location loc, Value stack,
                   OpFoldResult count) {
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, stack);
  SmallVector<OpFoldResult> sizes =
      shape::stackedShape(ArrayRef<OpFoldResult>(dims).drop_front(), count, 0);
  SmallVector<OpFoldResult> zeros(dims.size(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> ones(dims.size(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, stack, zeros, sizes, ones);
}

/// The rank-0 tensor holding `v` (a loop's iteration number or condition
/// as the body sees it).
Value scalarTensor(OpBuilder &b, Location loc, Value v) {
  return tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, v.getType()), ValueRange{v});
}

//===----------------------------------------------------------------------===//
// If
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerIf(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  // The importer creates the regions in attribute-name order:
  // else_branch, then then_branch.
  Block &elseBlock = op->getRegion(0).front();
  Block &thenBlock = op->getRegion(1).front();
  FailureOr<Value> cond = readCondition(b, loc, op, op->getOperand(0));
  if (failed(cond))
    return failure();
  if (failed(lowerONNXOpsIn(thenBlock)) || failed(lowerONNXOpsIn(elseBlock)))
    return failure();
  Operation *thenYield = thenBlock.getTerminator();
  Operation *elseYield = elseBlock.getTerminator();
  if (thenYield->getNumOperands() != op->getNumResults() ||
      elseYield->getNumOperands() != op->getNumResults())
    return op->emitError() << "the branches must yield " << op->getNumResults()
                           << " values";
  SmallVector<Type> types;
  for (unsigned i = 0; i < op->getNumResults(); ++i) {
    Type thenType = thenYield->getOperand(i).getType();
    Type elseType = elseYield->getOperand(i).getType();
    if (isHandleType(thenType) || isHandleType(elseType)) {
      // Sequences/optionals: the same handle type on both sides.
      if (thenType != elseType)
        return op->emitError() << "the branches yield " << thenType << " and "
                               << elseType << " for output " << i;
      types.push_back(thenType);
      continue;
    }
    auto t = yieldedType(op, thenYield->getOperand(i),
                         "then_branch output " + Twine(i));
    auto e = yieldedType(op, elseYield->getOperand(i),
                         "else_branch output " + Twine(i));
    if (failed(t) || failed(e))
      return failure();
    FailureOr<RankedTensorType> joined = shape::joinTypes(*t, *e);
    if (failed(joined))
      return op->emitError()
             << "the branches yield " << *t << " and " << *e << " for output "
             << i << " (element type and rank must agree)";
    types.push_back(*joined);
  }
  auto ifOp = scf::IfOp::create(b, loc, types, *cond, /*addThenBlock=*/true,
                                /*addElseBlock=*/true);
  for (auto [from, to, yield] :
       {std::make_tuple(&thenBlock, ifOp.thenBlock(), thenYield),
        std::make_tuple(&elseBlock, ifOp.elseBlock(), elseYield)}) {
    spliceBody(*from, *to);
    OpBuilder yb = OpBuilder::atBlockEnd(to);
    SmallVector<Value> values;
    for (auto [v, type] : llvm::zip(yield->getOperands(), types))
      values.push_back(castTo(yb, loc, v, type));
    scf::YieldOp::create(yb, loc, values);
  }
  return matchResults(b, loc, op, SmallVector<Value>(ifOp.getResults()));
}

//===----------------------------------------------------------------------===//
// Loop
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerLoop(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  Value tripCount = op->getOperand(0);
  Value condInit = op->getOperand(1);
  bool hasTrip = !isa<NoneType>(tripCount.getType());
  bool hasCond = !isa<NoneType>(condInit.getType());
  if (!hasTrip && !hasCond)
    return op->emitError("Loop without a trip count and a condition never "
                         "ends; this is not supported");
  SmallVector<Value> inits(op->getOperands().drop_front(2));
  unsigned numCarried = inits.size();
  SmallVector<Type> carried;
  for (auto [j, v] : llvm::enumerate(inits)) {
    if (isHandleType(v.getType())) {
      carried.push_back(v.getType());
      continue;
    }
    auto type = requireRanked(op, v, "loop-carried value " + std::to_string(j));
    if (failed(type))
      return failure();
    carried.push_back(*type);
  }

  // Payload scalars read before the loop: the trip count and condition.
  Value trip;
  if (hasTrip) {
    if (failed(requireRanked(op, tripCount, "the trip count")))
      return failure();
    // A negative trip count runs no iteration (and sizes nothing).
    trip = arith::MaxSIOp::create(b, loc,
                                  shape::readScalarIndex(b, loc, tripCount),
                                  indexConst(b, loc, 0));
  }
  Value cond0 = arith::ConstantIntOp::create(b, loc, 1, 1);
  if (hasCond) {
    FailureOr<Value> c = readCondition(b, loc, op, condInit);
    if (failed(c))
      return failure();
    cond0 = *c;
  }

  Type iterType = RankedTensorType::get({}, b.getI64Type());
  Type condType = RankedTensorType::get({}, b.getI1Type());
  FailureOr<LoweredBody> body =
      lowerLoopBody(b, op, {iterType, condType}, carried, {}, 1);
  if (failed(body))
    return failure();
  unsigned numScan = body->yielded.size() - 1 - numCarried;
  SmallVector<RankedTensorType> scanTypes;
  for (unsigned k = 0; k < numScan; ++k) {
    auto type = yieldedType(op, body->yielded[1 + numCarried + k],
                            "scan output " + Twine(k));
    if (failed(type)) {
      body->scratch->erase();
      return failure();
    }
    scanTypes.push_back(*type);
  }
  if (hasCond && failed(yieldedType(op, body->yielded[0],
                                    "the body's condition output"))) {
    body->scratch->erase();
    return failure();
  }
  if (op->getNumResults() != numCarried + numScan) {
    body->scratch->erase();
    return op->emitError() << "the body yields " << numCarried + numScan
                           << " loop outputs, the op has "
                           << op->getNumResults();
  }

  // iter_args: counter, condition, carried values, scan stacks.
  SmallVector<Value> whileInits = {indexConst(b, loc, 0), cond0};
  for (auto [v, type] : llvm::zip(inits, carried))
    whileInits.push_back(castTo(b, loc, v, type));
  // Without a condition the trip count is the number of iterations.
  SmallVector<bool> preallocated;
  for (RankedTensorType type : scanTypes) {
    Stack stack = makeStack(
        b, loc, type, hasCond ? std::nullopt : std::optional<Value>(trip));
    whileInits.push_back(stack.init);
    preallocated.push_back(stack.preallocated);
  }
  SmallVector<Type> whileTypes;
  for (Value v : whileInits)
    whileTypes.push_back(v.getType());

  std::optional<Value> bound;
  if (hasTrip)
    bound = trip;
  auto whileOp = scf::WhileOp::create(
      b, loc, whileTypes, whileInits,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value go = hasCond ? args[1] : Value();
        if (hasTrip) {
          Value inRange = arith::CmpIOp::create(
              nb, nl, arith::CmpIPredicate::slt, args[0], trip);
          go = go ? arith::AndIOp::create(nb, nl, go, inRange).getResult()
                  : inRange;
        }
        scf::ConditionOp::create(nb, nl, go, args);
      },
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        // What the body sees: the iteration number and the condition as
        // rank-0 tensors, and the carried values.
        Value iter = scalarTensor(
            nb, nl,
            arith::IndexCastOp::create(nb, nl, nb.getI64Type(), args[0]));
        Value condIn = scalarTensor(nb, nl, args[1]);
        Block *after = nb.getInsertionBlock();
        spliceBody(*body->block, *after);
        body->block->getArgument(0).replaceAllUsesWith(iter);
        body->block->getArgument(1).replaceAllUsesWith(condIn);
        for (unsigned j = 0; j < numCarried; ++j)
          body->block->getArgument(2 + j).replaceAllUsesWith(args[2 + j]);
        nb.setInsertionPointToEnd(after);
        // Re-read the yielded values: some were the arguments just replaced.
        body->refreshYielded();
        SmallVector<Value> next = {
            arith::AddIOp::create(nb, nl, args[0], indexConst(nb, nl, 1))};
        Value condOut = args[1];
        if (hasCond) {
          // Without a condition input the body's condition output is
          // ignored (ONNX).
          // (Ranked: checked above, so this cannot fail.)
          FailureOr<Value> c = readCondition(nb, nl, op, body->yielded[0]);
          condOut = succeeded(c) ? *c : args[1];
        }
        next.push_back(condOut);
        for (unsigned j = 0; j < numCarried; ++j)
          next.push_back(castTo(nb, nl, body->yielded[1 + j], carried[j]));
        for (unsigned k = 0; k < numScan; ++k) {
          Value needed =
              arith::AddIOp::create(nb, nl, args[0], indexConst(nb, nl, 1));
          next.push_back(pushToStack(
              nb, nl, args[2 + numCarried + k], preallocated[k], args[0],
              args[0], body->yielded[1 + numCarried + k], needed, bound, k));
        }
        scf::YieldOp::create(nb, nl, next);
      });
  body->scratch->erase();

  SmallVector<Value> results;
  for (unsigned j = 0; j < numCarried; ++j)
    results.push_back(whileOp.getResult(2 + j));
  for (unsigned k = 0; k < numScan; ++k)
    results.push_back(stackEntries(
        b, loc, whileOp.getResult(2 + numCarried + k), whileOp.getResult(0)));
  return matchResults(b, loc, op, results);
}

//===----------------------------------------------------------------------===//
// Scan
//===----------------------------------------------------------------------===//

/// An integer-list attribute with `count` entries (default: `fallback`).
FailureOr<SmallVector<int64_t>> listAttr(Operation *op, StringRef name,
                                         size_t count, int64_t fallback) {
  SmallVector<int64_t> values(count, fallback);
  auto attr = op->getAttrOfType<ArrayAttr>(name);
  if (!attr)
    return values;
  if (attr.size() != count)
    return op->emitError() << name << " has " << attr.size()
                           << " entries, expected " << count;
  for (auto [i, a] : llvm::enumerate(attr))
    values[i] = cast<IntegerAttr>(a).getInt();
  return values;
}

FailureOr<SmallVector<Value>> lowerScan(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  auto numScanAttr = op->getAttrOfType<IntegerAttr>("num_scan_inputs");
  if (!numScanAttr)
    return op->emitError("Scan needs num_scan_inputs");
  int64_t numScanIn = numScanAttr.getInt();
  int64_t numStates = int64_t(op->getNumOperands()) - numScanIn;
  if (numScanIn < 1 || numStates < 0)
    return op->emitError("Scan: num_scan_inputs is out of range");
  SmallVector<Value> states(op->getOperands().take_front(numStates));
  SmallVector<Value> scanIn(op->getOperands().drop_front(numStates));
  int64_t numScanOut = int64_t(op->getNumResults()) - numStates;
  auto inAxes = listAttr(op, "scan_input_axes", numScanIn, 0);
  auto inDirs = listAttr(op, "scan_input_directions", numScanIn, 0);
  auto outAxes = listAttr(op, "scan_output_axes", numScanOut, 0);
  auto outDirs = listAttr(op, "scan_output_directions", numScanOut, 0);
  if (failed(inAxes) || failed(inDirs) || failed(outAxes) || failed(outDirs))
    return failure();

  SmallVector<Type> carried;
  for (auto [j, v] : llvm::enumerate(states)) {
    auto type = requireRanked(op, v, "state " + std::to_string(j));
    if (failed(type))
      return failure();
    carried.push_back(*type);
  }
  // Scan inputs: one element per iteration, the axis dropped.
  SmallVector<Type> elementTypes;
  for (auto [j, v] : llvm::enumerate(scanIn)) {
    auto type = requireRanked(op, v, "scan input " + std::to_string(j));
    if (failed(type))
      return failure();
    FailureOr<int64_t> axis = normalizeAxis(op, (*inAxes)[j], type->getRank());
    if (failed(axis) || type->getRank() == 0)
      return failure();
    (*inAxes)[j] = *axis;
    SmallVector<int64_t> shape(type->getShape());
    shape.erase(shape.begin() + *axis);
    elementTypes.push_back(
        RankedTensorType::get(shape, type->getElementType()));
  }
  FailureOr<OpFoldResult> length =
      shape::scanLength(b, loc, scanIn, *inAxes, op);
  if (failed(length))
    return failure();
  Value lengthValue = shape::toValue(b, loc, *length);

  FailureOr<LoweredBody> body =
      lowerLoopBody(b, op, {}, carried, elementTypes, 0);
  if (failed(body))
    return failure();
  if (int64_t(body->yielded.size()) != numStates + numScanOut) {
    body->scratch->erase();
    return op->emitError() << "the body yields " << body->yielded.size()
                           << " values, expected " << numStates + numScanOut;
  }
  SmallVector<RankedTensorType> scanTypes;
  for (int64_t k = 0; k < numScanOut; ++k) {
    auto type = yieldedType(op, body->yielded[numStates + k],
                            "scan output " + Twine(k));
    if (failed(type)) {
      body->scratch->erase();
      return failure();
    }
    scanTypes.push_back(*type);
  }

  // iter_args: the position, the states, the scan stacks. (scf.while,
  // not scf.for: the canonicalizer would refine scf.for iter_args to the
  // static type of their initial value, and the stacks and generalized
  // states are more dynamic than that on purpose.)
  SmallVector<Value> whileInits = {indexConst(b, loc, 0)};
  for (auto [v, type] : llvm::zip(states, carried))
    whileInits.push_back(castTo(b, loc, v, type));
  SmallVector<bool> preallocated;
  for (RankedTensorType type : scanTypes) {
    Stack stack = makeStack(b, loc, type, lengthValue);
    whileInits.push_back(stack.init);
    preallocated.push_back(stack.preallocated);
  }
  SmallVector<Type> whileTypes;
  for (Value v : whileInits)
    whileTypes.push_back(v.getType());
  Value one = indexConst(b, loc, 1);
  Value last = arith::SubIOp::create(b, loc, lengthValue, one);
  auto whileOp = scf::WhileOp::create(
      b, loc, whileTypes, whileInits,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value go = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt,
                                         args[0], lengthValue);
        scf::ConditionOp::create(nb, nl, go, args);
      },
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value t = args[0];
        Value reversed = arith::SubIOp::create(nb, nl, last, t);
        Block *loopBody = nb.getInsertionBlock();
        SmallVector<Value> elements;
        for (auto [j, input] : llvm::enumerate(scanIn)) {
          auto type = cast<RankedTensorType>(input.getType());
          int64_t axis = (*inAxes)[j];
          SmallVector<OpFoldResult> offsets(type.getRank(), nb.getIndexAttr(0));
          offsets[axis] = (*inDirs)[j] ? reversed : t;
          SmallVector<OpFoldResult> sizes = shape::getDims(nb, nl, input);
          sizes[axis] = nb.getIndexAttr(1);
          SmallVector<OpFoldResult> ones(type.getRank(), nb.getIndexAttr(1));
          elements.push_back(tensor::ExtractSliceOp::create(
              nb, nl, cast<RankedTensorType>(elementTypes[j]), input, offsets,
              sizes, ones));
        }
        spliceBody(*body->block, *loopBody);
        for (int64_t j = 0; j < numStates; ++j)
          body->block->getArgument(j).replaceAllUsesWith(args[1 + j]);
        for (int64_t j = 0; j < numScanIn; ++j)
          body->block->getArgument(numStates + j)
              .replaceAllUsesWith(elements[j]);
        nb.setInsertionPointToEnd(loopBody);
        body->refreshYielded();
        SmallVector<Value> next = {arith::AddIOp::create(nb, nl, t, one)};
        for (int64_t j = 0; j < numStates; ++j)
          next.push_back(castTo(nb, nl, body->yielded[j], carried[j]));
        for (int64_t k = 0; k < numScanOut; ++k)
          next.push_back(pushToStack(
              nb, nl, args[1 + numStates + k], preallocated[k], t,
              (*outDirs)[k] ? reversed : t, body->yielded[numStates + k],
              lengthValue, lengthValue, k));
        scf::YieldOp::create(nb, nl, next);
      });
  body->scratch->erase();

  SmallVector<Value> results;
  for (int64_t j = 0; j < numStates; ++j)
    results.push_back(whileOp.getResult(1 + j));
  for (int64_t k = 0; k < numScanOut; ++k) {
    Value stacked =
        stackEntries(b, loc, whileOp.getResult(1 + numStates + k), lengthValue);
    int64_t rank = cast<RankedTensorType>(stacked.getType()).getRank();
    FailureOr<int64_t> axis = normalizeAxis(op, (*outAxes)[k], rank);
    if (failed(axis))
      return failure();
    if (*axis != 0) {
      // The sequence dim moves from 0 to `axis`.
      SmallVector<int64_t> perm;
      for (int64_t i = 1; i <= *axis; ++i)
        perm.push_back(i);
      perm.push_back(0);
      for (int64_t i = *axis + 1; i < rank; ++i)
        perm.push_back(i);
      Value init = emptyTensor(
          b, loc, shape::transposeShape(b, loc, stacked, perm),
          cast<RankedTensorType>(stacked.getType()).getElementType());
      stacked = linalg::TransposeOp::create(b, loc, stacked, init, perm)
                    ->getResult(0);
    }
    results.push_back(stacked);
  }
  return matchResults(b, loc, op, results);
}

} // namespace

void addControlFlowLowerings(LoweringTable &t) {
  t["onnx.If"] = lowerIf;
  t["onnx.Loop"] = lowerLoop;
  t["onnx.Scan"] = lowerScan;
}

} // namespace onyx::conversion
