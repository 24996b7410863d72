//===- CudaLayerNorm.cpp - onyxrt_cuda_layer_norm: fused LayerNorm -------===//
//
// The compiler turns a LayerNormalization whose normalized axes are the
// trailing, contiguous ones into one call: x viewed as [rows, n], scale and
// bias [n]; optionally with the Add that feeds it (a residual [rows, n],
// the sum written out when something else reads it) and a second output
// (out in another type, for a Cast of out). The kernels of layer_norm.cu,
// built by nvcc into a cubin and PTX that are embedded here (.incbin), are
// loaded per session like an artifact's kernels (CudaDevice::launch:
// module cache, ONYX_CUDA_PROFILE). Sizes are arguments, so one kernel
// serves every shape; this file checks the buffers (types, overlaps:
// LayerNormLaunch.h) and picks the kernel by the element types of x, out
// and the parameters, the row length and the alignment (the residual, sum
// and out2 types are kernel arguments).
//
// H100 (scripts/gpu/check_layer_norm_kernel.py, wall clock over 200 calls,
// bytes read and written): 16384 x 768 rows at 2.6 TB/s in f32 (38 us),
// 2.5 in f16 / bf16 (20 us), 1.4-1.9x PyTorch's F.layer_norm; rows of
// 2048-8192 at 2.4-2.7 TB/s; 256 x 65536 (three passes) at 1.4 TB/s.
//
//===----------------------------------------------------------------------===//
#include "CudaDevice.h"
#include "LayerNormLaunch.h"

#include <cstdlib>
#include <string>

#ifndef ONYX_LAYER_NORM_CUBIN
// Built without nvcc: no kernels (runtime/CMakeLists.txt).
extern "C" ONYX_API int32_t onyxrt_cuda_layer_norm(
    void *ctx, const char *label, int32_t, int32_t, int32_t, int32_t, int32_t,
    int32_t, int64_t, int64_t, double, const void *, const void *, const void *,
    const void *, void *, void *, void *) {
  onyx::rt::failCall(ctx, std::string(label ? label : "layer_norm") +
                              ": this Onyx runtime was built without nvcc, so "
                              "it has no LayerNorm kernels");
  return 1;
}
#else

#define ONYX_STR2(x) #x
#define ONYX_STR(x) ONYX_STR2(x)

// The cubin and the NUL-terminated PTX, in .rodata.
// clang-format off
__asm__(".section .rodata\n"
        ".balign 16\n"
        ".local onyx_layer_norm_cubin\n"
        "onyx_layer_norm_cubin:\n"
        ".incbin \"" ONYX_STR(ONYX_LAYER_NORM_CUBIN) "\"\n"
        ".local onyx_layer_norm_cubin_end\n"
        "onyx_layer_norm_cubin_end:\n"
        ".balign 16\n"
        ".local onyx_layer_norm_ptx\n"
        "onyx_layer_norm_ptx:\n"
        ".incbin \"" ONYX_STR(ONYX_LAYER_NORM_PTX) "\"\n"
        ".byte 0\n"
        ".previous\n");
// clang-format on
extern "C" const char onyx_layer_norm_cubin[], onyx_layer_norm_cubin_end[],
    onyx_layer_norm_ptx[];

