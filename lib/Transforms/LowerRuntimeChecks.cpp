//===- LowerRuntimeChecks.cpp - Early returns for failed checks -----------===//
//
// The entry function reports failures by returning non-zero. Each
// `onyx.assert` becomes
//
//   cf.cond_br %cond, ^continue, ^fail
//   ^fail: call @onyxrt_fail(%ctx, "message", n, a0..a3); return 1
//
// and each runtime allocation is followed by a null check that returns 1
// (the runtime recorded the reason). Nothing that depends on a failed check
// runs.
//
//===----------------------------------------------------------------------===//

#include "onyx/Support/NodeNames.h"
#include "onyx/Transforms/Passes.h"
#include "onyx/onyx_abi.h"

#include "mlir/IR/Builders.h"

namespace onyx {
#define GEN_PASS_DEF_LOWERRUNTIMECHECKS
#include "onyx/Transforms/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

namespace {

constexpr llvm::StringLiteral kFailFn = ONYXRT_FN_FAIL;
constexpr llvm::StringLiteral kHostSyncFn = ONYXRT_FN_HOST_SYNC;

struct LowerRuntimeChecksPass
    : public onyx::impl::LowerRuntimeChecksBase<LowerRuntimeChecksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>(kEntryFuncName);
    if (!func) {
      // Nothing bound yet (e.g. a lit test of an unbound graph): the pass
      // must still reject asserts it cannot lower.
      WalkResult r = module.walk([](AssertOp op) {
        op.emitError("onyx.assert outside the entry function");
        return WalkResult::interrupt();
      });
      if (r.wasInterrupted())
        signalPassFailure();
      return;
    }
    Value context = func.getArgument(0);
    if (!isa<ContextType>(context.getType())) {
      func.emitError("entry function does not take the context first");
      return signalPassFailure();
    }

    SmallVector<Operation *> checks;
    func.walk([&](Operation *op) {
      if (isa<AssertOp, AllocOutputOp, AllocTempOp, GetPoolOp, PlaceTempsOp,
              ReadbackScalarOp, HostSyncOp>(op))
        checks.push_back(op);
    });
    for (Operation *op : checks) {
      if (op->getParentRegion() != &func.getBody()) {
        op->emitError("run-time check inside a nested region is not "
                      "supported yet");
        return signalPassFailure();
      }
      if (auto assertOp = dyn_cast<AssertOp>(op)) {
        if (failed(lowerAssert(module, assertOp, context)))
          return signalPassFailure();
      } else if (auto readback = dyn_cast<ReadbackScalarOp>(op)) {
        lowerReadback(module, readback, context);
      } else if (auto sync = dyn_cast<HostSyncOp>(op)) {
        OpBuilder builder(sync);
        emitHostSync(module, builder, sync.getLoc(), context);
        sync.erase();
      } else {
        lowerAllocCheck(op);
      }
    }
  }

  /// Splits the block after `op` and branches to a new failure block when
  /// `ok` is false. The builder is left in the failure block.
  Block *splitWithFailure(OpBuilder &builder, Operation *op, Value ok) {
    Block *before = op->getBlock();
    Block *after = before->splitBlock(op->getNextNode());
    Region *region = before->getParent();
    Block *failBlock = new Block();
    region->getBlocks().insertAfter(Region::iterator(after), failBlock);
    builder.setInsertionPointToEnd(before);
    cf::CondBranchOp::create(builder, op->getLoc(), ok, after, ValueRange{},
                             failBlock, ValueRange{});
    builder.setInsertionPointToEnd(failBlock);
    return failBlock;
  }

  void returnFailure(OpBuilder &builder, Location loc) {
    Value one = arith::ConstantIntOp::create(builder, loc, 1, 32);
    func::ReturnOp::create(builder, loc, ValueRange{one});
  }

  /// A private constant global holding `text` (NUL-terminated).
  std::string messageGlobal(ModuleOp module, OpBuilder &builder, Location loc,
                            StringRef text) {
    std::string globalName = "onyx_msg_" + std::to_string(messageCounter++);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    std::string withNul = text.str();
    withNul.push_back('\0');
    auto arrayType =
        LLVM::LLVMArrayType::get(builder.getI8Type(), withNul.size());
    LLVM::GlobalOp::create(builder, loc, arrayType, /*isConstant=*/true,
                           LLVM::Linkage::Private, globalName,
                           builder.getStringAttr(withNul));
    return globalName;
  }

