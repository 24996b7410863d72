// RUN: onyx-opt %s --onnx-merge-sibling-matmuls -split-input-file | FileCheck %s
//
// MatMuls of one input with constant 2-D weights (and their bias Adds),
// each result only reshaped (into heads), become one MatMul, one Add and a
// Split on the last axis.

// -----
// Inline weights and biases, the Add in either operand order: the weights
// side by side row by row ([[1, 2, 5], [3, 4, 6]]), the biases one after
// the other.

// CHECK-LABEL: func.func @inline(
// CHECK:         %[[W:.*]] = "onnx.Constant"() <{value = dense_resource<onnx_merged_weight> : tensor<2x3xf32>}>
// CHECK:         %[[M:.*]] = "onnx.MatMul"(%arg0, %[[W]]) : (tensor<?x?x2xf32>, tensor<2x3xf32>) -> tensor<?x?x3xf32>
// CHECK:         %[[B:.*]] = "onnx.Constant"() <{value = dense_resource<onnx_merged_weight_1> : tensor<3xf32>}>
// CHECK:         %[[A:.*]] = "onnx.Add"(%[[M]], %[[B]]) : (tensor<?x?x3xf32>, tensor<3xf32>) -> tensor<?x?x3xf32>
// CHECK:         %[[N:.*]] = "onnx.Constant"() <{value = dense<[2, 1]> : tensor<2xi64>}>
// CHECK:         %[[S:.*]]:2 = "onnx.Split"(%[[A]], %[[N]]) <{axis = 2 : i64}> : (tensor<?x?x3xf32>, tensor<2xi64>) -> (tensor<?x?x2xf32>, tensor<?x?x1xf32>)
// CHECK-NOT:     "onnx.MatMul"
// CHECK:         "onnx.Reshape"(%[[S]]#0, %arg1)
// CHECK:         "onnx.Reshape"(%[[S]]#1, %arg1)
// The bytes (after the blob's alignment word): f32 1 2 5 3 4 6 and 7 8 9.
// CHECK:         onnx_merged_weight: "0x080000000000803F000000400000A04000004040000080400000C040"
// CHECK-NEXT:    onnx_merged_weight_1: "0x080000000000E0400000004100001041"
func.func @inline(%x: tensor<?x?x2xf32>, %shape: tensor<4xi64>) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) {
  %w0 = "onnx.Constant"() {value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %w1 = "onnx.Constant"() {value = dense<[[5.0], [6.0]]> : tensor<2x1xf32>} : () -> tensor<2x1xf32>
  %b0 = "onnx.Constant"() {value = dense<[7.0, 8.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %b1 = "onnx.Constant"() {value = dense<9.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %m0 = "onnx.MatMul"(%x, %w0) : (tensor<?x?x2xf32>, tensor<2x2xf32>) -> tensor<?x?x2xf32>
  %y0 = "onnx.Add"(%m0, %b0) : (tensor<?x?x2xf32>, tensor<2xf32>) -> tensor<?x?x2xf32>
  %m1 = "onnx.MatMul"(%x, %w1) : (tensor<?x?x2xf32>, tensor<2x1xf32>) -> tensor<?x?x1xf32>
  %y1 = "onnx.Add"(%b1, %m1) : (tensor<1xf32>, tensor<?x?x1xf32>) -> tensor<?x?x1xf32>
  %r0 = "onnx.Reshape"(%y0, %shape) : (tensor<?x?x2xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  %r1 = "onnx.Reshape"(%y1, %shape) : (tensor<?x?x1xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  return %r0, %r1 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
}

// -----
// External weights: one gathered onyx.weight (the first range and the
// others as [offset, length, checksum] triples, K rows each), attributes
// such as the precision pass's file type kept. Without bias Adds (LLaMA's
// projections): MatMul and Split only. A Shape of a part (the exporters'
// head shape) is no other use.

// CHECK-LABEL: func.func @external(
// CHECK:         %[[W:.*]] = onyx.weight {checksum = 11 : i64, concat_ranges = array<i64: 64, 32, 12, 96, 32, 13>, concat_rows = 4 : i64, length = 32 : i64, location = "w.bin", offset = 0 : i64} : tensor<4x6xf32>
// CHECK:         %[[M:.*]] = "onnx.MatMul"(%arg0, %[[W]]) : (tensor<?x4xf32>, tensor<4x6xf32>) -> tensor<?x6xf32>
// CHECK-NOT:     "onnx.Add"
// CHECK:         %[[S:.*]]:3 = "onnx.Split"(%[[M]], %{{.*}}) <{axis = 1 : i64}> : (tensor<?x6xf32>, tensor<3xi64>) -> (tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>)
// CHECK:         "onnx.Reshape"(%[[S]]#0, %arg1)
// CHECK:         "onnx.Reshape"(%[[S]]#1, %arg1)
// CHECK:         "onnx.Reshape"(%[[S]]#2, %arg1)
func.func @external(%x: tensor<?x4xf32>, %shape: tensor<3xi64>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %w0 = onyx.weight {location = "w.bin", offset = 0 : i64, length = 32 : i64, checksum = 11 : i64} : tensor<4x2xf32>
  %w1 = onyx.weight {location = "w.bin", offset = 64 : i64, length = 32 : i64, checksum = 12 : i64} : tensor<4x2xf32>
  %w2 = onyx.weight {location = "w.bin", offset = 96 : i64, length = 32 : i64, checksum = 13 : i64} : tensor<4x2xf32>
  %y0 = "onnx.MatMul"(%x, %w0) : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
  %y1 = "onnx.MatMul"(%x, %w1) : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
  %y2 = "onnx.MatMul"(%x, %w2) : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
  %r0 = "onnx.Reshape"(%y0, %shape) : (tensor<?x2xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %n1 = "onnx.Shape"(%y1) : (tensor<?x2xf32>) -> tensor<2xi64>
  %r1 = "onnx.Reshape"(%y1, %shape) : (tensor<?x2xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %r2 = "onnx.Reshape"(%y2, %shape) : (tensor<?x2xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  return %r0, %r1, %r2 : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>
}

// -----
// What does not merge: a weight that is not a constant, another K, weights
// of two files, a bias on one sibling only (the one with a bias and the
// ones without stay apart), another input, a result used by more than
// Reshapes (LLaMA's gate and up projections feed SiLU and Mul). %a and %b
// (same K, same file, no bias, only reshaped) are the only pair, merged at
// %a's place.

// CHECK-LABEL: func.func @apart(
// CHECK:         "onnx.MatMul"(%arg0, %arg2)
// CHECK:         onyx.weight {checksum = 0 : i64, concat_ranges = array<i64: 32, 32, 0>, concat_rows = 4 : i64
// CHECK:         "onnx.MatMul"(%arg0, %{{.*}}) : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
// CHECK:         "onnx.Split"
// CHECK:         "onnx.MatMul"(%arg0, %{{.*}}) : (tensor<3x4xf32>, tensor<4x3xf32>)
// CHECK:         "onnx.MatMul"(%arg0, %{{.*}}) : (tensor<3x4xf32>, tensor<4x5xf32>)
// CHECK:         "onnx.Add"
// CHECK:         "onnx.MatMul"(%arg1, %{{.*}})
// CHECK:         "onnx.MatMul"(%arg0, %{{.*}}) : (tensor<3x4xf32>, tensor<4x6xf32>)
// CHECK:         "onnx.MatMul"(%arg0, %{{.*}}) : (tensor<3x4xf32>, tensor<4x6xf32>)
// CHECK-NOT:     "onnx.Split"
func.func @apart(%x: tensor<3x4xf32>, %z: tensor<3x4xf32>, %v: tensor<4x2xf32>, %s: tensor<2xi64>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
        tensor<?x?xf32>, tensor<?x?xf32>, tensor<3x6xf32>) {
  %wa = onyx.weight {location = "w.bin", offset = 0 : i64, length = 32 : i64, checksum = 0 : i64} : tensor<4x2xf32>
  %wb = onyx.weight {location = "w.bin", offset = 32 : i64, length = 32 : i64, checksum = 0 : i64} : tensor<4x2xf32>
  %wo = onyx.weight {location = "other.bin", offset = 0 : i64, length = 48 : i64, checksum = 0 : i64} : tensor<4x3xf32>
  %wd = onyx.weight {location = "w.bin", offset = 96 : i64, length = 80 : i64, checksum = 0 : i64} : tensor<4x5xf32>
  %bd = onyx.weight {location = "w.bin", offset = 176 : i64, length = 20 : i64, checksum = 0 : i64} : tensor<5xf32>
  %we = onyx.weight {location = "w.bin", offset = 196 : i64, length = 32 : i64, checksum = 0 : i64} : tensor<4x2xf32>
  %wg = onyx.weight {location = "w.bin", offset = 228 : i64, length = 96 : i64, checksum = 0 : i64} : tensor<4x6xf32>
  %wu = onyx.weight {location = "w.bin", offset = 324 : i64, length = 96 : i64, checksum = 0 : i64} : tensor<4x6xf32>
  %0 = "onnx.MatMul"(%x, %v) : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %a = "onnx.MatMul"(%x, %wa) : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %o = "onnx.MatMul"(%x, %wo) : (tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<3x3xf32>
  %b = "onnx.MatMul"(%x, %wb) : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %d = "onnx.MatMul"(%x, %wd) : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %db = "onnx.Add"(%d, %bd) : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %e = "onnx.MatMul"(%z, %we) : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %g = "onnx.MatMul"(%x, %wg) : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
  %u = "onnx.MatMul"(%x, %wu) : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
  %gu = "onnx.Mul"(%g, %u) : (tensor<3x6xf32>, tensor<3x6xf32>) -> tensor<3x6xf32>
  %r0 = "onnx.Reshape"(%0, %s) : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %ra = "onnx.Reshape"(%a, %s) : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %rb = "onnx.Reshape"(%b, %s) : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %ro = "onnx.Reshape"(%o, %s) : (tensor<3x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %rd = "onnx.Reshape"(%db, %s) : (tensor<3x5xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %re = "onnx.Reshape"(%e, %s) : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %r0, %ra, %rb, %ro, %rd, %re, %gu : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<3x6xf32>
}
