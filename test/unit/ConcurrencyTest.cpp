//===- ConcurrencyTest.cpp - One session called from many threads ---------===//
//
// A session serializes its calls (docs/runtime.md, "Threads"): concurrent
// onyxrt_run calls on one state each get their own correct result, the
// error message a thread reads is the one of its own call, and the state's
// queries may run while a call does. The entries below go through the
// session's shared state on purpose: the run-time placement cache
// (onyxrt_place_temps) and the pools, with sizes that change from call to
// call, so that any unsynchronized access corrupts results or the heap
// (8 threads used to give a double free in the placement cache).
//
// Built into onyx-runtime-tests; scripts/tsan-runtime.sh runs it under
// ThreadSanitizer.
//
//===----------------------------------------------------------------------===//
#include "RuntimeHandles.h"
#include "onyx/onyx_runtime.h"
#include "onyx/onyx_services.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using onyx::test::ListPtr;
using onyx::test::StatePtr;

/// y[i] = 3 * x[i] + i for x : f32[?n], through three temporaries laid out
/// by onyxrt_place_temps in pool 0 (sizes n, 2n, n floats; the first and
/// last overlap in time with the second) and a fourth in pool 1 of 4n bytes.
/// Fails with a message naming n when x[0] is negative.
int32_t placedEntry(void *ctx) {
  const float *x = static_cast<const float *>(onyxrt_input_data(ctx, 0));
  int64_t n = onyxrt_input_dim(ctx, 0, 0);
  if (!x || n < 0)
    return 1;
  if (n > 0 && x[0] < 0) {
    onyxrt_fail(ctx, "node 'Check': x[0] is negative at n = {0}", 1, n, 0, 0,
                0);
    return 1;
  }
  auto align = [](int64_t bytes) { return (bytes + 63) / 64 * 64; };
  const int64_t bytes[3] = {align(4 * n), align(8 * n), align(4 * n)};
  // Lifetimes: a [0, 1], b [1, 2], c [2, 3]; compile-time groups 0, 1, 0
  // (a and c share a slab), no static region.
  const int64_t table[12] = {0, 1, 0, 0, 1, 2, 1, 0, 2, 3, 0, 0};
  int64_t offsets[4];
  auto *pool = static_cast<char *>(
      onyxrt_place_temps(ctx, 0, 3, bytes, table, 0, offsets));
  if (!pool)
    return 1;
  auto *a = reinterpret_cast<float *>(pool + offsets[0]);
  auto *b = reinterpret_cast<float *>(pool + offsets[1]);
  auto *c = reinterpret_cast<float *>(pool + offsets[2]);
  auto *d = static_cast<float *>(onyxrt_get_pool(ctx, 1, 4 * n));
  if (n > 0 && !d)
    return 1;
  for (int64_t i = 0; i < n; ++i)
    a[i] = x[i];
  for (int64_t i = 0; i < n; ++i) {
    b[2 * i] = a[i] * 2;
    b[2 * i + 1] = a[i];
  }
  for (int64_t i = 0; i < n; ++i)
    c[i] = b[2 * i] + b[2 * i + 1];
  for (int64_t i = 0; i < n; ++i)
    d[i] = c[i] + float(i);
  // Give other threads a chance to run while this call holds the pools.
  std::this_thread::yield();
  auto *y = static_cast<float *>(onyxrt_alloc_output(ctx, 0, 1, &n));
  if (!y)
    return 1;
  std::memcpy(y, d, size_t(n) * 4);
  return 0;
}
const char *kPlacedModel = "onyx-model v1\n"
                           "input x 1 1 ?n\n"
                           "output y 1 1 ?n\n";

StatePtr makePlacedState() {
  OnyxModelDesc desc = {ONYX_ABI_VERSION, kPlacedModel, placedEntry};
  const char *error = nullptr;
  OnyxState *state = onyxrt_state_create(&desc, &error);
  EXPECT_NE(state, nullptr) << (error ? error : "");
  return StatePtr(state);
}

ListPtr inputOf(const std::vector<float> &x) {
  ListPtr list(onyx_tensor_list_create());
  int64_t n = int64_t(x.size());
  onyx_tensor_list_append(list.get(),
                          onyx_tensor_create_copy(ONYX_F32, 1, &n, x.data()));
  return list;
}

/// What thread `t` checks on its `k`-th call: a size that differs between
/// threads and calls (so the placement cache and the pools keep changing),
/// and, every 7th call, an input that makes the entry fail.
struct Case {
  std::vector<float> x;
  bool fails;
};
Case caseFor(int t, int k) {
  int64_t n = 1 + (t * 37 + k * 11) % 97;
  Case c;
  c.fails = (k + t) % 7 == 0;
  for (int64_t i = 0; i < n; ++i)
    c.x.push_back(float(t * 1000 + k) + 0.25f * float(i));
  if (c.fails)
    c.x[0] = -1.0f - float(t);
  return c;
}

