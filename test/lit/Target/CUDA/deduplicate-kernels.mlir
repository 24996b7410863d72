// RUN: onyx-opt %s --onyx-cuda-deduplicate-kernels | FileCheck %s
//
// Identical kernels (two Relus) are one executable: the second gpu.module
// goes, its launch uses the first. The kernels left are renumbered in order
// (dispatch_2 becomes dispatch_1).

// CHECK-LABEL: func.func @onyx_main
// CHECK:         gpu.launch_func @onyx_main_dispatch_0::@onyx_main_dispatch_0 {{.*}} {onyx.node = "Relu_0"}
// CHECK:         gpu.launch_func @onyx_main_dispatch_0::@onyx_main_dispatch_0 {{.*}} {onyx.node = "Relu_1"}
// CHECK:         gpu.launch_func @onyx_main_dispatch_1::@onyx_main_dispatch_1 {{.*}} {onyx.node = "Neg_2"}
// CHECK:       gpu.module @onyx_main_dispatch_0
// CHECK:         gpu.func @onyx_main_dispatch_0
// CHECK:           arith.maximumf
// CHECK:       gpu.module @onyx_main_dispatch_1
// CHECK:         gpu.func @onyx_main_dispatch_1
// CHECK:           arith.negf
// CHECK-NOT:   gpu.module

module attributes {gpu.container_module} {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c1 = arith.constant 1 : index
    %x = onyx.get_input %ctx[0] : memref<4xf32>
    %y = onyx.alloc_output %ctx[0] : memref<4xf32>
    %xb, %xo, %xs, %xt = memref.extract_strided_metadata %x : memref<4xf32> -> memref<f32>, index, index, index
    %yb, %yo, %ys, %yt = memref.extract_strided_metadata %y : memref<4xf32> -> memref<f32>, index, index, index
    gpu.launch_func @onyx_main_dispatch_0::@onyx_main_dispatch_0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%xb : memref<f32>, %yb : memref<f32>) {onyx.node = "Relu_0"}
    gpu.launch_func @onyx_main_dispatch_1::@onyx_main_dispatch_1 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%yb : memref<f32>, %yb : memref<f32>) {onyx.node = "Relu_1"}
    gpu.launch_func @onyx_main_dispatch_2::@onyx_main_dispatch_2 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%yb : memref<f32>, %yb : memref<f32>) {onyx.node = "Neg_2"}
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
  gpu.module @onyx_main_dispatch_0 {
    gpu.func @onyx_main_dispatch_0(%arg0: memref<f32>, %arg1: memref<f32>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0.0 : f32
      %in = memref.reinterpret_cast %arg0 to offset: [0], sizes: [4], strides: [1] : memref<f32> to memref<4xf32>
      %out = memref.reinterpret_cast %arg1 to offset: [0], sizes: [4], strides: [1] : memref<f32> to memref<4xf32>
      %v = memref.load %in[%c0] : memref<4xf32>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %out[%c0] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @onyx_main_dispatch_1 {
    gpu.func @onyx_main_dispatch_1(%arg0: memref<f32>, %arg1: memref<f32>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0.0 : f32
      %in = memref.reinterpret_cast %arg0 to offset: [0], sizes: [4], strides: [1] : memref<f32> to memref<4xf32>
      %out = memref.reinterpret_cast %arg1 to offset: [0], sizes: [4], strides: [1] : memref<f32> to memref<4xf32>
      %v = memref.load %in[%c0] : memref<4xf32>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %out[%c0] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @onyx_main_dispatch_2 {
    gpu.func @onyx_main_dispatch_2(%arg0: memref<f32>, %arg1: memref<f32>) kernel {
      %c0 = arith.constant 0 : index
      %in = memref.reinterpret_cast %arg0 to offset: [0], sizes: [4], strides: [1] : memref<f32> to memref<4xf32>
      %out = memref.reinterpret_cast %arg1 to offset: [0], sizes: [4], strides: [1] : memref<f32> to memref<4xf32>
      %v = memref.load %in[%c0] : memref<4xf32>
      %r = arith.negf %v : f32
      memref.store %r, %out[%c0] : memref<4xf32>
      gpu.return
    }
  }
}
