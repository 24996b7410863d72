/*===- onyx_abi.h - The generated-code ABI, shared by compiler and runtime ===*
 *
 * What compiled code and the runtime must agree on, named once: the runtime
 * services generated code calls (their symbol names), the flags of the
 * library-call services, and the metadata text format (docs/runtime-abi.md).
 * The compiler includes this header instead of retyping the names (plain C,
 * no MLIR); the runtime declares the services themselves in onyx_services.h
 * and parses the metadata with these constants. A caller of the runtime
 * never needs this header.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ONYX_ABI_H
#define ONYX_ABI_H

/*--- Entry points ----------------------------------------------------------*/
/* The generated entry, `int32_t onyx_main(void *ctx)`. */
#define ONYX_ABI_ENTRY "onyx_main"
/* What the artifact exports (onyx-generate-interface): trampolines into the
 * runtime with the model's descriptor, looked up with dlsym by callers
 * (onyx-run, the Python module). */
#define ONYX_ABI_EXPORT_STATE_CREATE "onyx_state_create"
#define ONYX_ABI_EXPORT_STATE_CREATE_WITH_WEIGHTS                              \
  "onyx_state_create_with_weights"
#define ONYX_ABI_EXPORT_STATE_DESTROY "onyx_state_destroy"
#define ONYX_ABI_EXPORT_RUN "inference_compute"
#define ONYX_ABI_EXPORT_METADATA "onyx_model_metadata"

/*--- Runtime services generated code calls --------------------------------*/
/* Sessions (the artifact's trampolines). */
#define ONYXRT_FN_STATE_CREATE "onyxrt_state_create"
#define ONYXRT_FN_STATE_CREATE_WITH_WEIGHTS "onyxrt_state_create_with_weights"
#define ONYXRT_FN_STATE_DESTROY "onyxrt_state_destroy"
#define ONYXRT_FN_RUN "onyxrt_run"
/* Inputs, outputs and temporaries. */
#define ONYXRT_FN_INPUT_DATA "onyxrt_input_data"
#define ONYXRT_FN_INPUT_DIM "onyxrt_input_dim"
#define ONYXRT_FN_ALLOC_OUTPUT "onyxrt_alloc_output"
#define ONYXRT_FN_ALLOC_TEMP "onyxrt_alloc_temp"
#define ONYXRT_FN_FREE_TEMP "onyxrt_free_temp"
#define ONYXRT_FN_GET_POOL "onyxrt_get_pool"
#define ONYXRT_FN_PLACE_TEMPS "onyxrt_place_temps"
#define ONYXRT_FN_RECORD_TEMP "onyxrt_record_temp"
#define ONYXRT_FN_POOL_NAMES "onyxrt_pool_names"
#define ONYXRT_FN_GET_WEIGHT "onyxrt_get_weight"
/* Errors and host synchronization. */
#define ONYXRT_FN_FAIL "onyxrt_fail"
#define ONYXRT_FN_HOST_SYNC "onyxrt_host_sync"
/* Sequences and optionals (docs/sequences.md). */
#define ONYXRT_FN_SEQ_EMPTY "onyxrt_seq_empty"
#define ONYXRT_FN_SEQ_LENGTH "onyxrt_seq_length"
#define ONYXRT_FN_SEQ_INSERT "onyxrt_seq_insert"
#define ONYXRT_FN_SEQ_AT "onyxrt_seq_at"
#define ONYXRT_FN_SEQ_ERASE "onyxrt_seq_erase"
#define ONYXRT_FN_OPTIONAL_UNWRAP "onyxrt_optional_unwrap"
#define ONYXRT_FN_INPUT_VALUE "onyxrt_input_value"
#define ONYXRT_FN_SET_OUTPUT_VALUE "onyxrt_set_output_value"
/* The CUDA device (docs/cuda-backend.md). */
#define ONYXRT_FN_CUDA_LAUNCH "onyxrt_cuda_launch"
#define ONYXRT_FN_CUDA_UPLOAD "onyxrt_cuda_upload"
#define ONYXRT_FN_CUDA_DOWNLOAD "onyxrt_cuda_download"
#define ONYXRT_FN_CUDA_READBACK "onyxrt_cuda_readback"
#define ONYXRT_FN_CUDA_READBACK_WAIT "onyxrt_cuda_readback_wait"
#define ONYXRT_FN_CUDA_CONSTANT "onyxrt_cuda_constant"
#define ONYXRT_FN_CUDA_GEMM "onyxrt_cuda_gemm"
#define ONYXRT_FN_CUDA_CONV "onyxrt_cuda_conv"
#define ONYXRT_FN_CUDA_ATTENTION "onyxrt_cuda_attention"
/* Fused LayerNorm, with the residual Add before it (runtime/src/cuda/
 * CudaLayerNorm.cpp):
 *   int32_t onyxrt_cuda_layer_norm(void *ctx, const char *label,
 *       int32_t xType, int32_t residualType, int32_t sumType,
 *       int32_t outType, int32_t out2Type, int32_t paramType,
 *       int64_t rows, int64_t n, double epsilon,
 *       const void *x, const void *residual, const void *scale,
 *       const void *bias, void *sum, void *out, void *out2);
 * Element codes 1 (f32), 10 (f16), 16 (bf16). x, residual, sum, out and
 * out2 are dense row-major [rows, n] device buffers, scale and bias dense
 * [n]. residual, bias, sum and out2 may be NULL (none: their type codes
 * are then ignored, 0 by convention; sumType still counts with a residual
 * and no sum). Per element j of a row, in f32: v = x[j], or with a residual
 * v = x[j] + residual[j] rounded to sumType (ONNX Add(x, residual) of type
 * sumType; f32: not rounded), written to sum[j] when sum is given (only
 * with a residual); mean and variance of v (two-pass, divided by n),
 * inv = 1 / sqrtf(var + (float)epsilon), y = (v - mean) * inv * scale[j]
 * + bias[j]; out[j] = y rounded once to outType, out2[j] = the same y
 * rounded to out2Type (the bits of a Cast of an f32 out). Each of sum, out
 * and out2 is either disjoint from x and from the residual or exactly one
 * of them with elements of the same size (in place); outputs are disjoint
 * from each other and from scale and bias. Any alignment works; the fast
 * (vectorized) kernels need n a multiple of 4 (f32 x) or 8 (f16 / bf16 x)
 * and 16-byte aligned buffers (8-byte for 16-bit operands of an f32 x).
 * rows == 0 or n == 0: nothing. Returns 0, or non-zero after recording an
 * error that starts with `label`. */
