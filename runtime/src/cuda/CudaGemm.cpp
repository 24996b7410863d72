//===- CudaGemm.cpp - fp32 GEMMs on the tensor cores (3xTF32) -------------===//
//
// The kernels of gemm_f32x3.cu, built by nvcc for sm_90a into a cubin and
// PTX embedded here (.incbin) and loaded per session like an artifact's
// kernels (CudaDevice::launch: module cache, ONYX_CUDA_PROFILE). Each
// block computes a [TM x 128] tile of C with 256 threads and the shared
// memory of three k-tile stages; GemmF32x3Launch.h decides whether a GEMM
// suits them and picks TM (128 or 64) from the number of blocks against
// the multiprocessors, so that small grids still fill the GPU.
//
//===----------------------------------------------------------------------===//
#include "CudaGemm.h"
#include "GemmF32x3Launch.h"

#include <cstdint>

#ifndef ONYX_GEMM_F32X3_CUBIN
// Built without nvcc: every fp32 GEMM runs on cuBLASLt.
namespace onyx {
namespace rt {
F32x3Result gemmF32x3(CudaDevice &, bool, bool, bool, int64_t, int64_t, int64_t,
                      int64_t, const void *, int64_t, int64_t, const void *,
                      int64_t, int64_t, void *, int64_t, int64_t, const void *,
                      const char *, std::string &) {
  return F32x3Result::NotApplicable;
}
} // namespace rt
} // namespace onyx
#else

#define ONYX_STR2(x) #x
#define ONYX_STR(x) ONYX_STR2(x)

// The cubin and the NUL-terminated PTX, in .rodata.
// clang-format off
__asm__(".section .rodata\n"
        ".balign 16\n"
        ".local onyx_gemm_f32x3_cubin\n"
        "onyx_gemm_f32x3_cubin:\n"
        ".incbin \"" ONYX_STR(ONYX_GEMM_F32X3_CUBIN) "\"\n"
        ".local onyx_gemm_f32x3_cubin_end\n"
        "onyx_gemm_f32x3_cubin_end:\n"
        ".balign 16\n"
        ".local onyx_gemm_f32x3_ptx\n"
        "onyx_gemm_f32x3_ptx:\n"
        ".incbin \"" ONYX_STR(ONYX_GEMM_F32X3_PTX) "\"\n"
        ".byte 0\n"
        ".previous\n");
// clang-format on
extern "C" const char onyx_gemm_f32x3_cubin[], onyx_gemm_f32x3_cubin_end[],
    onyx_gemm_f32x3_ptx[];

namespace onyx {
namespace rt {
namespace {

const OnyxCudaKernel *kernelFor(int64_t tm, bool transB, bool twoBlocks) {
#define ONYX_K(NAME)                                                           \
  {                                                                            \
    onyx_gemm_f32x3_cubin,                                                     \
        uint64_t(onyx_gemm_f32x3_cubin_end - onyx_gemm_f32x3_cubin),           \
        onyx_gemm_f32x3_ptx, NAME                                              \
  }
  static const OnyxCudaKernel kernels[3][2] = {
      {ONYX_K("onyx_gemm_f32x3_m128_nn"), ONYX_K("onyx_gemm_f32x3_m128_nt")},
      {ONYX_K("onyx_gemm_f32x3_m64_nn"), ONYX_K("onyx_gemm_f32x3_m64_nt")},
      {ONYX_K("onyx_gemm_f32x3_m64_nn_2b"),
       ONYX_K("onyx_gemm_f32x3_m64_nt_2b")}};
#undef ONYX_K
  return &kernels[twoBlocks ? 2 : tm == 128 ? 0 : 1][transB ? 1 : 0];
}

bool aligned16(const void *p) {
  return (reinterpret_cast<uintptr_t>(p) & 15) == 0;
}

} // namespace

bool f32GemmChoice(F32GemmChoice &choice, std::string &error) {
  static constexpr std::initializer_list<const char *> kValues = {
      "cublas", "tf32x3", "tf32x3-2b"};
  static const int mode = envChoice("ONYX_CUDA_GEMM_F32", kValues);
  if (mode < 0) {
    error = envChoiceError("ONYX_CUDA_GEMM_F32", kValues);
    return false;
  }
  choice = F32GemmChoice(mode);
  return true;
}

F32x3Result gemmF32x3(CudaDevice &device, bool transB, bool accumulate,
                      bool gelu, int64_t batch, int64_t m, int64_t n, int64_t k,
                      const void *a, int64_t lda, int64_t strideA,
                      const void *b, int64_t ldb, int64_t strideB, void *c,
                      int64_t ldc, int64_t strideC, const void *bias,
                      const char *label, std::string &error) {
  F32GemmChoice choice = F32GemmChoice::Cublas;
  if (!f32GemmChoice(choice, error))
    return F32x3Result::Failed;
  if (choice == F32GemmChoice::Cublas || device.computeCapability() != 90)
    return F32x3Result::NotApplicable;
  bool twoBlocks = choice == F32GemmChoice::Tf32x3TwoBlocks;
  GemmF32x3Launch launch = gemmF32x3Launch(
      transB, batch, m, n, k, lda, strideA, ldb, strideB,
      aligned16(a) && aligned16(b), device.multiprocessors(), twoBlocks);
  if (!launch.applies)
    return F32x3Result::NotApplicable;
  const int64_t block[3] = {kF32x3Threads, 1, 1};
  int64_t flags = (accumulate ? kF32x3Accumulate : 0) | (gelu ? kF32x3Gelu : 0);
  const uint64_t args[] = {
      launchSlot(m),    launchSlot(n),    launchSlot(k),
      launchSlot(a),    launchSlot(lda),  launchSlot(strideA),
      launchSlot(b),    launchSlot(ldb),  launchSlot(strideB),
      launchSlot(c),    launchSlot(ldc),  launchSlot(strideC),
      launchSlot(bias), launchSlot(flags)};
  std::string where = std::string(label ? label : "gemm") + ": ";
  if (!device.launch(kernelFor(launch.tm, transB, twoBlocks),
                     label ? label : "gemm", launch.grid, block,
                     int64_t(sizeof(args) / sizeof(args[0])), args, error,
                     launch.sharedBytes)) {
    // The caller prefixes the label.
    if (error.compare(0, where.size(), where) == 0)
      error.erase(0, where.size());
    return F32x3Result::Failed;
  }
  return F32x3Result::Done;
}

} // namespace rt
} // namespace onyx

#endif
