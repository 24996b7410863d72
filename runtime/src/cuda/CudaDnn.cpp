//===- CudaDnn.cpp - Convolution through cuDNN ----------------------------===//
//
// onyxrt_cuda_conv: the compiler (onyx-cuda-lower-library-calls) turns the
// grouped convolution generic of an ONNX Conv into one call, with the dynamic
// dims as arguments.
//
// cuDNN 9 is loaded with dlopen (libcudnn.so.9, or $ONYX_CUDNN_LIBRARY): no
// link dependency, and the runtime still loads without a GPU.
//
// Two ways to run a convolution, chosen once per plan key (shape, layout,
// type, epilogue, alignments; convPlanKey) and cached in the session:
//  - the backend (graph) API (default; CudaDnnGraph.cpp): one finalized
//    execution plan for the convolution with its whole epilogue, run with
//    cudnnBackendExecute: a few microseconds of host time per call, where
//    the legacy calls below cost 80-190 us (docs/cuda-backend.md). A key
//    whose fused graph gets no engine from the heuristics runs the backend
//    plan of the convolution alone with the legacy epilogue calls (an
//    ACCUMULATE: the convolution op with beta = 1); one whose convolution
//    gets none either takes the legacy path. ONYX_CUDNN_LOG shows which.
//  - the legacy API (ONYX_CUDNN_API=legacy, for A/B; and the fallback):
//    the algorithm chosen by cudnnGetConvolutionForwardAlgorithm_v7's
//    heuristics ($ONYX_CUDNN_ALGO_SEARCH=exhaustive: by timing every one,
//    cudnnFindConvolutionForwardAlgorithm), descriptors, algorithm and
//    workspace size cached per key.
// The workspace is the session's, grown to the largest one used.
//
// Precision: CUDNN_FMA_MATH (plain fp32, no TF32) unless the artifact asked
// for tf32 (CUDNN_TENSOR_OP_MATH, which allows it); in the backend API, no
// engine with CUDNN_NUMERICAL_NOTE_TENSOR_CORE for fp32 without tf32. fp16 and
// bf16 tensors (CUDNN_DATA_HALF / CUDNN_DATA_BFLOAT16, the bias too) convolve
// with an fp32 compute type and CUDNN_TENSOR_OP_MATH: tensor cores, fp32
// accumulation; alpha and beta stay fp32.
//
// ONYXRT_CONV_NHWC (half-precision and tf32 convolutions after the
// compiler's onyx-cuda-channels-last; any element type, fp32 without TF32
// too, though cuDNN's fp32 NHWC engines are slow): x, y and the residual
// are described as NHWC (CUDNN_TENSOR_NHWC strides) and the filter as
// KRSC, cuDNN's tensor-core layouts. The compiler passes the weights as
// they are (KCRS); they are converted here with cudnnTransformTensor: once
// per session into a copy kept with the session when the call says they
// are a constant (ONYXRT_CONV_CONST_FILTER: a weight or initializer, whose
// device copy never changes), otherwise per call into a scratch buffer.
//
//===----------------------------------------------------------------------===//
#include "CudaDevice.h"

#ifndef ONYX_RUNTIME_HAS_CUDNN
// Built without cudnn.h: convolutions report it when called.
extern "C" ONYX_API int32_t onyxrt_cuda_conv(void *ctx, const char *label,
                                             int32_t, int32_t, int64_t,
                                             const int64_t *, const void *,
                                             const void *, const void *,
                                             const void *, void *) {
  onyx::rt::failCall(ctx, std::string(label ? label : "conv") +
                              ": this Onyx runtime was built without cuDNN "
                              "headers (cudnn.h)");
  return 1;
}
#else

#include "CudaDnn.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <type_traits>
#include <vector>

