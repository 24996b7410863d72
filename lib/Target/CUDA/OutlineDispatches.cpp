//===- OutlineDispatches.cpp - Top-level linalg ops to GPU kernels --------===//
//
// The IREE seed's dispatch outlining for the CUDA target. After
// bufferization and pooling, every top-level linalg op of the entry function
// is one dispatch:
//
//   linalg.generic ins(%a, %b : memref<?x?xf32>, memref<?xf32>)
//                  outs(%o : memref<?x?xf32>) {...}
//
// becomes, on the host,
//
//   %base_a, ... = memref.extract_strided_metadata %a
//   gpu.launch_func @main_dispatch_0::@main_dispatch_0
//       blocks in (%grid, %c1, %c1) threads in (%c256, %c1, %c1)
//       args(%base_a : memref<f32>, %base_b : memref<f32>,
//            %base_o : memref<f32>, %d0 : i64, %d1 : i64)
//
// and a `gpu.module @main_dispatch_0 [#nvvm.target<chip = "sm_90">]` whose
// kernel rebuilds each binding from its base pointer and the dynamic dims
// (memref.reinterpret_cast: the shape ties folded into the loads and
// stores) and walks the linearized iteration space with a grid-stride loop.
// Dynamic dims are scalar arguments, deduplicated by SSA value, so one
// compiled kernel serves every shape.
//
//===----------------------------------------------------------------------===//

#include "onyx/Target/CUDA/CUDATarget.h"
#include "onyx/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>

namespace onyx {
#define GEN_PASS_DEF_CUDAOUTLINEDISPATCHES
#include "onyx/Transforms/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

namespace {

/// Marks a gpu.memcpy that copies device data to the host and waits for it.
constexpr llvm::StringLiteral kReadbackAttr = "onyx.readback";

/// On a warp reduction: the constant its output was filled with, absorbed.
constexpr llvm::StringLiteral kReductionInitAttr = "onyx.reduction_init";

/// Grid-stride loops cover any size; the grid is capped well inside the
/// hardware limit.
constexpr int64_t kMaxGridBlocks = int64_t(1) << 20;

/// Host reads of device buffers up to this many elements download the whole
/// buffer (shared by the other reads at the same point); larger ones only
/// the element read.
constexpr int64_t kMaxWholeReadback = 4096;

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

bool isSupportedScalarType(Type type) {
  if (type.isIndex())
    return true;
  if (auto intType = dyn_cast<IntegerType>(type))
    return intType.getWidth() <= 64;
  if (auto floatType = dyn_cast<FloatType>(type))
    return floatType.getWidth() <= 64 && floatType.getWidth() % 8 == 0;
  return false;
}

/// Host side: a scalar as the i64 bits of a kernel argument slot.
Value toI64(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  auto i64 = b.getI64Type();
  if (type == i64)
    return value;
  if (type.isIndex())
    return arith::IndexCastOp::create(b, loc, i64, value);
  if (auto floatType = dyn_cast<FloatType>(type)) {
    auto bits = b.getIntegerType(floatType.getWidth());
    value = arith::BitcastOp::create(b, loc, bits, value);
    if (floatType.getWidth() == 64)
      return value;
  }
  return arith::ExtUIOp::create(b, loc, i64, value);
}

/// Kernel side: the inverse of toI64.
Value fromI64(OpBuilder &b, Location loc, Value slot, Type type) {
  if (type == slot.getType())
    return slot;
  if (type.isIndex())
    return arith::IndexCastOp::create(b, loc, type, slot);
  if (auto floatType = dyn_cast<FloatType>(type)) {
    auto bits = b.getIntegerType(floatType.getWidth());
    Value raw = floatType.getWidth() == 64
                    ? slot
                    : Value(arith::TruncIOp::create(b, loc, bits, slot));
    return arith::BitcastOp::create(b, loc, type, raw);
  }
  return arith::TruncIOp::create(b, loc, type, slot);
}

/// The element `load` reads, as a one-element view (rank > 0).
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

/// The buffer a chain of views starts from.
Value rootBuffer(Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewLikeOpInterface>())
    buffer = view.getViewSource();
  return buffer;
}

/// Where a buffer lives in a CUDA session: constants, external weights and
/// stack buffers on the host; inputs, outputs, temporaries and pools on the
/// device. A select between the two (ONNX If on buffers) is mixed.
enum class Space { Host, Device, Mixed };

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

/// Whether `buffer` is (a view of) host memory.
bool isHostMemory(Value buffer) { return spaceOf(buffer) == Space::Host; }

/// Whether `op` is inside a linalg op's region or is one.
bool isInDispatch(Operation *op) {
  return isa<linalg::LinalgOp>(op) || op->getParentOfType<linalg::LinalgOp>();
}

/// Lanes of a warp: a warp-reduction kernel gives one warp to each output
/// element.
constexpr int64_t kWarpSize = 32;

/// The combining op of a reduction generic that one warp per output element
/// can run: one output, its body `yield C(out, v)` with `out` used only by C
/// and C an associative, commutative f32 op (add, mul, max, min). Each lane
/// then folds a strided share of the reduction space into a register
/// starting from C's identity, the lanes combine with shuffles, and lane 0
/// combines the result into the output element. Reductions whose static
/// size is below a warp stay serial (one thread per output element).
Operation *warpReductionCombiner(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0)
    return nullptr;
  Block &body = op.getRegion().front();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!yield || yield.getNumOperands() != 1)
    return nullptr;
  Operation *combiner = yield.getOperand(0).getDefiningOp();
  if (!combiner || combiner->getBlock() != &body ||
      !isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MaxNumFOp,
           arith::MinimumFOp, arith::MinNumFOp>(combiner) ||
      !combiner->getResult(0).getType().isF32())
    return nullptr;
  BlockArgument out = body.getArgument(body.getNumArguments() - 1);
  if (!out.hasOneUse() || *out.getUsers().begin() != combiner ||
      (combiner->getOperand(0) != out && combiner->getOperand(1) != out) ||
      combiner->getOperand(0) == combiner->getOperand(1))
    return nullptr;
  // The output is indexed by parallel loops only.
  auto iterators = op.getIteratorTypesArray();
  for (AffineExpr expr : op.getIndexingMapsArray().back().getResults()) {
    if (isa<AffineConstantExpr>(expr)) // a kept unit dim: (d0, d1, 0)
      continue;
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim || !linalg::isParallelIterator(iterators[dim.getPosition()]))
      return nullptr;
  }
  // Short static reductions: serial is cheaper than idle lanes.
  int64_t staticSize = 1;
  bool allStatic = true;
  for (auto [d, size] : llvm::enumerate(op.getStaticLoopRanges()))
    if (linalg::isReductionIterator(iterators[d])) {
      if (ShapedType::isDynamic(size))
        allStatic = false;
      else
        staticSize *= size;
    }
  if (allStatic && staticSize < kWarpSize)
    return nullptr;
  return combiner;
}

/// The identity of a warp-reduction combiner.
Value combinerIdentity(OpBuilder &b, Location loc, Operation *combiner) {
  auto type = cast<FloatType>(combiner->getResult(0).getType());
  const llvm::fltSemantics &sem = type.getFloatSemantics();
  APFloat value(sem, 0);
  if (isa<arith::MulFOp>(combiner))
    value = APFloat::getOne(sem);
  else if (isa<arith::MaximumFOp, arith::MaxNumFOp>(combiner))
    value = APFloat::getInf(sem, /*Negative=*/true);
  else if (isa<arith::MinimumFOp, arith::MinNumFOp>(combiner))
    value = APFloat::getInf(sem, /*Negative=*/false);
  return arith::ConstantFloatOp::create(b, loc, type, value);
}

/// `combiner` applied to (a, b).
Value combine(OpBuilder &b, Location loc, Operation *combiner, Value lhs,
              Value rhs) {
  OperationState state(loc, combiner->getName());
  state.addOperands({lhs, rhs});
  state.addTypes(lhs.getType());
  state.addAttributes(combiner->getAttrs());
  return b.create(state)->getResult(0);
}

/// One dispatch in the making: the host values the kernel needs.
struct DispatchInterface {
  /// Distinct buffers (operands and captures), in first-use order.
  llvm::SetVector<Value> bindings;
  /// Host values passed as i64 slots: dynamic offsets/sizes/strides of the
  /// bindings and captured scalars, deduplicated.
  llvm::SetVector<Value> scalars;
  /// Per binding: the host value of each dim (null for static dims), and of
  /// each stride and the offset when the layout is strided and dynamic.
  SmallVector<SmallVector<Value>> sizes;
  SmallVector<SmallVector<Value>> strides;
  SmallVector<Value> offsets;
  /// Host base buffers (extract_strided_metadata), one per binding.
  SmallVector<Value> bases;
  /// Ops cloned into the kernel before the loop, in order: constants, and
  /// host ops that read device data (a scalar input's memref.load and what
  /// is computed from it), which must run on the device.
  llvm::SetVector<Operation *> constants;
  llvm::SetVector<Operation *> rematerialized;
};

