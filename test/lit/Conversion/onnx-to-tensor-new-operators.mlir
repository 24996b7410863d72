// RUN: onyx-opt %s --convert-onnx-to-tensor --mlir-print-local-scope \
// RUN:   -split-input-file -verify-diagnostics \
// RUN:   | FileCheck %s --implicit-check-not=onnx.
//
// The operators added for the ONNX 1.23 node suite (NewOperators.cpp,
// NewDataMovement.cpp, NewNormalization.cpp; shapes from
// lib/Shape/NewOperatorShapes.cpp).

// CumProd: CumSum's scan with a product starting at 1; exclusive inserts
// the running product before multiplying, reverse walks the axis back.
// CHECK-LABEL: func.func @cumprod_exclusive_reverse
// CHECK:         %[[X3:.*]] = tensor.reshape %{{.*}} -> tensor<2x3x1xf32>
// CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[PROD:.*]] = %[[ONE]])
// CHECK:               %[[POS:.*]] = arith.subi
// CHECK:               %[[V:.*]] = tensor.extract %[[X3]][%{{.*}}, %[[POS]], %{{.*}}]
// CHECK:               %[[P:.*]] = arith.mulf %[[PROD]], %[[V]] : f32
// CHECK:               tensor.insert %[[PROD]] into %[[ACC]]
// CHECK:               scf.yield %{{.*}}, %[[P]]
// CHECK:         tensor.reshape %{{.*}} -> tensor<2x3xf32>
func.func @cumprod_exclusive_reverse(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %axis = "onnx.Constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %0 = "onnx.CumProd"(%x, %axis) {exclusive = 1 : i64, reverse = 1 : i64} : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Integer CumProd with a run-time axis: the axis is read and range-checked.
// CHECK-LABEL: func.func @cumprod_int_runtime_axis
// CHECK:         tensor.extract %{{.*}}[] : tensor<i32>
// CHECK:         onyx.assert %{{.*}}, "axis {0} is out of range for rank {1}"
// CHECK:         arith.muli %{{.*}} : i32
func.func @cumprod_int_runtime_axis(%x: tensor<?x?xi32>, %axis: tensor<i32>) -> tensor<?x?xi32> {
  %0 = "onnx.CumProd"(%x, %axis) : (tensor<?x?xi32>, tensor<i32>) -> tensor<?x?xi32>
  return %0 : tensor<?x?xi32>
}

// -----

// CenterCropPad: axis 0 is cropped (20 -> 10: offset +5), axis 1 padded
// (10 -> 13: one element of padding before, two after); axis 2 unchanged
// and read without a bounds test.
// CHECK-LABEL: func.func @center_crop_pad
// CHECK-SAME:    (%[[X:.*]]: tensor<20x10x3xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.*}} : tensor<10x13x3xf32>)
// CHECK:           %[[I0:.*]] = linalg.index 0
// CHECK:           %[[I1:.*]] = linalg.index 1
// CHECK:           %[[I2:.*]] = linalg.index 2
// CHECK:           %[[S0:.*]] = arith.addi %[[I0]], %c5
// CHECK:           %[[S1:.*]] = arith.addi %[[I1]], %c-1
// CHECK:           scf.if
// CHECK:             tensor.extract %[[X]][%[[S0]], %[[S1]], %[[I2]]]
// CHECK:           } else {
// CHECK:             scf.yield %[[ZERO]]
func.func @center_crop_pad(%x: tensor<20x10x3xf32>) -> tensor<10x13x3xf32> {
  %s = "onnx.Constant"() {value = dense<[10, 13]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.CenterCropPad"(%x, %s) {axes = [0, -2]} : (tensor<20x10x3xf32>, tensor<2xi64>) -> tensor<10x13x3xf32>
  return %0 : tensor<10x13x3xf32>
}

// -----

// A run-time target shape: the extents are read and checked non-negative.
// CHECK-LABEL: func.func @center_crop_pad_runtime
// CHECK:         onyx.assert %{{.*}}, "CenterCropPad: shape has {0} entries
// CHECK:         onyx.assert %{{.*}}, "CenterCropPad: negative extent {0} for axis 0"
// CHECK:         onyx.assert %{{.*}}, "CenterCropPad: negative extent {0} for axis 1"
// CHECK:         tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?xf32>
func.func @center_crop_pad_runtime(%x: tensor<?x?xf32>, %s: tensor<?xi64>) -> tensor<?x?xf32> {
  %0 = "onnx.CenterCropPad"(%x, %s) : (tensor<?x?xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Col2Im with run-time image and block shapes: the block positions per dim,
// the channel count and L are checked; one generic over the image with a
// reduction over the block positions (bounded by an unread tensor).
// CHECK-LABEL: func.func @col2im
// CHECK:         onyx.assert %{{.*}}, "Col2Im: image_shape[0] = {0} is negative"
// CHECK:         onyx.assert %{{.*}}, "Col2Im: block_shape[0] = {0} is not positive"
// CHECK:         onyx.assert %{{.*}}, "Col2Im: a block of extent {0} (dilated) does not fit in image dim 0
// CHECK:         onyx.assert %{{.*}}, "Col2Im: input dim 1 of extent {0} is not a multiple of prod(block_shape) = {1}"
// CHECK:         onyx.assert %{{.*}}, "Col2Im: input dim 2 of extent {0} is not the number of block positions {1}"
// CHECK:         %[[WINDOW:.*]] = tensor.empty(%{{.*}}) : tensor<?xi8>
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[WINDOW]] : tensor<?xi8>)
// CHECK:           %[[V:.*]] = tensor.extract %{{.*}} : tensor<?x?x?xf32>
// CHECK:           %[[C:.*]] = arith.select %{{.*}}, %[[V]], %{{.*}} : f32
// CHECK:           arith.addf %{{.*}}, %[[C]] : f32
func.func @col2im(%x: tensor<?x?x?xf32>, %image: tensor<2xi64>, %block: tensor<2xi64>) -> tensor<?x?x?x?xf32> {
  %0 = "onnx.Col2Im"(%x, %image, %block) {strides = [2, 1], pads = [0, 1, 0, 1]} : (tensor<?x?x?xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// TensorScatter, circular: the update position is (s - w) mod max_len; an
// element inside the written window reads the update, the others the past.
// CHECK-LABEL: func.func @tensor_scatter_circular
// CHECK-SAME:    (%[[PAST:.*]]: tensor<2x1x4x5xf32>, %[[UPD:.*]]: tensor<2x1x?x5xf32>, %[[W:.*]]: tensor<2xi64>)
// CHECK:         onyx.assert %{{.*}}, "TensorScatter: the update's sequence extent {0} exceeds the cache's {1}"
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[PAST]], %[[W]] : tensor<2x1x4x5xf32>, tensor<2xi64>)
// CHECK:         ^bb0(%[[OLD:.*]]: f32, %[[WI:.*]]: i64, %{{.*}}: f32):
// CHECK:           arith.remsi %{{.*}}, %c4
// CHECK:           scf.if
// CHECK:             tensor.extract %[[UPD]]
// CHECK:           } else {
// CHECK:             scf.yield %[[OLD]]
func.func @tensor_scatter_circular(%past: tensor<2x1x4x5xf32>, %update: tensor<2x1x?x5xf32>, %w: tensor<2xi64>) -> tensor<2x1x4x5xf32> {
  %0 = "onnx.TensorScatter"(%past, %update, %w) {axis = -2 : i64, mode = "circular"} : (tensor<2x1x4x5xf32>, tensor<2x1x?x5xf32>, tensor<2xi64>) -> tensor<2x1x4x5xf32>
  return %0 : tensor<2x1x4x5xf32>
}

// -----

// Linear writes must stay inside the cache: min/max of the write indices
// are folded and asserted.
// CHECK-LABEL: func.func @tensor_scatter_linear
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["reduction"]
// CHECK:           arith.minsi
// CHECK:           arith.maxsi
// CHECK:         onyx.assert %{{.*}}, "TensorScatter: negative write index {0}"
// CHECK:         onyx.assert %{{.*}}, "TensorScatter: write index {0} + sequence length {1} exceeds max_sequence_length {2} (linear mode)"
// CHECK:         linalg.generic
func.func @tensor_scatter_linear(%past: tensor<?x3x8xf16>, %update: tensor<?x3x2xf16>, %w: tensor<?xi64>) -> tensor<?x3x8xf16> {
  %0 = "onnx.TensorScatter"(%past, %update, %w) {axis = 2 : i64, mode = "linear"} : (tensor<?x3x8xf16>, tensor<?x3x2xf16>, tensor<?xi64>) -> tensor<?x3x8xf16>
  return %0 : tensor<?x3x8xf16>
}

// -----

// AffineGrid (2-D, align_corners): base positions -1 + i * 2 / (n - 1) in
// f64 (x from the width index, y from the height index), theta applied.
// CHECK-LABEL: func.func @affine_grid
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.*}} : tensor<2x5x6x2xf32>)
// CHECK:           %[[N:.*]] = linalg.index 0
// CHECK:           %[[C:.*]] = linalg.index 3
// CHECK:           arith.divf %cst{{.*}}, %{{.*}} : f64
// CHECK:           arith.cmpf ole
// CHECK:           tensor.extract %{{.*}}[%[[N]], %[[C]], %c0] : tensor<2x2x3xf32>
// CHECK:           tensor.extract %{{.*}}[%[[N]], %[[C]], %c1] : tensor<2x2x3xf32>
// CHECK:           tensor.extract %{{.*}}[%[[N]], %[[C]], %c2] : tensor<2x2x3xf32>
// CHECK:           arith.truncf %{{.*}} : f64 to f32
func.func @affine_grid(%theta: tensor<2x2x3xf32>) -> tensor<2x5x6x2xf32> {
  %s = "onnx.Constant"() {value = dense<[2, 3, 5, 6]> : tensor<4xi64>} : () -> tensor<4xi64>
  %0 = "onnx.AffineGrid"(%theta, %s) {align_corners = 1 : i64} : (tensor<2x2x3xf32>, tensor<4xi64>) -> tensor<2x5x6x2xf32>
  return %0 : tensor<2x5x6x2xf32>
}

