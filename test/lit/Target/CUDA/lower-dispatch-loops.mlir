// RUN: onyx-opt %s --onyx-cuda-lower-dispatch-loops --canonicalize --cse \
// RUN:   -split-input-file | FileCheck %s
//
// Dispatch kernels as onyx-cuda-outline-dispatches makes them (the op on
// the rebuilt buffers). The op becomes a grid-stride loop over its
// linearized parallel iteration space; dims of the rebuilt buffers are the
// sizes they were rebuilt with.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:       gpu.module @onyx_main_dispatch_0 [#nvvm.target<O = 3, chip = "sm_90">] {
// CHECK-NEXT:    gpu.func @onyx_main_dispatch_0(%[[IN:.*]]: memref<f32>, %[[OUT:.*]]: memref<f32>, %[[S0:.*]]: i64, %[[S1:.*]]: i64) kernel
// CHECK-SAME:        known_block_size = array<i32: 256, 1, 1>
// CHECK-DAG:       %[[E0:.*]] = arith.index_cast %[[S0]] : i64 to index
// CHECK-DAG:       %[[E1:.*]] = arith.index_cast %[[S1]] : i64 to index
// CHECK:           %[[VIN:.*]] = memref.reinterpret_cast %[[IN]] to offset: [0], sizes: [%[[E0]], %[[E1]]], strides: [%[[E1]], 1] : memref<f32> to memref<?x?xf32>
// CHECK:           %[[VOUT:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [%[[E0]], %[[E1]]], strides: [%[[E1]], 1] : memref<f32> to memref<?x?xf32>
// CHECK:           %[[TOTAL:.*]] = arith.muli %[[E0]], %[[E1]] : index
// The vector loop where the buffers are aligned (its 32- and 64-bit forms;
// see the vector cases below), else the scalar loop.
// CHECK:           scf.if %{{.*}} {
// CHECK:             vector.store
// CHECK:             vector.store
// CHECK:           } else {
// Under 2^31 points (known only at run time here): 32-bit divisions.
// CHECK:           %[[FITS:.*]] = arith.cmpi ule, %[[TOTAL]], %c2147483647 : index
// CHECK:           scf.if %[[FITS]] {
// CHECK:             gpu.thread_id x
// CHECK:             gpu.block_id x
// CHECK:             gpu.block_dim x
// CHECK:             gpu.grid_dim x
// CHECK:             scf.for %[[I:.*]] = %{{.*}} to %[[TOTAL]] step %{{.*}} {
// CHECK-NEXT:          %[[I32:.*]] = arith.index_castui %[[I]] : index to i32
// CHECK-NEXT:          %[[N32:.*]] = arith.index_castui %[[E1]] : index to i32
// CHECK-NEXT:          %[[J32:.*]] = arith.remui %[[I32]], %[[N32]] : i32
// CHECK-NEXT:          %[[J:.*]] = arith.index_castui %[[J32]] : i32 to index
// CHECK-NEXT:          %[[K32:.*]] = arith.divui %[[I32]], %[[N32]] : i32
// CHECK-NEXT:          %[[K:.*]] = arith.index_castui %[[K32]] : i32 to index
// CHECK-NEXT:          %[[V:.*]] = memref.load %[[VIN]][%[[K]], %[[J]]]
// CHECK-NEXT:          %[[M:.*]] = arith.maximumf %[[V]], %{{.*}} : f32
// CHECK-NEXT:          memref.store %[[M]], %[[VOUT]][%[[K]], %[[J]]]
// CHECK:           } else {
// CHECK:             scf.for %[[I:.*]] = %{{.*}} to %[[TOTAL]] step %{{.*}} {
// CHECK-NEXT:          %[[J:.*]] = arith.remui %[[I]], %[[E1]] : index
// CHECK-NEXT:          %[[K:.*]] = arith.divui %[[I]], %[[E1]] : index
// CHECK-NEXT:          %[[V:.*]] = memref.load %[[VIN]][%[[K]], %[[J]]]
// CHECK-NEXT:          %[[M:.*]] = arith.maximumf %[[V]], %{{.*}} : f32
// CHECK-NEXT:          memref.store %[[M]], %[[VOUT]][%[[K]], %[[J]]]
// CHECK:           }
// CHECK:           gpu.return
// CHECK-NOT:   gpu.module

