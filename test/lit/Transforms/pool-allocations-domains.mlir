// RUN: onyx-opt %s --onyx-pool-allocations=placement=compile -split-input-file \
// RUN:   | FileCheck %s
//
// Sizes that only look data-dependent do not split pool domains:
//  - a memref.dim of a temporary's reshape is the extent its producer
//    states (allocation size, expand_shape output_shape, view sizes);
//  - an unsigned division whose divisor is provably non-zero (the
//    `select(p == 0, 1, p)` guard of the Reshape helper) may move above the
//    asserts it was written after.

// CHECK-LABEL: func.func @onyx_main(
// CHECK-COUNT-1: onyx.get_pool
// CHECK-NOT:     onyx.get_pool
// CHECK-NOT:     memref.dim %{{.*}}expand
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %x = onyx.get_input %ctx[0] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %a = onyx.alloc_temp %ctx(%n) : memref<?x4xf32>
  %f = arith.constant 1.0 : f32
  linalg.fill ins(%f : f32) outs(%a : memref<?x4xf32>)
  %e = memref.expand_shape %a [[0, 1], [2]] output_shape [%n, 1, 4] : memref<?x4xf32> into memref<?x1x4xf32>
  %d = memref.dim %e, %c0 : memref<?x1x4xf32>
  %b = onyx.alloc_temp %ctx(%d) : memref<?xf32>
  linalg.fill ins(%f : f32) outs(%b : memref<?xf32>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----

// CHECK-LABEL: func.func @onyx_main(
// CHECK:         arith.divui
// CHECK:         onyx.get_pool
// CHECK-NOT:     onyx.get_pool
// CHECK:         onyx.assert
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %x = onyx.get_input %ctx[0] : memref<?xf32>
  %y = onyx.get_input %ctx[1] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %p = memref.dim %y, %c0 : memref<?xf32>
  %a = onyx.alloc_temp %ctx(%n) : memref<?xf32>
  %f = arith.constant 1.0 : f32
  linalg.fill ins(%f : f32) outs(%a : memref<?xf32>)
  %ok = arith.cmpi ne, %p, %c0 : index
  onyx.assert %ok, "p must not be zero"
  %isZero = arith.cmpi eq, %p, %c0 : index
  %safe = arith.select %isZero, %c1, %p : index
  %q = arith.divui %n, %safe : index
  %b = onyx.alloc_temp %ctx(%q) : memref<?xf32>
  linalg.fill ins(%f : f32) outs(%b : memref<?xf32>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}
