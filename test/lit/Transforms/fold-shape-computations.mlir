// RUN: onyx-opt %s --onyx-fold-shape-computations --canonicalize \
// RUN:   -split-input-file | FileCheck %s
//
// onyx-fold-shape-computations forwards tensor.extract at constant positions
// of small static tensors through the ops that computed them, so shape
// values become index arithmetic instead of payload reads.

// -----
// PyTorch's attention reshape: Shape -> Gather(2) -> Div(heads) -> Mul, the
// lowered forms being from_elements and two elementwise generics. The
// extract becomes (d2 / 4) * 4 on the dim itself; the generics die.

#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @head_dim(
// CHECK-SAME:      %[[X:.*]]: tensor<?x?x?xf32>)
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK:         %[[D:.*]] = tensor.dim %[[X]], %[[C2]]
// CHECK:         %[[I:.*]] = arith.index_cast %[[D]] : index to i64
// CHECK:         arith.divsi %[[I]]
// CHECK:         arith.muli
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     tensor.extract
// CHECK:         return
func.func @head_dim(%x: tensor<?x?x?xf32>) -> index {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %d = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %di = arith.index_cast %d : index to i64
  %shape = tensor.from_elements %di : tensor<1xi64>
  %heads = arith.constant dense<4> : tensor<1xi64>
  %e = tensor.empty() : tensor<1xi64>
  %q = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%shape, %heads : tensor<1xi64>, tensor<1xi64>) outs(%e : tensor<1xi64>) {
  ^bb0(%a: i64, %b: i64, %o: i64):
    %r = arith.divsi %a, %b : i64
    linalg.yield %r : i64
  } -> tensor<1xi64>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%q, %heads : tensor<1xi64>, tensor<1xi64>) outs(%e : tensor<1xi64>) {
  ^bb0(%a: i64, %b: i64, %o: i64):
    %r = arith.muli %a, %b : i64
    linalg.yield %r : i64
  } -> tensor<1xi64>
  %v = tensor.extract %m[%c0] : tensor<1xi64>
  %vi = arith.index_cast %v : i64 to index
  return %vi : index
}

// -----
// Concat lowered as insert_slices of copies, and an Unsqueeze as a
// reshape: each position reads its own piece.

// CHECK-LABEL: func.func @concat(
// CHECK-SAME:      %[[A:.*]]: i64, %[[B:.*]]: i64)
// CHECK-NEXT:    return %[[B]], %[[A]] : i64, i64
func.func @concat(%a: i64, %b: i64) -> (i64, i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s0 = tensor.from_elements %a : tensor<i64>
  %shape1 = arith.constant dense<1> : tensor<1xindex>
  %r0 = tensor.reshape %s0(%shape1) : (tensor<i64>, tensor<1xindex>) -> tensor<1xi64>
  %r1 = tensor.from_elements %b : tensor<1xi64>
  %e = tensor.empty() : tensor<2xi64>
  %slot0 = tensor.extract_slice %e[0] [1] [1] : tensor<2xi64> to tensor<1xi64>
  %copy0 = linalg.copy ins(%r0 : tensor<1xi64>) outs(%slot0 : tensor<1xi64>) -> tensor<1xi64>
  %i0 = tensor.insert_slice %copy0 into %e[0] [1] [1] : tensor<1xi64> into tensor<2xi64>
  %slot1 = tensor.extract_slice %i0[1] [1] [1] : tensor<2xi64> to tensor<1xi64>
  %copy1 = linalg.copy ins(%r1 : tensor<1xi64>) outs(%slot1 : tensor<1xi64>) -> tensor<1xi64>
  %i1 = tensor.insert_slice %copy1 into %i0[1] [1] [1] : tensor<1xi64> into tensor<2xi64>
  %v1 = tensor.extract %i1[%c1] : tensor<2xi64>
  %v0 = tensor.extract %i1[%c0] : tensor<2xi64>
  return %v1, %v0 : i64, i64
}

// -----
// A value computed from a reduction (payload) is not forwarded: it stays a
// read of the data, as it must.

#id2 = affine_map<(d0) -> (d0)>
#red = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @payload(
// CHECK:         linalg.generic
// CHECK:         tensor.extract
func.func @payload(%x: tensor<8xi64>) -> i64 {
  %zero = arith.constant 0 : i64
  %e = tensor.empty() : tensor<i64>
  %init = linalg.fill ins(%zero : i64) outs(%e : tensor<i64>) -> tensor<i64>
  %s = linalg.generic {indexing_maps = [#id2, #red], iterator_types = ["reduction"]}
      ins(%x : tensor<8xi64>) outs(%init : tensor<i64>) {
  ^bb0(%a: i64, %o: i64):
    %r = arith.addi %a, %o : i64
    linalg.yield %r : i64
  } -> tensor<i64>
  %v = tensor.extract %s[] : tensor<i64>
  return %v : i64
}
