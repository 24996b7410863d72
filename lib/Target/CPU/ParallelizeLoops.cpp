//===- ParallelizeLoops.cpp - Outer parallel loops on OpenMP threads ------===//
//
// After convert-linalg-to-parallel-loops, every linalg op that was not turned
// into a runtime call is an scf.parallel over its parallel dims with scf.for
// loops (its reduction dims) and possibly further scf.parallel nests inside.
// This pass runs the outermost such loops on the threads of LLVM's OpenMP
// runtime (libomp), the pool the runtime's kernels share:
//
//   %n = func.call @onyxrt_cpu_get_threads() : () -> i32   // once, at entry
//   ...
//   %work = outer trip counts x the body's estimated op count
//   %go = %work > threshold && %n > 1
//   scf.if %go {
//     omp.parallel num_threads(%n : i32) {
//       omp.wsloop {
//         omp.loop_nest (%i, %j) = (...) to (...) step (...) {
//           <body, nested scf.parallel as scf.for>
//           omp.yield
//         }
//       }
//       omp.terminator
//     }
//   } else {
//     <the original loop, serial>
//   }
//
// The serial copy keeps small loops (and --threads 1) free of fork/join and
// of the OpenMP runtime's per-loop calls. The work estimate counts the body's
// ops, each loop's ops times its trip count: computed at run time where the
// bounds are defined outside the outermost loop (dynamic shapes), a fixed
// guess where they depend on the outer induction variables.
//
// Only the outer parallel dims are distributed; a reduction (an scf.for of
// the body) runs whole on one thread, in the serial loop's order, so the
// results are bit-identical to the serial code. When the body holds no loop
// (an elementwise op), the innermost parallel dim stays a serial scf.for in
// each thread, so that LLVM's loop vectorizer still sees a contiguous
// innermost loop; the outer dims are collapsed into one iteration space.
//
// A loop is parallelized only if its body is safe to run on worker threads:
// arith, math, vector, affine index arithmetic, memref loads, stores and
// views, scf control flow. A runtime call, a check, an allocation or any
// other op keeps the loop serial, as does an scf.parallel with reductions.
//
//===----------------------------------------------------------------------===//

#include "onyx/Target/CPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace onyx {
#define GEN_PASS_DEF_CPUPARALLELIZELOOPS
#include "onyx/Target/CPU/Passes.h.inc"
} // namespace onyx

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kGetThreads = "onyxrt_cpu_get_threads";

/// Trip count guessed for a nested loop whose bounds depend on the outer
/// induction variables.
constexpr int64_t kUnknownTrip = 8;

/// Whether `op` (inside a candidate loop) may run on a worker thread.
bool isSafeOp(Operation *op) {
  if (isa<memref::LoadOp, memref::StoreOp, memref::DimOp, memref::SubViewOp,
          memref::CastOp, memref::ReinterpretCastOp, memref::ExpandShapeOp,
          memref::CollapseShapeOp, memref::ExtractStridedMetadataOp,
          memref::ExtractAlignedPointerAsIndexOp>(op))
    return true;
  if (isa<scf::ForOp, scf::IfOp, scf::YieldOp, scf::ReduceOp>(op))
    return true;
  if (auto parallel = dyn_cast<scf::ParallelOp>(op))
    return parallel.getNumResults() == 0;
  if (isa<affine::AffineApplyOp, affine::AffineMinOp, affine::AffineMaxOp>(op))
    return true;
  Dialect *dialect = op->getDialect();
  if (isa_and_nonnull<arith::ArithDialect, math::MathDialect, ub::UBDialect>(
          dialect))
    return true;
  // Vector ops: computation and loads/stores of memref elements only.
  if (isa_and_nonnull<vector::VectorDialect>(dialect))
    return op->getNumRegions() == 0 &&
           !isa<vector::PrintOp, vector::ScalableInsertOp>(op);
  return false;
}

bool isSafeBody(scf::ParallelOp loop) {
  return !loop.getBody()
              ->walk([](Operation *op) {
                return isSafeOp(op) ? WalkResult::advance()
                                    : WalkResult::interrupt();
              })
              .wasInterrupted();
}

bool hasLoops(Block *block) {
  for (Operation &op : *block)
    if (op.walk([](Operation *nested) {
            return isa<scf::ForOp, scf::ParallelOp>(nested)
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          }).wasInterrupted())
      return true;
  return false;
}

/// Builds the work estimate of a loop nest before `root`.
class WorkEstimate {
public:
  WorkEstimate(OpBuilder &builder, Operation *root)
      : builder(builder), root(root), loc(root->getLoc()) {}

