// REQUIRES: ptxas
// RUN: onyx-opt %s --onyx-cuda-pipeline | FileCheck %s \
// RUN:   --implicit-check-not=linalg. --implicit-check-not=memref. \
// RUN:   --implicit-check-not=gpu. --implicit-check-not=onnx. \
// RUN:   --implicit-check-not=onyx.get_input --implicit-check-not=onyx.alloc \
// RUN:   --implicit-check-not=scf. --implicit-check-not=cf. \
// RUN:   --implicit-check-not=arith. --implicit-check-not=func.func \
// RUN:   --implicit-check-not=unrealized_conversion_cast
//
// The whole CUDA pipeline on the Add + Relu graph with a symbolic batch dim
// ends in the LLVM dialect: one kernel (the broadcast add and the relu,
// fused by onyx-fuse-elementwise; it carries the consumer's node name), a
// cubin + PTX pair with its descriptor, launched through the runtime with
// the batch dim as a kernel argument; the host program allocates through the
// same services as the CPU target; the metadata says `device cuda`.

// CHECK-DAG:   llvm.mlir.global private constant @onyx_cuda_cubin_onyx_main_dispatch_0("\7FELF{{.*}}") {addr_space = 0 : i32, alignment = 64 : i64}
// CHECK-DAG:   llvm.mlir.global private constant @onyx_cuda_ptx_onyx_main_dispatch_0("{{.*}}.target sm_90{{.*}}.visible .entry onyx_main_dispatch_0({{.*}}\00")
// CHECK-DAG:   llvm.mlir.global private constant @{{.*}}("node 'relu' (kernel onyx_main_dispatch_0)\00")
// CHECK:       llvm.func internal @onyx_main(%[[CTX:.*]]: !llvm.ptr) -> i32 {
// CHECK:         llvm.call @onyxrt_input_data(%[[CTX]],
// CHECK:         llvm.call @onyxrt_input_dim(%[[CTX]],
// CHECK:         llvm.call @onyxrt_alloc_output(%[[CTX]],
// CHECK:         llvm.call @onyxrt_cuda_launch(%[[CTX]],
// CHECK-NOT:     llvm.call @onyxrt_cuda_launch(
// CHECK:         llvm.return
// CHECK:       llvm.mlir.global private constant @onyx_cuda_kernel_onyx_main_dispatch_0()
// CHECK:       llvm.func @onyxrt_cuda_launch(!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr) -> i32
// CHECK:       llvm.mlir.global private constant @onyx_metadata_text("onyx-model v1\0Ainput x 1 2 ?batch 4\0Ainput b 1 1 4\0Aoutput y 1 2 ?batch 4\0Adevice cuda\0A\00")
// CHECK:       llvm.func @inference_compute(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> !llvm.ptr
func.func @main_graph(%x: tensor<?x4xf32> {onnx.name = "x", onnx.dim_params = "0:batch"},
                      %b: tensor<4xf32> {onnx.name = "b"})
    -> (tensor<?x4xf32> {onnx.name = "y", onnx.dim_params = "0:batch"}) {
  %0 = "onnx.Add"(%x, %b) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32> loc("add")
  %1 = "onnx.Relu"(%0) : (tensor<?x4xf32>) -> tensor<?x4xf32> loc("relu")
  return %1 : tensor<?x4xf32>
}
