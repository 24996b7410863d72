// RUN: onyx-opt %s --onyx-cuda-host-stack-buffers \
// RUN:   --onyx-cuda-snapshot-device-scalars --onyx-cuda-form-serial-kernels \
// RUN:   --onyx-cuda-insert-readbacks --onyx-cuda-outline-dispatches \
// RUN:   --onyx-cuda-lower-reductions --onyx-cuda-lower-dispatch-loops \
// RUN:   --onyx-cuda-deduplicate-kernels --canonicalize --cse \
// RUN:   -split-input-file -verify-diagnostics | FileCheck %s
//
// Each top-level linalg op of the entry becomes one kernel (the IREE seed's
// dispatch outlining): a gpu.module with one gpu.func whose arguments are the
// bare base pointers of the buffers it touches, then the dynamic dims as i64
// scalars. The dims are deduplicated by SSA value (x, the temporary and the
// output share %d0 and %d1), the kernel rebuilds its buffers from them
// (memref.reinterpret_cast: the shape ties folded into the loads and stores),
// and the host computes the grid from the same dims. Identical kernels are
// one executable, launched twice. The metadata gains `device cuda`.

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
// CHECK:         %[[R:.*]] = arith.addi %[[N]], %c255
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
// CHECK:           gpu.thread_id x
// CHECK:           gpu.block_id x
// CHECK:           gpu.block_dim x
// CHECK:           gpu.grid_dim x
// Grid-stride loop over the linearized iteration space.
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

// -----

// A short static reduction: one thread per output element (the grid covers
// the parallel dims only), a serial loop over the reduction dim.

// CHECK-LABEL: module attributes {gpu.container_module
// CHECK:       %[[ROWS:.*]] = memref.dim %{{.*}}, %c0 : memref<?x8xf32>
// CHECK:       %[[R:.*]] = arith.addi %[[ROWS]], %c255 : index
// CHECK:       gpu.func @onyx_main_dispatch_0
// CHECK:         scf.for %[[ROW:.*]] = %{{.*}} to %[[NROWS:.*]] step %{{.*}} {
// CHECK-NEXT:      scf.for %[[COL:.*]] = %c0 to %c8 step %c1 {
// CHECK-NEXT:        memref.load %{{.*}}[%[[ROW]], %[[COL]]] : memref<?x8xf32>
// CHECK-NEXT:        memref.load %{{.*}}[%[[ROW]]] : memref<?xf32>
// CHECK-NEXT:        arith.addf
// CHECK-NEXT:        memref.store %{{.*}}, %{{.*}}[%[[ROW]]] : memref<?xf32>

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = onyx.get_input %ctx[0] : memref<?x8xf32>
    %n = memref.dim %x, %c0 : memref<?x8xf32>
    %y = onyx.alloc_output %ctx[0] (%n) : memref<?xf32>
    linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<?x8xf32>) outs(%y : memref<?xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// A long (here dynamic) reduction: one warp per output element. The grid
// covers 32 threads per row; each lane folds every 32nd element into a
// register starting from the combiner's identity, a shuffle butterfly
// combines the lanes, and lane 0 combines the result into the output.

// CHECK-LABEL: module attributes {gpu.container_module
// CHECK:       %[[ROWS:.*]] = memref.dim %{{.*}}, %c0 : memref<?x?xf32>
// CHECK:       %[[T:.*]] = arith.muli %[[ROWS]], %c32 : index
// CHECK:       arith.addi %[[T]], %c255 : index
// CHECK:       gpu.func @onyx_main_dispatch_0
// CHECK-DAG:     %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[LANE:.*]] = arith.remui %{{.*}}, %c32 : index
// CHECK:         scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[ACC:.*]] = scf.for %[[COL:.*]] = %[[LANE]] to %{{.*}} step %c32 iter_args(%[[A:.*]] = %[[NEGINF]]) -> (f32) {
// CHECK-NEXT:        %[[V:.*]] = memref.load %{{.*}}[%[[ROW]], %[[COL]]] : memref<?x?xf32>
// CHECK-NEXT:        %[[M:.*]] = arith.maximumf %[[A]], %[[V]] : f32
// CHECK-NEXT:        scf.yield %[[M]] : f32
// CHECK:           gpu.shuffle  xor %[[ACC]], %c16_i32, %c32_i32 : f32
// CHECK-COUNT-4:   gpu.shuffle  xor
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0 : index
// CHECK-NEXT:      scf.if %[[FIRST]] {
// CHECK-NEXT:        %[[OLD:.*]] = memref.load %{{.*}}[%[[ROW]]] : memref<?xf32>
// CHECK-NEXT:        %[[NEW:.*]] = arith.maximumf %[[OLD]], %{{.*}} : f32
// CHECK-NEXT:        memref.store %[[NEW]], %{{.*}}[%[[ROW]]] : memref<?xf32>

module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = onyx.get_input %ctx[0] : memref<?x?xf32>
    %n = memref.dim %x, %c0 : memref<?x?xf32>
    %y = onyx.alloc_output %ctx[0] (%n) : memref<?xf32>
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

// An f32 sum reduced by a warp accumulates in f64 (a lane may fold millions
// of elements); the lanes exchange f64 as two 32-bit shuffles, and the sum
// is rounded to f32 once, before it is added to the output.

// CHECK-LABEL: module attributes {gpu.container_module
// CHECK:       gpu.func @onyx_main_dispatch_0
// CHECK:           %[[ACC:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (f64) {
// CHECK:             %[[V:.*]] = memref.load %{{.*}} : memref<?x?xf32>
// CHECK-NEXT:        %[[W:.*]] = arith.extf %[[V]] : f32 to f64
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[A]], %[[W]] : f64
// CHECK:           gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : i32
// CHECK-COUNT-9:   gpu.shuffle  xor {{.*}} : i32
// CHECK:           %[[R:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK:           scf.if
// CHECK:             arith.addf %{{.*}}, %[[R]] : f32

