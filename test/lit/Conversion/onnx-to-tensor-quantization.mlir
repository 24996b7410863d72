// RUN: onyx-opt %s --convert-onnx-to-tensor --mlir-print-local-scope \
// RUN:   -split-input-file -verify-diagnostics \
// RUN:   | FileCheck %s --implicit-check-not=onnx.
//
// Quantization (Quantization.cpp): QuantizeLinear / DequantizeLinear /
// DynamicQuantizeLinear are elementwise generics (round half to even,
// QuantizeLinear's saturation in integers, ui8 reinterpreted through
// unrealized casts; the newer types: onnx-to-tensor-element-types.mlir);
// MatMulInteger and QLinearMatMul widen the zero-point-adjusted operands to
// f64 and reuse MatMul's contraction generic (which the CPU backend sends to
// BLAS); Dropout in inference mode is the identity with an all-true mask;
// the window functions have a length read from their `size` input.

// Per-axis parameters: a dynamic-length scale is checked against the axis
// extent at run time and read at a clamped index; a constant zero point of
// static length 3 is asserted equal to the extent and read through a map.
// CHECK-LABEL: func.func @quantize_per_axis
// CHECK-SAME:    (%[[X:.*]]: tensor<2x?xf32>, %[[S:.*]]: tensor<?xf32>) -> tensor<2x?xi8>
// CHECK:         %[[ZP:.*]] = arith.constant dense<[1, 2, 3]> : tensor<3xi8>
// CHECK:         %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<2x?xf32>
// CHECK:         %[[L:.*]] = tensor.dim %[[S]], %{{.*}} : tensor<?xf32>
// CHECK:         %[[ONE:.*]] = arith.cmpi eq, %[[L]], %{{.*}} : index
// CHECK:         onyx.assert %{{.*}}, "y_scale has {0} entries but axis 1 has extent {1}"(%[[L]], %[[D]] : index, index)
// CHECK:         onyx.assert %{{.*}}, "y_zero_point has {0} entries but axis 1 has extent {1}"
// CHECK:         %[[E:.*]] = tensor.empty(%[[D]]) : tensor<2x?xi8>
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]], %[[ZP]] : tensor<2x?xf32>, tensor<3xi8>) outs(%[[E]] : tensor<2x?xi8>)
// CHECK:           %[[I:.*]] = linalg.index 1 : index
// CHECK:           %[[IDX:.*]] = arith.select %[[ONE]], %{{.*}}, %[[I]] : index
// CHECK:           %[[SV:.*]] = tensor.extract %[[S]][%[[IDX]]] : tensor<?xf32>
// CHECK:           %[[Q:.*]] = arith.divf %{{.*}}, %[[SV]] : f32
// CHECK:           %[[R:.*]] = math.roundeven %[[Q]] : f32
// CHECK:           arith.maximumf
// CHECK:           arith.minimumf
// CHECK:           %[[QI:.*]] = arith.fptosi %{{.*}} : f32 to i64
// CHECK:           %[[ZI:.*]] = arith.extsi %{{.*}} : i8 to i64
// CHECK:           %[[SUM:.*]] = arith.addi %[[QI]], %[[ZI]] : i64
// CHECK:           arith.constant -128 : i64
// CHECK:           arith.maxsi %[[SUM]]
// CHECK:           arith.constant 127 : i64
// CHECK:           arith.minsi
// CHECK:           arith.trunci %{{.*}} : i64 to i8
func.func @quantize_per_axis(%x: tensor<2x?xf32>, %s: tensor<?xf32>) -> tensor<2x?xi8> {
  %z = "onnx.Constant"() {value = dense<[1, 2, 3]> : tensor<3xi8>} : () -> tensor<3xi8>
  %0 = "onnx.QuantizeLinear"(%x, %s, %z) {axis = 1 : i64} : (tensor<2x?xf32>, tensor<?xf32>, tensor<3xi8>) -> tensor<2x?xi8>
  return %0 : tensor<2x?xi8>
}

// -----

