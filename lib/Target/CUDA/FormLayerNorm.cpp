//===- FormLayerNorm.cpp - LayerNormalization as one onyx.layer_norm ------===//
//
// On the onnx dialect, before the ONNX lowering (the CUDA pipeline only).
// The lowering writes LayerNormalization as three generated kernels (the
// mean, the variance, the normalization), each reading the whole input;
// one onyx.layer_norm is one runtime kernel that reads it once
// (runtime/src/cuda/layer_norm.cu). Each onnx.LayerNormalization with
//
//   - an f32, f16 or bf16 input, statistics in f32 (stash_type 1),
//   - Scale (and B) of exactly the input's dims from axis on, all static
//     (the usual [hidden] weights; anything that broadcasts stays with the
//     lowering and its checks),
//   - no use of the Mean and InvStdDev outputs,
//
// becomes one. It also absorbs the casts that --precision=fp16|bf16 puts
// around an f32 LayerNormalization: an input that is a widening Cast from
// f16 / bf16 is read in its half type (the same values), and when every
// user of the result is one Cast to f16 or bf16, the op writes that type
// (rounded once from the same f32 value: the same bits as the Cast). An op
// that does not qualify stays as it is.
//
//===----------------------------------------------------------------------===//

#include "onyx/Dialect/ONNX/ONNXDialect.h"
#include "onyx/Dialect/Onyx/OnyxLayerNorm.h"
#include "onyx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace onyx {
#define GEN_PASS_DEF_CUDAFORMLAYERNORM
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

namespace {

bool isNormFloat(Type t) { return t.isF32() || t.isF16() || t.isBF16(); }

Type elementTypeOf(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}

bool isAbsentOrUnused(Value v) {
  return !v || isa<NoneType>(v.getType()) || v.use_empty();
}

/// `param` has exactly `x`'s dims from `axis` on, statically.
bool matchesTrailingDims(Value param, RankedTensorType x, int64_t axis) {
  auto type = dyn_cast<RankedTensorType>(param.getType());
  if (!type || !type.hasStaticShape() || type.getRank() != x.getRank() - axis)
    return false;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t xd = x.getDimSize(axis + d);
    if (!ShapedType::isDynamic(xd) && xd != type.getDimSize(d))
      return false;
  }
  return true;
}

/// The f16 / bf16 value a widening Cast to f32 reads, or `x`.
Value withoutWidening(Value x) {
  auto cast = x.getDefiningOp<onnx::ONNXCastOp>();
  if (!cast || !elementTypeOf(x).isF32())
    return x;
  Type from = elementTypeOf(cast.getInput());
  if (!(from.isF16() || from.isBF16()) ||
      !isa<RankedTensorType>(cast.getInput().getType()))
    return x;
  return cast.getInput();
}

/// The narrowing Casts (to one f16 / bf16 type) that are all of `y`'s users,
/// or none.
SmallVector<onnx::ONNXCastOp> narrowingUsers(Value y) {
  SmallVector<onnx::ONNXCastOp> casts;
  if (!elementTypeOf(y).isF32() || y.use_empty())
    return {};
  Type to;
  for (Operation *user : y.getUsers()) {
    auto cast = dyn_cast<onnx::ONNXCastOp>(user);
    if (!cast || !isa<RankedTensorType>(cast.getOutput().getType()))
      return {};
    Type t = elementTypeOf(cast.getOutput());
    if (!(t.isF16() || t.isBF16()) || (to && t != to))
      return {};
    to = t;
    casts.push_back(cast);
  }
  return casts;
}

/// Replaces `ln` with an onyx.layer_norm when it qualifies.
void form(onnx::ONNXLayerNormalizationOp ln) {
  auto xType = dyn_cast<RankedTensorType>(ln.getX().getType());
  auto yType = dyn_cast<RankedTensorType>(ln.getY().getType());
  if (!xType || !yType || xType.getRank() < 1 ||
      !isNormFloat(xType.getElementType()) || ln.getStashType() != 1 ||
      !isAbsentOrUnused(ln.getMean()) || !isAbsentOrUnused(ln.getInvStdDev()))
    return;
  int64_t rank = xType.getRank(), axis = ln.getAxis();
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return; // the lowering reports it
  Value bias = isa<NoneType>(ln.getB().getType()) ? Value() : ln.getB();
  Type paramType = elementTypeOf(ln.getScale());
  if (!isNormFloat(paramType) || paramType != xType.getElementType() ||
      !matchesTrailingDims(ln.getScale(), xType, axis) ||
      (bias && (elementTypeOf(bias) != paramType ||
                !matchesTrailingDims(bias, xType, axis))))
    return;

  OpBuilder b(ln);
  Location loc = ln.getLoc();
  Value x = withoutWidening(ln.getX());
  SmallVector<onnx::ONNXCastOp> casts = narrowingUsers(ln.getY());
  Type outElement =
      casts.empty() ? yType.getElementType() : elementTypeOf(casts[0]);
  auto outType = RankedTensorType::get(yType.getShape(), outElement);
  SmallVector<Value> dynSizes;
  for (int64_t d = 0; d < rank; ++d)
    if (outType.isDynamicDim(d))
      dynSizes.push_back(tensor::DimOp::create(b, loc, x, d));
  Value init = tensor::EmptyOp::create(b, loc, outType, dynSizes);
  auto fused =
      LayerNormOp::create(b, loc, outType, x, ln.getScale(), bias, init,
                          b.getF64FloatAttr(ln.getEpsilon().convertToDouble()),
                          b.getI64IntegerAttr(axis));
  if (casts.empty()) {
    ln.getY().replaceAllUsesWith(fused.getResult());
  } else {
    for (onnx::ONNXCastOp cast : casts) {
      Value result = fused.getResult();
      if (result.getType() != cast.getOutput().getType())
        result =
            tensor::CastOp::create(b, loc, cast.getOutput().getType(), result);
      cast.getOutput().replaceAllUsesWith(result);
      cast.erase();
    }
  }
  // The widening Cast read through dies with its last user.
  Operation *widening = x != ln.getX() ? ln.getX().getDefiningOp() : nullptr;
  ln.erase();
  if (widening && widening->use_empty())
    widening->erase();
}

struct CUDAFormLayerNormPass
    : public onyx::impl::CUDAFormLayerNormBase<CUDAFormLayerNormPass> {
  void runOnOperation() override {
    SmallVector<onnx::ONNXLayerNormalizationOp> ops;
    getOperation().walk(
        [&](onnx::ONNXLayerNormalizationOp op) { ops.push_back(op); });
    for (onnx::ONNXLayerNormalizationOp op : ops)
      form(op);
  }
};

} // namespace
