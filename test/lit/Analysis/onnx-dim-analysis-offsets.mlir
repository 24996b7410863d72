// RUN: onyx-opt %s --onnx-dim-analysis=trace=true -split-input-file \
// RUN:   -o /dev/null 2>&1 | FileCheck %s
//
// Offset relations `d1 + c1 == d2 + c2`, read from the trace that
// `trace=true` prints to stderr (the `-debug-only=dim-analysis` output of
// builds with LLVM assertions): each iteration's facts with the op and rule
// that proved them and their proof time (@i + 1 for the op at position i,
// @0 for the graph inputs, @late), the groups, then one relation per group
// related to an earlier one. A group is a set of dims
// with equal values, so x and x + 3 are two groups related by an offset.

// Concat with 3 static elements: %c[0] = %x[0] + 3.
// CHECK-LABEL: dim-analysis: iteration 1
// CHECK:         %{{.*}}[0] == %arg0[0] + 3  [onnx.Concat: sum along the axis @2]
// CHECK:       dim-analysis: iteration 2: 0 facts (fixed point)
// CHECK:       dim-analysis: groups (2)
// CHECK-NEXT:    group 0: %arg0[0]
// CHECK-NEXT:    group 1: %{{.*}}[0]
// CHECK:       dim-analysis: offset relations (1)
// CHECK-NEXT:    group 1 = group 0 + 3
func.func @concat(%x: tensor<?xf32>) -> tensor<?xf32> {
  %z = "onnx.Constant"() {value = dense<0.0> : tensor<3xf32>} : () -> tensor<3xf32>
  %c = "onnx.Concat"(%x, %z) {axis = 0 : i64} : (tensor<?xf32>, tensor<3xf32>) -> tensor<?xf32>
  return %c : tensor<?xf32>
}

// -----

// Pad [1, 0] before and [2, 0] after: dim 0 grows by 3, dim 1 is unchanged.
// CHECK-LABEL: dim-analysis: groups (3)
// CHECK-NEXT:    group 0: %arg0[0]
// CHECK-NEXT:    group 1: %arg0[1], %{{.*}}[1]
// CHECK-NEXT:    group 2: %{{.*}}[0]
// CHECK:       dim-analysis: offset relations (1)
// CHECK-NEXT:    group 2 = group 0 + 3
func.func @pad(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %pads = "onnx.Constant"() {value = dense<[1, 0, 2, 0]> : tensor<4xi64>} : () -> tensor<4xi64>
  %none = onnx.NoValue
  %0 = "onnx.Pad"(%x, %pads, %none, %none) : (tensor<?x?xf32>, tensor<4xi64>, none, none) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Slice [1:-1] of %p = Pad(%x, 2, 2): %p[0] = %x[0] + 4 >= 4, so the slice
// does not clamp and has %p[0] - 2 = %x[0] + 2 elements.
// CHECK-LABEL: dim-analysis: groups (3)
// CHECK-NEXT:    group 0: %arg0[0]
// CHECK-NEXT:    group 1: %{{.*}}[0]
// CHECK-NEXT:    group 2: %{{.*}}[0]
// CHECK:       dim-analysis: offset relations (2)
// CHECK-NEXT:    group 1 = group 0 + 4
// CHECK-NEXT:    group 2 = group 0 + 2
func.func @slice(%x: tensor<?xf32>) -> tensor<?xf32> {
  %pads = "onnx.Constant"() {value = dense<[2, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %none = onnx.NoValue
  %p = "onnx.Pad"(%x, %pads, %none, %none) : (tensor<?xf32>, tensor<2xi64>, none, none) -> tensor<?xf32>
  %starts = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %ends = "onnx.Constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %s = "onnx.Slice"(%p, %starts, %ends, %none, %none) : (tensor<?xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// The same Slice [1:] of an argument proves nothing: %x[0] may be 0, and
// then the slice is empty, not -1 long.
// CHECK-LABEL: dim-analysis: groups (2)
// CHECK:       dim-analysis: offset relations (0)
func.func @slice_may_clamp(%x: tensor<?xf32>) -> tensor<?xf32> {
  %none = onnx.NoValue
  %starts = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %ends = "onnx.Constant"() {value = dense<[9223372036854775807]> : tensor<1xi64>} : () -> tensor<1xi64>
  %s = "onnx.Slice"(%x, %starts, %ends, %none, %none) : (tensor<?xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// Add of a constant to a Shape value: ConstantOfShape(Shape(%x)[0] + 1).
// CHECK-LABEL: dim-analysis: groups (2)
// CHECK:       dim-analysis: offset relations (1)
// CHECK-NEXT:    group 1 = group 0 + 1
func.func @shape_plus_one(%x: tensor<?xf32>) -> tensor<?xf32> {
  %s = "onnx.Shape"(%x) : (tensor<?xf32>) -> tensor<1xi64>
  %one = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %n = "onnx.Add"(%s, %one) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %y = "onnx.ConstantOfShape"(%n) : (tensor<1xi64>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}
