// RUN: onyx-opt %s --convert-onnx-to-tensor --mlir-print-local-scope \
// RUN:   -split-input-file -verify-diagnostics \
// RUN:   | FileCheck %s --implicit-check-not=onnx.
//
// The newer element types (docs/element-types.md, LowPrecision.cpp): no
// arith op takes a float8/float4 value except arith.bitcast to the integer
// of its width. Encoding rounds the source's bits (f32 here) with integer
// ops and ends in trunci + bitcast; decoding starts with bitcast + extui and
// builds the f32's bits, then rounds once to the target float.

// CHECK-LABEL: func.func @cast_to_e4m3fn
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[IN:.*]]: f32, %{{.*}}: f8E4M3FN):
// CHECK:           arith.bitcast %[[IN]] : f32 to i32
// CHECK-NOT:       arith.truncf
// CHECK:           arith.cmpf uno, %[[IN]], %[[IN]] : f32
// CHECK:           %[[N:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK:           %[[F:.*]] = arith.bitcast %[[N]] : i8 to f8E4M3FN
// CHECK:           linalg.yield %[[F]] : f8E4M3FN
func.func @cast_to_e4m3fn(%x: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  %0 = "onnx.Cast"(%x) {to = 17 : i64, saturate = 0 : i64} : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

// An f64 source is rounded from its own bits (one rounding), in i64.
// CHECK-LABEL: func.func @cast_f64_to_e5m2fnuz
// CHECK:         ^bb0(%[[IN:.*]]: f64, %{{.*}}: f8E5M2FNUZ):
// CHECK:           arith.bitcast %[[IN]] : f64 to i64
// CHECK:           arith.trunci %{{.*}} : i64 to i8
// CHECK:           arith.bitcast %{{.*}} : i8 to f8E5M2FNUZ
func.func @cast_f64_to_e5m2fnuz(%x: tensor<4xf64>) -> tensor<4xf8E5M2FNUZ> {
  %0 = "onnx.Cast"(%x) {to = 20 : i64} : (tensor<4xf64>) -> tensor<4xf8E5M2FNUZ>
  return %0 : tensor<4xf8E5M2FNUZ>
}

// -----

// CHECK-LABEL: func.func @cast_e5m2_to_f16
// CHECK:         ^bb0(%[[IN:.*]]: f8E5M2, %{{.*}}: f16):
// CHECK:           %[[B:.*]] = arith.bitcast %[[IN]] : f8E5M2 to i8
// CHECK:           arith.extui %[[B]] : i8 to i32
// CHECK:           %[[F:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK:           %[[H:.*]] = arith.truncf %[[F]] : f32 to f16
// CHECK:           linalg.yield %[[H]] : f16
func.func @cast_e5m2_to_f16(%x: tensor<?xf8E5M2>) -> tensor<?xf16> {
  %0 = "onnx.Cast"(%x) {to = 10 : i64} : (tensor<?xf8E5M2>) -> tensor<?xf16>
  return %0 : tensor<?xf16>
}

// -----

// float4e2m1 is 4 bits wide.
// CHECK-LABEL: func.func @castlike_f4_to_f32
// CHECK:         ^bb0(%[[IN:.*]]: f4E2M1FN, %{{.*}}: f32):
// CHECK:           arith.bitcast %[[IN]] : f4E2M1FN to i4
// CHECK:           linalg.yield %{{.*}} : f32
func.func @castlike_f4_to_f32(%x: tensor<3xf4E2M1FN>, %like: tensor<1xf32>) -> tensor<3xf32> {
  %0 = "onnx.CastLike"(%x, %like) : (tensor<3xf4E2M1FN>, tensor<1xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// float8e8m0 keeps the f32 exponent field, rounded as round_mode says.
// CHECK-LABEL: func.func @cast_to_e8m0
// CHECK:         ^bb0(%[[IN:.*]]: f32, %{{.*}}: f8E8M0FNU):
// CHECK:           arith.bitcast %[[IN]] : f32 to i32
// CHECK:           arith.bitcast %{{.*}} : i8 to f8E8M0FNU
func.func @cast_to_e8m0(%x: tensor<4xf32>) -> tensor<4xf8E8M0FNU> {
  %0 = "onnx.Cast"(%x) {to = 24 : i64, round_mode = "nearest"} : (tensor<4xf32>) -> tensor<4xf8E8M0FNU>
  return %0 : tensor<4xf8E8M0FNU>
}

// -----

// Integer sources go through f64; int4 elements are read as i4.
// CHECK-LABEL: func.func @cast_int4_to_e4m3fnuz
// CHECK:         ^bb0(%[[IN:.*]]: i4, %{{.*}}: f8E4M3FNUZ):
// CHECK:           arith.sitofp %[[IN]] : i4 to f64
// CHECK:           arith.bitcast %{{.*}} : i8 to f8E4M3FNUZ
func.func @cast_int4_to_e4m3fnuz(%x: tensor<4xi4>) -> tensor<4xf8E4M3FNUZ> {
  %0 = "onnx.Cast"(%x) {to = 18 : i64} : (tensor<4xi4>) -> tensor<4xf8E4M3FNUZ>
  return %0 : tensor<4xf8E4M3FNUZ>
}

// -----

func.func @bad_round_mode(%x: tensor<4xf32>) -> tensor<4xf8E8M0FNU> {
  // expected-error @+1 {{round_mode 'sideways' is not supported (up, down, nearest)}}
  %0 = "onnx.Cast"(%x) {to = 24 : i64, round_mode = "sideways"} : (tensor<4xf32>) -> tensor<4xf8E8M0FNU>
  return %0 : tensor<4xf8E8M0FNU>
}

// -----

// Arithmetic on float8 is not an ONNX operation's business: a clean error.
func.func @add_f8(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{element type 'f8E4M3FN' is not supported by the CPU lowering yet}}
  %0 = "onnx.Add"(%x, %x) : (tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

// QuantizeLinear to float8: x / y_scale rounded to the type (the zero
// point, which must be 0, is added only when it is not, so -0 stays -0).
// CHECK-LABEL: func.func @quantize_e4m3fn
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32, %[[Z:.*]]: f8E4M3FN, %{{.*}}: f8E4M3FN):
// CHECK:           %[[Q:.*]] = arith.divf %[[X]], %[[S]] : f32
// CHECK:           arith.bitcast %[[Z]] : f8E4M3FN to i8
// CHECK:           arith.select %{{.*}}, %[[Q]], %{{.*}} : f32
// CHECK:           arith.bitcast %{{.*}} : i8 to f8E4M3FN
func.func @quantize_e4m3fn(%x: tensor<5xf32>, %s: tensor<f32>, %z: tensor<1xf8E4M3FN>) -> tensor<5xf8E4M3FN> {
  %0 = "onnx.QuantizeLinear"(%x, %s, %z) {axis = 1 : i64, saturate = 1 : i64} : (tensor<5xf32>, tensor<f32>, tensor<1xf8E4M3FN>) -> tensor<5xf8E4M3FN>
  return %0 : tensor<5xf8E4M3FN>
}

// -----

// QuantizeLinear to int4 per axis: the rounded quotient plus the zero point
// in i64, saturated to [-8, 7], then i4.
// CHECK-LABEL: func.func @quantize_int4
// CHECK:         ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32, %[[Z:.*]]: i4, %{{.*}}: i4):
// CHECK:           %[[R:.*]] = math.roundeven %{{.*}} : f32
// CHECK:           %[[I:.*]] = arith.fptosi %{{.*}} : f32 to i64
// CHECK:           %[[ZW:.*]] = arith.extsi %[[Z]] : i4 to i64
// CHECK:           %[[SUM:.*]] = arith.addi %[[I]], %[[ZW]] : i64
// CHECK:           %[[LO:.*]] = arith.maxsi %[[SUM]], %{{.*}} : i64
// CHECK:           %[[HI:.*]] = arith.minsi %[[LO]], %{{.*}} : i64
// CHECK:           %[[N:.*]] = arith.trunci %[[HI]] : i64 to i4
// CHECK:           linalg.yield %[[N]] : i4
func.func @quantize_int4(%x: tensor<3x4xf32>, %s: tensor<3xf32>, %z: tensor<3xi4>) -> tensor<3x4xi4> {
  %0 = "onnx.QuantizeLinear"(%x, %s, %z) {axis = 0 : i64} : (tensor<3x4xf32>, tensor<3xf32>, tensor<3xi4>) -> tensor<3x4xi4>
  return %0 : tensor<3x4xi4>
}

// -----

// Blocked quantization (block_size 2 along axis 1) with output_dtype int16:
// the scale is read at (i, j / 2) inside the body.
// CHECK-LABEL: func.func @quantize_blocked
// CHECK-SAME:    (%[[X:.*]]: tensor<3x4xf32>, %[[S:.*]]: tensor<3x2xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[X]] : tensor<3x4xf32>)
// CHECK:           %[[I:.*]] = linalg.index 0 : index
// CHECK:           %[[J:.*]] = linalg.index 1 : index
// CHECK:           %[[JB:.*]] = arith.divui %[[J]], %{{.*}} : index
// CHECK:           tensor.extract %[[S]][%[[I]], %[[JB]]] : tensor<3x2xf32>
// CHECK:           linalg.yield %{{.*}} : i16
func.func @quantize_blocked(%x: tensor<3x4xf32>, %s: tensor<3x2xf32>) -> tensor<3x4xi16> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.QuantizeLinear"(%x, %s, %n) {axis = 1 : i64, block_size = 2 : i64, output_dtype = 5 : i64} : (tensor<3x4xf32>, tensor<3x2xf32>, none) -> tensor<3x4xi16>
  return %0 : tensor<3x4xi16>
}

// -----

// A dynamic blocked extent is checked at run time: ceil(?/2) blocks.
// CHECK-LABEL: func.func @dequantize_blocked_dynamic
// CHECK:         onyx.assert
// CHECK:         linalg.generic
// CHECK:           arith.divui
// CHECK:           tensor.extract
func.func @dequantize_blocked_dynamic(%x: tensor<2x?xui8>, %s: tensor<2x?xf32>, %z: tensor<2x?xui8>) -> tensor<2x?xf32> {
  %0 = "onnx.DequantizeLinear"(%x, %s, %z) {axis = 1 : i64, block_size = 2 : i64} : (tensor<2x?xui8>, tensor<2x?xf32>, tensor<2x?xui8>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

func.func @blocked_bad_shape(%x: tensor<3x4xf32>, %s: tensor<3x3xf32>) -> tensor<3x4xui8> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{y_scale dim 1 is 3, but block_size 2 along axis 1 needs 2 blocks}}
  %0 = "onnx.QuantizeLinear"(%x, %s, %n) {axis = 1 : i64, block_size = 2 : i64} : (tensor<3x4xf32>, tensor<3x3xf32>, none) -> tensor<3x4xui8>
  return %0 : tensor<3x4xui8>
}

// -----

// DequantizeLinear of float8 with a float16 scale: decoded, computed in
// f32, rounded once to f16.
// CHECK-LABEL: func.func @dequantize_e4m3fn_f16
// CHECK:         ^bb0(%[[X:.*]]: f8E4M3FN, %[[S:.*]]: f16, %{{.*}}: f16):
// CHECK:           arith.bitcast %[[X]] : f8E4M3FN to i8
// CHECK:           %[[SW:.*]] = arith.extf %[[S]] : f16 to f32
// CHECK:           %[[P:.*]] = arith.mulf %{{.*}}, %[[SW]] : f32
// CHECK:           %[[R:.*]] = arith.truncf %[[P]] : f32 to f16
// CHECK:           linalg.yield %[[R]] : f16
func.func @dequantize_e4m3fn_f16(%x: tensor<5xf8E4M3FN>, %s: tensor<f16>) -> tensor<5xf16> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.DequantizeLinear"(%x, %s, %n) {axis = 0 : i64} : (tensor<5xf8E4M3FN>, tensor<f16>, none) -> tensor<5xf16>
  return %0 : tensor<5xf16>
}

// -----

// DequantizeLinear of uint2: the difference exactly in i64.
// CHECK-LABEL: func.func @dequantize_uint2
// CHECK:         ^bb0(%[[X:.*]]: ui2, %[[S:.*]]: f32, %[[Z:.*]]: ui2, %{{.*}}: f32):
// CHECK:           arith.extui %{{.*}} : i2 to i64
// CHECK:           arith.subi
// CHECK:           arith.sitofp %{{.*}} : i64 to f32
func.func @dequantize_uint2(%x: tensor<4xui2>, %s: tensor<f32>, %z: tensor<1xui2>) -> tensor<4xf32> {
  %0 = "onnx.DequantizeLinear"(%x, %s, %z) {axis = 0 : i64} : (tensor<4xui2>, tensor<f32>, tensor<1xui2>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @quantize_to_e8m0(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<f8E8M0FNU>) -> tensor<4xf8E8M0FNU> {
  // expected-error @+1 {{QuantizeLinear's result of element type 'f8E8M0FNU' is not supported (int2/4/8/16, uint2/4/8/16, float8, float4e2m1)}}
  %0 = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<f8E8M0FNU>) -> tensor<4xf8E8M0FNU>
  return %0 : tensor<4xf8E8M0FNU>
}
