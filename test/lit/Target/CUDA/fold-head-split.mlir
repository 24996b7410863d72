// RUN: onyx-opt %s --onyx-cuda-fold-head-split --canonicalize --cse --split-input-file | FileCheck %s
//
// onyx-cuda-fold-head-split: attention operands that are the Split parts of
// one QKV projection ([B, S, 3 * H * D]: extract_slice + copy + reshape to
// [B, S, H, D]) become one reshape of the projection to [B, S, 3 * H, D]
// read at head offsets 0, H and 2 H; the copies die.

// CHECK-LABEL: func.func @gpt2_qkv(
// CHECK:         %[[T:.*]] = linalg.fill
// CHECK-NOT:     linalg.copy
// CHECK-NOT:     tensor.extract_slice
// CHECK:         %[[V:.*]] = tensor.reshape %[[T]](%{{.*}}) : (tensor<?x?x96xf16>, tensor<4xindex>) -> tensor<?x?x6x16xf16>
// CHECK:         onyx.attention q(%[[V]] : tensor<?x?x6x16xf16>) k(%[[V]] : tensor<?x?x6x16xf16>) v(%[[V]] : tensor<?x?x6x16xf16>)
// CHECK-SAME:      head_offsets = array<i64: 0, 2, 4>
func.func @gpt2_qkv(%ids: tensor<?x?xi64>) -> tensor<?x?x2x16xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f16
  %d0 = tensor.dim %ids, %c0 : tensor<?x?xi64>
  %d1 = tensor.dim %ids, %c1 : tensor<?x?xi64>
  %e = tensor.empty(%d0, %d1) : tensor<?x?x96xf16>
  %t = linalg.fill ins(%zero : f16) outs(%e : tensor<?x?x96xf16>) -> tensor<?x?x96xf16>
  %pe = tensor.empty(%d0, %d1) : tensor<?x?x32xf16>
  %s0 = tensor.extract_slice %t[0, 0, 0] [%d0, %d1, 32] [1, 1, 1] : tensor<?x?x96xf16> to tensor<?x?x32xf16>
  %p0 = linalg.copy ins(%s0 : tensor<?x?x32xf16>) outs(%pe : tensor<?x?x32xf16>) -> tensor<?x?x32xf16>
  %s1 = tensor.extract_slice %t[0, 0, 32] [%d0, %d1, 32] [1, 1, 1] : tensor<?x?x96xf16> to tensor<?x?x32xf16>
  %p1 = linalg.copy ins(%s1 : tensor<?x?x32xf16>) outs(%pe : tensor<?x?x32xf16>) -> tensor<?x?x32xf16>
  %s2 = tensor.extract_slice %t[0, 0, 64] [%d0, %d1, 32] [1, 1, 1] : tensor<?x?x96xf16> to tensor<?x?x32xf16>
  %p2 = linalg.copy ins(%s2 : tensor<?x?x32xf16>) outs(%pe : tensor<?x?x32xf16>) -> tensor<?x?x32xf16>
  %shape = tensor.from_elements %d0, %d1, %c2, %c16 : tensor<4xindex>
  %r0 = tensor.reshape %p0(%shape) : (tensor<?x?x32xf16>, tensor<4xindex>) -> tensor<?x?x?x?xf16>
  %r1 = tensor.reshape %p1(%shape) : (tensor<?x?x32xf16>, tensor<4xindex>) -> tensor<?x?x?x?xf16>
  %r2 = tensor.reshape %p2(%shape) : (tensor<?x?x32xf16>, tensor<4xindex>) -> tensor<?x?x?x?xf16>
  %q = tensor.cast %r0 : tensor<?x?x?x?xf16> to tensor<?x?x2x16xf16>
  %k = tensor.cast %r1 : tensor<?x?x?x?xf16> to tensor<?x?x2x16xf16>
  %v = tensor.cast %r2 : tensor<?x?x?x?xf16> to tensor<?x?x2x16xf16>
  %o = tensor.empty(%d0, %d1) : tensor<?x?x2x16xf16>
  %a = onyx.attention q(%q : tensor<?x?x2x16xf16>) k(%k : tensor<?x?x2x16xf16>) v(%v : tensor<?x?x2x16xf16>) outs(%o : tensor<?x?x2x16xf16>) {kv_group = 1 : i64, key_dims = array<i64: 0, 2, 1, 3>, mask_dims = array<i64: -1, -1, -1, -1>, out_dims = array<i64: 0, 2, 1, 3>, query_dims = array<i64: 0, 2, 1, 3>, scale = 0.25 : f64, value_dims = array<i64: 0, 2, 1, 3>} -> tensor<?x?x2x16xf16>
  return %a : tensor<?x?x2x16xf16>
}

