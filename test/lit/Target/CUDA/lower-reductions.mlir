// RUN: onyx-opt %s --onyx-cuda-lower-reductions --canonicalize --cse \
// RUN:   -split-input-file | FileCheck %s
//
// Dispatch kernels as onyx-cuda-outline-dispatches makes them (the op on
// the rebuilt buffers). A long (here dynamic) f32 reduction whose body is
// `yield C(out, v)` runs with one warp per output element (the host launched
// 32 threads per row): each lane folds every 32nd element into a register
// starting from the combiner's identity, a shuffle butterfly combines the
// lanes, and lane 0 combines the result into the output. The reduction is
// over the innermost loop and its input contiguous along it: where the row
// length is a multiple of 4 and the input 16-byte aligned (checked once per
// kernel), each lane folds 4 consecutive elements per step, read with one
// vector load; otherwise every 32nd element.

// CHECK-LABEL: gpu.func @onyx_main_dispatch_0
// CHECK-NOT:     linalg.generic
// CHECK-DAG:     %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[N:.*]] = arith.index_cast %arg3 : i64 to index
// CHECK-DAG:     %[[X:.*]] = memref.reinterpret_cast %arg0
// CHECK:         %[[NREM:.*]] = arith.remui %[[N]], %c4 : index
// CHECK:         %[[NOK:.*]] = arith.cmpi eq, %[[NREM]], %c0 : index
// CHECK:         %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:         %[[PREM:.*]] = arith.remui %[[PTR]], %c16 : index
// CHECK:         %[[POK:.*]] = arith.cmpi eq, %[[PREM]], %c0 : index
// CHECK:         %[[OK1:.*]] = arith.andi %[[NOK]], %[[POK]] : i1
// CHECK:         %[[OK:.*]] = arith.andi %[[OK1]], %{{.*}} : i1
// CHECK:         %[[LANE:.*]] = arith.remui %{{.*}}, %c32 : index
// CHECK:         scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[ACC:.*]] = scf.if %[[OK]] -> (f32) {
// CHECK-NEXT:        %[[FROM:.*]] = arith.muli %[[LANE]], %c4 : index
// CHECK-NEXT:        %[[VACC:.*]] = scf.for %[[VCOL:.*]] = %[[FROM]] to %[[N]] step %c128 iter_args(%[[VA:.*]] = %[[NEGINF]]) -> (f32) {
// CHECK-NEXT:          %[[VEC:.*]] = vector.load %[[X]][%[[ROW]], %[[VCOL]]] {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
// CHECK-NEXT:          %[[E0:.*]] = vector.extract %[[VEC]][0]
// CHECK-NEXT:          %[[E1:.*]] = vector.extract %[[VEC]][1]
// CHECK-NEXT:          %[[E2:.*]] = vector.extract %[[VEC]][2]
// CHECK-NEXT:          %[[E3:.*]] = vector.extract %[[VEC]][3]
// CHECK-NEXT:          %[[M0:.*]] = arith.maximumf %[[VA]], %[[E0]] : f32
// CHECK-NEXT:          %[[M1:.*]] = arith.maximumf %[[M0]], %[[E1]] : f32
// CHECK-NEXT:          %[[M2:.*]] = arith.maximumf %[[M1]], %[[E2]] : f32
// CHECK-NEXT:          %[[M3:.*]] = arith.maximumf %[[M2]], %[[E3]] : f32
// CHECK-NEXT:          scf.yield %[[M3]] : f32
// CHECK:             scf.yield %[[VACC]] : f32
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[SACC:.*]] = scf.for %[[COL:.*]] = %[[LANE]] to %[[N]] step %c32 iter_args(%[[A:.*]] = %[[NEGINF]]) -> (f32) {
// CHECK-NEXT:          %[[V:.*]] = memref.load %[[X]][%[[ROW]], %[[COL]]] : memref<?x?xf32>
// CHECK-NEXT:          %[[M:.*]] = arith.maximumf %[[A]], %[[V]] : f32
// CHECK-NEXT:          scf.yield %[[M]] : f32
// CHECK:             scf.yield %[[SACC]] : f32
// CHECK:           gpu.shuffle  xor %[[ACC]], %c16_i32, %c32_i32 : f32
// CHECK-COUNT-4:   gpu.shuffle  xor
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0 : index
// CHECK-NEXT:      scf.if %[[FIRST]] {
// CHECK-NEXT:        %[[OLD:.*]] = memref.load %{{.*}}[%[[ROW]]] : memref<?xf32>
// CHECK-NEXT:        %[[NEW:.*]] = arith.maximumf %[[OLD]], %{{.*}} : f32
// CHECK-NEXT:        memref.store %[[NEW]], %{{.*}}[%[[ROW]]] : memref<?xf32>

module attributes {gpu.container_module} {
  gpu.module @onyx_main_dispatch_0 [#nvvm.target<O = 3, chip = "sm_90">] {
    gpu.func @onyx_main_dispatch_0(%arg0: memref<f32>, %arg1: memref<f32>, %arg2: i64, %arg3: i64) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %0 = arith.index_cast %arg2 : i64 to index
      %1 = arith.index_cast %arg3 : i64 to index
      %reinterpret_cast = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%0, %1], strides: [%1, 1] : memref<f32> to memref<?x?xf32>
      %reinterpret_cast_0 = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%0], strides: [1] : memref<f32> to memref<?xf32>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%reinterpret_cast : memref<?x?xf32>) outs(%reinterpret_cast_0 : memref<?xf32>) {
      ^bb0(%in: f32, %out: f32):
        %2 = arith.maximumf %in, %out : f32
        linalg.yield %2 : f32
      }
      gpu.return
    }
  }
}

