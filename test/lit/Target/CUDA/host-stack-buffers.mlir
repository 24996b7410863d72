// RUN: onyx-opt %s --onyx-cuda-host-stack-buffers | FileCheck %s
//
// In a CUDA session temporaries and pools are device memory. A small static
// buffer only the entry's own block stores to and loads from, or that is the
// shape operand of a memref.reshape (ONNX Reshape with a computed shape),
// becomes a host stack buffer; one that a loop or a kernel touches stays.

// CHECK-LABEL: func.func @onyx_main
// CHECK:         %[[SHAPE:.*]] = memref.alloca() : memref<2xi64>
// CHECK-NOT:     onyx.alloc_temp %{{.*}} : memref<2xi64>
// CHECK:         memref.store %{{.*}}, %[[SHAPE]][%c0]
// CHECK:         memref.store %{{.*}}, %[[SHAPE]][%c1]
// CHECK:         memref.reshape %{{.*}}(%[[SHAPE]])
// CHECK:         %[[KEPT:.*]] = onyx.alloc_temp %{{.*}} : memref<4xf32>
// CHECK:         scf.for
// CHECK:           memref.store %{{.*}}, %[[KEPT]]

module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %two = arith.constant 2 : i64
    %three = arith.constant 3 : i64
    %f = arith.constant 1.0 : f32
    %x = onyx.get_input %ctx[0] : memref<6xf32>
    %shape = onyx.alloc_temp %ctx : memref<2xi64>
    memref.store %two, %shape[%c0] : memref<2xi64>
    memref.store %three, %shape[%c1] : memref<2xi64>
    %r = memref.reshape %x(%shape) : (memref<6xf32>, memref<2xi64>) -> memref<2x3xf32>
    %t = onyx.alloc_temp %ctx : memref<4xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      memref.store %f, %t[%i] : memref<4xf32>
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}
