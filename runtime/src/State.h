//===- State.h - Sessions and calls: OnyxState and CallContext --*- C++ -*-===//
//
// A session (OnyxState) holds the parsed metadata of one model, the message
// of its last call and that call's memory statistics. onyxrt_run (Run.cpp)
// validates the inputs against the metadata, then runs the generated entry
// with a per-call context (CallContext) through which the generated code
// reaches its inputs, allocates its outputs and temporaries, and reports
// failures (Services.cpp). Session.cpp creates sessions and answers the
// onyx_state_* queries; Weights.cpp loads external weights.
//
// A session whose metadata names a device (`device cuda`) owns a Device
// (Device.h): inputs are uploaded when a call starts, outputs, temporaries
// and pools are device memory, and outputs are copied back into the
// caller's host tensors when the call succeeds. Sequence and optional
// values take the same two paths element by element (Sequence.h).
//
// Threads: a session serializes its calls. Every entry point that reads or
// writes the session's mutable state (the pools, the placement cache, the
// statistics, the held device outputs, the fault injection) holds
// OnyxState::mutex, onyxrt_run for the whole call; the generated code's
// services run inside that call and take no lock. The message of a call is
// also kept per calling thread, so that a thread reads the message of its
// own call even when another thread's call finished in between
// (docs/runtime.md, "Threads").
//
// Nothing in these files lets an exception escape into C code or aborts.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_STATE_H
#define ONYX_RUNTIME_STATE_H

#include "Device.h"
#include "GraphCache.h"
#include "Internal.h"
#include "Profile.h"
#include "Sequence.h"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

struct OnyxState {
  std::string metadataText;
  onyx::rt::ModelMetadata metadata;
  int32_t (*entry)(void *) = nullptr;
  /// Held by onyxrt_run for a whole call and by every other entry point
  /// that touches the fields below metadata/entry: one call at a time.
  mutable std::mutex mutex;
  /// Message of the session's most recent call (any thread).
  std::string lastError;
  /// Message of each calling thread's most recent call: what
  /// onyx_state_last_error returns to that thread. A thread's entry is only
  /// written by its own calls, so the pointer handed out stays valid until
  /// that thread calls again (std::map nodes do not move).
  std::map<std::thread::id, std::string> threadErrors;
  OnyxMemoryStats stats = {};
  /// Bytes the session keeps between calls: the capacity of its pools.
  uint64_t retainedBytes = 0;
  /// The memory limit (docs/runtime.md, "Memory limit"): what one call may
  /// hold through the allocation services (its outputs and live
  /// temporaries, plus the session's pools). UINT64_MAX: none.
  uint64_t memoryLimit = UINT64_MAX;
  /// Session pools by domain id; they grow on demand and live until the
  /// state is destroyed or trimmed.
  struct Pool {
    void *data = nullptr;
    uint64_t capacity = 0;
    uint64_t requested = 0; ///< by the last call
  };
  std::map<int64_t, Pool> pools;
  /// Last run-time layout per domain (onyxrt_place_temps), reused while the
  /// sizes repeat.
  struct CachedPlacement {
    std::vector<int64_t> bytes;
    std::vector<int64_t> offsets;
    int64_t totalBytes = 0;
  };
  std::map<int64_t, CachedPlacement> placements;
  /// Host synchronizations for readbacks (onyxrt_host_sync): in the last
  /// call, over all calls, and the number of calls.
  uint64_t lastCallSyncs = 0, totalSyncs = 0, calls = 0;
  /// Fault injection: the `faultReadbackAt`-th host synchronization from
  /// now on fails (0: none). Set by onyx_state_inject_fault or the
  /// ONYX_FAULT_INJECT=readback:N environment variable at state creation.
  uint64_t faultReadbackAt = 0, syncsSinceFaultArmed = 0;
  /// The external weights file, read once per session into memory it owns
  /// (not mapped: a file truncated later would raise SIGBUS at a weight's
  /// first use, and one changed in place would be used unchecked).
  void *weightsData = nullptr;
  size_t weightsSize = 0;
  /// Per weight: its values converted at load (WeightSpec::convertTo), in
  /// memory the session owns; NULL for a weight used as stored.
  std::vector<void *> convertedWeights;

