// RUN: onyx-opt %s --onyx-pool-allocations=placement=compile --canonicalize -split-input-file \
// RUN:   | FileCheck %s
// RUN: onyx-opt %s --onyx-pool-allocations=scheme=iree --canonicalize \
// RUN:   -split-input-file | FileCheck %s --check-prefix=IREE
//
// onyx-pool-allocations (RFC "PoolAllocs", Problem 2, Fix 2): every
// onyx.alloc_temp of @onyx_main becomes a memref.view into the pool of its
// dominance domain, onyx.get_pool(%ctx, %size) {domain_id = N}. The pool is
// laid out as [static region | group slabs]; run-time-sized temporaries whose
// lifetimes are disjoint share one offset and the slab is the arith.maxui of
// their 256-byte-aligned footprints. --canonicalize only folds the constant
// arithmetic (`0 + x`) so that the checks read like the RFC.
//
// These checks pin the compile-time form (placement=compile); the default,
// placement=runtime, hands domains with run-time sizes to onyx.place_temps
// (pool-allocations-runtime-placement.mlir).
//
// The IREE prefix checks the same inputs under scheme=iree, which shares
// run-time sizes only when they are the same SSA value; cases where both
// schemes agree are not repeated for it.

// -----
// The RFC's @lifetime_disjoint: two run-time-sized f16 temporaries with
// disjoint lifetimes and different size values. Both views are at offset 0,
// the pool is the maximum of the two aligned footprints (alignment applied
// to each footprint before the maximum).

// CHECK-LABEL: func.func @onyx_main(
// CHECK-SAME:      %[[CTX:.*]]: !onyx.context)
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C255:.*]] = arith.constant 255 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[M:.*]] = memref.dim %{{.*}}, %[[C0]]
// CHECK:         %[[N:.*]] = memref.dim %{{.*}}, %[[C0]]
// CHECK:         %[[A_BYTES:.*]] = arith.muli %[[M]], %[[C2]] : index
// CHECK-NEXT:    %[[A_CEIL:.*]] = arith.addi %[[A_BYTES]], %[[C255]] : index
// CHECK-NEXT:    %[[A_CHUNKS:.*]] = arith.divui %[[A_CEIL]], %[[C256]] : index
// CHECK-NEXT:    %[[A_ALIGNED:.*]] = arith.muli %[[A_CHUNKS]], %[[C256]] : index
// CHECK-NEXT:    %[[B_BYTES:.*]] = arith.muli %[[N]], %[[C2]] : index
// CHECK-NEXT:    %[[B_CEIL:.*]] = arith.addi %[[B_BYTES]], %[[C255]] : index
// CHECK-NEXT:    %[[B_CHUNKS:.*]] = arith.divui %[[B_CEIL]], %[[C256]] : index
// CHECK-NEXT:    %[[B_ALIGNED:.*]] = arith.muli %[[B_CHUNKS]], %[[C256]] : index
// CHECK-NEXT:    %[[REQUIRED:.*]] = arith.maxui %[[A_ALIGNED]], %[[B_ALIGNED]] : index
// CHECK-NEXT:    %[[POOL:.*]] = onyx.get_pool %[[CTX]], %[[REQUIRED]] {domain_id = 0 : i64} : memref<?xi8>
// CHECK-NOT:     onyx.get_pool
// CHECK-NOT:     onyx.alloc_temp
// CHECK:         %[[A:.*]] = memref.view %[[POOL]][%[[C0]]][%[[M]]] : memref<?xi8> to memref<?xf16>
// CHECK-NEXT:    linalg.mul ins({{.*}}) outs(%[[A]] : memref<?xf16>)
// CHECK-NEXT:    %[[B:.*]] = memref.view %[[POOL]][%[[C0]]][%[[N]]] : memref<?xi8> to memref<?xf16>
// CHECK-NEXT:    linalg.mul ins({{.*}}) outs(%[[B]] : memref<?xf16>)

