//===- Pipelines.h - The Onyx compilation pipeline --------------*- C++ -*-===//
#ifndef ONYX_PIPELINES_PIPELINES_H
#define ONYX_PIPELINES_PIPELINES_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

namespace onyx {

/// Registers every dialect and interface implementation the pipeline uses.
void registerOnyxDialects(mlir::DialectRegistry &registry);
/// Registers Onyx's passes and the named pipelines below for onyx-opt.
void registerOnyxPassesAndPipelines();

/// Stage 2-3: cleanup and shape refinement on the onnx dialect.
/// `halfType` ("f16" or "bf16"; `onyx-compile --precision=fp16|bf16`): then
/// onnx-convert-precision runs the fp32 model's compute-heavy ops in that
/// type. Empty: the model's own types. `f32LayerNorm`: LayerNormalization
/// and the residual stream around it stay f32 (`--precision-f32-layer-norm`).
/// `mergeMatMuls`: MatMuls of one input with constant weights become one
/// (onnx-merge-sibling-matmuls; `--merge-matmuls`).
void buildONNXCleanupPipeline(mlir::OpPassManager &pm,
                              llvm::StringRef halfType = "",
                              bool f32LayerNorm = false,
                              bool mergeMatMuls = false);
/// Stage 4: onnx -> tensor-level destination-passing ops.
/// `fuseAttention` (the CUDA target): attention blocks become onyx.attention
/// (onyx-fuse-attention) before elementwise fusion. `channelsLast` (the
/// CUDA target): f16 / bf16 convolutions and their neighbours in NHWC
/// (onyx-cuda-channels-last), and f32 ones too with `channelsLastF32`.
/// `layerNorm` (the CUDA target): LayerNormalizations become onyx.layer_norm
/// (onyx-cuda-form-layer-norm) before the lowering.
void buildONNXToTensorPipeline(mlir::OpPassManager &pm,
                               bool fuseAttention = false,
                               bool channelsLast = false,
                               bool channelsLastF32 = false,
                               bool layerNorm = false);
/// Stages 6-8: One-Shot Bufferize, output allocation, entry binding, and
/// pooling of temporaries with `poolScheme` ("lifetime", "iree" or "none").
/// `target` "cpu": convolutions and max pools become runtime calls before
/// the pooling (onyx-cpu-lower-convolutions), so that the buffers their
/// calls absorb (padded copies, bias broadcasts) are never planned and the
/// unpadded inputs they read stay live until the call; "cuda" likewise
/// with cuDNN calls (onyx-cuda-lower-convolutions; `tf32`: TF32 tensor
/// cores for f32 convolutions).
void buildBufferizationPipeline(mlir::OpPassManager &pm,
                                llvm::StringRef poolScheme = "lifetime",
                                llvm::StringRef target = "", bool tf32 = false);
/// Stage 9-10 for the CPU: loops, LLVM dialect, exported interface.
/// `profileOps`: per-op profiling hooks (onyx-cpu-profile-ops).
void buildCPUCodegenPipeline(mlir::OpPassManager &pm, bool profileOps = false);
/// Stages 5 and 9-10 for CUDA: each top-level linalg op an NVVM kernel
/// (cubin for `chip` + PTX, embedded), host launches through the runtime,
/// LLVM dialect, exported interface. `tf32`: f32 GEMMs and convolutions may
/// use TF32 tensor cores (`onyx-compile --precision=tf32`). `profile`:
/// launches pass their buffers' shapes to the profiler (onyx-compile
/// --profile).
void buildCUDACodegenPipeline(mlir::OpPassManager &pm,
                              llvm::StringRef chip = "sm_90", bool tf32 = false,
                              bool profile = false);

} // namespace onyx

#endif // ONYX_PIPELINES_PIPELINES_H
