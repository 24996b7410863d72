//===- EmitArtifact.cpp - LLVM dialect to object and shared library -------===//
//
// The last steps of onyx-compile: the LLVM-dialect module is translated to
// LLVM IR, optimized (O2), emitted as a PIC object and linked with the
// runtime library into the artifact.
//
// Embedded weights. Upstream's memref.global lowering gives each constant
// tensor the nested array type of its shape (`[2048 x [512 x [1 x [1 x
// float]]]]`), and translation builds one LLVM constant per innermost row: a
// million `[1 x float]` constants for one 1x1 convolution weight. Building,
// uniquing, printing and freeing those dominated ResNet-50's compile time
// (59-184 s, almost all of it LLVM). flattenConstantGlobals therefore turns
// every such global into one `[bytes x i8]` array initialized from the same
// bytes (a dense_resource blob is shared, not copied): translation makes one
// ConstantDataArray per weight, the optimizer has nothing to walk, and the
// asm printer writes it as one run of bytes. The values are the tensor's raw
// little-endian bytes either way, so the artifact's numbers do not change.
//
// Every step is timed under the caller's TimingScope (onyx-compile --timing).
//
//===----------------------------------------------------------------------===//

#include "onyx/Target/CPU/EmitArtifact.h"
#include "onyx/onyx_abi.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <cstdlib>

using namespace mlir;

