// RUN: onyx-opt %s --convert-onnx-to-tensor --mlir-print-local-scope \
// RUN:   -split-input-file -verify-diagnostics \
// RUN:   | FileCheck %s --implicit-check-not=onnx.
//
// RNN, GRU and LSTM. X·Wᵀ (+ Wb) for all steps is one BLAS-shaped
// contraction (loops dir, row, gate, k) before an scf.for over the steps;
// each step is H·Rᵀ (+ Rb), again BLAS-shaped with the direction as batch
// loop, and one gate generic that updates the carried state in place and
// writes Y's slot of the step stack.

// CHECK-LABEL: func.func @rnn
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?x3xf32>, %[[W:.*]]: tensor<1x4x3xf32>, %[[R:.*]]: tensor<1x4x4xf32>, %[[B:.*]]: tensor<1x8xf32>)
// CHECK-DAG:     %[[WB:.*]] = tensor.extract_slice %[[B]][0, 0] [1, 4] [1, 1]
// CHECK-DAG:     %[[RB:.*]] = tensor.extract_slice %[[B]][0, 4] [1, 4] [1, 1]
// CHECK:         %[[XF:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<?x?x3xf32> into tensor<?x3xf32>
// CHECK:         %[[XWINIT:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[WB]] : tensor<1x4xf32>)
// CHECK:         %[[XW:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[XF]], %[[W]] : tensor<?x3xf32>, tensor<1x4x3xf32>) outs(%[[XWINIT]] : tensor<1x?x4xf32>)
// CHECK:         %[[H0:.*]] = linalg.fill {{.*}} -> tensor<1x?x4xf32>
// CHECK:         %[[STACK:.*]] = tensor.empty({{.*}}) : tensor<?x1x?x4xf32>
// CHECK:         %[[LOOP:.*]]:2 = scf.for %[[I:[^ ]+]] = {{.*}} iter_args(%[[H:.*]] = %[[H0]], %[[S:.*]] = %[[STACK]])
// CHECK:           %[[HRINIT:.*]] = linalg.generic
// CHECK-SAME:        ins(%[[RB]] : tensor<1x4xf32>)
// CHECK:           %[[HR:.*]] = linalg.generic
// CHECK-SAME:        indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
// CHECK-SAME:        ins(%[[H]], %[[R]] : tensor<1x?x4xf32>, tensor<1x4x4xf32>) outs(%[[HRINIT]] : tensor<1x?x4xf32>)
// CHECK:           %[[SLOT:.*]] = tensor.extract_slice %[[S]][%[[I]], 0, 0, 0]
// CHECK:           %[[G:.*]]:2 = linalg.generic
// CHECK-SAME:        outs(%[[H]], %[[SLOT]] : tensor<1x?x4xf32>, tensor<1x?x4xf32>)
// CHECK:             tensor.extract %[[HR]]
// CHECK:             tensor.extract %[[XW]]
// CHECK:             %[[T:.*]] = math.tanh
// CHECK:             linalg.yield %[[T]], %[[T]]
// CHECK:           %[[INS:.*]] = tensor.insert_slice %[[G]]#1 into %[[S]][%[[I]], 0, 0, 0]
// CHECK:           scf.yield %[[G]]#0, %[[INS]]
// CHECK:         return %[[LOOP]]#1, %[[LOOP]]#0
func.func @rnn(%x: tensor<?x?x3xf32>, %w: tensor<1x4x3xf32>, %r: tensor<1x4x4xf32>, %b: tensor<1x8xf32>) -> (tensor<?x1x?x4xf32>, tensor<1x?x4xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %y, %yh = "onnx.RNN"(%x, %w, %r, %b, %none, %none) {hidden_size = 4 : i64} : (tensor<?x?x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, none, none) -> (tensor<?x1x?x4xf32>, tensor<1x?x4xf32>)
  return %y, %yh : tensor<?x1x?x4xf32>, tensor<1x?x4xf32>
}

// -----

