// RUN: onyx-opt %s --onyx-cuda-lower-library-calls --canonicalize --cse \
// RUN:   -split-input-file | FileCheck %s
//
// The tanh approximation of GELU after a half-precision GEMM's bias Add
// (GPT-2's MLP: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), x = A B +
// bias) becomes cuBLASLt's GELU_BIAS epilogue: flag 16
// (ONYXRT_GEMM_GELU_TANH) on the GEMM call, which writes the GELU's output;
// no generic is left. Fusion puts the bias Add and the GELU in one generic
// (every op rounded, as the ONNX lowering writes an f16 graph); the matcher
// also takes them as two generics. f32 keeps the GELU kernel (cuBLASLt's
// f32 GELU is less exact).

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @onyx_main
// CHECK-NOT:     linalg.fill
// CHECK:         call @onyxrt_cuda_gemm(%{{.*}}, %{{.*}}, %c10_i32, %c16_i32, %c1_i64,
// CHECK-NOT:     linalg.generic {
module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f16
    %k1 = arith.constant 0.044715 : f32
    %k0 = arith.constant 0.797884583 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %x = onyx.get_input %ctx[0] : memref<?x64xf16>
    %w = onyx.get_input %ctx[1] : memref<64x32xf16>
    %bias = onyx.get_input %ctx[2] : memref<32xf16>
    %n = memref.dim %x, %c0 : memref<?x64xf16>
    %y = onyx.alloc_output %ctx[0] (%n) : memref<?x32xf16>
    linalg.fill ins(%zero : f16) outs(%y : memref<?x32xf16>)
    linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x, %w : memref<?x64xf16>, memref<64x32xf16>) outs(%y : memref<?x32xf16>) {
    ^bb0(%in: f16, %in2: f16, %out: f16):
      %m = arith.mulf %in, %in2 : f16
      %s = arith.addf %out, %m : f16
      linalg.yield %s : f16
    } loc("mm")
    linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
        ins(%y, %bias : memref<?x32xf16>, memref<32xf16>) outs(%y : memref<?x32xf16>) {
    ^bb0(%in: f16, %in2: f16, %out: f16):
      %e0 = arith.extf %in : f16 to f32
      %e1 = arith.extf %in2 : f16 to f32
      %s = arith.addf %e0, %e1 : f32
      %t = arith.truncf %s : f32 to f16
      %xx = arith.extf %t : f16 to f32
      %sq = arith.mulf %xx, %xx : f32
      %sqt = arith.truncf %sq : f32 to f16
      %sqe = arith.extf %sqt : f16 to f32
      %cu = arith.mulf %xx, %sqe : f32
      %cut = arith.truncf %cu : f32 to f16
      %cue = arith.extf %cut : f16 to f32
      %p = arith.mulf %cue, %k1 : f32
      %pt = arith.truncf %p : f32 to f16
      %pe = arith.extf %pt : f16 to f32
      %in3 = arith.addf %xx, %pe : f32
      %in3t = arith.truncf %in3 : f32 to f16
      %in3e = arith.extf %in3t : f16 to f32
      %z = arith.mulf %in3e, %k0 : f32
      %zt = arith.truncf %z : f32 to f16
      %ze = arith.extf %zt : f16 to f32
      %th = math.tanh %ze : f32
      %tht = arith.truncf %th : f32 to f16
      %the = arith.extf %tht : f16 to f32
      %a1 = arith.addf %the, %one : f32
      %a1t = arith.truncf %a1 : f32 to f16
      %a1e = arith.extf %a1t : f16 to f32
      %xa = arith.mulf %xx, %a1e : f32
      %xat = arith.truncf %xa : f32 to f16
      %xae = arith.extf %xat : f16 to f32
      %r = arith.mulf %xae, %half : f32
      %rt = arith.truncf %r : f32 to f16
      linalg.yield %rt : f16
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// f16 as two generics: the bias Add, then the GELU in place, computed in f32
// between one extension and one rounding; its inner factor written as
// sqrt(2/pi) x (1 + 0.044715 x^2), 0.5 applied first.

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @onyx_main
// CHECK:         call @onyxrt_cuda_gemm(%{{.*}}, %{{.*}}, %c10_i32, %c16_i32, %c1_i64,
// CHECK-NOT:     linalg.generic {
module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f16
    %k1 = arith.constant 0.044715 : f32
    %k0 = arith.constant 0.797884583 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %x = onyx.get_input %ctx[0] : memref<?x64xf16>
    %w = onyx.get_input %ctx[1] : memref<64x32xf16>
    %bias = onyx.get_input %ctx[2] : memref<32xf16>
    %n = memref.dim %x, %c0 : memref<?x64xf16>
    %y = onyx.alloc_output %ctx[0] (%n) : memref<?x32xf16>
    linalg.fill ins(%zero : f16) outs(%y : memref<?x32xf16>)
    linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x, %w : memref<?x64xf16>, memref<64x32xf16>) outs(%y : memref<?x32xf16>) {
    ^bb0(%in: f16, %in2: f16, %out: f16):
      %m = arith.mulf %in, %in2 : f16
      %s = arith.addf %out, %m : f16
      linalg.yield %s : f16
    } loc("mm")
    linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
        ins(%y, %bias : memref<?x32xf16>, memref<32xf16>) outs(%y : memref<?x32xf16>) {
    ^bb0(%in: f16, %in2: f16, %out: f16):
      %e0 = arith.extf %in : f16 to f32
      %e1 = arith.extf %in2 : f16 to f32
      %s = arith.addf %e0, %e1 : f32
      %t = arith.truncf %s : f32 to f16
      linalg.yield %t : f16
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%y : memref<?x32xf16>) outs(%y : memref<?x32xf16>) {
    ^bb0(%inh: f16, %out: f16):
      %in = arith.extf %inh : f16 to f32
      %sq = arith.mulf %in, %in : f32
      %p = arith.mulf %k1, %sq : f32
      %q = arith.addf %one, %p : f32
      %xk = arith.mulf %k0, %in : f32
      %z = arith.mulf %xk, %q : f32
      %th = math.tanh %z : f32
      %a1 = arith.addf %one, %th : f32
      %hx = arith.mulf %half, %in : f32
      %r = arith.mulf %hx, %a1 : f32
      %rt = arith.truncf %r : f32 to f16
      linalg.yield %rt : f16
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// The same in f32: the bias epilogue alone (flags 0); the GELU stays a
// kernel.

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @onyx_main
// CHECK:         call @onyxrt_cuda_gemm(%{{.*}}, %{{.*}}, %c1_i32, %c0_i32, %c1_i64,
// CHECK:         linalg.generic {
// CHECK:           math.tanh
module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %k1 = arith.constant 0.044715 : f32
    %k0 = arith.constant 0.797884583 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %x = onyx.get_input %ctx[0] : memref<?x64xf32>
    %w = onyx.get_input %ctx[1] : memref<64x32xf32>
    %bias = onyx.get_input %ctx[2] : memref<32xf32>
    %n = memref.dim %x, %c0 : memref<?x64xf32>
    %y = onyx.alloc_output %ctx[0] (%n) : memref<?x32xf32>
    linalg.fill ins(%zero : f32) outs(%y : memref<?x32xf32>)
    linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x, %w : memref<?x64xf32>, memref<64x32xf32>) outs(%y : memref<?x32xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    } loc("mm")
    linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
        ins(%y, %bias : memref<?x32xf32>, memref<32xf32>) outs(%y : memref<?x32xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %s = arith.addf %in, %in2 : f32
      linalg.yield %s : f32
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%y : memref<?x32xf32>) outs(%y : memref<?x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %sq = arith.mulf %in, %in : f32
      %p = arith.mulf %k1, %sq : f32
      %q = arith.addf %one, %p : f32
      %xk = arith.mulf %k0, %in : f32
      %z = arith.mulf %xk, %q : f32
      %th = math.tanh %z : f32
      %a1 = arith.addf %one, %th : f32
      %hx = arith.mulf %half, %in : f32
      %r = arith.mulf %hx, %a1 : f32
      linalg.yield %r : f32
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// Not GELU: 0.6 instead of 0.5. The bias Add still goes into the call
// (flags 0); the other generic stays.

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @onyx_main
// CHECK:         call @onyxrt_cuda_gemm(%{{.*}}, %{{.*}}, %c1_i32, %c0_i32, %c1_i64,
// CHECK:         linalg.generic {
// CHECK:           math.tanh
module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %k1 = arith.constant 0.044715 : f32
    %k0 = arith.constant 0.797884583 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.6 : f32
    %x = onyx.get_input %ctx[0] : memref<?x64xf32>
    %w = onyx.get_input %ctx[1] : memref<64x32xf32>
    %bias = onyx.get_input %ctx[2] : memref<32xf32>
    %n = memref.dim %x, %c0 : memref<?x64xf32>
    %y = onyx.alloc_output %ctx[0] (%n) : memref<?x32xf32>
    linalg.fill ins(%zero : f32) outs(%y : memref<?x32xf32>)
    linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x, %w : memref<?x64xf32>, memref<64x32xf32>) outs(%y : memref<?x32xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    } loc("mm")
    linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
        ins(%y, %bias : memref<?x32xf32>, memref<32xf32>) outs(%y : memref<?x32xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %s = arith.addf %in, %in2 : f32
      linalg.yield %s : f32
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%y : memref<?x32xf32>) outs(%y : memref<?x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %sq = arith.mulf %in, %in : f32
      %cu = arith.mulf %sq, %in : f32
      %p = arith.mulf %cu, %k1 : f32
      %s = arith.addf %in, %p : f32
      %z = arith.mulf %s, %k0 : f32
      %th = math.tanh %z : f32
      %a1 = arith.addf %th, %one : f32
      %xa = arith.mulf %in, %a1 : f32
      %r = arith.mulf %xa, %half : f32
      linalg.yield %r : f32
    }
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}

