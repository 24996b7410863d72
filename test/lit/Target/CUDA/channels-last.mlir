// RUN: onyx-opt %s --convert-onnx-to-tensor --onyx-cuda-channels-last \
// RUN:   --canonicalize --cse --mlir-print-local-scope -split-input-file \
// RUN:   | FileCheck %s
// With f32=true (onyx-compile --precision=tf32): f32 convolutions too.
// RUN: onyx-opt %s --convert-onnx-to-tensor '--onyx-cuda-channels-last=f32=true' \
// RUN:   --canonicalize --cse --mlir-print-local-scope -split-input-file \
// RUN:   | FileCheck %s --check-prefix=F32

// A ResNet basic block in f16 with dynamic N, H, W: Conv + Relu, MaxPool,
// Conv + residual Add + Relu, GlobalAveragePool. The convolutions read and
// write NHWC ([N, H, W, 1, C] splits of [N, H, W, C] tensors, the weights
// untouched), the padding, bias broadcast, Relu, MaxPool, Add and the
// pooling reduction are rewritten to the same layout, and the only
// transposes are the input's (once, though two ops read it) and the pooled
// result's.

// CHECK-LABEL: func.func @block
// CHECK-SAME: (%[[X:.*]]: tensor<?x8x?x?xf16>,
// The input, once to NHWC:
// CHECK: %[[XT:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]{{.*}} ins(%[[X]] : tensor<?x8x?x?xf16>) outs(%{{.*}} : tensor<?x?x?x8xf16>)
// The padding reads it with permuted indices, in NHWC loop order:
// CHECK: linalg.generic
// CHECK: tensor.extract %[[XT]]
// CHECK: tensor.expand_shape {{.*}} into tensor<?x?x?x1x8xf16>
// The convolution: X[n, oh + kh, ow + kw, g, c], W[g, m, c, kh, kw], Y[n, oh, ow, g, m].
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d3 + d6, d4 + d7, d1, d5)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d3, d4, d1, d2)>]
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<?x?x?x1x8xf16>, tensor<1x8x8x3x3xf16>) outs(%{{.*}} : tensor<?x?x?x1x8xf16>)
// CHECK: tensor.collapse_shape {{.*}} into tensor<?x?x?x8xf16>
// Nothing goes back to NCHW until the pooled result:
// CHECK-NOT: affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<?x1x1x8xf16>)
// CHECK: %[[BACK:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]{{.*}} outs(%{{.*}} : tensor<?x8x1x1xf16>)
// CHECK-NOT: affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK: return %[[BACK]]
func.func @block(%x: tensor<?x8x?x?xf16>, %w1: tensor<8x8x3x3xf16>,
                 %b1: tensor<8xf16>, %w2: tensor<8x8x3x3xf16>,
                 %b2: tensor<8xf16>) -> tensor<?x8x1x1xf16> {
  %c1 = "onnx.Conv"(%x, %w1, %b1) {kernel_shape = [3, 3], pads = [1, 1, 1, 1]} : (tensor<?x8x?x?xf16>, tensor<8x8x3x3xf16>, tensor<8xf16>) -> tensor<?x8x?x?xf16>
  %r1 = "onnx.Relu"(%c1) : (tensor<?x8x?x?xf16>) -> tensor<?x8x?x?xf16>
  %p, %pi = "onnx.MaxPool"(%r1) {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<?x8x?x?xf16>) -> (tensor<?x8x?x?xf16>, none)
  %c2 = "onnx.Conv"(%p, %w2, %b2) {kernel_shape = [3, 3], pads = [1, 1, 1, 1]} : (tensor<?x8x?x?xf16>, tensor<8x8x3x3xf16>, tensor<8xf16>) -> tensor<?x8x?x?xf16>
  %s = "onnx.Add"(%c2, %x) : (tensor<?x8x?x?xf16>, tensor<?x8x?x?xf16>) -> tensor<?x8x?x?xf16>
  %r2 = "onnx.Relu"(%s) : (tensor<?x8x?x?xf16>) -> tensor<?x8x?x?xf16>
  %g = "onnx.GlobalAveragePool"(%r2) : (tensor<?x8x?x?xf16>) -> tensor<?x8x1x1xf16>
  return %g : tensor<?x8x1x1xf16>
}

// -----

// fp32 convolutions stay NCHW, and so does everything around them; with
// f32=true (TF32) they go NHWC like f16's: the input transposed once, the
// padding, bias and Relu in NHWC, one transpose back before the return.

// CHECK-LABEL: func.func @fp32
// CHECK-NOT: tensor<?x?x?x8xf32>
// CHECK-NOT: x1x8xf32>
// CHECK: return

// F32-LABEL: func.func @fp32
// F32-SAME: (%[[X:.*]]: tensor<?x8x?x?xf32>,
// F32: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]{{.*}} ins(%[[X]] : tensor<?x8x?x?xf32>) outs(%{{.*}} : tensor<?x?x?x8xf32>)
// F32: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d3 + d6, d4 + d7, d1, d5)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d3, d4, d1, d2)>]
// F32-SAME: ins(%{{.*}}, %{{.*}} : tensor<?x?x?x1x8xf32>, tensor<1x8x8x3x3xf32>) outs(%{{.*}} : tensor<?x?x?x1x8xf32>)
// F32: arith.maximumf
// F32: %[[BACK:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]{{.*}} outs(%{{.*}} : tensor<?x8x?x?xf32>)
// F32-NEXT: ^bb0
// F32-NEXT: linalg.yield
// F32-NEXT: }
// F32-NEXT: return %[[BACK]]
func.func @fp32(%x: tensor<?x8x?x?xf32>, %w: tensor<8x8x3x3xf32>,
                %b: tensor<8xf32>) -> tensor<?x8x?x?xf32> {
  %c = "onnx.Conv"(%x, %w, %b) {kernel_shape = [3, 3], pads = [1, 1, 1, 1]} : (tensor<?x8x?x?xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<?x8x?x?xf32>
  %r = "onnx.Relu"(%c) : (tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32>
  return %r : tensor<?x8x?x?xf32>
}

// -----

// A grouped (depthwise) f16 convolution is left as it is (NCHW).

// CHECK-LABEL: func.func @grouped
// CHECK-NOT: x1x8xf16>
// CHECK: return
func.func @grouped(%x: tensor<?x8x?x?xf16>, %w: tensor<8x1x3x3xf16>)
    -> tensor<?x8x?x?xf16> {
  %none = onnx.NoValue
  %c = "onnx.Conv"(%x, %w, %none) {group = 8 : i64, kernel_shape = [3, 3], pads = [1, 1, 1, 1]} : (tensor<?x8x?x?xf16>, tensor<8x1x3x3xf16>, none) -> tensor<?x8x?x?xf16>
  return %c : tensor<?x8x?x?xf16>
}
