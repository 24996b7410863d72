// RUN: onyx-opt %s --onyx-cuda-host-stack-buffers \
// RUN:   --onyx-cuda-snapshot-device-scalars --onyx-cuda-form-serial-kernels \
// RUN:   --onyx-cuda-insert-readbacks --onyx-cuda-outline-dispatches \
// RUN:   --onyx-cuda-lower-reductions --onyx-cuda-lower-dispatch-loops \
// RUN:   --onyx-cuda-deduplicate-kernels --canonicalize --cse \
// RUN:   -split-input-file | FileCheck %s
//
// The kernel-forming passes of buildCUDACodegenPipeline in order, end to
// end (each has its own test). Each top-level linalg op of the entry becomes
// one kernel (the IREE seed's dispatch outlining): a gpu.module with one
// gpu.func whose arguments are the bare base pointers of the buffers it
// touches, then the dynamic dims as i64 scalars. The dims are deduplicated
// by SSA value (x, the temporary and the output share %d0 and %d1), the
// kernel rebuilds its buffers from them (memref.reinterpret_cast: the shape
// ties folded into the loads and stores), and the host computes the grid
// from the same dims (a thread per 4 f32 points: the vectorized loop). Identical kernels are one executable, launched twice.
// The metadata gains `device cuda`.

// CHECK-LABEL: module attributes {gpu.container_module
// CHECK-SAME:    device cuda
// CHECK:       func.func @onyx_main(%[[CTX:.*]]: !onyx.context) -> i32 {
// CHECK:         %[[X:.*]] = onyx.get_input %[[CTX]][0] : memref<?x?xf32>
// CHECK:         %[[D0:.*]] = memref.dim %[[X]], %c0
// CHECK:         %[[D1:.*]] = memref.dim %[[X]], %c1
// CHECK:         %[[T:.*]] = onyx.alloc_temp %[[CTX]](%[[D0]], %[[D1]])
// CHECK:         %[[XB:[^ ,]+]], %{{.*}} = memref.extract_strided_metadata %[[X]]
// CHECK:         %[[TB:[^ ,]+]], %{{.*}} = memref.extract_strided_metadata %[[T]]
// CHECK:         %[[A0:.*]] = arith.index_cast %[[D0]] : index to i64
// CHECK:         %[[A1:.*]] = arith.index_cast %[[D1]] : index to i64
// CHECK:         %[[N:.*]] = arith.muli %[[D0]], %[[D1]] : index
// CHECK:         %[[N3:.*]] = arith.addi %[[N]], %c3
// CHECK:         %[[T4:.*]] = arith.divui %[[N3]], %c4
// CHECK:         %[[R:.*]] = arith.addi %[[T4]], %c255
// CHECK:         %[[B:.*]] = arith.divui %[[R]], %c256
// CHECK:         %[[G:.*]] = arith.minui %[[B]], %c1048576
// CHECK:         gpu.launch_func @onyx_main_dispatch_0::@onyx_main_dispatch_0
// CHECK-SAME:        blocks in (%[[G]], %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK-SAME:        args(%[[XB]] : memref<f32>, %[[TB]] : memref<f32>, %[[A0]] : i64, %[[A1]] : i64)
// CHECK-SAME:        {onyx.node = "Relu_0"}
// CHECK:         %[[Y:.*]] = onyx.alloc_output %[[CTX]][0] (%[[D0]], %[[D1]])
// CHECK:         %[[YB:[^ ,]+]], %{{.*}} = memref.extract_strided_metadata %[[Y]]
// CHECK:         gpu.launch_func @onyx_main_dispatch_0::@onyx_main_dispatch_0
// CHECK-SAME:        args(%[[TB]] : memref<f32>, %[[YB]] : memref<f32>, %[[A0]] : i64, %[[A1]] : i64)
// CHECK-SAME:        {onyx.node = "Relu_1"}
// CHECK-NOT:     linalg.generic
// CHECK:         return
//
// CHECK:       gpu.module @onyx_main_dispatch_0 [#nvvm.target<O = 3, chip = "sm_90">] {
// CHECK-NEXT:    gpu.func @onyx_main_dispatch_0(%[[IN:.*]]: memref<f32>, %[[OUT:.*]]: memref<f32>, %[[S0:.*]]: i64, %[[S1:.*]]: i64) kernel
// CHECK-SAME:        known_block_size = array<i32: 256, 1, 1>
// CHECK-DAG:       %[[E0:.*]] = arith.index_cast %[[S0]] : i64 to index
// CHECK-DAG:       %[[E1:.*]] = arith.index_cast %[[S1]] : i64 to index
// CHECK:           %[[VIN:.*]] = memref.reinterpret_cast %[[IN]] to offset: [0], sizes: [%[[E0]], %[[E1]]], strides: [%[[E1]], 1] : memref<f32> to memref<?x?xf32>
// CHECK:           %[[VOUT:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [%[[E0]], %[[E1]]], strides: [%[[E1]], 1] : memref<f32> to memref<?x?xf32>
// CHECK:           %[[TOTAL:.*]] = arith.muli %[[E0]], %[[E1]] : index
// Grid-stride loop over the linearized iteration space, 4 points per thread
// with vector accesses where the buffers are aligned (the host launched a
// thread per 4 points), else one: delinearized in 32 bits under 2^31
// points, else (below) in 64.
// CHECK:           scf.if
// CHECK:             vector.load {{.*}} vector<4xf32>
// CHECK:             vector.store
// CHECK:             vector.store
// CHECK:           } else {
// CHECK:           scf.if
// CHECK:             arith.remui %{{.*}} : i32
// CHECK:           } else {
// CHECK:           gpu.thread_id x
// CHECK:           gpu.block_id x
// CHECK:           gpu.block_dim x
// CHECK:           gpu.grid_dim x
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %[[TOTAL]] step %{{.*}} {
// CHECK-NEXT:        %[[J:.*]] = arith.remui %[[I]], %[[E1]] : index
// CHECK-NEXT:        %[[K:.*]] = arith.divui %[[I]], %[[E1]] : index
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[VIN]][%[[K]], %[[J]]]
// CHECK-NEXT:        %[[M:.*]] = arith.maximumf %[[V]], %{{.*}} : f32
// CHECK-NEXT:        memref.store %[[M]], %[[VOUT]][%[[K]], %[[J]]]
// CHECK:           gpu.return
// CHECK-NOT:   gpu.module

