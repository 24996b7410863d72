//===- Sequence.cpp - ONNX sequences and optionals as onyx handles --------===//
//
// docs/sequences.md. A sequence is a run-time value (`!onyx.sequence<E>`,
// E the scalar element type): length, ranks and shapes of its elements are
// data dependent, so it is an opaque handle to an immutable, call-owned
// list in the runtime (runtime/src/Sequence.cpp), not a tensor. Handles are
// not tensors: bufferization leaves them alone and scf.if / scf.while /
// scf.for carry them like any value, so If and Loop bodies that build
// sequences with elements of changing shape need nothing special.
//
//   SequenceEmpty        -> onyx.seq_empty
//   SequenceConstruct    -> seq_empty, then one onyx.seq_insert per input
//   SequenceInsert/Erase -> onyx.seq_insert / onyx.seq_erase (new handle;
//                           the input sequence stays valid)
//   SequenceAt           -> onyx.seq_at, a tensor of the declared rank with
//                           dynamic dims (read-only after bufferization)
//   SequenceLength       -> onyx.seq_length in a rank-0 i64 tensor
//   SequenceMap          -> scf.for over the length: seq_at per sequence
//                           input, the body inlined, seq_insert per output
//   SplitToSequence      -> scf.for over the pieces: extract_slice + insert
//   ConcatFromSequence   -> two scf.for: the total extent (shapes checked),
//                           then each element copied into its slot
//   Optional             -> onyx.optional_none / onyx.optional_wrap (an
//                           optional tensor holds a one-element sequence)
//   OptionalHasElement   -> onyx.optional_has
//   OptionalGetElement   -> onyx.optional_unwrap (+ seq_at 0 for a tensor)
//
// Positions are payload scalars (tensor.extract), checked by the runtime,
// which fails the call naming the node. Graph inputs and outputs of these
// types go through the runtime ABI (docs/runtime-abi.md).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "onyx/Shape/DataMovementShapes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace onyx::conversion {

/// The scalar element type of a tensor type, or of the tensors inside an
/// ONNX sequence/optional type.
static Type scalarOf(Type type) {
  while (true) {
    if (auto seq = dyn_cast<onnx::SeqType>(type)) {
      type = seq.getElementType();
      continue;
    }
    if (auto opt = dyn_cast<onnx::OptType>(type)) {
      type = opt.getElementType();
      continue;
    }
    break;
  }
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.getElementType();
  return {};
}

Type convertHandleType(Type type) {
  if (isa<SequenceType, OptionalType>(type))
    return type;
  if (isa<onnx::SeqType>(type)) {
    Type scalar = scalarOf(type);
    return scalar ? SequenceType::get(type.getContext(), scalar) : Type();
  }
  if (auto opt = dyn_cast<onnx::OptType>(type)) {
    Type payload = opt.getElementType();
    Type converted = isa<onnx::SeqType>(payload) ? convertHandleType(payload)
                                                 : scalarOf(payload);
    return converted ? OptionalType::get(type.getContext(), converted) : Type();
  }
  return {};
}

bool isHandleType(Type type) {
  return isa<SequenceType, OptionalType, onnx::SeqType, onnx::OptType>(type);
}

LogicalResult convertHandleArguments(func::FuncOp func) {
  Block &entry = func.getBody().front();
  bool changed = false;
  for (BlockArgument arg : entry.getArguments()) {
    if (!isHandleType(arg.getType()))
      continue;
    Type converted = convertHandleType(arg.getType());
    if (!converted)
      return func.emitError() << "graph input " << arg.getArgNumber()
                              << " has an unsupported type " << arg.getType();
    arg.setType(converted);
    changed = true;
  }
  if (changed)
    func.setFunctionType(FunctionType::get(
        func.getContext(), entry.getArgumentTypes(), func.getResultTypes()));
  return success();
}