module attributes {gpu.container_module} {
  gpu.module @onyx_main_dispatch_0 [#nvvm.target<O = 3, chip = "sm_90">] {
    gpu.func @onyx_main_dispatch_0(%arg0: memref<f32>, %arg1: memref<f32>, %arg2: i64, %arg3: i64) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %cst = arith.constant 0.000000e+00 : f32
      %0 = arith.index_cast %arg2 : i64 to index
      %1 = arith.index_cast %arg3 : i64 to index
      %reinterpret_cast = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%0, %1], strides: [%1, 1] : memref<f32> to memref<?x?xf32>
      %reinterpret_cast_0 = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%0, %1], strides: [%1, 1] : memref<f32> to memref<?x?xf32>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%reinterpret_cast : memref<?x?xf32>) outs(%reinterpret_cast_0 : memref<?x?xf32>) {
      ^bb0(%in: f32, %out: f32):
        %2 = arith.maximumf %in, %cst : f32
        linalg.yield %2 : f32
      }
      gpu.return
    }
  }
}

// -----

// A static parallel space under 2^31 points: only the 32-bit loops (the
// vector one over 8 groups of 4 points, the scalar one over 32 points).

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:       gpu.func @onyx_main_dispatch_0
// CHECK:         scf.if %{{.*}} {
// CHECK-NOT:       scf.if
// CHECK:           scf.for %[[G:.*]] = %{{.*}} to %c8 step %{{.*}} {
// CHECK-NEXT:        %[[I4:.*]] = arith.muli %[[G]], %c4 : index
// CHECK-NEXT:        %[[I32:.*]] = arith.index_castui %[[I4]] : index to i32
// CHECK-NEXT:        %[[J32:.*]] = arith.remui %[[I32]], %c8_i32 : i32
// CHECK-NEXT:        %[[J:.*]] = arith.index_castui %[[J32]] : i32 to index
// CHECK-NEXT:        %[[K32:.*]] = arith.divui %[[I32]], %c8_i32 : i32
// CHECK-NEXT:        %[[K:.*]] = arith.index_castui %[[K32]] : i32 to index
// CHECK-NEXT:        vector.load %{{.*}}[%[[K]], %[[J]]] {alignment = 16 : i64} : memref<4x8xf32>, vector<4xf32>
// CHECK:         } else {
// CHECK-NOT:       scf.if
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %c32 step %{{.*}} {
// CHECK-NEXT:      %[[I32:.*]] = arith.index_castui %[[I]] : index to i32
// CHECK-NEXT:      %[[J32:.*]] = arith.remui %[[I32]], %c8_i32 : i32
// CHECK-NEXT:      %[[J:.*]] = arith.index_castui %[[J32]] : i32 to index
// CHECK-NEXT:      %[[K32:.*]] = arith.divui %[[I32]], %c8_i32 : i32
// CHECK-NEXT:      %[[K:.*]] = arith.index_castui %[[K32]] : i32 to index
// CHECK-NEXT:      memref.load %{{.*}}[%[[K]], %[[J]]] : memref<4x8xf32>
// CHECK-NOT:     arith.remui %{{.*}} : index

module attributes {gpu.container_module} {
  gpu.module @onyx_main_dispatch_0 [#nvvm.target<O = 3, chip = "sm_90">] {
    gpu.func @onyx_main_dispatch_0(%arg0: memref<f32>, %arg1: memref<f32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %cst = arith.constant 0.000000e+00 : f32
      %reinterpret_cast = memref.reinterpret_cast %arg0 to offset: [0], sizes: [4, 8], strides: [8, 1] : memref<f32> to memref<4x8xf32>
      %reinterpret_cast_0 = memref.reinterpret_cast %arg1 to offset: [0], sizes: [4, 8], strides: [8, 1] : memref<f32> to memref<4x8xf32>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%reinterpret_cast : memref<4x8xf32>) outs(%reinterpret_cast_0 : memref<4x8xf32>) {
      ^bb0(%in: f32, %out: f32):
        %2 = arith.maximumf %in, %cst : f32
        linalg.yield %2 : f32
      }
      gpu.return
    }
  }
}

