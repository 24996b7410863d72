//===- CudaDnnGraph.cpp - Convolution plans of cuDNN's backend API --------===//
//
// The backend (graph) API path of onyxrt_cuda_conv (CudaDnn.cpp decides
// when it is used): per shape, layout, type and epilogue, one operation
// graph
//
//   conv(x, w) -> [+ z] -> [+ bias] -> [relu] -> y
//
// (intermediates virtual, fp32), the engine configurations of
// CUDNN_HEUR_MODE_A (then CUDNN_HEUR_MODE_FALLBACK), the first acceptable
// one finalized into an execution plan that the session keeps. A call then
// costs one cudnnBackendExecute with a variant pack (kept per distinct set
// of pointers), instead of the legacy API's per-call setup.
//
// Numerics: engines with CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS are never
// taken, and for fp32 data without the artifact's tf32 permission neither
// are engines with CUDNN_NUMERICAL_NOTE_TENSOR_CORE (they would run TF32):
// fp32 stays fp32 FMA math, as CUDNN_FMA_MATH does in the legacy path.
// This is the filter PyTorch applies to cuDNN's engine list.
//
//===----------------------------------------------------------------------===//
// Built with cudnn.h only (as CudaDnn.cpp's cuDNN part).
#ifdef ONYX_RUNTIME_HAS_CUDNN
#include "CudaDnn.h"

#include <algorithm>

namespace onyx {
namespace rt {
namespace {

// Deprecated in newer cuDNN 9 headers, still honoured, and needed by older
// cuDNN 9 libraries (the handle of the operation graph and of the plan).
constexpr auto kOpGraphHandle = cudnnBackendAttributeName_t(800);
constexpr auto kPlanHandle = cudnnBackendAttributeName_t(400);

/// Owns backend descriptors made while building one plan.
class Descriptors {
public:
  explicit Descriptors(const DnnApi &api) : api(api) {}
  ~Descriptors() {
    for (cudnnBackendDescriptor_t d : owned)
      api.cudnnBackendDestroyDescriptor(d);
  }
  /// A new descriptor (kept until this object goes), or null.
  cudnnBackendDescriptor_t make(cudnnBackendDescriptorType_t type,
                                cudnnStatus_t &status) {
    cudnnBackendDescriptor_t d = nullptr;
    status = api.cudnnBackendCreateDescriptor(type, &d);
    if (status != CUDNN_STATUS_SUCCESS)
      return nullptr;
    owned.push_back(d);
    return d;
  }
  /// Hands `d` to the caller (no longer destroyed here).
  void release(cudnnBackendDescriptor_t d) {
    owned.erase(std::remove(owned.begin(), owned.end(), d), owned.end());
  }

private:
  const DnnApi &api;
  std::vector<cudnnBackendDescriptor_t> owned;
};

/// Builder state: the first failing call's message.
struct Builder {
  const DnnApi &api;
  Descriptors descriptors;
  std::string error;
  explicit Builder(const DnnApi &api) : api(api), descriptors(api) {}

  bool ok(const char *call, cudnnStatus_t status) {
    if (status == CUDNN_STATUS_SUCCESS)
      return true;
    if (error.empty())
      error = describeDnn(call, status);
    return false;
  }
  cudnnBackendDescriptor_t make(cudnnBackendDescriptorType_t type) {
    cudnnStatus_t status;
    cudnnBackendDescriptor_t d = descriptors.make(type, status);
    ok("cudnnBackendCreateDescriptor", status);
    return d;
  }
  template <typename T>
  bool set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
           cudnnBackendAttributeType_t type, const T *values, int64_t count,
           const char *what) {
    if (!d)
      return false;
    return ok(what, api.cudnnBackendSetAttribute(d, name, type, count,
                                                 const_cast<T *>(values)));
  }
  bool finalize(cudnnBackendDescriptor_t d, const char *what) {
    return d && ok(what, api.cudnnBackendFinalize(d));
  }

