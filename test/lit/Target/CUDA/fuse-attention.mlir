// RUN: onyx-opt %s --onyx-fuse-attention --split-input-file | FileCheck %s

// The ONNX lowering's attention block (BERT: [B, S, H, D] projections
// transposed to heads, the MatMul's broadcast copies, Mul by 1/sqrt(d), an
// additive padding mask [B, 1, 1, S], Softmax, MatMul with V) becomes one
// onyx.attention reading the untransposed operands; the scores and the
// softmax are gone.

#qa = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#kb = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#cc = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#scalar = affine_map<(d0, d1, d2, d3) -> ()>
#mask = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>

// CHECK-LABEL: func.func @bert
// CHECK-SAME: (%[[Q:.*]]: tensor<?x?x?x8xf32>, %[[K:.*]]: tensor<?x?x?x8xf32>, %[[V:.*]]: tensor<?x?x?x8xf32>, %[[M:.*]]: tensor<?x1x1x?xf32>)
// CHECK: %[[O:.*]] = onyx.attention q(%[[Q]] : {{.*}}) k(%[[K]] : {{.*}}) v(%[[V]] : {{.*}}) mask(%[[M]] : {{.*}}) outs(%{{.*}} : tensor<?x?x?x8xf32>)
// CHECK-SAME: key_dims = array<i64: 0, 2, 1, 3>
// CHECK-SAME: mask_dims = array<i64: 0, -1, -1, 3>
// CHECK-SAME: query_dims = array<i64: 0, 2, 1, 3>
// CHECK-SAME: scale = 0.35355338454246521
// CHECK-SAME: value_dims = array<i64: 0, 2, 1, 3>
// CHECK-NOT: linalg.generic
// CHECK-NOT: math.exp
// CHECK: return %[[O]]
func.func @bert(%q: tensor<?x?x?x8xf32>, %k: tensor<?x?x?x8xf32>,
                %v: tensor<?x?x?x8xf32>, %m: tensor<?x1x1x?xf32>)
    -> tensor<?x?x?x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant dense<0.353553385> : tensor<f32>
  %b = tensor.dim %q, %c0 : tensor<?x?x?x8xf32>
  %s = tensor.dim %q, %c1 : tensor<?x?x?x8xf32>
  %h = tensor.dim %q, %c2 : tensor<?x?x?x8xf32>
  %e0 = tensor.empty(%b, %h, %s) : tensor<?x?x?x8xf32>
  %qt = linalg.transpose ins(%q : tensor<?x?x?x8xf32>) outs(%e0 : tensor<?x?x?x8xf32>) permutation = [0, 2, 1, 3]
  %vt = linalg.transpose ins(%v : tensor<?x?x?x8xf32>) outs(%e0 : tensor<?x?x?x8xf32>) permutation = [0, 2, 1, 3]
  %e1 = tensor.empty(%b, %h, %s) : tensor<?x?x8x?xf32>
  %kt = linalg.transpose ins(%k : tensor<?x?x?x8xf32>) outs(%e1 : tensor<?x?x8x?xf32>) permutation = [0, 2, 3, 1]
  // The MatMul's broadcast copy of Q over heads (identity: E == 1 ? 0 : i).
  %hIsOne = arith.cmpi eq, %h, %c1 : index
  %qc = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e0 : tensor<?x?x?x8xf32>) {
  ^bb0(%out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %s1 = arith.select %hIsOne, %c0, %i1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %x = tensor.extract %qt[%i0, %s1, %i2, %i3] : tensor<?x?x?x8xf32>
    linalg.yield %x : f32
  } -> tensor<?x?x?x8xf32>
  %e2 = tensor.empty(%b, %h, %s, %s) : tensor<?x?x?x?xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %qk = linalg.generic {indexing_maps = [#qa, #kb, #cc], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%qc, %kt : tensor<?x?x?x8xf32>, tensor<?x?x8x?xf32>) outs(%f2 : tensor<?x?x?x?xf32>) {
  ^bb0(%a: f32, %bb: f32, %out: f32):
    %p = arith.mulf %a, %bb : f32
    %r = arith.addf %out, %p : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?x?xf32>
  %sc = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk, %scale : tensor<?x?x?x?xf32>, tensor<f32>) outs(%e2 : tensor<?x?x?x?xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?x?xf32>
  %x = linalg.generic {indexing_maps = [#id, #mask, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %m : tensor<?x?x?x?xf32>, tensor<?x1x1x?xf32>) outs(%e2 : tensor<?x?x?x?xf32>) {
  ^bb0(%a: f32, %mm: f32, %out: f32):
    %r = arith.addf %a, %mm : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?x?xf32>
  %e3 = tensor.empty(%b, %h, %s) : tensor<?x?x?xf32>
  %f3 = linalg.fill ins(%ninf : f32) outs(%e3 : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<?x?x?x?xf32>) outs(%f3 : tensor<?x?x?xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %out, %a : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %max : tensor<?x?x?x?xf32>, tensor<?x?x?xf32>) outs(%f4 : tensor<?x?x?xf32>) {
  ^bb0(%a: f32, %mx: f32, %out: f32):
    %d = arith.subf %a, %mx : f32
    %ex = math.exp %d : f32
    %r = arith.addf %out, %ex : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %max, %sum : tensor<?x?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) outs(%e2 : tensor<?x?x?x?xf32>) {
  ^bb0(%a: f32, %mx: f32, %sm: f32, %out: f32):
    %d = arith.subf %a, %mx : f32
    %ex = math.exp %d : f32
    %r = arith.divf %ex, %sm : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?x?xf32>
  %f5 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?x?x?x8xf32>) -> tensor<?x?x?x8xf32>
  %o = linalg.generic {indexing_maps = [#qa, #kb, #cc], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %vt : tensor<?x?x?x?xf32>, tensor<?x?x?x8xf32>) outs(%f5 : tensor<?x?x?x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %out: f32):
    %pp = arith.mulf %a, %bb : f32
    %r = arith.addf %out, %pp : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?x8xf32>
  return %o : tensor<?x?x?x8xf32>
}

// -----

// A softmax whose sum starts at 1 is not Softmax: the block stays as it is.

#qa = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#kb = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#cc = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// CHECK-LABEL: func.func @not_attention
// CHECK-NOT: onyx.attention
// CHECK: math.exp
func.func @not_attention(%q: tensor<2x4x16x8xf32>, %kt: tensor<2x4x8x16xf32>,
                         %v: tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e2 = tensor.empty() : tensor<2x4x16x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %x = linalg.generic {indexing_maps = [#qa, #kb, #cc], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %kt : tensor<2x4x16x8xf32>, tensor<2x4x8x16xf32>) outs(%f2 : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %bb: f32, %out: f32):
    %p = arith.mulf %a, %bb : f32
    %r = arith.addf %out, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %e3 = tensor.empty() : tensor<2x4x16xf32>
  %f3 = linalg.fill ins(%ninf : f32) outs(%e3 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<2x4x16x16xf32>) outs(%f3 : tensor<2x4x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %out, %a : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16xf32>
  %f4 = linalg.fill ins(%one : f32) outs(%e3 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %max : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>) outs(%f4 : tensor<2x4x16xf32>) {
  ^bb0(%a: f32, %mx: f32, %out: f32):
    %d = arith.subf %a, %mx : f32
    %ex = math.exp %d : f32
    %r = arith.addf %out, %ex : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %max, %sum : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>) outs(%e2 : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %mx: f32, %sm: f32, %out: f32):
    %d = arith.subf %a, %mx : f32
    %ex = math.exp %d : f32
    %r = arith.divf %ex, %sm : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %e5 = tensor.empty() : tensor<2x4x16x8xf32>
  %f5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  %o = linalg.generic {indexing_maps = [#qa, #kb, #cc], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) outs(%f5 : tensor<2x4x16x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %out: f32):
    %pp = arith.mulf %a, %bb : f32
    %r = arith.addf %out, %pp : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}
