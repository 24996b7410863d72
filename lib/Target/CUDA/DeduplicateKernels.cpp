//===- DeduplicateKernels.cpp - Identical kernels are one executable ------===//
//
// After the kernels are lowered, identical ones (the same body over the
// same arguments: the two Relus of a block, every LayerNorm's mean) are one
// `gpu.module`: later copies are erased and their launches use the first.
// The kernels that stay are renumbered `<func>_dispatch_<N>` in order, so
// that names do not depend on how many copies there were.
//
//===----------------------------------------------------------------------===//

#include "onyx/Target/CUDA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/StringMap.h"

namespace onyx {
#define GEN_PASS_DEF_CUDADEDUPLICATEKERNELS
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

namespace {

/// The kernel of a gpu.module that holds one, else null.
gpu::GPUFuncOp kernelOf(gpu::GPUModuleOp module) {
  auto funcs = module.getOps<gpu::GPUFuncOp>();
  if (std::distance(funcs.begin(), funcs.end()) != 1)
    return {};
  gpu::GPUFuncOp kernel = *funcs.begin();
  if (!kernel.isKernel() || kernel.getName() != module.getName())
    return {};
  return kernel;
}

/// What makes two kernels the same executable: the kernel as printed under
/// a neutral name.
std::string kernelKey(gpu::GPUFuncOp kernel) {
  std::string key;
  StringAttr name = kernel.getNameAttr();
  SymbolTable::setSymbolName(kernel, "kernel");
  llvm::raw_string_ostream os(key);
  kernel->print(os, OpPrintingFlags().useLocalScope());
  SymbolTable::setSymbolName(kernel, name);
  // The target (chip) is part of the executable.
  os << cast<gpu::GPUModuleOp>(kernel->getParentOp()).getTargetsAttr();
  return key;
}

struct CUDADeduplicateKernelsPass
    : public onyx::impl::CUDADeduplicateKernelsBase<
          CUDADeduplicateKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // Old module name -> the kernel its launches use now.
    llvm::StringMap<gpu::GPUFuncOp> replacement;
    llvm::StringMap<gpu::GPUFuncOp> byKey;
    SmallVector<gpu::GPUFuncOp> kept;
    for (auto gpuModule :
         llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>())) {
      gpu::GPUFuncOp kernel = kernelOf(gpuModule);
      if (!kernel)
        continue;
      auto [it, inserted] = byKey.try_emplace(kernelKey(kernel), kernel);
      replacement[gpuModule.getName()] = it->second;
      if (inserted)
        kept.push_back(kernel);
      else
        gpuModule.erase();
    }
    // Renumbered in order: <prefix>_dispatch_<N>, N counting all kernels.
    unsigned next = 0;
    llvm::DenseMap<Operation *, StringAttr> newNames;
    for (gpu::GPUFuncOp kernel : kept) {
      StringRef name = kernel.getName();
      size_t at = name.rfind("_dispatch_");
      if (at == StringRef::npos)
        continue;
      StringAttr newName = StringAttr::get(
          ctx, name.take_front(at) + "_dispatch_" + std::to_string(next++));
      newNames[kernel] = newName;
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto found = replacement.find(launch.getKernelModuleName().getValue());
      if (found == replacement.end())
        return;
      gpu::GPUFuncOp kernel = found->second;
      StringAttr name = newNames.lookup(kernel);
      if (!name)
        name = kernel.getNameAttr();
      launch.setKernelAttr(
          SymbolRefAttr::get(name, {FlatSymbolRefAttr::get(name)}));
    });
    for (auto &[kernel, name] : newNames) {
      SymbolTable::setSymbolName(kernel, name);
      SymbolTable::setSymbolName(kernel->getParentOp(), name);
    }
  }
};

} // namespace
