//===- GraphCache.h - A session's recorded device graphs --------*- C++ -*-===//
//
// CUDA graphs (docs/runtime.md, "CUDA graphs"): a device session with
// graphs enabled records the device work of a call once per key and
// replays it on later calls with the same key instead of running the
// generated host code again. This header is the part without a device:
// the key of a call and the bounded cache of a session, which decides for
// each call whether it runs normally (the first call with a key: pools and
// library workspaces get their sizes), is recorded (the second) or is
// replayed (every later one). Run.cpp acts on the decision; the graphs
// themselves are the backend's (Device::endCapture).
//
// The key: per input its kind, element type, rank and dims, and for a
// device input (IO binding) its address, since the recorded kernels read
// it there. Host inputs are uploaded into buffers the graph owns. What
// else the host code's decisions depend on is either in the key or drops
// every graph when it changes: the session's buffers a graph reads (pools,
// library workspaces; Device::graphEpoch) and the memory limit (clear()).
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_GRAPHCACHE_H
#define ONYX_RUNTIME_GRAPHCACHE_H

#include "Device.h"
#include "Internal.h"

#include "onyx/onyx_runtime.h"

#include <cstdint>
#include <list>
#include <memory>
#include <vector>

namespace onyx {
namespace rt {

/// The key of a call with `inputs` (validated against the metadata).
inline std::vector<int64_t> graphKey(const OnyxTensorList &inputs) {
  std::vector<int64_t> key;
  key.reserve(inputs.tensors.size() * 6);
  for (const OnyxTensor *t : inputs.tensors) {
    key.push_back(int64_t(t->kind));
    key.push_back(int64_t(t->elemType));
    key.push_back(t->rank);
    for (int64_t d = 0; d < t->rank; ++d)
      key.push_back(t->shape[d]);
    key.push_back(t->onDevice ? int64_t(reinterpret_cast<uintptr_t>(t->data))
                              : 0);
  }
  return key;
}

class GraphCache {
public:
  enum class Action { Run, Capture, Replay };
  /// Captures of one key that may fail before the key runs normally for
  /// good.
  static constexpr unsigned kMaxFailures = 2;
  static constexpr size_t kDefaultCapacity = 8;
  /// Graphs evicted before their first replay after which the cache stops
  /// recording (the input signatures change more often than it holds
  /// them: every recording would cost a capture and buy nothing).
  static constexpr unsigned kMaxUnusedEvictions = 8;

  struct Entry {
    std::vector<int64_t> key;
    std::unique_ptr<DeviceGraph> graph;
    unsigned failures = 0;
    uint64_t lastUse = 0, replays = 0;
    /// What a replay needs: the device buffers of the host inputs that the
    /// graph reads (NULL for a device input) and of the outputs it writes,
    /// the outputs' shapes, and the statistics of the recorded call.
    std::vector<void *> inputBuffers, outputBuffers;
    std::vector<std::vector<int64_t>> outputShapes;
    OnyxMemoryStats stats = {};
  };

  explicit GraphCache(size_t capacity = kDefaultCapacity)
      : capacity(capacity ? capacity : kDefaultCapacity) {}

  /// The decision for a call with `key` while the device's epoch is
  /// `epoch`; `entry` is the key's entry (created and made most recent).
  /// A changed epoch drops every graph first; a full cache drops its least
  /// recently used entry.
  Action lookup(const std::vector<int64_t> &key, uint64_t epoch,
                Entry *&entry) {
    if (epoch != seenEpoch) {
      if (!entries.empty())
        invalidate();
      seenEpoch = epoch;
    }
    ++tick;
    if (stopped())
      return Action::Run;
    for (Entry &e : entries) {
      if (e.key != key)
        continue;
      e.lastUse = tick;
      entry = &e;
      if (e.graph)
        return Action::Replay;
      return e.failures >= kMaxFailures ? Action::Run : Action::Capture;
    }
    if (entries.size() >= capacity) {
      auto oldest = entries.begin();
      for (auto it = entries.begin(); it != entries.end(); ++it)
        if (it->lastUse < oldest->lastUse)
          oldest = it;
      if (oldest->graph && oldest->replays == 0)
        ++unusedEvictions;
      entries.erase(oldest);
      ++evictions;
      if (stopped()) {
        entries.clear();
        return Action::Run;
      }
    }
    entries.emplace_back();
    entry = &entries.back();
    entry->key = key;
    entry->lastUse = tick;
    return Action::Run;
  }

  void captured(Entry &entry, std::unique_ptr<DeviceGraph> graph) {
    entry.graph = std::move(graph);
    ++captures;
  }
  void replayed(Entry &entry) {
    ++entry.replays;
    ++replays;
  }
  /// Whether the cache stopped recording (kMaxUnusedEvictions).
  bool stopped() const { return unusedEvictions >= kMaxUnusedEvictions; }
  void captureFailed(Entry &entry) {
    entry.failures++;
    ++failedCaptures;
  }
  /// A replay that failed: the entry goes (the next call starts over).
  void drop(Entry &entry) {
    for (auto it = entries.begin(); it != entries.end(); ++it)
      if (&*it == &entry) {
        entries.erase(it);
        return;
      }
  }
  /// Drops every graph (what they read changed).
  void invalidate() {
    entries.clear();
    ++invalidations;
  }

  size_t size() const { return entries.size(); }
  size_t graphs() const {
    size_t n = 0;
    for (const Entry &e : entries)
      n += e.graph ? 1 : 0;
    return n;
  }
  uint64_t ownedBytes() const {
    uint64_t bytes = 0;
    for (const Entry &e : entries)
      bytes += e.graph ? e.graph->ownedBytes : 0;
    return bytes;
  }

  const size_t capacity;
  uint64_t captures = 0, replays = 0, failedCaptures = 0, evictions = 0,
           invalidations = 0, unusedEvictions = 0;

private:
  std::list<Entry> entries;
  uint64_t tick = 0, seenEpoch = 0;
};

} // namespace rt
} // namespace onyx

#endif // ONYX_RUNTIME_GRAPHCACHE_H
