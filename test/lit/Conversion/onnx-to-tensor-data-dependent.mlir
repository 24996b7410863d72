// RUN: onyx-opt %s --split-input-file --verify-diagnostics --convert-onnx-to-tensor | FileCheck %s
//
// Data-dependent shapes and control flow (docs/data-dependent.md). The
// normalized IR says only which value it needs: descriptor extents are
// tensor.dim, payload scalars (a kernel's count, TopK's k, a condition, a
// trip count) are plain tensor.extract; no readback or backend op appears.

// The RFC's NonZero sequence in normalized form: a capacity-sized
// destination from the descriptor extents, a kernel that writes the indices
// and the count, the count read with tensor.extract, and the valid part cut
// out with extract_slice to exactly [rank, count].
// CHECK-LABEL: func.func @nonzero
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?xi64>) -> tensor<2x?xi64>
// CHECK:         %[[D0:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xi64>
// CHECK:         %[[D1:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xi64>
// CHECK:         %[[CAP:.*]] = arith.muli %[[D0]], %[[D1]] : index
// CHECK:         %[[INIT:.*]] = tensor.empty(%[[CAP]]) : tensor<2x?xi64>
// CHECK:         %[[COUNT0:.*]] = tensor.from_elements %{{.*}} : tensor<i64>
// CHECK:         %[[NZ:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %[[CAP]] step %{{.*}} iter_args(%{{.*}} = %[[INIT]], %{{.*}} = %[[COUNT0]]) -> (tensor<2x?xi64>, tensor<i64>)
// CHECK:           tensor.insert
// CHECK:           tensor.insert
// CHECK:           scf.yield
// CHECK:         %[[C:.*]] = tensor.extract %[[NZ]]#1[] : tensor<i64>
// CHECK:         %[[N:.*]] = arith.index_cast %[[C]] : i64 to index
// CHECK:         %[[VALID:.*]] = tensor.extract_slice %[[NZ]]#0[0, 0] [2, %[[N]]] [1, 1] : tensor<2x?xi64> to tensor<2x?xi64>
// CHECK:         linalg.copy ins(%[[VALID]] : tensor<2x?xi64>)
// CHECK-NOT:     onyx.readback
func.func @nonzero(%x: tensor<?x?xi64>) -> tensor<2x?xi64> {
  %0 = "onnx.NonZero"(%x) : (tensor<?x?xi64>) -> tensor<2x?xi64>
  return %0 : tensor<2x?xi64>
}

// -----

// TopK's k is a payload scalar: read with tensor.extract, checked against
// the axis extent, and the extent of both results.
// CHECK-LABEL: func.func @topk_k_input
// CHECK:         %[[K:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<1xi64>
// CHECK:         %[[KI:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK:         onyx.assert %{{.*}}, "TopK: k = {0} is negative"
// CHECK:         onyx.assert %{{.*}}, "TopK: k = {0} exceeds the axis extent {1}"
// CHECK:         tensor.empty(%[[KI]]) : tensor<3x?xf32>
// CHECK:         tensor.empty(%[[KI]]) : tensor<3x?xi64>
// CHECK:         scf.for
func.func @topk_k_input(%x: tensor<3x?xf32>, %k: tensor<1xi64>) -> (tensor<3x?xf32>, tensor<3x?xi64>) {
  %0:2 = "onnx.TopK"(%x, %k) {axis = 1 : i64} : (tensor<3x?xf32>, tensor<1xi64>) -> (tensor<3x?xf32>, tensor<3x?xi64>)
  return %0#0, %0#1 : tensor<3x?xf32>, tensor<3x?xi64>
}

// -----

