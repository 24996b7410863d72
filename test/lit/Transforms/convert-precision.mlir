// RUN: onyx-opt %s --onnx-convert-precision=type=f16 -split-input-file | FileCheck %s
// RUN: onyx-opt %s --onnx-convert-precision=type=bf16 -split-input-file | FileCheck %s --check-prefix=BF16
// RUN: not onyx-opt %s --onnx-convert-precision=type=f8 -split-input-file 2>&1 | FileCheck %s --check-prefix=BADTYPE
// RUN: onyx-opt %s --onnx-convert-precision="type=f16 f32-layer-norm=true" -split-input-file | FileCheck %s --check-prefix=F32LN
//
// onnx-convert-precision: compute ops (MatMul, Gemm, Conv, ...) run in the
// half type, elementwise/data-movement ops extend those islands, a Gather
// from a constant table starts one, LayerNormalization of a half input reads
// and writes half (f32 statistics), the rest (Softmax, Pow, reductions)
// stays f32 with Casts at the boundaries; f32 constants of half ops are
// converted at compile time.
// BADTYPE: error: onnx-convert-precision: unknown type 'f8' (expected f16 or bf16)

// -----
// LayerNorm -> MatMul + bias -> Relu -> Softmax, a residual Add and a
// Transpose of the Relu as a second output. LayerNorm stays f32 (its scale
// and bias constants too), its output is cast once for the MatMul, the
// weight and bias become f16 constants, Relu extends the island, Softmax
// reads one Cast back to f32, the residual Add of two f32 values stays f32,
// the Transpose is f16 and the graph output is cast back to f32.

