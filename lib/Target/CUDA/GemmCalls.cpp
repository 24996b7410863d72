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
// bias epilogue; the call writes the Add's output; after a GEMM that
// accumulates onto C, an Add in place over C: D = A B + C + bias), or in f16 /
// bf16 the bias Add fused with the tanh approximation of GELU after it (GPT-2's
// MLP: flag GELU_TANH, cuBLASLt's GELU_BIAS epilogue, which computes the GELU
// in f32 and rounds once where the half-precision body rounds after every op;
// in f32 it is less exact than the generated kernel, so f32 keeps that).
//
//===----------------------------------------------------------------------===//

#include "LibraryCalls.h"

#include "onyx/Analysis/Contraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;

namespace onyx::cuda {

namespace {

/// `v` through the half-precision roundings and extensions the ONNX
/// lowering writes around every op of an f16 / bf16 body; the ops taken are
/// appended to `steps`.
Value throughConversions(Value v, SmallVectorImpl<Operation *> &steps) {
  while (true) {
    if (Value y = stripExtendedRounding(v, steps)) {
      v = y;
      continue;
    }
    Value y = stripExtension(v, steps);
    if (y == v)
      return v;
    v = y;
  }
}

/// The factors of the arith.mulf tree in `body` that computes `v` (through
/// conversions); false past `limit` factors.
bool factorsOf(Value v, Block &body, SmallVectorImpl<Value> &factors,
               SmallVectorImpl<Operation *> &steps, unsigned limit = 6) {
  v = throughConversions(v, steps);
  auto mul = v.getDefiningOp<arith::MulFOp>();
  if (mul && mul->getBlock() == &body) {
    steps.push_back(mul);
    return factorsOf(mul.getLhs(), body, factors, steps, limit) &&
           factorsOf(mul.getRhs(), body, factors, steps, limit);
  }
  factors.push_back(v);
  return factors.size() <= limit;
}

/// Whether `v` is a float constant within 2e-3 (relative) of `want`: the
/// exporters' constants, possibly rounded to f16 / bf16.
bool isNear(Value v, double want) {
  FloatAttr attr;
  return matchPattern(v, m_Constant(&attr)) &&
         std::abs(attr.getValueAsDouble() - want) <= 2e-3 * std::abs(want);
}

/// `v` = a + b (through conversions) in `body`, a or b matching `isA` and
/// the other returned; null otherwise.
Value otherAddend(Value v, Block &body, llvm::function_ref<bool(Value)> isA,
                  SmallVectorImpl<Operation *> &steps) {
  auto add = throughConversions(v, steps).getDefiningOp<arith::AddFOp>();
  if (!add || add->getBlock() != &body)
    return {};
  steps.push_back(add);
  Value lhs = throughConversions(add.getLhs(), steps),
        rhs = throughConversions(add.getRhs(), steps);
  if (isA(lhs))
    return rhs;
  if (isA(rhs))
    return lhs;
  return {};
}

/// Whether the elementwise `body` yields the tanh approximation of GELU of
/// x, as PyTorch's gelu(approximate="tanh") and HF's NewGELUActivation
/// write it, in any association and operand order: 0.5 x (1 + tanh(sqrt(2 /
/// pi) (x + 0.044715 x^3))), or with the inner factor as sqrt(2/pi) x (1 +
/// 0.044715 x^2); f32, or f16 / bf16 with the ONNX lowering's rounding
/// after every op. x is arg(cArg) + arg(biasArg) with a `biasArg`, else
/// arg(cArg). Nothing else in the body.
bool isTanhGelu(Block &body, unsigned cArg, std::optional<unsigned> biasArg) {
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!yield || yield.getNumOperands() != 1)
    return false;
  Value a = body.getArgument(cArg),
        b = biasArg ? body.getArgument(*biasArg) : a;
  if (a.getType() != b.getType() ||
      a.getType() != yield.getOperand(0).getType())
    return false;
  SmallVector<Operation *> steps;
  // x: the argument, or the one sum of the two arguments (every use reads
  // it through the same conversions).
  Value x = biasArg ? Value() : a;
  auto isX = [&](Value v) {
    if (x)
      return v == x;
    auto add = v.getDefiningOp<arith::AddFOp>();
    if (!add || add->getBlock() != &body)
      return false;
    SmallVector<Operation *> local = {add};
    Value lhs = throughConversions(add.getLhs(), local),
          rhs = throughConversions(add.getRhs(), local);
    if (!((lhs == a && rhs == b) || (lhs == b && rhs == a)))
      return false;
    steps.append(local);
    x = v;
    return true;
  };
  // Split `v`'s factors into the constant near `want` (exactly one), x
  // (`xs` times) and the rest.
  auto split = [&](Value v, double want, unsigned xs,
                   SmallVectorImpl<Value> &rest) {
    SmallVector<Value> factors;
    if (!factorsOf(v, body, factors, steps))
      return false;
    unsigned constants = 0, xCount = 0;
    for (Value f : factors) {
      if (isNear(f, want))
        ++constants;
      else if (isX(f))
        ++xCount;
      else
        rest.push_back(f);
    }
    return constants == 1 && xCount == xs;
  };
  // 0.5 * x * (1 + tanh(z)).
  SmallVector<Value> outer;
  if (!split(stripRounding(yield.getOperand(0), steps), 0.5, 1, outer) ||
      outer.size() != 1)
    return false;
  auto isOne = [](Value v) { return isNear(v, 1.0); };
  Value t = otherAddend(outer[0], body, isOne, steps);
  auto tanh = t ? t.getDefiningOp<math::TanhOp>() : nullptr;
  if (!tanh || tanh->getBlock() != &body)
    return false;
  steps.push_back(tanh);
  // z = sqrt(2/pi) * (x + 0.044715 * x^3) or sqrt(2/pi) * x * (1 +
  // 0.044715 * x^2).
  const double k0 = std::sqrt(2.0 / M_PI), k1 = 0.044715;
  SmallVector<Value> inner, cubic;
  Value z = throughConversions(tanh.getOperand(), steps);
  SmallVector<Operation *> before(steps);
  if (split(z, k0, 0, inner) && inner.size() == 1) {
    Value p = otherAddend(inner[0], body, isX, steps);
    if (!p || !split(p, k1, 3, cubic) || !cubic.empty())
      return false;
  } else {
    steps = before;
    inner.clear();
    if (!split(z, k0, 1, inner) || inner.size() != 1)
      return false;
    Value p = otherAddend(inner[0], body, isOne, steps);
    if (!p || !split(p, k1, 2, cubic) || !cubic.empty())
      return false;
  }
  return isExactlySteps(body, steps);
}

/// The generics a GEMM's bias epilogue takes: the bias Add (or the bias
/// Add fused with a tanh-GELU), and a tanh-GELU generic after a plain Add.
struct BiasEpilogue {
  linalg::GenericOp add, gelu;
  bool tanhGelu = false;
  /// The last generic: the call goes there and writes its output.
  linalg::GenericOp last() const { return gelu ? gelu : add; }
};

/// The next op after `op` that writes tensor data.
Operation *nextWriter(Operation *op) {
  Operation *next = op->getNextNode();
  while (next && isNeutral(next))
    next = next->getNextNode();
  return next;
}

/// A tanh-GELU of `buffer` alone right after `add` (which writes
/// `buffer`): an elementwise generic on identity maps whose output is
/// `buffer` itself or a buffer of its type, with `buffer` read by nothing
/// else that sees the value before the GELU.
linalg::GenericOp findGeluAfter(linalg::GenericOp add, Value buffer) {
  auto g = dyn_cast_or_null<linalg::GenericOp>(nextWriter(add));
  if (!g || !g.hasPureBufferSemantics() || g.getNumDpsInputs() != 1 ||
      g.getNumDpsInits() != 1 || g.getDpsInputs()[0] != buffer ||
      g.getNumLoops() != g.getNumParallelLoops() ||
      g.getDpsInits()[0].getType() != buffer.getType() ||
      !isDenseFloat(g.getDpsInits()[0]) ||
      !llvm::all_of(g.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }) ||
      !isTanhGelu(g.getRegion().front(), 0, std::nullopt))
    return {};
  if (!onlyUsedBy(buffer, {add.getOperation(), g.getOperation()}) &&
      g.getDpsInits()[0] != buffer)
    return {};
  return g;
}

