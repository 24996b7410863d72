// RUN: onyx-opt %s --onnx-dim-analysis=trace=true -split-input-file \
// RUN:   -o /dev/null 2>&1 | FileCheck %s
//
// Products of symbolic dims (lib/Analysis/ShapeArithmetic.cpp): shape-value
// arithmetic is value-numbered (the same product of the same sets is one
// node, whatever the order of the factors), a Reshape entry that is such a
// product is the result dim when a 0 there would copy an input dim that is
// then 0 too, and a Reshape's element count relates a result dim to the
// product of the input dims over its companions. Products that are not
// provably equal stay apart. Read from the trace's final groups.

// Two Reshapes to [seq, batch * 4, 16], the products computed by two Mul ops
// (operands swapped), on two inputs that share the symbols: one group per
// axis. A 0 entry (batch == 0) would copy the input's batch dim, also 0.
// CHECK-LABEL: dim-analysis: 14 ops
// CHECK:       dim-analysis: groups (3)
// CHECK-NEXT:    group 0: %arg0[0], %arg1[0], %{{.*}}[0], %{{.*}}[0]
// CHECK-NEXT:    group 1: %arg0[1], %arg1[1]
// CHECK-NEXT:    group 2: %[[R1:.*]][1], %[[R2:.*]][1]
// CHECK-NOT:   group 3
func.func @same_product(%x: tensor<?x?x64xf32> {onnx.dim_params = "0:seq,1:batch"},
                        %y: tensor<?x?x64xf32> {onnx.dim_params = "0:seq,1:batch"})
    -> (tensor<?x?x16xf32>, tensor<?x?x16xf32>) {
  %s = "onnx.Shape"(%x) {start = 0 : i64} : (tensor<?x?x64xf32>) -> tensor<3xi64>
  %i0 = "onnx.Constant"() {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %i1 = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %c4 = "onnx.Constant"() {value = dense<[4]> : tensor<1xi64>} : () -> tensor<1xi64>
  %c16 = "onnx.Constant"() {value = dense<[16]> : tensor<1xi64>} : () -> tensor<1xi64>
  %seq = "onnx.Gather"(%s, %i0) {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %b = "onnx.Gather"(%s, %i1) {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %bh1 = "onnx.Mul"(%b, %c4) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %bh2 = "onnx.Mul"(%c4, %b) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %t1 = "onnx.Concat"(%seq, %bh1, %c16) {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %t2 = "onnx.Concat"(%seq, %bh2, %c16) {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %r1 = "onnx.Reshape"(%x, %t1) : (tensor<?x?x64xf32>, tensor<3xi64>) -> tensor<?x?x16xf32>
  %r2 = "onnx.Reshape"(%y, %t2) : (tensor<?x?x64xf32>, tensor<3xi64>) -> tensor<?x?x16xf32>
  return %r1, %r2 : tensor<?x?x16xf32>, tensor<?x?x16xf32>
}

// -----

// The same target on an input whose dims are unrelated: a 0 entry would
// copy %y's dims, which need not be 0, so nothing is proven for %r2.
// CHECK-LABEL: dim-analysis: 12 ops
// CHECK:       dim-analysis: groups (7)
// CHECK-NEXT:    group 0: %arg0[0], %[[R1:.*]][0]
// CHECK-NEXT:    group 1: %arg0[1]
// CHECK-NEXT:    group 2: %arg1[0]
// CHECK-NEXT:    group 3: %arg1[1]
// CHECK-NEXT:    group 4: %[[R1]][1]
// CHECK-NEXT:    group 5: %{{.*}}[0]
// CHECK-NEXT:    group 6: %{{.*}}[1]
func.func @unrelated_input(%x: tensor<?x?x64xf32>, %y: tensor<?x?x64xf32>)
    -> (tensor<?x?x16xf32>, tensor<?x?x16xf32>) {
  %s = "onnx.Shape"(%x) {start = 0 : i64} : (tensor<?x?x64xf32>) -> tensor<3xi64>
  %i0 = "onnx.Constant"() {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %i1 = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %c4 = "onnx.Constant"() {value = dense<[4]> : tensor<1xi64>} : () -> tensor<1xi64>
  %c16 = "onnx.Constant"() {value = dense<[16]> : tensor<1xi64>} : () -> tensor<1xi64>
  %seq = "onnx.Gather"(%s, %i0) {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %b = "onnx.Gather"(%s, %i1) {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %bh = "onnx.Mul"(%b, %c4) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %t = "onnx.Concat"(%seq, %bh, %c16) {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %r1 = "onnx.Reshape"(%x, %t) : (tensor<?x?x64xf32>, tensor<3xi64>) -> tensor<?x?x16xf32>
  %r2 = "onnx.Reshape"(%y, %t) : (tensor<?x?x64xf32>, tensor<3xi64>) -> tensor<?x?x16xf32>
  return %r1, %r2 : tensor<?x?x16xf32>, tensor<?x?x16xf32>
}

// -----

// MultiheadAttention's merge of heads: [seq, batch * 4, 16] to
// [seq * batch, 64] (element count: the result dim is seq * batch, the
// product the Mul computes), then back to [seq, batch, 64]. There, the seq
// entry is the result dim (seq == 0 makes seq * batch, the dim a 0 would
// copy, 0 too) but the batch entry is NOT: with batch == seq == 0 it copies
// the input's 64. So %back[1] stays apart from batch.
// CHECK-LABEL: dim-analysis: 17 ops
// CHECK:         %[[M:.*]][0] == %[[P:.*]]<0>  [onnx.Reshape: element count @{{[0-9]+}}]
// CHECK:       dim-analysis: groups (5)
// CHECK-NEXT:    group 0: %arg0[0], %{{.*}}[0], %[[BACK:.*]][0]
// CHECK-NEXT:    group 1: %arg0[1]
// CHECK-NEXT:    group 2: %{{.*}}[1]
// CHECK-NEXT:    group 3: %[[M]][0]
// CHECK-NEXT:    group 4: %[[BACK]][1]
func.func @merge_heads(%x: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %s = "onnx.Shape"(%x) {start = 0 : i64} : (tensor<?x?x64xf32>) -> tensor<3xi64>
  %i0 = "onnx.Constant"() {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %i1 = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %c4 = "onnx.Constant"() {value = dense<[4]> : tensor<1xi64>} : () -> tensor<1xi64>
  %c16 = "onnx.Constant"() {value = dense<[16]> : tensor<1xi64>} : () -> tensor<1xi64>
  %c64 = "onnx.Constant"() {value = dense<[64]> : tensor<1xi64>} : () -> tensor<1xi64>
  %seq = "onnx.Gather"(%s, %i0) {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %b = "onnx.Gather"(%s, %i1) {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %bh = "onnx.Mul"(%b, %c4) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %t = "onnx.Concat"(%seq, %bh, %c16) {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %heads = "onnx.Reshape"(%x, %t) : (tensor<?x?x64xf32>, tensor<3xi64>) -> tensor<?x?x16xf32>
  %sb = "onnx.Mul"(%seq, %b) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %t2 = "onnx.Concat"(%sb, %c64) {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %m = "onnx.Reshape"(%heads, %t2) : (tensor<?x?x16xf32>, tensor<2xi64>) -> tensor<?x64xf32>
  %t3 = "onnx.Concat"(%seq, %b, %c64) {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %back = "onnx.Reshape"(%m, %t3) : (tensor<?x64xf32>, tensor<3xi64>) -> tensor<?x?x64xf32>
  return %back : tensor<?x?x64xf32>
}

// -----

// Products that are not provably equal stay apart: Reshape's entry
// batch * 4 against the input's seq proves nothing (the -1 beside it
// neither); Div(batch * 4, 4) is exact (it is batch, as a Reshape entry);
// Div(batch, 4) truncates, so Mul(Div(batch, 4), 4) is not batch (that
// Reshape's dim is only the element count, seq * batch * z); the same
// truncating Div computed twice is one node (the two ConstantOfShape).
// CHECK-LABEL: dim-analysis: 22 ops
// CHECK:         %[[C:.*]][1] == <node {{[0-9]+}}>  [onnx.Reshape: element count @{{[0-9]+}}]
// CHECK:       dim-analysis: groups (7)
// CHECK-NEXT:    group 0: %arg0[0], %[[A:.*]][0]
// CHECK-NEXT:    group 1: %arg0[1], %[[A]][1], %[[B:.*]][1]
// CHECK-NEXT:    group 2: %arg0[2], %[[A]][2]
// CHECK-NEXT:    group 3: %[[B]][0]
// CHECK-NEXT:    group 4: %[[B]][2]
// CHECK-NEXT:    group 5: %[[C]][1]
// CHECK-NEXT:    group 6: %{{.*}}[0], %{{.*}}[0]
// CHECK-NOT:   group 7
func.func @not_equal(%x: tensor<?x?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<1x?x1xf32>, tensor<?xf32>, tensor<?xf32>) {
  %s = "onnx.Shape"(%x) {start = 0 : i64} : (tensor<?x?x?xf32>) -> tensor<3xi64>
  %i0 = "onnx.Constant"() {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %i1 = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %c1 = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %c4 = "onnx.Constant"() {value = dense<[4]> : tensor<1xi64>} : () -> tensor<1xi64>
  %m1 = "onnx.Constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %seq = "onnx.Gather"(%s, %i0) {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %b = "onnx.Gather"(%s, %i1) {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %b4 = "onnx.Mul"(%b, %c4) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %bexact = "onnx.Div"(%b4, %c4) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %q1 = "onnx.Div"(%b, %c4) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %q2 = "onnx.Div"(%b, %c4) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %q4 = "onnx.Mul"(%q2, %c4) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %ta = "onnx.Concat"(%seq, %bexact, %m1) {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %a = "onnx.Reshape"(%x, %ta) : (tensor<?x?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %tb = "onnx.Concat"(%b4, %b, %m1) {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %bb = "onnx.Reshape"(%a, %tb) : (tensor<?x?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %tc = "onnx.Concat"(%c1, %q4, %c1) {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %c = "onnx.Reshape"(%a, %tc) : (tensor<?x?x?xf32>, tensor<3xi64>) -> tensor<1x?x1xf32>
  %z1 = "onnx.ConstantOfShape"(%q1) : (tensor<1xi64>) -> tensor<?xf32>
  %z2 = "onnx.ConstantOfShape"(%q2) : (tensor<1xi64>) -> tensor<?xf32>
  return %a, %bb, %c, %z1, %z2 : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<1x?x1xf32>, tensor<?xf32>, tensor<?xf32>
}
