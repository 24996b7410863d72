//===- OnyxDialect.cpp - The onyx dialect ---------------------------------===//
#include "onyx/Dialect/Onyx/OnyxDialect.h"
#include "onyx/Dialect/Onyx/OnyxAttention.h"
#include "onyx/Dialect/Onyx/OnyxLayerNorm.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace onyx;

#include "onyx/Dialect/Onyx/OnyxOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "onyx/Dialect/Onyx/OnyxOpsTypes.cpp.inc"

void OnyxDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "onyx/Dialect/Onyx/OnyxOpsTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "onyx/Dialect/Onyx/OnyxOps.cpp.inc"
      >();
  // onyx.attention (OnyxAttention.cpp), onyx.layer_norm (OnyxLayerNorm.cpp).
  addOperations<AttentionOp, LayerNormOp>();
}

LogicalResult AssertOp::verify() {
  if (getArgs().size() > 4)
    return emitOpError("supports at most 4 message arguments");
  return success();
}

/// A check that holds by construction is no check: erase it.
LogicalResult AssertOp::canonicalize(AssertOp op, PatternRewriter &rewriter) {
  if (!matchPattern(op.getCondition(), m_One()))
    return failure();
  rewriter.eraseOp(op);
  return success();
}

static LogicalResult verifyDynamicSizes(Operation *op, Type type,
                                        ValueRange dynamicSizes) {
  auto memrefType = cast<MemRefType>(type);
  if (dynamicSizes.size() != memrefType.getNumDynamicDims())
    return op->emitOpError("expects ")
           << memrefType.getNumDynamicDims() << " dynamic sizes, got "
           << dynamicSizes.size();
  if (!memrefType.getLayout().isIdentity())
    return op->emitOpError("expects an identity layout");
  return success();
}

LogicalResult AllocOutputOp::verify() {
  return verifyDynamicSizes(*this, getType(), getDynamicSizes());
}

LogicalResult AllocTempOp::verify() {
  return verifyDynamicSizes(*this, getType(), getDynamicSizes());
}

LogicalResult ReadbackScalarOp::verify() {
  auto type = cast<MemRefType>(getMemref().getType());
  if (int64_t(getIndices().size()) != type.getRank())
    return emitOpError("needs ")
           << type.getRank() << " indices, got " << getIndices().size();
  if (getResult().getType() != type.getElementType())
    return emitOpError("result type must be the element type ")
           << type.getElementType();
  return success();
}