namespace onyx {
namespace rt {
namespace {

constexpr int64_t kMaxGrid = 0x7fffffff;
constexpr int64_t kVectorized = 1; // layer_norm.cu's flag

/// Index 0, 1, 2 of element code `code` (1 f32, 10 f16, 16 bf16), or -1.
int typeIndex(int32_t code) {
  return code == 1 ? 0 : code == 10 ? 1 : code == 16 ? 2 : -1;
}
int64_t typeBytes(int index) { return index == 0 ? 4 : 2; }

/// The kernel of the types (x, out, params as typeIndex) and `shape`: 0-3
/// the register kernels of kLayerNormLaneElems, kLayerNormPasses the
/// three-pass one.
const OnyxCudaKernel *kernelFor(int x, int out, int param, int shape) {
#define ONYX_K(NAME)                                                           \
  {                                                                            \
    onyx_layer_norm_cubin,                                                     \
        uint64_t(onyx_layer_norm_cubin_end - onyx_layer_norm_cubin),           \
        onyx_layer_norm_ptx, NAME                                              \
  }
#define ONYX_K_TYPES(T)                                                        \
  {                                                                            \
    ONYX_K("onyx_layer_norm_warp_" T "_e8"),                                   \
        ONYX_K("onyx_layer_norm_warp_" T "_e16"),                              \
        ONYX_K("onyx_layer_norm_warp_" T "_e24"),                              \
        ONYX_K("onyx_layer_norm_warp_" T "_e32"),                              \
        ONYX_K("onyx_layer_norm_block_" T)                                     \
  }
#define ONYX_K_PARAMS(XO)                                                      \
  ONYX_K_TYPES(XO "_f32"), ONYX_K_TYPES(XO "_f16"), ONYX_K_TYPES(XO "_bf16")
#define ONYX_K_OUTS(X)                                                         \
  ONYX_K_PARAMS(X "_f32"), ONYX_K_PARAMS(X "_f16"), ONYX_K_PARAMS(X "_bf16")
  // [x][out][param] flattened, as layer_norm.cu instantiates them.
  static const OnyxCudaKernel kernels[27][5] = {
      ONYX_K_OUTS("f32"), ONYX_K_OUTS("f16"), ONYX_K_OUTS("bf16")};
#undef ONYX_K_OUTS
#undef ONYX_K_PARAMS
#undef ONYX_K_TYPES
#undef ONYX_K
  return &kernels[(x * 3 + out) * 3 + param][shape];
}

/// ONYX_CUDA_LAYER_NORM=passes: always the three-pass kernel, for
/// comparison and to test it on every shape (read at every call).
bool passesRequested() {
  const char *v = std::getenv("ONYX_CUDA_LAYER_NORM");
  return v && std::string(v) == "passes";
}

bool aligned(const void *p, int64_t bytes) {
  return p == nullptr || reinterpret_cast<uintptr_t>(p) % uint64_t(bytes) == 0;
}

} // namespace
} // namespace rt
} // namespace onyx

using namespace onyx::rt;

