// RUN: onyx-opt %s --onyx-host-visibility -split-input-file | FileCheck %s
// RUN: onyx-opt %s --onyx-host-visibility=target=cuda -split-input-file 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CUDA
// RUN: onyx-opt %s --onyx-host-visibility --convert-scf-to-cf --onyx-lower-runtime-checks \
// RUN:   -split-input-file | FileCheck %s --check-prefix=LOWER
// RUN: not onyx-opt %s --onyx-host-visibility=target=gpu -split-input-file 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD
//
// onyx-host-visibility (RFC Fix 3, backend half). Normalized IR reads a
// payload scalar with a plain tensor.extract (memref.load after
// bufferization); this pass decides how host code gets it.

// BAD: unknown host-visibility target 'gpu' (expected cpu or cuda)

// -----
// The RFC's NonZero sequence after bufferization: a kernel fills a
// capacity-sized buffer and writes the count into a one-element buffer; the
// count sizes the result. On the CPU the load becomes a synchronized
// readback; the view of the valid part uses its value.

// CHECK-LABEL: func.func @onyx_main(
// CHECK-SAME:      %[[CTX:.*]]: !onyx.context)
// CHECK:         %[[COUNT:.*]] = onyx.alloc_temp %[[CTX]] : memref<i64>
// CHECK:         %[[C:.*]] = onyx.readback_scalar %[[CTX]], %[[COUNT]][] {sync = true} : memref<i64> -> i64
// CHECK:         %[[N:.*]] = arith.index_cast %[[C]] : i64 to index
// CHECK:         memref.subview %{{.*}}[0, 0] [2, %[[N]]] [1, 1]
// CHECK-NOT:     memref.load %[[COUNT]]

// The same on cuda is left to the outliner (downloaded there): no error.
// CUDA-NOT:      error:{{.*}}nonzero_count

// LOWER-LABEL:   func.func @onyx_main(
// LOWER:         %[[OK:.*]] = call @onyxrt_host_sync(%{{.*}}, %{{.*}}) : (!onyx.context, !llvm.ptr) -> i32
// LOWER:         %[[Z:.*]] = arith.cmpi eq, %[[OK]], %{{.*}} : i32
// LOWER:         cf.cond_br %[[Z]], ^[[GO:.*]], ^[[FAIL:.*]]
// LOWER:       ^[[GO]]:
// LOWER:         memref.load
// LOWER:       ^[[FAIL]]:
// LOWER:         return %{{.*}} : i32
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %x = onyx.get_input %ctx[0] : memref<?xi64>
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xi64>
  %nz = onyx.alloc_temp %ctx(%n) : memref<2x?xi64>
  %count = onyx.alloc_temp %ctx : memref<i64>
  %zero = arith.constant 0 : i64
  linalg.fill ins(%zero : i64) outs(%count : memref<i64>) loc("nonzero_count")
  %c = memref.load %count[] : memref<i64> loc("NonZero_y")
  %valid = arith.index_cast %c : i64 to index
  %v = memref.subview %nz[0, 0] [2, %valid] [1, 1] : memref<2x?xi64> to memref<2x?xi64, strided<[?, 1]>>
  %ret = arith.constant 0 : i32
  return %ret : i32
}

// -----
// Two counts needed at the same point share one synchronization; a
// scalar only a kernel uses (captured by a linalg body) stays a load, and
// so does a read of a constant (host memory on every target).

