// RUN: onyx-opt %s --onnx-decompose -split-input-file | FileCheck %s
// RUN: onyx-opt %s --onnx-decompose -split-input-file 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOCOMPOSITE
//
// onnx-decompose rewrites the composite operators into the core ops of
// their ONNX function definitions; none is left afterwards.
// NOCOMPOSITE-NOT: onnx.RMSNormalization
// NOCOMPOSITE-NOT: onnx.Attention
// NOCOMPOSITE-NOT: onnx.RotaryEmbedding

// -----
// RMSNormalization over the last axis: X * 1/sqrt(mean(X*X) + eps) * scale.

// CHECK-LABEL: func.func @rms(
// CHECK:         %[[SQ:.*]] = "onnx.Mul"(%arg0, %arg0)
// CHECK:         %[[M:.*]] = "onnx.ReduceMean"(%[[SQ]], %{{.*}}) <{keepdims = 1 : i64
// CHECK:         %[[E:.*]] = "onnx.Add"(%[[M]], %{{.*}})
// CHECK:         %[[S:.*]] = "onnx.Sqrt"(%[[E]])
// CHECK:         %[[R:.*]] = "onnx.Reciprocal"(%[[S]])
// CHECK:         %[[N:.*]] = "onnx.Mul"(%arg0, %[[R]])
// CHECK:         %[[Y:.*]] = "onnx.Mul"(%[[N]], %arg1)
// CHECK:         return %[[Y]]
func.func @rms(%x: tensor<?x?x8xf32>, %scale: tensor<8xf32>) -> tensor<?x?x8xf32> {
  %y = "onnx.RMSNormalization"(%x, %scale) {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----
// Attention, 3-D, grouped heads (4 query heads over 2 key/value heads),
// causal: heads are split with Reshape+Transpose, each KV head is repeated
// with Unsqueeze+Expand+Reshape, Q and K are scaled, the causal bias comes
// from two Ranges and LessOrEqual, fully masked rows are zeroed.

// CHECK-LABEL: func.func @gqa_causal(
// CHECK:         "onnx.Reshape"(%arg0
// CHECK:         "onnx.Transpose"
// CHECK:         "onnx.Expand"
// CHECK:         "onnx.MatMul"
// CHECK:         "onnx.Range"
// CHECK:         "onnx.LessOrEqual"
// CHECK:         "onnx.Where"
// CHECK:         "onnx.Softmax"
// CHECK:         "onnx.ReduceMax"
// CHECK:         "onnx.IsInf"
// CHECK:         %[[P:.*]] = "onnx.Where"
// CHECK:         %[[Y:.*]] = "onnx.MatMul"(%[[P]]
// CHECK:         "onnx.Transpose"(%[[Y]]) <{perm = [0, 2, 1, 3]}>
// CHECK:         %[[OUT:.*]] = "onnx.Reshape"
// CHECK:         return %[[OUT]]
func.func @gqa_causal(%q: tensor<?x?x32xf32>, %k: tensor<?x?x16xf32>, %v: tensor<?x?x16xf32>) -> tensor<?x?x32xf32> {
  %none = onnx.NoValue
  %y, %pk, %pv, %qk = "onnx.Attention"(%q, %k, %v, %none, %none, %none, %none) {is_causal = 1 : i64, q_num_heads = 4 : i64, kv_num_heads = 2 : i64} : (tensor<?x?x32xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>, none, none, none, none) -> (tensor<?x?x32xf32>, none, none, none)
  return %y : tensor<?x?x32xf32>
}

// -----
// Attention, 4-D with a past cache: present_key/value are the concatenations.

// CHECK-LABEL: func.func @cache(
// CHECK:         %[[PK:.*]] = "onnx.Concat"(%arg3, %arg1) <{axis = 2 : i64}>
// CHECK:         %[[PV:.*]] = "onnx.Concat"(%arg4, %arg2) <{axis = 2 : i64}>
// CHECK:         return %{{.*}}, %[[PK]], %[[PV]]
func.func @cache(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x3x8xf32>, %v: tensor<2x4x3x8xf32>, %pk: tensor<2x4x5x8xf32>, %pv: tensor<2x4x5x8xf32>) -> (tensor<2x4x3x8xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) {
  %none = onnx.NoValue
  %y, %k2, %v2, %qk = "onnx.Attention"(%q, %k, %v, %none, %pk, %pv, %none) : (tensor<2x4x3x8xf32>, tensor<2x4x3x8xf32>, tensor<2x4x3x8xf32>, none, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32>, none) -> (tensor<2x4x3x8xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, none)
  return %y, %k2, %v2 : tensor<2x4x3x8xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>
}

// -----
// RotaryEmbedding, 4-D, halves rotated with position_ids.

// CHECK-LABEL: func.func @rotary(
// CHECK:         "onnx.Transpose"(%arg0) <{perm = [0, 2, 1, 3]}>
// CHECK:         "onnx.Slice"
// CHECK:         "onnx.Gather"(%arg1, %arg3)
// CHECK:         "onnx.Sub"
// CHECK:         "onnx.Concat"
// CHECK:         "onnx.Transpose"
func.func @rotary(%x: tensor<1x2x3x8xf32>, %cos: tensor<16x4xf32>, %sin: tensor<16x4xf32>, %pos: tensor<1x3xi64>) -> tensor<1x2x3x8xf32> {
  %y = "onnx.RotaryEmbedding"(%x, %cos, %sin, %pos) : (tensor<1x2x3x8xf32>, tensor<16x4xf32>, tensor<16x4xf32>, tensor<1x3xi64>) -> tensor<1x2x3x8xf32>
  return %y : tensor<1x2x3x8xf32>
}
