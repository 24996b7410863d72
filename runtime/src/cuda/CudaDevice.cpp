//===- CudaDevice.cpp - The CUDA device and launch services ---------------===//
//
// The CUDA driver API is loaded with dlopen("libcuda.so.1") the first time a
// CUDA session is created, so that the runtime library loads (and CPU
// artifacts run) on machines without a GPU or driver; such a machine gets a
// clean error from onyxrt_state_create instead.
//
// One session = one device (ONYX_CUDA_DEVICE, default 0), its primary
// context (retained once per process) and one non-blocking stream. Kernel
// modules are loaded from the artifact's embedded images once per session, on
// first launch: the cubin first, the PTX (JIT-compiled by the driver) when the
// cubin does not load. Every failing driver call becomes a message naming the
// call, the node or kernel, and the driver's error name and text.
//
// Environment (debugging aids):
//   ONYX_CUDA_DEVICE=N    device ordinal
//   ONYX_CUDA_FORCE_PTX=1 ignore the cubins, JIT the PTX
//   ONYX_CUDA_SYNC=1      synchronize after every launch, so that a fault is
//                         attributed to the kernel that caused it
//   ONYX_CUDA_PROFILE=F   time every launch with device events and append,
//                         when the session ends, one line per kernel to F:
//                         "kernel<TAB>launches<TAB>total ms<TAB>label"
//
//===----------------------------------------------------------------------===//
#include "CudaDevice.h"
#include "../Profile.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace onyx {
namespace rt {

void *dlsymForCuda(void *handle, const char *symbol) {
  return dlsym(handle, symbol);
}

void *openCudaLibrary(const char *what, const char *envVar,
                      std::initializer_list<const char *> candidates,
                      std::string &error) {
  std::string tried;
  std::vector<const char *> names;
  names.push_back(std::getenv(envVar));
  names.insert(names.end(), candidates.begin(), candidates.end());
  for (const char *name : names) {
    if (!name || !*name)
      continue;
    if (void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL))
      return handle;
    const char *why = dlerror();
    tried += std::string(tried.empty() ? "" : "; ") + (why ? why : name);
  }
  error = std::string("cannot load ") + what + " (" + tried + "); set " +
          envVar + " to " + (candidates.size() ? *candidates.begin() : what);
  return nullptr;
}

bool ScratchBuffer::reserve(CudaDevice &device, size_t want,
                            std::string &error) {
  if (want <= bytes)
    return true;
  if (data) {
    if (!device.synchronize(error))
      return false;
    device.release(data);
    data = nullptr;
    bytes = 0;
  }
  if (!(data = device.allocate(want, error)))
    return false;
  bytes = want;
  return true;
}

void ScratchBuffer::release(CudaDevice *device) {
  if (data && device)
    device->release(data);
  data = nullptr;
  bytes = 0;
}

