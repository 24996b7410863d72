//===- SerializeKernels.cpp - NVVM gpu.module to cubin + PTX --------------===//
//
// Like upstream gpu-module-to-binary, but keeps both products of one
// compilation: the cubin that ptxas made for the target chip and the PTX it
// was made from, which the driver can JIT when the cubin does not fit the
// GPU at hand. The toolkit is resolved here (not through PATH) so that
// onyx-compile works from any environment.
//
//===----------------------------------------------------------------------===//

#include "onyx/Target/CUDA/CUDATarget.h"
#include "onyx/Target/CUDA/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace onyx {
#define GEN_PASS_DEF_CUDASERIALIZEKERNELS
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

namespace {

struct CUDASerializeKernelsPass
    : public onyx::impl::CUDASerializeKernelsBase<CUDASerializeKernelsPass> {
  using CUDASerializeKernelsBase::CUDASerializeKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    if (gpuModules.empty())
      return;
    std::string toolkitPath = findCUDAToolkit(toolkit);
    if (toolkitPath.empty()) {
      gpuModules.front().emitError()
          << "no CUDA toolkit with bin/ptxas found"
          << (toolkit.empty() ? std::string(" (looked at $CUDA_HOME, "
                                            "$CUDA_PATH, /usr/local/cuda "
                                            "and PATH)")
                              : " at '" + toolkit + "'");
      return signalPassFailure();
    }

    std::optional<SymbolTable> symbolTable;
    auto getSymbolTable = [&]() -> SymbolTable * {
      if (!symbolTable)
        symbolTable.emplace(module);
      return &*symbolTable;
    };

    for (gpu::GPUModuleOp gpuModule : gpuModules) {
      ArrayAttr targets = gpuModule.getTargetsAttr();
      auto target = targets && !targets.empty()
                        ? dyn_cast<gpu::TargetAttrInterface>(targets[0])
                        : gpu::TargetAttrInterface();
      if (!target) {
        gpuModule.emitError("kernel module '")
            << gpuModule.getName() << "' has no GPU target";
        return signalPassFailure();
      }
      std::string ptx;
      auto keepISA = [&](StringRef isa) { ptx = isa.str(); };
      gpu::CompilationTarget format = emitBinary
                                          ? gpu::CompilationTarget::Binary
                                          : gpu::CompilationTarget::Assembly;
      gpu::TargetOptions options(toolkitPath, /*librariesToLink=*/{},
                                 /*cmdOptions=*/"", /*elfSection=*/"", format,
                                 getSymbolTable, {}, {}, {}, keepISA);
      std::optional<SmallVector<char, 0>> object =
          target.serializeToObject(gpuModule, options);
      if (!object) {
        gpuModule.emitError("cannot compile kernel module '")
            << gpuModule.getName() << "' for " << targets[0];
        return signalPassFailure();
      }
      SmallVector<Attribute> objects;
      if (emitBinary) {
        objects.push_back(target.createObject(gpuModule, *object, options));
      } else {
        ptx.assign(object->begin(), object->end());
      }
      if (ptx.empty()) {
        // The serializer did not report its PTX: ask for it.
        gpu::TargetOptions asmOptions(toolkitPath, {}, "", "",
                                      gpu::CompilationTarget::Assembly,
                                      getSymbolTable);
        auto isa = target.serializeToObject(gpuModule, asmOptions);
        if (!isa) {
          gpuModule.emitError("cannot produce PTX for kernel module '")
              << gpuModule.getName() << "'";
          return signalPassFailure();
        }
        ptx.assign(isa->begin(), isa->end());
      }
      objects.push_back(gpu::ObjectAttr::get(
          ctx, targets[0], gpu::CompilationTarget::Assembly,
          StringAttr::get(ctx, ptx), DictionaryAttr(), gpu::KernelTableAttr()));
      OpBuilder builder(gpuModule);
      gpu::BinaryOp::create(builder, gpuModule.getLoc(), gpuModule.getName(),
                            Attribute(), objects);
      gpuModule.erase();
    }
  }
};

} // namespace
