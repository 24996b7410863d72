//===- CudaBlas.cpp - GEMM through cuBLASLt -------------------------------===//
//
// onyxrt_cuda_gemm: the compiler (onyx-cuda-lower-library-calls) turns
// MatMul / Gemm / batched MatMul contractions into one call each, with the
// dynamic dims as arguments, so a dynamic-shape model never recompiles.
//
// cuBLASLt is loaded with dlopen like the driver (libcublasLt.so.13, or
// $ONYX_CUBLASLT_LIBRARY): the runtime has no link dependency on it, loads
// on machines without a GPU, and a CUDA artifact without GEMMs never needs
// it. Per session: one cuBLASLt handle, one workspace, and a plan cache
// (matmul descriptor, the three layouts and the heuristic's algorithm) keyed
// by everything the plan depends on: shapes, leading dims, batch strides,
// transposes, pointer alignment, accumulate, precision. A shape seen before
// costs one hash lookup and the cublasLtMatmul launch.
//
// Row-major to cuBLAS's column-major: C = op(A) op(B) (row-major M x N) is
// C^T = op(B)^T op(A)^T, a column-major N x M product with A and B swapped;
// the matrices are passed as they are stored, only their roles change.
//
// Algorithms: cuBLASLt's heuristic's first choice by default. With
// $ONYX_CUBLASLT_ALGO_SEARCH=timed, a plan's first use outside a CUDA-graph
// capture times the heuristic's first kAlgoCandidates algorithms on the
// call's own operands (into a temporary output; the call's C is untouched)
// and keeps the fastest, as TensorRT's tactic timing and cuDNN's exhaustive
// search do: a slower first call per shape, and results that may differ in
// the last bits between sessions (split-K algorithms sum in another order).
//
// Precision: fp32 operands with CUBLAS_COMPUTE_32F (no TF32) unless the
// artifact asked for tf32 (CUBLAS_COMPUTE_32F_FAST_TF32); fp16 and bf16
// operands (CUDA_R_16F / CUDA_R_16BF, bias of the same type) with
// CUBLAS_COMPUTE_32F: tensor cores, fp32 accumulation, fp32 alpha/beta.
// $ONYX_CUBLASLT_F32_MATH=bf16x9 (experimental) asks cuBLAS for its fp32
// emulation on bf16 tensor cores instead of CUBLAS_COMPUTE_32F.
// With $ONYX_CUDA_GEMM_F32=tf32x3 (experimental), fp32 GEMMs without TF32
// run on Onyx's own 3xTF32 tensor-core kernels on an H100 / H200
// (CudaGemm.cpp) where the layout suits them.
//
//===----------------------------------------------------------------------===//
#include "CudaDevice.h"
#include "CudaGemm.h"

#include <cublasLt.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <unordered_map>

