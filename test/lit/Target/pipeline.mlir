// RUN: onyx-opt %s --onyx-cpu-pipeline | FileCheck %s \
// RUN:   --implicit-check-not=linalg. --implicit-check-not=memref. \
// RUN:   --implicit-check-not=tensor. --implicit-check-not=onnx. \
// RUN:   --implicit-check-not=onyx.get_input --implicit-check-not=onyx.alloc \
// RUN:   --implicit-check-not=onyx.assert --implicit-check-not=onyx.model_metadata \
// RUN:   --implicit-check-not=scf. --implicit-check-not=cf. \
// RUN:   --implicit-check-not=arith. --implicit-check-not=func.func \
// RUN:   --implicit-check-not=bufferization. --implicit-check-not=unrealized_conversion_cast
//
// The whole CPU pipeline on the Add + Relu graph ends in the LLVM dialect:
// nothing of onnx, tensor, linalg, memref, scf/cf, arith or the onyx runtime
// ops is left, the runtime services are called, and the interface is
// generated.

// CHECK-DAG:   llvm.func @onyxrt_input_data(!llvm.ptr, i64) -> !llvm.ptr
// CHECK-DAG:   llvm.func @onyxrt_input_dim(!llvm.ptr, i64, i64) -> i64
// CHECK-DAG:   llvm.func @onyxrt_alloc_output(!llvm.ptr, i64, i64, !llvm.ptr) -> !llvm.ptr
// CHECK:       llvm.func internal @onyx_main(%[[CTX:.*]]: !llvm.ptr) -> i32 {
// CHECK:         llvm.call @onyxrt_input_data(%[[CTX]],
// CHECK:         llvm.call @onyxrt_input_dim(%[[CTX]],
// CHECK:         llvm.call @onyxrt_alloc_output(%[[CTX]],
// The allocation null check.
// CHECK:         llvm.icmp "ne"
// CHECK:         llvm.cond_br
// The add and the relu, each a loop nest of loads and a store, and the
// return (block order is the CFG lowering's).
// CHECK-DAG:     llvm.fadd
// CHECK-DAG:     llvm.intr.maximum
// CHECK-DAG:     llvm.return
// CHECK:       llvm.mlir.global private constant @onyx_metadata_text("onyx-model v1\0Ainput x 1 2 ?batch 4\0Ainput b 1 1 4\0Aoutput y 1 2 ?batch 4\0A\00")
// CHECK:       llvm.mlir.global private constant @onyx_model_desc()
// CHECK:       llvm.func @onyx_state_create() -> !llvm.ptr
// CHECK:       llvm.func @onyx_state_destroy(%{{.*}}: !llvm.ptr)
// CHECK:       llvm.func @inference_compute(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> !llvm.ptr
// CHECK:         llvm.call @onyxrt_run
// CHECK:       llvm.func @onyx_model_metadata() -> !llvm.ptr
func.func @main_graph(%x: tensor<?x4xf32> {onnx.name = "x", onnx.dim_params = "0:batch"},
                      %b: tensor<4xf32> {onnx.name = "b"})
    -> (tensor<?x4xf32> {onnx.name = "y", onnx.dim_params = "0:batch"}) {
  %0 = "onnx.Add"(%x, %b) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32> loc("add")
  %1 = "onnx.Relu"(%0) : (tensor<?x4xf32>) -> tensor<?x4xf32> loc("relu")
  return %1 : tensor<?x4xf32>
}