  Value constant(int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value);
  }

  /// max(ceil((ub - lb) / step), 0) when the bounds are defined outside the
  /// root, else kUnknownTrip.
  Value tripCount(Value lb, Value ub, Value step) {
    if (!isOutside(lb) || !isOutside(ub) || !isOutside(step))
      return constant(kUnknownTrip);
    Value diff = builder.createOrFold<arith::SubIOp>(loc, ub, lb);
    diff = builder.createOrFold<arith::MaxSIOp>(loc, diff, constant(0));
    if (matchPattern(step, m_One()))
      return diff;
    // (diff + step - 1) / step; scf steps are positive.
    Value rounded = builder.createOrFold<arith::AddIOp>(
        loc, diff, builder.createOrFold<arith::SubIOp>(loc, step, constant(1)));
    return builder.createOrFold<arith::DivUIOp>(loc, rounded, step);
  }

  Value trips(ValueRange lbs, ValueRange ubs, ValueRange steps) {
    Value total = constant(1);
    for (auto [lb, ub, step] : llvm::zip_equal(lbs, ubs, steps))
      total = builder.createOrFold<arith::MulIOp>(loc, total,
                                                  tripCount(lb, ub, step));
    return total;
  }

  /// The ops of `block`, each loop's body counted trip-count times.
  Value blockCost(Block &block) {
    int64_t plain = 0;
    Value sum = constant(0);
    for (Operation &op : block.without_terminator()) {
      Value nested;
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        nested = builder.createOrFold<arith::MulIOp>(
            loc,
            tripCount(loop.getLowerBound(), loop.getUpperBound(),
                      loop.getStep()),
            blockCost(*loop.getBody()));
      } else if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
        nested = builder.createOrFold<arith::MulIOp>(
            loc,
            trips(loop.getLowerBound(), loop.getUpperBound(), loop.getStep()),
            blockCost(*loop.getBody()));
      } else {
        ++plain;
        for (Region &region : op.getRegions())
          for (Block &nestedBlock : region)
            sum = builder.createOrFold<arith::AddIOp>(loc, sum,
                                                      blockCost(nestedBlock));
        continue;
      }
      sum = builder.createOrFold<arith::AddIOp>(loc, sum, nested);
    }
    return builder.createOrFold<arith::AddIOp>(loc, sum, constant(plain));
  }

private:
  bool isOutside(Value value) {
    Region *region = value.getParentRegion();
    return !region || !root->isAncestor(region->getParentOp());
  }

  OpBuilder &builder;
  Operation *root;
  Location loc;
};

/// Replaces `loop` (no results) by nested scf.for loops.
void convertToFors(RewriterBase &rewriter, scf::ParallelOp loop) {
  rewriter.setInsertionPoint(loop);
  Block *inner = nullptr;
  SmallVector<Value> ivs;
  scf::buildLoopNest(rewriter, loop.getLoc(), loop.getLowerBound(),
                     loop.getUpperBound(), loop.getStep(),
                     [&](OpBuilder &builder, Location, ValueRange loopIvs) {
                       inner = builder.getInsertionBlock();
                       ivs.assign(loopIvs.begin(), loopIvs.end());
                     });
  Block *body = loop.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, inner->getTerminator(), ivs);
  rewriter.eraseOp(loop);
}

