//===- ProfileOps.cpp - Per-op timing hooks for CPU artifacts -------------===//
//
// onyx-cpu-profile-ops (onyx-compile --profile). Every op of the entry that
// does a node's work -- a linalg op on buffers, a memref.copy, a call of
// the runtime's CPU kernels or of BLAS -- is bracketed by the runtime's
// profiling hooks:
//
//   %t = call @onyxrt_profile_begin(%ctx) : (!onyx.context) -> i64
//   <the op>
//   <the shapes of its buffers stored into a stack table>
//   call @onyxrt_profile_end(%ctx, %t, @node_name, @op_kind, %table)
//
// The table holds the number of buffers, then each one's rank and dims
// (dynamic dims read with memref.dim after the op). A call's buffers are
// found behind its pointer operands (memref.extract_aligned_pointer_as_index
// through casts and GEPs). The runtime records an event only while the
// session is profiling (onyx_state_enable_profiling); otherwise each hook
// is a call that returns at once.
//
//===----------------------------------------------------------------------===//

#include "onyx/Dialect/Onyx/OnyxDialect.h"
#include "onyx/Support/NodeNames.h"
#include "onyx/Target/CPU/Passes.h"
#include "onyx/onyx_abi.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

#include <map>

namespace onyx {
#define GEN_PASS_DEF_CPUPROFILEOPS
#include "onyx/Target/CPU/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

namespace {

constexpr StringLiteral kBeginFn = ONYXRT_FN_PROFILE_BEGIN;
constexpr StringLiteral kEndFn = ONYXRT_FN_PROFILE_END;
/// Buffers per event at most (the rest are left out of the table).
constexpr size_t kMaxBuffers = 8;

/// The ranked buffer a pointer operand of a call addresses, if any.
Value bufferBehind(Value pointer) {
  Value current = pointer;
  for (int depth = 0; depth < 8 && current; ++depth) {
    Operation *def = current.getDefiningOp();
    if (!def)
      return Value();
    if (auto extract = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(def))
      return extract.getSource();
    if (auto gep = dyn_cast<LLVM::GEPOp>(def))
      current = gep.getBase();
    else if (isa<LLVM::IntToPtrOp, arith::IndexCastOp, arith::IndexCastUIOp>(
                 def))
      current = def->getOperand(0);
    else if (auto add = dyn_cast<arith::AddIOp>(def))
      current = add.getLhs();
    else
      return Value();
  }
  return Value();
}

bool isRankedBuffer(Value v) { return isa<MemRefType>(v.getType()); }

struct CPUProfileOpsPass
    : public onyx::impl::CPUProfileOpsBase<CPUProfileOpsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || func.getNumArguments() == 0 ||
          !isa<ContextType>(func.getArgument(0).getType()))
        continue;
      instrument(module, func);
    }
  }

  /// The ops that do a node's work, outermost first.
  static bool isProfiled(Operation *op) {
    if (isa<linalg::LinalgOp>(op))
      return isa<MemRefType>(
                 op->getOperand(op->getNumOperands() - 1).getType()) ||
             op->getNumResults() == 0;
    if (isa<memref::CopyOp>(op))
      return true;
    if (auto call = dyn_cast<func::CallOp>(op)) {
      StringRef callee = call.getCallee();
      return callee.starts_with(ONYXRT_FN_CPU_PREFIX) ||
             callee.starts_with("cblas_");
    }
    return false;
  }

  func::FuncOp declare(ModuleOp module, StringRef name, FunctionType type) {
    if (auto fn = module.lookupSymbol<func::FuncOp>(name))
      return fn;
    OpBuilder b(module.getContext());
    b.setInsertionPointToEnd(module.getBody());
    auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
    fn.setPrivate();
    return fn;
  }

  /// A private NUL-terminated string global, one per distinct text.
  Value stringAddress(ModuleOp module, OpBuilder &b, Location loc,
                      StringRef text) {
    auto it = strings.find(text.str());
    std::string name;
    if (it != strings.end()) {
      name = it->second;
    } else {
      for (int i = strings.size();; ++i) {
        name = "onyx_profile_str_" + std::to_string(i);
        if (!module.lookupSymbol(name))
          break;
      }
      strings[text.str()] = name;
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      std::string withNul = text.str();
      withNul.push_back('\0');
      LLVM::GlobalOp::create(
          b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), withNul.size()),
          /*isConstant=*/true, LLVM::Linkage::Private, name,
          b.getStringAttr(withNul));
    }
    return LLVM::AddressOfOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), name);
  }

  void instrument(ModuleOp module, func::FuncOp func) {
    SmallVector<Operation *> ops;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!isProfiled(op))
        return WalkResult::advance();
      ops.push_back(op);
      return WalkResult::skip(); // nothing inside is profiled separately
    });
    if (ops.empty())
      return;
    MLIRContext *ctx = module.getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    Value context = func.getArgument(0);
    func::FuncOp begin = declare(
        module, kBeginFn, FunctionType::get(ctx, {context.getType()}, {i64}));
    func::FuncOp end = declare(
        module, kEndFn,
        FunctionType::get(ctx, {context.getType(), i64, ptr, ptr, ptr}, {}));

    // The buffers of each op, and one stack table big enough for any.
    std::vector<SmallVector<Value>> buffers(ops.size());
    int64_t tableSize = 1;
    for (auto [i, op] : llvm::enumerate(ops)) {
      llvm::SetVector<Value> seen;
      for (Value operand : op->getOperands()) {
        Value buffer = isRankedBuffer(operand) ? operand
                       : isa<func::CallOp>(op) ? bufferBehind(operand)
                                               : Value();
        if (buffer && seen.size() < kMaxBuffers)
          seen.insert(buffer);
      }
      buffers[i].assign(seen.begin(), seen.end());
      int64_t size = 1;
      for (Value buffer : buffers[i])
        size += 1 + cast<MemRefType>(buffer.getType()).getRank();
      tableSize = std::max(tableSize, size);
    }
    OpBuilder b(ctx);
    b.setInsertionPointToStart(&func.getBody().front());
    Location funcLoc = func.getLoc();
    Value table = LLVM::AllocaOp::create(
        b, funcLoc, ptr, i64,
        arith::ConstantIntOp::create(b, funcLoc, tableSize, 64), 8);

    for (auto [i, op] : llvm::enumerate(ops)) {
      Location loc = op->getLoc();
      b.setInsertionPoint(op);
      Value token =
          func::CallOp::create(b, loc, begin, ValueRange{context}).getResult(0);
      b.setInsertionPointAfter(op);
      auto constant = [&](int64_t v) -> Value {
        return arith::ConstantIntOp::create(b, loc, v, 64);
      };
      int32_t slot = 0;
      auto store = [&](Value v) {
        Value address = LLVM::GEPOp::create(b, loc, ptr, i64, table,
                                            ArrayRef<LLVM::GEPArg>{slot++});
        LLVM::StoreOp::create(b, loc, v, address);
      };
      store(constant(int64_t(buffers[i].size())));
      for (Value buffer : buffers[i]) {
        auto type = cast<MemRefType>(buffer.getType());
        store(constant(type.getRank()));
        for (int64_t d = 0; d < type.getRank(); ++d) {
          if (!type.isDynamicDim(d)) {
            store(constant(type.getDimSize(d)));
            continue;
          }
          Value dim = memref::DimOp::create(b, loc, buffer, d);
          store(arith::IndexCastOp::create(b, loc, i64, dim));
        }
      }
      std::string kind = op->getName().getStringRef().str();
      if (auto call = dyn_cast<func::CallOp>(op))
        kind = call.getCallee().str();
      Value name = stringAddress(module, b, loc, nodeNameOf(loc));
      Value opKind = stringAddress(module, b, loc, kind);
      func::CallOp::create(b, loc, end,
                           ValueRange{context, token, name, opKind, table});
    }
  }

  std::map<std::string, std::string> strings;
};

} // namespace
