//===- HalfDivision.cpp - Half divisions by constants as multiplications --===//
//
// A half-precision Div by a constant, in a kernel body, is
//
//   %q = arith.truncf (arith.divf (arith.extf %x : T to f32), %c) : f32 to T
//
// (T f16 or bf16: the ONNX lowering computes each half op in f32 and rounds
// once). On the GPU `div.rn.f32` is a subroutine of about ten instructions
// with a slow path; a multiplication by r = RN(1 / c) is one. The two f32
// results can differ in the last bit, but the value is rounded to T right
// after, and T holds only 65536 values: for the given c, every x of T is
// tried on the host with the device's arithmetic (IEEE binary32, round to
// nearest even, subnormals kept: `div.rn.f32` / `mul.rn.f32`, no .ftz), and
// the multiplication is used only when RN_T(x / c) == RN_T(x * r) for all
// of them (NaN for NaN). So the kernel's results are bit for bit the same.
// BERT's erf-GELU divides by sqrt(2) rounded to f16 (1.4140625), which
// passes in f16 and bf16.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/bit.h"

#include <cmath>

using namespace mlir;

namespace onyx::cuda {
namespace {

/// Whether RN_T(x / c) and RN_T(x * r) agree for every value x of `half`
/// (the f32 arithmetic on the host: SSE, IEEE, subnormals kept).
bool reciprocalIsExact(Type half, float c, float r) {
  const llvm::fltSemantics &sem =
      half.isF16() ? llvm::APFloat::IEEEhalf() : llvm::APFloat::BFloat();
  bool lost;
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    llvm::APFloat hx(sem, llvm::APInt(16, bits));
    hx.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
               &lost); // exact
    float x = hx.convertToFloat();
    // volatile: the host computes each in binary32, as the device does.
    volatile float q = x / c;
    volatile float p = x * r;
    float qv = q, pv = p;
    if (std::isnan(qv) && std::isnan(pv))
      continue;
    if (llvm::bit_cast<uint32_t>(qv) == llvm::bit_cast<uint32_t>(pv))
      continue;
    llvm::APFloat a(qv), b(pv);
    a.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
    b.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
    if (a.bitcastToAPInt() != b.bitcastToAPInt())
      return false;
  }
  return true;
}

} // namespace

void divideHalfByReciprocals(gpu::GPUFuncOp kernel) {
  // Most kernels divide by nothing.
  if (!kernel.walk([](arith::DivFOp) { return WalkResult::interrupt(); })
           .wasInterrupted())
    return;
  // The integer conversions useNativeBF16Conversions left unused still read
  // the division's result: they go first.
  IRRewriter rewriter(kernel.getContext());
  (void)runRegionDCE(rewriter, kernel->getRegions());
  // (half type, c bits) -> whether the reciprocal is exact; this kernel's.
  llvm::DenseMap<std::pair<Type, uint32_t>, bool> exact;
  SmallVector<arith::DivFOp> divs;
  kernel.walk([&](arith::DivFOp div) { divs.push_back(div); });
  for (arith::DivFOp div : divs) {
    if (!div.getType().isF32() || !div->hasOneUse())
      continue;
    auto trunc = dyn_cast<arith::TruncFOp>(*div->getUsers().begin());
    auto ext = div.getLhs().getDefiningOp<arith::ExtFOp>();
    FloatAttr cAttr;
    if (!trunc || !ext || !matchPattern(div.getRhs(), m_Constant(&cAttr)))
      continue;
    Type half = trunc.getType();
    if ((!half.isF16() && !half.isBF16()) || ext.getIn().getType() != half)
      continue;
    float c = cAttr.getValue().convertToFloat();
    float r = 1.0f / c;
    if (!std::isfinite(c) || c == 0.0f || !std::isnormal(r))
      continue;
    auto key = std::make_pair(half, llvm::bit_cast<uint32_t>(c));
    auto it = exact.find(key);
    if (it == exact.end())
      it = exact.try_emplace(key, reciprocalIsExact(half, c, r)).first;
    if (!it->second)
      continue;
    OpBuilder b(div);
    Value rv = arith::ConstantOp::create(b, div.getLoc(), b.getF32FloatAttr(r));
    Value mul = arith::MulFOp::create(b, div.getLoc(), div.getLhs(), rv);
    div.replaceAllUsesWith(mul);
    div.erase();
  }
}

} // namespace onyx::cuda
