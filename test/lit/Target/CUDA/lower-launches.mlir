// RUN: onyx-opt %s --onyx-cuda-lower-launches -split-input-file | FileCheck %s
//
// The host side of the CUDA target. Each gpu.binary becomes private
// constant globals (the cubin, NUL-terminated PTX) and one OnyxCudaKernel
// descriptor {cubin, cubin size, ptx, name} per launched kernel; each
// gpu.launch_func packs its arguments into 8-byte slots (buffers as their
// aligned pointers) and calls onyxrt_cuda_launch with the node's label; a
// constant upload (gpu.memcpy) calls onyxrt_cuda_upload. A non-zero status
// returns 1 from the entry: the runtime has recorded the message.

// CHECK-DAG:   llvm.mlir.global private constant @onyx_cuda_cubin_k("CUBIN") {addr_space = 0 : i32, alignment = 64 : i64}
// CHECK-DAG:   llvm.mlir.global private constant @onyx_cuda_ptx_k("PTX\00")
// CHECK-DAG:   llvm.mlir.global private constant @onyx_cuda_name_k("k\00")
// CHECK-DAG:   llvm.mlir.global private constant @[[LABEL:onyx_cuda_label[_0-9]*]]("node 'Add_0' (kernel k)\00")
// CHECK-DAG:   llvm.mlir.global private constant @[[ULABEL:onyx_cuda_label[_0-9]*]]("constant upload\00")
// CHECK:       func.func @onyx_main(%[[CTX:.*]]: !onyx.context) -> i32 {
// CHECK-DAG:     %[[BYTES:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-DAG:     memref.extract_aligned_pointer_as_index %{{.*}} : memref<4xf32> -> index
// CHECK:         %[[US:.*]] = call @onyxrt_cuda_upload(%[[CTX]], %{{.*}}, %{{.*}}, %[[BYTES]], %{{.*}})
// CHECK:         %[[UOK:.*]] = arith.cmpi eq, %[[US]], %{{.*}} : i32
// CHECK:         cf.cond_br %[[UOK]], ^[[NEXT:bb[0-9]+]], ^[[UFAIL:bb[0-9]+]]
// CHECK:       ^[[NEXT]]:
// CHECK:         %[[P:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<f32> -> index
// CHECK:         %[[PI:.*]] = arith.index_cast %[[P]] : index to i64
// CHECK:         %[[NARGS:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK:         %[[SLOTS:.*]] = llvm.alloca %{{.*}} x i64 {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK:         %[[S0:.*]] = llvm.getelementptr %[[SLOTS]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK:         llvm.store %[[PI]], %[[S0]] : i64, !llvm.ptr
// CHECK:         %[[S1:.*]] = llvm.getelementptr %[[SLOTS]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK:         llvm.store %{{.*}}, %[[S1]] : i64, !llvm.ptr
// CHECK:         %[[K:.*]] = llvm.mlir.addressof @onyx_cuda_kernel_k : !llvm.ptr
// CHECK:         %[[L:.*]] = llvm.mlir.addressof @[[LABEL]] : !llvm.ptr
// CHECK:         %[[S:.*]] = call @onyxrt_cuda_launch(%[[CTX]], %[[K]], %[[L]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NARGS]], %[[SLOTS]])
// CHECK-SAME:      : (!onyx.context, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr) -> i32
// CHECK:         %[[OK:.*]] = arith.cmpi eq, %[[S]], %{{.*}} : i32
// CHECK:         cf.cond_br %[[OK]], ^[[DONE:bb[0-9]+]], ^[[FAIL:bb[0-9]+]]
// CHECK:       ^[[UFAIL]]:
// CHECK-NEXT:    %[[ONE2:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    return %[[ONE2]] : i32
// CHECK:       ^[[DONE]]:
// CHECK:         return %{{.*}} : i32
// CHECK:       ^[[FAIL]]:
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    return %[[ONE]] : i32
// CHECK-DAG:   llvm.mlir.global private constant @onyx_cuda_kernel_k() {addr_space = 0 : i32} : !llvm.struct<(ptr, i64, ptr, ptr)> {
// CHECK-DAG:   func.func private @onyxrt_cuda_launch(
// CHECK-DAG:   func.func private @onyxrt_cuda_upload(!onyx.context, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i32
// CHECK-NOT:   gpu.binary
// CHECK-NOT:   gpu.launch_func

module attributes {gpu.container_module} {
  memref.global "private" constant @bias : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
  gpu.binary @k [#gpu.object<#nvvm.target<chip = "sm_90">, bin = "CUBIN">,
                 #gpu.object<#nvvm.target<chip = "sm_90">, assembly = "PTX">]
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %g = memref.get_global @bias : memref<4xf32>
    %t = onyx.alloc_temp %ctx : memref<4xf32>
    gpu.memcpy %t, %g : memref<4xf32>, memref<4xf32>
    %x = onyx.get_input %ctx[0] : memref<?xf32>
    %base, %offset, %size, %stride = memref.extract_strided_metadata %x
        : memref<?xf32> -> memref<f32>, index, index, index
    %n = arith.index_cast %size : index to i64
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%base : memref<f32>, %n : i64) {onyx.node = "Add_0"}
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// Readbacks (RFC Fix 3) queue async copies into the session's pinned
// staging buffer; a run of readbacks at the same point ends with one
// onyxrt_cuda_readback_wait, the run's only host synchronization. A
// readback after host code that reads the copies starts a new run.

// CHECK:       func.func @onyx_main(%[[CTX:.*]]: !onyx.context)
// CHECK-NOT:     onyxrt_cuda_readback_wait
// CHECK:         call @onyxrt_cuda_readback(%[[CTX]],
// CHECK:         cf.cond_br
// CHECK-NOT:     onyxrt_cuda_readback_wait
// CHECK:         call @onyxrt_cuda_readback(%[[CTX]],
// CHECK:         cf.cond_br
// CHECK:         %[[W:.*]] = call @onyxrt_cuda_readback_wait(%[[CTX]], %{{.*}}) : (!onyx.context, !llvm.ptr) -> i32
// CHECK:         arith.cmpi eq, %[[W]]
// CHECK:         memref.load
// CHECK:         memref.load
// CHECK:         call @onyxrt_cuda_readback(%[[CTX]],
// CHECK:         cf.cond_br
// CHECK:         call @onyxrt_cuda_readback_wait(%[[CTX]],
// CHECK-NOT:     call @onyxrt_cuda_readback
// CHECK:         return

module attributes {gpu.container_module} {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %a = onyx.get_input %ctx[0] : memref<2xi64>
    %b = onyx.get_input %ctx[1] : memref<1xi64>
    %ha = memref.alloca() : memref<2xi64>
    gpu.memcpy %ha, %a : memref<2xi64>, memref<2xi64> {onyx.readback}
    %hb = memref.alloca() : memref<1xi64>
    gpu.memcpy %hb, %b : memref<1xi64>, memref<1xi64> {onyx.readback}
    %va = memref.load %ha[%c0] : memref<2xi64>
    %vb = memref.load %hb[%c0] : memref<1xi64>
    %hc = memref.alloca() : memref<1xi64>
    gpu.memcpy %hc, %b : memref<1xi64>, memref<1xi64> {onyx.readback}
    %vc = memref.load %hc[%c0] : memref<1xi64>
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}
