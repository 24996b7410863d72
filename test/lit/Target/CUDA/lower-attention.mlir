// RUN: onyx-opt %s --onyx-cuda-lower-attention --canonicalize --cse --split-input-file \
// RUN:   | FileCheck %s
//
// onyx.attention on buffers becomes one onyxrt_cuda_attention call: the
// output's extents (B, H, Sq, Dv), the query's depth, the largest key
// length, the scale, and per operand (the output last) a device pointer and
// one element stride per logical dim (0 where the extent is 1 or the mask
// has no such dim).

// CHECK: llvm.mlir.global private constant @[[L:.*]]("node 'attn' (flash attention)\00")
// CHECK-LABEL: func.func @onyx_main
// CHECK-NOT:     onyx.attention
// CHECK:         call @onyxrt_cuda_attention(%{{.*}}, %{{.*}}, %c1_i32, %{{.*}}, %c4_i64, %{{.*}}, %{{.*}}, %c8_i64, %c8_i64, %c1_i64, %{{cst[_0-9]*}},
// CHECK-SAME:      %c1_i32, %{{cst[_0-9]*}}, %c0_i64, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c1_i64) {onyx.cuda_status}
// CHECK:       func.func private @onyxrt_cuda_attention(!onyx.context, !llvm.ptr, i32, i64, i64, i64, i64, i64, i64, i64, f64, !llvm.ptr, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, i32, f64, i64, !llvm.ptr, i64, i64, i64, i64) -> i32
module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // [B, S, H, D] projections, a [B, 1, 1, S] padding mask.
    %q = onyx.get_input %ctx[0] : memref<?x?x4x8xf32>
    %k = onyx.get_input %ctx[1] : memref<?x?x4x8xf32>
    %v = onyx.get_input %ctx[2] : memref<?x?x4x8xf32>
    %m = onyx.get_input %ctx[3] : memref<?x1x1x?xf32>
    %b = memref.dim %q, %c0 : memref<?x?x4x8xf32>
    %s = memref.dim %q, %c1 : memref<?x?x4x8xf32>
    %o = onyx.alloc_output %ctx[0] (%b, %s) : memref<?x4x?x8xf32>
    onyx.attention q(%q : memref<?x?x4x8xf32>) k(%k : memref<?x?x4x8xf32>)
        v(%v : memref<?x?x4x8xf32>) mask(%m : memref<?x1x1x?xf32>)
        outs(%o : memref<?x4x?x8xf32>)
        {kv_group = 1 : i64, key_dims = array<i64: 0, 2, 1, 3>,
         mask_dims = array<i64: 0, -1, -1, 3>,
         query_dims = array<i64: 0, 2, 1, 3>, scale = 0.35355339059327373 : f64,
         value_dims = array<i64: 0, 2, 1, 3>} loc("attn")
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// f16 operands (element code 10) with an f16 additive mask: mask mode 4
// (additive in the operands' type; an f32 mask stays mode 1).
// CHECK-LABEL: func.func @half
// CHECK:         call @onyxrt_cuda_attention(%{{.*}}, %{{.*}}, %c10_i32,
// CHECK-SAME:      %c4_i32, %{{cst[_0-9]*}}, %c0_i64, %{{.*}}, %c512_i64, %c128_i64, %c8_i64, %c1_i64) {onyx.cuda_status}
module {
  func.func @half(%ctx: !onyx.context) -> i32 {
    %q = onyx.get_input %ctx[0] : memref<2x4x16x8xf16>
    %k = onyx.get_input %ctx[1] : memref<2x4x16x8xf16>
    %v = onyx.get_input %ctx[2] : memref<2x4x16x8xf16>
    %m = onyx.get_input %ctx[3] : memref<2x1x1x16xf16>
    %o = onyx.alloc_output %ctx[0] : memref<2x4x16x8xf16>
    onyx.attention q(%q : memref<2x4x16x8xf16>) k(%k : memref<2x4x16x8xf16>)
        v(%v : memref<2x4x16x8xf16>) mask(%m : memref<2x1x1x16xf16>)
        outs(%o : memref<2x4x16x8xf16>)
        {kv_group = 1 : i64, key_dims = array<i64: 0, 1, 2, 3>,
         mask_dims = array<i64: 0, -1, -1, 3>,
         query_dims = array<i64: 0, 1, 2, 3>, scale = 0.35355339059327373 : f64,
         value_dims = array<i64: 0, 1, 2, 3>} loc("half")
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// The heads merged on output (out_dims = [0, 2, 1, 3], the Transpose after
// attention folded by onyx-cuda-fuse-attention): B, H, Sq, Dv read from
// out dims 0, 2, 1, 3 and the output's strides per logical dim are
// 16 * 4 * 8, 8, 4 * 8, 1.
// CHECK-LABEL: func.func @merged_heads
// CHECK:         call @onyxrt_cuda_attention(%{{.*}}, %{{.*}}, %c10_i32, %c2_i64, %c4_i64, %c16_i64, %c16_i64, %c8_i64, %c8_i64,
// CHECK-SAME:      %c0_i32, %{{cst[_0-9]*}}, %c0_i64, %{{.*}}, %c512_i64, %c8_i64, %c32_i64, %c1_i64) {onyx.cuda_status}
module {
  func.func @merged_heads(%ctx: !onyx.context) -> i32 {
    %q = onyx.get_input %ctx[0] : memref<2x16x4x8xf16>
    %k = onyx.get_input %ctx[1] : memref<2x16x4x8xf16>
    %v = onyx.get_input %ctx[2] : memref<2x16x4x8xf16>
    %o = onyx.alloc_output %ctx[0] : memref<2x16x4x8xf16>
    onyx.attention q(%q : memref<2x16x4x8xf16>) k(%k : memref<2x16x4x8xf16>)
        v(%v : memref<2x16x4x8xf16>) outs(%o : memref<2x16x4x8xf16>)
        {kv_group = 1 : i64, key_dims = array<i64: 0, 2, 1, 3>,
         mask_dims = array<i64: -1, -1, -1, -1>,
         out_dims = array<i64: 0, 2, 1, 3>,
         query_dims = array<i64: 0, 2, 1, 3>, scale = 0.35355339059327373 : f64,
         value_dims = array<i64: 0, 2, 1, 3>} loc("merged")
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// One [B, S, 3 * 4, 8] projection read in place (head_offsets 0, 4, 8):
// each operand's address is the buffer's plus offset x its head stride
// (8 elements), a GEP of the element type.
// CHECK-LABEL: func.func @head_offsets
// CHECK:         %[[P:.*]] = llvm.inttoptr
// CHECK-DAG:     %[[K:.*]] = llvm.getelementptr %[[P]][32] : (!llvm.ptr) -> !llvm.ptr, f16
// CHECK-DAG:     %[[V:.*]] = llvm.getelementptr %[[P]][64] : (!llvm.ptr) -> !llvm.ptr, f16
// CHECK:         call @onyxrt_cuda_attention(%{{.*}}, %{{.*}}, %c10_i32, %c2_i64, %c4_i64, %c16_i64, %c16_i64, %c8_i64, %c8_i64, %c1_i64, %{{cst[_0-9]*}},
// CHECK-SAME:      %[[P]], %c1536_i64, %c8_i64, %c96_i64, %c1_i64, %[[K]], %c1536_i64, %c8_i64, %c96_i64, %c1_i64, %[[V]], %c1536_i64, %c8_i64, %c96_i64, %c1_i64,
module {
  func.func @head_offsets(%ctx: !onyx.context) -> i32 {
    %qkv = onyx.get_input %ctx[0] : memref<2x16x12x8xf16>
    %o = onyx.alloc_output %ctx[0] : memref<2x16x4x8xf16>
    onyx.attention q(%qkv : memref<2x16x12x8xf16>) k(%qkv : memref<2x16x12x8xf16>)
        v(%qkv : memref<2x16x12x8xf16>) outs(%o : memref<2x16x4x8xf16>)
        {head_offsets = array<i64: 0, 4, 8>, kv_group = 1 : i64,
         key_dims = array<i64: 0, 2, 1, 3>, mask_dims = array<i64: -1, -1, -1, -1>,
         out_dims = array<i64: 0, 2, 1, 3>,
         query_dims = array<i64: 0, 2, 1, 3>, scale = 0.35355339059327373 : f64,
         value_dims = array<i64: 0, 2, 1, 3>} loc("offsets")
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// A causal Where mask (causal_shift = -1, onyx-cuda-causal-mask): mask mode
// 5 with the shift after the fill value; the mask's strides (query 16, key
// 1) still go with it, so the kernel knows where it broadcasts.
// CHECK-LABEL: func.func @causal
// CHECK:         call @onyxrt_cuda_attention(
// CHECK-SAME:      %c16_i64, %c1_i64, %c5_i32, %{{cst[_0-9]*}}, %c-1_i64, %{{.*}}) {onyx.cuda_status}
module {
  func.func @causal(%ctx: !onyx.context) -> i32 {
    %q = onyx.get_input %ctx[0] : memref<2x4x16x8xf16>
    %k = onyx.get_input %ctx[1] : memref<2x4x16x8xf16>
    %v = onyx.get_input %ctx[2] : memref<2x4x16x8xf16>
    %m = onyx.get_input %ctx[3] : memref<16x16xi1>
    %o = onyx.alloc_output %ctx[0] : memref<2x4x16x8xf16>
    onyx.attention q(%q : memref<2x4x16x8xf16>) k(%k : memref<2x4x16x8xf16>)
        v(%v : memref<2x4x16x8xf16>) mask(%m : memref<16x16xi1>)
        outs(%o : memref<2x4x16x8xf16>)
        {causal_shift = -1 : i64, kv_group = 1 : i64,
         key_dims = array<i64: 0, 1, 2, 3>, mask_dims = array<i64: -1, -1, 0, 1>,
         mask_fill = -65504.0 : f64,
         query_dims = array<i64: 0, 1, 2, 3>, scale = 0.35355339059327373 : f64,
         value_dims = array<i64: 0, 1, 2, 3>} loc("causal")
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}
