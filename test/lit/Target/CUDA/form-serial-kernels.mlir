// RUN: onyx-opt %s --onyx-cuda-form-serial-kernels --canonicalize --cse \
// RUN:   -split-input-file | FileCheck %s
// RUN: onyx-opt %s --onyx-cuda-form-serial-kernels --onyx-cuda-insert-readbacks \
// RUN:   --canonicalize --cse -split-input-file | FileCheck %s --check-prefix=READ
//
// Host loop nests (and lone stores) over device data run as kernels on the
// device. The metadata gains `device cuda` and `serial <node>`.

// A store of device data on the host (a Shape result written element by
// element) runs on the device as a one-thread kernel.

// CHECK-LABEL: module attributes {gpu.container_module
// CHECK-SAME:    device cuda\0Aserial Shape_0\0A
// CHECK:         onyx.alloc_output %{{.*}}[0] : memref<4xf32>
// CHECK:         gpu.launch_func @onyx_main_dispatch_0::@onyx_main_dispatch_0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
// CHECK-NOT:     memref.store
// CHECK:         return
// CHECK:       gpu.func @onyx_main_dispatch_0(%[[Y:.*]]: memref<f32>) kernel attributes {known_block_size = array<i32: 1, 1, 1>
// CHECK:         %[[B:.*]] = memref.reinterpret_cast %[[Y]]
// CHECK:         memref.store %{{.*}}, %[[B]][%{{.*}}] : memref<4xf32>

module attributes {onyx.model_metadata = "onyx-model v1\0Aoutput y 1 1 4\0A"} {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %y = onyx.alloc_output %ctx[0] : memref<4xf32>
    memref.store %one, %y[%c0] : memref<4xf32> loc("Shape_0")
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// A host loop nest over device data (NonZero's count: a loop reading the
// input and carrying the count) is one serial kernel; its result, which
// sizes the output, comes back through a one-element device buffer and one
// synchronized download.

// CHECK-LABEL: module attributes {gpu.container_module
// CHECK:         func.func @onyx_main(%[[CTX:.*]]: !onyx.context)
// CHECK:         %[[TEMP:.*]] = onyx.alloc_temp %[[CTX]] : memref<1xi64>
// CHECK:         gpu.launch_func @onyx_main_dispatch_0::@onyx_main_dispatch_0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
// CHECK:         %[[HOST:.*]] = memref.alloca() : memref<1xi64>
// CHECK:         gpu.memcpy  %[[HOST]], %[[TEMP]] : memref<1xi64>, memref<1xi64> {onyx.readback}
// CHECK:         %[[V:.*]] = memref.load %[[HOST]][%c0] : memref<1xi64>
// CHECK:         %[[C:.*]] = arith.index_cast %[[V]] : i64 to index
// CHECK:         onyx.alloc_output %[[CTX]][0] (%[[C]])
// CHECK:       gpu.func @onyx_main_dispatch_0(%{{.*}}: memref<f32>, %{{.*}}: memref<i64>, %{{.*}}: i64) kernel attributes {known_block_size = array<i32: 1, 1, 1>}
// CHECK:         %[[COUNT:.*]] = scf.for
// CHECK:           memref.load
// CHECK:         %[[BITS:.*]] = arith.index_cast %[[COUNT]] : index to i64
// CHECK:         memref.store %[[BITS]], %{{.*}}[%c0] : memref<1xi64>

module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %x = onyx.get_input %ctx[0] : memref<?xf32>
    %n = memref.dim %x, %c0 : memref<?xf32>
    %count = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
      %v = memref.load %x[%i] : memref<?xf32>
      %nz = arith.cmpf one, %v, %zero : f32
      %inc = arith.select %nz, %c1, %c0 : index
      %next = arith.addi %acc, %inc : index
      scf.yield %next : index
    }
    %y = onyx.alloc_output %ctx[0] (%count) : memref<?xi64>
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// A host loop nest over device data whose outer iterations write disjoint
// rows (CumSum along the last axis: row i reads and writes row i only) runs
// its outer iterations on separate threads (grid-stride: lb + thread * step,
// step * threads), 256 a block; the inner scan stays sequential per thread.

// CHECK-LABEL: module attributes {gpu.container_module
// CHECK:         %[[ROWS:.*]] = memref.dim %{{.*}}, %c0 : memref<?x?xf32>
// CHECK:         gpu.launch_func @onyx_main_dispatch_0::@onyx_main_dispatch_0 blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK:       gpu.func @onyx_main_dispatch_0({{.*}}) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           scf.for {{.*}} iter_args