// -----

// A run-time 3-D size: checked against theta's batch extent.
// CHECK-LABEL: func.func @affine_grid_3d_runtime
// CHECK:         onyx.assert %{{.*}}, "AffineGrid: size[0] = {0} differs from theta's batch extent {1}"
// CHECK:         tensor.empty(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : tensor<?x?x?x?x3xf32>
func.func @affine_grid_3d_runtime(%theta: tensor<?x3x4xf32>, %size: tensor<5xi64>) -> tensor<?x?x?x?x3xf32> {
  %0 = "onnx.AffineGrid"(%theta, %size) : (tensor<?x3x4xf32>, tensor<5xi64>) -> tensor<?x?x?x?x3xf32>
  return %0 : tensor<?x?x?x?x3xf32>
}

// -----

// BitCast: float -> unsigned through the signless bits; bool -> uint8
// zero-extends.
// CHECK-LABEL: func.func @bitcast_f32_to_ui32
// CHECK:           %[[B:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK:           builtin.unrealized_conversion_cast %[[B]] : i32 to ui32
func.func @bitcast_f32_to_ui32(%x: tensor<?xf32>) -> tensor<?xui32> {
  %0 = "onnx.BitCast"(%x) {to = 12 : i64} : (tensor<?xf32>) -> tensor<?xui32>
  return %0 : tensor<?xui32>
}

