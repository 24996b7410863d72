// RUN: onyx-opt %s --onyx-cuda-snapshot-device-scalars -split-input-file \
// RUN:   | FileCheck %s
//
// A payload scalar that only device code uses is read there later than the
// host load stood, when its buffer may hold something else (the min of
// DynamicQuantizeLinear, then the max in the same buffer). It is first
// copied, on the device and in stream order, into a temporary of its own,
// which the device code reads.

// CHECK-LABEL: func.func @onyx_main
// CHECK:         %[[R:.*]] = onyx.alloc_temp %{{.*}} : memref<f32>
// CHECK-NEXT:    %[[SNAP:.*]] = onyx.alloc_temp %{{.*}} : memref<f32>
// CHECK-NEXT:    memref.copy %[[R]], %[[SNAP]] : memref<f32> to memref<f32>
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[SNAP]][] : memref<f32>
// CHECK-NEXT:    linalg.fill {{.*}} outs(%[[R]] : memref<f32>)
// CHECK:           linalg.yield %[[V]] : f32

module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %two = arith.constant 2.0 : f32
    %r = onyx.alloc_temp %ctx : memref<f32>
    %v = memref.load %r[] : memref<f32>
    linalg.fill ins(%two : f32) outs(%r : memref<f32>)
    %y = onyx.alloc_output %ctx[0] : memref<4xf32>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>],
                    iterator_types = ["parallel"]} outs(%y : memref<4xf32>) {
    ^bb0(%out: f32):
      linalg.yield %v : f32
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// Also when a host loop that will run as a serial kernel reads it (here an
// element of a larger temporary: a one-element view is copied). Loads of
// graph inputs (never written) and loads host code needs stay.

// CHECK-LABEL: func.func @onyx_main
// CHECK:         %[[T:.*]] = onyx.alloc_temp %{{.*}} : memref<8xf32>
// CHECK:         %[[E:.*]] = memref.subview %[[T]][%c3] [1] [1]
// CHECK:         %[[SNAP:.*]] = onyx.alloc_temp %{{.*}} : memref<1xf32>
// CHECK-NEXT:    memref.copy %[[E]], %[[SNAP]]
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[SNAP]][%{{.*}}] : memref<1xf32>
// CHECK:         %[[N:.*]] = memref.load %{{.*}}[] : memref<i64>
// CHECK:         %[[W:.*]] = memref.load %[[T]][%c4] : memref<8xf32>
// CHECK:         scf.for
// CHECK:           memref.store %[[V]]

module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %t = onyx.alloc_temp %ctx : memref<8xf32>
    %v = memref.load %t[%c3] : memref<8xf32>
    %in = onyx.get_input %ctx[0] : memref<i64>
    %n64 = memref.load %in[] : memref<i64>
    %n = arith.index_cast %n64 : i64 to index
    %w = memref.load %t[%c4] : memref<8xf32>
    %wi = arith.fptosi %w : f32 to i64
    %wn = arith.index_cast %wi : i64 to index
    %y = onyx.alloc_output %ctx[0] (%wn) : memref<?xf32>
    scf.for %i = %c0 to %n step %c1 {
      memref.store %v, %y[%i] : memref<?xf32>
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}
