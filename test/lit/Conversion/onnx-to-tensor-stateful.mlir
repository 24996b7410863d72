// RUN: onyx-opt %s --convert-onnx-to-tensor --mlir-print-local-scope \
// RUN:   | FileCheck %s --implicit-check-not=onnx.
//
// Operators that carry a state across calls (NewStateful.cpp).

// CausalConvWithState: past state and input laid end to end, the depthwise
// window as one generic reading padded[l + j] with weight[c, 0, j] (f32
// accumulation for f16), SiLU, and the last k - 1 positions handed on.
// CHECK-LABEL: func.func @causal_conv
// CHECK:         %[[P:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0] [2, 4, 2] [1, 1, 1] : tensor<2x4x2xf16> into tensor<2x4x10xf16>
// CHECK:         %[[X:.*]] = tensor.insert_slice %{{.*}} into %[[P]][0, 0, 2] [2, 4, 8] [1, 1, 1] : tensor<2x4x8xf16> into tensor<2x4x10xf16>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + d3)>, affine_map<(d0, d1, d2, d3) -> (d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      outs(%{{.*}} : tensor<2x4x8xf32>)
// CHECK:         math.exp
// CHECK:         tensor.extract_slice %[[X]][0, 0, 8] [2, 4, 2] [1, 1, 1] : tensor<2x4x10xf16> to tensor<2x4x2xf16>
func.func @causal_conv(%x: tensor<2x4x8xf16>, %w: tensor<4x1x3xf16>, %s: tensor<2x4x2xf16>) -> (tensor<2x4x8xf16>, tensor<2x4x2xf16>) {
  %none = "onnx.NoValue"() : () -> none
  %y, %p = "onnx.CausalConvWithState"(%x, %w, %none, %s) {activation = "silu"} : (tensor<2x4x8xf16>, tensor<4x1x3xf16>, none, tensor<2x4x2xf16>) -> (tensor<2x4x8xf16>, tensor<2x4x2xf16>)
  return %y, %p : tensor<2x4x8xf16>, tensor<2x4x2xf16>
}

// LinearAttention (gated delta, 4 query heads over 2 KV heads, symbolic
// batch and sequence): one scf.for over the sequence carrying the state
// and the output; per step the decay (exp), what the state retrieves for
// the key (a reduction over d_k), the outer-product write and the grouped
// read by the query (a reduction over d_k, query heads as (h_kv, group)).
// CHECK-LABEL: func.func @linear_attention
// CHECK:         %{{.*}}:2 = scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<?x2x4x4xf32>, tensor<?x?x4x4xf32>)
// CHECK:           tensor.extract_slice %{{.*}}[0, %[[T]], 0, 0] [%{{.*}}, 1, 4, 4]
// CHECK:           math.exp
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, 0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK:           tensor.insert_slice %{{.*}} into %{{.*}}[0, %[[T]], 0, 0] [%{{.*}}, 1, 4, 4]
// CHECK:           scf.yield
func.func @linear_attention(%q: tensor<?x?x16xf32>, %k: tensor<?x?x8xf32>, %v: tensor<?x?x8xf32>, %g: tensor<?x?x2xf32>, %b: tensor<?x?x2xf32>) -> (tensor<?x?x16xf32>, tensor<?x2x4x4xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %y, %p = "onnx.LinearAttention"(%q, %k, %v, %none, %g, %b) {q_num_heads = 4 : i64, kv_num_heads = 2 : i64} : (tensor<?x?x16xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, none, tensor<?x?x2xf32>, tensor<?x?x2xf32>) -> (tensor<?x?x16xf32>, tensor<?x2x4x4xf32>)
  return %y, %p : tensor<?x?x16xf32>, tensor<?x2x4x4xf32>
}
