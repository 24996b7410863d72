// RUN: onyx-opt %s --convert-onnx-to-tensor --mlir-print-local-scope \
// RUN:   -split-input-file -verify-diagnostics \
// RUN:   | FileCheck %s --implicit-check-not=onnx.
//
// Contractions, data movement and normalization. MatMul and Gemm become one
// contraction linalg.generic (a reduction loop last) accumulating into a
// zero-filled destination; Gemm's alpha/beta/C add an epilogue generic.

// CHECK-LABEL: func.func @matmul_2d
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK:         %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3x4xf32>)
// CHECK-SAME:      outs(%[[FILL]] : tensor<2x4xf32>)
// CHECK:         ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK:           %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK:           %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK:           linalg.yield %[[S]] : f32
// CHECK:         return %[[R]] : tensor<2x4xf32>
func.func @matmul_2d(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// A dynamic contraction dim on both sides is checked at run time.
// CHECK-LABEL: func.func @matmul_dynamic_k
// CHECK-SAME:    (%[[A:.*]]: tensor<2x?xf32>, %[[B:.*]]: tensor<?x4xf32>)
// CHECK-DAG:     %[[KA:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<2x?xf32>
// CHECK-DAG:     %[[KB:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x4xf32>
// CHECK:         %[[EQ:.*]] = arith.cmpi eq, %[[KA]], %[[KB]] : index
// CHECK:         onyx.assert %[[EQ]], "MatMul contraction dim mismatch: {0} vs {1}"(%[[KA]], %[[KB]] : index, index)
// CHECK:         linalg.fill
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
func.func @matmul_dynamic_k(%a: tensor<2x?xf32>, %b: tensor<?x4xf32>) -> tensor<2x4xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<2x?xf32>, tensor<?x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// Matrix x vector: the vector's missing n dim is dropped from the result.
// CHECK-LABEL: func.func @matmul_matrix_vector
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[V:.*]]: tensor<3xf32>) -> tensor<2xf32>
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<2xf32>
// CHECK:         %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[EMPTY]] : tensor<2xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>]
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      ins(%[[A]], %[[V]] : tensor<2x3xf32>, tensor<3xf32>)
// CHECK-SAME:      outs(%[[FILL]] : tensor<2xf32>)
func.func @matmul_matrix_vector(%a: tensor<2x3xf32>, %v: tensor<3xf32>) -> tensor<2xf32> {
  %0 = "onnx.MatMul"(%a, %v) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// Vector x matrix: the vector's missing m dim is dropped.
// CHECK-LABEL: func.func @matmul_vector_matrix
// CHECK-SAME:    (%[[V:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3x4xf32>) -> tensor<4xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>]
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      ins(%[[V]], %[[B]] : tensor<3xf32>, tensor<3x4xf32>)
// CHECK:         } -> tensor<4xf32>
func.func @matmul_vector_matrix(%v: tensor<3xf32>, %b: tensor<3x4xf32>) -> tensor<4xf32> {
  %0 = "onnx.MatMul"(%v, %b) : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Batched: batch dims (5x1) and (6) broadcast to (5x6); the size-1 batch dim
// of A reads index 0, B's single batch dim is right-aligned to loop d1.
// CHECK-LABEL: func.func @matmul_batched
// CHECK-SAME:    (%[[A:.*]]: tensor<5x1x2x3xf32>, %[[B:.*]]: tensor<6x3x4xf32>) -> tensor<5x6x2x4xf32>
// CHECK-NOT:     onyx.assert
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<5x6x2x4xf32>
// CHECK:         %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[EMPTY]] : tensor<5x6x2x4xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[A]], %[[B]] : tensor<5x1x2x3xf32>, tensor<6x3x4xf32>)
// CHECK-SAME:      outs(%[[FILL]] : tensor<5x6x2x4xf32>)
func.func @matmul_batched(%a: tensor<5x1x2x3xf32>, %b: tensor<6x3x4xf32>) -> tensor<5x6x2x4xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<5x1x2x3xf32>, tensor<6x3x4xf32>) -> tensor<5x6x2x4xf32>
  return %0 : tensor<5x6x2x4xf32>
}

