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

// A Relu into another buffer: the call writes the Relu's output directly
// (the runtime reads a copy of an input that the memory plan placed over
// it); no copy, no generic.
// CHECK-LABEL: func.func @conv_relu_elsewhere
// CHECK:         %[[RES:.*]] = memref.alloc
// CHECK:         %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[RES]]
// CHECK:         %[[I:.*]] = arith.index_cast %[[P]]
// CHECK:         %[[PTR:.*]] = llvm.inttoptr %[[I]]
// CHECK-NEXT:    call @onyxrt_cpu_conv_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[PTR]])
// CHECK-NOT:     memref.copy
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

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * 2 + d6, d4 * 2 + d7)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
#y = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>

// The Conv lowering's zero padding (pads 1), a depthwise convolution with
// stride 2 and an in-place Clip(0, 6): the padding generic is gone, the
// call reads the unpadded input with pads 1 1 and CLIP (8), the bounds'
// float bits after the dilations (0 and 0x40C00000).
// CHECK-LABEL: func.func @padded_depthwise_clip
// CHECK-NOT:     linalg.generic
// CHECK:         %[[DIMS:.*]] = llvm.alloca %{{.*}} x i64
// CHECK:         %[[D4:.*]] = llvm.getelementptr %[[DIMS]][4]
// CHECK-NEXT:    llvm.store %c16_i64{{.*}}, %[[D4]]
// CHECK:         %[[D10:.*]] = llvm.getelementptr %[[DIMS]][10]
// CHECK-NEXT:    llvm.store %c1_i64{{.*}}, %[[D10]]
// CHECK:         %[[D16:.*]] = llvm.getelementptr %[[DIMS]][16]
// CHECK-NEXT:    llvm.store %c0_i64{{.*}}, %[[D16]]
// CHECK-NEXT:    %[[D17:.*]] = llvm.getelementptr %[[DIMS]][17]
// CHECK-NEXT:    llvm.store %c1086324736_i64, %[[D17]]
// CHECK:         %[[XP:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK:         %[[XI:.*]] = arith.index_cast %[[XP]]
// CHECK:         %[[X:.*]] = llvm.inttoptr %[[XI]]
// CHECK:         call @onyxrt_cpu_conv_f32(%c8_i32, %{{.*}}, %[[DIMS]], %[[X]],
// CHECK-NOT:     linalg.generic
func.func @padded_depthwise_clip(%src: memref<1x8x16x16xf32>, %w: memref<8x1x3x3xf32>, %b: memref<8xf32>, %padded: memref<1x8x18x18xf32>, %out: memref<1x8x8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c15 = arith.constant 15 : index
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%padded : memref<1x8x18x18xf32>) {
  ^bb0(%o: f32):
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %s2 = arith.subi %i2, %c1 : index
    %a = arith.cmpi sge, %s2, %c0 : index
    %b2 = arith.cmpi sle, %s2, %c15 : index
    %ab = arith.andi %a, %b2 : i1
    %m2 = arith.minsi %s2, %c15 : index
    %k2 = arith.maxsi %m2, %c0 : index
    %i3 = linalg.index 3 : index
    %s3 = arith.subi %i3, %c1 : index
    %c = arith.cmpi sge, %s3, %c0 : index
    %abc = arith.andi %ab, %c : i1
    %d = arith.cmpi sle, %s3, %c15 : index
    %all = arith.andi %abc, %d : i1
    %m3 = arith.minsi %s3, %c15 : index
    %k3 = arith.maxsi %m3, %c0 : index
    %v = memref.load %src[%c0, %i1, %k2, %k3] : memref<1x8x16x16xf32>
    %r = arith.select %all, %v, %zero : f32
    linalg.yield %r : f32
  }
  %we = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [8, 1, 1, 3, 3] : memref<8x1x3x3xf32> into memref<8x1x1x3x3xf32>
  linalg.generic {indexing_maps = [#bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<8xf32>) outs(%out : memref<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %xe = memref.expand_shape %padded [[0], [1, 2], [3], [4]] output_shape [1, 8, 1, 18, 18] : memref<1x8x18x18xf32> into memref<1x8x1x18x18xf32>
  %ye = memref.expand_shape %out [[0], [1, 2], [3], [4]] output_shape [1, 8, 1, 8, 8] : memref<1x8x8x8xf32> into memref<1x8x1x8x8xf32>
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%xe, %we : memref<1x8x1x18x18xf32>, memref<8x1x1x3x3xf32>) outs(%ye : memref<1x8x1x8x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %m = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%out : memref<1x8x8x8xf32>) outs(%out : memref<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %lo = arith.maximumf %in, %zero : f32
    %hi = arith.minimumf %lo, %six : f32
    linalg.yield %hi : f32
  }
  return
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
#y = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>

// A padded copy that something else reads stays (the call reads it, pads
// 0), and so does a padding whose bound is not the source's extent - 1.
// CHECK-LABEL: func.func @padding_kept
// CHECK:         linalg.generic
// CHECK:         call @onyxrt_cpu_conv_f32
// CHECK:         "test.use"
// CHECK:         linalg.generic
// CHECK:         call @onyxrt_cpu_conv_f32
func.func @padding_kept(%src: memref<1x4x6x6xf32>, %w: memref<4x1x3x3xf32>, %padded: memref<1x4x8x8xf32>, %out: memref<1x4x6x6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%padded : memref<1x4x8x8xf32>) {
  ^bb0(%o: f32):
    %i1 = linalg.index 1 : index
    %i3 = linalg.index 3 : index
    %s3 = arith.subi %i3, %c1 : index
    %c = arith.cmpi sge, %s3, %c0 : index
    %d = arith.cmpi sle, %s3, %c5 : index
    %all = arith.andi %c, %d : i1
    %m3 = arith.minsi %s3, %c5 : index
    %k3 = arith.maxsi %m3, %c0 : index
    %i2 = linalg.index 2 : index
    %v = memref.load %src[%c0, %i1, %i2, %k3] : memref<1x4x6x6xf32>
    %r = arith.select %all, %v, %zero : f32
    linalg.yield %r : f32
  }
  %we = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [4, 1, 1, 3, 3] : memref<4x1x3x3xf32> into memref<4x1x1x3x3xf32>
  %xe = memref.expand_shape %padded [[0], [1, 2], [3], [4]] output_shape [1, 4, 1, 8, 8] : memref<1x4x8x8xf32> into memref<1x4x1x8x8xf32>
  %ye = memref.expand_shape %out [[0], [1, 2], [3], [4]] output_shape [1, 4, 1, 6, 6] : memref<1x4x6x6xf32> into memref<1x4x1x6x6xf32>
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%xe, %we : memref<1x4x1x8x8xf32>, memref<4x1x1x3x3xf32>) outs(%ye : memref<1x4x1x6x6xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %m = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  "test.use"(%padded) : (memref<1x4x8x8xf32>) -> ()
  linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%padded : memref<1x4x8x8xf32>) {
  ^bb0(%o: f32):
    %i1 = linalg.index 1 : index
    %i3 = linalg.index 3 : index
    %s3 = arith.subi %i3, %c1 : index
    %c = arith.cmpi sge, %s3, %c0 : index
    %d = arith.cmpi sle, %s3, %c4 : index
    %all = arith.andi %c, %d : i1
    %m3 = arith.minsi %s3, %c4 : index
    %k3 = arith.maxsi %m3, %c0 : index
    %i2 = linalg.index 2 : index
    %v = memref.load %src[%c0, %i1, %i2, %k3] : memref<1x4x6x6xf32>
    %r = arith.select %all, %v, %zero : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%xe, %we : memref<1x4x1x8x8xf32>, memref<4x1x1x3x3xf32>) outs(%ye : memref<1x4x1x6x6xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %m = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
#y = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>

// Dynamic shapes (as the real models): the padding's bounds are the
// source's extents minus one, as `memref.dim - 1` (H) and as the value the
// extent was computed from (W: extent = bound + 1); the batch is the
// source's. The padding folds; the call reads the source's dims.
// CHECK-LABEL: func.func @padded_dynamic
// CHECK:         %[[SRC:.*]] = memref.alloc
// CHECK:         "test.fill"(%[[SRC]])
// CHECK-NOT:     linalg.generic
// CHECK:         memref.dim %[[SRC]], %c2_{{[0-9]+}} : memref<?x4x?x?xf32>
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %c3{{.*}} = arith.constant 3 : index
// CHECK-NEXT:    memref.dim %[[SRC]], %c3{{.*}} : memref<?x4x?x?xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         memref.extract_aligned_pointer_as_index %[[SRC]]
// CHECK-NOT:     linalg.generic
// CHECK:         call @onyxrt_cpu_conv_f32(%c0_i32,
// CHECK-NOT:     linalg.generic
func.func @padded_dynamic(%n: index, %h: index, %wb: index, %w: memref<4x1x3x3xf32>, %b: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %ws = arith.addi %wb, %c1 : index
  %src = memref.alloc(%n, %h, %ws) : memref<?x4x?x?xf32>
  "test.fill"(%src) : (memref<?x4x?x?xf32>) -> ()
  %nn = memref.dim %src, %c0 : memref<?x4x?x?xf32>
  %hh = memref.dim %src, %c2 : memref<?x4x?x?xf32>
  %hb = arith.subi %hh, %c1 : index
  %hp = arith.addi %hh, %c2 : index
  %wp = arith.addi %ws, %c2 : index
  %padded = memref.alloc(%nn, %hp, %wp) : memref<?x4x?x?xf32>
  linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%padded : memref<?x4x?x?xf32>) {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %s2 = arith.subi %i2, %c1 : index
    %a = arith.cmpi sge, %s2, %c0 : index
    %b2 = arith.cmpi sle, %s2, %hb : index
    %ab = arith.andi %a, %b2 : i1
    %m2 = arith.minsi %s2, %hb : index
    %k2 = arith.maxsi %m2, %c0 : index
    %i3 = linalg.index 3 : index
    %s3 = arith.subi %i3, %c1 : index
    %c = arith.cmpi sge, %s3, %c0 : index
    %abc = arith.andi %ab, %c : i1
    %d = arith.cmpi sle, %s3, %wb : index
    %all = arith.andi %abc, %d : i1
    %m3 = arith.minsi %s3, %wb : index
    %k3 = arith.maxsi %m3, %c0 : index
    %v = memref.load %src[%i0, %i1, %k2, %k3] : memref<?x4x?x?xf32>
    %r = arith.select %all, %v, %zero : f32
    linalg.yield %r : f32
  }
  %out = memref.alloc(%nn, %hh, %ws) : memref<?x4x?x?xf32>
  linalg.generic {indexing_maps = [#bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<4xf32>) outs(%out : memref<?x4x?x?xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %we = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [4, 1, 1, 3, 3] : memref<4x1x3x3xf32> into memref<4x1x1x3x3xf32>
  %xe = memref.expand_shape %padded [[0], [1, 2], [3], [4]] output_shape [%nn, 4, 1, %hp, %wp] : memref<?x4x?x?xf32> into memref<?x4x1x?x?xf32>
  %ye = memref.expand_shape %out [[0], [1, 2], [3], [4]] output_shape [%nn, 4, 1, %hh, %ws] : memref<?x4x?x?xf32> into memref<?x4x1x?x?xf32>
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%xe, %we : memref<?x4x1x?x?xf32>, memref<4x1x1x3x3xf32>) outs(%ye : memref<?x4x1x?x?xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %m = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  "test.use"(%out) : (memref<?x4x?x?xf32>) -> ()
  return
}

// -----

#x = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
#win = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
#y = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>

// The MaxPool lowering's window generic after a fill with -inf: one
// onyxrt_cpu_maxpool_f32 call with POOL_INIT (1) and the fill's float bits
// (0xFF800000); dims P = N * C, in, kernel, out, strides, dilations. A
// window sum (AveragePool) stays a generic.
// CHECK-LABEL: func.func @max_pool
// CHECK-NOT:     linalg.fill
// CHECK:         %[[DIMS:.*]] = llvm.alloca %{{.*}} x i64
// CHECK-COUNT-11: llvm.store
// CHECK:         call @onyxrt_cpu_maxpool_f32(%c1_i32, %c2_i64{{.*}}, %[[DIMS]], %c4286578688_i64,
// CHECK:         linalg.fill
// CHECK:         linalg.generic
// CHECK:         arith.addf
// CHECK:       func.func private @onyxrt_cpu_maxpool_f32(i32, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr)
func.func @max_pool(%in: memref<?x8x11x11xf32>, %win: memref<3x3xf32>, %out: memref<?x8x5x5xf32>, %sum: memref<?x8x5x5xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%ninf : f32) outs(%out : memref<?x8x5x5xf32>)
  linalg.generic {indexing_maps = [#x, #win, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%in, %win : memref<?x8x11x11xf32>, memref<3x3xf32>) outs(%out : memref<?x8x5x5xf32>) {
  ^bb0(%a: f32, %w: f32, %o: f32):
    %m = arith.maximumf %o, %a : f32
    linalg.yield %m : f32
  }
  linalg.fill ins(%zero : f32) outs(%sum : memref<?x8x5x5xf32>)
  linalg.generic {indexing_maps = [#x, #win, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%in, %win : memref<?x8x11x11xf32>, memref<3x3xf32>) outs(%sum : memref<?x8x5x5xf32>) {
  ^bb0(%a: f32, %w: f32, %o: f32):
    %m = arith.addf %o, %a : f32
    linalg.yield %m : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#x = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
#win = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
#y = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>

// MaxPool with ceil_mode (3x3, stride 2, 10 -> 5): the lowering pads the
// input to 11x11 with -inf at the end only (indices clamped, no shift).
// The padding folds into the call: flags INIT | PADDED (3), the unpadded
// input, dims P, in (10, 10), kernel, out, strides, dilations, begin pads
// (0, 0) and the fill's bits: 14 values.
// CHECK-LABEL: func.func @max_pool_ceil
// CHECK-NOT:     linalg.generic
// CHECK:         %[[DIMS:.*]] = llvm.alloca %{{.*}} x i64
// CHECK:         llvm.store %c10_i64
// CHECK-COUNT-12: llvm.store
// CHECK-NOT:     llvm.store
// CHECK:         call @onyxrt_cpu_maxpool_f32(%c3_i32, %c2_i64{{.*}}, %[[DIMS]], %c4286578688_i64{{.*}},
// CHECK-NOT:     linalg.generic
func.func @max_pool_ceil(%src: memref<?x4x10x10xf32>, %win: memref<3x3xf32>, %out: memref<?x4x5x5xf32>) {
  %c0 = arith.constant 0 : index
  %n0 = memref.dim %src, %c0 : memref<?x4x10x10xf32>
  %pad = memref.alloc(%n0) : memref<?x4x11x11xf32>
  %c9 = arith.constant 9 : index
  %ninf = arith.constant 0xFF800000 : f32
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%pad : memref<?x4x11x11xf32>) {
  ^bb0(%o: f32):
    %n = linalg.index 0 : index
    %c = linalg.index 1 : index
    %h = linalg.index 2 : index
    %h0 = arith.cmpi sge, %h, %c0 : index
    %h1 = arith.cmpi sle, %h, %c9 : index
    %hin = arith.andi %h0, %h1 : i1
    %hlo = arith.minsi %h, %c9 : index
    %hc = arith.maxsi %hlo, %c0 : index
    %w = linalg.index 3 : index
    %w0 = arith.cmpi sge, %w, %c0 : index
    %in0 = arith.andi %hin, %w0 : i1
    %w1 = arith.cmpi sle, %w, %c9 : index
    %in1 = arith.andi %in0, %w1 : i1
    %wlo = arith.minsi %w, %c9 : index
    %wc = arith.maxsi %wlo, %c0 : index
    %v = memref.load %src[%n, %c, %hc, %wc] : memref<?x4x10x10xf32>
    %s = arith.select %in1, %v, %ninf : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%ninf : f32) outs(%out : memref<?x4x5x5xf32>)
  linalg.generic {indexing_maps = [#x, #win, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%pad, %win : memref<?x4x11x11xf32>, memref<3x3xf32>) outs(%out : memref<?x4x5x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.maximumf %o, %a : f32
    linalg.yield %m : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#x = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
#win = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
#y = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>

// MaxPool with pads 1 (ResNet's stem pool, 8 -> 4): the begin pads (1, 1)
// go to the call. The second function's padded copy has another reader:
// the padding stays and the call reads the copy (flags INIT only).
// CHECK-LABEL: func.func @max_pool_pads
// CHECK-NOT:     linalg.generic
// CHECK:         call @onyxrt_cpu_maxpool_f32(%c3_i32,
// CHECK-LABEL: func.func @max_pool_pads_shared
// CHECK:         linalg.generic
// CHECK:         call @onyxrt_cpu_maxpool_f32(%c1_i32,
func.func @max_pool_pads(%src: memref<?x4x8x8xf32>, %win: memref<3x3xf32>, %out: memref<?x4x4x4xf32>) {
  %c0 = arith.constant 0 : index
  %n0 = memref.dim %src, %c0 : memref<?x4x8x8xf32>
  %pad = memref.alloc(%n0) : memref<?x4x10x10xf32>
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %ninf = arith.constant 0xFF800000 : f32
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%pad : memref<?x4x10x10xf32>) {
  ^bb0(%o: f32):
    %n = linalg.index 0 : index
    %c = linalg.index 1 : index
    %h = linalg.index 2 : index
    %hs = arith.subi %h, %c1 : index
    %h0 = arith.cmpi sge, %hs, %c0 : index
    %h1 = arith.cmpi sle, %hs, %c7 : index
    %hin = arith.andi %h0, %h1 : i1
    %hlo = arith.minsi %hs, %c7 : index
    %hc = arith.maxsi %hlo, %c0 : index
    %w = linalg.index 3 : index
    %ws = arith.subi %w, %c1 : index
    %w0 = arith.cmpi sge, %ws, %c0 : index
    %in0 = arith.andi %hin, %w0 : i1
    %w1 = arith.cmpi sle, %ws, %c7 : index
    %in1 = arith.andi %in0, %w1 : i1
    %wlo = arith.minsi %ws, %c7 : index
    %wc = arith.maxsi %wlo, %c0 : index
    %v = memref.load %src[%n, %c, %hc, %wc] : memref<?x4x8x8xf32>
    %s = arith.select %in1, %v, %ninf : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%ninf : f32) outs(%out : memref<?x4x4x4xf32>)
  linalg.generic {indexing_maps = [#x, #win, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%pad, %win : memref<?x4x10x10xf32>, memref<3x3xf32>) outs(%out : memref<?x4x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.maximumf %o, %a : f32
    linalg.yield %m : f32
  }
  return
}

func.func @max_pool_pads_shared(%src: memref<?x4x8x8xf32>, %win: memref<3x3xf32>, %out: memref<?x4x4x4xf32>) {
  %c0 = arith.constant 0 : index
  %n0 = memref.dim %src, %c0 : memref<?x4x8x8xf32>
  %pad = memref.alloc(%n0) : memref<?x4x10x10xf32>
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %ninf = arith.constant 0xFF800000 : f32
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%pad : memref<?x4x10x10xf32>) {
  ^bb0(%o: f32):
    %n = linalg.index 0 : index
    %c = linalg.index 1 : index
    %h = linalg.index 2 : index
    %hs = arith.subi %h, %c1 : index
    %h0 = arith.cmpi sge, %hs, %c0 : index
    %h1 = arith.cmpi sle, %hs, %c7 : index
    %hin = arith.andi %h0, %h1 : i1
    %hlo = arith.minsi %hs, %c7 : index
    %hc = arith.maxsi %hlo, %c0 : index
    %w = linalg.index 3 : index
    %ws = arith.subi %w, %c1 : index
    %w0 = arith.cmpi sge, %ws, %c0 : index
    %in0 = arith.andi %hin, %w0 : i1
    %w1 = arith.cmpi sle, %ws, %c7 : index
    %in1 = arith.andi %in0, %w1 : i1
    %wlo = arith.minsi %ws, %c7 : index
    %wc = arith.maxsi %wlo, %c0 : index
    %v = memref.load %src[%n, %c, %hc, %wc] : memref<?x4x8x8xf32>
    %s = arith.select %in1, %v, %ninf : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%ninf : f32) outs(%out : memref<?x4x4x4xf32>)
  linalg.generic {indexing_maps = [#x, #win, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%pad, %win : memref<?x4x10x10xf32>, memref<3x3xf32>) outs(%out : memref<?x4x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.maximumf %o, %a : f32
    linalg.yield %m : f32
  }
  "test.use"(%pad) : (memref<?x4x10x10xf32>) -> ()
  return
}

// -----

#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#x1 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
#y = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>

// ResNet's downsampling block tail: the residual Add writes over the 1x1
// convolution's own output %y and the Relu runs in place over it; a later
// op reads %y. One call with the bias, the residual %r and RELU (4) writing
// %y: no generic is left.
// CHECK-LABEL: func.func @residual_tail_in_y
// CHECK-NOT:     linalg.generic
// CHECK:         %[[FLAGS:.*]] = arith.constant 4 : i32
// CHECK:         call @onyxrt_cpu_conv_f32(%[[FLAGS]],
// CHECK-NOT:     linalg.generic
// CHECK:         "test.use"(%{{.*}}) : (memref<1x8x5x5xf32>) -> ()
func.func @residual_tail_in_y(%x: memref<1x4x5x5xf32>, %w: memref<8x4x1x1xf32>, %b: memref<8xf32>, %r: memref<1x8x5x5xf32>, %out: memref<1x8x5x5xf32>) {
  %cst = arith.constant 0.0 : f32
  %we = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [1, 8, 4, 1, 1] : memref<8x4x1x1xf32> into memref<1x8x4x1x1xf32>
  linalg.generic {indexing_maps = [#bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<8xf32>) outs(%out : memref<1x8x5x5xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %xe = memref.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 1, 4, 5, 5] : memref<1x4x5x5xf32> into memref<1x1x4x5x5xf32>
  %ye = memref.expand_shape %out [[0], [1, 2], [3], [4]] output_shape [1, 1, 8, 5, 5] : memref<1x8x5x5xf32> into memref<1x1x8x5x5xf32>
  linalg.generic {indexing_maps = [#x1, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%xe, %we : memref<1x1x4x5x5xf32>, memref<1x8x4x1x1xf32>) outs(%ye : memref<1x1x8x5x5xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %m = arith.mulf %a, %bb : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r, %out : memref<1x8x5x5xf32>, memref<1x8x5x5xf32>) outs(%out : memref<1x8x5x5xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %s = arith.addf %a, %bb : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%out : memref<1x8x5x5xf32>) outs(%out : memref<1x8x5x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %cst : f32
    linalg.yield %m : f32
  }
  "test.use"(%out) : (memref<1x8x5x5xf32>) -> ()
  return
}