// CHECK-LABEL: func.func @island(
// CHECK-SAME:      %[[X:.*]]: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<8x2xf32>)
// CHECK-DAG:     %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<8xf32>}>
// CHECK-DAG:     %[[B:.*]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<8xf32>}>
// CHECK:         %[[LN:.*]], %{{.*}}, %{{.*}} = "onnx.LayerNormalization"(%[[X]], %[[G]], %[[B]])
// CHECK-SAME:      -> (tensor<2x8xf32>, none, none)
// CHECK:         %[[LNH:.*]] = "onnx.Cast"(%[[LN]]) <{{{.*}}to = 10 : i64}> : (tensor<2x8xf32>) -> tensor<2x8xf16>
// CHECK:         %[[W:.*]] = "onnx.Constant"() <{value = dense<5.000000e-01> : tensor<8x8xf16>}>
// CHECK:         %[[MM:.*]] = "onnx.MatMul"(%[[LNH]], %[[W]]) : (tensor<2x8xf16>, tensor<8x8xf16>) -> tensor<2x8xf16>
// CHECK:         %[[BIAS:.*]] = "onnx.Constant"() <{value = dense<2.500000e-01> : tensor<8xf16>}>
// CHECK:         %[[ADD:.*]] = "onnx.Add"(%[[MM]], %[[BIAS]]) : (tensor<2x8xf16>, tensor<8xf16>) -> tensor<2x8xf16>
// CHECK:         %[[RELU:.*]] = "onnx.Relu"(%[[ADD]]) : (tensor<2x8xf16>) -> tensor<2x8xf16>
// CHECK:         %[[RELUF:.*]] = "onnx.Cast"(%[[RELU]]) <{{{.*}}to = 1 : i64}> : (tensor<2x8xf16>) -> tensor<2x8xf32>
// CHECK:         %[[SM:.*]] = "onnx.Softmax"(%[[RELUF]]) <{axis = -1 : i64}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[RES:.*]] = "onnx.Add"(%[[X]], %[[SM]]) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[T:.*]] = "onnx.Transpose"(%[[RELU]]) <{perm = [1, 0]}> : (tensor<2x8xf16>) -> tensor<8x2xf16>
// CHECK:         %[[TF:.*]] = "onnx.Cast"(%[[T]]) <{{{.*}}to = 1 : i64}> : (tensor<8x2xf16>) -> tensor<8x2xf32>
// CHECK:         return %[[RES]], %[[TF]] : tensor<2x8xf32>, tensor<8x2xf32>
// CHECK-NOT:     "onnx.Cast"
// BF16-LABEL: func.func @island(
// BF16:         "onnx.MatMul"({{.*}}) : (tensor<2x8xbf16>, tensor<8x8xbf16>) -> tensor<2x8xbf16>
// BF16:         "onnx.Softmax"({{.*}}) <{axis = -1 : i64}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
func.func @island(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<8x2xf32>) {
  %none = onnx.NoValue
  %g = "onnx.Constant"() {value = dense<1.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %b = "onnx.Constant"() {value = dense<0.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %ln, %mean, %inv = "onnx.LayerNormalization"(%x, %g, %b) {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, none, none)
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<8x8xf32>} : () -> tensor<8x8xf32>
  %mm = "onnx.MatMul"(%ln, %w) : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  %bias = "onnx.Constant"() {value = dense<0.25> : tensor<8xf32>} : () -> tensor<8xf32>
  %add = "onnx.Add"(%mm, %bias) : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %relu = "onnx.Relu"(%add) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %sm = "onnx.Softmax"(%relu) {axis = -1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %res = "onnx.Add"(%x, %sm) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %t = "onnx.Transpose"(%relu) {perm = [1, 0]} : (tensor<2x8xf32>) -> tensor<8x2xf32>
  return %res, %t : tensor<2x8xf32>, tensor<8x2xf32>
}

// -----
// GPT-2's masked scores: Where with an f32-minimum fill value that neither
// half type holds (f16's range is 65504; -3.4028235e38 rounds to -inf in
// bf16) stays f32, so its half input is cast back; a follow op whose only
// non-constant input is f32 (the Mul of a graph input) does not start an
// island; an epsilon that would flush to zero in f16 (1e-12) keeps its Add
// in f32, while a bf16 (8-bit exponent) holds it. The Pow of a GELU(tanh)
// stays f32.

// CHECK-LABEL: func.func @range(
// CHECK:         %[[XS:.*]] = "onnx.Mul"(%arg0, %{{.*}}) : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
// CHECK:         %[[XSH:.*]] = "onnx.Cast"(%[[XS]]) <{{{.*}}to = 10 : i64}>
// CHECK:         %[[S:.*]] = "onnx.MatMul"(%[[XSH]], %[[XSH]]) : (tensor<4x4xf16>, tensor<4x4xf16>) -> tensor<4x4xf16>
// CHECK:         %[[SF:.*]] = "onnx.Cast"(%[[S]]) <{{{.*}}to = 1 : i64}> : (tensor<4x4xf16>) -> tensor<4x4xf32>
// CHECK:         "onnx.Where"(%arg1, %[[SF]], %{{.*}}) : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
// CHECK:         "onnx.Add"(%[[SF]], %{{.*}}) : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
// CHECK:         "onnx.Pow"(%[[SF]], %{{.*}}) : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
// BF16-LABEL: func.func @range(
// BF16:         "onnx.MatMul"({{.*}}) : (tensor<4x4xbf16>, tensor<4x4xbf16>) -> tensor<4x4xbf16>
// BF16:         "onnx.Where"({{.*}}) : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
// BF16:         %[[EPS:.*]] = "onnx.Constant"() <{value = dense<{{.*}}> : tensor<bf16>}>
// BF16:         "onnx.Add"(%{{.*}}, %[[EPS]]) : (tensor<4x4xbf16>, tensor<bf16>) -> tensor<4x4xbf16>
func.func @range(%x: tensor<4x4xf32>, %mask: tensor<4x4xi1>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %two = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %xs = "onnx.Mul"(%x, %two) : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %s = "onnx.MatMul"(%xs, %xs) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %min = "onnx.Constant"() {value = dense<-3.40282347E+38> : tensor<f32>} : () -> tensor<f32>
  %w = "onnx.Where"(%mask, %s, %min) : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %eps = "onnx.Constant"() {value = dense<1.0e-12> : tensor<f32>} : () -> tensor<f32>
  %a = "onnx.Add"(%s, %eps) : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %three = "onnx.Constant"() {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
  %p = "onnx.Pow"(%s, %three) : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  return %w, %a, %p : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----
// Casts that cancel: a half model input cast to f32 feeds the MatMul
// directly, and the model's own Cast back to f16 of the MatMul's result is
// the MatMul's result. An external weight is read in the half type, the
// same bytes marked as f32 in the file (the session converts them when it
// loads the file): no Cast, and the f32 weight goes.

// CHECK-LABEL: func.func @cancel(
// CHECK-SAME:      %[[A:.*]]: tensor<2x4xf16>) -> tensor<2x3xf16>
// CHECK-NOT:     onnx.Cast
// CHECK:         %[[WH:.*]] = onyx.weight {checksum = 0 : i64, length = 48 : i64, location = "m.onnx.data", offset = 0 : i64, onyx.file_element_type = f32} : tensor<4x3xf16>
// CHECK-NOT:     onnx.Cast
// CHECK:         %[[MM:.*]] = "onnx.MatMul"(%[[A]], %[[WH]]) : (tensor<2x4xf16>, tensor<4x3xf16>) -> tensor<2x3xf16>
// CHECK-NEXT:    return %[[MM]] : tensor<2x3xf16>
// BF16-LABEL: func.func @cancel(
// BF16:         %[[WH:.*]] = onyx.weight {{{.*}}onyx.file_element_type = f32} : tensor<4x3xbf16>
// BF16:         "onnx.MatMul"(%{{.*}}, %[[WH]]) : (tensor<2x4xbf16>, tensor<4x3xbf16>)
func.func @cancel(%a: tensor<2x4xf16>) -> tensor<2x3xf16> {
  %af = "onnx.Cast"(%a) {to = 1 : i64} : (tensor<2x4xf16>) -> tensor<2x4xf32>
  %w = onyx.weight {checksum = 0 : i64, length = 48 : i64, location = "m.onnx.data", offset = 0 : i64} : tensor<4x3xf32>
  %mm = "onnx.MatMul"(%af, %w) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %y = "onnx.Cast"(%mm) {to = 10 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf16>
  return %y : tensor<2x3xf16>
}

// -----
// Subgraph bodies stay f32: the If's branches read the MatMul's result
// through the one Cast back to f32, placed at its definition.

// CHECK-LABEL: func.func @nested(
// CHECK:         %[[XH:.*]] = "onnx.Cast"(%arg0) <{{{.*}}to = 10 : i64}>
// CHECK:         %[[M:.*]] = "onnx.MatMul"(%[[XH]], %[[XH]]) : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16>
// CHECK:         %[[MF:.*]] = "onnx.Cast"(%[[M]]) <{{{.*}}to = 1 : i64}>
// CHECK:         "onnx.If"(%arg1)
// CHECK:           "onnx.Neg"(%[[MF]]) : (tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK:           onnx.Yield %[[MF]] : tensor<2x2xf32>
func.func @nested(%x: tensor<2x2xf32>, %c: tensor<i1>) -> tensor<2x2xf32> {
  %m = "onnx.MatMul"(%x, %x) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = "onnx.If"(%c) ({
    %n = "onnx.Neg"(%m) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    onnx.Yield %n : tensor<2x2xf32>
  }, {
    onnx.Yield %m : tensor<2x2xf32>
  }) : (tensor<i1>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----
// A transformer's embeddings and residual stream: the Gathers from constant
// tables start a half island, the embedding sum and the first LayerNorm
// (f32 statistics by stash_type) read and write f16, so the residual Add is
// f16 too; the Shape of the stream reads the f16 value (dims only, no
// Cast). The first LayerNorm's scale is an Identity of the constant
// (exporters write one for equal initializers): it is that constant, in
// f16. The last LayerNorm, read only by the graph's output, stays f32 (its
// output is not rounded to f16), and so does one whose Mean is used. With
// f32-layer-norm the Gathers follow only and every LayerNorm and the stream
// stay f32 (the MatMul's input cast once).

// CHECK-LABEL: func.func @stream(
// CHECK:         %[[WTE:.*]] = "onnx.Constant"() <{value = dense<1.250000e-01> : tensor<16x8xf16>}>
// CHECK:         %[[E:.*]] = "onnx.Gather"(%[[WTE]], %{{.*}}) <{axis = 0 : i64}> : (tensor<16x8xf16>, tensor<2x4xi64>) -> tensor<2x4x8xf16>
// CHECK:         %[[WPE:.*]] = "onnx.Constant"() <{value = dense<2.500000e-01> : tensor<4x8xf16>}>
// CHECK:         %[[P:.*]] = "onnx.Gather"(%[[WPE]], %{{.*}}) <{axis = 0 : i64}> : (tensor<4x8xf16>, tensor<4xi64>) -> tensor<4x8xf16>
// CHECK:         %[[S:.*]] = "onnx.Add"(%[[E]], %[[P]]) : (tensor<2x4x8xf16>, tensor<4x8xf16>) -> tensor<2x4x8xf16>
// CHECK:         %[[G16:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<8xf16>}>
// CHECK:         %[[LN:.*]], %{{.*}}, %{{.*}} = "onnx.LayerNormalization"(%[[S]], %[[G16]], %{{.*}}) {{.*}} : (tensor<2x4x8xf16>, tensor<8xf16>, tensor<8xf16>) -> (tensor<2x4x8xf16>, none, none)
// CHECK:         %[[MM:.*]] = "onnx.MatMul"(%[[LN]], %{{.*}}) : (tensor<2x4x8xf16>, tensor<8x8xf16>) -> tensor<2x4x8xf16>
// CHECK:         %[[RES:.*]] = "onnx.Add"(%[[MM]], %[[LN]]) : (tensor<2x4x8xf16>, tensor<2x4x8xf16>) -> tensor<2x4x8xf16>
// CHECK:         %[[RESF:.*]] = "onnx.Cast"(%[[RES]]) <{{{.*}}to = 1 : i64}> : (tensor<2x4x8xf16>) -> tensor<2x4x8xf32>
// CHECK:         %[[LN2:.*]], %{{.*}}, %{{.*}} = "onnx.LayerNormalization"(%[[RESF]], %{{.*}}, %{{.*}}) {{.*}} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, none, none)
// CHECK:         %{{.*}}, %[[MEAN:.*]], %{{.*}} = "onnx.LayerNormalization"(%[[RESF]], %{{.*}}, %{{.*}}) {{.*}} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x1xf32>, none)
// CHECK:         %[[SHAPE:.*]] = "onnx.Shape"(%[[RES]]) {{.*}} : (tensor<2x4x8xf16>) -> tensor<3xi64>
// CHECK:         return %[[LN2]], %[[MEAN]], %[[SHAPE]]
// F32LN-LABEL: func.func @stream(
// F32LN:         "onnx.Gather"({{.*}}) <{axis = 0 : i64}> : (tensor<16x8xf32>, tensor<2x4xi64>) -> tensor<2x4x8xf32>
// F32LN:         "onnx.LayerNormalization"({{.*}}) {{.*}} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, none, none)
// F32LN:         "onnx.MatMul"({{.*}}) : (tensor<2x4x8xf16>, tensor<8x8xf16>) -> tensor<2x4x8xf16>
// F32LN:         "onnx.Add"({{.*}}) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
// F32LN:         "onnx.LayerNormalization"({{.*}}) {{.*}} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, none, none)
func.func @stream(%ids: tensor<2x4xi64>, %pos: tensor<4xi64>) -> (tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<3xi64>) {
  %none = onnx.NoValue
  %wte = "onnx.Constant"() {value = dense<0.125> : tensor<16x8xf32>} : () -> tensor<16x8xf32>
  %e = "onnx.Gather"(%wte, %ids) {axis = 0 : i64} : (tensor<16x8xf32>, tensor<2x4xi64>) -> tensor<2x4x8xf32>
  %wpe = "onnx.Constant"() {value = dense<0.25> : tensor<4x8xf32>} : () -> tensor<4x8xf32>
  %p = "onnx.Gather"(%wpe, %pos) {axis = 0 : i64} : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
  %s = "onnx.Add"(%e, %p) : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  %g = "onnx.Constant"() {value = dense<1.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %b = "onnx.Constant"() {value = dense<0.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %gi = "onnx.Identity"(%g) : (tensor<8xf32>) -> tensor<8xf32>
  %ln, %m0, %i0 = "onnx.LayerNormalization"(%s, %gi, %b) {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, none, none)
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<8x8xf32>} : () -> tensor<8x8xf32>
  %mm = "onnx.MatMul"(%ln, %w) : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %res = "onnx.Add"(%mm, %ln) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %ln2, %m1, %i1 = "onnx.LayerNormalization"(%res, %g, %b) {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, none, none)
  %ln3, %m2, %i2 = "onnx.LayerNormalization"(%res, %g, %b) {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x1xf32>, none)
  %shape = "onnx.Shape"(%res) {start = 0 : i64} : (tensor<2x4x8xf32>) -> tensor<3xi64>
  return %ln2, %m2, %shape : tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<3xi64>
}

// -----
// Constants with values that flush to zero in f16: a weight with one tiny
// entry among normal ones is converted (the entry becomes 0, as PyTorch's
// .half() makes it); a constant whose every non-zero value would flush
// (1e-9 and 1e-10) keeps its MatMul in f32.

// CHECK-LABEL: func.func @tiny(
// CHECK:         "onnx.MatMul"({{.*}}) : (tensor<1x2xf16>, tensor<2x2xf16>) -> tensor<1x2xf16>
// CHECK:         "onnx.MatMul"({{.*}}) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
func.func @tiny(%x: tensor<1x2xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>) {
  %w = "onnx.Constant"() {value = dense<[[1.0e-9, 0.5], [0.25, 1.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %y = "onnx.MatMul"(%x, %w) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %e = "onnx.Constant"() {value = dense<[[1.0e-9, 0.0], [0.0, 1.0e-10]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %z = "onnx.MatMul"(%x, %e) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y, %z : tensor<1x2xf32>, tensor<1x2xf32>
}