namespace onyx {
namespace {

/// The instruction-set extensions onyxrt_cpu_check_features can probe
/// (runtime/src/cpu/Features.cpp keeps the same list): the artifact records
/// those its target CPU has.
const char *const kCheckedFeatures[] = {"sse3",         "ssse3",
                                        "sse4.1",       "sse4.2",
                                        "crc32",        "popcnt",
                                        "cx16",         "sahf",
                                        "avx",          "avx2",
                                        "fma",          "f16c",
                                        "bmi",          "bmi2",
                                        "lzcnt",        "movbe",
                                        "xsave",        "aes",
                                        "pclmul",       "vaes",
                                        "vpclmulqdq",   "gfni",
                                        "adx",          "sha",
                                        "avxvnni",      "avx512f",
                                        "avx512cd",     "avx512bw",
                                        "avx512dq",     "avx512vl",
                                        "avx512vnni",   "avx512bf16",
                                        "avx512fp16",   "avx512ifma",
                                        "avx512vbmi",   "avx512vbmi2",
                                        "avx512bitalg", "avx512vpopcntdq"};

/// A target machine for `cpu` (one of the --cpu names; "native" is the
/// compiling host's CPU and features).
std::unique_ptr<llvm::TargetMachine>
createHostTargetMachine(llvm::StringRef cpu, std::string &error) {
  if (!isSupportedCPU(cpu)) {
    error = "unknown --cpu '" + cpu.str() +
            "' (expected native, x86-64, x86-64-v2, x86-64-v3 or x86-64-v4)";
    return nullptr;
  }
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::string tripleName = llvm::sys::getDefaultTargetTriple();
  llvm::Triple triple(tripleName);
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::string cpuName = cpu.str();
  std::string features;
  if (cpu == "native") {
    cpuName = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures list;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      list.AddFeature(feature.getKey(), feature.getValue());
    features = list.getString();
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, cpuName, features, options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!tm)
    error = "cannot create a target machine for " + tripleName + " (" +
            cpuName + ")";
  return tm;
}

/// The session-creation entry points run before anything checks the CPU:
/// they are compiled for baseline x86-64, and begin with a call to
/// onyxrt_cpu_check_features(target, features), returning NULL (the
/// runtime has set the error) when the host lacks a recorded extension.
void guardEntryPoints(llvm::Module &module, llvm::TargetMachine &tm,
                      llvm::StringRef cpu) {
  const llvm::MCSubtargetInfo *sti = tm.getMCSubtargetInfo();
  std::string features;
  for (const char *feature : kCheckedFeatures) {
    if (!sti->checkFeatures(std::string("+") + feature))
      continue;
    if (!features.empty())
      features += ",";
    features += feature;
  }
  std::string target = "--cpu=" + cpu.str();
  if (cpu == "native")
    target += " (" + tm.getTargetCPU().str() + ")";

  llvm::LLVMContext &ctx = module.getContext();
  auto *ptr = llvm::PointerType::get(ctx, 0);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  llvm::FunctionCallee check = module.getOrInsertFunction(
      ONYXRT_FN_CPU_PREFIX "check_features",
      llvm::FunctionType::get(i32, {ptr, ptr}, false));
  llvm::Value *targetText = nullptr, *featuresText = nullptr;
  for (const char *name : {ONYX_ABI_EXPORT_STATE_CREATE,
                           ONYX_ABI_EXPORT_STATE_CREATE_WITH_WEIGHTS}) {
    llvm::Function *fn = module.getFunction(name);
    if (!fn || fn->isDeclaration())
      continue;
    fn->addFnAttr("target-cpu", "x86-64");
    fn->addFnAttr("target-features", "");
    fn->addFnAttr(llvm::Attribute::NoInline);
    llvm::BasicBlock *body = &fn->getEntryBlock();
    auto *guard = llvm::BasicBlock::Create(ctx, "cpu_check", fn, body);
    auto *refused = llvm::BasicBlock::Create(ctx, "cpu_refused", fn, body);
    llvm::IRBuilder<> builder(guard);
    if (!targetText) {
      targetText =
          builder.CreateGlobalString(target, "onyx_cpu_target", 0, &module);
      featuresText =
          builder.CreateGlobalString(features, "onyx_cpu_features", 0, &module);
    }
    llvm::Value *rc = builder.CreateCall(check, {targetText, featuresText});
    builder.CreateCondBr(builder.CreateICmpEQ(rc, builder.getInt32(0)), body,
                         refused);
    builder.SetInsertPoint(refused);
    builder.CreateRet(llvm::ConstantPointerNull::get(ptr));
  }
}

/// A scope nested under `parent` (a null scope when timing is off).
TimingScope nest(TimingScope *parent, StringRef name) {
  return parent ? parent->nest(name) : TimingScope();
}

/// The number of scalars of a (nested) LLVM array type and its innermost
/// element type.
std::pair<uint64_t, Type> flattenArrayType(Type type) {
  uint64_t count = 1;
  while (auto array = dyn_cast<LLVM::LLVMArrayType>(type)) {
    count *= array.getNumElements();
    type = array.getElementType();
  }
  return {count, type};
}

std::unique_ptr<llvm::Module>
translateAndOptimize(ModuleOp module, llvm::LLVMContext &llvmCtx,
                     llvm::TargetMachine &tm, llvm::StringRef cpu,
                     std::string &error, TimingScope *timing) {
  registerBuiltinDialectTranslation(*module->getContext());
  registerLLVMDialectTranslation(*module->getContext());
  // Parallel loops (onyx-cpu-parallelize-loops) are omp ops, which the
  // OpenMPIRBuilder outlines into libomp calls; it reads the module's triple
  // and data layout.
  registerOpenMPDialectTranslation(*module->getContext());
  module->setAttr(
      LLVM::LLVMDialect::getTargetTripleAttrName(),
      StringAttr::get(module->getContext(), tm.getTargetTriple().str()));
  module->setAttr(
      LLVM::LLVMDialect::getDataLayoutAttrName(),
      StringAttr::get(module->getContext(),
                      tm.createDataLayout().getStringRepresentation()));
  std::unique_ptr<llvm::Module> llvmModule;
  {
    TimingScope scope = nest(timing, "translation to LLVM IR");
    flattenConstantGlobals(module);
    llvmModule = translateModuleToLLVMIR(module, llvmCtx, "onyx_model");
  }
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return nullptr;
  }
  llvmModule->setDataLayout(tm.createDataLayout());
  llvmModule->setTargetTriple(tm.getTargetTriple());
  guardEntryPoints(*llvmModule, tm, cpu);

