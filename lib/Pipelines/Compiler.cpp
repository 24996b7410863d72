//===- Compiler.cpp - In-process model compilation ------------------------===//
//
// ONNX file in, artifact or IR out: import, the four MLIR stages of
// docs/architecture.md, then LLVM (EmitArtifact). With --timing, one
// DefaultTimingManager times all of it as a tree printed to stderr at the
// end: import, each stage with its passes nested under it, translation to
// LLVM IR, LLVM's O2, object emission, the link and the freeing of the IR,
// so the report accounts for the whole compile's wall time.
//
//===----------------------------------------------------------------------===//

#include "onyx/Pipelines/Compiler.h"

#include "onyx/Analysis/DimAnalysis.h"
#include "onyx/Dialect/ONNX/ONNXDialect.h"
#include "onyx/Import/ONNXImporter.h"
#include "onyx/Pipelines/Pipelines.h"
#include "onyx/Support/NodeNames.h"
#include "onyx/Target/CPU/EmitArtifact.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>
#include <map>

using namespace mlir;

namespace onyx {
namespace {

bool writeIR(ModuleOp module, const std::string &path, std::string &error) {
  auto file = openOutputFile(path, &error);
  if (!file)
    return false;
  module.print(file->os());
  file->keep();
  return true;
}

/// --explain-shapes: each graph input's and output's dims, with the
/// DimAnalysis group of every dynamic dim and the other graph values that
/// share it, so a user sees which symbolic sizes the compiler proved equal.
void explainShapes(ModuleOp module, llvm::raw_ostream &os) {
  module.walk([&](func::FuncOp func) {
    if (func.getBody().empty())
      return;
    DimAnalysis analysis(func);
    analysis.run();
    auto returnOp = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    struct Entry {
      std::string label;
      Value value;
    };
    std::vector<Entry> entries;
    auto nameOf = [](DictionaryAttr attrs, const std::string &fallback) {
      if (attrs)
        if (auto name = attrs.getAs<StringAttr>("onnx.name"))
          return name.getValue().str();
      return fallback;
    };
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      entries.push_back(
          {"input '" + nameOf(func.getArgAttrDict(i), "#" + std::to_string(i)) +
               "'",
           func.getArgument(i)});
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      entries.push_back(
          {"output '" +
               nameOf(func.getResultAttrDict(i), "#" + std::to_string(i)) + "'",
           returnOp.getOperand(i)});
    // Where each group appears among the graph's inputs and outputs.
    std::map<int64_t, std::vector<std::string>> seenAt;
    for (const Entry &e : entries)
      if (auto type = dyn_cast<RankedTensorType>(e.value.getType()))
        for (int64_t d = 0; d < type.getRank(); ++d)
          if (auto g = analysis.getGroupId(e.value, d))
            seenAt[*g].push_back(e.label + " dim " + std::to_string(d));
    os << "shapes of @" << func.getSymName() << ":\n";
    for (const Entry &e : entries) {
      os << "  " << e.label << ": ";
      auto type = dyn_cast<RankedTensorType>(e.value.getType());
      if (!type) {
        os << "unranked\n";
        continue;
      }
      os << type.getElementType() << "[";
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (d)
          os << ", ";
        if (!type.isDynamicDim(d)) {
          os << type.getDimSize(d);
          continue;
        }
        auto g = analysis.getGroupId(e.value, d);
        auto c = analysis.getConstantDim(e.value, d);
        os << "?";
        if (g)
          os << "g" << *g;
        if (c)
          os << "=" << *c;
      }
      os << "]\n";
    }
    for (const auto &[group, places] : seenAt) {
      os << "  g" << group << ": ";
      for (size_t i = 0; i < places.size(); ++i)
        os << (i ? ", " : "") << places[i];
      os << "\n";
    }
    for (const auto &rel : analysis.getOffsetRelations())
      if (seenAt.count(rel.group) || seenAt.count(rel.baseGroup))
        os << "  g" << rel.group << " = g" << rel.baseGroup
           << (rel.offset < 0 ? " - " : " + ") << std::abs(rel.offset) << "\n";
  });
}

} // namespace

