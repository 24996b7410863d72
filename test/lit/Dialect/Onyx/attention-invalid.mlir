// RUN: onyx-opt %s -split-input-file -verify-diagnostics
//
// onyx.attention's verifier: the dim attributes must be permutations of
// [0, 4) (out_dims too, when given); head_offsets stay inside the heads.

func.func @bad_out_dims(%q: tensor<2x4x16x8xf32>, %o: tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32> {
  // expected-error @+1 {{out_dims must be a permutation of [0, 4)}}
  %a = onyx.attention q(%q : tensor<2x4x16x8xf32>) k(%q : tensor<2x4x16x8xf32>) v(%q : tensor<2x4x16x8xf32>) outs(%o : tensor<2x4x16x8xf32>) {kv_group = 1 : i64, key_dims = array<i64: 0, 1, 2, 3>, mask_dims = array<i64: -1, -1, -1, -1>, out_dims = array<i64: 0, 2, 2, 3>, query_dims = array<i64: 0, 1, 2, 3>, scale = 1.0 : f64, value_dims = array<i64: 0, 1, 2, 3>} -> tensor<2x4x16x8xf32>
  return %a : tensor<2x4x16x8xf32>
}

// -----

func.func @bad_query_dims(%q: tensor<2x4x16x8xf32>, %o: tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32> {
  // expected-error @+1 {{query_dims, key_dims and value_dims must be permutations of [0, 4)}}
  %a = onyx.attention q(%q : tensor<2x4x16x8xf32>) k(%q : tensor<2x4x16x8xf32>) v(%q : tensor<2x4x16x8xf32>) outs(%o : tensor<2x4x16x8xf32>) {kv_group = 1 : i64, key_dims = array<i64: 0, 1, 2, 3>, mask_dims = array<i64: -1, -1, -1, -1>, query_dims = array<i64: 0, 1, 2, 4>, scale = 1.0 : f64, value_dims = array<i64: 0, 1, 2, 3>} -> tensor<2x4x16x8xf32>
  return %a : tensor<2x4x16x8xf32>
}

// -----

func.func @bad_head_offsets(%q: tensor<2x16x12x8xf32>, %o: tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32> {
  // expected-error @+1 {{head_offsets[2] + the heads read exceed the operand's 12 heads}}
  %a = onyx.attention q(%q : tensor<2x16x12x8xf32>) k(%q : tensor<2x16x12x8xf32>) v(%q : tensor<2x16x12x8xf32>) outs(%o : tensor<2x4x16x8xf32>) {head_offsets = array<i64: 0, 4, 9>, kv_group = 1 : i64, key_dims = array<i64: 0, 2, 1, 3>, mask_dims = array<i64: -1, -1, -1, -1>, query_dims = array<i64: 0, 2, 1, 3>, scale = 1.0 : f64, value_dims = array<i64: 0, 2, 1, 3>} -> tensor<2x4x16x8xf32>
  return %a : tensor<2x4x16x8xf32>
}

// -----

func.func @negative_head_offset(%q: tensor<2x16x12x8xf32>, %o: tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32> {
  // expected-error @+1 {{head_offsets must be 3 non-negative entries (query, key, value)}}
  %a = onyx.attention q(%q : tensor<2x16x12x8xf32>) k(%q : tensor<2x16x12x8xf32>) v(%q : tensor<2x16x12x8xf32>) outs(%o : tensor<2x4x16x8xf32>) {head_offsets = array<i64: 0, -4, 8>, kv_group = 1 : i64, key_dims = array<i64: 0, 2, 1, 3>, mask_dims = array<i64: -1, -1, -1, -1>, query_dims = array<i64: 0, 2, 1, 3>, scale = 1.0 : f64, value_dims = array<i64: 0, 2, 1, 3>} -> tensor<2x4x16x8xf32>
  return %a : tensor<2x4x16x8xf32>
}

// -----

func.func @result_not_init_type(%q: tensor<2x4x16x8xf32>, %o: tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf16> {
  // expected-error @+1 {{result types must be their destinations'}}
  %a = onyx.attention q(%q : tensor<2x4x16x8xf32>) k(%q : tensor<2x4x16x8xf32>) v(%q : tensor<2x4x16x8xf32>) outs(%o : tensor<2x4x16x8xf32>) {kv_group = 1 : i64, key_dims = array<i64: 0, 1, 2, 3>, mask_dims = array<i64: -1, -1, -1, -1>, query_dims = array<i64: 0, 1, 2, 3>, scale = 1.0 : f64, value_dims = array<i64: 0, 1, 2, 3>} -> tensor<2x4x16x8xf16>
  return %a : tensor<2x4x16x8xf16>
}

// -----

func.func @causal_additive(%q: tensor<2x4x16x8xf32>, %m: tensor<16x16xf32>, %o: tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32> {
  // expected-error @+1 {{causal_shift needs an i1 mask with mask_fill (fill where false) that has a query and a key dim}}
  %a = onyx.attention q(%q : tensor<2x4x16x8xf32>) k(%q : tensor<2x4x16x8xf32>) v(%q : tensor<2x4x16x8xf32>) mask(%m : tensor<16x16xf32>) outs(%o : tensor<2x4x16x8xf32>) {causal_shift = 0 : i64, kv_group = 1 : i64, key_dims = array<i64: 0, 1, 2, 3>, mask_dims = array<i64: -1, -1, 0, 1>, query_dims = array<i64: 0, 1, 2, 3>, scale = 1.0 : f64, value_dims = array<i64: 0, 1, 2, 3>} -> tensor<2x4x16x8xf32>
  return %a : tensor<2x4x16x8xf32>
}
