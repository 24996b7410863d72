//===- Session.cpp - Sessions, onyxrt_run and the generated-code services -===//
//
// A session (OnyxState) holds the parsed metadata of one model, the message
// of its last call and that call's memory statistics. onyxrt_run validates
// the inputs against the metadata, then runs the generated entry with a
// per-call context (CallContext) through which the generated code reaches
// its inputs, allocates its outputs and temporaries, and reports failures.
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
// Nothing in this file lets an exception escape into C code or aborts.
//
//===----------------------------------------------------------------------===//
#include "Device.h"
#include "Internal.h"
#include "PoolPlacement.h"
#include "Sequence.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <thread>
#include <unordered_map>

using namespace onyx::rt;

struct OnyxState {
  std::string metadataText;
  ModelMetadata metadata;
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

  /// Where tensors live while the generated code runs; NULL: the host.
  std::unique_ptr<Device> device;
  /// IO binding (onyx_state_set_device_outputs): outputs stay on the
  /// device; the last call's output buffers, released by the next call.
  bool deviceOutputs = false;
  std::vector<void *> heldOutputs;

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
  ~OnyxState() {
    releaseHeldOutputs();
    trimPools();
    freeAligned(weightsData);
  }
};

namespace {

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

/// Plan statistics of a call: the sum of planned bytes and the maximum over
/// program points of the bytes live there (a sweep over lifetime events).
void summarizePlan(CallContext &ctx) {
  std::vector<std::pair<int64_t, int64_t>> events; // (position, +/-bytes)
  for (const auto &t : ctx.planned) {
    ctx.stats.plannedTempBytes += t.bytes;
    events.push_back({t.start, int64_t(t.bytes)});
    events.push_back({t.end + 1, -int64_t(t.bytes)});
  }
  // At equal positions, releases (negative) come before acquisitions.
  std::sort(events.begin(), events.end());
  int64_t live = 0, peak = 0;
  for (const auto &e : events) {
    live += e.second;
    peak = std::max(peak, live);
  }
  ctx.stats.maxLiveBytes = uint64_t(peak);
  for (const auto &entry : ctx.state->pools) {
    if (entry.second.requested == 0)
      continue;
    ctx.stats.poolRequestedBytes += entry.second.requested;
    ctx.stats.numPools += 1;
  }
}

CallContext *asContext(void *ctx) {
  auto *context = static_cast<CallContext *>(ctx);
  if (!context || context->magic != CallContext::kMagic)
    return nullptr;
  return context;
}

std::string quoted(const std::string &name) { return "'" + name + "'"; }

std::string inputLabel(const ModelMetadata &md, size_t index) {
  return "input " + quoted(md.inputs[index].name) + " (index " +
         std::to_string(index) + ")";
}

/// Checks `inputs` against the metadata; false with `error` set otherwise.
bool validateInputs(const ModelMetadata &md, const OnyxTensorList *inputs,
                    std::string &error) {
  if (!inputs) {
    error = "the inputs list is NULL";
    return false;
  }
  if (inputs->tensors.size() != md.inputs.size()) {
    error = "expected " + std::to_string(md.inputs.size()) + " input" +
            (md.inputs.size() == 1 ? "" : "s") + ", got " +
            std::to_string(inputs->tensors.size());
    return false;
  }
  struct Binding {
    int64_t value;
    size_t input;
    size_t dim;
  };
  std::map<std::string, Binding> symbols;
  for (size_t i = 0; i < md.inputs.size(); ++i) {
    const ValueSpec &spec = md.inputs[i];
    const OnyxTensor *tensor = inputs->tensors[i];
    if (!tensor) {
      error = inputLabel(md, i) + " is NULL";
      return false;
    }
    if (spec.kind != ONYX_SIGNATURE_TENSOR ||
        tensor->kind != ONYX_VALUE_TENSOR) {
      // Sequences and optionals (docs/sequences.md): kinds and element
      // types; their dims are dynamic.
      std::string why;
      if (!validateValue(spec, tensor, why)) {
        error = inputLabel(md, i) + " " + why;
        return false;
      }
      continue;
    }
    if (tensor->elemType != spec.elemType) {
      error = inputLabel(md, i) + ": element type " +
              onyx_element_name(tensor->elemType) +
              ", but the model requires " + onyx_element_name(spec.elemType);
      return false;
    }
    if (static_cast<size_t>(tensor->rank) != spec.dims.size()) {
      error = inputLabel(md, i) + ": rank " + std::to_string(tensor->rank) +
              ", but the model requires rank " +
              std::to_string(spec.dims.size());
      return false;
    }
    std::string why;
    if (!checkSubByteElements(tensor, why)) {
      error = inputLabel(md, i) + ": " + why;
      return false;
    }
    for (size_t d = 0; d < spec.dims.size(); ++d) {
      const DimSpec &dim = spec.dims[d];
      int64_t actual = tensor->shape[d];
      if (dim.isStatic()) {
        if (actual != dim.extent) {
          error = inputLabel(md, i) + ": dim " + std::to_string(d) + " is " +
                  std::to_string(actual) + ", but the model requires " +
                  std::to_string(dim.extent);
          return false;
        }
        continue;
      }
      if (dim.symbol.empty())
        continue;
      auto inserted = symbols.emplace(dim.symbol, Binding{actual, i, d});
      const Binding &bound = inserted.first->second;
      if (!inserted.second && bound.value != actual) {
        error = inputLabel(md, i) + ": dim " + std::to_string(d) + " is " +
                std::to_string(actual) + ", but symbol " + quoted(dim.symbol) +
                " was bound to " + std::to_string(bound.value) + " by input " +
                quoted(md.inputs[bound.input].name) + " dim " +
                std::to_string(bound.dim);
        return false;
      }
    }
  }
  return true;
}

/// Records "<what> <value> out of range" without letting bad_alloc escape.
void failOutOfRange(CallContext *c, const char *what, int64_t value) {
  try {
    c->fail(std::string(what) + " " + std::to_string(value) + " out of range");
  } catch (...) {
    c->fail(std::string());
  }
}

std::string formatMessage(const char *format, int64_t numArgs,
                          const int64_t args[4]) {
  if (!format)
    return "model failed (no message)";
  std::string out;
  for (const char *p = format; *p; ++p) {
    if (p[0] == '{' && p[1] >= '0' && p[1] <= '3' && p[2] == '}' &&
        p[1] - '0' < numArgs) {
      out += std::to_string(args[p[1] - '0']);
      p += 2;
      continue;
    }
    out.push_back(*p);
  }
  return out;
}

/// Device sessions, at the start of a call: makes the device current and
/// uploads every input.
bool uploadInputs(CallContext &ctx, std::string &error) {
  if (!ctx.device->beginCall(error))
    return false;
  const ModelMetadata &md = ctx.state->metadata;
  for (size_t i = 0; i < ctx.deviceInputs.size(); ++i) {
    const OnyxTensor *tensor = ctx.inputs->tensors[i];
    std::string why;
    if (md.inputs[i].kind != ONYX_SIGNATURE_TENSOR) {
      // A sequence or optional (docs/sequences.md): each element is
      // uploaded into device memory the call's sequence store owns.
      if (ctx.sequences.uploadInput(i, tensor, why))
        continue;
      error = "copying " + inputLabel(md, i) + " to the " + ctx.device->name() +
              " device: " + why;
      return false;
    }
    if (tensor->onDevice)
      continue; // IO binding: read in place (onyxrt_input_data)
    void *data = ctx.device->allocate(tensor->byteSize, why);
    if (data) {
      ctx.deviceInputs[i] = data;
      if (ctx.device->upload(data, tensor->data, tensor->byteSize, why))
        continue;
    }
    error = "copying " + inputLabel(md, i) + " to the " + ctx.device->name() +
            " device: " + why;
    return false;
  }
  return true;
}

/// Device sessions, after a successful run: copies the outputs (tensors,
/// and the elements of sequence/optional outputs) into the host tensors
/// and waits for the device.
bool downloadOutputs(CallContext &ctx, std::string &error) {
  const ModelMetadata &md = ctx.state->metadata;
  std::string why;
  if (!ctx.sequences.finishDownloads(why)) {
    error = "copying a sequence or optional output to the host: " + why;
    return false;
  }
  for (size_t k = 0; k < ctx.outputs.size(); ++k) {
    OnyxTensor *tensor = ctx.outputs[k];
    if (!tensor || !ctx.deviceOutputs[k])
      continue;
    if (ctx.state->deviceOutputs) {
      // IO binding: the tensor takes the device buffer, which the session
      // keeps until the next call.
      freeAligned(tensor->data);
      tensor->data = ctx.deviceOutputs[k];
      tensor->onDevice = true;
      tensor->ownsData = false;
      ctx.state->heldOutputs.push_back(ctx.deviceOutputs[k]);
      ctx.deviceOutputs[k] = nullptr;
      continue;
    }
    if (!ctx.device->download(tensor->data, ctx.deviceOutputs[k],
                              tensor->byteSize, why)) {
      error = "copying output " + std::to_string(k) + " " +
              quoted(md.outputs[k].name) + " to the host: " + why;
      return false;
    }
  }
  if (!ctx.device->synchronize(why)) {
    error = "running the model on the " + std::string(ctx.device->name()) +
            " device: " + why;
    return false;
  }
  return true;
}

} // namespace

