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
// f16 / bf16 is read in its half type (the same values), and the narrowing
// Casts (to one f16 or bf16 type) among the users of the result are
// written by the op itself, rounded once from the same f32 value (the
// same bits as the Cast): as its only output when the result has no other
// users (onnx.Shape users read only dims, they move to the op's output),
// as a second output (`outs2`) otherwise.
//
// The residual Add before a transformer's LayerNorm becomes part of the
// op too: an input `Add(a, c)` whose operands both have the Add's dims
// (DimAnalysis proves it: no broadcast) is read as x = a and
// residual = c (each through a widening Cast), the sum rounded to the
// Add's type; when the graph uses the sum elsewhere (GPT-2's pre-LN
// residual stream), the op writes it (`sum`) and those users read that.
// An op that does not qualify stays as it is.
//
//===----------------------------------------------------------------------===//

#include "onyx/Analysis/DimAnalysis.h"
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

/// The users of the f32 value `y` split into the narrowing Casts to one
/// f16 / bf16 type (`casts`), onnx.Shape ops (`shapes`) and the others.
struct YUsers {
  SmallVector<onnx::ONNXCastOp> casts;
  SmallVector<onnx::ONNXShapeOp> shapes;
  bool others = false;
};

YUsers splitUsers(Value y) {
  YUsers users;
  if (!elementTypeOf(y).isF32()) {
    users.others = !y.use_empty();
    return users;
  }
  Type to;
  for (Operation *user : y.getUsers()) {
    if (auto shape = dyn_cast<onnx::ONNXShapeOp>(user)) {
      users.shapes.push_back(shape);
      continue;
    }
    auto cast = dyn_cast<onnx::ONNXCastOp>(user);
    Type t = cast && isa<RankedTensorType>(cast.getOutput().getType())
                 ? elementTypeOf(cast.getOutput())
                 : Type();
    if (!t || !(t.isF16() || t.isBF16()) || (to && t != to)) {
      users.others = true;
      continue;
    }
    to = t;
    users.casts.push_back(cast);
  }
  return users;
}

/// The residual Add read by the op: x = `input`, residual = `residual`
/// (each through a widening Cast), the sum of the Add's type.
struct Residual {
  onnx::ONNXAddOp add;
  Value input, residual;
};

/// The Add `x` is, when both its operands have x's dims (proven by
/// `dims`: no broadcast) and each is of x's element type (possibly a
/// widening Cast of an f16 / bf16 value to x's f32).
onnx::ONNXAddOp matchResidualAdd(Value x, const DimAnalysis &dims) {
  auto add = x.getDefiningOp<onnx::ONNXAddOp>();
  if (!add)
    return nullptr;
  for (Value operand : {add.getA(), add.getB()})
    if (!isa<RankedTensorType>(operand.getType()) ||
        elementTypeOf(operand) != elementTypeOf(x) ||
        !dims.sameShape(operand, x))
      return nullptr;
  return add;
}

/// The operands of a matched Add as the op reads them, each through its
/// widening Cast; x's type first (the kernel's template type), the other
/// read in whatever type it has. Taken when the op is formed, after the
/// LayerNorms before it may have replaced an operand with their sum.
Residual residualOf(onnx::ONNXAddOp add, Type xElement) {
  Residual r{add, withoutWidening(add.getA()), withoutWidening(add.getB())};
  if (elementTypeOf(r.input) != xElement)
    std::swap(r.input, r.residual);
  // Two widened halves: x keeps its Cast, so that the input's type is the
  // sum's (the op rounds the sum to the input's type when it writes none).
  if (elementTypeOf(r.input) != xElement)
    r = Residual{add, add.getA(), withoutWidening(add.getB())};
  return r;
}

/// Erases `op` when it has no uses left (a Cast or Add read through).
void eraseIfDead(Operation *op) {
  if (op && op->use_empty())
    op->erase();
}

