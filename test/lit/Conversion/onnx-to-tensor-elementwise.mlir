// RUN: onyx-opt %s --convert-onnx-to-tensor --mlir-print-local-scope \
// RUN:   -split-input-file -verify-diagnostics \
// RUN:   | FileCheck %s --implicit-check-not=onnx.
//
// Elementwise onnx ops become one linalg.generic each, with a tensor.empty
// destination whose extents come from the shared broadcast helper. Operands
// whose extents match the result use affine indexing maps (a broadcast dim
// reads index 0 or is dropped from the map); operands that may be 1 only at
// run time are read with tensor.extract at indices clamped with arith.select,
// after onyx.assert checks that each extent is 1 or the result's.

// Bias add: the (4) operand is right-aligned against (?x4), so it follows the
// inner loop only.
// CHECK-LABEL: func.func @add_bias
// CHECK-SAME:    (%[[X:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<4xf32>) -> tensor<?x4xf32>
// CHECK-NOT:     onyx.assert
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[D0:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x4xf32>
// CHECK:         %[[INIT:.*]] = tensor.empty(%[[D0]]) : tensor<?x4xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%[[X]], %[[B]] : tensor<?x4xf32>, tensor<4xf32>)
// CHECK-SAME:      outs(%[[INIT]] : tensor<?x4xf32>)
// CHECK:         ^bb0(%[[IN0:.*]]: f32, %[[IN1:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[SUM:.*]] = arith.addf %[[IN0]], %[[IN1]] : f32
// CHECK:           linalg.yield %[[SUM]] : f32
// CHECK:         return %[[R]] : tensor<?x4xf32>
func.func @add_bias(%x: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %0 = "onnx.Add"(%x, %b) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// The RFC's @max_dynamic case: 4x1 against 4x8 gives a static 4x8
// destination; the size-1 dim of the first operand reads index 0.
// CHECK-LABEL: func.func @max_dynamic
// CHECK-SAME:    (%[[A:.*]]: tensor<4x1xf32>, %[[B:.*]]: tensor<4x8xf32>)
// CHECK-NOT:     onyx.assert
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[A]], %[[B]] : tensor<4x1xf32>, tensor<4x8xf32>)
// CHECK-SAME:      outs(%[[INIT]] : tensor<4x8xf32>)
// CHECK:           arith.addf
// CHECK:         return %[[R]] : tensor<4x8xf32>
func.func @max_dynamic(%a: tensor<4x1xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = "onnx.Add"(%a, %b) : (tensor<4x1xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// The same with a dynamic dim: the static 4 of the second operand decides
// the result extent, so the destination is still 4x8 (cast to the declared
// type at the return); the dynamic dim is checked against 4 at run time and
// read at a clamped index.
// CHECK-LABEL: func.func @max_dynamic_dyn
// CHECK-SAME:    (%[[A:.*]]: tensor<?x1xf32>, %[[B:.*]]: tensor<4x8xf32>) -> tensor<?x?xf32>
// CHECK:         %[[D:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x1xf32>
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[EQ:.*]] = arith.cmpi eq, %[[D]], %[[C4]] : index
// CHECK:         %[[ONE:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : index
// CHECK:         %[[OK:.*]] = arith.ori %[[EQ]], %[[ONE]] : i1
// CHECK:         onyx.assert %[[OK]], "cannot broadcast operand 0 dim 0 of extent {0} against extent {1}"(%[[D]], %[[C4]] : index, index)
// CHECK:         %[[ISONE:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : index
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[B]] : tensor<4x8xf32>) outs(%[[INIT]] : tensor<4x8xf32>)
// CHECK:           %[[Z:.*]] = arith.constant 0 : index
// CHECK:           %[[I0:.*]] = linalg.index 0 : index
// CHECK:           %[[IDX:.*]] = arith.select %[[ISONE]], %[[Z]], %[[I0]] : index
// CHECK:           %[[E:.*]] = tensor.extract %[[A]][%[[IDX]], %[[Z]]] : tensor<?x1xf32>
// CHECK:           arith.addf %[[E]], %{{.*}} : f32
// CHECK:         %[[CAST:.*]] = tensor.cast %[[R]] : tensor<4x8xf32> to tensor<?x?xf32>
// CHECK:         return %[[CAST]]
func.func @max_dynamic_dyn(%a: tensor<?x1xf32>, %b: tensor<4x8xf32>) -> tensor<?x?xf32> {
  %0 = "onnx.Add"(%a, %b) : (tensor<?x1xf32>, tensor<4x8xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// Two fully dynamic operands: each result extent is the first operand's
// unless that is 1; every operand dim is checked with onyx.assert, and both
// operands are read with tensor.extract at clamped indices (no affine map
// can express "index 0 when the extent is 1").
// CHECK-LABEL: func.func @add_fully_dynamic
// CHECK-SAME:    (%[[A:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?x?xf32>)
// CHECK-DAG:     %[[A0:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xf32>
// CHECK-DAG:     %[[A1:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xf32>
// CHECK-DAG:     %[[B0:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x?xf32>
// CHECK-DAG:     %[[B1:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x?xf32>
// CHECK:         %[[A0ONE:.*]] = arith.cmpi eq, %[[A0]], %{{.*}} : index
// CHECK:         %[[R0:.*]] = arith.select %[[A0ONE]], %[[B0]], %[[A0]] : index
// CHECK:         %[[A1ONE:.*]] = arith.cmpi eq, %[[A1]], %{{.*}} : index
// CHECK:         %[[R1:.*]] = arith.select %[[A1ONE]], %[[B1]], %[[A1]] : index
// CHECK:         onyx.assert %{{.*}}, "cannot broadcast operand 0 dim 0 of extent {0} against extent {1}"(%[[A0]], %[[R0]] : index, index)
// CHECK:         %[[CLAMP_A0:.*]] = arith.cmpi eq, %[[A0]], %{{.*}} : index
// CHECK:         onyx.assert %{{.*}}, "cannot broadcast operand 0 dim 1 of extent {0} against extent {1}"(%[[A1]], %[[R1]] : index, index)
// CHECK:         %[[CLAMP_A1:.*]] = arith.cmpi eq, %[[A1]], %{{.*}} : index
// CHECK:         onyx.assert %{{.*}}, "cannot broadcast operand 1 dim 0 of extent {0} against extent {1}"(%[[B0]], %[[R0]] : index, index)
// CHECK:         %[[CLAMP_B0:.*]] = arith.cmpi eq, %[[B0]], %{{.*}} : index
// CHECK:         onyx.assert %{{.*}}, "cannot broadcast operand 1 dim 1 of extent {0} against extent {1}"(%[[B1]], %[[R1]] : index, index)
// CHECK:         %[[CLAMP_B1:.*]] = arith.cmpi eq, %[[B1]], %{{.*}} : index
// CHECK:         %[[INIT:.*]] = tensor.empty(%[[R0]], %[[R1]]) : tensor<?x?xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-NOT:       ins(
// CHECK-SAME:      outs(%[[INIT]] : tensor<?x?xf32>)
// CHECK:           %[[Z:.*]] = arith.constant 0 : index
// CHECK:           %[[I0:.*]] = linalg.index 0 : index
// CHECK:           %[[IA0:.*]] = arith.select %[[CLAMP_A0]], %[[Z]], %[[I0]] : index
// CHECK:           %[[I1:.*]] = linalg.index 1 : index
// CHECK:           %[[IA1:.*]] = arith.select %[[CLAMP_A1]], %[[Z]], %[[I1]] : index
// CHECK:           %[[EA:.*]] = tensor.extract %[[A]][%[[IA0]], %[[IA1]]] : tensor<?x?xf32>
// CHECK:           %[[J0:.*]] = linalg.index 0 : index
// CHECK:           %[[IB0:.*]] = arith.select %[[CLAMP_B0]], %[[Z]], %[[J0]] : index
// CHECK:           %[[J1:.*]] = linalg.index 1 : index
// CHECK:           %[[IB1:.*]] = arith.select %[[CLAMP_B1]], %[[Z]], %[[J1]] : index
// CHECK:           %[[EB:.*]] = tensor.extract %[[B]][%[[IB0]], %[[IB1]]] : tensor<?x?xf32>
// CHECK:           %[[S:.*]] = arith.addf %[[EA]], %[[EB]] : f32
// CHECK:           linalg.yield %[[S]] : f32
// CHECK:         return %[[R]] : tensor<?x?xf32>
func.func @add_fully_dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = "onnx.Add"(%a, %b) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// The same value on both sides is provably equal: no check at all.
// CHECK-LABEL: func.func @mul_same_value
// CHECK-NOT:     onyx.assert
// CHECK-NOT:     tensor.extract
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:           arith.mulf
func.func @mul_same_value(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = "onnx.Mul"(%a, %a) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// A rank-0 operand broadcasts to every loop (empty map); Sub keeps the
// operand order.
// CHECK-LABEL: func.func @sub_scalar
// CHECK-SAME:    (%[[S:.*]]: tensor<f32>, %[[T:.*]]: tensor<2x3xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[S]], %[[T]] : tensor<f32>, tensor<2x3xf32>)
// CHECK:         ^bb0(%[[IN0:.*]]: f32, %[[IN1:.*]]: f32, %{{.*}}: f32):
// CHECK:           arith.subf %[[IN0]], %[[IN1]] : f32
func.func @sub_scalar(%s: tensor<f32>, %t: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "onnx.Sub"(%s, %t) : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Relu is max(x, 0): arith.maximumf for floats, arith.maxsi for integers.
// CHECK-LABEL: func.func @relu
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%[[X]] : tensor<2x3xf32>) outs(%[[INIT]] : tensor<2x3xf32>)
// CHECK:         ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           %[[M:.*]] = arith.maximumf %[[IN]], %[[ZERO]] : f32
// CHECK:           linalg.yield %[[M]] : f32
// CHECK:         return %[[R]]
func.func @relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "onnx.Relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @relu_int
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[IN:.*]]: i32, %{{.*}}: i32):
// CHECK:           %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:           arith.maxsi %[[IN]], %[[ZERO]] : i32
func.func @relu_int(%x: tensor<3xi32>) -> tensor<3xi32> {
  %0 = "onnx.Relu"(%x) : (tensor<3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// Sigmoid is 1 / (1 + exp(-x)).
// CHECK-LABEL: func.func @sigmoid
// CHECK-SAME:    (%[[X:.*]]: tensor<?x4xf32>)
// CHECK:         %[[INIT:.*]] = tensor.empty(%{{.*}}) : tensor<?x4xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[X]] : tensor<?x4xf32>) outs(%[[INIT]] : tensor<?x4xf32>)
// CHECK:         ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:           %[[NEG:.*]] = arith.negf %[[IN]] : f32
// CHECK:           %[[EXP:.*]] = math.exp %[[NEG]] : f32
// CHECK:           %[[DEN:.*]] = arith.addf %[[ONE]], %[[EXP]] : f32
// CHECK:           %[[Q:.*]] = arith.divf %[[ONE]], %[[DEN]] : f32
// CHECK:           linalg.yield %[[Q]] : f32
// CHECK:         return %[[R]] : tensor<?x4xf32>
func.func @sigmoid(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = "onnx.Sigmoid"(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// An unranked intermediate result takes the computed type; the next op's
// destination is sized from it.
// CHECK-LABEL: func.func @relu_then_sigmoid
// CHECK:         %[[R0:.*]] = linalg.generic
// CHECK:           arith.maximumf
// CHECK:         } -> tensor<?x4xf32>
// CHECK:         %[[R1:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[R0]] : tensor<?x4xf32>)
// CHECK:           math.exp
// CHECK:         return %[[R1]] : tensor<?x4xf32>
func.func @relu_then_sigmoid(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = "onnx.Relu"(%x) : (tensor<?x4xf32>) -> tensor<*xf32>
  %1 = "onnx.Sigmoid"(%0) : (tensor<*xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}


// -----

// Static extents that are neither equal nor 1 can never broadcast.
func.func @incompatible_static(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{incompatible broadcast dims 3 and 4 (output axis 1)}}
  %0 = "onnx.Add"(%a, %b) : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @sigmoid_int(%a: tensor<3xi32>) -> tensor<3xi32> {
  // expected-error @below {{expects a floating-point input, got 'i32'}}
  %0 = "onnx.Sigmoid"(%a) : (tensor<3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @unsupported(%a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @below {{operator TfIdfVectorizer is not supported by the CPU lowering yet}}
  %0 = "onnx.TfIdfVectorizer"(%a) {mode = "TF", min_gram_length = 1 : i64, max_gram_length = 1 : i64, max_skip_count = 0 : i64, ngram_counts = [0], ngram_indexes = [0]} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
