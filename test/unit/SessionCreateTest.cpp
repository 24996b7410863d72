//===- SessionCreateTest.cpp - onyx_session_create on an artifact ---------===//
//
// onyx_session_create with a real (hand-written) artifact, TestArtifact.c:
// the options reach the session through the artifact's own
// onyx_state_create_with_weights trampoline; a library that is no artifact
// is refused.
//
//===----------------------------------------------------------------------===//
#include "onyx/onyx_runtime.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

struct Library {
  void *handle = dlopen(ONYX_TEST_ARTIFACT_PATH, RTLD_NOW | RTLD_LOCAL);
  ~Library() {
    if (handle)
      dlclose(handle);
  }
};

/// Runs the artifact at `batch` (x = 1, mask = 0); true when it succeeded.
bool runAt(Library &lib, OnyxState *state, int64_t batch) {
  using Compute = OnyxTensorList *(*)(OnyxState *, OnyxTensorList *);
  auto compute =
      reinterpret_cast<Compute>(dlsym(lib.handle, "inference_compute"));
  int64_t xs[2] = {batch, 3};
  OnyxTensorList *inputs = onyx_tensor_list_create();
  OnyxTensor *x = onyx_tensor_create(ONYX_F32, 2, xs);
  for (int64_t i = 0; i < batch * 3; ++i)
    static_cast<float *>(onyx_tensor_data(x))[i] = 1.0f;
  onyx_tensor_list_append(inputs, x);
  onyx_tensor_list_append(inputs, onyx_tensor_create(ONYX_BOOL, 1, &batch));
  OnyxTensorList *outputs = compute(state, inputs);
  bool ok = outputs != nullptr;
  if (outputs)
    onyx_tensor_list_destroy(outputs);
  onyx_tensor_list_destroy(inputs);
  return ok;
}

TEST(SessionCreate, OptionsReachTheArtifactsSession) {
  Library lib;
  ASSERT_NE(lib.handle, nullptr) << dlerror();
  std::string path =
      "/tmp/onyx_session_create_test_" + std::to_string(getpid()) + ".json";
  OnyxSessionOptions o;
  onyx_session_options_init(&o);
  o.memoryLimit = 4096;
  o.profilePath = path.c_str();
  const char *error = nullptr;
  OnyxState *state = onyx_session_create(lib.handle, &o, &error);
  ASSERT_NE(state, nullptr) << (error ? error : "");
  EXPECT_EQ(onyx_state_memory_limit(state), 4096u);
  EXPECT_TRUE(runAt(lib, state, 2));
  // 1000 x 3 floats of temporaries exceed the 4096 bytes of the options.
  EXPECT_FALSE(runAt(lib, state, 1000));
  EXPECT_NE(std::string(onyx_state_last_error(state))
                .find("exceed the session's memory limit of 4096"),
            std::string::npos);
  EXPECT_EQ(onyx_state_end_profiling(state), 2); // the two calls
  onyxrt_state_destroy(state);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("\"ok\": false"), std::string::npos);
  std::remove(path.c_str());

  // The defaults (NULL options); later plain creations are unaffected.
  state = onyx_session_create(lib.handle, nullptr, &error);
  ASSERT_NE(state, nullptr) << (error ? error : "");
  EXPECT_NE(onyx_state_memory_limit(state), 4096u);
  EXPECT_TRUE(runAt(lib, state, 1000));
  onyxrt_state_destroy(state);
  using Create = OnyxState *(*)(void);
  auto create =
      reinterpret_cast<Create>(dlsym(lib.handle, "onyx_state_create"));
  state = create();
  ASSERT_NE(state, nullptr);
  EXPECT_NE(onyx_state_memory_limit(state), 4096u);
  onyxrt_state_destroy(state);
}

TEST(SessionCreate, Errors) {
  Library lib;
  ASSERT_NE(lib.handle, nullptr) << dlerror();
  OnyxSessionOptions o;
  onyx_session_options_init(&o);
  o.deviceId = 0;
  const char *error = nullptr;
  EXPECT_EQ(onyx_session_create(lib.handle, &o, &error), nullptr);
  EXPECT_STREQ(error, "the session options choose a CUDA device, but this "
                      "model runs on the host");
  EXPECT_STREQ(onyxrt_state_create_error(), error);
  // The test program itself is no artifact.
  void *self = dlopen(nullptr, RTLD_NOW);
  EXPECT_EQ(onyx_session_create(self, nullptr, &error), nullptr);
  EXPECT_NE(std::string(error).find("not an Onyx artifact"), std::string::npos);
}

} // namespace
