// RUN: onyx-opt %s -split-input-file -verify-diagnostics
//
// A gathered external weight (onnx-merge-sibling-matmuls): concat_rows and
// concat_ranges together, whole [offset, length, checksum] triples, every
// range of concat_rows equal rows.

func.func @only_rows() -> tensor<2x4xf32> {
  // expected-error @below {{needs both concat_rows and concat_ranges, or neither}}
  %w = onyx.weight {location = "w.bin", offset = 0 : i64, length = 16 : i64, checksum = 0 : i64, concat_rows = 2 : i64} : tensor<2x4xf32>
  return %w : tensor<2x4xf32>
}

// -----

func.func @partial_triple() -> tensor<2x4xf32> {
  // expected-error @below {{concat_ranges must hold [offset, length, checksum] triples}}
  %w = onyx.weight {location = "w.bin", offset = 0 : i64, length = 16 : i64, checksum = 0 : i64, concat_rows = 2 : i64, concat_ranges = array<i64: 16, 16>} : tensor<2x4xf32>
  return %w : tensor<2x4xf32>
}

// -----

func.func @uneven_rows() -> tensor<2x4xf32> {
  // expected-error @below {{a concat range of 15 bytes does not hold 2 equal rows}}
  %w = onyx.weight {location = "w.bin", offset = 0 : i64, length = 16 : i64, checksum = 0 : i64, concat_rows = 2 : i64, concat_ranges = array<i64: 16, 15, 0>} : tensor<2x4xf32>
  return %w : tensor<2x4xf32>
}

// -----

func.func @no_rows() -> memref<2x4xf32> {
  // expected-error @below {{concat_rows must be positive, not 0}}
  %w = onyx.weight_buffer {location = "w.bin", offset = 0 : i64, length = 16 : i64, checksum = 0 : i64, concat_rows = 0 : i64, concat_ranges = array<i64: 16, 16, 0>} : memref<2x4xf32>
  return %w : memref<2x4xf32>
}
