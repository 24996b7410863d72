//===- GraphCacheTest.cpp - The CUDA graph cache's decisions --------------===//
//
// GraphCache.h without a device: the key of a call (shapes, element types,
// device input addresses), run / capture / replay per key, the failure
// limit, least-recently-used eviction, and invalidation by the device's
// epoch, with graphs that count their destruction.
//
//===----------------------------------------------------------------------===//
#include "GraphCache.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace onyx::rt;
using Action = GraphCache::Action;

namespace {

int liveGraphs = 0;

struct CountedGraph : DeviceGraph {
  CountedGraph() { ++liveGraphs; }
  ~CountedGraph() override { --liveGraphs; }
};

/// A tensor for the key only (no data is read).
OnyxTensor tensor(int32_t elem, std::vector<int64_t> &shape, void *data,
                  bool onDevice) {
  OnyxTensor t;
  t.elemType = elem;
  t.rank = int32_t(shape.size());
  t.shape = shape.data();
  t.data = data;
  t.onDevice = onDevice;
  return t;
}

std::vector<int64_t> keyOf(std::vector<OnyxTensor> &tensors) {
  OnyxTensorList list;
  for (OnyxTensor &t : tensors)
    list.tensors.push_back(&t);
  std::vector<int64_t> key = graphKey(list);
  for (OnyxTensor &t : tensors)
    t.shape = nullptr; // not owned
  return key;
}

std::vector<int64_t> key(int64_t dim, void *deviceData = nullptr,
                         int32_t elem = ONYX_F32) {
  std::vector<int64_t> shape = {1, dim};
  char host[1];
  std::vector<OnyxTensor> ts = {
      tensor(elem, shape, deviceData ? deviceData : host, deviceData)};
  return keyOf(ts);
}

/// The second call of a key captures; the caller then stores a graph.
void capture(GraphCache &cache, const std::vector<int64_t> &k) {
  GraphCache::Entry *e = nullptr;
  ASSERT_EQ(cache.lookup(k, 0, e), Action::Run);
  ASSERT_EQ(cache.lookup(k, 0, e), Action::Capture);
  cache.captured(*e, std::make_unique<CountedGraph>());
}

} // namespace

TEST(GraphCache, KeyHasShapesTypesAndDeviceAddresses) {
  int a = 0, b = 0;
  EXPECT_EQ(key(128), key(128));
  EXPECT_NE(key(128), key(64));
  EXPECT_NE(key(128), key(128, nullptr, ONYX_F16));
  // Host inputs are uploaded into the graph's buffers: their address does
  // not matter. Device inputs are read in place: it does.
  EXPECT_EQ(key(128, &a), key(128, &a));
  EXPECT_NE(key(128, &a), key(128, &b));
  EXPECT_NE(key(128, &a), key(128));
  // Rank is in the key: [1, 2] and [1] [2] of two inputs differ.
  std::vector<int64_t> s12 = {1, 2}, s1 = {1}, s2 = {2};
  char h[1];
  std::vector<OnyxTensor> one = {tensor(ONYX_F32, s12, h, false)};
  std::vector<OnyxTensor> two = {tensor(ONYX_F32, s1, h, false),
                                 tensor(ONYX_F32, s2, h, false)};
  EXPECT_NE(keyOf(one), keyOf(two));
}

TEST(GraphCache, RunThenCaptureThenReplay) {
  GraphCache cache(4);
  GraphCache::Entry *e = nullptr;
  EXPECT_EQ(cache.lookup(key(8), 0, e), Action::Run);
  EXPECT_EQ(cache.lookup(key(8), 0, e), Action::Capture);
  cache.captured(*e, std::make_unique<CountedGraph>());
  EXPECT_EQ(liveGraphs, 1);
  for (int i = 0; i < 3; ++i) {
    GraphCache::Entry *again = nullptr;
    EXPECT_EQ(cache.lookup(key(8), 0, again), Action::Replay);
    EXPECT_EQ(again, e);
  }
  // Another shape starts over; the first keeps its graph.
  EXPECT_EQ(cache.lookup(key(9), 0, e), Action::Run);
  EXPECT_EQ(cache.lookup(key(8), 0, e), Action::Replay);
  EXPECT_EQ(cache.captures, 1u);
  EXPECT_EQ(cache.graphs(), 1u);
  cache.invalidate();
  EXPECT_EQ(liveGraphs, 0);
}

TEST(GraphCache, FailedCapturesStopAtTheLimit) {
  GraphCache cache(4);
  GraphCache::Entry *e = nullptr;
  EXPECT_EQ(cache.lookup(key(8), 0, e), Action::Run);
  for (unsigned i = 0; i < GraphCache::kMaxFailures; ++i) {
    EXPECT_EQ(cache.lookup(key(8), 0, e), Action::Capture);
    cache.captureFailed(*e);
  }
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(cache.lookup(key(8), 0, e), Action::Run);
  EXPECT_EQ(cache.failedCaptures, uint64_t(GraphCache::kMaxFailures));
  // Other keys are not affected.
  EXPECT_EQ(cache.lookup(key(9), 0, e), Action::Run);
  EXPECT_EQ(cache.lookup(key(9), 0, e), Action::Capture);
}

