// RUN: onyx-opt %s --onyx-pool-allocations | FileCheck %s
//
// (This was an expected failure until the pass was fixed.)
// BUG (onyx-pool-allocations): the pass assumes a single-block entry
// (the RFC: "The shipping pass requires a single-block function") but
// neither checks it nor handles it. Only the first block is scanned for
// allocations; a use of a temporary in another block makes topLevel() walk
// getParentOp() past the function and the module to nullptr, and onyx-opt
// crashes with a segmentation fault (stack: PoolAllocationsPass::emitDomain
// -> lastUse -> topLevel). Such IR reaches the pass whenever an earlier
// pass (or a user of onyx-opt) lowers control flow to cf before pooling.
//
// Proposed fix: in runOnOperation, if the entry has more than one block,
// leave it unchanged (temporaries stay onyx.alloc_temp: correct, only not
// pooled) or emit a diagnostic; alternatively treat a use outside the entry
// block as live until the end of the function (position = body.size()).
//
// Expected: no crash; the function is printed (whether %a is pooled or not).

// CHECK-LABEL: func.func @onyx_main(
// CHECK:         cf.br ^bb1
// CHECK:       ^bb1:
// CHECK:         memref.copy
// CHECK:         return
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %cst = arith.constant 1.0 : f32
  %a = onyx.alloc_temp %ctx : memref<64xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<64xf32>)
  cf.br ^bb1
^bb1:
  %out = onyx.alloc_output %ctx[0] : memref<64xf32>
  memref.copy %a, %out : memref<64xf32> to memref<64xf32>
  %zero = arith.constant 0 : i32
  return %zero : i32
}