namespace onyx {
namespace rt {

Device *callDevice(void *ctx) {
  CallContext *c = asContext(ctx);
  return c ? c->device : nullptr;
}

SequenceStore *callSequenceStore(void *ctx) {
  CallContext *c = asContext(ctx);
  return c ? &c->sequences : nullptr;
}

const OnyxTensor *callInputValue(void *ctx, int64_t index) {
  CallContext *c = asContext(ctx);
  if (!c || index < 0 || size_t(index) >= c->inputs->tensors.size())
    return nullptr;
  return c->inputs->tensors[index];
}

const ValueSpec *callOutputSpec(void *ctx, int64_t index) {
  CallContext *c = asContext(ctx);
  if (!c || index < 0 || size_t(index) >= c->state->metadata.outputs.size())
    return nullptr;
  return &c->state->metadata.outputs[index];
}

bool setCallOutput(void *ctx, int64_t index, OnyxTensor *value) {
  CallContext *c = asContext(ctx);
  if (!c || index < 0 || size_t(index) >= c->outputs.size() ||
      c->outputs[index])
    return false;
  c->outputs[index] = value;
  return true;
}

void failCall(void *ctx, const std::string &message) {
  if (CallContext *c = asContext(ctx)) {
    try {
      c->fail(message);
    } catch (...) {
      c->fail(std::string());
    }
  }
}

} // namespace rt
} // namespace onyx

