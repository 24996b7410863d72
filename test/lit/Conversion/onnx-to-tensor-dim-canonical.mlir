// RUN: onyx-opt %s --convert-onnx-to-tensor --cse | FileCheck %s
// RUN: onyx-opt %s --convert-onnx-to-tensor=use-dim-analysis=false --cse \
// RUN:   | FileCheck %s --check-prefix=NOANALYSIS
//
// Extents DimAnalysis proves equal become one SSA value: each tensor.dim the
// lowering of an op creates is replaced by the dim of the first graph input
// proven equal to it when the op runs. Here `x` and `y` share the symbol
// `batch`, so both Relu destinations, the Add (no run-time broadcast check)
// and the result are sized by x's dim 0 (one tensor.empty after CSE); the
// memory planner sees one size.

// CHECK-LABEL: func.func @main_graph(
// CHECK-SAME:      %[[X:.*]]: tensor<?x4xf32> {{.*}}, %[[Y:.*]]: tensor<?x4xf32>
// CHECK:         %[[B:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4xf32>
// CHECK-NOT:     tensor.dim
// CHECK-NOT:     onyx.assert
// CHECK:         tensor.empty(%[[B]])
// CHECK:         return

// Without the analysis y's own dim sizes its Relu and the Add checks the two
// extents at run time.
// NOANALYSIS-LABEL: func.func @main_graph(
// NOANALYSIS-DAG:   tensor.dim %arg0
// NOANALYSIS-DAG:   tensor.dim %arg1
// NOANALYSIS:       onyx.assert
func.func @main_graph(%arg0: tensor<?x4xf32> {onnx.dim_params = "0:batch", onnx.name = "x"}, %arg1: tensor<?x4xf32> {onnx.dim_params = "0:batch", onnx.name = "y"}) -> (tensor<?x4xf32> {onnx.dim_params = "0:batch", onnx.name = "z"}) {
  %0 = "onnx.Relu"(%arg0) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = "onnx.Relu"(%arg1) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %2 = "onnx.Add"(%0, %1) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %2 : tensor<?x4xf32>
}