  /// Profiling (onyx_state_enable_profiling): the trace being recorded,
  /// NULL when off. Declared before `device`, which adds its kernels' events
  /// until it is destroyed.
  std::unique_ptr<onyx::rt::Profiler> profiler;
  /// Where tensors live while the generated code runs; NULL: the host.
  std::unique_ptr<onyx::rt::Device> device;
  /// IO binding (onyx_state_set_device_outputs): outputs stay on the
  /// device; the last call's output buffers, released by the next call.
  bool deviceOutputs = false;
  std::vector<void *> heldOutputs;
  /// CUDA graphs (docs/runtime.md, "CUDA graphs"): the session's recorded
  /// calls when enabled (NULL: off). Declared after `device`, whose memory
  /// the graphs own, so destroyed before it. `graphsOff`: why this session
  /// runs without them although they are enabled ("" when it does not);
  /// `graphsLastFailure`: why the last capture failed; `lastCallGraph`:
  /// how the last call ran (ONYX_GRAPH_* of onyx_runtime.h).
  std::unique_ptr<onyx::rt::GraphCache> graphs;
  std::string graphsOff, graphsLastFailure;
  int32_t lastCallGraph = 0;
  uint64_t lastGraphNodes = 0;

  void releaseHeldOutputs() {
    for (void *ptr : heldOutputs)
      if (device)
        device->release(ptr);
    heldOutputs.clear();
  }

  void trimPools() {
    for (auto &entry : pools) {
      if (device)
        device->release(entry.second.data);
      else
        std::free(entry.second.data);
    }
    pools.clear();
    retainedBytes = 0;
  }
  /// Writes the trace (kernels still pending included) and stops
  /// profiling; the number of events, or -1 with `error` set.
  int64_t endProfiling(std::string &error) {
    if (!profiler) {
      error = "profiling is not enabled on this session";
      return -1;
    }
    if (device)
      device->flushProfile();
    int64_t events = int64_t(profiler->numEvents());
    bool ok = profiler->write(error);
    if (device)
      device->profiler = nullptr;
    profiler.reset();
    return ok ? events : -1;
  }
  ~OnyxState() {
    if (profiler) {
      std::string ignored;
      endProfiling(ignored);
    }
    releaseHeldOutputs();
    trimPools();
    onyx::rt::freeAligned(weightsData);
    for (void *converted : convertedWeights)
      onyx::rt::freeAligned(converted);
  }
};

namespace onyx {
namespace rt {

/// Everything one onyxrt_run call owns. The generated code sees it as the
/// opaque `ctx` pointer. Its destructor frees whatever is still owned.
struct CallContext {
  /// Distinguishes a real context from garbage in debug checks.
  static constexpr uint64_t kMagic = 0x4f4e59585f435458ull; // "ONYX_CTX"
  uint64_t magic = kMagic;
  OnyxState *state;
  /// The inputs the generated code sees: the caller's list, or `bound`.
  const OnyxTensorList *inputs;
  /// When a bool input holds bytes other than 0/1: the caller's tensors,
  /// with those inputs replaced by canonical copies (owned, in `owned`).
  OnyxTensorList bound;
  std::vector<OnyxTensor *> owned;
  std::vector<OnyxTensor *> outputs;
  /// Live temporaries and their accounted (aligned) sizes.
  std::unordered_map<void *, uint64_t> temps;
  uint64_t liveTempBytes = 0;
  OnyxMemoryStats stats = {};
  /// Planned temporaries reported by onyxrt_record_temp.
  struct PlannedTemp {
    int64_t start, end;
    uint64_t bytes;
  };
  std::vector<PlannedTemp> planned;
  /// Node names of each pool's temporaries (onyxrt_pool_names): count and
  /// the artifact's constant of NUL-terminated names, for error messages.
  std::map<int64_t, std::pair<int64_t, const char *>> poolNames;
  bool failed = false;
  std::string error;
  /// Device sessions: the device copies of the inputs and the device
  /// buffers of the outputs (temps then hold device pointers too).
  Device *device;
  std::vector<void *> deviceInputs;
  std::vector<void *> deviceOutputs;
  /// Sequences and their elements made by this call (Sequence.h).
  SequenceStore sequences;

