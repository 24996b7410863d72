// RUN: onyx-opt %s --onyx-cuda-causal-mask --split-input-file | FileCheck %s
//
// onyx-cuda-causal-mask: an onyx.attention whose i1 Where mask compares the
// query index with the key index (iotas or the loop indices) gets
// causal_shift (the mask holds j <= i + shift); every other mask stays
// without it. The mask operand always stays.

#q = affine_map<(d0, d1) -> (d0, 0)>
#k = affine_map<(d0, d1) -> (0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>

// GPT-2's mask as the bench graph builds it: arange(s)[:, None] >=
// arange(s)[None, :].
// CHECK-LABEL: func.func @gpt2(
// CHECK:         onyx.attention {{.*}} mask(%{{.*}} : tensor<?x?xi1>)
// CHECK-SAME:      causal_shift = 0 : i64
func.func @gpt2(%q: tensor<2x4x?x8xf16>, %s: index) -> tensor<2x4x?x8xf16> {
  %e1 = tensor.empty(%s) : tensor<?xi64>
  %i = linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]} outs(%e1 : tensor<?xi64>) {
  ^bb0(%out: i64):
    %x = linalg.index 0 : index
    %y = arith.index_cast %x : index to i64
    linalg.yield %y : i64
  } -> tensor<?xi64>
  %ie = tensor.expand_shape %i [[0, 1]] output_shape [%s, 1] : tensor<?xi64> into tensor<?x1xi64>
  %je = tensor.expand_shape %i [[0, 1]] output_shape [1, %s] : tensor<?xi64> into tensor<1x?xi64>
  %e2 = tensor.empty(%s, %s) : tensor<?x?xi1>
  %m = linalg.generic {indexing_maps = [#q, #k, #id2], iterator_types = ["parallel", "parallel"]} ins(%ie, %je : tensor<?x1xi64>, tensor<1x?xi64>) outs(%e2 : tensor<?x?xi1>) {
  ^bb0(%a: i64, %b: i64, %out: i1):
    %c = arith.cmpi sge, %a, %b : i64
    linalg.yield %c : i1
  } -> tensor<?x?xi1>
  %o = tensor.empty(%s) : tensor<2x4x?x8xf16>
  %r = onyx.attention q(%q : tensor<2x4x?x8xf16>) k(%q : tensor<2x4x?x8xf16>) v(%q : tensor<2x4x?x8xf16>) mask(%m : tensor<?x?xi1>) outs(%o : tensor<2x4x?x8xf16>) {kv_group = 1 : i64, key_dims = array<i64: 0, 1, 2, 3>, mask_dims = array<i64: -1, -1, 0, 1>, mask_fill = -65504.0 : f64, query_dims = array<i64: 0, 1, 2, 3>, scale = 0.25 : f64, value_dims = array<i64: 0, 1, 2, 3>} -> tensor<2x4x?x8xf16>
  return %r : tensor<2x4x?x8xf16>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// The comparison on the loop indices themselves, key first and strict
// (j < i: shift -1), the mask [S, S] with its key dim first (mask_dims
// names mask dim 1 for the query, 0 for the key).
// CHECK-LABEL: func.func @loop_indices(
// CHECK:         onyx.attention
// CHECK-SAME:      causal_shift = -1 : i64
func.func @loop_indices(%q: tensor<2x4x?x8xf32>, %s: index) -> tensor<2x4x?x8xf32> {
  %e2 = tensor.empty(%s, %s) : tensor<?x?xi1>
  %m = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e2 : tensor<?x?xi1>) {
  ^bb0(%out: i1):
    %kj = linalg.index 0 : index
    %qi = linalg.index 1 : index
    %a = arith.index_cast %kj : index to i32
    %b = arith.index_cast %qi : index to i32
    %c = arith.cmpi ult, %a, %b : i32
    linalg.yield %c : i1
  } -> tensor<?x?xi1>
  %o = tensor.empty(%s) : tensor<2x4x?x8xf32>
  %r = onyx.attention q(%q : tensor<2x4x?x8xf32>) k(%q : tensor<2x4x?x8xf32>) v(%q : tensor<2x4x?x8xf32>) mask(%m : tensor<?x?xi1>) outs(%o : tensor<2x4x?x8xf32>) {kv_group = 1 : i64, key_dims = array<i64: 0, 1, 2, 3>, mask_dims = array<i64: -1, -1, 1, 0>, mask_fill = -3.0e38 : f64, query_dims = array<i64: 0, 1, 2, 3>, scale = 0.25 : f64, value_dims = array<i64: 0, 1, 2, 3>} -> tensor<2x4x?x8xf32>
  return %r : tensor<2x4x?x8xf32>
}