bool compileModelFile(const std::string &modelPath,
                      const std::string &outputPath,
                      const CompileOptions &options, std::string &error) {
  if (options.target != "cpu" && options.target != "cuda") {
    error = "unknown target '" + options.target + "' (expected cpu or cuda)";
    return false;
  }
  static const char *kEmits[] = {"", "onnx", "onyx", "buffers", "llvm"};
  if (std::find(std::begin(kEmits), std::end(kEmits), options.emit) ==
      std::end(kEmits)) {
    error = "unknown --emit value '" + options.emit +
            "' (expected onnx, onyx, buffers or llvm)";
    return false;
  }

  // Declared first so that it reports (when destroyed) after everything it
  // times, the contexts' destruction included.
  DefaultTimingManager timingManager;
  timingManager.setEnabled(options.timing);
  timingManager.setDisplayMode(DefaultTimingManager::DisplayMode::Tree);
  TimingScope rootTimer = timingManager.getRootScope();
  TimingScope setupTimer = rootTimer.nest("setup (dialects, context)");

  DialectRegistry registry;
  registerOnyxDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.disableMultithreading();
  setupTimer.stop();

  std::string firstError;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error && firstError.empty()) {
      std::string node = nodeNameOf(diag.getLocation());
      firstError = (node.empty() ? "" : "node '" + node + "': ") + diag.str();
    }
    return success();
  });
  auto fail = [&](const std::string &fallback) {
    error = firstError.empty() ? fallback : firstError;
    return false;
  };

  // --progress: one line per stage as it starts (percent of the stages).
  constexpr int kStages = 6;
  int stagesDone = 0;
  auto started = std::chrono::steady_clock::now();
  auto progress = [&](const std::string &stage) {
    if (!options.progress)
      return;
    llvm::errs() << llvm::format("[%3d%%] ", stagesDone * 100 / kStages)
                 << stage << "\n";
    llvm::errs().flush();
    ++stagesDone;
  };

  ImportOptions importOptions;
  importOptions.makeInputsDynamic = options.makeInputsDynamic;
  importOptions.externalWeights = options.externalWeights;
  progress("import (ONNX file to IR)");
  TimingScope importTimer = rootTimer.nest("import (ONNX file to IR)");
  OwningOpRef<ModuleOp> module =
      importONNXFile(context, modelPath, importOptions, error);
  importTimer.stop();
  if (!module)
    return false;
  // The module (and its weight blobs) is freed in a timed scope on the way
  // out, whichever way that is.
  llvm::scope_exit releaseModule([&] {
    TimingScope timer = rootTimer.nest("freeing MLIR IR");
    module = nullptr;
  });

  if (options.poolScheme != "lifetime" && options.poolScheme != "iree" &&
      options.poolScheme != "none") {
    error = "unknown pool scheme '" + options.poolScheme +
            "' (expected lifetime, iree or none)";
    return false;
  }
  // --cpu: the generated code's instruction set. Default: the compiling
  // host's for the CPU target (the artifact refuses a CPU without its
  // extensions); baseline x86-64-v2 for the CUDA target's host code, which
  // is built here and run on the GPU machine (docs/performance-cpu.md).
  std::string cpu = options.cpu.empty()
                        ? (options.target == "cuda" ? "x86-64-v2" : "native")
                        : options.cpu;
  if (!isSupportedCPU(cpu)) {
    error = "unknown --cpu '" + cpu +
            "' (expected native, x86-64, x86-64-v2, x86-64-v3 or x86-64-v4)";
    return false;
  }
  // --precision: never silently ignored. fp16/bf16: onnx-convert-precision
  // (after the cleanup); a model that is already half precision keeps its
  // types (the pass converts f32 ops only).
  if (options.precision != "fp32" && options.precision != "tf32" &&
      options.precision != "fp16" && options.precision != "bf16") {
    error = "unknown precision '" + options.precision +
            "' (expected fp32, tf32, fp16 or bf16)";
    return false;
  }
  if (options.precision == "bf16" && options.target != "cuda") {
    error = "--precision=bf16 needs --target=cuda: the CPU target does not "
            "run bf16 MatMul/Gemm/Conv yet (their bf16 arithmetic needs "
            "__truncsfbf2, which this toolchain's libgcc lacks, and is not "
            "accumulated in f32); use --precision=fp16 on the CPU";
    return false;
  }
  if (options.precision == "tf32" && options.target != "cuda") {
    error = "--precision=tf32 needs --target=cuda (the CPU target computes "
            "f32 in fp32)";
    return false;
  }
  if (options.precisionF32LayerNorm && options.precision != "fp16" &&
      options.precision != "bf16") {
    error = "--precision-f32-layer-norm needs --precision=fp16 or bf16 (it "
            "keeps LayerNormalization in fp32 inside a half-precision model)";
    return false;
  }
  auto runStage = [&](llvm::function_ref<void(OpPassManager &)> build,
                      const char *name) {
    progress(name);
    PassManager pm(&context);
    TimingScope stageTimer = rootTimer.nest(name);
    pm.enableTiming(stageTimer);
    build(pm);
    if (failed(pm.run(*module)))
      return fail(std::string("the ") + name + " stage failed");
    return true;
  };

  StringRef halfType = options.precision == "fp16"   ? "f16"
                       : options.precision == "bf16" ? "bf16"
                                                     : "";
  if (!runStage(
          [&](OpPassManager &pm) {
            buildONNXCleanupPipeline(
                pm, halfType, options.precisionF32LayerNorm,
                options.mergeMatMuls.value_or(options.target == "cuda"));
          },
          "ONNX cleanup"))
    return false;
  if (options.explainShapes)
    explainShapes(*module, llvm::outs());
  if (options.emit == "onnx")
    return writeIR(*module, outputPath, error);
  // String tensors are host memory and their operators call host services
  // (docs/runtime.md, "String tensors"): the CUDA target has neither.
  if (options.target == "cuda") {
    auto isString = [](Type t) {
      auto shaped = dyn_cast<ShapedType>(t);
      return shaped && isa<onnx::StringType>(shaped.getElementType());
    };
    WalkResult walk = module->walk([&](Operation *op) {
      auto fn = dyn_cast<func::FuncOp>(op);
      if (llvm::any_of(op->getOperandTypes(), isString) ||
          llvm::any_of(op->getResultTypes(), isString) ||
          (fn && (llvm::any_of(fn.getArgumentTypes(), isString) ||
                  llvm::any_of(fn.getResultTypes(), isString)))) {
        op->emitError("string tensors are not supported by the CUDA target "
                      "(compile for the CPU)");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return fail("string tensors are not supported by the CUDA target");
  }
  if (!runStage(
          [&](OpPassManager &pm) {
            bool cuda = options.target == "cuda";
            // f32 convolutions in NHWC: with TF32 (tensor cores), or when
            // asked for; plain fp32 stays NCHW (slower in NHWC).
            bool f32 =
                options.cudaChannelsLastF32 || options.precision == "tf32";
            buildONNXToTensorPipeline(pm, cuda && options.fuseAttention,
                                      cuda && options.cudaChannelsLast, f32,
                                      cuda && options.cudaLayerNorm);
          },
          "ONNX conversion"))
    return false;
  if (options.emit == "onyx")
    return writeIR(*module, outputPath, error);
  if (!runStage(
          [&](OpPassManager &pm) {
            buildBufferizationPipeline(pm, options.poolScheme, options.target,
                                       options.precision == "tf32");
          },
          "bufferization"))
    return false;
  if (options.emit == "buffers")
    return writeIR(*module, outputPath, error);
  bool cuda = options.target == "cuda";
  bool tf32 = options.precision == "tf32";
  auto codegen = [&](OpPassManager &pm) {
    cuda ? buildCUDACodegenPipeline(pm, "sm_90", tf32, options.profile)
         : buildCPUCodegenPipeline(pm, options.profile);
  };
  if (!runStage(codegen, cuda ? "CUDA code generation" : "CPU code generation"))
    return false;
  progress(options.emit == "llvm" ? "LLVM IR"
                                  : "LLVM (optimization, object code, link)");
  TimingScope llvmTimer = rootTimer.nest("LLVM");
  if (options.emit == "llvm") {
    auto file = openOutputFile(outputPath, &error);
    if (!file || !emitLLVMIR(*module, file->os(), error, &llvmTimer, cpu))
      return false;
    file->keep();
    return true;
  }
  bool ok = emitSharedLibrary(*module, outputPath, error, &llvmTimer, cpu);
  if (ok && options.progress) {
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - started)
                         .count();
    llvm::errs() << llvm::format("[100%%] done in %.1f s\n", seconds);
  }
  return ok;
}

} // namespace onyx