// -----

// The GELU writes another buffer while the biased sum is also read later
// (the graph uses x itself): the bias epilogue alone; the GELU stays.

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @onyx_main
// CHECK:         call @onyxrt_cuda_gemm(%{{.*}}, %{{.*}}, %c1_i32, %c0_i32, %c1_i64,
// CHECK:         linalg.generic {
// CHECK:           math.tanh
// CHECK:         linalg.generic {
module {
  func.func @onyx_main(%ctx: !onyx.context) -> i32 {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %k1 = arith.constant 0.044715 : f32
    %k0 = arith.constant 0.797884583 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %x = onyx.get_input %ctx[0] : memref<?x64xf32>
    %w = onyx.get_input %ctx[1] : memref<64x32xf32>
    %bias = onyx.get_input %ctx[2] : memref<32xf32>
    %n = memref.dim %x, %c0 : memref<?x64xf32>
    %y = memref.alloc(%n) : memref<?x32xf32>
    %g = onyx.alloc_output %ctx[0] (%n) : memref<?x32xf32>
    %o = onyx.alloc_output %ctx[1] (%n) : memref<?x32xf32>
    linalg.fill ins(%zero : f32) outs(%y : memref<?x32xf32>)
    linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x, %w : memref<?x64xf32>, memref<64x32xf32>) outs(%y : memref<?x32xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    } loc("mm")
    linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
        ins(%y, %bias : memref<?x32xf32>, memref<32xf32>) outs(%y : memref<?x32xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %s = arith.addf %in, %in2 : f32
      linalg.yield %s : f32
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%y : memref<?x32xf32>) outs(%g : memref<?x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %sq = arith.mulf %in, %in : f32
      %cu = arith.mulf %sq, %in : f32
      %p = arith.mulf %cu, %k1 : f32
      %s = arith.addf %in, %p : f32
      %z = arith.mulf %s, %k0 : f32
      %th = math.tanh %z : f32
      %a1 = arith.addf %th, %one : f32
      %xa = arith.mulf %in, %a1 : f32
      %r = arith.mulf %xa, %half : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%y : memref<?x32xf32>) outs(%o : memref<?x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.addf %in, %in : f32
      linalg.yield %r : f32
    }
    memref.dealloc %y : memref<?x32xf32>
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}