namespace onyx {
namespace rt {
namespace {

DnnApi loadDnn() {
  DnnApi api;
  void *handle =
      openCudaLibrary("cuDNN", "ONYX_CUDNN_LIBRARY",
                      {"libcudnn.so.9", "/lib/x86_64-linux-gnu/libcudnn.so.9",
                       "/usr/local/cuda/lib64/libcudnn.so.9"},
                      api.loadError);
  if (!handle)
    return api;
  auto load = [&](auto &fn, const char *symbol) {
    loadCudaSymbol(handle, "cuDNN", fn, symbol, api.loadError);
  };
#define ONYX_DNN_LOAD(name) load(api.name, #name);
  ONYX_DNN_LOAD(cudnnGetVersion)
  ONYX_DNN_LOAD(cudnnGetErrorString)
  ONYX_DNN_LOAD(cudnnCreate)
  ONYX_DNN_LOAD(cudnnDestroy)
  ONYX_DNN_LOAD(cudnnSetStream)
  ONYX_DNN_LOAD(cudnnCreateTensorDescriptor)
  ONYX_DNN_LOAD(cudnnSetTensorNdDescriptor)
  ONYX_DNN_LOAD(cudnnDestroyTensorDescriptor)
  ONYX_DNN_LOAD(cudnnCreateFilterDescriptor)
  ONYX_DNN_LOAD(cudnnSetFilterNdDescriptor)
  ONYX_DNN_LOAD(cudnnDestroyFilterDescriptor)
  ONYX_DNN_LOAD(cudnnCreateConvolutionDescriptor)
  ONYX_DNN_LOAD(cudnnSetConvolutionNdDescriptor)
  ONYX_DNN_LOAD(cudnnSetConvolutionGroupCount)
  ONYX_DNN_LOAD(cudnnSetConvolutionMathType)
  ONYX_DNN_LOAD(cudnnDestroyConvolutionDescriptor)
  ONYX_DNN_LOAD(cudnnGetConvolutionForwardAlgorithm_v7)
  ONYX_DNN_LOAD(cudnnFindConvolutionForwardAlgorithm)
  ONYX_DNN_LOAD(cudnnGetConvolutionForwardWorkspaceSize)
  ONYX_DNN_LOAD(cudnnConvolutionForward)
  ONYX_DNN_LOAD(cudnnConvolutionBiasActivationForward)
  ONYX_DNN_LOAD(cudnnAddTensor)
  ONYX_DNN_LOAD(cudnnTransformTensor)
  ONYX_DNN_LOAD(cudnnActivationForward)
  ONYX_DNN_LOAD(cudnnCreateActivationDescriptor)
  ONYX_DNN_LOAD(cudnnSetActivationDescriptor)
  ONYX_DNN_LOAD(cudnnDestroyActivationDescriptor)
  ONYX_DNN_LOAD(cudnnBackendCreateDescriptor)
  ONYX_DNN_LOAD(cudnnBackendDestroyDescriptor)
  ONYX_DNN_LOAD(cudnnBackendSetAttribute)
  ONYX_DNN_LOAD(cudnnBackendGetAttribute)
  ONYX_DNN_LOAD(cudnnBackendFinalize)
  ONYX_DNN_LOAD(cudnnBackendExecute)
#undef ONYX_DNN_LOAD
  return api;
}

} // namespace

const DnnApi &dnnApi() {
  static const DnnApi api = loadDnn();
  return api;
}

std::string describeDnn(const char *call, cudnnStatus_t status) {
  const DnnApi &api = dnnApi();
  std::string message = std::string(call) + " failed: ";
  const char *text =
      api.cudnnGetErrorString ? api.cudnnGetErrorString(status) : nullptr;
  message += text ? text : ("cuDNN status " + std::to_string(int(status)));
  return message;
}

namespace {

struct ConvPlan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  /// NHWC: the weights as stored (KCRS) and as read (KRSC), both as 4-d
  /// (or 5-d) tensors of the filter's dims.
  cudnnTensorDescriptor_t filterIn = nullptr, filterOut = nullptr;
  size_t filterBytes = 0;
  cudnnActivationDescriptor_t activation = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t workspace = 0;
  /// cudnnConvolutionBiasActivationForward declined this plan (without,
  /// with a residual): the separate calls are made at once from then on,
  /// not after a failed fused call each time.
  bool fusedDeclined[2] = {false, false};
  /// How the convolution runs: the legacy calls above; the backend API's
  /// plan with the whole epilogue; or its plan for the convolution alone,
  /// the epilogue then by the legacy cudnnAddTensor / cudnnActivationForward
  /// (when no engine takes the fused graph).
  enum class Path { Legacy, Graph, GraphThenEpilogue } path = Path::Legacy;
  std::unique_ptr<ConvGraphPlan> graph;
};

/// A workspace above this is not considered (the heuristics list
/// alternatives that need less).
constexpr size_t kMaxWorkspaceBytes = size_t(1) << 30;

/// How a legacy-path convolution's algorithm is chosen (ONYX_CUDNN_API=legacy
/// or a key without a backend engine; the backend API's plans come from its
/// heuristics, mode A), once per shape in a session:
/// the first usable one of cudnnGetConvolutionForwardAlgorithm_v7's list (no
/// timing), unless $ONYX_CUDNN_ALGO_SEARCH is `exhaustive`
/// (cudnnFindConvolutionForwardAlgorithm times them all, as ONNX Runtime's
/// EXHAUSTIVE search and cudnn.benchmark do: a slower first call per shape;
/// on the H200 it made ResNet-50 no faster in NCHW, and in NHWC it cut the
/// host time of graph-free calls but made the GPU time (CUDA graphs) worse,
/// and one of its choices failed in the fused call with BAD_PARAM;
/// docs/cuda-measurements.md).
bool exhaustiveAlgoSearch() {
  static const bool exhaustive = [] {
    const char *mode = std::getenv("ONYX_CUDNN_ALGO_SEARCH");
    return mode && std::strcmp(mode, "exhaustive") == 0;
  }();
  return exhaustive;
}

/// $ONYX_CUDNN_API: `backend` (default), `legacy` (the legacy API for
/// every convolution, for A/B comparisons) or `backend-unfused` (a test
/// mode: every key takes the backend path's fallbacks, the convolution
/// alone with the legacy epilogue calls, ACCUMULATE with beta = 1); read
/// when a session's first convolution runs.
bool useBackendApi(std::string &error, bool &unfused) {
  const char *mode = std::getenv("ONYX_CUDNN_API");
  unfused = mode && std::strcmp(mode, "backend-unfused") == 0;
  if (!mode || !*mode || unfused || std::strcmp(mode, "backend") == 0)
    return true;
  if (std::strcmp(mode, "legacy") == 0)
    return false;
  error = std::string("ONYX_CUDNN_API='") + mode +
          "': expected 'backend', 'legacy' or 'backend-unfused'";
  return false;
}

struct DnnState final : LibraryState {
  cudnnHandle_t handle = nullptr;
  bool backend = true, backendUnfused = false;
  /// $ONYX_CUDNN_LOG: one line per plan (path, engine, time) appended to
  /// that file, or on stderr when it is `1`.
  const char *log = std::getenv("ONYX_CUDNN_LOG");
  CudaDevice *device = nullptr;
  void *workspace = nullptr;
  size_t workspaceBytes = 0;
  /// Where an output that overlaps the input is computed first.
  ScratchBuffer scratch;
  /// NHWC: weights that are not constants, converted per call.
  ScratchBuffer filterScratch;
  /// NHWC: each constant filter's KRSC copy, by its address and size.
  std::map<std::pair<const void *, size_t>, void *> filters;
  std::map<std::vector<int64_t>, ConvPlan> plans;
  ~DnnState() override {
    const DnnApi &api = dnnApi();
    for (auto &entry : plans) {
      ConvPlan &p = entry.second;
      if (p.x)
        api.cudnnDestroyTensorDescriptor(p.x);
      if (p.y)
        api.cudnnDestroyTensorDescriptor(p.y);
      if (p.bias)
        api.cudnnDestroyTensorDescriptor(p.bias);
      if (p.filterIn)
        api.cudnnDestroyTensorDescriptor(p.filterIn);
      if (p.filterOut)
        api.cudnnDestroyTensorDescriptor(p.filterOut);
      if (p.activation)
        api.cudnnDestroyActivationDescriptor(p.activation);
      if (p.w)
        api.cudnnDestroyFilterDescriptor(p.w);
      if (p.conv)
        api.cudnnDestroyConvolutionDescriptor(p.conv);
    }
    plans.clear(); // the backend plans, before their handle
    if (handle)
      api.cudnnDestroy(handle);
    if (workspace && device)
      device->release(workspace);
    scratch.release(device);
    filterScratch.release(device);
    for (auto &entry : filters)
      if (device)
        device->release(entry.second);
  }
};

DnnState *dnnState(CudaDevice &device, std::string &error) {
  if (device.dnn)
    return static_cast<DnnState *>(device.dnn.get());
  const DnnApi &api = dnnApi();
  if (!api.loadError.empty()) {
    error = api.loadError;
    return nullptr;
  }
  auto state = std::make_unique<DnnState>();
  state->backend = useBackendApi(error, state->backendUnfused);
  if (!error.empty())
    return nullptr;
  cudnnStatus_t status = api.cudnnCreate(&state->handle);
  if (status != CUDNN_STATUS_SUCCESS) {
    state->handle = nullptr;
    error = describeDnn("cudnnCreate", status);
    return nullptr;
  }
  status = api.cudnnSetStream(state->handle, device.cudaStream());
  if (status != CUDNN_STATUS_SUCCESS) {
    error = describeDnn("cudnnSetStream", status);
    return nullptr;
  }
  state->device = &device;
  device.dnn = std::move(state);
  return static_cast<DnnState *>(device.dnn.get());
}

const OnyxCudaKernel kConvProfileKey = {nullptr, 0, nullptr,
                                        "cudnn_convolution_forward"};

bool conv(CudaDevice &device, int32_t elemType, int32_t flags, int64_t rank,
          const int64_t *dims, const void *x, const void *w, const void *bias,
          const void *residual, void *y, const char *label,
          std::string &error) {
  cudnnDataType_t dataType;
  size_t esize;
  if (elemType == ONYX_F32) {
    dataType = CUDNN_DATA_FLOAT;
    esize = 4;
  } else if (elemType == ONYX_F16) {
    dataType = CUDNN_DATA_HALF;
    esize = 2;
  } else if (elemType == ONYX_BF16) {
    dataType = CUDNN_DATA_BFLOAT16;
    esize = 2;
  } else {
    error = std::string("element type ") + onyx_element_name(elemType) +
            " is not supported by onyxrt_cuda_conv (f32, f16 and bf16 only)";
    return false;
  }
  error = convFlagsError(flags);
  if (!error.empty())
    return false;
  bool half = elemType != ONYX_F32;
  if (half && (flags & ONYXRT_CONV_TF32)) {
    error = "ONYXRT_CONV_TF32 applies to f32 convolutions only";
    return false;
  }
  if (rank < 1 || rank > 3 || !dims) {
    error = "onyxrt_cuda_conv supports 1 to 3 spatial dims";
    return false;
  }
  int64_t n = dims[0], c = dims[1], m = dims[2], g = dims[3];
  const int64_t *in = dims + 4, *kernel = in + rank, *out = kernel + rank,
                *pads = out + rank, *strides = pads + rank,
                *dilations = strides + rank;
  if (n < 0 || c < 0 || m < 0 || g <= 0 || c % g || m % g) {
    error = "invalid convolution sizes";
    return false;
  }
  int64_t outElements = n * m;
  for (int64_t i = 0; i < rank; ++i)
    outElements *= out[i];
  if (outElements == 0)
    return true;
  bool accumulate = flags & ONYXRT_CONV_ACCUMULATE;
  bool relu = flags & ONYXRT_CONV_RELU;
  bool nhwc = flags & ONYXRT_CONV_NHWC;
  if ((relu && !bias) || (bias && accumulate)) {
    error = "onyxrt_cuda_conv: RELU needs a bias, and a bias excludes "
            "ACCUMULATE";
    return false;
  }
  // cuDNN wants at least 2 spatial dims: a 1-d convolution gets H = 1.
  int r = rank == 1 ? 2 : int(rank);
  std::vector<int> xDims = {int(n), int(c)}, yDims = {int(n), int(m)},
                   wDims = {int(m), int(c / g)};
  std::vector<int> padA, strideA, dilationA;
  if (rank == 1) {
    xDims.push_back(1);
    yDims.push_back(1);
    wDims.push_back(1);
    padA.push_back(0);
    strideA.push_back(1);
    dilationA.push_back(1);
  }
  for (int64_t i = 0; i < rank; ++i) {
    if (in[i] > INT32_MAX || out[i] > INT32_MAX) {
      error = "convolution extent too large for cuDNN";
      return false;
    }
    xDims.push_back(int(in[i]));
    yDims.push_back(int(out[i]));
    wDims.push_back(int(kernel[i]));
    padA.push_back(int(pads[i]));
    strideA.push_back(int(strides[i]));
    dilationA.push_back(int(dilations[i]));
  }
  if ((c == 0 || c / g == 0) && !bias) {
    // Nothing to sum: y = 0 or y unchanged.
    if (accumulate)
      return true;
    CUdeviceptr base = reinterpret_cast<CUdeviceptr>(y);
    CUresult result =
        half ? driver().cuMemsetD16Async(base, 0, size_t(outElements),
                                         device.cudaStream())
             : driver().cuMemsetD32Async(base, 0, size_t(outElements),
                                         device.cudaStream());
    if (result != CUDA_SUCCESS) {
      error = describe("cuMemsetAsync", result);
      return false;
    }
    return true;
  }
  DnnState *state = dnnState(device, error);
  if (!state)
    return false;
  // The compiler may fuse a ReLU whose output buffer the memory plan placed
  // over the convolution's input (dead after it in the unfused program):
  // then the result is computed into a scratch buffer and copied.
  size_t xBytes = size_t(n * c) * esize, yBytes = size_t(outElements) * esize;
  for (int64_t i = 0; i < rank; ++i)
    xBytes *= size_t(in[i]);
  uintptr_t xBegin = reinterpret_cast<uintptr_t>(x),
            yBegin = reinterpret_cast<uintptr_t>(y);
  void *finalY = nullptr;
  uintptr_t rBegin = reinterpret_cast<uintptr_t>(residual);
  if (residual && !bias) {
    error = "onyxrt_cuda_conv: a residual needs a bias";
    return false;
  }
  // Overlapping the input, or the residual (unless exactly: z may be y).
  if ((xBegin < yBegin + yBytes && yBegin < xBegin + xBytes) ||
      (residual && rBegin != yBegin && rBegin < yBegin + yBytes &&
       yBegin < rBegin + yBytes)) {
    if (accumulate) {
      error = "the convolution's output overlaps its input";
      return false;
    }
    if (!state->scratch.reserve(device, yBytes, error))
      return false;
    finalY = y;
    y = state->scratch.data;
  }
  const DnnApi &api = dnnApi();
  // NHWC reads the filter from a converted copy (a fresh allocation).
  std::array<int64_t, 5> alignment = {
      pointerAlignment(x), nhwc ? 16 : pointerAlignment(w), pointerAlignment(y),
      bias ? pointerAlignment(bias) : 16,
      residual     ? pointerAlignment(residual)
      : accumulate ? pointerAlignment(y) // z is y itself
                   : 16};
  std::vector<int64_t> key =
      convPlanKey(elemType, flags, rank, dims, bias, residual, alignment);
  auto found = state->plans.find(key);
  if (found == state->plans.end()) {
    ConvPlan plan;
    auto release = [&]() {
      if (plan.x)
        api.cudnnDestroyTensorDescriptor(plan.x);
      if (plan.y)
        api.cudnnDestroyTensorDescriptor(plan.y);
      if (plan.bias)
        api.cudnnDestroyTensorDescriptor(plan.bias);
      if (plan.filterIn)
        api.cudnnDestroyTensorDescriptor(plan.filterIn);
      if (plan.filterOut)
        api.cudnnDestroyTensorDescriptor(plan.filterOut);
      if (plan.activation)
        api.cudnnDestroyActivationDescriptor(plan.activation);
      if (plan.w)
        api.cudnnDestroyFilterDescriptor(plan.w);
      if (plan.conv)
        api.cudnnDestroyConvolutionDescriptor(plan.conv);
    };
    auto check = [&](const char *call, cudnnStatus_t status) {
      if (status == CUDNN_STATUS_SUCCESS)
        return true;
      error = describeDnn(call, status);
      release();
      return false;
    };
    auto packedStrides = [](const std::vector<int> &d) {
      std::vector<int> s(d.size());
      int64_t running = 1;
      for (size_t i = d.size(); i-- > 0;) {
        s[i] = int(running);
        running *= d[i];
      }
      return s;
    };
    int nd = r + 2;
    if (!check("cudnnCreateTensorDescriptor",
               api.cudnnCreateTensorDescriptor(&plan.x)) ||
        !check("cudnnCreateTensorDescriptor",
               api.cudnnCreateTensorDescriptor(&plan.y)) ||
        !check("cudnnCreateFilterDescriptor",
               api.cudnnCreateFilterDescriptor(&plan.w)) ||
        !check("cudnnCreateConvolutionDescriptor",
               api.cudnnCreateConvolutionDescriptor(&plan.conv)))
      return false;
    // Channels last: dims stay [N, C, spatial...], the strides make C the
    // innermost dim.
    auto channelsLastStrides = [](const std::vector<int> &d) {
      std::vector<int> s(d.size());
      int64_t running = d[1];
      s[1] = 1;
      for (size_t i = d.size(); i-- > 2;) {
        s[i] = int(running);
        running *= d[i];
      }
      s[0] = int(running);
      return s;
    };
    auto strides = nhwc ? channelsLastStrides : packedStrides;
    std::vector<int> xs = strides(xDims), ys = strides(yDims);
    if (!check("cudnnSetTensorNdDescriptor (x)",
               api.cudnnSetTensorNdDescriptor(plan.x, dataType, nd,
                                              xDims.data(), xs.data())) ||
        !check("cudnnSetTensorNdDescriptor (y)",
               api.cudnnSetTensorNdDescriptor(plan.y, dataType, nd,
                                              yDims.data(), ys.data())) ||
        !check("cudnnSetFilterNdDescriptor",
               api.cudnnSetFilterNdDescriptor(plan.w, dataType,
                                              nhwc ? CUDNN_TENSOR_NHWC
                                                   : CUDNN_TENSOR_NCHW,
                                              nd, wDims.data())) ||
        !check("cudnnSetConvolutionNdDescriptor",
               api.cudnnSetConvolutionNdDescriptor(
                   plan.conv, r, padA.data(), strideA.data(), dilationA.data(),
                   CUDNN_CROSS_CORRELATION,
                   CUDNN_DATA_FLOAT /* accumulation, every type */)) ||
        !check("cudnnSetConvolutionGroupCount",
               api.cudnnSetConvolutionGroupCount(plan.conv, int(g))) ||
        !check("cudnnSetConvolutionMathType",
               api.cudnnSetConvolutionMathType(
                   plan.conv, (half || (flags & ONYXRT_CONV_TF32))
                                  ? CUDNN_TENSOR_OP_MATH
                                  : CUDNN_FMA_MATH)))
      return false;
    if (nhwc) {
      std::vector<int> fs = packedStrides(wDims),
                       fl = channelsLastStrides(wDims);
      plan.filterBytes = esize;
      for (int d : wDims)
        plan.filterBytes *= size_t(d);
      if (!check("cudnnCreateTensorDescriptor",
                 api.cudnnCreateTensorDescriptor(&plan.filterIn)) ||
          !check("cudnnCreateTensorDescriptor",
                 api.cudnnCreateTensorDescriptor(&plan.filterOut)) ||
          !check("cudnnSetTensorNdDescriptor (filter, KCRS)",
                 api.cudnnSetTensorNdDescriptor(plan.filterIn, dataType, nd,
                                                wDims.data(), fs.data())) ||
          !check("cudnnSetTensorNdDescriptor (filter, KRSC)",
                 api.cudnnSetTensorNdDescriptor(plan.filterOut, dataType, nd,
                                                wDims.data(), fl.data())))
        return false;
    }
    if (bias) {
      // The bias as [1, M, 1, ...], and the activation of the fused call.
      std::vector<int> bDims(yDims.size(), 1);
      bDims[1] = int(m);
      std::vector<int> bs = packedStrides(bDims);
      if (!check("cudnnCreateTensorDescriptor",
                 api.cudnnCreateTensorDescriptor(&plan.bias)) ||
          !check("cudnnSetTensorNdDescriptor (bias)",
                 api.cudnnSetTensorNdDescriptor(plan.bias, dataType, nd,
                                                bDims.data(), bs.data())) ||
          !check("cudnnCreateActivationDescriptor",
                 api.cudnnCreateActivationDescriptor(&plan.activation)) ||
          !check("cudnnSetActivationDescriptor",
                 api.cudnnSetActivationDescriptor(
                     plan.activation,
                     relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY,
                     CUDNN_PROPAGATE_NAN, 0.0)))
        return false;
    }
    auto started = std::chrono::steady_clock::now();
    std::string why;
    if (state->backend) {
      // The backend API: the whole epilogue in one plan, else the
      // convolution alone (ACCUMULATE: with beta = 1; an epilogue: then as
      // separate legacy calls), else the legacy path for this key. Grouped and
      // depthwise convolutions get engines from the heuristics as far as cuDNN
      // has them; those without fall back here.
      ConvGraphSpec spec;
      spec.dataType = dataType;
      spec.xDims.assign(xDims.begin(), xDims.end());
      spec.wDims.assign(wDims.begin(), wDims.end());
      spec.yDims.assign(yDims.begin(), yDims.end());
      spec.pads.assign(padA.begin(), padA.end());
      spec.strides.assign(strideA.begin(), strideA.end());
      spec.dilations.assign(dilationA.begin(), dilationA.end());
      spec.channelsLast = nhwc;
      spec.bias = bias != nullptr;
      spec.addZ = residual || accumulate;
      spec.relu = relu;
      spec.allowTf32 = flags & ONYXRT_CONV_TF32;
      spec.alignment = alignment;
      auto graph = std::make_unique<ConvGraphPlan>();
      bool epilogue = spec.bias || spec.addZ || spec.relu;
      if (state->backendUnfused && epilogue) {
        why = "skipped (ONYX_CUDNN_API=backend-unfused)";
      } else if (graph->build(state->handle, spec, kMaxWorkspaceBytes, why)) {
        plan.path = ConvPlan::Path::Graph;
      }
      if (plan.path == ConvPlan::Path::Graph) {
        // Done.
      } else if (accumulate) {
        // No engine fuses `+ y` (NCHW, seen on the H100): the convolution
        // op's own beta = 1 (the legacy kernels' accumulate).
        std::string fusedWhy = why;
        why.clear();
        spec.addZ = false;
        spec.betaOne = true;
        graph = std::make_unique<ConvGraphPlan>();
        if (graph->build(state->handle, spec, kMaxWorkspaceBytes, why))
          plan.path = ConvPlan::Path::Graph;
        why = "conv + y: " + fusedWhy + "; conv with beta 1: " + why;
      } else if (epilogue) {
        std::string fusedWhy = why;
        why.clear();
        spec.bias = spec.addZ = spec.relu = false;
        graph = std::make_unique<ConvGraphPlan>();
        if (graph->build(state->handle, spec, kMaxWorkspaceBytes, why))
          plan.path = ConvPlan::Path::GraphThenEpilogue;
        why = "fused graph: " + fusedWhy + "; convolution alone: " + why;
      }
      if (plan.path != ConvPlan::Path::Legacy) {
        plan.workspace = graph->workspace();
        plan.graph = std::move(graph);
      }
    }
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int count = 0;
    if (plan.path != ConvPlan::Path::Legacy) {
      // Chosen above.
    } else if (exhaustiveAlgoSearch()) {
      // Every algorithm timed once on this shape (cuDNN's own buffers),
      // fastest first.
      if (!device.synchronize(error))
        return false;
      if (!check("cudnnFindConvolutionForwardAlgorithm",
                 api.cudnnFindConvolutionForwardAlgorithm(
                     state->handle, plan.x, plan.w, plan.conv, plan.y,
                     CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perf)))
        return false;
    } else if (!check("cudnnGetConvolutionForwardAlgorithm_v7",
                      api.cudnnGetConvolutionForwardAlgorithm_v7(
                          state->handle, plan.x, plan.w, plan.conv, plan.y,
                          CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perf))) {
      return false;
    }
    bool chosen = plan.path != ConvPlan::Path::Legacy;
    for (int i = 0; i < count && !chosen; ++i) {
      if (perf[i].status != CUDNN_STATUS_SUCCESS)
        continue;
      // fp32 means fp32: skip anything that would use TF32 tensor cores.
      if (!half && !(flags & ONYXRT_CONV_TF32) &&
          perf[i].mathType != CUDNN_FMA_MATH &&
          perf[i].mathType != CUDNN_DEFAULT_MATH)
        continue;
      size_t bytes = 0;
      if (api.cudnnGetConvolutionForwardWorkspaceSize(
              state->handle, plan.x, plan.w, plan.conv, plan.y, perf[i].algo,
              &bytes) != CUDNN_STATUS_SUCCESS ||
          bytes > kMaxWorkspaceBytes)
        continue;
      // Half types and tf32 run the algorithm in the math mode it was
      // listed (or timed) with; fp32 keeps CUDNN_FMA_MATH (no TF32).
      if ((half || (flags & ONYXRT_CONV_TF32)) &&
          !check("cudnnSetConvolutionMathType",
                 api.cudnnSetConvolutionMathType(plan.conv, perf[i].mathType)))
        return false;
      plan.algo = perf[i].algo;
      plan.workspace = bytes;
      chosen = true;
    }
    if (!chosen) {
      release();
      error = "cuDNN's heuristics offer no usable algorithm for this "
              "convolution";
      return false;
    }
    if (state->log && *state->log) {
      double ms = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - started)
                      .count();
      const char *path = plan.path == ConvPlan::Path::Graph ? "backend graph"
                         : plan.path == ConvPlan::Path::GraphThenEpilogue
                             ? "backend convolution + legacy epilogue"
                         : state->backend ? "legacy fallback"
                                          : "legacy";
      std::string text = std::string(label ? label : "conv") + ": " + path;
      std::string shape = "dims";
      for (int64_t i = 0; i < 4 + 6 * rank; ++i)
        shape += " " + std::to_string(dims[i]);
      shape += std::string(" flags ") + std::to_string(flags) +
               (bias ? " bias" : "") + (residual ? " residual" : "");
      if (plan.graph)
        text += ", " + plan.graph->engineDescription();
      else
        text += ", algo " + std::to_string(int(plan.algo));
      if (state->backend && plan.path != ConvPlan::Path::Graph)
        text += " [" + why + "]";
      bool toStderr = std::strcmp(state->log, "1") == 0;
      if (FILE *file = toStderr ? stderr : std::fopen(state->log, "a")) {
        std::fprintf(file,
                     "onyx cudnn plan: %s; workspace %zu; %s %s g=%lld; %s; "
                     "%.1f ms\n",
                     text.c_str(), plan.workspace, onyx_element_name(elemType),
                     nhwc ? "NHWC" : "NCHW", (long long)g, shape.c_str(), ms);
        if (!toStderr)
          std::fclose(file);
      }
    }
    found = state->plans.emplace(std::move(key), std::move(plan)).first;
  }
  ConvPlan &plan = found->second;
  if (plan.workspace > state->workspaceBytes) {
    // The old workspace may still be in use by queued work.
    if (state->workspace) {
      if (!device.synchronize(error))
        return false;
      device.release(state->workspace);
      state->workspace = nullptr;
      state->workspaceBytes = 0;
    }
    if (!(state->workspace = device.allocate(plan.workspace, error)))
      return false;
    state->workspaceBytes = plan.workspace;
  }
  // The backend plan of the convolution alone would overwrite a residual
  // that is y itself before the epilogue adds it: compute into the scratch
  // buffer, then copy.
  if (plan.path == ConvPlan::Path::GraphThenEpilogue && residual &&
      residual == y) {
    if (!state->scratch.reserve(device, yBytes, error))
      return false;
    finalY = y;
    y = state->scratch.data;
  }
  float one = 1.0f, zero = 0.0f;
  if (nhwc) {
    // The weights as KRSC: the session's converted copy of a constant
    // filter (made by its first call, which runs before any graph records
    // it), else converted now.
    auto cached = (flags & ONYXRT_CONV_CONST_FILTER)
                      ? state->filters.find({w, plan.filterBytes})
                      : state->filters.end();
    if (cached != state->filters.end()) {
      w = cached->second;
    } else {
      void *converted = nullptr;
      bool keep = (flags & ONYXRT_CONV_CONST_FILTER) && !device.isCapturing();
      if (keep) {
        if (!(converted = device.allocate(plan.filterBytes, error)))
          return false;
      } else {
        if (!state->filterScratch.reserve(device, plan.filterBytes, error))
          return false;
        converted = state->filterScratch.data;
      }
      cudnnStatus_t transformed =
          api.cudnnTransformTensor(state->handle, &one, plan.filterIn, w, &zero,
                                   plan.filterOut, converted);
      if (transformed != CUDNN_STATUS_SUCCESS) {
        if (keep)
          device.release(converted);
        error =
            describeDnn("cudnnTransformTensor (filter to KRSC)", transformed);
        return false;
      }
      if (keep)
        state->filters.emplace(std::make_pair(w, plan.filterBytes), converted);
      w = converted;
    }
  }
  CUevent start = nullptr;
  device.profileBegin(start);
  cudnnStatus_t status = CUDNN_STATUS_NOT_SUPPORTED;
  const char *call = "cudnnConvolutionBiasActivationForward";
  // The fused call: y = act(conv(x) + 0 * y + bias). cuDNN runs an identity
  // activation only with IMPLICIT_PRECOMP_GEMM; otherwise, or when it
  // declines, convolution, bias and ReLU run as separate cuDNN calls.
  bool &declined = plan.fusedDeclined[residual ? 1 : 0];
  if (plan.path == ConvPlan::Path::Graph) {
    // y = relu?(conv + z + bias), z = y itself when accumulating (each
    // element read before its own write; or the plan's beta = 1, when it
    // has no z).
    status =
        plan.graph->execute(state->handle, x, w, y, bias,
                            accumulate ? y : residual, state->workspace, call);
  } else if (plan.path == ConvPlan::Path::GraphThenEpilogue) {
    status = plan.graph->execute(state->handle, x, w, y, nullptr, nullptr,
                                 state->workspace, call);
  } else if (bias && !declined &&
             (relu ||
              plan.algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)) {
    status = api.cudnnConvolutionBiasActivationForward(
        state->handle, &one, plan.x, x, plan.w, w, plan.conv, plan.algo,
        state->workspace, plan.workspace, residual ? &one : &zero, plan.y,
        residual ? residual : y, plan.bias, bias, plan.activation, plan.y, y);
    declined = status == CUDNN_STATUS_NOT_SUPPORTED;
  }
  if (plan.path == ConvPlan::Path::Graph) {
    // Done above.
  } else if (plan.path == ConvPlan::Path::GraphThenEpilogue || !bias ||
             status == CUDNN_STATUS_NOT_SUPPORTED) {
    // A residual that is y itself is added by the convolution's beta (the
    // separate addition would read the convolution's result instead).
    bool residualIsY = residual && residual == y;
    if (plan.path == ConvPlan::Path::Legacy) {
      call = "cudnnConvolutionForward";
      const float *beta = accumulate || residualIsY ? &one : &zero;
      status = api.cudnnConvolutionForward(
          state->handle, &one, plan.x, x, plan.w, w, plan.conv, plan.algo,
          state->workspace, plan.workspace, beta, plan.y, y);
    }
    if (status == CUDNN_STATUS_SUCCESS && bias) {
      call = "cudnnAddTensor";
      status = api.cudnnAddTensor(state->handle, &one, plan.bias, bias, &one,
                                  plan.y, y);
    }
    if (status == CUDNN_STATUS_SUCCESS && residual && !residualIsY) {
      call = "cudnnAddTensor";
      status = api.cudnnAddTensor(state->handle, &one, plan.y, residual, &one,
                                  plan.y, y);
    }
    if (status == CUDNN_STATUS_SUCCESS && relu) {
      call = "cudnnActivationForward";
      status = api.cudnnActivationForward(state->handle, plan.activation, &one,
                                          plan.y, y, &zero, plan.y, y);
    }
  }
  device.profileEnd(start, &kConvProfileKey, label,
                    std::vector<int64_t>(dims, dims + 4 + 6 * rank));
  if (status != CUDNN_STATUS_SUCCESS) {
    error = describeDnn(call, status);
    return false;
  }
  if (finalY) {
    CUresult result = driver().cuMemcpyDtoDAsync(
        reinterpret_cast<CUdeviceptr>(finalY), reinterpret_cast<CUdeviceptr>(y),
        yBytes, device.cudaStream());
    if (result != CUDA_SUCCESS) {
      error = describe("cuMemcpyDtoDAsync", result);
      return false;
    }
  }
  return true;
}

} // namespace
} // namespace rt
} // namespace onyx

using namespace onyx::rt;

extern "C" {

ONYX_API int32_t onyxrt_cuda_conv(void *ctx, const char *label,
                                  int32_t elemType, int32_t flags,
                                  int64_t spatialRank, const int64_t *dims,
                                  const void *x, const void *w,
                                  const void *bias, const void *residual,
                                  void *y) {
  CudaDevice *device = cudaDeviceOf(ctx);
  std::string where = std::string(label ? label : "conv") + ": ";
  try {
    if (!device) {
      failCall(ctx, where + "onyxrt_cuda_conv: the session has no CUDA device");
      return 1;
    }
    std::string error;
    if (!conv(*device, elemType, flags, spatialRank, dims, x, w, bias, residual,
              y, label, error)) {
      failCall(ctx, where + error);
      return 1;
    }
    return 0;
  } catch (...) {
    failCall(ctx, where + "out of memory in onyxrt_cuda_conv");
    return 1;
  }
}

} // extern "C"

#endif // ONYX_RUNTIME_HAS_CUDNN