struct CPUParallelizeLoopsPass
    : public onyx::impl::CPUParallelizeLoopsBase<CPUParallelizeLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The outermost scf.parallel loops that are safe to distribute.
    SmallVector<scf::ParallelOp> candidates;
    module->walk<WalkOrder::PreOrder>([&](Operation *op) {
      auto loop = dyn_cast<scf::ParallelOp>(op);
      if (!loop)
        return WalkResult::advance();
      if (loop.getNumResults() == 0 && isSafeBody(loop) &&
          isa<func::FuncOp>(
              loop->getParentWithTrait<OpTrait::IsIsolatedFromAbove>()))
        candidates.push_back(loop);
      // Nested parallel loops stay serial either way.
      return WalkResult::skip();
    });
    if (candidates.empty())
      return;

    OpBuilder builder(module.getContext());
    IRRewriter rewriter(module.getContext());
    auto i32 = builder.getI32Type();
    auto calleeType = builder.getFunctionType({}, {i32});
    if (auto existing = module.lookupSymbol<func::FuncOp>(kGetThreads)) {
      if (existing.getFunctionType() != calleeType) {
        existing.emitError()
            << "'" << kGetThreads << "' is declared with type "
            << existing.getFunctionType() << ", expected " << calleeType;
        return signalPassFailure();
      }
    } else {
      builder.setInsertionPointToStart(module.getBody());
      auto decl = func::FuncOp::create(builder, module.getLoc(), kGetThreads,
                                       calleeType);
      decl.setPrivate();
    }

    // One call per function, at its entry.
    llvm::DenseMap<Operation *, Value> threadsOf;
    for (scf::ParallelOp loop : candidates) {
      auto func = loop->getParentOfType<func::FuncOp>();
      Value &threads = threadsOf[func];
      if (!threads) {
        builder.setInsertionPointToStart(&func.getBody().front());
        threads = func::CallOp::create(builder, loop.getLoc(), kGetThreads,
                                       TypeRange{i32}, ValueRange())
                      .getResult(0);
      }
      parallelize(rewriter, loop, threads);
    }
  }

  void parallelize(IRRewriter &rewriter, scf::ParallelOp loop, Value threads) {
    Location loc = loop.getLoc();
    rewriter.setInsertionPoint(loop);
    WorkEstimate estimate(rewriter, loop);
    // Distributed dims: all, or all but the innermost when the body is
    // straight-line code (the innermost stays a vectorizable loop).
    unsigned numDims = loop.getNumLoops();
    unsigned distributed =
        numDims > 1 && !hasLoops(loop.getBody()) ? numDims - 1 : numDims;
    // A single distributed iteration (a batch of 1, a [1, N] tensor) gives
    // the other threads nothing: such a loop stays serial (the estimate's
    // constants are left to the canonicalizer).
    Value rows = rewriter.createOrFold<arith::CmpIOp>(
        loc, arith::CmpIPredicate::sgt,
        estimate.trips(loop.getLowerBound().take_front(distributed),
                       loop.getUpperBound().take_front(distributed),
                       loop.getStep().take_front(distributed)),
        estimate.constant(1));
    if (matchPattern(rows, m_Zero()))
      return;
    Value work = rewriter.createOrFold<arith::MulIOp>(
        loc,
        estimate.trips(loop.getLowerBound(), loop.getUpperBound(),
                       loop.getStep()),
        estimate.blockCost(*loop.getBody()));
    Value big = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt,
                                      work, estimate.constant(threshold));
    Value one = arith::ConstantIntOp::create(rewriter, loc, 1, 32);
    Value several = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::sgt, threads, one);
    Value go = arith::AndIOp::create(rewriter, loc, big, several);
    if (!matchPattern(rows, m_One()))
      go = arith::AndIOp::create(rewriter, loc, go, rows);
    auto branch = scf::IfOp::create(rewriter, loc, go, /*withElse=*/true);

    // The serial copy.
    rewriter.setInsertionPoint(branch.elseBlock()->getTerminator());
    rewriter.clone(*loop);

    // Nested parallel loops run serially in each thread.
    SmallVector<scf::ParallelOp> nested;
    loop.getBody()->walk(
        [&](scf::ParallelOp inner) { nested.push_back(inner); });
    for (scf::ParallelOp inner : llvm::reverse(nested))
      convertToFors(rewriter, inner);

    rewriter.setInsertionPoint(branch.thenBlock()->getTerminator());
    omp::ParallelOperands parallelClauses;
    parallelClauses.numThreads = threads;
    auto parallel = omp::ParallelOp::create(rewriter, loc, parallelClauses);
    Block *parallelBody = rewriter.createBlock(&parallel.getRegion());
    rewriter.setInsertionPointToStart(parallelBody);
    auto wsloop = omp::WsloopOp::create(rewriter, loc, omp::WsloopOperands());
    omp::TerminatorOp::create(rewriter, loc);
    rewriter.createBlock(&wsloop.getRegion());
    omp::LoopNestOperands nestClauses;
    for (unsigned d = 0; d < distributed; ++d) {
      nestClauses.loopLowerBounds.push_back(loop.getLowerBound()[d]);
      nestClauses.loopUpperBounds.push_back(loop.getUpperBound()[d]);
      nestClauses.loopSteps.push_back(loop.getStep()[d]);
    }
    if (distributed > 1)
      nestClauses.collapseNumLoops = rewriter.getI64IntegerAttr(distributed);
    auto nest = omp::LoopNestOp::create(rewriter, loc, nestClauses);
    SmallVector<Type> ivTypes(distributed, rewriter.getIndexType());
    SmallVector<Location> ivLocs(distributed, loc);
    Block *nestBody =
        rewriter.createBlock(&nest.getRegion(), {}, ivTypes, ivLocs);
    auto yield = omp::YieldOp::create(rewriter, loc, ValueRange());

    SmallVector<Value> ivs(nestBody->getArguments().begin(),
                           nestBody->getArguments().end());
    Operation *insertBefore = yield;
    if (distributed < numDims) {
      rewriter.setInsertionPoint(yield);
      auto serial = scf::ForOp::create(
          rewriter, loc, loop.getLowerBound()[distributed],
          loop.getUpperBound()[distributed], loop.getStep()[distributed]);
      ivs.push_back(serial.getInductionVar());
      insertBefore = serial.getBody()->getTerminator();
    }
    Block *body = loop.getBody();
    rewriter.eraseOp(body->getTerminator());
    rewriter.inlineBlockBefore(body, insertBefore, ivs);
    rewriter.eraseOp(loop);
  }
};

} // namespace