// GRU without linear_before_reset: Rzr and Rh are copied transposed once;
// each step is H·Rzrᵀ, r⊙H, (r⊙H)·Rhᵀ, then the gates.
// CHECK-LABEL: func.func @gru
// CHECK-SAME:    %[[R:[^:]*]]: tensor<1x15x5xf32>)
// CHECK:         %[[RZR:.*]] = tensor.extract_slice %[[R]][0, 0, 0] [1, 10, 5] [1, 1, 1]
// CHECK:         %[[RZRT:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]{{.*}} ins(%[[RZR]] : tensor<1x10x5xf32>)
// CHECK:         %[[RH:.*]] = tensor.extract_slice %[[R]][0, 10, 0] [1, 5, 5] [1, 1, 1]
// CHECK:         %[[RHT:.*]] = linalg.generic {{.*}} ins(%[[RH]] : tensor<1x5x5xf32>)
// CHECK:         scf.for {{.*}} iter_args(%[[H:.*]] = %{{.*}}) -> (tensor<1x3x5xf32>)
// CHECK:           %[[HR:.*]] = linalg.generic
// CHECK-SAME:        affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-SAME:        ins(%[[H]], %[[RZRT]] : tensor<1x3x5xf32>, tensor<1x5x10xf32>)
// CHECK:           %[[RESET:.*]] = linalg.generic {{.*}} ins(%[[H]] : tensor<1x3x5xf32>)
// CHECK:           %[[HRH:.*]] = linalg.generic
// CHECK-SAME:        ins(%[[RESET]], %[[RHT]] : tensor<1x3x5xf32>, tensor<1x5x5xf32>)
// CHECK:           %[[NEW:.*]] = linalg.generic {{.*}} outs(%[[H]] : tensor<1x3x5xf32>)
// CHECK:             tensor.extract %[[HRH]]
// CHECK:           scf.yield %[[NEW]]
func.func @gru(%x: tensor<2x3x2xf32>, %w: tensor<1x15x2xf32>, %r: tensor<1x15x5xf32>) -> tensor<1x3x5xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y, %yh = "onnx.GRU"(%x, %w, %r, %none, %none, %none) {hidden_size = 5 : i64} : (tensor<2x3x2xf32>, tensor<1x15x2xf32>, tensor<1x15x5xf32>, none, none, none) -> (none, tensor<1x3x5xf32>)
  return %yh : tensor<1x3x5xf32>
}

// -----

// Bidirectional, batchwise, with sequence_lens, all dims dynamic: operand
// extents are checked at run time; the reverse direction (d == 1) reads
// time len-1-i; entries past their length keep their state; Y is built
// from the step stack after the loop (zero past the length), and the
// states are transposed to the [batch, dirs, hidden] layout.
// CHECK-LABEL: func.func @lstm
// CHECK-SAME:    %[[L:[^:]*]]: tensor<?xi32>)
// CHECK:         onyx.assert {{.*}} "W dim 0 mismatch: {0} vs {1}"
// CHECK:         onyx.assert {{.*}} "R dim 2 mismatch: {0} vs {1}"
// CHECK:         onyx.assert {{.*}} "sequence_lens dim 0 mismatch: {0} vs {1}"
// CHECK:         %[[LOOP:.*]]:3 = scf.for %[[I:[^ ]+]] = {{.*}} -> (tensor<2x?x3xf32>, tensor<2x?x3xf32>, tensor<?x2x?x3xf32>)
// CHECK:           linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK:           linalg.generic
// CHECK:             %[[LEN:.*]] = tensor.extract %[[L]]
// CHECK:             %[[ACTIVE:.*]] = arith.cmpi slt, %[[I]]
// CHECK:             %[[REV:.*]] = arith.cmpi eq, %{{.*}}, %c1
// CHECK:             arith.select %[[REV]]
// CHECK:             %[[HN:.*]] = arith.select %[[ACTIVE]]
// CHECK:             %[[CN:.*]] = arith.select %[[ACTIVE]]
// CHECK:             linalg.yield %[[HN]], %[[CN]], %[[HN]]
// CHECK:         %[[YH:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0, d2)>{{.*}} ins(%[[LOOP]]#0
// CHECK:         %[[YC:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0, d2)>{{.*}} ins(%[[LOOP]]#1
// CHECK:         %[[Y:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x?x2x3xf32>)
// CHECK:           tensor.extract %[[LOOP]]#2
// CHECK:         return %[[Y]], %[[YH]], %[[YC]]
func.func @lstm(%x: tensor<?x?x?xf32>, %w: tensor<?x?x?xf32>, %r: tensor<?x?x?xf32>, %l: tensor<?xi32>) -> (tensor<?x?x2x3xf32>, tensor<?x2x3xf32>, tensor<?x2x3xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %y, %yh, %yc = "onnx.LSTM"(%x, %w, %r, %none, %l, %none, %none, %none) {hidden_size = 3 : i64, direction = "bidirectional", layout = 1 : i64} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>, none, tensor<?xi32>, none, none, none) -> (tensor<?x?x2x3xf32>, tensor<?x2x3xf32>, tensor<?x2x3xf32>)
  return %y, %yh, %yc : tensor<?x?x2x3xf32>, tensor<?x2x3xf32>, tensor<?x2x3xf32>
}