  cudnnBackendDescriptor_t tensor(int64_t uid, cudnnDataType_t type,
                                  const std::vector<int64_t> &dims,
                                  const std::vector<int64_t> &strides,
                                  int64_t alignment, bool isVirtual) {
    cudnnBackendDescriptor_t t = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    bool virt = isVirtual;
    int64_t n = int64_t(dims.size());
    if (set(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &type, 1,
            "cudnnBackendSetAttribute (tensor type)") &&
        set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims.data(), n,
            "cudnnBackendSetAttribute (tensor dims)") &&
        set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides.data(), n,
            "cudnnBackendSetAttribute (tensor strides)") &&
        set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid, 1,
            "cudnnBackendSetAttribute (tensor id)") &&
        set(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &alignment,
            1, "cudnnBackendSetAttribute (tensor alignment)") &&
        set(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, &virt, 1,
            "cudnnBackendSetAttribute (tensor virtual)") &&
        finalize(t, "cudnnBackendFinalize (tensor)"))
      return t;
    return nullptr;
  }

  /// A pointwise operation y = mode(x [, b]) in fp32.
  cudnnBackendDescriptor_t pointwise(cudnnPointwiseMode_t mode,
                                     cudnnBackendDescriptor_t x,
                                     cudnnBackendDescriptor_t b,
                                     cudnnBackendDescriptor_t y) {
    cudnnBackendDescriptor_t pw = make(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    cudnnDataType_t prec = CUDNN_DATA_FLOAT;
    if (!set(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, &mode, 1,
             "cudnnBackendSetAttribute (pointwise mode)") ||
        !set(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, &prec, 1,
             "cudnnBackendSetAttribute (pointwise precision)") ||
        !finalize(pw, "cudnnBackendFinalize (pointwise)"))
      return nullptr;
    cudnnBackendDescriptor_t op =
        make(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    if (!x || !y ||
        !set(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR,
             CUDNN_TYPE_BACKEND_DESCRIPTOR, &pw, 1,
             "cudnnBackendSetAttribute (pointwise op)") ||
        !set(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC,
             CUDNN_TYPE_BACKEND_DESCRIPTOR, &x, 1,
             "cudnnBackendSetAttribute (pointwise x)") ||
        (b && !set(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC,
                   CUDNN_TYPE_BACKEND_DESCRIPTOR, &b, 1,
                   "cudnnBackendSetAttribute (pointwise b)")) ||
        !set(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC,
             CUDNN_TYPE_BACKEND_DESCRIPTOR, &y, 1,
             "cudnnBackendSetAttribute (pointwise y)") ||
        !finalize(op, "cudnnBackendFinalize (pointwise op)"))
      return nullptr;
    return op;
  }
};

enum : int64_t { kX = 1, kW = 2, kY = 3, kBias = 4, kZ = 5, kVirtual = 100 };

bool hasNote(const std::vector<cudnnBackendNumericalNote_t> &notes,
             cudnnBackendNumericalNote_t note) {
  return std::find(notes.begin(), notes.end(), note) != notes.end();
}

} // namespace

ConvGraphPlan::~ConvGraphPlan() {
  const DnnApi &api = dnnApi();
  for (Pack &pack : packs)
    api.cudnnBackendDestroyDescriptor(pack.descriptor);
  if (plan)
    api.cudnnBackendDestroyDescriptor(plan);
}