namespace onyx {
namespace rt {
namespace {

struct BlasApi {
  std::string loadError;
#define ONYX_LT_FN(name) decltype(&::name) name = nullptr;
  ONYX_LT_FN(cublasLtCreate)
  ONYX_LT_FN(cublasLtDestroy)
  ONYX_LT_FN(cublasLtGetVersion)
  ONYX_LT_FN(cublasLtGetStatusName)
  ONYX_LT_FN(cublasLtGetStatusString)
  ONYX_LT_FN(cublasLtMatmulDescCreate)
  ONYX_LT_FN(cublasLtMatmulDescDestroy)
  ONYX_LT_FN(cublasLtMatmulDescSetAttribute)
  ONYX_LT_FN(cublasLtMatrixLayoutCreate)
  ONYX_LT_FN(cublasLtMatrixLayoutDestroy)
  ONYX_LT_FN(cublasLtMatrixLayoutSetAttribute)
  ONYX_LT_FN(cublasLtMatmulPreferenceCreate)
  ONYX_LT_FN(cublasLtMatmulPreferenceDestroy)
  ONYX_LT_FN(cublasLtMatmulPreferenceSetAttribute)
  ONYX_LT_FN(cublasLtMatmulAlgoGetHeuristic)
  ONYX_LT_FN(cublasLtMatmul)
#undef ONYX_LT_FN
};

BlasApi loadBlas() {
  BlasApi api;
  void *handle = openCudaLibrary("cuBLASLt", "ONYX_CUBLASLT_LIBRARY",
                                 {"libcublasLt.so.13",
                                  "/usr/local/cuda/lib64/libcublasLt.so.13",
                                  "libcublasLt.so.12"},
                                 api.loadError);
  if (!handle)
    return api;
  auto load = [&](auto &fn, const char *symbol) {
    loadCudaSymbol(handle, "cuBLASLt", fn, symbol, api.loadError);
  };
#define ONYX_LT_LOAD(name) load(api.name, #name);
  ONYX_LT_LOAD(cublasLtCreate)
  ONYX_LT_LOAD(cublasLtDestroy)
  ONYX_LT_LOAD(cublasLtGetVersion)
  ONYX_LT_LOAD(cublasLtGetStatusName)
  ONYX_LT_LOAD(cublasLtGetStatusString)
  ONYX_LT_LOAD(cublasLtMatmulDescCreate)
  ONYX_LT_LOAD(cublasLtMatmulDescDestroy)
  ONYX_LT_LOAD(cublasLtMatmulDescSetAttribute)
  ONYX_LT_LOAD(cublasLtMatrixLayoutCreate)
  ONYX_LT_LOAD(cublasLtMatrixLayoutDestroy)
  ONYX_LT_LOAD(cublasLtMatrixLayoutSetAttribute)
  ONYX_LT_LOAD(cublasLtMatmulPreferenceCreate)
  ONYX_LT_LOAD(cublasLtMatmulPreferenceDestroy)
  ONYX_LT_LOAD(cublasLtMatmulPreferenceSetAttribute)
  ONYX_LT_LOAD(cublasLtMatmulAlgoGetHeuristic)
  ONYX_LT_LOAD(cublasLtMatmul)
#undef ONYX_LT_LOAD
  // Kept open for the life of the process, like the driver.
  return api;
}

const BlasApi &blasApi() {
  static const BlasApi api = loadBlas();
  return api;
}

std::string describeBlas(const char *call, cublasStatus_t status) {
  const BlasApi &api = blasApi();
  std::string message = std::string(call) + " failed: ";
  const char *name =
      api.cublasLtGetStatusName ? api.cublasLtGetStatusName(status) : nullptr;
  message += name ? name : ("cuBLAS status " + std::to_string(int(status)));
  if (const char *text = api.cublasLtGetStatusString
                             ? api.cublasLtGetStatusString(status)
                             : nullptr)
    message += std::string(" (") + text + ")";
  return message;
}

/// Everything a plan depends on.
struct PlanKey {
  int64_t v[18];
  bool operator==(const PlanKey &o) const {
    return std::memcmp(v, o.v, sizeof(v)) == 0;
  }
};
struct PlanKeyHash {
  size_t operator()(const PlanKey &k) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t x : k.v)
      h = (h ^ uint64_t(x)) * 1099511628211ull;
    return size_t(h);
  }
};

struct Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo;
  size_t workspace = 0;
};

/// 32 MiB: what cuBLAS recommends for Hopper.
constexpr size_t kWorkspaceBytes = size_t(32) << 20;

/// Algorithms a timed search tries (the heuristic's first ones).
constexpr int kAlgoCandidates = 16;

/// $ONYX_CUBLASLT_ALGO_SEARCH: `heuristic` (default, or unset) or `timed`;
/// read once per process. Anything else is reported by the first GEMM.
enum class AlgoSearch { Heuristic, Timed, Invalid };
constexpr std::initializer_list<const char *> kAlgoSearchValues = {"heuristic",
                                                                   "timed"};
AlgoSearch algoSearch() {
  static const int mode =
      envChoice("ONYX_CUBLASLT_ALGO_SEARCH", kAlgoSearchValues);
  return mode < 0 ? AlgoSearch::Invalid : AlgoSearch(mode);
}