TEST(GraphCache, EvictsTheLeastRecentlyUsed) {
  GraphCache cache(2);
  capture(cache, key(1));
  capture(cache, key(2));
  GraphCache::Entry *e = nullptr;
  EXPECT_EQ(cache.lookup(key(1), 0, e), Action::Replay); // 2 is now oldest
  EXPECT_EQ(cache.lookup(key(3), 0, e), Action::Run);
  EXPECT_EQ(cache.evictions, 1u);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(liveGraphs, 1); // key 2's graph went
  EXPECT_EQ(cache.lookup(key(1), 0, e), Action::Replay);
  EXPECT_EQ(cache.lookup(key(2), 0, e), Action::Run); // starts over
  cache.invalidate();
  EXPECT_EQ(liveGraphs, 0);
}

TEST(GraphCache, ChangedEpochDropsEveryGraph) {
  GraphCache cache(4);
  capture(cache, key(1));
  capture(cache, key(2));
  EXPECT_EQ(liveGraphs, 2);
  GraphCache::Entry *e = nullptr;
  // A pool the graphs read grew (the device's epoch moved on).
  EXPECT_EQ(cache.lookup(key(1), 1, e), Action::Run);
  EXPECT_EQ(liveGraphs, 0);
  EXPECT_EQ(cache.invalidations, 1u);
  EXPECT_EQ(cache.lookup(key(1), 1, e), Action::Capture);
  cache.captured(*e, std::make_unique<CountedGraph>());
  EXPECT_EQ(cache.lookup(key(1), 1, e), Action::Replay);
  EXPECT_EQ(cache.ownedBytes(), 0u);
  e->graph->ownedBytes = 4096;
  EXPECT_EQ(cache.ownedBytes(), 4096u);
  cache.drop(*e);
  EXPECT_EQ(liveGraphs, 0);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(GraphCache, StopsWhenGraphsAreEvictedUnused) {
  GraphCache cache(2);
  // Keys that come back once each, more of them than the cache holds:
  // every graph is evicted before its first replay.
  int64_t next = 1;
  for (unsigned i = 0; i < GraphCache::kMaxUnusedEvictions + 1; ++i) {
    ASSERT_FALSE(cache.stopped());
    capture(cache, key(next++));
  }
  // A replayed graph evicted later does not count.
  GraphCache used(2);
  capture(used, key(1));
  GraphCache::Entry *e = nullptr;
  ASSERT_EQ(used.lookup(key(1), 0, e), Action::Replay);
  used.replayed(*e);
  EXPECT_EQ(used.replays, 1u);
  capture(used, key(2));
  capture(used, key(3)); // evicts key 1 (replayed)
  EXPECT_EQ(used.unusedEvictions, 0u);
  used.invalidate();
  // The cache stops at the limit: every graph dropped, every call normal.
  GraphCache::Entry *f = nullptr;
  EXPECT_EQ(cache.lookup(key(next), 0, f), Action::Run);
  EXPECT_TRUE(cache.stopped());
  EXPECT_EQ(cache.unusedEvictions, uint64_t(GraphCache::kMaxUnusedEvictions));
  EXPECT_EQ(cache.lookup(key(next), 0, f), Action::Run);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(liveGraphs, 0);
}

TEST(GraphCache, ZeroCapacityMeansTheDefault) {
  GraphCache cache(0);
  EXPECT_EQ(cache.capacity, GraphCache::kDefaultCapacity);
}

// The session API around the cache: refused for host models, and a device
// that cannot record graphs (this test's FakeDevice, DeviceSequenceTest.cpp)
// runs every call normally and says why.
#include "RuntimeHandles.h"
#include "onyx/onyx_services.h"

namespace {

int32_t outputOnly(void *ctx) {
  int64_t n = onyxrt_input_dim(ctx, 0, 0);
  return onyxrt_alloc_output(ctx, 0, 1, &n) ? 0 : 1;
}

onyx::test::StatePtr session(const char *metadata, int32_t graphs,
                             std::string &error) {
  static OnyxModelDesc desc;
  desc = {ONYX_ABI_VERSION, metadata, outputOnly};
  OnyxSessionOptions o;
  onyx_session_options_init(&o);
  o.cudaGraphs = graphs;
  const char *why = nullptr;
  onyx::test::StatePtr s(onyxrt_state_create_with_options(&desc, &o, &why));
  error = why && !s ? why : "";
  return s;
}

bool callOnce(OnyxState *s, int64_t n) {
  onyx::test::ListPtr in(onyx_tensor_list_create());
  onyx_tensor_list_append(in.get(), onyx_tensor_create(ONYX_F32, 1, &n));
  onyx::test::ListPtr out(onyxrt_run(s, in.get()));
  return out != nullptr;
}

OnyxCudaGraphStats statsOf(OnyxState *s) {
  OnyxCudaGraphStats st = {};
  st.structSize = sizeof(st);
  EXPECT_EQ(onyx_state_cuda_graph_stats(s, &st), 0);
  return st;
}

} // namespace

TEST(CudaGraphSession, RefusedForHostModels) {
  const char *host = "onyx-model v1\ninput x 1 1 ?n\noutput y 1 1 ?n\n";
  std::string error;
  EXPECT_FALSE(session(host, 1, error));
  EXPECT_NE(error.find("enable CUDA graphs, but this model runs on the host"),
            std::string::npos)
      << error;
  onyx::test::StatePtr s = session(host, 0, error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(onyx_state_set_cuda_graphs(s.get(), 1, 0), -1);
  OnyxCudaGraphStats st = statsOf(s.get());
  EXPECT_EQ(st.enabled, 0);
  EXPECT_STREQ(onyx_state_cuda_graph_status(s.get()), "");
  st.structSize = sizeof(st) + 8; // newer than the library: refused
  EXPECT_EQ(onyx_state_cuda_graph_stats(s.get(), &st), -1);
}

TEST(CudaGraphSession, OnByDefaultForDeviceModels) {
  const char *host = "onyx-model v1\ninput x 1 1 ?n\noutput y 1 1 ?n\n";
  const char *dev =
      "onyx-model v1\ninput x 1 1 ?n\noutput y 1 1 ?n\ndevice cuda\n";
  std::string error;
  ::unsetenv("ONYX_CUDA_GRAPHS");
  // The options' default (-1): off for a host model, on for a device one.
  onyx::test::StatePtr h = session(host, -1, error);
  ASSERT_TRUE(h) << error;
  EXPECT_EQ(statsOf(h.get()).enabled, 0);
  EXPECT_EQ(onyx_state_set_cuda_graphs(h.get(), 0, 0), 0); // nothing to stop
  h.reset();
  onyx::test::StatePtr d = session(dev, -1, error);
  ASSERT_TRUE(d) << error;
  EXPECT_EQ(statsOf(d.get()).enabled, 1);
  d = session(dev, 0, error);
  ASSERT_TRUE(d) << error;
  EXPECT_EQ(statsOf(d.get()).enabled, 0);
  // ONYX_CUDA_GRAPHS=0 turns the default off; explicit options win.
  ::setenv("ONYX_CUDA_GRAPHS", "0", 1);
  d = session(dev, -1, error);
  ASSERT_TRUE(d) << error;
  EXPECT_EQ(statsOf(d.get()).enabled, 0);
  d = session(dev, 1, error);
  ASSERT_TRUE(d) << error;
  EXPECT_EQ(statsOf(d.get()).enabled, 1);
  ::setenv("ONYX_CUDA_GRAPHS", "yes", 1);
  EXPECT_FALSE(session(dev, -1, error));
  EXPECT_NE(error.find("ONYX_CUDA_GRAPHS='yes': expected 0 or 1"),
            std::string::npos)
      << error;
  ::unsetenv("ONYX_CUDA_GRAPHS");
  OnyxSessionOptions o;
  onyx_session_options_init(&o);
  EXPECT_EQ(o.cudaGraphs, -1);
}

TEST(CudaGraphSession, DeviceWithoutGraphsRunsNormally) {
  const char *dev =
      "onyx-model v1\ninput x 1 1 ?n\noutput y 1 1 ?n\ndevice cuda\n";
  std::string error;
  onyx::test::StatePtr s = session(dev, 1, error);
  ASSERT_TRUE(s) << error;
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(callOnce(s.get(), 3)) << onyx_state_last_error(s.get());
  OnyxCudaGraphStats st = statsOf(s.get());
  EXPECT_EQ(st.enabled, 1);
  EXPECT_EQ(st.active, 0);
  EXPECT_EQ(st.lastCall, ONYX_GRAPH_NONE);
  EXPECT_EQ(st.captures, 0u);
  EXPECT_STREQ(onyx_state_cuda_graph_status(s.get()),
               "this device cannot record graphs");
  EXPECT_EQ(onyx_state_set_cuda_graphs(s.get(), 0, 0), 0);
  EXPECT_EQ(statsOf(s.get()).enabled, 0);
  EXPECT_STREQ(onyx_state_cuda_graph_status(s.get()), "");
}

TEST(CudaGraphSession, SequenceModelsRunWithoutGraphs) {
  const char *seq = "onyx-model v1\ninput x 1 1 ?n\noutput y 1 1 ?n\n"
                    "output-sequence ys 1\ndevice cuda\n";
  std::string error;
  onyx::test::StatePtr s = session(seq, 1, error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(statsOf(s.get()).active, 0);
  EXPECT_NE(std::string(onyx_state_cuda_graph_status(s.get()))
                .find("sequence or optional"),
            std::string::npos);
}