struct CUDAOutlineDispatchesPass
    : public onyx::impl::CUDAOutlineDispatchesBase<CUDAOutlineDispatchesPass> {
  using CUDAOutlineDispatchesBase::CUDAOutlineDispatchesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs;
    if (auto entry = module.lookupSymbol<func::FuncOp>(kEntryFuncName))
      funcs.push_back(entry);
    else
      for (auto func : module.getOps<func::FuncOp>())
        if (!func.isExternal())
          funcs.push_back(func);

    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    if (auto metadata =
            module->getAttrOfType<StringAttr>(kModelMetadataAttrName)) {
      std::string text = metadata.getValue().str();
      if (text.find(kCUDADeviceMetadataLine.str()) == std::string::npos)
        text += kCUDADeviceMetadataLine.str();
      module->setAttr(kModelMetadataAttrName,
                      StringAttr::get(&getContext(), text));
    }

    for (func::FuncOp func : funcs) {
      dimCache.clear();
      uploads.clear();
      deviceData.clear();
      if (failed(normalize(func)))
        return signalPassFailure();
      absorbReductionFills(func);
      // Top-level generics and those inside host control flow (a Loop
      // body, an RNN's time steps): the launch stays where the op was.
      SmallVector<linalg::GenericOp> dispatches;
      func.walk([&](linalg::GenericOp generic) {
        if (!generic->getParentOfType<linalg::LinalgOp>())
          dispatches.push_back(generic);
      });
      for (linalg::GenericOp op : dispatches)
        if (failed(outline(module, func, op)))
          return signalPassFailure();
      eraseDeadDeviceReads(func);
    }
  }

  //===--------------------------------------------------------------------===//
  // Normalization
  //===--------------------------------------------------------------------===//

  /// Whether the host value `value` is computed from device data (a
  /// memref.load of a device buffer, directly or through pure scalar ops):
  /// such values can only be used by kernels, which recompute them.
  bool dependsOnDeviceData(Value value) {
    Operation *def = value.getDefiningOp();
    if (!def || isInDispatch(def))
      return false;
    auto found = deviceData.find(def);
    if (found != deviceData.end())
      return found->second;
    bool result = false;
    if (auto load = dyn_cast<memref::LoadOp>(def)) {
      result = !isHostMemory((load.getMemRef()));
    } else if (isPure(def) && def->getNumRegions() == 0 &&
               llvm::all_of(def->getResultTypes(), isSupportedScalarType)) {
      for (Value operand : def->getOperands())
        if (!isa<BaseMemRefType>(operand.getType()) &&
            dependsOnDeviceData(operand))
          result = true;
    }
    deviceData[def] = result;
    return result;
  }

  /// Whether every use of the device-data values of `op`, followed through
  /// the host scalar ops computed from them, ends in a kernel (which can
  /// recompute them on the device).
  bool onlyFeedsKernels(Operation *op) {
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

  /// Small static buffers that only the host touches (shape operands of
  /// memref.reshape, built with memref.store) may have been placed in a pool
  /// or a temporary, which is device memory here: they become host stack
  /// buffers.
  void keepHostBuffersOnHost(func::FuncOp func) {
    SmallVector<Operation *> candidates;
    for (Block &block : func.getBody())
      for (Operation &op : block)
        if (isa<memref::ViewOp, AllocTempOp, memref::AllocOp>(op))
          candidates.push_back(&op);
    for (Operation *op : candidates) {
      auto type = dyn_cast<MemRefType>(op->getResult(0).getType());
      if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
          !isSupportedScalarType(type.getElementType()) ||
          type.getNumElements() > 512)
        continue;
      bool hostOnly = !op->use_empty();
      for (Operation *user : op->getUsers()) {
        // Loads and stores of the entry's own block; those nested in loops
        // or kernels may run on the device (serial kernels).
        if (isa<memref::LoadOp, memref::StoreOp>(user) &&
            user->getBlock() == op->getBlock())
          continue;
        if (auto reshape = dyn_cast<memref::ReshapeOp>(user))
          if (reshape.getShape() == op->getResult(0) &&
              reshape.getSource() != op->getResult(0))
            continue;
        hostOnly = false;
      }
      if (!hostOnly)
        continue;
      OpBuilder b(op);
      auto alloca = memref::AllocaOp::create(b, op->getLoc(), type);
      op->getResult(0).replaceAllUsesWith(alloca.getResult());
      op->erase();
    }
  }

  /// RFC Fix 3, per use: a host op that needs device data it cannot leave to
  /// a kernel (a size computed from a shape input, the shape operand of
  /// memref.reshape) reads a synchronized copy. The whole (small, static)
  /// buffer is copied into a host stack buffer right before the op, which
  /// then reads the copy. Loads whose values only feed kernels are left
  /// alone: the kernels load them on the device, without a sync.
  LogicalResult insertReadbacks(Block &body) {
    SmallVector<Operation *> ops;
    for (Operation &op : body)
      ops.push_back(&op);
    // Host copies already made of a device buffer, reusable until something
    // may write device memory again (a kernel, a library call, a copy) or
    // control leaves the block: the shape entries Reshape reads one by one
    // then share one download and one synchronization.
    DenseMap<Value, Value> hostCopies;
    // The last op that may write device memory. Readbacks are issued right
    // after it (or after what they need), not at their use, so that the
    // readbacks of one point are adjacent and share one synchronization
    // (onyx-cuda-lower-launches).
    Operation *lastBarrier = nullptr;
    auto readbackPoint = [&](OpBuilder &b, ValueRange needed) {
      Operation *after = lastBarrier;
      for (Value value : needed)
        if (Operation *def = value.getDefiningOp())
          if (Operation *inBody = body.findAncestorOpInBlock(*def))
            if (!after || after->isBeforeInBlock(inBody))
              after = inBody;
      if (after)
        b.setInsertionPointAfter(after);
      else
        b.setInsertionPointToStart(&body);
    };
    for (Operation *op : ops) {
      // gpu.memcpy: session-constant uploads of onyx-cuda-lower-library-calls.
      if (isa<linalg::LinalgOp, memref::CopyOp, gpu::MemcpyOp,
              gpu::LaunchFuncOp>(op) ||
          op->getNumRegions()) {
        hostCopies.clear();
        lastBarrier = op;
        continue;
      }
      if (isa<CallOpInterface>(op)) {
        hostCopies.clear();
        lastBarrier = op;
      }
      auto iface = dyn_cast<MemoryEffectOpInterface>(op);
      if (!iface)
        continue;
      if (isa<memref::LoadOp>(op) && onlyFeedsKernels(op))
        continue;
      SmallVector<MemoryEffects::EffectInstance> effects;
      iface.getEffects(effects);
      llvm::SetVector<Value> reads;
      for (auto &effect : effects) {
        Value value = effect.getValue();
        if (!value || !isa<BaseMemRefType>(value.getType()))
          continue;
        if (isa<MemoryEffects::Write>(effect.getEffect()) &&
            !isHostMemory((value)))
          return op->emitError()
                 << "writing tensor data on the host ('" << op->getName()
                 << "') is not supported on cuda yet (the data is on the "
                    "device)";
        if (isa<MemoryEffects::Read>(effect.getEffect()) &&
            spaceOf(value) == Space::Mixed)
          return op->emitError()
                 << "the host reads a tensor that is host memory on one "
                    "path and device memory on another ('"
                 << op->getName() << "' of " << value.getType()
                 << "); not supported on cuda yet";
        if (isa<MemoryEffects::Read>(effect.getEffect()) &&
            !isHostMemory((value)))
          reads.insert(value);
      }
      // One element of a dynamically shaped or large buffer: copy just that
      // element.
      if (auto load = dyn_cast<memref::LoadOp>(op);
          load && reads.size() == 1 && load.getMemRefType().getRank() > 0 &&
          (!load.getMemRefType().hasStaticShape() ||
           load.getMemRefType().getNumElements() > kMaxWholeReadback)) {
        MemRefType type = load.getMemRefType();
        OpBuilder b(op);
        Location loc = op->getLoc();
        SmallVector<Value> needed(load.getIndices());
        needed.push_back(load.getMemRef());
        readbackPoint(b, needed);
        Value element = elementView(b, load);
        auto copy = memref::AllocaOp::create(
            b, loc, MemRefType::get({1}, type.getElementType()));
        auto memcpy =
            gpu::MemcpyOp::create(b, loc, Type(), ValueRange{}, copy, element);
        memcpy->setAttr(kReadbackAttr, b.getUnitAttr());
        b.setInsertionPoint(op);
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        auto hostLoad = memref::LoadOp::create(b, loc, copy, ValueRange{zero});
        load.getResult().replaceAllUsesWith(hostLoad.getResult());
        load.erase();
        deviceData.clear();
        continue;
      }
      for (Value buffer : reads) {
        if (Value copy = hostCopies.lookup(buffer)) {
          op->replaceUsesOfWith(buffer, copy);
          continue;
        }
        auto type = dyn_cast<MemRefType>(buffer.getType());
        if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
            type.getNumElements() > kMaxWholeReadback ||
            !isSupportedScalarType(type.getElementType()))
          return op->emitError()
                 << "the host needs the value of a tensor that lives on the "
                    "device ('"
                 << op->getName() << "' of " << buffer.getType()
                 << "); a synchronized readback needs a small static buffer";
        OpBuilder b(op);
        readbackPoint(b, buffer);
        auto copy = memref::AllocaOp::create(b, op->getLoc(), type);
        auto memcpy = gpu::MemcpyOp::create(b, op->getLoc(), Type(),
                                            ValueRange{}, copy, buffer);
        memcpy->setAttr(kReadbackAttr, b.getUnitAttr());
        op->replaceUsesOfWith(buffer, copy);
        hostCopies[buffer] = copy;
      }
      if (!reads.empty())
        deviceData.clear();
    }
    return success();
  }

  LogicalResult normalize(func::FuncOp func) {
    keepHostBuffersOnHost(func);
    return normalizeBlock(func.getBody().front());
  }

  /// Normalizes the host ops of `block` (the entry's body, or a block of
  /// host control flow around kernels): loop nests over device data become
  /// serial kernels, host reads of device data readbacks, copies and named
  /// linalg ops generics; what is left must not touch device data.
  LogicalResult normalizeBlock(Block &block) {
    SmallVector<Operation *> ops;
    for (Operation &op : block)
      ops.push_back(&op);
    for (Operation *op : ops)
      if (auto load = dyn_cast<memref::LoadOp>(op))
        if (failed(snapshotDeviceScalar(load, block)))
          return failure();
    ops.clear();
    for (Operation &op : block)
      ops.push_back(&op);
    for (Operation *op : ops)
      if (isSerialCandidate(op) && failed(outlineSerial(op)))
        return failure();
    if (failed(insertReadbacks(block)))
      return failure();
    ops.clear();
    for (Operation &op : block)
      ops.push_back(&op);
    IRRewriter rewriter(block.getParentOp()->getContext());
    for (Operation *op : ops) {
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        rewriter.setInsertionPoint(copy);
        op = linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(),
                                    copy.getTarget());
        rewriter.eraseOp(copy);
      }
      // The runtime copies an inserted element device to device: a host
      // constant is inserted from its session copy on the device.
      if (auto insert = dyn_cast<SeqInsertOp>(op)) {
        Value element = insert.getElement();
        Space space = spaceOf(element);
        if (space == Space::Mixed)
          return op->emitError("a sequence element that is host memory on "
                               "one path and device memory on another; not "
                               "supported on cuda yet");
        if (space == Space::Host) {
          FailureOr<Value> copy = deviceCopyOf(element, op);
          if (failed(copy))
            return failure();
          insert.getElementMutable().assign(*copy);
        }
        continue;
      }
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
        if (failed(checkDispatchable(linalgOp)))
          return failure();
        if (!isa<linalg::GenericOp>(op)) {
          rewriter.setInsertionPoint(op);
          if (failed(linalg::generalizeNamedOp(rewriter, linalgOp)))
            return op->emitError()
                   << "'" << op->getName()
                   << "' cannot be generalized for the cuda target";
        }
        continue;
      }
      // A device value computed on the host is fine when only kernels use
      // it: they recompute it.
      if (op->getNumResults() > 0 &&
          llvm::any_of(op->getResults(),
                       [&](Value r) { return dependsOnDeviceData(r); })) {
        if (onlyFeedsKernels(op))
          continue;
        return op->emitError()
               << "the host needs the value of a tensor that lives on the "
                  "device ('"
               << op->getName()
               << "'); reading device data on the host is not supported on "
                  "cuda yet";
      }
      // Host control flow around kernels or device data: its blocks are
      // host code too.
      if (op->getNumRegions() && !isa<gpu::LaunchFuncOp>(op)) {
        bool device = false;
        op->walk([&](Operation *inner) {
          if (isa<linalg::LinalgOp, memref::CopyOp, SeqInsertOp>(inner) ||
              touchesDeviceData(inner))
            device = true;
        });
        if (!device)
          continue;
        for (Region &region : op->getRegions())
          for (Block &nested : region)
            if (failed(normalizeBlock(nested)))
              return failure();
        continue;
      }
      if (isa<gpu::MemcpyOp, gpu::LaunchFuncOp>(op)) // readbacks, kernels
        continue;
      if (touchesDeviceData(op))
        return op->emitError()
               << "reading or writing tensor data on the host ('"
               << op->getName()
               << "') is not supported on cuda yet (the data is on the "
                  "device)";
    }
    return success();
  }

  /// Whether every use of `value`, followed through pure scalar ops, is
  /// device code: a kernel body or a serial-kernel candidate of `block`.
  bool usedOnlyOnDevice(Value value, Block &block) {
    for (Operation *user : value.getUsers()) {
      if (isInDispatch(user))
        continue;
      Operation *inBlock = block.findAncestorOpInBlock(*user);
      if (inBlock && (inBlock != user || isa<memref::StoreOp>(user)) &&
          isSerialCandidate(inBlock))
        continue;
      if (isPure(user) && user->getNumRegions() == 0 &&
          user->getNumResults() == 1 &&
          isSupportedScalarType(user->getResult(0).getType()) &&
          usedOnlyOnDevice(user->getResult(0), block))
        continue;
      return false;
    }
    return true;
  }

  /// A payload scalar that only device code uses is read by each kernel
  /// that uses it (rematerialized), later than the host load stood: by then
  /// a kernel may have overwritten its buffer (a reduction result buffer
  /// reused for the next reduction, a pool slot the planner gave to a later
  /// temporary because the load was the buffer's last use). It is first
  /// copied, on the device and in stream order, into a temporary of its
  /// own. Graph inputs are never written, so their loads stay.
  LogicalResult snapshotDeviceScalar(memref::LoadOp load, Block &block) {
    Value root = rootBuffer(load.getMemRef());
    if (isHostMemory(load.getMemRef()) ||
        isa_and_nonnull<GetInputOp>(root.getDefiningOp()) ||
        !usedOnlyOnDevice(load.getResult(), block))
      return success();
    auto func = load->getParentOfType<func::FuncOp>();
    Value context = func.getArgument(0);
    if (!isa<ContextType>(context.getType()))
      return load.emitError("device scalars need the bound entry function "
                            "(onyx-bind-entry-context)");
    OpBuilder b(load);
    Location loc = load.getLoc();
    MemRefType type = load.getMemRefType();
    Value element = load.getMemRef();
    SmallVector<Value> at;
    if (type.getRank() > 0) {
      element = elementView(b, load);
      at.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    }
    auto copyType = type.getRank() > 0
                        ? MemRefType::get({1}, type.getElementType())
                        : MemRefType::get({}, type.getElementType());
    auto copy = AllocTempOp::create(b, loc, copyType, context, ValueRange{});
    memref::CopyOp::create(b, loc, element, copy);
    auto snapshot = memref::LoadOp::create(b, loc, copy, at);
    load.getResult().replaceAllUsesWith(snapshot.getResult());
    load.erase();
    deviceData.clear();
    return success();
  }

  //===--------------------------------------------------------------------===//
  // Serial kernels
  //===--------------------------------------------------------------------===//

  /// A host loop nest (or a lone store) that reads or writes device data
  /// element by element - the CPU form of CumSum, TopK, NonZero, Unique,
  /// the scatters - runs as a kernel of one thread: the data stays on the
  /// device and the host neither synchronizes per element nor walks device
  /// memory. Loops that only wrap structured ops (a Loop body, an RNN's
  /// time steps) stay host control flow around parallel kernels unless
  /// they also store elements themselves.
  bool isSerialCandidate(Operation *op) {
    if (isa<linalg::LinalgOp, memref::CopyOp, gpu::LaunchFuncOp, gpu::MemcpyOp>(
            op))
      return false;
    if (!op->getNumRegions() && !isa<memref::StoreOp>(op))
      return false;
    bool access = false, store = false, structured = false;
    op->walk<WalkOrder::PreOrder>([&](Operation *inner) {
      if (isa<linalg::LinalgOp, memref::CopyOp>(inner)) {
        structured = true;
        return WalkResult::skip();
      }
      if (auto load = dyn_cast<memref::LoadOp>(inner))
        access |= !isHostMemory(load.getMemRef());
      if (auto st = dyn_cast<memref::StoreOp>(inner))
        if (!isHostMemory(st.getMemRef()))
          access = store = true;
      return WalkResult::advance();
    });
    if (!access || (structured && !store))
      return false;
    return runsInSerialKernel(op);
  }

  /// Whether `op` and everything nested in it can run in a kernel, and
  /// what it uses from above can be passed to one.
  bool runsInSerialKernel(Operation *op) {
    for (Type type : op->getResultTypes())
      if (!isSupportedScalarType(type))
        return false;
    WalkResult walk = op->walk<WalkOrder::PreOrder>([&](Operation *inner) {
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(inner))
        return linalgOp.hasPureBufferSemantics() ? WalkResult::skip()
                                                 : WalkResult::interrupt();
      if (auto alloca = dyn_cast<memref::AllocaOp>(inner))
        return alloca.getType().hasStaticShape() ? WalkResult::advance()
                                                 : WalkResult::interrupt();
      if (isa<memref::LoadOp, memref::StoreOp, memref::DimOp, memref::SubViewOp,
              memref::CastOp, memref::ReinterpretCastOp, memref::ExpandShapeOp,
              memref::CollapseShapeOp, memref::CopyOp,
              memref::ExtractStridedMetadataOp, memref::ViewOp>(inner))
        return WalkResult::advance();
      StringRef dialect = inner->getDialect()
                              ? inner->getDialect()->getNamespace()
                              : StringRef();
      if (dialect == "arith" || dialect == "math" || dialect == "scf" ||
          dialect == "index" || dialect == "ub" || dialect == "affine")
        return WalkResult::advance();
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      return false;
    llvm::SetVector<Value> captured(op->getOperands().begin(),
                                    op->getOperands().end());
    getUsedValuesDefinedAbove(op->getRegions(), captured);
    for (Value value : captured) {
      if (auto type = dyn_cast<MemRefType>(value.getType())) {
        Space space = spaceOf(value);
        if (space == Space::Mixed)
          return false;
        // Host constants are uploaded once per session; stack buffers and
        // weights with dynamic shapes cannot be.
        if (space == Space::Host &&
            (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
             isa_and_nonnull<memref::AllocaOp>(
                 rootBuffer(value).getDefiningOp())))
          return false;
        continue;
      }
      if (!isSupportedScalarType(value.getType()))
        return false;
    }
    return true;
  }

  /// Outlines `op` as a one-thread kernel (isSerialCandidate). Its scalar
  /// results, which host code may need (NonZero's count sizes the result),
  /// come back through a small device buffer and one synchronized download.
  LogicalResult outlineSerial(Operation *op) {
    auto func = op->getParentOfType<func::FuncOp>();
    auto module = func->getParentOfType<ModuleOp>();
    Location loc = op->getLoc();
    OpBuilder hb(op);
    Value results;
    auto i64 = hb.getI64Type();
    auto resultsType = MemRefType::get({int64_t(op->getNumResults())}, i64);
    if (op->getNumResults()) {
      Value context = func.getArgument(0);
      if (!isa<ContextType>(context.getType()))
        return op->emitError("serial kernels need the bound entry function "
                             "(onyx-bind-entry-context)");
      results =
          AllocTempOp::create(hb, loc, resultsType, context, ValueRange{});
    }
    DispatchInterface iface;
    if (failed(collectInterface(hb, op, iface, results)))
      return failure();
    // An outer loop whose iterations touch disjoint slices of what they
    // write runs its iterations on separate threads (grid-stride).
    auto rows = dyn_cast<scf::ForOp>(op);
    if (rows && !independentIterations(rows))
      rows = {};
    int64_t threads = rows ? blockSize : 1;
    gpu::GPUFuncOp kernel = createKernel(
        module, func, loc, iface, threads,
        [&](OpBuilder &kb, gpu::GPUFuncOp fn) {
          IRMapping map = bindInterface(kb, fn, loc, iface);
          Operation *clone = kb.clone(*op, map);
          if (rows) {
            // lb' = lb + thread * step, step' = step * threads in the grid.
            auto loop = cast<scf::ForOp>(clone);
            OpBuilder lb(loop);
            auto [thread, all] = gridStride(lb, loc);
            Value step = loop.getStep();
            loop.getLowerBoundMutable().assign(arith::AddIOp::create(
                lb, loc, loop.getLowerBound(),
                arith::MulIOp::create(lb, loc, thread, step)));
            loop.getStepMutable().assign(
                arith::MulIOp::create(lb, loc, step, all));
          }
          for (auto [i, result] : llvm::enumerate(clone->getResults())) {
            Value index = arith::ConstantIndexOp::create(kb, loc, i);
            memref::StoreOp::create(kb, loc, toI64(kb, loc, result),
                                    map.lookup(results), ValueRange{index});
          }
          lowerStructuredOpsToLoops(clone);
          finishKernel(kb, loc, fn);
        });
    SmallVector<Value> hostArgs(iface.bases.begin(), iface.bases.end());
    for (Value scalar : iface.scalars)
      hostArgs.push_back(toI64(hb, loc, scalar));
    Value one = arith::ConstantIndexOp::create(hb, loc, 1);
    Value blocks = one, block = one;
    if (rows) {
      // ceil((ub - lb) / step) iterations (0 when ub <= lb), 256 a block.
      Value span = arith::SubIOp::create(
          hb, loc,
          arith::MaxSIOp::create(hb, loc, rows.getUpperBound(),
                                 rows.getLowerBound()),
          rows.getLowerBound());
      Value trips = arith::DivUIOp::create(
          hb, loc,
          arith::AddIOp::create(
              hb, loc, span,
              arith::SubIOp::create(hb, loc, rows.getStep(), one)),
          rows.getStep());
      block = arith::ConstantIndexOp::create(hb, loc, blockSize);
      blocks = gridBlocks(hb, loc, trips);
    }
    launchKernel(hb, loc, kernel, blocks, block, hostArgs);
    noteSerialKernel(module, nodeNameOf(loc));
    if (results) {
      auto copy = memref::AllocaOp::create(hb, loc, resultsType);
      auto memcpy =
          gpu::MemcpyOp::create(hb, loc, Type(), ValueRange{}, copy, results);
      memcpy->setAttr(kReadbackAttr, hb.getUnitAttr());
      for (auto [i, result] : llvm::enumerate(op->getResults())) {
        Value index = arith::ConstantIndexOp::create(hb, loc, i);
        Value bits = memref::LoadOp::create(hb, loc, copy, ValueRange{index});
        result.replaceAllUsesWith(fromI64(hb, loc, bits, result.getType()));
      }
    }
    op->erase();
    deviceData.clear();
    return success();
  }

  /// Whether the iterations of `loop` (host code, run as a kernel) may run
  /// concurrently: no loop-carried values, the bounds known on the host, no
  /// structured ops or views made inside, and every buffer the body writes
  /// indexed by the loop's induction variable in one fixed position by
  /// every access to it (so iterations write, and read back, disjoint
  /// slices); buffers only read are free. A buffer written in the body must
  /// not be reachable under another name (a view of it) in the body.
  bool independentIterations(scf::ForOp loop) {
    if (loop.getNumResults() != 0)
      return false;
    for (Value bound :
         {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
      if (dependsOnDeviceData(bound))
        return false;
    Value iv = loop.getInductionVar();
    // The buffer a memref designates through views, but not through
    // memref.view (distinct live pool views never overlap).
    auto base = [](Value memref) {
      while (Operation *def = memref.getDefiningOp()) {
        if (isa<memref::ViewOp>(def))
          break;
        if (auto view = dyn_cast<ViewLikeOpInterface>(def))
          memref = view.getViewSource();
        else if (auto reshape = dyn_cast<memref::ReshapeOp>(def))
          memref = reshape.getSource();
        else
          break;
      }
      return memref;
    };
    DenseMap<Value, int64_t> written; // buffer -> position of the iv
    SmallVector<std::pair<Value, ValueRange>> loads;
    bool ok = true;
    loop.getBody()->walk([&](Operation *inner) {
      if (isa<linalg::LinalgOp, memref::CopyOp, ViewLikeOpInterface,
              memref::ReshapeOp>(inner) &&
          !isa<memref::AllocaOp>(inner)) {
        ok = false;
        return WalkResult::interrupt();
      }
      if (auto store = dyn_cast<memref::StoreOp>(inner)) {
        if (isa_and_nonnull<memref::AllocaOp>(
                store.getMemRef().getDefiningOp()) &&
            loop->isProperAncestor(store.getMemRef().getDefiningOp()))
          return WalkResult::advance(); // private to the iteration
        auto indices = store.getIndices();
        auto it = llvm::find(indices, iv);
        if (it == indices.end()) {
          ok = false;
          return WalkResult::interrupt();
        }
        int64_t position = it - indices.begin();
        auto [entry, inserted] =
            written.try_emplace(store.getMemRef(), position);
        if (!inserted && entry->second != position)
          ok = false;
      } else if (auto load = dyn_cast<memref::LoadOp>(inner)) {
        loads.push_back({load.getMemRef(), load.getIndices()});
      }
      return ok ? WalkResult::advance() : WalkResult::interrupt();
    });
    if (!ok || written.empty())
      return false;
    DenseSet<Value> writtenBases;
    for (auto &entry : written)
      writtenBases.insert(base(entry.first));
    if (writtenBases.size() != written.size())
      return false; // two names for one written buffer
    for (auto &[buffer, indices] : loads) {
      auto entry = written.find(buffer);
      if (entry == written.end()) {
        if (writtenBases.contains(base(buffer)))
          return false; // another name for a written buffer
        continue;
      }
      if (int64_t(indices.size()) <= entry->second ||
          indices[entry->second] != iv)
        return false;
    }
    return true;
  }

  /// The model metadata gains `serial <node>` once per node with a serial
  /// kernel: its time grows with the data on one GPU thread, which callers
  /// (and scripts/gpu/run_suite.py's large-shape timing) should know.
  void noteSerialKernel(ModuleOp module, StringRef node) {
    auto metadata = module->getAttrOfType<StringAttr>(kModelMetadataAttrName);
    if (!metadata)
      return;
    std::string line =
        "serial " + (node.empty() ? std::string("?") : escapeName(node)) + "\n";
    std::string text = metadata.getValue().str();
    if (text.find(line) != std::string::npos)
      return;
    module->setAttr(kModelMetadataAttrName,
                    StringAttr::get(module.getContext(), text + line));
  }

  /// Metadata names: bytes outside [A-Za-z0-9_.:/-] as %XX.
  static std::string escapeName(StringRef name) {
    std::string out;
    for (unsigned char c : name) {
      if (llvm::isAlnum(c) || c == '_' || c == '.' || c == ':' || c == '/' ||
          c == '-')
        out += char(c);
      else
        out += llvm::formatv("%{0:X2}", unsigned(c)).str();
    }
    return out;
  }

  /// Inside a serial kernel: structured ops and copies become loops.
  void lowerStructuredOpsToLoops(Operation *root) {
    SmallVector<Operation *> structured;
    root->walk<WalkOrder::PreOrder>([&](Operation *inner) {
      if (isa<linalg::LinalgOp, memref::CopyOp>(inner)) {
        structured.push_back(inner);
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
    IRRewriter rewriter(root->getContext());
    for (Operation *op : structured) {
      rewriter.setInsertionPoint(op);
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        op = linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(),
                                    copy.getTarget());
        rewriter.eraseOp(copy);
      }
      rewriter.setInsertionPoint(op);
      if (succeeded(
              linalg::linalgOpToLoops(rewriter, cast<linalg::LinalgOp>(op))))
        rewriter.eraseOp(op);
    }
  }

  /// Whether `op` reads or writes the data of a device buffer.
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
      if (value && isa<BaseMemRefType>(value.getType()) &&
          !isHostMemory((value)))
        return true;
    }
    return false;
  }

  LogicalResult checkDispatchable(linalg::LinalgOp op) {
    if (!op.hasPureBufferSemantics())
      return op->emitError()
             << "'" << op->getName() << "' on tensors reached the cuda target";
    // GEMMs and convolutions that cuBLASLt/cuDNN can run are library calls
    // by now (onyx-cuda-lower-library-calls); what is left (other element
    // types, strided views, ...) runs as a reduction kernel.
    // One thread per output element, serially over the reduction dims:
    // each output element must belong to one thread.
    if (op.getNumLoops() !=
        op.getNumParallelLoops() + op.getNumReductionLoops())
      return op->emitError() << "'" << op->getName()
                             << "' has iterators other than parallel and "
                                "reduction; not supported on cuda yet";
    {
      for (OpOperand &init : op.getDpsInitsMutable()) {
        AffineMap map = op.getMatchingIndexingMap(&init);
        llvm::SmallBitVector seen(op.getNumLoops());
        for (AffineExpr expr : map.getResults())
          if (auto dim = dyn_cast<AffineDimExpr>(expr))
            seen.set(dim.getPosition());
        for (unsigned d = 0; d < op.getNumLoops(); ++d)
          if (linalg::isParallelIterator(op.getIteratorTypesArray()[d]) &&
              !seen.test(d))
            return op->emitError()
                   << "'" << op->getName()
                   << "' writes one output element from several parallel "
                      "iterations; not supported on cuda yet";
      }
    }
    return success();
  }

  /// Host memory a kernel reads (a constant, an external weight) is read
  /// from its device copy, made once per session: a call temporary filled by
  /// a `gpu.memcpy {onyx.session_constant}`, which onyx-cuda-lower-launches
  /// turns into the runtime's session constant (onyxrt_cuda_constant).
  FailureOr<Value> deviceCopyOf(Value buffer, Operation *user) {
    auto found = uploads.find(buffer);
    if (found != uploads.end())
      return found->second;
    auto type = cast<MemRefType>(buffer.getType());
    // A view of a constant (a Loop body slicing a constant by its
    // iteration): the same view of the constant's device copy.
    if (auto view = buffer.getDefiningOp<ViewLikeOpInterface>();
        view && isa<memref::SubViewOp, memref::CastOp, memref::ExpandShapeOp,
                    memref::CollapseShapeOp, memref::ReinterpretCastOp>(
                    view.getOperation())) {
      FailureOr<Value> source = deviceCopyOf(view.getViewSource(), user);
      if (failed(source))
        return failure();
      OpBuilder b(view);
      b.setInsertionPointAfter(view);
      IRMapping map;
      map.map(view.getViewSource(), *source);
      Value copy = b.clone(*view.getOperation(), map)->getResult(0);
      uploads[buffer] = copy;
      return copy;
    }
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return user->emitError("a kernel reads the host constant of type ")
             << type << ", which is not supported on cuda yet";
    if (isa_and_nonnull<memref::AllocaOp>(rootBuffer(buffer).getDefiningOp()))
      return user->emitError(
          "a kernel reads a host stack buffer; not supported on cuda yet");
    auto func = user->getParentOfType<func::FuncOp>();
    Value context = func.getNumArguments() > 0 ? func.getArgument(0) : Value();
    if (!context || !isa<ContextType>(context.getType()))
      return user->emitError(
          "constants need the bound entry function (onyx-bind-entry-context)");
    OpBuilder b(user);
    if (Operation *def = buffer.getDefiningOp())
      b.setInsertionPointAfter(def);
    auto temp =
        AllocTempOp::create(b, buffer.getLoc(), type, context, ValueRange{});
    auto copy = gpu::MemcpyOp::create(b, buffer.getLoc(), Type(), ValueRange{},
                                      temp, buffer);
    copy->setAttr("onyx.session_constant", b.getUnitAttr());
    uploads[buffer] = temp;
    return Value(temp);
  }

  /// Erases the host ops whose device-data values all moved into kernels.
  void eraseDeadDeviceReads(func::FuncOp func) {
    SmallVector<Operation *> ops;
    for (Block &block : func.getBody())
      for (Operation &op : block)
        ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops))
      if (op->use_empty() && op->getNumResults() > 0 &&
          llvm::any_of(op->getResults(),
                       [&](Value r) { return dependsOnDeviceData(r); }))
        op->erase();
  }

  //===--------------------------------------------------------------------===//
  // Outlining
  //===--------------------------------------------------------------------===//

  /// The host value of dim `d` of `buffer`, reusing the sizes the buffer was
  /// allocated with or an existing memref.dim, so that equal dims are one
  /// kernel argument.
  Value resolveDim(OpBuilder &b, Operation *anchor, Value buffer, int64_t d) {
    // Per block: a dim computed inside host control flow does not dominate
    // the code after it.
    auto key = std::make_tuple(buffer, d, anchor->getBlock());
    auto cached = dimCache.find(key);
    if (cached != dimCache.end())
      return cached->second;
    auto type = cast<MemRefType>(buffer.getType());
    Value result;
    Operation *def = buffer.getDefiningOp();
    auto fromSizes = [&](ValueRange dynamicSizes) {
      return dynamicSizes[type.getDynamicDimIndex(d)];
    };
    if (auto op = dyn_cast_or_null<AllocOutputOp>(def))
      result = fromSizes(op.getDynamicSizes());
    else if (auto op = dyn_cast_or_null<AllocTempOp>(def))
      result = fromSizes(op.getDynamicSizes());
    else if (auto op = dyn_cast_or_null<memref::AllocOp>(def))
      result = fromSizes(op.getDynamicSizes());
    else if (auto op = dyn_cast_or_null<memref::ViewOp>(def))
      result = fromSizes(op.getSizes());
    if (!result) {
      for (Operation *user : buffer.getUsers()) {
        auto dim = dyn_cast<memref::DimOp>(user);
        if (!dim || dim->getBlock() != anchor->getBlock() ||
            !dim->isBeforeInBlock(anchor))
          continue;
        if (std::optional<int64_t> index = dim.getConstantIndex();
            index && *index == d) {
          result = dim.getResult();
          break;
        }
      }
    }
    if (!result)
      result = memref::DimOp::create(b, anchor->getLoc(), buffer, d);
    dimCache[key] = result;
    return result;
  }

  /// The bindings and scalars a kernel running `op` needs, plus `extra` (a
  /// device buffer the kernel writes, if any).
  LogicalResult collectInterface(OpBuilder &hb, Operation *op,
                                 DispatchInterface &iface,
                                 Value extra = Value()) {
    llvm::SetVector<Value> bodyScalars;
    std::function<LogicalResult(Value)> addValue;
    addValue = [&](Value value) -> LogicalResult {
      if (isa<MemRefType>(value.getType())) {
        iface.bindings.insert(value);
        return success();
      }
      Operation *def = value.getDefiningOp();
      if (def &&
          (def->hasTrait<OpTrait::ConstantLike>() || isa<ub::PoisonOp>(def))) {
        iface.constants.insert(def);
        return success();
      }
      if (def && dependsOnDeviceData(value)) {
        // Recomputed in the kernel from its operands.
        if (iface.rematerialized.contains(def))
          return success();
        for (Value operand : def->getOperands())
          if (failed(addValue(operand)))
            return failure();
        iface.rematerialized.insert(def);
        return success();
      }
      if (!isSupportedScalarType(value.getType()))
        return op->emitError("the kernel would capture a value of type ")
               << value.getType() << ", which is not supported on cuda yet";
      bodyScalars.insert(value);
      return success();
    };
    // Buffer operands are bindings; scalar operands (ins(%x : f32)) and
    // values the body uses from above are captures.
    llvm::SetVector<Value> captured;
    for (Value operand : op->getOperands()) {
      if (isa<MemRefType>(operand.getType()))
        iface.bindings.insert(operand);
      else
        captured.insert(operand);
    }
    getUsedValuesDefinedAbove(op->getRegions(), captured);
    for (Value value : captured)
      if (failed(addValue(value)))
        return failure();
    if (extra)
      iface.bindings.insert(extra);

    // Bindings rooted in host memory read a device copy.
    Location loc = op->getLoc();
    llvm::SetVector<Value> hostBindings = std::move(iface.bindings);
    iface.bindings.clear();
    for (Value buffer : hostBindings) {
      if (spaceOf(buffer) == Space::Mixed)
        return op->emitError("a kernel reads a buffer that is host memory on "
                             "one path and device memory on another; not "
                             "supported on cuda yet");
      if (isHostMemory(buffer)) {
        FailureOr<Value> copy = deviceCopyOf(buffer, op);
        if (failed(copy))
          return failure();
        deviceCopies[buffer] = *copy;
        buffer = *copy;
      }
      iface.bindings.insert(buffer);
    }
    // The binding metadata first, then the captured scalars.
    for (Value buffer : iface.bindings) {
      auto type = cast<MemRefType>(buffer.getType());
      if (!isSupportedScalarType(type.getElementType()))
        return op->emitError("buffers of ")
               << type.getElementType() << " are not supported on cuda yet";
      SmallVector<int64_t> staticStrides;
      int64_t staticOffset;
      if (failed(type.getStridesAndOffset(staticStrides, staticOffset)))
        return op->emitError("buffer layout ")
               << type << " is not strided; not supported on cuda yet";
      auto metadata = memref::ExtractStridedMetadataOp::create(hb, loc, buffer);
      iface.bases.push_back(metadata.getBaseBuffer());
      SmallVector<Value> sizes(type.getRank());
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          iface.scalars.insert(sizes[d] = resolveDim(hb, op, buffer, d));
      iface.sizes.push_back(sizes);
      SmallVector<Value> strides(type.getRank());
      Value offset;
      if (!type.getLayout().isIdentity()) {
        if (ShapedType::isDynamic(staticOffset))
          iface.scalars.insert(offset = metadata.getOffset());
        for (int64_t d = 0; d < type.getRank(); ++d)
          if (ShapedType::isDynamic(staticStrides[d]))
            iface.scalars.insert(strides[d] = metadata.getStrides()[d]);
      }
      iface.strides.push_back(strides);
      iface.offsets.push_back(offset);
    }
    for (Value scalar : bodyScalars)
      iface.scalars.insert(scalar);
    return success();
  }

  /// Builds the kernel body: rebuilds the bindings, then a grid-stride loop
  /// over the linearized parallel iteration space of a clone of `op`; each
  /// thread walks the reduction dims (if any) serially.
  /// Kernel side of `iface`: the scalars from their i64 slots, the cloned
  /// constants, each binding rebuilt from its base pointer and dims, and the
  /// rematerialized host computations of device data.
  IRMapping bindInterface(OpBuilder &kb, gpu::GPUFuncOp kernel, Location loc,
                          const DispatchInterface &iface) {
    Block &entry = kernel.getBody().front();
    unsigned numBindings = iface.bindings.size();
    IRMapping map;
    for (auto [i, scalar] : llvm::enumerate(iface.scalars))
      map.map(scalar, fromI64(kb, loc, entry.getArgument(numBindings + i),
                              scalar.getType()));
    for (Operation *constant : iface.constants)
      kb.clone(*constant, map);

    for (auto [j, buffer] : llvm::enumerate(iface.bindings)) {
      auto type = cast<MemRefType>(buffer.getType());
      int64_t rank = type.getRank();
      SmallVector<int64_t> staticStrides;
      int64_t staticOffset;
      (void)type.getStridesAndOffset(staticStrides, staticOffset);
      SmallVector<OpFoldResult> sizes, strides(rank);
      for (int64_t d = 0; d < rank; ++d)
        sizes.push_back(
            type.isDynamicDim(d)
                ? OpFoldResult(map.lookup(iface.sizes[j][d]))
                : OpFoldResult(kb.getIndexAttr(type.getDimSize(d))));
      OpFoldResult offset = kb.getIndexAttr(0);
      if (type.getLayout().isIdentity()) {
        // Row-major strides from the sizes.
        OpFoldResult running = kb.getIndexAttr(1);
        for (int64_t d = rank - 1; d >= 0; --d) {
          strides[d] = running;
          if (d == 0)
            break;
          auto a = getConstantIntValue(running);
          auto s = getConstantIntValue(sizes[d]);
          if (a && s)
            running = kb.getIndexAttr(*a * *s);
          else
            running = OpFoldResult(arith::MulIOp::create(
                kb, loc, getValueOrCreateConstantIndexOp(kb, loc, running),
                getValueOrCreateConstantIndexOp(kb, loc, sizes[d])));
        }
      } else {
        offset = ShapedType::isDynamic(staticOffset)
                     ? OpFoldResult(map.lookup(iface.offsets[j]))
                     : OpFoldResult(kb.getIndexAttr(staticOffset));
        for (int64_t d = 0; d < rank; ++d)
          strides[d] = ShapedType::isDynamic(staticStrides[d])
                           ? OpFoldResult(map.lookup(iface.strides[j][d]))
                           : OpFoldResult(kb.getIndexAttr(staticStrides[d]));
      }
      Value rebuilt = memref::ReinterpretCastOp::create(
          kb, loc, type, entry.getArgument(j), offset, sizes, strides);
      map.map(buffer, rebuilt);
    }
    // Host bindings were replaced by their device copies.
    for (auto &[host, copy] : deviceCopies)
      if (map.contains(copy))
        map.map(host, map.lookup(copy));
    // Scalars the host computed from device data, recomputed here.
    for (Operation *remat : iface.rematerialized)
      kb.clone(*remat, map);
    return map;
  }

  void buildKernelBody(OpBuilder &kb, gpu::GPUFuncOp kernel,
                       linalg::GenericOp op, const DispatchInterface &iface) {
    Location loc = op.getLoc();
    IRMapping map = bindInterface(kb, kernel, loc, iface);
    auto generic = cast<linalg::GenericOp>(kb.clone(*op, map));
    // Loop sizes from the rebuilt buffers.
    SmallVector<Value> loopSizes;
    for (Range range : cast<linalg::LinalgOp>(generic.getOperation())
                           .createLoopRanges(kb, loc))
      loopSizes.push_back(getValueOrCreateConstantIndexOp(kb, loc, range.size));
    SmallVector<utils::IteratorType> iterators =
        generic.getIteratorTypesArray();
    SmallVector<int64_t> parallelDims, reductionDims;
    for (auto [d, iterator] : llvm::enumerate(iterators))
      (linalg::isParallelIterator(iterator) ? parallelDims : reductionDims)
          .push_back(d);

    if (Operation *combiner = warpReductionCombiner(generic)) {
      buildWarpReduction(kb, loc, generic, combiner, loopSizes, parallelDims,
                         reductionDims);
      generic.erase();
      finishKernel(kb, loc, kernel);
      return;
    }
    Value total = arith::ConstantIndexOp::create(kb, loc, 1);
    for (int64_t d : parallelDims)
      total = arith::MulIOp::create(kb, loc, total, loopSizes[d]);
    auto [start, step] = gridStride(kb, loc);
    auto loop = scf::ForOp::create(kb, loc, start, total, step);

    OpBuilder lb(loop.getBody()->getTerminator());
    SmallVector<Value> ivs(loopSizes.size());
    delinearize(lb, loc, loop.getInductionVar(), parallelDims, loopSizes, ivs);
    // Reduction dims: serial loops, in iteration order.
    for (int64_t d : reductionDims) {
      Value zero = arith::ConstantIndexOp::create(lb, loc, 0);
      Value one = arith::ConstantIndexOp::create(lb, loc, 1);
      auto inner = scf::ForOp::create(lb, loc, zero, loopSizes[d], one);
      ivs[d] = inner.getInductionVar();
      lb.setInsertionPoint(inner.getBody()->getTerminator());
    }
    auto applyMap = [&](AffineMap indexing) {
      return applyIndexing(lb, loc, indexing, ivs);
    };

    Block &body = generic.getRegion().front();
    IRMapping bodyMap;
    for (OpOperand &operand : generic->getOpOperands()) {
      BlockArgument arg = body.getArgument(operand.getOperandNumber());
      Value value = operand.get();
      if (!isa<MemRefType>(value.getType())) {
        bodyMap.map(arg, value);
        continue;
      }
      if (generic.isDpsInit(&operand) && arg.use_empty())
        continue;
      bodyMap.map(arg, memref::LoadOp::create(
                           lb, loc, value,
                           applyMap(generic.getMatchingIndexingMap(&operand))));
    }
    for (Operation &bodyOp : body.without_terminator())
      lb.clone(bodyOp, bodyMap);
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    for (OpOperand &init : generic.getDpsInitsMutable()) {
      unsigned i = init.getOperandNumber() - generic.getNumDpsInputs();
      memref::StoreOp::create(
          lb, loc, bodyMap.lookupOrDefault(yield.getOperand(i)), init.get(),
          applyMap(generic.getMatchingIndexingMap(&init)));
    }
    // linalg.index (also in nested regions of the body) is the loop index.
    SmallVector<linalg::IndexOp> indexOps;
    loop.walk([&](linalg::IndexOp index) { indexOps.push_back(index); });
    for (linalg::IndexOp index : indexOps) {
      index.replaceAllUsesWith(ivs[index.getDim()]);
      index.erase();
    }
    generic.erase();
    finishKernel(kb, loc, kernel);
  }

  /// Blocks of `blockSize` threads for `threads` threads (ceil), capped at
  /// kMaxGridBlocks (grid-stride loops cover the rest); 0 threads launch
  /// nothing (the runtime skips an empty grid).
  Value gridBlocks(OpBuilder &b, Location loc, Value threads) {
    Value roundedUp = arith::AddIOp::create(
        b, loc, threads, arith::ConstantIndexOp::create(b, loc, blockSize - 1));
    return arith::MinUIOp::create(
        b, loc,
        arith::DivUIOp::create(
            b, loc, roundedUp,
            arith::ConstantIndexOp::create(b, loc, blockSize)),
        arith::ConstantIndexOp::create(b, loc, kMaxGridBlocks));
  }

  /// The host launch of `kernel` on a 1-D grid, labelled with the node.
  void launchKernel(OpBuilder &b, Location loc, gpu::GPUFuncOp kernel,
                    Value blocks, Value block, ValueRange args) {
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto launch = gpu::LaunchFuncOp::create(
        b, loc, kernel, gpu::KernelDim3{blocks, one, one},
        gpu::KernelDim3{block, one, one}, Value(), args);
    std::string node = nodeNameOf(loc);
    if (!node.empty())
      launch->setAttr("onyx.node", b.getStringAttr(node));
  }

  /// This thread's index in the grid and the number of threads in it: the
  /// start and step of a grid-stride loop.
  static std::pair<Value, Value> gridStride(OpBuilder &b, Location loc) {
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value bdim = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
    Value gdim = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    return {arith::AddIOp::create(
                b, loc, arith::MulIOp::create(b, loc, bid, bdim), tid),
            arith::MulIOp::create(b, loc, gdim, bdim)};
  }

  /// Delinearizes `linear` over `dims` (innermost fastest) into `ivs`.
  void delinearize(OpBuilder &b, Location loc, Value linear,
                   ArrayRef<int64_t> dims, ArrayRef<Value> loopSizes,
                   SmallVectorImpl<Value> &ivs) {
    Value rest = linear;
    for (int64_t k = int64_t(dims.size()) - 1; k >= 0; --k) {
      int64_t d = dims[k];
      if (k == 0) {
        ivs[d] = rest;
        break;
      }
      ivs[d] = arith::RemUIOp::create(b, loc, rest, loopSizes[d]);
      rest = arith::DivUIOp::create(b, loc, rest, loopSizes[d]);
    }
  }

  /// Indices of `indexing` at `ivs`.
  SmallVector<Value> applyIndexing(OpBuilder &b, Location loc,
                                   AffineMap indexing, ArrayRef<Value> ivs) {
    SmallVector<Value> indices;
    for (unsigned r = 0; r < indexing.getNumResults(); ++r) {
      AffineExpr expr = indexing.getResult(r);
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        indices.push_back(ivs[dim.getPosition()]);
      else if (auto cst = dyn_cast<AffineConstantExpr>(expr))
        indices.push_back(
            arith::ConstantIndexOp::create(b, loc, cst.getValue()));
      else
        indices.push_back(affine::AffineApplyOp::create(
            b, loc, indexing.getSubMap({r}), ivs));
    }
    return indices;
  }

  /// One warp per output element (warpReductionCombiner): a grid-stride
  /// loop over the output elements by warp, each lane folding every 32nd
  /// point of the linearized reduction space into a register, a shuffle
  /// butterfly across the warp, and lane 0 combining into the output.
  void buildWarpReduction(OpBuilder &kb, Location loc,
                          linalg::GenericOp generic, Operation *combiner,
                          ArrayRef<Value> loopSizes,
                          ArrayRef<int64_t> parallelDims,
                          ArrayRef<int64_t> reductionDims) {
    Value outputs = arith::ConstantIndexOp::create(kb, loc, 1);
    for (int64_t d : parallelDims)
      outputs = arith::MulIOp::create(kb, loc, outputs, loopSizes[d]);
    Value reduced = arith::ConstantIndexOp::create(kb, loc, 1);
    for (int64_t d : reductionDims)
      reduced = arith::MulIOp::create(kb, loc, reduced, loopSizes[d]);
    Value warp = arith::ConstantIndexOp::create(kb, loc, kWarpSize);
    Value tid = gpu::ThreadIdOp::create(kb, loc, gpu::Dimension::x);
    Value bid = gpu::BlockIdOp::create(kb, loc, gpu::Dimension::x);
    Value bdim = gpu::BlockDimOp::create(kb, loc, gpu::Dimension::x);
    Value gdim = gpu::GridDimOp::create(kb, loc, gpu::Dimension::x);
    Value global = arith::AddIOp::create(
        kb, loc, arith::MulIOp::create(kb, loc, bid, bdim), tid);
    Value lane = arith::RemUIOp::create(kb, loc, tid, warp);
    Value firstWarp = arith::DivUIOp::create(kb, loc, global, warp);
    Value warps = arith::DivUIOp::create(
        kb, loc, arith::MulIOp::create(kb, loc, gdim, bdim), warp);
    auto outer = scf::ForOp::create(kb, loc, firstWarp, outputs, warps);
    OpBuilder ob(outer.getBody()->getTerminator());
    SmallVector<Value> ivs(loopSizes.size());
    delinearize(ob, loc, outer.getInductionVar(), parallelDims, loopSizes, ivs);

    // f32 sums accumulate in f64: a lane may fold millions of elements (a
    // LayerNorm over a 2M-element row), whose f32 running sum drifts.
    Type elementType = combiner->getResult(0).getType();
    bool widen = isa<arith::AddFOp>(combiner) && elementType.isF32();
    Value identity = widen ? Value(arith::ConstantFloatOp::create(
                                 ob, loc, ob.getF64Type(), APFloat(0.0)))
                           : combinerIdentity(ob, loc, combiner);
    auto inner =
        scf::ForOp::create(ob, loc, lane, reduced, warp, ValueRange{identity});
    {
      OpBuilder ib = OpBuilder::atBlockBegin(inner.getBody());
      delinearize(ib, loc, inner.getInductionVar(), reductionDims, loopSizes,
                  ivs);
      Block &body = generic.getRegion().front();
      IRMapping bodyMap;
      for (OpOperand *operand : generic.getDpsInputOperands()) {
        BlockArgument arg = body.getArgument(operand->getOperandNumber());
        Value value = operand->get();
        if (!isa<MemRefType>(value.getType())) {
          bodyMap.map(arg, value);
          continue;
        }
        bodyMap.map(
            arg,
            memref::LoadOp::create(
                ib, loc, value,
                applyIndexing(ib, loc, generic.getMatchingIndexingMap(operand),
                              ivs)));
      }
      BlockArgument out = body.getArgument(body.getNumArguments() - 1);
      for (Operation &bodyOp : body.without_terminator())
        if (&bodyOp != combiner)
          ib.clone(bodyOp, bodyMap);
      Value term = combiner->getOperand(0) == out ? combiner->getOperand(1)
                                                  : combiner->getOperand(0);
      Value value = bodyMap.lookupOrDefault(term);
      if (widen)
        value = arith::ExtFOp::create(ib, loc, ib.getF64Type(), value);
      Value acc =
          combine(ib, loc, combiner, inner.getRegionIterArgs()[0], value);
      scf::YieldOp::create(ib, loc, acc);
    }
    Value acc = inner.getResult(0);
    for (int32_t offset = kWarpSize / 2; offset > 0; offset /= 2)
      acc = combine(ob, loc, combiner, acc, shuffleXor(ob, loc, acc, offset));
    if (widen)
      acc = arith::TruncFOp::create(ob, loc, elementType, acc);
    Value zero = arith::ConstantIndexOp::create(ob, loc, 0);
    Value isFirst =
        arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::eq, lane, zero);
    auto ifOp = scf::IfOp::create(ob, loc, isFirst, /*withElseRegion=*/false);
    {
      OpBuilder tb = ifOp.getThenBodyBuilder();
      OpOperand &init = generic.getDpsInitsMutable()[0];
      SmallVector<Value> indices =
          applyIndexing(tb, loc, generic.getMatchingIndexingMap(&init), ivs);
      // The fill before the reduction, absorbed (absorbReductionFills):
      // its value instead of the element.
      Value old;
      if (auto value = generic->getAttrOfType<TypedAttr>(kReductionInitAttr))
        old = arith::ConstantOp::create(tb, loc, value);
      else
        old = memref::LoadOp::create(tb, loc, init.get(), indices);
      Value result = combine(tb, loc, combiner, old, acc);
      memref::StoreOp::create(tb, loc, result, init.get(), indices);
    }
    // linalg.index (also in nested regions of the body) is the loop index.
    SmallVector<linalg::IndexOp> indexOps;
    outer.walk([&](linalg::IndexOp index) { indexOps.push_back(index); });
    for (linalg::IndexOp index : indexOps) {
      index.replaceAllUsesWith(ivs[index.getDim()]);
      index.erase();
    }
  }

  /// A constant fill of a warp reduction's output right before it (the
  /// softmax max's -inf, a sum's 0): the kernel's lane 0 writes
  /// combine(fill, sum of the lanes) instead of combining into the stored
  /// element, and the fill kernel goes away.
  void absorbReductionFills(func::FuncOp func) {
    SmallVector<linalg::GenericOp> reductions;
    func.walk([&](linalg::GenericOp op) {
      if (!op->getParentOfType<linalg::LinalgOp>() && warpReductionCombiner(op))
        reductions.push_back(op);
    });
    for (linalg::GenericOp op : reductions) {
      Value out = op.getDpsInits()[0];
      Operation *prev = op->getPrevNode();
      while (prev && prev->getNumRegions() == 0 &&
             (isMemoryEffectFree(prev) || isa<ViewLikeOpInterface>(prev)))
        prev = prev->getPrevNode();
      auto fill = dyn_cast_or_null<linalg::GenericOp>(prev);
      if (!fill || fill.getNumDpsInits() != 1 || fill.getDpsInits()[0] != out ||
          fill.getNumDpsInputs() != 1 ||
          isa<MemRefType>(fill.getDpsInputs()[0].getType()) ||
          fill.getNumReductionLoops() != 0 ||
          !fill.getIndexingMapsArray()[1].isIdentity())
        continue;
      Block &body = fill.getRegion().front();
      auto yield = cast<linalg::YieldOp>(body.getTerminator());
      if (body.getOperations().size() != 1 ||
          yield.getOperand(0) != body.getArgument(0))
        continue;
      TypedAttr value;
      if (!matchPattern(fill.getDpsInputs()[0], m_Constant(&value)))
        continue;
      op->setAttr(kReductionInitAttr, value);
      fill.erase();
    }
  }

  /// `value` of the lane `offset` away (XOR) in the warp; 64-bit values as
  /// two 32-bit shuffles.
  Value shuffleXor(OpBuilder &b, Location loc, Value value, int32_t offset) {
    if (value.getType().getIntOrFloatBitWidth() != 64)
      return gpu::ShuffleOp::create(b, loc, value, offset, int32_t(kWarpSize),
                                    gpu::ShuffleMode::XOR)
          .getShuffleResult();
    auto i32 = b.getI32Type();
    auto i64 = b.getI64Type();
    Value bits = arith::BitcastOp::create(b, loc, i64, value);
    Value lo = arith::TruncIOp::create(b, loc, i32, bits);
    Value hi = arith::TruncIOp::create(
        b, loc, i32,
        arith::ShRUIOp::create(b, loc, bits,
                               arith::ConstantIntOp::create(b, loc, 32, 64)));
    auto shuffle = [&](Value half) {
      return gpu::ShuffleOp::create(b, loc, half, offset, int32_t(kWarpSize),
                                    gpu::ShuffleMode::XOR)
          .getShuffleResult();
    };
    Value loBits = arith::ExtUIOp::create(b, loc, i64, shuffle(lo));
    Value hiBits = arith::ShLIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i64, shuffle(hi)),
        arith::ConstantIntOp::create(b, loc, 32, 64));
    return arith::BitcastOp::create(
        b, loc, value.getType(), arith::OrIOp::create(b, loc, loBits, hiBits));
  }

  void finishKernel(OpBuilder &kb, Location loc, gpu::GPUFuncOp kernel) {
    gpu::ReturnOp::create(kb, loc);
    // Shape ties: a dim of a rebuilt binding is the size it was rebuilt with.
    SmallVector<memref::DimOp> dims;
    kernel.walk([&](memref::DimOp dim) { dims.push_back(dim); });
    for (memref::DimOp dim : dims) {
      auto cast = dim.getSource().getDefiningOp<memref::ReinterpretCastOp>();
      std::optional<int64_t> index = dim.getConstantIndex();
      if (!cast || !index)
        continue;
      OpBuilder db(dim);
      dim.replaceAllUsesWith(getValueOrCreateConstantIndexOp(
          db, dim.getLoc(), cast.getMixedSizes()[*index]));
      dim.erase();
    }
  }

  /// A kernel over `iface` (bindings as bare base pointers, then i64 slots)
  /// with `threads` threads per block, its body built by `build`; an
  /// identical existing kernel is returned instead of a new one.
  gpu::GPUFuncOp
  createKernel(ModuleOp module, func::FuncOp func, Location loc,
               const DispatchInterface &iface, int64_t threads,
               llvm::function_ref<void(OpBuilder &, gpu::GPUFuncOp)> build) {
    MLIRContext *ctx = &getContext();
    SmallVector<Type> argTypes;
    for (Value base : iface.bases)
      argTypes.push_back(base.getType());
    argTypes.append(iface.scalars.size(), IntegerType::get(ctx, 64));
    std::string name =
        (func.getSymName() + "_dispatch_" + std::to_string(dispatchCounter++))
            .str();
    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    Attribute target = NVVM::NVVMTargetAttr::get(
        ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda", chip, /*features=*/"");
    auto gpuModule =
        gpu::GPUModuleOp::create(mb, loc, name, ArrayRef<Attribute>{target});
    OpBuilder kb = OpBuilder::atBlockBegin(gpuModule.getBody());
    auto kernel =
        gpu::GPUFuncOp::create(kb, loc, name, kb.getFunctionType(argTypes, {}));
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), kb.getUnitAttr());
    kernel.setKnownBlockSizeAttr(
        kb.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
    kb.setInsertionPointToStart(&kernel.getBody().front());
    build(kb, kernel);

    // Identical kernels are one executable.
    std::string key;
    {
      SymbolTable::setSymbolName(kernel, "kernel");
      llvm::raw_string_ostream os(key);
      kernel->print(os, OpPrintingFlags().useLocalScope());
      SymbolTable::setSymbolName(kernel, name);
    }
    auto [it, inserted] = kernelsByBody.try_emplace(key, kernel);
    if (!inserted) {
      gpuModule.erase();
      kernel = it->second;
      --dispatchCounter;
    }
    return kernel;
  }

  LogicalResult outline(ModuleOp module, func::FuncOp func,
                        linalg::GenericOp op) {
    Location loc = op.getLoc();
    OpBuilder hb(op);
    DispatchInterface iface;
    if (failed(collectInterface(hb, op, iface)))
      return failure();
    gpu::GPUFuncOp kernel = createKernel(module, func, loc, iface, blockSize,
                                         [&](OpBuilder &kb, gpu::GPUFuncOp fn) {
                                           buildKernelBody(kb, fn, op, iface);
                                         });

    // The host launch: grid from the parallel iteration space.
    SmallVector<Value> hostArgs(iface.bases.begin(), iface.bases.end());
    for (Value scalar : iface.scalars)
      hostArgs.push_back(toI64(hb, loc, scalar));
    Value total = arith::ConstantIndexOp::create(hb, loc, 1);
    auto linalgOp = cast<linalg::LinalgOp>(op.getOperation());
    SmallVector<utils::IteratorType> iterators =
        linalgOp.getIteratorTypesArray();
    for (auto [d, range] : llvm::enumerate(linalgOp.createLoopRanges(hb, loc)))
      if (linalg::isParallelIterator(iterators[d]))
        total = arith::MulIOp::create(
            hb, loc, total,
            getValueOrCreateConstantIndexOp(hb, loc, range.size));
    if (warpReductionCombiner(op))
      total = arith::MulIOp::create(
          hb, loc, total, arith::ConstantIndexOp::create(hb, loc, kWarpSize));
    launchKernel(hb, loc, kernel, gridBlocks(hb, loc, total),
                 arith::ConstantIndexOp::create(hb, loc, blockSize), hostArgs);
    op.erase();
    return success();
  }

  unsigned dispatchCounter = 0;
  llvm::StringMap<gpu::GPUFuncOp> kernelsByBody;
  DenseMap<std::tuple<Value, int64_t, Block *>, Value> dimCache;
  /// Device copies of host buffers, by host buffer.
  DenseMap<Value, Value> uploads;
  DenseMap<Value, Value> deviceCopies;
  /// dependsOnDeviceData, memoized.
  DenseMap<Operation *, bool> deviceData;
};

} // namespace
