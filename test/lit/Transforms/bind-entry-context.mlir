// RUN: onyx-opt %s --onyx-bind-entry-context -split-input-file \
// RUN:   -verify-diagnostics | FileCheck %s
//
// The bufferized graph function becomes the runtime entry
// @onyx_main(!onyx.context) -> i32: arguments are read with onyx.get_input,
// the buffer allocated for a graph output becomes onyx.alloc_output, every
// other allocation onyx.alloc_temp (deallocations go away), a returned buffer
// the function did not allocate is copied into a fresh output, and the
// signature is recorded in the module attribute onyx.model_metadata.

// CHECK-LABEL: module attributes
// CHECK-SAME:    onyx.model_metadata = "onyx-model v1\0Ainput x 1 2 ?batch 4\0Ainput w 7 1 3\0Aoutput y 1 2 ?batch 4\0Aoutput z 7 1 3\0A"
// CHECK-NOT:   func.func @main_graph
// CHECK:       func.func @onyx_main(%[[CTX:.*]]: !onyx.context) -> i32 {
// CHECK-NEXT:    %[[X:.*]] = onyx.get_input %[[CTX]][0] : memref<?x4xf32>
// CHECK-NEXT:    %[[W:.*]] = onyx.get_input %[[CTX]][1] : memref<3xi64>
// CHECK:         %[[DIM:.*]] = memref.dim %[[X]], %{{.*}} : memref<?x4xf32>
// CHECK:         %[[TMP:.*]] = onyx.alloc_temp %[[CTX]](%[[DIM]]) : memref<?x4xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[X]] : memref<?x4xf32>) outs(%[[TMP]] : memref<?x4xf32>)
// CHECK:         %[[OUT:.*]] = onyx.alloc_output %[[CTX]][0] (%[[DIM]]) : memref<?x4xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[TMP]] : memref<?x4xf32>) outs(%[[OUT]] : memref<?x4xf32>)
// CHECK-NOT:     memref.dealloc
// CHECK:         %[[OUT1:.*]] = onyx.alloc_output %[[CTX]][1] : memref<3xi64>
// CHECK-NEXT:    memref.copy %[[W]], %[[OUT1]] : memref<3xi64> to memref<3xi64>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    return %[[ZERO]] : i32
// CHECK-NEXT:  }
func.func @main_graph(%arg0: memref<?x4xf32> {onnx.name = "x", onnx.dim_params = "0:batch"},
                      %arg1: memref<3xi64> {onnx.name = "w"})
    -> (memref<?x4xf32> {onnx.name = "y", onnx.dim_params = "0:batch"},
        memref<3xi64> {onnx.name = "z"}) {
  %c0 = arith.constant 0 : index
  %dim = memref.dim %arg0, %c0 : memref<?x4xf32>
  %tmp = memref.alloc(%dim) : memref<?x4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%arg0 : memref<?x4xf32>) outs(%tmp : memref<?x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  %out = memref.alloc(%dim) {alignment = 64 : i64} : memref<?x4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%tmp : memref<?x4xf32>) outs(%out : memref<?x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  memref.dealloc %tmp : memref<?x4xf32>
  return %out, %arg1 : memref<?x4xf32>, memref<3xi64>
}

// -----

// The spec's single-output case: an argument returned directly is copied
// into an output allocated with the argument's dynamic extents. Names
// outside [A-Za-z0-9_.:/-] are %XX-escaped; unnamed results get a default
// name; a dynamic dim without a dim_param is a bare "?".
// CHECK-LABEL: module attributes
// CHECK-SAME:    onyx.model_metadata = "onyx-model v1\0Ainput in%20put 1 2 ?n ?m\0Aoutput y 1 2 ? ?\0Aoutput output_1 1 2 ? ?\0A"
// CHECK:       func.func @onyx_main(%[[CTX:.*]]: !onyx.context) -> i32 {
// CHECK-NEXT:    %[[IN:.*]] = onyx.get_input %[[CTX]][0] : memref<?x?xf32>
// CHECK:         %[[A:.*]] = onyx.alloc_output %[[CTX]][0] (%{{.*}}, %{{.*}}) : memref<?x?xf32>
// CHECK:         memref.copy %[[IN]], %[[A]]
// The same buffer returned a second time is copied as well.
// CHECK:         %[[D0:.*]] = memref.dim %[[A]], %{{.*}} : memref<?x?xf32>
// CHECK:         %[[D1:.*]] = memref.dim %[[A]], %{{.*}} : memref<?x?xf32>
// CHECK:         %[[B:.*]] = onyx.alloc_output %[[CTX]][1] (%[[D0]], %[[D1]]) : memref<?x?xf32>
// CHECK-NEXT:    memref.copy %[[A]], %[[B]] : memref<?x?xf32> to memref<?x?xf32>
// CHECK-NOT:     memref.alloc
// CHECK:         return %{{.*}} : i32
func.func @main_graph(%arg0: memref<?x?xf32> {onnx.name = "in put", onnx.dim_params = "0:n,1:m"})
    -> (memref<?x?xf32> {onnx.name = "y"}, memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = memref.dim %arg0, %c0 : memref<?x?xf32>
  %d1 = memref.dim %arg0, %c1 : memref<?x?xf32>
  %out = memref.alloc(%d0, %d1) : memref<?x?xf32>
  memref.copy %arg0, %out : memref<?x?xf32> to memref<?x?xf32>
  return %out, %out : memref<?x?xf32>, memref<?x?xf32>
}