// IREE-LABEL: func.func @onyx_main(
// IREE-DAG:     %[[C256:.*]] = arith.constant 256 : index
// IREE-DAG:     %[[C0:.*]] = arith.constant 0 : index
// IREE:         %[[M:.*]] = memref.dim %{{.*}}, %[[C0]]
// IREE:         %[[N:.*]] = memref.dim %{{.*}}, %[[C0]]
// IREE:         %[[A_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// IREE-NEXT:    arith.muli %[[N]]
// IREE:         %[[B_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// IREE-NEXT:    %[[SUM:.*]] = arith.addi %[[A_ALIGNED]], %[[B_ALIGNED]] : index
// IREE-NEXT:    %[[POOL:.*]] = onyx.get_pool %{{.*}}, %[[SUM]] {domain_id = 0 : i64}
// IREE-NOT:     arith.maxui
// IREE:         memref.view %[[POOL]][%[[C0]]][%[[M]]]
// IREE:         memref.view %[[POOL]][%[[A_ALIGNED]]][%[[N]]]
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %xa = onyx.get_input %ctx[0] : memref<?xf16>
  %xb = onyx.get_input %ctx[1] : memref<?xf16>
  %c0 = arith.constant 0 : index
  %m = memref.dim %xa, %c0 : memref<?xf16>
  %n = memref.dim %xb, %c0 : memref<?xf16>
  %a = onyx.alloc_temp %ctx(%m) : memref<?xf16>
  linalg.mul ins(%xa, %xa : memref<?xf16>, memref<?xf16>) outs(%a : memref<?xf16>)
  // %a's last use is the linalg.mul above.
  %b = onyx.alloc_temp %ctx(%n) : memref<?xf16>
  linalg.mul ins(%xb, %xb : memref<?xf16>, memref<?xf16>) outs(%b : memref<?xf16>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----
// An overlapping pair (%a is read after %b is written): distinct offsets,
// the pool is the sum of the aligned footprints, %b at %a's footprint.

// CHECK-LABEL: func.func @onyx_main(
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[M:.*]] = memref.dim
// CHECK:         %[[N:.*]] = memref.dim
// CHECK:         arith.muli %[[M]]
// CHECK:         %[[A_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK-NEXT:    arith.muli %[[N]]
// CHECK:         %[[B_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK-NEXT:    %[[SUM:.*]] = arith.addi %[[A_ALIGNED]], %[[B_ALIGNED]] : index
// CHECK-NEXT:    %[[POOL:.*]] = onyx.get_pool %{{.*}}, %[[SUM]] {domain_id = 0 : i64}
// CHECK-NOT:     arith.maxui
// CHECK:         %[[A:.*]] = memref.view %[[POOL]][%[[C0]]][%[[M]]]
// CHECK:         %[[B:.*]] = memref.view %[[POOL]][%[[A_ALIGNED]]][%[[N]]]
// CHECK:         linalg.add ins(%[[A]], %[[B]] : memref<?xf32>, memref<?xf32>)

// IREE-LABEL: func.func @onyx_main(
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %xa = onyx.get_input %ctx[0] : memref<?xf32>
  %xb = onyx.get_input %ctx[1] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %m = memref.dim %xa, %c0 : memref<?xf32>
  %n = memref.dim %xb, %c0 : memref<?xf32>
  %a = onyx.alloc_temp %ctx(%m) : memref<?xf32>
  memref.copy %xa, %a : memref<?xf32> to memref<?xf32>
  %b = onyx.alloc_temp %ctx(%n) : memref<?xf32>
  memref.copy %xb, %b : memref<?xf32> to memref<?xf32>
  %out = onyx.alloc_output %ctx[0] (%m) : memref<?xf32>
  linalg.add ins(%a, %b : memref<?xf32>, memref<?xf32>) outs(%out : memref<?xf32>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----
// Disjoint temporaries with the SAME size value (and the same static
// factor; the element types differ but have equal widths): one footprint,
// shared without a maximum, in both schemes. The graph output is not pooled.

// CHECK-LABEL: func.func @onyx_main(
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[N:.*]] = memref.dim
// CHECK:         arith.muli %[[N]]
// CHECK:         %[[ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK-NOT:     arith.maxui
// CHECK:         %[[POOL:.*]] = onyx.get_pool %{{.*}}, %[[ALIGNED]] {domain_id = 0 : i64}
// CHECK-NOT:     arith.maxui
// CHECK:         memref.view %[[POOL]][%[[C0]]][%[[N]]] : memref<?xi8> to memref<?xf32>
// CHECK:         memref.view %[[POOL]][%[[C0]]][%[[N]]] : memref<?xi8> to memref<?xi32>
// CHECK:         onyx.alloc_output %{{.*}}[0] (%[[N]]) : memref<?xi32>

