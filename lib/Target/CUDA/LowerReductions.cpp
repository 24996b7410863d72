//===- LowerReductions.cpp - Warp reductions in dispatch kernels ----------===//
//
// The op of a dispatch kernel (onyx-cuda-outline-dispatches) that
// warpReductionCombiner accepts becomes one warp per output element: a
// grid-stride loop over the output elements by warp (the host launched 32
// threads per output element), each lane folding every 32nd point of the
// linearized reduction space into a register starting from the combiner's
// identity, a `gpu.shuffle xor` butterfly across the warp, and lane 0
// combining the result into the output element (or, when the outliner
// absorbed a constant fill, into that constant: `onyx.reduction_init`).
// f32 sums accumulate in f64.
//
// A reduction over the innermost loop alone (LayerNorm's and Softmax's
// statistics over the last axis) whose inputs are read contiguously along
// it folds W consecutive points per lane step (reductionVectorWidth: 8
// f16/bf16, 4 f32), each Vector input read with one 16-byte load and the
// body cloned per point, when the accesses are aligned
// (vectorAccessConditions, checked once per kernel); the scalar fold
// otherwise. A lane then issues one wide load per input instead of W
// dependent narrow ones. The other dispatch kernels are left to
// onyx-cuda-lower-dispatch-loops.
//
//===----------------------------------------------------------------------===//

#include "WarpReductions.h"

#include "DeviceData.h"
#include "KernelBuilder.h"

#include "onyx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace onyx {
#define GEN_PASS_DEF_CUDALOWERREDUCTIONS
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;
using namespace onyx::cuda;

namespace onyx::cuda {

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

} // namespace onyx::cuda

namespace {

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
  return arith::BitcastOp::create(b, loc, value.getType(),
                                  arith::OrIOp::create(b, loc, loBits, hiBits));
}

/// One warp per output element (warpReductionCombiner): a grid-stride
/// loop over the output elements by warp, each lane folding every 32nd
/// point of the linearized reduction space into a register, a shuffle
/// butterfly across the warp, and lane 0 combining into the output.
void buildWarpReduction(OpBuilder &kb, Location loc, linalg::GenericOp generic,
                        Operation *combiner, const DispatchLoops &loops) {
  ArrayRef<Value> loopSizes = loops.sizes;
  ArrayRef<int64_t> parallelDims = loops.parallelDims;
  ArrayRef<int64_t> reductionDims = loops.reductionDims;
  // Vectorized lanes (reductionVectorWidth) when the accesses are aligned:
  // checked once per kernel.
  int64_t width = reductionVectorWidth(generic);
  Value vectorOk =
      width > 1 ? vectorAccessConditions(kb, generic, loops, width) : Value();
  Type identityType =
      isa<arith::AddFOp>(combiner) && combiner->getResult(0).getType().isF32()
          ? Type(kb.getF64Type())
          : combiner->getResult(0).getType();
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
  Block &body = generic.getRegion().front();
  BlockArgument out = body.getArgument(body.getNumArguments() - 1);
  Value term = combiner->getOperand(0) == out ? combiner->getOperand(1)
                                              : combiner->getOperand(0);
  // This lane's fold, `width` consecutive points per step (reading the
  // Vector inputs with one vector access each) or one.
  auto fold = [&](OpBuilder &fb, int64_t width) -> Value {
    Value identity = widen ? Value(arith::ConstantFloatOp::create(
                                 fb, loc, fb.getF64Type(), APFloat(0.0)))
                           : combinerIdentity(fb, loc, combiner);
    Value lanes = arith::ConstantIndexOp::create(fb, loc, kWarpSize * width);
    Value first = arith::MulIOp::create(
        fb, loc, lane, arith::ConstantIndexOp::create(fb, loc, width));
    auto inner = scf::ForOp::create(fb, loc, first, reduced, lanes,
                                    ValueRange{identity});
    OpBuilder ib = OpBuilder::atBlockBegin(inner.getBody());
    Value acc = inner.getRegionIterArgs()[0];
    auto accumulate = [&](Value value) {
      if (widen)
        value = arith::ExtFOp::create(ib, loc, ib.getF64Type(), value);
      acc = combine(ib, loc, combiner, acc, value);
    };
    if (width > 1) {
      // One reduction dim, the innermost loop (reductionVectorWidth).
      SmallVector<Value> laneIvs0(ivs);
      laneIvs0[reductionDims.front()] = inner.getInductionVar();
      SmallVector<IRMapping> laneMaps(width);
      SmallVector<SmallVector<Value>> laneIvs =
          loadLanes(ib, loc, generic, laneIvs0, width, laneMaps);
      cloneLanes(ib, generic, laneIvs, laneMaps, combiner);
      for (IRMapping &map : laneMaps)
        accumulate(map.lookupOrDefault(term));
      scf::YieldOp::create(ib, loc, acc);
      return inner.getResult(0);
    }
    delinearize(ib, loc, inner.getInductionVar(), reductionDims, loopSizes,
                ivs);
    IRMapping bodyMap;
    for (OpOperand *operand : generic.getDpsInputOperands()) {
      BlockArgument arg = body.getArgument(operand->getOperandNumber());
      Value value = operand->get();
      if (!isa<MemRefType>(value.getType())) {
        bodyMap.map(arg, value);
        continue;
      }
      bodyMap.map(
          arg, memref::LoadOp::create(
                   ib, loc, value,
                   applyIndexing(
                       ib, loc, generic.getMatchingIndexingMap(operand), ivs)));
    }
    for (Operation &bodyOp : body.without_terminator())
      if (&bodyOp != combiner)
        ib.clone(bodyOp, bodyMap);
    accumulate(bodyMap.lookupOrDefault(term));
    scf::YieldOp::create(ib, loc, acc);
    return inner.getResult(0);
  };
  Value acc;
  if (vectorOk) {
    // The vector fold where the accesses are aligned, else the scalar one
    // (built last: the linalg.index ops left are replaced by its indices).
    auto branch = scf::IfOp::create(ob, loc, TypeRange{identityType}, vectorOk,
                                    /*withElseRegion=*/true);
    OpBuilder tb = branch.getThenBodyBuilder();
    scf::YieldOp::create(tb, loc, fold(tb, width));
    OpBuilder eb = branch.getElseBodyBuilder();
    scf::YieldOp::create(eb, loc, fold(eb, 1));
    acc = branch.getResult(0);
  } else {
    acc = fold(ob, 1);
  }
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
  replaceIndexOps(outer, ivs);
}

struct CUDALowerReductionsPass
    : public onyx::impl::CUDALowerReductionsBase<CUDALowerReductionsPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::GPUFuncOp kernel) {
      linalg::GenericOp generic = dispatchRoot(kernel);
      Operation *combiner = generic ? warpReductionCombiner(generic) : nullptr;
      if (!combiner)
        return;
      OpBuilder kb(generic->getContext());
      kb.setInsertionPointAfter(generic);
      DispatchLoops loops = dispatchLoops(kb, generic);
      buildWarpReduction(kb, generic.getLoc(), generic, combiner, loops);
      generic.erase();
      foldBindingDims(kernel);
    });
  }
};

} // namespace
