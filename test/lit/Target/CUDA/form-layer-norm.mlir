// RUN: onyx-opt %s --onyx-cuda-form-layer-norm --split-input-file | FileCheck %s
//
// onyx-cuda-form-layer-norm: an onnx.LayerNormalization with f32 statistics,
// Scale / B of the input's trailing dims and unused Mean / InvStdDev
// becomes one onyx.layer_norm; a widening Cast before it is read through
// and narrowing Casts after it are absorbed (a second output when the f32
// result has other users); a residual Add before it that provably does not
// broadcast is read in the same op (with its sum as an output when the
// graph uses it). Everything else stays.

// CHECK-LABEL: func.func @bert(
// CHECK-SAME:      %[[X:.*]]: tensor<?x?x768xf32>
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[D0:.*]] = tensor.dim %[[X]], %[[C0]]
// CHECK:         %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[D1:.*]] = tensor.dim %[[X]], %[[C1]]
// CHECK:         %[[E:.*]] = tensor.empty(%[[D0]], %[[D1]]) : tensor<?x?x768xf32>
// CHECK:         %[[Y:.*]] = onyx.layer_norm x(%[[X]] : tensor<?x?x768xf32>) scale(%{{[a-z0-9_]+}} : tensor<768xf32>)
// CHECK-SAME:      bias(%{{[a-z0-9_]+}} : tensor<768xf32>) outs(%[[E]] : tensor<?x?x768xf32>)
// CHECK-SAME:      {axis = 2 : i64, epsilon = 9.999999960041972E-13 : f64} -> tensor<?x?x768xf32>
// CHECK-NOT:     onnx.LayerNormalization
// CHECK:         return %[[Y]]
func.func @bert(%x: tensor<?x?x768xf32>, %g: tensor<768xf32>, %b: tensor<768xf32>) -> tensor<?x?x768xf32> {
  %y, %m, %i = "onnx.LayerNormalization"(%x, %g, %b) {axis = -1 : i64, epsilon = 9.99999996E-13 : f32, stash_type = 1 : i64} : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> (tensor<?x?x768xf32>, none, none)
  return %y : tensor<?x?x768xf32>
}

// -----

