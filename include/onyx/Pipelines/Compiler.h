//===- Compiler.h - In-process model compilation ----------------*- C++ -*-===//
//
// The entry points shared by onyx-compile and onyx-run: ONNX file in,
// artifact (shared library) or textual IR out.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_PIPELINES_COMPILER_H
#define ONYX_PIPELINES_COMPILER_H

#include <optional>
#include <string>

namespace onyx {

struct CompileOptions {
  /// "cpu" (default) or "cuda".
  std::string target = "cpu";
  /// Stop early and print IR: "" (build the artifact), "onnx", "onyx",
  /// "buffers" or "llvm".
  std::string emit;
  /// Replace every graph-input dim by a symbol (testing aid: one artifact
  /// for all shapes).
  bool makeInputsDynamic = false;
  /// Leave initializers stored in external data out of the artifact; the
  /// session loads them (docs/runtime-abi.md, "External weights").
  bool externalWeights = false;
  /// Memory plan for temporaries: "lifetime" (session pools packed by
  /// liveness), "iree" (share only equal run-time sizes) or "none" (one
  /// allocation per temporary).
  std::string poolScheme = "lifetime";
  /// Print each graph input's and output's dims and the DimAnalysis groups
  /// they fall into (to stdout), then continue.
  bool explainShapes = false;
  /// Print per-stage timing to stderr.
  bool timing = false;
  /// Print a line per stage ("[ 33%] bufferization") to stderr as the
  /// compile goes (onyx-compile: when stderr is a terminal).
  bool progress = false;
  /// CPU: bracket every op with the runtime's profiling hooks
  /// (onyx-cpu-profile-ops), so a profiling session records one event per
  /// op. CUDA sessions time their kernels without it; with it each launch
  /// also passes its buffers' shapes (onyx-cuda-lower-launches profile).
  bool profile = false;
  /// Arithmetic precision: "fp32" (default: the model's types, f32 GEMMs
  /// and convolutions in full fp32), "tf32" (CUDA: f32 GEMMs and
  /// convolutions on TF32 tensor cores), "fp16" / "bf16" (an fp32 model
  /// compiled to run in half precision: onnx-convert-precision, both
  /// targets; graph inputs and outputs keep their types). A model exported
  /// in fp16 / bf16 needs no option.
  std::string precision = "fp32";
  /// With precision "fp16" / "bf16": LayerNormalization reads and writes
  /// f32 and the residual stream around it stays f32 (the form before
  /// 2026-12-07: more exact, safe from f16 overflow in the stream, slower).
  /// Without it a LayerNormalization whose input is half reads and writes
  /// the half type with f32 statistics, as a model exported in half does.
  bool precisionF32LayerNorm = false;
  /// The generated code's CPU: "native" (the compiling host's CPU and
  /// extensions), "x86-64", "x86-64-v2", "x86-64-v3" or "x86-64-v4". Empty:
  /// native for the CPU target, x86-64-v2 for the CUDA target's host code.
  /// An artifact refuses, at session creation, a CPU that lacks an
  /// extension it was built with.
  std::string cpu;
  /// CUDA: attention blocks (QK^T, scale, mask, Softmax, PV) become one
  /// fused online-softmax kernel on tensor cores (onyx-fuse-attention). On
  /// by default: it holds no score matrix (GPT-2 b8 s512 fp32: 72 instead of
  /// 276 MiB of activations) and, with key splits for small grids, is no
  /// slower than cuBLASLt plus softmax (docs/cuda-backend.md).
  bool fuseAttention = true;
  /// MatMuls of one input with constant weights (a transformer block's
  /// query, key and value projections) run as one wider MatMul and a Split
  /// (onnx-merge-sibling-matmuls); external weights are gathered by the
  /// session when it loads them. Unset: on for the CUDA target, off for the
  /// CPU target (there it measured no faster on BERT-base, and a gathered
  /// external weight is a second host copy of its bytes).
  std::optional<bool> mergeMatMuls;
  /// CUDA: f16 / bf16 convolutions (and f32 ones with precision "tf32")
  /// run in NHWC with the layout propagated through their neighbours
  /// (onyx-cuda-channels-last); plain fp32 is unchanged.
  /// On by default since the cuDNN backend API made NHWC calls cheap on the
  /// host: compiled ResNet-50 fp16 / bf16 take 0.43-0.61x the NCHW time
  /// with or without CUDA graphs (docs/cuda-measurements.md, 2026-12-06).
  bool cudaChannelsLast = true;
  /// CUDA: each LayerNormalization (f32 statistics, weights of the
  /// normalized dims) runs as one runtime kernel that reads its input once
  /// (onyx-cuda-form-layer-norm), with the residual Add before it and the
  /// casts --precision=fp16|bf16 puts around it, instead of the lowering's
  /// three generated kernels. On by default since 2026-12-07 (checked on an
  /// H100: scripts/gpu/layer_norm_validation.sh;
  /// docs/cuda-measurements.md).
  bool cudaLayerNorm = true;
  /// CUDA, with cudaChannelsLast: f32 convolutions in NHWC too, whatever
  /// the precision (onyx-compile sets it for an explicit
  /// --cuda-channels-last). Without it f32 convolutions run NHWC only with
  /// precision "tf32" (TF32 tensor cores: ResNet-50 takes 0.58-0.89x the
  /// NCHW time, docs/cuda-measurements.md, 2026-12-06); plain fp32 stays
  /// NCHW (its NHWC engines were slower, 1.1-13.5x).
  bool cudaChannelsLastF32 = false;
};

/// Compiles the ONNX model at `modelPath`. Without `emit`, writes a shared
/// library to `outputPath`; with `emit`, writes IR there ("-" is stdout).
/// On failure returns false and sets `error` to one line (without the
/// leading "error: ").
bool compileModelFile(const std::string &modelPath,
                      const std::string &outputPath,
                      const CompileOptions &options, std::string &error);

} // namespace onyx

#endif // ONYX_PIPELINES_COMPILER_H
