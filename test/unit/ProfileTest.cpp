//===- ProfileTest.cpp - Session profiles as Chrome traces ----------------===//
//
// A hand-written entry stands in for a CPU artifact compiled with
// --profile: it brackets its two "ops" with onyxrt_profile_begin/end. The
// trace must hold one event per op (node, op kind, shapes, dur >= 0) and
// one per call, be valid JSON in Chrome's format, and cost nothing when
// profiling is off.
//
//===----------------------------------------------------------------------===//
#include "RuntimeHandles.h"
#include "onyx/onyx_runtime.h"
#include "onyx/onyx_services.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using onyx::test::ListPtr;
using onyx::test::StatePtr;

const char *kMetadata = "onyx-model v1\n"
                        "input x 1 2 ?n 3\n"
                        "output y 1 2 ?n 3\n";

int64_t lastBeginToken = 0;

/// y = (x + 1) * 2 as two profiled "ops"; a negative x[0] fails in op 2.
int32_t twoOps(void *ctx) {
  const float *x = static_cast<const float *>(onyxrt_input_data(ctx, 0));
  int64_t n = onyxrt_input_dim(ctx, 0, 0);
  int64_t shape[2] = {n, 3};
  auto *y = static_cast<float *>(onyxrt_alloc_output(ctx, 0, 2, shape));
  if (!x || !y)
    return 1;
  int64_t table[] = {2, 2, n, 3, 2, n, 3};
  int64_t t = onyxrt_profile_begin(ctx);
  lastBeginToken = t;
  for (int64_t i = 0; i < n * 3; ++i)
    y[i] = x[i] + 1;
  onyxrt_profile_end(ctx, t, "add_node", "linalg.generic", table);
  t = onyxrt_profile_begin(ctx);
  if (n > 0 && x[0] < 0) {
    onyxrt_fail(ctx, "node 'mul_node': negative", 0, 0, 0, 0, 0);
    return 1;
  }
  for (int64_t i = 0; i < n * 3; ++i)
    y[i] *= 2;
  onyxrt_profile_end(ctx, t, "mul \"node\"", "linalg.generic", table);
  return 0;
}

StatePtr makeState() {
  OnyxModelDesc desc = {ONYX_ABI_VERSION, kMetadata, twoOps};
  const char *error = nullptr;
  OnyxState *state = onyxrt_state_create(&desc, &error);
  EXPECT_NE(state, nullptr) << (error ? error : "");
  return StatePtr(state);
}

bool runOnce(OnyxState *state, float first, int64_t n) {
  std::vector<float> values(size_t(n) * 3, 1.0f);
  if (n > 0)
    values[0] = first;
  int64_t shape[2] = {n, 3};
  ListPtr inputs(onyx_tensor_list_create());
  onyx_tensor_list_append(
      inputs.get(), onyx_tensor_create_copy(ONYX_F32, 2, shape, values.data()));
  ListPtr outputs(onyxrt_run(state, inputs.get()));
  return outputs != nullptr;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1))
    ++n;
  return n;
}

std::string tempPath(const char *name) {
  return "/tmp/onyx_profile_test_" + std::to_string(getpid()) + "_" + name +
         ".json";
}

TEST(Profile, OffByDefaultAndTokensNegative) {
  StatePtr state = makeState();
  ASSERT_TRUE(runOnce(state.get(), 1.0f, 2));
  EXPECT_EQ(lastBeginToken, -1);
  EXPECT_EQ(onyx_state_end_profiling(state.get()), -1);
  EXPECT_NE(std::string(onyx_state_last_error(state.get())).find("not enabled"),
            std::string::npos);
}

