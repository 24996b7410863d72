//===- GemmCalls.cpp - GEMM-class contractions as cuBLASLt calls ----------===//
//
// Any linalg op (named or generic) whose body is `out + in0 * in1` on f32,
// f16 or bf16 (one element type for all three operands) and whose maps are
// plain loops is classified into batch, M, N and K loops (batch: in all three
// operands; M: A and C; N: B and C; K: A and B, reduction) by the shared
// recognizer, onyx::matchContractionGroups (onyx/Analysis/Contraction.h). It
// is a row-major strided batched GEMM when every operand is a dense,
// identity-layout buffer whose dims come in the order [batch..., rows...,
// cols...] with each group contiguous: then the groups collapse (M = product
// of the M loops, ...), A is [M, K] or [K, M] (transposed), B [K, N] or
// [N, K], C [M, N]:
//
//   %s = func.call @onyxrt_cuda_gemm(%ctx, @label, elemType, flags, batch,
//            m, n, k, %a, lda, strideA, %b, ldb, strideB, %c, ldc, strideC,
//            %bias) {onyx.cuda_status}
//
// (elemType 1 = f32, 10 = f16, 16 = bf16). f16 and bf16 GEMMs run on tensor
// cores with f32 accumulation (the loops they replace accumulate in the half
// type); f32 ones in plain fp32 unless the pass's tf32 option is set.
//
// A zero fill of C before is absorbed (the call overwrites), and so is a
// bias Add over C's last dim right after a non-batched GEMM (cuBLASLt's
// bias epilogue; the call writes the Add's output).
//
//===----------------------------------------------------------------------===//

#include "LibraryCalls.h"

#include "onyx/Analysis/Contraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace onyx::cuda {

namespace {

/// ONNX MatMul + Add of a bias over the last dim, right after the GEMM:
/// `out[..., j] = c[..., j] + bias[j]` (either operand order), with `c`
/// read by nothing else. cuBLASLt's bias epilogue does it.
linalg::GenericOp findBiasAdd(Operation *gemm, Value c) {
  auto cType = cast<MemRefType>(c.getType());
  for (Operation *next = gemm->getNextNode(); next;
       next = next->getNextNode()) {
    if (isNeutral(next))
      continue;
    auto g = dyn_cast<linalg::GenericOp>(next);
    if (!g || !g.hasPureBufferSemantics() || g.getNumDpsInputs() != 2 ||
        g.getNumDpsInits() != 1 || g.getNumLoops() != g.getNumParallelLoops() ||
        g.getNumLoops() != unsigned(cType.getRank()) ||
        g.getDpsInits()[0].getType() != c.getType() ||
        !isDenseFloat(g.getDpsInits()[0]))
      return {};
    SmallVector<AffineMap> maps = g.getIndexingMapsArray();
    int cIndex = g.getDpsInputs()[0] == c ? 0 : 1;
    Value bias = g.getDpsInputs()[1 - cIndex];
    auto biasType = dyn_cast<MemRefType>(bias.getType());
    if (g.getDpsInputs()[cIndex] != c || !maps[cIndex].isIdentity() ||
        !maps[2].isIdentity() || !biasType || biasType.getRank() != 1 ||
        !isDenseOf(bias, cType.getElementType()) ||
        maps[1 - cIndex].getNumResults() != 1 ||
        maps[1 - cIndex].getResult(0) !=
            getAffineDimExpr(g.getNumLoops() - 1, g.getContext()))
      return {};
    // `c + bias`: addf in f32, truncf(addf(extf, extf)) in f16 / bf16.
    if (!isAddOfArguments(g.getRegion().front(), 0, 1))
      return {};
    return g;
  }
  return {};
}

} // namespace

