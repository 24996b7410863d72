//===- Session.cpp - Creating sessions and the onyx_state_* queries -------===//
//
// onyxrt_state_create(_with_weights) parses the metadata, loads the
// external weights (Weights.cpp), creates the device a `device` line names
// and applies the environment (ONYX_FAULT_INJECT, ONYX_MAX_ALLOC_BYTES).
// The onyx_state_* entry points read or change a session under its mutex
// (State.h). onyxrt_run is in Run.cpp, the generated code's services in
// Services.cpp.
//
//===----------------------------------------------------------------------===//
#include "State.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>

using namespace onyx::rt;

extern "C" {

ONYX_API OnyxState *onyxrt_state_create(const OnyxModelDesc *desc,
                                        const char **errorOut) {
  return onyxrt_state_create_with_weights(desc, nullptr, errorOut);
}

/// ONYX_FAULT_INJECT=readback:N makes the N-th host synchronization of
/// every new session fail (tests of the error path).
static bool armFaultFromEnvironment(OnyxState &state, std::string &error) {
  const char *spec = std::getenv("ONYX_FAULT_INJECT");
  if (!spec || !*spec)
    return true;
  std::string text = spec;
  const std::string prefix = "readback:";
  char *end = nullptr;
  unsigned long long nth = 0;
  if (text.rfind(prefix, 0) == 0) {
    const char *digits = text.c_str() + prefix.size();
    nth = std::strtoull(digits, &end, 10);
    if (end == digits || *end != '\0')
      nth = 0;
  }
  if (nth == 0) {
    error = "ONYX_FAULT_INJECT='" + text +
            "': expected readback:N with N >= 1 (the N-th host "
            "synchronization fails)";
    return false;
  }
  state.faultReadbackAt = nth;
  state.syncsSinceFaultArmed = 0;
  return true;
}

/// The machine's memory: physical memory, or the cgroup's limit
/// (memory.max, cgroup v2; memory.limit_in_bytes, v1) when that is lower.
static uint64_t machineMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  uint64_t bytes = pages > 0 && pageSize > 0
                       ? uint64_t(pages) * uint64_t(pageSize)
                       : UINT64_MAX;
  for (const char *file : {"/sys/fs/cgroup/memory.max",
                           "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    if (FILE *f = std::fopen(file, "r")) {
      unsigned long long v = 0;
      if (std::fscanf(f, "%llu", &v) == 1 && v > 0 && v < bytes)
        bytes = v;
      std::fclose(f);
    }
  }
  return bytes;
}

/// ONYX_MAX_ALLOC_BYTES: the memory limit of every new session, in bytes
/// with an optional K, M, G or T suffix (powers of 1024), or `none`.
/// Unset or empty: the machine's memory (machineMemoryBytes).
static bool memoryLimitFromEnvironment(OnyxState &state, std::string &error) {
  const char *spec = std::getenv("ONYX_MAX_ALLOC_BYTES");
  if (!spec || !*spec) {
    state.memoryLimit = machineMemoryBytes();
    return true;
  }
  std::string text = spec;
  if (text == "none") {
    state.memoryLimit = UINT64_MAX;
    return true;
  }
  char *end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  unsigned shift = 0;
  if (end && *end) {
    switch (*end) {
    case 'K':
    case 'k':
      shift = 10;
      break;
    case 'M':
    case 'm':
      shift = 20;
      break;
    case 'G':
    case 'g':
      shift = 30;
      break;
    case 'T':
    case 't':
      shift = 40;
      break;
    default:
      shift = 99;
    }
    ++end;
  }
  if (end == text.c_str() ||
      !std::isdigit(static_cast<unsigned char>(text[0])) || errno == ERANGE ||
      shift == 99 || (end && *end) || value == 0 ||
      value > (UINT64_MAX >> shift)) {
    error = "ONYX_MAX_ALLOC_BYTES='" + text +
            "': expected a positive number of bytes, optionally with a K, "
            "M, G or T suffix, or 'none'";
    return false;
  }
  state.memoryLimit = uint64_t(value) << shift;
  return true;
}

/// Options for the artifact trampoline that onyx_session_create calls on
/// this thread (an artifact's onyx_state_create_with_weights knows no
/// options); NULL otherwise.
/// CUDA graphs for a device session (docs/runtime.md, "CUDA graphs"); a
/// model with sequence or optional inputs or outputs runs without them.
static void enableGraphs(OnyxState &state, uint32_t cacheSize) {
  state.graphs = std::make_unique<GraphCache>(cacheSize);
  state.graphsOff.clear();
  state.graphsLastFailure.clear();
  for (const auto *list : {&state.metadata.inputs, &state.metadata.outputs})
    for (const ValueSpec &spec : *list)
      if (spec.kind != ONYX_SIGNATURE_TENSOR)
        state.graphsOff = "the model has sequence or optional inputs or "
                          "outputs (their elements are copied by the host)";
}

