// RUN: onyx-opt %s --onyx-cpu-lower-convolutions --split-input-file --allow-unregistered-dialect | FileCheck %s

#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * 2 + d6, d4 * 2 + d7)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
#y = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>

// The Conv lowering's bias broadcast, convolution (stride 2) and an
// in-place Relu: one call with the bias and RELU (4), the dims N, C, M, G,
// in, kernel, out, pads, strides, dilations; no generic is left.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK-NOT:     linalg.generic
// CHECK:         %[[DIMS:.*]] = llvm.alloca %{{.*}} x i64
// CHECK-COUNT-16: llvm.store
// CHECK:         %[[FLAGS:.*]] = arith.constant 4 : i32
// CHECK:         %[[RANK:.*]] = arith.constant 2 : i64
// CHECK:         call @onyxrt_cpu_conv_f32(%[[FLAGS]], %[[RANK]], %[[DIMS]],
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     memref.copy
// CHECK:       func.func private @onyxrt_cpu_conv_f32(i32, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func @conv_bias_relu(%xp: memref<1x4x11x11xf32>, %w: memref<8x4x3x3xf32>, %b: memref<8xf32>, %out: memref<1x8x5x5xf32>) {
  %cst = arith.constant 0.0 : f32
  %we = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [1, 8, 4, 3, 3] : memref<8x4x3x3xf32> into memref<1x8x4x3x3xf32>
  linalg.generic {indexing_maps = [#bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<8xf32>) outs(%out : memref<1x8x5x5xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %xe = memref.expand_shape %xp [[0], [1, 2], [3], [4]] output_shape [1, 1, 4, 11, 11] : memref<1x4x11x11xf32> into memref<1x1x4x11x11xf32>
  %ye = memref.expand_shape %out [[0], [1, 2], [3], [4]] output_shape [1, 1, 8, 5, 5] : memref<1x8x5x5xf32> into memref<1x1x8x5x5xf32>
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%xe, %we : memref<1x1x4x11x11xf32>, memref<1x8x4x3x3xf32>) outs(%ye : memref<1x1x8x5x5xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %m = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%out : memref<1x8x5x5xf32>) outs(%out : memref<1x8x5x5xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %cst : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
#y = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>

// A Relu into another buffer: the call still writes the convolution's own
// buffer (the memory plan may have given the Relu's output the input's
// memory), then a copy to the Relu's output.
// CHECK-LABEL: func.func @conv_relu_elsewhere
// CHECK:         call @onyxrt_cpu_conv_f32
// CHECK-NEXT:    memref.copy %[[Y:.*]], %[[R:.*]] : memref<?x8x?x?xf32> to memref<?x8x?x?xf32>
// CHECK-NOT:     linalg.generic
func.func @conv_relu_elsewhere(%xp: memref<?x4x?x?xf32>, %w: memref<8x4x3x3xf32>, %b: memref<8xf32>, %n: index, %h: index, %wd: index) {
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %out = memref.alloc(%n, %h, %wd) : memref<?x8x?x?xf32>
  %res = memref.alloc(%n, %h, %wd) : memref<?x8x?x?xf32>
  %we = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [1, 8, 4, 3, 3] : memref<8x4x3x3xf32> into memref<1x8x4x3x3xf32>
  linalg.generic {indexing_maps = [#bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<8xf32>) outs(%out : memref<?x8x?x?xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %d2 = memref.dim %xp, %c0 : memref<?x4x?x?xf32>
  %xe = memref.expand_shape %xp [[0], [1, 2], [3], [4]] output_shape [%n, 1, 4, %h, %wd] : memref<?x4x?x?xf32> into memref<?x1x4x?x?xf32>
  %ye = memref.expand_shape %out [[0], [1, 2], [3], [4]] output_shape [%n, 1, 8, %h, %wd] : memref<?x8x?x?xf32> into memref<?x1x8x?x?xf32>
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%xe, %we : memref<?x1x4x?x?xf32>, memref<1x8x4x3x3xf32>) outs(%ye : memref<?x1x8x?x?xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %m = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%out : memref<?x8x?x?xf32>) outs(%res : memref<?x8x?x?xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %cst : f32
    linalg.yield %r : f32
  }
  "test.use"(%res) : (memref<?x8x?x?xf32>) -> ()
  return
}

// -----

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6 * 2, d4 + d7 * 2)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
#y = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>

// Depthwise (8 groups of one channel), dilation 2, after a zero fill: the
// fill is absorbed (flags 0: the call overwrites), no bias.
// CHECK-LABEL: func.func @depthwise_zero_fill
// CHECK-NOT:     linalg.fill
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         %[[FLAGS:.*]] = arith.constant 0 : i32
// CHECK:         call @onyxrt_cpu_conv_f32(%[[FLAGS]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NULL]], %[[NULL]], %{{.*}})
func.func @depthwise_zero_fill(%xe: memref<1x8x1x9x9xf32>, %we: memref<8x1x1x3x3xf32>, %ye: memref<1x8x1x5x5xf32>) {
  %cst = arith.constant 0.0 : f32
  linalg.fill ins(%cst : f32) outs(%ye : memref<1x8x1x5x5xf32>)
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%xe, %we : memref<1x8x1x9x9xf32>, memref<8x1x1x3x3xf32>) outs(%ye : memref<1x8x1x5x5xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %m = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
#y = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>

// Integer convolutions stay loops.
// CHECK-LABEL: func.func @integer_stays
// CHECK-NOT:     call @
// CHECK:         linalg.generic
func.func @integer_stays(%xe: memref<1x1x2x5x5xi32>, %we: memref<1x3x2x3x3xi32>, %ye: memref<1x1x3x3x3xi32>) {
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%xe, %we : memref<1x1x2x5x5xi32>, memref<1x3x2x3x3xi32>) outs(%ye : memref<1x1x3x3x3xi32>) {
  ^bb0(%a: i32, %bb: i32, %acc: i32):
    %m = arith.muli %a, %bb : i32
    %s = arith.addi %acc, %m : i32
    linalg.yield %s : i32
  }
  return
}
