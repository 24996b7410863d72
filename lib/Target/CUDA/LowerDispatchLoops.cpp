//===- LowerDispatchLoops.cpp - Dispatch kernels as grid-stride loops -----===//
//
// The op of each dispatch kernel (onyx-cuda-outline-dispatches) that no
// earlier pass lowered becomes a grid-stride loop over its linearized
// parallel iteration space: each thread owns the output elements of its
// points and walks the reduction dims (if any) serially, in iteration order.
//
//   scf.for %i = %thread to %total step %threads {    // parallel points
//     %d1 = %i mod n1, %d0 = %i / n1                    // delinearized
//     scf.for %k = 0 to nk { ...loads, body, stores }   // reduction dims
//   }
//
// The delinearization divides in 32 bits when the parallel space has under
// 2^31 points (a 64-bit division is a long subroutine on the GPU, and
// elementwise kernels over a dynamic dim spent most of their time there):
// statically, or else behind `scf.if %total <= 2^31 - 1` with the 64-bit
// loop in the else branch.
//
// An all-parallel op whose outputs are contiguous along the innermost loop
// (dispatchVectorWidth, KernelBuilder.h) handles W consecutive points per
// thread and iteration: W = 16 bytes of its narrowest contiguous element
// type (8 f16/bf16, 4 f32), each operand contiguous along the innermost
// loop read with one 16-byte `vector.load`, an operand that does not
// depend on it (a LayerNorm's row statistics) read once, any other (a
// transposed read, i1) read per point, the body cloned once per point (its
// f16/bf16 arithmetic is f32 inside already), and each output written with
// one `vector.store`:
//
//   scf.if %aligned {                                   // checked per kernel
//     scf.for %g = %thread to %total / W step %threads {
//       %i = %g * W, delinearized; W loads -> W bodies -> one store
//     }
//   } else { the scalar loop above }
//
// %aligned: the innermost size is a multiple of W and every vector
// operand's base is 16-byte aligned, its offset and outer strides multiples
// of W (pool offsets are 256-byte aligned; views and callers' buffers may
// not be). The host launches a thread per W points; the scalar fallback's
// grid-stride loop covers every point with those threads too.
//
// Last, in every kernel, the bf16 <-> f32 conversions the ONNX lowering
// writes out with integer ops (11 for a rounding, 4 for an extension;
// the host has no bf16 conversion routine) become arith.truncf / extf: one
// `cvt.rn.bf16.f32` on the GPU, the same round-to-nearest-even result for
// every non-NaN value (a NaN stays a NaN, its payload not kept). A fused
// bf16 GELU spent most of its time in those integer ops. Then a half
// division by a constant becomes a multiplication by its reciprocal where
// that is bit for bit the same for every half value (checked exhaustively
// at compile time: HalfDivision.cpp): BERT's erf-GELU divides by sqrt(2).
//
// A kernel with no parallel dims whose every result folds an integer with
// an associative, commutative combiner (`yield minsi(out, v)`, maxsi,
// minui, maxui, addi, ori, andi, xori: the Gather lowering's index range
// check, min and max of all indices) does not walk its reduction space on
// one thread: each thread of the launch (one block) folds every 256th point
// into registers from the combiner's identity and combines its partial
// result into the output with `memref.atomic_rmw`. Integer folds are exact
// in any order. Only i32 and i64 outputs (atomicrmw takes no i1).
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "onyx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

#include <limits>