module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %x = onyx.get_input %ctx[0] : memref<?x?xf32>
    %n = memref.dim %x, %c0 : memref<?x?xf32>
    %m = memref.dim %x, %c1 : memref<?x?xf32>
    %y = onyx.alloc_output %ctx[0] (%n, %m) : memref<?x?xf32>
    scf.for %i = %c0 to %n step %c1 {
      %s = scf.for %j = %c0 to %m step %c1 iter_args(%acc = %zero) -> (f32) {
        %v = memref.load %x[%i, %j] : memref<?x?xf32>
        %a = arith.addf %acc, %v : f32
        memref.store %a, %y[%i, %j] : memref<?x?xf32>
        scf.yield %a : f32
      }
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// Not when iterations share what they write (a counter every iteration
// updates, like NonZero's fill): one thread.

// CHECK-LABEL: module attributes {gpu.container_module
// CHECK:         gpu.launch_func @onyx_main_dispatch_0::@onyx_main_dispatch_0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
// CHECK:       gpu.func @onyx_main_dispatch_0({{.*}}) kernel attributes {known_block_size = array<i32: 1, 1, 1>}

module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = onyx.get_input %ctx[0] : memref<?xf32>
    %n = memref.dim %x, %c0 : memref<?xf32>
    %count = onyx.alloc_output %ctx[0] : memref<i64>
    scf.for %i = %c0 to %n step %c1 {
      %old = memref.load %count[] : memref<i64>
      %one = arith.constant 1 : i64
      %new = arith.addi %old, %one : i64
      memref.store %new, %count[] : memref<i64>
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// Payload reads and serial kernels in host control flow (an If branch
// that allocates, so it stays host code around the loop). A value the entry
// reads from device memory (%k) and a serial kernel inside the If uses is a
// kernel argument: the host reads it back (onyx-cuda-insert-readbacks, in
// the entry's block, where the load is), as it does for every payload read
// host code needs. A value read in the kernel's own block (%j) is read by
// the kernel itself.

// CHECK-LABEL: module attributes {gpu.container_module
// CHECK:         %[[K:.*]] = memref.load %{{.*}}[%c0] : memref<1xi64>
// CHECK:         scf.if
// CHECK:           gpu.launch_func @onyx_main_dispatch_0::@onyx_main_dispatch_0 {{.*}} args(%{{.*}} : memref<i64>, %{{.*}} : memref<f32>, %[[K]] : i64)
// CHECK:       gpu.func @onyx_main_dispatch_0(%[[J:.*]]: memref<i64>, %{{.*}}: memref<f32>, %[[KA:.*]]: i64)
// CHECK:         %[[JB:.*]] = memref.reinterpret_cast %[[J]]
// CHECK:         %[[JV:.*]] = memref.load %[[JB]][%c0] : memref<2xi64>
// CHECK:         arith.addi %[[KA]], %[[JV]] : i64

// READ-LABEL: module attributes {gpu.container_module
// READ:         %[[IN:.*]] = onyx.get_input %{{.*}}[1] : memref<1xi64>
// READ:         %[[HOST:.*]] = memref.alloca() : memref<1xi64>
// READ-NEXT:    gpu.memcpy  %[[HOST]], %[[IN]] {{.*}} {onyx.readback}
// READ:         %[[K:.*]] = memref.load %[[HOST]][%c0] : memref<1xi64>
// READ:         scf.if
// READ:           gpu.launch_func {{.*}} %[[K]] : i64)

module {
  func.func @onyx_main(%ctx: !onyx.context, %flag: i1) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %y = onyx.alloc_output %ctx[0] : memref<8xf32>
    %kin = onyx.get_input %ctx[1] : memref<1xi64>
    %jin = onyx.get_input %ctx[2] : memref<2xi64>
    %k = memref.load %kin[%c0] : memref<1xi64>
    scf.if %flag {
      %t = onyx.alloc_temp %ctx : memref<8xf32>
      %j = memref.load %jin[%c0] : memref<2xi64>
      %b = arith.addi %k, %j : i64
      %n = arith.index_cast %b : i64 to index
      %f = arith.constant 1.0 : f32
      scf.for %i = %c0 to %n step %c1 {
        memref.store %f, %t[%i] : memref<8xf32>
      }
      memref.copy %t, %y : memref<8xf32> to memref<8xf32>
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}
