// RUN: onyx-opt %s --convert-onnx-to-tensor --mlir-print-local-scope \
// RUN:   -split-input-file -verify-diagnostics \
// RUN:   | FileCheck %s --implicit-check-not=onnx.
//
// Einsum. Matrix products become MatMul's BLAS-shaped contraction generic
// (loops batch..., m, n, k), after collapsing grouped labels and, only
// where needed, a transposing copy; the other forms are one generic over
// the output labels (parallel) and summed labels (reduction).

// A batched matrix product in its natural order: no copy, one contraction.
// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME:    (%[[X:.*]]: tensor<5x2x3xf32>, %[[Y:.*]]: tensor<5x3x4xf32>)
// CHECK:         %[[FILL:.*]] = linalg.fill
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<5x2x3xf32>, tensor<5x3x4xf32>) outs(%[[FILL]]
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         return %[[R]]
func.func @batch_matmul(%x: tensor<5x2x3xf32>, %y: tensor<5x3x4xf32>) -> tensor<5x2x4xf32> {
  %0 = "onnx.Einsum"(%x, %y) {equation = "bij, bjk -> bik"} : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  return %0 : tensor<5x2x4xf32>
}

// -----

// Two m labels are collapsed into one matrix dim, the shared label is
// checked at run time, and the product is reshaped back.
// CHECK-LABEL: func.func @collapsed
// CHECK:         onyx.assert {{.*}} "Einsum label 'c' mismatch: {0} vs {1}"
// CHECK:         %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<?x?x?xf32> into tensor<?x?xf32>
// CHECK:         %[[P:.*]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[C]], %{{.*}} : tensor<?x?xf32>, tensor<?x?xf32>)
// CHECK:         %[[R:.*]] = tensor.reshape %[[P]]
// CHECK:         return %[[R]]
func.func @collapsed(%x: tensor<?x?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?x?xf32> {
  %0 = "onnx.Einsum"(%x, %y) {equation = "abc,cd->abd"} : (tensor<?x?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

// An output ordered (n, m) swaps the operands instead of transposing: B is
// read transposed through its indexing map.
// CHECK-LABEL: func.func @transposed_output
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf64>, %[[Y:.*]]: tensor<4x3xf64>)
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[Y]], %[[X]] : tensor<4x3xf64>, tensor<2x3xf64>)
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]
func.func @transposed_output(%x: tensor<2x3xf64>, %y: tensor<4x3xf64>) -> tensor<4x2xf64> {
  %0 = "onnx.Einsum"(%x, %y) {equation = "ij,kj->ki"} : (tensor<2x3xf64>, tensor<4x3xf64>) -> tensor<4x2xf64>
  return %0 : tensor<4x2xf64>
}

// -----

// A repeated label is the same loop twice in the operand's map.
// CHECK-LABEL: func.func @batch_diagonal
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
func.func @batch_diagonal(%x: tensor<3x5x5xf32>) -> tensor<3x5xf32> {
  %0 = "onnx.Einsum"(%x) {equation = "...ii ->...i"} : (tensor<3x5x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// Implicit output: a scalar; the summed label is a reduction loop.
// CHECK-LABEL: func.func @inner_prod
// CHECK:         onyx.assert {{.*}} "Einsum label 'i' mismatch: {0} vs {1}"
// CHECK:         %[[FILL:.*]] = linalg.fill {{.*}} -> tensor<f32>
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>]
// CHECK-SAME:      iterator_types = ["reduction"]
// CHECK-SAME:      outs(%[[FILL]] : tensor<f32>)
func.func @inner_prod(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<f32> {
  %0 = "onnx.Einsum"(%x, %y) {equation = "i,i"} : (tensor<?xf32>, tensor<?xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:           linalg.yield %{{.*}} : i32
func.func @transpose(%x: tensor<3x4xi32>) -> tensor<4x3xi32> {
  %0 = "onnx.Einsum"(%x) {equation = "ij->ji"} : (tensor<3x4xi32>) -> tensor<4x3xi32>
  return %0 : tensor<4x3xi32>
}

// -----

// An ellipsis dim that may be 1 only at run time is expanded first (a
// clamped read), so the contraction stays BLAS-shaped.
// CHECK-LABEL: func.func @runtime_broadcast
// CHECK:         onyx.assert {{.*}} "cannot broadcast operand 0 dim 0
// CHECK:         %[[E:.*]] = linalg.generic
// CHECK:           arith.select
// CHECK:           tensor.extract
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[E]], %{{.*}} : tensor<2x3x4xf32>, tensor<2x4x5xf32>)
func.func @runtime_broadcast(%x: tensor<?x3x4xf32>, %y: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = "onnx.Einsum"(%x, %y) {equation = "...ij,...jk"} : (tensor<?x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

func.func @bad_equation(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{Einsum term 'ijk' does not match operand 0 of rank 2}}
  %0 = "onnx.Einsum"(%x) {equation = "ijk->i"} : (tensor<3x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @no_output_ellipsis(%x: tensor<2x3x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{Einsum output 'i' has no ellipsis for the inputs' broadcast dims}}
  %0 = "onnx.Einsum"(%x) {equation = "...i->i"} : (tensor<2x3x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
