//===- Services.cpp - The services the generated code calls ---------------===//
//
// onyxrt_input_data, onyxrt_alloc_output, onyxrt_alloc_temp, the pools,
// onyxrt_host_sync, onyxrt_get_weight and onyxrt_fail: called by the
// generated code with the `ctx` of the running call (State.h), so they take
// no lock (the call holds the session's mutex). A failure is recorded in
// the call and the generated code returns its error.
//
//===----------------------------------------------------------------------===//
#include "PoolPlacement.h"
#include "State.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

using namespace onyx::rt;

namespace {

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

} // namespace

extern "C" {

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

namespace {

/// The names onyxrt_pool_names gave pool `domainId`'s temporaries ("" for
/// one without a name; empty when none were given).
std::vector<std::string> tempNames(CallContext *c, int64_t domainId) {
  std::vector<std::string> names;
  auto it = c->poolNames.find(domainId);
  if (it == c->poolNames.end())
    return names;
  const char *cursor = it->second.second;
  for (int64_t i = 0; i < it->second.first; ++i) {
    names.emplace_back(cursor);
    cursor += names.back().size() + 1;
  }
  return names;
}

/// "growing pool D (temporaries of nodes 'a', 'b', 'c' and 2 more)".
std::string poolLabel(CallContext *c, int64_t domainId) {
  std::string label = "growing pool " + std::to_string(domainId);
  std::vector<std::string> names;
  for (std::string &name : tempNames(c, domainId))
    if (!name.empty() &&
        std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(std::move(name));
  if (names.empty())
    return label;
  label +=
      names.size() == 1 ? " (temporaries of node " : " (temporaries of nodes ";
  for (size_t i = 0; i < names.size() && i < 3; ++i)
    label += (i ? ", '" : "'") + names[i] + "'";
  if (names.size() > 3)
    label += " and " + std::to_string(names.size() - 3) + " more";
  return label + ")";
}

void *getPool(CallContext *c, int64_t domainId, int64_t bytes,
              const std::string *label) {
  constexpr uint64_t kPoolAlignment = 256;
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
    if (!c->withinLimit(capacity, label ? *label : poolLabel(c, domainId)))
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

} // namespace

ONYX_API void *onyxrt_get_pool(void *ctx, int64_t domainId, int64_t bytes) {
  CallContext *c = asContext(ctx);
  if (!c)
    return nullptr;
  return getPool(c, domainId, bytes, nullptr);
}

ONYX_API void onyxrt_pool_names(void *ctx, int64_t domainId, int64_t count,
                                const char *names) {
  CallContext *c = asContext(ctx);
  if (!c || count < 0 || (count > 0 && !names))
    return;
  try {
    c->poolNames[domainId] = {count, names};
  } catch (...) {
    c->fail(std::string());
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
    // A limit error names the node of the largest temporary.
    std::vector<std::string> names = tempNames(c, domainId);
    size_t largest = 0;
    for (size_t i = 1; i < n; ++i)
      if (bytes[i] > bytes[largest])
        largest = i;
    if (names.size() != n || n == 0 || names[largest].empty())
      return getPool(c, domainId, cached.totalBytes, nullptr);
    std::string label = "node '" + names[largest] + "': growing pool " +
                        std::to_string(domainId) + " for its temporary of " +
                        std::to_string(bytes[largest]) + " bytes";
    if (n > 1)
      label +=
          " and " + std::to_string(n - 1) + (n == 2 ? " other" : " others");
    return getPool(c, domainId, cached.totalBytes, &label);
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
  if (size_t(index) < c->state->convertedWeights.size() &&
      c->state->convertedWeights[index])
    return c->state->convertedWeights[index];
  return static_cast<char *>(c->state->weightsData) + weights[index].offset;
}

ONYX_API int64_t onyxrt_profile_begin(void *ctx) {
  CallContext *c = asContext(ctx);
  if (!c || !c->state->profiler)
    return -1;
  return int64_t(c->state->profiler->nowUs() * 1000.0);
}

ONYX_API void onyxrt_profile_end(void *ctx, int64_t token, const char *name,
                                 const char *op, const int64_t *shapes) {
  CallContext *c = asContext(ctx);
  if (!c || !c->state->profiler || token < 0)
    return;
  try {
    Profiler &profiler = *c->state->profiler;
    ProfileEvent event;
    std::string node = name ? name : "";
    std::string kind = op ? op : "op";
    event.name = node.empty() ? kind : node;
    event.category = "op";
    event.startUs = double(token) / 1000.0;
    event.durationUs = profiler.nowUs() - event.startUs;
    event.args = {{"node", jsonString(node)},
                  {"op", jsonString(kind)},
                  {"shapes", jsonShapes(shapes)}};
    profiler.add(std::move(event));
  } catch (...) {
    // Out of memory: the event is dropped, the model runs on.
  }
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
