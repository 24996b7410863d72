// RUN: onyx-opt %s --onyx-cuda-lower-launches="profile=true" | FileCheck %s
// RUN: onyx-opt %s --onyx-cuda-lower-launches | FileCheck %s --check-prefix=PLAIN
//
// onyx-compile --profile on the CUDA target: before each launch, the
// run-time shapes of the buffers whose base pointers the kernel takes (the
// sources of their memref.extract_strided_metadata, each once) are stored
// into one stack table (1 + (1 + 2) + (1 + 1) = 6 slots here) of the entry -- count, then rank and dims of each --
// and handed to onyxrt_cuda_profile_shapes, which a profiling session puts
// in the launch's trace event. Scalars (%n) are not buffers. Without the
// option nothing is emitted.

// CHECK:       func.func @onyx_main(%[[CTX:.*]]: !onyx.context) -> i32 {
// CHECK:         %[[SIZE:.*]] = arith.constant 6 : i64
// CHECK:         %[[TABLE:.*]] = llvm.alloca %[[SIZE]] x i64 {alignment = 8 : i64}
// CHECK:         %[[BASE:.*]], %{{.*}}, %[[SIZES:.*]]:2, %{{.*}}:2 = memref.extract_strided_metadata %[[X:.*]] : memref<?x3xf32>
// CHECK:         %[[YBASE:.*]], %{{.*}}, %[[YSIZE:.*]], %{{.*}} = memref.extract_strided_metadata %{{.*}} : memref<6xf32>
// CHECK:         %[[C2:.*]] = arith.constant 2 : i64
// CHECK:         %[[G0:.*]] = llvm.getelementptr %[[TABLE]][0]
// CHECK:         llvm.store %[[C2]], %[[G0]]
// CHECK:         %[[R0:.*]] = arith.constant 2 : i64
// CHECK:         %[[G1:.*]] = llvm.getelementptr %[[TABLE]][1]
// CHECK:         llvm.store %[[R0]], %[[G1]]
// CHECK:         %[[D0:.*]] = arith.index_cast %[[SIZES]]#0 : index to i64
// CHECK:         %[[G2:.*]] = llvm.getelementptr %[[TABLE]][2]
// CHECK:         llvm.store %[[D0]], %[[G2]]
// CHECK:         %[[D1:.*]] = arith.index_cast %[[SIZES]]#1 : index to i64
// CHECK:         llvm.getelementptr %[[TABLE]][3]
// CHECK:         %[[R1:.*]] = arith.constant 1 : i64
// CHECK:         llvm.getelementptr %[[TABLE]][4]
// CHECK:         arith.index_cast %[[YSIZE]] : index to i64
// CHECK:         llvm.getelementptr %[[TABLE]][5]
// CHECK-NOT:     llvm.getelementptr %[[TABLE]][6]
// CHECK:         call @onyxrt_cuda_profile_shapes(%[[CTX]], %[[TABLE]]) : (!onyx.context, !llvm.ptr) -> ()
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[BASE]]
// CHECK:         call @onyxrt_cuda_launch(%[[CTX]],
// CHECK:         func.func private @onyxrt_cuda_profile_shapes(!onyx.context, !llvm.ptr){{$}}

// PLAIN-NOT:   onyxrt_cuda_profile_shapes
// PLAIN:       call @onyxrt_cuda_launch(
// PLAIN-NOT:   onyxrt_cuda_profile_shapes

module attributes {gpu.container_module} {
  gpu.binary @k [#gpu.object<#nvvm.target<chip = "sm_90">, bin = "CUBIN">]
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %x = onyx.get_input %ctx[0] : memref<?x3xf32>
    %y = onyx.alloc_temp %ctx : memref<6xf32>
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %x
        : memref<?x3xf32> -> memref<f32>, index, index, index, index, index
    %ybase, %yoffset, %ysize, %ystride = memref.extract_strided_metadata %y
        : memref<6xf32> -> memref<f32>, index, index, index
    %n = arith.index_cast %sizes#0 : index to i64
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%base : memref<f32>, %ybase : memref<f32>, %base : memref<f32>, %n : i64) {onyx.node = "Add_0"}
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}
