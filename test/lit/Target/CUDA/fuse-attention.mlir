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

// -----

// An f16 block as the ONNX lowering writes it (onyx-opt
// --convert-onnx-to-tensor of MatMul(q, Transpose(k)) * 0.125 + m,
// Softmax, MatMul v, all f16): the Mul and Add compute in f32 between
// extf and truncf, the Softmax and the MatMuls in f16; the f16 padding
// mask is read as it is.
#f16_padding_map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#f16_padding_map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#f16_padding_map2 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#f16_padding_map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#f16_padding_map4 = affine_map<(d0, d1, d2, d3) -> ()>
#f16_padding_map5 = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
#f16_padding_map6 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// CHECK-LABEL: func.func @f16_padding
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x40x64xf16>, %[[K:.*]]: tensor<2x4x40x64xf16>, %[[V:.*]]: tensor<2x4x40x64xf16>, %[[M:.*]]: tensor<2x1x1x40xf16>)
// CHECK: %[[O:.*]] = onyx.attention q(%[[Q]] : {{.*}}) k(%[[K]] : {{.*}}) v(%[[V]] : {{.*}}) mask(%[[M]] : tensor<2x1x1x40xf16>) outs(%{{.*}} : tensor<2x4x40x64xf16>)
// CHECK-SAME: key_dims = array<i64: 0, 1, 2, 3>
// CHECK-SAME: mask_dims = array<i64: 0, -1, -1, 3>
// CHECK-SAME: scale = 1.250000e-01
// CHECK-NOT: linalg.generic
// CHECK-NOT: math.exp
// CHECK: return %[[O]]
func.func @f16_padding(%arg0: tensor<2x4x40x64xf16>, %arg1: tensor<2x4x40x64xf16>, %arg2: tensor<2x4x40x64xf16>, %arg3: tensor<2x1x1x40xf16>) -> (tensor<2x4x40x64xf16>) {
  %cst = arith.constant dense<1.250000e-01> : tensor<f16>
  %0 = tensor.empty() : tensor<2x4x64x40xf16>
  %transposed = linalg.transpose ins(%arg1 : tensor<2x4x40x64xf16>) outs(%0 : tensor<2x4x64x40xf16>) permutation = [0, 1, 3, 2] 
  %cst_0 = arith.constant 0.000000e+00 : f16
  %1 = tensor.empty() : tensor<2x4x40x40xf16>
  %2 = linalg.fill ins(%cst_0 : f16) outs(%1 : tensor<2x4x40x40xf16>) -> tensor<2x4x40x40xf16>
  %3 = linalg.generic {indexing_maps = [#f16_padding_map, #f16_padding_map1, #f16_padding_map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %transposed : tensor<2x4x40x64xf16>, tensor<2x4x64x40xf16>) outs(%2 : tensor<2x4x40x40xf16>) {
  ^bb0(%in: f16, %in_4: f16, %out: f16):
    %19 = arith.mulf %in, %in_4 : f16
    %20 = arith.addf %out, %19 : f16
    linalg.yield %20 : f16
  } -> tensor<2x4x40x40xf16>
  %4 = tensor.empty() : tensor<2x4x40x40xf16>
  %5 = linalg.generic {indexing_maps = [#f16_padding_map3, #f16_padding_map4, #f16_padding_map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3, %cst : tensor<2x4x40x40xf16>, tensor<f16>) outs(%4 : tensor<2x4x40x40xf16>) {
  ^bb0(%in: f16, %in_4: f16, %out: f16):
    %19 = arith.extf %in : f16 to f32
    %20 = arith.extf %in_4 : f16 to f32
    %21 = arith.mulf %19, %20 : f32
    %22 = arith.truncf %21 : f32 to f16
    linalg.yield %22 : f16
  } -> tensor<2x4x40x40xf16>
  %6 = tensor.empty() : tensor<2x4x40x40xf16>
  %7 = linalg.generic {indexing_maps = [#f16_padding_map3, #f16_padding_map5, #f16_padding_map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%5, %arg3 : tensor<2x4x40x40xf16>, tensor<2x1x1x40xf16>) outs(%6 : tensor<2x4x40x40xf16>) {
  ^bb0(%in: f16, %in_4: f16, %out: f16):
    %19 = arith.extf %in : f16 to f32
    %20 = arith.extf %in_4 : f16 to f32
    %21 = arith.addf %19, %20 : f32
    %22 = arith.truncf %21 : f32 to f16
    linalg.yield %22 : f16
  } -> tensor<2x4x40x40xf16>
  %cst_1 = arith.constant 0xFC00 : f16
  %8 = tensor.empty() : tensor<2x4x40xf16>
  %9 = linalg.fill ins(%cst_1 : f16) outs(%8 : tensor<2x4x40xf16>) -> tensor<2x4x40xf16>
  %10 = linalg.generic {indexing_maps = [#f16_padding_map3, #f16_padding_map6], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%7 : tensor<2x4x40x40xf16>) outs(%9 : tensor<2x4x40xf16>) {
  ^bb0(%in: f16, %out: f16):
    %19 = arith.maximumf %out, %in : f16
    linalg.yield %19 : f16
  } -> tensor<2x4x40xf16>
  %cst_2 = arith.constant 0.000000e+00 : f16
  %11 = tensor.empty() : tensor<2x4x40xf16>
  %12 = linalg.fill ins(%cst_2 : f16) outs(%11 : tensor<2x4x40xf16>) -> tensor<2x4x40xf16>
  %13 = linalg.generic {indexing_maps = [#f16_padding_map3, #f16_padding_map6, #f16_padding_map6], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%7, %10 : tensor<2x4x40x40xf16>, tensor<2x4x40xf16>) outs(%12 : tensor<2x4x40xf16>) {
  ^bb0(%in: f16, %in_4: f16, %out: f16):
    %19 = arith.subf %in, %in_4 : f16
    %20 = math.exp %19 : f16
    %21 = arith.addf %out, %20 : f16
    linalg.yield %21 : f16
  } -> tensor<2x4x40xf16>
  %14 = tensor.empty() : tensor<2x4x40x40xf16>
  %15 = linalg.generic {indexing_maps = [#f16_padding_map3, #f16_padding_map6, #f16_padding_map6, #f16_padding_map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7, %10, %13 : tensor<2x4x40x40xf16>, tensor<2x4x40xf16>, tensor<2x4x40xf16>) outs(%14 : tensor<2x4x40x40xf16>) {
  ^bb0(%in: f16, %in_4: f16, %in_5: f16, %out: f16):
    %19 = arith.subf %in, %in_4 : f16
    %20 = math.exp %19 : f16
    %21 = arith.divf %20, %in_5 : f16
    linalg.yield %21 : f16
  } -> tensor<2x4x40x40xf16>
  %cst_3 = arith.constant 0.000000e+00 : f16
  %16 = tensor.empty() : tensor<2x4x40x64xf16>
  %17 = linalg.fill ins(%cst_3 : f16) outs(%16 : tensor<2x4x40x64xf16>) -> tensor<2x4x40x64xf16>
  %18 = linalg.generic {indexing_maps = [#f16_padding_map, #f16_padding_map1, #f16_padding_map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%15, %arg2 : tensor<2x4x40x40xf16>, tensor<2x4x40x64xf16>) outs(%17 : tensor<2x4x40x64xf16>) {
  ^bb0(%in: f16, %in_4: f16, %out: f16):
    %19 = arith.mulf %in, %in_4 : f16
    %20 = arith.addf %out, %19 : f16
    linalg.yield %20 : f16
  } -> tensor<2x4x40x64xf16>
  return %18 : tensor<2x4x40x64xf16>
}

// -----

// A bf16 block with a Where mask (a causal-style i1 [1, 1, S, S] and a
// bf16 fill): the lowering writes bf16 elementwise bodies with bit-level
// extension (shli of the bits) and round-to-nearest-even truncation.
#bf16_where_map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#bf16_where_map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#bf16_where_map2 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#bf16_where_map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bf16_where_map4 = affine_map<(d0, d1, d2, d3) -> ()>
#bf16_where_map5 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#bf16_where_map6 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// CHECK-LABEL: func.func @bf16_where
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x16x32xbf16>, %[[K:.*]]: tensor<1x2x16x32xbf16>, %[[V:.*]]: tensor<1x2x16x32xbf16>, %[[M:.*]]: tensor<1x1x16x16xi1>)
// CHECK: %[[O:.*]] = onyx.attention q(%[[Q]] : {{.*}}) k(%[[K]] : {{.*}}) v(%[[V]] : {{.*}}) mask(%[[M]] : tensor<1x1x16x16xi1>) outs(%{{.*}} : tensor<1x2x16x32xbf16>)
// CHECK-SAME: mask_dims = array<i64: 0, -1, 2, 3>
// CHECK-SAME: mask_fill = -3.00405{{[0-9]*}}E+38
// CHECK-SAME: scale = 1.250000e-01
// CHECK-NOT: linalg.generic
// CHECK-NOT: math.exp
// CHECK: return %[[O]]
func.func @bf16_where(%arg0: tensor<1x2x16x32xbf16>, %arg1: tensor<1x2x16x32xbf16>, %arg2: tensor<1x2x16x32xbf16>, %arg3: tensor<1x1x16x16xi1>) -> (tensor<1x2x16x32xbf16>) {
  %cst = arith.constant dense<1.250000e-01> : tensor<bf16>
  %cst_0 = arith.constant dense<-3.004060e+38> : tensor<bf16>
  %0 = tensor.empty() : tensor<1x2x32x16xbf16>
  %transposed = linalg.transpose ins(%arg1 : tensor<1x2x16x32xbf16>) outs(%0 : tensor<1x2x32x16xbf16>) permutation = [0, 1, 3, 2] 
  %cst_1 = arith.constant 0.000000e+00 : bf16
  %1 = tensor.empty() : tensor<1x2x16x16xbf16>
  %2 = linalg.fill ins(%cst_1 : bf16) outs(%1 : tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16>
  %3 = linalg.generic {indexing_maps = [#bf16_where_map, #bf16_where_map1, #bf16_where_map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %transposed : tensor<1x2x16x32xbf16>, tensor<1x2x32x16xbf16>) outs(%2 : tensor<1x2x16x16xbf16>) {
  ^bb0(%in: bf16, %in_5: bf16, %out: bf16):
    %19 = arith.mulf %in, %in_5 : bf16
    %20 = arith.addf %out, %19 : bf16
    linalg.yield %20 : bf16
  } -> tensor<1x2x16x16xbf16>
  %4 = tensor.empty() : tensor<1x2x16x16xbf16>
  %5 = linalg.generic {indexing_maps = [#bf16_where_map3, #bf16_where_map4, #bf16_where_map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3, %cst : tensor<1x2x16x16xbf16>, tensor<bf16>) outs(%4 : tensor<1x2x16x16xbf16>) {
  ^bb0(%in: bf16, %in_5: bf16, %out: bf16):
    %19 = arith.bitcast %in : bf16 to i16
    %20 = arith.extui %19 : i16 to i32
    %c16_i32 = arith.constant 16 : i32
    %21 = arith.shli %20, %c16_i32 : i32
    %22 = arith.bitcast %21 : i32 to f32
    %23 = arith.bitcast %in_5 : bf16 to i16
    %24 = arith.extui %23 : i16 to i32
    %c16_i32_6 = arith.constant 16 : i32
    %25 = arith.shli %24, %c16_i32_6 : i32
    %26 = arith.bitcast %25 : i32 to f32
    %27 = arith.mulf %22, %26 : f32
    %28 = arith.bitcast %27 : f32 to i32
    %c16_i32_7 = arith.constant 16 : i32
    %29 = arith.shrui %28, %c16_i32_7 : i32
    %c1_i32 = arith.constant 1 : i32
    %30 = arith.andi %29, %c1_i32 : i32
    %c32767_i32 = arith.constant 32767 : i32
    %31 = arith.addi %30, %c32767_i32 : i32
    %32 = arith.addi %28, %31 : i32
    %33 = arith.shrui %32, %c16_i32_7 : i32
    %c64_i32 = arith.constant 64 : i32
    %34 = arith.ori %29, %c64_i32 : i32
    %35 = arith.cmpf uno, %27, %27 : f32
    %36 = arith.select %35, %34, %33 : i32
    %37 = arith.trunci %36 : i32 to i16
    %38 = arith.bitcast %37 : i16 to bf16
    linalg.yield %38 : bf16
  } -> tensor<1x2x16x16xbf16>
  %6 = tensor.empty() : tensor<1x2x16x16xbf16>
  %7 = linalg.generic {indexing_maps = [#bf16_where_map5, #bf16_where_map3, #bf16_where_map4, #bf16_where_map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg3, %5, %cst_0 : tensor<1x1x16x16xi1>, tensor<1x2x16x16xbf16>, tensor<bf16>) outs(%6 : tensor<1x2x16x16xbf16>) {
  ^bb0(%in: i1, %in_5: bf16, %in_6: bf16, %out: bf16):
    %19 = arith.bitcast %in_5 : bf16 to i16
    %20 = arith.extui %19 : i16 to i32
    %c16_i32 = arith.constant 16 : i32
    %21 = arith.shli %20, %c16_i32 : i32
    %22 = arith.bitcast %21 : i32 to f32
    %23 = arith.bitcast %in_6 : bf16 to i16
    %24 = arith.extui %23 : i16 to i32
    %c16_i32_7 = arith.constant 16 : i32
    %25 = arith.shli %24, %c16_i32_7 : i32
    %26 = arith.bitcast %25 : i32 to f32
    %27 = arith.select %in, %22, %26 : f32
    %28 = arith.bitcast %27 : f32 to i32
    %c16_i32_8 = arith.constant 16 : i32
    %29 = arith.shrui %28, %c16_i32_8 : i32
    %c1_i32 = arith.constant 1 : i32
    %30 = arith.andi %29, %c1_i32 : i32
    %c32767_i32 = arith.constant 32767 : i32
    %31 = arith.addi %30, %c32767_i32 : i32
    %32 = arith.addi %28, %31 : i32
    %33 = arith.shrui %32, %c16_i32_8 : i32
    %c64_i32 = arith.constant 64 : i32
    %34 = arith.ori %29, %c64_i32 : i32
    %35 = arith.cmpf uno, %27, %27 : f32
    %36 = arith.select %35, %34, %33 : i32
    %37 = arith.trunci %36 : i32 to i16
    %38 = arith.bitcast %37 : i16 to bf16
    linalg.yield %38 : bf16
  } -> tensor<1x2x16x16xbf16>
  %cst_2 = arith.constant 0xFF80 : bf16
  %8 = tensor.empty() : tensor<1x2x16xbf16>
  %9 = linalg.fill ins(%cst_2 : bf16) outs(%8 : tensor<1x2x16xbf16>) -> tensor<1x2x16xbf16>
  %10 = linalg.generic {indexing_maps = [#bf16_where_map3, #bf16_where_map6], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%7 : tensor<1x2x16x16xbf16>) outs(%9 : tensor<1x2x16xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %19 = arith.maximumf %out, %in : bf16
    linalg.yield %19 : bf16
  } -> tensor<1x2x16xbf16>
  %cst_3 = arith.constant 0.000000e+00 : bf16
  %11 = tensor.empty() : tensor<1x2x16xbf16>
  %12 = linalg.fill ins(%cst_3 : bf16) outs(%11 : tensor<1x2x16xbf16>) -> tensor<1x2x16xbf16>
  %13 = linalg.generic {indexing_maps = [#bf16_where_map3, #bf16_where_map6, #bf16_where_map6], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%7, %10 : tensor<1x2x16x16xbf16>, tensor<1x2x16xbf16>) outs(%12 : tensor<1x2x16xbf16>) {
  ^bb0(%in: bf16, %in_5: bf16, %out: bf16):
    %19 = arith.subf %in, %in_5 : bf16
    %20 = math.exp %19 : bf16
    %21 = arith.addf %out, %20 : bf16
    linalg.yield %21 : bf16
  } -> tensor<1x2x16xbf16>
  %14 = tensor.empty() : tensor<1x2x16x16xbf16>
  %15 = linalg.generic {indexing_maps = [#bf16_where_map3, #bf16_where_map6, #bf16_where_map6, #bf16_where_map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7, %10, %13 : tensor<1x2x16x16xbf16>, tensor<1x2x16xbf16>, tensor<1x2x16xbf16>) outs(%14 : tensor<1x2x16x16xbf16>) {
  ^bb0(%in: bf16, %in_5: bf16, %in_6: bf16, %out: bf16):
    %19 = arith.subf %in, %in_5 : bf16
    %20 = math.exp %19 : bf16
    %21 = arith.divf %20, %in_6 : bf16
    linalg.yield %21 : bf16
  } -> tensor<1x2x16x16xbf16>
  %cst_4 = arith.constant 0.000000e+00 : bf16
  %16 = tensor.empty() : tensor<1x2x16x32xbf16>
  %17 = linalg.fill ins(%cst_4 : bf16) outs(%16 : tensor<1x2x16x32xbf16>) -> tensor<1x2x16x32xbf16>
  %18 = linalg.generic {indexing_maps = [#bf16_where_map, #bf16_where_map1, #bf16_where_map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%15, %arg2 : tensor<1x2x16x16xbf16>, tensor<1x2x16x32xbf16>) outs(%17 : tensor<1x2x16x32xbf16>) {
  ^bb0(%in: bf16, %in_5: bf16, %out: bf16):
    %19 = arith.mulf %in, %in_5 : bf16
    %20 = arith.addf %out, %19 : bf16
    linalg.yield %20 : bf16
  } -> tensor<1x2x16x32xbf16>
  return %18 : tensor<1x2x16x32xbf16>
}

// -----

// `--precision=fp16` on an fp32 model: Q, K, V and the MatMuls in f16, the
// scale in f16 (its constant fits), then onnx-convert-precision's Cast to
// f32 (a pure extf generic), the f32 padding mask Add and the Softmax in
// f32, its Cast back to f16 (a pure truncf generic) before the second
// MatMul. One onyx.attention on the f16 operands with the f32 mask; the
// casts die with the scores.
#f16p_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#f16p_map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#f16p_map2 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#f16p_map3 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#f16p_map4 = affine_map<(d0, d1, d2, d3) -> ()>
#f16p_map5 = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
#f16p_map6 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// CHECK-LABEL: func.func @f16_precision_padding
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x16x32xf16>, %[[K:.*]]: tensor<1x2x16x32xf16>, %[[V:.*]]: tensor<1x2x16x32xf16>, %[[M:.*]]: tensor<1x1x1x16xf32>)
// CHECK: %[[O:.*]] = onyx.attention q(%[[Q]] : {{.*}}) k(%[[K]] : {{.*}}) v(%[[V]] : {{.*}}) mask(%[[M]] : tensor<1x1x1x16xf32>) outs(%{{.*}} : tensor<1x2x16x32xf16>)
// CHECK-SAME: key_dims = array<i64: 0, 1, 2, 3>
// CHECK-SAME: mask_dims = array<i64: 0, -1, -1, 3>
// CHECK-SAME: scale = 0.1767955
// CHECK-NOT: math.exp
// CHECK: %[[W:.*]] = linalg.generic {{.*}} ins(%[[O]] : tensor<1x2x16x32xf16>) outs(%{{.*}} : tensor<1x2x16x32xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.extf
// CHECK-NEXT: linalg.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[W]]
func.func @f16_precision_padding(%q: tensor<1x2x16x32xf16>, %k: tensor<1x2x16x32xf16>, %v: tensor<1x2x16x32xf16>, %m: tensor<1x1x1x16xf32>) -> tensor<1x2x16x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  %cst_1 = arith.constant 0.000000e+00 : f16
  %cst_2 = arith.constant dense<5.656250e+00> : tensor<f16>
  %0 = tensor.empty() : tensor<1x2x16x32xf16>
  %4 = tensor.empty() : tensor<1x2x32x16xf16>
  %transposed = linalg.transpose ins(%k : tensor<1x2x16x32xf16>) outs(%4 : tensor<1x2x32x16xf16>) permutation = [0, 1, 3, 2]
  %6 = tensor.empty() : tensor<1x2x16x16xf16>
  %7 = linalg.fill ins(%cst_1 : f16) outs(%6 : tensor<1x2x16x16xf16>) -> tensor<1x2x16x16xf16>
  %8 = linalg.generic {indexing_maps = [#f16p_map1, #f16p_map2, #f16p_map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %transposed : tensor<1x2x16x32xf16>, tensor<1x2x32x16xf16>) outs(%7 : tensor<1x2x16x16xf16>) {
  ^bb0(%in: f16, %in_3: f16, %out: f16):
    %24 = arith.mulf %in, %in_3 : f16
    %25 = arith.addf %out, %24 : f16
    linalg.yield %25 : f16
  } -> tensor<1x2x16x16xf16>
  %9 = linalg.generic {indexing_maps = [#f16p_map, #f16p_map4, #f16p_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8, %cst_2 : tensor<1x2x16x16xf16>, tensor<f16>) outs(%6 : tensor<1x2x16x16xf16>) {
  ^bb0(%in: f16, %in_3: f16, %out: f16):
    %24 = arith.extf %in : f16 to f32
    %25 = arith.extf %in_3 : f16 to f32
    %26 = arith.divf %24, %25 : f32
    %27 = arith.truncf %26 : f32 to f16
    linalg.yield %27 : f16
  } -> tensor<1x2x16x16xf16>
  %10 = tensor.empty() : tensor<1x2x16x16xf32>
  %11 = linalg.generic {indexing_maps = [#f16p_map, #f16p_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<1x2x16x16xf16>) outs(%10 : tensor<1x2x16x16xf32>) {
  ^bb0(%in: f16, %out: f32):
    %24 = arith.extf %in : f16 to f32
    linalg.yield %24 : f32
  } -> tensor<1x2x16x16xf32>
  %12 = linalg.generic {indexing_maps = [#f16p_map, #f16p_map5, #f16p_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11, %m : tensor<1x2x16x16xf32>, tensor<1x1x1x16xf32>) outs(%10 : tensor<1x2x16x16xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %24 = arith.addf %in, %in_3 : f32
    linalg.yield %24 : f32
  } -> tensor<1x2x16x16xf32>
  %13 = tensor.empty() : tensor<1x2x16xf32>
  %14 = linalg.fill ins(%cst_0 : f32) outs(%13 : tensor<1x2x16xf32>) -> tensor<1x2x16xf32>
  %15 = linalg.generic {indexing_maps = [#f16p_map, #f16p_map6], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%12 : tensor<1x2x16x16xf32>) outs(%14 : tensor<1x2x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %24 = arith.maximumf %out, %in : f32
    linalg.yield %24 : f32
  } -> tensor<1x2x16xf32>
  %16 = linalg.fill ins(%cst : f32) outs(%13 : tensor<1x2x16xf32>) -> tensor<1x2x16xf32>
  %17 = linalg.generic {indexing_maps = [#f16p_map, #f16p_map6, #f16p_map6], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%12, %15 : tensor<1x2x16x16xf32>, tensor<1x2x16xf32>) outs(%16 : tensor<1x2x16xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %24 = arith.subf %in, %in_3 : f32
    %25 = math.exp %24 : f32
    %26 = arith.addf %out, %25 : f32
    linalg.yield %26 : f32
  } -> tensor<1x2x16xf32>
  %18 = linalg.generic {indexing_maps = [#f16p_map, #f16p_map6, #f16p_map6, #f16p_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%12, %15, %17 : tensor<1x2x16x16xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>) outs(%10 : tensor<1x2x16x16xf32>) {
  ^bb0(%in: f32, %in_3: f32, %in_4: f32, %out: f32):
    %24 = arith.subf %in, %in_3 : f32
    %25 = math.exp %24 : f32
    %26 = arith.divf %25, %in_4 : f32
    linalg.yield %26 : f32
  } -> tensor<1x2x16x16xf32>
  %19 = linalg.generic {indexing_maps = [#f16p_map, #f16p_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18 : tensor<1x2x16x16xf32>) outs(%6 : tensor<1x2x16x16xf16>) {
  ^bb0(%in: f32, %out: f16):
    %24 = arith.truncf %in : f32 to f16
    linalg.yield %24 : f16
  } -> tensor<1x2x16x16xf16>
  %20 = linalg.fill ins(%cst_1 : f16) outs(%0 : tensor<1x2x16x32xf16>) -> tensor<1x2x16x32xf16>
  %21 = linalg.generic {indexing_maps = [#f16p_map1, #f16p_map2, #f16p_map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%19, %v : tensor<1x2x16x16xf16>, tensor<1x2x16x32xf16>) outs(%20 : tensor<1x2x16x32xf16>) {
  ^bb0(%in: f16, %in_3: f16, %out: f16):
    %24 = arith.mulf %in, %in_3 : f16
    %25 = arith.addf %out, %24 : f16
    linalg.yield %25 : f16
  } -> tensor<1x2x16x32xf16>
  %22 = tensor.empty() : tensor<1x2x16x32xf32>
  %23 = linalg.generic {indexing_maps = [#f16p_map, #f16p_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%21 : tensor<1x2x16x32xf16>) outs(%22 : tensor<1x2x16x32xf32>) {
  ^bb0(%in: f16, %out: f32):
    %24 = arith.extf %in : f16 to f32
    linalg.yield %24 : f32
  } -> tensor<1x2x16x32xf32>
  return %23 : tensor<1x2x16x32xf32>
}

// -----

// `--precision=bf16`, GPT-2's causal Where kept in f32 (its fill,
// finfo(f32).min, is no finite bf16): the casts around the f32 Where and
// Softmax are bf16's bit-level extension and round-to-nearest-even
// truncation.
#bf16p_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bf16p_map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#bf16p_map2 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#bf16p_map3 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#bf16p_map4 = affine_map<(d0, d1, d2, d3) -> ()>
#bf16p_map5 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#bf16p_map6 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// CHECK-LABEL: func.func @bf16_precision_where
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x16x32xbf16>, %[[K:.*]]: tensor<1x2x16x32xbf16>, %[[V:.*]]: tensor<1x2x16x32xbf16>, %[[M:.*]]: tensor<1x1x16x16xi1>)
// CHECK: onyx.attention q(%[[Q]] : {{.*}}) k(%[[K]] : {{.*}}) v(%[[V]] : {{.*}}) mask(%[[M]] : tensor<1x1x16x16xi1>) outs(%{{.*}} : tensor<1x2x16x32xbf16>)
// CHECK-SAME: mask_dims = array<i64: 0, -1, 2, 3>
// CHECK-SAME: mask_fill = -3.4028234663852886E+38
// CHECK-SAME: scale = 0.1767955
// CHECK-NOT: math.exp
// CHECK: return
func.func @bf16_precision_where(%q: tensor<1x2x16x32xbf16>, %k: tensor<1x2x16x32xbf16>, %v: tensor<1x2x16x32xbf16>, %m: tensor<1x1x16x16xi1>) -> tensor<1x2x16x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  %cst_1 = arith.constant 0.000000e+00 : bf16
  %cst_2 = arith.constant dense<-3.40282347E+38> : tensor<f32>
  %cst_3 = arith.constant dense<5.656250e+00> : tensor<bf16>
  %c64_i32 = arith.constant 64 : i32
  %c32767_i32 = arith.constant 32767 : i32
  %c1_i32 = arith.constant 1 : i32
  %c16_i32 = arith.constant 16 : i32
  %0 = tensor.empty() : tensor<1x2x16x32xbf16>
  %4 = tensor.empty() : tensor<1x2x32x16xbf16>
  %transposed = linalg.transpose ins(%k : tensor<1x2x16x32xbf16>) outs(%4 : tensor<1x2x32x16xbf16>) permutation = [0, 1, 3, 2]
  %6 = tensor.empty() : tensor<1x2x16x16xbf16>
  %7 = linalg.fill ins(%cst_1 : bf16) outs(%6 : tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16>
  %8 = linalg.generic {indexing_maps = [#bf16p_map1, #bf16p_map2, #bf16p_map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %transposed : tensor<1x2x16x32xbf16>, tensor<1x2x32x16xbf16>) outs(%7 : tensor<1x2x16x16xbf16>) {
  ^bb0(%in: bf16, %in_4: bf16, %out: bf16):
    %24 = arith.mulf %in, %in_4 : bf16
    %25 = arith.addf %out, %24 : bf16
    linalg.yield %25 : bf16
  } -> tensor<1x2x16x16xbf16>
  %9 = linalg.generic {indexing_maps = [#bf16p_map, #bf16p_map4, #bf16p_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8, %cst_3 : tensor<1x2x16x16xbf16>, tensor<bf16>) outs(%6 : tensor<1x2x16x16xbf16>) {
  ^bb0(%in: bf16, %in_4: bf16, %out: bf16):
    %24 = arith.bitcast %in : bf16 to i16
    %25 = arith.extui %24 : i16 to i32
    %26 = arith.shli %25, %c16_i32 : i32
    %27 = arith.bitcast %26 : i32 to f32
    %28 = arith.bitcast %in_4 : bf16 to i16
    %29 = arith.extui %28 : i16 to i32
    %30 = arith.shli %29, %c16_i32 : i32
    %31 = arith.bitcast %30 : i32 to f32
    %32 = arith.divf %27, %31 : f32
    %33 = arith.bitcast %32 : f32 to i32
    %34 = arith.shrui %33, %c16_i32 : i32
    %35 = arith.andi %34, %c1_i32 : i32
    %36 = arith.addi %35, %c32767_i32 : i32
    %37 = arith.addi %33, %36 : i32
    %38 = arith.shrui %37, %c16_i32 : i32
    %39 = arith.ori %34, %c64_i32 : i32
    %40 = arith.cmpf uno, %32, %32 : f32
    %41 = arith.select %40, %39, %38 : i32
    %42 = arith.trunci %41 : i32 to i16
    %43 = arith.bitcast %42 : i16 to bf16
    linalg.yield %43 : bf16
  } -> tensor<1x2x16x16xbf16>
  %10 = tensor.empty() : tensor<1x2x16x16xf32>
  %11 = linalg.generic {indexing_maps = [#bf16p_map, #bf16p_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<1x2x16x16xbf16>) outs(%10 : tensor<1x2x16x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %24 = arith.bitcast %in : bf16 to i16
    %25 = arith.extui %24 : i16 to i32
    %26 = arith.shli %25, %c16_i32 : i32
    %27 = arith.bitcast %26 : i32 to f32
    linalg.yield %27 : f32
  } -> tensor<1x2x16x16xf32>
  %12 = linalg.generic {indexing_maps = [#bf16p_map5, #bf16p_map, #bf16p_map4, #bf16p_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%m, %11, %cst_2 : tensor<1x1x16x16xi1>, tensor<1x2x16x16xf32>, tensor<f32>) outs(%10 : tensor<1x2x16x16xf32>) {
  ^bb0(%in: i1, %in_4: f32, %in_5: f32, %out: f32):
    %24 = arith.select %in, %in_4, %in_5 : f32
    linalg.yield %24 : f32
  } -> tensor<1x2x16x16xf32>
  %13 = tensor.empty() : tensor<1x2x16xf32>
  %14 = linalg.fill ins(%cst_0 : f32) outs(%13 : tensor<1x2x16xf32>) -> tensor<1x2x16xf32>
  %15 = linalg.generic {indexing_maps = [#bf16p_map, #bf16p_map6], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%12 : tensor<1x2x16x16xf32>) outs(%14 : tensor<1x2x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %24 = arith.maximumf %out, %in : f32
    linalg.yield %24 : f32
  } -> tensor<1x2x16xf32>
  %16 = linalg.fill ins(%cst : f32) outs(%13 : tensor<1x2x16xf32>) -> tensor<1x2x16xf32>
  %17 = linalg.generic {indexing_maps = [#bf16p_map, #bf16p_map6, #bf16p_map6], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%12, %15 : tensor<1x2x16x16xf32>, tensor<1x2x16xf32>) outs(%16 : tensor<1x2x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %24 = arith.subf %in, %in_4 : f32
    %25 = math.exp %24 : f32
    %26 = arith.addf %out, %25 : f32
    linalg.yield %26 : f32
  } -> tensor<1x2x16xf32>
  %18 = linalg.generic {indexing_maps = [#bf16p_map, #bf16p_map6, #bf16p_map6, #bf16p_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%12, %15, %17 : tensor<1x2x16x16xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>) outs(%10 : tensor<1x2x16x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %in_5: f32, %out: f32):
    %24 = arith.subf %in, %in_4 : f32
    %25 = math.exp %24 : f32
    %26 = arith.divf %25, %in_5 : f32
    linalg.yield %26 : f32
  } -> tensor<1x2x16x16xf32>
  %19 = linalg.generic {indexing_maps = [#bf16p_map, #bf16p_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18 : tensor<1x2x16x16xf32>) outs(%6 : tensor<1x2x16x16xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %24 = arith.bitcast %in : f32 to i32
    %25 = arith.shrui %24, %c16_i32 : i32
    %26 = arith.andi %25, %c1_i32 : i32
    %27 = arith.addi %26, %c32767_i32 : i32
    %28 = arith.addi %24, %27 : i32
    %29 = arith.shrui %28, %c16_i32 : i32
    %30 = arith.ori %25, %c64_i32 : i32
    %31 = arith.cmpf uno, %in, %in : f32
    %32 = arith.select %31, %30, %29 : i32
    %33 = arith.trunci %32 : i32 to i16
    %34 = arith.bitcast %33 : i16 to bf16
    linalg.yield %34 : bf16
  } -> tensor<1x2x16x16xbf16>
  %20 = linalg.fill ins(%cst_1 : bf16) outs(%0 : tensor<1x2x16x32xbf16>) -> tensor<1x2x16x32xbf16>
  %21 = linalg.generic {indexing_maps = [#bf16p_map1, #bf16p_map2, #bf16p_map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%19, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x32xbf16>) outs(%20 : tensor<1x2x16x32xbf16>) {
  ^bb0(%in: bf16, %in_4: bf16, %out: bf16):
    %24 = arith.mulf %in, %in_4 : bf16
    %25 = arith.addf %out, %24 : bf16
    linalg.yield %25 : bf16
  } -> tensor<1x2x16x32xbf16>
  %22 = tensor.empty() : tensor<1x2x16x32xf32>
  %23 = linalg.generic {indexing_maps = [#bf16p_map, #bf16p_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%21 : tensor<1x2x16x32xbf16>) outs(%22 : tensor<1x2x16x32xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %24 = arith.bitcast %in : bf16 to i16
    %25 = arith.extui %24 : i16 to i32
    %26 = arith.shli %25, %c16_i32 : i32
    %27 = arith.bitcast %26 : i32 to f32
    linalg.yield %27 : f32
  } -> tensor<1x2x16x32xf32>
  return %23 : tensor<1x2x16x32xf32>
}

// -----

// A Softmax in f32 whose input never was half (QK in f32) feeding an f16
// PV through a truncation: Q/K and V differ in type, so nothing fuses.
#mixed_map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#mixed_map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#mixed_map2 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#mixed_map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#mixed_map4 = affine_map<(d0, d1, d2, d3) -> ()>
#mixed_map6 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// CHECK-LABEL: func.func @mixed_precision_qk
// CHECK-NOT: onyx.attention
// CHECK: math.exp
func.func @mixed_precision_qk(%q: tensor<1x2x16x32xf32>, %kt: tensor<1x2x32x16xf32>, %v: tensor<1x2x16x32xf16>) -> tensor<1x2x16x32xf16> {
  %cst = arith.constant 0xFF800000 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %cst_h = arith.constant 0.000000e+00 : f16
  %cst_1 = arith.constant dense<5.65685415> : tensor<f32>
  %1 = tensor.empty() : tensor<1x2x16x16xf32>
  %2 = linalg.fill ins(%cst_0 : f32) outs(%1 : tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %3 = linalg.generic {indexing_maps = [#mixed_map, #mixed_map1, #mixed_map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %kt : tensor<1x2x16x32xf32>, tensor<1x2x32x16xf32>) outs(%2 : tensor<1x2x16x16xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %15 = arith.mulf %in, %in_2 : f32
    %16 = arith.addf %out, %15 : f32
    linalg.yield %16 : f32
  } -> tensor<1x2x16x16xf32>
  %5 = linalg.generic {indexing_maps = [#mixed_map3, #mixed_map4, #mixed_map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3, %cst_1 : tensor<1x2x16x16xf32>, tensor<f32>) outs(%1 : tensor<1x2x16x16xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %15 = arith.divf %in, %in_2 : f32
    linalg.yield %15 : f32
  } -> tensor<1x2x16x16xf32>
  %6 = tensor.empty() : tensor<1x2x16xf32>
  %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<1x2x16xf32>) -> tensor<1x2x16xf32>
  %8 = linalg.generic {indexing_maps = [#mixed_map3, #mixed_map6], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%5 : tensor<1x2x16x16xf32>) outs(%7 : tensor<1x2x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %15 = arith.maximumf %out, %in : f32
    linalg.yield %15 : f32
  } -> tensor<1x2x16xf32>
  %9 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<1x2x16xf32>) -> tensor<1x2x16xf32>
  %10 = linalg.generic {indexing_maps = [#mixed_map3, #mixed_map6, #mixed_map6], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%5, %8 : tensor<1x2x16x16xf32>, tensor<1x2x16xf32>) outs(%9 : tensor<1x2x16xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %15 = arith.subf %in, %in_2 : f32
    %16 = math.exp %15 : f32
    %17 = arith.addf %out, %16 : f32
    linalg.yield %17 : f32
  } -> tensor<1x2x16xf32>
  %11 = linalg.generic {indexing_maps = [#mixed_map3, #mixed_map6, #mixed_map6, #mixed_map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%5, %8, %10 : tensor<1x2x16x16xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>) outs(%1 : tensor<1x2x16x16xf32>) {
  ^bb0(%in: f32, %in_2: f32, %in_3: f32, %out: f32):
    %15 = arith.subf %in, %in_2 : f32
    %16 = math.exp %15 : f32
    %17 = arith.divf %16, %in_3 : f32
    linalg.yield %17 : f32
  } -> tensor<1x2x16x16xf32>
  %h = tensor.empty() : tensor<1x2x16x16xf16>
  %p = linalg.generic {indexing_maps = [#mixed_map3, #mixed_map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<1x2x16x16xf32>) outs(%h : tensor<1x2x16x16xf16>) {
  ^bb0(%in: f32, %out: f16):
    %15 = arith.truncf %in : f32 to f16
    linalg.yield %15 : f16
  } -> tensor<1x2x16x16xf16>
  %12 = tensor.empty() : tensor<1x2x16x32xf16>
  %13 = linalg.fill ins(%cst_h : f16) outs(%12 : tensor<1x2x16x32xf16>) -> tensor<1x2x16x32xf16>
  %14 = linalg.generic {indexing_maps = [#mixed_map, #mixed_map1, #mixed_map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x16x16xf16>, tensor<1x2x16x32xf16>) outs(%13 : tensor<1x2x16x32xf16>) {
  ^bb0(%in: f16, %in_2: f16, %out: f16):
    %15 = arith.mulf %in, %in_2 : f16
    %16 = arith.addf %out, %15 : f16
    linalg.yield %16 : f16
  } -> tensor<1x2x16x32xf16>
  return %14 : tensor<1x2x16x32xf16>
}

// -----

// The heads merged back right after attention (the exporters' Transpose
// [B, H, S, D] -> [B, S, H, D]): the op writes that layout itself
// (out_dims = [0, 2, 1, 3]) into the Transpose's destination, and the
// Transpose and the old destination are gone. With another user of the
// [B, H, S, D] result the Transpose stays.
// CHECK-LABEL: func.func @merged
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?x4x8xf32>
// CHECK-NEXT:    %[[A:.*]] = onyx.attention {{.*}} outs(%[[E]] : tensor<?x?x4x8xf32>)
// CHECK-SAME:      out_dims = array<i64: 0, 2, 1, 3>
// CHECK-SAME:      -> tensor<?x?x4x8xf32>
// CHECK-NEXT:    return %[[A]]
// CHECK-LABEL: func.func @two_users
// CHECK-NOT:     out_dims
// CHECK:         linalg.transpose
func.func @merged(%q: tensor<?x?x4x8xf32>, %k: tensor<?x?x4x8xf32>, %v: tensor<?x?x4x8xf32>, %b: index, %s: index) -> tensor<?x?x4x8xf32> {
  %e = tensor.empty(%b, %s) : tensor<?x4x?x8xf32>
  %a = onyx.attention q(%q : tensor<?x?x4x8xf32>) k(%k : tensor<?x?x4x8xf32>) v(%v : tensor<?x?x4x8xf32>) outs(%e : tensor<?x4x?x8xf32>) {kv_group = 1 : i64, key_dims = array<i64: 0, 2, 1, 3>, mask_dims = array<i64: -1, -1, -1, -1>, query_dims = array<i64: 0, 2, 1, 3>, scale = 0.35355339059327373 : f64, value_dims = array<i64: 0, 2, 1, 3>} -> tensor<?x4x?x8xf32>
  %t0 = tensor.empty(%b, %s) : tensor<?x?x4x8xf32>
  %t = linalg.transpose ins(%a : tensor<?x4x?x8xf32>) outs(%t0 : tensor<?x?x4x8xf32>) permutation = [0, 2, 1, 3]
  return %t : tensor<?x?x4x8xf32>
}
func.func @two_users(%q: tensor<?x?x4x8xf32>, %k: tensor<?x?x4x8xf32>, %v: tensor<?x?x4x8xf32>, %b: index, %s: index) -> (tensor<?x?x4x8xf32>, tensor<?x4x?x8xf32>) {
  %e = tensor.empty(%b, %s) : tensor<?x4x?x8xf32>
  %a = onyx.attention q(%q : tensor<?x?x4x8xf32>) k(%k : tensor<?x?x4x8xf32>) v(%v : tensor<?x?x4x8xf32>) outs(%e : tensor<?x4x?x8xf32>) {kv_group = 1 : i64, key_dims = array<i64: 0, 2, 1, 3>, mask_dims = array<i64: -1, -1, -1, -1>, query_dims = array<i64: 0, 2, 1, 3>, scale = 0.35355339059327373 : f64, value_dims = array<i64: 0, 2, 1, 3>} -> tensor<?x4x?x8xf32>
  %t0 = tensor.empty(%b, %s) : tensor<?x?x4x8xf32>
  %t = linalg.transpose ins(%a : tensor<?x4x?x8xf32>) outs(%t0 : tensor<?x?x4x8xf32>) permutation = [0, 2, 1, 3]
  return %t, %a : tensor<?x?x4x8xf32>, tensor<?x4x?x8xf32>
}