namespace onyx {
#define GEN_PASS_DEF_CUDALOWERDISPATCHLOOPS
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;
using namespace onyx::cuda;

namespace {

/// `linear` (below 2^31) as the indices of `dims`, innermost fastest, with
/// 32-bit divisions.
void delinearize32(OpBuilder &b, Location loc, Value linear,
                   ArrayRef<int64_t> dims, ArrayRef<Value> loopSizes,
                   SmallVectorImpl<Value> &ivs) {
  Type i32 = b.getI32Type(), index = b.getIndexType();
  Value rest = arith::IndexCastUIOp::create(b, loc, i32, linear);
  for (int64_t k = int64_t(dims.size()) - 1; k >= 0; --k) {
    int64_t d = dims[k];
    if (k == 0) {
      ivs[d] = arith::IndexCastUIOp::create(b, loc, index, rest);
      break;
    }
    Value size = arith::IndexCastUIOp::create(b, loc, i32, loopSizes[d]);
    ivs[d] = arith::IndexCastUIOp::create(
        b, loc, index, arith::RemUIOp::create(b, loc, rest, size));
    rest = arith::DivUIOp::create(b, loc, rest, size);
  }
}

/// The grid-stride loop over `total` parallel points of `generic` (in a
/// kernel), built at `kb`; `narrow`: delinearized in 32 bits.
void buildDispatchLoop(OpBuilder &kb, linalg::GenericOp generic,
                       const DispatchLoops &loops, Value total, bool narrow) {
  Location loc = generic.getLoc();
  ArrayRef<Value> loopSizes = loops.sizes;
  auto [start, step] = gridStride(kb, loc);
  auto loop = scf::ForOp::create(kb, loc, start, total, step);

  OpBuilder lb(loop.getBody()->getTerminator());
  SmallVector<Value> ivs(loopSizes.size());
  if (narrow)
    delinearize32(lb, loc, loop.getInductionVar(), loops.parallelDims,
                  loopSizes, ivs);
  else
    delinearize(lb, loc, loop.getInductionVar(), loops.parallelDims, loopSizes,
                ivs);
  // Reduction dims: serial loops, in iteration order.
  for (int64_t d : loops.reductionDims) {
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
  replaceIndexOps(loop, ivs);
}

/// The vectorized grid-stride loop over `total` parallel points of the
/// all-parallel `generic` (in a kernel), `width` (W) consecutive points of
/// the innermost loop per iteration, built at `kb`: Vector operands are read
/// and outputs written with one W-element vector access each, Invariant
/// operands read once, PerLane operands read per point; the body is cloned
/// once per point (lane). Needs the conditions vectorAccessConditions
/// checks.
void buildVectorLoop(OpBuilder &kb, linalg::GenericOp generic,
                     const DispatchLoops &loops, Value total, bool narrow,
                     int64_t width) {
  Location loc = generic.getLoc();
  ArrayRef<Value> loopSizes = loops.sizes;
  Value widthValue = arith::ConstantIndexOp::create(kb, loc, width);
  Value groups = arith::DivUIOp::create(kb, loc, total, widthValue);
  auto [start, step] = gridStride(kb, loc);
  auto loop = scf::ForOp::create(kb, loc, start, groups, step);

  OpBuilder lb(loop.getBody()->getTerminator());
  Value first =
      arith::MulIOp::create(lb, loc, loop.getInductionVar(), widthValue);
  SmallVector<Value> ivs(loopSizes.size());
  if (narrow)
    delinearize32(lb, loc, first, loops.parallelDims, loopSizes, ivs);
  else
    delinearize(lb, loc, first, loops.parallelDims, loopSizes, ivs);
  SmallVector<IRMapping> laneMaps(width);
  SmallVector<SmallVector<Value>> laneIvs =
      loadLanes(lb, loc, generic, ivs, width, laneMaps);
  cloneLanes(lb, generic, laneIvs, laneMaps);
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  for (OpOperand &init : generic.getDpsInitsMutable()) {
    unsigned i = init.getOperandNumber() - generic.getNumDpsInputs();
    SmallVector<Value> lanes;
    for (IRMapping &map : laneMaps)
      lanes.push_back(map.lookupOrDefault(yield.getOperand(i)));
    auto type = cast<MemRefType>(init.get().getType());
    Value vector = vector::FromElementsOp::create(
        lb, loc, VectorType::get({width}, type.getElementType()), lanes);
    vector::StoreOp::create(
        lb, loc, vector, init.get(),
        applyIndexing(lb, loc, generic.getMatchingIndexingMap(&init), ivs),
        /*nontemporal=*/false, vectorAlignment(type, width));
  }
}

/// The atomic kind of an integer combiner `op` of a reduction body.
std::optional<arith::AtomicRMWKind> integerFoldKind(Operation *op) {
  using K = arith::AtomicRMWKind;
  if (isa<arith::MinSIOp>(op))
    return K::mins;
  if (isa<arith::MaxSIOp>(op))
    return K::maxs;
  if (isa<arith::MinUIOp>(op))
    return K::minu;
  if (isa<arith::MaxUIOp>(op))
    return K::maxu;
  if (isa<arith::AddIOp>(op))
    return K::addi;
  if (isa<arith::OrIOp>(op))
    return K::ori;
  if (isa<arith::AndIOp>(op))
    return K::andi;
  if (isa<arith::XOrIOp>(op))
    return K::xori;
  return std::nullopt;
}

/// A reduction over every loop (no parallel dims) whose result j is
/// `combiner_j(out_j, v_j)`, out_j and the combiner's result used nowhere
/// else, into an integer buffer indexed by constants: one partial fold per
/// thread, combined into the output atomically. False (nothing built) when
/// `generic` is not of that form.
bool buildAtomicReduction(OpBuilder &kb, linalg::GenericOp generic,
                          const DispatchLoops &loops) {
  if (!loops.parallelDims.empty() || loops.reductionDims.empty() ||
      generic.getNumDpsInits() == 0)
    return false;
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  SmallVector<arith::AtomicRMWKind> kinds;
  SmallVector<Value> folded; // v_j
  for (OpOperand &init : generic.getDpsInitsMutable()) {
    unsigned j = init.getOperandNumber() - generic.getNumDpsInputs();
    auto type = dyn_cast<MemRefType>(init.get().getType());
    // 32- and 64-bit integers only: LLVM's atomicrmw takes no i1 (the
    // bool folds of NLLLoss/SCE's checks) and the GPU's atomics are 32/64.
    if (!type || !(type.getElementType().isSignlessInteger(32) ||
                   type.getElementType().isSignlessInteger(64)))
      return false;
    for (AffineExpr expr : generic.getMatchingIndexingMap(&init).getResults())
      if (!isa<AffineConstantExpr>(expr))
        return false;
    BlockArgument out = body.getArgument(init.getOperandNumber());
    Operation *combiner = yield.getOperand(j).getDefiningOp();
    std::optional<arith::AtomicRMWKind> kind =
        combiner ? integerFoldKind(combiner) : std::nullopt;
    if (!kind || combiner->getBlock() != &body || !out.hasOneUse() ||
        *out.getUsers().begin() != combiner ||
        !combiner->getResult(0).hasOneUse() ||
        combiner->getOperand(0) == combiner->getOperand(1))
      return false;
    kinds.push_back(*kind);
    folded.push_back(combiner->getOperand(0) == out ? combiner->getOperand(1)
                                                    : combiner->getOperand(0));
  }

  Location loc = generic.getLoc();
  ArrayRef<Value> loopSizes = loops.sizes;
  Value total = arith::ConstantIndexOp::create(kb, loc, 1);
  for (int64_t d : loops.reductionDims)
    total = arith::MulIOp::create(kb, loc, total, loopSizes[d]);
  SmallVector<Value> identities;
  for (auto [kind, init] : llvm::zip(kinds, generic.getDpsInits()))
    identities.push_back(arith::getIdentityValue(
        kind, cast<MemRefType>(init.getType()).getElementType(), kb, loc));
  auto [start, step] = gridStride(kb, loc);
  SmallVector<Value> ivs(loopSizes.size());
  auto loop = scf::ForOp::create(
      kb, loc, start, total, step, identities,
      [&](OpBuilder &lb, Location l, Value iv, ValueRange partial) {
        delinearize(lb, l, iv, loops.reductionDims, loopSizes, ivs);
        IRMapping bodyMap;
        for (OpOperand *input : generic.getDpsInputOperands()) {
          BlockArgument arg = body.getArgument(input->getOperandNumber());
          Value value = input->get();
          if (!isa<MemRefType>(value.getType())) {
            bodyMap.map(arg, value);
            continue;
          }
          bodyMap.map(
              arg, memref::LoadOp::create(
                       lb, l, value,
                       applyIndexing(
                           lb, l, generic.getMatchingIndexingMap(input), ivs)));
        }
        for (auto [j, init] : llvm::enumerate(generic.getDpsInitsMutable()))
          bodyMap.map(body.getArgument(init.getOperandNumber()), partial[j]);
        for (Operation &bodyOp : body.without_terminator())
          lb.clone(bodyOp, bodyMap);
        SmallVector<Value> next;
        for (Value y : yield.getOperands())
          next.push_back(bodyMap.lookup(y));
        scf::YieldOp::create(lb, l, next);
      });
  replaceIndexOps(loop, ivs);
  for (auto [j, init] : llvm::enumerate(generic.getDpsInitsMutable())) {
    SmallVector<Value> indices =
        applyIndexing(kb, loc, generic.getMatchingIndexingMap(&init), ivs);
    memref::AtomicRMWOp::create(kb, loc, kinds[j], loop.getResult(j),
                                init.get(), indices);
  }
  return true;
}

/// The grid-stride loop over `total` parallel points, vectorized by
/// `width` or scalar (width 1), with 32-bit delinearization where the
/// points fit.
void buildLoop(OpBuilder &kb, linalg::GenericOp generic,
               const DispatchLoops &loops, Value total, int64_t width) {
  Location loc = generic.getLoc();
  auto build = [&](OpBuilder &b, bool narrow) {
    if (width > 1)
      buildVectorLoop(b, generic, loops, total, narrow, width);
    else
      buildDispatchLoop(b, generic, loops, total, narrow);
  };
  constexpr int64_t narrowLimit = std::numeric_limits<int32_t>::max();
  // One parallel dim: nothing to divide.
  if (loops.parallelDims.size() < 2)
    return build(kb, /*narrow=*/false);
  if (std::optional<int64_t> known = getConstantIntValue(total))
    return build(kb, *known <= narrowLimit);
  Value fits = arith::CmpIOp::create(
      kb, loc, arith::CmpIPredicate::ule, total,
      arith::ConstantIndexOp::create(kb, loc, narrowLimit));
  auto branch = scf::IfOp::create(kb, loc, fits, /*withElseRegion=*/true);
  OpBuilder tb = branch.getThenBodyBuilder();
  build(tb, /*narrow=*/true);
  OpBuilder eb = branch.getElseBodyBuilder();
  build(eb, /*narrow=*/false);
}

/// The loop nest of `generic` (in a kernel), built at `kb`.
void buildDispatchLoops(OpBuilder &kb, linalg::GenericOp generic,
                        const DispatchLoops &loops) {
  if (buildAtomicReduction(kb, generic, loops))
    return;
  Location loc = generic.getLoc();
  Value total = arith::ConstantIndexOp::create(kb, loc, 1);
  for (int64_t d : loops.parallelDims)
    total = arith::MulIOp::create(kb, loc, total, loops.sizes[d]);
  int64_t width = dispatchVectorWidth(generic);
  if (width == 1)
    return buildLoop(kb, generic, loops, total, 1);
  // The vector loop where its run-time conditions hold, else the scalar one
  // (the host launched a thread per W points; the grid-stride loop covers
  // every point either way).
  Value ok = vectorAccessConditions(kb, generic, loops, width);
  auto branch = scf::IfOp::create(kb, loc, ok, /*withElseRegion=*/true);
  OpBuilder tb = branch.getThenBodyBuilder();
  buildLoop(tb, generic, loops, total, width);
  OpBuilder eb = branch.getElseBodyBuilder();
  buildLoop(eb, generic, loops, total, 1);
}

struct CUDALowerDispatchLoopsPass
    : public onyx::impl::CUDALowerDispatchLoopsBase<
          CUDALowerDispatchLoopsPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::GPUFuncOp kernel) {
      linalg::GenericOp generic = dispatchRoot(kernel);
      if (!generic)
        return;
      OpBuilder kb(generic->getContext());
      kb.setInsertionPointAfter(generic);
      DispatchLoops loops = dispatchLoops(kb, generic);
      buildDispatchLoops(kb, generic, loops);
      generic.erase();
      foldBindingDims(kernel);
    });
    // Every kernel (dispatches, reductions, serial kernels): native bf16
    // conversions (useNativeBF16Conversions), then half divisions by
    // constants as multiplications where the results are the same
    // (divideHalfByReciprocals).
    getOperation().walk([](gpu::GPUFuncOp kernel) {
      useNativeBF16Conversions(kernel);
      divideHalfByReciprocals(kernel);
    });
  }
};

} // namespace