// -----

// A short static reduction: one thread per output element, a serial loop
// over the reduction dim.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:       gpu.func @onyx_main_dispatch_0
// CHECK:         scf.for %[[ROW:.*]] = %{{.*}} to %[[NROWS:.*]] step %{{.*}} {
// CHECK-NEXT:      scf.for %[[COL:.*]] = %c0 to %c8 step %c1 {
// CHECK-NEXT:        memref.load %{{.*}}[%[[ROW]], %[[COL]]] : memref<?x8xf32>
// CHECK-NEXT:        memref.load %{{.*}}[%[[ROW]]] : memref<?xf32>
// CHECK-NEXT:        arith.addf
// CHECK-NEXT:        memref.store %{{.*}}, %{{.*}}[%[[ROW]]] : memref<?xf32>

module attributes {gpu.container_module} {
  gpu.module @onyx_main_dispatch_0 [#nvvm.target<O = 3, chip = "sm_90">] {
    gpu.func @onyx_main_dispatch_0(%arg0: memref<f32>, %arg1: memref<f32>, %arg2: i64) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %0 = arith.index_cast %arg2 : i64 to index
      %reinterpret_cast = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%0, 8], strides: [8, 1] : memref<f32> to memref<?x8xf32>
      %reinterpret_cast_0 = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%0], strides: [1] : memref<f32> to memref<?xf32>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%reinterpret_cast : memref<?x8xf32>) outs(%reinterpret_cast_0 : memref<?xf32>) {
      ^bb0(%in: f32, %out: f32):
        %1 = arith.addf %in, %out : f32
        linalg.yield %1 : f32
      }
      gpu.return
    }
  }
}

// -----

// A reduction over every loop into integers (the Gather lowering's index
// range check: min and max of all indices): each thread folds a strided
// slice into registers from the identities, then combines into the
// outputs atomically (not one thread walking every index).

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:       gpu.func @onyx_main_dispatch_0(%[[IDS:.*]]: memref<i64>, %[[MIN:.*]]: memref<i64>, %[[MAX:.*]]: memref<i64>, %[[S0:.*]]: i64, %[[S1:.*]]: i64)
// CHECK-DAG:     %[[HI:.*]] = arith.constant 9223372036854775807 : i64
// CHECK-DAG:     %[[LO:.*]] = arith.constant -9223372036854775808 : i64
// CHECK:         %[[R:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[HI]], %[[B:.*]] = %[[LO]]) -> (i64, i64) {
// CHECK:           %[[V:.*]] = memref.load
// CHECK-NEXT:      %[[A2:.*]] = arith.minsi %[[A]], %[[V]] : i64
// CHECK-NEXT:      %[[B2:.*]] = arith.maxsi %[[B]], %[[V]] : i64
// CHECK-NEXT:      scf.yield %[[A2]], %[[B2]] : i64, i64
// CHECK:         memref.atomic_rmw mins %[[R]]#0, %[[MIN]][] : (i64, memref<i64>) -> i64
// CHECK-NEXT:    memref.atomic_rmw maxs %[[R]]#1, %[[MAX]][] : (i64, memref<i64>) -> i64
// CHECK-NEXT:    gpu.return

