//===- CudaDevice.h - The CUDA device, shared by the CUDA services -*- C++
//-*-===//
//
// Internal to runtime/src/cuda: the driver API table (dlopen'ed libcuda),
// the CudaDevice class, and the hooks the library services (cuBLASLt in
// CudaBlas.cpp, cuDNN in CudaDnn.cpp) use: the session's stream, its
// allocator and a slot for per-session library state.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_CUDA_CUDADEVICE_H
#define ONYX_RUNTIME_CUDA_CUDADEVICE_H

#include "../Device.h"
#include "../Internal.h"

#include <cuda.h>

#include <cstdint>
#include <cstring>

#include <initializer_list>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace onyx {
namespace rt {

/// A kernel argument as one of CudaDevice::launch's 8-byte slots (the
/// runtime's own kernels: attention, LayerNorm).
inline uint64_t launchSlot(int64_t v) { return uint64_t(v); }
inline uint64_t launchSlot(const void *p) {
  return uint64_t(reinterpret_cast<uintptr_t>(p));
}
inline uint64_t launchSlot(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return bits;
}

/// dlsym, kept out of this header's includes.
void *dlsymForCuda(void *handle, const char *symbol);

/// A library the CUDA services load at run time (dlopen, no link
/// dependency): the first of `candidates` that opens, after the file named
/// by the environment variable `envVar` when it is set. Returns the handle,
/// or null with `error` saying what was tried and how to point at the
/// library.
void *openCudaLibrary(const char *what, const char *envVar,
                      std::initializer_list<const char *> candidates,
                      std::string &error);

/// Resolves `symbol` from `handle` into `fn`; on failure (or when `error`
/// is already set) leaves `fn` alone and sets `error` once.
template <typename Fn>
void loadCudaSymbol(void *handle, const char *what, Fn &fn, const char *symbol,
                    std::string &error) {
  if (!error.empty())
    return;
  void *address = dlsymForCuda(handle, symbol);
  if (!address) {
    error = std::string(what) + " lacks " + symbol;
    return;
  }
  fn = reinterpret_cast<Fn>(address);
}

/// The driver entry points this runtime uses, resolved by name. The names
/// are the versioned symbols libcuda exports (cuda.h maps cuMemAlloc to
/// cuMemAlloc_v2, ...); the types come from cuda.h.
struct DriverApi {
  std::string loadError; ///< empty when every symbol was found
#define ONYX_CU_FN(name) decltype(&::name) name = nullptr;
  ONYX_CU_FN(cuInit)
  ONYX_CU_FN(cuDriverGetVersion)
  ONYX_CU_FN(cuDeviceGetCount)
  ONYX_CU_FN(cuDeviceGet)
  ONYX_CU_FN(cuDeviceGetName)
  ONYX_CU_FN(cuDeviceGetAttribute)
  ONYX_CU_FN(cuDevicePrimaryCtxRetain)
  ONYX_CU_FN(cuCtxSetCurrent)
  ONYX_CU_FN(cuStreamCreate)
  ONYX_CU_FN(cuStreamDestroy)
  ONYX_CU_FN(cuStreamSynchronize)
  ONYX_CU_FN(cuMemAlloc)
  ONYX_CU_FN(cuMemFree)
  ONYX_CU_FN(cuMemAllocHost)
  ONYX_CU_FN(cuMemFreeHost)
  ONYX_CU_FN(cuMemcpyHtoDAsync)
  ONYX_CU_FN(cuMemcpyDtoHAsync)
  ONYX_CU_FN(cuMemsetD32Async)
  ONYX_CU_FN(cuMemsetD16Async)
  ONYX_CU_FN(cuMemcpyDtoDAsync)
  ONYX_CU_FN(cuModuleLoadData)
  ONYX_CU_FN(cuModuleLoadDataEx)
  ONYX_CU_FN(cuModuleUnload)
  ONYX_CU_FN(cuModuleGetFunction)
  ONYX_CU_FN(cuFuncSetAttribute)
  ONYX_CU_FN(cuLaunchKernel)
  ONYX_CU_FN(cuEventCreate)
  ONYX_CU_FN(cuEventRecord)
  ONYX_CU_FN(cuEventElapsedTime)
  ONYX_CU_FN(cuEventDestroy)
  ONYX_CU_FN(cuGetErrorName)
  ONYX_CU_FN(cuGetErrorString)
  // Graphs (optional: a driver without them leaves them NULL and sessions
  // run without graphs).
  ONYX_CU_FN(cuStreamBeginCapture)
  ONYX_CU_FN(cuStreamEndCapture)
  ONYX_CU_FN(cuThreadExchangeStreamCaptureMode)
  ONYX_CU_FN(cuGraphInstantiate)
  ONYX_CU_FN(cuGraphLaunch)
  ONYX_CU_FN(cuGraphExecDestroy)
  ONYX_CU_FN(cuGraphDestroy)
  ONYX_CU_FN(cuGraphGetNodes)
#undef ONYX_CU_FN
};

const DriverApi &driver();
/// "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
std::string describe(const char *call, CUresult result);
bool envFlag(const char *name);
/// A setting with fixed values: the index of $`name` in `values` (0, the
/// default, also when unset or empty), or -1 for any other value.
int envChoice(const char *name, std::initializer_list<const char *> values);
/// "NAME='value': expected 'a', 'b' or 'c'", for envChoice's -1.
std::string envChoiceError(const char *name,
                           std::initializer_list<const char *> values);

/// Per-session state of a library (handles, workspaces, plan caches).
struct LibraryState {
  virtual ~LibraryState() = default;
};

class CudaDevice final : public Device {
public:
  static std::unique_ptr<Device> create(const DeviceOptions &options,
                                        std::string &error);
  ~CudaDevice() override;

