// RUN: onyx-opt %s -split-input-file -verify-diagnostics \
// RUN:   --onyx-convert-to-llvm --onyx-generate-interface \
// RUN:   | FileCheck %s --implicit-check-not=onyx.model_metadata
//
// After the host program is in the LLVM dialect, the interface pass adds the
// artifact's exported entry points (trampolines into the runtime library),
// the metadata text and the model descriptor {ABI version, metadata,
// &onyx_main}; @onyx_main becomes internal (reached only through the
// descriptor) and the module attribute is consumed.

// CHECK-LABEL: module {
// CHECK-DAG:   llvm.func @onyxrt_state_create(!llvm.ptr, !llvm.ptr) -> !llvm.ptr
// CHECK-DAG:   llvm.func @onyxrt_state_destroy(!llvm.ptr)
// CHECK-DAG:   llvm.func @onyxrt_run(!llvm.ptr, !llvm.ptr) -> !llvm.ptr
// CHECK:       llvm.func internal @onyx_main(%{{.*}}: !llvm.ptr) -> i32 {
// CHECK:         llvm.call @onyxrt_input_data
// CHECK:         llvm.call @onyxrt_alloc_output
// CHECK:       }
// CHECK:       llvm.mlir.global private constant @onyx_metadata_text("onyx-model v1\0Ainput x 1 2 ?batch 4\0Aoutput y 1 2 ?batch 4\0A\00")
// CHECK:       llvm.mlir.global private constant @onyx_model_desc() {{.*}} : !llvm.struct<(i32, ptr, ptr)> {
// CHECK:         %[[ABI:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK:         %[[TEXT:.*]] = llvm.mlir.addressof @onyx_metadata_text : !llvm.ptr
// CHECK:         %[[ENTRY:.*]] = llvm.mlir.addressof @onyx_main : !llvm.ptr
// CHECK:         %[[D0:.*]] = llvm.insertvalue %[[ABI]], %{{.*}}[0] : !llvm.struct<(i32, ptr, ptr)>
// CHECK:         %[[D1:.*]] = llvm.insertvalue %[[TEXT]], %[[D0]][1] : !llvm.struct<(i32, ptr, ptr)>
// CHECK:         %[[D2:.*]] = llvm.insertvalue %[[ENTRY]], %[[D1]][2] : !llvm.struct<(i32, ptr, ptr)>
// CHECK:         llvm.return %[[D2]] : !llvm.struct<(i32, ptr, ptr)>
// CHECK:       }
// CHECK:       llvm.func @onyx_state_create() -> !llvm.ptr {
// CHECK-NEXT:    %[[DESC:.*]] = llvm.mlir.addressof @onyx_model_desc : !llvm.ptr
// CHECK-NEXT:    %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:    %[[S:.*]] = llvm.call @onyxrt_state_create(%[[DESC]], %[[NULL]]) : (!llvm.ptr, !llvm.ptr) -> !llvm.ptr
// CHECK-NEXT:    llvm.return %[[S]] : !llvm.ptr
// CHECK-NEXT:  }
// CHECK:       llvm.func @onyx_state_destroy(%[[ST:.*]]: !llvm.ptr) {
// CHECK-NEXT:    llvm.call @onyxrt_state_destroy(%[[ST]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }
// CHECK:       llvm.func @inference_compute(%[[STATE:.*]]: !llvm.ptr, %[[INPUTS:.*]]: !llvm.ptr) -> !llvm.ptr {
// CHECK-NEXT:    %[[R:.*]] = llvm.call @onyxrt_run(%[[STATE]], %[[INPUTS]]) : (!llvm.ptr, !llvm.ptr) -> !llvm.ptr
// CHECK-NEXT:    llvm.return %[[R]] : !llvm.ptr
// CHECK-NEXT:  }
// CHECK:       llvm.func @onyx_model_metadata() -> !llvm.ptr {
// CHECK-NEXT:    %[[T:.*]] = llvm.mlir.addressof @onyx_metadata_text : !llvm.ptr
// CHECK-NEXT:    llvm.return %[[T]] : !llvm.ptr
// CHECK-NEXT:  }
module attributes {onyx.model_metadata = "onyx-model v1\0Ainput x 1 2 ?batch 4\0Aoutput y 1 2 ?batch 4\0A"} {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %x = onyx.get_input %ctx[0] : memref<?x4xf32>
    %c0 = arith.constant 0 : index
    %d = memref.dim %x, %c0 : memref<?x4xf32>
    %o = onyx.alloc_output %ctx[0] (%d) : memref<?x4xf32>
    memref.copy %x, %o : memref<?x4xf32> to memref<?x4xf32>
    %zero = arith.constant 0 : i32
    return %zero : i32
  }
}

// -----

// Without the metadata (BindEntryContext did not run) there is nothing to
// describe.
// expected-error @below {{onyx-generate-interface needs the lowered entry function and the model metadata}}
module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %zero = arith.constant 0 : i32
    return %zero : i32
  }
}
