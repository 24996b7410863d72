/*===- onyx_services.h - Runtime services called by generated code -------===*
 *
 * The onyxrt_* functions a compiled artifact's generated code calls with the
 * per-call context pointer it receives: inputs and outputs, temporaries and
 * pools, host synchronization, failures, profiling, sequences, the CUDA
 * target's launches, copies and library calls, the CPU target's kernels.
 * Their symbol names and the library calls' flag values are in onyx_abi.h,
 * which the compiler includes; the runtime implements these declarations.
 * A caller of the runtime (onyx_runtime.h) never needs this header.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ONYX_SERVICES_H
#define ONYX_SERVICES_H

#include "onyx/onyx_abi.h"
#include "onyx/onyx_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/*--- Services called by generated code ------------------------------------*/
/* `ctx` is the per-call context passed to OnyxModelDesc.entry. */
ONYX_API void *onyxrt_input_data(void *ctx, int64_t index);
ONYX_API int64_t onyxrt_input_dim(void *ctx, int64_t index, int64_t dim);
/* Allocates output `index` with the given shape; its element type comes
 * from the metadata. NULL on failure (message recorded). */
ONYX_API void *onyxrt_alloc_output(void *ctx, int64_t index, int64_t rank,
                                   const int64_t *shape);
/* Temporary buffer, 64-byte aligned, freed by the runtime at the end of the
 * call at the latest. NULL on failure (message recorded). */
ONYX_API void *onyxrt_alloc_temp(void *ctx, int64_t bytes);
ONYX_API void onyxrt_free_temp(void *ctx, void *ptr);
/* The session pool of domain `domainId`, grown to at least `bytes` bytes
 * (256-byte aligned, never NULL on success; contents are not preserved
 * across growth). NULL on failure (message recorded). */
ONYX_API void *onyxrt_get_pool(void *ctx, int64_t domainId, int64_t bytes);
/* Lays out the `count` temporaries of pool `domainId` at this call's aligned
 * sizes `bytes`: `table` holds four entries per temporary (lifetime start,
 * end, compile-time group or -1, static-region offset), `staticRegionBytes`
 * the compile-time plan's static region. Writes each temporary's byte offset
 * to offsets[0..count) and the pool size to offsets[count]; returns the pool
 * grown to that size (NULL on failure, message recorded). Records every
 * temporary for the memory statistics, like onyxrt_record_temp. */
/* Names the `count` temporaries of pool `domainId` (the nodes that make
 * them, in the order onyxrt_place_temps lists them; "" for none): `names`
 * holds `count` NUL-terminated strings back to back, a constant of the
 * artifact. Called before the pool's onyxrt_get_pool/onyxrt_place_temps so
 * that a memory-limit error names the node; optional. */
ONYX_API void onyxrt_pool_names(void *ctx, int64_t domainId, int64_t count,
                                const char *names);
ONYX_API void *onyxrt_place_temps(void *ctx, int64_t domainId, int64_t count,
                                  const int64_t *bytes, const int64_t *table,
                                  int64_t staticRegionBytes, int64_t *offsets);
/* Makes computed values visible to host code before a readback at `site`
 * ("node 'NAME'"): synchronizes a device session's stream (the CPU needs
 * nothing) and counts the synchronization. Returns 0, or 1 after recording
 * the failure (the generated code then returns the error). */
ONYX_API int32_t onyxrt_host_sync(void *ctx, const char *site);
/* The mapped bytes of external weight `index` (read-only). */
ONYX_API void *onyxrt_get_weight(void *ctx, int64_t index);
/* Reports one planned temporary: its lifetime [start, end] (positions in
 * the entry function) and aligned size at this call's shapes. */
ONYX_API void onyxrt_record_temp(void *ctx, int64_t domainId, int64_t start,
                                 int64_t end, int64_t bytes);
/* Records a failure. `format` may contain up to four "{N}" placeholders that
 * are replaced by the decimal values of the corresponding arguments. The
 * generated code returns a non-zero status right after this call. */
ONYX_API void onyxrt_fail(void *ctx, const char *format, int64_t numArgs,
                          int64_t a0, int64_t a1, int64_t a2, int64_t a3);

/* Profiling hooks, emitted around every op by onyx-compile --profile (CPU):
 * onyxrt_profile_begin returns a token (-1 when the session is not
 * profiling); onyxrt_profile_end records the op's event: `name` its node,
 * `op` the op kind, `shapes` a table of its buffers' shapes (count, then
 * rank and dims of each; may be NULL). Neither can fail. */
ONYX_API int64_t onyxrt_profile_begin(void *ctx);
ONYX_API void onyxrt_profile_end(void *ctx, int64_t token, const char *name,
                                 const char *op, const int64_t *shapes);

