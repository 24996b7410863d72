// RUN: onyx-opt %s --onyx-pool-allocations | FileCheck %s
//
// (This was an expected failure until the pass was fixed.)
// BUG (onyx-pool-allocations, makeAvailable): to put a later allocation's
// size arithmetic at the domain anchor, the pass moves every op that is
// memory-effect free (isMemoryEffectFree), including ops that are not
// speculatable. arith.divui/divsi/remui/remsi/ceildivsi by a value that is
// not a known non-zero constant are not speculatable: here the division is
// guarded by an onyx.assert, and the pass hoists it above the assert (to the
// first allocation). At run time a zero divisor then traps (SIGFPE on x86)
// before the assert can return its error from inference_compute: the
// process dies, against the runtime's "never abort" contract. (The same
// hoisting also moves the pool request before asserts that validate shapes,
// so a bad input can fail with "onyxrt_get_pool: negative size" instead of
// the assert's message; less harmful, same cause.)
//
// Proposed fix: in makeAvailable, require mlir::isPure(def) (memory-effect
// free AND speculatable) instead of isMemoryEffectFree(def), and never move
// an op across an onyx.assert that it does not dominate; an allocation whose
// size needs a non-speculatable op after the anchor starts a new domain,
// like a readback does.
//
// Expected: the division by %d stays after the assert.

// CHECK-LABEL: func.func @onyx_main(
// CHECK:         %[[N:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?xf32>
// CHECK:         %[[D:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?xf32>
// CHECK-NOT:     arith.divui %[[N]], %[[D]]
// CHECK:         onyx.assert
// CHECK:         arith.divui %[[N]], %[[D]]
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %x = onyx.get_input %ctx[0] : memref<?xf32>
  %y = onyx.get_input %ctx[1] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %d = memref.dim %y, %c0 : memref<?xf32>
  %cst = arith.constant 1.0 : f32
  %a = onyx.alloc_temp %ctx(%n) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<?xf32>)
  %ok = arith.cmpi ne, %d, %c0 : index
  onyx.assert %ok, "divisor is zero"
  %q = arith.divui %n, %d : index
  %b = onyx.alloc_temp %ctx(%q) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%b : memref<?xf32>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}
