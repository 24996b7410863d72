//===- CudaGraphs.cpp - CUDA graphs of a session: capture and replay -----===//
//
// The CudaDevice side of docs/runtime.md "CUDA graphs" (the cache and the
// decisions are runtime/src/GraphCache.h and Run.cpp): stream capture in
// thread-local mode, split at readbacks (the part so far is instantiated
// and run, the values read back are kept and compared at each replay),
// and the graphs' ownership of what was allocated while recording.
// Allocation tracking itself (CudaDevice::allocate/release) stays in
// CudaDevice.cpp.
//
//===----------------------------------------------------------------------===//
#include "CudaDevice.h"

#include <algorithm>
#include <cstring>

namespace onyx {
namespace rt {

void CudaDevice::releaseGraphOwned(void *ptr) {
  graphOwned.erase(ptr);
  api.cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
}

namespace {

/// A recorded call: the instantiated graph and the buffers it owns.
template <typename Segment> class CudaGraph final : public DeviceGraph {
public:
  CudaGraph(CudaDevice &device, std::vector<Segment> parts,
            std::vector<void *> owned)
      : device(device), parts(std::move(parts)), owned(std::move(owned)) {}
  ~CudaGraph() override {
    for (Segment &part : parts)
      driver().cuGraphExecDestroy(part.exec);
    for (void *ptr : owned)
      device.releaseGraphOwned(ptr);
  }
  CudaDevice &device;
  std::vector<Segment> parts;
  std::vector<void *> owned;
};

} // namespace

std::string CudaDevice::graphsUnavailable() const {
  if (!api.cuStreamBeginCapture || !api.cuStreamEndCapture ||
      !api.cuThreadExchangeStreamCaptureMode || !api.cuGraphInstantiate ||
      !api.cuGraphLaunch || !api.cuGraphExecDestroy || !api.cuGraphDestroy ||
      !api.cuGraphGetNodes)
    return "the CUDA driver lacks the graph API";
  if (profiling())
    return "the session is profiling (every launch is timed with events)";
  if (syncEachLaunch)
    return "ONYX_CUDA_SYNC synchronizes after every launch";
  return "";
}

bool CudaDevice::breakCapture(const char *what, std::string &error) {
  if (captureBroken.empty())
    captureBroken = what;
  error = std::string(what) + " cannot be recorded in a CUDA graph";
  return false;
}

bool CudaDevice::openSegment(std::string &error) {
  CUresult result =
      api.cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  if (result != CUDA_SUCCESS) {
    error = describe("cuStreamBeginCapture", result);
    return false;
  }
  segments.emplace_back();
  segmentOpen = true;
  return true;
}

bool CudaDevice::closeSegment(std::string &error) {
  CUgraph graph = nullptr;
  CUresult result = api.cuStreamEndCapture(stream, &graph);
  segmentOpen = false;
  Segment &part = segments.back();
  if (result == CUDA_SUCCESS && captureBroken.empty() &&
      (result = api.cuGraphInstantiate(&part.exec, graph, 0)) != CUDA_SUCCESS)
    part.exec = nullptr;
  if (graph && part.exec)
    api.cuGraphGetNodes(graph, nullptr, &part.nodes);
  if (graph)
    api.cuGraphDestroy(graph);
  if (!captureBroken.empty()) {
    error = captureBroken + " cannot be recorded in a CUDA graph";
    return false;
  }
  if (!part.exec) {
    error = describe("cuStreamEndCapture/cuGraphInstantiate", result);
    return false;
  }
  return true;
}

bool CudaDevice::beginCapture(std::string &error) {
  if (!staged.empty())
    return breakCapture("a readback still in flight", error);
  captureAllocated.clear();
  captureReleased.clear();
  captureBroken.clear();
  segments.clear();
  if (!openSegment(error))
    return false;
  capturing = true;
  return true;
}

std::unique_ptr<DeviceGraph>
CudaDevice::endCapture(bool keep, const std::vector<void *> &adopt,
                       const std::vector<void *> &transient,
                       std::string &error) {
  bool ok = false;
  if (!segmentOpen)
    breakCapture("a readback without its wait", error);
  else if (closeSegment(error) && !(ok = keep))
    error = "the call failed while it was recorded";
  capturing = false;
  std::vector<Segment> parts;
  parts.swap(segments);
  if (!ok) {
    for (Segment &part : parts)
      if (part.exec)
        api.cuGraphExecDestroy(part.exec);
    parts.clear();
  }
  size_t nodes = 0;
  for (Segment &part : parts)
    nodes += part.nodes;
  std::vector<void *> released;
  released.swap(captureReleased);
  std::vector<void *> allocated;
  allocated.swap(captureAllocated);
  if (!ok) {
    // Nothing ran: what was released while recording is freed now; what
    // the call still holds it releases itself.
    for (void *ptr : released)
      release(ptr);
    return nullptr;
  }
  try {
    std::vector<void *> owned;
    uint64_t bytes = 0;
    auto own = [&](void *ptr) {
      auto found = live.find(ptr);
      if (!ptr || found == live.end() || graphOwned.count(ptr))
        return;
      graphOwned[ptr] = found->second.bytes;
      bytes += found->second.bytes;
      live.erase(found);
      owned.push_back(ptr);
    };
    for (void *ptr : allocated)
      own(ptr);
    for (void *ptr : released)
      own(ptr);
    for (void *ptr : adopt)
      own(ptr);
    // Every other buffer of the session may be read by the graph (pools,
    // workspaces, constants), except the previous call's outputs (inputs
    // of this call are in the key by address).
    for (auto &entry : live)
      if (std::find(transient.begin(), transient.end(), entry.first) ==
          transient.end())
        entry.second.readByGraph = true;
    size_t count = parts.size();
    auto result =
        std::make_unique<CudaGraph<Segment>>(*this, parts, std::move(owned));
    parts.clear();
    result->ownedBytes = bytes;
    result->nodes = nodes;
    result->segments = count;
    return result;
  } catch (...) {
    for (Segment &part : parts)
      api.cuGraphExecDestroy(part.exec);
    error = "out of memory keeping a CUDA graph";
    return nullptr;
  }
}

int CudaDevice::launchGraph(DeviceGraph &graph, std::string &error) {
  for (const Segment &part : static_cast<CudaGraph<Segment> &>(graph).parts) {
    CUresult result = api.cuGraphLaunch(part.exec, stream);
    if (result != CUDA_SUCCESS) {
      error = describe("cuGraphLaunch", result);
      return kGraphError;
    }
    if (part.readbacks.empty())
      continue;
    // The values the host code read here when the graph was recorded: the
    // rest of the graph is what it did with them.
    for (const Readback &r : part.readbacks)
      if (!stageReadback(nullptr, r.deviceSrc, r.value.size(), error))
        return kGraphError;
    if (!synchronize(error))
      return kGraphError;
    bool same = true;
    for (size_t i = 0; i < staged.size(); ++i)
      same = same &&
             std::memcmp(staging + staged[i].offset,
                         part.readbacks[i].value.data(), staged[i].bytes) == 0;
    staged.clear();
    stagingUsed = 0;
    if (!same)
      return kGraphStale;
  }
  return kGraphOk;
}

} // namespace rt
} // namespace onyx
