//===- elements.cuh - f32 / f16 / bf16 elements in the runtime's kernels -===//
//
// Shared by attention.cu and layer_norm.cu (nvcc, device code only): an
// element kind E (0 f32, 1 f16, 2 bf16) names its storage type S (16-bit
// kinds as raw unsigned short) and the conversions to and from f32 the
// kernels compute in (round to nearest even).
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_CUDA_ELEMENTS_CUH
#define ONYX_RUNTIME_CUDA_ELEMENTS_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

namespace onyx_kernels {

template <int E> struct Elem {
  using S = unsigned short;
  static __device__ __forceinline__ float toFloat(S x) {
    if constexpr (E == 1)
      return __half2float(__ushort_as_half(x));
    else
      return __bfloat162float(__ushort_as_bfloat16(x));
  }
  static __device__ __forceinline__ S fromFloat(float x) {
    if constexpr (E == 1)
      return __half_as_ushort(__float2half_rn(x));
    else
      return __bfloat16_as_ushort(__float2bfloat16_rn(x));
  }
  // Two values in one register, the first in the low half (mma operands).
  static __device__ __forceinline__ uint32_t pack(float lo, float hi) {
    return uint32_t(fromFloat(lo)) | (uint32_t(fromFloat(hi)) << 16);
  }
};
template <> struct Elem<0> {
  using S = float;
  static __device__ __forceinline__ float toFloat(float x) { return x; }
  static __device__ __forceinline__ float fromFloat(float x) { return x; }
};

} // namespace onyx_kernels

#endif // ONYX_RUNTIME_CUDA_ELEMENTS_CUH