namespace {

bool isNone(Value v) { return !v || isa<NoneType>(v.getType()); }

/// The onyx handle type of `op`'s result `i`, or an error on `op`.
FailureOr<Type> resultHandleType(Operation *op, unsigned i) {
  Type type = convertHandleType(op->getResult(i).getType());
  if (!type)
    return op->emitError() << "result " << i << " has an unsupported type "
                           << op->getResult(i).getType();
  return type;
}

/// `v` must be a lowered sequence (a handle).
FailureOr<Value> requireSequence(Operation *op, Value v, StringRef what) {
  if (!isa<SequenceType>(v.getType()))
    return op->emitError() << what << " is not a sequence (" << v.getType()
                           << ")";
  return v;
}

/// A position operand (a scalar integer tensor) as i64: a payload scalar.
FailureOr<Value> readPosition(OpBuilder &b, Location loc, Operation *op,
                              Value t) {
  auto type = dyn_cast<RankedTensorType>(t.getType());
  if (!type || !isa<IntegerType>(type.getElementType()))
    return op->emitError() << "the position must be a scalar integer tensor, "
                              "got "
                           << t.getType();
  // One element (a scalar, or [1] with dims symbolic: checked at run time).
  if (failed(shape::checkEqual(b, loc, shape::numElements(b, loc, t),
                               b.getIndexAttr(1),
                               "element count of the position and 1", op)))
    return failure();
  SmallVector<Value> zeros(type.getRank(),
                           arith::ConstantIndexOp::create(b, loc, 0));
  Value v = tensor::ExtractOp::create(b, loc, t, zeros);
  if (!v.getType().isInteger(64))
    v = arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
  return v;
}

/// A ranked tensor to insert: its element type must be the sequence's.
FailureOr<Value> requireElement(Operation *op, Value seq, Value t) {
  auto type = requireRanked(op, t, "the inserted tensor");
  if (failed(type))
    return failure();
  Type want = cast<SequenceType>(seq.getType()).getElementType();
  if (type->getElementType() != want)
    return op->emitError() << "cannot insert a tensor of "
                           << type->getElementType() << " into a sequence of "
                           << want;
  return t;
}

/// The tensor type seq_at gives for a declared result type: its rank, all
/// dims dynamic (element shapes are run-time properties).
FailureOr<RankedTensorType> elementTypeFor(Operation *op, Type declared,
                                           Type scalar) {
  auto ranked = dyn_cast<RankedTensorType>(declared);
  if (!ranked)
    return op->emitError() << "the element's rank is unknown (" << declared
                           << "); a sequence element needs a ranked type";
  return RankedTensorType::get(
      SmallVector<int64_t>(ranked.getRank(), ShapedType::kDynamic), scalar);
}

Value seqAt(OpBuilder &b, Location loc, Value seq, Value position,
            RankedTensorType type) {
  return SeqAtOp::create(b, loc, type, seq, position);
}

Value i64Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 64);
}

Value scalarTensorOf(OpBuilder &b, Location loc, Value v) {
  return tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, v.getType()), ValueRange{v});
}

//===----------------------------------------------------------------------===//
// Sequence ops
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerSequenceEmpty(Operation *op, OpBuilder &b) {
  FailureOr<Type> type = resultHandleType(op, 0);
  if (failed(type))
    return failure();
  return SmallVector<Value>{SeqEmptyOp::create(b, op->getLoc(), *type)};
}

FailureOr<SmallVector<Value>> lowerSequenceConstruct(Operation *op,
                                                     OpBuilder &b) {
  FailureOr<Type> type = resultHandleType(op, 0);
  if (failed(type))
    return failure();
  Location loc = op->getLoc();
  Value seq = SeqEmptyOp::create(b, loc, *type);
  for (Value input : op->getOperands()) {
    FailureOr<Value> element = requireElement(op, seq, input);
    if (failed(element))
      return failure();
    seq = SeqInsertOp::create(b, loc, seq.getType(), seq, *element, Value());
  }
  return SmallVector<Value>{seq};
}

FailureOr<SmallVector<Value>> lowerSequenceInsert(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  FailureOr<Value> seq =
      requireSequence(op, op->getOperand(0), "the input sequence");
  if (failed(seq))
    return failure();
  FailureOr<Value> element = requireElement(op, *seq, op->getOperand(1));
  if (failed(element))
    return failure();
  Value position;
  if (op->getNumOperands() > 2 && !isNone(op->getOperand(2))) {
    FailureOr<Value> p = readPosition(b, loc, op, op->getOperand(2));
    if (failed(p))
      return failure();
    position = *p;
  }
  return SmallVector<Value>{
      SeqInsertOp::create(b, loc, seq->getType(), *seq, *element, position)};
}