// CHECK-LABEL: func.func @bitcast_bool_to_ui8
// CHECK:           %[[E:.*]] = arith.extui %{{.*}} : i1 to i8
// CHECK:           builtin.unrealized_conversion_cast %[[E]] : i8 to ui8
func.func @bitcast_bool_to_ui8(%x: tensor<3xi1>) -> tensor<3xui8> {
  %0 = "onnx.BitCast"(%x) {to = 2 : i64} : (tensor<3xi1>) -> tensor<3xui8>
  return %0 : tensor<3xui8>
}

// -----

func.func @bitcast_widths(%x: tensor<3xf32>) -> tensor<3xi64> {
  // expected-error @below {{BitCast: 'f32' (32 bits) and 'i64' (64 bits) differ in width; ONNX requires equal widths}}
  %0 = "onnx.BitCast"(%x) {to = 7 : i64} : (tensor<3xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// LpNormalization p = 1: sum of |x| along the axis, then x / norm (0
// where the norm is 0).
// CHECK-LABEL: func.func @lp_norm_l1
// CHECK:         %[[NORM:.*]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK:           math.absf
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %[[NORM]] : tensor<?x3xf32>, tensor<?xf32>)
// CHECK:           %[[Q:.*]] = arith.divf
// CHECK:           %[[Z:.*]] = arith.cmpf oeq
// CHECK:           arith.select %[[Z]], %{{.*}}, %[[Q]]
func.func @lp_norm_l1(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = "onnx.LpNormalization"(%x) {axis = -1 : i64, p = 1 : i64} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// CHECK-LABEL: func.func @lp_norm_l2
// CHECK:         arith.mulf
// CHECK:         math.sqrt
func.func @lp_norm_l2(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = "onnx.LpNormalization"(%x) {axis = 0 : i64, p = 2 : i64} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

func.func @lp_norm_p3(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{LpNormalization: p = 3 is not supported (only 1 and 2 are defined)}}
  %0 = "onnx.LpNormalization"(%x) {axis = 0 : i64, p = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// GroupNormalization: X [N, 4, ?] seen as [N, 2, 2, S]; statistics per
// (n, g) in the f32 stash type; scale and bias as [2, 2].
// CHECK-LABEL: func.func @group_norm
// CHECK:         tensor.reshape %{{.*}} -> tensor<?x2x2x?xf16>
// CHECK:         tensor.reshape %{{.*}} -> tensor<2x2xf16>
// CHECK:         tensor.reshape %{{.*}} -> tensor<2x2xf16>
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:         math.sqrt
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.*}} : tensor<?x2x2x?xf16>)
// CHECK:         tensor.reshape %{{.*}} -> tensor<?x4x?xf16>
func.func @group_norm(%x: tensor<?x4x?xf16>, %s: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<?x4x?xf16> {
  %0 = "onnx.GroupNormalization"(%x, %s, %b) {num_groups = 2 : i64, epsilon = 1.0e-5 : f32, stash_type = 1 : i64} : (tensor<?x4x?xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<?x4x?xf16>
  return %0 : tensor<?x4x?xf16>
}

// -----

// Symbolic channels: the group count must divide them (run-time check).
// CHECK-LABEL: func.func @group_norm_symbolic
// CHECK:         onyx.assert %{{.*}}, "GroupNormalization: {0} channels do not divide into {1} groups"
func.func @group_norm_symbolic(%x: tensor<?x?x?x?xf32>, %s: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?x?x?xf32> {
  %0 = "onnx.GroupNormalization"(%x, %s, %b) {num_groups = 3 : i64} : (tensor<?x?x?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

func.func @group_norm_indivisible(%x: tensor<1x4x2xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<1x4x2xf32> {
  // expected-error @below {{GroupNormalization: 4 channels do not divide into 3 groups}}
  %0 = "onnx.GroupNormalization"(%x, %s, %b) {num_groups = 3 : i64} : (tensor<1x4x2xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2xf32>
  return %0 : tensor<1x4x2xf32>
}

// -----

// SwiGLU: a * sigmoid(alpha * a) * b in one elementwise generic; the
// shapes must be equal (no broadcasting).
// CHECK-LABEL: func.func @swiglu
// CHECK:         onyx.assert %{{.*}}
// CHECK:         linalg.generic
// CHECK:           arith.constant -1.500000e+00 : f32
// CHECK:           math.exp
// CHECK:           arith.divf
// CHECK:           arith.mulf
// CHECK:           arith.mulf
func.func @swiglu(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = "onnx.SwiGLU"(%a, %b) {alpha = 1.5 : f32} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @swiglu_broadcast(%a: tensor<2x4xf32>, %b: tensor<1x4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{SwiGLU: B / A dim 0}}
  %0 = "onnx.SwiGLU"(%a, %b) : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @tensor_scatter_axis0(%past: tensor<2x4xf32>, %update: tensor<1x4xf32>) -> tensor<2x4xf32> {
  %none = onnx.NoValue
  // expected-error @below {{TensorScatter: axis cannot be 0 (the batch dim)}}
  %0 = "onnx.TensorScatter"(%past, %update, %none) {axis = 0 : i64} : (tensor<2x4xf32>, tensor<1x4xf32>, none) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @col2im_too_small(%x: tensor<1x4x1xf32>) -> tensor<1x1x1x1xf32> {
  %image = "onnx.Constant"() {value = dense<[1, 1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %block = "onnx.Constant"() {value = dense<[2, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @below {{Col2Im: a block of extent 2 (dilated) does not fit in image dim 0 of extent 1 plus padding}}
  %0 = "onnx.Col2Im"(%x, %image, %block) : (tensor<1x4x1xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x1x1x1xf32>
  return %0 : tensor<1x1x1x1xf32>
}

// -----

// Resize-18 axes: scales for dims 3 and 2 (in that order) spread over all
// dims; dims 0 and 1 are unresized and pass their index through.
// CHECK-LABEL: func.func @resize_axes_scales
// CHECK-SAME:    (%[[X:.*]]: tensor<1x1x2x2xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.*}} : tensor<1x1x4x6xf32>)
// CHECK:           %[[I0:.*]] = linalg.index 0
// CHECK:           %[[I1:.*]] = linalg.index 1
// CHECK:           arith.constant 2.000000e+00 : f64
// CHECK:           %[[J2:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:           arith.constant 3.000000e+00 : f64
// CHECK:           %[[J3:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:           tensor.extract %[[X]][%[[I0]], %[[I1]], %[[J2]], %[[J3]]]
func.func @resize_axes_scales(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x6xf32> {
  %none = onnx.NoValue
  %s = "onnx.Constant"() {value = dense<[3.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %0 = "onnx.Resize"(%x, %none, %s, %none) {axes = [3, 2], mode = "nearest"} : (tensor<1x1x2x2xf32>, none, tensor<2xf32>, none) -> tensor<1x1x4x6xf32>
  return %0 : tensor<1x1x4x6xf32>
}

// -----

// Run-time sizes for axes 2, 3: the full-rank sizes are the input's dims 0
// and 1 and the two entries read; not_larger gives axes 2 and 3 the
// smaller ratio and round_half_up(scale * in) extents.
// CHECK-LABEL: func.func @resize_axes_runtime_sizes
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?x?x?xf32>, %[[S:.*]]: tensor<?xi64>)
// CHECK:         onyx.assert %{{.*}}, "Resize: sizes has {0} entries, expected {1} (axes has 2)"
// CHECK:         %[[D0:.*]] = tensor.dim %[[X]], %c0
// CHECK:         %[[D1:.*]] = tensor.dim %[[X]], %c1
// CHECK:         tensor.extract %[[S]]
// CHECK:         tensor.extract %[[S]]
// CHECK:         %[[FULL:.*]] = tensor.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xi64>
// CHECK:         tensor.extract %[[FULL]]
// CHECK:         %[[LT:.*]] = arith.cmpf olt, %[[R3:.*]], %[[R2:.*]] : f64
// CHECK:         %[[SCALE:.*]] = arith.select %[[LT]], %[[R3]], %[[R2]] : f64
// CHECK:         %[[L2:.*]] = arith.mulf %[[SCALE]], %{{.*}} : f64
// CHECK:         onyx.assert %{{.*}}, "Resize: dim 2: keep_aspect_ratio_policy gives an extent above 2^52 (input extent {0})"
// CHECK:         %[[H:.*]] = arith.addf %[[L2]], %cst{{.*}} : f64
// CHECK:         math.floor %[[H]]
func.func @resize_axes_runtime_sizes(%x: tensor<?x?x?x?xf32>, %sizes: tensor<?xi64>) -> tensor<?x?x?x?xf32> {
  %none = onnx.NoValue
  %0 = "onnx.Resize"(%x, %none, %none, %sizes) {axes = [2, 3], mode = "nearest", keep_aspect_ratio_policy = "not_larger"} : (tensor<?x?x?x?xf32>, none, none, tensor<?xi64>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// tf_crop_and_resize with axes: the roi [start..., end...] of the named
// dims becomes a full-rank roi (0 and 1 elsewhere).
// CHECK-LABEL: func.func @resize_axes_roi
// CHECK:         tensor.from_elements %cst{{.*}}, %cst{{.*}}, %{{.*}}, %{{.*}}, %cst{{.*}}, %cst{{.*}}, %{{.*}}, %{{.*}} : tensor<8xf64>
func.func @resize_axes_roi(%x: tensor<1x1x4x4xf32>, %roi: tensor<4xf32>) -> tensor<1x1x3x3xf32> {
  %none = onnx.NoValue
  %s = "onnx.Constant"() {value = dense<[3, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.Resize"(%x, %roi, %none, %s) {axes = [2, 3], mode = "linear", coordinate_transformation_mode = "tf_crop_and_resize"} : (tensor<1x1x4x4xf32>, tensor<4xf32>, none, tensor<2xi64>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// half_pixel_symmetric: offset = in / 2 * (1 - out / (in * scale)) (here
// 2 * (1 - 2 / 2.4)) added to the half_pixel coordinate.
// CHECK-LABEL: func.func @resize_half_pixel_symmetric
// CHECK:         linalg.generic
// CHECK:           %[[A:.*]] = arith.addf %{{.*}}, %cst{{.*}} : f64
// CHECK:           %[[D:.*]] = arith.divf %[[A]], %cst{{.*}} : f64
// CHECK:           %[[O:.*]] = arith.addf %cst{{.*}}, %[[D]] : f64
// CHECK:           arith.subf %[[O]], %cst{{.*}} : f64
func.func @resize_half_pixel_symmetric(%x: tensor<1x1x1x4xf32>) -> tensor<1x1x1x2xf32> {
  %none = onnx.NoValue
  %s = "onnx.Constant"() {value = dense<[1.0, 1.0, 1.0, 0.6]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = "onnx.Resize"(%x, %none, %s, %none) {mode = "linear", coordinate_transformation_mode = "half_pixel_symmetric"} : (tensor<1x1x1x4xf32>, none, tensor<4xf32>, none) -> tensor<1x1x1x2xf32>
  return %0 : tensor<1x1x1x2xf32>
}

// -----

func.func @resize_axes_repeated(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %none = onnx.NoValue
  %s = "onnx.Constant"() {value = dense<[2.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  // expected-error @below {{Resize: axis 2 is repeated}}
  %0 = "onnx.Resize"(%x, %none, %s, %none) {axes = [2, -2], mode = "nearest"} : (tensor<1x1x2x2xf32>, none, tensor<2xf32>, none) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @resize_axes_count(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x2x4xf32> {
  %none = onnx.NoValue
  %s = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  // expected-error @below {{Resize: scales has 2 entries, expected 1 (axes has 1)}}
  %0 = "onnx.Resize"(%x, %none, %s, %none) {axes = [3], mode = "nearest"} : (tensor<1x1x2x2xf32>, none, tensor<2xf32>, none) -> tensor<1x1x2x4xf32>
  return %0 : tensor<1x1x2x4xf32>
}

// -----

// DFT with a run-time axis: the axis is normalized and checked, each
// result dim is the transform length where the axis is, and the body
// picks the frequency index and the input position by the same selects.
// Sums are f64 over (k * n mod L) angles; real input: no imaginary read.
// CHECK-LABEL: func.func @dft_runtime_axis
// CHECK:         onyx.assert %{{.*}}, "DFT: axis {0} is out of range for rank {1} (the last dim holds the complex parts)"
// CHECK:         onyx.assert %{{.*}}, "DFT: the transform length {0} must be positive"
// CHECK:         %[[SUM:.*]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:      outs(%{{.*}} : tensor<1x10x10x2xf64>)
// CHECK:           arith.muli
// CHECK:           arith.remui
// CHECK:           math.cos
// CHECK:           math.sin
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[SUM]] : tensor<1x10x10x2xf64>)
// CHECK:           arith.truncf %{{.*}} : f64 to f32
func.func @dft_runtime_axis(%x: tensor<1x10x10x1xf32>, %axis: tensor<i64>) -> tensor<1x10x10x2xf32> {
  %none = onnx.NoValue
  %0 = "onnx.DFT"(%x, %none, %axis) : (tensor<1x10x10x1xf32>, none, tensor<i64>) -> tensor<1x10x10x2xf32>
  return %0 : tensor<1x10x10x2xf32>
}

// -----

// IRFFT (inverse, onesided): L = 2 * (6 - 1) = 10 by default, the 6 input
// bins summed (all but 0 and L/2 twice), a real result scaled by 1 / L.
// CHECK-LABEL: func.func @dft_irfft
// CHECK:         %[[W:.*]] = tensor.empty() : tensor<6xi8>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[W]] : tensor<6xi8>)
// CHECK-SAME:      outs(%{{.*}} : tensor<1x10x10x1xf64>)
// CHECK:           arith.constant 2.000000e+00 : f64
// CHECK:         linalg.generic
// CHECK:           arith.mulf %in, %{{.*}} : f64
// CHECK:           arith.truncf
func.func @dft_irfft(%x: tensor<1x6x10x2xf32>) -> tensor<1x10x10x1xf32> {
  %none = onnx.NoValue
  %axis = "onnx.Constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %0 = "onnx.DFT"(%x, %none, %axis) {inverse = 1 : i64, onesided = 1 : i64} : (tensor<1x6x10x2xf32>, none, tensor<i64>) -> tensor<1x10x10x1xf32>
  return %0 : tensor<1x10x10x1xf32>
}

// -----

// STFT: frame f reads samples f * step + n, weighted by the window in f32.
// CHECK-LABEL: func.func @stft_window
// CHECK:         onyx.assert %{{.*}}, "STFT: frame_step {0} must be positive"
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.*}} : tensor<1x15x9x2xf64>)
// CHECK:           %[[P:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK:           %[[POS:.*]] = arith.addi %[[P]], %{{.*}} : index
// CHECK:           %[[S:.*]] = tensor.extract %{{.*}}[%{{.*}}, %[[POS]], %{{.*}}] : tensor<1x128x1xf32>
// CHECK:           %[[WV:.*]] = tensor.extract %{{.*}} : tensor<16xf32>
// CHECK:           arith.mulf %[[S]], %[[WV]] : f32
func.func @stft_window(%x: tensor<1x128x1xf32>, %step: tensor<i64>, %w: tensor<16xf32>) -> tensor<1x15x9x2xf32> {
  %none = onnx.NoValue
  %0 = "onnx.STFT"(%x, %step, %w, %none) : (tensor<1x128x1xf32>, tensor<i64>, tensor<16xf32>, none) -> tensor<1x15x9x2xf32>
  return %0 : tensor<1x15x9x2xf32>
}

// -----

// MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins] from run-time
// scalars; mel edges in f32, bins in f64 (10^(mel / 2595), floor division).
// CHECK-LABEL: func.func @mel_weight_matrix
// CHECK:         onyx.assert %{{.*}}, "MelWeightMatrix: num_mel_bins {0} must be positive"
// CHECK:         math.log10 %{{.*}} : f32
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.*}} : tensor<?x?xf32>)
// CHECK:           math.powf %{{.*}} : f64
// CHECK:           arith.remf
// CHECK:           math.floor
func.func @mel_weight_matrix(%n: tensor<i32>, %l: tensor<i32>, %r: tensor<i32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<?x?xf32> {
  %0 = "onnx.MelWeightMatrix"(%n, %l, %r, %lo, %hi) : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @dft_bad_axis(%x: tensor<4x8x2xf32>) -> tensor<4x8x2xf32> {
  %none = onnx.NoValue
  %axis = "onnx.Constant"() {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  // expected-error @below {{DFT: axis 2 is out of range for rank 3 (the last dim holds the complex parts)}}
  %0 = "onnx.DFT"(%x, %none, %axis) : (tensor<4x8x2xf32>, none, tensor<i64>) -> tensor<4x8x2xf32>
  return %0 : tensor<4x8x2xf32>
}
