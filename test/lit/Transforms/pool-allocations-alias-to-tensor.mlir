// RUN: onyx-opt %s --onyx-pool-allocations --canonicalize | FileCheck %s
//
// (This was an expected failure until the pass was fixed.)
// BUG (onyx-pool-allocations liveness): the issue lists bufferization
// casts among the forward aliases, but lastUse() follows only results of
// type BaseMemRefType. bufferization.to_tensor returns a tensor that aliases
// %a; the bufferization.to_buffer of it after %b is written is the same
// memory again. %a's lifetime ends at the to_tensor, %b is placed at the
// same offset, and %m reads %b's data.
//
// (In the shipping pipeline the canonicalizer after One-Shot Bufferize
// usually folds to_buffer(to_tensor(x)) into x before the pass runs, so
// this needs IR that reaches the pass with the casts in place; the pass
// itself claims to follow them.)
//
// Proposed fix (lastUse): follow every result whose type is a ShapedType
// backed by the buffer, i.e. also TensorType results of
// bufferization.to_tensor (or, simplest and conservative: follow all
// results of a user that are memrefs or tensors).
//
// Expected: %a and %b overlap, 256 + 256 bytes, %b at 256.

// (--canonicalize runs after the pass; it may fold the casts away then.)
// CHECK-LABEL: func.func @onyx_main(
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[C512:.*]] = arith.constant 512 : index
// CHECK:         %[[POOL:.*]] = onyx.get_pool %{{.*}}, %[[C512]]
// CHECK:         memref.view %[[POOL]][%[[C0]]][] : memref<?xi8> to memref<64xf32>
// CHECK:         memref.view %[[POOL]][%[[C256]]][] : memref<?xi8> to memref<64xf32>
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %a = onyx.alloc_temp %ctx : memref<64xf32>
  linalg.fill ins(%one : f32) outs(%a : memref<64xf32>)
  %t = bufferization.to_tensor %a restrict : memref<64xf32> to tensor<64xf32>
  %b = onyx.alloc_temp %ctx : memref<64xf32>
  linalg.fill ins(%two : f32) outs(%b : memref<64xf32>)
  %m = bufferization.to_buffer %t : tensor<64xf32> to memref<64xf32>
  %out = onyx.alloc_output %ctx[0] : memref<64xf32>
  memref.copy %m, %out : memref<64xf32> to memref<64xf32>
  %out1 = onyx.alloc_output %ctx[1] : memref<64xf32>
  memref.copy %b, %out1 : memref<64xf32> to memref<64xf32>
  %zero = arith.constant 0 : i32
  return %zero : i32
}
