//===- async_copy.cuh - cp.async and TF32 rounding for the runtime's kernels
//-===//
//
// Shared by attention.cu and gemm_f32x3.cu (nvcc, device code only):
// cp.async (16 bytes global -> shared without registers, zero-filled when
// `valid` is false), its groups, and the round-to-nearest TF32 conversion
// of the 3xTF32 splits (x = hi + lo).
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_CUDA_ASYNC_COPY_CUH
#define ONYX_RUNTIME_CUDA_ASYNC_COPY_CUH

#include <stdint.h>

namespace onyx_kernels {

__device__ __forceinline__ uint32_t sharedAddr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
/// `dst`: a shared-memory address (sharedAddr).
__device__ __forceinline__ void cpAsync16(uint32_t dst, const void *src,
                                          bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst),
               "l"(src), "r"(valid ? 16 : 0)
               : "memory");
}
__device__ __forceinline__ void cpAsync16(void *dst, const void *src,
                                          bool valid) {
  cpAsync16(sharedAddr(dst), src, valid);
}
__device__ __forceinline__ void cpAsyncCommit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
/// Waits until at most N of this thread's groups are in flight.
template <int N> __device__ __forceinline__ void cpAsyncWait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

__device__ __forceinline__ uint32_t toTf32(float x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

} // namespace onyx_kernels

#endif // ONYX_RUNTIME_CUDA_ASYNC_COPY_CUH