// CHECK-LABEL: func.func @onyx_main(
// CHECK:         onyx.readback_scalar %{{.*}}, %{{.*}}[] {sync = true}
// CHECK-NEXT:    onyx.readback_scalar %{{.*}}, %{{.*}}[] {sync = false}
// CHECK:         memref.load %{{.*}}[] : memref<f32>
// CHECK:         memref.load %{{.*}}[%{{.*}}] : memref<2xi64>
memref.global "private" constant @shape : memref<2xi64> = dense<[3, 4]>
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %a = onyx.alloc_temp %ctx : memref<i64>
  %b = onyx.alloc_temp %ctx : memref<i64>
  %s = onyx.alloc_temp %ctx : memref<f32>
  %one = arith.constant 1 : i64
  linalg.fill ins(%one : i64) outs(%a : memref<i64>)
  linalg.fill ins(%one : i64) outs(%b : memref<i64>)
  %ca = memref.load %a[] : memref<i64>
  %cb = memref.load %b[] : memref<i64>
  %na = arith.index_cast %ca : i64 to index
  %nb = arith.index_cast %cb : i64 to index
  %out = onyx.alloc_output %ctx[0](%na, %nb) : memref<?x?xf32>
  %scale = memref.load %s[] : memref<f32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%out : memref<?x?xf32>) {
  ^bb0(%o: f32):
    %r = arith.mulf %o, %scale : f32
    linalg.yield %r : f32
  }
  %g = memref.get_global @shape : memref<2xi64>
  %c1 = arith.constant 1 : index
  %k = memref.load %g[%c1] : memref<2xi64>
  %kk = arith.index_cast %k : i64 to index
  %t = onyx.alloc_temp %ctx(%kk) : memref<?xf32>
  %ret = arith.constant 0 : i32
  return %ret : i32
}

// -----
// Host code that stored a value into a small buffer and reads it back (the
// shape operand of memref.reshape, whose dims canonicalize to loads) needs
// no readback: the stored value is forwarded.

// CHECK-LABEL: func.func @onyx_main(
// CHECK-SAME:      %[[CTX:.*]]: !onyx.context)
// CHECK:         %[[N:.*]] = memref.dim
// CHECK-NOT:     onyx.readback_scalar
// CHECK:         onyx.alloc_output %[[CTX]][0] (%[[N]])
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %x = onyx.get_input %ctx[0] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %shape = onyx.alloc_temp %ctx : memref<1xindex>
  memref.store %n, %shape[%c0] : memref<1xindex>
  %r = memref.reshape %x(%shape) : (memref<?xf32>, memref<1xindex>) -> memref<?xf32>
  %m = memref.load %shape[%c0] : memref<1xindex>
  %out = onyx.alloc_output %ctx[0](%m) : memref<?xf32>
  %ret = arith.constant 0 : i32
  return %ret : i32
}

// -----
// A loop of checks over computed indices (it launches nothing and writes
// no model buffer) synchronizes once, before the loop.

// CHECK-LABEL: func.func @onyx_main(
// CHECK:         onyx.host_sync
// CHECK-NEXT:    scf.for
// CHECK:           onyx.readback_scalar %{{.*}} {sync = false}
// CHECK:           onyx.assert
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %idx = onyx.alloc_temp %ctx : memref<4xi64>
  %zero = arith.constant 0 : i64
  linalg.fill ins(%zero : i64) outs(%idx : memref<4xi64>)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %limit = arith.constant 10 : i64
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %idx[%i] : memref<4xi64>
    %ok = arith.cmpi slt, %v, %limit : i64
    onyx.assert %ok, "index out of range"
  }
  %ret = arith.constant 0 : i32
  return %ret : i32
}

// -----
// A host loop over model data (the CPU form of a data-dependent kernel)
// whose bound is read from a buffer the loop writes: fine on the CPU (a
// readback per iteration); on cuda left alone for the outliner, which runs
// the loop nest as a one-thread kernel (outline-dispatches.mlir).

// CHECK-LABEL: func.func @onyx_main(
// CHECK:         scf.for
// CHECK:           onyx.readback_scalar

// CUDA-LABEL: func.func @onyx_main(
// CUDA:         scf.for
// CUDA:           memref.load %{{.*}} : memref<4xi64>
// CUDA-NOT:       onyx.readback_scalar
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %buf = onyx.alloc_temp %ctx : memref<4xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %buf[%i] : memref<4xi64> loc("Unique_y")
    %n = arith.index_cast %v : i64 to index
    scf.for %j = %c0 to %n step %c1 {
      %z = arith.constant 0 : i64
      memref.store %z, %buf[%i] : memref<4xi64>
    }
  }
  %ret = arith.constant 0 : i32
  return %ret : i32
}
