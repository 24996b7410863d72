//===- ResidualAccumulate.cpp - A residual Add as a GEMM's accumulation ---===//
//
// On tensors, after elementwise fusion and in-place elementwise results
// (the CUDA pipeline, with onyx-cuda-form-layer-norm). An onyx.layer_norm
// that reads a residual Add of the stream `s` and a projection (a GEMM whose
// destination is a zero fill, then at most one Add of a bias written in
// place over the GEMM's result) gets the Add done by the GEMM: the GEMM
// accumulates onto `s` instead of the zero fill, the bias Add stays in place
// over that, and the LayerNorm reads the sum alone:
//
//   %f = linalg.fill 0 -> %e
//   %g = GEMM ins(%a, %w) outs(%f)
//   %r = bias Add ins(%b, %g) outs(%g)
//   %n = onyx.layer_norm x(%s) residual(%r) ... outs(%r)
// ->
//   %g' = GEMM ins(%a, %w) outs(%s)
//   %r' = bias Add ins(%b, %g') outs(%g')
//   %n = onyx.layer_norm x(%r') ... outs(%r')
//
// `s` dies at the GEMM (every other use of it comes before), so
// bufferization writes the GEMM's result over `s` in place, and
// onyx-cuda-lower-library-calls makes GEMM + bias one cuBLASLt call with
// beta = 1 and the bias epilogue. The buffer the GEMM used to write while
// `s` was still live is gone: BERT-base's feed-forward block holds the
// stream and its hidden activation at the peak, not a third [rows, hidden]
// buffer (docs/memory-planning.md). With a `sum` destination (GPT-2's
// pre-LN stream: the Add's result is read later too) the sum's readers read
// %r' and the destination goes; the LayerNorm then writes a buffer of its
// own, since %r' must survive it.
//
// Rounding: the sum is rounded once, from the GEMM's f32 accumulator (C, the
// product and the bias added there), where before the projection, the bias
// Add and the residual Add each rounded to the element type.
//
// Conditions: the GEMM is a multiply-accumulate linalg op with two inputs
// and one init (onyx::matchContractionGroups), the init a zero linalg.fill
// used only there; the bias Add an elementwise generic on identity maps for
// the GEMM's value and its output, in place over it, computing only an Add
// (onyx::cuda::isAddOfArguments); every value of the chain read by nothing
// else; `s` an op result of the same block with the GEMM result's type, not
// a constant, with no use after the GEMM but the LayerNorm's (and
// tensor.dim's). Anything else
// stays as it is.
//
//===----------------------------------------------------------------------===//

#include "LibraryCalls.h"

#include "onyx/Analysis/Contraction.h"
#include "onyx/Dialect/Onyx/OnyxLayerNorm.h"
#include "onyx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace onyx {
#define GEN_PASS_DEF_CUDARESIDUALACCUMULATE
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

