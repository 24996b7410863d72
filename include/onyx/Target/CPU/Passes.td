//===- Passes.td - The CPU target's own passes -------------*- tablegen -*-===//
//
// Passes of lib/Target/CPU declared here (the older ones,
// onyx-lower-contractions-to-blas among them, are in
// onyx/Transforms/Passes.td). Each has a lit test under test/lit/Target/CPU.
//
//===----------------------------------------------------------------------===//

#ifndef ONYX_TARGET_CPU_PASSES_TD
#define ONYX_TARGET_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def CPULowerConvolutions
    : Pass<"onyx-cpu-lower-convolutions", "mlir::ModuleOp"> {
  let summary = "Convolutions on buffers become onyxrt_cpu_conv_f32 calls";
  let description = [{
    The grouped convolution generic of the ONNX Conv lowering
    (`Y[n, g, m, o...] += X[n, g, c, o * s + t * d] * W[g, m, c, t...]` on
    dense f32 buffers with identity layouts, 1-3 spatial dims, the input
    already padded) becomes a call of the runtime's `onyxrt_cpu_conv_f32`
    (im2col + OpenBLAS sgemm, direct loops for depthwise convolutions), the
    dims in a stack array laid out as for onyxrt_cuda_conv. The Conv
    lowering's bias broadcast before it, a Relu after it, and ResNet's block
    tail `relu(conv + bias + residual)` are folded into the call when
    nothing else reads the intermediate buffers; a zero fill of the output
    right before is absorbed. Other ops are left as they are.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect"
  ];
}

#endif // ONYX_TARGET_CPU_PASSES_TD
