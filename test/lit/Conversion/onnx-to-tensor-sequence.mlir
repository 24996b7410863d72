// RUN: onyx-opt %s --convert-onnx-to-tensor --mlir-print-local-scope \
// RUN:   -split-input-file -verify-diagnostics \
// RUN:   | FileCheck %s --implicit-check-not=onnx.
//
// Sequences and optionals (docs/sequences.md) become onyx handles:
// !onnx.Seq<tensor<...xE>> is !onyx.sequence<E> (element shapes are run-time
// properties), !onnx.Opt<...> is !onyx.optional<...>.

// CHECK-LABEL: func.func @construct_insert_at
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<4xf32>, %[[P:.*]]: tensor<i64>) -> tensor<?xf32>
// CHECK:         %[[E:.*]] = onyx.seq_empty : <f32>
// CHECK:         %[[S1:.*]] = onyx.seq_insert %[[E]], %[[A]] : <f32>, tensor<2x3xf32>
// CHECK:         %[[POS:.*]] = tensor.extract %[[P]][] : tensor<i64>
// CHECK:         %[[S2:.*]] = onyx.seq_insert %[[S1]], %[[B]][%[[POS]]] : <f32>, tensor<4xf32>
// CHECK:         %[[POS2:.*]] = tensor.extract %[[P]][] : tensor<i64>
// CHECK:         %[[AT:.*]] = onyx.seq_at %[[S2]][%[[POS2]]] : <f32> -> tensor<?xf32>
// CHECK:         return %[[AT]] : tensor<?xf32>
func.func @construct_insert_at(%a: tensor<2x3xf32>, %b: tensor<4xf32>, %p: tensor<i64>) -> tensor<?xf32> {
  %0 = "onnx.SequenceConstruct"(%a) : (tensor<2x3xf32>) -> !onnx.Seq<tensor<*xf32>>
  %1 = "onnx.SequenceInsert"(%0, %b, %p) : (!onnx.Seq<tensor<*xf32>>, tensor<4xf32>, tensor<i64>) -> !onnx.Seq<tensor<*xf32>>
  %2 = "onnx.SequenceAt"(%1, %p) : (!onnx.Seq<tensor<*xf32>>, tensor<i64>) -> tensor<?xf32>
  return %2 : tensor<?xf32>
}

// -----

// Graph inputs and outputs of sequence type become handles.
// CHECK-LABEL: func.func @length_erase
// CHECK-SAME:    (%[[S:.*]]: !onyx.sequence<i64>) -> (!onyx.sequence<i64>, tensor<i64>)
// CHECK:         %[[R:.*]] = onyx.seq_erase %[[S]] : <i64>
// CHECK:         %[[N:.*]] = onyx.seq_length %[[R]] : <i64>
// CHECK:         %[[I:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK:         %[[T:.*]] = tensor.from_elements %[[I]] : tensor<i64>
// CHECK:         return %[[R]], %[[T]]
func.func @length_erase(%s: !onnx.Seq<tensor<?xi64>>) -> (!onnx.Seq<tensor<?xi64>>, tensor<i64>) {
  %none = onnx.NoValue
  %0 = "onnx.SequenceErase"(%s, %none) : (!onnx.Seq<tensor<?xi64>>, none) -> !onnx.Seq<tensor<?xi64>>
  %1 = "onnx.SequenceLength"(%0) : (!onnx.Seq<tensor<?xi64>>) -> tensor<i64>
  return %0, %1 : !onnx.Seq<tensor<?xi64>>, tensor<i64>
}

// -----

// Optionals: a tensor is held as a one-element sequence.
// CHECK-LABEL: func.func @optionals
// CHECK-SAME:    (%[[X:.*]]: tensor<3xf32>, %[[O:.*]]: !onyx.optional<!onyx.sequence<f32>>)
// CHECK:         %[[E:.*]] = onyx.seq_empty : <f32>
// CHECK:         %[[S:.*]] = onyx.seq_insert %[[E]], %[[X]] : <f32>, tensor<3xf32>
// CHECK:         %[[W:.*]] = onyx.optional_wrap %[[S]] : <f32> -> <f32>
// CHECK:         %[[U:.*]] = onyx.optional_unwrap %[[W]] : <f32> -> <f32>
// CHECK:         %[[C0:.*]] = arith.constant 0 : i64
// CHECK:         %[[V:.*]] = onyx.seq_at %[[U]][%[[C0]]] : <f32> -> tensor<?xf32>
// CHECK:         %[[H:.*]] = onyx.optional_has %[[O]] : <!onyx.sequence<f32>>
// CHECK:         %[[HT:.*]] = tensor.from_elements %[[H]] : tensor<i1>
// CHECK:         %[[Q:.*]] = onyx.optional_unwrap %[[O]] : <!onyx.sequence<f32>> -> <f32>
// CHECK:         return %[[V]], %[[HT]], %[[Q]]
func.func @optionals(%x: tensor<3xf32>, %o: !onnx.Opt<!onnx.Seq<tensor<*xf32>>>) -> (tensor<?xf32>, tensor<i1>, !onnx.Seq<tensor<*xf32>>) {
  %0 = "onnx.Optional"(%x) : (tensor<3xf32>) -> !onnx.Opt<tensor<3xf32>>
  %1 = "onnx.OptionalGetElement"(%0) : (!onnx.Opt<tensor<3xf32>>) -> tensor<?xf32>
  %2 = "onnx.OptionalHasElement"(%o) : (!onnx.Opt<!onnx.Seq<tensor<*xf32>>>) -> tensor<i1>
  %3 = "onnx.OptionalGetElement"(%o) : (!onnx.Opt<!onnx.Seq<tensor<*xf32>>>) -> !onnx.Seq<tensor<*xf32>>
  return %1, %2, %3 : tensor<?xf32>, tensor<i1>, !onnx.Seq<tensor<*xf32>>
}