// -----

// Returning an argument directly, with no allocation at all.
// CHECK-LABEL: module attributes
// CHECK-SAME:    onyx.model_metadata = "onyx-model v1\0Ainput x 1 2 ?batch 4\0Aoutput y 1 2 ?batch 4\0A"
// CHECK:       func.func @onyx_main(%[[CTX:.*]]: !onyx.context) -> i32 {
// CHECK-NEXT:    %[[X:.*]] = onyx.get_input %[[CTX]][0] : memref<?x4xf32>
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D:.*]] = memref.dim %[[X]], %[[C0]] : memref<?x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = onyx.alloc_output %[[CTX]][0] (%[[D]]) : memref<?x4xf32>
// CHECK-NEXT:    memref.copy %[[X]], %[[Y]] : memref<?x4xf32> to memref<?x4xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    return %[[ZERO]] : i32
func.func @main_graph(%arg0: memref<?x4xf32> {onnx.name = "x", onnx.dim_params = "0:batch"})
    -> (memref<?x4xf32> {onnx.name = "y", onnx.dim_params = "0:batch"}) {
  return %arg0 : memref<?x4xf32>
}

// -----

// Element types map to ONNX TensorProto codes.
// CHECK-LABEL: module attributes
// CHECK-SAME:    onyx.model_metadata = "onyx-model v1\0Ainput a 11 0\0Ainput b 9 1 2\0Ainput c 2 1 2\0Ainput d 6 1 2\0Aoutput e 10 1 2\0A"
// CHECK:       func.func @onyx_main
// CHECK:         onyx.get_input %{{.*}}[3] : memref<2xi32>
// CHECK:         onyx.alloc_output %{{.*}}[0] : memref<2xf16>
func.func @main_graph(%a: memref<f64> {onnx.name = "a"}, %b: memref<2xi1> {onnx.name = "b"},
                      %c: memref<2xui8> {onnx.name = "c"}, %d: memref<2xi32> {onnx.name = "d"})
    -> (memref<2xf16> {onnx.name = "e"}) {
  %e = memref.alloc() : memref<2xf16>
  return %e : memref<2xf16>
}

// -----

// External weights: one index per distinct range; a gathered weight
// (concat_rows) is a weight_concat line over its ranges' indices, read raw
// and converted (10: f16) as the session gathers them; the same gathered
// weight twice is one index.
// CHECK-LABEL: module attributes
// CHECK-SAME:    onyx.model_metadata = "onyx-model v1\0Aoutput y 10 1 12\0Aweight 0 0 48 0 w.bin\0Aweight 1 48 48 0 w.bin\0Aweight 2 96 24 1F w.bin\0Aweight_concat 3 2 10 0 1 2\0A"
// CHECK:       func.func @onyx_main(%[[CTX:.*]]: !onyx.context) -> i32 {
// CHECK:         onyx.get_weight %[[CTX]][0] : memref<2x6xf32>
// CHECK:         onyx.get_weight %[[CTX]][3] : memref<2x12xf16>
// CHECK:         onyx.get_weight %[[CTX]][3] : memref<2x12xf16>
// CHECK:         return
func.func @main_graph() -> (memref<12xf16> {onnx.name = "y"}) {
  %plain = onyx.weight_buffer {location = "w.bin", offset = 0 : i64, length = 48 : i64, checksum = 0 : i64} : memref<2x6xf32>
  %g1 = onyx.weight_buffer {location = "w.bin", offset = 0 : i64, length = 48 : i64, checksum = 0 : i64, concat_rows = 2 : i64, concat_ranges = array<i64: 48, 48, 0, 96, 24, 31>, onyx.file_element_type = f32} : memref<2x12xf16>
  %g2 = onyx.weight_buffer {location = "w.bin", offset = 0 : i64, length = 48 : i64, checksum = 0 : i64, concat_rows = 2 : i64, concat_ranges = array<i64: 48, 48, 0, 96, 24, 31>, onyx.file_element_type = f32} : memref<2x12xf16>
  %out = memref.alloc() : memref<12xf16>
  %c0 = arith.constant 0 : index
  %a = memref.load %g1[%c0, %c0] : memref<2x12xf16>
  %b = memref.load %g2[%c0, %c0] : memref<2x12xf16>
  %p = memref.load %plain[%c0, %c0] : memref<2x6xf32>
  %s = arith.addf %a, %b : f16
  memref.store %s, %out[%c0] : memref<12xf16>
  return %out : memref<12xf16>
}

// -----

// expected-error @below {{no graph function named 'main_graph'}}
module {
  func.func @other() {
    return
  }
}