// Gemm with transA, transB, alpha, beta and a C broadcast along rows:
// loops (m, n, k), A read as A[k, m], B as B[n, k]; then
// alpha * AB + beta * C in a parallel epilogue.
// CHECK-LABEL: func.func @gemm_all
// CHECK-SAME:    (%[[A:.*]]: tensor<3x2xf32>, %[[B:.*]]: tensor<4x3xf32>, %[[C:.*]]: tensor<4xf32>) -> tensor<2x4xf32>
// CHECK:         %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK:         %[[AB:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[A]], %[[B]] : tensor<3x2xf32>, tensor<4x3xf32>)
// CHECK-SAME:      outs(%[[FILL]] : tensor<2x4xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK-DAG:     %[[ALPHA:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG:     %[[BETA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%[[AB]], %[[C]] : tensor<2x4xf32>, tensor<4xf32>)
// CHECK-SAME:      outs(%[[EMPTY]] : tensor<2x4xf32>)
// CHECK:         ^bb0(%[[P:.*]]: f32, %[[CV:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[T0:.*]] = arith.mulf %[[ALPHA]], %[[P]] : f32
// CHECK:           %[[T1:.*]] = arith.mulf %[[BETA]], %[[CV]] : f32
// CHECK:           %[[T2:.*]] = arith.addf %[[T0]], %[[T1]] : f32
// CHECK:           linalg.yield %[[T2]] : f32
// CHECK:         return %[[R]] : tensor<2x4xf32>
func.func @gemm_all(%a: tensor<3x2xf32>, %b: tensor<4x3xf32>, %c: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = "onnx.Gemm"(%a, %b, %c) {transA = 1 : i64, transB = 1 : i64, alpha = 2.0 : f32, beta = 0.5 : f32} : (tensor<3x2xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// Without C and with alpha = 1 there is no epilogue.
// CHECK-LABEL: func.func @gemm_plain
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x4xf32>)
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]] : tensor<2x4xf32>
func.func @gemm_plain(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %none = onnx.NoValue
  %0 = "onnx.Gemm"(%a, %b, %none) : (tensor<2x3xf32>, tensor<3x4xf32>, none) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @transpose
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[EMPTY]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK:         return %[[T]] : tensor<4x2x3xf32>
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = "onnx.Transpose"(%x) {perm = [2, 0, 1]} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// No perm: the dims are reversed; a dynamic extent moves with its dim.
// CHECK-LABEL: func.func @transpose_default
// CHECK-SAME:    (%[[X:.*]]: tensor<2x?xf32>) -> tensor<?x2xf32>
// CHECK:         %[[D1:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<2x?xf32>
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%[[D1]]) : tensor<?x2xf32>
// CHECK:         linalg.transpose ins(%[[X]] : tensor<2x?xf32>) outs(%[[EMPTY]] : tensor<?x2xf32>) permutation = [1, 0]
func.func @transpose_default(%x: tensor<2x?xf32>) -> tensor<?x2xf32> {
  %0 = "onnx.Transpose"(%x) : (tensor<2x?xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// A constant shape with 0 (copy the input dim) and -1 (infer) gives a
// static result type even where the declared one is not.
// CHECK-LABEL: func.func @reshape_zero_and_infer
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>) -> tensor<2x?xf32>
// CHECK-NOT:     onyx.assert
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C12:.*]] = arith.constant 12 : index
// CHECK:         %[[SHAPE:.*]] = tensor.from_elements %[[C2]], %[[C12]] : tensor<2xindex>
// CHECK:         %[[R:.*]] = tensor.reshape %[[X]](%[[SHAPE]]) : (tensor<2x3x4xf32>, tensor<2xindex>) -> tensor<2x12xf32>
// CHECK:         %[[CAST:.*]] = tensor.cast %[[R]] : tensor<2x12xf32> to tensor<2x?xf32>
// CHECK:         return %[[CAST]] : tensor<2x?xf32>
func.func @reshape_zero_and_infer(%x: tensor<2x3x4xf32>) -> tensor<2x?xf32> {
  %s = "onnx.Constant"() {value = dense<[0, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.Reshape"(%x, %s) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// With a dynamic input the -1 is computed (and checked) at run time.
// CHECK-LABEL: func.func @reshape_dynamic
// CHECK-SAME:    (%[[X:.*]]: tensor<?x3x4xf32>) -> tensor<?x?xf32>
// CHECK:         %[[D0:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3x4xf32>
// CHECK:         onyx.assert %{{.*}}, "Reshape: cannot infer the -1 dim: {0} elements into blocks of {1}"
// CHECK:         %[[INF:.*]] = arith.divui
// CHECK:         %[[SHAPE:.*]] = tensor.from_elements %[[D0]], %[[INF]] : tensor<2xindex>
// CHECK:         tensor.reshape %[[X]](%[[SHAPE]]) : (tensor<?x3x4xf32>, tensor<2xindex>) -> tensor<?x?xf32>
func.func @reshape_dynamic(%x: tensor<?x3x4xf32>) -> tensor<?x?xf32> {
  %s = "onnx.Constant"() {value = dense<[0, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.Reshape"(%x, %s) : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// Softmax along the last axis: max, then sum of exp(x - max), then
// exp(x - max) / sum.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK:         %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[E0:.*]] = tensor.empty() : tensor<2xf32>
// CHECK:         %[[MAXINIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%[[E0]] : tensor<2xf32>)
// CHECK:         %[[MAX:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>]
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]] : tensor<2x5xf32>) outs(%[[MAXINIT]] : tensor<2xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[E1:.*]] = tensor.empty() : tensor<2xf32>
// CHECK:         %[[SUMINIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E1]] : tensor<2xf32>)
// CHECK:         %[[SUM:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>]
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]], %[[MAX]] : tensor<2x5xf32>, tensor<2xf32>) outs(%[[SUMINIT]] : tensor<2xf32>)
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:           arith.addf
// CHECK:         %[[E2:.*]] = tensor.empty() : tensor<2x5xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<2x5xf32>, tensor<2xf32>, tensor<2xf32>) outs(%[[E2]] : tensor<2x5xf32>)
// CHECK:         ^bb0(%[[V:.*]]: f32, %[[M:.*]]: f32, %[[S:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[SH:.*]] = arith.subf %[[V]], %[[M]] : f32
// CHECK:           %[[EX:.*]] = math.exp %[[SH]] : f32
// CHECK:           %[[Q:.*]] = arith.divf %[[EX]], %[[S]] : f32
// CHECK:           linalg.yield %[[Q]] : f32
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]] : tensor<2x5xf32>
func.func @softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = "onnx.Softmax"(%x) {axis = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// Softmax along axis 0 reduces the outer loop.
// CHECK-LABEL: func.func @softmax_axis0
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>]
// CHECK-SAME:      iterator_types = ["reduction", "parallel"]
// CHECK:         } -> tensor<4xf32>
func.func @softmax_axis0(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = "onnx.Softmax"(%x) {axis = 0 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// CHECK-LABEL: func.func @flatten
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C12:.*]] = arith.constant 12 : index
// CHECK:         %[[SHAPE:.*]] = tensor.from_elements %[[C2]], %[[C12]] : tensor<2xindex>
// CHECK:         %[[R:.*]] = tensor.reshape %[[X]](%[[SHAPE]]) : (tensor<2x3x4xf32>, tensor<2xindex>) -> tensor<2x12xf32>
// CHECK:         return %[[R]] : tensor<2x12xf32>
func.func @flatten(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %0 = "onnx.Flatten"(%x) {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// Flatten of a dynamic input: the outer extent is a product computed at run
// time, the inner one stays static.
// CHECK-LABEL: func.func @flatten_dynamic
// CHECK-SAME:    (%[[X:.*]]: tensor<?x3x4xf32>) -> tensor<?x?xf32>
// CHECK:         %[[D0:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3x4xf32>
// CHECK:         %[[C3:.*]] = arith.constant 3 : index
// CHECK:         %[[OUTER:.*]] = arith.muli %[[D0]], %[[C3]] : index
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[SHAPE:.*]] = tensor.from_elements %[[OUTER]], %[[C4]] : tensor<2xindex>
// CHECK:         %[[R:.*]] = tensor.reshape %[[X]](%[[SHAPE]]) : (tensor<?x3x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
// CHECK:         tensor.cast %[[R]] : tensor<?x4xf32> to tensor<?x?xf32>
func.func @flatten_dynamic(%x: tensor<?x3x4xf32>) -> tensor<?x?xf32> {
  %0 = "onnx.Flatten"(%x) {axis = 2 : i64} : (tensor<?x3x4xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @reshape_count_mismatch(%x: tensor<2x3x4xf32>) -> tensor<5x5xf32> {
  %s = "onnx.Constant"() {value = dense<[5, 5]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @below {{Reshape: the input has 24 elements but the target shape holds 25}}
  %0 = "onnx.Reshape"(%x, %s) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}

// -----

func.func @reshape_cannot_infer(%x: tensor<2x3x4xf32>) -> tensor<5x?xf32> {
  %s = "onnx.Constant"() {value = dense<[5, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @below {{Reshape: cannot infer the -1 dim: 24 elements into blocks of 5}}
  %0 = "onnx.Reshape"(%x, %s) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<5x?xf32>
  return %0 : tensor<5x?xf32>
}

// -----

func.func @matmul_static_k_mismatch(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @below {{MatMul contraction dim mismatch: 3 vs 4}}
  %0 = "onnx.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @transpose_bad_perm(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @below {{perm is not a permutation}}
  %0 = "onnx.Transpose"(%x) {perm = [1, 1]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
