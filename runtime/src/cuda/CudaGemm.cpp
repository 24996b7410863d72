//===- CudaGemm.cpp - fp32 GEMMs on the tensor cores (3xTF32) -------------===//
//
// The kernels of gemm_f32x3.cu, built by nvcc for sm_90a into a cubin and
// PTX embedded here (.incbin) and loaded per session like an artifact's
// kernels (CudaDevice::launch: module cache, ONYX_CUDA_PROFILE). Each
// block computes a [TM x 128] tile of C with 256 threads and the shared
// memory of three k-tile stages; TM (128 or 64) is picked here from the
// number of blocks against the multiprocessors, so that small grids still
// fill the GPU.
//
//===----------------------------------------------------------------------===//
#include "CudaGemm.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

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

// gemm_f32x3.cu's tiling: 32 k per stage, 128 columns per block, 256
// threads, three stages of A and B, two of A's lo part.
constexpr int64_t kBK = 32, kTN = 128, kThreads = 256, kStages = 3;
constexpr int64_t kAccumulate = 1, kGelu = 2; // the kernels' flags

/// Dynamic shared memory of the kernel with TM rows (Smem in the .cu).
uint32_t sharedBytes(int64_t tm, bool transB) {
  int64_t x = tm * 128;
  int64_t wPitch = transB ? kBK + 4 : kTN + 8;
  int64_t w = (transB ? kTN : kBK) * wPitch * 4;
  return uint32_t(kStages * x + 2 * x + kStages * w + 1024);
}

const OnyxCudaKernel *kernelFor(int64_t tm, bool transB) {
#define ONYX_K(NAME)                                                           \
  {                                                                            \
    onyx_gemm_f32x3_cubin,                                                     \
        uint64_t(onyx_gemm_f32x3_cubin_end - onyx_gemm_f32x3_cubin),           \
        onyx_gemm_f32x3_ptx, NAME                                              \
  }
  static const OnyxCudaKernel kernels[2][2] = {
      {ONYX_K("onyx_gemm_f32x3_m128_nn"), ONYX_K("onyx_gemm_f32x3_m128_nt")},
      {ONYX_K("onyx_gemm_f32x3_m64_nn"), ONYX_K("onyx_gemm_f32x3_m64_nt")}};
#undef ONYX_K
  return &kernels[tm == 128 ? 0 : 1][transB ? 1 : 0];
}

bool aligned16(const void *p) {
  return (reinterpret_cast<uintptr_t>(p) & 15) == 0;
}

/// TM for a grid of `tiles` column tiles by m rows, batch: the one with
/// fewer waves of blocks over the multiprocessors, counting a TM = 64
/// block as 0.55 of a TM = 128 one (half the rows, the same B tile).
int64_t rowsPerBlock(int64_t m, int64_t tilesN, int64_t batch, int sms) {
  if (sms <= 0)
    return 128;
  auto waves = [&](int64_t tm) {
    int64_t blocks = tilesN * ((m + tm - 1) / tm) * batch;
    return double((blocks + sms - 1) / sms);
  };
  return waves(64) * 0.55 < waves(128) ? 64 : 128;
}

} // namespace

bool f32GemmChoice(bool &tensorCores, std::string &error) {
  const char *env = std::getenv("ONYX_CUDA_GEMM_F32");
  if (!env || !*env || std::strcmp(env, "cublas") == 0) {
    tensorCores = false;
    return true;
  }
  if (std::strcmp(env, "tf32x3") == 0) {
    tensorCores = true;
    return true;
  }
  error = std::string("ONYX_CUDA_GEMM_F32='") + env +
          "': expected 'tf32x3' or 'cublas'";
  return false;
}

F32x3Result gemmF32x3(CudaDevice &device, bool transB, bool accumulate,
                      bool gelu, int64_t batch, int64_t m, int64_t n, int64_t k,
                      const void *a, int64_t lda, int64_t strideA,
                      const void *b, int64_t ldb, int64_t strideB, void *c,
                      int64_t ldc, int64_t strideC, const void *bias,
                      const char *label, std::string &error) {
  bool tensorCores = false;
  if (!f32GemmChoice(tensorCores, error))
    return F32x3Result::Failed;
  if (!tensorCores || device.computeCapability() != 90)
    return F32x3Result::NotApplicable;
  bool stridesOk = batch == 1 || (strideA % 4 == 0 && strideB % 4 == 0);
  if (k <= 0 || m <= 0 || n <= 0 || k % 4 || n % 4 || lda % 4 || ldb % 4 ||
      !stridesOk || !aligned16(a) || !aligned16(b) || batch > 65535)
    return F32x3Result::NotApplicable;
  // The kernels' load offsets are 32-bit within one batch entry.
  int64_t spanA = (m - 1) * lda + k;
  int64_t spanB = transB ? (n - 1) * ldb + k : (k - 1) * ldb + n;
  if (spanA > INT32_MAX || spanB > INT32_MAX)
    return F32x3Result::NotApplicable;
  int64_t tilesN = (n + kTN - 1) / kTN;
  int64_t tm = rowsPerBlock(m, tilesN, batch, device.multiprocessors());
  int64_t tilesM = (m + tm - 1) / tm;
  if (tilesM > 65535)
    return F32x3Result::NotApplicable;
  const int64_t grid[3] = {tilesN, tilesM, batch};
  const int64_t block[3] = {kThreads, 1, 1};
  int64_t flags = (accumulate ? kAccumulate : 0) | (gelu ? kGelu : 0);
  const uint64_t args[] = {
      launchSlot(m),    launchSlot(n),    launchSlot(k),
      launchSlot(a),    launchSlot(lda),  launchSlot(strideA),
      launchSlot(b),    launchSlot(ldb),  launchSlot(strideB),
      launchSlot(c),    launchSlot(ldc),  launchSlot(strideC),
      launchSlot(bias), launchSlot(flags)};
  std::string where = std::string(label ? label : "gemm") + ": ";
  if (!device.launch(kernelFor(tm, transB), label ? label : "gemm", grid, block,
                     int64_t(sizeof(args) / sizeof(args[0])), args, error,
                     sharedBytes(tm, transB))) {
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
