//===- KernelBuilder.cpp - Host ops into NVVM kernels ---------------------===//

#include "KernelBuilder.h"

#include "onyx/Dialect/Onyx/OnyxDialect.h"
#include "onyx/Target/CUDA/CUDATarget.h"
#include "onyx/Transforms/ModelMetadata.h"
#include "onyx/Transforms/Passes.h"
#include "onyx/onyx_abi.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>

using namespace mlir;

namespace onyx::cuda {

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

std::pair<Value, Value> gridStride(OpBuilder &b, Location loc) {
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value bdim = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
  Value gdim = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  return {arith::AddIOp::create(b, loc,
                                arith::MulIOp::create(b, loc, bid, bdim), tid),
          arith::MulIOp::create(b, loc, gdim, bdim)};
}

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

SmallVector<Value> applyIndexing(OpBuilder &b, Location loc, AffineMap indexing,
                                 ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (unsigned r = 0; r < indexing.getNumResults(); ++r) {
    AffineExpr expr = indexing.getResult(r);
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      indices.push_back(ivs[dim.getPosition()]);
    else if (auto cst = dyn_cast<AffineConstantExpr>(expr))
      indices.push_back(arith::ConstantIndexOp::create(b, loc, cst.getValue()));
    else
      indices.push_back(
          affine::AffineApplyOp::create(b, loc, indexing.getSubMap({r}), ivs));
  }
  return indices;
}

void foldBindingDims(gpu::GPUFuncOp kernel) {
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

linalg::GenericOp dispatchRoot(gpu::GPUFuncOp kernel) {
  for (Operation &op : kernel.getBody().front())
    if (auto generic = dyn_cast<linalg::GenericOp>(op))
      return generic;
  return {};
}

DispatchLoops dispatchLoops(OpBuilder &kb, linalg::GenericOp op) {
  DispatchLoops loops;
  Location loc = op.getLoc();
  for (Range range :
       cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(kb, loc))
    loops.sizes.push_back(getValueOrCreateConstantIndexOp(kb, loc, range.size));
  for (auto [d, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    (linalg::isParallelIterator(iterator) ? loops.parallelDims
                                          : loops.reductionDims)
        .push_back(d);
  return loops;
}

LaneAccess laneAccess(linalg::GenericOp op, OpOperand &operand) {
  unsigned inner = op.getNumLoops() - 1;
  AffineMap map = op.getMatchingIndexingMap(&operand);
  if (!map.isFunctionOfDim(inner))
    return LaneAccess::Invariant;
  auto type = dyn_cast<MemRefType>(operand.get().getType());
  if (!type || map.getNumResults() == 0)
    return LaneAccess::PerLane;
  Type element = type.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0 ||
      element.getIntOrFloatBitWidth() > 64)
    return LaneAccess::PerLane;
  auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!last || last.getPosition() != inner)
    return LaneAccess::PerLane;
  for (AffineExpr expr : map.getResults().drop_back())
    if (expr.isFunctionOfDim(inner))
      return LaneAccess::PerLane;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1)
    return LaneAccess::PerLane;
  return LaneAccess::Vector;
}

/// 16 bytes of the narrowest element type among the Vector operands of
/// `op` for which `counts` holds, at most 8 elements; 1 when there are none,
/// when the result is under 2, or when the innermost loop's static size is
/// not a multiple of it.
static int64_t vectorWidthOf(linalg::GenericOp op,
                             function_ref<bool(OpOperand &)> counts) {
  int64_t narrowest = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!counts(operand) || laneAccess(op, operand) != LaneAccess::Vector)
      continue;
    int64_t bytes =
        cast<MemRefType>(operand.get().getType()).getElementTypeBitWidth() / 8;
    narrowest = narrowest ? std::min(narrowest, bytes) : bytes;
  }
  if (!narrowest)
    return 1;
  int64_t width = std::min<int64_t>(16 / narrowest, 8);
  int64_t inner = op.getStaticLoopRanges().back();
  if (width < 2 || (!ShapedType::isDynamic(inner) && inner % width != 0))
    return 1;
  return width;
}

