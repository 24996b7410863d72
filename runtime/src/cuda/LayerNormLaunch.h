//===- LayerNormLaunch.h - Which LayerNorm kernel, how many threads -*- C++
//-*-===//
//
// The launch shape of onyxrt_cuda_layer_norm (CudaLayerNorm.cpp) for a row
// length, apart from the CUDA code so that a gtest checks it without a GPU
// (test/unit/CudaLayerNormLaunchTest.cpp). layer_norm.cu's register
// kernels hold E = 8, 16, 24 or 32 elements per lane with 1 to 8 warps per
// row, in blocks of 128 threads (256 for 8 warps); its three-pass kernel
// takes a warp per row for rows of up to 2048 accesses (vectors or
// elements), 8 rows per block, and longer rows a block of up to 1024
// threads, about 8 accesses per thread per pass. And which overlaps of its
// buffers the call accepts (layerNormOverlap).
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_CUDA_LAYERNORMLAUNCH_H
#define ONYX_RUNTIME_CUDA_LAYERNORMLAUNCH_H

#include <cstdint>
#include <string>

namespace onyx {
namespace rt {

constexpr int64_t kLayerNormLaneElems[4] = {8, 16, 24, 32};
constexpr int64_t kLayerNormMaxWarpsPerRow = 8;
constexpr int64_t kLayerNormRegisterBlock = 128;
constexpr int64_t kLayerNormWarpRowAccesses = 2048;
constexpr int64_t kLayerNormWarpRowsPerBlock = 8;
constexpr int64_t kLayerNormMaxBlock = 1024;
constexpr int64_t kLayerNormAccessesPerThread = 8;
/// The index of the three-pass kernel among a type combination's kernels
/// (0-3: the register kernels of kLayerNormLaneElems).
constexpr int kLayerNormPasses = 4;

struct LayerNormLaunch {
  int kernel;            // 0-3 register kernels, kLayerNormPasses
  int64_t threadsPerRow; // a multiple of 32 dividing threads
  int64_t threads;       // per block
};

/// The launch for rows of `n` elements of an x of `xBytes` bytes each;
/// `vectorized`: n is a multiple of 16 bytes of x and the buffers are
/// aligned for the vector accesses; `passes`: the three-pass kernel
/// whatever the row (ONYX_CUDA_LAYER_NORM=passes).
inline LayerNormLaunch layerNormLaunch(int64_t xBytes, int64_t n,
                                       bool vectorized, bool passes) {
  if (vectorized && !passes &&
      n <= kLayerNormMaxWarpsPerRow * 32 * kLayerNormLaneElems[3]) {
    // The fewest warps per row (1 needs no barriers) whose lanes cover it
    // with at most 32 elements each, 24 for an f32 x (ptxas: 100 registers
    // at 32 against 64 at 24; on the H100, f32 rows of 1024 ran at 2.4
    // TB/s with 2 warps of 16 against 2.2 with one of 32, 8192 x 1024
    // rows, and 2048 / 4096 gained 4%); then the fewest elements per lane.
    const int64_t maxE =
        xBytes == 4 ? kLayerNormLaneElems[2] : kLayerNormLaneElems[3];
    int64_t warps = 1;
    while (warps < kLayerNormMaxWarpsPerRow && warps * 32 * maxE < n)
      warps *= 2;
    int kernel = 0;
    while (warps * 32 * kLayerNormLaneElems[kernel] < n)
      ++kernel;
    const int64_t tpr = warps * 32;
    return {kernel, tpr,
            tpr > kLayerNormRegisterBlock ? tpr : kLayerNormRegisterBlock};
  }
  const int64_t accesses = vectorized ? n / (16 / xBytes) : n;
  if (accesses <= kLayerNormWarpRowAccesses)
    return {kLayerNormPasses, 32, 32 * kLayerNormWarpRowsPerBlock};
  int64_t want = (accesses + kLayerNormAccessesPerThread - 1) /
                 kLayerNormAccessesPerThread;
  want = (want + 31) / 32 * 32;
  const int64_t threads = want < 128                  ? 128
                          : want > kLayerNormMaxBlock ? kLayerNormMaxBlock
                                                      : want;
  return {kLayerNormPasses, threads, threads};
}

/// One buffer of onyxrt_cuda_layer_norm for the overlap rules: its name in
/// messages, its byte range (begin 0: no buffer) and element size.
struct LayerNormSpan {
  const char *name;
  uintptr_t begin;
  uint64_t bytes;
  int64_t elementBytes;
};

/// The overlap rules of onyxrt_cuda_layer_norm, "" when they hold, else
/// the first one broken: each output (sum, out, out2) either is disjoint
/// from each of `rows` (x, residual) or is exactly that input with
/// elements of the same size (in place: layer_norm.cu reads and writes
/// each element in one thread, the reads first); outputs are disjoint from
/// each other and from `params` (scale, bias: every row reads them).
inline std::string layerNormOverlap(const LayerNormSpan (&rows)[2],
                                    const LayerNormSpan (&params)[2],
                                    const LayerNormSpan (&outputs)[3]) {
  auto overlap = [](const LayerNormSpan &a, const LayerNormSpan &b) {
    return a.begin && b.begin && a.begin < b.begin + b.bytes &&
           b.begin < a.begin + a.bytes;
  };
  for (int o = 0; o < 3; ++o) {
    const LayerNormSpan &out = outputs[o];
    for (const LayerNormSpan &in : rows)
      if (overlap(out, in) && (out.begin != in.begin || out.bytes != in.bytes ||
                               out.elementBytes != in.elementBytes))
        return std::string(out.name) + " overlaps " + in.name +
               " other than exactly (in place needs " + out.name +
               " == " + in.name + " and element types of one size)";
    for (const LayerNormSpan &p : params)
      if (overlap(out, p))
        return std::string(out.name) + " overlaps " + p.name + " (" + p.name +
               " is read by every row)";
    for (int o2 = o + 1; o2 < 3; ++o2)
      if (overlap(out, outputs[o2]))
        return std::string(out.name) + " overlaps " + outputs[o2].name +
               " (outputs must be disjoint)";
  }
  return "";
}

} // namespace rt
} // namespace onyx

#endif // ONYX_RUNTIME_CUDA_LAYERNORMLAUNCH_H