  const char *name() const override { return "cuda"; }
  bool beginCall(std::string &error) override;
  void *allocate(size_t bytes, std::string &error) override;
  void release(void *ptr) override;
  bool upload(void *deviceDst, const void *hostSrc, size_t bytes,
              std::string &error) override;
  bool download(void *hostDst, const void *deviceSrc, size_t bytes,
                std::string &error) override;
  bool copy(void *deviceDst, const void *deviceSrc, size_t bytes,
            std::string &error) override;
  bool synchronize(std::string &error) override;

  /// CUDA graphs (docs/runtime.md, "CUDA graphs"): stream capture in
  /// thread-local mode; allocations while capturing switch the thread to
  /// relaxed mode around cuMemAlloc.
  std::string graphsUnavailable() const override;
  bool beginCapture(std::string &error) override;
  std::unique_ptr<DeviceGraph> endCapture(bool keep,
                                          const std::vector<void *> &adopt,
                                          const std::vector<void *> &transient,
                                          std::string &error) override;
  int launchGraph(DeviceGraph &graph, std::string &error) override;
  uint64_t graphEpoch() const override { return epoch; }
  /// Between beginCapture and endCapture (what runs is recorded, not run).
  bool isCapturing() const { return capturing; }
  /// Frees a buffer a graph owned (the graph is being destroyed).
  void releaseGraphOwned(void *ptr);

  /// Readbacks through pinned staging: `stageReadback` queues an async copy
  /// of device memory into the staging buffer, `finishReadbacks` waits for
  /// the stream once and copies each staged readback to its destination.
  bool stageReadback(void *hostDst, const void *deviceSrc, size_t bytes,
                     std::string &error);
  bool finishReadbacks(std::string &error);

  /// `sharedBytes`: the launch's dynamic shared memory (the runtime's own
  /// kernels; over 48 KiB raises the function's limit first).
  bool launch(const OnyxCudaKernel *kernel, const char *label,
              const int64_t grid[3], const int64_t block[3], int64_t numArgs,
              const uint64_t *args, std::string &error,
              uint32_t sharedBytes = 0);
  /// The device's compute capability as 10 major + minor (90: H100 /
  /// H200) and its multiprocessor count; 0 if the driver does not say.
  int computeCapability();
  int multiprocessors();

  /// The session's stream: library calls (cuBLASLt, cuDNN) run on it too.
  CUstream cudaStream() const { return stream; }
  /// The device copy of host constant data (an embedded constant, an
  /// external weight), uploaded on first use and kept for the session: the
  /// host memory is immutable and outlives the session. NULL with `error`
  /// set on failure.
  void *constant(const void *host, size_t bytes, std::string &error);
  /// Per-session state of the libraries (CudaBlas.cpp, CudaDnn.cpp), torn
  /// down before the stream.
  std::unique_ptr<LibraryState> blas, dnn, attention;
  /// Marks library calls in the ONYX_CUDA_PROFILE output: events around
  /// the call, reported under `name` (one line per distinct name).
  bool profiling() const { return !profilePath.empty() || profiler; }
  void profileBegin(CUevent &start);
  /// `dims`: the call's problem dims for the trace (m, n, k; conv dims).
  void profileEnd(CUevent start, const OnyxCudaKernel *key, const char *label,
                  std::vector<int64_t> dims = {});
  void flushProfile() override;
  /// onyxrt_cuda_profile_shapes: the buffer shapes (a profile shapes
  /// table) of the next launch, for its trace event.
  void setLaunchShapes(const int64_t *table);

private:
  CudaDevice() = default;
  CUfunction function(const OnyxCudaKernel *kernel, std::string &error);

