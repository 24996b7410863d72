//===- onyx-compile.cpp - ONNX model to artifact --------------------------===//
//
//   onyx-compile MODEL.onnx -o MODEL.so [--target=cpu|cuda]
//                [--emit=onnx|onyx|buffers|llvm] [--make-inputs-dynamic]
//                [--precision=fp32|tf32] [--fuse-attention] [--timing]
//                [--profile]
//                [--cpu=native|x86-64|x86-64-v2|x86-64-v3|x86-64-v4]
//                [--progress=auto|always|never]
//
// Exit 0 on success; otherwise one "error: ..." line on stderr and exit 1.
//
//===----------------------------------------------------------------------===//

#include "onyx/Pipelines/Compiler.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

namespace cl = llvm::cl;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::OptionCategory category("onyx-compile options");
  cl::opt<std::string> input(cl::Positional, cl::desc("<model.onnx>"),
                             cl::Required, cl::cat(category));
  cl::opt<std::string> output("o", cl::desc("Output file ('-' for stdout)"),
                              cl::value_desc("file"), cl::init(""),
                              cl::cat(category));
  cl::opt<std::string> target("target", cl::desc("cpu (default) or cuda"),
                              cl::init("cpu"), cl::cat(category));
  cl::opt<std::string> emit(
      "emit",
      cl::desc("Stop early and write IR: onnx (after import), onyx (after "
               "conversion), buffers (after bufferization), llvm (LLVM IR)"),
      cl::init(""), cl::cat(category));
  cl::opt<bool> makeDynamic(
      "make-inputs-dynamic",
      cl::desc("Make every graph-input dim symbolic (one artifact for all "
               "shapes)"),
      cl::init(false), cl::cat(category));
  cl::opt<std::string> poolScheme(
      "pool-scheme",
      cl::desc("Memory plan for temporaries: lifetime (default), iree "
               "(share only equal run-time sizes) or none"),
      cl::init("lifetime"), cl::cat(category));
  cl::opt<bool> externalWeights(
      "external-weights",
      cl::desc("Do not embed initializers stored in external data files; "
               "the session loads them at creation"),
      cl::init(false), cl::cat(category));
  cl::opt<bool> explainShapes(
      "explain-shapes",
      cl::desc("Print each graph input's and output's dims and the groups "
               "of provably equal dynamic dims (DimAnalysis)"),
      cl::init(false), cl::cat(category));
  cl::opt<std::string> precision(
      "precision",
      cl::desc("Arithmetic precision: fp32 (default: the model's types, "
               "fp32 GEMMs and convolutions), tf32 (cuda: fp32 GEMMs and "
               "convolutions on TF32 tensor cores), fp16 or bf16 (an fp32 "
               "model run in half precision: GEMMs, convolutions, "
               "embedding lookups and their elementwise neighbours in the "
               "half type, LayerNormalization with fp32 statistics, "
               "reductions, Softmax and the other normalizations in fp32; "
               "inputs and outputs keep their types)"),
      cl::init("fp32"), cl::cat(category));
  cl::opt<bool> precisionF32LayerNorm(
      "precision-f32-layer-norm",
      cl::desc("With --precision=fp16|bf16: LayerNormalization reads and "
               "writes fp32, so the residual stream around it stays fp32 "
               "(more exact and safe from fp16 overflow in the stream; "
               "slower: it moves twice the bytes)"),
      cl::init(false), cl::cat(category));
  cl::opt<std::string> cpu(
      "cpu",
      cl::desc("The generated code's CPU: native (default for --target=cpu: "
               "this machine's CPU and extensions; the artifact refuses to "
               "run on a CPU without them), x86-64, x86-64-v2 (default for "
               "--target=cuda's host code; any x86-64 of the last decade), "
               "x86-64-v3 (AVX2, FMA) or x86-64-v4 (AVX-512)"),
      cl::init(""), cl::cat(category));
  cl::opt<bool> fuseAttention(
      "fuse-attention",
      cl::desc("cuda: fuse attention blocks (QK^T, scale, mask, Softmax, PV; "
               "f32, f16, bf16) into one tensor-core kernel that holds no "
               "score matrix (on by default; --fuse-attention=false keeps "
               "cuBLASLt GEMMs and a softmax kernel)"),
      cl::init(true), cl::cat(category));
  cl::opt<bool> mergeMatMuls(
      "merge-matmuls",
      cl::desc("run MatMuls of one input with constant weights (a "
               "transformer block's query, key and value projections) as "
               "one wider MatMul and a Split (default: on for cuda, off for "
               "cpu)"),
      cl::init(true), cl::cat(category));
  cl::opt<bool> cudaChannelsLast(
      "cuda-channels-last",
      cl::desc("cuda: run f16 / bf16 and tf32 convolutions in NHWC, the "
               "layout propagated through their neighbours (on by default: "
               "ResNet-50 fp16 / bf16 take 0.43-0.61x the NCHW time, tf32 "
               "0.58-0.89x, with or without CUDA graphs; "
               "--cuda-channels-last=false for NCHW). Plain fp32 stays NCHW "
               "unless the flag is given explicitly (slower there)"),
      cl::init(true), cl::cat(category));
  cl::opt<bool> cudaLayerNorm(
      "cuda-layer-norm",
      cl::desc("cuda: run each LayerNormalization (f32 statistics, weights "
               "of the normalized dims) as one kernel that reads its input "
               "once, with the residual Add before it and the casts "
               "--precision=fp16|bf16 puts around it (on by default; "
               "--cuda-layer-norm=false keeps the generated mean, variance "
               "and normalization kernels)"),
      cl::init(true), cl::cat(category));
  cl::opt<bool> timing(
      "timing",
      cl::desc("Print the wall time of every stage to stderr: import, each "
               "MLIR stage with its passes, translation to LLVM IR, LLVM "
               "O2, object emission, link"),
      cl::init(false), cl::cat(category));
  cl::opt<bool> profile(
      "profile",
      cl::desc("CPU: time every op when the session profiles (per-op "
               "events in onyx-run --profile / enable_profiling traces); "
               "CUDA artifacts time their kernels without it, and with it "
               "each kernel event also carries its buffers' shapes"),
      cl::init(false), cl::cat(category));
  cl::opt<std::string> progress(
      "progress",
      cl::desc("Print each stage as it starts to stderr: auto (default: "
               "when stderr is a terminal), always or never"),
      cl::init("auto"), cl::cat(category));
  cl::HideUnrelatedOptions(category);
  if (!cl::ParseCommandLineOptions(argc, argv, "Onyx ONNX compiler\n",
                                   &llvm::errs()))
    return 1;

  std::string outputPath = output;
  if (outputPath.empty()) {
    if (!emit.empty()) {
      outputPath = "-";
    } else {
      outputPath = input;
      if (llvm::StringRef(outputPath).ends_with(".onnx"))
        outputPath.resize(outputPath.size() - 5);
      outputPath += ".so";
    }
  }

  if (progress != "auto" && progress != "always" && progress != "never") {
    llvm::errs() << "error: --progress must be auto, always or never, not '"
                 << progress << "'\n";
    return 1;
  }
  onyx::CompileOptions options;
  options.progress =
      progress == "always" || (progress == "auto" && isatty(2) && emit.empty());
  options.profile = profile;
  options.target = target;
  options.emit = emit;
  options.makeInputsDynamic = makeDynamic;
  options.timing = timing;
  options.poolScheme = poolScheme;
  options.precision = precision;
  options.precisionF32LayerNorm = precisionF32LayerNorm;
  options.cpu = cpu;
  options.fuseAttention = fuseAttention;
  if (mergeMatMuls.getNumOccurrences())
    options.mergeMatMuls = mergeMatMuls;
  options.cudaChannelsLast = cudaChannelsLast;
  options.cudaLayerNorm = cudaLayerNorm;
  // Given explicitly (--cuda-channels-last): f32 convolutions too.
  options.cudaChannelsLastF32 =
      cudaChannelsLast && cudaChannelsLast.getNumOccurrences() > 0;
  options.externalWeights = externalWeights;
  options.explainShapes = explainShapes;
  std::string error;
  if (!onyx::compileModelFile(input, outputPath, options, error)) {
    // One line whatever the model's names hold: control bytes (a newline
    // could forge a second `error:` line, escape codes recolor the
    // terminal) are printed as \xNN.
    std::string line;
    for (unsigned char c : error) {
      if (c < 0x20 || c == 0x7f) {
        static const char *hex = "0123456789abcdef";
        line += "\\x";
        line += hex[c >> 4];
        line += hex[c & 15];
      } else {
        line += char(c);
      }
    }
    llvm::errs() << "error: " << line << "\n";
    return 1;
  }
  return 0;
}
