// RUN: onyx-opt %s --onyx-cpu-pipeline | FileCheck %s \
// RUN:   --implicit-check-not=onyx.assert --implicit-check-not=linalg. \
// RUN:   --implicit-check-not=memref.
//
// Run-time broadcast checks through the whole CPU pipeline: two fully
// dynamic Add operands need one check per operand dim. Each becomes a
// branch, before the output is allocated, to a path that reports the
// message (prefixed with the node name) through @onyxrt_fail and returns 1.

// CHECK-DAG:   llvm.mlir.global private constant @[[M0:onyx_msg_[0-9]+]]("node 'add0': cannot broadcast operand 0 dim 0 of extent {0} against extent {1}\00")
// CHECK-DAG:   llvm.mlir.global private constant @[[M1:onyx_msg_[0-9]+]]("node 'add0': cannot broadcast operand 0 dim 1 of extent {0} against extent {1}\00")
// CHECK-DAG:   llvm.mlir.global private constant @[[M2:onyx_msg_[0-9]+]]("node 'add0': cannot broadcast operand 1 dim 0 of extent {0} against extent {1}\00")
// CHECK-DAG:   llvm.mlir.global private constant @[[M3:onyx_msg_[0-9]+]]("node 'add0': cannot broadcast operand 1 dim 1 of extent {0} against extent {1}\00")
// CHECK:       llvm.func internal @onyx_main(%[[CTX:.*]]: !llvm.ptr) -> i32 {
// CHECK-DAG:     llvm.mlir.addressof @[[M0]]
// CHECK-DAG:     llvm.mlir.addressof @[[M1]]
// CHECK-DAG:     llvm.mlir.addressof @[[M2]]
// CHECK-DAG:     llvm.mlir.addressof @[[M3]]
// CHECK-COUNT-4: llvm.call @onyxrt_input_dim(%[[CTX]],
// CHECK-COUNT-4: llvm.cond_br %{{.*}}, ^{{bb[0-9]+}}, ^[[FAIL:bb[0-9]+]](
// CHECK:         llvm.call @onyxrt_alloc_output(%[[CTX]],
// CHECK:       ^[[FAIL]](%{{.*}}: i64, %{{.*}}: i64, %[[MSG:.*]]: !llvm.ptr):
// CHECK-NEXT:    llvm.call @onyxrt_fail(%[[CTX]], %[[MSG]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64) -> ()
// CHECK-NEXT:    llvm.return %[[ONE:.*]] : i32
// CHECK:         llvm.fadd
// CHECK:       llvm.func @onyxrt_fail(!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64)
// CHECK:       llvm.func @inference_compute(
func.func @main_graph(%x: tensor<?x?xf32> {onnx.name = "x"}, %z: tensor<?x?xf32> {onnx.name = "z"})
    -> (tensor<?x?xf32> {onnx.name = "y"}) {
  %0 = "onnx.Add"(%x, %z) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32> loc("add0")
  return %0 : tensor<?x?xf32>
}