bool ConvGraphPlan::build(cudnnHandle_t handle, const ConvGraphSpec &spec,
                          size_t maxWorkspace, std::string &why) {
  const DnnApi &api = dnnApi();
  Builder b(api);
  hasBias = spec.bias;
  hasZ = spec.addZ;
  bool epilogue = spec.bias || spec.addZ || spec.relu;
  cudnnDataType_t fp32 = CUDNN_DATA_FLOAT;
  std::vector<int64_t> xs = packedStrides(spec.xDims, spec.channelsLast),
                       ws = packedStrides(spec.wDims, spec.channelsLast),
                       ys = packedStrides(spec.yDims, spec.channelsLast);
  std::vector<int64_t> bDims(spec.yDims.size(), 1);
  bDims[1] = spec.yDims[1];
  std::vector<int64_t> bs = packedStrides(bDims, spec.channelsLast);
  const auto &align = spec.alignment;
  cudnnBackendDescriptor_t x =
      b.tensor(kX, spec.dataType, spec.xDims, xs, align[0], false);
  cudnnBackendDescriptor_t w =
      b.tensor(kW, spec.dataType, spec.wDims, ws, align[1], false);
  cudnnBackendDescriptor_t y =
      b.tensor(kY, spec.dataType, spec.yDims, ys, align[2], false);
  int64_t nextVirtual = kVirtual;
  auto virtualTensor = [&]() {
    return b.tensor(nextVirtual++, fp32, spec.yDims, ys, 16, true);
  };
  // The convolution writes y itself, or an fp32 intermediate.
  cudnnBackendDescriptor_t convOut = epilogue ? virtualTensor() : y;

  cudnnBackendDescriptor_t conv = b.make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  int64_t spatial = int64_t(spec.pads.size());
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  if (!b.set(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE,
             &fp32, 1, "cudnnBackendSetAttribute (conv compute type)") ||
      !b.set(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE,
             CUDNN_TYPE_CONVOLUTION_MODE, &mode, 1,
             "cudnnBackendSetAttribute (conv mode)") ||
      !b.set(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64,
             &spatial, 1, "cudnnBackendSetAttribute (conv spatial dims)") ||
      !b.set(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64,
             spec.pads.data(), spatial,
             "cudnnBackendSetAttribute (conv pre-paddings)") ||
      !b.set(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64,
             spec.pads.data(), spatial,
             "cudnnBackendSetAttribute (conv post-paddings)") ||
      !b.set(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64,
             spec.strides.data(), spatial,
             "cudnnBackendSetAttribute (conv strides)") ||
      !b.set(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64,
             spec.dilations.data(), spatial,
             "cudnnBackendSetAttribute (conv dilations)") ||
      !b.finalize(conv, "cudnnBackendFinalize (convolution)")) {
    why = b.error;
    return false;
  }
  std::vector<cudnnBackendDescriptor_t> ops;
  cudnnBackendDescriptor_t convOp =
      b.make(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
  float one = 1.0f, zero = 0.0f;
  const float *beta = spec.betaOne && !epilogue ? &one : &zero;
  if (!x || !w || !convOut ||
      !b.set(convOp, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
             CUDNN_TYPE_BACKEND_DESCRIPTOR, &conv, 1,
             "cudnnBackendSetAttribute (conv op)") ||
      !b.set(convOp, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
             CUDNN_TYPE_BACKEND_DESCRIPTOR, &x, 1,
             "cudnnBackendSetAttribute (conv x)") ||
      !b.set(convOp, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
             CUDNN_TYPE_BACKEND_DESCRIPTOR, &w, 1,
             "cudnnBackendSetAttribute (conv w)") ||
      !b.set(convOp, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
             CUDNN_TYPE_BACKEND_DESCRIPTOR, &convOut, 1,
             "cudnnBackendSetAttribute (conv y)") ||
      !b.set(convOp, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
             CUDNN_TYPE_FLOAT, &one, 1, "cudnnBackendSetAttribute (alpha)") ||
      !b.set(convOp, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
             CUDNN_TYPE_FLOAT, beta, 1, "cudnnBackendSetAttribute (beta)") ||
      !b.finalize(convOp, "cudnnBackendFinalize (convolution op)")) {
    why = b.error;
    return false;
  }
  ops.push_back(convOp);
  // The epilogue, in the order of cudnnConvolutionBiasActivationForward:
  // act(conv + z + bias). Each step writes a virtual fp32 tensor, the last
  // one y.
  cudnnBackendDescriptor_t current = convOut;
  int steps = int(spec.addZ) + int(spec.bias) + int(spec.relu);
  auto step = [&](cudnnPointwiseMode_t pwMode, cudnnBackendDescriptor_t in2) {
    cudnnBackendDescriptor_t out = --steps == 0 ? y : virtualTensor();
    cudnnBackendDescriptor_t op = b.pointwise(pwMode, current, in2, out);
    if (!op)
      return false;
    ops.push_back(op);
    current = out;
    return true;
  };
  if (spec.addZ &&
      !step(CUDNN_POINTWISE_ADD,
            b.tensor(kZ, spec.dataType, spec.yDims, ys, align[4], false))) {
    why = b.error;
    return false;
  }
  if (spec.bias &&
      !step(CUDNN_POINTWISE_ADD,
            b.tensor(kBias, spec.dataType, bDims, bs, align[3], false))) {
    why = b.error;
    return false;
  }
  if (spec.relu && !step(CUDNN_POINTWISE_RELU_FWD, nullptr)) {
    why = b.error;
    return false;
  }

  cudnnBackendDescriptor_t graph =
      b.make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  if (!b.set(graph, kOpGraphHandle, CUDNN_TYPE_HANDLE, &handle, 1,
             "cudnnBackendSetAttribute (graph handle)") ||
      !b.set(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS,
             CUDNN_TYPE_BACKEND_DESCRIPTOR, ops.data(), int64_t(ops.size()),
             "cudnnBackendSetAttribute (graph ops)") ||
      !b.finalize(graph, "cudnnBackendFinalize (operation graph)")) {
    // An operation graph cuDNN does not support is "no engine", not an
    // error: the caller falls back.
    why = "operation graph not supported: " + b.error;
    return false;
  }

  bool fp32Data = spec.dataType == CUDNN_DATA_FLOAT;
  std::string rejected;
  for (cudnnBackendHeurMode_t heurMode :
       {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    Builder h(api);
    cudnnBackendDescriptor_t heur = h.make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    int64_t count = 0;
    if (!h.set(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
               CUDNN_TYPE_BACKEND_DESCRIPTOR, &graph, 1,
               "cudnnBackendSetAttribute (heuristics graph)") ||
        !h.set(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE,
               &heurMode, 1, "cudnnBackendSetAttribute (heuristics mode)") ||
        !h.finalize(heur, "cudnnBackendFinalize (heuristics)") ||
        !h.ok("cudnnBackendGetAttribute (heuristics results)",
              api.cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                           CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                           &count, nullptr))) {
      rejected += "; heuristics: " + h.error;
      continue;
    }
    std::vector<cudnnBackendDescriptor_t> configs;
    for (int64_t i = 0; i < count; ++i) {
      cudnnBackendDescriptor_t cfg = h.make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
      if (!cfg)
        break;
      configs.push_back(cfg);
    }
    int64_t got = 0;
    if (!h.ok("cudnnBackendGetAttribute (heuristics results)",
              api.cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                           CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                           int64_t(configs.size()), &got,
                                           configs.data()))) {
      rejected += "; heuristics: " + h.error;
      continue;
    }
    for (int64_t i = 0; i < got && i < int64_t(configs.size()); ++i) {
      cudnnBackendDescriptor_t cfg = configs[size_t(i)];
      cudnnBackendDescriptor_t engine = h.make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
      int64_t n = 0, index = -1;
      std::vector<cudnnBackendNumericalNote_t> notes(
          CUDNN_NUMERICAL_NOTE_TYPE_COUNT);
      std::vector<cudnnBackendBehaviorNote_t> behavior(
          CUDNN_BEHAVIOR_NOTE_TYPE_COUNT);
      int64_t noteCount = 0, behaviorCount = 0;
      if (!engine ||
          api.cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE,
                                       CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n,
                                       &engine) != CUDNN_STATUS_SUCCESS ||
          api.cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
                                       CUDNN_TYPE_NUMERICAL_NOTE,
                                       int64_t(notes.size()), &noteCount,
                                       notes.data()) != CUDNN_STATUS_SUCCESS)
        continue;
      notes.resize(size_t(std::min<int64_t>(noteCount, int64_t(notes.size()))));
      if (api.cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE,
                                       CUDNN_TYPE_BEHAVIOR_NOTE,
                                       int64_t(behavior.size()), &behaviorCount,
                                       behavior.data()) != CUDNN_STATUS_SUCCESS)
        behaviorCount = 0;
      behavior.resize(
          size_t(std::min<int64_t>(behaviorCount, int64_t(behavior.size()))));
      api.cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX,
                                   CUDNN_TYPE_INT64, 1, &n, &index);
      bool tensorCore = hasNote(notes, CUDNN_NUMERICAL_NOTE_TENSOR_CORE);
      if (hasNote(notes, CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) ||
          (fp32Data && !spec.allowTf32 && tensorCore))
        continue;
      // The configuration's engine is set: finalize a plan with it.
      cudnnBackendDescriptor_t candidate =
          h.make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
      int64_t bytes = 0;
      if (!candidate ||
          api.cudnnBackendSetAttribute(candidate, kPlanHandle,
                                       CUDNN_TYPE_HANDLE, 1,
                                       &handle) != CUDNN_STATUS_SUCCESS ||
          api.cudnnBackendSetAttribute(
              candidate, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
              CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg) != CUDNN_STATUS_SUCCESS)
        continue;
      cudnnStatus_t finalized = api.cudnnBackendFinalize(candidate);
      if (finalized != CUDNN_STATUS_SUCCESS) {
        rejected += "; engine " + std::to_string(index) + ": " +
                    describeDnn("finalize", finalized);
        continue;
      }
      if (api.cudnnBackendGetAttribute(
              candidate, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
              CUDNN_TYPE_INT64, 1, &n, &bytes) != CUDNN_STATUS_SUCCESS ||
          bytes < 0 || size_t(bytes) > maxWorkspace)
        continue;
      h.descriptors.release(candidate);
      plan = candidate;
      workspaceBytes = size_t(bytes);
      bool runtimeCompiled =
          std::find(behavior.begin(), behavior.end(),
                    CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION) != behavior.end();
      engineText = "engine " + std::to_string(index) +
                   (heurMode == CUDNN_HEUR_MODE_A ? " (heuristics A"
                                                  : " (fallback list") +
                   (tensorCore ? ", tensor cores" : "") +
                   (runtimeCompiled ? ", runtime compiled" : "") + ")";
      return true;
    }
  }
  why = "cuDNN's heuristics offer no usable engine" +
        (rejected.empty() ? std::string() : rejected);
  return false;
}