FailureOr<SmallVector<Value>> lowerSequenceErase(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  FailureOr<Value> seq =
      requireSequence(op, op->getOperand(0), "the input sequence");
  if (failed(seq))
    return failure();
  Value position;
  if (op->getNumOperands() > 1 && !isNone(op->getOperand(1))) {
    FailureOr<Value> p = readPosition(b, loc, op, op->getOperand(1));
    if (failed(p))
      return failure();
    position = *p;
  }
  return SmallVector<Value>{
      SeqEraseOp::create(b, loc, seq->getType(), *seq, position)};
}

FailureOr<SmallVector<Value>> lowerSequenceAt(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  FailureOr<Value> seq =
      requireSequence(op, op->getOperand(0), "the input sequence");
  if (failed(seq))
    return failure();
  FailureOr<Value> position = readPosition(b, loc, op, op->getOperand(1));
  if (failed(position))
    return failure();
  FailureOr<RankedTensorType> type =
      elementTypeFor(op, op->getResult(0).getType(),
                     cast<SequenceType>(seq->getType()).getElementType());
  if (failed(type))
    return failure();
  return SmallVector<Value>{seqAt(b, loc, *seq, *position, *type)};
}

FailureOr<SmallVector<Value>> lowerSequenceLength(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  FailureOr<Value> seq =
      requireSequence(op, op->getOperand(0), "the input sequence");
  if (failed(seq))
    return failure();
  Value length = SeqLengthOp::create(b, loc, b.getIndexType(), *seq);
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), length);
  return SmallVector<Value>{scalarTensorOf(b, loc, i64)};
}

/// SequenceMap: one scf.for over the first sequence's length.
FailureOr<SmallVector<Value>> lowerSequenceMap(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  Block &body = op->getRegion(0).front();
  if (body.getNumArguments() != op->getNumOperands())
    return op->emitError() << "the body takes " << body.getNumArguments()
                           << " inputs, the op has " << op->getNumOperands();
  FailureOr<Value> first =
      requireSequence(op, op->getOperand(0), "the input sequence");
  if (failed(first))
    return failure();
  Value length = SeqLengthOp::create(b, loc, b.getIndexType(), *first);
  // Per input: the element type the body sees (sequences) or the tensor.
  SmallVector<RankedTensorType> atTypes(op->getNumOperands());
  for (auto [i, input] : llvm::enumerate(op->getOperands())) {
    BlockArgument arg = body.getArgument(i);
    if (auto seqType = dyn_cast<SequenceType>(input.getType())) {
      FailureOr<RankedTensorType> type =
          elementTypeFor(op, arg.getType(), seqType.getElementType());
      if (failed(type))
        return failure();
      atTypes[i] = *type;
      arg.setType(*type);
      if (i > 0) {
        Value other = SeqLengthOp::create(b, loc, b.getIndexType(), input);
        Value same = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           other, length);
        AssertOp::create(b, loc, same,
                         b.getStringAttr("SequenceMap input " +
                                         std::to_string(i) +
                                         " has {0} elements, input 0 has {1}"),
                         ValueRange{other, length});
      }
      continue;
    }
    if (!isa<RankedTensorType>(input.getType()))
      return op->emitError() << "input " << i << " must be a sequence or a "
                             << "ranked tensor, got " << input.getType();
    arg.setType(input.getType());
  }
  SmallVector<Value> inits;
  for (unsigned k = 0; k < op->getNumResults(); ++k) {
    FailureOr<Type> type = resultHandleType(op, k);
    if (failed(type) || !isa<SequenceType>(*type))
      return op->emitError() << "output " << k << " must be a sequence";
    inits.push_back(SeqEmptyOp::create(b, loc, *type));
  }
  if (failed(lowerONNXOpsIn(body)))
    return failure();
  Operation *yield = body.getTerminator();
  if (yield->getNumOperands() != op->getNumResults())
    return op->emitError() << "the body yields " << yield->getNumOperands()
                           << " values, the op has " << op->getNumResults()
                           << " outputs";
  for (auto [k, v] : llvm::enumerate(yield->getOperands())) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || type.getElementType() !=
                     cast<SequenceType>(inits[k].getType()).getElementType())
      return op->emitError()
             << "body output " << k << " (" << v.getType()
             << ") does not match the output sequence " << inits[k].getType();
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto forOp = scf::ForOp::create(
      b, loc, zero, length, one, inits,
      [&](OpBuilder &nb, Location nl, Value iv, ValueRange outs) {
        Value position =
            arith::IndexCastOp::create(nb, nl, nb.getI64Type(), iv);
        Block *loopBody = nb.getInsertionBlock();
        SmallVector<Value> args;
        for (auto [i, input] : llvm::enumerate(op->getOperands()))
          args.push_back(atTypes[i] ? seqAt(nb, nl, input, position, atTypes[i])
                                    : input);
        Operation *terminator = body.getTerminator();
        loopBody->getOperations().splice(loopBody->end(), body.getOperations(),
                                         body.begin(),
                                         Block::iterator(terminator));
        for (auto [arg, value] : llvm::zip(body.getArguments(), args))
          arg.replaceAllUsesWith(value);
        nb.setInsertionPointToEnd(loopBody);
        SmallVector<Value> next;
        for (auto [k, v] : llvm::enumerate(terminator->getOperands()))
          next.push_back(SeqInsertOp::create(nb, nl, outs[k].getType(), outs[k],
                                             v, Value()));
        scf::YieldOp::create(nb, nl, next);
      });
  return SmallVector<Value>(forOp.getResults());
}

