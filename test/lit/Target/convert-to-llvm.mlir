// RUN: onyx-opt %s --onyx-convert-to-llvm | FileCheck %s \
// RUN:   --implicit-check-not=onyx.get_input \
// RUN:   --implicit-check-not=onyx.alloc --implicit-check-not=!onyx.context \
// RUN:   --implicit-check-not=memref. --implicit-check-not=func.func \
// RUN:   --implicit-check-not=arith.
//
// The runtime ops become calls into the runtime library that produce memref
// descriptors; !onyx.context becomes !llvm.ptr.
//   onyx.get_input[i]    -> @onyxrt_input_data(ctx, i) and, per dynamic dim
//                           d, @onyxrt_input_dim(ctx, i, d)
//   onyx.alloc_output[i] -> @onyxrt_alloc_output(ctx, i, rank, shape*) with
//                           the extents stored in an i64 array
//   onyx.alloc_temp      -> @onyxrt_alloc_temp(ctx, bytes)

// CHECK-DAG:   llvm.func @onyxrt_input_data(!llvm.ptr, i64) -> !llvm.ptr
// CHECK-DAG:   llvm.func @onyxrt_input_dim(!llvm.ptr, i64, i64) -> i64
// CHECK-DAG:   llvm.func @onyxrt_alloc_output(!llvm.ptr, i64, i64, !llvm.ptr) -> !llvm.ptr
// CHECK-DAG:   llvm.func @onyxrt_alloc_temp(!llvm.ptr, i64) -> !llvm.ptr

// CHECK-LABEL: llvm.func @onyx_main(
// CHECK-SAME:    %[[CTX:.*]]: !llvm.ptr) -> i32 {
// Input 1 (rank 2, dim 0 dynamic).
// CHECK:         %[[IDX:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT:    %[[DATA:.*]] = llvm.call @onyxrt_input_data(%[[CTX]], %[[IDX]]) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK-NEXT:    %[[DIMIDX:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT:    %[[DIM:.*]] = llvm.call @onyxrt_input_dim(%[[CTX]], %[[IDX]], %[[DIMIDX]]) : (!llvm.ptr, i64, i64) -> i64
// CHECK-NOT:     llvm.call @onyxrt_input_dim
// CHECK:         %[[D0:.*]] = llvm.insertvalue %[[DATA]], %{{.*}}[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK-NEXT:    %{{.*}} = llvm.insertvalue %[[DATA]], %[[D0]][1]
// CHECK:         llvm.insertvalue %[[DIM]], %{{.*}}[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK:         %[[X:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// Input 0 is static: no dim query.
// CHECK:         %[[IDX0:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT:    %[[DATA0:.*]] = llvm.call @onyxrt_input_data(%[[CTX]], %[[IDX0]]) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK-NOT:     llvm.call @onyxrt_input_dim
// The temporary: its size in bytes is dim * 4 elements * sizeof(f32).
// CHECK:         %[[N:.*]] = llvm.extractvalue %[[X]][3, 0]
// CHECK:         %[[ELEMS:.*]] = llvm.mul %{{.*}}, %[[N]] : i64
// CHECK:         %[[GEP:.*]] = llvm.getelementptr %{{.*}}[%[[ELEMS]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[BYTES:.*]] = llvm.ptrtoint %[[GEP]] : !llvm.ptr to i64
// CHECK-NEXT:    %[[TMP:.*]] = llvm.call @onyxrt_alloc_temp(%[[CTX]], %[[BYTES]]) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK:         llvm.insertvalue %[[TMP]], %{{.*}}[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// The output: the extents go through an i64 array of `rank` entries.
// CHECK:         %[[RANK:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK:         %[[SHAPE:.*]] = llvm.alloca %[[RANK]] x i64 : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[SLOT0:.*]] = llvm.getelementptr %[[SHAPE]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    llvm.store %[[N]], %[[SLOT0]] : i64, !llvm.ptr
// CHECK-NEXT:    %[[SLOT1:.*]] = llvm.getelementptr %[[SHAPE]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    llvm.store %{{.*}}, %[[SLOT1]] : i64, !llvm.ptr
// CHECK-NEXT:    %[[OIDX:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT:    %[[OUT:.*]] = llvm.call @onyxrt_alloc_output(%[[CTX]], %[[OIDX]], %[[RANK]], %[[SHAPE]]) : (!llvm.ptr, i64, i64, !llvm.ptr) -> !llvm.ptr
// CHECK:         llvm.insertvalue %[[OUT]], %{{.*}}[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// A static output of rank 1.
// CHECK:         %[[RANK1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK:         %[[SHAPE1:.*]] = llvm.alloca %[[RANK1]] x i64 : (i64) -> !llvm.ptr
// CHECK:         %[[OIDX1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT:    llvm.call @onyxrt_alloc_output(%[[CTX]], %[[OIDX1]], %[[RANK1]], %[[SHAPE1]])
// CHECK:         "llvm.intr.memcpy"
// CHECK:         %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.return %[[ZERO]] : i32
// CHECK-NEXT:  }
module attributes {onyx.model_metadata = "onyx-model v1\0Ainput w 1 1 3\0Ainput x 1 2 ?batch 4\0Aoutput y 1 2 ?batch 4\0Aoutput z 1 1 3\0A"} {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %x = onyx.get_input %ctx[1] : memref<?x4xf32>
    %w = onyx.get_input %ctx[0] : memref<3xf32>
    %c0 = arith.constant 0 : index
    %d = memref.dim %x, %c0 : memref<?x4xf32>
    %t = onyx.alloc_temp %ctx(%d) : memref<?x4xf32>
    %o = onyx.alloc_output %ctx[0] (%d) : memref<?x4xf32>
    %z = onyx.alloc_output %ctx[1] : memref<3xf32>
    memref.copy %x, %t : memref<?x4xf32> to memref<?x4xf32>
    memref.copy %t, %o : memref<?x4xf32> to memref<?x4xf32>
    memref.copy %w, %z : memref<3xf32> to memref<3xf32>
    %zero = arith.constant 0 : i32
    return %zero : i32
  }
}