/// ONNX MatMul + Add of a bias over the last dim, right after the GEMM:
/// `out[..., j] = c[..., j] + bias[j]` (either operand order), or the
/// tanh-GELU of that sum (in the same generic or the next), with `c` read by
/// nothing else. cuBLASLt's bias and GELU_BIAS epilogues do them.
std::optional<BiasEpilogue> findBiasEpilogue(Operation *gemm, Value c) {
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
      return std::nullopt;
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
      return std::nullopt;
    // `c + bias`: addf in f32, truncf(addf(extf, extf)) in f16 / bf16.
    // The GELU only in f16 / bf16: cuBLASLt's f32 GELU is less exact than
    // the f32 kernel (GPT-2 b8 s512 fp32 on an H100: 2.9e-6 against fp64,
    // 3.3x PyTorch eager's error; in fp16 0.52x, the kernel's 0.64x).
    Block &body = g.getRegion().front();
    bool half = !cType.getElementType().isF32();
    if (isAddOfArguments(body, 0, 1)) {
      BiasEpilogue epilogue{g, half ? findGeluAfter(g, g.getDpsInits()[0])
                                    : linalg::GenericOp()};
      epilogue.tanhGelu = bool(epilogue.gelu);
      return epilogue;
    }
    if (half && isTanhGelu(body, cIndex, unsigned(1 - cIndex)))
      return BiasEpilogue{g, {}, true};
    return std::nullopt;
  }
  return std::nullopt;
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
  // overwriting C, followed by the bias Add (or bias + tanh-GELU); the call
  // writes the Add's output and goes where the Add was.
  Operation *anchor = op;
  Value target = match.c, biasBuffer;
  linalg::GenericOp biasAdd, gelu;
  auto cDims = mapDims(op.getIndexingMapsArray()[2]);
  std::optional<BiasEpilogue> epilogue;
  // The Add writes C in place (onyx-elementwise-in-place): later readers
  // of C read the Add's result, which the call writes.
  auto inPlace = [&] {
    return biasAdd.getDpsInits()[0] == match.c &&
           !usedBetween(match.c, op, biasAdd);
  };
  if (match.batch.empty() && match.n.size() == 1 && cDims &&
      cDims->back() == match.n.front() &&
      (epilogue = findBiasEpilogue(op, match.c)) && (biasAdd = epilogue->add) &&
      (zeroed
           ? onlyUsedBy(match.c, {op.getOperation(), biasAdd.getOperation()}) ||
                 inPlace()
           // Accumulating (onyx-cuda-residual-accumulate: C holds the
           // residual stream): D = A B + C + bias with C = D, so the
           // Add must be in place, and no GELU of the sum.
           : inPlace() && !epilogue->gelu && !epilogue->tanhGelu)) {
    gelu = epilogue->gelu;
    anchor = epilogue->last();
    target = epilogue->last().getDpsInits()[0];
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
  int32_t flags =
      (match.transA ? kGemmTransA : 0) | (match.transB ? kGemmTransB : 0) |
      (zeroed ? 0 : kGemmAccumulate) | (tf32 ? kGemmTF32 : 0) |
      (epilogue && biasAdd && epilogue->tanhGelu ? kGemmGeluTanh : 0);
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
  if (gelu)
    calls.eraseLater(gelu);
  op->erase();
}

} // namespace onyx::cuda
