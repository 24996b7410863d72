// RUN: onyx-opt %s --onyx-cuda-outline-dispatches --canonicalize --cse \
// RUN:   -split-input-file | FileCheck %s
//
// Each linalg op of the entry outside kernels becomes one dispatch: a
// gpu.module for #nvvm.target holding one gpu.func over the bare base
// pointers of the buffers the op touches and the i64 scalars it needs, which
// rebuilds each buffer (memref.reinterpret_cast) and holds the op on the
// rebuilt buffers (onyx-cuda-lower-reductions and
// onyx-cuda-lower-dispatch-loops lower it); the host launches it with the
// grid computed from the dynamic dims (a thread per W points for a
// vectorized elementwise loop). Kernels are numbered in order;
// identical ones are merged later (onyx-cuda-deduplicate-kernels).

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
// A vectorized elementwise loop (f32: 4 points per thread): a thread per 4.
// CHECK:         %[[N3:.*]] = arith.addi %[[N]], %c3
// CHECK:         %[[T4:.*]] = arith.divui %[[N3]], %c4
// CHECK:         %[[R:.*]] = arith.addi %[[T4]], %c255
// CHECK:         %[[B:.*]] = arith.divui %[[R]], %c256
// CHECK:         %[[G:.*]] = arith.minui %[[B]], %c1048576
// CHECK:         gpu.launch_func @onyx_main_dispatch_0::@onyx_main_dispatch_0
// CHECK-SAME:        blocks in (%[[G]], %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK-SAME:        args(%[[XB]] : memref<f32>, %[[TB]] : memref<f32>, %[[A0]] : i64, %[[A1]] : i64)
// CHECK-SAME:        {onyx.node = "Relu_0"}
// CHECK:         gpu.launch_func @onyx_main_dispatch_1::@onyx_main_dispatch_1
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
// CHECK-NEXT:      linalg.generic {{.*}} ins(%[[VIN]] : memref<?x?xf32>) outs(%[[VOUT]] : memref<?x?xf32>)
// CHECK:             arith.maximumf
// CHECK:           gpu.return
// CHECK:       gpu.module @onyx_main_dispatch_1

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

// Host memory a kernel reads (a constant) is read from its session copy on
// the device; host loads of device data that only the kernel uses (ONNX
// Clip's min/max inputs) move into the kernel; a captured i1 travels as an
// i64.

// CHECK-LABEL: module attributes {gpu.container_module
// CHECK:         %[[G:.*]] = memref.get_global @bias : memref<4xf32>
// CHECK-NEXT:    %[[GD:.*]] = onyx.alloc_temp %{{.*}} : memref<4xf32>
// CHECK-NEXT:    gpu.memcpy %[[GD]], %[[G]] : memref<4xf32>, memref<4xf32> {onyx.session_constant}
// CHECK-NOT:     memref.load
// CHECK:         gpu.launch_func @onyx_main_dispatch_0::@onyx_main_dispatch_0
// CHECK:       gpu.func @onyx_main_dispatch_0(%[[X:.*]]: memref<f32>, %[[B:.*]]: memref<f32>, %[[Y:.*]]: memref<f32>, %[[LO:.*]]: memref<f32>, %[[HI:.*]]: memref<f32>, %[[N:.*]]: i64, %[[FLAG:.*]]: i64) kernel
// CHECK-DAG:       %[[VB:.*]] = memref.reinterpret_cast %[[B]] to offset: [0], sizes: [4], strides: [1] : memref<f32> to memref<4xf32>
// CHECK-DAG:       %[[L:.*]] = memref.load %[[LO]][] : memref<f32>
// CHECK-DAG:       %[[H:.*]] = memref.load %[[HI]][] : memref<f32>
// CHECK:           linalg.generic {{.*}} ins(%{{.*}}, %[[VB]] : memref<?x4xf32>, memref<4xf32>)
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

// -----

// A constant fill of a warp reduction's output right before it is absorbed
// into the reduction (onyx.reduction_init): one kernel, no fill kernel. The
// grid has 32 threads (one warp) per output element.

// CHECK-LABEL: module attributes {gpu.container_module
// CHECK:         %[[ROWS:.*]] = memref.dim %{{.*}}, %c0 : memref<?x?xf32>
// CHECK:         %[[T:.*]] = arith.muli %[[ROWS]], %c32 : index
// CHECK:         arith.addi %[[T]], %c255 : index
// CHECK:         gpu.launch_func @onyx_main_dispatch_0::@onyx_main_dispatch_0
// CHECK-NOT:     gpu.launch_func
// CHECK:       gpu.func @onyx_main_dispatch_0
// CHECK:         linalg.generic
// CHECK-SAME:      attrs = {onyx.reduction_init = 0xFF800000 : f32}

module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %neginf = arith.constant 0xFF800000 : f32
    %x = onyx.get_input %ctx[0] : memref<?x?xf32>
    %n = memref.dim %x, %c0 : memref<?x?xf32>
    %y = onyx.alloc_output %ctx[0] (%n) : memref<?xf32>
    linalg.fill ins(%neginf : f32) outs(%y : memref<?xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<?x?xf32>) outs(%y : memref<?xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %s = arith.maximumf %in, %acc : f32
      linalg.yield %s : f32
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// Named ops are generalized first: a contraction onyx-cuda-lower-library-calls
// left to the outlining (here i32, which cuBLASLt is not asked for) runs as
// a generic reduction kernel.

// CHECK-LABEL: module attributes {gpu.container_module
// CHECK:         gpu.launch_func @[[K:.*dispatch_[0-9]+]]::@[[K]]
// CHECK:       gpu.func @[[K]]
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.muli
// CHECK:           arith.addi

module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %a = onyx.get_input %ctx[0] : memref<4x8xi32>
    %b = onyx.get_input %ctx[1] : memref<8x2xi32>
    %c = onyx.alloc_output %ctx[0] : memref<4x2xi32>
    linalg.matmul ins(%a, %b : memref<4x8xi32>, memref<8x2xi32>) outs(%c : memref<4x2xi32>)
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}
