// RUN: onyx-opt %s --onyx-cpu-hoist-invariant-loads | FileCheck %s

// Softmax's last op in place: max[i] and sum[i] load once per row, before an
// inner scf.parallel over j holding the rest of the body; the guard keeps
// them from running when j's range is empty.
// CHECK-LABEL: func.func @softmax_tail
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[MAX:.*]]: memref<?xf32>, %[[SUM:.*]]: memref<?xf32>, %[[N:.*]]: index, %[[M:.*]]: index)
// CHECK: %[[NE:.*]] = arith.cmpi slt, %{{.*}}, %[[M]]
// CHECK: scf.if %[[NE]] {
// CHECK:   scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%[[N]])
// CHECK:     %[[MI:.*]] = memref.load %[[MAX]][%[[I]]]
// CHECK:     %[[SI:.*]] = memref.load %[[SUM]][%[[I]]]
// CHECK:     scf.parallel (%[[J:.*]]) = (%{{.*}}) to (%[[M]])
// CHECK:       %[[V:.*]] = memref.load %[[X]][%[[I]], %[[J]]]
// CHECK-NOT:   memref.load
// CHECK:       %[[D:.*]] = arith.subf %[[V]], %[[MI]]
// CHECK:       %[[E:.*]] = math.exp %[[D]]
// CHECK:       %[[Q:.*]] = arith.divf %[[E]], %[[SI]]
// CHECK:       memref.store %[[Q]], %[[X]][%[[I]], %[[J]]]
func.func @softmax_tail(%x: memref<?x?xf32>, %max: memref<?xf32>, %sum: memref<?xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %m) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<?x?xf32>
    %mi = memref.load %max[%i] : memref<?xf32>
    %si = memref.load %sum[%i] : memref<?xf32>
    %d = arith.subf %v, %mi : f32
    %e = math.exp %d : f32
    %q = arith.divf %e, %si : f32
    memref.store %q, %x[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  return
}

// Index arithmetic of outer induction variables is cloned with the load
// (a bias broadcast over the last dim, read at i + 1); with
// constant, non-empty bounds there is no guard; a 1-d loop keeps its form
// with the scalar load in front.
// CHECK-LABEL: func.func @bias_rows
// CHECK-NOT: scf.if
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%{{.*}})
// CHECK:   %[[I1:.*]] = arith.addi %[[I]], %{{.*}}
// CHECK:   %[[B:.*]] = memref.load %{{.*}}[%[[I1]]]
// CHECK:   scf.parallel (%[[J:.*]]) =
// CHECK:     arith.addf %{{.*}}, %[[B]]
// CHECK-LABEL: func.func @scalar_1d
// CHECK: scf.if
// CHECK:   %[[S:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK:   scf.parallel (%[[J:.*]]) =
// CHECK:     arith.mulf %{{.*}}, %[[S]]
func.func @bias_rows(%x: memref<4x8xf32>, %b: memref<5xf32>, %y: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<4x8xf32>
    %i1 = arith.addi %i, %c1 : index
    %bi = memref.load %b[%i1] : memref<5xf32>
    %s = arith.addf %v, %bi : f32
    memref.store %s, %y[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  return
}
func.func @scalar_1d(%x: memref<?xf32>, %s: memref<f32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%j) = (%c0) to (%n) step (%c1) {
    %v = memref.load %x[%j] : memref<?xf32>
    %sv = memref.load %s[] : memref<f32>
    %p = arith.mulf %v, %sv : f32
    memref.store %p, %x[%j] : memref<?xf32>
    scf.reduce
  }
  return
}

// Left alone: a load after the first store, a load whose index depends on
// the innermost variable through arithmetic, a store not indexed by the
// innermost variable, a body with a call, and a known-empty innermost dim.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.if
// CHECK-COUNT-5: scf.parallel (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) =
// CHECK: return
func.func private @opaque(f32)
func.func @left_alone(%x: memref<?x?xf32>, %r: memref<?xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %m) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<?x?xf32>
    memref.store %v, %x[%i, %j] : memref<?x?xf32>
    %ri = memref.load %r[%i] : memref<?xf32>
    memref.store %ri, %x[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %m) step (%c1, %c1) {
    %j1 = arith.addi %j, %c1 : index
    %v = memref.load %r[%j1] : memref<?xf32>
    memref.store %v, %x[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %m) step (%c1, %c1) {
    %v = memref.load %r[%i] : memref<?xf32>
    memref.store %v, %r[%i] : memref<?xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %m) step (%c1, %c1) {
    %v = memref.load %r[%i] : memref<?xf32>
    func.call @opaque(%v) : (f32) -> ()
    memref.store %v, %x[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c3) to (%n, %c3) step (%c1, %c1) {
    %v = memref.load %r[%i] : memref<?xf32>
    memref.store %v, %x[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  return
}
