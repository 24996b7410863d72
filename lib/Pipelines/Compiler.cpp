//===- Compiler.cpp - In-process model compilation ------------------------===//

#include "onyx/Pipelines/Compiler.h"

#include "onyx/Import/ONNXImporter.h"
#include "onyx/Pipelines/Pipelines.h"
#include "onyx/Target/CPU/EmitArtifact.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

namespace onyx {
namespace {

/// The node name carried by a location, if any.
std::string nodeNameOf(Location loc) {
  if (auto nameLoc = dyn_cast<NameLoc>(loc))
    return nameLoc.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations()) {
      std::string name = nodeNameOf(inner);
      if (!name.empty())
        return name;
    }
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return nodeNameOf(callSite.getCallee());
  return "";
}

bool writeIR(ModuleOp module, const std::string &path, std::string &error) {
  auto file = openOutputFile(path, &error);
  if (!file)
    return false;
  module.print(file->os());
  file->keep();
  return true;
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

  DialectRegistry registry;
  registerOnyxDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.disableMultithreading();

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

  ImportOptions importOptions;
  importOptions.makeInputsDynamic = options.makeInputsDynamic;
  importOptions.externalWeights = options.externalWeights;
  OwningOpRef<ModuleOp> module =
      importONNXFile(context, modelPath, importOptions, error);
  if (!module)
    return false;

  if (options.poolScheme != "lifetime" && options.poolScheme != "iree" &&
      options.poolScheme != "none") {
    error = "unknown pool scheme '" + options.poolScheme +
            "' (expected lifetime, iree or none)";
    return false;
  }
  auto runStage = [&](llvm::function_ref<void(OpPassManager &)> build,
                      const char *name) {
    PassManager pm(&context);
    if (options.timing)
      pm.enableTiming();
    build(pm);
    if (failed(pm.run(*module)))
      return fail(std::string("the ") + name + " stage failed");
    return true;
  };

  if (!runStage(buildONNXCleanupPipeline, "ONNX cleanup"))
    return false;
  if (options.emit == "onnx")
    return writeIR(*module, outputPath, error);
  if (!runStage(buildONNXToTensorPipeline, "ONNX conversion"))
    return false;
  if (options.emit == "onyx")
    return writeIR(*module, outputPath, error);
  if (!runStage(
          [&](OpPassManager &pm) {
            buildBufferizationPipeline(pm, options.poolScheme);
          },
          "bufferization"))
    return false;
  if (options.emit == "buffers")
    return writeIR(*module, outputPath, error);
  bool cuda = options.target == "cuda";
  auto codegen = [&](OpPassManager &pm) {
    cuda ? buildCUDACodegenPipeline(pm) : buildCPUCodegenPipeline(pm);
  };
  if (!runStage(codegen, cuda ? "CUDA code generation" : "CPU code generation"))
    return false;
  if (options.emit == "llvm") {
    auto file = openOutputFile(outputPath, &error);
    if (!file || !emitLLVMIR(*module, file->os(), error))
      return false;
    file->keep();
    return true;
  }
  return emitSharedLibrary(*module, outputPath, error);
}

} // namespace onyx