// -----

// SequenceMap: an scf.for over the length; the body sees one element of
// each sequence input (same lengths checked) and the tensor inputs.
// CHECK-LABEL: func.func @sequence_map
// CHECK:         %[[N:.*]] = onyx.seq_length %[[S0:.*]] : <f32>
// CHECK:         %[[N1:.*]] = onyx.seq_length %[[S1:.*]] : <f32>
// CHECK:         onyx.assert {{.*}}, "SequenceMap input 1 has {0} elements, input 0 has {1}"
// CHECK:         %[[OUT:.*]] = onyx.seq_empty : <f32>
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[OUT]]) -> (!onyx.sequence<f32>)
// CHECK:           %[[P:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK:           onyx.seq_at %[[S0]][%[[P]]] : <f32> -> tensor<?xf32>
// CHECK:           onyx.seq_at %[[S1]][%[[P]]] : <f32> -> tensor<?xf32>
// CHECK:           linalg.generic
// CHECK:           %[[NEXT:.*]] = onyx.seq_insert %[[ACC]], %{{.*}} : <f32>, tensor<?xf32>
// CHECK:           scf.yield %[[NEXT]] : !onyx.sequence<f32>
func.func @sequence_map(%a: !onnx.Seq<tensor<?xf32>>, %b: !onnx.Seq<tensor<?xf32>>) -> !onnx.Seq<tensor<?xf32>> {
  %0 = "onnx.SequenceMap"(%a, %b) ({
  ^bb0(%x: tensor<?xf32>, %y: tensor<?xf32>):
    %1 = "onnx.Add"(%x, %y) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    onnx.Yield %1 : tensor<?xf32>
  }) : (!onnx.Seq<tensor<?xf32>>, !onnx.Seq<tensor<?xf32>>) -> !onnx.Seq<tensor<?xf32>>
  return %0 : !onnx.Seq<tensor<?xf32>>
}

// -----

// A Loop carries a sequence whose elements change shape: the handle type
// stays the same, so scf.while carries it as is.
// CHECK-LABEL: func.func @loop_carries_sequence
// CHECK:         scf.while ({{.*}}) : (index, i1, !onyx.sequence<f32>) -> (index, i1, !onyx.sequence<f32>)
// CHECK:           onyx.seq_insert
// CHECK:           scf.yield {{.*}} : index, i1, !onyx.sequence<f32>
func.func @loop_carries_sequence(%n: tensor<i64>, %x: tensor<?xf32>) -> !onnx.Seq<tensor<*xf32>> {
  %none = onnx.NoValue
  %e = "onnx.SequenceEmpty"() {dtype = 1 : i64} : () -> !onnx.Seq<tensor<*xf32>>
  %0 = "onnx.Loop"(%n, %none, %e) ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %s: !onnx.Seq<tensor<*xf32>>):
    %1 = "onnx.SequenceInsert"(%s, %x, %none) : (!onnx.Seq<tensor<*xf32>>, tensor<?xf32>, none) -> !onnx.Seq<tensor<*xf32>>
    onnx.Yield %c, %1 : tensor<i1>, !onnx.Seq<tensor<*xf32>>
  }) : (tensor<i64>, none, !onnx.Seq<tensor<*xf32>>) -> !onnx.Seq<tensor<*xf32>>
  return %0 : !onnx.Seq<tensor<*xf32>>
}

// -----

func.func @insert_wrong_type(%s: !onnx.Seq<tensor<*xf32>>, %t: tensor<2xi64>) -> !onnx.Seq<tensor<*xf32>> {
  %none = onnx.NoValue
  // expected-error @+1 {{cannot insert a tensor of 'i64' into a sequence of 'f32'}}
  %0 = "onnx.SequenceInsert"(%s, %t, %none) : (!onnx.Seq<tensor<*xf32>>, tensor<2xi64>, none) -> !onnx.Seq<tensor<*xf32>>
  return %0 : !onnx.Seq<tensor<*xf32>>
}

// -----

func.func @at_unranked(%s: !onnx.Seq<tensor<*xf32>>, %p: tensor<i64>) -> tensor<*xf32> {
  // expected-error @+1 {{the element's rank is unknown}}
  %0 = "onnx.SequenceAt"(%s, %p) : (!onnx.Seq<tensor<*xf32>>, tensor<i64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
