// RUN: onyx-opt %s -split-input-file | FileCheck %s
// RUN: onyx-opt %s -split-input-file -mlir-print-op-generic | onyx-opt -split-input-file | FileCheck %s
//
// Round trip of onnx dialect ops written in generic form, as the importer and
// the DESIGN contract produce them. The second RUN line checks that the
// generic output parses back to the same IR.

// A plain unary op with a dynamic dimension.
// CHECK-LABEL: func.func @sigmoid
// CHECK: %[[R:.*]] = "onnx.Sigmoid"(%arg0) : (tensor<?x3xf32>) -> tensor<?x3xf32>
// CHECK: return %[[R]]
func.func @sigmoid(%arg0: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = "onnx.Sigmoid"(%arg0) : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Attributes keep their ONNX names; the ones the node leaves out get the
// schema default on creation (beta = 1.0, transA = 0), so every attribute is
// explicit in printed IR. The absent bias C is a `none` from onnx.NoValue.
// CHECK-LABEL: func.func @gemm
// CHECK: %[[NONE:.*]] = onnx.NoValue
// CHECK: "onnx.Gemm"(%arg0, %arg1, %[[NONE]]) <{alpha = 5.000000e-01 : f32, beta = 1.000000e+00 : f32, transA = 0 : i64, transB = 1 : i64}> : (tensor<2x3xf32>, tensor<4x3xf32>, none) -> tensor<2x4xf32>
func.func @gemm(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<2x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Gemm"(%a, %b, %none) {alpha = 0.5 : f32, transB = 1 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>, none) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// String, int-list and optional attributes.
// CHECK-LABEL: func.func @conv
// CHECK: "onnx.Conv"(%arg0, %arg1, %arg2) <{auto_pad = "SAME_UPPER", group = 1 : i64, kernel_shape = [3, 3], strides = [1, 1]}>
func.func @conv(%x: tensor<1x3x?x?xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x?x?xf32> {
  %0 = "onnx.Conv"(%x, %w, %b) {auto_pad = "SAME_UPPER", kernel_shape = [3, 3], strides = [1, 1]} : (tensor<1x3x?x?xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x?x?xf32>
  return %0 : tensor<1x8x?x?xf32>
}

// -----

// Variadic input (Concat) and variadic results (Split with its optional
// `split` input absent).
// CHECK-LABEL: func.func @variadic
// CHECK: "onnx.Concat"(%arg0, %arg1, %arg0) <{axis = 1 : i64}> : (tensor<2x3xf32>, tensor<2x?xf32>, tensor<2x3xf32>) -> tensor<2x?xf32>
// CHECK: "onnx.Split"(%{{.*}}, %{{.*}}) <{axis = 1 : i64}> : (tensor<2x?xf32>, none) -> (tensor<2x?xf32>, tensor<2x?xf32>)
func.func @variadic(%a: tensor<2x3xf32>, %b: tensor<2x?xf32>) -> (tensor<2x?xf32>, tensor<2x?xf32>) {
  %0 = "onnx.Concat"(%a, %b, %a) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x?xf32>, tensor<2x3xf32>) -> tensor<2x?xf32>
  %none = onnx.NoValue
  %1:2 = "onnx.Split"(%0, %none) {axis = 1 : i64} : (tensor<2x?xf32>, none) -> (tensor<2x?xf32>, tensor<2x?xf32>)
  return %1#0, %1#1 : tensor<2x?xf32>, tensor<2x?xf32>
}

// -----

// Graph attributes are regions, in then/else order, ending in onnx.Yield;
// bodies may use values of the enclosing function (%arg1).
// CHECK-LABEL: func.func @if
// CHECK: "onnx.If"(%arg0) ({
// CHECK-NEXT:   onnx.Yield %arg1 : tensor<?xf32>
// CHECK-NEXT: }, {
// CHECK-NEXT:   %[[N:.*]] = "onnx.Neg"(%arg1)
// CHECK-NEXT:   onnx.Yield %[[N]] : tensor<?xf32>
// CHECK-NEXT: }) : (tensor<i1>) -> tensor<?xf32>
func.func @if(%c: tensor<i1>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "onnx.If"(%c) ({
    "onnx.Yield"(%x) : (tensor<?xf32>) -> ()
  }, {
    %n = "onnx.Neg"(%x) : (tensor<?xf32>) -> tensor<?xf32>
    "onnx.Yield"(%n) : (tensor<?xf32>) -> ()
  }) : (tensor<i1>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Loop: optional M and cond are operands (here M is absent), the body takes
// (iteration, cond, carried...) and yields (cond, carried...).
// CHECK-LABEL: func.func @loop
// CHECK: "onnx.Loop"(%{{.*}}, %arg0, %arg1) ({
// CHECK: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<i1>, %{{.*}}: tensor<f32>):
// CHECK: onnx.Yield %{{.*}}, %{{.*}} : tensor<i1>, tensor<f32>
// CHECK: }) : (none, tensor<i1>, tensor<f32>) -> tensor<f32>
func.func @loop(%cond: tensor<i1>, %init: tensor<f32>) -> tensor<f32> {
  %none = onnx.NoValue
  %0 = "onnx.Loop"(%none, %cond, %init) ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<f32>):
    %v2 = "onnx.Add"(%v, %v) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    onnx.Yield %c, %v2 : tensor<i1>, tensor<f32>
  }) : (none, tensor<i1>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Initializers are dense resources, never parsed into big attributes; the
// TENSOR attribute `value` accepts them.
// CHECK-LABEL: func.func @constant
// CHECK: "onnx.Constant"() <{value = dense_resource<w0> : tensor<2xf32>}> : () -> tensor<2xf32>
func.func @constant() -> tensor<2xf32> {
  %0 = "onnx.Constant"() {value = dense_resource<w0> : tensor<2xf32>} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F00000040"
    }
  }
#-}

// -----

// Sequence and optional values have their own types.
// CHECK-LABEL: func.func @seq_and_opt
// CHECK: "onnx.SequenceConstruct"(%arg0, %arg0) : (tensor<?xf32>, tensor<?xf32>) -> !onnx.Seq<tensor<?xf32>>
// CHECK: "onnx.SequenceLength"(%{{.*}}) : (!onnx.Seq<tensor<?xf32>>) -> tensor<i64>
// CHECK: "onnx.Optional"(%arg0) : (tensor<?xf32>) -> !onnx.Opt<tensor<?xf32>>
// CHECK: "onnx.Optional"(%{{.*}}) {type = tensor<f32>} : (none) -> !onnx.Opt<tensor<f32>>
func.func @seq_and_opt(%x: tensor<?xf32>) -> (tensor<i64>, !onnx.Opt<tensor<?xf32>>, !onnx.Opt<tensor<f32>>) {
  %s = "onnx.SequenceConstruct"(%x, %x) : (tensor<?xf32>, tensor<?xf32>) -> !onnx.Seq<tensor<?xf32>>
  %n = "onnx.SequenceLength"(%s) : (!onnx.Seq<tensor<?xf32>>) -> tensor<i64>
  %o = "onnx.Optional"(%x) : (tensor<?xf32>) -> !onnx.Opt<tensor<?xf32>>
  %none = onnx.NoValue
  %e = "onnx.Optional"(%none) {type = tensor<f32>} : (none) -> !onnx.Opt<tensor<f32>>
  return %n, %o, %e : tensor<i64>, !onnx.Opt<tensor<?xf32>>, !onnx.Opt<tensor<f32>>
}

// -----

// Symbolic dims on arguments and results, and the DimAnalysis annotation.
// CHECK-LABEL: func.func @dim_params
// CHECK-SAME: (%arg0: tensor<?x?xf32> {onnx.dim_params = "0:batch,1:seq"}) -> (tensor<?x?xf32> {onnx.dim_params = "0:batch,1:seq"})
// CHECK: "onnx.DimGroup"(%arg0) <{axis = 0 : i64, group_id = 1 : i64}> : (tensor<?x?xf32>) -> ()
func.func @dim_params(%x: tensor<?x?xf32> {onnx.dim_params = "0:batch,1:seq"}) -> (tensor<?x?xf32> {onnx.dim_params = "0:batch,1:seq"}) {
  "onnx.DimGroup"(%x) {axis = 0 : i64, group_id = 1 : i64} : (tensor<?x?xf32>) -> ()
  return %x : tensor<?x?xf32>
}