/// SplitToSequence: the pieces along `axis` (equal chunks of `split`, one
/// per entry of a 1-D `split`, or extent 1 each without `split`).
FailureOr<SmallVector<Value>> lowerSplitToSequence(Operation *op,
                                                   OpBuilder &b) {
  Location loc = op->getLoc();
  FailureOr<Type> seqType = resultHandleType(op, 0);
  if (failed(seqType))
    return failure();
  auto inputType = requireRanked(op, op->getOperand(0), "the input");
  if (failed(inputType))
    return failure();
  int64_t rank = inputType->getRank();
  auto axisAttr = op->getAttrOfType<IntegerAttr>("axis");
  auto keepAttr = op->getAttrOfType<IntegerAttr>("keepdims");
  FailureOr<int64_t> axis =
      normalizeAxis(op, axisAttr ? axisAttr.getInt() : 0, rank);
  if (failed(axis) || rank == 0)
    return op->emitError("SplitToSequence needs an input of rank >= 1");
  bool keepDims = !keepAttr || keepAttr.getInt() != 0;
  Value input = op->getOperand(0);
  Value split = op->getNumOperands() > 1 ? op->getOperand(1) : Value();
  Value extent = tensor::DimOp::create(b, loc, input, *axis);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  // count: the number of pieces; chunk(i) -> (offset, size).
  Value count;
  std::function<std::pair<Value, Value>(OpBuilder &, Location, Value)> piece;
  bool dropAxis = false;
  if (isNone(split)) {
    count = extent;
    dropAxis = !keepDims;
    piece = [&](OpBuilder &nb, Location, Value i) {
      return std::make_pair(i, one);
    };
  } else {
    auto splitType = dyn_cast<RankedTensorType>(split.getType());
    if (!splitType || splitType.getRank() > 1 ||
        !isa<IntegerType>(splitType.getElementType()))
      return op->emitError("split must be a scalar or 1-D integer tensor");
    auto readAt = [split](OpBuilder &nb, Location nl, Value i) -> Value {
      SmallVector<Value> idx;
      if (cast<RankedTensorType>(split.getType()).getRank() == 1)
        idx.push_back(i);
      Value v = tensor::ExtractOp::create(nb, nl, split, idx);
      return arith::IndexCastOp::create(nb, nl, nb.getIndexType(), v);
    };
    if (splitType.getRank() == 0) {
      // Equal chunks of `s`; the last one may be smaller.
      Value s = readAt(b, loc, zero);
      Value positive =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, s, zero);
      AssertOp::create(b, loc, positive,
                       b.getStringAttr("split must be positive, got {0}"),
                       ValueRange{s});
      Value safe = arith::MaxSIOp::create(b, loc, s, one);
      // ceil(extent / safe), both non-negative (arith.ceildivsi has no
      // LLVM lowering in this pipeline).
      Value biased = arith::AddIOp::create(
          b, loc, extent, arith::SubIOp::create(b, loc, safe, one));
      count = arith::DivSIOp::create(b, loc, biased, safe);
      piece = [safe, extent](OpBuilder &nb, Location nl, Value i) {
        Value offset = arith::MulIOp::create(nb, nl, i, safe);
        Value rest = arith::SubIOp::create(nb, nl, extent, offset);
        return std::make_pair(
            offset, Value(arith::MinSIOp::create(nb, nl, rest, safe)));
      };
    } else {
      // One piece per entry; the sizes must be >= 0 and add up.
      count = tensor::DimOp::create(b, loc, split, 0);
      auto sum = scf::ForOp::create(
          b, loc, zero, count, one, ValueRange{zero},
          [&](OpBuilder &nb, Location nl, Value i, ValueRange acc) {
            Value s = readAt(nb, nl, i);
            Value ok = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sge,
                                             s, zero);
            AssertOp::create(nb, nl, ok,
                             nb.getStringAttr("split entry {0} is negative "
                                              "({1})"),
                             ValueRange{i, s});
            scf::YieldOp::create(
                nb, nl, ValueRange{arith::AddIOp::create(nb, nl, acc[0], s)});
          });
      Value total = sum.getResult(0);
      Value same = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         total, extent);
      AssertOp::create(b, loc, same,
                       b.getStringAttr("split sums to {0}, but the axis has "
                                       "extent {1}"),
                       ValueRange{total, extent});
      piece = [readAt, zero, one](OpBuilder &nb, Location nl, Value i) {
        auto offset = scf::ForOp::create(
            nb, nl, zero, i, one, ValueRange{zero},
            [&](OpBuilder &fb, Location fl, Value j, ValueRange acc) {
              scf::YieldOp::create(fb, fl,
                                   ValueRange{arith::AddIOp::create(
                                       fb, fl, acc[0], readAt(fb, fl, j))});
            });
        return std::make_pair(offset.getResult(0), readAt(nb, nl, i));
      };
    }
  }
  Value empty = SeqEmptyOp::create(b, loc, *seqType);
  auto forOp = scf::ForOp::create(
      b, loc, zero, count, one, ValueRange{empty},
      [&](OpBuilder &nb, Location nl, Value i, ValueRange acc) {
        auto [offset, size] = piece(nb, nl, i);
        SmallVector<OpFoldResult> offsets(rank, nb.getIndexAttr(0));
        SmallVector<OpFoldResult> sizes = shape::getDims(nb, nl, input);
        SmallVector<OpFoldResult> strides(rank, nb.getIndexAttr(1));
        offsets[*axis] = offset;
        // Without `split` every piece has extent 1 (static, so that the
        // keepdims=0 slice can drop the axis).
        sizes[*axis] = isNone(split) ? OpFoldResult(nb.getIndexAttr(1))
                                     : OpFoldResult(size);
        SmallVector<int64_t> shapeOut(rank, ShapedType::kDynamic);
        for (int64_t d = 0; d < rank; ++d)
          if (d != *axis)
            shapeOut[d] = inputType->getDimSize(d);
        if (dropAxis)
          shapeOut.erase(shapeOut.begin() + *axis);
        else if (isNone(split))
          shapeOut[*axis] = 1;
        auto sliceType =
            RankedTensorType::get(shapeOut, inputType->getElementType());
        Value slice = tensor::ExtractSliceOp::create(nb, nl, sliceType, input,
                                                     offsets, sizes, strides);
        scf::YieldOp::create(
            nb, nl,
            ValueRange{SeqInsertOp::create(nb, nl, acc[0].getType(), acc[0],
                                           slice, Value())});
      });
  return SmallVector<Value>{forOp.getResult(0)};
}

