// RUN: onyx-opt %s --onyx-elementwise-in-place -split-input-file | FileCheck %s
//
// onyx-elementwise-in-place: an elementwise result overwrites an input that
// dies at the op (One-Shot Bufferize then writes in place).

#id = affine_map<(d0) -> (d0)>

// A chain: %a dies at the second generic, which now writes into it; the
// first generic's input is the function argument (the caller's buffer) and
// keeps its fresh destination.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:      %[[X:.*]]: tensor<?xf32>)
// CHECK:         %[[E:.*]] = tensor.empty
// CHECK:         %[[A:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<?xf32>) outs(%[[E]] : tensor<?xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[A]] : tensor<?xf32>) outs(%[[A]] : tensor<?xf32>)
func.func @chain(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %in : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %e2 = tensor.empty(%n) : tensor<?xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%e2 : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %b : tensor<?xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
#rev = affine_map<(d0) -> (0)>

// Not reused: %a is used again later; %b is read at another position
// (broadcast map); a view of the argument is the caller's memory.
// CHECK-LABEL: func.func @kept(
// CHECK:         %[[E0:.*]] = tensor.empty() : tensor<4xf32>
// CHECK:         linalg.generic {{.*}} outs(%[[E0]] : tensor<4xf32>)
// CHECK:         %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK:         linalg.generic {{.*}} outs(%[[E1]] : tensor<4xf32>)
// CHECK:         %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK:         linalg.generic {{.*}} outs(%[[E2]] : tensor<4xf32>)
// CHECK:         %[[E3:.*]] = tensor.empty() : tensor<4xf32>
// CHECK:         linalg.generic {{.*}} outs(%[[E3]] : tensor<4xf32>)
func.func @kept(%x: tensor<4xf32>, %y: tensor<2x2xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%u : tensor<4xf32>) outs(%e2 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  %v = tensor.collapse_shape %y [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  %e3 = tensor.empty() : tensor<4xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%v : tensor<4xf32>) outs(%e3 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  return %a, %b, %c, %u : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// onyx.layer_norm: `out` takes x's place and `sum` the residual's (each has
// its type and dies there); the half `outs2` finds no f16 row to reuse.
// CHECK-LABEL: func.func @layer_norm_rows(
// CHECK:         %[[X:.*]] = linalg.generic
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK:         %[[E2:.*]] = tensor.empty() : tensor<4x8xf16>
// CHECK:         onyx.layer_norm x(%[[X]] : tensor<4x8xf32>) residual(%[[R]] : tensor<4x8xf32>) {{.*}} outs(%[[X]] : tensor<4x8xf32>) outs2(%[[E2]] : tensor<4x8xf16>) sum(%[[R]] : tensor<4x8xf32>)
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @layer_norm_rows(%a: tensor<4x8xf32>, %g: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xf32>) {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %x = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %res = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.absf %in : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %o = tensor.empty() : tensor<4x8xf32>
  %o2 = tensor.empty() : tensor<4x8xf16>
  %s = tensor.empty() : tensor<4x8xf32>
  %y:3 = onyx.layer_norm x(%x : tensor<4x8xf32>) residual(%res : tensor<4x8xf32>) scale(%g : tensor<8xf32>) outs(%o : tensor<4x8xf32>) outs2(%o2 : tensor<4x8xf16>) sum(%s : tensor<4x8xf32>) {axis = 1 : i64, epsilon = 1.0e-5 : f64} -> tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xf32>
  return %y#0, %y#1, %y#2 : tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xf32>
}

// -----

// Kept: x is a graph input, and the residual is read again after the op.
// CHECK-LABEL: func.func @layer_norm_kept(
// CHECK:         linalg.generic
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK:         onyx.layer_norm {{.*}} outs(%[[E]] : tensor<4x8xf32>)
#id3 = affine_map<(d0, d1) -> (d0, d1)>
func.func @layer_norm_kept(%x: tensor<4x8xf32>, %a: tensor<4x8xf32>, %g: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e1 = tensor.empty() : tensor<4x8xf32>
  %res = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.absf %in : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %o = tensor.empty() : tensor<4x8xf32>
  %y = onyx.layer_norm x(%x : tensor<4x8xf32>) residual(%res : tensor<4x8xf32>) scale(%g : tensor<8xf32>) outs(%o : tensor<4x8xf32>) {axis = 1 : i64, epsilon = 1.0e-5 : f64} -> tensor<4x8xf32>
  return %y, %res : tensor<4x8xf32>, tensor<4x8xf32>
}
