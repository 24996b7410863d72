//===- SessionOptionsTest.cpp - OnyxSessionOptions ------------------------===//
//
// onyxrt_state_create_with_options and onyx_session_create: defaults, the
// memory limit, threads and profiling taken from the options, structSize
// checks, device options refused for a host model, and the old entry points
// unchanged.
//
//===----------------------------------------------------------------------===//
#include "RuntimeHandles.h"
#include "onyx/onyx_runtime.h"
#include "onyx/onyx_services.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

using onyx::test::ListPtr;
using onyx::test::StatePtr;

const char *kMetadata = "onyx-model v1\n"
                        "input x 1 1 ?n\n"
                        "output y 1 1 ?n\n";

int32_t copyEntry(void *ctx) {
  const float *x = static_cast<const float *>(onyxrt_input_data(ctx, 0));
  int64_t n = onyxrt_input_dim(ctx, 0, 0);
  auto *y = static_cast<float *>(onyxrt_alloc_output(ctx, 0, 1, &n));
  if (!x || !y)
    return 1;
  int64_t t = onyxrt_profile_begin(ctx);
  for (int64_t i = 0; i < n; ++i)
    y[i] = x[i];
  int64_t table[] = {1, 1, n};
  onyxrt_profile_end(ctx, t, "copy", "test", table);
  return 0;
}

const OnyxModelDesc kDesc = {ONYX_ABI_VERSION, kMetadata, copyEntry};

bool runOnce(OnyxState *state, int64_t n) {
  ListPtr inputs(onyx_tensor_list_create());
  onyx_tensor_list_append(inputs.get(), onyx_tensor_create(ONYX_F32, 1, &n));
  ListPtr outputs(onyxrt_run(state, inputs.get()));
  return outputs != nullptr;
}

TEST(SessionOptions, Defaults) {
  OnyxSessionOptions o;
  std::memset(&o, 0x5a, sizeof(o));
  onyx_session_options_init(&o);
  EXPECT_EQ(o.structSize, sizeof(OnyxSessionOptions));
  EXPECT_EQ(o.deviceId, -1);
  EXPECT_EQ(o.cudaStream, nullptr);
  EXPECT_EQ(o.threads, 0);
  EXPECT_EQ(o.weightsPath, nullptr);
  EXPECT_EQ(o.profilePath, nullptr);
  EXPECT_EQ(o.memoryLimit, 0u);
  onyx_session_options_init(nullptr); // ignored
  // NULL options: the defaults, like onyxrt_state_create.
  const char *error = nullptr;
  StatePtr a(onyxrt_state_create_with_options(&kDesc, nullptr, &error));
  ASSERT_NE(a, nullptr) << error;
  StatePtr b(onyxrt_state_create(&kDesc, &error));
  ASSERT_NE(b, nullptr) << error;
  EXPECT_EQ(onyx_state_memory_limit(a.get()), onyx_state_memory_limit(b.get()));
  EXPECT_TRUE(runOnce(a.get(), 3));
}

TEST(SessionOptions, MemoryLimitThreadsAndProfile) {
  std::string path =
      "/tmp/onyx_options_test_" + std::to_string(getpid()) + ".json";
  OnyxSessionOptions o;
  onyx_session_options_init(&o);
  o.memoryLimit = 1 << 20;
  o.threads = 1;
  o.profilePath = path.c_str();
  const char *error = nullptr;
  {
    StatePtr s(onyxrt_state_create_with_options(&kDesc, &o, &error));
    ASSERT_NE(s, nullptr) << error;
    EXPECT_EQ(onyx_state_memory_limit(s.get()), uint64_t(1) << 20);
    EXPECT_EQ(onyxrt_cpu_get_threads(), 1);
    EXPECT_TRUE(runOnce(s.get(), 4));
    // 4 MiB of output exceeds the limit from the options.
    EXPECT_FALSE(runOnce(s.get(), 1 << 20));
    EXPECT_NE(std::string(onyx_state_last_error(s.get()))
                  .find("exceed the session's memory limit of 1048576"),
              std::string::npos);
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  // Two calls and the op of the one that ran.
  EXPECT_NE(text.str().find("\"name\": \"copy\""), std::string::npos);
  size_t calls = 0;
  for (size_t at = text.str().find("\"cat\": \"call\"");
       at != std::string::npos;
       at = text.str().find("\"cat\": \"call\"", at + 1))
    ++calls;
  EXPECT_EQ(calls, 2u);
  std::remove(path.c_str());
}

TEST(SessionOptions, StructSizeIsChecked) {
  OnyxSessionOptions o;
  onyx_session_options_init(&o);
  const char *error = nullptr;
  o.structSize = 0;
  EXPECT_EQ(onyxrt_state_create_with_options(&kDesc, &o, &error), nullptr);
  EXPECT_NE(std::string(error).find("structSize is 0"), std::string::npos);
  o.structSize = sizeof(OnyxSessionOptions) + 8;
  EXPECT_EQ(onyxrt_state_create_with_options(&kDesc, &o, &error), nullptr);
  EXPECT_NE(std::string(onyxrt_state_create_error()).find("structSize"),
            std::string::npos);
  // A caller with an older, shorter struct: the fields it lacks keep their
  // defaults (here everything after deviceId).
  onyx_session_options_init(&o);
  o.memoryLimit = 12345; // beyond the short size: ignored
  o.structSize = offsetof(OnyxSessionOptions, cudaStream);
  StatePtr s(onyxrt_state_create_with_options(&kDesc, &o, &error));
  ASSERT_NE(s, nullptr) << error;
  EXPECT_NE(onyx_state_memory_limit(s.get()), 12345u);
}

TEST(SessionOptions, DeviceOptionsForAHostModelAreAnError) {
  OnyxSessionOptions o;
  onyx_session_options_init(&o);
  o.deviceId = 1;
  const char *error = nullptr;
  EXPECT_EQ(onyxrt_state_create_with_options(&kDesc, &o, &error), nullptr);
  EXPECT_STREQ(error, "the session options choose a CUDA device, but this "
                      "model runs on the host");
  onyx_session_options_init(&o);
  int fakeStream = 0;
  o.cudaStream = &fakeStream;
  EXPECT_EQ(onyxrt_state_create_with_options(&kDesc, &o, &error), nullptr);
  EXPECT_NE(std::string(error).find("choose a CUDA stream"), std::string::npos);
}

TEST(SessionOptions, SessionCreateNeedsAnArtifact) {
  const char *error = nullptr;
  EXPECT_EQ(onyx_session_create(nullptr, nullptr, &error), nullptr);
  EXPECT_STREQ(error, "the artifact handle is NULL");
}

} // namespace