TEST(Profile, OneEventPerOpAndPerCall) {
  std::string path = tempPath("ops");
  StatePtr state = makeState();
  ASSERT_EQ(onyx_state_enable_profiling(state.get(), path.c_str()), 0);
  ASSERT_TRUE(runOnce(state.get(), 1.0f, 4));
  EXPECT_GE(lastBeginToken, 0);
  ASSERT_TRUE(runOnce(state.get(), 1.0f, 5));
  // The failing call: its first op and the call are recorded.
  ASSERT_FALSE(runOnce(state.get(), -1.0f, 1));
  EXPECT_EQ(onyx_state_end_profiling(state.get()), 2 + 2 + 1 + 3);
  std::string text = readFile(path);
  EXPECT_EQ(text.rfind("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [", 0),
            0u);
  EXPECT_EQ(count(text, "\"ph\": \"X\""), 8u);
  EXPECT_EQ(count(text, "\"cat\": \"op\""), 5u);
  EXPECT_EQ(count(text, "\"cat\": \"call\""), 3u);
  EXPECT_EQ(count(text, "\"name\": \"add_node\""), 3u);
  // Names are escaped.
  EXPECT_EQ(count(text, "\"name\": \"mul \\\"node\\\"\""), 2u);
  EXPECT_EQ(count(text, "\"shapes\": [[4, 3], [4, 3]]"), 2u);
  EXPECT_EQ(count(text, "\"shapes\": [[5, 3], [5, 3]]"), 2u);
  EXPECT_EQ(count(text, "\"ok\": false"), 1u);
  EXPECT_EQ(count(text, "\"error\": \"node 'mul_node': negative\""), 1u);
  EXPECT_EQ(count(text, "\"dur\": -"), 0u);
  // Profiling is off again: nothing more is recorded, the file stays.
  ASSERT_TRUE(runOnce(state.get(), 1.0f, 2));
  EXPECT_EQ(lastBeginToken, -1);
  EXPECT_EQ(readFile(path), text);
  std::remove(path.c_str());
}

TEST(Profile, WrittenWhenTheSessionIsDestroyed) {
  std::string path = tempPath("destroy");
  {
    StatePtr state = makeState();
    ASSERT_EQ(onyx_state_enable_profiling(state.get(), path.c_str()), 0);
    ASSERT_TRUE(runOnce(state.get(), 1.0f, 0));
  }
  std::string text = readFile(path);
  EXPECT_EQ(count(text, "\"ph\": \"X\""), 3u);
  EXPECT_EQ(count(text, "\"shapes\": [[0, 3], [0, 3]]"), 2u);
  std::remove(path.c_str());
}

TEST(Profile, EnablingAgainStartsANewTrace) {
  std::string first = tempPath("first"), second = tempPath("second");
  StatePtr state = makeState();
  ASSERT_EQ(onyx_state_enable_profiling(state.get(), first.c_str()), 0);
  ASSERT_TRUE(runOnce(state.get(), 1.0f, 1));
  ASSERT_EQ(onyx_state_enable_profiling(state.get(), second.c_str()), 0);
  ASSERT_TRUE(runOnce(state.get(), 1.0f, 1));
  ASSERT_TRUE(runOnce(state.get(), 1.0f, 1));
  EXPECT_EQ(onyx_state_end_profiling(state.get()), 6);
  EXPECT_EQ(count(readFile(first), "\"ph\": \"X\""), 3u);
  EXPECT_EQ(count(readFile(second), "\"ph\": \"X\""), 6u);
  std::remove(first.c_str());
  std::remove(second.c_str());
}

TEST(Profile, BadArguments) {
  EXPECT_EQ(onyx_state_enable_profiling(nullptr, "/tmp/x.json"), -1);
  EXPECT_EQ(onyx_state_end_profiling(nullptr), -1);
  EXPECT_EQ(onyxrt_profile_begin(nullptr), -1);
  onyxrt_profile_end(nullptr, 0, "n", "op", nullptr); // ignored
  // A file that cannot be written: an error, the session stays usable.
  StatePtr state = makeState();
  ASSERT_EQ(
      onyx_state_enable_profiling(state.get(), "/nonexistent-dir/profile.json"),
      0);
  ASSERT_TRUE(runOnce(state.get(), 1.0f, 1));
  EXPECT_EQ(onyx_state_end_profiling(state.get()), -1);
  EXPECT_NE(std::string(onyx_state_last_error(state.get()))
                .find("cannot write the profile"),
            std::string::npos);
  EXPECT_TRUE(runOnce(state.get(), 1.0f, 1));
}

} // namespace