/*--- Services called by generated code: sequences -------------------------*/
/* Sequence handles (`void *`) are immutable and owned by the call: freed
 * when it ends. Elements are stored by copy, in buffers shared (never
 * modified) by every sequence holding them. An optional is NULL (empty) or
 * the handle of its value (an optional tensor: a one-element sequence).
 * Services that can fail return NULL after recording a message that starts
 * with "node 'LABEL': "; the generated code then returns its error. */
ONYX_API void *onyxrt_seq_empty(void *ctx, int32_t elemType);
ONYX_API int64_t onyxrt_seq_length(void *ctx, void *seq);
/* A new sequence: `seq` with a copy of the dense row-major tensor
 * (`data`, `rank`, `shape`) inserted before `position` (in [-n, n]; with
 * hasPosition == 0, at the back). */
ONYX_API void *onyxrt_seq_insert(void *ctx, void *seq, int64_t position,
                                 int32_t hasPosition, const void *data,
                                 int64_t rank, const int64_t *shape,
                                 const char *label);
/* The data of element `position` (in [-n, n - 1]), whose rank must be
 * `rank`; its dims are written to shapeOut[0..rank). Read-only. */
ONYX_API void *onyxrt_seq_at(void *ctx, void *seq, int64_t position,
                             int64_t rank, int64_t *shapeOut,
                             const char *label);
/* A new sequence without element `position` (hasPosition == 0: the last). */
ONYX_API void *onyxrt_seq_erase(void *ctx, void *seq, int64_t position,
                                int32_t hasPosition, const char *label);
/* The value of a non-empty optional; NULL (error) when it is empty. */
ONYX_API void *onyxrt_optional_unwrap(void *ctx, void *optional,
                                      const char *label);
/* Graph input `index` of sequence/optional kind as a handle (elements
 * borrow the caller's tensors); NULL for an empty optional. */
ONYX_API void *onyxrt_input_value(void *ctx, int64_t index);
/* Makes graph output `index` (a sequence or optional per the metadata)
 * from a handle, copying the elements. Returns 0; 1 after recording an
 * error. */
ONYX_API int32_t onyxrt_set_output_value(void *ctx, int64_t index, void *value,
                                         const char *label);

/*--- Services called by generated code: CUDA target ------------------------*/
/* A CUDA artifact's metadata has the line `device cuda`: its session owns a
 * CUDA device (created with the session; onyxrt_state_create fails with a
 * message when no driver or device is present), and the services above
 * answer with device memory. Inputs are copied to the device when a call
 * starts, outputs back to the host when it succeeds (docs/cuda-backend.md). */

/* One compiled kernel of a CUDA artifact: its cubin (NULL when absent), the
 * NUL-terminated PTX the driver can JIT instead (NULL when absent) and the
 * kernel's name in both. */
typedef struct OnyxCudaKernel {
  const void *cubin;
  uint64_t cubinSize;
  const char *ptx;
  const char *name;
} OnyxCudaKernel;

/* Launches `kernel` on the session's stream, loading its module on first
 * use in the session. `args` holds `numArgs` 8-byte slots (device pointers
 * and 64-bit integers, in the kernel's parameter order). A grid with a zero
 * dim launches nothing. Returns 0; non-zero after recording an error that
 * names `label` (the node) and the failing CUDA call. */
ONYX_API int32_t onyxrt_cuda_launch(void *ctx, const OnyxCudaKernel *kernel,
                                    const char *label, int64_t gridX,
                                    int64_t gridY, int64_t gridZ,
                                    int64_t blockX, int64_t blockY,
                                    int64_t blockZ, int64_t numArgs,
                                    const uint64_t *args);
/* Emitted before each launch by onyx-compile --profile: `shapes`, a table
 * of the launch's buffers' shapes (count, then rank and dims of each, as for
 * onyxrt_profile_end), goes into the next launch's trace event when the
 * session profiles; otherwise it returns at once. Cannot fail. */
ONYX_API void onyxrt_cuda_profile_shapes(void *ctx, const int64_t *shapes);
/* Copies `bytes` from host memory to device memory on the session's stream
 * (constants). Returns 0; non-zero after recording an error. */
ONYX_API int32_t onyxrt_cuda_upload(void *ctx, void *deviceDst,
                                    const void *hostSrc, int64_t bytes,
                                    const char *label);
/* Copies `bytes` of device memory to the host once the work queued before
 * it is done (a synchronized readback: sizes the host computes from device
 * tensors). Returns 0; non-zero after recording an error naming `label`. */
ONYX_API int32_t onyxrt_cuda_download(void *ctx, void *hostDst,
                                      const void *deviceSrc, int64_t bytes,
                                      const char *label);
/* A readback in two halves, so that the readbacks the host needs at the
 * same point share one synchronization: `onyxrt_cuda_readback` queues an
 * asynchronous copy of `bytes` of device memory into the session's pinned
 * staging buffer (to land in `hostDst`); `onyxrt_cuda_readback_wait` is the
 * host synchronization (counted, subject to fault injection): it waits for
 * the stream and copies every queued readback to its destination. `hostDst`
 * must stay valid until the wait. Both return 0; non-zero after recording
 * an error naming `label`. */