  const DriverApi &api = driver();
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  /// The caller's stream (OnyxSessionOptions.cudaStream): not destroyed.
  bool borrowedStream = false;
  bool forcePTX = envFlag("ONYX_CUDA_FORCE_PTX");
  bool syncEachLaunch = envFlag("ONYX_CUDA_SYNC");
  /// ONYX_CUDA_PROFILE: events around each launch, resolved at the next
  /// synchronize, totals per kernel written when the session ends.
  std::string profilePath =
      std::getenv("ONYX_CUDA_PROFILE") ? std::getenv("ONYX_CUDA_PROFILE") : "";
  struct Pending {
    const OnyxCudaKernel *kernel;
    std::string label;
    CUevent start, end;
    /// For the session's trace: grid and block of a launch (6 values) or a
    /// library call's dims.
    std::vector<int64_t> dims;
    bool library = false;
    /// The trace's "shapes" (JSON): a launch's buffers (--profile), a
    /// library call's operands.
    std::string shapes;
  };
  /// Shapes for the next launch (setLaunchShapes), JSON; empty if none.
  std::string nextLaunchShapes;
  /// The session's trace: an event recorded when a call starts and the
  /// trace's clock then, so device times map onto the host timeline.
  CUevent callStart = nullptr;
  double callStartUs = 0;
  std::vector<Pending> pending;
  struct Totals {
    std::string name, label;
    uint64_t launches = 0;
    double ms = 0;
  };
  std::unordered_map<const OnyxCudaKernel *, Totals> profile;
  void resolveProfile();
  void writeProfile();
  /// Loaded modules by image address, and kernels by descriptor.
  std::unordered_map<const void *, CUmodule> modules;
  std::unordered_map<const OnyxCudaKernel *, CUfunction> functions;
  /// The dynamic shared-memory limit set on each function (launch).
  std::unordered_map<CUfunction, uint32_t> sharedLimits;
  int capability = -1, smCount = -1; ///< -1: not asked yet
  /// Session constants by host address: device pointer and size.
  std::unordered_map<const void *, std::pair<CUdeviceptr, size_t>> constants;
  /// Pinned host memory readbacks land in (cuMemAllocHost), and the
  /// readbacks queued since the last wait: destination, offset, size.
  char *staging = nullptr;
  size_t stagingBytes = 0, stagingUsed = 0;
  struct StagedReadback {
    void *hostDst;
    size_t offset, bytes;
    const void *deviceSrc;
  };
  std::vector<StagedReadback> staged;

  /// Graphs: every live allocation of the session (size, and whether a
  /// graph reads it), the buffers graphs own (release() leaves them
  /// alone), and while capturing: what was allocated, what was released
  /// (kept for the graph), and why the capture broke ("" if it did not).
  struct LiveAllocation {
    size_t bytes;
    bool readByGraph;
  };
  std::unordered_map<void *, LiveAllocation> live;
  std::unordered_map<void *, size_t> graphOwned;
  /// `capturing`: between beginCapture and endCapture; `segmentOpen`: the
  /// stream is recording (not between a readback and its wait).
  bool capturing = false, segmentOpen = false;
  std::vector<void *> captureAllocated, captureReleased;
  /// The parts recorded so far, each with the readbacks that follow it.
  struct Readback {
    const void *deviceSrc;
    std::vector<char> value;
  };
  struct Segment {
    CUgraphExec exec = nullptr;
    size_t nodes = 0;
    std::vector<Readback> readbacks;
  };
  std::vector<Segment> segments;
  /// Ends the part being recorded and runs it; false with `error` set.
  bool closeSegment(std::string &error);
  bool openSegment(std::string &error);
  std::string captureBroken;
  uint64_t epoch = 0;
  /// Records why the capture in progress cannot be a graph; false.
  bool breakCapture(const char *what, std::string &error);
};

/// A device buffer a library service keeps across calls (the computation of
/// a fused output that overlaps an operand), grown on demand. Growing waits
/// for the stream first: a call already launched may still use the old one.
struct ScratchBuffer {
  void *data = nullptr;
  size_t bytes = 0;
  /// At least `want` bytes in `data`; false with `error` set on failure.
  bool reserve(CudaDevice &device, size_t want, std::string &error);
  void release(CudaDevice *device);
};

/// The CUDA device of the call behind `ctx`, or NULL.
CudaDevice *cudaDeviceOf(void *ctx);

/// Launches one of the runtime's own kernels with `args` (launchSlot
/// values); a failed launch is the call's error (failCall). Returns 0 or 1,
/// the onyxrt_cuda_* status.
template <size_t N>
int launchOrFail(void *ctx, CudaDevice &device, const OnyxCudaKernel *kernel,
                 const char *label, const int64_t grid[3],
                 const int64_t block[3], const uint64_t (&args)[N]) {
  std::string error;
  if (device.launch(kernel, label, grid, block, int64_t(N), args, error))
    return 0;
  failCall(ctx, error);
  return 1;
}

} // namespace rt
} // namespace onyx

#endif // ONYX_RUNTIME_CUDA_CUDADEVICE_H