static thread_local const OnyxSessionOptions *pendingOptions = nullptr;

ONYX_API void onyx_session_options_init(OnyxSessionOptions *options) {
  if (!options)
    return;
  *options = OnyxSessionOptions();
  options->structSize = sizeof(OnyxSessionOptions);
  options->deviceId = -1;
  options->cudaGraphs = -1;
}

/// Whether a session gets CUDA graphs: OnyxSessionOptions.cudaGraphs > 0
/// on (an error for a host model), 0 off, < 0 (the default) on for a CUDA
/// session unless $ONYX_CUDA_GRAPHS is 0. `error` is set for a host model
/// asking for graphs and for a $ONYX_CUDA_GRAPHS other than 0 or 1.
static bool sessionGraphs(int32_t option, bool onDevice, std::string &error) {
  if (option > 0) {
    if (!onDevice)
      error = "the session options enable CUDA graphs, but this model runs "
              "on the host";
    return onDevice;
  }
  if (option == 0)
    return false;
  const char *v = std::getenv("ONYX_CUDA_GRAPHS");
  if (!v || !*v || std::strcmp(v, "1") == 0)
    return onDevice;
  if (std::strcmp(v, "0") != 0)
    error = std::string("ONYX_CUDA_GRAPHS='") + v + "': expected 0 or 1";
  return false;
}

ONYX_API OnyxState *onyxrt_state_create_with_weights(const OnyxModelDesc *desc,
                                                     const char *weightsPath,
                                                     const char **errorOut) {
  if (const OnyxSessionOptions *options = pendingOptions) {
    // onyx_session_create: the weights path is the options' own.
    pendingOptions = nullptr;
    return onyxrt_state_create_with_options(desc, options, errorOut);
  }
  OnyxSessionOptions defaults;
  onyx_session_options_init(&defaults);
  defaults.weightsPath = weightsPath;
  return onyxrt_state_create_with_options(desc, &defaults, errorOut);
}

ONYX_API OnyxState *
onyxrt_state_create_with_options(const OnyxModelDesc *desc,
                                 const OnyxSessionOptions *options,
                                 const char **errorOut) {
  std::string &error = threadCreateError();
  try {
    error.clear();
    OnyxSessionOptions chosen;
    onyx_session_options_init(&chosen);
    if (options && (options->structSize < sizeof(uint32_t) ||
                    options->structSize > sizeof(OnyxSessionOptions))) {
      error = "OnyxSessionOptions.structSize is " +
              std::to_string(options->structSize) +
              " (initialize the options with onyx_session_options_init)";
      if (errorOut)
        *errorOut = error.c_str();
      return nullptr;
    }
    if (options) // fields a caller built with an older header lacks keep
      std::memcpy(&chosen, options, options->structSize); // their defaults
    chosen.structSize = sizeof(OnyxSessionOptions);
    const char *weightsPath = chosen.weightsPath;
    DeviceOptions deviceOptions;
    deviceOptions.deviceId = chosen.deviceId;
    deviceOptions.stream = chosen.cudaStream;
    if (!desc) {
      error = "model descriptor is NULL";
    } else if (desc->abiVersion != ONYX_ABI_VERSION) {
      error = "artifact ABI version " + std::to_string(desc->abiVersion) +
              ", but this runtime supports version " +
              std::to_string(ONYX_ABI_VERSION);
    } else if (!desc->entry) {
      error = "model descriptor has no entry function";
    } else {
      auto *state = new OnyxState();
      std::string message;
      if (!parseMetadata(desc->metadata, state->metadata, message)) {
        delete state;
        error = "invalid model metadata: " + message;
      } else if (!loadWeights(*state, *desc, weightsPath, message)) {
        delete state;
        error = message;
      } else if (state->metadata.device.empty() &&
                 (chosen.deviceId >= 0 || chosen.cudaStream)) {
        error = std::string("the session options choose a CUDA ") +
                (chosen.cudaStream ? "stream" : "device") +
                ", but this model runs on the host";
        delete state;
      } else if (!state->metadata.device.empty() &&
                 !(state->device = createDevice(state->metadata.device,
                                                deviceOptions, message))) {
        error = "cannot create the " + state->metadata.device +
                " device for this model: " + message;
        delete state;
      } else if (!armFaultFromEnvironment(*state, message) ||
                 !memoryLimitFromEnvironment(*state, message)) {
        error = message;
        delete state;
      } else {
        state->metadataText = desc->metadata;
        state->entry = desc->entry;
        if (chosen.memoryLimit)
          state->memoryLimit = chosen.memoryLimit;
        std::string graphsError;
        bool graphs = sessionGraphs(chosen.cudaGraphs, state->device != nullptr,
                                    graphsError);
        if (!graphsError.empty()) {
          error = graphsError;
          delete state;
          if (errorOut)
            *errorOut = error.c_str();
          return nullptr;
        }
        if (graphs)
          enableGraphs(*state, chosen.cudaGraphCacheSize);
        if (chosen.threads != 0)
          onyxrt_cpu_set_threads(chosen.threads);
        if (chosen.profilePath && *chosen.profilePath) {
          state->profiler = std::make_unique<Profiler>(chosen.profilePath);
          if (state->device)
            state->device->profiler = state->profiler.get();
        }
        return state;
      }
    }
  } catch (const std::bad_alloc &) {
    error = "out of memory creating the session";
  } catch (...) {
    error = "unexpected failure creating the session";
  }
  if (errorOut)
    *errorOut = error.c_str();
  return nullptr;
}

