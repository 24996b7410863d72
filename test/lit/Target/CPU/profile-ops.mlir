// RUN: onyx-opt %s --onyx-cpu-profile-ops --split-input-file | FileCheck %s
// RUN: onyx-opt %s --onyx-cpu-profile-ops --split-input-file --convert-linalg-to-loops --convert-scf-to-cf --onyx-convert-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// A linalg op and a BLAS call, each between the hooks: the node name from
// the location, the op kind, and a table of the buffers' shapes (count,
// then rank and dims; the dynamic dim read after the op).
// The strings are private globals at the top of the module.
// CHECK-DAG:   llvm.mlir.global private constant @[[FILL_NODE:onyx_profile_str_[0-9]+]]("the_fill\00")
// CHECK-DAG:   llvm.mlir.global private constant @[[FILL_KIND:onyx_profile_str_[0-9]+]]("linalg.fill\00")
// CHECK-DAG:   llvm.mlir.global private constant @{{.*}}("the_gemm\00")
// CHECK-DAG:   llvm.mlir.global private constant @{{.*}}("cblas_sgemm\00")
// CHECK-LABEL: func.func @onyx_main(
// CHECK-SAME:    %[[CTX:.*]]: !onyx.context) -> i32
// CHECK:         %[[TABLE:.*]] = llvm.alloca %{{.*}} x i64
// CHECK:         %[[T0:.*]] = call @onyxrt_profile_begin(%[[CTX]]) : (!onyx.context) -> i64
// CHECK-NEXT:    linalg.fill
// CHECK:         llvm.store %{{.*}}, %{{.*}} : i64, !llvm.ptr
// CHECK:         memref.dim %{{.*}}, %c0
// CHECK:         %[[N0:.*]] = llvm.mlir.addressof @[[FILL_NODE]]
// CHECK:         %[[K0:.*]] = llvm.mlir.addressof @[[FILL_KIND]]
// CHECK:         call @onyxrt_profile_end(%[[CTX]], %[[T0]], %[[N0]], %[[K0]], %[[TABLE]])
// CHECK:         %[[T1:.*]] = call @onyxrt_profile_begin(%[[CTX]])
// CHECK-NEXT:    call @cblas_sgemm
// CHECK:         call @onyxrt_profile_end(%[[CTX]], %[[T1]]
// CHECK:         return
// CHECK-DAG:   func.func private @onyxrt_profile_begin(!onyx.context) -> i64
// CHECK-DAG:   func.func private @onyxrt_profile_end(!onyx.context, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr)
// The hooks lower with the rest of the entry: the context is a pointer.
// LLVM-LABEL: llvm.func @onyx_main(
// LLVM:         llvm.call @onyxrt_profile_begin(%{{.*}}) : (!llvm.ptr) -> i64
// LLVM:         llvm.call @onyxrt_profile_end(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
module {
  func.func private @cblas_sgemm(i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i64, !llvm.ptr, i64, f32, !llvm.ptr, i64)
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %n = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    %i0 = arith.constant 0 : i32
    %i64 = arith.constant 3 : i64
    %buf = memref.alloc(%n) : memref<?x3xf32>
    linalg.fill ins(%zero : f32) outs(%buf : memref<?x3xf32>) loc("the_fill")
    %base = memref.extract_aligned_pointer_as_index %buf : memref<?x3xf32> -> index
    %addr = arith.index_cast %base : index to i64
    %p = llvm.inttoptr %addr : i64 to !llvm.ptr
    call @cblas_sgemm(%i0, %i0, %i0, %i0, %i0, %i0, %zero, %p, %i64, %p, %i64, %zero, %p, %i64) : (i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i64, !llvm.ptr, i64, f32, !llvm.ptr, i64) -> () loc("the_gemm")
    memref.dealloc %buf : memref<?x3xf32>
    %r = arith.constant 0 : i32
    return %r : i32
  }
}

// -----

// Functions without a context (helpers) are left alone; nested ops of a
// profiled op (the body of a generic) are not bracketed again, and an op in
// a loop is bracketed inside the loop.
// CHECK-LABEL: func.func @helper
// CHECK-NOT:     onyxrt_profile
// CHECK-LABEL: func.func @onyx_main
// CHECK:         scf.for
// CHECK-NEXT:      %[[T:.*]] = {{(func\.)?}}call @onyxrt_profile_begin
// CHECK-NEXT:      linalg.generic
// CHECK-NOT:       onyxrt_profile_begin
// CHECK:           linalg.yield
// CHECK:           call @onyxrt_profile_end(%{{.*}}, %[[T]]
#id = affine_map<(d0) -> (d0)>
module {
  func.func @helper(%a: memref<4xf32>, %b: memref<4xf32>) {
    memref.copy %a, %b : memref<4xf32> to memref<4xf32>
    return
  }
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %a = memref.alloc() : memref<4xf32>
    scf.for %i = %c0 to %c3 step %c1 {
      linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : memref<4xf32>) outs(%a : memref<4xf32>) {
      ^bb0(%x: f32, %y: f32):
        %s = arith.addf %x, %y : f32
        linalg.yield %s : f32
      } loc("acc")
    }
    memref.dealloc %a : memref<4xf32>
    %r = arith.constant 0 : i32
    return %r : i32
  }
}