#id = affine_map<(d0, d1) -> (d0, d1)>
module attributes {onyx.model_metadata = "onyx-model v1\0Ainput x 1 2 ?batch ?seq\0Aoutput y 1 2 ?batch ?seq\0A"} {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %x = onyx.get_input %ctx[0] : memref<?x?xf32>
    %d0 = memref.dim %x, %c0 : memref<?x?xf32>
    %d1 = memref.dim %x, %c1 : memref<?x?xf32>
    %t = onyx.alloc_temp %ctx(%d0, %d1) : memref<?x?xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%x : memref<?x?xf32>) outs(%t : memref<?x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.maximumf %in, %zero : f32
      linalg.yield %r : f32
    } loc("Relu_0")
    %y = onyx.alloc_output %ctx[0] (%d0, %d1) : memref<?x?xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%t : memref<?x?xf32>) outs(%y : memref<?x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.maximumf %in, %zero : f32
      linalg.yield %r : f32
    } loc("Relu_1")
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// A broadcast add of a constant, clipped by scalar graph inputs (ONNX Clip
// with min/max inputs). The constant lives in host memory: it is uploaded
// into a call temporary (gpu.memcpy) and the kernel reads the copy. The
// host-side loads of min/max would read device memory: they move into the
// kernel, which loads the scalars itself. A captured i1 travels as an i64.

// CHECK-LABEL: module attributes {gpu.container_module
// CHECK:       func.func @onyx_main(%[[CTX:.*]]: !onyx.context) -> i32 {
// CHECK:         %[[G:.*]] = memref.get_global @bias : memref<4xf32>
// CHECK-NEXT:    %[[GD:.*]] = onyx.alloc_temp %[[CTX]] : memref<4xf32>
// CHECK-NEXT:    gpu.memcpy %[[GD]], %[[G]] : memref<4xf32>, memref<4xf32>
// CHECK-NOT:     memref.load
// CHECK:         %[[F:.*]] = arith.extui %{{.*}} : i1 to i64
// CHECK:         gpu.launch_func @onyx_main_dispatch_0::@onyx_main_dispatch_0
// CHECK-SAME:        args(%{{.*}} : memref<f32>, %{{.*}} : memref<f32>, %{{.*}} : memref<f32>, %{{.*}} : memref<f32>, %{{.*}} : memref<f32>, %{{.*}} : i64, %[[F]] : i64)
// CHECK:       gpu.func @onyx_main_dispatch_0(%[[X:.*]]: memref<f32>, %[[B:.*]]: memref<f32>, %[[Y:.*]]: memref<f32>, %[[LO:.*]]: memref<f32>, %[[HI:.*]]: memref<f32>, %[[N:.*]]: i64, %[[FLAG:.*]]: i64) kernel
// CHECK-DAG:       arith.trunci %[[FLAG]] : i64 to i1
// CHECK-DAG:       %[[VB:.*]] = memref.reinterpret_cast %[[B]] to offset: [0], sizes: [4], strides: [1] : memref<f32> to memref<4xf32>
// CHECK-DAG:       %[[L:.*]] = memref.load %[[LO]][] : memref<f32>
// CHECK-DAG:       %[[H:.*]] = memref.load %[[HI]][] : memref<f32>
// CHECK:           scf.for
// CHECK:             memref.load %[[VB]]
// CHECK:             arith.maximumf %{{.*}}, %[[L]]
// CHECK:             arith.minimumf %{{.*}}, %[[H]]

#map2 = affine_map<(d0, d1) -> (d0, d1)>
#bcast = affine_map<(d0, d1) -> (d1)>
module attributes {onyx.model_metadata = "onyx-model v1\0Ainput x 1 2 ?n 4\0Ainput lo 1 0\0Ainput hi 1 0\0Aoutput y 1 2 ?n 4\0A"} {
  memref.global "private" constant @bias : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = onyx.get_input %ctx[0] : memref<?x4xf32>
    %lo = onyx.get_input %ctx[1] : memref<f32>
    %hi = onyx.get_input %ctx[2] : memref<f32>
    %b = memref.get_global @bias : memref<4xf32>
    %n = memref.dim %x, %c0 : memref<?x4xf32>
    %is1 = arith.cmpi eq, %n, %c1 : index
    %l = memref.load %lo[] : memref<f32>
    %h = memref.load %hi[] : memref<f32>
    %y = onyx.alloc_output %ctx[0] (%n) : memref<?x4xf32>
    linalg.generic {indexing_maps = [#map2, #bcast, #map2], iterator_types = ["parallel", "parallel"]}
        ins(%x, %b : memref<?x4xf32>, memref<4xf32>) outs(%y : memref<?x4xf32>) {
    ^bb0(%in: f32, %bias: f32, %out: f32):
      %s = arith.addf %in, %bias : f32
      %m = arith.maximumf %s, %l : f32
      %c = arith.minimumf %m, %h : f32
      %z = arith.select %is1, %in, %c : f32
      linalg.yield %z : f32
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}