  TimingScope scope = nest(timing, "LLVM optimization (O2)");
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // Float sums (Softmax, LayerNorm, ReduceSum) vectorize as in-order
  // reductions (llvm.vector.reduce.fadd with a start value): the loop body,
  // exp included, runs on vectors and the sum is added in the scalar loop's
  // order, not reassociated. X86 does not enable them by default.
  static const bool orderedReductions = [] {
    auto &registered = llvm::cl::getRegisteredOptions();
    auto it = registered.find("force-ordered-reductions");
    if (it != registered.end())
      it->second->addOccurrence(0, "force-ordered-reductions", "true");
    return true;
  }();
  (void)orderedReductions;
  // Vectorized loops call glibc's libmvec for exp, log, pow, sin, cos...
  // (_ZGVdN8v_expf: 8 lanes with AVX2, _ZGVbN4v_expf with SSE); registered
  // before the defaults, which would otherwise provide a TLI without it.
  llvm::TargetLibraryInfoImpl tlii(tm.getTargetTriple(),
                                   llvm::VectorLibrary::LIBMVEC);
  // LLVM's libmvec list stops at sin, cos, tan, exp, log and pow; glibc's
  // libmvec (2.35 and later: Debian 12's 2.36) also has erf and tanh, which
  // GELU (erf) and tanh-based activations call once per element: scalar
  // libm calls, they kept those loops from vectorizing. Same widths and
  // ABI as LLVM's entries: 4 (SSE, 'b') and 8 (AVX2, 'd') lanes of f32, 2
  // and 4 of f64.
  static const llvm::VecDesc moreLibmvec[] = {
      {"erff", "_ZGVbN4v_erff", llvm::ElementCount::getFixed(4), false,
       "_ZGV_LLVM_N4v", std::nullopt},
      {"erff", "_ZGVdN8v_erff", llvm::ElementCount::getFixed(8), false,
       "_ZGV_LLVM_N8v", std::nullopt},
      {"erf", "_ZGVbN2v_erf", llvm::ElementCount::getFixed(2), false,
       "_ZGV_LLVM_N2v", std::nullopt},
      {"erf", "_ZGVdN4v_erf", llvm::ElementCount::getFixed(4), false,
       "_ZGV_LLVM_N4v", std::nullopt},
      {"tanhf", "_ZGVbN4v_tanhf", llvm::ElementCount::getFixed(4), false,
       "_ZGV_LLVM_N4v", std::nullopt},
      {"tanhf", "_ZGVdN8v_tanhf", llvm::ElementCount::getFixed(8), false,
       "_ZGV_LLVM_N8v", std::nullopt},
      {"tanh", "_ZGVbN2v_tanh", llvm::ElementCount::getFixed(2), false,
       "_ZGV_LLVM_N2v", std::nullopt},
      {"tanh", "_ZGVdN4v_tanh", llvm::ElementCount::getFixed(4), false,
       "_ZGV_LLVM_N4v", std::nullopt},
      // math.tanh becomes this intrinsic (convert-math-to-llvm), which the
      // backend would otherwise expand lane by lane into tanhf calls.
      {"llvm.tanh.f32", "_ZGVbN4v_tanhf", llvm::ElementCount::getFixed(4),
       false, "_ZGV_LLVM_N4v", std::nullopt},
      {"llvm.tanh.f32", "_ZGVdN8v_tanhf", llvm::ElementCount::getFixed(8),
       false, "_ZGV_LLVM_N8v", std::nullopt},
      {"llvm.tanh.f64", "_ZGVbN2v_tanh", llvm::ElementCount::getFixed(2), false,
       "_ZGV_LLVM_N2v", std::nullopt},
      {"llvm.tanh.f64", "_ZGVdN4v_tanh", llvm::ElementCount::getFixed(4), false,
       "_ZGV_LLVM_N4v", std::nullopt},
  };
  tlii.addVectorizableFunctions(moreLibmvec);
  // AVX-512 targets (--cpu=native on such a host, x86-64-v4): 512-bit
  // vectors for the generated loops (LLVM prefers 256 on these CPUs) and
  // glibc's 16-lane libmvec entries ('e': zmm arguments), which LLVM's list
  // lacks. Only there: the 'e' ABI needs AVX-512.
  static const llvm::VecDesc libmvec512[] = {
      {"expf", "_ZGVeN16v_expf", llvm::ElementCount::getFixed(16), false,
       "_ZGV_LLVM_N16v", std::nullopt},
      {"llvm.exp.f32", "_ZGVeN16v_expf", llvm::ElementCount::getFixed(16),
       false, "_ZGV_LLVM_N16v", std::nullopt},
      {"logf", "_ZGVeN16v_logf", llvm::ElementCount::getFixed(16), false,
       "_ZGV_LLVM_N16v", std::nullopt},
      {"llvm.log.f32", "_ZGVeN16v_logf", llvm::ElementCount::getFixed(16),
       false, "_ZGV_LLVM_N16v", std::nullopt},
      {"erff", "_ZGVeN16v_erff", llvm::ElementCount::getFixed(16), false,
       "_ZGV_LLVM_N16v", std::nullopt},
      {"tanhf", "_ZGVeN16v_tanhf", llvm::ElementCount::getFixed(16), false,
       "_ZGV_LLVM_N16v", std::nullopt},
      {"llvm.tanh.f32", "_ZGVeN16v_tanhf", llvm::ElementCount::getFixed(16),
       false, "_ZGV_LLVM_N16v", std::nullopt},
  };
  if (tm.getMCSubtargetInfo()->checkFeatures("+avx512f")) {
    tlii.addVectorizableFunctions(libmvec512);
    for (llvm::Function &fn : *llvmModule)
      if (!fn.isDeclaration() && !fn.hasFnAttribute("prefer-vector-width"))
        fn.addFnAttr("prefer-vector-width", "512");
  }
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
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

unsigned flattenConstantGlobals(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  auto i8 = IntegerType::get(ctx, 8);
  unsigned count = 0;
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    if (!global.getConstant() || !global.getValueAttr())
      continue;
    auto arrayType = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
    auto elements = dyn_cast<ElementsAttr>(global.getValueAttr());
    if (!arrayType || !elements)
      continue;
    // Only scalars whose in-memory form is their raw bytes: byte-sized
    // integers and floats, and the 4-bit and 2-bit types, one element per
    // byte (i1 is bit-packed in a DenseElementsAttr; complex, index and
    // vector elements keep upstream's form). Floats LLVM lacks (float8,
    // float4) are integers of their width in the LLVM type.
    Type elementType = elements.getElementType();
    if (!isa<IntegerType, FloatType>(elementType))
      continue;
    unsigned bits = elementType.getIntOrFloatBitWidth();
    if (bits % 8 != 0 && bits != 4 && bits != 2)
      continue;
    unsigned elementBytes = (bits + 7) / 8;
    auto [scalars, scalarType] = flattenArrayType(arrayType);
    bool sameScalar = scalarType == elementType ||
                      (isa<IntegerType>(scalarType) &&
                       scalarType.getIntOrFloatBitWidth() == bits);
    if (!sameScalar || scalars != uint64_t(elements.getNumElements()) ||
        scalars == 0)
      continue;
    uint64_t bytes = scalars * elementBytes;
    auto flatType = RankedTensorType::get({int64_t(bytes)}, i8);
    Attribute flat;
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(elements)) {
      // The same blob under a byte-array type: no copy.
      AsmResourceBlob *blob = resource.getRawHandle().getBlob();
      if (!blob || blob->getData().size() != bytes)
        continue;
      flat = DenseResourceElementsAttr::get(flatType, resource.getRawHandle());
    } else if (auto dense = dyn_cast<DenseElementsAttr>(elements)) {
      // A splat's raw data is one element; upstream already emits splats
      // compactly (zeroinitializer or a repeated value).
      if (dense.isSplat() || dense.getRawData().size() != bytes)
        continue;
      flat = DenseElementsAttr::getFromRawBuffer(flatType, dense.getRawData());
    } else {
      continue;
    }
    // An i8 array is only byte-aligned by default: keep at least the
    // element's alignment, and a cache line for anything that large (vector
    // loads of weights never straddle one needlessly).
    uint64_t align = bytes >= 64 ? 64 : llvm::PowerOf2Ceil(elementBytes);
    align = std::max<uint64_t>(align, global.getAlignment().value_or(0));
    global.setGlobalType(LLVM::LLVMArrayType::get(i8, bytes));
    global.setValueAttr(flat);
    global.setAlignment(align);
    ++count;
  }
  return count;
}

