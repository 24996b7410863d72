// RUN: onyx-opt %s --onyx-cuda-lower-library-calls --onyx-cuda-lower-launches \
// RUN:   | FileCheck %s
//
// The host side of a library call: the weight's session copy comes from
// onyxrt_cuda_constant (uploaded once per session; NULL returns 1), rebuilt
// as a memref descriptor instead of a call temporary, and the GEMM's status
// is checked (non-zero returns 1 with the runtime's message).

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @onyx_main
// CHECK-NOT:     onyx.alloc_temp
// CHECK:         %[[P:.*]] = call @onyxrt_cuda_constant(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!onyx.context, !llvm.ptr, i64, !llvm.ptr) -> !llvm.ptr
// CHECK:         %[[OK:.*]] = llvm.icmp "ne" %[[P]], %{{.*}} : !llvm.ptr
// CHECK:         cf.cond_br %[[OK]], ^[[NEXT:.*]], ^[[FAIL:.*]]
// CHECK:       ^[[NEXT]]:
// CHECK:         llvm.insertvalue %[[P]], %{{.*}}[1]
// CHECK:         builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<64x32xf32>
// CHECK-NOT:     gpu.memcpy
// CHECK:         %[[S:.*]] = call @onyxrt_cuda_gemm(
// CHECK:         %[[Z:.*]] = arith.cmpi eq, %[[S]], %{{.*}} : i32
// CHECK:         cf.cond_br %[[Z]]
// CHECK:       ^[[FAIL]]:
// CHECK:         return %{{.*}} : i32
module {
  memref.global "private" constant @w : memref<64x32xf32> = dense<1.0>
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %x = onyx.get_input %ctx[0] : memref<?x64xf32>
    %w = memref.get_global @w : memref<64x32xf32>
    %d0 = memref.dim %x, %c0 : memref<?x64xf32>
    %y = onyx.alloc_output %ctx[0] (%d0) : memref<?x32xf32>
    linalg.fill ins(%zero : f32) outs(%y : memref<?x32xf32>)
    linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x, %w : memref<?x64xf32>, memref<64x32xf32>) outs(%y : memref<?x32xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}