// -----

// An initial state given as a graph input is copied: the loop updates
// its state in place.
// CHECK-LABEL: func.func @initial_state
// CHECK-SAME:    %[[H0:[^:]*]]: tensor<1x2x3xf32>)
// CHECK:         %[[COPY:.*]] = linalg.copy ins(%{{.*}} : tensor<1x2x3xf32>)
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[COPY]])
func.func @initial_state(%x: tensor<4x2x5xf32>, %w: tensor<1x9x5xf32>, %r: tensor<1x9x3xf32>, %h0: tensor<1x2x3xf32>) -> tensor<1x2x3xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y, %yh = "onnx.GRU"(%x, %w, %r, %none, %none, %h0) {hidden_size = 3 : i64, linear_before_reset = 1 : i64} : (tensor<4x2x5xf32>, tensor<1x9x5xf32>, tensor<1x9x3xf32>, none, none, tensor<1x2x3xf32>) -> (none, tensor<1x2x3xf32>)
  return %yh : tensor<1x2x3xf32>
}

// -----

func.func @bad_activation(%x: tensor<2x3x2xf32>, %w: tensor<1x4x2xf32>, %r: tensor<1x4x4xf32>) -> tensor<1x3x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{activation function 'gelu' is not supported}}
  %y, %yh = "onnx.RNN"(%x, %w, %r, %none, %none, %none) {hidden_size = 4 : i64, activations = ["Gelu"]} : (tensor<2x3x2xf32>, tensor<1x4x2xf32>, tensor<1x4x4xf32>, none, none, none) -> (none, tensor<1x3x4xf32>)
  return %yh : tensor<1x3x4xf32>
}

// -----

func.func @bad_weights(%x: tensor<2x3x2xf32>, %w: tensor<1x8x2xf32>, %r: tensor<1x4x4xf32>) -> tensor<1x3x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{W dim 1 mismatch: 8 vs 4}}
  %y, %yh = "onnx.RNN"(%x, %w, %r, %none, %none, %none) {hidden_size = 4 : i64} : (tensor<2x3x2xf32>, tensor<1x8x2xf32>, tensor<1x4x4xf32>, none, none, none) -> (none, tensor<1x3x4xf32>)
  return %yh : tensor<1x3x4xf32>
}

// -----

func.func @bad_direction(%x: tensor<2x3x2xf32>, %w: tensor<1x4x2xf32>, %r: tensor<1x4x4xf32>) -> tensor<1x3x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{direction 'sideways' is not forward, reverse or bidirectional}}
  %y, %yh = "onnx.RNN"(%x, %w, %r, %none, %none, %none) {hidden_size = 4 : i64, direction = "sideways"} : (tensor<2x3x2xf32>, tensor<1x4x2xf32>, tensor<1x4x4xf32>, none, none, none) -> (none, tensor<1x3x4xf32>)
  return %yh : tensor<1x3x4xf32>
}
