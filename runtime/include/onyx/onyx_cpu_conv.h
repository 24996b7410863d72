/*===- onyx_cpu_conv.h - onyxrt_cpu_conv_f32's CPU-only flags -------------===*
 *
 * What onyxrt_cpu_conv_f32 (onyx_services.h; runtime/src/cpu/Conv.cpp) reads
 * beyond the flags of onyx_abi.h, shared by the runtime and the CPU target's
 * onyx-cpu-lower-convolutions only (kept out of onyx_abi.h, which most of
 * the tree includes).
 *
 * Padding: `dims`' pads... are the begin pads of each spatial dim, `in...`
 * the unpadded input's extents; input positions outside [0, in) read 0 (the
 * end pads follow from out...). The artifact passes the unpadded input
 * when it can, instead of materializing the padded copy.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONYX_ONYX_CPU_CONV_H
#define ONYX_ONYX_CPU_CONV_H

#include "onyx/onyx_abi.h"

#include <stdint.h>

/* act(v) = min(max(v, lo), hi) (ONNX Clip, e.g. ReLU6; NaN stays NaN) after
 * the bias and residual; lo and hi are floats whose bits are the int64 values
 * dims[4 + 6 * spatialRank] and dims[5 + 6 * spatialRank] (low 32 bits). */
#define ONYXRT_CONV_CLIP 8

/* Max pooling of dense row-major f32 buffers (the ONNX MaxPool lowering's
 * window generic, its input already padded, every window inside it):
 *   y[P, out...] = max(y or init, max over the window of x[P, in...])
 * with P = N * C planes. `dims` holds 1 + 5 * spatialRank values: P, then
 * per spatial dim in..., kernel..., out..., strides..., dilations...; with
 * ONYXRT_POOL_INIT y starts as the float whose bits are `init` (the fill
 * before the pool), else as y's contents. NaN propagates (arith.maximumf).
 * Cannot fail. */
#define ONYXRT_FN_CPU_MAXPOOL_F32 "onyxrt_cpu_maxpool_f32"
#define ONYXRT_POOL_INIT 1
#ifdef __cplusplus
extern "C" {
#endif
__attribute__((visibility("default"))) void
onyxrt_cpu_maxpool_f32(int32_t flags, int64_t spatialRank, const int64_t *dims,
                       int64_t init, const float *x, float *y);
#ifdef __cplusplus
}
#endif

#endif /* ONYX_ONYX_CPU_CONV_H */