module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %x = onyx.get_input %ctx[0] : memref<?x?xf32>
    %n = memref.dim %x, %c0 : memref<?x?xf32>
    %y = onyx.alloc_output %ctx[0] (%n) : memref<?xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<?x?xf32>) outs(%y : memref<?xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// A constant fill of a warp reduction's output right before it is absorbed:
// one kernel, whose lane 0 writes max(-inf, lanes) (folded to the lanes'
// max) instead of reading the element back.

// CHECK-LABEL: module attributes {gpu.container_module
// CHECK:         gpu.launch_func @onyx_main_dispatch_0::@onyx_main_dispatch_0
// CHECK-NOT:     gpu.launch_func
// CHECK:       gpu.func @onyx_main_dispatch_0
// CHECK:         gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK-NEXT:    %[[LANES:.*]] = arith.maximumf
// CHECK-NEXT:    arith.cmpi eq
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      memref.store %[[LANES]]

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

// Named contractions that onyx-cuda-lower-library-calls left to the
// outlining (here: i32, which cuBLASLt is not asked for) are generalized and
// run as reduction kernels.

// CHECK-LABEL: module attributes {gpu.container_module
// CHECK:         gpu.launch_func @[[K:.*dispatch_[0-9]+]]::@[[K]]
// CHECK:       gpu.func @[[K]]
// CHECK:         arith.muli
// CHECK:         arith.addi

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

// -----

// A size read from a tensor on the device (ONNX Reshape from a run-time
// shape input) is read back: the small static buffer is copied into a host
// stack buffer (gpu.memcpy marked onyx.readback: synchronized) right before
// the load, which then reads the host copy.

// CHECK-LABEL: module attributes {gpu.container_module
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
// synchronization; a kernel in between makes the next read copy again.

// CHECK-LABEL: module attributes {gpu.container_module
// CHECK:         %[[S:.*]] = onyx.get_input %{{.*}}[0] : memref<2xi64>
// CHECK:         %[[HOST:.*]] = memref.alloca() : memref<2xi64>
// CHECK-NEXT:    gpu.memcpy %[[HOST]], %[[S]] : memref<2xi64>, memref<2xi64>
// CHECK-SAME:      onyx.readback
// CHECK-NOT:     gpu.memcpy
// CHECK:         memref.load %[[HOST]][%c0]
// CHECK-NOT:     gpu.memcpy
// CHECK:         memref.load %[[HOST]][%c1]
// CHECK:         gpu.launch_func
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

// CHECK-LABEL: module attributes {gpu.container_module
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

// A store of device data on the host (a Shape result written element by
// element) runs on the device as a one-thread kernel.

// CHECK-LABEL: module attributes {gpu.container_module
// CHECK:         onyx.alloc_output %{{.*}}[0] : memref<4xf32>
// CHECK:         gpu.launch_func @onyx_main_dispatch_0::@onyx_main_dispatch_0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
// CHECK-NOT:     memref.store
// CHECK:         return
// CHECK:       gpu.func @onyx_main_dispatch_0(%[[Y:.*]]: memref<f32>) kernel attributes {known_block_size = array<i32: 1, 1, 1>
// CHECK:         %[[B:.*]] = memref.reinterpret_cast %[[Y]]
// CHECK:         memref.store %{{.*}}, %[[B]][%{{.*}}] : memref<4xf32>

module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %y = onyx.alloc_output %ctx[0] : memref<4xf32>
    memref.store %one, %y[%c0] : memref<4xf32>
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

// CHECK-LABEL: module attributes {gpu.container_module
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

// A payload scalar that only kernels use is read inside them, later than
// the host load stood; its buffer is overwritten before that (the min of
// DynamicQuantizeLinear, then the max in the same buffer). It is first
// copied on the device into a temporary of its own, which the kernel reads.

// CHECK-LABEL: module attributes {gpu.container_module
// CHECK:         onyx.alloc_temp %{{.*}} : memref<f32>
// CHECK:         onyx.alloc_temp %{{.*}} : memref<f32>
// CHECK:         gpu.launch_func @onyx_main_dispatch_0::@onyx_main_dispatch_0 {{.*}} args(%{{.*}} : memref<f32>, %[[SNAP:.*]] : memref<f32>)
// CHECK:         gpu.launch_func @onyx_main_dispatch_1::@onyx_main_dispatch_1
// CHECK:         gpu.launch_func @onyx_main_dispatch_2::@onyx_main_dispatch_2 {{.*}} args(%{{.*}} : memref<f32>, %[[SNAP]] : memref<f32>)

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

// The runtime copies an inserted sequence element device to device: a host
// constant is inserted from its session copy on the device.

// CHECK-LABEL: module attributes {gpu.container_module
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

// CHECK-LABEL: module attributes {gpu.container_module
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
