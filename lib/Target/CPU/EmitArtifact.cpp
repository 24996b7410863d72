//===- EmitArtifact.cpp - LLVM dialect to object and shared library -------===//

#include "onyx/Target/CPU/EmitArtifact.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib>

using namespace mlir;

namespace onyx {
namespace {

std::unique_ptr<llvm::TargetMachine>
createHostTargetMachine(std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::string tripleName = llvm::sys::getDefaultTargetTriple();
  llvm::Triple triple(tripleName);
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  llvm::TargetOptions options;
  // Portable x86-64 with SSE4.2/AVX-free baseline; artifacts may move between
  // hosts (compile here, run on the GPU machine).
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, "x86-64-v2", "", options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!tm)
    error = "cannot create a target machine for " + tripleName;
  return tm;
}

std::unique_ptr<llvm::Module> translateAndOptimize(ModuleOp module,
                                                   llvm::LLVMContext &llvmCtx,
                                                   llvm::TargetMachine &tm,
                                                   std::string &error) {
  registerBuiltinDialectTranslation(*module->getContext());
  registerLLVMDialectTranslation(*module->getContext());
  auto llvmModule = translateModuleToLLVMIR(module, llvmCtx, "onyx_model");
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return nullptr;
  }
  llvmModule->setDataLayout(tm.createDataLayout());
  llvmModule->setTargetTriple(tm.getTargetTriple());

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm =
      pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  mpm.run(*llvmModule, mam);
  return llvmModule;
}

} // namespace

std::string findRuntimeLibraryDir() {
  if (const char *env = std::getenv("ONYX_RUNTIME_DIR"))
    return env;
  static int anchor;
  std::string exe = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  llvm::SmallString<256> dir(exe);
  llvm::sys::path::remove_filename(dir); // bin
  llvm::sys::path::remove_filename(dir); // build root
  llvm::sys::path::append(dir, "lib");
  return std::string(dir);
}

bool emitLLVMIR(ModuleOp module, llvm::raw_ostream &os, std::string &error) {
  auto tm = createHostTargetMachine(error);
  if (!tm)
    return false;
  llvm::LLVMContext llvmCtx;
  auto llvmModule = translateAndOptimize(module, llvmCtx, *tm, error);
  if (!llvmModule)
    return false;
  llvmModule->print(os, nullptr);
  return true;
}

bool emitSharedLibrary(ModuleOp module, const std::string &outputPath,
                       std::string &error) {
  auto tm = createHostTargetMachine(error);
  if (!tm)
    return false;
  llvm::LLVMContext llvmCtx;
  auto llvmModule = translateAndOptimize(module, llvmCtx, *tm, error);
  if (!llvmModule)
    return false;

  llvm::SmallString<128> objectPath;
  int fd;
  if (auto ec =
          llvm::sys::fs::createTemporaryFile("onyx", "o", fd, objectPath)) {
    error = "cannot create a temporary object file: " + ec.message();
    return false;
  }
  llvm::FileRemover removeObject(objectPath);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    llvm::legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, os, nullptr,
                                llvm::CodeGenFileType::ObjectFile)) {
      error = "the target cannot emit object files";
      return false;
    }
    pm.run(*llvmModule);
  }

  auto linker = llvm::sys::findProgramByName("cc");
  if (!linker)
    linker = llvm::sys::findProgramByName("clang-22");
  if (!linker) {
    error = "no system linker driver (cc) found on PATH";
    return false;
  }
  std::string runtimeDir = findRuntimeLibraryDir();
  std::string rpath = "-Wl,-rpath," + runtimeDir;
  std::string libDir = "-L" + runtimeDir;
  llvm::SmallVector<llvm::StringRef> args = {*linker,
                                             "-shared",
                                             "-o",
                                             outputPath,
                                             objectPath,
                                             libDir,
                                             "-lonyx_runtime",
                                             "-lopenblas",
                                             "-lm",
                                             rpath,
                                             "-Wl,-rpath,$ORIGIN"};
  std::string linkError;
  llvm::SmallString<128> logPath;
  llvm::sys::fs::createTemporaryFile("onyx-link", "log", logPath);
  llvm::FileRemover removeLog(logPath);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, logPath.str(),
                                                logPath.str()};
  int rc = llvm::sys::ExecuteAndWait(*linker, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/120, 0, &linkError);
  if (rc != 0) {
    auto log = llvm::MemoryBuffer::getFile(logPath);
    std::string detail = log ? (*log)->getBuffer().str() : linkError;
    std::replace(detail.begin(), detail.end(), '\n', ' ');
    error = "linking '" + outputPath + "' failed: " + detail;
    return false;
  }
  return true;
}

} // namespace onyx