/// Runs `calls` calls per thread on one state from `threads` threads and
/// returns the number of wrong results or messages.
int hammer(OnyxState *state, int threads, int calls) {
  std::atomic<int> wrong{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      while (!go.load())
        std::this_thread::yield();
      for (int k = 0; k < calls; ++k) {
        Case c = caseFor(t, k);
        ListPtr in = inputOf(c.x);
        ListPtr out(onyxrt_run(state, in.get()));
        std::string error = onyx_state_last_error(state);
        if (c.fails) {
          std::string expect = "node 'Check': x[0] is negative at n = " +
                               std::to_string(c.x.size());
          if (out || error != expect)
            wrong++;
          continue;
        }
        if (!out || !error.empty()) {
          wrong++;
          continue;
        }
        OnyxTensor *y = onyx_tensor_list_get(out.get(), 0);
        if (onyx_tensor_num_elements(y) != int64_t(c.x.size())) {
          wrong++;
          continue;
        }
        auto *data = static_cast<const float *>(onyx_tensor_data(y));
        for (size_t i = 0; i < c.x.size(); ++i)
          if (data[i] != 3 * c.x[i] + float(i)) {
            wrong++;
            break;
          }
      }
    });
  go = true;
  for (std::thread &th : pool)
    th.join();
  return wrong.load();
}

} // namespace

TEST(Threads, OneSessionFromEightThreads) {
  StatePtr state = makePlacedState();
  ASSERT_TRUE(state);
  EXPECT_EQ(hammer(state.get(), 8, 400), 0);
  // The session is still usable from this thread afterwards.
  Case c = caseFor(3, 5);
  ListPtr in = inputOf(c.x);
  ListPtr out(onyxrt_run(state.get(), in.get()));
  ASSERT_TRUE(out) << onyx_state_last_error(state.get());
  EXPECT_STREQ(onyx_state_last_error(state.get()), "");
}

TEST(Threads, TwoThreadsManyCalls) {
  StatePtr state = makePlacedState();
  ASSERT_TRUE(state);
  EXPECT_EQ(hammer(state.get(), 2, 2000), 0);
}

TEST(Threads, QueriesWhileCallsRun) {
  // Stats, pool info, trim and the metadata may be asked for while other
  // threads run calls: they see one call's values, never torn ones.
  StatePtr state = makePlacedState();
  ASSERT_TRUE(state);
  std::atomic<bool> done{false};
  std::thread queries([&] {
    while (!done.load()) {
      OnyxMemoryStats stats;
      EXPECT_EQ(onyx_state_memory_stats(state.get(), &stats), 0);
      int64_t domain;
      uint64_t requested, capacity;
      if (onyx_state_pool_info(state.get(), 0, &domain, &requested,
                               &capacity) == 0) {
        EXPECT_LE(requested, capacity);
      }
      uint64_t last, total, calls;
      EXPECT_EQ(onyx_state_sync_stats(state.get(), &last, &total, &calls), 0);
      onyx_state_trim(state.get());
      EXPECT_NE(onyx_state_metadata(state.get()), nullptr);
    }
  });
  int wrong = hammer(state.get(), 4, 300);
  done = true;
  queries.join();
  EXPECT_EQ(wrong, 0);
}

TEST(Threads, ErrorMessageIsTheCallingThreadsOwn) {
  // Thread A's call fails, then thread B's succeeds: A still reads its own
  // message, B reads "". A thread that made no call reads the message of
  // the session's most recent call.
  StatePtr state = makePlacedState();
  ASSERT_TRUE(state);
  std::string readByA, readByB;
  std::atomic<int> step{0};
  std::thread a([&] {
    ListPtr in = inputOf({-5.0f, 1.0f});
    EXPECT_FALSE(ListPtr(onyxrt_run(state.get(), in.get())));
    step = 1;
    while (step.load() != 2)
      std::this_thread::yield();
    readByA = onyx_state_last_error(state.get());
  });
  std::thread b([&] {
    while (step.load() != 1)
      std::this_thread::yield();
    ListPtr in = inputOf({1.0f});
    EXPECT_TRUE(ListPtr(onyxrt_run(state.get(), in.get())));
    readByB = onyx_state_last_error(state.get());
    step = 2;
  });
  a.join();
  b.join();
  EXPECT_EQ(readByA, "node 'Check': x[0] is negative at n = 2");
  EXPECT_EQ(readByB, "");
  // This thread made no call: the most recent call's message (B's).
  EXPECT_STREQ(onyx_state_last_error(state.get()), "");
  // Sequential calls from one thread behave as before.
  ListPtr bad = inputOf({-1.0f});
  EXPECT_FALSE(ListPtr(onyxrt_run(state.get(), bad.get())));
  EXPECT_STREQ(onyx_state_last_error(state.get()),
               "node 'Check': x[0] is negative at n = 1");
}

TEST(Threads, SeparateSessionsRunInParallel) {
  std::vector<StatePtr> states;
  for (int t = 0; t < 4; ++t)
    states.push_back(makePlacedState());
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] { wrong += hammer(states[t].get(), 1, 300); });
  for (std::thread &th : threads)
    th.join();
  EXPECT_EQ(wrong.load(), 0);
}
