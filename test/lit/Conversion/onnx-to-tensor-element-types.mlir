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
