//===- OnyxLayerNorm.cpp - The fused layer normalization op ---------------===//
//
// Verifier, memory effects and bufferization of onyx.layer_norm. On buffers
// the op reads input, residual, scale and bias and overwrites init, init2
// and sum (its destinations); a strided view among the inputs is copied
// into a dense buffer first (FusedOps.h), so that the kernel addresses
// each as a row-major block.
//
//===----------------------------------------------------------------------===//
#include "onyx/Dialect/Onyx/OnyxLayerNorm.h"
#include "FusedOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace onyx;

static bool isNormFloat(Type t) { return t.isF32() || t.isF16() || t.isBF16(); }

SmallVector<OpOperand *> LayerNormOp::getDestinations() {
  SmallVector<OpOperand *> destinations = {&getInitMutable()};
  if (getInit2())
    destinations.push_back(&getInit2Mutable()[0]);
  if (getSum())
    destinations.push_back(&getSumMutable()[0]);
  return destinations;
}

/// `what` has the input's rank and (where both are static) dims.
static LogicalResult verifyLikeInput(LayerNormOp op, ShapedType x,
                                     ShapedType other, StringRef what) {
  if (!other.hasRank() || other.getRank() != x.getRank())
    return op.emitOpError() << what << " must have the input's rank";
  for (int64_t d = 0; d < x.getRank(); ++d)
    if (!ShapedType::isDynamic(x.getDimSize(d)) &&
        !ShapedType::isDynamic(other.getDimSize(d)) &&
        x.getDimSize(d) != other.getDimSize(d))
      return op.emitOpError()
             << what << " dim " << d << " differs from the input's";
  if (!isNormFloat(other.getElementType()))
    return op.emitOpError() << what << " must be f32, f16 or bf16";
  return success();
}

LogicalResult LayerNormOp::verify() {
  auto shaped = [](Value v) { return cast<ShapedType>(v.getType()); };
  ShapedType x = shaped(getInput()), scale = shaped(getScale());
  if (!x.hasRank() || !scale.hasRank())
    return emitOpError("operands must be ranked");
  int64_t rank = x.getRank();
  if (rank < 1 || getAxis() < 0 || getAxis() >= rank)
    return emitOpError("axis must be in [0, rank) of an input of rank >= 1");
  if (!isNormFloat(x.getElementType()) || !isNormFloat(scale.getElementType()))
    return emitOpError("input and scale must be f32, f16 or bf16");
  if (getResidual() &&
      failed(verifyLikeInput(*this, x, shaped(getResidual()), "residual")))
    return failure();
  if (failed(verifyLikeInput(*this, x, shaped(getInit()), "init")) ||
      (getInit2() &&
       failed(verifyLikeInput(*this, x, shaped(getInit2()), "init2"))) ||
      (getSum() && failed(verifyLikeInput(*this, x, shaped(getSum()), "sum"))))
    return failure();
  if (getSum() && !getResidual())
    return emitOpError("a sum destination needs a residual");
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
  return verifyDestinations(getOperation(), getDestinations());
}

static bool isDestination(LayerNormOp op, OpOperand &operand) {
  return llvm::is_contained(op.getDestinations(), &operand);
}

void LayerNormOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  readsOperandsWritesDestinations(getOperation(), getDestinations(), effects);
}

bool LayerNormOp::bufferizesToMemoryRead(OpOperand &operand,
                                         const bufferization::AnalysisState &) {
  return !isDestination(*this, operand);
}

bool LayerNormOp::bufferizesToMemoryWrite(
    OpOperand &operand, const bufferization::AnalysisState &) {
  return isDestination(*this, operand);
}

/// A destination may be its row's x or residual itself (in place): the
/// kernel reads a row's elements before it writes any of that row's, and
/// each element it writes is never read again (layer_norm.cu; the overlap
/// rules of runtime/src/cuda/LayerNormLaunch.h). Scale and bias, read by
/// every row, are not.
bool LayerNormOp::bufferizesToElementwiseAccess(
    const bufferization::AnalysisState &, ArrayRef<OpOperand *> opOperands) {
  return llvm::none_of(opOperands, [&](OpOperand *operand) {
    return operand == &getScaleMutable() ||
           (getBias() && operand == &getBiasMutable()[0]);
  });
}

bufferization::AliasingValueList
LayerNormOp::getAliasingValues(OpOperand &operand,
                               const bufferization::AnalysisState &) {
  return destinationAliasing(getOperation(), operand, getDestinations());
}

LogicalResult
LayerNormOp::bufferize(RewriterBase &rewriter,
                       const bufferization::BufferizationOptions &options,
                       bufferization::BufferizationState &state) {
  if (getResults().empty())
    return success();
  Location loc = getLoc();
  auto dense = [&](Value v) -> FailureOr<Value> {
    if (!v)
      return Value();
    return denseBuffer(rewriter, loc, v, options, state);
  };
  FailureOr<Value> x = dense(getInput()), residual = dense(getResidual()),
                   scale = dense(getScale()), bias = dense(getBias());
  if (failed(x) || failed(residual) || failed(scale) || failed(bias))
    return failure();
  SmallVector<Value> buffers;
  for (OpOperand *d : getDestinations()) {
    FailureOr<Value> buffer =
        bufferization::getBuffer(rewriter, d->get(), options, state);
    if (failed(buffer))
      return failure();
    if (!cast<MemRefType>(buffer->getType()).getLayout().isIdentity())
      return emitOpError("needs dense destination buffers");
    buffers.push_back(*buffer);
  }
  Value init2 = getInit2() ? buffers[1] : Value();
  Value sum = getSum() ? buffers.back() : Value();
  LayerNormOp::create(rewriter, loc, TypeRange(), *x, *residual, *scale, *bias,
                      buffers[0], init2, sum, getEpsilonAttr(), getAxisAttr());
  bufferization::replaceOpWithBufferizedValues(rewriter, getOperation(),
                                               buffers);
  return success();
}

#define GET_OP_CLASSES
#include "onyx/Dialect/Onyx/OnyxLayerNorm.cpp.inc"
