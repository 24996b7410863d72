// RUN: onyx-opt %s --onyx-cpu-split-min-max-reductions | FileCheck %s

// Softmax's row max after onyx-cpu-register-accumulators: a main loop of
// step 8 with 8 accumulators (all from the initial value), 8 bodies in
// iteration order, the results combined by maximumf, then the original loop
// from the main loop's end.
// CHECK-LABEL: func.func @row_max
// CHECK-SAME: (%[[IN:.*]]: memref<?xf32>, %[[INIT:.*]]: f32, %[[N:.*]]: index)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[SPAN:.*]] = arith.subi %[[N]], %[[C0]]
// CHECK: %[[TRIPS:.*]] = arith.ceildivsi %[[SPAN]], %[[C1]]
// CHECK: %[[POS:.*]] = arith.maxsi %[[TRIPS]], %[[C0]]
// CHECK: %[[Q:.*]] = arith.divsi %[[POS]], %[[C8]]
// CHECK: %[[MAIN:.*]] = arith.muli %[[Q]], %[[C8]]
// CHECK: %[[OFF:.*]] = arith.muli %[[MAIN]], %[[C1]]
// CHECK: %[[END:.*]] = arith.addi %[[C0]], %[[OFF]]
// CHECK: %[[STEP:.*]] = arith.muli %[[C1]], %[[C8]]
// CHECK: %[[R:.*]]:8 = scf.for %[[I:.*]] = %[[C0]] to %[[END]] step %[[STEP]] iter_args(%[[A0:[a-z0-9_]+]] = %[[INIT]], %[[A1:[a-z0-9_]+]] = %[[INIT]], {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK:   %[[X0:.*]] = memref.load %[[IN]][%[[I]]]
// CHECK:   %[[M0:.*]] = arith.maximumf %[[A0]], %[[X0]]
// CHECK:   %[[I1:.*]] = arith.addi %[[I]],
// CHECK:   %[[X1:.*]] = memref.load %[[IN]][%[[I1]]]
// CHECK:   %[[M1:.*]] = arith.maximumf %[[A1]], %[[X1]]
// CHECK:   scf.yield %[[M0]], %[[M1]],
// CHECK: %[[B1:.*]] = arith.maximumf %[[R]]#0, %[[R]]#1
// CHECK: %[[B2:.*]] = arith.maximumf %[[B1]], %[[R]]#2
// CHECK: %[[B7:.*]] = arith.maximumf %{{.*}}, %[[R]]#7
// CHECK: %[[REST:.*]] = scf.for %[[J:.*]] = %[[END]] to %[[N]] step %[[C1]] iter_args(%[[A:[a-z0-9_]+]] = %[[B7]]) -> (f32)
// CHECK:   memref.load %[[IN]][%[[J]]]
// CHECK:   arith.maximumf %[[A]],
// CHECK: return %[[REST]]
func.func @row_max(%in: memref<?xf32>, %init: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%a = %init) -> (f32) {
    %x = memref.load %in[%j] : memref<?xf32>
    %m = arith.maximumf %a, %x : f32
    scf.yield %m : f32
  }
  return %r : f32
}

// Two integer reductions in one loop (ArgMax-like bounds): both split.
// CHECK-LABEL: func.func @int_min_max
// CHECK: scf.for {{.*}} -> (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)
// CHECK: arith.minsi
// CHECK: scf.for {{.*}} -> (i32, i32)
func.func @int_min_max(%in: memref<?xi32>, %lo: i32, %hi: i32, %n: index)
    -> (i32, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%a = %lo, %b = %hi)
      -> (i32, i32) {
    %x = memref.load %in[%j] : memref<?xi32>
    %m = arith.maxsi %a, %x : i32
    %k = arith.minsi %x, %b : i32
    scf.yield %m, %k : i32, i32
  }
  return %r#0, %r#1 : i32, i32
}

// Left alone: a sum next to a max, maxnumf (signed zeros may depend on the
// order), an accumulator with another use.
// CHECK-LABEL: func.func @not_split
// CHECK-NOT: arith.constant 8 : index
// CHECK: return
func.func @not_split(%in: memref<?xf32>, %out: memref<?xf32>, %init: f32,
                     %n: index) -> (f32, f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s:2 = scf.for %j = %c0 to %n step %c1 iter_args(%a = %init, %b = %init)
      -> (f32, f32) {
    %x = memref.load %in[%j] : memref<?xf32>
    %m = arith.maximumf %a, %x : f32
    %t = arith.addf %b, %x : f32
    scf.yield %m, %t : f32, f32
  }
  %u = scf.for %j = %c0 to %n step %c1 iter_args(%a = %init) -> (f32) {
    %x = memref.load %in[%j] : memref<?xf32>
    %m = arith.maxnumf %a, %x : f32
    scf.yield %m : f32
  }
  %v = scf.for %j = %c0 to %n step %c1 iter_args(%a = %init) -> (f32) {
    %x = memref.load %in[%j] : memref<?xf32>
    memref.store %a, %out[%j] : memref<?xf32>
    %m = arith.maximumf %a, %x : f32
    scf.yield %m : f32
  }
  return %s#0, %u, %v : f32, f32, f32
}

// A loop with a loop inside is not split; the inner (innermost) one is.
// CHECK-LABEL: func.func @nested
// CHECK: scf.for {{.*}} iter_args(%[[A:[a-z0-9_]+]] = %{{.*}}) -> (f32) {
// CHECK:   scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK:   scf.for {{.*}} -> (f32)
// CHECK:   arith.maximumf %[[A]],
func.func @nested(%in: memref<?xf32>, %init: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = scf.for %j = %c0 to %n step %c1 iter_args(%a = %init) -> (f32) {
    %inner = scf.for %k = %c0 to %n step %c1 iter_args(%b = %init) -> (f32) {
      %x = memref.load %in[%k] : memref<?xf32>
      %m = arith.maximumf %b, %x : f32
      scf.yield %m : f32
    }
    %m = arith.maximumf %a, %inner : f32
    scf.yield %m : f32
  }
  return %w : f32
}