// --precision=fp16's form: the f16 input is read directly and the op writes
// f16 for the two Casts that are its only users; no bias.
// CHECK-LABEL: func.func @half_island(
// CHECK-SAME:      %[[X:.*]]: tensor<4x16xf16>
// CHECK-NOT:     onnx.Cast
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x16xf16>
// CHECK:         %[[Y:.*]] = onyx.layer_norm x(%[[X]] : tensor<4x16xf16>) scale(%{{[a-z0-9_]+}} : tensor<16xf32>)
// CHECK-SAME:      outs(%[[E]] : tensor<4x16xf16>) {axis = 1 : i64, epsilon = 9.9999997473787516E-6 : f64} -> tensor<4x16xf16>
// CHECK-NOT:     onnx.Cast
// CHECK:         return %[[Y]], %[[Y]]
func.func @half_island(%x: tensor<4x16xf16>, %g: tensor<16xf32>) -> (tensor<4x16xf16>, tensor<4x16xf16>) {
  %none = onnx.NoValue
  %xf = "onnx.Cast"(%x) {to = 1 : i64} : (tensor<4x16xf16>) -> tensor<4x16xf32>
  %y, %m, %i = "onnx.LayerNormalization"(%xf, %g, %none) {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<4x16xf32>, tensor<16xf32>, none) -> (tensor<4x16xf32>, none, none)
  %h1 = "onnx.Cast"(%y) {to = 10 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf16>
  %h2 = "onnx.Cast"(%y) {to = 10 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf16>
  return %h1, %h2 : tensor<4x16xf16>, tensor<4x16xf16>
}

// -----

// BERT's residual stream in fp16: the f32 result also feeds an f32 Add, so
// the op writes f32 and, for the Cast to bf16, a second bf16 output; a bf16
// input Cast is read through even though the Cast has another user.
// CHECK-LABEL: func.func @mixed_users(
// CHECK-SAME:      %[[X:.*]]: tensor<2x8xbf16>
// CHECK:         %[[XF:.*]] = "onnx.Cast"(%[[X]])
// CHECK:         %[[Y:.*]]:2 = onyx.layer_norm x(%[[X]] : tensor<2x8xbf16>) {{.*}} outs(%{{.*}} : tensor<2x8xf32>) outs2(%{{.*}} : tensor<2x8xbf16>)
// CHECK-SAME:      -> tensor<2x8xf32>, tensor<2x8xbf16>
// CHECK-NOT:     "onnx.Cast"
// CHECK:         %[[R:.*]] = "onnx.Add"(%[[Y]]#0, %[[XF]])
// CHECK:         return %[[Y]]#1, %[[R]]
func.func @mixed_users(%x: tensor<2x8xbf16>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<2x8xbf16>, tensor<2x8xf32>) {
  %xf = "onnx.Cast"(%x) {to = 1 : i64} : (tensor<2x8xbf16>) -> tensor<2x8xf32>
  %y, %m, %i = "onnx.LayerNormalization"(%xf, %g, %b) {axis = 1 : i64} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, none, none)
  %h = "onnx.Cast"(%y) {to = 16 : i64} : (tensor<2x8xf32>) -> tensor<2x8xbf16>
  %r = "onnx.Add"(%y, %xf) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %h, %r : tensor<2x8xbf16>, tensor<2x8xf32>
}

// -----

// GPT-2's ln_1 in fp16: the only users are the Cast and onnx.Shape ops
// (dims only), so the op writes f16 alone and the Shape reads it.
// CHECK-LABEL: func.func @cast_and_shape(
// CHECK:         %[[Y:.*]] = onyx.layer_norm {{.*}} -> tensor<?x8xf16>
// CHECK:         %[[S:.*]] = "onnx.Shape"(%[[Y]])
// CHECK-NOT:     "onnx.Cast"
// CHECK:         return %[[Y]], %[[S]]
func.func @cast_and_shape(%x: tensor<?x8xf32>, %g: tensor<8xf32>) -> (tensor<?x8xf16>, tensor<2xi64>) {
  %none = onnx.NoValue
  %y, %m, %i = "onnx.LayerNormalization"(%x, %g, %none) {axis = -1 : i64} : (tensor<?x8xf32>, tensor<8xf32>, none) -> (tensor<?x8xf32>, none, none)
  %s = "onnx.Shape"(%y) {start = 0 : i64} : (tensor<?x8xf32>) -> tensor<2xi64>
  %h = "onnx.Cast"(%y) {to = 10 : i64} : (tensor<?x8xf32>) -> tensor<?x8xf16>
  return %h, %s : tensor<?x8xf16>, tensor<2xi64>
}

// -----

// BERT's post-LN residual under --precision=fp16: LayerNorm(r + Cast(d))
// with d in f16; the Add and its widening Cast are read by the op
// (x = the f32 operand, residual = the f16 value), no sum output (the
// LayerNorm is the Add's only user). The operands' dims are proven equal
// (the Add does not broadcast): d is computed from r.
// CHECK-LABEL: func.func @post_ln_residual(
// CHECK-SAME:      %[[R:[a-z0-9]+]]: tensor<?x?x8xf32>
// CHECK:         %[[D:.*]] = "onnx.Cast"(%[[R]])
// CHECK-NOT:     "onnx.Add"
// CHECK:         onyx.layer_norm x(%[[R]] : tensor<?x?x8xf32>) residual(%[[D]] : tensor<?x?x8xf16>)
// CHECK-SAME:      outs(%{{.*}} : tensor<?x?x8xf32>) {
// CHECK-NOT:     "onnx.Add"
func.func @post_ln_residual(%r: tensor<?x?x8xf32>, %g: tensor<8xf32>) -> tensor<?x?x8xf32> {
  %none = onnx.NoValue
  %d = "onnx.Cast"(%r) {to = 10 : i64} : (tensor<?x?x8xf32>) -> tensor<?x?x8xf16>
  %df = "onnx.Cast"(%d) {to = 1 : i64} : (tensor<?x?x8xf16>) -> tensor<?x?x8xf32>
  %x = "onnx.Add"(%r, %df) : (tensor<?x?x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %y, %m, %i = "onnx.LayerNormalization"(%x, %g, %none) {axis = -1 : i64} : (tensor<?x?x8xf32>, tensor<8xf32>, none) -> (tensor<?x?x8xf32>, none, none)
  return %y : tensor<?x?x8xf32>
}

// -----

// GPT-2's pre-LN residual stream: the sum also feeds the next Add (and a
// Shape op before the LayerNorm, so the op goes right after the Add); the
// op writes it as its `sum` output and those users read that.
// CHECK-LABEL: func.func @pre_ln_sum(
// CHECK-SAME:      %[[H:[a-z0-9]+]]: tensor<?x8xf16>
// CHECK:         %[[A:.*]] = "onnx.Relu"(%[[H]])
// CHECK:         %[[Y:.*]]:2 = onyx.layer_norm x(%[[H]] : tensor<?x8xf16>) residual(%[[A]] : tensor<?x8xf16>)
// CHECK-SAME:      outs(%{{.*}} : tensor<?x8xf16>) sum(%{{.*}} : tensor<?x8xf16>) {{.*}} -> tensor<?x8xf16>, tensor<?x8xf16>
// CHECK:         %[[S:.*]] = "onnx.Shape"(%[[Y]]#1)
// CHECK:         %[[N:.*]] = "onnx.Add"(%[[Y]]#1, %[[Y]]#0)
// CHECK:         return %[[N]], %[[S]]
func.func @pre_ln_sum(%h: tensor<?x8xf16>, %g: tensor<8xf16>, %b: tensor<8xf16>) -> (tensor<?x8xf16>, tensor<2xi64>) {
  %a = "onnx.Relu"(%h) : (tensor<?x8xf16>) -> tensor<?x8xf16>
  %s1 = "onnx.Add"(%h, %a) : (tensor<?x8xf16>, tensor<?x8xf16>) -> tensor<?x8xf16>
  %shape = "onnx.Shape"(%s1) {start = 0 : i64} : (tensor<?x8xf16>) -> tensor<2xi64>
  %y, %m, %i = "onnx.LayerNormalization"(%s1, %g, %b) {axis = -1 : i64} : (tensor<?x8xf16>, tensor<8xf16>, tensor<8xf16>) -> (tensor<?x8xf16>, none, none)
  %next = "onnx.Add"(%s1, %y) : (tensor<?x8xf16>, tensor<?x8xf16>) -> tensor<?x8xf16>
  return %next, %shape : tensor<?x8xf16>, tensor<2xi64>
}

// -----

// The residual Add stays when it may broadcast: independent dynamic dims
// (either could be 1 at run time) or a static 1.
// CHECK-LABEL: func.func @residual_may_broadcast(
// CHECK-COUNT-2: "onnx.Add"
// CHECK-COUNT-2: onyx.layer_norm x(%{{[0-9]+}} : tensor<?x8xf32>) scale
func.func @residual_may_broadcast(%a: tensor<?x8xf32>, %c: tensor<?x8xf32>, %p: tensor<1x8xf32>, %g: tensor<8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %none = onnx.NoValue
  %x1 = "onnx.Add"(%a, %c) : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %x2 = "onnx.Add"(%a, %p) : (tensor<?x8xf32>, tensor<1x8xf32>) -> tensor<?x8xf32>
  %y1, %m1, %i1 = "onnx.LayerNormalization"(%x1, %g, %none) {axis = -1 : i64} : (tensor<?x8xf32>, tensor<8xf32>, none) -> (tensor<?x8xf32>, none, none)
  %y2, %m2, %i2 = "onnx.LayerNormalization"(%x2, %g, %none) {axis = -1 : i64} : (tensor<?x8xf32>, tensor<8xf32>, none) -> (tensor<?x8xf32>, none, none)
  return %y1, %y2 : tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// Normalized over the last two dims (axis 1 of a rank-3 input).
// CHECK-LABEL: func.func @two_dims(
// CHECK:         onyx.layer_norm {{.*}} scale(%{{[a-z0-9_]+}} : tensor<4x8xf16>) bias(%{{[a-z0-9_]+}} : tensor<4x8xf16>) {{.*}}{axis = 1 : i64
func.func @two_dims(%x: tensor<?x4x8xf16>, %g: tensor<4x8xf16>, %b: tensor<4x8xf16>) -> tensor<?x4x8xf16> {
  %y, %m, %i = "onnx.LayerNormalization"(%x, %g, %b) {axis = 1 : i64} : (tensor<?x4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>) -> (tensor<?x4x8xf16>, none, none)
  return %y : tensor<?x4x8xf16>
}

// -----

// Not formed: a broadcasting Scale ([1] for [8]), a used Mean output, f64
// statistics, an f64 input, a dynamic Scale.
// CHECK-LABEL: func.func @stays(
// CHECK-NOT:     onyx.layer_norm
// CHECK-COUNT-5: "onnx.LayerNormalization"
// CHECK-NOT:     onyx.layer_norm
func.func @stays(%x: tensor<2x8xf32>, %g1: tensor<1xf32>, %g: tensor<8xf32>, %xd: tensor<2x8xf64>, %gd: tensor<8xf64>, %gq: tensor<?xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x8xf32>, tensor<2x8xf64>, tensor<2x8xf32>) {
  %none = onnx.NoValue
  %y1, %m1, %i1 = "onnx.LayerNormalization"(%x, %g1, %none) {axis = -1 : i64} : (tensor<2x8xf32>, tensor<1xf32>, none) -> (tensor<2x8xf32>, none, none)
  %y2, %m2, %i2 = "onnx.LayerNormalization"(%x, %g, %none) {axis = -1 : i64} : (tensor<2x8xf32>, tensor<8xf32>, none) -> (tensor<2x8xf32>, tensor<2x1xf32>, none)
  %y3, %m3, %i3 = "onnx.LayerNormalization"(%x, %g, %none) {axis = -1 : i64, stash_type = 11 : i64} : (tensor<2x8xf32>, tensor<8xf32>, none) -> (tensor<2x8xf32>, none, none)
  %y4, %m4, %i4 = "onnx.LayerNormalization"(%xd, %gd, %none) {axis = -1 : i64} : (tensor<2x8xf64>, tensor<8xf64>, none) -> (tensor<2x8xf64>, none, none)
  %y5, %m5, %i5 = "onnx.LayerNormalization"(%x, %gq, %none) {axis = -1 : i64} : (tensor<2x8xf32>, tensor<?xf32>, none) -> (tensor<2x8xf32>, none, none)
  return %y1, %y2, %m2, %y3, %y4, %y5 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x8xf32>, tensor<2x8xf64>, tensor<2x8xf32>
}

// -----

// The residual Add stays when the Scale is computed after it (the op would
// go right after the Add, before its weights).
// CHECK-LABEL: func.func @scale_after_add(
// CHECK:         %[[X:.*]] = "onnx.Add"
// CHECK:         onyx.layer_norm x(%[[X]] : tensor<?x8xf32>) scale
func.func @scale_after_add(%h: tensor<?x8xf32>, %g: tensor<8xf32>) -> tensor<?x8xf32> {
  %none = onnx.NoValue
  %a = "onnx.Relu"(%h) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %x = "onnx.Add"(%h, %a) : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %g2 = "onnx.Relu"(%g) : (tensor<8xf32>) -> tensor<8xf32>
  %y, %m, %i = "onnx.LayerNormalization"(%x, %g2, %none) {axis = -1 : i64} : (tensor<?x8xf32>, tensor<8xf32>, none) -> (tensor<?x8xf32>, none, none)
  return %y : tensor<?x8xf32>
}