/// ConcatFromSequence: elements of the declared rank joined along `axis`
/// (new_axis = 1: stacked along a new axis). Every other dim must agree.
FailureOr<SmallVector<Value>> lowerConcatFromSequence(Operation *op,
                                                      OpBuilder &b) {
  Location loc = op->getLoc();
  FailureOr<Value> seq =
      requireSequence(op, op->getOperand(0), "the input sequence");
  if (failed(seq))
    return failure();
  Type scalar = cast<SequenceType>(seq->getType()).getElementType();
  auto declared = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!declared)
    return op->emitError("the result's rank is unknown; ConcatFromSequence "
                         "needs it to know the elements' rank");
  auto newAxisAttr = op->getAttrOfType<IntegerAttr>("new_axis");
  bool newAxis = newAxisAttr && newAxisAttr.getInt() != 0;
  int64_t outRank = declared.getRank();
  int64_t rank = newAxis ? outRank - 1 : outRank;
  if (rank < (newAxis ? 0 : 1))
    return op->emitError("ConcatFromSequence needs elements of rank >= 1");
  auto axisAttr = op->getAttrOfType<IntegerAttr>("axis");
  FailureOr<int64_t> axis =
      normalizeAxis(op, axisAttr ? axisAttr.getInt() : 0, outRank);
  if (failed(axis))
    return failure();
  auto elementType = RankedTensorType::get(
      SmallVector<int64_t>(rank, ShapedType::kDynamic), scalar);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value length = SeqLengthOp::create(b, loc, b.getIndexType(), *seq);
  Value nonEmpty =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, length, zero);
  AssertOp::create(b, loc, nonEmpty,
                   b.getStringAttr("ConcatFromSequence of an empty sequence"),
                   ValueRange{});
  // The first element's dims; the others are checked against them.
  Value first = seqAt(b, loc, *seq, i64Const(b, loc, 0), elementType);
  SmallVector<Value> dims;
  for (int64_t d = 0; d < rank; ++d)
    dims.push_back(tensor::DimOp::create(b, loc, first, d));
  int64_t inAxis = newAxis ? -1 : *axis;
  auto total = scf::ForOp::create(
      b, loc, zero, length, one, ValueRange{zero},
      [&](OpBuilder &nb, Location nl, Value i, ValueRange acc) {
        Value e = seqAt(nb, nl, *seq,
                        arith::IndexCastOp::create(nb, nl, nb.getI64Type(), i),
                        elementType);
        Value along = one;
        for (int64_t d = 0; d < rank; ++d) {
          Value dim = tensor::DimOp::create(nb, nl, e, d);
          if (d == inAxis) {
            along = dim;
            continue;
          }
          Value same = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                             dim, dims[d]);
          AssertOp::create(nb, nl, same,
                           nb.getStringAttr("element {0} dim " +
                                            std::to_string(d) +
                                            " is {1}, element 0 has {2}"),
                           ValueRange{i, dim, dims[d]});
        }
        scf::YieldOp::create(
            nb, nl, ValueRange{arith::AddIOp::create(nb, nl, acc[0], along)});
      });
  SmallVector<OpFoldResult> outDims;
  for (int64_t d = 0, src = 0; d < outRank; ++d) {
    if (d == *axis) {
      outDims.push_back(total.getResult(0));
      if (!newAxis)
        ++src;
      continue;
    }
    outDims.push_back(dims[src++]);
  }
  Value init = emptyTensor(b, loc, outDims, scalar);
  auto fill = scf::ForOp::create(
      b, loc, zero, length, one, ValueRange{zero, init},
      [&](OpBuilder &nb, Location nl, Value i, ValueRange acc) {
        Value e = seqAt(nb, nl, *seq,
                        arith::IndexCastOp::create(nb, nl, nb.getI64Type(), i),
                        elementType);
        SmallVector<OpFoldResult> offsets(outRank, nb.getIndexAttr(0));
        SmallVector<OpFoldResult> sizes;
        SmallVector<OpFoldResult> strides(outRank, nb.getIndexAttr(1));
        offsets[*axis] = acc[0];
        Value along = one;
        for (int64_t d = 0, src = 0; d < outRank; ++d) {
          if (d == *axis && newAxis) {
            sizes.push_back(nb.getIndexAttr(1));
            continue;
          }
          Value dim = tensor::DimOp::create(nb, nl, e, src++);
          if (d == *axis)
            along = dim;
          sizes.push_back(dim);
        }
        // Copied through a linalg.copy into the slot so that bufferization
        // writes in place.
        auto slotType =
            tensor::ExtractSliceOp::inferCanonicalRankReducedResultType(
                rank, cast<RankedTensorType>(acc[1].getType()), sizes);
        Value slot = tensor::ExtractSliceOp::create(nb, nl, slotType, acc[1],
                                                    offsets, sizes, strides);
        Value src = e;
        if (src.getType() != slotType)
          src = tensor::CastOp::create(nb, nl, slotType, src);
        Value copied = linalg::CopyOp::create(nb, nl, src, slot).getResult(0);
        Value next = tensor::InsertSliceOp::create(nb, nl, copied, acc[1],
                                                   offsets, sizes, strides);
        scf::YieldOp::create(
            nb, nl,
            ValueRange{arith::AddIOp::create(nb, nl, acc[0], along), next});
      });
  return SmallVector<Value>{fill.getResult(1)};
}

