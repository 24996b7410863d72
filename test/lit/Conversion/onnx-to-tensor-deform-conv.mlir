// RUN: onyx-opt %s --convert-onnx-to-tensor --mlir-print-local-scope \
// RUN:   | FileCheck %s --implicit-check-not=onnx.
//
// DeformConv (NewDeformConv.cpp): one generic over (n, oc, i, j) reducing
// over the group's input channels and the taps (W gives their extents);
// each tap reads its two offsets, floors the moved coordinates and blends
// four clamped reads of X; then the bias. With a symbolic batch the
// consistency of the offset's batch dim is checked at run time.
// CHECK-LABEL: func.func @deform_conv
// CHECK:         onyx.assert %{{.*}}, "DeformConv: offset dim 0 / batch mismatch: {0} vs {1}"
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-COUNT-2:   tensor.extract %arg2[
// CHECK-COUNT-2:   math.floor
// CHECK-COUNT-4:   tensor.extract %arg0[
// CHECK:         linalg.generic {{.*}} ins(%[[SUM]], %arg3 : tensor<?x4x4x4xf32>, tensor<4xf32>)
func.func @deform_conv(%x: tensor<?x2x5x5xf32>, %w: tensor<4x1x2x2xf32>, %off: tensor<?x16x4x4xf32>, %b: tensor<4xf32>) -> tensor<?x4x4x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnx.DeformConv"(%x, %w, %off, %b, %none) {group = 2 : i64, offset_group = 2 : i64} : (tensor<?x2x5x5xf32>, tensor<4x1x2x2xf32>, tensor<?x16x4x4xf32>, tensor<4xf32>, none) -> tensor<?x4x4x4xf32>
  return %y : tensor<?x4x4x4xf32>
}
