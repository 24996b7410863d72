// RUN: onyx-opt %s --onyx-cuda-lower-layer-norm --canonicalize --cse --split-input-file \
// RUN:   | FileCheck %s
//
// onyx.layer_norm on buffers becomes one onyxrt_cuda_layer_norm call: the
// element codes of input, residual, sum, output, second output and
// parameters (0 for an absent operand; the sum's is the input's without a
// sum buffer), rows (the product of the dims before axis) and n (the
// product from axis on), epsilon, and the device pointers of input,
// residual, scale, bias, sum, output and second output (null when absent).

// CHECK: llvm.mlir.global private constant @[[L:.*]]("node 'ln' (layer norm)\00")
// CHECK-LABEL: func.func @onyx_main
// CHECK-NOT:     onyx.layer_norm
// CHECK:         %[[B:.*]] = memref.dim %{{.*}}, %c0 : memref<?x?x768xf32>
// CHECK:         %[[S:.*]] = memref.dim %{{.*}}, %c1 : memref<?x?x768xf32>
// CHECK:         %[[BI:.*]] = arith.index_cast %[[B]] : index to i64
// CHECK:         %[[SI:.*]] = arith.index_cast %[[S]] : index to i64
// CHECK:         %[[ROWS:.*]] = arith.muli %[[BI]], %[[SI]] : i64
// CHECK:         call @onyxrt_cuda_layer_norm(%{{.*}}, %{{.*}}, %c1_i32, %c0_i32, %c1_i32, %c10_i32, %c0_i32, %c1_i32, %[[ROWS]], %c768_i64, %{{cst[_0-9]*}},
// CHECK-SAME:      %{{[^,]*}}, %[[NULL:[^,]*]], %{{[^,]*}}, %{{[^,]*}}, %[[NULL]], %{{[^,]*}}, %[[NULL]]) {onyx.cuda_status}
// CHECK:       func.func private @onyxrt_cuda_layer_norm(!onyx.context, !llvm.ptr, i32, i32, i32, i32, i32, i32, i64, i64, f64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = onyx.get_input %ctx[0] : memref<?x?x768xf32>
    %g = onyx.get_input %ctx[1] : memref<768xf32>
    %bias = onyx.get_input %ctx[2] : memref<768xf32>
    %b = memref.dim %x, %c0 : memref<?x?x768xf32>
    %s = memref.dim %x, %c1 : memref<?x?x768xf32>
    %o = onyx.alloc_output %ctx[0] (%b, %s) : memref<?x?x768xf16>
    onyx.layer_norm x(%x : memref<?x?x768xf32>) scale(%g : memref<768xf32>)
        bias(%bias : memref<768xf32>) outs(%o : memref<?x?x768xf16>)
        {axis = 2 : i64, epsilon = 1.0e-5 : f64} loc("ln")
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// bf16 throughout, normalized over the last two dims, no bias: a null
// pointer in its place.
// CHECK-LABEL: func.func @bf16
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         call @onyxrt_cuda_layer_norm(%{{.*}}, %{{.*}}, %c16_i32, %c0_i32, %c16_i32, %c16_i32, %c0_i32, %c16_i32, %c3_i64, %c32_i64, %{{cst[_0-9]*}},
// CHECK-SAME:      %{{[^,]*}}, %[[NULL]], %{{[^,]*}}, %[[NULL]], %[[NULL]], %{{[^,]*}}, %[[NULL]]) {onyx.cuda_status}
module {
  func.func @bf16(%ctx: !onyx.context) -> i32 {
    %x = onyx.get_input %ctx[0] : memref<3x4x8xbf16>
    %g = onyx.get_input %ctx[1] : memref<4x8xbf16>
    %o = onyx.alloc_output %ctx[0] : memref<3x4x8xbf16>
    onyx.layer_norm x(%x : memref<3x4x8xbf16>) scale(%g : memref<4x8xbf16>)
        outs(%o : memref<3x4x8xbf16>) {axis = 1 : i64, epsilon = 1.0e-5 : f64} loc("bf16")
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// The residual stream: an f16 residual added to the f32 input, the sum
// written (f32), an f32 output and its f16 copy.
// CHECK-LABEL: func.func @residual
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         call @onyxrt_cuda_layer_norm(%{{.*}}, %{{.*}}, %c1_i32, %c10_i32, %c1_i32, %c1_i32, %c10_i32, %c1_i32, %c8_i64, %c64_i64, %{{cst[_0-9]*}},
// CHECK-SAME:      %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[NULL]], %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}) {onyx.cuda_status}
module {
  func.func @residual(%ctx: !onyx.context) -> i32 {
    %x = onyx.get_input %ctx[0] : memref<8x64xf32>
    %r = onyx.get_input %ctx[1] : memref<8x64xf16>
    %g = onyx.get_input %ctx[2] : memref<64xf32>
    %s = onyx.alloc_output %ctx[0] : memref<8x64xf32>
    %o = onyx.alloc_output %ctx[1] : memref<8x64xf32>
    %o2 = onyx.alloc_output %ctx[2] : memref<8x64xf16>
    onyx.layer_norm x(%x : memref<8x64xf32>) residual(%r : memref<8x64xf16>)
        scale(%g : memref<64xf32>) outs(%o : memref<8x64xf32>)
        outs2(%o2 : memref<8x64xf16>) sum(%s : memref<8x64xf32>)
        {axis = 1 : i64, epsilon = 1.0e-5 : f64} loc("residual")
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}
