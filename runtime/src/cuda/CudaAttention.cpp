//===- CudaAttention.cpp - onyxrt_cuda_attention: flash attention ---------===//
//
// The compiler (onyx-fuse-attention, onyx-cuda-lower-attention) turns an
// attention block (QK^T, scale, additive mask, softmax, PV) into one call:
// the kernels of attention.cu, built by nvcc into a cubin and PTX that are
// embedded here (.incbin) and loaded per session like an artifact's
// kernels (CudaDevice::launch: module cache, ONYX_CUDA_PROFILE). Sizes and
// element strides are arguments, so one kernel serves every shape.
//
//===----------------------------------------------------------------------===//
#include "CudaDevice.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>

#ifndef ONYX_ATTENTION_CUBIN
// Built without nvcc: no kernels (runtime/CMakeLists.txt).
extern "C" ONYX_API int32_t onyxrt_cuda_attention(
    void *ctx, const char *label, int32_t, int64_t, int64_t, int64_t, int64_t,
    int64_t, int64_t, int64_t, double, const void *, int64_t, int64_t, int64_t,
    int64_t, const void *, int64_t, int64_t, int64_t, int64_t, const void *,
    int64_t, int64_t, int64_t, int64_t, const void *, int64_t, int64_t, int64_t,
    int64_t, int32_t, double, int64_t, void *, int64_t, int64_t, int64_t,
    int64_t) {
  onyx::rt::failCall(ctx, std::string(label ? label : "attention") +
                              ": this Onyx runtime was built without nvcc, so "
                              "it has no flash-attention kernels");
  return 1;
}
#else

#define ONYX_STR2(x) #x
#define ONYX_STR(x) ONYX_STR2(x)

// The cubin and the NUL-terminated PTX, in .rodata.
__asm__(".section .rodata\n"
        ".balign 16\n"
        ".local onyx_attention_cubin\n"
        "onyx_attention_cubin:\n"
        ".incbin \"" ONYX_STR(
            ONYX_ATTENTION_CUBIN) "\"\n"
                                  ".local onyx_attention_cubin_end\n"
                                  "onyx_attention_cubin_end:\n"
                                  ".balign 16\n"
                                  ".local onyx_attention_ptx\n"
                                  "onyx_attention_ptx:\n"
                                  ".incbin \"" ONYX_STR(
                                      ONYX_ATTENTION_PTX) "\"\n"
                                                          ".byte 0\n"
                                                          ".previous\n");
extern "C" const char onyx_attention_cubin[], onyx_attention_cubin_end[],
    onyx_attention_ptx[];

