/* onyx-consumer ARTIFACT.so BATCH: loads a compiled model of one f32 input
 * [batch, K] (examples/mlp_classifier.onnx), feeds x[i][j] = sin(i * K + j),
 * runs it and prints each output element on its own line ("%.9g"); errors go
 * to stderr with exit status 1. Uses only the installed public header
 * onyx/onyx_runtime.h and the artifact's exports (docs/runtime-abi.md). */
#include <onyx/onyx_runtime.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef OnyxState *(*CreateFn)(void);
typedef void (*DestroyFn)(OnyxState *);
typedef OnyxTensorList *(*ComputeFn)(OnyxState *, OnyxTensorList *);
typedef const char *(*MetadataFn)(void);

static int fail(const char *what, const char *why) {
  fprintf(stderr, "onyx-consumer: %s: %s\n", what, why ? why : "");
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return fail("usage", "onyx-consumer ARTIFACT.so BATCH");
  if (strcmp(onyx_runtime_version(), ONYX_RUNTIME_VERSION) != 0)
    return fail("runtime version mismatch", onyx_runtime_version());
  long batch = strtol(argv[2], NULL, 10);
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return fail("dlopen", dlerror());
  CreateFn create = (CreateFn)dlsym(lib, "onyx_state_create");
  DestroyFn destroy = (DestroyFn)dlsym(lib, "onyx_state_destroy");
  ComputeFn compute = (ComputeFn)dlsym(lib, "inference_compute");
  MetadataFn metadata = (MetadataFn)dlsym(lib, "onyx_model_metadata");
  if (!create || !destroy || !compute || !metadata)
    return fail(argv[1], "not an Onyx artifact");

  const char *error = NULL;
  OnyxMetadata *meta = onyx_metadata_parse(metadata(), &error);
  if (!meta)
    return fail("metadata", error);
  if (onyx_metadata_num_inputs(meta) != 1 ||
      onyx_metadata_element_type(meta, 0, 0) != ONYX_F32 ||
      onyx_metadata_rank(meta, 0, 0) != 2 || onyx_metadata_dim(meta, 0, 0, 1) < 0)
    return fail("model", "expected one f32 input [batch, K]");
  int64_t k = onyx_metadata_dim(meta, 0, 0, 1);
  fprintf(stderr, "input '%s' [%s, %lld]\n", onyx_metadata_name(meta, 0, 0),
          onyx_metadata_dim_symbol(meta, 0, 0, 0), (long long)k);
  onyx_metadata_destroy(meta);

  OnyxState *state = create();
  if (!state)
    return fail("session", onyxrt_state_create_error());
  int64_t shape[2] = {batch, k};
  OnyxTensor *x = onyx_tensor_create(ONYX_F32, 2, shape);
  if (!x)
    return fail("tensor", "bad shape");
  float *data = (float *)onyx_tensor_data(x);
  for (int64_t i = 0; i < batch * k; ++i)
    data[i] = (float)sin((double)i);
  OnyxTensorList *inputs = onyx_tensor_list_create();
  onyx_tensor_list_append(inputs, x);
  OnyxTensorList *outputs = compute(state, inputs);
  if (!outputs)
    return fail("run", onyx_state_last_error(state));
  for (size_t o = 0; o < onyx_tensor_list_size(outputs); ++o) {
    OnyxTensor *y = onyx_tensor_list_get(outputs, o);
    if (onyx_tensor_element_type(y) != ONYX_F32)
      return fail("output", "not f32");
    const float *v = (const float *)onyx_tensor_data(y);
    for (int64_t i = 0; i < onyx_tensor_num_elements(y); ++i)
      printf("%.9g\n", v[i]);
  }
  /* A bad call is an error message, and the session stays usable. */
  int64_t bad[1] = {k};
  OnyxTensorList *badInputs = onyx_tensor_list_create();
  onyx_tensor_list_append(badInputs, onyx_tensor_create(ONYX_F32, 1, bad));
  if (compute(state, badInputs) != NULL || !*onyx_state_last_error(state))
    return fail("bad call", "a rank-1 input was accepted");
  fprintf(stderr, "bad call: %s\n", onyx_state_last_error(state));
  onyx_tensor_list_destroy(badInputs);
  OnyxTensorList *again = compute(state, inputs);
  if (!again)
    return fail("run after an error", onyx_state_last_error(state));
  onyx_tensor_list_destroy(again);
  onyx_tensor_list_destroy(outputs);
  onyx_tensor_list_destroy(inputs);
  destroy(state);
  return 0;
}
