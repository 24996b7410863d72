// RUN: onyx-opt %s --onyx-cpu-lower-convolutions --split-input-file --allow-unregistered-dialect | FileCheck %s

#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
#y = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>

// A Concat of two convolutions (SqueezeNet's Fire module): each call writes
// its channel slice of the Concat's buffer, which moves before the first
// call (ONYXRT_CONV_Y_IMAGE_STRIDE = 16, the image stride 16 * 25 last in
// the dims, y at channel 0 and at channel 8 = 200 floats); the copies go.
// CHECK-LABEL: func.func @concat_of_convs
// CHECK:         %[[B:.*]] = onyx.alloc_temp %{{.*}} : memref<?x16x5x5xf32>
// CHECK-NOT:     linalg.copy
// CHECK:         %[[P0:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
// CHECK:         %[[Y0:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         call @onyxrt_cpu_conv_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[Y0]])
// CHECK-NOT:     linalg.copy
// CHECK:         %[[P1:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
// CHECK:         %[[Y1:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         call @onyxrt_cpu_conv_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[Y1]])
// CHECK-NOT:     linalg.copy
// CHECK:         "test.use"(%[[B]])
func.func @concat_of_convs(%ctx: !onyx.context, %n: index, %xa: memref<?x4x5x5xf32>, %xb: memref<?x4x5x5xf32>, %w: memref<8x4x1x1xf32>, %b: memref<8xf32>) {
  %we = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [1, 8, 4, 1, 1] : memref<8x4x1x1xf32> into memref<1x8x4x1x1xf32>
  %ya = onyx.alloc_temp %ctx(%n) : memref<?x8x5x5xf32>
  linalg.generic {indexing_maps = [#bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<8xf32>) outs(%ya : memref<?x8x5x5xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %xae = memref.expand_shape %xa [[0], [1, 2], [3], [4]] output_shape [%n, 1, 4, 5, 5] : memref<?x4x5x5xf32> into memref<?x1x4x5x5xf32>
  %yae = memref.expand_shape %ya [[0], [1, 2], [3], [4]] output_shape [%n, 1, 8, 5, 5] : memref<?x8x5x5xf32> into memref<?x1x8x5x5xf32>
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%xae, %we : memref<?x1x4x5x5xf32>, memref<1x8x4x1x1xf32>) outs(%yae : memref<?x1x8x5x5xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %m = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  %yb = onyx.alloc_temp %ctx(%n) : memref<?x8x5x5xf32>
  linalg.generic {indexing_maps = [#bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<8xf32>) outs(%yb : memref<?x8x5x5xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %xbe = memref.expand_shape %xb [[0], [1, 2], [3], [4]] output_shape [%n, 1, 4, 5, 5] : memref<?x4x5x5xf32> into memref<?x1x4x5x5xf32>
  %ybe = memref.expand_shape %yb [[0], [1, 2], [3], [4]] output_shape [%n, 1, 8, 5, 5] : memref<?x8x5x5xf32> into memref<?x1x8x5x5xf32>
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%xbe, %we : memref<?x1x4x5x5xf32>, memref<1x8x4x1x1xf32>) outs(%ybe : memref<?x1x8x5x5xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %m = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  %cat = onyx.alloc_temp %ctx(%n) : memref<?x16x5x5xf32>
  %s0 = memref.subview %cat[0, 0, 0, 0] [%n, 8, 5, 5] [1, 1, 1, 1] : memref<?x16x5x5xf32> to memref<?x8x5x5xf32, strided<[400, 25, 5, 1]>>
  linalg.copy ins(%ya : memref<?x8x5x5xf32>) outs(%s0 : memref<?x8x5x5xf32, strided<[400, 25, 5, 1]>>)
  %s1 = memref.subview %cat[0, 8, 0, 0] [%n, 8, 5, 5] [1, 1, 1, 1] : memref<?x16x5x5xf32> to memref<?x8x5x5xf32, strided<[400, 25, 5, 1], offset: 200>>
  linalg.copy ins(%yb : memref<?x8x5x5xf32>) outs(%s1 : memref<?x8x5x5xf32, strided<[400, 25, 5, 1], offset: 200>>)
  "test.use"(%cat) : (memref<?x16x5x5xf32>) -> ()
  return
}

// -----

#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
#y = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>

// Not folded: the Concat's buffer is read between the call and the copy
// (the call would have changed what that read sees), and the output has
// another reader.
// CHECK-LABEL: func.func @concat_read_before_copy
// CHECK:         call @onyxrt_cpu_conv_f32(
// CHECK:         "test.use"(%{{.*}}) : (memref<1x16x5x5xf32>)
// CHECK:         linalg.copy
// CHECK:         call @onyxrt_cpu_conv_f32(
// CHECK:         linalg.copy
func.func @concat_read_before_copy(%ctx: !onyx.context, %xa: memref<1x4x5x5xf32>, %w: memref<8x4x1x1xf32>, %b: memref<8xf32>) {
  %we = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [1, 8, 4, 1, 1] : memref<8x4x1x1xf32> into memref<1x8x4x1x1xf32>
  %cat = onyx.alloc_temp %ctx : memref<1x16x5x5xf32>
  %ya = onyx.alloc_temp %ctx : memref<1x8x5x5xf32>
  linalg.generic {indexing_maps = [#bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<8xf32>) outs(%ya : memref<1x8x5x5xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %xae = memref.expand_shape %xa [[0], [1, 2], [3], [4]] output_shape [1, 1, 4, 5, 5] : memref<1x4x5x5xf32> into memref<1x1x4x5x5xf32>
  %yae = memref.expand_shape %ya [[0], [1, 2], [3], [4]] output_shape [1, 1, 8, 5, 5] : memref<1x8x5x5xf32> into memref<1x1x8x5x5xf32>
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%xae, %we : memref<1x1x4x5x5xf32>, memref<1x8x4x1x1xf32>) outs(%yae : memref<1x1x8x5x5xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %m = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  "test.use"(%cat) : (memref<1x16x5x5xf32>) -> ()
  %s0 = memref.subview %cat[0, 0, 0, 0] [1, 8, 5, 5] [1, 1, 1, 1] : memref<1x16x5x5xf32> to memref<1x8x5x5xf32, strided<[400, 25, 5, 1]>>
  linalg.copy ins(%ya : memref<1x8x5x5xf32>) outs(%s0 : memref<1x8x5x5xf32, strided<[400, 25, 5, 1]>>)
  %yb = onyx.alloc_temp %ctx : memref<1x8x5x5xf32>
  linalg.generic {indexing_maps = [#bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<8xf32>) outs(%yb : memref<1x8x5x5xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %ybe = memref.expand_shape %yb [[0], [1, 2], [3], [4]] output_shape [1, 1, 8, 5, 5] : memref<1x8x5x5xf32> into memref<1x1x8x5x5xf32>
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%xae, %we : memref<1x1x4x5x5xf32>, memref<1x8x4x1x1xf32>) outs(%ybe : memref<1x1x8x5x5xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %m = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  %s1 = memref.subview %cat[0, 8, 0, 0] [1, 8, 5, 5] [1, 1, 1, 1] : memref<1x16x5x5xf32> to memref<1x8x5x5xf32, strided<[400, 25, 5, 1], offset: 200>>
  linalg.copy ins(%yb : memref<1x8x5x5xf32>) outs(%s1 : memref<1x8x5x5xf32, strided<[400, 25, 5, 1], offset: 200>>)
  "test.use"(%yb) : (memref<1x8x5x5xf32>) -> ()
  "test.use"(%cat) : (memref<1x16x5x5xf32>) -> ()
  return
}
