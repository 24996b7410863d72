// RUN: onyx-opt %s --split-input-file --verify-diagnostics
//
// onyx.layer_norm's verifier: types, axis, the parameters' dims, the
// residual, the destinations (init, init2, sum) and the results.

func.func @axis(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  // expected-error @+1 {{axis must be in [0, rank)}}
  %y = onyx.layer_norm x(%x : tensor<2x8xf32>) scale(%g : tensor<8xf32>) outs(%e : tensor<2x8xf32>) {axis = 2 : i64, epsilon = 1.0e-5 : f64} -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @f64(%x: tensor<2x8xf64>, %g: tensor<8xf64>) -> tensor<2x8xf64> {
  %e = tensor.empty() : tensor<2x8xf64>
  // expected-error @+1 {{input and scale must be f32, f16 or bf16}}
  %y = onyx.layer_norm x(%x : tensor<2x8xf64>) scale(%g : tensor<8xf64>) outs(%e : tensor<2x8xf64>) {axis = 1 : i64, epsilon = 1.0e-5 : f64} -> tensor<2x8xf64>
  return %y : tensor<2x8xf64>
}

// -----

func.func @scale_dims(%x: tensor<2x8xf32>, %g: tensor<4xf32>) -> tensor<2x8xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  // expected-error @+1 {{scale / bias dim 0 is 4 but the input's is 8}}
  %y = onyx.layer_norm x(%x : tensor<2x8xf32>) scale(%g : tensor<4xf32>) outs(%e : tensor<2x8xf32>) {axis = 1 : i64, epsilon = 1.0e-5 : f64} -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @scale_rank(%x: tensor<2x8xf32>, %g: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  // expected-error @+1 {{scale and bias must have the input's dims from axis on, statically}}
  %y = onyx.layer_norm x(%x : tensor<2x8xf32>) scale(%g : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {axis = 1 : i64, epsilon = 1.0e-5 : f64} -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @bias_type(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf16>) -> tensor<2x8xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  // expected-error @+1 {{scale and bias must be ranked with one element type}}
  %y = onyx.layer_norm x(%x : tensor<2x8xf32>) scale(%g : tensor<8xf32>) bias(%b : tensor<8xf16>) outs(%e : tensor<2x8xf32>) {axis = 1 : i64, epsilon = 1.0e-5 : f64} -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @init_dims(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<3x8xf32> {
  %e = tensor.empty() : tensor<3x8xf32>
  // expected-error @+1 {{init dim 0 differs from the input's}}
  %y = onyx.layer_norm x(%x : tensor<2x8xf32>) scale(%g : tensor<8xf32>) outs(%e : tensor<3x8xf32>) {axis = 1 : i64, epsilon = 1.0e-5 : f64} -> tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}

// -----

func.func @residual_dims(%x: tensor<2x8xf32>, %r: tensor<1x8xf16>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  // expected-error @+1 {{residual dim 0 differs from the input's}}
  %y = onyx.layer_norm x(%x : tensor<2x8xf32>) residual(%r : tensor<1x8xf16>) scale(%g : tensor<8xf32>) outs(%e : tensor<2x8xf32>) {axis = 1 : i64, epsilon = 1.0e-5 : f64} -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @sum_without_residual(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  %s = tensor.empty() : tensor<2x8xf32>
  // expected-error @+1 {{a sum destination needs a residual}}
  %y:2 = onyx.layer_norm x(%x : tensor<2x8xf32>) scale(%g : tensor<8xf32>) outs(%e : tensor<2x8xf32>) sum(%s : tensor<2x8xf32>) {axis = 1 : i64, epsilon = 1.0e-5 : f64} -> tensor<2x8xf32>, tensor<2x8xf32>
  return %y#0 : tensor<2x8xf32>
}

// -----

func.func @init2_type(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  %e2 = tensor.empty() : tensor<2x8xi8>
  // expected-error @+1 {{init2 must be f32, f16 or bf16}}
  %y:2 = onyx.layer_norm x(%x : tensor<2x8xf32>) scale(%g : tensor<8xf32>) outs(%e : tensor<2x8xf32>) outs2(%e2 : tensor<2x8xi8>) {axis = 1 : i64, epsilon = 1.0e-5 : f64} -> tensor<2x8xf32>, tensor<2x8xi8>
  return %y#0 : tensor<2x8xf32>
}

// -----

func.func @result_count(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  %e2 = tensor.empty() : tensor<2x8xf16>
  // expected-error @+1 {{on tensors has one result per destination}}
  %y = onyx.layer_norm x(%x : tensor<2x8xf32>) scale(%g : tensor<8xf32>) outs(%e : tensor<2x8xf32>) outs2(%e2 : tensor<2x8xf16>) {axis = 1 : i64, epsilon = 1.0e-5 : f64} -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @mixed_destinations(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %o2: memref<2x8xf16>) -> tensor<2x8xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  // expected-error @+1 {{destinations must be all tensors or all buffers}}
  %y = onyx.layer_norm x(%x : tensor<2x8xf32>) scale(%g : tensor<8xf32>) outs(%e : tensor<2x8xf32>) outs2(%o2 : memref<2x8xf16>) {axis = 1 : i64, epsilon = 1.0e-5 : f64} -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}
