// RUN: onyx-opt %s --onyx-cpu-parallelize-loops | FileCheck %s
// RUN: onyx-opt %s --onyx-cpu-parallelize-loops=threshold=1000 | FileCheck %s --check-prefix=THRESHOLD

// The thread count is read once per function, at its entry.
// CHECK: func.func private @onyxrt_cpu_get_threads() -> i32

// An elementwise op at dynamic shapes: the work is the trip counts times the
// body's ops (load, exp, store: 3), computed at run time; above the
// threshold, with more than one thread and more than one row to split
// (the distributed dims' trip count > 1), the outer dim runs on the
// OpenMP threads and the innermost stays a serial loop in each of them; else
// the original loop runs.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[IN:.*]]: memref<?x?xf32>, %[[OUT:.*]]: memref<?x?xf32>, %[[N:.*]]: index, %[[M:.*]]: index)
// CHECK: %[[T:.*]] = call @onyxrt_cpu_get_threads() : () -> i32
// CHECK: %[[DROWS:.*]] = arith.maxsi %[[N]], %{{.*}} : index
// CHECK: %[[MANY:.*]] = arith.cmpi sgt, %[[DROWS]], %c1{{.*}} : index
// CHECK: %[[ROWS:.*]] = arith.maxsi %[[N]], %{{.*}} : index
// CHECK: %[[COLS:.*]] = arith.maxsi %[[M]], %{{.*}} : index
// CHECK: %[[TRIPS:.*]] = arith.muli %[[ROWS]], %[[COLS]] : index
// CHECK: %[[WORK:.*]] = arith.muli %[[TRIPS]], %c3{{.*}} : index
// CHECK: %[[BIG:.*]] = arith.cmpi sgt, %[[WORK]], %c131072{{.*}} : index
// CHECK: %[[SEVERAL:.*]] = arith.cmpi sgt, %[[T]], %c1_i32 : i32
// CHECK: %[[BOTH:.*]] = arith.andi %[[BIG]], %[[SEVERAL]] : i1
// CHECK: %[[GO:.*]] = arith.andi %[[BOTH]], %[[MANY]] : i1
// CHECK: scf.if %[[GO]] {
// CHECK:   omp.parallel num_threads(%[[T]] : i32) {
// CHECK:     omp.wsloop {
// CHECK:       omp.loop_nest (%[[I:.*]]) : index = (%{{.*}}) to (%[[N]]) step (%{{.*}}) {
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %[[M]] step %{{.*}} {
// CHECK:           memref.load %[[IN]][%[[I]], %[[J]]]
// CHECK:           math.exp
// CHECK:           memref.store %{{.*}}, %[[OUT]][%[[I]], %[[J]]]
// CHECK:         }
// CHECK:         omp.yield
// CHECK:       }
// CHECK:     }
// CHECK:     omp.terminator
// CHECK:   }
// CHECK: } else {
// CHECK:   scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%[[N]], %[[M]])
// CHECK:     math.exp
// CHECK: }
// THRESHOLD-LABEL: func.func @elementwise
// THRESHOLD: arith.cmpi sgt, %{{.*}}, %c1000{{.*}} : index
func.func @elementwise(%in: memref<?x?xf32>, %out: memref<?x?xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %m) step (%c1, %c1) {
    %x = memref.load %in[%i, %j] : memref<?x?xf32>
    %e = math.exp %x : f32
    memref.store %e, %out[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  return
}

// A row reduction (Softmax's sum after onyx-cpu-register-accumulators):
// the rows are distributed, collapsed over both parallel dims; each row's
// sum runs whole on one thread, in order. Static shapes: the work is a
// constant (4 * 64 rows * (128 * 3 + 2) ops).
// CHECK-LABEL: func.func @row_sum
// CHECK: %[[T:.*]] = call @onyxrt_cpu_get_threads()
// CHECK: %[[BIG:.*]] = arith.cmpi sgt, %c98816{{.*}}, %c131072
// CHECK: scf.if
// CHECK:   omp.parallel num_threads(%[[T]] : i32)
// CHECK:     omp.wsloop
// CHECK:       omp.loop_nest (%[[B:.*]], %[[R:.*]]) : index = (%{{.*}}, %{{.*}}) to (%c4{{.*}}, %c64{{.*}}) step (%{{.*}}, %{{.*}}) collapse(2) {
// CHECK:         %[[INIT:.*]] = memref.load %{{.*}}[%[[B]], %[[R]]]
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (f32)
// CHECK:         memref.store
// CHECK:         omp.yield
// CHECK: } else {
// CHECK:   scf.parallel
func.func @row_sum(%in: memref<4x64x128xf32>, %out: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%b, %r) = (%c0, %c0) to (%c4, %c64) step (%c1, %c1) {
    %init = memref.load %out[%b, %r] : memref<4x64xf32>
    %sum = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %init) -> (f32) {
      %x = memref.load %in[%b, %r, %k] : memref<4x64x128xf32>
      %e = math.exp %x : f32
      %s = arith.addf %acc, %e : f32
      scf.yield %s : f32
    }
    memref.store %sum, %out[%b, %r] : memref<4x64xf32>
    scf.reduce
  }
  return
}