// -----

// An f32 sum reduced by a warp accumulates in f64 (a lane may fold millions
// of elements); the lanes exchange f64 as two 32-bit shuffles, and the sum
// is rounded to f32 once, before it is added to the output.

// CHECK-LABEL: gpu.func @onyx_main_dispatch_0
// CHECK:           %[[ACC:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (f64) {
// CHECK:             %[[V:.*]] = memref.load %{{.*}} : memref<?x?xf32>
// CHECK-NEXT:        %[[W:.*]] = arith.extf %[[V]] : f32 to f64
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[A]], %[[W]] : f64
// CHECK:           gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : i32
// CHECK-COUNT-9:   gpu.shuffle  xor {{.*}} : i32
// CHECK:           %[[R:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK:           scf.if
// CHECK:             arith.addf %{{.*}}, %[[R]] : f32

module attributes {gpu.container_module} {
  gpu.module @onyx_main_dispatch_0 [#nvvm.target<O = 3, chip = "sm_90">] {
    gpu.func @onyx_main_dispatch_0(%arg0: memref<f32>, %arg1: memref<f32>, %arg2: i64, %arg3: i64) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %0 = arith.index_cast %arg2 : i64 to index
      %1 = arith.index_cast %arg3 : i64 to index
      %reinterpret_cast = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%0, %1], strides: [%1, 1] : memref<f32> to memref<?x?xf32>
      %reinterpret_cast_0 = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%0], strides: [1] : memref<f32> to memref<?xf32>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%reinterpret_cast : memref<?x?xf32>) outs(%reinterpret_cast_0 : memref<?xf32>) {
      ^bb0(%in: f32, %out: f32):
        %2 = arith.addf %in, %out : f32
        linalg.yield %2 : f32
      }
      gpu.return
    }
  }
}

// -----

// With the output's fill absorbed (onyx.reduction_init), lane 0 writes
// max(-inf, lanes), folded to the lanes' max, instead of reading the
// element back.

// CHECK-LABEL: gpu.func @onyx_main_dispatch_0
// CHECK-NOT:     memref.load %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK:         gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK-NEXT:    %[[LANES:.*]] = arith.maximumf
// CHECK-NEXT:    arith.cmpi eq
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      memref.store %[[LANES]]