extern "C" {

//===----------------------------------------------------------------------===//
// Sessions
//===----------------------------------------------------------------------===//

namespace {

/// Directory of the shared object that holds `address` (the artifact).
std::string artifactDirectory(const void *address) {
  Dl_info info;
  if (!dladdr(address, &info) || !info.dli_fname)
    return ".";
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

/// Why `location` (a weight's file as the metadata names it) is not a safe
/// relative location, "" when it is: absolute, empty, a `..` component or a
/// NUL byte (lib/Import/ExternalData.cpp applies the same rule at compile
/// time).
std::string unsafeLocationReason(const std::string &location) {
  if (location.empty())
    return "is empty";
  if (location.find('\0') != std::string::npos)
    return "contains a NUL byte";
  if (location.front() == '/' || location.front() == '\\' ||
      (location.size() >= 2 && location[1] == ':'))
    return "is an absolute path";
  size_t start = 0;
  while (start <= location.size()) {
    size_t end = location.find_first_of("/\\", start);
    if (end == std::string::npos)
      end = location.size();
    if (location.compare(start, end - start, "..") == 0)
      return "has a '..' component";
    start = end + 1;
  }
  return "";
}

/// True when the file `path` resolves (symlinks followed) inside the
/// directory `dir`; `resolved` receives the file's real path.
bool resolvesInside(const std::string &path, const std::string &dir,
                    std::string &resolved) {
  char *file = realpath(path.c_str(), nullptr);
  char *base = realpath(dir.c_str(), nullptr);
  bool inside = false;
  if (file && base) {
    std::string f = file, b = base;
    resolved = f;
    inside = b == "/" || (f.size() > b.size() &&
                          f.compare(0, b.size(), b) == 0 && f[b.size()] == '/');
  }
  std::free(file);
  std::free(base);
  return inside;
}

/// Reads the weights file into session memory and checks every weight's
/// extent and checksum. The file is copied, not mapped, so that nothing done
/// to it after session creation (truncation, rewriting) can crash or change
/// a running model (docs/runtime.md, "External weights").
bool loadWeights(OnyxState &state, const OnyxModelDesc &desc,
                 const char *weightsPath, std::string &error) {
  const auto &weights = state.metadata.weights;
  if (weights.empty())
    return true;
  for (const WeightSpec &w : weights)
    if (w.location != weights.front().location) {
      error = "the model's weights are spread over several files; this "
              "runtime loads one";
      return false;
    }
  // A file, a directory holding the model's weights file, or (default) the
  // artifact's directory. The model's location must stay inside the
  // directory it is looked up in; a file given by the caller is taken as is.
  const std::string &location = weights.front().location;
  std::string path, dir;
  struct stat given;
  if (weightsPath && *weightsPath && stat(weightsPath, &given) == 0 &&
      S_ISDIR(given.st_mode))
    dir = weightsPath;
  else if (weightsPath && *weightsPath)
    path = weightsPath;
  else
    dir = artifactDirectory(desc.metadata);
  if (path.empty()) {
    std::string why = unsafeLocationReason(location);
    if (!why.empty()) {
      error = "the model's weights file location '" + location + "' " + why +
              " (it must be a relative path inside the artifact's or the "
              "given directory)";
      return false;
    }
    path = dir + "/" + location;
    std::string resolved;
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && !resolvesInside(path, dir, resolved)) {
      error = "the weights file '" + path + "' resolves to '" + resolved +
              "', outside '" + dir + "' (a symbolic link?)";
      return false;
    }
  }
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error =
        "cannot open the weights file '" + path + "': " + std::strerror(errno);
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = "the weights file '" + path + "' is not a regular file";
    close(fd);
    return false;
  }
  // Only the bytes the weights use are read (a file may hold more).
  size_t size = size_t(st.st_size), needed = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (uint64_t(weights[i].offset) + uint64_t(weights[i].length) > size) {
      error = "the weights file '" + path + "' holds " + std::to_string(size) +
              " bytes, but weight " + std::to_string(i) + " needs bytes " +
              std::to_string(weights[i].offset) + ".." +
              std::to_string(weights[i].offset + weights[i].length);
      close(fd);
      return false;
    }
    needed = std::max(needed, size_t(weights[i].offset + weights[i].length));
  }
  void *data = allocAligned(needed);
  if (!data) {
    error = "out of memory reading the weights file '" + path + "' (" +
            std::to_string(needed) + " bytes)";
    close(fd);
    return false;
  }
  size_t done = 0;
  while (done < needed) {
    ssize_t n =
        pread(fd, static_cast<char *>(data) + done, needed - done, off_t(done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = "reading the weights file '" + path + "': " +
              (n == 0 ? std::string("it became shorter while being read")
                      : std::string(std::strerror(errno)));
      freeAligned(data);
      close(fd);
      return false;
    }
    done += size_t(n);
  }
  close(fd);
  state.weightsData = data;
  state.weightsSize = needed;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (weights[i].checksum == 0)
      continue;
    uint64_t sum =
        fnv1a64(static_cast<unsigned char *>(data) + weights[i].offset,
                size_t(weights[i].length));
    if (sum == 0)
      sum = 1;
    if (sum != weights[i].checksum) {
      error = "the weights file '" + path +
              "' does not match the model: "
              "checksum of weight " +
              std::to_string(i) + " differs";
      return false;
    }
  }
  return true;
}

} // namespace

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

