// RUN: onyx-opt %s --onyx-lower-runtime-checks -split-input-file \
// RUN:   -verify-diagnostics | FileCheck %s --implicit-check-not=onyx.assert
//
// In the entry function every onyx.assert becomes a cf.cond_br to a block
// that reports the message through @onyxrt_fail and returns 1; every
// onyx.alloc_output / onyx.alloc_temp is followed by a null check that
// returns 1. The message is a private constant LLVM global, prefixed with the
// node name when the assert carries a NameLoc.

// CHECK-LABEL: module {
// CHECK:       llvm.mlir.global private constant @[[MSG1:onyx_msg_[0-9]+]]("plain check {0}\00")
// CHECK:       llvm.mlir.global private constant @[[MSG0:onyx_msg_[0-9]+]]("node 'mynode': extent {0} is not {1}\00")
// CHECK:       func.func @onyx_main(%[[CTX:.*]]: !onyx.context) -> i32 {
// CHECK:         %[[X:.*]] = onyx.get_input %[[CTX]][0] : memref<?xf32>
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[D:.*]] = memref.dim %[[X]], %{{.*}} : memref<?xf32>
// CHECK:         %[[OK:.*]] = arith.cmpi eq, %[[D]], %[[C4]] : index
// CHECK-NEXT:    cf.cond_br %[[OK]], ^[[CONT:bb[0-9]+]], ^[[FAIL0:bb[0-9]+]]
// CHECK:       ^[[CONT]]:
// CHECK:         %[[OK2:.*]] = arith.cmpi sgt, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    cf.cond_br %[[OK2]], ^[[CONT2:bb[0-9]+]], ^[[FAIL1:bb[0-9]+]]
// CHECK:       ^[[CONT2]]:
// CHECK-NEXT:    %[[T:.*]] = onyx.alloc_temp %[[CTX]](%[[D]]) : memref<?xf32>
// CHECK-NEXT:    %[[TP:.*]] = memref.extract_aligned_pointer_as_index %[[T]] : memref<?xf32> -> index
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[TNN:.*]] = arith.cmpi ne, %[[TP]], %[[Z]] : index
// CHECK-NEXT:    cf.cond_br %[[TNN]], ^[[CONT3:bb[0-9]+]], ^[[FAIL2:bb[0-9]+]]
// CHECK:       ^[[CONT3]]:
// CHECK-NEXT:    %[[O:.*]] = onyx.alloc_output %[[CTX]][0] (%[[D]]) : memref<?xf32>
// CHECK-NEXT:    %[[OP:.*]] = memref.extract_aligned_pointer_as_index %[[O]] : memref<?xf32> -> index
// CHECK-NEXT:    %[[Z2:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[ONN:.*]] = arith.cmpi ne, %[[OP]], %[[Z2]] : index
// CHECK-NEXT:    cf.cond_br %[[ONN]], ^[[CONT4:bb[0-9]+]], ^[[FAIL3:bb[0-9]+]]
// CHECK:       ^[[CONT4]]:
// CHECK-NEXT:    memref.copy %[[X]], %[[O]]
// CHECK-NEXT:    %[[SUCCESS:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    return %[[SUCCESS]] : i32
// The allocation failures only return 1 (the runtime recorded the message).
// CHECK:       ^[[FAIL3]]:
// CHECK-NEXT:    %[[ONE3:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    return %[[ONE3]] : i32
// CHECK:       ^[[FAIL2]]:
// CHECK-NEXT:    %[[ONE2:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    return %[[ONE2]] : i32
// The second assert: one i32 argument, sign-extended to i64.
// CHECK:       ^[[FAIL1]]:
// CHECK-NEXT:    %[[M1:.*]] = llvm.mlir.addressof @[[MSG1]] : !llvm.ptr
// CHECK-NEXT:    %[[N1:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[A1:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK-NEXT:    %[[P1:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[P2:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[P3:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    call @onyxrt_fail(%[[CTX]], %[[M1]], %[[N1]], %[[A1]], %[[P1]], %[[P2]], %[[P3]]) : (!onyx.context, !llvm.ptr, i64, i64, i64, i64, i64) -> ()
// CHECK-NEXT:    %[[R1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    return %[[R1]] : i32
// The first assert: two index arguments, padded to four with zeros.
// CHECK:       ^[[FAIL0]]:
// CHECK-NEXT:    %[[M0:.*]] = llvm.mlir.addressof @[[MSG0]] : !llvm.ptr
// CHECK-NEXT:    %[[N0:.*]] = arith.constant 2 : i64
// CHECK-NEXT:    %[[A0:.*]] = arith.index_cast %[[D]] : index to i64
// CHECK-NEXT:    %[[B0:.*]] = arith.index_cast %[[C4]] : index to i64
// CHECK-NEXT:    %[[Q0:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[Q1:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    call @onyxrt_fail(%[[CTX]], %[[M0]], %[[N0]], %[[A0]], %[[B0]], %[[Q0]], %[[Q1]])
// CHECK-NEXT:    %[[R0:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    return %[[R0]] : i32
// CHECK-NEXT:  }
// CHECK:       func.func private @onyxrt_fail(!onyx.context, !llvm.ptr, i64, i64, i64, i64, i64)
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %x = onyx.get_input %ctx[0] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %d = memref.dim %x, %c0 : memref<?xf32>
  %ok = arith.cmpi eq, %d, %c4 : index
  onyx.assert %ok, "extent {0} is not {1}"(%d, %c4 : index, index) loc("mynode")
  %i = arith.index_cast %d : index to i32
  %z = arith.constant 0 : i32
  %pos = arith.cmpi sgt, %i, %z : i32
  onyx.assert %pos, "plain check {0}"(%i : i32)
  %t = onyx.alloc_temp %ctx(%d) : memref<?xf32>
  %o = onyx.alloc_output %ctx[0] (%d) : memref<?xf32>
  memref.copy %x, %o : memref<?xf32> to memref<?xf32>
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----

// Checks inside loops cannot become early returns.
func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %ok = arith.cmpi ult, %i, %c4 : index
    // expected-error @below {{run-time check inside a nested region is not supported yet}}
    onyx.assert %ok, "index {0} out of range"(%i : index)
  }
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----

func.func @onyx_main(%ctx: !onyx.context) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-error @below {{run-time check inside a nested region is not supported yet}}
    %t = onyx.alloc_temp %ctx : memref<4xf32>
  }
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----

// Without a bound entry function an assert has no context to report to.
func.func @main_graph(%b: i1) {
  // expected-error @below {{onyx.assert outside the entry function}}
  onyx.assert %b, "unbound"
  return
}