module attributes {gpu.container_module} {
  gpu.module @onyx_main_dispatch_0 [#nvvm.target<O = 3, chip = "sm_90">] {
    gpu.func @onyx_main_dispatch_0(%arg0: memref<i64>, %arg1: memref<i64>, %arg2: memref<i64>, %arg3: i64, %arg4: i64) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %0 = arith.index_cast %arg3 : i64 to index
      %1 = arith.index_cast %arg4 : i64 to index
      %ids = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%0, %1], strides: [%1, 1] : memref<i64> to memref<?x?xi64>
      %min = memref.reinterpret_cast %arg1 to offset: [0], sizes: [], strides: [] : memref<i64> to memref<i64>
      %max = memref.reinterpret_cast %arg2 to offset: [0], sizes: [], strides: [] : memref<i64> to memref<i64>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%ids : memref<?x?xi64>) outs(%min, %max : memref<i64>, memref<i64>) {
      ^bb0(%in: i64, %out: i64, %out_0: i64):
        %2 = arith.minsi %out, %in : i64
        %3 = arith.maxsi %out_0, %in : i64
        linalg.yield %2, %3 : i64, i64
      }
      gpu.return
    }
  }
}

// -----

// The same fold into f32 (not exact in another order) stays a serial loop
// on one thread.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:       gpu.func @onyx_main_dispatch_0
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         gpu.return

module attributes {gpu.container_module} {
  gpu.module @onyx_main_dispatch_0 [#nvvm.target<O = 3, chip = "sm_90">] {
    gpu.func @onyx_main_dispatch_0(%arg0: memref<f32>, %arg1: memref<f32>, %arg2: memref<f32>, %arg3: i64, %arg4: i64) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %0 = arith.index_cast %arg3 : i64 to index
      %1 = arith.index_cast %arg4 : i64 to index
      %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%0, %1], strides: [%1, 1] : memref<f32> to memref<?x?xf32>
      %min = memref.reinterpret_cast %arg1 to offset: [0], sizes: [], strides: [] : memref<f32> to memref<f32>
      %max = memref.reinterpret_cast %arg2 to offset: [0], sizes: [], strides: [] : memref<f32> to memref<f32>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%x : memref<?x?xf32>) outs(%min, %max : memref<f32>, memref<f32>) {
      ^bb0(%in: f32, %out: f32, %out_0: f32):
        %2 = arith.minimumf %out, %in : f32
        %3 = arith.maximumf %out_0, %in : f32
        linalg.yield %2, %3 : f32, f32
      }
      gpu.return
    }
  }
}

// -----

// A bool fold (andi over i1: NLLLoss/SoftmaxCrossEntropyLoss's checks) stays
// serial too: LLVM's atomicrmw takes no i1.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:       gpu.func @onyx_main_dispatch_0
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         arith.andi
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         gpu.return

module attributes {gpu.container_module} {
  gpu.module @onyx_main_dispatch_0 [#nvvm.target<O = 3, chip = "sm_90">] {
    gpu.func @onyx_main_dispatch_0(%arg0: memref<i1>, %arg1: memref<i1>, %arg2: i64) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %0 = arith.index_cast %arg2 : i64 to index
      %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%0], strides: [1] : memref<i1> to memref<?xi1>
      %all = memref.reinterpret_cast %arg1 to offset: [0], sizes: [], strides: [] : memref<i1> to memref<i1>
      linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : memref<?xi1>) outs(%all : memref<i1>) {
      ^bb0(%in: i1, %out: i1):
        %2 = arith.andi %out, %in : i1
        linalg.yield %2 : i1
      }
      gpu.return
    }
  }
}

// -----