bool isSupportedCPU(llvm::StringRef cpu) {
  return cpu == "native" || cpu == "x86-64" || cpu == "x86-64-v2" ||
         cpu == "x86-64-v3" || cpu == "x86-64-v4";
}

bool emitLLVMIR(ModuleOp module, llvm::raw_ostream &os, std::string &error,
                TimingScope *timing, llvm::StringRef cpu) {
  auto tm = createHostTargetMachine(cpu, error);
  if (!tm)
    return false;
  llvm::LLVMContext llvmCtx;
  auto llvmModule =
      translateAndOptimize(module, llvmCtx, *tm, cpu, error, timing);
  if (!llvmModule)
    return false;
  TimingScope scope = nest(timing, "printing LLVM IR");
  llvmModule->print(os, nullptr);
  return true;
}

bool emitSharedLibrary(ModuleOp module, const std::string &outputPath,
                       std::string &error, TimingScope *timing,
                       llvm::StringRef cpu) {
  auto tm = createHostTargetMachine(cpu, error);
  if (!tm)
    return false;
  // The LLVM context outlives the module; both are freed in a timed scope.
  auto llvmCtx = std::make_unique<llvm::LLVMContext>();
  auto llvmModule =
      translateAndOptimize(module, *llvmCtx, *tm, cpu, error, timing);
  if (!llvmModule)
    return false;
  // Parallel loops call LLVM's OpenMP runtime (__kmpc_fork_call...): the
  // artifact links libomp, the pool the runtime's kernels share. Artifacts
  // without them (CUDA host code) do not depend on it.
  bool usesOpenMP = llvm::any_of(llvmModule->functions(), [](auto &f) {
    return f.isDeclaration() && f.getName().starts_with("__kmpc_");
  });

  llvm::SmallString<128> objectPath;
  int fd;
  if (auto ec =
          llvm::sys::fs::createTemporaryFile("onyx", "o", fd, objectPath)) {
    error = "cannot create a temporary object file: " + ec.message();
    return false;
  }
  llvm::FileRemover removeObject(objectPath);
  {
    TimingScope scope = nest(timing, "object emission (instruction selection, "
                                     "assembly)");
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    llvm::legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, os, nullptr,
                                llvm::CodeGenFileType::ObjectFile)) {
      error = "the target cannot emit object files";
      return false;
    }
    pm.run(*llvmModule);
  }
  {
    TimingScope scope = nest(timing, "freeing LLVM IR");
    llvmModule.reset();
    llvmCtx.reset();
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
  llvm::SmallVector<llvm::StringRef> args = {
      *linker, "-shared",           "-o",         outputPath, objectPath,
      libDir,  "-lonyx_runtime",    "-lopenblas", "-lmvec",   "-lm",
      rpath,   "-Wl,-rpath,$ORIGIN"};
  std::string ompDir = ONYX_OPENMP_LIB_DIR;
  std::string ompLibDir = "-L" + ompDir;
  std::string ompRpath = "-Wl,-rpath," + ompDir;
  if (usesOpenMP)
    args.append({ompLibDir, "-lomp", ompRpath});
  TimingScope linkScope = nest(timing, "link (cc -shared)");
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