// Without a zero point the result is uint8: the rounded quotient saturated
// to 0 <= y <= 255 in i64.
// CHECK-LABEL: func.func @quantize_no_zero_point
// CHECK:         linalg.generic
// CHECK:           arith.divf
// CHECK:           math.roundeven
// CHECK:           arith.fptosi %{{.*}} : f32 to i64
// CHECK-NOT:       arith.addi
// CHECK:           arith.constant 255 : i64
// CHECK:           arith.trunci %{{.*}} : i64 to i8
// CHECK:           builtin.unrealized_conversion_cast %{{.*}} : i8 to ui8
// CHECK:         } -> tensor<4xui8>
func.func @quantize_no_zero_point(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xui8> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.QuantizeLinear"(%x, %s, %n) : (tensor<4xf32>, tensor<f32>, none) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// x - zero_point is exact in integers, then scaled.
// CHECK-LABEL: func.func @dequantize
// CHECK-SAME:    (%[[X:.*]]: tensor<?xui8>, %[[S:.*]]: tensor<f32>, %[[Z:.*]]: tensor<ui8>)
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>]
// CHECK-SAME:      ins(%[[X]], %[[S]], %[[Z]] : tensor<?xui8>, tensor<f32>, tensor<ui8>)
// CHECK:         ^bb0(%[[XV:.*]]: ui8, %[[SV:.*]]: f32, %[[ZV:.*]]: ui8, %{{.*}}: f32):
// CHECK:           %[[XC:.*]] = builtin.unrealized_conversion_cast %[[XV]] : ui8 to i8
// CHECK:           %[[XW:.*]] = arith.extui %[[XC]] : i8 to i64
// CHECK:           %[[ZC:.*]] = builtin.unrealized_conversion_cast %[[ZV]] : ui8 to i8
// CHECK:           %[[ZW:.*]] = arith.extui %[[ZC]] : i8 to i64
// CHECK:           %[[D:.*]] = arith.subi %[[XW]], %[[ZW]] : i64
// CHECK:           %[[F:.*]] = arith.sitofp %[[D]] : i64 to f32
// CHECK:           %[[Y:.*]] = arith.mulf %[[F]], %[[SV]] : f32
// CHECK:           linalg.yield %[[Y]] : f32
func.func @dequantize(%x: tensor<?xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<?xf32> {
  %0 = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<?xui8>, tensor<f32>, tensor<ui8>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// min(0, min(x)) and max(0, max(x)) are reductions starting at 0; scale and
// zero point are scalars returned as rank-0 tensors.
// CHECK-LABEL: func.func @dynamic_quantize
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK:           arith.minimumf
// CHECK:         %[[LO:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK:           arith.maximumf
// CHECK:         %[[HI:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
// CHECK:         %[[RANGE:.*]] = arith.subf %[[HI]], %[[LO]] : f32
// CHECK:         %[[SCALE:.*]] = arith.divf %[[RANGE]], %{{.*}} : f32
// CHECK:         math.roundeven
// CHECK:         %[[ZP:.*]] = builtin.unrealized_conversion_cast %{{.*}} : i8 to ui8
// CHECK:         %[[Y:.*]] = linalg.generic
// CHECK:           arith.divf %{{.*}}, %[[SCALE]] : f32
// CHECK:         } -> tensor<?x4xui8>
// CHECK:         %[[ST:.*]] = tensor.from_elements %[[SCALE]] : tensor<f32>
// CHECK:         %[[ZT:.*]] = tensor.from_elements %[[ZP]] : tensor<ui8>
// CHECK:         return %[[Y]], %[[ST]], %[[ZT]]
func.func @dynamic_quantize(%x: tensor<?x4xf32>) -> (tensor<?x4xui8>, tensor<f32>, tensor<ui8>) {
  %y, %s, %z = "onnx.DynamicQuantizeLinear"(%x) : (tensor<?x4xf32>) -> (tensor<?x4xui8>, tensor<f32>, tensor<ui8>)
  return %y, %s, %z : tensor<?x4xui8>, tensor<f32>, tensor<ui8>
}

// -----

// MatMulInteger: operands minus zero points widened to f64, MatMul's
// contraction generic (multiply-accumulate, BLAS-shaped), back to i32.
// CHECK-LABEL: func.func @matmul_integer
// CHECK-SAME:    (%[[A:.*]]: tensor<4x3xui8>, %[[B:.*]]: tensor<3x2xi8>, %[[ZA:.*]]: tensor<4xui8>)
// CHECK:         %[[WA:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[A]], %[[ZA]] : tensor<4x3xui8>, tensor<4xui8>)
// CHECK:           arith.uitofp %{{.*}} : i8 to f64
// CHECK:           arith.subf
// CHECK:         } -> tensor<4x3xf64>
// CHECK:         %[[WB:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[B]] : tensor<3x2xi8>)
// CHECK:           arith.sitofp %{{.*}} : i8 to f64
// CHECK:         } -> tensor<3x2xf64>
// CHECK:         %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<4x2xf64>)
// CHECK:         %[[P:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[WA]], %[[WB]] : tensor<4x3xf64>, tensor<3x2xf64>) outs(%[[FILL]] : tensor<4x2xf64>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         %[[Y:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[P]] : tensor<4x2xf64>)
// CHECK:           arith.fptosi %{{.*}} : f64 to i32
// CHECK:         return %[[Y]] : tensor<4x2xi32>
func.func @matmul_integer(%a: tensor<4x3xui8>, %b: tensor<3x2xi8>, %za: tensor<4xui8>) -> tensor<4x2xi32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.MatMulInteger"(%a, %b, %za, %n) : (tensor<4x3xui8>, tensor<3x2xi8>, tensor<4xui8>, none) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// -----

// QLinearMatMul: the same f64 contraction, requantized in f32; a's scale
// per row (the m loop), b's per column (the n loop).
// CHECK-LABEL: func.func @qlinear_matmul
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      tensor<2x4xf64>, tensor<4x3xf64>
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:           %[[M:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           %[[SC:.*]] = arith.divf %[[M]], %{{.*}} : f32
// CHECK:           %[[ACC:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK:           %[[V:.*]] = arith.mulf %[[ACC]], %[[SC]] : f32
// CHECK:           math.roundeven %[[V]] : f32
// CHECK:           arith.fptoui %{{.*}} : f32 to i8
// CHECK:         } -> tensor<2x3xui8>
func.func @qlinear_matmul(%a: tensor<2x4xui8>, %as: tensor<2xf32>, %az: tensor<ui8>, %b: tensor<4x3xui8>, %bs: tensor<3xf32>, %bz: tensor<ui8>, %ys: tensor<f32>, %yz: tensor<ui8>) -> tensor<2x3xui8> {
  %0 = "onnx.QLinearMatMul"(%a, %as, %az, %b, %bs, %bz, %ys, %yz) : (tensor<2x4xui8>, tensor<2xf32>, tensor<ui8>, tensor<4x3xui8>, tensor<3xf32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// -----

// Inference: the data itself and an all-true mask.
// CHECK-LABEL: func.func @dropout_inference
// CHECK-SAME:    (%[[X:.*]]: tensor<?x4xf32>)
// CHECK:         %[[T:.*]] = arith.constant true
// CHECK:         %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x4xi1>
// CHECK:         %[[M:.*]] = linalg.fill ins(%[[T]] : i1) outs(%[[E]] : tensor<?x4xi1>)
// CHECK:         return %[[X]], %[[M]]
func.func @dropout_inference(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xi1>) {
  %n = "onnx.NoValue"() : () -> none
  %0, %1 = "onnx.Dropout"(%x, %n, %n) : (tensor<?x4xf32>, none, none) -> (tensor<?x4xf32>, tensor<?x4xi1>)
  return %0, %1 : tensor<?x4xf32>, tensor<?x4xi1>
}

// -----

// Run-time training_mode and ratio: training with ratio > 0 is refused by a
// run-time check; otherwise the identity.
// CHECK-LABEL: func.func @dropout_runtime_training
// CHECK-SAME:    (%[[X:.*]]: tensor<?x4xf32>, %[[R:.*]]: tensor<f32>, %[[T:.*]]: tensor<i1>)
// CHECK:         %[[TV:.*]] = tensor.extract %[[T]][] : tensor<i1>
// CHECK:         %[[RV:.*]] = tensor.extract %[[R]][] : tensor<f32>
// CHECK:         %[[POS:.*]] = arith.cmpf ogt, %[[RV]], %{{.*}} : f32
// CHECK:         %[[RAND:.*]] = arith.andi %[[TV]], %[[POS]] : i1
// CHECK:         %[[OK:.*]] = arith.xori %[[RAND]], %{{.*}} : i1
// CHECK:         onyx.assert %[[OK]], "Dropout in training mode with a ratio above 0 draws a random mask
// CHECK:         return %[[X]] : tensor<?x4xf32>
func.func @dropout_runtime_training(%x: tensor<?x4xf32>, %r: tensor<f32>, %t: tensor<i1>) -> tensor<?x4xf32> {
  %0, %1 = "onnx.Dropout"(%x, %r, %t) : (tensor<?x4xf32>, tensor<f32>, tensor<i1>) -> (tensor<?x4xf32>, none)
  return %0 : tensor<?x4xf32>
}

// -----

// Training mode with a constant ratio of 0 keeps everything: no check.
// CHECK-LABEL: func.func @dropout_training_zero_ratio
// CHECK-NOT:     onyx.assert
// CHECK:         return %arg0
func.func @dropout_training_zero_ratio(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %r = "onnx.Constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %t = "onnx.Constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %0, %1 = "onnx.Dropout"(%x, %r, %t) : (tensor<2x4xf32>, tensor<f32>, tensor<i1>) -> (tensor<2x4xf32>, none)
  return %0 : tensor<2x4xf32>
}

// -----

func.func @dropout_training_random(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %r = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %t = "onnx.Constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  // expected-error @+1 {{Dropout in training mode with a ratio above 0 draws a random mask, which is not supported}}
  %0, %1 = "onnx.Dropout"(%x, %r, %t) : (tensor<2x4xf32>, tensor<f32>, tensor<i1>) -> (tensor<2x4xf32>, none)
  return %0 : tensor<2x4xf32>
}

// -----

// The window length is the value of `size` (clamped at 0), a dynamic dim.
// Symmetric: N = size - 1.
// CHECK-LABEL: func.func @hann_symmetric
// CHECK-SAME:    (%[[S:.*]]: tensor<i64>) -> tensor<?xf32>
// CHECK:         %[[SV:.*]] = tensor.extract %[[S]][] : tensor<i64>
// CHECK:         %[[SI:.*]] = arith.index_cast %[[SV]] : i64 to index
// CHECK:         %[[LEN:.*]] = arith.maxsi %[[SI]], %{{.*}} : index
// CHECK:         %[[N:.*]] = arith.sitofp %{{.*}} : i64 to f64
// CHECK:         %[[NM1:.*]] = arith.subf %[[N]], %{{.*}} : f64
// CHECK:         %[[STEP:.*]] = arith.divf %{{.*}}, %[[NM1]] : f64
// CHECK:         %[[E:.*]] = tensor.empty(%[[LEN]]) : tensor<?xf32>
// CHECK:         linalg.generic {{.*}} outs(%[[E]] : tensor<?xf32>)
// CHECK:           %[[I:.*]] = linalg.index 0 : index
// CHECK:           %[[ANGLE:.*]] = arith.mulf %{{.*}}, %[[STEP]] : f64
// CHECK:           %[[COS:.*]] = math.cos %[[ANGLE]] : f64
// CHECK:           arith.subf
// CHECK:           arith.truncf %{{.*}} : f64 to f32
func.func @hann_symmetric(%s: tensor<i64>) -> tensor<?xf32> {
  %0 = "onnx.HannWindow"(%s) {periodic = 0 : i64} : (tensor<i64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A constant size gives a static length; output_datatype 11 is f64.
// Blackman has the second harmonic.
// CHECK-LABEL: func.func @blackman_constant
// CHECK:         tensor.empty() : tensor<4xf64>
// CHECK:         linalg.generic
// CHECK:           math.cos
// CHECK:           math.cos
// CHECK:         } -> tensor<4xf64>
func.func @blackman_constant() -> tensor<4xf64> {
  %s = "onnx.Constant"() {value = dense<4> : tensor<i32>} : () -> tensor<i32>
  %0 = "onnx.BlackmanWindow"(%s) {output_datatype = 11 : i64} : (tensor<i32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @quantize_to_i32(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xi32> {
  // expected-error @+1 {{QuantizeLinear's result of element type 'i32' is not supported (int2/4/8/16, uint2/4/8/16, float8, float4e2m1)}}
  %0 = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @dequantize_axis_mismatch(%x: tensor<2x3xui8>, %s: tensor<4xf32>) -> tensor<2x3xf32> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{x_scale has 4 entries but axis 1 has extent 3}}
  %0 = "onnx.DequantizeLinear"(%x, %s, %n) {axis = 1 : i64} : (tensor<2x3xui8>, tensor<4xf32>, none) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @window_datatype(%s: tensor<i64>) -> tensor<?xf32> {
  // expected-error @+1 {{output_datatype 8 is not a supported numeric type}}
  %0 = "onnx.HannWindow"(%s) {output_datatype = 8 : i64} : (tensor<i64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