namespace onyx {
namespace rt {
namespace {

// attention.cu: the tensor-core kernels take 16 query rows per warp, 1, 2
// or 4 warps per block; the SIMT kernels (ONYX_CUDA_ATTENTION=simt, f32
// only) 16 rows per block of 128 threads.
constexpr int64_t kRowsPerWarp = 16, kMaxWarps = 4;
constexpr int64_t kSimtThreads = 128, kSimtRows = 16;

/// One of attention.cu's kernels, by name.
#define ONYX_K(NAME)                                                           \
  {                                                                            \
    onyx_attention_cubin,                                                      \
        uint64_t(onyx_attention_cubin_end - onyx_attention_cubin),             \
        onyx_attention_ptx, NAME                                               \
  }

/// The kernel for element code `elemType` (1 f32, 10 f16, 16 bf16) and a
/// depth of at most 128, or NULL. `plain`: the tensor-core kernel without a
/// mask tile (no mask, or the causal mask computed: mask mode 5); `split`:
/// its variant over a share of the key tiles (tensor cores only).
const OnyxCudaKernel *kernelFor(int32_t elemType, int64_t depth, bool simt,
                                bool plain, bool split) {
#define ONYX_KD(NAME, SUFFIX)                                                  \
  {                                                                            \
    ONYX_K(NAME "_d32" SUFFIX), ONYX_K(NAME "_d64" SUFFIX),                    \
        ONYX_K(NAME "_d128" SUFFIX)                                            \
  }
  static const OnyxCudaKernel splitKernels[6][3] = {
      ONYX_KD("onyx_attention_f32", "_split"),
      ONYX_KD("onyx_attention_f16", "_split"),
      ONYX_KD("onyx_attention_bf16", "_split"),
      ONYX_KD("onyx_attention_f32", "_plain_split"),
      ONYX_KD("onyx_attention_f16", "_plain_split"),
      ONYX_KD("onyx_attention_bf16", "_plain_split")};
#undef ONYX_KD
  static const OnyxCudaKernel kernels[7][3] = {
      {ONYX_K("onyx_attention_f32_d32"), ONYX_K("onyx_attention_f32_d64"),
       ONYX_K("onyx_attention_f32_d128")},
      {ONYX_K("onyx_attention_f16_d32"), ONYX_K("onyx_attention_f16_d64"),
       ONYX_K("onyx_attention_f16_d128")},
      {ONYX_K("onyx_attention_bf16_d32"), ONYX_K("onyx_attention_bf16_d64"),
       ONYX_K("onyx_attention_bf16_d128")},
      {ONYX_K("onyx_attention_f32simt_d32"),
       ONYX_K("onyx_attention_f32simt_d64"),
       ONYX_K("onyx_attention_f32simt_d128")},
      {ONYX_K("onyx_attention_f32_d32_plain"),
       ONYX_K("onyx_attention_f32_d64_plain"),
       ONYX_K("onyx_attention_f32_d128_plain")},
      {ONYX_K("onyx_attention_f16_d32_plain"),
       ONYX_K("onyx_attention_f16_d64_plain"),
       ONYX_K("onyx_attention_f16_d128_plain")},
      {ONYX_K("onyx_attention_bf16_d32_plain"),
       ONYX_K("onyx_attention_bf16_d64_plain"),
       ONYX_K("onyx_attention_bf16_d128_plain")}};
  int type = elemType == 1    ? (simt ? 3 : 0)
             : elemType == 10 ? 1
             : elemType == 16 ? 2
                              : -1;
  if (type >= 0 && type != 3 && plain)
    type += 4;
  if (type < 0 || depth > 128 || (split && type == 3))
    return nullptr;
  const int d = depth <= 32 ? 0 : depth <= 64 ? 1 : 2;
  if (split)
    return &splitKernels[type > 3 ? type - 1 : type][d];
  return &kernels[type][d];
}

/// The kernel that joins the key splits (attention.cu), or NULL.
const OnyxCudaKernel *combineKernelFor(int32_t elemType) {
  static const OnyxCudaKernel kernels[3] = {
      ONYX_K("onyx_attention_combine_f32"),
      ONYX_K("onyx_attention_combine_f16"),
      ONYX_K("onyx_attention_combine_bf16")};
  return elemType == 1    ? &kernels[0]
         : elemType == 10 ? &kernels[1]
         : elemType == 16 ? &kernels[2]
                          : nullptr;
}
#undef ONYX_K

/// ONYX_CUDA_ATTENTION=simt: the first (SIMT, fp32) kernel, for comparison
/// (read at every call, so one process can time both).
bool simtRequested() {
  const char *v = std::getenv("ONYX_CUDA_ATTENTION");
  return v && std::string(v) == "simt";
}

/// ONYX_CUDA_ATTENTION_SPLITS=N (1 to 16) forces N key splits on the
/// tensor-core kernels, 1 none (read at every call, for comparisons);
/// 0 when unset: the launch's own choice.
int64_t splitsRequested() {
  const char *v = std::getenv("ONYX_CUDA_ATTENTION_SPLITS");
  if (!v || !*v)
    return 0;
  char *end = nullptr;
  long n = std::strtol(v, &end, 10);
  return (*end || n < 1) ? 0 : n > 16 ? 16 : n;
}

/// The split kernels' partial results, kept by the session across calls.
struct AttentionState final : LibraryState {
  CudaDevice *device = nullptr;
  ScratchBuffer partials;
  ~AttentionState() override { partials.release(device); }
};

} // namespace
} // namespace rt
} // namespace onyx

