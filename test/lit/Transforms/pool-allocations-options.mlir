// RUN: onyx-opt %s --onyx-pool-allocations=placement=compile | FileCheck %s
// RUN: onyx-opt %s --onyx-pool-allocations="alignment=64 placement=compile" --canonicalize \
// RUN:   | FileCheck %s --check-prefix=ALIGN64
// RUN: not onyx-opt %s --onyx-pool-allocations=alignment=48 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADALIGN
// RUN: not onyx-opt %s --onyx-pool-allocations=alignment=0 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADALIGN
// RUN: not onyx-opt %s --onyx-pool-allocations=scheme=first-fit 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADSCHEME
//
// onyx-pool-allocations' options and its onyx.record_temp statistics.
//
// Temporaries, with their program positions (ops of the entry's block,
// counted from 0; the positions are those of the IR the pass sees):
//   %s  memref<3xf32>   12 B  [4, 6]   alloc at 4, last use (fill) at 6
//   %d  memref<?xf16>   2*n B [5, 9]   alloc at 5, last use (fill) at 9
//   %t  memref<40xi8>   40 B  [7, 11]  alloc at 7, last use (fill) at 11
// %s and %t have disjoint lifetimes and share the static region at 0.

// Default (alignment 256), raw output of the pass. Each temporary is
// reported once with onyx.record_temp: its aligned footprint at the call's
// shapes, its lifetime and its domain, so that the runtime can compute
// max_live_bytes for the actual input.
// CHECK-LABEL: func.func @onyx_main(
// CHECK-SAME:      %[[CTX:.*]]: !onyx.context)
// CHECK:         %[[N:.*]] = memref.dim
// CHECK:         %[[C255:.*]] = arith.constant 255 : index
// CHECK-NEXT:    %[[C256:.*]] = arith.constant 256 : index
// CHECK-NEXT:    %[[S_BYTES:.*]] = arith.constant 256 : index
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[D_RAW:.*]] = arith.muli %[[C2]], %[[N]] : index
// CHECK-NEXT:    %[[D_CEIL:.*]] = arith.addi %[[D_RAW]], %[[C255]] : index
// CHECK-NEXT:    %[[D_CHUNKS:.*]] = arith.divui %[[D_CEIL]], %[[C256]] : index
// CHECK-NEXT:    %[[D_BYTES:.*]] = arith.muli %[[D_CHUNKS]], %[[C256]] : index
// CHECK-NEXT:    %[[T_BYTES:.*]] = arith.constant 256 : index
// CHECK-NEXT:    %[[STATIC:.*]] = arith.constant 256 : index
// CHECK-NEXT:    %[[SIZE:.*]] = arith.addi %[[STATIC]], %[[D_BYTES]] : index
// CHECK-NEXT:    %[[POOL:.*]] = onyx.get_pool %[[CTX]], %[[SIZE]] {domain_id = 0 : i64} : memref<?xi8>
// CHECK-NEXT:    onyx.record_temp %[[CTX]], %[[S_BYTES]] {domain_id = 0 : i64, end = 6 : i64, start = 4 : i64}
// CHECK-NEXT:    onyx.record_temp %[[CTX]], %[[D_BYTES]] {domain_id = 0 : i64, end = 9 : i64, start = 5 : i64}
// CHECK-NEXT:    onyx.record_temp %[[CTX]], %[[T_BYTES]] {domain_id = 0 : i64, end = 11 : i64, start = 7 : i64}
// CHECK-NOT:     onyx.record_temp
// CHECK:         %[[S:.*]] = memref.view %[[POOL]][%[[S_OFF:c0(_[0-9]+)?]]][] : memref<?xi8> to memref<3xf32>
// CHECK-NEXT:    %[[D:.*]] = memref.view %[[POOL]][%[[STATIC]]][%[[N]]] : memref<?xi8> to memref<?xf16>
// CHECK:         %[[T:.*]] = memref.view %[[POOL]][%[[T_OFF:c0(_[0-9]+)?]]][] : memref<?xi8> to memref<40xi8>
// CHECK-NOT:     onyx.alloc_temp
// CHECK-NOT:     onyx.record_temp
// CHECK:         return

// alignment=64: footprints round up to 64 bytes; the static region is one
// 64-byte slot shared by %s and %t, and the run-time group starts at 64.
// ALIGN64-LABEL: func.func @onyx_main(
// ALIGN64-DAG:     %[[C0:.*]] = arith.constant 0 : index
// ALIGN64-DAG:     %[[C63:.*]] = arith.constant 63 : index
// ALIGN64-DAG:     %[[C64:.*]] = arith.constant 64 : index
// ALIGN64:         %[[N:.*]] = memref.dim
// ALIGN64:         %[[D_CEIL:.*]] = arith.addi %{{.*}}, %[[C63]] : index
// ALIGN64-NEXT:    %[[D_CHUNKS:.*]] = arith.divui %[[D_CEIL]], %[[C64]] : index
// ALIGN64-NEXT:    %[[D_BYTES:.*]] = arith.muli %[[D_CHUNKS]], %[[C64]] : index
// ALIGN64-NEXT:    %[[SIZE:.*]] = arith.addi %[[D_BYTES]], %[[C64]] : index
// ALIGN64-NEXT:    %[[POOL:.*]] = onyx.get_pool %{{.*}}, %[[SIZE]] {domain_id = 0 : i64}
// ALIGN64-NEXT:    onyx.record_temp %{{.*}}, %[[C64]] {domain_id = 0 : i64, end = 6 : i64, start = 4 : i64}
// ALIGN64-NEXT:    onyx.record_temp %{{.*}}, %[[D_BYTES]] {domain_id = 0 : i64, end = 9 : i64, start = 5 : i64}
// ALIGN64-NEXT:    onyx.record_temp %{{.*}}, %[[C64]] {domain_id = 0 : i64, end = 11 : i64, start = 7 : i64}
// ALIGN64-NEXT:    memref.view %[[POOL]][%[[C0]]][] : memref<?xi8> to memref<3xf32>
// ALIGN64-NEXT:    memref.view %[[POOL]][%[[C64]]][%[[N]]] : memref<?xi8> to memref<?xf16>
// ALIGN64:         memref.view %[[POOL]][%[[C0]]][] : memref<?xi8> to memref<40xi8>

// BADALIGN: error: pool alignment must be a power of two
// BADSCHEME: error: unknown pool scheme 'first-fit' (expected lifetime or iree)
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %x = onyx.get_input %ctx[0] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %cst = arith.constant 1.0 : f32
  %s = onyx.alloc_temp %ctx : memref<3xf32>
  %d = onyx.alloc_temp %ctx(%n) : memref<?xf16>
  linalg.fill ins(%cst : f32) outs(%s : memref<3xf32>)
  %t = onyx.alloc_temp %ctx : memref<40xi8>
  %h = arith.constant 1.0 : f16
  linalg.fill ins(%h : f16) outs(%d : memref<?xf16>)
  %c1 = arith.constant 1 : i8
  linalg.fill ins(%c1 : i8) outs(%t : memref<40xi8>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}