ONYX_API int32_t onyxrt_cuda_readback(void *ctx, void *hostDst,
                                      const void *deviceSrc, int64_t bytes,
                                      const char *label);
ONYX_API int32_t onyxrt_cuda_readback_wait(void *ctx, const char *label);

/* The device copy of host constant data (an embedded constant or an
 * external weight) that kernels and library calls read: uploaded on first use
 * and kept, by host address, for the life of the session. NULL after
 * recording an error naming `label`. */
ONYX_API void *onyxrt_cuda_constant(void *ctx, const void *hostSrc,
                                    int64_t bytes, const char *label);

/* Row-major GEMM through cuBLASLt on the session's stream, `batch` times:
 *   C_i[m, n] = op(A_i)[m, k] * op(B_i)[k, n] (+ C_i with ACCUMULATE)
 * where A_i = a + i * strideA (elements), op(A) is A stored [k, m] with
 * TRANS_A (else [m, k]) with leading dim lda, likewise B ([n, k] with
 * TRANS_B, else [k, n]); C is [m, n] with leading dim ldc. With `bias`
 * (n values, batch 1 only, not with ACCUMULATE) C[i, j] gets + bias[j]
 * (cuBLASLt's bias epilogue). f32 only; fp32 arithmetic (no TF32) unless
 * TF32. Plans are cached per shape in the session. Returns 0; non-zero after
 * recording an error naming `label`. */
ONYX_API int32_t onyxrt_cuda_gemm(void *ctx, const char *label,
                                  int32_t elemType, int32_t flags,
                                  int64_t batch, int64_t m, int64_t n,
                                  int64_t k, const void *a, int64_t lda,
                                  int64_t strideA, const void *b, int64_t ldb,
                                  int64_t strideB, void *c, int64_t ldc,
                                  int64_t strideC, const void *bias);

/* Grouped N-d convolution (cross-correlation, dense buffers) through cuDNN
 * on the session's stream:
 *   y[N, M, out...] = conv(x[N, C, in...], w[M, C / G, kernel...])
 *                     (+ y with ACCUMULATE)
 * `dims` holds 4 + 6 * spatialRank values: N, C, M, G, then per spatial dim
 * in..., kernel..., out..., pads... (begin = end), strides..., dilations....
 * With `bias` (M values, else NULL) y = conv + bias, plus `residual` (a
 * tensor shaped like y, else NULL; bias required), and with RELU (bias
 * required) y = max(conv + bias (+ residual), 0). `elemType` is ONYX_F32,
 * ONYX_F16 or ONYX_BF16 (x, w, bias, residual and y alike; half precision
 * accumulates in fp32 on tensor cores); f32 is plain fp32 (no TF32) unless
 * TF32, which half types refuse. With NHWC, x, y and the residual are
 * channels last ([N, in..., C] / [N, out..., M]) and the weights, passed as
 * [M, C / G, kernel...], are converted to KRSC on the device (once per
 * session with CONST_FILTER). Flags (onyx_abi.h): ACCUMULATE, TF32, RELU,
 * NHWC, CONST_FILTER; any other bit is an error. cuDNN's backend (graph) API
 * runs the convolution with its epilogue fused where an engine supports it,
 * one execution plan per shape, flags, types and pointer alignments, chosen
 * by cuDNN's heuristics on first use and cached in the session
 * (ONYX_CUDNN_API=legacy: the legacy API, cudnnConvolutionForward /
 * cudnnConvolutionBiasActivationForward). Returns 0; non-zero after
 * recording an error naming `label`. */
ONYX_API int32_t onyxrt_cuda_conv(void *ctx, const char *label,
                                  int32_t elemType, int32_t flags,
                                  int64_t spatialRank, const int64_t *dims,
                                  const void *x, const void *w,
                                  const void *bias, const void *residual,
                                  void *y);

/* CPU kernels (runtime/src/cpu/), called from CPU artifacts.
 *
 * Grouped N-d convolution of dense row-major f32 buffers (the ONNX Conv
 * lowering's, the input already padded):
 *   y[N, M, out...] = act(conv(x[N, C, in...], w[M, C / G, kernel...])
 *                         (+ y with ACCUMULATE) (+ bias[M]) (+ residual))
 * `dims` is laid out as for onyxrt_cuda_conv (4 + 6 * spatialRank values,
 * pads 0); `bias` and `residual` may be NULL; act is max(., 0) with RELU,
 * else the identity. im2col + OpenBLAS sgemm per image and group; depthwise
 * convolutions as direct loops. Cannot fail. */
ONYX_API void onyxrt_cpu_conv_f32(int32_t flags, int64_t spatialRank,
                                  const int64_t *dims, const float *x,
                                  const float *w, const float *bias,
                                  const float *residual, float *y);

#ifdef __cplusplus
}
#endif

#endif /* ONYX_SERVICES_H */
