// RUN: onyx-opt %s --onyx-cuda-lower-layer-norm --onyx-cuda-lower-attention \
// RUN:   --split-input-file --verify-diagnostics
//
// The fused ops become runtime calls only on dense row-major buffers inside
// the bound entry (the function taking the context first); anything else is
// an error naming the op, never a silent skip.

func.func @not_bound(%x: memref<4x768xf32>, %g: memref<768xf32>,
                     %o: memref<4x768xf32>) {
  // expected-error @below {{onyx.layer_norm must be on dense row-major buffers inside the bound entry when the CUDA calls are formed}}
  onyx.layer_norm x(%x : memref<4x768xf32>) scale(%g : memref<768xf32>)
      outs(%o : memref<4x768xf32>) {axis = 1 : i64, epsilon = 1.0e-5 : f64}
  return
}

// -----

func.func @onyx_main(%ctx: !onyx.context,
                     %x: memref<4x768xf32, strided<[1536, 1]>>,
                     %g: memref<768xf32>, %o: memref<4x768xf32>) -> i32 {
  // expected-error @below {{onyx.layer_norm must be on dense row-major buffers inside the bound entry when the CUDA calls are formed}}
  onyx.layer_norm x(%x : memref<4x768xf32, strided<[1536, 1]>>)
      scale(%g : memref<768xf32>) outs(%o : memref<4x768xf32>)
      {axis = 1 : i64, epsilon = 1.0e-5 : f64}
  %ok = arith.constant 0 : i32
  return %ok : i32
}
