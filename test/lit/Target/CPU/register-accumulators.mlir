// RUN: onyx-opt %s --onyx-cpu-register-accumulators | FileCheck %s

// A reduction's innermost loop (Softmax's sum as convert-linalg-to-loops
// leaves it): the accumulator is loaded once before the loop, carried in
// iter_args and stored once after it; the arithmetic is unchanged.
// CHECK-LABEL: func.func @sum_exp
// CHECK: scf.for %[[I:.*]] =
// CHECK:   %[[INIT:.*]] = memref.load %[[OUT:.*]][%[[I]]]
// CHECK:   %[[ACC:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[INIT]]) -> (f32)
// CHECK:     %[[X:.*]] = memref.load %{{.*}}[%[[I]], %{{.*}}]
// CHECK:     %[[E:.*]] = math.exp %[[X]]
// CHECK:     %[[S:.*]] = arith.addf %[[A]], %[[E]]
// CHECK-NOT: memref.store
// CHECK:     scf.yield %[[S]]
// CHECK:   memref.store %[[ACC]], %[[OUT]][%[[I]]]
func.func @sum_exp(%in: memref<?x?xf32>, %out: memref<?xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %x = memref.load %in[%i, %j] : memref<?x?xf32>
      %acc = memref.load %out[%i] : memref<?xf32>
      %e = math.exp %x : f32
      %s = arith.addf %acc, %e : f32
      memref.store %s, %out[%i] : memref<?xf32>
    }
  }
  return
}

// Left alone: the index depends on the loop (not an accumulator), the buffer
// is read at a second place, and a body that calls a function.
// CHECK-LABEL: func.func @not_accumulators
// CHECK-NOT: iter_args
// CHECK: return
func.func private @opaque(f32)
func.func @not_accumulators(%in: memref<?xf32>, %out: memref<?xf32>, %n: index, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %j = %c0 to %n step %c1 {
    %x = memref.load %in[%j] : memref<?xf32>
    %a = memref.load %out[%j] : memref<?xf32>
    %s = arith.addf %a, %x : f32
    memref.store %s, %out[%j] : memref<?xf32>
  }
  scf.for %j = %c0 to %n step %c1 {
    %a = memref.load %out[%k] : memref<?xf32>
    %b = memref.load %out[%c0] : memref<?xf32>
    %s = arith.addf %a, %b : f32
    memref.store %s, %out[%k] : memref<?xf32>
  }
  scf.for %j = %c0 to %n step %c1 {
    %a = memref.load %out[%k] : memref<?xf32>
    func.call @opaque(%a) : (f32) -> ()
    memref.store %a, %out[%k] : memref<?xf32>
  }
  return
}