// A static f16 bias Add (the FFN's [tokens, 3072] kernel, smaller), 4 x 64
// points: 8 per thread, one 16-byte load of x and of the bias and one
// store per 8, the body cloned per point (f32 arithmetic inside); the
// static offsets and strides fold, the base pointers' alignment is checked
// in the kernel, the scalar loop is the fallback.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:       gpu.func @onyx_main_dispatch_0
// CHECK:         %[[X:.*]] = memref.reinterpret_cast %arg0
// CHECK:         %[[B:.*]] = memref.reinterpret_cast %arg1
// CHECK:         %[[Y:.*]] = memref.reinterpret_cast %arg2
// CHECK:         %[[PX:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK-NEXT:    %[[RX:.*]] = arith.remui %[[PX]], %c16 : index
// CHECK-NEXT:    %[[OX:.*]] = arith.cmpi eq, %[[RX]], %c0 : index
// CHECK-NEXT:    %[[PB:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
// CHECK-NEXT:    %[[RB:.*]] = arith.remui %[[PB]], %c16 : index
// CHECK-NEXT:    %[[OB:.*]] = arith.cmpi eq, %[[RB]], %c0 : index
// CHECK-NEXT:    %[[OXB:.*]] = arith.andi %[[OX]], %[[OB]] : i1
// CHECK-NEXT:    %[[PY:.*]] = memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK-NEXT:    %[[RY:.*]] = arith.remui %[[PY]], %c16 : index
// CHECK-NEXT:    %[[OY:.*]] = arith.cmpi eq, %[[RY]], %c0 : index
// CHECK-NEXT:    %[[OK:.*]] = arith.andi %[[OXB]], %[[OY]] : i1
// CHECK-NEXT:    scf.if %[[OK]] {
// CHECK:           scf.for %[[G:.*]] = %{{.*}} to %c32 step %{{.*}} {
// CHECK-NEXT:        %[[I:.*]] = arith.muli %[[G]], %c8 : index
// CHECK:             %[[J:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK:             %[[K:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK-NEXT:        %[[VX:.*]] = vector.load %[[X]][%[[K]], %[[J]]] {alignment = 16 : i64} : memref<4x64xf16>, vector<8xf16>
// CHECK-COUNT-8:     vector.extract %[[VX]]
// CHECK-NEXT:        %[[VB:.*]] = vector.load %[[B]][%[[J]]] {alignment = 16 : i64} : memref<64xf16>, vector<8xf16>
// CHECK-COUNT-8:     vector.extract %[[VB]]
// CHECK-COUNT-8:     arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT:        %[[V:.*]] = vector.from_elements %{{.*}} : vector<8xf16>
// CHECK-NEXT:        vector.store %[[V]], %[[Y]][%[[K]], %[[J]]] {alignment = 16 : i64} : memref<4x64xf16>, vector<8xf16>
// CHECK:         } else {
// CHECK:           scf.for %{{.*}} = %{{.*}} to %c256 step
// CHECK:             memref.load %[[X]]
// CHECK:             memref.load %[[B]]
// CHECK:             memref.store %{{.*}}, %[[Y]]

module attributes {gpu.container_module} {
  gpu.module @onyx_main_dispatch_0 [#nvvm.target<O = 3, chip = "sm_90">] {
    gpu.func @onyx_main_dispatch_0(%arg0: memref<f16>, %arg1: memref<f16>, %arg2: memref<f16>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [4, 64], strides: [64, 1] : memref<f16> to memref<4x64xf16>
      %b = memref.reinterpret_cast %arg1 to offset: [0], sizes: [64], strides: [1] : memref<f16> to memref<64xf16>
      %y = memref.reinterpret_cast %arg2 to offset: [0], sizes: [4, 64], strides: [64, 1] : memref<f16> to memref<4x64xf16>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : memref<4x64xf16>, memref<64xf16>) outs(%y : memref<4x64xf16>) {
      ^bb0(%in: f16, %in_0: f16, %out: f16):
        %0 = arith.extf %in : f16 to f32
        %1 = arith.extf %in_0 : f16 to f32
        %2 = arith.addf %0, %1 : f32
        %3 = arith.truncf %2 : f32 to f16
        linalg.yield %3 : f16
      }
      gpu.return
    }
  }
}

// -----