// A constant k gives static result dims.
// CHECK-LABEL: func.func @topk_constant_k
// CHECK:         tensor.empty() : tensor<3x2xf32>
// CHECK-NOT:     onyx.assert
func.func @topk_constant_k(%x: tensor<3x5xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>) {
  %k = "onnx.Constant"() {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %0:2 = "onnx.TopK"(%x, %k) {axis = -1 : i64, largest = 0 : i64} : (tensor<3x5xf32>, tensor<1xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  return %0#0, %0#1 : tensor<3x2xf32>, tensor<3x2xi64>
}

// -----

// Compress: the selected entries and their count from a kernel, the count
// read with tensor.extract, a gather of exactly that many entries.
// CHECK-LABEL: func.func @compress
// CHECK:         %[[SEL:.*]]:2 = scf.for
// CHECK:         %[[C:.*]] = tensor.extract %[[SEL]]#1[] : tensor<i64>
// CHECK:         %[[N:.*]] = arith.index_cast %[[C]] : i64 to index
// CHECK:         tensor.empty(%[[N]]) : tensor<?x2xf32>
// CHECK:         linalg.generic
func.func @compress(%x: tensor<3x2xf32>, %c: tensor<?xi1>) -> tensor<?x2xf32> {
  %0 = "onnx.Compress"(%x, %c) {axis = 0 : i64} : (tensor<3x2xf32>, tensor<?xi1>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// If: the condition read with tensor.extract; branches yielding different
// static shapes get the common type tensor<?xf32>. (Regions: else_branch,
// then then_branch, the importer's attribute-name order.)
// CHECK-LABEL: func.func @if_join
// CHECK-SAME:    (%[[C:.*]]: tensor<i1>, %[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<2xf32>)
// CHECK:         %[[B:.*]] = tensor.extract %[[C]][] : tensor<i1>
// CHECK:         %[[R:.*]] = scf.if %[[B]] -> (tensor<?xf32>) {
// CHECK:           linalg.generic
// CHECK:             arith.negf
// CHECK:           %[[T:.*]] = tensor.cast %{{.*}} : tensor<4xf32> to tensor<?xf32>
// CHECK:           scf.yield %[[T]] : tensor<?xf32>
// CHECK:         } else {
// CHECK:           %[[E:.*]] = tensor.cast %[[Y]] : tensor<2xf32> to tensor<?xf32>
// CHECK:           scf.yield %[[E]] : tensor<?xf32>
// CHECK:         }
func.func @if_join(%c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<2xf32>) -> tensor<?xf32> {
  %0 = "onnx.If"(%c) ({
    onnx.Yield %y : tensor<2xf32>
  }, {
    %1 = "onnx.Neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    onnx.Yield %1 : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Loop with a run-time trip count and no condition: scf.while over
// (counter, condition, carried values, scan stacks). The carried value
// doubles in length every iteration, so its type is generalized to
// tensor<?xf32>; the scan output's stack grows and is cut to the iteration
// count after the loop. (A negative trip count runs no iteration.)
// CHECK-LABEL: func.func @loop_trip_count
// CHECK:         %[[M:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
// CHECK:         %[[MI:.*]] = arith.index_cast %[[M]] : i64 to index
// CHECK:         %[[TRIP:.*]] = arith.maxsi %[[MI]], %{{.*}} : index
// CHECK:         %[[W:.*]]:4 = scf.while (%[[I:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : (index, i1, tensor<?xf32>, tensor<?x?xf32>)
// CHECK:           arith.cmpi slt, %{{.*}}, %[[TRIP]] : index
// CHECK:           scf.condition
// CHECK:         } do {
// CHECK:           tensor.from_elements %{{.*}} : tensor<i64>
// CHECK:           onyx.assert %{{.*}}, "scan output 0 dim 0 is {0} in iteration {1} but {2} before"
// CHECK:           scf.if
// CHECK:           scf.yield
// CHECK:         tensor.extract_slice %[[W]]#3[0, 0] [%[[W]]#0, %{{.*}}] [1, 1]
func.func @loop_trip_count(%m: tensor<i64>, %x: tensor<2xf32>) -> (tensor<?xf32>, tensor<?x2xf32>) {
  %none = onnx.NoValue
  %0:2 = "onnx.Loop"(%m, %none, %x) ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<2xf32>):
    %grown = "onnx.Concat"(%v, %v) {axis = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<*xf32>
    %s = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
    %e = "onnx.Constant"() {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
    %head = "onnx.Slice"(%v, %s, %e, %none, %none) : (tensor<2xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<*xf32>
    onnx.Yield %c, %grown, %head : tensor<i1>, tensor<*xf32>, tensor<*xf32>
  }) : (tensor<i64>, none, tensor<2xf32>) -> (tensor<?xf32>, tensor<?x2xf32>)
  return %0#0, %0#1 : tensor<?xf32>, tensor<?x2xf32>
}

// -----

// Loop ended by its condition only: the condition output of the body is
// read with tensor.extract each iteration.
// CHECK-LABEL: func.func @loop_condition
// CHECK:         %[[C0:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK:         scf.while (%{{.*}} = %{{.*}}, %[[GO:.*]] = %[[C0]], %{{.*}} = %{{.*}})
// CHECK:           scf.condition(%[[GO]])
// CHECK:         } do {
// CHECK:           %[[NEXT:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK:           scf.yield %{{.*}}, %[[NEXT]], %{{.*}} : index, i1, tensor<f32>
func.func @loop_condition(%cond: tensor<i1>, %limit: tensor<f32>) -> tensor<f32> {
  %none = onnx.NoValue
  %zero = "onnx.Constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "onnx.Loop"(%none, %cond, %zero) ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<f32>):
    %one = "onnx.Constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %next = "onnx.Add"(%v, %one) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %go = "onnx.Less"(%next, %limit) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    onnx.Yield %go, %next : tensor<i1>, tensor<f32>
  }) : (none, tensor<i1>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Scan (reverse input direction): the sequence sliced per iteration; a
// static element shape and a known length give a stack allocated up front.
// CHECK-LABEL: func.func @scan_reverse
// CHECK:         %[[STACK:.*]] = tensor.empty(%{{.*}}) : tensor<?x2xf32>
// CHECK:         scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %[[STACK]])
// CHECK:         } do {
// CHECK:           %[[REV:.*]] = arith.subi
// CHECK:           tensor.extract_slice %{{.*}}[%[[REV]], 0] [1, 2] [1, 1] : tensor<3x2xf32> to tensor<2xf32>
// CHECK:           arith.addf
// CHECK-NOT:       scf.if
// CHECK:           tensor.insert_slice
func.func @scan_reverse(%init: tensor<2xf32>, %x: tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  %0:2 = "onnx.Scan"(%init, %x) ({
  ^bb0(%s: tensor<2xf32>, %e: tensor<2xf32>):
    %1 = "onnx.Add"(%s, %e) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    onnx.Yield %1, %1 : tensor<2xf32>, tensor<2xf32>
  }) {num_scan_inputs = 1 : i64, scan_input_directions = [1]} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
  return %0#0, %0#1 : tensor<2xf32>, tensor<3x2xf32>
}

// -----

func.func @loop_never_ends(%x: tensor<2xf32>) -> tensor<2xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{Loop without a trip count and a condition never ends}}
  %0 = "onnx.Loop"(%none, %none, %x) ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<2xf32>):
    onnx.Yield %c, %v : tensor<i1>, tensor<2xf32>
  }) : (none, none, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @if_rank_mismatch(%c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<2x2xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{the branches yield 'tensor<4xf32>' and 'tensor<2x2xf32>' for output 0 (element type and rank must agree)}}
  %0 = "onnx.If"(%c) ({
    onnx.Yield %y : tensor<2x2xf32>
  }, {
    onnx.Yield %x : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @loop_rank_change(%m: tensor<i64>, %x: tensor<2xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{loop-carried value 0 enters the body as 'tensor<2xf32>' and leaves it as 'tensor<1x2xf32>'}}
  %0 = "onnx.Loop"(%m, %none, %x) ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<2xf32>):
    %axes = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
    %u = "onnx.Unsqueeze"(%v, %axes) : (tensor<2xf32>, tensor<1xi64>) -> tensor<1x2xf32>
    onnx.Yield %c, %u : tensor<i1>, tensor<1x2xf32>
  }) : (tensor<i64>, none, tensor<2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