module attributes {gpu.container_module} {
  gpu.module @onyx_main_dispatch_0 [#nvvm.target<O = 3, chip = "sm_90">] {
    gpu.func @onyx_main_dispatch_0(%arg0: memref<f32>, %arg1: memref<f32>, %arg2: i64, %arg3: i64) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %0 = arith.index_cast %arg2 : i64 to index
      %1 = arith.index_cast %arg3 : i64 to index
      %reinterpret_cast = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%0, %1], strides: [%1, 1] : memref<f32> to memref<?x?xf32>
      %reinterpret_cast_0 = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%0], strides: [1] : memref<f32> to memref<?xf32>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%reinterpret_cast : memref<?x?xf32>) outs(%reinterpret_cast_0 : memref<?xf32>) attrs =  {onyx.reduction_init = 0xFF800000 : f32} {
      ^bb0(%in: f32, %out: f32):
        %2 = arith.maximumf %in, %out : f32
        linalg.yield %2 : f32
      }
      gpu.return
    }
  }
}

// -----

// A short static reduction (8 < 32 points) is left to
// onyx-cuda-lower-dispatch-loops: one thread per output element.

// CHECK-LABEL: gpu.func @onyx_main_dispatch_0
// CHECK:         linalg.generic
// CHECK-NOT:     gpu.shuffle

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

// A LayerNorm-style row sum of f16 elements widened to f32 (static rows of
// 768): each lane folds 8 elements per step (one 16-byte load) into its f64
// accumulator, 256 elements per warp step, where the input is 16-byte
// aligned; the row length needs no run-time check.

// CHECK-LABEL: gpu.func @onyx_main_dispatch_0
// CHECK:         %[[X:.*]] = memref.reinterpret_cast %arg0
// CHECK:         %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK-NEXT:    %[[PREM:.*]] = arith.remui %[[PTR]], %c16 : index
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi eq, %[[PREM]], %c0 : index
// CHECK:         %[[LANE:.*]] = arith.remui %{{.*}}, %c32 : index
// CHECK:         scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[ACC:.*]] = scf.if %[[OK]] -> (f64) {
// CHECK-NEXT:        %[[FROM:.*]] = arith.muli %[[LANE]], %c8 : index
// CHECK-NEXT:        scf.for %[[COL:.*]] = %[[FROM]] to %c768 step %c256 iter_args(%[[A:.*]] = %{{.*}}) -> (f64) {
// CHECK-NEXT:          %[[VEC:.*]] = vector.load %[[X]][%[[ROW]], %[[COL]]] {alignment = 16 : i64} : memref<?x768xf16>, vector<8xf16>
// CHECK-COUNT-8:       vector.extract %[[VEC]]
// CHECK-COUNT-8:       arith.extf %{{.*}} : f16 to f32
// CHECK-COUNT-8:       arith.addf %{{.*}} : f64
// CHECK-NEXT:          scf.yield
// CHECK:           } else {
// CHECK-NEXT:        scf.for %{{.*}} = %[[LANE]] to %c768 step %c32 iter_args
// CHECK-NEXT:          memref.load %[[X]]
// CHECK:           gpu.shuffle  xor

module attributes {gpu.container_module} {
  gpu.module @onyx_main_dispatch_0 [#nvvm.target<O = 3, chip = "sm_90">] {
    gpu.func @onyx_main_dispatch_0(%arg0: memref<f16>, %arg1: memref<f32>, %arg2: i64) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %0 = arith.index_cast %arg2 : i64 to index
      %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%0, 768], strides: [768, 1] : memref<f16> to memref<?x768xf16>
      %s = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%0, 1], strides: [1, 1] : memref<f32> to memref<?x1xf32>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<?x768xf16>) outs(%s : memref<?x1xf32>) attrs = {onyx.reduction_init = 0.000000e+00 : f32} {
      ^bb0(%in: f16, %out: f32):
        %1 = arith.extf %in : f16 to f32
        %2 = arith.addf %out, %1 : f32
        linalg.yield %2 : f32
      }
      gpu.return
    }
  }
}