// -----

#q = affine_map<(d0, d1) -> (d0, 0)>
#k = affine_map<(d0, d1) -> (0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>

// Stay: the upper triangle (i <= j), the lower one filled where true
// (mask_fill_where_true), an iota that is not the index (index + 1), a mask
// that is an input, and loop indices compared as i8 (they wrap past 127).
// CHECK-LABEL: func.func @stay(
// CHECK-NOT:     causal_shift
// CHECK:         return
func.func @stay(%q: tensor<2x4x?x8xf16>, %s: index, %in: tensor<?x?xi1>) -> (tensor<2x4x?x8xf16>, tensor<2x4x?x8xf16>, tensor<2x4x?x8xf16>, tensor<2x4x?x8xf16>, tensor<2x4x?x8xf16>) {
  %e1 = tensor.empty(%s) : tensor<?xi64>
  %i = linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]} outs(%e1 : tensor<?xi64>) {
  ^bb0(%out: i64):
    %x = linalg.index 0 : index
    %y = arith.index_cast %x : index to i64
    linalg.yield %y : i64
  } -> tensor<?xi64>
  %i1 = linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]} outs(%e1 : tensor<?xi64>) {
  ^bb0(%out: i64):
    %x = linalg.index 0 : index
    %y = arith.index_cast %x : index to i64
    %one = arith.constant 1 : i64
    %z = arith.addi %y, %one : i64
    linalg.yield %z : i64
  } -> tensor<?xi64>
  %ie = tensor.expand_shape %i [[0, 1]] output_shape [%s, 1] : tensor<?xi64> into tensor<?x1xi64>
  %je = tensor.expand_shape %i [[0, 1]] output_shape [1, %s] : tensor<?xi64> into tensor<1x?xi64>
  %ie1 = tensor.expand_shape %i1 [[0, 1]] output_shape [%s, 1] : tensor<?xi64> into tensor<?x1xi64>
  %e2 = tensor.empty(%s, %s) : tensor<?x?xi1>
  %upper = linalg.generic {indexing_maps = [#q, #k, #id2], iterator_types = ["parallel", "parallel"]} ins(%ie, %je : tensor<?x1xi64>, tensor<1x?xi64>) outs(%e2 : tensor<?x?xi1>) {
  ^bb0(%a: i64, %b: i64, %out: i1):
    %c = arith.cmpi sle, %a, %b : i64
    linalg.yield %c : i1
  } -> tensor<?x?xi1>
  %lower = linalg.generic {indexing_maps = [#q, #k, #id2], iterator_types = ["parallel", "parallel"]} ins(%ie, %je : tensor<?x1xi64>, tensor<1x?xi64>) outs(%e2 : tensor<?x?xi1>) {
  ^bb0(%a: i64, %b: i64, %out: i1):
    %c = arith.cmpi sge, %a, %b : i64
    linalg.yield %c : i1
  } -> tensor<?x?xi1>
  %shifted = linalg.generic {indexing_maps = [#q, #k, #id2], iterator_types = ["parallel", "parallel"]} ins(%ie1, %je : tensor<?x1xi64>, tensor<1x?xi64>) outs(%e2 : tensor<?x?xi1>) {
  ^bb0(%a: i64, %b: i64, %out: i1):
    %c = arith.cmpi sge, %a, %b : i64
    linalg.yield %c : i1
  } -> tensor<?x?xi1>
  %o = tensor.empty(%s) : tensor<2x4x?x8xf16>
  %r0 = onyx.attention q(%q : tensor<2x4x?x8xf16>) k(%q : tensor<2x4x?x8xf16>) v(%q : tensor<2x4x?x8xf16>) mask(%upper : tensor<?x?xi1>) outs(%o : tensor<2x4x?x8xf16>) {kv_group = 1 : i64, key_dims = array<i64: 0, 1, 2, 3>, mask_dims = array<i64: -1, -1, 0, 1>, mask_fill = -65504.0 : f64, query_dims = array<i64: 0, 1, 2, 3>, scale = 0.25 : f64, value_dims = array<i64: 0, 1, 2, 3>} -> tensor<2x4x?x8xf16>
  %r1 = onyx.attention q(%q : tensor<2x4x?x8xf16>) k(%q : tensor<2x4x?x8xf16>) v(%q : tensor<2x4x?x8xf16>) mask(%lower : tensor<?x?xi1>) outs(%o : tensor<2x4x?x8xf16>) {kv_group = 1 : i64, key_dims = array<i64: 0, 1, 2, 3>, mask_dims = array<i64: -1, -1, 0, 1>, mask_fill = -65504.0 : f64, mask_fill_where_true, query_dims = array<i64: 0, 1, 2, 3>, scale = 0.25 : f64, value_dims = array<i64: 0, 1, 2, 3>} -> tensor<2x4x?x8xf16>
  %r2 = onyx.attention q(%q : tensor<2x4x?x8xf16>) k(%q : tensor<2x4x?x8xf16>) v(%q : tensor<2x4x?x8xf16>) mask(%shifted : tensor<?x?xi1>) outs(%o : tensor<2x4x?x8xf16>) {kv_group = 1 : i64, key_dims = array<i64: 0, 1, 2, 3>, mask_dims = array<i64: -1, -1, 0, 1>, mask_fill = -65504.0 : f64, query_dims = array<i64: 0, 1, 2, 3>, scale = 0.25 : f64, value_dims = array<i64: 0, 1, 2, 3>} -> tensor<2x4x?x8xf16>
  %r3 = onyx.attention q(%q : tensor<2x4x?x8xf16>) k(%q : tensor<2x4x?x8xf16>) v(%q : tensor<2x4x?x8xf16>) mask(%in : tensor<?x?xi1>) outs(%o : tensor<2x4x?x8xf16>) {kv_group = 1 : i64, key_dims = array<i64: 0, 1, 2, 3>, mask_dims = array<i64: -1, -1, 0, 1>, mask_fill = -65504.0 : f64, query_dims = array<i64: 0, 1, 2, 3>, scale = 0.25 : f64, value_dims = array<i64: 0, 1, 2, 3>} -> tensor<2x4x?x8xf16>
  %narrow = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e2 : tensor<?x?xi1>) {
  ^bb0(%out: i1):
    %qi = linalg.index 0 : index
    %kj = linalg.index 1 : index
    %a = arith.index_cast %qi : index to i8
    %b = arith.index_cast %kj : index to i8
    %c = arith.cmpi sge, %a, %b : i8
    linalg.yield %c : i1
  } -> tensor<?x?xi1>
  %r4 = onyx.attention q(%q : tensor<2x4x?x8xf16>) k(%q : tensor<2x4x?x8xf16>) v(%q : tensor<2x4x?x8xf16>) mask(%narrow : tensor<?x?xi1>) outs(%o : tensor<2x4x?x8xf16>) {kv_group = 1 : i64, key_dims = array<i64: 0, 1, 2, 3>, mask_dims = array<i64: -1, -1, 0, 1>, mask_fill = -65504.0 : f64, query_dims = array<i64: 0, 1, 2, 3>, scale = 0.25 : f64, value_dims = array<i64: 0, 1, 2, 3>} -> tensor<2x4x?x8xf16>
  return %r0, %r1, %r2, %r3, %r4 : tensor<2x4x?x8xf16>, tensor<2x4x?x8xf16>, tensor<2x4x?x8xf16>, tensor<2x4x?x8xf16>, tensor<2x4x?x8xf16>
}
