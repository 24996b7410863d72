// RUN: onyx-opt %s --onyx-lower-contractions-to-blas --split-input-file | FileCheck %s

// A plain 2-D matmul: one onyxrt_cpu_sgemm call (the runtime's cblas_sgemm
// split across the thread pool), row-major, no transposes,
// guarded against empty products.
// CHECK-LABEL: func.func @matmul_2d
// CHECK:         scf.if
// CHECK:           %[[RM:.*]] = arith.constant 101 : i32
// CHECK:           %[[NTA:.*]] = arith.constant 111 : i32
// CHECK:           %[[NTB:.*]] = arith.constant 111 : i32
// CHECK:           func.call @onyxrt_cpu_sgemm(%[[RM]], %[[NTA]], %[[NTB]],
// CHECK-NOT:     linalg.generic
// CHECK:       func.func private @onyxrt_cpu_sgemm(i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32, f32, !llvm.ptr, i32)
func.func @matmul_2d(%a: memref<?x4xf32>, %b: memref<4x3xf32>, %c: memref<?x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                   affine_map<(d0, d1, d2) -> (d2, d1)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?x4xf32>, memref<4x3xf32>) outs(%c : memref<?x3xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Gemm with transA and transB: both operands transposed (112), f64.
// CHECK-LABEL: func.func @gemm_transposed
// CHECK:         %[[TA:.*]] = arith.constant 112 : i32
// CHECK:         %[[TB:.*]] = arith.constant 112 : i32
// CHECK:         func.call @onyxrt_cpu_dgemm(%{{.*}}, %[[TA]], %[[TB]],
func.func @gemm_transposed(%a: memref<4x5xf64>, %b: memref<6x4xf64>, %c: memref<5x6xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>,
                                   affine_map<(d0, d1, d2) -> (d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x5xf64>, memref<6x4xf64>) outs(%c : memref<5x6xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %m = arith.mulf %x, %y : f64
    %s = arith.addf %m, %acc : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// Batched with B broadcast over the batch (constant-0 map): one
// onyxrt_cpu_sgemm_batched call, no loop; the array holds the batch extent
// (C's dim 0), A's batch stride (2 x 4 elements) and B's (0, broadcast), then
// C's.
// CHECK-LABEL: func.func @batched_broadcast
// CHECK:         %[[ARR:.*]] = memref.alloca() : memref<4xi64>
// CHECK-NOT:     scf.for
// CHECK:         %[[EXT:.*]] = memref.dim %{{.*}}, %c0{{.*}} : memref<?x2x3xf32>
// CHECK:         scf.if
// CHECK:           %[[EXT64:.*]] = arith.index_cast %[[EXT]] : index to i64
// CHECK:           memref.store %[[EXT64]], %[[ARR]][%{{.*}}] : memref<4xi64>
// CHECK:           memref.store %{{.*}}, %[[ARR]][%{{.*}}] : memref<4xi64>
// CHECK:           %[[ZERO:.*]] = arith.index_cast %c0 : index to i64
// CHECK:           memref.store %[[ZERO]], %[[ARR]][%c2{{.*}}] : memref<4xi64>
// CHECK:           memref.store %{{.*}}, %[[ARR]][%c3{{.*}}] : memref<4xi64>
// CHECK:           %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[ARR]]
// CHECK:           %[[C1:.*]] = arith.constant 1 : i32
// CHECK:           func.call @onyxrt_cpu_sgemm_batched(%[[C1]], %{{.*}}, %{{.*}})
// CHECK-NOT:     scf.for
// CHECK:       func.func private @onyxrt_cpu_sgemm_batched(i32, !llvm.ptr, i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32, f32, !llvm.ptr, i32)
func.func @batched_broadcast(%a: memref<?x2x4xf32>, %b: memref<1x4x3xf32>, %c: memref<?x2x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>,
                                   affine_map<(d0, d1, d2, d3) -> (0, d3, d2)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?x2x4xf32>, memref<1x4x3xf32>) outs(%c : memref<?x2x3xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Two batch dims (attention's [batch, heads] products, B transposed): an
// array of 4 x 2 values and a batch rank of 2.
// CHECK-LABEL: func.func @batched_two_dims
// CHECK:         memref.alloca() : memref<8xi64>
// CHECK-COUNT-8:   memref.store
// CHECK:         %[[C2:.*]] = arith.constant 2 : i32
// CHECK:         %[[TB:.*]] = arith.constant 112 : i32
// CHECK:         func.call @onyxrt_cpu_sgemm_batched(%[[C2]], %{{.*}}, %{{.*}}, %{{.*}}, %[[TB]],
func.func @batched_two_dims(%a: memref<?x12x?x64xf32>, %b: memref<?x12x?x64xf32>, %c: memref<?x12x?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>,
                                   affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>,
                                   affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?x12x?x64xf32>, memref<?x12x?x64xf32>) outs(%c : memref<?x12x?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Integer contractions stay loops.
// CHECK-LABEL: func.func @integer_stays
// CHECK:         linalg.generic
// CHECK-NOT:     onyxrt_cpu_
func.func @integer_stays(%a: memref<2x4xi32>, %b: memref<4x3xi32>, %c: memref<2x3xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                   affine_map<(d0, d1, d2) -> (d2, d1)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<2x4xi32>, memref<4x3xi32>) outs(%c : memref<2x3xi32>) {
  ^bb0(%x: i32, %y: i32, %acc: i32):
    %m = arith.muli %x, %y : i32
    %s = arith.addi %acc, %m : i32
    linalg.yield %s : i32
  }
  return
}
