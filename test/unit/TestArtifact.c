/*===- TestArtifact.c - A hand-written artifact for onyx-run's tests -------===*
 *
 * Exports what a compiled MODEL.so exports (docs/runtime-abi.md), with
 * hand-written "generated code":
 *   inputs:  x : f32[?batch, 3], mask : bool[?batch]
 *   outputs: y = 2 * x : f32[?batch, 3], n = batch : i64[], m = !mask
 *            : bool[?batch]
 * It fails through onyxrt_fail when x[0][0] is negative.
 *===----------------------------------------------------------------------===*/
#include "onyx/onyx_runtime.h"
#include "onyx/onyx_services.h"

#include <string.h>

static const char kMetadata[] = "onyx-model v1\n"
                                "input x 1 2 ?batch 3\n"
                                "input mask 9 1 ?batch\n"
                                "output y 1 2 ?batch 3\n"
                                "output n 7 0\n"
                                "output m 9 1 ?batch\n";

static int32_t onyx_main(void *ctx) {
  const float *x = (const float *)onyxrt_input_data(ctx, 0);
  const unsigned char *mask = (const unsigned char *)onyxrt_input_data(ctx, 1);
  int64_t batch = onyxrt_input_dim(ctx, 0, 0);
  if (!x || !mask || batch < 0)
    return 1;
  if (batch > 0 && x[0] < 0) {
    onyxrt_fail(ctx, "node 'Check': x[0] is negative at batch {0}", 1, batch, 0,
                0, 0);
    return 1;
  }
  float *tmp = (float *)onyxrt_alloc_temp(ctx, batch * 3 * 4);
  if (!tmp)
    return 1;
  for (int64_t i = 0; i < batch * 3; ++i)
    tmp[i] = 2 * x[i];
  int64_t yShape[2] = {batch, 3};
  float *y = (float *)onyxrt_alloc_output(ctx, 0, 2, yShape);
  int64_t *n = (int64_t *)onyxrt_alloc_output(ctx, 1, 0, NULL);
  unsigned char *m = (unsigned char *)onyxrt_alloc_output(ctx, 2, 1, &batch);
  if (!y || !n || !m)
    return 1;
  memcpy(y, tmp, (size_t)batch * 12);
  onyxrt_free_temp(ctx, tmp);
  *n = batch;
  for (int64_t i = 0; i < batch; ++i)
    m[i] = !mask[i];
  return 0;
}

static const OnyxModelDesc kDesc = {ONYX_ABI_VERSION, kMetadata, onyx_main};

ONYX_API OnyxState *onyx_state_create(void) {
  return onyxrt_state_create(&kDesc, NULL);
}
ONYX_API OnyxState *onyx_state_create_with_weights(const char *weights) {
  return onyxrt_state_create_with_weights(&kDesc, weights, NULL);
}
ONYX_API void onyx_state_destroy(OnyxState *state) {
  onyxrt_state_destroy(state);
}
ONYX_API OnyxTensorList *inference_compute(OnyxState *state,
                                           OnyxTensorList *inputs) {
  return onyxrt_run(state, inputs);
}
ONYX_API const char *onyx_model_metadata(void) { return kMetadata; }
