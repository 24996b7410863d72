// RUN: onyx-opt %s --onyx-cuda-lower-convolutions --canonicalize \
// RUN:   -split-input-file | FileCheck %s
// RUN: onyx-opt %s --onyx-cuda-lower-convolutions --onyx-pool-allocations \
// RUN:   --canonicalize -split-input-file | FileCheck %s --check-prefix=POOL

// onyx-cuda-lower-convolutions (before the pooling): an f16 channels-last
// 3x3 convolution whose input is a symmetric zero padding (1 on each side
// of h and w) of %x, with its bias broadcast and Relu. One cuDNN call reads
// %x itself: the dims array (N, C, M, G, in h, in w, kernel 3, 3, out h,
// out w, pads, strides, dilations) holds %x's h and w and pads 1, 1; flags
// RELU | NHWC = 36 (the weights are an input, not a constant). The padding
// generic is gone, so the pool never plans the padded copy or the
// convolution's own output under the folded Relu (the second run: no pool at all).

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
#cx = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d6, d2 + d7, d3, d5)>
#cw = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d4, d5, d6, d7)>
#cy = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @onyx_main
// CHECK-DAG:     %[[X:.*]] = onyx.get_input %{{.*}}[0] : memref<?x?x?x8xf16>
// CHECK-DAG:     %[[H:.*]] = memref.dim %[[X]], %c1
// CHECK-DAG:     %[[R:.*]] = onyx.alloc_output %{{.*}}[0]
// CHECK-NOT:     linalg.generic {
// CHECK:         %[[H2:.*]] = memref.dim %[[X]], %c1
// CHECK-NEXT:    %[[H64:.*]] = arith.index_cast %[[H2]] : index to i64
// CHECK:         %[[A:.*]] = llvm.alloca %c16_i64 x i64
// CHECK:         %[[P4:.*]] = llvm.getelementptr %[[A]][4]
// CHECK-NEXT:    llvm.store %[[H64]], %[[P4]]
// CHECK:         %[[P10:.*]] = llvm.getelementptr %[[A]][10]
// CHECK-NEXT:    llvm.store %c1_i64, %[[P10]]
// CHECK-NEXT:    %[[P11:.*]] = llvm.getelementptr %[[A]][11]
// CHECK-NEXT:    llvm.store %c1_i64, %[[P11]]
// CHECK:         memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:         memref.extract_aligned_pointer_as_index %[[R]]
// CHECK:         call @onyxrt_cuda_conv(%{{.*}}, %{{.*}}, %c10_i32, %c36_i32, %c2_i64,
// CHECK-NOT:     linalg.generic {
// POOL-LABEL: func.func @onyx_main
// POOL-NOT:      onyx.get_pool
// POOL-NOT:      onyx.place_temps
// POOL:          call @onyxrt_cuda_conv
module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %zero = arith.constant 0.0 : f16
    %fz = arith.constant 0.0 : f32
    %x = onyx.get_input %ctx[0] : memref<?x?x?x8xf16>
    %w = onyx.get_input %ctx[1] : memref<1x8x8x3x3xf16>
    %b = onyx.get_input %ctx[2] : memref<8xf16>
    %n = memref.dim %x, %c0 : memref<?x?x?x8xf16>
    %h = memref.dim %x, %c1 : memref<?x?x?x8xf16>
    %ww = memref.dim %x, %c2 : memref<?x?x?x8xf16>
    %hm1 = arith.subi %h, %c1 : index
    %wm1 = arith.subi %ww, %c1 : index
    %hp = arith.addi %h, %c2 : index
    %wp = arith.addi %ww, %c2 : index
    %p = onyx.alloc_temp %ctx (%n, %hp, %wp) : memref<?x?x?x8xf16>
    linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%p : memref<?x?x?x8xf16>) {
    ^bb0(%out: f16):
      %i0 = linalg.index 0 : index
      %i3 = linalg.index 3 : index
      %i1 = linalg.index 1 : index
      %s1 = arith.subi %i1, %c1 : index
      %l1 = arith.cmpi sge, %s1, %c0 : index
      %u1 = arith.cmpi sle, %s1, %hm1 : index
      %a1 = arith.andi %l1, %u1 : i1
      %m1 = arith.minsi %s1, %hm1 : index
      %k1 = arith.maxsi %m1, %c0 : index
      %i2 = linalg.index 2 : index
      %s2 = arith.subi %i2, %c1 : index
      %l2 = arith.cmpi sge, %s2, %c0 : index
      %a2 = arith.andi %a1, %l2 : i1
      %u2 = arith.cmpi sle, %s2, %wm1 : index
      %a3 = arith.andi %a2, %u2 : i1
      %m2 = arith.minsi %s2, %wm1 : index
      %k2 = arith.maxsi %m2, %c0 : index
      %v = memref.load %x[%i0, %k1, %k2, %i3] : memref<?x?x?x8xf16>
      %r = arith.select %a3, %v, %zero : f16
      linalg.yield %r : f16
    }
    %pe = memref.expand_shape %p [[0], [1], [2], [3, 4]] output_shape [%n, %hp, %wp, 1, 8] : memref<?x?x?x8xf16> into memref<?x?x?x1x8xf16>
    %y = onyx.alloc_temp %ctx (%n, %h, %ww) : memref<?x?x?x8xf16>
    linalg.generic {indexing_maps = [#ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%b : memref<8xf16>) outs(%y : memref<?x?x?x8xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    }
    %ye = memref.expand_shape %y [[0], [1], [2], [3, 4]] output_shape [%n, %h, %ww, 1, 8] : memref<?x?x?x8xf16> into memref<?x?x?x1x8xf16>
    linalg.generic {indexing_maps = [#cx, #cw, #cy], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
        ins(%pe, %w : memref<?x?x?x1x8xf16>, memref<1x8x8x3x3xf16>) outs(%ye : memref<?x?x?x1x8xf16>) {
    ^bb0(%in: f16, %in2: f16, %out: f16):
      %m = arith.mulf %in, %in2 : f16
      %s = arith.addf %out, %m : f16
      linalg.yield %s : f16
    }
    %res = onyx.alloc_output %ctx[0] (%n, %h, %ww) : memref<?x?x?x8xf16>
    linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%y : memref<?x?x?x8xf16>) outs(%res : memref<?x?x?x8xf16>) {
    ^bb0(%in: f16, %out: f16):
      %e = arith.extf %in : f16 to f32
      %mx = arith.maximumf %e, %fz : f32
      %t = arith.truncf %mx : f32 to f16
      linalg.yield %t : f16
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// A padding that is not symmetric (1 before, 0 after: the padded extent is
// h + 1) stays a generic (cuDNN's pads are per dim), read by the call
// through the padded copy with pads 0; the weights, a host constant, are
// read through their session copy (an onyx.alloc_temp marked
// onyx.session_constant), which the pooling leaves alone while it plans the
// padded copy.

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#cx = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d6, d2 + d7, d3, d5)>
#cw = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d4, d5, d6, d7)>
#cy = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @onyx_main
// CHECK:         %[[P:.*]] = onyx.alloc_temp
// CHECK:         linalg.generic {{.*}} outs(%[[P]]
// CHECK:         %[[P10:.*]] = llvm.getelementptr %{{.*}}[10]
// CHECK-NEXT:    llvm.store %c0_i64, %[[P10]]
// CHECK:         memref.extract_aligned_pointer_as_index %{{.*}} : memref<?x?x?x1x8xf16>
// CHECK:         onyx.alloc_temp %{{.*}} {onyx.session_constant} : memref<1x8x8x2x1xf16>
// CHECK:         call @onyxrt_cuda_conv(%{{.*}}, %{{.*}}, %c10_i32, %c96_i32, %c2_i64,
// POOL-LABEL: func.func @onyx_main
// POOL:          onyx.place_temps
// POOL:          onyx.alloc_temp %{{.*}} {onyx.session_constant} : memref<1x8x8x2x1xf16>
// POOL:          call @onyxrt_cuda_conv
module {
  memref.global "private" constant @w : memref<1x8x8x2x1xf16> = dense<1.0>
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %zero = arith.constant 0.0 : f16
    %zh = arith.constant 0.0 : f16
    %x = onyx.get_input %ctx[0] : memref<?x?x?x8xf16>
    %w = memref.get_global @w : memref<1x8x8x2x1xf16>
    %n = memref.dim %x, %c0 : memref<?x?x?x8xf16>
    %h = memref.dim %x, %c1 : memref<?x?x?x8xf16>
    %ww = memref.dim %x, %c2 : memref<?x?x?x8xf16>
    %hm1 = arith.subi %h, %c1 : index
    %hp = arith.addi %h, %c1 : index
    %p = onyx.alloc_temp %ctx (%n, %hp, %ww) : memref<?x?x?x8xf16>
    linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%p : memref<?x?x?x8xf16>) {
    ^bb0(%out: f16):
      %i0 = linalg.index 0 : index
      %i3 = linalg.index 3 : index
      %i2 = linalg.index 2 : index
      %i1 = linalg.index 1 : index
      %s1 = arith.subi %i1, %c1 : index
      %l1 = arith.cmpi sge, %s1, %c0 : index
      %u1 = arith.cmpi sle, %s1, %hm1 : index
      %a1 = arith.andi %l1, %u1 : i1
      %m1 = arith.minsi %s1, %hm1 : index
      %k1 = arith.maxsi %m1, %c0 : index
      %v = memref.load %x[%i0, %k1, %i2, %i3] : memref<?x?x?x8xf16>
      %r = arith.select %a1, %v, %zero : f16
      linalg.yield %r : f16
    }
    %pe = memref.expand_shape %p [[0], [1], [2], [3, 4]] output_shape [%n, %hp, %ww, 1, 8] : memref<?x?x?x8xf16> into memref<?x?x?x1x8xf16>
    %y = onyx.alloc_output %ctx[0] (%n, %h, %ww) : memref<?x?x?x1x8xf16>
    linalg.fill ins(%zh : f16) outs(%y : memref<?x?x?x1x8xf16>)
    linalg.generic {indexing_maps = [#cx, #cw, #cy], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
        ins(%pe, %w : memref<?x?x?x1x8xf16>, memref<1x8x8x2x1xf16>) outs(%y : memref<?x?x?x1x8xf16>) {
    ^bb0(%in: f16, %in2: f16, %out: f16):
      %m = arith.mulf %in, %in2 : f16
      %s = arith.addf %out, %m : f16
      linalg.yield %s : f16
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// ResNet's downsampling block tail on buffers, f32 NCHW: the residual Add
// writes over the 1x1 convolution's own output %y (onyx-elementwise-in-place
// chose the second operand) and the Relu runs in place over it too; readers
// after the tail read %y. One call, flags RELU (4), the residual %r as
// cuDNN's z and %y as the output: it leaves in %y what the Add and Relu
// left there. Only the later reader stays a generic.
// CHECK-LABEL: func.func @onyx_main
// CHECK-DAG:     %[[R:.*]] = onyx.get_input %{{.*}}[3]
// CHECK-DAG:     %[[Y:.*]] = onyx.alloc_temp
// CHECK-NOT:     linalg.generic
// CHECK:         memref.extract_aligned_pointer_as_index %[[R]]
// CHECK:         memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK:         call @onyxrt_cuda_conv(%{{.*}}, %{{.*}}, %c1_i32, %c4_i32, %c2_i64,
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[Y]] :
// CHECK:         math.exp
// CHECK-NOT:     linalg.generic
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
#cx = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
#cw = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
#cy = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %fz = arith.constant 0.0 : f32
    %x = onyx.get_input %ctx[0] : memref<?x4x?x?xf32>
    %w = onyx.get_input %ctx[1] : memref<1x8x4x1x1xf32>
    %b = onyx.get_input %ctx[2] : memref<8xf32>
    %r = onyx.get_input %ctx[3] : memref<?x8x?x?xf32>
    %n = memref.dim %x, %c0 : memref<?x4x?x?xf32>
    %h = memref.dim %x, %c2 : memref<?x4x?x?xf32>
    %ww = memref.dim %x, %c3 : memref<?x4x?x?xf32>
    %y = onyx.alloc_temp %ctx (%n, %h, %ww) : memref<?x8x?x?xf32>
    linalg.generic {indexing_maps = [#ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<8xf32>) outs(%y : memref<?x8x?x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    %xe = memref.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [%n, 1, 4, %h, %ww] : memref<?x4x?x?xf32> into memref<?x1x4x?x?xf32>
    %ye = memref.expand_shape %y [[0], [1, 2], [3], [4]] output_shape [%n, 1, 8, %h, %ww] : memref<?x8x?x?xf32> into memref<?x1x8x?x?xf32>
    linalg.generic {indexing_maps = [#cx, #cw, #cy], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%xe, %w : memref<?x1x4x?x?xf32>, memref<1x8x4x1x1xf32>) outs(%ye : memref<?x1x8x?x?xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      %a = arith.addf %out, %m : f32
      linalg.yield %a : f32
    }
    linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r, %y : memref<?x8x?x?xf32>, memref<?x8x?x?xf32>) outs(%y : memref<?x8x?x?xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %s = arith.addf %in, %in2 : f32
      linalg.yield %s : f32
    }
    linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<?x8x?x?xf32>) outs(%y : memref<?x8x?x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %v = arith.maximumf %in, %fz : f32
      linalg.yield %v : f32
    }
    %res = onyx.alloc_output %ctx[0] (%n, %h, %ww) : memref<?x8x?x?xf32>
    linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<?x8x?x?xf32>) outs(%res : memref<?x8x?x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %e = math.exp %in : f32
      linalg.yield %e : f32
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}
