// RUN: onyx-opt %s -split-input-file -verify-diagnostics
//
// The verifiers of the onnx dialect: dim_params format, operand and
// attribute constraints of generated ops, and the hand-written ops.

// dim_params names an axis the argument does not have.
// expected-error @+1 {{'onnx.dim_params' on argument #0 names axis 2 ('seq') but the type 'tensor<?x3xf32>' has rank 2}}
func.func @dim_params_axis_out_of_range(%x: tensor<?x3xf32> {onnx.dim_params = "0:batch,2:seq"}) {
  return
}

// -----

// An entry without "<axis>:".
// expected-error @+1 {{'onnx.dim_params' on argument #0 entry 'batch' is not '<axis>:<name>'}}
func.func @dim_params_no_axis(%x: tensor<?xf32> {onnx.dim_params = "batch"}) {
  return
}

// -----

// The same axis named twice.
// expected-error @+1 {{'onnx.dim_params' on argument #0 axis 0 appears twice}}
func.func @dim_params_duplicate(%x: tensor<?xf32> {onnx.dim_params = "0:a,0:b"}) {
  return
}

// -----

// Negative axes are not allowed.
// expected-error @+1 {{'onnx.dim_params' on argument #0 entry '-1:a' has an invalid axis '-1'}}
func.func @dim_params_negative(%x: tensor<?xf32> {onnx.dim_params = "-1:a"}) {
  return
}

// -----

// Results are checked too, also on declarations.
// expected-error @+1 {{'onnx.dim_params' on result #0 names axis 1 ('n') but the type 'tensor<?xf32>' has rank 1}}
func.func private @dim_params_result() -> (tensor<?xf32> {onnx.dim_params = "1:n"})

// -----

// The attribute must be a string.
// expected-error @+1 {{'onnx.dim_params' on argument #0 must be a string}}
func.func @dim_params_not_string(%x: tensor<?xf32> {onnx.dim_params = 0 : i64}) {
  return
}

// -----

// A required input cannot be `none`.
func.func @none_for_required(%b: tensor<3x4xf32>) {
  %none = onnx.NoValue
  // expected-error @+1 {{'onnx.Gemm' op operand #0 must be tensor of any type values, but got 'none'}}
  %0 = "onnx.Gemm"(%none, %b, %none) : (none, tensor<3x4xf32>, none) -> tensor<2x4xf32>
  return
}

// -----

// A required attribute (Cast's `to`) is missing.
func.func @missing_required_attr(%x: tensor<2xf32>) {
  // expected-error @+1 {{'onnx.Cast' op requires attribute 'to'}}
  %0 = "onnx.Cast"(%x) : (tensor<2xf32>) -> tensor<2xi64>
  return
}

// -----

// INT attributes are signless i64.
func.func @wrong_attr_type(%x: tensor<2xf32>) {
  // expected-error @+1 {{'onnx.Cast' op attribute 'to' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = "onnx.Cast"(%x) {to = 7 : si64} : (tensor<2xf32>) -> tensor<2xi64>
  return
}

// -----

// onnx.Yield only terminates subgraph regions.
func.func @yield_outside_subgraph(%x: tensor<2xf32>) {
  // expected-error @+1 {{'onnx.Yield' op expects parent op to be one of 'onnx.If, onnx.Loop, onnx.Scan, onnx.SequenceMap'}}
  onnx.Yield %x : tensor<2xf32>
}

// -----

// DimGroup's axis must exist.
func.func @dim_group_axis(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{'onnx.DimGroup' op axis 2 is out of range for 'tensor<?x3xf32>'}}
  "onnx.DimGroup"(%x) {axis = 2 : i64, group_id = 0 : i64} : (tensor<?x3xf32>) -> ()
  return
}

// -----

// Optional's `type` attribute is kept out of ODS but still checked.
func.func @optional_type_attr() {
  %none = onnx.NoValue
  // expected-error @+1 {{'onnx.Optional' op attribute 'type' must be a TypeAttr}}
  %0 = "onnx.Optional"(%none) {type = 1 : i64} : (none) -> !onnx.Opt<tensor<f32>>
  return
}

// -----

// An If branch is one block.
func.func @if_region_count(%c: tensor<i1>) {
  // expected-error @+1 {{'onnx.If' op expected 2 regions}}
  "onnx.If"(%c) ({
    onnx.Yield
  }) : (tensor<i1>) -> ()
  return
}
