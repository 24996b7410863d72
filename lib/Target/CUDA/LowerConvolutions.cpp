//===- LowerConvolutions.cpp - Convolutions as cuDNN calls, before pooling ===//
//
// Runs on buffers right after bufferization, before onyx-pool-allocations
// (buildBufferizationPipeline, target "cuda"). Each grouped convolution
// generic of the Conv lowering becomes one `onyxrt_cuda_conv` call with its
// epilogues (ConvCalls.cpp: bias broadcast, Relu, residual Add + Relu) and,
// here, the zero padding of its input folded in:
//
//   %p = onyx.alloc_temp (N, H + 2, W + 2, C)
//   linalg.generic outs(%p) { select(in bounds, %x[n, h - 1, w - 1, c], 0) }
//   linalg.generic ins(expand(%p), %w) outs(%y) { conv }
//   ==>
//   func.call @onyxrt_cuda_conv(..., dims with pads 1, 1, %x, %w, ...)
//
// Before the pooling, the buffers the call absorbs (the padded copy, the
// convolution's own output under a folded Relu, the bias broadcast) are
// never planned, and the unpadded input a call reads stays live until the
// call. onyx-cuda-lower-library-calls lowers whatever is left (GEMMs; any
// convolution IR that reaches it after the pooling).
//
//===----------------------------------------------------------------------===//

#include "LibraryCalls.h"

#include "onyx/Dialect/Onyx/OnyxDialect.h"
#include "onyx/Target/CUDA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace onyx {
#define GEN_PASS_DEF_CUDALOWERCONVOLUTIONS
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;
using namespace onyx::cuda;

namespace {

struct CUDALowerConvolutionsPass
    : public onyx::impl::CUDALowerConvolutionsBase<CUDALowerConvolutionsPass> {
  using CUDALowerConvolutionsBase::CUDALowerConvolutionsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    LibraryCallBuilder calls(module, tf32);
    forEachLibraryCandidate(
        module, calls, [&](Value context, linalg::LinalgOp op) {
          if (auto conv = matchConv(op))
            lowerConv(calls, context, op, *conv, /*foldPadding=*/true);
        });
  }
};

} // namespace