LogicalResult PlaceTempsOp::verify() {
  size_t n = getBytes().size();
  if (getOffsets().size() != n)
    return emitOpError("needs one offset result per temporary");
  if (getStarts().size() != n || getEnds().size() != n ||
      getGroups().size() != n || getStaticOffsets().size() != n)
    return emitOpError("starts, ends, groups and static_offsets need one "
                       "entry per temporary");
  for (size_t i = 0; i < n; ++i) {
    if (getStarts()[i] > getEnds()[i])
      return emitOpError("temporary ") << i << " ends before it starts";
    if (getGroups()[i] < -1)
      return emitOpError("temporary ") << i << " has an invalid group";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// onyx.weight bufferizes like a constant: a read-only buffer.
//===----------------------------------------------------------------------===//

/// A gathered weight's attributes: both or neither, whole [offset, length,
/// checksum] triples, every range of `rows` equal rows.
static LogicalResult verifyConcat(Operation *op, int64_t length,
                                  IntegerAttr rows, DenseI64ArrayAttr ranges) {
  if (!rows && !ranges)
    return success();
  if (!rows || !ranges)
    return op->emitOpError(
        "needs both concat_rows and concat_ranges, or neither");
  int64_t n = rows.getInt();
  ArrayRef<int64_t> r = ranges.asArrayRef();
  if (n <= 0)
    return op->emitOpError("concat_rows must be positive, not ") << n;
  if (r.empty() || r.size() % 3 != 0)
    return op->emitOpError(
        "concat_ranges must hold [offset, length, checksum] triples");
  for (size_t i = 0; i <= r.size(); i += 3) {
    int64_t bytes = i == 0 ? length : r[i - 2];
    if (i > 0 && r[i - 3] < 0)
      return op->emitOpError("a concat range has a negative offset");
    if (bytes < 0 || bytes % n != 0)
      return op->emitOpError("a concat range of ")
             << bytes << " bytes does not hold " << n << " equal rows";
  }
  return success();
}

LogicalResult WeightOp::verify() {
  return verifyConcat(*this, getLength(), getConcatRowsAttr(),
                      getConcatRangesAttr());
}

LogicalResult WeightBufferOp::verify() {
  return verifyConcat(*this, getLength(), getConcatRowsAttr(),
                      getConcatRangesAttr());
}

bool WeightOp::bufferizesToMemoryRead(OpOperand &,
                                      const bufferization::AnalysisState &) {
  return false;
}

bool WeightOp::bufferizesToMemoryWrite(OpOperand &,
                                       const bufferization::AnalysisState &) {
  return false;
}

bufferization::AliasingValueList
WeightOp::getAliasingValues(OpOperand &, const bufferization::AnalysisState &) {
  return {};
}

bool WeightOp::isWritable(Value, const bufferization::AnalysisState &) {
  return false;
}

LogicalResult WeightOp::bufferize(RewriterBase &rewriter,
                                  const bufferization::BufferizationOptions &,
                                  bufferization::BufferizationState &) {
  auto type = cast<RankedTensorType>(getType());
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  // The type the file holds, when the session converts it at load
  // (onnx-convert-precision).
  Attribute fileType = (*this)->getAttr("onyx.file_element_type");
  auto buffer = bufferization::replaceOpWithNewBufferizedOp<WeightBufferOp>(
      rewriter, *this, memrefType, getLocation(), getOffset(), getLength(),
      getChecksum(), getConcatRowsAttr(), getConcatRangesAttr());
  if (fileType)
    buffer->setAttr("onyx.file_element_type", fileType);
  return success();
}

//===----------------------------------------------------------------------===//
// Sequences (docs/sequences.md). seq_insert reads its element (a copy goes
// into the sequence); seq_at yields a read-only view of the element's
// storage, so a writer gets a copy, as with onyx.weight.
//===----------------------------------------------------------------------===//

static Type elementTypeOfShaped(Type type) {
  return cast<ShapedType>(type).getElementType();
}

LogicalResult SeqInsertOp::verify() {
  auto seqType = cast<SequenceType>(getSequence().getType());
  if (elementTypeOfShaped(getElement().getType()) != seqType.getElementType())
    return emitOpError("element type must be the sequence's ")
           << seqType.getElementType();
  return success();
}

LogicalResult SeqAtOp::verify() {
  auto seqType = cast<SequenceType>(getSequence().getType());
  if (elementTypeOfShaped(getResult().getType()) != seqType.getElementType())
    return emitOpError("result element type must be the sequence's ")
           << seqType.getElementType();
  return success();
}

bool SeqInsertOp::bufferizesToMemoryRead(OpOperand &,
                                         const bufferization::AnalysisState &) {
  return true;
}

bool SeqInsertOp::bufferizesToMemoryWrite(
    OpOperand &, const bufferization::AnalysisState &) {
  return false;
}

bufferization::AliasingValueList
SeqInsertOp::getAliasingValues(OpOperand &,
                               const bufferization::AnalysisState &) {
  return {};
}

LogicalResult
SeqInsertOp::bufferize(RewriterBase &rewriter,
                       const bufferization::BufferizationOptions &options,
                       bufferization::BufferizationState &state) {
  if (!isa<TensorType>(getElement().getType()))
    return success();
  FailureOr<Value> buffer =
      bufferization::getBuffer(rewriter, getElement(), options, state);
  if (failed(buffer))
    return failure();
  Value element = *buffer;
  // The runtime copies a dense row-major block: a strided view (a slice)
  // is made dense first.
  auto type = cast<MemRefType>(element.getType());
  if (!type.getLayout().isIdentity()) {
    auto dense = MemRefType::get(type.getShape(), type.getElementType());
    SmallVector<Value> dynSizes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        dynSizes.push_back(
            memref::DimOp::create(rewriter, getLoc(), element, d));
    Value copy = memref::AllocOp::create(rewriter, getLoc(), dense, dynSizes);
    memref::CopyOp::create(rewriter, getLoc(), element, copy);
    element = copy;
  }
  rewriter.modifyOpInPlace(*this, [&] { getElementMutable().assign(element); });
  return success();
}

bool SeqAtOp::bufferizesToMemoryRead(OpOperand &,
                                     const bufferization::AnalysisState &) {
  return false;
}

bool SeqAtOp::bufferizesToMemoryWrite(OpOperand &,
                                      const bufferization::AnalysisState &) {
  return false;
}

bufferization::AliasingValueList
SeqAtOp::getAliasingValues(OpOperand &, const bufferization::AnalysisState &) {
  return {};
}

bool SeqAtOp::isWritable(Value, const bufferization::AnalysisState &) {
  return false;
}

LogicalResult SeqAtOp::bufferize(RewriterBase &rewriter,
                                 const bufferization::BufferizationOptions &,
                                 bufferization::BufferizationState &) {
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!type)
    return success();
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  bufferization::replaceOpWithNewBufferizedOp<SeqAtOp>(
      rewriter, *this, memrefType, getSequence(), getPosition());
  return success();
}

#define GET_OP_CLASSES
#include "onyx/Dialect/Onyx/OnyxOps.cpp.inc"

int32_t onyx::onnxElementCode(Type type) {
  if (type.isF32())
    return 1;
  if (type.isF64())
    return 11;
  if (type.isF16())
    return 10;
  if (type.isBF16())
    return 16;
  if (isa<Float8E4M3FNType>(type))
    return 17;
  if (isa<Float8E4M3FNUZType>(type))
    return 18;
  if (isa<Float8E5M2Type>(type))
    return 19;
  if (isa<Float8E5M2FNUZType>(type))
    return 20;
  if (isa<Float4E2M1FNType>(type))
    return 23;
  if (isa<Float8E8M0FNUType>(type))
    return 24;
  // String tensors: one `const char *` per element, as a pointer-sized
  // integer (docs/runtime.md, "String tensors"; no ONNX type is index).
  if (type.isIndex())
    return 8;
  if (auto intType = dyn_cast<IntegerType>(type)) {
    bool isUnsigned = intType.isUnsigned();
    switch (intType.getWidth()) {
    case 1:
      return 9;
    case 2:
      return isUnsigned ? 25 : 26;
    case 4:
      return isUnsigned ? 21 : 22;
    case 8:
      return isUnsigned ? 2 : 3;
    case 16:
      return isUnsigned ? 4 : 5;
    case 32:
      return isUnsigned ? 12 : 6;
    case 64:
      return isUnsigned ? 13 : 7;
    default:
      return 0;
    }
  }
  return 0;
}