  CallContext(OnyxState *callState, const OnyxTensorList *callInputs)
      : state(callState), inputs(callInputs),
        outputs(callState->metadata.outputs.size(), nullptr),
        device(callState->device.get()), sequences(device) {
    if (device) {
      deviceInputs.assign(callState->metadata.inputs.size(), nullptr);
      deviceOutputs.assign(outputs.size(), nullptr);
    }
  }

  ~CallContext() {
    for (OnyxTensor *tensor : owned)
      destroyTensor(tensor);
    for (auto &entry : temps)
      releaseBuffer(entry.first);
    for (void *ptr : deviceInputs)
      releaseBuffer(ptr);
    for (void *ptr : deviceOutputs)
      releaseBuffer(ptr);
    for (OnyxTensor *tensor : outputs)
      destroyTensor(tensor);
  }

  /// Bool inputs (tensors and sequence elements) whose bytes are not all
  /// 0/1 are replaced, for this call, by copies in which every non-zero
  /// byte is 1: the generated code assumes canonical bools (Compress and
  /// NonZero count them, If and Where test one bit). The caller's tensors
  /// are not modified. Device tensors (IO binding) are used as they are.
  bool bindInputs(std::string &error) {
    for (size_t i = 0; i < inputs->tensors.size(); ++i) {
      if (!hasNonCanonicalBools(inputs->tensors[i]))
        continue;
      if (inputs != &bound) {
        bound.tensors = inputs->tensors;
        inputs = &bound;
      }
      std::string why;
      OnyxTensor *copy = copyWithCanonicalBools(bound.tensors[i], why);
      if (!copy) {
        error = "input '" + state->metadata.inputs[i].name + "' (index " +
                std::to_string(i) + "): normalizing its bool bytes: " + why;
        return false;
      }
      owned.push_back(copy);
      bound.tensors[i] = copy;
    }
    return true;
  }

  void releaseBuffer(void *ptr) {
    if (!ptr)
      return;
    if (device)
      device->release(ptr);
    else
      freeAligned(ptr);
  }

  /// Bytes this call holds through the allocation services: its outputs,
  /// its live temporaries and the session's pools.
  uint64_t heldBytes() const {
    return stats.outputBytes + liveTempBytes + state->retainedBytes;
  }

  /// Checks that `bytes` more bytes stay within the session's memory limit;
  /// otherwise records "<what>: ... exceeds the memory limit" and returns
  /// false. Called before every allocation whose size the data decides.
  bool withinLimit(uint64_t bytes, const std::string &what) {
    uint64_t limit = state->memoryLimit, held = heldBytes();
    if (bytes <= limit && held <= limit - bytes)
      return true;
    fail(what + ": " + std::to_string(bytes) +
         " bytes would exceed the session's memory limit of " +
         std::to_string(limit) + " bytes (" + std::to_string(held) +
         " in use by outputs, temporaries and pools; set with "
         "ONYX_MAX_ALLOC_BYTES or onyx_state_set_memory_limit)");
    return false;
  }

  /// Records the first failure of the call; later ones are consequences.
  void fail(const std::string &message) {
    if (failed)
      return;
    failed = true;
    try {
      error = message;
    } catch (...) {
      error.clear(); // Out of memory: an empty message is reported as such.
    }
  }
};

/// Plan statistics of a call (summarizePlan, Run.cpp): the sum of planned
/// bytes and the maximum over program points of the bytes live there.
void summarizePlan(CallContext &ctx);

/// The call behind the generated code's `ctx`, NULL for anything else.
inline CallContext *asContext(void *ctx) {
  auto *context = static_cast<CallContext *>(ctx);
  if (!context || context->magic != CallContext::kMagic)
    return nullptr;
  return context;
}

inline std::string quoted(const std::string &name) { return "'" + name + "'"; }

/// "input 'NAME' (index I)".
std::string inputLabel(const ModelMetadata &md, size_t index);

/// Reads the model's external weights file into the session (Weights.cpp);
/// false with `error` set when it is missing or does not match.
bool loadWeights(OnyxState &state, const OnyxModelDesc &desc,
                 const char *weightsPath, std::string &error);

} // namespace rt
} // namespace onyx

#endif // ONYX_RUNTIME_STATE_H
