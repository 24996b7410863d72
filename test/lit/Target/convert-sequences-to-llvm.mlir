// RUN: onyx-opt %s --onyx-convert-to-llvm | FileCheck %s \
// RUN:   --implicit-check-not=onyx. --implicit-check-not=!onyx
//
// Sequence and optional ops (docs/sequences.md) become onyxrt_seq_* calls on
// !llvm.ptr handles with the entry's context. Fallible calls are followed by
// a failure exit: a NULL result returns 1 from the entry (the runtime has
// recorded the message, prefixed with the node named by the label global).

// CHECK-DAG:   llvm.mlir.global private constant @onyx_seq_label_{{[0-9]+}}("Insert_1\00")
// CHECK-DAG:   llvm.func @onyxrt_input_value(!llvm.ptr, i64) -> !llvm.ptr
// CHECK-DAG:   llvm.func @onyxrt_seq_insert(!llvm.ptr, !llvm.ptr, i64, i32, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> !llvm.ptr
// CHECK-DAG:   llvm.func @onyxrt_seq_at(!llvm.ptr, !llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr) -> !llvm.ptr
// CHECK-DAG:   llvm.func @onyxrt_set_output_value(!llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> i32

// CHECK-LABEL: llvm.func @onyx_main(
// CHECK-SAME:    %[[CTX:.*]]: !llvm.ptr) -> i32 {
// CHECK:         %[[SEQ:.*]] = llvm.call @onyxrt_input_value(%[[CTX]], %{{.*}}) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         %[[OK:.*]] = llvm.icmp "ne" %[[SEQ]], %[[NULL]] : !llvm.ptr
// CHECK:         llvm.cond_br %[[OK]], ^[[CONT:.*]], ^[[FAIL:.*]]
// CHECK:       ^[[FAIL]]:
// CHECK:         %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK:         llvm.return %[[ONE]] : i32
// CHECK:       ^[[CONT]]:
// CHECK:         %[[AT:.*]] = llvm.call @onyxrt_seq_at(%[[CTX]], %[[SEQ]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr) -> !llvm.ptr
// CHECK:         llvm.cond_br
// CHECK:         llvm.load
// CHECK:         %[[INS:.*]] = llvm.call @onyxrt_seq_insert(%[[CTX]], %[[SEQ]], {{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i32, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> !llvm.ptr
// CHECK:         llvm.cond_br
// CHECK:         %[[LEN:.*]] = llvm.call @onyxrt_seq_length(%[[CTX]], %[[INS]]) : (!llvm.ptr, !llvm.ptr) -> i64
// CHECK:         %[[ST:.*]] = llvm.call @onyxrt_set_output_value(%[[CTX]], %{{.*}}, %[[INS]], %{{.*}}) : (!llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> i32
// CHECK:         llvm.icmp "eq" %[[ST]]
module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %seq = onyx.get_input_value %ctx[0] : !onyx.sequence<f32>
    %p = arith.constant -1 : i64
    %e = onyx.seq_at %seq[%p] : <f32> -> memref<?x?xf32> loc("At_1")
    %s = onyx.seq_insert %seq, %e : <f32>, memref<?x?xf32> loc("Insert_1")
    %n = onyx.seq_length %s : <f32>
    onyx.set_output_value %ctx[0], %s : !onyx.sequence<f32>
    %c0 = arith.constant 0 : i32
    return %c0 : i32
  }
}