//===----------------------------------------------------------------------===//
// Optionals
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerOptional(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  FailureOr<Type> type = resultHandleType(op, 0);
  if (failed(type))
    return failure();
  auto optType = cast<OptionalType>(*type);
  Value input = op->getNumOperands() ? op->getOperand(0) : Value();
  if (isNone(input))
    return SmallVector<Value>{OptionalNoneOp::create(b, loc, optType)};
  if (isa<SequenceType>(input.getType()))
    return SmallVector<Value>{OptionalWrapOp::create(b, loc, optType, input)};
  // An optional tensor holds a one-element sequence.
  Type scalar = optType.getPayloadType();
  Value seq =
      SeqEmptyOp::create(b, loc, SequenceType::get(b.getContext(), scalar));
  FailureOr<Value> element = requireElement(op, seq, input);
  if (failed(element))
    return failure();
  seq = SeqInsertOp::create(b, loc, seq.getType(), seq, *element, Value());
  return SmallVector<Value>{OptionalWrapOp::create(b, loc, optType, seq)};
}

FailureOr<SmallVector<Value>> lowerOptionalHasElement(Operation *op,
                                                      OpBuilder &b) {
  Location loc = op->getLoc();
  Value input = op->getNumOperands() ? op->getOperand(0) : Value();
  Value has;
  if (isNone(input))
    has = arith::ConstantIntOp::create(b, loc, 0, 1);
  else if (isa<OptionalType>(input.getType()))
    has = OptionalHasOp::create(b, loc, b.getI1Type(), input);
  else
    has = arith::ConstantIntOp::create(b, loc, 1, 1);
  return SmallVector<Value>{scalarTensorOf(b, loc, has)};
}