namespace {

/// The chain that computes one operand of the residual Add.
struct Projection {
  linalg::LinalgOp gemm;
  linalg::GenericOp biasAdd; // null when the GEMM's result is read directly
  /// The value the LayerNorm reads: the bias Add's result, or the GEMM's.
  Value value() const {
    return biasAdd ? biasAdd->getResult(0) : gemm->getResult(0);
  }
};

/// A GEMM with a zero-filled destination, used only by `user`.
linalg::LinalgOp gemmOf(Value v, Operation *user) {
  auto gemm = v.getDefiningOp<linalg::LinalgOp>();
  if (!gemm || gemm->getNumResults() != 1 || gemm.getNumDpsInputs() != 2 ||
      gemm.getNumDpsInits() != 1 || !isMultiplyAccumulate(gemm) ||
      !matchContractionGroups(gemm))
    return {};
  Value init = gemm.getDpsInits()[0];
  if (!cuda::isZeroFill(init) || !init.hasOneUse())
    return {};
  for (Operation *u : v.getUsers())
    if (u != user)
      return {};
  return gemm;
}

/// The projection chain ending in `v` (read by `layerNorm` alone).
std::optional<Projection> projectionOf(Value v, Operation *layerNorm) {
  for (Operation *u : v.getUsers())
    if (u != layerNorm)
      return std::nullopt;
  if (linalg::LinalgOp gemm = gemmOf(v, layerNorm))
    return Projection{gemm, {}};
  auto add = v.getDefiningOp<linalg::GenericOp>();
  if (!add || add.getNumDpsInputs() != 2 || add.getNumDpsInits() != 1 ||
      add.getNumLoops() != add.getNumParallelLoops())
    return std::nullopt;
  // In place over the GEMM's result, which it reads at the same point.
  Value c = add.getDpsInits()[0];
  int cIndex = add.getDpsInputs()[0] == c   ? 0
               : add.getDpsInputs()[1] == c ? 1
                                            : -1;
  SmallVector<AffineMap> maps = add.getIndexingMapsArray();
  if (cIndex < 0 || !maps[cIndex].isIdentity() || !maps[2].isIdentity() ||
      c.getType() != v.getType() ||
      !cuda::isAddOfArguments(add.getRegion().front(), 0, 1))
    return std::nullopt;
  linalg::LinalgOp gemm = gemmOf(c, add);
  if (!gemm)
    return std::nullopt;
  return Projection{gemm, add};
}

/// Whether `s` may become the GEMM's destination: an op result of the
/// GEMM's block (not a constant), of the GEMM result's type, read after the
/// GEMM by `layerNorm` alone (and tensor.dim, which reads no data).
bool diesAtGemm(Value s, linalg::LinalgOp gemm, Operation *layerNorm) {
  Operation *def = s.getDefiningOp();
  if (!def || def->getBlock() != gemm->getBlock() ||
      s.getType() != gemm->getResult(0).getType() ||
      def->hasTrait<OpTrait::ConstantLike>() ||
      !def->isBeforeInBlock(gemm.getOperation()))
    return false;
  for (Operation *u : s.getUsers()) {
    // tensor.dim reads no data.
    if (u == layerNorm || isa<tensor::DimOp>(u))
      continue;
    Operation *at = gemm->getBlock()->findAncestorOpInBlock(*u);
    if (!at || !at->isBeforeInBlock(gemm.getOperation()))
      return false;
  }
  return true;
}

bool rewrite(LayerNormOp ln) {
  Value residual = ln.getResidual();
  if (!residual)
    return false;
  Value x = ln.getInput();
  std::optional<Projection> proj;
  Value s;
  if ((proj = projectionOf(residual, ln)))
    s = x;
  else if ((proj = projectionOf(x, ln)))
    s = residual;
  else
    return false;
  if (s == proj->value() || !diesAtGemm(s, proj->gemm, ln))
    return false;

  // The GEMM accumulates onto s; the bias Add stays in place over it.
  linalg::LinalgOp gemm = proj->gemm;
  Operation *fill = gemm.getDpsInits()[0].getDefiningOp();
  gemm.getDpsInitsMutable()[0].set(s);
  if (fill->use_empty())
    fill->erase();
  Value sum = proj->value();

  // The LayerNorm reads the sum alone. Its destinations stay, except one
  // that is the sum itself while the sum is read after it.
  OpBuilder b(ln);
  Location loc = ln.getLoc();
  Value sumDest = ln.getSum();
  auto destination = [&](Value d) -> Value {
    if (!d)
      return d;
    if (d == residual || d == x)
      return sumDest
                 ? tensor::EmptyOp::create(b, loc,
                                           tensor::getMixedSizes(b, loc, sum),
                                           getElementTypeOrSelf(sum.getType()))
                 : sum;
    return d;
  };
  Value init = destination(ln.getInit());
  Value init2 = destination(ln.getInit2());
  SmallVector<Type> types = {init.getType()};
  if (init2)
    types.push_back(init2.getType());
  auto fused = LayerNormOp::create(
      b, loc, types, sum, /*residual=*/Value(), ln.getScale(), ln.getBias(),
      init, init2, /*sum=*/Value(), ln.getEpsilonAttr(), ln.getAxisAttr());
  ln->getResult(0).replaceAllUsesWith(fused->getResult(0));
  if (init2)
    ln->getResult(1).replaceAllUsesWith(fused->getResult(1));
  if (sumDest)
    ln->getResult(ln->getNumResults() - 1).replaceAllUsesWith(sum);
  ln->erase();
  return true;
}

struct CUDAResidualAccumulatePass
    : public onyx::impl::CUDAResidualAccumulateBase<
          CUDAResidualAccumulatePass> {
  void runOnOperation() override {
    SmallVector<LayerNormOp> ops;
    getOperation().walk([&](LayerNormOp op) {
      if (op->getNumResults() > 0) // on tensors
        ops.push_back(op);
    });
    for (LayerNormOp op : ops)
      rewrite(op);
  }
};

} // namespace