/// Replaces `ln` with an onyx.layer_norm when it qualifies.
void form(onnx::ONNXLayerNormalizationOp ln, onnx::ONNXAddOp residualAdd) {
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

  // The op goes right after a residual Add, so its weights must be defined
  // before the Add (initializers are; a computed Scale may not be).
  auto before = [&](Value v) {
    if (!v)
      return true;
    Operation *def = v.getDefiningOp();
    return !def || (def->getBlock() == residualAdd->getBlock() &&
                    def->isBeforeInBlock(residualAdd));
  };
  std::optional<Residual> residual;
  if (residualAdd && residualAdd->getBlock() == ln->getBlock() &&
      before(ln.getScale()) && before(bias))
    residual = residualOf(residualAdd, xType.getElementType());
  Value x = residual ? residual->input : withoutWidening(ln.getX());
  // With a residual, right after the Add: the sum's other users (Shape ops
  // among them) may come before the LayerNormalization.
  OpBuilder b(ln);
  if (residual)
    b.setInsertionPointAfter(residual->add);
  Location loc = ln.getLoc();
  // The destinations have the input's dims (x has them: the Add does not
  // broadcast).
  Value dimSource = x;
  auto empty = [&](Type element) -> Value {
    auto type = RankedTensorType::get(yType.getShape(), element);
    SmallVector<Value> dynSizes;
    for (int64_t d = 0; d < rank; ++d)
      if (type.isDynamicDim(d))
        dynSizes.push_back(tensor::DimOp::create(b, loc, dimSource, d));
    return tensor::EmptyOp::create(b, loc, type, dynSizes);
  };

  // The result's type: the Casts' when they are the only value users, with
  // a second output when there are others too.
  YUsers users = splitUsers(ln.getY());
  Type yElement = yType.getElementType();
  Type halfType = users.casts.empty() ? Type() : elementTypeOf(users.casts[0]);
  bool onlyCasts = halfType && !users.others;
  Value init = empty(onlyCasts ? halfType : yElement);
  Value init2 = halfType && !onlyCasts ? empty(halfType) : Value();
  // The sum when the graph uses it beyond this LayerNormalization.
  bool sumUsed = residual && !residual->add.getC().hasOneUse();
  Value sumInit = sumUsed ? empty(xType.getElementType()) : Value();

  SmallVector<Type> resultTypes = {init.getType()};
  if (init2)
    resultTypes.push_back(init2.getType());
  if (sumInit)
    resultTypes.push_back(sumInit.getType());
  auto fused = LayerNormOp::create(
      b, loc, resultTypes, x, residual ? residual->residual : Value(),
      ln.getScale(), bias, init, init2, sumInit,
      b.getF64FloatAttr(ln.getEpsilon().convertToDouble()),
      b.getI64IntegerAttr(axis));
  Value y = fused.getResult(0);
  Value half = onlyCasts ? y : init2 ? fused.getResult(1) : Value();

  for (onnx::ONNXCastOp cast : users.casts) {
    Value result = half;
    if (result.getType() != cast.getOutput().getType())
      result =
          tensor::CastOp::create(b, loc, cast.getOutput().getType(), result);
    cast.getOutput().replaceAllUsesWith(result);
    cast.erase();
  }
  // Shape reads only dims: any of the op's outputs has them.
  for (onnx::ONNXShapeOp shape : users.shapes)
    shape->replaceUsesOfWith(ln.getY(), y);
  if (!onlyCasts)
    ln.getY().replaceAllUsesWith(y);
  if (sumInit) {
    Value sum = fused.getResults().back();
    Value added = residual->add.getC();
    if (sum.getType() != added.getType())
      sum = tensor::CastOp::create(b, loc, added.getType(), sum);
    added.replaceUsesWithIf(sum, [&](OpOperand &use) {
      return use.getOwner() != ln.getOperation();
    });
  }

  // What the op reads through dies with its last user.
  Operation *widening =
      x != ln.getX() && !residual ? ln.getX().getDefiningOp() : nullptr;
  ln.erase();
  eraseIfDead(widening);
  if (residual) {
    Value a = residual->add.getA(), c = residual->add.getB();
    residual->add.erase();
    eraseIfDead(a.getDefiningOp<onnx::ONNXCastOp>());
    if (c != a)
      eraseIfDead(c.getDefiningOp<onnx::ONNXCastOp>());
  }
}

struct CUDAFormLayerNormPass
    : public onyx::impl::CUDAFormLayerNormBase<CUDAFormLayerNormPass> {
  void runOnOperation() override {
    SmallVector<onnx::ONNXLayerNormalizationOp> ops;
    getOperation().walk(
        [&](onnx::ONNXLayerNormalizationOp op) { ops.push_back(op); });
    if (ops.empty())
      return;
    // Which residual Adds do not broadcast: proven on the graph as it is,
    // before any op is replaced (forming one op changes the values the
    // next one reads).
    DimAnalysis dims(getOperation());
    dims.run();
    SmallVector<onnx::ONNXAddOp> adds;
    DenseSet<Operation *> claimed; // an Add read by two LayerNorms: the first
    for (onnx::ONNXLayerNormalizationOp op : ops) {
      onnx::ONNXAddOp add = matchResidualAdd(op.getX(), dims);
      if (add && !claimed.insert(add).second)
        add = nullptr;
      adds.push_back(add);
    }
    for (auto [op, add] : llvm::zip(ops, adds))
      form(op, add);
  }
};

} // namespace
