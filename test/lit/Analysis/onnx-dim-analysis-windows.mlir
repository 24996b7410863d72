// RUN: onyx-opt %s --onnx-dim-analysis=trace=true -split-input-file \
// RUN:   -o /dev/null 2>&1 | FileCheck %s
//
// Sliding windows (Conv, pools): the spatial result extents by the formulas
// the lowering builds (onyx::shape::slidingWindow). Stride 1 gives an
// offset of the input extent; a larger stride an opaque division node,
// floorDiv(in + padBegin + padEnd - effK, s) + 1 (`%v<i>` in the trace is
// the node made at that value's dim i), shared by every window with the
// same arithmetic on the same input extent.

// ResNet's downsampling block: the main branch's 3x3 stride-2 convolution
// with pads 1 and the 1x1 stride-2 downsample compute floorDiv(h - 1, 2) + 1
// both, so the residual Add's operands have one extent and its broadcast
// needs no run-time check.
// CHECK-LABEL: dim-analysis: 5 ops
// CHECK:         %1[2] == %1<2> + 1  [onnx.Conv: sliding window @2]
// CHECK:         %2[2] == %1<2> + 1  [onnx.Conv: sliding window @3]
// CHECK:       dim-analysis: groups (5)
// CHECK:         group 3: %1[2], %2[2], %3[2]
// CHECK-NEXT:    group 4: %1[3], %2[3], %3[3]
func.func @downsample(%x: tensor<?x4x?x?xf32>, %w3: tensor<8x4x3x3xf32>, %w1: tensor<8x4x1x1xf32>) -> tensor<?x8x?x?xf32> {
  %none = onnx.NoValue
  %a = "onnx.Conv"(%x, %w3, %none) {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]} : (tensor<?x4x?x?xf32>, tensor<8x4x3x3xf32>, none) -> tensor<?x8x?x?xf32>
  %b = "onnx.Conv"(%x, %w1, %none) {strides = [2, 2]} : (tensor<?x4x?x?xf32>, tensor<8x4x1x1xf32>, none) -> tensor<?x8x?x?xf32>
  %s = "onnx.Add"(%a, %b) : (tensor<?x8x?x?xf32>, tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32>
  return %s : tensor<?x8x?x?xf32>
}

// -----

// Stride 1: a 3x3 window with pads 1 keeps the extent; VALID with the
// kernel from W (dilations 2, 1: dilated extents 5 and 3) takes 4 and 2.
// CHECK-LABEL: dim-analysis: 4 ops
// CHECK:         %1[2] == %arg0[2]  [onnx.Conv: sliding window @2]
// CHECK:         %2[2] == %arg0[2] - 4  [onnx.Conv: sliding window @3]
// CHECK:         %2[3] == %arg0[3] - 2  [onnx.Conv: sliding window @3]
// CHECK:       dim-analysis: groups (5)
// CHECK:         group 1: %arg0[2], %1[2]
// CHECK-NEXT:    group 2: %arg0[3], %1[3]
// CHECK:       dim-analysis: offset relations (2)
// CHECK-NEXT:    group 3 = group 1 - 4
// CHECK-NEXT:    group 4 = group 2 - 2
func.func @stride_one(%x: tensor<?x4x?x?xf32>, %w3: tensor<8x4x3x3xf32>) -> (tensor<?x8x?x?xf32>, tensor<?x8x?x?xf32>) {
  %none = onnx.NoValue
  %same = "onnx.Conv"(%x, %w3, %none) {pads = [1, 1, 1, 1]} : (tensor<?x4x?x?xf32>, tensor<8x4x3x3xf32>, none) -> tensor<?x8x?x?xf32>
  %valid = "onnx.Conv"(%x, %w3, %none) {auto_pad = "VALID", dilations = [2, 1]} : (tensor<?x4x?x?xf32>, tensor<8x4x3x3xf32>, none) -> tensor<?x8x?x?xf32>
  return %same, %valid : tensor<?x8x?x?xf32>, tensor<?x8x?x?xf32>
}

// -----

// Pools: ResNet's stem MaxPool (3x3, stride 2, pads 1) and a convolution
// with the same window share their extents; with ceil_mode (whose last
// window may be dropped) nothing is proven; SAME_UPPER is ceilDiv(in, s),
// another node than the explicit pads' floor division.
// CHECK-LABEL: dim-analysis: 6 ops
// CHECK:         %Y[2] == %Y<2> + 1  [onnx.MaxPool: sliding window @2]
// CHECK:         %1[2] == %Y<2> + 1  [onnx.Conv: sliding window @3]
// CHECK-NOT:     %Y_0[2] ==
// CHECK:         %2[2] == %2<2>  [onnx.AveragePool: sliding window @5]
// CHECK:       dim-analysis: groups (9)
// CHECK:         group 3: %Y[2], %1[2]
// CHECK-NEXT:    group 4: %Y[3], %1[3]
// CHECK-NEXT:    group 5: %Y_0[2]
// CHECK-NEXT:    group 6: %Y_0[3]
// CHECK-NEXT:    group 7: %2[2]
func.func @pools(%x: tensor<?x4x?x?xf32>, %w3: tensor<4x4x3x3xf32>) -> (tensor<?x4x?x?xf32>, tensor<?x4x?x?xf32>, tensor<?x4x?x?xf32>, tensor<?x4x?x?xf32>) {
  %none = onnx.NoValue
  %p, %pi = "onnx.MaxPool"(%x) {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]} : (tensor<?x4x?x?xf32>) -> (tensor<?x4x?x?xf32>, none)
  %c = "onnx.Conv"(%x, %w3, %none) {pads = [1, 1, 1, 1], strides = [2, 2]} : (tensor<?x4x?x?xf32>, tensor<4x4x3x3xf32>, none) -> tensor<?x4x?x?xf32>
  %q, %qi = "onnx.MaxPool"(%x) {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2], ceil_mode = 1 : i64} : (tensor<?x4x?x?xf32>) -> (tensor<?x4x?x?xf32>, none)
  %u = "onnx.AveragePool"(%x) {kernel_shape = [2, 2], auto_pad = "SAME_UPPER", strides = [2, 2]} : (tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32>
  return %p, %c, %q, %u : tensor<?x4x?x?xf32>, tensor<?x4x?x?xf32>, tensor<?x4x?x?xf32>, tensor<?x4x?x?xf32>
}
