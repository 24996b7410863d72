//===- DeviceData.cpp - Where data lives in a CUDA session ----------------===//

#include "DeviceData.h"

#include "onyx/Dialect/Onyx/OnyxDialect.h"
#include "onyx/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace onyx::cuda {

bool isSupportedScalarType(Type type) {
  if (type.isIndex())
    return true;
  if (auto intType = dyn_cast<IntegerType>(type))
    return intType.getWidth() <= 64;
  if (auto floatType = dyn_cast<FloatType>(type))
    return floatType.getWidth() <= 64 && floatType.getWidth() % 8 == 0;
  return false;
}

Value rootBuffer(Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewLikeOpInterface>())
    buffer = view.getViewSource();
  return buffer;
}

Space spaceOf(Value buffer) {
  buffer = rootBuffer(buffer);
  Operation *def = buffer.getDefiningOp();
  if (auto select = dyn_cast_or_null<arith::SelectOp>(def)) {
    Space a = spaceOf(select.getTrueValue());
    Space b = spaceOf(select.getFalseValue());
    return a == b ? a : Space::Mixed;
  }
  if (!def)
    return Space::Device;
  if (isa<memref::GetGlobalOp, memref::AllocaOp>(def))
    return Space::Host;
  StringRef name = def->getName().getStringRef();
  if (name == "onyx.get_weight" || name == "onyx.weight_buffer")
    return Space::Host;
  return Space::Device;
}

bool isInDispatch(Operation *op) {
  return isa<linalg::LinalgOp>(op) || op->getParentOfType<linalg::LinalgOp>();
}

bool touchesDeviceData(Operation *op) {
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface)
    return false;
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  for (auto &effect : effects) {
    if (!isa<MemoryEffects::Read, MemoryEffects::Write>(effect.getEffect()))
      continue;
    Value value = effect.getValue();
    if (value && isa<BaseMemRefType>(value.getType()) && !isHostMemory(value))
      return true;
  }
  return false;
}

bool isHostControlFlowOverDevice(Operation *op) {
  if (!op->getNumRegions() || isa<gpu::LaunchFuncOp, linalg::LinalgOp>(op))
    return false;
  bool device = false;
  op->walk([&](Operation *inner) {
    if (isa<linalg::LinalgOp, memref::CopyOp, SeqInsertOp>(inner) ||
        touchesDeviceData(inner))
      device = true;
  });
  return device;
}

Value elementView(OpBuilder &b, memref::LoadOp load) {
  MemRefType type = load.getMemRefType();
  SmallVector<OpFoldResult> offsets(load.getIndices().begin(),
                                    load.getIndices().end());
  SmallVector<OpFoldResult> ones(type.getRank(), b.getIndexAttr(1));
  auto elementType = memref::SubViewOp::inferRankReducedResultType(
      {1}, type, offsets, ones, ones);
  return memref::SubViewOp::create(b, load.getLoc(),
                                   cast<MemRefType>(elementType),
                                   load.getMemRef(), offsets, ones, ones);
}

SmallVector<func::FuncOp> hostFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> funcs;
  if (auto entry = module.lookupSymbol<func::FuncOp>(kEntryFuncName))
    funcs.push_back(entry);
  else
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        funcs.push_back(func);
  return funcs;
}

bool DeviceDataFlow::dependsOnDeviceData(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def || isInDispatch(def))
    return false;
  auto found = memo.find(def);
  if (found != memo.end())
    return found->second;
  bool result = false;
  if (auto load = dyn_cast<memref::LoadOp>(def)) {
    result = !isHostMemory(load.getMemRef());
  } else if (isPure(def) && def->getNumRegions() == 0 &&
             llvm::all_of(def->getResultTypes(), isSupportedScalarType)) {
    for (Value operand : def->getOperands())
      if (!isa<BaseMemRefType>(operand.getType()) &&
          dependsOnDeviceData(operand))
        result = true;
  }
  memo[def] = result;
  return result;
}

bool DeviceDataFlow::onlyFeedsKernels(Operation *op) {
  for (Operation *user : op->getUsers()) {
    if (isInDispatch(user))
      continue;
    bool derived = llvm::any_of(
        user->getResults(), [&](Value r) { return dependsOnDeviceData(r); });
    if (!derived || !onlyFeedsKernels(user))
      return false;
  }
  return true;
}

} // namespace onyx::cuda
