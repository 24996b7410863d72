//===- OnyxAttention.cpp - The fused attention op -------------------------===//
//
// Verifier, memory effects and bufferization of onyx.attention. On buffers
// the op reads query, key, value and mask and overwrites init; a strided
// view among its operands is copied into a dense buffer first, so that a
// backend may address every operand as a row-major block.
//
//===----------------------------------------------------------------------===//
#include "onyx/Dialect/Onyx/OnyxAttention.h"
#include "FusedOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace onyx;

static bool isAttentionFloat(Type t) {
  return t.isF32() || t.isF16() || t.isBF16();
}

/// `dims` is a permutation of [0, 4) (allowMissing: distinct entries in
/// [-1, rank), -1 for a dim the operand lacks).
static bool validDims(ArrayRef<int64_t> dims, int64_t rank, bool allowMissing) {
  if (dims.size() != 4)
    return false;
  llvm::SmallBitVector seen(rank);
  for (int64_t d : dims) {
    if (d == -1 && allowMissing)
      continue;
    if (d < 0 || d >= rank || seen.test(d))
      return false;
    seen.set(d);
  }
  return allowMissing || seen.all();
}

LogicalResult AttentionOp::verify() {
  auto shaped = [](Value v) { return cast<ShapedType>(v.getType()); };
  ShapedType q = shaped(getQuery()), k = shaped(getKey()),
             v = shaped(getValue()), out = shaped(getInit());
  for (ShapedType t : {q, k, v, out})
    if (!t.hasRank() || t.getRank() != 4)
      return emitOpError("query, key, value and init must be rank 4");
  Type element = q.getElementType();
  if (!isAttentionFloat(element) || k.getElementType() != element ||
      v.getElementType() != element || out.getElementType() != element)
    return emitOpError("query, key, value and init must have one element "
                       "type, f32, f16 or bf16");
  if (!validDims(getQueryDims(), 4, false) ||
      !validDims(getKeyDims(), 4, false) ||
      !validDims(getValueDims(), 4, false))
    return emitOpError("query_dims, key_dims and value_dims must be "
                       "permutations of [0, 4)");
  if (getOutDims() && !validDims(*getOutDims(), 4, false))
    return emitOpError("out_dims must be a permutation of [0, 4)");
  if (Value mask = getMask()) {
    ShapedType m = shaped(mask);
    if (!m.hasRank() || m.getRank() < 1 || m.getRank() > 4 ||
        !validDims(getMaskDims(), m.getRank(), true))
      return emitOpError("mask must have rank 1 to 4 with mask_dims naming "
                         "distinct mask dims (-1: none)");
    llvm::SmallBitVector used(m.getRank());
    for (int64_t d : getMaskDims())
      if (d >= 0)
        used.set(d);
    for (int64_t d = 0; d < m.getRank(); ++d)
      if (!used.test(d) && m.getDimSize(d) != 1)
        return emitOpError("a mask dim mask_dims does not name must have "
                           "the static extent 1");
    if (getMaskFill()) {
      if (!m.getElementType().isInteger(1))
        return emitOpError("a mask with mask_fill must be i1");
    } else if (m.getElementType() != element && !m.getElementType().isF32()) {
      return emitOpError("an additive mask must be f32 or the operands' "
                         "element type");
    }
  } else if (getMaskFill() || getMaskFillWhereTrue()) {
    return emitOpError("mask_fill needs a mask");
  } else if (getMaskDims().size() != 4) {
    return emitOpError("mask_dims must have 4 entries");
  }
  if (getCausalShift() && (!getMask() || !getMaskFill() ||
                           getMaskFillWhereTrue() || getMaskDims().size() < 4 ||
                           getMaskDims()[2] < 0 || getMaskDims()[3] < 0))
    return emitOpError("causal_shift needs an i1 mask with mask_fill (fill "
                       "where false) that has a query and a key dim");
  if (getKvGroup() < 1)
    return emitOpError("kv_group must be at least 1");
  if (auto offsets = getHeadOffsets()) {
    if (offsets->size() != 3 ||
        llvm::any_of(*offsets, [](int64_t o) { return o < 0; }))
      return emitOpError("head_offsets must be 3 non-negative entries "
                         "(query, key, value)");
    // Where the head extents are static, the heads read must be inside.
    ShapedType operands[] = {q, k, v};
    ArrayRef<int64_t> dims[] = {getQueryDims(), getKeyDims(), getValueDims()};
    int64_t heads = out.getDimSize(getOutDimsOrIdentity()[1]);
    for (int i = 0; i < 3; ++i) {
      int64_t extent = operands[i].getDimSize(dims[i][1]);
      int64_t used = i == 0 || ShapedType::isDynamic(heads)
                         ? heads
                         : (heads + getKvGroup() - 1) / getKvGroup();
      if ((*offsets)[i] > 0 && !ShapedType::isDynamic(extent) &&
          !ShapedType::isDynamic(used) && (*offsets)[i] + used > extent)
        return emitOpError("head_offsets[")
               << i << "] + the heads read exceed the operand's " << extent
               << " heads";
    }
  }
  return verifyDestinations(getOperation(), {&getInitMutable()});
}

void AttentionOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  readsOperandsWritesDestinations(getOperation(), {&getInitMutable()}, effects);
}

bool AttentionOp::bufferizesToMemoryRead(OpOperand &operand,
                                         const bufferization::AnalysisState &) {
  return &operand != &getInitMutable();
}

bool AttentionOp::bufferizesToMemoryWrite(
    OpOperand &operand, const bufferization::AnalysisState &) {
  return &operand == &getInitMutable();
}

bufferization::AliasingValueList
AttentionOp::getAliasingValues(OpOperand &operand,
                               const bufferization::AnalysisState &) {
  return destinationAliasing(getOperation(), operand, {&getInitMutable()});
}

LogicalResult
AttentionOp::bufferize(RewriterBase &rewriter,
                       const bufferization::BufferizationOptions &options,
                       bufferization::BufferizationState &state) {
  if (!getResult())
    return success();
  Location loc = getLoc();
  FailureOr<Value> q = denseBuffer(rewriter, loc, getQuery(), options, state);
  FailureOr<Value> k = denseBuffer(rewriter, loc, getKey(), options, state);
  FailureOr<Value> v = denseBuffer(rewriter, loc, getValue(), options, state);
  FailureOr<Value> mask = Value();
  if (getMask())
    mask = denseBuffer(rewriter, loc, getMask(), options, state);
  FailureOr<Value> init =
      bufferization::getBuffer(rewriter, getInit(), options, state);
  if (failed(q) || failed(k) || failed(v) || failed(mask) || failed(init))
    return failure();
  // The destination must be dense too: the result is written in place.
  if (!cast<MemRefType>(init->getType()).getLayout().isIdentity())
    return emitOpError("needs a dense destination buffer");
  AttentionOp::create(rewriter, loc, Type(), *q, *k, *v, *mask, *init,
                      getScaleAttr(), getQueryDimsAttr(), getKeyDimsAttr(),
                      getValueDimsAttr(), getMaskDimsAttr(), getKvGroupAttr(),
                      getMaskFillAttr(), getMaskFillWhereTrueAttr(),
                      getOutDimsAttr(), getHeadOffsetsAttr(),
                      getCausalShiftAttr());
  bufferization::replaceOpWithBufferizedValues(rewriter, getOperation(), *init);
  return success();
}

#define GET_OP_CLASSES
#include "onyx/Dialect/Onyx/OnyxAttention.cpp.inc"
