// RUN: onyx-opt %s --onyx-cuda-insert-readbacks --canonicalize --cse \
// RUN:   -split-input-file -verify-diagnostics | FileCheck %s
//
// RFC Fix 3 on the CUDA target: what host code reads of device data is read
// back (gpu.memcpy marked onyx.readback, into a host stack buffer), right
// after the last op that may write device memory, so that the readbacks of
// one point are adjacent and share one synchronization
// (onyx-cuda-lower-launches).

// A size read from a tensor on the device (ONNX Reshape from a run-time
// shape input) is read back: the small static buffer is copied into a host
// stack buffer (gpu.memcpy marked onyx.readback: synchronized) right before
// the load, which then reads the host copy.

// CHECK-LABEL: func.func @onyx_main
// CHECK:         %[[S:.*]] = onyx.get_input %{{.*}}[0] : memref<1xi64>
// CHECK:         %[[HOST:.*]] = memref.alloca() : memref<1xi64>
// CHECK-NEXT:    gpu.memcpy %[[HOST]], %[[S]] : memref<1xi64>, memref<1xi64>
// CHECK-SAME:      onyx.readback
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[HOST]][%c0] : memref<1xi64>
// CHECK-NEXT:    %[[N:.*]] = arith.index_cast %[[V]] : i64 to index
// CHECK-NEXT:    onyx.alloc_output %{{.*}}[0] (%[[N]]) : memref<?xf32>

module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %s = onyx.get_input %ctx[0] : memref<1xi64>
    %v = memref.load %s[%c0] : memref<1xi64>
    %n = arith.index_cast %v : i64 to index
    %y = onyx.alloc_output %ctx[0] (%n) : memref<?xf32>
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// Several entries of the same device buffer needed at one point (a Reshape
// reading its shape input entry by entry) share one readback: one copy, one
// synchronization; a kernel in between (the fill) makes the next read copy
// again.

// CHECK-LABEL: func.func @onyx_main
// CHECK:         %[[S:.*]] = onyx.get_input %{{.*}}[0] : memref<2xi64>
// CHECK:         %[[HOST:.*]] = memref.alloca() : memref<2xi64>
// CHECK-NEXT:    gpu.memcpy %[[HOST]], %[[S]] : memref<2xi64>, memref<2xi64>
// CHECK-SAME:      onyx.readback
// CHECK-NOT:     gpu.memcpy
// CHECK:         memref.load %[[HOST]][%c0]
// CHECK-NOT:     gpu.memcpy
// CHECK:         memref.load %[[HOST]][%c1]
// CHECK:         linalg.fill
// CHECK:         %[[HOST2:.*]] = memref.alloca() : memref<2xi64>
// CHECK-NEXT:    gpu.memcpy %[[HOST2]], %[[S]]
// CHECK-SAME:      onyx.readback

module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = onyx.get_input %ctx[0] : memref<2xi64>
    %v0 = memref.load %s[%c0] : memref<2xi64>
    %n0 = arith.index_cast %v0 : i64 to index
    %v1 = memref.load %s[%c1] : memref<2xi64>
    %n1 = arith.index_cast %v1 : i64 to index
    %y = onyx.alloc_output %ctx[0] (%n0, %n1) : memref<?x?xf32>
    %f = arith.constant 1.0 : f32
    linalg.fill ins(%f : f32) outs(%y : memref<?x?xf32>)
    %v2 = memref.load %s[%c0] : memref<2xi64>
    %n2 = arith.index_cast %v2 : i64 to index
    %z = onyx.alloc_output %ctx[1] (%n2) : memref<?xf32>
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// One element of a dynamically shaped device tensor: only that element is
// read back (a one-element view of it).

// CHECK-LABEL: func.func @onyx_main
// CHECK:         %[[S:.*]] = onyx.get_input %{{.*}}[0] : memref<?xi64>
// CHECK:         %[[E:.*]] = memref.subview %[[S]][2] [1] [1] : memref<?xi64> to memref<1xi64, strided<[1], offset: 2>>
// CHECK-NEXT:    %[[HOST:.*]] = memref.alloca() : memref<1xi64>
// CHECK-NEXT:    gpu.memcpy %[[HOST]], %[[E]]
// CHECK-SAME:      onyx.readback
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[HOST]][%c0] : memref<1xi64>
// CHECK-NEXT:    arith.index_cast %[[V]] : i64 to index

module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c2 = arith.constant 2 : index
    %s = onyx.get_input %ctx[0] : memref<?xi64>
    %v = memref.load %s[%c2] : memref<?xi64>
    %n = arith.index_cast %v : i64 to index
    %y = onyx.alloc_output %ctx[0] (%n) : memref<?xf32>
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// A host read of a buffer that is host memory on one path and device memory
// on another (an If choosing between a constant and a computed tensor) is
// rejected, naming the op.

