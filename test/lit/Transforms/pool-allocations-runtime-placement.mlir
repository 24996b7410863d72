// RUN: onyx-opt %s --onyx-pool-allocations --canonicalize -split-input-file \
// RUN:   | FileCheck %s
// RUN: onyx-opt %s --onyx-pool-allocations=scheme=iree --canonicalize \
// RUN:   -split-input-file | FileCheck %s --check-prefix=IREE
// RUN: onyx-opt %s --onyx-pool-allocations --convert-linalg-to-loops \
// RUN:   --convert-scf-to-cf --onyx-lower-runtime-checks --expand-strided-metadata \
// RUN:   --lower-affine --onyx-convert-to-llvm -split-input-file \
// RUN:   | FileCheck %s --check-prefix=LLVM
// RUN: not onyx-opt %s --onyx-pool-allocations=placement=later 2>&1 \
// RUN:   -split-input-file | FileCheck %s --check-prefix=BAD
//
// placement=runtime (the default): a lifetime-scheme domain with run-time
// sizes is laid out by the runtime at each call's actual sizes. The anchor
// computes every temporary's aligned footprint (static ones as constants)
// and passes them, with the lifetimes and the compile-time plan (group per
// temporary, -1 for the static region, static offsets, static region size),
// to onyx.place_temps, which returns the pool and one offset per temporary.
// scheme=iree keeps the compile-time form.

// BAD: unknown pool placement 'later' (expected runtime or compile)

// CHECK-LABEL: func.func @onyx_main(
// CHECK-SAME:      %[[CTX:.*]]: !onyx.context)
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK:         %[[M:.*]] = memref.dim
// CHECK:         %[[N:.*]] = memref.dim
// CHECK:         %[[A_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK:         %[[B_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK-NEXT:    %[[POOL:.*]], %[[OFF:.*]]:3 = onyx.place_temps %[[CTX]](%[[A_ALIGNED]], %[[B_ALIGNED]], %{{.*}}) {domain_id = 0 : i64, ends = array<i64: 6, 9, 11>, groups = array<i64: 0, 0, -1>, starts = array<i64: 5, 7, 8>, static_bytes = 512 : i64, static_offsets = array<i64: 0, 0, 0>} : memref<?xi8>, index, index, index
// CHECK-NOT:     onyx.get_pool
// CHECK-NOT:     onyx.alloc_temp
// CHECK:         memref.view %[[POOL]][%[[OFF]]#0][%[[M]]] : memref<?xi8> to memref<?xf16>
// CHECK:         memref.view %[[POOL]][%[[OFF]]#1][%[[N]]] : memref<?xi8> to memref<?xf16>
// CHECK:         memref.view %[[POOL]][%[[OFF]]#2][] : memref<?xi8> to memref<100xf32>

// IREE-LABEL: func.func @onyx_main(
// IREE-NOT:     onyx.place_temps
// IREE:         onyx.get_pool

// LLVM:         llvm.mlir.global internal constant @__onyx_place_temps_0(dense<[5, 6, 0, 0, 7, 9, 0, 0, 8, 11, -1, 0]> : tensor<12xi64>)
// LLVM-LABEL:   llvm.func @onyx_main(
// LLVM:         %[[TABLE:.*]] = llvm.mlir.addressof @__onyx_place_temps_0
// LLVM:         %[[POOL:.*]] = llvm.call @onyxrt_place_temps(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[TABLE]], %{{.*}}, %{{.*}}) : (!llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> !llvm.ptr
// The null check of onyx-lower-runtime-checks on the returned pool.
// LLVM:         llvm.load
// LLVM:         llvm.icmp "ne"
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %xa = onyx.get_input %ctx[0] : memref<?xf16>
  %xb = onyx.get_input %ctx[1] : memref<?xf16>
  %c0 = arith.constant 0 : index
  %m = memref.dim %xa, %c0 : memref<?xf16>
  %n = memref.dim %xb, %c0 : memref<?xf16>
  %a = onyx.alloc_temp %ctx(%m) : memref<?xf16>
  linalg.mul ins(%xa, %xa : memref<?xf16>, memref<?xf16>) outs(%a : memref<?xf16>)
  %b = onyx.alloc_temp %ctx(%n) : memref<?xf16>
  %s = onyx.alloc_temp %ctx : memref<100xf32>
  linalg.mul ins(%xb, %xb : memref<?xf16>, memref<?xf16>) outs(%b : memref<?xf16>)
  %f = arith.constant 1.0 : f32
  linalg.fill ins(%f : f32) outs(%s : memref<100xf32>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----
// A domain with only static sizes stays in the compile-time form: best fit
// is already exact there and costs nothing at run time.

// CHECK-LABEL: func.func @onyx_main(
// CHECK-NOT:     onyx.place_temps
// CHECK:         onyx.get_pool %{{.*}}, %{{.*}} {domain_id = 0 : i64}
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %a = onyx.alloc_temp %ctx : memref<100xf32>
  %f = arith.constant 1.0 : f32
  linalg.fill ins(%f : f32) outs(%a : memref<100xf32>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----
// Temporaries made by named nodes: the pool op lists each temporary's node
// name (`onyx.temp_names`, "" for an unnamed one), and the LLVM lowering
// hands them to the runtime (onyxrt_pool_names) before placing the pool, so
// that a memory-limit error names the node (docs/runtime.md, "Memory limit").

// CHECK-LABEL: func.func @onyx_main(
// CHECK:         onyx.place_temps
// CHECK-SAME:      onyx.temp_names = ["range_node", "", "square"]
// IREE:         onyx.get_pool {{.*}}onyx.temp_names = ["range_node", "", "square"]
// LLVM:         llvm.mlir.global private constant @__onyx_temp_names_0("range_node\00\00square\00")
// LLVM:         llvm.func @onyx_main(
// LLVM:         %[[NAMES:.*]] = llvm.mlir.addressof @__onyx_temp_names_0
// LLVM:         llvm.call @onyxrt_pool_names(%{{.*}}, %{{.*}}, %{{.*}}, %[[NAMES]]) : (!llvm.ptr, i64, i64, !llvm.ptr) -> ()
// LLVM:         llvm.call @onyxrt_place_temps
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %xa = onyx.get_input %ctx[0] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %m = memref.dim %xa, %c0 : memref<?xf32>
  %a = onyx.alloc_temp %ctx(%m) : memref<?xf32> loc("range_node")
  linalg.mul ins(%xa, %xa : memref<?xf32>, memref<?xf32>) outs(%a : memref<?xf32>)
  %s = onyx.alloc_temp %ctx : memref<100xf32>
  %b = onyx.alloc_temp %ctx(%m) : memref<?xf32> loc("square")
  linalg.mul ins(%a, %a : memref<?xf32>, memref<?xf32>) outs(%b : memref<?xf32>)
  %f = arith.constant 1.0 : f32
  linalg.fill ins(%f : f32) outs(%s : memref<100xf32>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}