/// $ONYX_CUBLASLT_F32_MATH (experimental, for A/B runs): `ieee` (default,
/// or unset: CUBLAS_COMPUTE_32F) or `bf16x9`
/// (CUBLAS_COMPUTE_32F_EMULATED_16BFX9: cuBLAS's fp32 emulation on bf16 tensor
/// cores, three bf16 parts per operand, used where cuBLAS's default strategy
/// finds it faster). Applies to f32 GEMMs that did not ask for TF32; read once
/// per process, anything else is reported by the first GEMM.
enum class F32Math { Ieee, Bf16x9, Invalid };
constexpr std::initializer_list<const char *> kF32MathValues = {"ieee",
                                                                "bf16x9"};
F32Math f32Math() {
  static const int mode = envChoice("ONYX_CUBLASLT_F32_MATH", kF32MathValues);
  return mode < 0 ? F32Math::Invalid : F32Math(mode);
}

struct BlasState final : LibraryState {
  cublasLtHandle_t handle = nullptr;
  void *workspace = nullptr;
  /// Where a fused output that overlaps an operand is computed first.
  ScratchBuffer scratch;
  CudaDevice *device = nullptr;
  std::unordered_map<PlanKey, Plan, PlanKeyHash> plans;
  ~BlasState() override {
    const BlasApi &api = blasApi();
    for (auto &entry : plans) {
      Plan &p = entry.second;
      if (p.a)
        api.cublasLtMatrixLayoutDestroy(p.a);
      if (p.b)
        api.cublasLtMatrixLayoutDestroy(p.b);
      if (p.c)
        api.cublasLtMatrixLayoutDestroy(p.c);
      if (p.desc)
        api.cublasLtMatmulDescDestroy(p.desc);
    }
    if (handle)
      api.cublasLtDestroy(handle);
    if (workspace && device)
      device->release(workspace);
    scratch.release(device);
  }
};

BlasState *blasState(CudaDevice &device, std::string &error) {
  if (device.blas)
    return static_cast<BlasState *>(device.blas.get());
  const BlasApi &api = blasApi();
  if (!api.loadError.empty()) {
    error = api.loadError;
    return nullptr;
  }
  auto state = std::make_unique<BlasState>();
  cublasStatus_t status = api.cublasLtCreate(&state->handle);
  if (status != CUBLAS_STATUS_SUCCESS) {
    state->handle = nullptr;
    error = describeBlas("cublasLtCreate", status);
    return nullptr;
  }
  state->device = &device;
  if (!(state->workspace = device.allocate(kWorkspaceBytes, error)))
    return nullptr;
  device.blas = std::move(state);
  return static_cast<BlasState *>(device.blas.get());
}

/// The largest power of two (<= 256) dividing the address and the batch
/// stride in bytes: what the plan's algorithms may assume.
uint32_t alignmentOf(const void *ptr, int64_t strideBytes, int64_t batch) {
  uint64_t bits = uint64_t(reinterpret_cast<uintptr_t>(ptr)) | 256;
  if (batch > 1 && strideBytes)
    bits |= uint64_t(strideBytes);
  return uint32_t(bits & (~bits + 1));
}

bool layout(const BlasApi &api, cublasLtMatrixLayout_t &out,
            cudaDataType_t type, uint64_t rows, uint64_t cols, int64_t ld,
            int32_t batch, int64_t stride, std::string &error) {
  cublasStatus_t status =
      api.cublasLtMatrixLayoutCreate(&out, type, rows, cols, ld);
  if (status != CUBLAS_STATUS_SUCCESS) {
    out = nullptr;
    error = describeBlas("cublasLtMatrixLayoutCreate", status);
    return false;
  }
  if (batch > 1) {
    status = api.cublasLtMatrixLayoutSetAttribute(
        out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof(batch));
    if (status == CUBLAS_STATUS_SUCCESS)
      status = api.cublasLtMatrixLayoutSetAttribute(
          out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
          sizeof(stride));
    if (status != CUBLAS_STATUS_SUCCESS) {
      error = describeBlas("cublasLtMatrixLayoutSetAttribute", status);
      return false;
    }
  }
  return true;
}

const OnyxCudaKernel kGemmProfileKey = {nullptr, 0, nullptr, "cublasLt_matmul"};

