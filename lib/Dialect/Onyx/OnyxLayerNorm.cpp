//===- OnyxLayerNorm.cpp - The fused layer normalization op ---------------===//
//
// Verifier, memory effects and bufferization of onyx.layer_norm. On buffers
// the op reads input, scale and bias and overwrites init; a strided view
// among them is copied into a dense buffer first (FusedOps.h), so that
// the kernel addresses each as a row-major block.
//
//===----------------------------------------------------------------------===//
#include "onyx/Dialect/Onyx/OnyxLayerNorm.h"
#include "FusedOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace onyx;

static bool isNormFloat(Type t) { return t.isF32() || t.isF16() || t.isBF16(); }

LogicalResult LayerNormOp::verify() {
  auto shaped = [](Value v) { return cast<ShapedType>(v.getType()); };
  ShapedType x = shaped(getInput()), scale = shaped(getScale()),
             out = shaped(getInit());
  if (!x.hasRank() || !scale.hasRank() || !out.hasRank())
    return emitOpError("operands must be ranked");
  int64_t rank = x.getRank();
  if (rank < 1 || getAxis() < 0 || getAxis() >= rank)
    return emitOpError("axis must be in [0, rank) of an input of rank >= 1");
  if (!isNormFloat(x.getElementType()) || !isNormFloat(out.getElementType()) ||
      !isNormFloat(scale.getElementType()))
    return emitOpError("input, scale and init must be f32, f16 or bf16");
  if (out.getRank() != rank)
    return emitOpError("init must have the input's rank");
  for (int64_t d = 0; d < rank; ++d)
    if (!ShapedType::isDynamic(x.getDimSize(d)) &&
        !ShapedType::isDynamic(out.getDimSize(d)) &&
        x.getDimSize(d) != out.getDimSize(d))
      return emitOpError("init dim ") << d << " differs from the input's";
  SmallVector<ShapedType> params = {scale};
  if (getBias())
    params.push_back(shaped(getBias()));
  for (ShapedType p : params) {
    if (!p.hasRank() || p.getElementType() != scale.getElementType())
      return emitOpError("scale and bias must be ranked with one element "
                         "type");
    // The kernel reads them as dense [n] rows: their dims are the input's
    // from axis on, all static.
    if (p.getRank() != rank - getAxis() || !p.hasStaticShape())
      return emitOpError("scale and bias must have the input's dims from "
                         "axis on, statically");
    for (int64_t d = 0; d < p.getRank(); ++d) {
      int64_t xd = x.getDimSize(getAxis() + d);
      if (!ShapedType::isDynamic(xd) && xd != p.getDimSize(d))
        return emitOpError("scale / bias dim ")
               << d << " is " << p.getDimSize(d) << " but the input's is "
               << xd;
    }
  }
  return verifyDestination(getOperation(), getInit(), getResult());
}

void LayerNormOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  readsOperandsWritesInit(getOperation(), getInitMutable(), effects);
}

bool LayerNormOp::bufferizesToMemoryRead(OpOperand &operand,
                                         const bufferization::AnalysisState &) {
  return &operand != &getInitMutable();
}

bool LayerNormOp::bufferizesToMemoryWrite(
    OpOperand &operand, const bufferization::AnalysisState &) {
  return &operand == &getInitMutable();
}

bufferization::AliasingValueList
LayerNormOp::getAliasingValues(OpOperand &operand,
                               const bufferization::AnalysisState &) {
  return destinationAliasing(operand, getInitMutable(), getResult());
}

LogicalResult
LayerNormOp::bufferize(RewriterBase &rewriter,
                       const bufferization::BufferizationOptions &options,
                       bufferization::BufferizationState &state) {
  if (!getResult())
    return success();
  Location loc = getLoc();
  FailureOr<Value> x = denseBuffer(rewriter, loc, getInput(), options, state);
  FailureOr<Value> scale =
      denseBuffer(rewriter, loc, getScale(), options, state);
  FailureOr<Value> bias = Value();
  if (getBias())
    bias = denseBuffer(rewriter, loc, getBias(), options, state);
  FailureOr<Value> init =
      bufferization::getBuffer(rewriter, getInit(), options, state);
  if (failed(x) || failed(scale) || failed(bias) || failed(init))
    return failure();
  if (!cast<MemRefType>(init->getType()).getLayout().isIdentity())
    return emitOpError("needs a dense destination buffer");
  LayerNormOp::create(rewriter, loc, Type(), *x, *scale, *bias, *init,
                      getEpsilonAttr(), getAxisAttr());
  bufferization::replaceOpWithBufferizedValues(rewriter, getOperation(), *init);
  return success();
}

#define GET_OP_CLASSES
#include "onyx/Dialect/Onyx/OnyxLayerNorm.cpp.inc"
