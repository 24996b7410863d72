/*===- cudnn_conv_harness.c - onyxrt_cuda_conv driven from Python --------===*
 *
 * A hand-written CUDA artifact (docs/runtime-abi.md) for
 * scripts/gpu/cudnn_api_check.py: it calls onyxrt_cuda_conv with the
 * element type, flags and dims that $ONYX_CONV_HARNESS names, on byte
 * buffers the caller fills, so that one artifact covers every convolution
 * the compiler can emit (layouts, groups, epilogues, types) without
 * onyx-compile.
 *
 *   inputs (uint8, device): x, w, b, r, y0      output (uint8): y
 *
 * $ONYX_CONV_HARNESS, read at each call:
 *   "check ELEM FLAGS RANK BIAS RES DIMS..."  one convolution into y;
 *       BIAS 1: b is the bias; RES 0: no residual, 1: r, 2: y itself;
 *       y starts as y0 when FLAGS has ACCUMULATE or RES is 2.
 *   "time ELEM COUNT [FLAGS RANK BIAS RES DIMS...] x COUNT"  COUNT
 *       convolutions in a row (a network's), each reading x, w, b (and r
 *       as residual) from the start of those inputs and writing y0 (given
 *       as device memory, read in place); y is one byte. For timing.
 * DIMS: N, C, M, G, then in, kernel, out, pads, strides, dilations per
 * spatial dim (onyxrt_cuda_conv's array).
 *
 * Build (here): cc -O2 -shared -fPIC -Iruntime/include
 *   scripts/gpu/cudnn_conv_harness.c -LLIB -lonyx_runtime -o harness.so
 *===----------------------------------------------------------------------===*/
#include "onyx/onyx_runtime.h"
#include "onyx/onyx_services.h"

#include <stdlib.h>
#include <string.h>

static const char kMetadata[] = "onyx-model v1\n"
                                "device cuda\n"
                                "input x 2 1 ?nx\n"
                                "input w 2 1 ?nw\n"
                                "input b 2 1 ?nb\n"
                                "input r 2 1 ?nr\n"
                                "input y0 2 1 ?ny\n"
                                "output y 2 1 ?\n";

static int fail(void *ctx, const char *what) {
  onyxrt_fail(ctx, what, 0, 0, 0, 0, 0);
  return 1;
}

static int64_t next(char **cursor) {
  char *end = *cursor;
  int64_t v = strtoll(*cursor, &end, 10);
  *cursor = end;
  return v;
}

static int32_t onyx_main(void *ctx) {
  const char *spec = getenv("ONYX_CONV_HARNESS");
  if (!spec)
    return fail(ctx, "ONYX_CONV_HARNESS is not set");
  const void *x = onyxrt_input_data(ctx, 0), *w = onyxrt_input_data(ctx, 1),
             *b = onyxrt_input_data(ctx, 2), *r = onyxrt_input_data(ctx, 3),
             *y0 = onyxrt_input_data(ctx, 4);
  int64_t ny = onyxrt_input_dim(ctx, 4, 0);
  char *cursor = (char *)spec;
  int timing = strncmp(spec, "time", 4) == 0;
  cursor += 5;
  int64_t elem = next(&cursor);
  int64_t count = timing ? next(&cursor) : 1;
  /* Timing writes into y0 (the caller's device buffer, read in place): no
   * allocation per call; y is then one byte. */
  int64_t yShape[1] = {timing ? 1 : ny};
  unsigned char *y = (unsigned char *)onyxrt_alloc_output(ctx, 0, 1, yShape);
  if (!y)
    return 1;
  void *tmp = (void *)y0;
  for (int64_t i = 0; i < count; ++i) {
    int64_t flags = next(&cursor), rank = next(&cursor),
            bias = next(&cursor), res = next(&cursor);
    if (rank < 1 || rank > 3)
      return fail(ctx, "harness: bad spec");
    int64_t dims[4 + 6 * 3];
    for (int64_t d = 0; d < 4 + 6 * rank; ++d)
      dims[d] = next(&cursor);
    void *out = timing ? tmp : y;
    if (!timing && ((flags & ONYXRT_CONV_ACCUMULATE) || res == 2) && ny > 0) {
      /* y = y0 through the host (a test; not timed). */
      void *host = malloc((size_t)ny);
      if (!host)
        return fail(ctx, "harness: out of memory");
      int32_t status =
          onyxrt_cuda_download(ctx, host, y0, ny, "harness_y0") ||
          onyxrt_cuda_upload(ctx, y, host, ny, "harness_y0");
      free(host);
      if (status)
        return 1;
    }
    const void *residual = res == 1 ? r : res == 2 ? (const void *)out : NULL;
    if (onyxrt_cuda_conv(ctx, "harness_conv", (int32_t)elem, (int32_t)flags,
                         rank, dims, x, w, bias ? b : NULL, residual, out))
      return 1;
  }
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