/// The timed search: which of the `count` heuristic results runs `plan`
/// fastest on the call's operands `a`, `b` (each launched kRounds x kReps
/// times into a temporary output of `cBytes`, the best round's mean kept).
/// Anything that fails (the temporary's allocation, an event, a launch)
/// leaves the heuristic's first choice (0); an algorithm that fails to
/// launch is skipped. Synchronizes the stream.
int fastestAlgo(CudaDevice &device, BlasState &state, const Plan &plan,
                const cublasLtMatmulHeuristicResult_t *results, int count,
                size_t cBytes, const void *a, const void *b, const float *alpha,
                const float *beta) {
  constexpr int kRounds = 2, kReps = 4;
  const BlasApi &api = blasApi();
  const DriverApi &drv = driver();
  std::string ignored;
  void *out = device.allocate(cBytes, ignored);
  if (!out)
    return 0;
  CUevent start = nullptr, end = nullptr;
  if (drv.cuEventCreate(&start, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
    start = nullptr;
  if (start && drv.cuEventCreate(&end, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
    end = nullptr;
  CUstream stream = device.cudaStream();
  auto launch = [&](int i) {
    return api.cublasLtMatmul(
               state.handle, plan.desc, alpha, b, plan.a, a, plan.b, beta, out,
               plan.c, out, plan.c, &results[i].algo, state.workspace,
               results[i].workspaceSize, stream) == CUBLAS_STATUS_SUCCESS;
  };
  int best = 0;
  float bestMs = -1;
  std::vector<bool> usable(size_t(count), true);
  for (int round = 0; start && end && round < kRounds; ++round) {
    for (int i = 0; i < count; ++i) {
      if (!usable[size_t(i)] || results[i].state != CUBLAS_STATUS_SUCCESS ||
          !launch(i)) { // (a warm-up launch)
        usable[size_t(i)] = false;
        continue;
      }
      bool ok = drv.cuEventRecord(start, stream) == CUDA_SUCCESS;
      for (int r = 0; ok && r < kReps; ++r)
        ok = launch(i);
      float ms = 0;
      ok = ok && drv.cuEventRecord(end, stream) == CUDA_SUCCESS &&
           drv.cuStreamSynchronize(stream) == CUDA_SUCCESS &&
           drv.cuEventElapsedTime(&ms, start, end) == CUDA_SUCCESS;
      if (!ok) {
        usable[size_t(i)] = false;
        continue;
      }
      if (bestMs < 0 || ms < bestMs) {
        bestMs = ms;
        best = i;
      }
    }
  }
  drv.cuStreamSynchronize(stream);
  if (end)
    drv.cuEventDestroy(end);
  if (start)
    drv.cuEventDestroy(start);
  device.release(out);
  return best;
}

/// The GEMM itself; `error` is prefixed with the label by the caller.
bool gemm(CudaDevice &device, int32_t elemType, int32_t flags, int64_t batch,
          int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
          int64_t strideA, const void *b, int64_t ldb, int64_t strideB, void *c,
          int64_t ldc, int64_t strideC, const void *bias, const char *label,
          std::string &error) {
  cudaDataType_t dataType;
  int64_t esize;
  if (elemType == ONYX_F32) {
    dataType = CUDA_R_32F;
    esize = 4;
  } else if (elemType == ONYX_F16) {
    dataType = CUDA_R_16F;
    esize = 2;
  } else if (elemType == ONYX_BF16) {
    dataType = CUDA_R_16BF;
    esize = 2;
  } else {
    error = std::string("element type ") + onyx_element_name(elemType) +
            " is not supported by onyxrt_cuda_gemm (f32, f16 and bf16 only)";
    return false;
  }
  bool transA = flags & ONYXRT_GEMM_TRANS_A;
  bool transB = flags & ONYXRT_GEMM_TRANS_B;
  bool accumulate = flags & ONYXRT_GEMM_ACCUMULATE;
  bool tf32 = flags & ONYXRT_GEMM_TF32;
  bool gelu = flags & ONYXRT_GEMM_GELU_TANH;
  if (algoSearch() == AlgoSearch::Invalid) {
    error = envChoiceError("ONYX_CUBLASLT_ALGO_SEARCH", kAlgoSearchValues);
    return false;
  }
  if (f32Math() == F32Math::Invalid) {
    error = envChoiceError("ONYX_CUBLASLT_F32_MATH", kF32MathValues);
    return false;
  }
  if (flags &
      ~(ONYXRT_GEMM_TRANS_A | ONYXRT_GEMM_TRANS_B | ONYXRT_GEMM_ACCUMULATE |
        ONYXRT_GEMM_TF32 | ONYXRT_GEMM_GELU_TANH)) {
    error = "unknown onyxrt_cuda_gemm flags " + std::to_string(flags);
    return false;
  }
  if (gelu && !bias) {
    error = "ONYXRT_GEMM_GELU_TANH needs a bias";
    return false;
  }
  if (tf32 && elemType != ONYX_F32) {
    error = "ONYXRT_GEMM_TF32 applies to f32 GEMMs only";
    return false;
  }
  if (batch < 0 || m < 0 || n < 0 || k < 0 || batch > INT32_MAX) {
    error = "invalid GEMM sizes";
    return false;
  }
  if (bias && batch != 1) {
    error = "a GEMM bias needs batch 1";
    return false;
  }
  if (batch == 0 || m == 0 || n == 0)
    return true;
  if (elemType == ONYX_F32 && !tf32 && !transA && k > 0 &&
      f32Math() == F32Math::Ieee) {
    // Exact fp32 on the tensor cores where the device and layout allow.
    switch (gemmF32x3(device, transB, accumulate, gelu, batch, m, n, k, a, lda,
                      strideA, b, ldb, strideB, c, ldc, strideC, bias, label,
                      error)) {
    case F32x3Result::Done:
      return true;
    case F32x3Result::Failed:
      return false;
    case F32x3Result::NotApplicable:
      break;
    }
  }
  const DriverApi &drv = driver();
  if (k == 0 && !bias) {
    if (accumulate)
      return true;
    // C = 0: rows of ldc elements, the last one n wide (zero bits are
    // +0.0 in every float type).
    for (int64_t i = 0; i < batch; ++i) {
      CUdeviceptr base =
          reinterpret_cast<CUdeviceptr>(c) + CUdeviceptr(i * strideC * esize);
      size_t count = size_t((m - 1) * ldc + n);
      CUresult r =
          esize == 4
              ? drv.cuMemsetD32Async(base, 0, count, device.cudaStream())
              : drv.cuMemsetD16Async(base, 0, count, device.cudaStream());
      if (r != CUDA_SUCCESS) {
        error = describe("cuMemsetAsync", r);
        return false;
      }
    }
    return true;
  }
  BlasState *state = blasState(device, error);
  if (!state)
    return false;
  const BlasApi &api = blasApi();
  uint32_t alignA = alignmentOf(a, strideA * esize, batch);
  uint32_t alignB = alignmentOf(b, strideB * esize, batch);
  uint32_t alignC = alignmentOf(c, strideC * esize, batch);
  PlanKey key = {{elemType, flags & ~ONYXRT_GEMM_ACCUMULATE, batch, m, n, k,
                  lda, ldb, ldc, batch > 1 ? strideA : 0,
                  batch > 1 ? strideB : 0, batch > 1 ? strideC : 0, alignA,
                  alignB, alignC, bias != nullptr, 0, 0}};
  auto found = state->plans.find(key);
  if (found == state->plans.end()) {
    Plan plan;
    auto fail = [&](const char *call, cublasStatus_t status) {
      error = describeBlas(call, status);
      if (plan.a)
        api.cublasLtMatrixLayoutDestroy(plan.a);
      if (plan.b)
        api.cublasLtMatrixLayoutDestroy(plan.b);
      if (plan.c)
        api.cublasLtMatrixLayoutDestroy(plan.c);
      if (plan.desc)
        api.cublasLtMatmulDescDestroy(plan.desc);
      return false;
    };
    cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    if (tf32)
      compute = CUBLAS_COMPUTE_32F_FAST_TF32;
    else if (elemType == ONYX_F32 && f32Math() == F32Math::Bf16x9)
      compute = CUBLAS_COMPUTE_32F_EMULATED_16BFX9;
    cublasStatus_t status = api.cublasLtMatmulDescCreate(
        &plan.desc, compute,
        CUDA_R_32F /* alpha, beta: fp32 for every element type */);
    if (status != CUBLAS_STATUS_SUCCESS) {
      plan.desc = nullptr;
      return fail("cublasLtMatmulDescCreate", status);
    }
    // Column-major: C^T (n x m) = op(B)^T (n x k) * op(A)^T (k x m); cuBLAS's
    // "A" is our B, its "B" our A, each passed as stored.
    cublasOperation_t opA = transB ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t opB = transA ? CUBLAS_OP_T : CUBLAS_OP_N;
    status = api.cublasLtMatmulDescSetAttribute(
        plan.desc, CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof(opA));
    if (status == CUBLAS_STATUS_SUCCESS)
      status = api.cublasLtMatmulDescSetAttribute(
          plan.desc, CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof(opB));
    if (status == CUBLAS_STATUS_SUCCESS && bias) {
      // D = A * B + bias, the bias along D's rows (column-major: our n);
      // with GELU_TANH, D = gelu(A * B + bias) (cuBLASLt's GELU is the tanh
      // approximation).
      cublasLtEpilogue_t epilogue =
          gelu ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
      status = api.cublasLtMatmulDescSetAttribute(plan.desc,
                                                  CUBLASLT_MATMUL_DESC_EPILOGUE,
                                                  &epilogue, sizeof(epilogue));
    }
    if (status != CUBLAS_STATUS_SUCCESS)
      return fail("cublasLtMatmulDescSetAttribute", status);
    int32_t b32 = int32_t(batch);
    std::string layoutError;
    if (!layout(api, plan.a, dataType, transB ? k : n, transB ? n : k, ldb, b32,
                strideB, layoutError) ||
        !layout(api, plan.b, dataType, transA ? m : k, transA ? k : m, lda, b32,
                strideA, layoutError) ||
        !layout(api, plan.c, dataType, n, m, ldc, b32, strideC, layoutError)) {
      fail("cublasLtMatrixLayoutCreate", CUBLAS_STATUS_SUCCESS);
      error = layoutError;
      return false;
    }
    cublasLtMatmulPreference_t pref = nullptr;
    status = api.cublasLtMatmulPreferenceCreate(&pref);
    if (status != CUBLAS_STATUS_SUCCESS)
      return fail("cublasLtMatmulPreferenceCreate", status);
    uint64_t maxWorkspace = kWorkspaceBytes;
    api.cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &maxWorkspace,
        sizeof(maxWorkspace));
    // Swapped roles: cuBLAS's A is our B.
    api.cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &alignB,
        sizeof(alignB));
    api.cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &alignA,
        sizeof(alignA));
    api.cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &alignC,
        sizeof(alignC));
    api.cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &alignC,
        sizeof(alignC));
    // A timed search needs host synchronization: not while recording.
    bool timed = algoSearch() == AlgoSearch::Timed && !device.isCapturing();
    cublasLtMatmulHeuristicResult_t results[kAlgoCandidates];
    std::memset(results, 0, sizeof(results));
    int count = 0;
    status = api.cublasLtMatmulAlgoGetHeuristic(
        state->handle, plan.desc, plan.a, plan.b, plan.c, plan.c, pref,
        timed ? kAlgoCandidates : 1, results, &count);
    api.cublasLtMatmulPreferenceDestroy(pref);
    if (status != CUBLAS_STATUS_SUCCESS)
      return fail("cublasLtMatmulAlgoGetHeuristic", status);
    if (count == 0 || results[0].state != CUBLAS_STATUS_SUCCESS) {
      fail("cublasLtMatmulAlgoGetHeuristic", CUBLAS_STATUS_NOT_SUPPORTED);
      error = "cuBLASLt has no algorithm for this GEMM (batch " +
              std::to_string(batch) + ", m " + std::to_string(m) + ", n " +
              std::to_string(n) + ", k " + std::to_string(k) + ")";
      return false;
    }
    int chosen = 0;
    if (timed && count > 1) {
      // The bias pointer is part of the descriptor (set per call below).
      if (bias && api.cublasLtMatmulDescSetAttribute(
                      plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                      sizeof(bias)) != CUBLAS_STATUS_SUCCESS)
        count = 1;
      int64_t extent = (batch - 1) * strideC + (m - 1) * ldc + n;
      float alpha = 1.0f, beta = accumulate ? 1.0f : 0.0f;
      chosen = fastestAlgo(device, *state, plan, results, count,
                           size_t(extent) * size_t(esize), a, b, &alpha, &beta);
    }
    plan.algo = results[chosen].algo;
    plan.workspace = results[chosen].workspaceSize;
    found = state->plans.emplace(key, plan).first;
  }
  const Plan &plan = found->second;
  if (bias) {
    // The plan is shared by every call of this shape; the pointer is this
    // call's (read when the GEMM is enqueued).
    cublasStatus_t status = api.cublasLtMatmulDescSetAttribute(
        plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias));
    if (status != CUBLAS_STATUS_SUCCESS) {
      error = describeBlas("cublasLtMatmulDescSetAttribute", status);
      return false;
    }
  }
  // The compiler may fuse the bias Add whose output buffer the memory plan
  // placed over A or B (dead after the GEMM in the unfused program): then
  // the product goes to a scratch buffer first.
  void *finalC = nullptr;
  size_t cBytes = size_t((m - 1) * ldc + n) * size_t(esize);
  if (bias) {
    auto overlaps = [&](const void *p, size_t bytes) {
      uintptr_t x = reinterpret_cast<uintptr_t>(p),
                y = reinterpret_cast<uintptr_t>(c);
      return x < y + cBytes && y < x + bytes;
    };
    size_t aBytes =
        size_t(transA ? (k - 1) * lda + m : (m - 1) * lda + k) * size_t(esize);
    size_t bBytes =
        size_t(transB ? (n - 1) * ldb + k : (k - 1) * ldb + n) * size_t(esize);
    if (overlaps(a, aBytes) || overlaps(b, bBytes)) {
      if (!state->scratch.reserve(device, cBytes, error))
        return false;
      finalC = c;
      c = state->scratch.data;
      // Accumulating: the scratch starts as C.
      if (accumulate) {
        CUresult r = drv.cuMemcpyDtoDAsync(
            reinterpret_cast<CUdeviceptr>(c),
            reinterpret_cast<CUdeviceptr>(finalC), cBytes, device.cudaStream());
        if (r != CUDA_SUCCESS) {
          error = describe("cuMemcpyDtoDAsync", r);
          return false;
        }
      }
    }
  }
  float alpha = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  CUevent start = nullptr;
  device.profileBegin(start);
  cublasStatus_t status =
      api.cublasLtMatmul(state->handle, plan.desc, &alpha, b, plan.a, a, plan.b,
                         &beta, c, plan.c, c, plan.c, &plan.algo,
                         state->workspace, plan.workspace, device.cudaStream());
  device.profileEnd(start, &kGemmProfileKey, label, {batch, m, n, k});
  if (status != CUBLAS_STATUS_SUCCESS) {
    error = describeBlas("cublasLtMatmul", status);
    return false;
  }
  if (finalC) {
    CUresult r = drv.cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(finalC),
                                       reinterpret_cast<CUdeviceptr>(c), cBytes,
                                       device.cudaStream());
    if (r != CUDA_SUCCESS) {
      error = describe("cuMemcpyDtoDAsync", r);
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

ONYX_API int32_t onyxrt_cuda_gemm(void *ctx, const char *label,
                                  int32_t elemType, int32_t flags,
                                  int64_t batch, int64_t m, int64_t n,
                                  int64_t k, const void *a, int64_t lda,
                                  int64_t strideA, const void *b, int64_t ldb,
                                  int64_t strideB, void *c, int64_t ldc,
                                  int64_t strideC, const void *bias) {
  CudaDevice *device = cudaDeviceOf(ctx);
  std::string where = std::string(label ? label : "gemm") + ": ";
  try {
    if (!device) {
      failCall(ctx, where + "onyxrt_cuda_gemm: the session has no CUDA device");
      return 1;
    }
    std::string error;
    if (!gemm(*device, elemType, flags, batch, m, n, k, a, lda, strideA, b, ldb,
              strideB, c, ldc, strideC, bias, label, error)) {
      failCall(ctx, where + error);
      return 1;
    }
    return 0;
  } catch (...) {
    failCall(ctx, where + "out of memory in onyxrt_cuda_gemm");
    return 1;
  }
}

} // extern "C"
