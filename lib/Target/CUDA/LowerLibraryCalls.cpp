//===- LowerLibraryCalls.cpp - GEMMs and convolutions as library calls ----===//
//
// Runs on buffers, before the kernels are formed. Contractions and
// convolutions would otherwise become one naive kernel each (one thread per
// output element, the reduction walked serially); here they become calls of
// the runtime's library services, which run cuBLASLt and cuDNN on the
// session's stream:
//
//   linalg.fill ins(%zero) outs(%c)              // erased: beta = 0
//   linalg.generic {A (d0, d1, d3), B (d3, d2), C (d0, d1, d2)} mul-add
//   ==>
//   %s = func.call @onyxrt_cuda_gemm(%ctx, @label, elemType, flags, batch,
//            m, n, k, %a, lda, strideA, %b, ldb, strideB, %c, ldc, strideC)
//            {onyx.cuda_status}
//
// Any linalg op (named or generic) whose body is `out + in0 * in1` on f32,
// f16 or bf16 (one element type for all three operands; the half types run
// on tensor cores with f32 accumulation) and whose maps are projected
// permutations is classified into batch, M, N and K loops
// (linalg::inferContractionDims). It is a row-major strided batched GEMM when
// every operand is a dense, identity-layout buffer whose dims come in the order
// [batch..., rows..., cols...] with each group contiguous: then the groups
// collapse (M = product of the M loops, ...), A is [M, K] or [K, M]
// (transposed), B [K, N] or [N, K], C [M, N]. That covers ONNX MatMul (2-D, N-D
// x 2-D with the leading dims folded into M, batched N-D x N-D), Gemm with any
// transA/transB, and linalg.matmul / batch_matmul / matmul_transpose_b and
// friends.
//
// The grouped convolution generic of the ONNX Conv lowering
// (Y[n, g, m, o...] += X[n, g, c, o * s + t * d] * W[g, m, c, t...], the
// input already padded) becomes `onyxrt_cuda_conv` with the dims packed in a
// stack array (runtime/include/onyx/onyx_runtime.h).
//
// Everything else, and anything that does not match exactly (other element
// types, strided views, broadcast batch dims that break a group), is left
// to the outlining pass, which runs it as a generic kernel: correct, slower.
//
// Host constants (embedded constants, external weights) read by a call are
// passed as their session copy on the device: an `onyx.alloc_temp` filled by
// a `gpu.memcpy {onyx.session_constant}`, which onyx-cuda-lower-launches
// turns into `onyxrt_cuda_constant` (uploaded once per session). The status
// of each call is checked by onyx-cuda-lower-launches (`onyx.cuda_status`:
// a non-zero status returns 1 from the entry with the runtime's message,
// which names the node).
//
//===----------------------------------------------------------------------===//

#include "LibraryCalls.h"

#include "onyx/Dialect/Onyx/OnyxDialect.h"
#include "onyx/Target/CUDA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace onyx {
#define GEN_PASS_DEF_CUDALOWERLIBRARYCALLS
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;
using namespace onyx::cuda;

namespace {

struct CUDALowerLibraryCallsPass
    : public onyx::impl::CUDALowerLibraryCallsBase<CUDALowerLibraryCallsPass> {
  using CUDALowerLibraryCallsBase::CUDALowerLibraryCallsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    LibraryCallBuilder calls(module, tf32);
    forEachLibraryCandidate(module, calls,
                            [&](Value context, linalg::LinalgOp op) {
                              if (auto gemm = matchGemm(op))
                                lowerGemm(calls, context, op, *gemm);
                              else if (auto conv = matchConv(op))
                                lowerConv(calls, context, op, *conv);
                            });
  }
};

} // namespace