#define ONYXRT_FN_CUDA_LAYER_NORM "onyxrt_cuda_layer_norm"

/* String tensors (onyx_strings.h, docs/runtime.md "String tensors"). */
#define ONYXRT_FN_STR_EQUAL "onyxrt_str_equal"
#define ONYXRT_FN_STR_CONCAT "onyxrt_str_concat"
#define ONYXRT_FN_STR_REGEX_FULL_MATCH "onyxrt_str_regex_full_match"
#define ONYXRT_FN_STR_SPLIT_COUNT "onyxrt_str_split_count"
#define ONYXRT_FN_STR_SPLIT_PART "onyxrt_str_split_part"
#define ONYXRT_FN_STR_CHANGE_CASE "onyxrt_str_change_case"
#define ONYXRT_FN_STR_IS_STOPWORD "onyxrt_str_is_stopword"
#define ONYXRT_FN_STR_FROM_F32 "onyxrt_str_from_f32"
#define ONYXRT_FN_STR_FROM_F64 "onyxrt_str_from_f64"
#define ONYXRT_FN_STR_FROM_I64 "onyxrt_str_from_i64"
#define ONYXRT_FN_STR_FROM_U64 "onyxrt_str_from_u64"
#define ONYXRT_FN_STR_TO_F32 "onyxrt_str_to_f32"
#define ONYXRT_FN_STR_TO_F64 "onyxrt_str_to_f64"
#define ONYXRT_FN_STR_TO_I64 "onyxrt_str_to_i64"
#define ONYXRT_FN_STR_TO_U64 "onyxrt_str_to_u64"
/* The prefix every string service shares (a target without them rejects
 * calls to it: the CUDA target). */