// f32, 4 points per thread: x and y contiguous (vector accesses; their
// dynamic row strides and the innermost size checked at run time), a row
// statistic read once per 4 points (Invariant), a transposed read once per
// point (PerLane), and linalg.index of the innermost loop the point's index.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:       gpu.func @onyx_main_dispatch_0
// CHECK-DAG:     %[[N:.*]] = arith.index_cast %arg5 : i64 to index
// CHECK-DAG:     %[[X:.*]] = memref.reinterpret_cast %arg0
// CHECK-DAG:     %[[S:.*]] = memref.reinterpret_cast %arg1
// CHECK-DAG:     %[[T:.*]] = memref.reinterpret_cast %arg2
// CHECK-DAG:     %[[Y:.*]] = memref.reinterpret_cast %arg3
// CHECK:         %[[NR:.*]] = arith.remui %[[N]], %c4 : index
// CHECK-NEXT:    arith.cmpi eq, %[[NR]], %c0 : index
// CHECK:         memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:         memref.extract_strided_metadata %[[X]]
// CHECK-NOT:     memref.extract_aligned_pointer_as_index %[[S]]
// CHECK-NOT:     memref.extract_aligned_pointer_as_index %[[T]]
// CHECK:         memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK:         scf.for %[[G:.*]] =
// CHECK:           %[[J:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK:           %[[K:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK-NEXT:      %[[J1:.*]] = arith.addi %[[J]], %c1 : index
// CHECK-NEXT:      %[[J2:.*]] = arith.addi %[[J]], %c2 : index
// CHECK-NEXT:      %[[J3:.*]] = arith.addi %[[J]], %c3 : index
// CHECK-NEXT:      vector.load %[[X]][%[[K]], %[[J]]] {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
// CHECK-COUNT-4:   vector.extract
// CHECK-NEXT:      %[[SV:.*]] = memref.load %[[S]][%[[K]], %c0] : memref<?x1xf32>
// CHECK-NEXT:      memref.load %[[T]][%[[J]], %[[K]]]
// CHECK-NEXT:      memref.load %[[T]][%[[J1]], %[[K]]]
// CHECK-NEXT:      memref.load %[[T]][%[[J2]], %[[K]]]
// CHECK-NEXT:      memref.load %[[T]][%[[J3]], %[[K]]]
// CHECK-NEXT:      arith.index_cast %[[J]] : index to i32
// CHECK-NEXT:      arith.sitofp
// CHECK-NEXT:      arith.mulf %{{.*}}, %[[SV]] : f32
// CHECK:           arith.index_cast %[[J1]] : index to i32
// CHECK:           arith.index_cast %[[J2]] : index to i32
// CHECK:           arith.index_cast %[[J3]] : index to i32
// CHECK:           vector.from_elements {{.*}} : vector<4xf32>
// CHECK-NEXT:      vector.store {{.*}}, %[[Y]][%[[K]], %[[J]]] {alignment = 16 : i64}

module attributes {gpu.container_module} {
  gpu.module @onyx_main_dispatch_0 [#nvvm.target<O = 3, chip = "sm_90">] {
    gpu.func @onyx_main_dispatch_0(%arg0: memref<f32>, %arg1: memref<f32>, %arg2: memref<f32>, %arg3: memref<f32>, %arg4: i64, %arg5: i64) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %0 = arith.index_cast %arg4 : i64 to index
      %1 = arith.index_cast %arg5 : i64 to index
      %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%0, %1], strides: [%1, 1] : memref<f32> to memref<?x?xf32>
      %s = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%0, 1], strides: [1, 1] : memref<f32> to memref<?x1xf32>
      %t = memref.reinterpret_cast %arg2 to offset: [0], sizes: [%1, %0], strides: [%0, 1] : memref<f32> to memref<?x?xf32>
      %y = memref.reinterpret_cast %arg3 to offset: [0], sizes: [%0, %1], strides: [%1, 1] : memref<f32> to memref<?x?xf32>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %s, %t : memref<?x?xf32>, memref<?x1xf32>, memref<?x?xf32>) outs(%y : memref<?x?xf32>) {
      ^bb0(%in: f32, %in_0: f32, %in_1: f32, %out: f32):
        %j = linalg.index 1 : index
        %ji = arith.index_cast %j : index to i32
        %jf = arith.sitofp %ji : i32 to f32
        %2 = arith.mulf %in, %in_0 : f32
        %3 = arith.addf %2, %in_1 : f32
        %4 = arith.addf %3, %jf : f32
        linalg.yield %4 : f32
      }
      gpu.return
    }
  }
}

