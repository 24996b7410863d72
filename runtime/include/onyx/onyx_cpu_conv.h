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

/* act(v) = min(max(v, lo), hi) (ONNX Clip, e.g. ReLU6; NaN stays NaN) after
 * the bias and residual; lo and hi are floats whose bits are the int64 values
 * dims[4 + 6 * spatialRank] and dims[5 + 6 * spatialRank] (low 32 bits). */
#define ONYXRT_CONV_CLIP 8

#endif /* ONYX_ONYX_CPU_CONV_H */