#define ONYXRT_FN_STR_PREFIX "onyxrt_str_"

/* CPU kernels (runtime/src/cpu/); every one's name starts with the prefix. */
#define ONYXRT_FN_CPU_PREFIX "onyxrt_cpu_"
#define ONYXRT_FN_CPU_CONV_F32 "onyxrt_cpu_conv_f32"
/* Per-op profiling (runtime/src/Profile.h). */
#define ONYXRT_FN_PROFILE_BEGIN "onyxrt_profile_begin"
#define ONYXRT_FN_PROFILE_END "onyxrt_profile_end"
/* CUDA launches of an artifact compiled with --profile: the buffer shapes
 * of the next launch (onyx-cuda-lower-launches). */
#define ONYXRT_FN_CUDA_PROFILE_SHAPES "onyxrt_cuda_profile_shapes"

/*--- Library-call flags ----------------------------------------------------*/
/* onyxrt_cuda_gemm. */
#define ONYXRT_GEMM_TRANS_A 1
#define ONYXRT_GEMM_TRANS_B 2
#define ONYXRT_GEMM_ACCUMULATE 4
#define ONYXRT_GEMM_TF32 8
/* With a bias: C = gelu(A B + bias), the tanh approximation 0.5 x (1 +
 * tanh(sqrt(2/pi) (x + 0.044715 x^3))) (cuBLASLt's GELU_BIAS epilogue). */
#define ONYXRT_GEMM_GELU_TANH 16
/* onyxrt_cuda_conv (and onyxrt_cpu_conv_f32, which reads ACCUMULATE and
 * RELU). */
#define ONYXRT_CONV_ACCUMULATE 1
#define ONYXRT_CONV_TF32 2
#define ONYXRT_CONV_RELU 4
/* onyxrt_cuda_conv only (8 and 16 are onyx_cpu_conv.h's): x, y and the
 * residual are NHWC ([N, in..., C] / [N, out..., M]), the weights stay
 * [M, C/G, kernel...] and the call reads them as [M, kernel..., C/G]
 * (KRSC), converted on the device; with CONST_FILTER the weights are a
 * session constant and the converted copy is kept for the session. */
#define ONYXRT_CONV_NHWC 32
#define ONYXRT_CONV_CONST_FILTER 64

/*--- Metadata text (docs/runtime-abi.md, "Metadata text") -----------------*/
/* First line: "onyx-model v1". */
#define ONYX_METADATA_MAGIC "onyx-model"
#define ONYX_METADATA_VERSION "v1"
#define ONYX_METADATA_HEADER ONYX_METADATA_MAGIC " " ONYX_METADATA_VERSION
/* Line kinds (the first word of a line). */
#define ONYX_METADATA_INPUT "input"
#define ONYX_METADATA_OUTPUT "output"
#define ONYX_METADATA_WEIGHT "weight"
/* "weight_concat": a weight the session gathers from the rows of earlier
 * weights (docs/runtime-abi.md). */
#define ONYX_METADATA_WEIGHT_CONCAT "weight_concat"
#define ONYX_METADATA_DEVICE "device"
#define ONYX_METADATA_SERIAL "serial"
/* Suffixes of input/output for sequence and optional values
 * (docs/sequences.md): input-sequence, output-optional, ... */
#define ONYX_METADATA_SEQUENCE_SUFFIX "-sequence"
#define ONYX_METADATA_OPTIONAL_SUFFIX "-optional"
#define ONYX_METADATA_OPTIONAL_SEQUENCE_SUFFIX "-optional-sequence"
/* `device cuda`: the device of CUDA artifacts. */
#define ONYX_METADATA_DEVICE_CUDA "cuda"
/* Names (and symbolic dims, `?NAME`) keep ASCII letters, digits and these
 * bytes; every other byte is written %XX (upper-case hex). */
#define ONYX_METADATA_NAME_PUNCT "_.:/-"

#endif /* ONYX_ABI_H */