// -----

// An f16 innermost size that is not a multiple of 8: the scalar loop only.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:       gpu.func @onyx_main_dispatch_0
// CHECK-NOT:     vector.
// CHECK-NOT:     scf.if
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c48 step
// CHECK-NOT:     vector.
// CHECK:         gpu.return

module attributes {gpu.container_module} {
  gpu.module @onyx_main_dispatch_0 [#nvvm.target<O = 3, chip = "sm_90">] {
    gpu.func @onyx_main_dispatch_0(%arg0: memref<f16>, %arg1: memref<f16>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [4, 12], strides: [12, 1] : memref<f16> to memref<4x12xf16>
      %y = memref.reinterpret_cast %arg1 to offset: [0], sizes: [4, 12], strides: [12, 1] : memref<f16> to memref<4x12xf16>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x12xf16>) outs(%y : memref<4x12xf16>) {
      ^bb0(%in: f16, %out: f16):
        %0 = arith.negf %in : f16
        linalg.yield %0 : f16
      }
      gpu.return
    }
  }
}

// -----

// An output written through a transposing map: not vectorized.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:       gpu.func @onyx_main_dispatch_0
// CHECK-NOT:     vector.
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c128 step
// CHECK-NOT:     vector.
// CHECK:         gpu.return

module attributes {gpu.container_module} {
  gpu.module @onyx_main_dispatch_0 [#nvvm.target<O = 3, chip = "sm_90">] {
    gpu.func @onyx_main_dispatch_0(%arg0: memref<f16>, %arg1: memref<f16>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [8, 16], strides: [16, 1] : memref<f16> to memref<8x16xf16>
      %y = memref.reinterpret_cast %arg1 to offset: [0], sizes: [16, 8], strides: [8, 1] : memref<f16> to memref<16x8xf16>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x16xf16>) outs(%y : memref<16x8xf16>) {
      ^bb0(%in: f16, %out: f16):
        %0 = arith.negf %in : f16
        linalg.yield %0 : f16
      }
      gpu.return
    }
  }
}

// -----

// The bf16 conversions written out with integer ops (the ONNX lowering's
// form: the host has no bf16 conversion routine) become arith.extf /
// arith.truncf in the kernel: one cvt instruction each on the GPU. Also a
// rounding joined to an extension by fusion (its bf16 bitcasts folded).

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:       gpu.func @onyx_main_dispatch_0
// CHECK-NOT:     arith.shrui
// CHECK:         vector.load {{.*}} vector<8xbf16>
// CHECK:         %[[X:.*]] = vector.extract
// CHECK:         %[[W:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[W]], %{{.*}} : f32
// CHECK-NEXT:    %[[R:.*]] = arith.truncf %[[M]] : f32 to bf16
// CHECK-NEXT:    %[[E:.*]] = arith.extf %[[R]] : bf16 to f32
// CHECK-NEXT:    %[[A:.*]] = arith.addf %[[E]], %{{.*}} : f32
// CHECK-NEXT:    arith.truncf %[[A]] : f32 to bf16
// CHECK-NOT:     arith.shrui
// CHECK:         gpu.return