int64_t dispatchVectorWidth(linalg::GenericOp op) {
  if (op.getNumLoops() == 0 || op.getNumReductionLoops() != 0 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !op.hasPureBufferSemantics())
    return 1;
  for (OpOperand &init : op.getDpsInitsMutable())
    if (laneAccess(op, init) != LaneAccess::Vector)
      return 1;
  return vectorWidthOf(op, [](OpOperand &) { return true; });
}

int64_t reductionVectorWidth(linalg::GenericOp op) {
  unsigned loops = op.getNumLoops();
  if (loops == 0 || op.getNumReductionLoops() != 1 ||
      !linalg::isReductionIterator(op.getIteratorTypesArray()[loops - 1]) ||
      !op.hasPureBufferSemantics())
    return 1;
  return vectorWidthOf(
      op, [&](OpOperand &operand) { return op.isDpsInput(&operand); });
}

llvm::MaybeAlign vectorAlignment(MemRefType type, int64_t width) {
  return llvm::MaybeAlign(
      std::min<int64_t>(width * type.getElementTypeBitWidth() / 8, 16));
}

Value vectorAccessConditions(OpBuilder &kb, linalg::GenericOp generic,
                             const DispatchLoops &loops, int64_t width) {
  Location loc = generic.getLoc();
  Value zero = arith::ConstantIndexOp::create(kb, loc, 0);
  Value widthValue = arith::ConstantIndexOp::create(kb, loc, width);
  auto multipleOf = [&](Value v, Value m) {
    return arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq,
                                 arith::RemUIOp::create(kb, loc, v, m), zero);
  };
  Value ok = multipleOf(loops.sizes.back(), widthValue);
  Value sixteen = arith::ConstantIndexOp::create(kb, loc, 16);
  llvm::SetVector<Value> checked;
  for (OpOperand &operand : generic->getOpOperands()) {
    Value value = operand.get();
    if (laneAccess(generic, operand) != LaneAccess::Vector ||
        !checked.insert(value))
      continue;
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(kb, loc, value);
    ok = arith::AndIOp::create(kb, loc, ok, multipleOf(base, sixteen));
    auto metadata = memref::ExtractStridedMetadataOp::create(kb, loc, value);
    ok = arith::AndIOp::create(kb, loc, ok,
                               multipleOf(metadata.getOffset(), widthValue));
    for (Value stride : metadata.getStrides().drop_back())
      ok = arith::AndIOp::create(kb, loc, ok, multipleOf(stride, widthValue));
  }
  return ok;
}

SmallVector<SmallVector<Value>> loadLanes(OpBuilder &b, Location loc,
                                          linalg::GenericOp generic,
                                          ArrayRef<Value> ivs, int64_t width,
                                          MutableArrayRef<IRMapping> laneMaps) {
  unsigned inner = generic.getNumLoops() - 1;
  SmallVector<SmallVector<Value>> laneIvs(width, SmallVector<Value>(ivs));
  for (int64_t k = 1; k < width; ++k)
    laneIvs[k][inner] = arith::AddIOp::create(
        b, loc, ivs[inner], arith::ConstantIndexOp::create(b, loc, k));
  Block &body = generic.getRegion().front();
  for (OpOperand &operand : generic->getOpOperands()) {
    BlockArgument arg = body.getArgument(operand.getOperandNumber());
    Value value = operand.get();
    if (!isa<MemRefType>(value.getType())) {
      for (IRMapping &map : laneMaps)
        map.map(arg, value);
      continue;
    }
    // Outputs the body does not read, and a reduction's accumulator (the
    // caller maps it).
    if (generic.isDpsInit(&operand) &&
        (arg.use_empty() || generic.getNumReductionLoops() != 0))
      continue;
    AffineMap indexing = generic.getMatchingIndexingMap(&operand);
    switch (laneAccess(generic, operand)) {
    case LaneAccess::Vector: {
      auto type = cast<MemRefType>(value.getType());
      Value vector = vector::LoadOp::create(
          b, loc, VectorType::get({width}, type.getElementType()), value,
          applyIndexing(b, loc, indexing, ivs), /*nontemporal=*/false,
          vectorAlignment(type, width));
      for (int64_t k = 0; k < width; ++k)
        laneMaps[k].map(arg, vector::ExtractOp::create(b, loc, vector,
                                                       ArrayRef<int64_t>{k}));
      break;
    }
    case LaneAccess::Invariant: {
      Value element = memref::LoadOp::create(
          b, loc, value, applyIndexing(b, loc, indexing, ivs));
      for (IRMapping &map : laneMaps)
        map.map(arg, element);
      break;
    }
    case LaneAccess::PerLane:
      for (int64_t k = 0; k < width; ++k)
        laneMaps[k].map(arg, memref::LoadOp::create(
                                 b, loc, value,
                                 applyIndexing(b, loc, indexing, laneIvs[k])));
      break;
    }
  }
  return laneIvs;
}

