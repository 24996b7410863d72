// RUN: onyx-opt %s --onyx-split-empty-tensors | FileCheck %s
// RUN: onyx-opt %s --onyx-split-empty-tensors \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries allow-return-allocs-from-loops" \
// RUN:   | FileCheck %s --check-prefix=BUF
//
// onyx-split-empty-tensors: every user of a tensor.empty after the first
// (in the empty's block) gets its own clone right before it, so that
// bufferization gives each its own buffer instead of one buffer written by
// every user (live, for the pool planner, from the first to the last).
// Uses inside a nested region keep the original.

// Two "layers" writing into one CSE'd destination: two clones, each right
// before its user; the scf.for body's use keeps the original.
// CHECK-LABEL: func.func @layers(
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK:         %[[A:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<?xf32>)
// CHECK:         %[[E2:.*]] = tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK-NEXT:    %[[B:.*]] = linalg.generic {{.*}} outs(%[[E2]] : tensor<?xf32>)
// CHECK:         %[[E3:.*]] = tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK-NEXT:    scf.for {{.*}} iter_args(%{{.*}} = %[[E3]])
// CHECK:           linalg.copy ins(%{{.*}} : tensor<?xf32>) outs(%[[E]] : tensor<?xf32>)
// Bufferized, the second layer writes a buffer allocated right before it.
// BUF-LABEL: func.func @layers(
// BUF:         linalg.generic {{.*}} outs(%[[A:alloc[_0-9]*]] : memref<?xf32>)
// BUF:         %[[B:.*]] = memref.alloc(
// BUF-NEXT:    linalg.generic {{.*}} ins(%[[A]] : memref<?xf32>) outs(%[[B]] : memref<?xf32>)
#id = affine_map<(d0) -> (d0)>
func.func @layers(%x: tensor<?xf32>, %n: index) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%d) : tensor<?xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.addf %in, %in : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.mulf %in, %in : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%t = %e) -> tensor<?xf32> {
    %c = linalg.copy ins(%t : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %c : tensor<?xf32>
  }
  return %a, %b, %l : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}