ONYX_API OnyxState *onyxrt_state_create_with_weights(const OnyxModelDesc *desc,
                                                     const char *weightsPath,
                                                     const char **errorOut) {
  std::string &error = threadCreateError();
  try {
    error.clear();
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
      } else if (!state->metadata.device.empty() &&
                 !(state->device =
                       createDevice(state->metadata.device, message))) {
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

ONYX_API const char *onyxrt_state_create_error(void) {
  return threadCreateError().c_str();
}

ONYX_API void onyxrt_state_destroy(OnyxState *state) { delete state; }

namespace {

/// onyxrt_run with the session's mutex held.
OnyxTensorList *runLocked(OnyxState *state, const OnyxTensorList *inputs) {
  try {
    state->lastError.clear();
    state->stats = OnyxMemoryStats();
    state->stats.retainedBytes = state->retainedBytes;

    std::string error;
    if (!validateInputs(state->metadata, inputs, error)) {
      state->lastError = error;
      return nullptr;
    }

    for (size_t i = 0; i < inputs->tensors.size(); ++i) {
      if (inputs->tensors[i]->onDevice && !state->device) {
        state->lastError = inputLabel(state->metadata, i) +
                           " is device memory, but this model runs on the "
                           "host";
        return nullptr;
      }
      for (const OnyxTensor *element : inputs->tensors[i]->elements)
        if (element->onDevice) {
          state->lastError =
              inputLabel(state->metadata, i) +
              ": device tensors inside sequences are not supported";
          return nullptr;
        }
    }
    // The previous call's device outputs (IO binding) are released when
    // this call returns: the caller may pass them in as inputs.
    struct ReleaseAtReturn {
      OnyxState *state;
      std::vector<void *> held;
      ~ReleaseAtReturn() {
        for (void *ptr : held)
          state->device->release(ptr);
      }
    } previous{state, {}};
    previous.held.swap(state->heldOutputs);
    CallContext ctx(state, inputs);
    state->calls++;
    state->lastCallSyncs = 0;
    if (!ctx.bindInputs(error)) {
      state->lastError = error;
      return nullptr;
    }
    if (ctx.device && !uploadInputs(ctx, error)) {
      state->lastError = error;
      return nullptr;
    }
    for (auto &entry : state->pools)
      entry.second.requested = 0;
    int32_t status = state->entry(&ctx);
    summarizePlan(ctx);
    ctx.stats.retainedBytes = state->retainedBytes;
    state->stats = ctx.stats;
    if (status != 0 || ctx.failed) {
      if (!ctx.error.empty())
        state->lastError = ctx.error;
      else if (ctx.failed)
        state->lastError = "out of memory";
      else
        state->lastError = "model failed with status " +
                           std::to_string(status) + " (no message recorded)";
      return nullptr;
    }
    for (size_t k = 0; k < ctx.outputs.size(); ++k) {
      if (!ctx.outputs[k]) {
        state->lastError = "output " + std::to_string(k) +
                           " was not produced (" +
                           quoted(state->metadata.outputs[k].name) + ")";
        return nullptr;
      }
    }
    if (ctx.device && !downloadOutputs(ctx, error)) {
      state->lastError = error;
      return nullptr;
    }
    OnyxTensorList *result = new OnyxTensorList();
    result->tensors = std::move(ctx.outputs); // May throw; ctx still owns.
    ctx.outputs.clear();
    return result;
  } catch (const std::bad_alloc &) {
    state->lastError = "out of memory";
  } catch (...) {
    state->lastError = "unexpected failure in onyxrt_run";
  }
  return nullptr;
}

/// Threads whose entry in threadErrors is kept at most (beyond them, those
/// whose last call succeeded are forgotten: they read "" either way).
constexpr size_t kMaxThreadErrors = 256;

} // namespace

ONYX_API OnyxTensorList *onyxrt_run(OnyxState *state,
                                    const OnyxTensorList *inputs) {
  if (!state)
    return nullptr;
  std::lock_guard<std::mutex> lock(state->mutex);
  OnyxTensorList *result = runLocked(state, inputs);
  try {
    auto &errors = state->threadErrors;
    std::thread::id self = std::this_thread::get_id();
    if (errors.size() >= kMaxThreadErrors && !errors.count(self))
      for (auto it = errors.begin(); it != errors.end();)
        it = it->second.empty() ? errors.erase(it) : std::next(it);
    errors[self] = state->lastError;
  } catch (...) {
    // Out of memory recording the message: this thread reads the
    // session's message instead.
    state->threadErrors.erase(std::this_thread::get_id());
  }
  return result;
}

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

ONYX_API int onyx_state_set_memory_limit(OnyxState *state, uint64_t bytes) {
  if (!state || bytes == 0)
    return -1;
  std::lock_guard<std::mutex> lock(state->mutex);
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

ONYX_API const char *onyx_state_metadata(const OnyxState *state) {
  return state ? state->metadataText.c_str() : nullptr;
}

//===----------------------------------------------------------------------===//
// Services called by generated code
//===----------------------------------------------------------------------===//

ONYX_API void *onyxrt_input_data(void *ctx, int64_t index) {
  CallContext *c = asContext(ctx);
  if (!c)
    return nullptr;
  if (index < 0 || static_cast<size_t>(index) >= c->inputs->tensors.size()) {
    failOutOfRange(c, "onyxrt_input_data: input index", index);
    return nullptr;
  }
  if (c->device && !c->inputs->tensors[index]->onDevice)
    return c->deviceInputs[index];
  return c->inputs->tensors[index]->data;
}

ONYX_API int64_t onyxrt_input_dim(void *ctx, int64_t index, int64_t dim) {
  CallContext *c = asContext(ctx);
  if (!c)
    return -1;
  if (index < 0 || static_cast<size_t>(index) >= c->inputs->tensors.size()) {
    failOutOfRange(c, "onyxrt_input_dim: input index", index);
    return -1;
  }
  const OnyxTensor *tensor = c->inputs->tensors[index];
  if (dim < 0 || dim >= tensor->rank) {
    failOutOfRange(c, "onyxrt_input_dim: dim", dim);
    return -1;
  }
  return tensor->shape[dim];
}

ONYX_API void *onyxrt_alloc_output(void *ctx, int64_t index, int64_t rank,
                                   const int64_t *shape) {
  CallContext *c = asContext(ctx);
  if (!c)
    return nullptr;
  try {
    const ModelMetadata &md = c->state->metadata;
    if (index < 0 || static_cast<size_t>(index) >= md.outputs.size()) {
      c->fail("onyxrt_alloc_output: output index " + std::to_string(index) +
              " out of range (the model has " +
              std::to_string(md.outputs.size()) + " outputs)");
      return nullptr;
    }
    const ValueSpec &spec = md.outputs[index];
    std::string label =
        "output " + std::to_string(index) + " " + quoted(spec.name);
    if (c->outputs[index]) {
      c->fail(label + " allocated twice");
      return nullptr;
    }
    if (rank != static_cast<int64_t>(spec.dims.size())) {
      c->fail(label + ": allocated with rank " + std::to_string(rank) +
              ", but the model declares rank " +
              std::to_string(spec.dims.size()));
      return nullptr;
    }
    for (int64_t d = 0; d < rank && shape; ++d) {
      const DimSpec &dim = spec.dims[d];
      if (dim.isStatic() && shape[d] != dim.extent) {
        c->fail(label + ": dim " + std::to_string(d) + " is " +
                std::to_string(shape[d]) + ", but the model declares " +
                std::to_string(dim.extent));
        return nullptr;
      }
    }
    // The bytes it will take, saturated (createTensor reports overflow).
    uint64_t want = onyx_element_size(spec.elemType);
    bool empty = false;
    for (int64_t d = 0; d < rank && shape; ++d)
      empty |= shape[d] == 0;
    for (int64_t d = 0; d < rank && shape && !empty; ++d)
      if (shape[d] > 0)
        want = want > UINT64_MAX / uint64_t(shape[d])
                   ? UINT64_MAX
                   : want * uint64_t(shape[d]);
    if (empty)
      want = 0;
    if (!c->withinLimit(want, label))
      return nullptr;
    std::string error;
    OnyxTensor *tensor =
        createTensor(spec.elemType, rank, shape, /*zero=*/true, error);
    if (!tensor) {
      c->fail(label + ": " + error);
      return nullptr;
    }
    c->outputs[index] = tensor;
    c->stats.outputBytes += tensor->byteSize;
    if (c->device) {
      void *data = c->device->allocate(tensor->byteSize, error);
      if (!data) {
        c->fail(label + ": " + error);
        return nullptr;
      }
      c->deviceOutputs[index] = data;
      return data;
    }
    return tensor->data;
  } catch (...) {
    c->fail("out of memory allocating output " + std::to_string(index));
    return nullptr;
  }
}

ONYX_API void *onyxrt_alloc_temp(void *ctx, int64_t bytes) {
  CallContext *c = asContext(ctx);
  if (!c)
    return nullptr;
  void *ptr = nullptr;
  try {
    if (bytes < 0) {
      c->fail("onyxrt_alloc_temp: negative size " + std::to_string(bytes));
      return nullptr;
    }
    // Accounted at the runtime's alignment (what a pool would need); the
    // block itself is never smaller than one alignment unit.
    size_t accounted;
    if (static_cast<uint64_t>(bytes) > SIZE_MAX ||
        !alignedSize(static_cast<size_t>(bytes), accounted)) {
      c->fail("onyxrt_alloc_temp: size " + std::to_string(bytes) +
              " is too large");
      return nullptr;
    }
    if (bytes == 0)
      accounted = 0;
    if (!c->withinLimit(accounted, "allocating a temporary"))
      return nullptr;
    if (c->device) {
      std::string error;
      ptr = c->device->allocate(static_cast<size_t>(bytes), error);
      if (!ptr) {
        c->fail("allocating a temporary of " + std::to_string(bytes) +
                " bytes: " + error);
        return nullptr;
      }
    } else {
      ptr = allocAligned(static_cast<size_t>(bytes));
    }
    if (!ptr) {
      c->fail("out of memory allocating a temporary of " +
              std::to_string(bytes) + " bytes");
      return nullptr;
    }
    c->temps.emplace(ptr, accounted);
    c->liveTempBytes += accounted;
    c->stats.tempBytesRequested += accounted;
    c->stats.tempAllocations += 1;
    c->stats.tempPeakBytes = std::max(c->stats.tempPeakBytes, c->liveTempBytes);
    return ptr;
  } catch (...) {
    if (ptr && !c->temps.count(ptr))
      c->releaseBuffer(ptr);
    c->fail(std::string());
    return nullptr;
  }
}

ONYX_API void onyxrt_free_temp(void *ctx, void *ptr) {
  CallContext *c = asContext(ctx);
  if (!c || !ptr)
    return;
  auto it = c->temps.find(ptr);
  if (it == c->temps.end()) {
    static const char *message = "onyxrt_free_temp: pointer was not allocated "
                                 "by onyxrt_alloc_temp in this call (or was "
                                 "freed twice)";
    try {
      c->fail(message);
    } catch (...) {
      c->fail(std::string());
    }
    return;
  }
  c->liveTempBytes -= it->second;
  c->releaseBuffer(ptr);
  c->temps.erase(it);
}

ONYX_API void *onyxrt_get_pool(void *ctx, int64_t domainId, int64_t bytes) {
  constexpr uint64_t kPoolAlignment = 256;
  CallContext *c = asContext(ctx);
  if (!c)
    return nullptr;
  try {
    if (bytes < 0) {
      c->fail("onyxrt_get_pool: negative size " + std::to_string(bytes));
      return nullptr;
    }
    OnyxState::Pool &pool = c->state->pools[domainId];
    uint64_t want = uint64_t(bytes);
    pool.requested = std::max(pool.requested, want);
    if (pool.data && pool.capacity >= want)
      return pool.data;
    // Grow: the contents of a domain's pool never outlive one request.
    if (want > UINT64_MAX - kPoolAlignment) {
      c->fail("onyxrt_get_pool: size " + std::to_string(bytes) +
              " is too large");
      return nullptr;
    }
    uint64_t capacity =
        std::max<uint64_t>(kPoolAlignment, (want + kPoolAlignment - 1) /
                                               kPoolAlignment * kPoolAlignment);
    // The pool grows by replacing its block: the new one is counted in
    // full while the old one is still held.
    if (!c->withinLimit(capacity, "growing pool " + std::to_string(domainId)))
      return nullptr;
    std::string why = "out of memory";
    void *data = c->device ? c->device->allocate(capacity, why)
                           : std::aligned_alloc(kPoolAlignment, capacity);
    if (!data) {
      c->fail("growing pool " + std::to_string(domainId) + " to " +
              std::to_string(capacity) + " bytes: " + why);
      return nullptr;
    }
    c->state->retainedBytes -= pool.capacity;
    if (c->device)
      c->device->release(pool.data);
    else
      std::free(pool.data);
    pool.data = data;
    pool.capacity = capacity;
    c->state->retainedBytes += capacity;
    return data;
  } catch (...) {
    c->fail(std::string());
    return nullptr;
  }
}

ONYX_API void onyxrt_record_temp(void *ctx, int64_t domainId, int64_t start,
                                 int64_t end, int64_t bytes) {
  CallContext *c = asContext(ctx);
  if (!c || bytes < 0)
    return;
  (void)domainId;
  try {
    c->planned.push_back({start, end, uint64_t(bytes)});
  } catch (...) {
    c->fail(std::string());
  }
}

ONYX_API void *onyxrt_place_temps(void *ctx, int64_t domainId, int64_t count,
                                  const int64_t *bytes, const int64_t *table,
                                  int64_t staticRegionBytes, int64_t *offsets) {
  CallContext *c = asContext(ctx);
  if (!c)
    return nullptr;
  if (count < 0 || (count > 0 && (!bytes || !table || !offsets))) {
    c->fail("onyxrt_place_temps: invalid arguments for pool " +
            std::to_string(domainId));
    return nullptr;
  }
  try {
    auto n = size_t(count);
    for (size_t i = 0; i < n; ++i)
      if (bytes[i] < 0) {
        c->fail("onyxrt_place_temps: negative size " +
                std::to_string(bytes[i]) + " for temporary " +
                std::to_string(i) + " of pool " + std::to_string(domainId));
        return nullptr;
      }
    OnyxState::CachedPlacement &cached = c->state->placements[domainId];
    if (cached.bytes.size() != n ||
        !std::equal(cached.bytes.begin(), cached.bytes.end(), bytes)) {
      std::vector<onyx::rt::PlacedTemp> temps(n);
      for (size_t i = 0; i < n; ++i)
        temps[i] = {table[4 * i], table[4 * i + 1], bytes[i], table[4 * i + 2],
                    table[4 * i + 3]};
      onyx::rt::Placement placement =
          onyx::rt::placeTemps(temps, staticRegionBytes);
      cached.bytes.assign(bytes, bytes + n);
      cached.offsets = std::move(placement.offsets);
      cached.totalBytes = placement.totalBytes;
    }
    for (size_t i = 0; i < n; ++i) {
      offsets[i] = cached.offsets[i];
      c->planned.push_back(
          {table[4 * i], table[4 * i + 1], uint64_t(bytes[i])});
    }
    offsets[n] = cached.totalBytes;
    return onyxrt_get_pool(ctx, domainId, cached.totalBytes);
  } catch (...) {
    c->fail(std::string());
    return nullptr;
  }
}

ONYX_API int32_t onyxrt_host_sync(void *ctx, const char *site) {
  CallContext *c = asContext(ctx);
  if (!c)
    return 1;
  try {
    OnyxState *state = c->state;
    state->lastCallSyncs++;
    state->totalSyncs++;
    std::string where = site ? site : "a readback";
    if (state->faultReadbackAt &&
        ++state->syncsSinceFaultArmed == state->faultReadbackAt) {
      state->faultReadbackAt = 0; // one fault per arming
      c->fail(where + ": making a computed value visible to the host failed "
                      "(fault injected)");
      return 1;
    }
    std::string error;
    if (c->device && !c->device->synchronize(error)) {
      c->fail(where + ": synchronizing before a readback failed: " + error);
      return 1;
    }
    return 0;
  } catch (...) {
    c->fail(std::string());
    return 1;
  }
}

ONYX_API void *onyxrt_get_weight(void *ctx, int64_t index) {
  CallContext *c = asContext(ctx);
  if (!c)
    return nullptr;
  const auto &weights = c->state->metadata.weights;
  if (index < 0 || size_t(index) >= weights.size() || !c->state->weightsData) {
    c->fail("external weight " + std::to_string(index) + " is not loaded");
    return nullptr;
  }
  return static_cast<char *>(c->state->weightsData) + weights[index].offset;
}

ONYX_API void onyxrt_fail(void *ctx, const char *format, int64_t numArgs,
                          int64_t a0, int64_t a1, int64_t a2, int64_t a3) {
  CallContext *c = asContext(ctx);
  if (!c)
    return;
  const int64_t args[4] = {a0, a1, a2, a3};
  try {
    c->fail(formatMessage(format, numArgs, args));
  } catch (...) {
    c->fail(std::string());
  }
}

} // extern "C"