void cloneLanes(OpBuilder &b, linalg::GenericOp generic,
                ArrayRef<SmallVector<Value>> laneIvs,
                MutableArrayRef<IRMapping> laneMaps, Operation *skip) {
  Block &body = generic.getRegion().front();
  // linalg.index (also in nested regions) is the lane's loop index.
  for (auto [k, ivs] : llvm::enumerate(laneIvs))
    for (Operation &bodyOp : body.without_terminator()) {
      if (&bodyOp == skip)
        continue;
      if (auto index = dyn_cast<linalg::IndexOp>(bodyOp)) {
        laneMaps[k].map(index.getResult(), ivs[index.getDim()]);
        continue;
      }
      replaceIndexOps(b.clone(bodyOp, laneMaps[k]), ivs);
    }
}

/// Whether `v` is the integer constant `value`.
static bool isIntConstant(Value v, int64_t value) {
  APInt bits;
  return matchPattern(v, m_ConstantInt(&bits)) && bits == value;
}

/// The f32 value whose bf16 rounding's bits `trunc` yields when that
/// rounding is written out with integer ops as the ONNX lowering writes it
/// (lib/Conversion/ONNXToTensor/Elementwise.cpp, f32ToBF16):
///   bits = bitcast v : f32 to i32, upper = bits >> 16,
///   rounded = (bits + (upper & 1) + 0x7fff) >> 16,
///   trunci(select(cmpf uno v v, upper | 0x40, rounded)) : i16
/// else null.
static Value bf16RoundingSource(arith::TruncIOp trunc) {
  auto select = trunc.getIn().getDefiningOp<arith::SelectOp>();
  auto isNaN =
      select ? select.getCondition().getDefiningOp<arith::CmpFOp>() : nullptr;
  if (!trunc.getType().isInteger(16) || !isNaN ||
      isNaN.getPredicate() != arith::CmpFPredicate::UNO ||
      isNaN.getLhs() != isNaN.getRhs() || !isNaN.getLhs().getType().isF32())
    return {};
  Value v = isNaN.getLhs();
  auto quiet = select.getTrueValue().getDefiningOp<arith::OrIOp>();
  auto rounded = select.getFalseValue().getDefiningOp<arith::ShRUIOp>();
  if (!quiet || !rounded || !isIntConstant(quiet.getRhs(), 0x40) ||
      !isIntConstant(rounded.getRhs(), 16))
    return {};
  auto upper = quiet.getLhs().getDefiningOp<arith::ShRUIOp>();
  auto bits = upper ? upper.getLhs().getDefiningOp<arith::BitcastOp>()
                    : arith::BitcastOp();
  if (!upper || !isIntConstant(upper.getRhs(), 16) || !bits ||
      bits.getIn() != v)
    return {};
  auto sum = rounded.getLhs().getDefiningOp<arith::AddIOp>();
  if (!sum || (sum.getLhs() != bits && sum.getRhs() != bits))
    return {};
  auto bias = (sum.getLhs() == bits ? sum.getRhs() : sum.getLhs())
                  .getDefiningOp<arith::AddIOp>();
  if (!bias)
    return {};
  auto lsb = bias.getLhs().getDefiningOp<arith::AndIOp>();
  Value half = bias.getRhs();
  if (!lsb) {
    lsb = bias.getRhs().getDefiningOp<arith::AndIOp>();
    half = bias.getLhs();
  }
  if (!lsb || !isIntConstant(half, 0x7fff) || lsb.getLhs() != upper ||
      !isIntConstant(lsb.getRhs(), 1))
    return {};
  return v;
}

