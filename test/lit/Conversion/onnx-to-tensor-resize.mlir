// RUN: onyx-opt %s --convert-onnx-to-tensor --mlir-print-local-scope \
// RUN:   -split-input-file -verify-diagnostics \
// RUN:   | FileCheck %s --implicit-check-not=onnx.
//
// Resize and Upsample. The output extents come from the shape library
// (floor(in * scale) in f64, or sizes); the interpolation is one
// linalg.generic per group of resized dims whose body maps linalg.index to
// a source coordinate in f64 and reads the input with tensor.extract at
// indices clamped to [0, in - 1]. Unresized dims pass their index through.

// Constant scales: static result, one tap per resized dim (nearest, floor,
// asymmetric: x / scale), dims 0 and 1 (scale 1) pass through.
// CHECK-LABEL: func.func @nearest_constant_scales
// CHECK-SAME:    (%[[X:.*]]: tensor<1x1x2x2xf32>)
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<1x1x4x6xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      outs(%[[EMPTY]] : tensor<1x1x4x6xf32>)
// CHECK:           %[[I0:.*]] = linalg.index 0 : index
// CHECK:           %[[I1:.*]] = linalg.index 1 : index
// CHECK:           %[[I2:.*]] = linalg.index 2 : index
// CHECK:           %[[I2F:.*]] = arith.sitofp %{{.*}} : i64 to f64
// CHECK:           %[[S2:.*]] = arith.constant 2.000000e+00 : f64
// CHECK:           %[[C2:.*]] = arith.divf %[[I2F]], %[[S2]] : f64
// CHECK:           %[[F2:.*]] = math.floor %[[C2]] : f64
// CHECK:           %[[HI2:.*]] = arith.minnumf %[[F2]], %{{.*}} : f64
// CHECK:           %[[CL2:.*]] = arith.maxnumf %{{.*}}, %[[HI2]] : f64
// CHECK:           arith.fptosi %[[CL2]] : f64 to i64
// CHECK:           %[[J2:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:           arith.constant 3.000000e+00 : f64
// CHECK:           %[[J3:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:           %[[V:.*]] = tensor.extract %[[X]][%[[I0]], %[[I1]], %[[J2]], %[[J3]]] : tensor<1x1x2x2xf32>
// CHECK:           linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
func.func @nearest_constant_scales(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x6xf32> {
  %none = onnx.NoValue
  %s = "onnx.Constant"() {value = dense<[1.0, 1.0, 2.0, 3.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = "onnx.Resize"(%x, %none, %s, %none) {mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<1x1x2x2xf32>, none, tensor<4xf32>, none) -> tensor<1x1x4x6xf32>
  return %0 : tensor<1x1x4x6xf32>
}

// -----

// Run-time scales: every dim may be resized; the extents are
// floor(in * scale) read with tensor.extract and checked; linear takes
// 2 x 2 taps, weighted in f64.
// CHECK-LABEL: func.func @linear_runtime_scales
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?xf32>, %[[S:.*]]: tensor<?xf32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[S]]
// CHECK:         onyx.assert %{{.*}}, "Resize: scales has {0} entries, expected one per input dim ({1})"(%[[N]], %{{.*}} : index, index)
// CHECK:         %[[S0:.*]] = tensor.extract %[[S]][%{{.*}}] : tensor<?xf32>
// CHECK:         %[[S0F:.*]] = arith.extf %[[S0]] : f32 to f64
// CHECK:         %[[L0:.*]] = arith.mulf %{{.*}}, %[[S0F]] : f64
// CHECK:         onyx.assert %{{.*}}, "Resize: dim 0: the scale must be positive and give an extent below 2^52 (input extent {0})"
// CHECK:         %[[FL0:.*]] = math.floor %[[L0]] : f64
// CHECK:         arith.fptosi %[[FL0]] : f64 to i64
// CHECK:         %[[O0:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         onyx.assert %{{.*}}, "Resize: dim 0: cannot resize an empty dim to extent {0}"(%[[O0]] : index)
// CHECK:         onyx.assert %{{.*}}, "Resize: dim 1: cannot resize an empty dim to extent {0}"(%[[O1:.*]] : index)
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%[[O0]], %[[O1]]) : tensor<?x?xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%[[EMPTY]] : tensor<?x?xf32>)
// half_pixel: (x + 0.5) / scale - 0.5, left tap ceil(xo) - 1.
// CHECK:           %[[A:.*]] = arith.addf %{{.*}}, %{{.*}} : f64
// CHECK:           %[[D:.*]] = arith.divf %[[A]], %[[S0F]] : f64
// CHECK:           %[[XO:.*]] = arith.subf %[[D]], %{{.*}} : f64
// CHECK:           math.ceil %[[XO]] : f64
// CHECK-COUNT-4:   tensor.extract %[[X]]
// CHECK-NOT:       tensor.extract
// CHECK:           arith.truncf %{{.*}} : f64 to f32
func.func @linear_runtime_scales(%x: tensor<?x?xf32>, %s: tensor<?xf32>) -> tensor<?x?xf32> {
  %none = onnx.NoValue
  %0 = "onnx.Resize"(%x, %none, %s, %none) {mode = "linear"} : (tensor<?x?xf32>, none, tensor<?xf32>, none) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Cubic on four run-time-scaled dims: two generics of 4 x 4 taps (not one
// of 256); the second reads the first's result. exclude_outside zeroes the
// weights of taps off the input (selects) and renormalizes.
// CHECK-LABEL: func.func @cubic_runtime_4d
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?x?x?xf32>
// CHECK:         %[[E1:.*]] = tensor.empty(%[[O0:.*]], %[[O1:.*]], %[[D2:.*]], %[[D3:.*]]) : tensor<?x?x?x?xf32>
// CHECK:         %[[G1:.*]] = linalg.generic
// CHECK-SAME:      outs(%[[E1]] : tensor<?x?x?x?xf32>)
// CHECK-COUNT-4:   arith.select {{.*}} : f64
// CHECK-COUNT-16:  tensor.extract %[[X]]
// CHECK-NOT:       tensor.extract
// CHECK:         } -> tensor<?x?x?x?xf32>
// CHECK:         %[[E2:.*]] = tensor.empty(%[[O0]], %[[O1]], %{{.*}}, %{{.*}}) : tensor<?x?x?x?xf32>
// CHECK:         %[[G2:.*]] = linalg.generic
// CHECK-SAME:      outs(%[[E2]] : tensor<?x?x?x?xf32>)
// CHECK-COUNT-16:  tensor.extract %[[G1]]
// CHECK:         return %[[G2]]
func.func @cubic_runtime_4d(%x: tensor<?x?x?x?xf32>, %s: tensor<?xf32>) -> tensor<?x?x?x?xf32> {
  %none = onnx.NoValue
  %0 = "onnx.Resize"(%x, %none, %s, %none) {mode = "cubic", exclude_outside = 1 : i64, cubic_coeff_a = -5.000000e-01 : f32} : (tensor<?x?x?x?xf32>, none, tensor<?xf32>, none) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// Constant sizes give a static result even for a dynamic input; the scale
// becomes size / in. align_corners: x * (in - 1) / (size - 1).
// CHECK-LABEL: func.func @sizes_constant
// CHECK-SAME:    (%[[X:.*]]: tensor<?x3xf32>)
// CHECK:         %[[IN:.*]] = tensor.dim %[[X]]
// CHECK:         onyx.assert %{{.*}}, "Resize: dim 0: cannot resize an empty dim to extent {0}"
// CHECK:         %[[INF:.*]] = arith.sitofp %{{.*}} : i64 to f64
// CHECK:         %[[INM1:.*]] = arith.subf %[[INF]], %{{.*}} : f64
// CHECK:         tensor.empty() : tensor<2x6xf32>
// CHECK:         linalg.generic
// CHECK:           %[[P:.*]] = arith.mulf %{{.*}}, %[[INM1]] : f64
// CHECK:           math.ceil %[[P]] : f64
// CHECK:           arith.constant 2.000000e+00 : f64
// CHECK:           arith.constant 5.000000e+00 : f64
// CHECK-COUNT-4:   tensor.extract %[[X]]
// CHECK:         tensor.cast %{{.*}} : tensor<2x6xf32> to tensor<?x?xf32>
func.func @sizes_constant(%x: tensor<?x3xf32>) -> tensor<?x?xf32> {
  %none = onnx.NoValue
  %sz = "onnx.Constant"() {value = dense<[2, 6]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.Resize"(%x, %none, %none, %sz) {mode = "linear", coordinate_transformation_mode = "align_corners"} : (tensor<?x3xf32>, none, none, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Scales of 1 everywhere: nothing to interpolate.
// CHECK-LABEL: func.func @identity
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[X]]
func.func @identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %none = onnx.NoValue
  %s = "onnx.Constant"() {value = dense<[1.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %0 = "onnx.Resize"(%x, %none, %s, %none) {mode = "cubic"} : (tensor<2x3xf32>, none, tensor<2xf32>, none) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// tf_crop_and_resize: the roi is read once outside the generic; a
// coordinate off [0, in - 1] in any dim yields extrapolation_value.
// CHECK-LABEL: func.func @crop
// CHECK-SAME:    (%[[X:.*]]: tensor<1x4x4xf32>, %[[ROI:.*]]: tensor<6xf32>)
// CHECK-COUNT-6: tensor.extract %[[ROI]]
// CHECK:         linalg.generic
// CHECK:           %[[OUT:.*]] = arith.ori %{{.*}}, %{{.*}} : i1
// CHECK:           %[[V:.*]] = tensor.extract %[[X]]
// CHECK:           %[[E:.*]] = arith.constant 1.000000e+01 : f32
// CHECK:           %[[R:.*]] = arith.select %{{.*}}, %[[E]], %[[V]] : f32
// CHECK:           linalg.yield %[[R]] : f32
func.func @crop(%x: tensor<1x4x4xf32>, %roi: tensor<6xf32>) -> tensor<1x3x3xf32> {
  %none = onnx.NoValue
  %sz = "onnx.Constant"() {value = dense<[1, 3, 3]> : tensor<3xi64>} : () -> tensor<3xi64>
  %0 = "onnx.Resize"(%x, %roi, %none, %sz) {mode = "nearest", coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = 1.0e+01 : f32} : (tensor<1x4x4xf32>, tensor<6xf32>, none, tensor<3xi64>) -> tensor<1x3x3xf32>
  return %0 : tensor<1x3x3xf32>
}

// -----

// Upsample: asymmetric nearest (floor; ceil when a run-time scale is below
// 1); the declared static result dims are asserted.
// CHECK-LABEL: func.func @upsample
// CHECK-SAME:    (%[[X:.*]]: tensor<1x1x2x2xf32>, %[[S:.*]]: tensor<4xf32>)
// CHECK:         onyx.assert %{{.*}}, "the result dim 3 is {0} but the model declares {1}"
// CHECK:         tensor.empty() : tensor<1x1x4x6xf32>
// CHECK:         linalg.generic
// CHECK:           %[[Q:.*]] = arith.divf
// CHECK:           %[[LT:.*]] = arith.cmpf olt
// CHECK:           %[[C:.*]] = math.ceil %[[Q]] : f64
// CHECK:           %[[F:.*]] = math.floor %[[Q]] : f64
// CHECK:           arith.select %[[LT]], %[[C]], %[[F]] : f64
// CHECK-COUNT-1:   tensor.extract %[[X]]
func.func @upsample(%x: tensor<1x1x2x2xf32>, %s: tensor<4xf32>) -> tensor<1x1x4x6xf32> {
  %0 = "onnx.Upsample"(%x, %s) {mode = "nearest"} : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x6xf32>
  return %0 : tensor<1x1x4x6xf32>
}

// -----

func.func @linear_integer(%x: tensor<2x3xi32>) -> tensor<4x6xi32> {
  %none = onnx.NoValue
  %s = "onnx.Constant"() {value = dense<[2.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  // expected-error @+1 {{Resize: linear and cubic interpolation of 'i32' is not supported}}
  %0 = "onnx.Resize"(%x, %none, %s, %none) {mode = "linear"} : (tensor<2x3xi32>, none, tensor<2xf32>, none) -> tensor<4x6xi32>
  return %0 : tensor<4x6xi32>
}

// -----

func.func @bad_mode(%x: tensor<2x3xf32>, %s: tensor<2xf32>) -> tensor<?x?xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{Resize: mode 'area' is not supported}}
  %0 = "onnx.Resize"(%x, %none, %s, %none) {mode = "area"} : (tensor<2x3xf32>, none, tensor<2xf32>, none) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @crop_without_roi(%x: tensor<2x3xf32>, %s: tensor<2xf32>) -> tensor<?x?xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{Resize: tf_crop_and_resize needs the roi input}}
  %0 = "onnx.Resize"(%x, %none, %s, %none) {coordinate_transformation_mode = "tf_crop_and_resize"} : (tensor<2x3xf32>, none, tensor<2xf32>, none) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @scales_and_sizes(%x: tensor<2x3xf32>) -> tensor<?x?xf32> {
  %none = onnx.NoValue
  %s = "onnx.Constant"() {value = dense<[2.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %sz = "onnx.Constant"() {value = dense<[4, 6]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+1 {{Resize: scales (2 entries) and sizes are both given; only one may be}}
  %0 = "onnx.Resize"(%x, %none, %s, %sz) : (tensor<2x3xf32>, none, tensor<2xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @wrong_length(%x: tensor<2x3xf32>) -> tensor<?x?xf32> {
  %none = onnx.NoValue
  %s = "onnx.Constant"() {value = dense<[2.0, 2.0, 2.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  // expected-error @+1 {{Resize: scales has 3 entries, expected one per input dim (2)}}
  %0 = "onnx.Resize"(%x, %none, %s, %none) : (tensor<2x3xf32>, none, tensor<3xf32>, none) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// GridSample (PyTorch's rules): the grid's two coordinates are read per
// output element, unnormalized ((g + 1) * size - 1) / 2, and the 2 x 2
// bilinear taps read the input at clamped indices, 0 off the input.
// CHECK-LABEL: func.func @gridsample_bilinear
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?x?x?xf32>, %[[G:.*]]: tensor<?x?x?x?xf32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK:         %[[C:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK:         tensor.dim %[[X]]
// CHECK:         tensor.dim %[[X]]
// CHECK:         tensor.dim %[[G]]
// CHECK:         %[[HO:.*]] = tensor.dim %[[G]], %{{.*}}
// CHECK:         %[[WO:.*]] = tensor.dim %[[G]], %{{.*}}
// CHECK:         onyx.assert %{{.*}}, "GridSample: batch of X and grid mismatch: {0} vs {1}"
// CHECK:         onyx.assert %{{.*}}, "GridSample: grid's last dim and the spatial rank mismatch: {0} vs {1}"
// CHECK:         onyx.assert %{{.*}}, "GridSample: X's spatial dims {0} x {1} must be non-empty"
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%[[N]], %[[C]], %[[HO]], %[[WO]]) : tensor<?x?x?x?xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%[[EMPTY]] : tensor<?x?x?x?xf32>)
// CHECK:           %[[I0:.*]] = linalg.index 0 : index
// CHECK:           %[[I1:.*]] = linalg.index 1 : index
// CHECK:           %[[I2:.*]] = linalg.index 2 : index
// CHECK:           %[[I3:.*]] = linalg.index 3 : index
// CHECK:           tensor.extract %[[G]][%[[I0]], %[[I2]], %[[I3]], %{{.*}}]
// CHECK:           tensor.extract %[[G]][%[[I0]], %[[I2]], %[[I3]], %{{.*}}]
// CHECK:           math.floor
// CHECK-COUNT-4:   tensor.extract %[[X]][%[[I0]], %[[I1]], %{{.*}}, %{{.*}}]
// CHECK-NOT:       tensor.extract
// CHECK:           arith.truncf %{{.*}} : f64 to f32
func.func @gridsample_bilinear(%x: tensor<?x?x?x?xf32>, %g: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %0 = "onnx.GridSample"(%x, %g) {mode = "bilinear", padding_mode = "zeros", align_corners = 0 : i64} : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// Reflection padding folds the coordinate with fmod; bicubic reads 4 x 4
// taps, the padding rule applied to each.
// CHECK-LABEL: func.func @gridsample_bicubic_reflection
// CHECK:         tensor.empty() : tensor<1x1x2x4xf32>
// CHECK:         linalg.generic
// CHECK:           arith.remf
// CHECK-COUNT-16:  tensor.extract %arg0
func.func @gridsample_bicubic_reflection(%x: tensor<1x1x3x2xf32>, %g: tensor<1x2x4x2xf32>) -> tensor<1x1x2x4xf32> {
  %0 = "onnx.GridSample"(%x, %g) {mode = "bicubic", padding_mode = "reflection", align_corners = 1 : i64} : (tensor<1x1x3x2xf32>, tensor<1x2x4x2xf32>) -> tensor<1x1x2x4xf32>
  return %0 : tensor<1x1x2x4xf32>
}

// -----

// Volumetric GridSample (opset 20): the grid's last dim is 3 (x samples W,
// z samples D), trilinear interpolation reads 2 x 2 x 2 taps.
// CHECK-LABEL: func.func @gridsample_volumetric
// CHECK:         tensor.empty() : tensor<1x1x2x4x2xf32>
// CHECK:         linalg.generic
// CHECK-COUNT-3:   tensor.extract %arg1
// CHECK-COUNT-8:   tensor.extract %arg0
// CHECK:           arith.truncf %{{.*}} : f64 to f32
func.func @gridsample_volumetric(%x: tensor<1x1x3x2x2xf32>, %g: tensor<1x2x4x2x3xf32>) -> tensor<1x1x2x4x2xf32> {
  %0 = "onnx.GridSample"(%x, %g) {mode = "linear", padding_mode = "zeros", align_corners = 0 : i64} : (tensor<1x1x3x2x2xf32>, tensor<1x2x4x2x3xf32>) -> tensor<1x1x2x4x2xf32>
  return %0 : tensor<1x1x2x4x2xf32>
}

// -----

// Cubic interpolation is defined for 2-D inputs only.
func.func @gridsample_volumetric_cubic(%x: tensor<1x1x3x2x2xf32>, %g: tensor<1x2x4x2x3xf32>) -> tensor<1x1x2x4x2xf32> {
  // expected-error @+1 {{GridSample: cubic interpolation is defined for 2-D inputs only}}
  %0 = "onnx.GridSample"(%x, %g) {mode = "cubic", padding_mode = "zeros", align_corners = 0 : i64} : (tensor<1x1x3x2x2xf32>, tensor<1x2x4x2x3xf32>) -> tensor<1x1x2x4x2xf32>
  return %0 : tensor<1x1x2x4x2xf32>
}

// -----

func.func @gridsample_1d(%x: tensor<1x1x4xf32>, %g: tensor<1x2x1xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{GridSample: X must be [N, C, H, W] with grid [N, H_out, W_out, 2], or [N, C, D, H, W] with grid [N, D_out, H_out, W_out, 3]}}
  %0 = "onnx.GridSample"(%x, %g) : (tensor<1x1x4xf32>, tensor<1x2x1xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
