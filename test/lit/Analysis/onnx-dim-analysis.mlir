// RUN: onyx-opt %s --onnx-dim-analysis -split-input-file | FileCheck %s
//
// --onnx-dim-analysis inserts "onnx.DimGroup"(%v) {axis, group_id} after the
// definition of every dynamic dim (block arguments: at the top of the entry
// block). Dims sharing a group_id are proven equal at run time. Group ids
// are dense and assigned in program order (arguments first), so the ids
// below are exact.

// The seed's worked example: Sigmoid keeps both dynamic dims.
// CHECK-LABEL: func.func @sigmoid
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 2 : i64, group_id = 1 : i64}>
// CHECK-NEXT:    %[[S:.*]] = "onnx.Sigmoid"(%arg0)
// CHECK-NEXT:    "onnx.DimGroup"(%[[S]]) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%[[S]]) <{axis = 2 : i64, group_id = 1 : i64}>
// CHECK-NEXT:    return %[[S]]
func.func @sigmoid(%arg0: tensor<?x3x?xf32>) -> tensor<?x3x?xf32> {
  %0 = "onnx.Sigmoid"(%arg0) : (tensor<?x3x?xf32>) -> tensor<?x3x?xf32>
  return %0 : tensor<?x3x?xf32>
}

// -----

// dim_params: the arguments' "batch" dims are one group from the start;
// "seq" and the unnamed dim of %y are their own. The result's "batch" names
// the same symbol, so the returned dim, and through Relu %z's, join too.
// CHECK-LABEL: func.func @dim_params
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 1 : i64, group_id = 1 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg1) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg1) <{axis = 1 : i64, group_id = 2 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg2) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    %[[R:.*]] = "onnx.Relu"(%arg2)
// CHECK-NEXT:    "onnx.DimGroup"(%[[R]]) <{axis = 0 : i64, group_id = 0 : i64}>
func.func @dim_params(%x: tensor<?x?xf32> {onnx.dim_params = "0:batch,1:seq"},
                      %y: tensor<?x?xf32> {onnx.dim_params = "0:batch"},
                      %z: tensor<?xf32>)
    -> (tensor<?xf32> {onnx.dim_params = "0:batch"}) {
  %0 = "onnx.Relu"(%z) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// MatMul: the contraction dims are equal (the op requires it), rows come
// from A and columns from B.
// CHECK-LABEL: func.func @matmul
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 1 : i64, group_id = 1 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg1) <{axis = 0 : i64, group_id = 1 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg1) <{axis = 1 : i64, group_id = 2 : i64}>
// CHECK-NEXT:    %[[M:.*]] = "onnx.MatMul"
// CHECK-NEXT:    "onnx.DimGroup"(%[[M]]) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%[[M]]) <{axis = 1 : i64, group_id = 2 : i64}>
func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Batched MatMul with a vector right operand: batch dims broadcast (equal
// here), the contraction is A's last dim against the vector.
// CHECK-LABEL: func.func @batched_matvec
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 1 : i64, group_id = 1 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 2 : i64, group_id = 2 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg1) <{axis = 0 : i64, group_id = 2 : i64}>
// CHECK-NEXT:    %[[M:.*]] = "onnx.MatMul"
// CHECK-NEXT:    "onnx.DimGroup"(%[[M]]) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%[[M]]) <{axis = 1 : i64, group_id = 1 : i64}>
func.func @batched_matvec(%a: tensor<?x?x?xf32>, %v: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = "onnx.MatMul"(%a, %v) : (tensor<?x?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// An unsound-looking broadcast: %a and %b are unrelated, and either may be
// 1 at run time (then the other is the result). Nothing is merged: three
// groups.
// CHECK-LABEL: func.func @broadcast_unrelated
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg1) <{axis = 0 : i64, group_id = 1 : i64}>
// CHECK-NEXT:    %[[S:.*]] = "onnx.Add"
// CHECK-NEXT:    "onnx.DimGroup"(%[[S]]) <{axis = 0 : i64, group_id = 2 : i64}>
func.func @broadcast_unrelated(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "onnx.Add"(%a, %b) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// The same Add once the operands are known equal (through Relu), and
// against a static 1: the result dim is the operand's.
// CHECK-LABEL: func.func @broadcast_proven
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 1 : i64, group_id = 1 : i64}>
// CHECK-NEXT:    %[[R:.*]] = "onnx.Relu"
// CHECK-NEXT:    "onnx.DimGroup"(%[[R]]) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%[[R]]) <{axis = 1 : i64, group_id = 1 : i64}>
// CHECK-NEXT:    %[[S:.*]] = "onnx.Add"
// CHECK-NEXT:    "onnx.DimGroup"(%[[S]]) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%[[S]]) <{axis = 1 : i64, group_id = 1 : i64}>
// CHECK-NEXT:    %[[T:.*]] = "onnx.Mul"
// CHECK-NEXT:    "onnx.DimGroup"(%[[T]]) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%[[T]]) <{axis = 1 : i64, group_id = 1 : i64}>
func.func @broadcast_proven(%x: tensor<?x?xf32>, %one: tensor<1x1xf32>) -> tensor<?x?xf32> {
  %0 = "onnx.Relu"(%x) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = "onnx.Add"(%x, %0) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %2 = "onnx.Mul"(%1, %one) : (tensor<?x?xf32>, tensor<1x1xf32>) -> tensor<?x?xf32>
  return %2 : tensor<?x?xf32>
}

// -----

// A dim that cannot be 1 decides a broadcast: %p = Concat(%a, 2 zeros) has
// %a[0] + 2 >= 2 elements, so Add(%p, %b) has %p's extent; %b[0] may still
// be 1 and stays alone.
// CHECK-LABEL: func.func @broadcast_not_one
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg1) <{axis = 0 : i64, group_id = 1 : i64}>
// CHECK:         %[[P:.*]] = "onnx.Concat"
// CHECK-NEXT:    "onnx.DimGroup"(%[[P]]) <{axis = 0 : i64, group_id = 2 : i64}>
// CHECK-NEXT:    %[[S:.*]] = "onnx.Add"
// CHECK-NEXT:    "onnx.DimGroup"(%[[S]]) <{axis = 0 : i64, group_id = 2 : i64}>
func.func @broadcast_not_one(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %z = "onnx.Constant"() {value = dense<0.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %p = "onnx.Concat"(%a, %z) {axis = 0 : i64} : (tensor<?xf32>, tensor<2xf32>) -> tensor<?xf32>
  %0 = "onnx.Add"(%p, %b) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Dims untouched by Transpose, Unsqueeze, Squeeze, Softmax, and Reshape with
// a constant shape: 0 copies the input dim, and the -1 is the one dynamic
// input dim when the static factors agree (?x768 -> [-1, 12, 64]).
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 1 : i64, group_id = 1 : i64}>
// CHECK:         %[[T:.*]] = "onnx.Transpose"
// CHECK-NEXT:    "onnx.DimGroup"(%[[T]]) <{axis = 1 : i64, group_id = 1 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%[[T]]) <{axis = 2 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    %[[U:.*]] = "onnx.Unsqueeze"
// CHECK-NEXT:    "onnx.DimGroup"(%[[U]]) <{axis = 2 : i64, group_id = 1 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%[[U]]) <{axis = 3 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    %[[Q:.*]] = "onnx.Squeeze"
// CHECK-NEXT:    "onnx.DimGroup"(%[[Q]]) <{axis = 1 : i64, group_id = 1 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%[[Q]]) <{axis = 2 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    %[[S:.*]] = "onnx.Softmax"
// CHECK-NEXT:    "onnx.DimGroup"(%[[S]]) <{axis = 1 : i64, group_id = 1 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%[[S]]) <{axis = 2 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    %[[R:.*]] = "onnx.Reshape"
// CHECK-NEXT:    "onnx.DimGroup"(%[[R]]) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%[[R]]) <{axis = 1 : i64, group_id = 1 : i64}>
// CHECK-NEXT:    %[[F:.*]] = "onnx.Reshape"
// CHECK-NEXT:    "onnx.DimGroup"(%[[F]]) <{axis = 0 : i64, group_id = 2 : i64}>
// CHECK-NEXT:    %[[G:.*]] = "onnx.Reshape"
// CHECK-NEXT:    "onnx.DimGroup"(%[[G]]) <{axis = 0 : i64, group_id = 2 : i64}>
func.func @untouched(%x: tensor<?x?x768xf32>) -> tensor<?x12x64xf32> {
  %ax = "onnx.Constant"() {value = dense<[0, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  %sq = "onnx.Constant"() {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %shape = "onnx.Constant"() {value = dense<[0, 0, 12, 64]> : tensor<4xi64>} : () -> tensor<4xi64>
  %flat = "onnx.Constant"() {value = dense<[-1, 768]> : tensor<2xi64>} : () -> tensor<2xi64>
  %heads = "onnx.Constant"() {value = dense<[-1, 12, 64]> : tensor<3xi64>} : () -> tensor<3xi64>
  %0 = "onnx.Transpose"(%x) {perm = [2, 1, 0]} : (tensor<?x?x768xf32>) -> tensor<768x?x?xf32>
  %1 = "onnx.Unsqueeze"(%0, %ax) : (tensor<768x?x?xf32>, tensor<2xi64>) -> tensor<1x768x?x?x1xf32>
  %2 = "onnx.Squeeze"(%1, %sq) : (tensor<1x768x?x?x1xf32>, tensor<1xi64>) -> tensor<768x?x?x1xf32>
  %3 = "onnx.Softmax"(%2) {axis = -1 : i64} : (tensor<768x?x?x1xf32>) -> tensor<768x?x?x1xf32>
  %4 = "onnx.Reshape"(%x, %shape) : (tensor<?x?x768xf32>, tensor<4xi64>) -> tensor<?x?x12x64xf32>
  %5 = "onnx.Reshape"(%4, %flat) : (tensor<?x?x12x64xf32>, tensor<2xi64>) -> tensor<?x768xf32>
  %6 = "onnx.Reshape"(%5, %heads) : (tensor<?x768xf32>, tensor<3xi64>) -> tensor<?x12x64xf32>
  return %6 : tensor<?x12x64xf32>
}

// -----

// A shape built at run time: Reshape(%y, Concat(Shape(%x)[0], Shape(%x)[1],
// 12, 64)) gives %y's leading dims %x's; they are %y's own (Relu of %x), so
// no entry can be a 0 that copies something else.
// CHECK-LABEL: func.func @shape_built
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 1 : i64, group_id = 1 : i64}>
// CHECK:         %[[R:.*]] = "onnx.Reshape"
// CHECK-NEXT:    "onnx.DimGroup"(%[[R]]) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%[[R]]) <{axis = 1 : i64, group_id = 1 : i64}>
func.func @shape_built(%x: tensor<?x?x768xf32>) -> tensor<?x?x12x64xf32> {
  %y = "onnx.Relu"(%x) : (tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
  %s = "onnx.Shape"(%x) : (tensor<?x?x768xf32>) -> tensor<3xi64>
  %i0 = "onnx.Constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %i1 = "onnx.Constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %ax = "onnx.Constant"() {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %b = "onnx.Gather"(%s, %i0) {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %t = "onnx.Gather"(%s, %i1) {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %b1 = "onnx.Unsqueeze"(%b, %ax) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %t1 = "onnx.Unsqueeze"(%t, %ax) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %tail = "onnx.Constant"() {value = dense<[12, 64]> : tensor<2xi64>} : () -> tensor<2xi64>
  %shape = "onnx.Concat"(%b1, %t1, %tail) {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<2xi64>) -> tensor<4xi64>
  %0 = "onnx.Reshape"(%y, %shape) : (tensor<?x?x768xf32>, tensor<4xi64>) -> tensor<?x?x12x64xf32>
  return %0 : tensor<?x?x12x64xf32>
}

// -----

// Concat and Slice relate the other axes; Gemm's M and N come from A and B.
// CHECK-LABEL: func.func @other_axes
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 1 : i64, group_id = 1 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg1) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg1) <{axis = 1 : i64, group_id = 2 : i64}>
// CHECK-NEXT:    %[[C:.*]] = "onnx.Concat"
// CHECK-NEXT:    "onnx.DimGroup"(%[[C]]) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%[[C]]) <{axis = 1 : i64, group_id = 3 : i64}>
// CHECK:         %[[S:.*]] = "onnx.Slice"
// CHECK-NEXT:    "onnx.DimGroup"(%[[S]]) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%[[S]]) <{axis = 1 : i64, group_id = 4 : i64}>
// CHECK-NEXT:    %[[G:.*]] = "onnx.Gemm"
// CHECK-NEXT:    "onnx.DimGroup"(%[[G]]) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%[[G]]) <{axis = 1 : i64, group_id = 0 : i64}>
func.func @other_axes(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // Concat along 1 requires %a[0] == %b[0].
  %0 = "onnx.Concat"(%a, %b) {axis = 1 : i64} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %starts = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %ends = "onnx.Constant"() {value = dense<[5]> : tensor<1xi64>} : () -> tensor<1xi64>
  %axes = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = onnx.NoValue
  %1 = "onnx.Slice"(%0, %starts, %ends, %axes, %none) : (tensor<?x?xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<?x?xf32>
  // Y = %1 * %1^T: M = %1[0], N = %1[0].
  %2 = "onnx.Gemm"(%1, %1, %none) {transB = 1 : i64} : (tensor<?x?xf32>, tensor<?x?xf32>, none) -> tensor<?x?xf32>
  return %2 : tensor<?x?xf32>
}

// -----

// Nothing else changes: no dynamic dims, no annotations.
// CHECK-LABEL: func.func @static
// CHECK-NEXT:    %[[R:.*]] = "onnx.Relu"
// CHECK-NEXT:    return %[[R]]
func.func @static(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "onnx.Relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// The exported-model idiom Expand(%x, Where(Equal(shape, -1), 1, shape)):
// a dim is never -1, so the Where picks the shape, and the Expand of a
// 1 x seq tensor to [batch, seq] has %ids's dims.
// CHECK-LABEL: func.func @expand_where
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 1 : i64, group_id = 1 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%arg1) <{axis = 1 : i64, group_id = 1 : i64}>
// CHECK:         %[[E:.*]] = "onnx.Expand"
// CHECK-NEXT:    "onnx.DimGroup"(%[[E]]) <{axis = 0 : i64, group_id = 0 : i64}>
// CHECK-NEXT:    "onnx.DimGroup"(%[[E]]) <{axis = 1 : i64, group_id = 1 : i64}>
func.func @expand_where(%ids: tensor<?x?xi64> {onnx.dim_params = "0:batch,1:seq"},
                        %pos: tensor<1x?xi64> {onnx.dim_params = "1:seq"}) -> tensor<?x?xi64> {
  %s = "onnx.Shape"(%ids) : (tensor<?x?xi64>) -> tensor<2xi64>
  %m1 = "onnx.Constant"() {value = dense<-1> : tensor<2xi64>} : () -> tensor<2xi64>
  %ones = "onnx.Constant"() {value = dense<1> : tensor<2xi64>} : () -> tensor<2xi64>
  %eq = "onnx.Equal"(%s, %m1) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi1>
  %shape = "onnx.Where"(%eq, %ones, %s) : (tensor<2xi1>, tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %0 = "onnx.Expand"(%pos, %shape) : (tensor<1x?xi64>, tensor<2xi64>) -> tensor<?x?xi64>
  return %0 : tensor<?x?xi64>
}