/// The native form of the bf16 conversion that `op` ends, written out with
/// integer ops, created before `op`; null if `op` ends none:
///   bitcast(rounding bits) : i16 to bf16              -> truncf v
///   bitcast(shli(extui(bitcast x : bf16 to i16), 16)) -> extf x
///   bitcast(shli(extui(rounding bits), 16)) : f32     -> extf(truncf v)
/// (the last: a rounding and an extension whose bf16 bitcasts folded away
/// when fusion joined them).
static Value nativeBF16Conversion(OpBuilder &b, arith::BitcastOp op) {
  Location loc = op.getLoc();
  Type bf16 = b.getBF16Type();
  if (op.getType().isBF16()) {
    auto trunc = op.getIn().getDefiningOp<arith::TruncIOp>();
    Value v = trunc ? bf16RoundingSource(trunc) : Value();
    return v ? Value(arith::TruncFOp::create(b, loc, bf16, v)) : Value();
  }
  if (!op.getType().isF32())
    return {};
  auto shl = op.getIn().getDefiningOp<arith::ShLIOp>();
  auto ext = shl ? shl.getLhs().getDefiningOp<arith::ExtUIOp>() : nullptr;
  if (!ext || !isIntConstant(shl.getRhs(), 16) ||
      !ext.getType().isInteger(32) || !ext.getIn().getType().isInteger(16))
    return {};
  Value x;
  if (auto bits = ext.getIn().getDefiningOp<arith::BitcastOp>();
      bits && bits.getIn().getType().isBF16())
    x = bits.getIn();
  else if (auto trunc = ext.getIn().getDefiningOp<arith::TruncIOp>())
    if (Value v = bf16RoundingSource(trunc))
      x = arith::TruncFOp::create(b, loc, bf16, v);
  return x ? Value(arith::ExtFOp::create(b, loc, op.getType(), x)) : Value();
}

void useNativeBF16Conversions(gpu::GPUFuncOp kernel) {
  SmallVector<arith::BitcastOp> casts;
  kernel.walk([&](arith::BitcastOp op) { casts.push_back(op); });
  for (arith::BitcastOp op : casts) {
    OpBuilder b(op);
    Value native = nativeBF16Conversion(b, op);
    if (!native)
      continue;
    op.replaceAllUsesWith(native);
    op.erase();
  }
  // The integer ops left unused go with the kernels' canonicalization.
}

void replaceIndexOps(Operation *root, ArrayRef<Value> ivs) {
  SmallVector<linalg::IndexOp> indexOps;
  root->walk([&](linalg::IndexOp index) { indexOps.push_back(index); });
  for (linalg::IndexOp index : indexOps) {
    index.replaceAllUsesWith(ivs[index.getDim()]);
    index.erase();
  }
}

void markCUDAModule(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(ctx));
  // `device cuda`: the runtime creates the session's CUDA device.
  metadata::appendOnce(module, metadata::deviceLine(ONYX_METADATA_DEVICE_CUDA));
}

KernelBuilder::KernelBuilder(ModuleOp module, StringRef chip, int64_t blockSize)
    : module(module), chip(chip.str()), blockSize(blockSize) {
  // Kernels are numbered across passes: continue after the last one.
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
    StringRef name = gpuModule.getSymName();
    size_t at = name.rfind("_dispatch_");
    unsigned index;
    if (at != StringRef::npos &&
        !name.drop_front(at + strlen("_dispatch_")).getAsInteger(10, index))
      nextKernel = std::max(nextKernel, index + 1);
  }
}

void KernelBuilder::startFunction() {
  dimCache.clear();
  uploads.clear();
}