ONYX_API OnyxState *onyx_session_create(void *artifact,
                                        const OnyxSessionOptions *options,
                                        const char **errorOut) {
  std::string &error = threadCreateError();
  using CreateFn = OnyxState *(*)(const char *);
  auto create = artifact ? reinterpret_cast<CreateFn>(dlsym(
                               artifact, "onyx_state_create_with_weights"))
                         : nullptr;
  if (!create) {
    error = artifact ? "the library is not an Onyx artifact (it lacks "
                       "onyx_state_create_with_weights)"
                     : "the artifact handle is NULL";
    if (errorOut)
      *errorOut = error.c_str();
    return nullptr;
  }
  OnyxSessionOptions defaults;
  onyx_session_options_init(&defaults);
  pendingOptions = options ? options : &defaults;
  OnyxState *state = create(pendingOptions->weightsPath);
  pendingOptions = nullptr;
  if (!state && errorOut)
    *errorOut = error.c_str();
  return state;
}

ONYX_API const char *onyxrt_state_create_error(void) {
  return threadCreateError().c_str();
}

ONYX_API void onyxrt_state_destroy(OnyxState *state) { delete state; }

ONYX_API const char *onyx_state_last_error(const OnyxState *state) {
  if (!state)
    return "the state is NULL";
  std::lock_guard<std::mutex> lock(state->mutex);
  auto it = state->threadErrors.find(std::this_thread::get_id());
  if (it != state->threadErrors.end())
    return it->second.c_str();
  return state->lastError.c_str();
}

ONYX_API int onyx_state_set_device_outputs(OnyxState *state, int enable) {
  if (!state || !state->device)
    return -1;
  std::lock_guard<std::mutex> lock(state->mutex);
  state->deviceOutputs = enable != 0;
  return 0;
}

ONYX_API int onyx_state_sync_stats(const OnyxState *state,
                                   uint64_t *lastCallSyncs,
                                   uint64_t *totalSyncs, uint64_t *calls) {
  if (!state)
    return -1;
  std::lock_guard<std::mutex> lock(state->mutex);
  if (lastCallSyncs)
    *lastCallSyncs = state->lastCallSyncs;
  if (totalSyncs)
    *totalSyncs = state->totalSyncs;
  if (calls)
    *calls = state->calls;
  return 0;
}

ONYX_API int onyx_state_inject_fault(OnyxState *state, const char *kind,
                                     uint64_t nth) {
  if (!state || !kind || std::string(kind) != "readback")
    return -1;
  std::lock_guard<std::mutex> lock(state->mutex);
  state->faultReadbackAt = nth;
  state->syncsSinceFaultArmed = 0;
  return 0;
}

ONYX_API int onyx_state_memory_stats(const OnyxState *state,
                                     OnyxMemoryStats *out) {
  if (!state || !out)
    return -1;
  std::lock_guard<std::mutex> lock(state->mutex);
  *out = state->stats;
  return 0;
}

ONYX_API int onyx_state_pool_info(const OnyxState *state, size_t index,
                                  int64_t *domainId, uint64_t *requestedBytes,
                                  uint64_t *capacityBytes) {
  if (!state)
    return -1;
  std::lock_guard<std::mutex> lock(state->mutex);
  if (index >= state->pools.size())
    return -1;
  auto it = state->pools.begin();
  std::advance(it, index);
  if (domainId)
    *domainId = it->first;
  if (requestedBytes)
    *requestedBytes = it->second.requested;
  if (capacityBytes)
    *capacityBytes = it->second.capacity;
  return 0;
}