// IREE-LABEL: func.func @onyx_main(
// IREE-DAG:     %[[C256:.*]] = arith.constant 256 : index
// IREE-DAG:     %[[C0:.*]] = arith.constant 0 : index
// IREE:         %[[ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// IREE:         %[[POOL:.*]] = onyx.get_pool %{{.*}}, %[[ALIGNED]] {domain_id = 0 : i64}
// IREE:         memref.view %[[POOL]][%[[C0]]]
// IREE:         memref.view %[[POOL]][%[[C0]]]
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %x = onyx.get_input %ctx[0] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %cst = arith.constant 1.0 : f32
  %c1 = arith.constant 1 : i32
  %a = onyx.alloc_temp %ctx(%n) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<?xf32>)
  %b = onyx.alloc_temp %ctx(%n) : memref<?xi32>
  linalg.fill ins(%c1 : i32) outs(%b : memref<?xi32>)
  %out = onyx.alloc_output %ctx[0] (%n) : memref<?xi32>
  linalg.fill ins(%c1 : i32) outs(%out : memref<?xi32>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----
// Aliases extend lifetimes. A subview of %a is created before %b is
// allocated but used after %b is written: %a and %b must not share.

// CHECK-LABEL: func.func @onyx_main(
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[A_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK:         %[[B_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK-NEXT:    %[[SUM:.*]] = arith.addi %[[A_ALIGNED]], %[[B_ALIGNED]] : index
// CHECK-NEXT:    %[[POOL:.*]] = onyx.get_pool %{{.*}}, %[[SUM]]
// CHECK-NOT:     arith.maxui
// CHECK:         %[[A:.*]] = memref.view %[[POOL]][%[[C0]]]
// CHECK:         %[[SV:.*]] = memref.subview %[[A]]
// CHECK:         %[[B:.*]] = memref.view %[[POOL]][%[[A_ALIGNED]]]
// CHECK:         linalg.fill {{.*}} outs(%[[B]]
// CHECK:         linalg.fill {{.*}} outs(%[[SV]]

// IREE-LABEL: func.func @onyx_main(
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %xa = onyx.get_input %ctx[0] : memref<?xf32>
  %xb = onyx.get_input %ctx[1] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %xa, %c0 : memref<?xf32>
  %n = memref.dim %xb, %c0 : memref<?xf32>
  %cst = arith.constant 1.0 : f32
  %a = onyx.alloc_temp %ctx(%m) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<?xf32>)
  %sv = memref.subview %a[1] [%c1] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: 1>>
  %b = onyx.alloc_temp %ctx(%n) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%b : memref<?xf32>)
  linalg.fill ins(%cst : f32) outs(%sv : memref<?xf32, strided<[1], offset: 1>>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----
// The same through a chain of aliases: collapse_shape, a cast to an
// unranked memref and back, and memref.reshape. The last use of the chain
// (the linalg.fill of %r) comes after %b is written, so %a and %b overlap.
// (--canonicalize folds the cast pair away after the pass has seen it.)

// CHECK-LABEL: func.func @onyx_main(
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[A_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK:         %[[B_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK-NEXT:    %[[SUM:.*]] = arith.addi %[[A_ALIGNED]], %[[B_ALIGNED]] : index
// CHECK-NEXT:    %[[POOL:.*]] = onyx.get_pool %{{.*}}, %[[SUM]]
// CHECK-NOT:     arith.maxui
// CHECK:         %[[A:.*]] = memref.view %[[POOL]][%[[C0]]]
// CHECK:         %[[FLAT:.*]] = memref.collapse_shape %[[A]]
// CHECK:         %[[R:.*]] = memref.reshape %[[FLAT]]
// CHECK:         %[[B:.*]] = memref.view %[[POOL]][%[[A_ALIGNED]]]
// CHECK:         linalg.fill {{.*}} outs(%[[B]]
// CHECK:         linalg.fill {{.*}} outs(%[[R]]

// IREE-LABEL: func.func @onyx_main(
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %xa = onyx.get_input %ctx[0] : memref<?x4xf32>
  %xb = onyx.get_input %ctx[1] : memref<?xf32>
  %shape = onyx.get_input %ctx[2] : memref<2xi64>
  %c0 = arith.constant 0 : index
  %m = memref.dim %xa, %c0 : memref<?x4xf32>
  %n = memref.dim %xb, %c0 : memref<?xf32>
  %cst = arith.constant 1.0 : f32
  %a = onyx.alloc_temp %ctx(%m) : memref<?x4xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<?x4xf32>)
  %flat = memref.collapse_shape %a [[0, 1]] : memref<?x4xf32> into memref<?xf32>
  %u = memref.cast %flat : memref<?xf32> to memref<*xf32>
  %back = memref.cast %u : memref<*xf32> to memref<?xf32>
  %r = memref.reshape %back(%shape) : (memref<?xf32>, memref<2xi64>) -> memref<?x?xf32>
  %b = onyx.alloc_temp %ctx(%n) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%b : memref<?xf32>)
  linalg.fill ins(%cst : f32) outs(%r : memref<?x?xf32>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----
// The converse: an alias whose last use is before %b is allocated does not
// extend %a's lifetime; %a and %b share offset 0 under a maximum.

// CHECK-LABEL: func.func @onyx_main(
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[MAX:.*]] = arith.maxui
// CHECK-NEXT:    %[[POOL:.*]] = onyx.get_pool %{{.*}}, %[[MAX]]
// CHECK:         %[[A:.*]] = memref.view %[[POOL]][%[[C0]]]
// CHECK:         %[[SV:.*]] = memref.subview %[[A]]
// CHECK-NEXT:    linalg.fill {{.*}} outs(%[[SV]]
// CHECK-NEXT:    %[[B:.*]] = memref.view %[[POOL]][%[[C0]]]

// IREE-LABEL: func.func @onyx_main(
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %xa = onyx.get_input %ctx[0] : memref<?xf32>
  %xb = onyx.get_input %ctx[1] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %xa, %c0 : memref<?xf32>
  %n = memref.dim %xb, %c0 : memref<?xf32>
  %cst = arith.constant 1.0 : f32
  %a = onyx.alloc_temp %ctx(%m) : memref<?xf32>
  %sv = memref.subview %a[1] [%c1] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: 1>>
  linalg.fill ins(%cst : f32) outs(%sv : memref<?xf32, strided<[1], offset: 1>>)
  %b = onyx.alloc_temp %ctx(%n) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%b : memref<?xf32>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----
// A readback splits domains: %k is loaded from %a's contents after the
// first allocation, so %b's size cannot be computed at the first domain's
// anchor. %b starts domain 1 with its own onyx.get_pool, emitted after the
// load; %c (sized by %m) joins the current domain, domain 1, and shares
// with %b under a maximum.

// CHECK-LABEL: func.func @onyx_main(
// CHECK-SAME:      %[[CTX:.*]]: !onyx.context)
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[M:.*]] = memref.dim
// CHECK:         %[[A_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK-NEXT:    %[[POOL0:.*]] = onyx.get_pool %[[CTX]], %[[A_ALIGNED]] {domain_id = 0 : i64}
// CHECK-NEXT:    onyx.record_temp %[[CTX]], %[[A_ALIGNED]] {domain_id = 0 : i64,
// CHECK-NEXT:    %[[A:.*]] = memref.view %[[POOL0]][%[[C0]]][%[[M]]] : memref<?xi8> to memref<?xi64>
// CHECK-NEXT:    memref.copy %{{.*}}, %[[A]]
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[A]][%[[C0]]]
// CHECK-NEXT:    %[[K:.*]] = arith.index_cast %[[V]] : i64 to index
// CHECK-NEXT:    arith.muli %[[K]]
// CHECK:         %[[B_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK-NEXT:    arith.muli %[[M]]
// CHECK:         %[[C_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK-NEXT:    %[[MAX:.*]] = arith.maxui %[[B_ALIGNED]], %[[C_ALIGNED]] : index
// CHECK-NEXT:    %[[POOL1:.*]] = onyx.get_pool %[[CTX]], %[[MAX]] {domain_id = 1 : i64}
// CHECK-NEXT:    onyx.record_temp %[[CTX]], %[[B_ALIGNED]] {domain_id = 1 : i64,
// CHECK-NEXT:    onyx.record_temp %[[CTX]], %[[C_ALIGNED]] {domain_id = 1 : i64,
// CHECK-NEXT:    memref.view %[[POOL1]][%[[C0]]][%[[K]]] : memref<?xi8> to memref<?xf32>
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    memref.view %[[POOL1]][%[[C0]]][%[[M]]] : memref<?xi8> to memref<?xf32>
// CHECK-NOT:     onyx.get_pool

// IREE-LABEL: func.func @onyx_main(
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %in = onyx.get_input %ctx[0] : memref<?xi64>
  %c0 = arith.constant 0 : index
  %m = memref.dim %in, %c0 : memref<?xi64>
  %a = onyx.alloc_temp %ctx(%m) : memref<?xi64>
  memref.copy %in, %a : memref<?xi64> to memref<?xi64>
  %v = memref.load %a[%c0] : memref<?xi64>
  %k = arith.index_cast %v : i64 to index
  %b = onyx.alloc_temp %ctx(%k) : memref<?xf32>
  %cst = arith.constant 0.0 : f32
  linalg.fill ins(%cst : f32) outs(%b : memref<?xf32>)
  %c = onyx.alloc_temp %ctx(%m) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%c : memref<?xf32>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----
// A load that happens before the first allocation does not split: its value
// is available at the anchor. Side-effect-free size arithmetic written after
// the first allocation is hoisted to the anchor. One domain.

// CHECK-LABEL: func.func @onyx_main(
// CHECK:         %[[V:.*]] = memref.load
// CHECK:         %[[K:.*]] = arith.index_cast %[[V]]
// CHECK:         %[[K2:.*]] = arith.addi %[[K]], %{{.*}} : index
// CHECK:         arith.maxui
// CHECK-NEXT:    %[[POOL:.*]] = onyx.get_pool %{{.*}} {domain_id = 0 : i64}
// CHECK:         memref.view %[[POOL]]
// CHECK:         memref.view %[[POOL]][%{{.*}}][%[[K2]]]
// CHECK-NOT:     onyx.get_pool

// IREE-LABEL: func.func @onyx_main(
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %in = onyx.get_input %ctx[0] : memref<?xi64>
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %v = memref.load %in[%c0] : memref<?xi64>
  %k = arith.index_cast %v : i64 to index
  %m = memref.dim %in, %c0 : memref<?xi64>
  %cst = arith.constant 0.0 : f32
  %a = onyx.alloc_temp %ctx(%m) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<?xf32>)
  %k2 = arith.addi %k, %c3 : index
  %b = onyx.alloc_temp %ctx(%k2) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%b : memref<?xf32>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----
// Static sizes: best fit over lifetimes, largest first; the pool is the
// static region only. Lifetimes (program positions):
//   %x 512 B [alloc .. fill x]   %y 256 B [alloc .. fill y at the end]
//   %z 256 B [alloc .. fill z]   %w 256 B [alloc .. fill w at the end]
//   %v 256 B [alloc after x and z died .. fill v]
// Placement: %x at 0 (largest); %y, %z, %w overlap %x and each other, so
// 512, 768, 1024. %v overlaps only %y and %w: the free gaps are [0, 512)
// and [768, 1024); best fit takes the smaller one, 768 (first fit would
// take 0). Region: 1280 bytes.

// CHECK-LABEL: func.func @onyx_main(
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C512:.*]] = arith.constant 512 : index
// CHECK-DAG:     %[[C768:.*]] = arith.constant 768 : index
// CHECK-DAG:     %[[C1024:.*]] = arith.constant 1024 : index
// CHECK-DAG:     %[[C1280:.*]] = arith.constant 1280 : index
// CHECK:         %[[POOL:.*]] = onyx.get_pool %{{.*}}, %[[C1280]] {domain_id = 0 : i64}
// CHECK:         %[[X:.*]] = memref.view %[[POOL]][%[[C0]]][] : memref<?xi8> to memref<128xf32>
// CHECK-NEXT:    %[[Y:.*]] = memref.view %[[POOL]][%[[C512]]][] : memref<?xi8> to memref<64xf32>
// CHECK-NEXT:    %[[Z:.*]] = memref.view %[[POOL]][%[[C768]]][] : memref<?xi8> to memref<64xf32>
// CHECK-NEXT:    %[[W:.*]] = memref.view %[[POOL]][%[[C1024]]][] : memref<?xi8> to memref<64xf32>
// CHECK-NEXT:    linalg.fill {{.*}} outs(%[[X]]
// CHECK-NEXT:    linalg.fill {{.*}} outs(%[[Z]]
// CHECK-NEXT:    %[[V:.*]] = memref.view %[[POOL]][%[[C768]]][] : memref<?xi8> to memref<64xf32>
// CHECK-NEXT:    linalg.fill {{.*}} outs(%[[V]]