extern "C" {

ONYX_API int32_t onyxrt_cuda_layer_norm(void *ctx, const char *label,
                                        int32_t xType, int32_t residualType,
                                        int32_t sumType, int32_t outType,
                                        int32_t out2Type, int32_t paramType,
                                        int64_t rows, int64_t n, double epsilon,
                                        const void *x, const void *residual,
                                        const void *scale, const void *bias,
                                        void *sum, void *out, void *out2) {
  std::string where = std::string(label ? label : "layer_norm") + ": ";
  CudaDevice *device = cudaDeviceOf(ctx);
  if (!device) {
    failCall(ctx, where + "onyxrt_cuda_layer_norm: the session has no CUDA "
                          "device");
    return 1;
  }
  // The types that matter: residualType and sumType with a residual (the
  // sum is rounded to sumType even when not written), out2Type with out2.
  const struct {
    const char *name;
    int32_t code;
    bool used;
  } types[] = {{"x", xType, true},
               {"residual", residualType, residual != nullptr},
               {"sum", sumType, residual != nullptr},
               {"out", outType, true},
               {"out2", out2Type, out2 != nullptr},
               {"scale and bias", paramType, true}};
  for (const auto &type : types)
    if (type.used && typeIndex(type.code) < 0) {
      failCall(ctx, where + "onyxrt_cuda_layer_norm: element type " +
                        std::to_string(type.code) + " of " + type.name +
                        " is not supported (f32, f16 or bf16: 1, 10 or 16)");
      return 1;
    }
  if (sum && !residual) {
    failCall(ctx, where + "onyxrt_cuda_layer_norm: a sum output without a "
                          "residual (sum is x + residual)");
    return 1;
  }
  if (rows < 0 || n < 0) {
    failCall(ctx, where + "onyxrt_cuda_layer_norm: negative sizes (rows " +
                      std::to_string(rows) + ", n " + std::to_string(n) + ")");
    return 1;
  }
  if (rows == 0 || n == 0)
    return 0; // Nothing to write.
  if (!x || !scale || !out) {
    failCall(ctx, where + "onyxrt_cuda_layer_norm: a NULL buffer (x, scale "
                          "or out)");
    return 1;
  }
  // Type indices (kinds) of the buffers there are; 0 for the others.
  const int xi = typeIndex(xType), oi = typeIndex(outType),
            pi = typeIndex(paramType),
            ri = residual ? typeIndex(residualType) : 0,
            si = residual ? typeIndex(sumType) : 0,
            o2i = out2 ? typeIndex(out2Type) : 0;
  const int64_t xBytes = typeBytes(xi), outBytes = typeBytes(oi),
                paramBytes = typeBytes(pi), residualBytes = typeBytes(ri),
                sumBytes = typeBytes(si), out2Bytes = typeBytes(o2i);
  // In place needs each element rewritten where it was read: an output
  // equal to x or the residual with the same element size; any other
  // overlap would let one row's writes reach another row's unread input.
  // (rows * n * 4 bytes fits: the buffers exist.)
  {
    const uint64_t elems = uint64_t(rows) * uint64_t(n);
    auto span = [](const char *name, const void *p, uint64_t count,
                   int64_t bytes) {
      return LayerNormSpan{name, reinterpret_cast<uintptr_t>(p),
                           count * uint64_t(bytes), bytes};
    };
    const std::string broken = layerNormOverlap(
        {span("x", x, elems, xBytes),
         span("residual", residual, elems, residualBytes)},
        {span("scale", scale, uint64_t(n), paramBytes),
         span("bias", bias, uint64_t(n), paramBytes)},
        {span("sum", sum, elems, sumBytes), span("out", out, elems, outBytes),
         span("out2", out2, elems, out2Bytes)});
    if (!broken.empty()) {
      failCall(ctx, where + "onyxrt_cuda_layer_norm: " + broken);
      return 1;
    }
  }

  // 16-byte accesses of x (VEC elements), and VEC elements of every other
  // operand at a time (8, 16 or 32 bytes): every row start must be aligned
  // to min(16, VEC * size), which n % VEC == 0 and aligned base addresses
  // give.
  const int64_t vec = 16 / xBytes;
  auto vecAlign = [&](int64_t bytes) {
    return vec * bytes < 16 ? vec * bytes : 16;
  };
  const bool vectorized =
      n % vec == 0 && aligned(x, 16) && aligned(out, vecAlign(outBytes)) &&
      aligned(scale, vecAlign(paramBytes)) &&
      aligned(bias, vecAlign(paramBytes)) &&
      aligned(residual, vecAlign(residualBytes)) &&
      aligned(sum, vecAlign(sumBytes)) && aligned(out2, vecAlign(out2Bytes));

  const LayerNormLaunch launch =
      layerNormLaunch(xBytes, n, vectorized, passesRequested());
  const int shape = launch.kernel;
  const int64_t tpr = launch.threadsPerRow, threads = launch.threads;
  const OnyxCudaKernel *kernel = kernelFor(xi, oi, pi, shape);
  const int64_t rowsPerBlock = threads / tpr;

  try {
    // A block per group of rowsPerBlock rows; more than 2^31 - 1 groups
    // take several launches (the kernels have no grid-stride loop).
    const int64_t chunkRows = kMaxGrid * rowsPerBlock;
    for (int64_t start = 0; start < rows; start += chunkRows) {
      const int64_t count = rows - start < chunkRows ? rows - start : chunkRows;
      // Row `start` of a [rows, n] buffer (NULL stays NULL).
      auto part = [&](const void *p, int64_t bytes) -> const void * {
        return p ? static_cast<const char *>(p) + start * n * bytes : nullptr;
      };
      const uint64_t args[] = {
          launchSlot(count),
          launchSlot(n),
          launchSlot(epsilon),
          launchSlot(part(x, xBytes)),
          launchSlot(part(residual, residualBytes)),
          launchSlot(scale),
          launchSlot(bias),
          launchSlot(part(sum, sumBytes)),
          launchSlot(part(out, outBytes)),
          launchSlot(part(out2, out2Bytes)),
          launchSlot(tpr),
          launchSlot(vectorized ? kVectorized : int64_t(0)),
          launchSlot(int64_t(ri)),
          launchSlot(int64_t(si)),
          launchSlot(int64_t(o2i))};
      const int64_t grid[3] = {(count + rowsPerBlock - 1) / rowsPerBlock, 1, 1};
      const int64_t block[3] = {threads, 1, 1};
      if (launchOrFail(ctx, *device, kernel, label, grid, block, args))
        return 1;
    }
    return 0;
  } catch (...) {
    failCall(ctx, where + "out of memory in onyxrt_cuda_layer_norm");
    return 1;
  }
}

} // extern "C"

#endif // ONYX_LAYER_NORM_CUBIN