// -----

// Stays: a slice whose row count is not provably the projection's (the
// part's rows would not be the projection's rows), and a head size that
// does not divide the slice's offset.
// CHECK-LABEL: func.func @stays(
// CHECK-COUNT-2: linalg.copy
// CHECK:         onyx.attention
// CHECK-NOT:     head_offsets
func.func @stays(%t: tensor<?x?x96xf16>, %n: index) -> tensor<?x?x2x16xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %d0 = tensor.dim %t, %c0 : tensor<?x?x96xf16>
  %d1 = tensor.dim %t, %c1 : tensor<?x?x96xf16>
  %pe = tensor.empty(%n, %d1) : tensor<?x?x32xf16>
  %s0 = tensor.extract_slice %t[0, 0, 0] [%n, %d1, 32] [1, 1, 1] : tensor<?x?x96xf16> to tensor<?x?x32xf16>
  %p0 = linalg.copy ins(%s0 : tensor<?x?x32xf16>) outs(%pe : tensor<?x?x32xf16>) -> tensor<?x?x32xf16>
  %qe = tensor.empty(%d0, %d1) : tensor<?x?x24xf16>
  %s1 = tensor.extract_slice %t[0, 0, 36] [%d0, %d1, 24] [1, 1, 1] : tensor<?x?x96xf16> to tensor<?x?x24xf16>
  %p1 = linalg.copy ins(%s1 : tensor<?x?x24xf16>) outs(%qe : tensor<?x?x24xf16>) -> tensor<?x?x24xf16>
  %shape = tensor.from_elements %n, %d1, %c2, %c16 : tensor<4xindex>
  %shape1 = tensor.from_elements %d0, %d1, %c3, %c8 : tensor<4xindex>
  %r0 = tensor.reshape %p0(%shape) : (tensor<?x?x32xf16>, tensor<4xindex>) -> tensor<?x?x?x?xf16>
  %r1 = tensor.reshape %p1(%shape1) : (tensor<?x?x24xf16>, tensor<4xindex>) -> tensor<?x?x?x?xf16>
  %q = tensor.cast %r0 : tensor<?x?x?x?xf16> to tensor<?x?x2x16xf16>
  %k = tensor.cast %r1 : tensor<?x?x?x?xf16> to tensor<?x?x3x8xf16>
  %o = tensor.empty(%n, %d1) : tensor<?x?x2x16xf16>
  %a = onyx.attention q(%q : tensor<?x?x2x16xf16>) k(%q : tensor<?x?x2x16xf16>) v(%k : tensor<?x?x3x8xf16>) outs(%o : tensor<?x?x2x16xf16>) {kv_group = 1 : i64, key_dims = array<i64: 0, 2, 1, 3>, mask_dims = array<i64: -1, -1, -1, -1>, out_dims = array<i64: 0, 2, 1, 3>, query_dims = array<i64: 0, 2, 1, 3>, scale = 0.25 : f64, value_dims = array<i64: 0, 2, 1, 3>} -> tensor<?x?x2x16xf16>
  return %a : tensor<?x?x2x16xf16>
}