FailureOr<SmallVector<Value>> lowerOptionalGetElement(Operation *op,
                                                      OpBuilder &b) {
  Location loc = op->getLoc();
  Value input = op->getOperand(0);
  auto optType = dyn_cast<OptionalType>(input.getType());
  if (!optType)
    return SmallVector<Value>{input}; // A tensor or sequence: itself.
  Type payload = optType.getPayloadType();
  if (auto seqType = dyn_cast<SequenceType>(payload))
    return SmallVector<Value>{OptionalUnwrapOp::create(b, loc, seqType, input)};
  Value seq = OptionalUnwrapOp::create(
      b, loc, SequenceType::get(b.getContext(), payload), input);
  FailureOr<RankedTensorType> type =
      elementTypeFor(op, op->getResult(0).getType(), payload);
  if (failed(type))
    return failure();
  return SmallVector<Value>{seqAt(b, loc, seq, i64Const(b, loc, 0), *type)};
}

} // namespace

void addSequenceLowerings(LoweringTable &t) {
  t["onnx.SequenceEmpty"] = lowerSequenceEmpty;
  t["onnx.SequenceConstruct"] = lowerSequenceConstruct;
  t["onnx.SequenceInsert"] = lowerSequenceInsert;
  t["onnx.SequenceErase"] = lowerSequenceErase;
  t["onnx.SequenceAt"] = lowerSequenceAt;
  t["onnx.SequenceLength"] = lowerSequenceLength;
  t["onnx.SequenceMap"] = lowerSequenceMap;
  t["onnx.SplitToSequence"] = lowerSplitToSequence;
  t["onnx.ConcatFromSequence"] = lowerConcatFromSequence;
  t["onnx.Optional"] = lowerOptional;
  t["onnx.OptionalHasElement"] = lowerOptionalHasElement;
  t["onnx.OptionalGetElement"] = lowerOptionalGetElement;
}

} // namespace onyx::conversion