// A reduction over the first dim (ReduceSum over axis 0): the serial loop
// stays outside, the parallel loop inside it is the outermost scf.parallel
// and is distributed at each step; a nested scf.parallel becomes scf.for in
// the parallel version.
// CHECK-LABEL: func.func @column_sum
// CHECK: scf.for %[[K:.*]] =
// CHECK:   scf.if
// CHECK:     omp.parallel
// CHECK:       omp.loop_nest (%[[J:.*]]) : index
// CHECK-NOT:     scf.parallel
// CHECK:         scf.for %[[L:.*]] =
// CHECK:           memref.load %{{.*}}[%[[K]], %[[J]], %[[L]]]
// CHECK:         omp.yield
// CHECK:   } else {
// CHECK:     scf.parallel
// CHECK:       scf.parallel
func.func @column_sum(%in: memref<?x?x?xf32>, %out: memref<?x?xf32>, %n: index, %m: index, %p: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %n step %c1 {
    scf.parallel (%j) = (%c0) to (%m) step (%c1) {
      scf.parallel (%l) = (%c0) to (%p) step (%c1) {
        %x = memref.load %in[%k, %j, %l] : memref<?x?x?xf32>
        %acc = memref.load %out[%j, %l] : memref<?x?xf32>
        %s = arith.addf %acc, %x : f32
        memref.store %s, %out[%j, %l] : memref<?x?xf32>
        scf.reduce
      }
      scf.reduce
    }
  }
  return
}

// Not distributed: a body with a call (a runtime function), an allocation,
// and a loop with scf.reduce reductions stay serial scf.parallel loops.
// CHECK-LABEL: func.func @unsafe
// CHECK-NOT: omp.
// CHECK: scf.parallel
// CHECK: call @side_effect
// CHECK: scf.parallel
// CHECK: memref.alloc
// CHECK: scf.parallel
// CHECK: scf.reduce(
// CHECK-NOT: omp.
// CHECK: return
func.func private @side_effect(f32)
func.func @unsafe(%in: memref<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %x = memref.load %in[%i] : memref<?xf32>
    func.call @side_effect(%x) : (f32) -> ()
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %buf = memref.alloc() : memref<4xf32>
    %x = memref.load %buf[%c0] : memref<4xf32>
    memref.store %x, %in[%i] : memref<?xf32>
    memref.dealloc %buf : memref<4xf32>
    scf.reduce
  }
  %sum = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zero) -> f32 {
    %x = memref.load %in[%i] : memref<?xf32>
    scf.reduce(%x : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  return %sum : f32
}

// One distributed iteration (an elementwise op on a [1, N] tensor: the
// innermost dim stays serial, one row is left to split): serial whatever the
// work.
// CHECK-LABEL: func.func @one_row
// CHECK-NOT: omp.
// CHECK: scf.parallel
// CHECK-NOT: omp.
// CHECK: return
func.func @one_row(%in: memref<1x1048576xf32>, %out: memref<1x1048576xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant 1048576 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c1, %cn) step (%c1, %c1) {
    %x = memref.load %in[%i, %j] : memref<1x1048576xf32>
    %e = math.exp %x : f32
    memref.store %e, %out[%i, %j] : memref<1x1048576xf32>
    scf.reduce
  }
  return
}