module attributes {gpu.container_module} {
  gpu.module @onyx_main_dispatch_0 [#nvvm.target<O = 3, chip = "sm_90">] {
    gpu.func @onyx_main_dispatch_0(%arg0: memref<bf16>, %arg1: memref<bf16>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c1 = arith.constant 1 : i32
      %c16 = arith.constant 16 : i32
      %c64 = arith.constant 64 : i32
      %c7fff = arith.constant 32767 : i32
      %k = arith.constant 5.000000e-01 : f32
      %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [4, 64], strides: [64, 1] : memref<bf16> to memref<4x64xbf16>
      %y = memref.reinterpret_cast %arg1 to offset: [0], sizes: [4, 64], strides: [64, 1] : memref<bf16> to memref<4x64xbf16>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x64xbf16>) outs(%y : memref<4x64xbf16>) {
      ^bb0(%in: bf16, %out: bf16):
        %0 = arith.bitcast %in : bf16 to i16
        %1 = arith.extui %0 : i16 to i32
        %2 = arith.shli %1, %c16 : i32
        %3 = arith.bitcast %2 : i32 to f32
        %4 = arith.mulf %3, %k : f32
        %5 = arith.bitcast %4 : f32 to i32
        %6 = arith.shrui %5, %c16 : i32
        %7 = arith.andi %6, %c1 : i32
        %8 = arith.addi %7, %c7fff : i32
        %9 = arith.addi %5, %8 : i32
        %10 = arith.shrui %9, %c16 : i32
        %11 = arith.ori %6, %c64 : i32
        %12 = arith.cmpf uno, %4, %4 : f32
        %13 = arith.select %12, %11, %10 : i32
        %14 = arith.trunci %13 : i32 to i16
        %15 = arith.extui %14 : i16 to i32
        %16 = arith.shli %15, %c16 : i32
        %17 = arith.bitcast %16 : i32 to f32
        %18 = arith.addf %17, %3 : f32
        %19 = arith.bitcast %18 : f32 to i32
        %20 = arith.shrui %19, %c16 : i32
        %21 = arith.andi %20, %c1 : i32
        %22 = arith.addi %21, %c7fff : i32
        %23 = arith.addi %19, %22 : i32
        %24 = arith.shrui %23, %c16 : i32
        %25 = arith.ori %20, %c64 : i32
        %26 = arith.cmpf uno, %18, %18 : f32
        %27 = arith.select %26, %25, %24 : i32
        %28 = arith.trunci %27 : i32 to i16
        %29 = arith.bitcast %28 : i16 to bf16
        linalg.yield %29 : bf16
      }
      gpu.return
    }
  }
}

// -----

// A half division by a constant becomes a multiplication by the constant's
// reciprocal when that rounds to the same half value for every half input
// (checked exhaustively at compile time): 1.4140625 (sqrt(2) in f16, BERT's
// erf-GELU) passes; 1.41421354 (sqrt(2) in f32) does not (58 of the 65536
// f16 values would round differently), so that division stays.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:       gpu.func @onyx_main_dispatch_0
// CHECK-DAG:     %[[R:.*]] = arith.constant 0.707182347 : f32
// CHECK-DAG:     %[[C:.*]] = arith.constant 1.41421354 : f32
// CHECK:         %[[W:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[W]], %[[R]] : f32
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[M]] : f32 to f16
// CHECK-NEXT:    %[[E:.*]] = arith.extf %[[T]] : f16 to f32
// CHECK-NEXT:    %[[D:.*]] = arith.divf %[[E]], %[[C]] : f32
// CHECK-NEXT:    arith.truncf %[[D]] : f32 to f16
// CHECK:         gpu.return

module attributes {gpu.container_module} {
  gpu.module @onyx_main_dispatch_0 [#nvvm.target<O = 3, chip = "sm_90">] {
    gpu.func @onyx_main_dispatch_0(%arg0: memref<f16>, %arg1: memref<f16>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c1 = arith.constant 1.4140625 : f32
      %c2 = arith.constant 1.41421354 : f32
      %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [4, 64], strides: [64, 1] : memref<f16> to memref<4x64xf16>
      %y = memref.reinterpret_cast %arg1 to offset: [0], sizes: [4, 64], strides: [64, 1] : memref<f16> to memref<4x64xf16>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x64xf16>) outs(%y : memref<4x64xf16>) {
      ^bb0(%in: f16, %out: f16):
        %0 = arith.extf %in : f16 to f32
        %1 = arith.divf %0, %c1 : f32
        %2 = arith.truncf %1 : f32 to f16
        %3 = arith.extf %2 : f16 to f32
        %4 = arith.divf %3, %c2 : f32
        %5 = arith.truncf %4 : f32 to f16
        linalg.yield %5 : f16
      }
      gpu.return
    }
  }
}
