// RUN: onyx-opt %s --convert-onnx-to-tensor | FileCheck %s
//
// A graph output declared without a rank (a model output without a shape,
// or one ONNX inference could not rank) takes the type of the lowered value:
// the function signature is refined, since later stages (graph-output
// allocation, runtime metadata) need a ranked buffer.

// CHECK-LABEL: func.func @unranked_output
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK:           arith.maximumf
// CHECK:         } -> tensor<2x3xf32>
// CHECK:         return %[[R]] : tensor<2x3xf32>
func.func @unranked_output(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %0 = "onnx.Relu"(%x) : (tensor<2x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
