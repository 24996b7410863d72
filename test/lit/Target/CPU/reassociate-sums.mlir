// RUN: onyx-opt %s --onyx-cpu-reassociate-sums | FileCheck %s

// A float sum carried in iter_args (Softmax's sum after
// onyx-cpu-register-accumulators): its add may be reassociated, so that the
// loop vectorizer keeps vector partial sums.
// CHECK-LABEL: func.func @sum_exp
// CHECK: scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (f32)
// CHECK:   %[[E:.*]] = math.exp
// CHECK:   arith.addf %[[A]], %[[E]] fastmath<reassoc> : f32
func.func @sum_exp(%in: memref<?xf32>, %init: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%a = %init) -> (f32) {
    %x = memref.load %in[%j] : memref<?xf32>
    %e = math.exp %x : f32
    %s = arith.addf %a, %e : f32
    scf.yield %s : f32
  }
  return %r : f32
}

// Left in order: an integer sum, a max, a float sum whose accumulator has
// another use, and a loop with an f16 -> f32 extension (the widened f16 sums).
// CHECK-LABEL: func.func @not_sums
// CHECK-NOT: fastmath
// CHECK: return
func.func @not_sums(%in: memref<?xf32>, %h: memref<?xf16>, %out: memref<?xf32>,
                    %init: f32, %n: index) -> (i32, f32, f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i32
  %i = scf.for %j = %c0 to %n step %c1 iter_args(%a = %z) -> (i32) {
    %s = arith.addi %a, %a : i32
    scf.yield %s : i32
  }
  %m = scf.for %j = %c0 to %n step %c1 iter_args(%a = %init) -> (f32) {
    %x = memref.load %in[%j] : memref<?xf32>
    %s = arith.maximumf %a, %x : f32
    scf.yield %s : f32
  }
  %u = scf.for %j = %c0 to %n step %c1 iter_args(%a = %init) -> (f32) {
    %x = memref.load %in[%j] : memref<?xf32>
    memref.store %a, %out[%j] : memref<?xf32>
    %s = arith.addf %a, %x : f32
    scf.yield %s : f32
  }
  %w = scf.for %j = %c0 to %n step %c1 iter_args(%a = %init) -> (f32) {
    %x = memref.load %h[%j] : memref<?xf16>
    %y = arith.extf %x : f16 to f32
    %s = arith.addf %a, %y : f32
    scf.yield %s : f32
  }
  return %i, %m, %u, %w : i32, f32, f32, f32
}
