// RUN: onyx-opt %s --onyx-cpu-widen-half-reductions --canonicalize \
// RUN:   | FileCheck %s
//
// float16 sums and dot products accumulate in f32 (rounded once); other
// combiners and other element types are left to linalg-to-loops.

// A named f16 matmul: parallel loops outside, the reduction inside with an
// f32 accumulator starting at the output, exact products in f32.
// CHECK-LABEL: func.func @matmul
// CHECK:         scf.for %[[I:.*]] =
// CHECK:           scf.for %[[J:.*]] =
// CHECK:             %[[INIT:.*]] = memref.load %arg2[%[[I]], %[[J]]] : memref<4x3xf16>
// CHECK:             %[[ACC0:.*]] = arith.extf %[[INIT]] : f16 to f32
// CHECK:             %[[SUM:.*]] = scf.for %[[K:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[ACC0]]) -> (f32)
// CHECK:               %[[A:.*]] = memref.load %arg0[%[[I]], %[[K]]] : memref<4x8xf16>
// CHECK:               %[[B:.*]] = memref.load %arg1[%[[K]], %[[J]]] : memref<8x3xf16>
// CHECK:               %[[AW:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK:               %[[BW:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK:               %[[P:.*]] = arith.mulf %[[AW]], %[[BW]] : f32
// CHECK:               %[[N:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK:               scf.yield %[[N]] : f32
// CHECK:             %[[R:.*]] = arith.truncf %[[SUM]] : f32 to f16
// CHECK:             memref.store %[[R]], %arg2[%[[I]], %[[J]]] : memref<4x3xf16>

// A row sum (ReduceSum) on dynamic extents.
// CHECK-LABEL: func.func @sum_rows
// CHECK:         scf.for
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:           scf.for {{.*}} -> (f32)
// CHECK:             arith.addf %{{.*}}, %{{.*}} : f32
// CHECK:           arith.truncf %{{.*}} : f32 to f16

// Max is exact in f16, f32 sums are already f32: unchanged.
// CHECK-LABEL: func.func @max_rows
// CHECK:         linalg.generic
// CHECK:           arith.maximumf %{{.*}}, %{{.*}} : f16
// CHECK-LABEL: func.func @sum_f32
// CHECK:         linalg.generic
func.func @matmul(%a: memref<4x8xf16>, %b: memref<8x3xf16>, %c: memref<4x3xf16>) {
  linalg.matmul ins(%a, %b : memref<4x8xf16>, memref<8x3xf16>) outs(%c : memref<4x3xf16>)
  return
}
func.func @sum_rows(%a: memref<?x?xf16>, %c: memref<?xf16>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : memref<?x?xf16>) outs(%c : memref<?xf16>) {
  ^bb0(%x: f16, %acc: f16):
    %s = arith.addf %acc, %x : f16
    linalg.yield %s : f16
  }
  return
}
func.func @max_rows(%a: memref<?x?xf16>, %c: memref<?xf16>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : memref<?x?xf16>) outs(%c : memref<?xf16>) {
  ^bb0(%x: f16, %acc: f16):
    %s = arith.maximumf %acc, %x : f16
    linalg.yield %s : f16
  }
  return
}
func.func @sum_f32(%a: memref<?x?xf32>, %c: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : memref<?x?xf32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}
