//===- CudaDnn.h - cuDNN: the loaded API and backend-API conv plans -*- C++
//-*-===//
//
// Internal to runtime/src/cuda: the cuDNN entry points (dlopen'ed, see
// CudaDnn.cpp) and the backend (graph) API's convolution plans
// (CudaDnnGraph.cpp): an operation graph of one convolution and its
// pointwise epilogue, an engine from cuDNN's heuristics, a finalized
// execution plan cached per shape in the session, run with a variant pack.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_CUDA_CUDADNN_H
#define ONYX_RUNTIME_CUDA_CUDADNN_H

#include "onyx/onyx_abi.h"

#include <cudnn.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace onyx {
namespace rt {

struct DnnApi {
  std::string loadError;
#define ONYX_DNN_FN(name) decltype(&::name) name = nullptr;
  ONYX_DNN_FN(cudnnGetVersion)
  ONYX_DNN_FN(cudnnGetErrorString)
  ONYX_DNN_FN(cudnnCreate)
  ONYX_DNN_FN(cudnnDestroy)
  ONYX_DNN_FN(cudnnSetStream)
  ONYX_DNN_FN(cudnnCreateTensorDescriptor)
  ONYX_DNN_FN(cudnnSetTensorNdDescriptor)
  ONYX_DNN_FN(cudnnDestroyTensorDescriptor)
  ONYX_DNN_FN(cudnnCreateFilterDescriptor)
  ONYX_DNN_FN(cudnnSetFilterNdDescriptor)
  ONYX_DNN_FN(cudnnDestroyFilterDescriptor)
  ONYX_DNN_FN(cudnnCreateConvolutionDescriptor)
  ONYX_DNN_FN(cudnnSetConvolutionNdDescriptor)
  ONYX_DNN_FN(cudnnSetConvolutionGroupCount)
  ONYX_DNN_FN(cudnnSetConvolutionMathType)
  ONYX_DNN_FN(cudnnDestroyConvolutionDescriptor)
  ONYX_DNN_FN(cudnnGetConvolutionForwardAlgorithm_v7)
  ONYX_DNN_FN(cudnnFindConvolutionForwardAlgorithm)
  ONYX_DNN_FN(cudnnGetConvolutionForwardWorkspaceSize)
  ONYX_DNN_FN(cudnnConvolutionForward)
  ONYX_DNN_FN(cudnnConvolutionBiasActivationForward)
  ONYX_DNN_FN(cudnnAddTensor)
  ONYX_DNN_FN(cudnnTransformTensor)
  ONYX_DNN_FN(cudnnActivationForward)
  ONYX_DNN_FN(cudnnCreateActivationDescriptor)
  ONYX_DNN_FN(cudnnSetActivationDescriptor)
  ONYX_DNN_FN(cudnnDestroyActivationDescriptor)
  // The backend (graph) API.
  ONYX_DNN_FN(cudnnBackendCreateDescriptor)
  ONYX_DNN_FN(cudnnBackendDestroyDescriptor)
  ONYX_DNN_FN(cudnnBackendSetAttribute)
  ONYX_DNN_FN(cudnnBackendGetAttribute)
  ONYX_DNN_FN(cudnnBackendFinalize)
  ONYX_DNN_FN(cudnnBackendExecute)
#undef ONYX_DNN_FN
};

/// The process's cuDNN (loaded on first use); `loadError` set if it failed.
const DnnApi &dnnApi();
/// "CALL failed: cuDNN's text for `status`".
std::string describeDnn(const char *call, cudnnStatus_t status);

/// The largest power of two (at most 16) that divides `address`: the byte
/// alignment the backend API is told for a tensor (part of the plan key,
/// since an engine may rely on it).
inline int64_t pointerAlignment(const void *address) {
  uintptr_t a = reinterpret_cast<uintptr_t>(address);
  int64_t alignment = 16;
  while (alignment > 1 && (a % uintptr_t(alignment)))
    alignment /= 2;
  return alignment;
}

/// Strides of a packed tensor with dims [N, C, spatial...]: row-major
/// (NCHW), or with C innermost (channels last, NHWC; dims keep their
/// order, as cuDNN describes such tensors).
inline std::vector<int64_t> packedStrides(const std::vector<int64_t> &dims,
                                          bool channelsLast) {
  std::vector<int64_t> s(dims.size());
  if (!channelsLast || dims.size() < 3) {
    int64_t running = 1;
    for (size_t i = dims.size(); i-- > 0;) {
      s[i] = running;
      running *= dims[i];
    }
    return s;
  }
  int64_t running = dims[1];
  s[1] = 1;
  for (size_t i = dims.size(); i-- > 2;) {
    s[i] = running;
    running *= dims[i];
  }
  s[0] = running;
  return s;
}

/// The flags onyxrt_cuda_conv knows (onyx_abi.h); the compiler emits
/// these alone (lib/Target/CUDA/ConvCalls.cpp).
inline constexpr int32_t kKnownConvFlags =
    ONYXRT_CONV_ACCUMULATE | ONYXRT_CONV_TF32 | ONYXRT_CONV_RELU |
    ONYXRT_CONV_NHWC | ONYXRT_CONV_CONST_FILTER;

/// Empty if `flags` holds only known bits, else the error text (without
/// the call's label, which the caller puts first): unknown bits are
/// refused rather than ignored, since a flag the runtime does not read
/// (say, NHWC misspelt) would convolve the wrong layout silently.
inline std::string convFlagsError(int32_t flags) {
  int32_t unknown = flags & ~kKnownConvFlags;
  if (!unknown)
    return {};
  std::string text = "onyxrt_cuda_conv: unknown flag bits " +
                     std::to_string(unknown) + " in flags " +
                     std::to_string(flags) +
                     " (known: ACCUMULATE 1, TF32 2, RELU 4, NHWC 32, "
                     "CONST_FILTER 64";
  if (unknown & (8 | 16))
    text += "; 8 and 16 are the CPU convolution's CLIP and Y_IMAGE_STRIDE";
  return text + ")";
}

/// The session's plan key of one onyxrt_cuda_conv call: its dims (N, C, M,
/// G, then per spatial dim: in, kernel, out, pads, strides, dilations), the
/// flags that change what is computed, the element type, which of bias and
/// residual are present, and the byte alignments of x, w, y, bias and the
/// residual (an engine of the backend API may rely on them).
inline std::vector<int64_t> convPlanKey(int32_t elemType, int32_t flags,
                                        int64_t rank, const int64_t *dims,
                                        bool bias, bool residual,
                                        const std::array<int64_t, 5> &align) {
  std::vector<int64_t> key(dims, dims + 4 + 6 * rank);
  key.push_back(flags & (ONYXRT_CONV_TF32 | ONYXRT_CONV_RELU |
                         ONYXRT_CONV_NHWC | ONYXRT_CONV_ACCUMULATE));
  key.push_back(elemType);
  key.push_back(bias);
  key.push_back(residual);
  key.insert(key.end(), align.begin(), align.end());
  return key;
}

/// One convolution and its epilogue, as the backend graph describes it:
///   y = relu?(conv(x, w) [+ z] [+ bias])
/// All tensors have `dims.size()` dims (N, C, spatial...; a 1-d
/// convolution has H = 1). The group count is C / w's C dim.
struct ConvGraphSpec {
  cudnnDataType_t dataType = CUDNN_DATA_FLOAT;
  std::vector<int64_t> xDims, wDims, yDims, pads, strides, dilations;
  bool channelsLast = false;
  bool bias = false;
  /// A tensor of y's shape added to the result: the residual, or y itself
  /// (ONYXRT_CONV_ACCUMULATE).
  bool addZ = false;
  bool relu = false;
  /// No epilogue: the convolution op itself adds y (its beta = 1), for
  /// ACCUMULATE where no engine fuses the `+ z` form.
  bool betaOne = false;
  /// fp32 data: allow engines that use tensor cores (TF32). Half types
  /// always allow them (fp32 accumulation either way).
  bool allowTf32 = false;
  /// Byte alignments of x, w, y, bias and z.
  std::array<int64_t, 5> alignment = {16, 16, 16, 16, 16};
};

/// A finalized execution plan and the variant packs it ran with.
class ConvGraphPlan {
public:
  ConvGraphPlan() = default;
  ConvGraphPlan(const ConvGraphPlan &) = delete;
  ConvGraphPlan &operator=(const ConvGraphPlan &) = delete;
  ~ConvGraphPlan();