std::optional<GemmMatch> matchGemm(linalg::LinalgOp op) {
  // The loop groups are the shared recognizer's (onyx/Analysis/Contraction.h);
  // isMulAddOp adds what a cuBLASLt call needs of the buffers.
  if (!isMulAddOp(op))
    return std::nullopt;
  std::optional<ContractionGroups> groups = matchContractionGroups(op);
  if (!groups)
    return std::nullopt;
  GemmMatch match;
  match.batch = groups->batch;
  match.m = groups->m;
  match.n = groups->n;
  match.k = groups->k;
  match.transA = groups->transA;
  match.transB = groups->transB;
  match.a = op.getDpsInputs()[0];
  match.b = op.getDpsInputs()[1];
  match.c = op.getDpsInits()[0];
  return match;
}

void lowerGemm(LibraryCallBuilder &calls, Value context, linalg::LinalgOp op,
               const GemmMatch &match) {
  Location loc = op.getLoc();
  bool zeroed = absorbZeroFill(op, match.c);
  // Bias epilogue: one GEMM (no batch) whose N loop is C's last dim,
  // overwriting C, followed by the bias Add; the call writes the Add's
  // output and goes where the Add was.
  Operation *anchor = op;
  Value target = match.c, biasBuffer;
  linalg::GenericOp biasAdd;
  auto cDims = mapDims(op.getIndexingMapsArray()[2]);
  if (zeroed && match.batch.empty() && match.n.size() == 1 && cDims &&
      cDims->back() == match.n.front() &&
      (biasAdd = findBiasAdd(op, match.c)) &&
      (onlyUsedBy(match.c, {op.getOperation(), biasAdd.getOperation()}) ||
       // The Add writes C in place (onyx-elementwise-in-place): later
       // readers of C read the Add's result, which the call writes.
       (biasAdd.getDpsInits()[0] == match.c &&
        !usedBetween(match.c, op, biasAdd)))) {
    anchor = biasAdd;
    target = biasAdd.getDpsInits()[0];
    biasBuffer = biasAdd.getDpsInputs()[0] == match.c
                     ? biasAdd.getDpsInputs()[1]
                     : biasAdd.getDpsInputs()[0];
  } else {
    biasAdd = {};
  }
  OpBuilder b(anchor);
  SmallVector<Value> sizes;
  for (Range range : op.createLoopRanges(b, loc))
    sizes.push_back(calls.toI64(b, loc, range.size));
  Value batch = calls.product(b, loc, sizes, match.batch);
  Value m = calls.product(b, loc, sizes, match.m);
  Value n = calls.product(b, loc, sizes, match.n);
  Value k = calls.product(b, loc, sizes, match.k);
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulIOp::create(b, loc, x, y);
  };
  int32_t elementCode = *libraryElementCode(elementTypeOf(match.c));
  // TF32 is a choice for f32 alone.
  bool tf32 = calls.tf32 && elementCode == kOnyxF32;
  int32_t flags = (match.transA ? kGemmTransA : 0) |
                  (match.transB ? kGemmTransB : 0) |
                  (zeroed ? 0 : kGemmAccumulate) | (tf32 ? kGemmTF32 : 0);
  Value lda = match.transA ? m : k;
  Value ldb = match.transB ? k : n;
  SmallVector<Value> args = {
      context,
      calls.label(b, loc, calls.labelFor(op, "cuBLASLt")),
      calls.i32(b, loc, elementCode),
      calls.i32(b, loc, flags),
      batch,
      m,
      n,
      k,
      calls.devicePointer(b, loc, context, match.a),
      lda,
      mul(m, k),
      calls.devicePointer(b, loc, context, match.b),
      ldb,
      mul(k, n),
      calls.devicePointer(b, loc, context, target),
      n,
      mul(m, n)};
  args.push_back(
      biasBuffer ? calls.devicePointer(b, loc, context, biasBuffer)
                 : Value(LLVM::ZeroOp::create(
                       b, loc, LLVM::LLVMPointerType::get(b.getContext()))));
  calls.emitCall(b, loc, kGemmFn, args);
  if (biasAdd)
    calls.eraseLater(biasAdd);
  op->erase();
}

} // namespace onyx::cuda