using namespace onyx::rt;

extern "C" {

ONYX_API int32_t onyxrt_cuda_attention(
    void *ctx, const char *label, int32_t elemType, int64_t batch,
    int64_t heads, int64_t sq, int64_t sk, int64_t depth, int64_t dv,
    int64_t kvGroup, double scale, const void *q, int64_t qb, int64_t qh,
    int64_t qs, int64_t qd, const void *k, int64_t kb, int64_t kh, int64_t ks,
    int64_t kd, const void *v, int64_t vb, int64_t vh, int64_t vs, int64_t vd,
    const void *mask, int64_t mb, int64_t mh, int64_t mq, int64_t mk,
    int32_t maskMode, double maskFill, int64_t causalShift, void *out,
    int64_t ob, int64_t oh, int64_t os, int64_t od) {
  std::string where = std::string(label ? label : "attention") + ": ";
  CudaDevice *device = cudaDeviceOf(ctx);
  if (!device) {
    failCall(ctx, where + "onyxrt_cuda_attention: the session has no CUDA "
                          "device");
    return 1;
  }
  const bool half = elemType == 10 || elemType == 16;
  if ((elemType != 1 && !half) || maskMode < 0 || maskMode > 5 ||
      (maskMode == 4 && !half) || (maskMode != 0) != (mask != nullptr)) {
    failCall(ctx, where + "onyxrt_cuda_attention: element type " +
                      std::to_string(elemType) + " with mask mode " +
                      std::to_string(maskMode) +
                      " is not supported (f32, f16 or bf16; no mask, an "
                      "additive f32 mask, an additive mask of the element "
                      "type (f16/bf16), a bool Where mask or the causal one)");
    return 1;
  }
  const bool simt = elemType == 1 && simtRequested();
  const int64_t width = depth > dv ? depth : dv;
  const bool plain = maskMode == 0 || maskMode == 5;
  const OnyxCudaKernel *kernel =
      kernelFor(elemType, width, simt, plain, /*split=*/false);
  if (!kernel || depth < 1 || dv < 1 || kvGroup < 1 || batch > 65535 ||
      heads > 65535 || batch < 0 || heads < 0 || sq < 0 || sk < 0 ||
      heads % kvGroup != 0) {
    failCall(ctx, where + "onyxrt_cuda_attention: unsupported sizes (batch " +
                      std::to_string(batch) + ", heads " +
                      std::to_string(heads) + ", depth " +
                      std::to_string(depth) + "/" + std::to_string(dv) +
                      ", kv group " + std::to_string(kvGroup) +
                      "; at most 65535 / 65535 / 128, heads a multiple of "
                      "the group)");
    return 1;
  }
  if (sk == 0 && sq > 0) {
    failCall(ctx, where + "onyxrt_cuda_attention: no keys (softmax over an "
                          "empty row)");
    return 1;
  }
  try {
    uint64_t args[] = {launchSlot(batch),
                       launchSlot(heads),
                       launchSlot(sq),
                       launchSlot(sk),
                       launchSlot(depth),
                       launchSlot(dv),
                       launchSlot(kvGroup),
                       launchSlot(scale),
                       launchSlot(q),
                       launchSlot(qb),
                       launchSlot(qh),
                       launchSlot(qs),
                       launchSlot(qd),
                       launchSlot(k),
                       launchSlot(kb),
                       launchSlot(kh),
                       launchSlot(ks),
                       launchSlot(kd),
                       launchSlot(v),
                       launchSlot(vb),
                       launchSlot(vh),
                       launchSlot(vs),
                       launchSlot(vd),
                       launchSlot(mask),
                       launchSlot(mb),
                       launchSlot(mh),
                       launchSlot(mq),
                       launchSlot(mk),
                       launchSlot(int64_t(maskMode)),
                       launchSlot(maskFill),
                       launchSlot(causalShift),
                       launchSlot(out),
                       launchSlot(ob),
                       launchSlot(oh),
                       launchSlot(os),
                       launchSlot(od),
                       0 /* key splits */,
                       0 /* their partial results */};
    // Tensor cores: a warp per 16 query rows. Where those warps would not
    // keep the chip busy (batch 1: fewer than 4 per multiprocessor, as the
    // device reports them: 132 on the H100/H200 SXM; a heuristic only),
    // the keys are split too, up to one split per 64-key tile, each
    // split's share of the tiles in its own blocks, and a second kernel
    // joins them. Then 4 warps (64 rows) per block, fewer while the grid
    // would not fill the chip twice over.
    const int64_t sms =
        device->multiprocessors() > 0 ? device->multiprocessors() : 132;
    const int64_t rowGroups =
        (sq + kRowsPerWarp - 1) / kRowsPerWarp * heads * batch;
    // The f16 / bf16 kernels are fast enough that the combine costs more
    // than the split gains unless the grid is causal (blocks above the
    // diagonal end early: BERT b1 s512 f16 0.36 -> 0.40 ms split, GPT-2
    // 0.33 -> 0.30; f32 1.9 -> 1.0 and 0.64, docs/cuda-backend.md).
    const bool splitWorthIt = elemType == 1 || maskMode == 5;
    int64_t splits = 1;
    if (!simt && splitWorthIt && sk > 64 && rowGroups > 0 &&
        rowGroups < 4 * sms)
      splits = std::min<int64_t>((8 * sms + rowGroups - 1) / rowGroups,
                                 std::min<int64_t>((sk + 63) / 64, 8));
    if (!simt)
      if (int64_t forced = splitsRequested())
        splits = forced;
    int64_t warps = kMaxWarps;
    auto blocksFor = [&](int64_t w) {
      int64_t rows = w * kRowsPerWarp;
      return (sq + rows - 1) / rows * heads * batch * splits;
    };
    while (warps > 1 && blocksFor(warps) < 2 * sms)
      warps /= 2;
    const int64_t rowsPerBlock = simt ? kSimtRows : warps * kRowsPerWarp;
    const int64_t grid[3] = {(sq + rowsPerBlock - 1) / rowsPerBlock * splits,
                             heads, batch};
    const int64_t block[3] = {simt ? kSimtThreads : warps * 32, 1, 1};
    const int64_t rows = batch * heads * sq;
    float *partial = nullptr;
    if (splits > 1 && rows > 0) {
      if (!device->attention) {
        auto state = std::make_unique<AttentionState>();
        state->device = device;
        device->attention = std::move(state);
      }
      auto *state = static_cast<AttentionState *>(device->attention.get());
      std::string error;
      if (!state->partials.reserve(
              *device, size_t(splits * rows * (dv + 2)) * sizeof(float),
              error)) {
        failCall(ctx, where + error);
        return 1;
      }
      partial = static_cast<float *>(state->partials.data);
    }
    args[36] = launchSlot(splits);
    args[37] = launchSlot(partial);
    const OnyxCudaKernel *launched =
        splits > 1 ? kernelFor(elemType, width, false, plain, /*split=*/true)
                   : kernel;
    if (launchOrFail(ctx, *device, launched, label, grid, block, args))
      return 1;
    if (splits == 1 || rows == 0)
      return 0;
    const uint64_t combineArgs[] = {
        launchSlot(rows), launchSlot(heads),  launchSlot(sq),
        launchSlot(dv),   launchSlot(splits), launchSlot(partial),
        launchSlot(out),  launchSlot(ob),     launchSlot(oh),
        launchSlot(os),   launchSlot(od)};
    const int64_t total = rows * dv;
    const int64_t combineBlock[3] = {256, 1, 1};
    const int64_t combineGrid[3] = {
        std::min<int64_t>((total + 255) / 256, 65535), 1, 1};
    return launchOrFail(ctx, *device, combineKernelFor(elemType), label,
                        combineGrid, combineBlock, combineArgs);
  } catch (...) {
    failCall(ctx, where + "out of memory in onyxrt_cuda_attention");
    return 1;
  }
}

} // extern "C"

#endif // ONYX_ATTENTION_CUBIN