// IREE-LABEL: func.func @onyx_main(
// IREE-DAG:     %[[C1280:.*]] = arith.constant 1280 : index
// IREE:         onyx.get_pool %{{.*}}, %[[C1280]] {domain_id = 0 : i64}
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %cst = arith.constant 1.0 : f32
  %x = onyx.alloc_temp %ctx : memref<128xf32>
  %y = onyx.alloc_temp %ctx : memref<64xf32>
  %z = onyx.alloc_temp %ctx : memref<64xf32>
  %w = onyx.alloc_temp %ctx : memref<64xf32>
  linalg.fill ins(%cst : f32) outs(%x : memref<128xf32>)
  linalg.fill ins(%cst : f32) outs(%z : memref<64xf32>)
  %v = onyx.alloc_temp %ctx : memref<64xf32>
  linalg.fill ins(%cst : f32) outs(%v : memref<64xf32>)
  linalg.fill ins(%cst : f32) outs(%y : memref<64xf32>)
  linalg.fill ins(%cst : f32) outs(%w : memref<64xf32>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----
// Static and run-time sizes in one domain: [static region | group slab].
// The static temporary (3 x f32, aligned to 256) sits at 0; the run-time
// group starts after the static region, at 256, and the pool is 256 + slab.

// CHECK-LABEL: func.func @onyx_main(
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK:         %[[N:.*]] = memref.dim
// CHECK:         %[[ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK-NEXT:    %[[SIZE:.*]] = arith.addi %[[ALIGNED]], %[[C256]] : index
// CHECK-NEXT:    %[[POOL:.*]] = onyx.get_pool %{{.*}}, %[[SIZE]] {domain_id = 0 : i64}
// CHECK:         memref.view %[[POOL]][%[[C0]]][] : memref<?xi8> to memref<3xf32>
// CHECK:         memref.view %[[POOL]][%[[C256]]][%[[N]]] : memref<?xi8> to memref<?xf32>

// IREE-LABEL: func.func @onyx_main(
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %x = onyx.get_input %ctx[0] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %cst = arith.constant 1.0 : f32
  %s = onyx.alloc_temp %ctx : memref<3xf32>
  linalg.fill ins(%cst : f32) outs(%s : memref<3xf32>)
  %d = onyx.alloc_temp %ctx(%n) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%d : memref<?xf32>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----
// scheme=iree does not share different run-time sizes even when lifetimes
// are disjoint (three sequential temporaries sized %m, %n, %m: the two %m
// ones share, %n gets its own slab). The lifetime scheme puts all three at
// offset 0 under one maximum (the two %m footprints are one value).

// CHECK-LABEL: func.func @onyx_main(
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[M_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK:         %[[N_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK:         %[[M2_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK-NEXT:    %[[MAX:.*]] = arith.maxui %[[M_ALIGNED]], %[[N_ALIGNED]] : index
// CHECK-NEXT:    %[[POOL:.*]] = onyx.get_pool %{{.*}}, %[[MAX]]
// CHECK:         memref.view %[[POOL]][%[[C0]]]
// CHECK:         memref.view %[[POOL]][%[[C0]]]
// CHECK:         memref.view %[[POOL]][%[[C0]]]

// IREE-LABEL: func.func @onyx_main(
// IREE-DAG:     %[[C256:.*]] = arith.constant 256 : index
// IREE-DAG:     %[[C0:.*]] = arith.constant 0 : index
// IREE:         %[[M:.*]] = memref.dim %{{.*}}, %[[C0]]
// IREE:         %[[N:.*]] = memref.dim %{{.*}}, %[[C0]]
// IREE:         %[[M_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// IREE:         %[[N_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// IREE:         %[[M2_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// IREE-NEXT:    %[[SUM:.*]] = arith.addi %[[M_ALIGNED]], %[[N_ALIGNED]] : index
// IREE-NEXT:    %[[POOL:.*]] = onyx.get_pool %{{.*}}, %[[SUM]]
// IREE-NOT:     arith.maxui
// IREE:         memref.view %[[POOL]][%[[C0]]][%[[M]]]
// IREE:         memref.view %[[POOL]][%[[M_ALIGNED]]][%[[N]]]
// IREE:         memref.view %[[POOL]][%[[C0]]][%[[M]]]
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %xa = onyx.get_input %ctx[0] : memref<?xf32>
  %xb = onyx.get_input %ctx[1] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %m = memref.dim %xa, %c0 : memref<?xf32>
  %n = memref.dim %xb, %c0 : memref<?xf32>
  %cst = arith.constant 1.0 : f32
  %a = onyx.alloc_temp %ctx(%m) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<?xf32>)
  %b = onyx.alloc_temp %ctx(%n) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%b : memref<?xf32>)
  %c = onyx.alloc_temp %ctx(%m) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%c : memref<?xf32>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----
// No temporaries: nothing changes, no pool. A temporary nested in a region
// (here a loop body) is not planned and stays an onyx.alloc_temp.

// CHECK-LABEL: func.func @onyx_main(
// CHECK-NOT:     onyx.get_pool
// CHECK:         scf.for
// CHECK-NEXT:      onyx.alloc_temp
// CHECK-NOT:     onyx.get_pool
// CHECK:         return

// IREE-LABEL: func.func @onyx_main(
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %x = onyx.get_input %ctx[0] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %cst = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %t = onyx.alloc_temp %ctx(%n) : memref<?xf32>
    linalg.fill ins(%cst : f32) outs(%t : memref<?xf32>)
  }
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----
// A temporary nothing uses but a dim and a view only a dim reads (what the
// CPU target leaves when a convolution call absorbed the generic that
// wrote it) gets no memory: the dims resolve to its stated size, and it,
// its view and the dims go; the pool holds only %a.

// CHECK-LABEL: func.func @onyx_main(
// CHECK:         %[[POOL:.*]] = onyx.get_pool %{{.*}}, %{{.*}} {domain_id = 0 : i64}
// CHECK:         %[[A:.*]] = memref.view %[[POOL]]
// CHECK-NOT:     memref.view
// CHECK-NOT:     onyx.alloc_temp
// CHECK:         memref.copy %{{.*}}, %[[A]]
// CHECK:         onyx.alloc_output %{{.*}}[0] (%[[M:.*]])
// CHECK-NEXT:    linalg.copy

// IREE-LABEL: func.func @onyx_main(
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %x = onyx.get_input %ctx[0] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %m = memref.dim %x, %c0 : memref<?xf32>
  %a = onyx.alloc_temp %ctx(%m) : memref<?xf32>
  memref.copy %x, %a : memref<?xf32> to memref<?xf32>
  %dead = onyx.alloc_temp %ctx(%m) : memref<?xf32>
  %view = memref.expand_shape %dead [[0, 1]] output_shape [1, %m] : memref<?xf32> into memref<1x?xf32>
  %c1 = arith.constant 1 : index
  %k = memref.dim %view, %c1 : memref<1x?xf32>
  %out = onyx.alloc_output %ctx[0] (%k) : memref<?xf32>
  linalg.copy ins(%a : memref<?xf32>) outs(%out : memref<?xf32>)
  %zero = arith.constant 0 : i32
  return %zero : i32
}
