// RUN: onyx-opt %s --onyx-cuda-residual-accumulate -split-input-file | FileCheck %s
//
// onyx-cuda-residual-accumulate: a LayerNorm's residual Add of the stream
// and a projection (zero-filled GEMM, in-place bias Add) becomes the GEMM's
// accumulation onto the stream, when the stream is read after the GEMM by
// the LayerNorm alone (tensor.dim aside).

#mA = affine_map<(d0, d1, d2) -> (d0, d2)>
#mB = affine_map<(d0, d1, d2) -> (d2, d1)>
#mC = affine_map<(d0, d1, d2) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// BERT's post-LN block: the stream %s is x, the projection the residual.
// CHECK-LABEL: func.func @post_ln(
// CHECK-SAME:      %[[S0:.*]]: tensor<4x8xf32>, %[[A:.*]]: tensor<4x16xf32>
// CHECK:         %[[S:.*]] = onyx.layer_norm x(%[[S0]]
// CHECK-NOT:     linalg.fill
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} ins(%[[A]], %{{.*}} : tensor<4x16xf32>, tensor<16x8xf32>) outs(%[[S]] : tensor<4x8xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[G]] : tensor<8xf32>, tensor<4x8xf32>) outs(%[[G]] : tensor<4x8xf32>)
// CHECK:         %[[N:.*]] = onyx.layer_norm x(%[[R]] : tensor<4x8xf32>) scale(%{{.*}} : tensor<8xf32>) outs(%[[R]] : tensor<4x8xf32>)
// CHECK:         return %[[N]]
func.func @post_ln(%s0: tensor<4x8xf32>, %a: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>, %g: tensor<8xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %s = onyx.layer_norm x(%s0 : tensor<4x8xf32>) scale(%g : tensor<8xf32>) outs(%e0 : tensor<4x8xf32>) {axis = 1 : i64, epsilon = 1.0e-5 : f64} -> tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#bias, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%b, %mm : tensor<8xf32>, tensor<4x8xf32>) outs(%mm : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %q = arith.addf %x, %y : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %n = onyx.layer_norm x(%s : tensor<4x8xf32>) residual(%r : tensor<4x8xf32>) scale(%g : tensor<8xf32>) outs(%r : tensor<4x8xf32>) {axis = 1 : i64, epsilon = 1.0e-5 : f64} -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// -----
#mA = affine_map<(d0, d1, d2) -> (d0, d2)>
#mB = affine_map<(d0, d1, d2) -> (d2, d1)>
#mC = affine_map<(d0, d1, d2) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// GPT-2's pre-LN stream: the projection is x, the stream the residual, and
// the sum is read later (`sum`): its readers read the GEMM's sum, and the
// LayerNorm writes a buffer of its own instead of the sum's.
// CHECK-LABEL: func.func @pre_ln_sum(
// CHECK:         %[[S:.*]] = onyx.layer_norm
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} outs(%[[S]] : tensor<4x8xf32>)
// CHECK-NOT:     outs(%[[G]]
// CHECK:         %[[N:.*]] = onyx.layer_norm x(%[[G]] : tensor<4x8xf32>) scale(%{{.*}} : tensor<8xf32>) outs(%{{[0-9]+}} : tensor<4x8xf32>)
// CHECK-NOT:     sum(
// CHECK:         return %[[N]], %[[G]]
func.func @pre_ln_sum(%s0: tensor<4x8xf32>, %a: tensor<4x16xf32>, %w: tensor<16x8xf32>, %g: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %s = onyx.layer_norm x(%s0 : tensor<4x8xf32>) scale(%g : tensor<8xf32>) outs(%e0 : tensor<4x8xf32>) {axis = 1 : i64, epsilon = 1.0e-5 : f64} -> tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %es = tensor.empty() : tensor<4x8xf32>
  %n:2 = onyx.layer_norm x(%mm : tensor<4x8xf32>) residual(%s : tensor<4x8xf32>) scale(%g : tensor<8xf32>) outs(%mm : tensor<4x8xf32>) sum(%es : tensor<4x8xf32>) {axis = 1 : i64, epsilon = 1.0e-5 : f64} -> tensor<4x8xf32>, tensor<4x8xf32>
  return %n#0, %n#1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----
#mA = affine_map<(d0, d1, d2) -> (d0, d2)>
#mB = affine_map<(d0, d1, d2) -> (d2, d1)>
#mC = affine_map<(d0, d1, d2) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// Left alone: the stream is read after the GEMM (a Relu reads it after the
// LayerNorm), so the GEMM cannot write over it; and a stream that is a
// function argument (the caller's buffer).
// CHECK-LABEL: func.func @stream_read_later(
// CHECK:         linalg.fill
// CHECK:         onyx.layer_norm x(%{{.*}}) residual(
func.func @stream_read_later(%s: tensor<4x8xf32>, %a: tensor<4x16xf32>, %w: tensor<16x8xf32>, %g: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %n = onyx.layer_norm x(%s : tensor<4x8xf32>) residual(%mm : tensor<4x8xf32>) scale(%g : tensor<8xf32>) outs(%e2 : tensor<4x8xf32>) {axis = 1 : i64, epsilon = 1.0e-5 : f64} -> tensor<4x8xf32>
  %e3 = tensor.empty() : tensor<4x8xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<4x8xf32>) outs(%e3 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %q = arith.maximumf %x, %zero : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  return %n, %relu : tensor<4x8xf32>, tensor<4x8xf32>
}
