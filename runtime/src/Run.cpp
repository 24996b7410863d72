//===- Run.cpp - onyxrt_run: validating, binding and running a call -------===//
//
// onyxrt_run validates the inputs against the metadata, uploads them for a
// device session, runs the generated entry with a CallContext (State.h),
// and hands the outputs to the caller (downloaded for a device session).
// The session's mutex is held for the whole call.
//
//===----------------------------------------------------------------------===//
#include "State.h"

#include <algorithm>
#include <map>
#include <new>

using namespace onyx::rt;

namespace onyx {
namespace rt {

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

std::string inputLabel(const ModelMetadata &md, size_t index) {
  return "input " + quoted(md.inputs[index].name) + " (index " +
         std::to_string(index) + ")";
}

} // namespace rt
} // namespace onyx

namespace {

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

namespace {

OnyxTensorList *runLocked(OnyxState *state, const OnyxTensorList *inputs);

/// runLocked, with the call's event when the session is profiling.
OnyxTensorList *runProfiled(OnyxState *state, const OnyxTensorList *inputs) {
  Profiler *profiler = state->profiler.get();
  if (!profiler)
    return runLocked(state, inputs);
  double start = profiler->nowUs();
  OnyxTensorList *result = runLocked(state, inputs);
  try {
    ProfileEvent event;
    event.name = "onyxrt_run";
    event.category = "call";
    event.startUs = start;
    event.durationUs = profiler->nowUs() - start;
    event.args = {{"call", std::to_string(state->calls)},
                  {"ok", result ? "true" : "false"}};
    if (!result)
      event.args.push_back({"error", jsonString(state->lastError)});
    profiler->add(std::move(event));
  } catch (...) {
  }
  return result;
}

/// Launches `entry`'s graph for a call with (bound) `inputs`: uploads the
/// host inputs into the graph's buffers, launches it, and hands out the
/// outputs from the graph's buffers (downloaded, or copied into fresh
/// device buffers for IO binding: the graph's own never leave it).
OnyxTensorList *launchRecorded(OnyxState *state, const OnyxTensorList *inputs,
                               GraphCache::Entry &entry, std::string &error,
                               bool &stale) {
  Device &device = *state->device;
  const ModelMetadata &md = state->metadata;
  std::string why;
  for (size_t i = 0; i < entry.inputBuffers.size(); ++i) {
    const OnyxTensor *tensor = inputs->tensors[i];
    if (tensor->onDevice || !entry.inputBuffers[i])
      continue;
    if (!device.upload(entry.inputBuffers[i], tensor->data, tensor->byteSize,
                       why)) {
      error = "copying " + inputLabel(md, i) + " to the " + device.name() +
              " device: " + why;
      return nullptr;
    }
  }
  int launched = device.launchGraph(*entry.graph, why);
  if (launched == Device::kGraphStale) {
    stale = true;
    return nullptr;
  }
  if (launched != Device::kGraphOk) {
    error = "launching the call's CUDA graph: " + why;
    return nullptr;
  }
  state->lastCallSyncs = entry.graph->segments - 1;
  state->totalSyncs += entry.graph->segments - 1;
  struct Outputs {
    std::vector<OnyxTensor *> tensors;
    ~Outputs() {
      for (OnyxTensor *t : tensors)
        destroyTensor(t);
    }
  } outputs;
  for (size_t k = 0; k < entry.outputShapes.size(); ++k) {
    const std::vector<int64_t> &shape = entry.outputShapes[k];
    std::string label =
        "output " + std::to_string(k) + " " + quoted(md.outputs[k].name);
    OnyxTensor *tensor =
        createTensor(md.outputs[k].elemType, int64_t(shape.size()),
                     shape.data(), /*zero=*/!state->deviceOutputs, why);
    if (!tensor) {
      error = label + ": " + why;
      return nullptr;
    }
    outputs.tensors.push_back(tensor);
    if (state->deviceOutputs) {
      void *data = device.allocate(tensor->byteSize, why);
      if (!data) {
        error = label + ": " + why;
        return nullptr;
      }
      freeAligned(tensor->data);
      tensor->data = data;
      tensor->onDevice = true;
      tensor->ownsData = false;
      state->heldOutputs.push_back(data);
      if (!device.copy(data, entry.outputBuffers[k], tensor->byteSize, why)) {
        error = "copying " + label + " out of the CUDA graph: " + why;
        return nullptr;
      }
    } else if (!device.download(tensor->data, entry.outputBuffers[k],
                                tensor->byteSize, why)) {
      error = "copying " + label + " to the host: " + why;
      return nullptr;
    }
  }
  if (!device.synchronize(why)) {
    error = "running the model's CUDA graph on the " +
            std::string(device.name()) + " device: " + why;
    return nullptr;
  }
  OnyxTensorList *result = new OnyxTensorList();
  result->tensors = std::move(outputs.tensors);
  outputs.tensors.clear();
  state->stats = entry.stats;
  state->stats.retainedBytes = state->retainedBytes;
  return result;
}

/// One call through the generated code. With `capture`, its device work
/// is recorded into a graph for that entry and then launched; when the
/// recording fails, `fellBack` is set and nothing ran (the caller runs
/// the call again without recording). `transient`: the previous call's
/// outputs, released when this call returns.
OnyxTensorList *runCall(OnyxState *state, const OnyxTensorList *inputs,
                        GraphCache::Entry *capture,
                        const std::vector<void *> &transient, bool &fellBack) {
  std::string error;
  StringCallScope strings; // Outlives ctx: its outputs point into it.
  CallContext ctx(state, inputs);
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
  // A recording that fails leaves the host synchronization counters as
  // they were: the call runs again.
  const uint64_t syncs[4] = {state->lastCallSyncs, state->totalSyncs,
                             state->faultReadbackAt,
                             state->syncsSinceFaultArmed};
  auto fallBack = [&](const std::string &why) {
    state->lastCallSyncs = syncs[0];
    state->totalSyncs = syncs[1];
    state->faultReadbackAt = syncs[2];
    state->syncsSinceFaultArmed = syncs[3];
    state->graphsLastFailure = why;
    state->graphs->captureFailed(*capture);
    fellBack = true;
    return nullptr;
  };
  if (capture && !ctx.device->beginCapture(error))
    return fallBack(error);
  // An exception while recording still ends the recording.
  struct EndCapture {
    Device *device;
    bool active;
    ~EndCapture() {
      std::string ignored;
      if (active)
        device->endCapture(false, {}, {}, ignored);
    }
  } guard{ctx.device, capture != nullptr};
  int32_t status = state->entry(&ctx);
  summarizePlan(ctx);
  ctx.stats.retainedBytes = state->retainedBytes;
  if (capture) {
    guard.active = false;
    bool ok = status == 0 && !ctx.failed;
    for (OnyxTensor *tensor : ctx.outputs)
      ok = ok && tensor && ctx.outputs.size() == ctx.deviceOutputs.size();
    std::vector<void *> adopt;
    for (void *ptr : ctx.deviceInputs)
      if (ptr)
        adopt.push_back(ptr);
    std::unique_ptr<DeviceGraph> graph =
        ctx.device->endCapture(ok, adopt, transient, error);
    if (!graph)
      return fallBack(error);
    capture->inputBuffers = ctx.deviceInputs;
    capture->outputBuffers = ctx.deviceOutputs;
    capture->outputShapes.clear();
    for (OnyxTensor *tensor : ctx.outputs)
      capture->outputShapes.emplace_back(tensor->shape,
                                         tensor->shape + tensor->rank);
    capture->stats = ctx.stats;
    state->lastGraphNodes = graph->nodes;
    state->graphsLastFailure.clear();
    state->graphs->captured(*capture, std::move(graph));
    // The buffers are the graph's now (releasing them is a no-op).
    bool stale = false;
    OnyxTensorList *result =
        launchRecorded(state, ctx.inputs, *capture, error, stale);
    if (stale) { // The values read back changed between the two runs
      capture->failures = GraphCache::kMaxFailures; // (the graph goes
      return fallBack("the values read back differ from the recorded ones");
    } // when ctx has let go of its buffers)
    if (!result) {
      state->graphs->drop(*capture);
      state->lastError = error;
    }
    state->lastCallGraph = ONYX_GRAPH_CAPTURED;
    return result;
  }
  state->stats = ctx.stats;
  if (status != 0 || ctx.failed) {
    if (!ctx.error.empty())
      state->lastError = ctx.error;
    else if (ctx.failed)
      state->lastError = "out of memory";
    else
      state->lastError = "model failed with status " + std::to_string(status) +
                         " (no message recorded)";
    return nullptr;
  }
  for (size_t k = 0; k < ctx.outputs.size(); ++k) {
    if (!ctx.outputs[k]) {
      state->lastError = "output " + std::to_string(k) + " was not produced (" +
                         quoted(state->metadata.outputs[k].name) + ")";
      return nullptr;
    }
  }
  if (ctx.device && !downloadOutputs(ctx, error)) {
    state->lastError = error;
    return nullptr;
  }
  if (!finishStringOutputs(ctx.outputs, error)) {
    state->lastError = error;
    return nullptr;
  }
  OnyxTensorList *result = new OnyxTensorList();
  result->tensors = std::move(ctx.outputs); // May throw; ctx still owns.
  ctx.outputs.clear();
  return result;
}

/// How a device session with graphs enabled runs a call: normally, by
/// recording it, or by launching a graph recorded earlier (GraphCache.h).
OnyxTensorList *runWithGraphs(OnyxState *state, const OnyxTensorList *inputs,
                              const std::vector<void *> &transient) {
  bool fellBack = false;
  GraphCache::Entry *entry = nullptr;
  GraphCache::Action action = GraphCache::Action::Run;
  std::string unavailable = state->device->graphsUnavailable();
  if (state->graphsOff.empty() && unavailable.empty())
    action = state->graphs->lookup(graphKey(*inputs),
                                   state->device->graphEpoch(), entry);
  if (action == GraphCache::Action::Replay) {
    std::string error;
    CallContext ctx(state, inputs); // binds canonical bool inputs
    if (!ctx.bindInputs(error) || !ctx.device->beginCall(error)) {
      state->lastError = error;
      return nullptr;
    }
    bool stale = false;
    OnyxTensorList *result =
        launchRecorded(state, ctx.inputs, *entry, error, stale);
    if (result) {
      state->graphs->replayed(*entry);
      state->lastGraphNodes = entry->graph->nodes;
      state->lastCallGraph = ONYX_GRAPH_REPLAYED;
      return result;
    }
    if (!stale) {
      state->graphs->drop(*entry);
      state->lastError = error;
      return nullptr;
    }
    // A value read back differs from the recorded one: the host code
    // decides otherwise for these data. The key runs normally from now on.
    state->graphsLastFailure =
        "the values read back differ from the recorded ones";
    entry->graph.reset();
    entry->failures = GraphCache::kMaxFailures;
    state->graphs->failedCaptures++;
    state->lastCallSyncs = 0;
    OnyxTensorList *rerun =
        runCall(state, inputs, nullptr, transient, fellBack);
    state->lastCallGraph = ONYX_GRAPH_FALLBACK;
    return rerun;
  }
  if (action == GraphCache::Action::Capture) {
    OnyxTensorList *result = runCall(state, inputs, entry, transient, fellBack);
    if (!fellBack)
      return result;
    entry->graph.reset();
    state->lastError.clear();
  }
  OnyxTensorList *result = runCall(state, inputs, nullptr, transient, fellBack);
  state->lastCallGraph = fellBack ? ONYX_GRAPH_FALLBACK : ONYX_GRAPH_NONE;
  return result;
}

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
    state->calls++;
    state->lastCallSyncs = 0;
    state->lastCallGraph = ONYX_GRAPH_NONE;
    if (state->graphs && state->device)
      return runWithGraphs(state, inputs, previous.held);
    bool fellBack = false;
    return runCall(state, inputs, nullptr, previous.held, fellBack);
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

extern "C" ONYX_API OnyxTensorList *onyxrt_run(OnyxState *state,
                                               const OnyxTensorList *inputs) {
  if (!state)
    return nullptr;
  std::lock_guard<std::mutex> lock(state->mutex);
  OnyxTensorList *result = runProfiled(state, inputs);
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
