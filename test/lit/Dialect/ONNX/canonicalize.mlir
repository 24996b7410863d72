// RUN: onyx-opt %s -canonicalize | FileCheck %s
//
// onnx.NoValue is constant-like: canonicalization deduplicates it and hoists
// it to the start of the function like any other constant.

// CHECK-LABEL: func.func @dedup_novalue
// CHECK-NEXT: %[[NONE:.*]] = onnx.NoValue
// CHECK-NOT: onnx.NoValue
// CHECK: "onnx.Gemm"(%arg0, %arg1, %[[NONE]])
// CHECK: "onnx.Gemm"(%arg0, %arg1, %[[NONE]])
func.func @dedup_novalue(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %n0 = onnx.NoValue
  %0 = "onnx.Gemm"(%a, %b, %n0) : (tensor<2x3xf32>, tensor<3x4xf32>, none) -> tensor<2x4xf32>
  %n1 = onnx.NoValue
  %1 = "onnx.Gemm"(%a, %b, %n1) : (tensor<2x3xf32>, tensor<3x4xf32>, none) -> tensor<2x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}
