// RUN: onyx-opt %s --convert-onnx-to-tensor --cse | FileCheck %s
// RUN: onyx-opt %s --convert-onnx-to-tensor=use-dim-analysis=false --cse \
// RUN:   | FileCheck %s --check-prefix=NOANALYSIS
//
// ResNet's downsampling block tail: the Add of the strided 3x3 convolution
// (pads 1) and the 1x1 stride-2 downsample. DimAnalysis proves both results
// floorDiv(h - 1, 2) + 1 by its sliding-window rule, so the Add is a plain
// identity-indexed elementwise op: no broadcast check, no clamped reads
// (what lets the CUDA target fold it into the convolution's cuDNN call).

// CHECK-LABEL: func.func @main_graph(
// CHECK-NOT:     cannot broadcast
// CHECK:         linalg.generic {indexing_maps = [#[[ID:.*]], #[[ID]], #[[ID]]]
// CHECK-NEXT:    ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:      arith.addf
// CHECK-NOT:     cannot broadcast
// CHECK:         return

// NOANALYSIS-LABEL: func.func @main_graph(
// NOANALYSIS:       cannot broadcast operand 0 dim 2
func.func @main_graph(%x: tensor<?x4x?x?xf32> {onnx.name = "x"}) -> (tensor<?x8x?x?xf32> {onnx.name = "y"}) {
  %w3 = "onnx.Constant"() {value = dense<0.5> : tensor<8x4x3x3xf32>} : () -> tensor<8x4x3x3xf32>
  %w1 = "onnx.Constant"() {value = dense<0.25> : tensor<8x4x1x1xf32>} : () -> tensor<8x4x1x1xf32>
  %none = onnx.NoValue
  %a = "onnx.Conv"(%x, %w3, %none) {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]} : (tensor<?x4x?x?xf32>, tensor<8x4x3x3xf32>, none) -> tensor<?x8x?x?xf32>
  %b = "onnx.Conv"(%x, %w1, %none) {strides = [2, 2]} : (tensor<?x4x?x?xf32>, tensor<8x4x1x1xf32>, none) -> tensor<?x8x?x?xf32>
  %s = "onnx.Add"(%a, %b) : (tensor<?x8x?x?xf32>, tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32>
  return %s : tensor<?x8x?x?xf32>
}