ONYX_API int onyx_state_set_cuda_graphs(OnyxState *state, int enable,
                                        uint32_t cacheSize) {
  if (!state)
    return -1;
  if (!state->device)
    return enable ? -1 : 0; // a host session has none to turn off
  std::lock_guard<std::mutex> lock(state->mutex);
  try {
    if (enable)
      enableGraphs(*state, cacheSize);
    else
      state->graphs.reset();
  } catch (...) {
    state->graphs.reset();
    return -1;
  }
  return 0;
}

ONYX_API int onyx_state_cuda_graph_stats(const OnyxState *state,
                                         OnyxCudaGraphStats *out) {
  if (!state || !out || out->structSize < sizeof(uint32_t) ||
      out->structSize > sizeof(OnyxCudaGraphStats))
    return -1;
  std::lock_guard<std::mutex> lock(state->mutex);
  OnyxCudaGraphStats stats = {};
  stats.structSize = out->structSize;
  const GraphCache *graphs = state->graphs.get();
  stats.enabled = graphs ? 1 : 0;
  stats.active = graphs && state->graphsOff.empty() && !graphs->stopped() &&
                 state->device && state->device->graphsUnavailable().empty();
  stats.lastCall = state->lastCallGraph;
  if (graphs) {
    stats.captures = graphs->captures;
    stats.replays = graphs->replays;
    stats.failedCaptures = graphs->failedCaptures;
    stats.evictions = graphs->evictions;
    stats.invalidations = graphs->invalidations;
    stats.cachedGraphs = graphs->graphs();
    stats.graphBytes = graphs->ownedBytes();
  }
  stats.lastGraphNodes = state->lastCallGraph == ONYX_GRAPH_CAPTURED ||
                                 state->lastCallGraph == ONYX_GRAPH_REPLAYED
                             ? state->lastGraphNodes
                             : 0;
  std::memcpy(out, &stats, out->structSize);
  return 0;
}

ONYX_API const char *onyx_state_cuda_graph_status(const OnyxState *state) {
  if (!state)
    return "the state is NULL";
  std::lock_guard<std::mutex> lock(state->mutex);
  thread_local std::string status;
  try {
    status.clear();
    if (state->graphs) {
      std::string unavailable =
          state->device ? state->device->graphsUnavailable() : "no device";
      if (!state->graphsOff.empty())
        status = state->graphsOff;
      else if (!unavailable.empty())
        status = unavailable;
      else if (state->graphs->stopped())
        status = "the input signatures change more often than the cache "
                 "holds them (" +
                 std::to_string(state->graphs->unusedEvictions) +
                 " graphs evicted before a replay): the session records no "
                 "more graphs (a larger cudaGraphCacheSize may help)";
      else if (!state->graphsLastFailure.empty())
        status = "the last recording failed: " + state->graphsLastFailure;
    }
  } catch (...) {
    status.clear();
  }
  return status.c_str();
}

ONYX_API int onyx_state_set_memory_limit(OnyxState *state, uint64_t bytes) {
  if (!state || bytes == 0)
    return -1;
  std::lock_guard<std::mutex> lock(state->mutex);
  // A graph recorded under another limit replays what the limit decided.
  if (state->graphs && bytes != state->memoryLimit)
    state->graphs->invalidate();
  state->memoryLimit = bytes;
  return 0;
}

ONYX_API uint64_t onyx_state_memory_limit(const OnyxState *state) {
  if (!state)
    return 0;
  std::lock_guard<std::mutex> lock(state->mutex);
  return state->memoryLimit;
}

ONYX_API void onyx_state_trim(OnyxState *state) {
  if (!state)
    return;
  std::lock_guard<std::mutex> lock(state->mutex);
  state->trimPools();
}

ONYX_API int onyx_state_enable_profiling(OnyxState *state, const char *path) {
  if (!state)
    return -1;
  std::lock_guard<std::mutex> lock(state->mutex);
  try {
    if (state->profiler) {
      std::string ignored;
      state->endProfiling(ignored);
    }
    if (path && *path) {
      state->profiler = std::make_unique<Profiler>(path);
      if (state->device)
        state->device->profiler = state->profiler.get();
    }
  } catch (...) {
    return -1;
  }
  return 0;
}

ONYX_API int64_t onyx_state_end_profiling(OnyxState *state) {
  if (!state)
    return -1;
  std::lock_guard<std::mutex> lock(state->mutex);
  try {
    std::string error;
    int64_t events = state->endProfiling(error);
    if (events < 0) {
      state->lastError = error;
      state->threadErrors[std::this_thread::get_id()] = error;
    }
    return events;
  } catch (...) {
    return -1;
  }
}

ONYX_API const char *onyx_state_metadata(const OnyxState *state) {
  return state ? state->metadataText.c_str() : nullptr;
}

} // extern "C"