  /// Builds the operation graph, asks the heuristics (mode A, then the
  /// fallback list) and finalizes the first acceptable engine: not one that
  /// down-converts inputs, and for fp32 without `allowTf32` none with
  /// tensor cores (exact fp32 FMA math), needing at most `maxWorkspace`.
  /// Returns false when no engine qualifies (`why` says so: the caller
  /// falls back) or a backend call fails (`why` names it).
  bool build(cudnnHandle_t handle, const ConvGraphSpec &spec,
             size_t maxWorkspace, std::string &why);
  /// Runs the plan on the handle's stream. `z` and `bias` as in the spec
  /// (null when the spec has none).
  cudnnStatus_t execute(cudnnHandle_t handle, const void *x, const void *w,
                        void *y, const void *bias, const void *z,
                        void *workspace, const char *&call);

  size_t workspace() const { return workspaceBytes; }
  /// For ONYX_CUDNN_LOG: "engine 12 (tensor cores, runtime compiled)".
  const std::string &engineDescription() const { return engineText; }

private:
  cudnnBackendDescriptor_t plan = nullptr;
  size_t workspaceBytes = 0;
  std::string engineText;
  bool hasBias = false, hasZ = false;
  /// Variant packs by their pointers (x, w, y, bias, z, workspace): a
  /// session calls a plan with few distinct buffers, so packs are kept
  /// (at most kMaxPacks, oldest replaced) instead of built per call.
  struct Pack {
    std::array<const void *, 6> pointers;
    cudnnBackendDescriptor_t descriptor;
  };
  static constexpr size_t kMaxPacks = 16;
  std::vector<Pack> packs;
  size_t nextPack = 0;
};

} // namespace rt
} // namespace onyx

#endif // ONYX_RUNTIME_CUDA_CUDADNN_H