Value KernelBuilder::resolveDim(OpBuilder &b, Operation *anchor, Value buffer,
                                int64_t d) {
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

Value KernelBuilder::existingDeviceCopy(Value buffer) {
  auto found = uploads.find(buffer);
  if (found != uploads.end())
    return found->second;
  Operation *def = buffer.getDefiningOp();
  if (!def)
    return {};
  Value copy;
  if (auto view = dyn_cast<ViewLikeOpInterface>(def);
      view && isa<memref::SubViewOp, memref::CastOp, memref::ExpandShapeOp,
                  memref::CollapseShapeOp, memref::ReinterpretCastOp>(def)) {
    // The same view of the source's copy, right after the view.
    Value source = existingDeviceCopy(view.getViewSource());
    Operation *next = def->getNextNode();
    if (!source || !next ||
        !OperationEquivalence::isEquivalentTo(
            def, next,
            [&](Value mine, Value theirs) {
              return success(theirs ==
                             (mine == view.getViewSource() ? source : mine));
            },
            /*markEquivalent=*/nullptr,
            OperationEquivalence::Flags::IgnoreLocations))
      return {};
    copy = next->getResult(0);
  } else {
    // alloc_temp right after the definition, filled by the memcpy after it.
    auto temp = dyn_cast_or_null<AllocTempOp>(def->getNextNode());
    auto memcpy = temp ? dyn_cast_or_null<gpu::MemcpyOp>(temp->getNextNode())
                       : gpu::MemcpyOp();
    if (!memcpy || !memcpy->hasAttr(kSessionConstantAttr) ||
        memcpy.getDst() != temp.getResult() || memcpy.getSrc() != buffer)
      return {};
    copy = temp.getResult();
  }
  uploads[buffer] = copy;
  return copy;
}

FailureOr<Value> KernelBuilder::deviceCopyOf(Value buffer, Operation *user) {
  if (Value existing = existingDeviceCopy(buffer))
    return existing;
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
  copy->setAttr(kSessionConstantAttr, b.getUnitAttr());
  uploads[buffer] = temp;
  return Value(temp);
}

LogicalResult KernelBuilder::collectInterface(
    OpBuilder &hb, Operation *op, DispatchInterface &iface,
    function_ref<bool(Value)> isDeviceValue, Value extra) {
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
    if (def && isDeviceValue(value)) {
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

IRMapping KernelBuilder::bindInterface(OpBuilder &kb, gpu::GPUFuncOp kernel,
                                       Location loc,
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
      sizes.push_back(type.isDynamicDim(d)
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

gpu::GPUFuncOp KernelBuilder::createKernel(
    func::FuncOp func, Location loc, const DispatchInterface &iface,
    int64_t threads, function_ref<void(OpBuilder &, gpu::GPUFuncOp)> build) {
  MLIRContext *ctx = module.getContext();
  SmallVector<Type> argTypes;
  for (Value base : iface.bases)
    argTypes.push_back(base.getType());
  argTypes.append(iface.scalars.size(), IntegerType::get(ctx, 64));
  std::string name =
      (func.getSymName() + "_dispatch_" + std::to_string(nextKernel++)).str();
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
  return kernel;
}

SmallVector<Value>
KernelBuilder::hostArguments(OpBuilder &hb, Location loc,
                             const DispatchInterface &iface) {
  SmallVector<Value> args(iface.bases.begin(), iface.bases.end());
  for (Value scalar : iface.scalars)
    args.push_back(toI64(hb, loc, scalar));
  return args;
}

Value KernelBuilder::gridBlocks(OpBuilder &b, Location loc, Value threads) {
  Value roundedUp = arith::AddIOp::create(
      b, loc, threads, arith::ConstantIndexOp::create(b, loc, blockSize - 1));
  return arith::MinUIOp::create(
      b, loc,
      arith::DivUIOp::create(b, loc, roundedUp,
                             arith::ConstantIndexOp::create(b, loc, blockSize)),
      arith::ConstantIndexOp::create(b, loc, kMaxGridBlocks));
}

void KernelBuilder::launchKernel(OpBuilder &b, Location loc,
                                 gpu::GPUFuncOp kernel, Value blocks,
                                 Value block, ValueRange args) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto launch = gpu::LaunchFuncOp::create(
      b, loc, kernel, gpu::KernelDim3{blocks, one, one},
      gpu::KernelDim3{block, one, one}, Value(), args);
  std::string node = nodeNameOf(loc);
  if (!node.empty())
    launch->setAttr(kNodeAttr, b.getStringAttr(node));
}

} // namespace onyx::cuda