namespace {

DriverApi loadDriver() {
  DriverApi api;
  void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    api.loadError = std::string("cannot load the CUDA driver: ") +
                    (why ? why : "libcuda.so.1 not found") +
                    " (no NVIDIA driver on this machine?)";
    return api;
  }
  auto load = [&](auto &fn, const char *symbol) {
    if (!api.loadError.empty())
      return;
    void *address = dlsym(handle, symbol);
    if (!address) {
      api.loadError =
          std::string("the CUDA driver lacks ") + symbol + " (driver too old?)";
      return;
    }
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(address);
  };
  load(api.cuInit, "cuInit");
  load(api.cuDriverGetVersion, "cuDriverGetVersion");
  load(api.cuDeviceGetCount, "cuDeviceGetCount");
  load(api.cuDeviceGet, "cuDeviceGet");
  load(api.cuDeviceGetName, "cuDeviceGetName");
  load(api.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  load(api.cuFuncSetAttribute, "cuFuncSetAttribute");
  load(api.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  load(api.cuCtxSetCurrent, "cuCtxSetCurrent");
  load(api.cuStreamCreate, "cuStreamCreate");
  load(api.cuStreamDestroy, "cuStreamDestroy_v2");
  load(api.cuStreamSynchronize, "cuStreamSynchronize");
  load(api.cuMemAlloc, "cuMemAlloc_v2");
  load(api.cuMemFree, "cuMemFree_v2");
  load(api.cuMemAllocHost, "cuMemAllocHost_v2");
  load(api.cuMemFreeHost, "cuMemFreeHost");
  load(api.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
  load(api.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
  load(api.cuMemsetD32Async, "cuMemsetD32Async");
  load(api.cuMemsetD16Async, "cuMemsetD16Async");
  load(api.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
  load(api.cuModuleLoadData, "cuModuleLoadData");
  load(api.cuModuleLoadDataEx, "cuModuleLoadDataEx");
  load(api.cuModuleUnload, "cuModuleUnload");
  load(api.cuModuleGetFunction, "cuModuleGetFunction");
  load(api.cuLaunchKernel, "cuLaunchKernel");
  load(api.cuEventCreate, "cuEventCreate");
  load(api.cuEventRecord, "cuEventRecord");
  load(api.cuEventElapsedTime, "cuEventElapsedTime_v2");
  load(api.cuEventDestroy, "cuEventDestroy_v2");
  load(api.cuGetErrorName, "cuGetErrorName");
  load(api.cuGetErrorString, "cuGetErrorString");
  // Graphs are optional: sessions say why they run without them.
  auto optional = [&](auto &fn, const char *symbol) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
        dlsym(handle, symbol));
  };
  optional(api.cuStreamBeginCapture, "cuStreamBeginCapture_v2");
  optional(api.cuStreamEndCapture, "cuStreamEndCapture");
  optional(api.cuThreadExchangeStreamCaptureMode,
           "cuThreadExchangeStreamCaptureMode");
  optional(api.cuGraphInstantiate, "cuGraphInstantiateWithFlags");
  optional(api.cuGraphLaunch, "cuGraphLaunch");
  optional(api.cuGraphExecDestroy, "cuGraphExecDestroy");
  optional(api.cuGraphDestroy, "cuGraphDestroy");
  optional(api.cuGraphGetNodes, "cuGraphGetNodes");
  // The handle stays open for the life of the process: sessions may come
  // and go, and the driver does not like being unloaded.
  return api;
}

} // namespace

const DriverApi &driver() {
  static const DriverApi api = loadDriver();
  return api;
}

/// "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
std::string describe(const char *call, CUresult result) {
  const DriverApi &api = driver();
  const char *name = nullptr, *text = nullptr;
  if (api.cuGetErrorName)
    api.cuGetErrorName(result, &name);
  if (api.cuGetErrorString)
    api.cuGetErrorString(result, &text);
  std::string message = std::string(call) + " failed: ";
  message += name ? name : ("CUDA error " + std::to_string(int(result)));
  if (text)
    message += std::string(" (") + text + ")";
  return message;
}

bool envFlag(const char *name) {
  const char *value = std::getenv(name);
  return value && *value && std::strcmp(value, "0") != 0;
}

int envChoice(const char *name, std::initializer_list<const char *> values) {
  const char *value = std::getenv(name);
  if (!value || !*value)
    return 0;
  int index = 0;
  for (const char *v : values) {
    if (std::strcmp(value, v) == 0)
      return index;
    ++index;
  }
  return -1;
}

std::string envChoiceError(const char *name,
                           std::initializer_list<const char *> values) {
  const char *value = std::getenv(name);
  std::string message =
      std::string(name) + "='" + (value ? value : "") + "': expected ";
  size_t i = 0;
  for (const char *v : values) {
    if (i > 0)
      message += i + 1 == values.size() ? " or " : ", ";
    message += std::string("'") + v + "'";
    ++i;
  }
  return message;
}

namespace {

/// The device's primary context, retained once per process and never
/// released: creating it costs about 100 ms, which every session would pay
/// again if the last one to go released it. The driver tears it down at
/// exit.
CUcontext primaryContext(CUdevice device, std::string &error) {
  static std::mutex mutex;
  static std::unordered_map<CUdevice, CUcontext> contexts;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = contexts.find(device);
  if (found != contexts.end())
    return found->second;
  CUcontext context = nullptr;
  CUresult result = driver().cuDevicePrimaryCtxRetain(&context, device);
  if (result != CUDA_SUCCESS) {
    error = describe("cuDevicePrimaryCtxRetain", result);
    return nullptr;
  }
  contexts[device] = context;
  return context;
}

} // namespace

std::unique_ptr<Device> CudaDevice::create(const DeviceOptions &options,
                                           std::string &error) {
  const DriverApi &api = driver();
  if (!api.loadError.empty()) {
    error = api.loadError;
    return nullptr;
  }
  // cuInit is idempotent and thread safe.
  CUresult result = api.cuInit(0);
  if (result != CUDA_SUCCESS) {
    error = describe("cuInit", result);
    return nullptr;
  }
  int count = 0;
  if ((result = api.cuDeviceGetCount(&count)) != CUDA_SUCCESS) {
    error = describe("cuDeviceGetCount", result);
    return nullptr;
  }
  int ordinal = 0;
  const char *from = "ONYX_CUDA_DEVICE=";
  if (options.deviceId >= 0) {
    ordinal = options.deviceId;
    from = "the session's deviceId ";
  } else if (const char *env = std::getenv("ONYX_CUDA_DEVICE")) {
    ordinal = std::atoi(env);
  }
  if (count == 0) {
    error = "no CUDA device is present";
    return nullptr;
  }
  if (ordinal < 0 || ordinal >= count) {
    error = from + std::to_string(ordinal) + " but there are " +
            std::to_string(count) + " CUDA devices";
    return nullptr;
  }
  std::unique_ptr<CudaDevice> self(new CudaDevice());
  if ((result = api.cuDeviceGet(&self->device, ordinal)) != CUDA_SUCCESS) {
    error = describe("cuDeviceGet", result);
    return nullptr;
  }
  if (!(self->context = primaryContext(self->device, error)))
    return nullptr;
  if ((result = api.cuCtxSetCurrent(self->context)) != CUDA_SUCCESS) {
    error = describe("cuCtxSetCurrent", result);
    return nullptr;
  }
  if (options.stream) {
    // The caller's stream: the session's work is ordered with the caller's
    // (it must belong to this device's primary context).
    self->stream = static_cast<CUstream>(options.stream);
    self->borrowedStream = true;
  } else if ((result = api.cuStreamCreate(
                  &self->stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) {
    self->stream = nullptr;
    error = describe("cuStreamCreate", result);
    return nullptr;
  }
  return self;
}

CudaDevice::~CudaDevice() {
  if (!context)
    return;
  api.cuCtxSetCurrent(context);
  if (stream)
    api.cuStreamSynchronize(stream);
  resolveProfile();
  writeProfile();
  if (callStart)
    api.cuEventDestroy(callStart);
  // Library handles use the stream and the context: gone before them.
  blas.reset();
  dnn.reset();
  attention.reset();
  for (auto &entry : constants)
    api.cuMemFree(entry.second.first);
  if (staging)
    api.cuMemFreeHost(staging);
  for (auto &entry : modules)
    api.cuModuleUnload(entry.second);
  if (stream && !borrowedStream)
    api.cuStreamDestroy(stream);
  // The primary context stays retained for the process (primaryContext).
}

bool CudaDevice::beginCall(std::string &error) {
  CUresult result = api.cuCtxSetCurrent(context);
  if (result != CUDA_SUCCESS) {
    error = describe("cuCtxSetCurrent", result);
    return false;
  }
  if (profiler) {
    // Device times of this call's kernels are measured from here.
    resolveProfile();
    if (!callStart &&
        api.cuEventCreate(&callStart, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
      callStart = nullptr;
    if (callStart) {
      callStartUs = profiler->nowUs();
      api.cuEventRecord(callStart, stream);
    }
  }
  // Readbacks a failed call queued but never waited for: their host
  // destinations are gone.
  if (!staged.empty()) {
    if ((result = api.cuStreamSynchronize(stream)) != CUDA_SUCCESS) {
      error = describe("cuStreamSynchronize", result);
      return false;
    }
    staged.clear();
    stagingUsed = 0;
  }
  return true;
}

void *CudaDevice::allocate(size_t bytes, std::string &error) {
  constexpr size_t kGranule = 256;
  size_t size = bytes < kGranule ? kGranule
                                 : (bytes + kGranule - 1) / kGranule * kGranule;
  if (size < bytes) {
    error = "allocation of " + std::to_string(bytes) + " bytes is too large";
    return nullptr;
  }
  CUdeviceptr ptr = 0;
  CUresult result;
  if (segmentOpen) {
    // cuMemAlloc is not stream work: allowed while this thread captures
    // in relaxed mode only.
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    api.cuThreadExchangeStreamCaptureMode(&mode);
    result = api.cuMemAlloc(&ptr, size);
    api.cuThreadExchangeStreamCaptureMode(&mode);
  } else {
    result = api.cuMemAlloc(&ptr, size);
  }
  if (result != CUDA_SUCCESS) {
    error = describe("cuMemAlloc", result) + " allocating " +
            std::to_string(size) + " bytes";
    return nullptr;
  }
  void *address = reinterpret_cast<void *>(ptr);
  try {
    live[address] = {size, false};
    if (capturing)
      captureAllocated.push_back(address);
  } catch (...) {
    api.cuMemFree(ptr);
    error = "out of memory tracking a device allocation";
    return nullptr;
  }
  return address;
}

void CudaDevice::release(void *ptr) {
  if (!ptr || graphOwned.count(ptr))
    return; // A graph's: freed with the graph.
  if (capturing) {
    // The recorded work may still read it: it goes with the graph (or is
    // freed when the capture ends without one).
    captureReleased.push_back(ptr);
    return;
  }
  auto found = live.find(ptr);
  if (found != live.end()) {
    if (found->second.readByGraph)
      ++epoch; // Graphs that read it are stale.
    live.erase(found);
  }
  api.cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
}

bool CudaDevice::upload(void *deviceDst, const void *hostSrc, size_t bytes,
                        std::string &error) {
  if (bytes == 0)
    return true;
  if (capturing) // A replay would read host memory that may be gone.
    return breakCapture("an upload of host data", error);
  CUresult result = api.cuMemcpyHtoDAsync(
      reinterpret_cast<CUdeviceptr>(deviceDst), hostSrc, bytes, stream);
  if (result != CUDA_SUCCESS) {
    error = describe("cuMemcpyHtoDAsync", result);
    return false;
  }
  return true;
}

bool CudaDevice::download(void *hostDst, const void *deviceSrc, size_t bytes,
                          std::string &error) {
  if (bytes == 0)
    return true;
  CUresult result = api.cuMemcpyDtoHAsync(
      hostDst, reinterpret_cast<CUdeviceptr>(deviceSrc), bytes, stream);
  if (result != CUDA_SUCCESS) {
    error = describe("cuMemcpyDtoHAsync", result);
    return false;
  }
  return true;
}

bool CudaDevice::copy(void *deviceDst, const void *deviceSrc, size_t bytes,
                      std::string &error) {
  if (bytes == 0)
    return true;
  // On the session stream: after the kernels that wrote `deviceSrc`, before
  // the ones that reuse its buffer (a temporary, a pool slot).
  CUresult result = api.cuMemcpyDtoDAsync(
      reinterpret_cast<CUdeviceptr>(deviceDst),
      reinterpret_cast<CUdeviceptr>(deviceSrc), bytes, stream);
  if (result != CUDA_SUCCESS) {
    error = describe("cuMemcpyDtoDAsync", result);
    return false;
  }
  return true;
}

bool CudaDevice::stageReadback(void *hostDst, const void *deviceSrc,
                               size_t bytes, std::string &error) {
  if (bytes == 0)
    return true;
  if (segmentOpen) {
    // A split graph: the part recorded so far runs now, its values are
    // read back, and recording goes on after the wait.
    if (!closeSegment(error))
      return false;
    CUresult result = api.cuGraphLaunch(segments.back().exec, stream);
    if (result != CUDA_SUCCESS) {
      error = describe("cuGraphLaunch", result);
      return breakCapture("a failed launch", error);
    }
  }
  // 16-byte slots, so that every staged value is aligned.
  size_t need = stagingUsed + ((bytes + 15) & ~size_t(15));
  if (need > stagingBytes) {
    // Growing drops the old buffer: what is queued in it lands first.
    if (!staged.empty() && !finishReadbacks(error))
      return false;
    size_t want = std::max<size_t>(4096, 2 * ((bytes + 15) & ~size_t(15)));
    void *fresh = nullptr;
    CUresult result = api.cuMemAllocHost(&fresh, want);
    if (result != CUDA_SUCCESS) {
      error = describe("cuMemAllocHost", result);
      return false;
    }
    if (staging)
      api.cuMemFreeHost(staging);
    staging = static_cast<char *>(fresh);
    stagingBytes = want;
    need = (bytes + 15) & ~size_t(15);
  }
  size_t offset = stagingUsed;
  CUresult result = api.cuMemcpyDtoHAsync(
      staging + offset, reinterpret_cast<CUdeviceptr>(deviceSrc), bytes,
      stream);
  if (result != CUDA_SUCCESS) {
    error = describe("cuMemcpyDtoHAsync", result);
    return false;
  }
  staged.push_back({hostDst, offset, bytes, deviceSrc});
  stagingUsed = need;
  return true;
}

bool CudaDevice::finishReadbacks(std::string &error) {
  bool ok = synchronize(error);
  if (ok)
    for (const StagedReadback &r : staged)
      std::memcpy(r.hostDst, staging + r.offset, r.bytes);
  if (ok && capturing && !segmentOpen) {
    // A split graph: the values are recorded with the part before them
    // (a replay compares them), then recording goes on.
    try {
      for (const StagedReadback &r : staged)
        segments.back().readbacks.push_back(
            {r.deviceSrc, std::vector<char>(staging + r.offset,
                                            staging + r.offset + r.bytes)});
    } catch (...) {
      ok = breakCapture("out of memory", error);
    }
    staged.clear();
    stagingUsed = 0;
    return ok && openSegment(error);
  }
  staged.clear();
  stagingUsed = 0;
  return ok;
}

bool CudaDevice::synchronize(std::string &error) {
  if (segmentOpen)
    return breakCapture("a host synchronization", error);
  CUresult result = api.cuStreamSynchronize(stream);
  if (result != CUDA_SUCCESS) {
    error = describe("cuStreamSynchronize", result);
    return false;
  }
  resolveProfile();
  return true;
}

void *CudaDevice::constant(const void *host, size_t bytes, std::string &error) {
  auto found = constants.find(host);
  if (found != constants.end() && found->second.second >= bytes)
    return reinterpret_cast<void *>(found->second.first);
  void *device = allocate(bytes, error);
  if (!device)
    return nullptr;
  // Ordered after the work already queued; the host data stays valid.
  if (!upload(device, host, bytes, error)) {
    release(device);
    return nullptr;
  }
  if (found != constants.end()) {
    // A larger view of the same host data: the old copy may still be read
    // by queued work, so it is released only after it.
    std::string ignored;
    synchronize(ignored);
    release(reinterpret_cast<void *>(found->second.first));
  }
  constants[host] = {reinterpret_cast<CUdeviceptr>(device), bytes};
  return device;
}

void CudaDevice::profileBegin(CUevent &start) {
  start = nullptr;
  if (!profiling())
    return;
  if (api.cuEventCreate(&start, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
    start = nullptr;
    return;
  }
  api.cuEventRecord(start, stream);
}

void CudaDevice::profileEnd(CUevent start, const OnyxCudaKernel *key,
                            const char *label, std::vector<int64_t> dims) {
  if (!start)
    return;
  CUevent end = nullptr;
  if (api.cuEventCreate(&end, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
    api.cuEventDestroy(start);
    return;
  }
  api.cuEventRecord(end, stream);
  pending.push_back(
      {key, label ? label : "", start, end, std::move(dims), true, ""});
}

void CudaDevice::setLaunchShapes(const int64_t *table) {
  if (profiler && table)
    nextLaunchShapes = jsonShapes(table);
}

void CudaDevice::flushProfile() {
  if (stream)
    api.cuStreamSynchronize(stream);
  resolveProfile();
}

void CudaDevice::resolveProfile() {
  for (Pending &p : pending) {
    float ms = 0;
    if (api.cuEventElapsedTime(&ms, p.start, p.end) == CUDA_SUCCESS) {
      const char *kernelName = p.kernel->name ? p.kernel->name : "?";
      if (!profilePath.empty()) {
        Totals &t = profile[p.kernel];
        if (t.launches == 0) {
          t.name = kernelName;
          t.label = p.label;
        }
        t.launches += 1;
        t.ms += ms;
      }
      float offsetMs = 0;
      if (profiler && callStart &&
          api.cuEventElapsedTime(&offsetMs, callStart, p.start) ==
              CUDA_SUCCESS) {
        try {
          ProfileEvent event;
          event.name = kernelName;
          event.category = p.library ? "library" : "kernel";
          event.startUs = callStartUs + double(offsetMs) * 1000.0;
          event.durationUs = double(ms) * 1000.0;
          std::string node = p.label;
          // Labels read "node 'NAME' (kernel K)"; the trace names the node
          // alone (the label stays in "label").
          std::string label = node;
          size_t close = node.find('\'', 6);
          if (node.rfind("node '", 0) == 0 && close != std::string::npos)
            node = node.substr(6, close - 6);
          event.args = {{"node", jsonString(node)},
                        {"op", jsonString(kernelName)},
                        {"label", jsonString(label)}};
          if (p.library) {
            event.args.push_back({"dims", jsonInts(p.dims)});
          } else if (p.dims.size() == 6) {
            event.args.push_back(
                {"grid", jsonInts({p.dims[0], p.dims[1], p.dims[2]})});
            event.args.push_back(
                {"block", jsonInts({p.dims[3], p.dims[4], p.dims[5]})});
          }
          // A launch's buffers (artifacts compiled with --profile), a
          // library call's operands from its problem dims.
          event.args.push_back(
              {"shapes", !p.shapes.empty() ? p.shapes
                         : p.library       ? libraryShapes(kernelName, p.dims)
                                           : jsonShapes(nullptr)});
          profiler->add(std::move(event));
        } catch (...) {
        }
      }
    }
    api.cuEventDestroy(p.start);
    api.cuEventDestroy(p.end);
  }
  pending.clear();
}

void CudaDevice::writeProfile() {
  if (profilePath.empty() || profile.empty())
    return;
  if (FILE *f = std::fopen(profilePath.c_str(), "a")) {
    for (auto &entry : profile)
      std::fprintf(f, "%s\t%llu\t%.6f\t%s\n", entry.second.name.c_str(),
                   (unsigned long long)entry.second.launches, entry.second.ms,
                   entry.second.label.c_str());
    std::fclose(f);
  }
}

CUfunction CudaDevice::function(const OnyxCudaKernel *kernel,
                                std::string &error) {
  auto found = functions.find(kernel);
  if (found != functions.end())
    return found->second;
  const char *name = kernel->name ? kernel->name : "";
  const void *image = nullptr;
  CUmodule module = nullptr;
  std::string cubinError;
  if (kernel->cubin && kernel->cubinSize && !forcePTX) {
    image = kernel->cubin;
    auto loaded = modules.find(image);
    if (loaded != modules.end()) {
      module = loaded->second;
    } else {
      CUresult result = api.cuModuleLoadData(&module, image);
      if (result == CUDA_SUCCESS)
        modules[image] = module;
      else {
        module = nullptr;
        cubinError = describe("cuModuleLoadData (cubin)", result);
      }
    }
  }
  if (!module && kernel->ptx) {
    image = kernel->ptx;
    auto loaded = modules.find(image);
    if (loaded != modules.end()) {
      module = loaded->second;
    } else {
      char log[4096] = {0};
      CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                                CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
      void *values[] = {log, reinterpret_cast<void *>(sizeof(log))};
      CUresult result =
          api.cuModuleLoadDataEx(&module, image, 2, options, values);
      if (result == CUDA_SUCCESS) {
        modules[image] = module;
      } else {
        module = nullptr;
        error = (cubinError.empty() ? "" : cubinError + "; ") +
                describe("cuModuleLoadDataEx (PTX)", result) +
                (log[0] ? std::string(": ") + log : std::string());
        return nullptr;
      }
    }
  }
  if (!module) {
    error = cubinError.empty() ? "the kernel has neither a cubin nor PTX"
                               : cubinError;
    return nullptr;
  }
  CUfunction fn = nullptr;
  CUresult result = api.cuModuleGetFunction(&fn, module, name);
  if (result != CUDA_SUCCESS) {
    error = describe("cuModuleGetFunction", result);
    return nullptr;
  }
  functions[kernel] = fn;
  return fn;
}

int CudaDevice::computeCapability() {
  if (capability < 0) {
    int major = 0, minor = 0;
    if (api.cuDeviceGetAttribute(&major,
                                 CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                 device) != CUDA_SUCCESS ||
        api.cuDeviceGetAttribute(&minor,
                                 CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                 device) != CUDA_SUCCESS)
      major = minor = 0;
    capability = 10 * major + minor;
  }
  return capability;
}

int CudaDevice::multiprocessors() {
  if (smCount < 0) {
    int count = 0;
    if (api.cuDeviceGetAttribute(&count,
                                 CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                 device) != CUDA_SUCCESS)
      count = 0;
    smCount = count;
  }
  return smCount;
}

bool CudaDevice::launch(const OnyxCudaKernel *kernel, const char *label,
                        const int64_t grid[3], const int64_t block[3],
                        int64_t numArgs, const uint64_t *args,
                        std::string &error, uint32_t sharedBytes) {
  std::string where = std::string(label ? label : "kernel") + ": ";
  if (!kernel) {
    error = where + "no kernel descriptor";
    return false;
  }
  for (int i = 0; i < 3; ++i) {
    if (grid[i] < 0 || block[i] <= 0 || grid[i] > 0x7fffffff ||
        block[i] > 1024) {
      error = where + "invalid launch configuration grid (" +
              std::to_string(grid[0]) + ", " + std::to_string(grid[1]) + ", " +
              std::to_string(grid[2]) + ") block (" + std::to_string(block[0]) +
              ", " + std::to_string(block[1]) + ", " +
              std::to_string(block[2]) + ")";
      return false;
    }
  }
  std::string shapes = std::move(nextLaunchShapes);
  nextLaunchShapes.clear();
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
    return true; // An empty iteration space: nothing to run.
  CUfunction fn = function(kernel, error);
  if (!fn) {
    error = where + error;
    return false;
  }
  if (sharedBytes > 48 * 1024) {
    uint32_t &limit = sharedLimits[fn];
    if (limit < sharedBytes) {
      CUresult r = api.cuFuncSetAttribute(
          fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
          int(sharedBytes));
      if (r != CUDA_SUCCESS) {
        error = where + describe("cuFuncSetAttribute", r);
        return false;
      }
      limit = sharedBytes;
    }
  }
  std::vector<void *> params(size_t(numArgs > 0 ? numArgs : 0));
  for (int64_t i = 0; i < numArgs; ++i)
    params[i] = const_cast<uint64_t *>(&args[i]);
  CUevent start = nullptr, end = nullptr;
  if (profiling() &&
      api.cuEventCreate(&start, CU_EVENT_DEFAULT) == CUDA_SUCCESS &&
      api.cuEventCreate(&end, CU_EVENT_DEFAULT) == CUDA_SUCCESS)
    api.cuEventRecord(start, stream);
  CUresult result = api.cuLaunchKernel(
      fn, unsigned(grid[0]), unsigned(grid[1]), unsigned(grid[2]),
      unsigned(block[0]), unsigned(block[1]), unsigned(block[2]), sharedBytes,
      stream, params.empty() ? nullptr : params.data(), nullptr);
  if (start && end) {
    api.cuEventRecord(end, stream);
    pending.push_back(
        {kernel,
         label ? label : "",
         start,
         end,
         {grid[0], grid[1], grid[2], block[0], block[1], block[2]},
         false,
         std::move(shapes)});
  } else {
    if (start)
      api.cuEventDestroy(start);
    if (end)
      api.cuEventDestroy(end);
  }
  if (result != CUDA_SUCCESS) {
    error = where + describe("cuLaunchKernel", result);
    return false;
  }
  if (syncEachLaunch && !synchronize(error)) {
    error = where + error;
    return false;
  }
  return true;
}

CudaDevice *cudaDeviceOf(void *ctx) {
  Device *device = callDevice(ctx);
  if (!device || std::strcmp(device->name(), "cuda") != 0)
    return nullptr;
  return static_cast<CudaDevice *>(device);
}

std::unique_ptr<Device> createCudaDevice(const DeviceOptions &options,
                                         std::string &error) {
  try {
    return CudaDevice::create(options, error);
  } catch (...) {
    error = "out of memory creating the CUDA device";
    return nullptr;
  }
}

} // namespace rt
} // namespace onyx

using namespace onyx::rt;

namespace {

/// What the copy services share: the call's device, a size check, the
/// copy, and any failure recorded under `label` (or `what`).
template <typename Copy>
int32_t copyService(void *ctx, const char *service, const char *label,
                    const char *what, int64_t bytes, Copy copy) {
  CudaDevice *device = cudaDeviceOf(ctx);
  try {
    if (!device) {
      failCall(ctx, std::string(service) + ": the session has no CUDA device");
      return 1;
    }
    std::string error;
    if (bytes < 0 || !copy(*device, size_t(bytes), error)) {
      failCall(ctx, std::string(label ? label : what) + ": " +
                        (bytes < 0 ? "negative size" : error));
      return 1;
    }
    return 0;
  } catch (...) {
    failCall(ctx, std::string("out of memory in ") + service);
    return 1;
  }
}

} // namespace

extern "C" {

ONYX_API void onyxrt_cuda_profile_shapes(void *ctx, const int64_t *shapes) {
  CudaDevice *device = cudaDeviceOf(ctx);
  if (!device)
    return;
  try {
    device->setLaunchShapes(shapes);
  } catch (...) {
    // Out of memory: the launch's event has no shapes.
  }
}

ONYX_API int32_t onyxrt_cuda_launch(void *ctx, const OnyxCudaKernel *kernel,
                                    const char *label, int64_t gridX,
                                    int64_t gridY, int64_t gridZ,
                                    int64_t blockX, int64_t blockY,
                                    int64_t blockZ, int64_t numArgs,
                                    const uint64_t *args) {
  CudaDevice *device = cudaDeviceOf(ctx);
  try {
    if (!device) {
      failCall(ctx, "onyxrt_cuda_launch: the session has no CUDA device");
      return 1;
    }
    const int64_t grid[3] = {gridX, gridY, gridZ};
    const int64_t block[3] = {blockX, blockY, blockZ};
    std::string error;
    if (!device->launch(kernel, label, grid, block, numArgs, args, error)) {
      failCall(ctx, error);
      return 1;
    }
    return 0;
  } catch (...) {
    failCall(ctx, "out of memory launching a kernel");
    return 1;
  }
}

ONYX_API int32_t onyxrt_cuda_upload(void *ctx, void *deviceDst,
                                    const void *hostSrc, int64_t bytes,
                                    const char *label) {
  return copyService(ctx, "onyxrt_cuda_upload", label, "upload", bytes,
                     [&](CudaDevice &device, size_t size, std::string &error) {
                       return device.upload(deviceDst, hostSrc, size, error);
                     });
}

ONYX_API void *onyxrt_cuda_constant(void *ctx, const void *hostSrc,
                                    int64_t bytes, const char *label) {
  CudaDevice *device = cudaDeviceOf(ctx);
  try {
    if (!device) {
      failCall(ctx, "onyxrt_cuda_constant: the session has no CUDA device");
      return nullptr;
    }
    std::string error;
    void *result = nullptr;
    if (bytes < 0)
      error = "negative size";
    else
      result = device->constant(hostSrc, size_t(bytes), error);
    if (!result)
      failCall(ctx,
               std::string(label ? label : "constant upload") + ": " + error);
    return result;
  } catch (...) {
    failCall(ctx, "out of memory uploading a constant");
    return nullptr;
  }
}

ONYX_API int32_t onyxrt_cuda_download(void *ctx, void *hostDst,
                                      const void *deviceSrc, int64_t bytes,
                                      const char *label) {
  // A readback on its own: staged, then its synchronization.
  if (onyxrt_cuda_readback(ctx, hostDst, deviceSrc, bytes, label) != 0)
    return 1;
  return onyxrt_cuda_readback_wait(ctx, label);
}

ONYX_API int32_t onyxrt_cuda_readback(void *ctx, void *hostDst,
                                      const void *deviceSrc, int64_t bytes,
                                      const char *label) {
  return copyService(ctx, "onyxrt_cuda_readback", label, "readback", bytes,
                     [&](CudaDevice &device, size_t size, std::string &error) {
                       return device.stageReadback(hostDst, deviceSrc, size,
                                                   error);
                     });
}

ONYX_API int32_t onyxrt_cuda_readback_wait(void *ctx, const char *label) {
  CudaDevice *device = cudaDeviceOf(ctx);
  try {
    if (!device) {
      failCall(ctx,
               "onyxrt_cuda_readback_wait: the session has no CUDA device");
      return 1;
    }
    // The host synchronization: counted (onyx-run --stats) and subject to
    // fault injection; the queued readbacks are dropped when it fails.
    std::string error;
    if (onyxrt_host_sync(ctx, label) != 0) {
      device->finishReadbacks(error);
      return 1;
    }
    if (!device->finishReadbacks(error)) {
      failCall(ctx, std::string(label ? label : "readback") + ": " + error);
      return 1;
    }
    return 0;
  } catch (...) {
    failCall(ctx, "out of memory reading back a tensor");
    return 1;
  }
}

} // extern "C"