module {
  memref.global "private" constant @k : memref<2xi64> = dense<[1, 2]>
  func.func @onyx_main(%ctx: !onyx.context, %flag: i1) -> i32 {
    %c0 = arith.constant 0 : index
    %k = memref.get_global @k : memref<2xi64>
    %x = onyx.get_input %ctx[0] : memref<2xi64>
    %b = arith.select %flag, %k, %x : memref<2xi64>
    // expected-error @+1 {{the host reads a tensor that is host memory on one path and device memory on another ('memref.load' of 'memref<2xi64>'); not supported on cuda yet}}
    %v = memref.load %b[%c0] : memref<2xi64>
    %n = arith.index_cast %v : i64 to index
    %y = onyx.alloc_output %ctx[0] (%n) : memref<?xf32>
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// Readbacks are issued right after the last op that may write device
// memory (or after what they need), not at their use: the reads of two
// shape inputs are adjacent before the first output allocation, so
// onyx-cuda-lower-launches gives them one synchronization.

// CHECK-LABEL: func.func @onyx_main
// CHECK:         %[[A:.*]] = onyx.get_input %{{.*}}[0] : memref<2xi64>
// CHECK:         gpu.memcpy %{{.*}}, %[[A]] : memref<2xi64>, memref<2xi64> {onyx.readback}
// CHECK:         %[[B:.*]] = onyx.get_input %{{.*}}[1] : memref<1xi64>
// CHECK-NEXT:    memref.alloca() : memref<1xi64>
// CHECK-NEXT:    gpu.memcpy %{{.*}}, %[[B]] : memref<1xi64>, memref<1xi64> {onyx.readback}
// CHECK:         onyx.alloc_output %{{.*}}[0]
// CHECK:         onyx.alloc_output %{{.*}}[1]

module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %a = onyx.get_input %ctx[0] : memref<2xi64>
    %b = onyx.get_input %ctx[1] : memref<1xi64>
    %va = memref.load %a[%c0] : memref<2xi64>
    %na = arith.index_cast %va : i64 to index
    %y = onyx.alloc_output %ctx[0] (%na) : memref<?xf32>
    %vb = memref.load %b[%c0] : memref<1xi64>
    %nb = arith.index_cast %vb : i64 to index
    %z = onyx.alloc_output %ctx[1] (%nb) : memref<?xf32>
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// The runtime copies an inserted sequence element device to device: a host
// constant is inserted from its session copy on the device.

// CHECK-LABEL: func.func @onyx_main
// CHECK:         %[[G:.*]] = memref.get_global @c : memref<2xf32>
// CHECK:         %[[T:.*]] = onyx.alloc_temp %{{.*}} : memref<2xf32>
// CHECK-NEXT:    gpu.memcpy %[[T]], %[[G]] : memref<2xf32>, memref<2xf32> {onyx.session_constant}
// CHECK:         onyx.seq_insert %{{.*}}, %[[T]] : <f32>, memref<2xf32>

module {
  memref.global "private" constant @c : memref<2xf32> = dense<[1.0, 2.0]>
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %ok = arith.constant 0 : i32
    %g = memref.get_global @c : memref<2xf32>
    %e = onyx.seq_empty : <f32>
    %s = onyx.seq_insert %e, %g : <f32>, memref<2xf32>
    onyx.set_output_value %ctx[0], %s : !onyx.sequence<f32>
    return %ok : i32
  }
}

// -----

// The same inside host control flow (an If branch building a sequence).

// CHECK-LABEL: func.func @onyx_main
// CHECK:         scf.if
// CHECK:           %[[G:.*]] = memref.get_global @c : memref<2xf32>
// CHECK:           %[[T:.*]] = onyx.alloc_temp %{{.*}} : memref<2xf32>
// CHECK-NEXT:      gpu.memcpy %[[T]], %[[G]] : memref<2xf32>, memref<2xf32> {onyx.session_constant}
// CHECK:           onyx.seq_insert %{{.*}}, %[[T]] : <f32>, memref<2xf32>

module {
  memref.global "private" constant @c : memref<2xf32> = dense<[1.0, 2.0]>
  func.func @onyx_main(%ctx: !onyx.context, %flag: i1) -> i32 {
    %ok = arith.constant 0 : i32
    %e = onyx.seq_empty : <f32>
    %s = scf.if %flag -> (!onyx.sequence<f32>) {
      %g = memref.get_global @c : memref<2xf32>
      %t = onyx.seq_insert %e, %g : <f32>, memref<2xf32>
      scf.yield %t : !onyx.sequence<f32>
    } else {
      scf.yield %e : !onyx.sequence<f32>
    }
    onyx.set_output_value %ctx[0], %s : !onyx.sequence<f32>
    return %ok : i32
  }
}

// -----

// Host code that still writes device data when the readbacks are made
// (onyx-cuda-form-serial-kernels ran the stores it could as kernels) is
// rejected.

module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %y = onyx.alloc_output %ctx[0] : memref<4xf32>
    // expected-error @+1 {{writing tensor data on the host ('memref.store') is not supported on cuda yet (the data is on the device)}}
    memref.store %one, %y[%c0] : memref<4xf32>
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}
