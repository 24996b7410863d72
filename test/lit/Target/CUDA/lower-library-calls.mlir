// RUN: onyx-opt %s --onyx-cuda-lower-library-calls --canonicalize --cse \
// RUN:   -split-input-file | FileCheck %s
//
// GEMM-class contractions and the Conv lowering's grouped convolution
// generic become calls of the runtime's cuBLASLt/cuDNN services, with the
// dynamic dims as arguments; anything that does not fit is left alone for
// the outlining pass.

// ONNX MatMul [b, s, 64] x [64, 32]: the leading dims fold into M = b * s;
// the zero fill before it is absorbed (flags 0: overwrite); the weight, a
// host constant, is read through its session copy on the device.

#a = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#b = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK: llvm.mlir.global private constant @[[L:.*]]("node 'mm' (cuBLASLt)\00")
// CHECK-LABEL: func.func @onyx_main
// CHECK-NOT:     linalg.fill
// CHECK:         %[[X:.*]] = onyx.get_input %{{.*}}[0] : memref<?x?x64xf32>
// CHECK:         %[[W:.*]] = memref.get_global @w
// CHECK:         %[[D0:.*]] = memref.dim %[[X]], %c0
// CHECK:         %[[D1:.*]] = memref.dim %[[X]], %c1
// CHECK:         %[[Y:.*]] = onyx.alloc_output
// CHECK:         %[[B:.*]] = arith.index_cast %[[D0]]
// CHECK:         %[[S:.*]] = arith.index_cast %[[D1]]
// CHECK:         %[[M:.*]] = arith.muli %[[B]], %[[S]] : i64
// CHECK:         %[[T:.*]] = onyx.alloc_temp %{{.*}} : memref<64x32xf32>
// CHECK-NEXT:    gpu.memcpy %[[T]], %[[W]] : memref<64x32xf32>, memref<64x32xf32> {onyx.session_constant}
// CHECK:         call @onyxrt_cuda_gemm(%{{.*}}, %{{.*}}, %c1_i32, %c0_i32, %c1_i64, %[[M]], %c32_i64, %c64_i64, %{{.*}}, %c64_i64, %{{.*}}, %{{.*}}, %c32_i64, %c2048_i64, %{{.*}}, %c32_i64, %{{.*}}, %{{.*}}) {onyx.cuda_status}
// CHECK-NOT:     linalg.generic {
// CHECK:       func.func private @onyxrt_cuda_gemm(!onyx.context, !llvm.ptr, i32, i32, i64, i64, i64, i64, !llvm.ptr, i64, i64, !llvm.ptr, i64, i64, !llvm.ptr, i64, i64, !llvm.ptr) -> i32
module {
  memref.global "private" constant @w : memref<64x32xf32> = dense<1.0>
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %x = onyx.get_input %ctx[0] : memref<?x?x64xf32>
    %w = memref.get_global @w : memref<64x32xf32>
    %d0 = memref.dim %x, %c0 : memref<?x?x64xf32>
    %d1 = memref.dim %x, %c1 : memref<?x?x64xf32>
    %y = onyx.alloc_output %ctx[0] (%d0, %d1) : memref<?x?x32xf32>
    linalg.fill ins(%zero : f32) outs(%y : memref<?x?x32xf32>)
    linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%x, %w : memref<?x?x64xf32>, memref<64x32xf32>) outs(%y : memref<?x?x32xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    } loc("mm")
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// Gemm with transB into an output that already holds something (no zero
// fill: flags TRANS_B | ACCUMULATE = 6), and a batched MatMul whose two
// batch dims fold into one batch count with strides m * k, k * n, m * n.

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#q = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#k = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#s = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @onyx_main
// CHECK:         %[[N:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:         call @onyxrt_cuda_gemm(%{{.*}}, %{{.*}}, %c1_i32, %c6_i32, %c1_i64, %[[N]], %c10_i64, %c64_i64, %{{.*}}, %c64_i64, %{{.*}}, %{{.*}}, %c64_i64, %c640_i64, %{{.*}}, %c10_i64, %{{.*}}, %{{.*}})
// CHECK:         %[[BATCH:.*]] = arith.muli %{{.*}}, %c4_i64 : i64
// CHECK:         call @onyxrt_cuda_gemm(%{{.*}}, %{{.*}}, %c1_i32, %c0_i32, %[[BATCH]], %[[SQ:.*]], %[[SK:.*]], %c16_i64, %{{.*}}, %c16_i64, %{{.*}}, %{{.*}}, %[[SK]], %{{.*}}, %{{.*}}, %[[SK]], %{{.*}}, %{{.*}})
module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %zero = arith.constant 0.0 : f32
    %x = onyx.get_input %ctx[0] : memref<?x64xf32>
    %w = onyx.get_input %ctx[1] : memref<10x64xf32>
    %n = memref.dim %x, %c0 : memref<?x64xf32>
    %y = onyx.alloc_output %ctx[0] (%n) : memref<?x10xf32>
    linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x, %w : memref<?x64xf32>, memref<10x64xf32>) outs(%y : memref<?x10xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
    %q = onyx.get_input %ctx[2] : memref<?x4x?x16xf32>
    %k = onyx.get_input %ctx[3] : memref<?x4x16x?xf32>
    %b = memref.dim %q, %c0 : memref<?x4x?x16xf32>
    %sq = memref.dim %q, %c2 : memref<?x4x?x16xf32>
    %sk = memref.dim %k, %c3 : memref<?x4x16x?xf32>
    %o = onyx.alloc_output %ctx[1] (%b, %sq, %sk) : memref<?x4x?x?xf32>
    linalg.fill ins(%zero : f32) outs(%o : memref<?x4x?x?xf32>)
    linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
        ins(%q, %k : memref<?x4x?x16xf32>, memref<?x4x16x?xf32>) outs(%o : memref<?x4x?x?xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// The Conv lowering's grouped convolution (input already padded, bias
// already broadcast into the output: ACCUMULATE): dims N, C, M, G, in,
// kernel, out, pads (0), strides, dilations in a stack array.

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * 2 + d6, d4 * 2 + d7)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
#y = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @onyx_main
// CHECK:         %[[NOBIAS:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         %[[A:.*]] = llvm.alloca %c16_i64 x i64
// CHECK:         %[[G:.*]] = llvm.getelementptr %[[A]][12]
// CHECK-NEXT:    llvm.store %c2_i64, %[[G]]
// CHECK:         call @onyxrt_cuda_conv(%{{.*}}, %{{.*}}, %c1_i32, %c1_i32, %c2_i64, %[[A]], %{{.*}}, %{{.*}}, %[[NOBIAS]], %[[NOBIAS]], %{{.*}}) {onyx.cuda_status}
// CHECK-NOT:     linalg.generic {
module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %x = onyx.get_input %ctx[0] : memref<?x1x3x?x?xf32>
    %w = onyx.get_input %ctx[1] : memref<1x8x3x3x3xf32>
    %n = memref.dim %x, %c0 : memref<?x1x3x?x?xf32>
    %h = memref.dim %x, %c3 : memref<?x1x3x?x?xf32>
    %ww = memref.dim %x, %c4 : memref<?x1x3x?x?xf32>
    %y = onyx.alloc_output %ctx[0] (%n, %h, %ww) : memref<?x1x8x?x?xf32>
    linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
        ins(%x, %w : memref<?x1x3x?x?xf32>, memref<1x8x3x3x3xf32>) outs(%y : memref<?x1x8x?x?xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// Bias and ReLU fused into the call: the bias broadcast before the
// convolution and the Relu generic after it disappear (flags RELU = 4), the
// call writes the Relu's output.

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
#y = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @onyx_main
// CHECK:         %[[BIAS:.*]] = onyx.get_input %{{.*}}[2] : memref<8xf32>
// CHECK:         %[[R:.*]] = onyx.alloc_output %{{.*}}[0]
// CHECK-NOT:     linalg.generic {
// CHECK:         %[[BP:.*]] = memref.extract_aligned_pointer_as_index %[[BIAS]]
// CHECK:         %[[RP:.*]] = memref.extract_aligned_pointer_as_index %[[R]]
// CHECK:         call @onyxrt_cuda_conv(%{{.*}}, %{{.*}}, %c1_i32, %c4_i32, %c2_i64, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {onyx.cuda_status}
// CHECK-NOT:     linalg.generic {
module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    %x = onyx.get_input %ctx[0] : memref<?x1x3x?x?xf32>
    %w = onyx.get_input %ctx[1] : memref<1x8x3x1x1xf32>
    %b = onyx.get_input %ctx[2] : memref<8xf32>
    %n = memref.dim %x, %c0 : memref<?x1x3x?x?xf32>
    %h = memref.dim %x, %c3 : memref<?x1x3x?x?xf32>
    %ww = memref.dim %x, %c4 : memref<?x1x3x?x?xf32>
    %t = onyx.alloc_temp %ctx (%n, %h, %ww) : memref<?x8x?x?xf32>
    linalg.generic {indexing_maps = [#ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%b : memref<8xf32>) outs(%t : memref<?x8x?x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    %te = memref.expand_shape %t [[0], [1, 2], [3], [4]] output_shape [%n, 1, 8, %h, %ww] : memref<?x8x?x?xf32> into memref<?x1x8x?x?xf32>
    linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
        ins(%x, %w : memref<?x1x3x?x?xf32>, memref<1x8x3x1x1xf32>) outs(%te : memref<?x1x8x?x?xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
    %r = onyx.alloc_output %ctx[0] (%n, %h, %ww) : memref<?x8x?x?xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%t : memref<?x8x?x?xf32>) outs(%r : memref<?x8x?x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.maximumf %in, %zero : f32
      linalg.yield %m : f32
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// Left for the outlining pass: integers, and an operand that is a strided
// view (not a dense buffer).

// CHECK-LABEL: func.func @onyx_main
// CHECK-NOT:     onyxrt_cuda_gemm
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x8xi32>, memref<8x2xi32>)
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x8xf32, strided<[16, 1]>>, memref<8x2xf32>)
module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %a = onyx.get_input %ctx[0] : memref<4x8xi32>
    %b = onyx.get_input %ctx[1] : memref<8x2xi32>
    %c = onyx.alloc_output %ctx[0] : memref<4x2xi32>
    linalg.matmul ins(%a, %b : memref<4x8xi32>, memref<8x2xi32>) outs(%c : memref<4x2xi32>)
    %f = onyx.get_input %ctx[2] : memref<4x16xf32>
    %g = onyx.get_input %ctx[3] : memref<8x2xf32>
    %h = onyx.alloc_output %ctx[1] : memref<4x2xf32>
    %v = memref.subview %f[0, 0] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1]>>
    linalg.matmul ins(%v, %g : memref<4x8xf32, strided<[16, 1]>>, memref<8x2xf32>) outs(%h : memref<4x2xf32>)
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// The bias Add after a GEMM writes C in place (onyx-elementwise-in-place)
// and a later op reads C: the bias is still fused into the call (the bias
// pointer is passed, the Add is gone), which writes what the later reader
// reads, at the Add's position.

// CHECK-LABEL: func.func @onyx_main
// CHECK:         %[[T:.*]] = onyx.alloc_temp %{{.*}} : memref<64x32xf32>
// CHECK:         %[[BT:.*]] = onyx.alloc_temp %{{.*}} : memref<32xf32>
// CHECK-NEXT:    gpu.memcpy %[[BT]], %{{.*}} {onyx.session_constant}
// CHECK:         call @onyxrt_cuda_gemm(
// CHECK-NOT:     linalg.generic
// CHECK:         linalg.generic {{.*}} ins(%[[C:.*]] : memref<?x32xf32>) outs(%{{.*}} : memref<?x32xf32>)
// CHECK:           arith.maximumf
// CHECK-NOT:     linalg.generic
module {
  memref.global "private" constant @w : memref<64x32xf32> = dense<1.0>
  memref.global "private" constant @bias : memref<32xf32> = dense<0.5>
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %x = onyx.get_input %ctx[0] : memref<?x64xf32>
    %w = memref.get_global @w : memref<64x32xf32>
    %bias = memref.get_global @bias : memref<32xf32>
    %n = memref.dim %x, %c0 : memref<?x64xf32>
    %c = onyx.alloc_temp %ctx (%n) : memref<?x32xf32>
    linalg.fill ins(%zero : f32) outs(%c : memref<?x32xf32>)
    linalg.matmul ins(%x, %w : memref<?x64xf32>, memref<64x32xf32>) outs(%c : memref<?x32xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%c, %bias : memref<?x32xf32>, memref<32xf32>) outs(%c : memref<?x32xf32>) {
    ^bb0(%in: f32, %b: f32, %out: f32):
      %s = arith.addf %in, %b : f32
      linalg.yield %s : f32
    }
    %y = onyx.alloc_output %ctx[0] (%n) : memref<?x32xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%c : memref<?x32xf32>) outs(%y : memref<?x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.maximumf %in, %zero : f32
      linalg.yield %r : f32
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}
