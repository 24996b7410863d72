// RUN: onyx-opt %s --onyx-pool-allocations --canonicalize | FileCheck %s
//
// (This was an expected failure until the pass was fixed.)
// BUG (onyx-pool-allocations liveness): a temporary that leaves a region
// through its terminator is an alias of the region op's result, but
// lastUse() only follows the memref *results of the users* of a buffer. The
// user here is the scf.yield (counted at the scf.if, its top-level
// ancestor); scf.yield has no results, so %r, which is %a, is never
// followed. %a's lifetime ends at the scf.if, %b is placed at the same
// offset, and the memref.copy of %r after %b is written reads %b's data: a
// silent miscompile.
//
// Proposed fix (lib/Transforms/PoolAllocations.cpp, lastUse): when a user
// is a terminator (RegionBranchTerminatorOpInterface, e.g. scf.yield,
// scf.condition), also push the results of its parent op (all of them, or
// the successor results that the operand is forwarded to); likewise, for a
// user with regions (RegionBranchOpInterface), the region arguments the
// operand flows into are covered already because nested uses count at the
// top-level op. The conservative form, "any user whose parent region op
// returns memrefs pushes those results", is one line. Until then the pass
// could refuse to share a buffer that reaches any terminator.
//
// Expected: %a and %b overlap (the copy of %r after %b), so their
// footprints are summed and %b is not at offset 0.

// CHECK-LABEL: func.func @onyx_main(
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[C512:.*]] = arith.constant 512 : index
// CHECK:         %[[POOL:.*]] = onyx.get_pool %{{.*}}, %[[C512]]
// CHECK:         %[[A:.*]] = memref.view %[[POOL]][%[[C0]]][] : memref<?xi8> to memref<64xf32>
// CHECK:         scf.if
// CHECK:         %[[B:.*]] = memref.view %[[POOL]][%[[C256]]][] : memref<?xi8> to memref<64xf32>
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %x = onyx.get_input %ctx[0] : memref<?xf32>
  %other = onyx.get_input %ctx[1] : memref<64xf32>
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %cond = arith.cmpi sgt, %n, %c0 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %a = onyx.alloc_temp %ctx : memref<64xf32>
  linalg.fill ins(%one : f32) outs(%a : memref<64xf32>)
  %r = scf.if %cond -> memref<64xf32> {
    %sv = memref.subview %a[0] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1]>>
    linalg.fill ins(%two : f32) outs(%sv : memref<32xf32, strided<[1]>>)
    scf.yield %a : memref<64xf32>
  } else {
    scf.yield %other : memref<64xf32>
  }
  %b = onyx.alloc_temp %ctx : memref<64xf32>
  linalg.fill ins(%two : f32) outs(%b : memref<64xf32>)
  %out = onyx.alloc_output %ctx[0] : memref<64xf32>
  memref.copy %r, %out : memref<64xf32> to memref<64xf32>
  %out1 = onyx.alloc_output %ctx[1] : memref<64xf32>
  memref.copy %b, %out1 : memref<64xf32> to memref<64xf32>
  %zero = arith.constant 0 : i32
  return %zero : i32
}
