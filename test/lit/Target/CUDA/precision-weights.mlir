// REQUIRES: ptxas
// RUN: onyx-opt %s --onnx-convert-precision=type=f16 --onyx-cuda-pipeline \
// RUN:   | FileCheck %s
// RUN: onyx-opt %s --onnx-convert-precision=type=bf16 --onyx-cuda-pipeline \
// RUN:   | FileCheck %s --check-prefix=BF16
// RUN: onyx-opt %s --onnx-convert-precision=type=f16 \
// RUN:   --precision-cast-weights-per-call --onyx-cuda-pipeline \
// RUN:   | FileCheck %s --check-prefix=PERCALL
//
// `--precision=fp16|bf16` on external weights: the half ops read each f32
// weight as its half copy, which the session converts when it loads the
// file (metadata `weight ... 10|16`), so no Cast kernel runs per call and
// the bias of the first MatMul, an f16 weight now, folds into cuBLASLt's
// bias epilogue. What runs per call: the Cast of the f32 input, the two
// GEMMs (the first with the bias), the Cast of the output back to f32.
// The per-call form (a Cast of each weight, the bias Cast fused into the
// Add, which then reads an f32 bias and stays a kernel) for comparison.

// CHECK-LABEL: llvm.func internal @onyx_main(
// CHECK:         %[[Z:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         llvm.call @onyxrt_cuda_launch(%
// CHECK-NOT:     llvm.call @onyxrt_cuda_launch(%
// CHECK-NOT:     llvm.call @onyxrt_cuda_gemm({{.*}}, %[[Z]]) :
// CHECK:         llvm.call @onyxrt_cuda_gemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) :
// CHECK-NOT:     llvm.call @onyxrt_cuda_launch(%
// CHECK:         llvm.call @onyxrt_cuda_gemm({{.*}}, %[[Z]]) :
// CHECK:         llvm.call @onyxrt_cuda_launch(%
// CHECK-NOT:     llvm.call @onyxrt_cuda_launch(%
// CHECK:         llvm.mlir.global private constant @onyx_metadata_text("{{.*}}\0Aweight 0 0 48 0 m.onnx.data 10\0Aweight 1 64 12 0 m.onnx.data 10\0Aweight 2 128 24 0 m.onnx.data 10\0A

// BF16:         llvm.mlir.global private constant @onyx_metadata_text("{{.*}}\0Aweight 0 0 48 0 m.onnx.data 16\0Aweight 1 64 12 0 m.onnx.data 16\0Aweight 2 128 24 0 m.onnx.data 16\0A

// PERCALL-LABEL: llvm.func internal @onyx_main(
// PERCALL-COUNT-4: llvm.call @onyxrt_cuda_launch(%
// PERCALL:         llvm.call @onyxrt_cuda_gemm(
// PERCALL:         llvm.call @onyxrt_cuda_launch(%
// PERCALL:         llvm.mlir.global private constant @onyx_metadata_text("{{.*}}\0Aweight 0 0 48 0 m.onnx.data\0Aweight 1 64 12 0 m.onnx.data\0Aweight 2 128 24 0 m.onnx.data\0A
func.func @main_graph(%x: tensor<?x4xf32>) -> tensor<?x2xf32> {
  %w = onyx.weight {checksum = 0 : i64, length = 48 : i64, location = "m.onnx.data", offset = 0 : i64} : tensor<4x3xf32>
  %b = onyx.weight {checksum = 0 : i64, length = 12 : i64, location = "m.onnx.data", offset = 64 : i64} : tensor<3xf32>
  %w2 = onyx.weight {checksum = 0 : i64, length = 24 : i64, location = "m.onnx.data", offset = 128 : i64} : tensor<3x2xf32>
  %mm = "onnx.MatMul"(%x, %w) : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  %h = "onnx.Add"(%b, %mm) : (tensor<3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %y = "onnx.MatMul"(%h, %w2) : (tensor<?x3xf32>, tensor<3x2xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}