cudnnStatus_t ConvGraphPlan::execute(cudnnHandle_t handle, const void *x,
                                     const void *w, void *y, const void *bias,
                                     const void *z, void *workspace,
                                     const char *&call) {
  const DnnApi &api = dnnApi();
  std::array<const void *, 6> pointers = {x, w, y, bias, z, workspace};
  cudnnBackendDescriptor_t pack = nullptr;
  for (const Pack &p : packs)
    if (p.pointers == pointers) {
      pack = p.descriptor;
      break;
    }
  if (!pack) {
    call = "cudnnBackendCreateDescriptor (variant pack)";
    cudnnStatus_t status = api.cudnnBackendCreateDescriptor(
        CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack);
    if (status != CUDNN_STATUS_SUCCESS)
      return status;
    int64_t uids[5] = {kX, kW, kY, 0, 0};
    void *data[5] = {const_cast<void *>(x), const_cast<void *>(w), y, nullptr,
                     nullptr};
    int64_t count = 3;
    if (hasZ) {
      uids[count] = kZ;
      data[count++] = const_cast<void *>(z);
    }
    if (hasBias) {
      uids[count] = kBias;
      data[count++] = const_cast<void *>(bias);
    }
    call = "cudnnBackendSetAttribute (variant pack)";
    if ((status = api.cudnnBackendSetAttribute(
             pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, count,
             uids)) != CUDNN_STATUS_SUCCESS ||
        (status = api.cudnnBackendSetAttribute(
             pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
             count, data)) != CUDNN_STATUS_SUCCESS ||
        (status = api.cudnnBackendSetAttribute(
             pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1,
             &workspace)) != CUDNN_STATUS_SUCCESS ||
        (call = "cudnnBackendFinalize (variant pack)",
         status = api.cudnnBackendFinalize(pack)) != CUDNN_STATUS_SUCCESS) {
      api.cudnnBackendDestroyDescriptor(pack);
      return status;
    }
    if (packs.size() < kMaxPacks) {
      packs.push_back({pointers, pack});
    } else {
      Pack &old = packs[nextPack];
      api.cudnnBackendDestroyDescriptor(old.descriptor);
      old = {pointers, pack};
      nextPack = (nextPack + 1) % kMaxPacks;
    }
  }
  call = "cudnnBackendExecute";
  return api.cudnnBackendExecute(handle, plan, pack);
}

} // namespace rt
} // namespace onyx

#endif // ONYX_RUNTIME_HAS_CUDNN