  /// onyx.readback_scalar: with `sync`, `onyxrt_host_sync(ctx, site)` and a
  /// failure exit when it reports an error (the runtime has recorded the
  /// message), so no dependent op runs; then the load itself.
  void lowerReadback(ModuleOp module, ReadbackScalarOp op, Value context) {
    OpBuilder builder(op);
    Location loc = op.getLoc();
    if (op.getSync()) {
      emitHostSync(module, builder, loc, context);
      builder.setInsertionPoint(op);
    }
    Value value =
        memref::LoadOp::create(builder, loc, op.getMemref(), op.getIndices());
    op.getResult().replaceAllUsesWith(value);
    op.erase();
  }

  /// `onyxrt_host_sync(ctx, site)` at the builder's point, with a failure
  /// exit; the builder is left in the failure block.
  void emitHostSync(ModuleOp module, OpBuilder &builder, Location loc,
                    Value context) {
    MLIRContext *ctx = module.getContext();
    {
      auto ptr = LLVM::LLVMPointerType::get(ctx);
      auto syncFn = module.lookupSymbol<func::FuncOp>(kHostSyncFn);
      if (!syncFn) {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToEnd(module.getBody());
        syncFn = func::FuncOp::create(
            builder, loc, kHostSyncFn,
            builder.getFunctionType({ContextType::get(ctx), ptr},
                                    {builder.getI32Type()}));
        syncFn.setPrivate();
      }
      std::string site = "a readback";
      if (std::string node = nodeNameOf(loc); !node.empty())
        site = "node '" + node + "'";
      std::string global = messageGlobal(module, builder, loc, site);
      Value msg = LLVM::AddressOfOp::create(builder, loc, ptr, global);
      Value status =
          func::CallOp::create(builder, loc, syncFn, ValueRange{context, msg})
              .getResult(0);
      Value zero = arith::ConstantIntOp::create(builder, loc, 0, 32);
      Value ok = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                       status, zero);
      splitWithFailure(builder, ok.getDefiningOp(), ok);
      returnFailure(builder, loc);
    }
  }

  LogicalResult lowerAssert(ModuleOp module, AssertOp op, Value context) {
    OpBuilder builder(op);
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto i64 = builder.getI64Type();
    auto ptr = LLVM::LLVMPointerType::get(ctx);

    // Prefix the message with the node that owns the check.
    std::string message = op.getMessage().str();
    if (std::string node = nodeNameOf(loc); !node.empty())
      message = "node '" + node + "': " + message;

    auto failFn = module.lookupSymbol<func::FuncOp>(kFailFn);
    if (!failFn) {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToEnd(module.getBody());
      failFn = func::FuncOp::create(
          builder, loc, kFailFn,
          builder.getFunctionType(
              {ContextType::get(ctx), ptr, i64, i64, i64, i64, i64}, {}));
      failFn.setPrivate();
    }

    // The message as a private constant global.
    std::string globalName = messageGlobal(module, builder, loc, message);

    SmallVector<Value> args(op.getArgs().begin(), op.getArgs().end());
    Value cond = op.getCondition();
    Block *failBlock = splitWithFailure(builder, op, cond);
    Value msg = LLVM::AddressOfOp::create(builder, loc, ptr, globalName);
    SmallVector<Value> callArgs = {
        context, msg,
        arith::ConstantIntOp::create(builder, loc, int64_t(args.size()), 64)};
    for (unsigned i = 0; i < 4; ++i) {
      if (i < args.size()) {
        Value a = args[i];
        if (a.getType().isIndex())
          a = arith::IndexCastOp::create(builder, loc, i64, a);
        else if (a.getType() != i64)
          a = arith::ExtSIOp::create(builder, loc, i64, a);
        callArgs.push_back(a);
      } else {
        callArgs.push_back(arith::ConstantIntOp::create(builder, loc, 0, 64));
      }
    }
    func::CallOp::create(builder, loc, failFn, callArgs);
    returnFailure(builder, loc);
    (void)failBlock;
    op.erase();
    return success();
  }

  void lowerAllocCheck(Operation *op) {
    OpBuilder builder(op->getContext());
    builder.setInsertionPointAfter(op);
    Location loc = op->getLoc();
    Value pointer = memref::ExtractAlignedPointerAsIndexOp::create(
        builder, loc, op->getResult(0));
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value ok = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne,
                                     pointer, zero);
    splitWithFailure(builder, ok.getDefiningOp(), ok);
    returnFailure(builder, loc);
  }

  unsigned messageCounter = 0;
};

} // namespace
