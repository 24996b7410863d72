//===- PoolAllocations.cpp - Pack temporaries into session pools ----------===//
//
// RFC Fix 2. After bufferization and entry binding, every `onyx.alloc_temp`
// of the entry function becomes a `memref.view` into the pool of its
// dominance domain:
//
//   1. Domains. Allocations are visited in program order; one joins the
//      current domain when its dynamic sizes can be computed at the domain's
//      anchor (the first member's position), hoisting side-effect-free size
//      arithmetic there. A size that needs a memory read (a readback) after
//      the anchor starts a new domain.
//   2. Liveness. From the allocation to the last use of the buffer or of any
//      forward alias of it (every memref an op derives from it: views,
//      casts, reshapes), uses in nested regions counting at their top-level
//      ancestor.
//   3. Planning (PoolPlanning.cpp): static sizes by best fit, run-time sizes
//      by lifetime-disjoint groups whose slab is the run-time maximum of the
//      members' aligned footprints.
//   4. Emission at the anchor: footprints, slabs, offsets and one
//      `onyx.get_pool`; each allocation becomes a `memref.view`, and one
//      `onyx.record_temp` per temporary lets the runtime measure max-live
//      bytes at the actual shapes.
//
//===----------------------------------------------------------------------===//

#include "onyx/Support/NodeNames.h"
#include "onyx/Transforms/Passes.h"
#include "onyx/Transforms/PoolPlanning.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"

namespace onyx {
#define GEN_PASS_DEF_POOLALLOCATIONS
#include "onyx/Transforms/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

/// Set on an onyx.alloc_temp that a target fills once per session
/// (lib/Target/CUDA/CUDAAttributes.h's kSessionConstantAttr).
static constexpr llvm::StringLiteral kSessionConstantAttr =
    "onyx.session_constant";

namespace {

/// Byte size of one element in memory.
int64_t elementBytes(Type type) {
  if (type.isIndex())
    return 8; // The CPU and CUDA targets use 64-bit indices.
  return (int64_t(type.getIntOrFloatBitWidth()) + 7) / 8;
}

/// True when `value` can never be zero: a non-zero constant, the maximum of
/// something with a non-zero unsigned value, or the `select(x == 0, c, x)`
/// guard (c != 0) the shape helpers put in front of divisions.
bool provablyNonZero(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return !constant.isZero();
  if (auto max = value.getDefiningOp<arith::MaxUIOp>())
    return provablyNonZero(max.getLhs()) || provablyNonZero(max.getRhs());
  auto select = value.getDefiningOp<arith::SelectOp>();
  if (!select)
    return false;
  if (provablyNonZero(select.getTrueValue()) &&
      provablyNonZero(select.getFalseValue()))
    return true;
  auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq ||
      !provablyNonZero(select.getTrueValue()))
    return false;
  auto isZero = [](Value v) {
    APInt c;
    return matchPattern(v, m_ConstantInt(&c)) && c.isZero();
  };
  Value x = select.getFalseValue();
  return (cmp.getLhs() == x && isZero(cmp.getRhs())) ||
         (cmp.getRhs() == x && isZero(cmp.getLhs()));
}

/// Side-effect-free and safe to run earlier than written. Unsigned
/// divisions are not speculatable in general (division by zero), but are
/// when the divisor is provably non-zero: the Reshape helper divides by
/// `select(p == 0, 1, p)` behind its asserts, and such sizes should not
/// split a pool domain.
bool canHoist(Operation *op) {
  if (op->getNumRegions() != 0 || !isMemoryEffectFree(op))
    return false;
  if (isPure(op))
    return true;
  if (isa<arith::DivUIOp, arith::RemUIOp, arith::CeilDivUIOp>(op))
    return provablyNonZero(op->getOperand(1));
  return false;
}

/// Makes `value` available before `anchor` by moving the side-effect-free
/// ops that compute it (and their operands) there. Returns false when a
/// value depends on an op that cannot move (a memory read, an allocation).
bool makeAvailable(Value value, Operation *anchor) {
  if (isa<BlockArgument>(value))
    return true;
  Operation *def = value.getDefiningOp();
  if (def->getBlock() != anchor->getBlock())
    return def->getBlock()->getParentOp()->isProperAncestor(anchor) ||
           def->isBeforeInBlock(anchor);
  if (def->isBeforeInBlock(anchor))
    return true;
  // Only ops that may run earlier than written: no memory effects and
  // speculatable (a division by a run-time value guarded by an assert must
  // stay behind the assert).
  if (!canHoist(def))
    return false;
  for (Value operand : def->getOperands())
    if (!makeAvailable(operand, anchor))
      return false;
  def->moveBefore(anchor);
  return true;
}

/// The extent `dim` of `source` as a value defined no later than `at`, when
/// the op that produced `source` states it (an allocation's size operand, an
/// expand_shape's output_shape, a view's sizes, through casts), else null.
/// Sizes read back from buffers (`memref.dim` of a temporary's reshape)
/// would otherwise pin a size to its use and split the pool domain.
Value statedExtent(Value source, int64_t dim, OpBuilder &b, Location loc) {
  auto type = dyn_cast<MemRefType>(source.getType());
  if (!type || dim < 0 || dim >= type.getRank())
    return Value();
  if (!type.isDynamicDim(dim))
    return arith::ConstantIndexOp::create(b, loc, type.getDimSize(dim));
  auto dynamicPosition = [&]() {
    int64_t n = 0;
    for (int64_t i = 0; i < dim; ++i)
      n += type.isDynamicDim(i);
    return n;
  };
  Operation *def = source.getDefiningOp();
  if (!def)
    return Value();
  if (auto alloc = dyn_cast<AllocTempOp>(def))
    return alloc.getDynamicSizes()[dynamicPosition()];
  if (auto alloc = dyn_cast<AllocOutputOp>(def))
    return alloc.getDynamicSizes()[dynamicPosition()];
  if (auto alloc = dyn_cast<memref::AllocOp>(def))
    return alloc.getDynamicSizes()[dynamicPosition()];
  if (auto view = dyn_cast<memref::ViewOp>(def))
    return view.getSizes()[dynamicPosition()];
  if (auto cast = dyn_cast<memref::CastOp>(def))
    return statedExtent(cast.getSource(), dim, b, loc);
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(def))
    return getValueOrCreateConstantIndexOp(b, loc,
                                           expand.getMixedOutputShape()[dim]);
  if (auto collapse = dyn_cast<memref::CollapseShapeOp>(def)) {
    Value product;
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    for (int64_t d : groups[dim]) {
      Value extent = statedExtent(collapse.getSrc(), d, b, loc);
      if (!extent)
        return Value();
      product = product
                    ? arith::MulIOp::create(b, loc, product, extent).getResult()
                    : extent;
    }
    return product;
  }
  return Value();
}

/// Replaces `memref.dim`s of buffers whose producer states the extent.
void resolveStatedDims(func::FuncOp func) {
  SmallVector<memref::DimOp> dims;
  func.walk([&](memref::DimOp op) { dims.push_back(op); });
  for (memref::DimOp op : dims) {
    std::optional<int64_t> index = op.getConstantIndex();
    if (!index)
      continue;
    OpBuilder b(op);
    if (Value extent = statedExtent(op.getSource(), *index, b, op.getLoc())) {
      op.getResult().replaceAllUsesWith(extent);
      op.erase();
    }
  }
}

struct Temp {
  AllocTempOp op;
  int64_t start = 0, end = 0;
};

struct PoolAllocationsPass
    : public onyx::impl::PoolAllocationsBase<PoolAllocationsPass> {
  using PoolAllocationsBase::PoolAllocationsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>(kEntryFuncName);
    if (!func)
      return;
    if (scheme != "lifetime" && scheme != "iree") {
      module.emitError() << "unknown pool scheme '" << scheme
                         << "' (expected lifetime or iree)";
      return signalPassFailure();
    }
    if (placement != "runtime" && placement != "compile") {
      module.emitError() << "unknown pool placement '" << placement
                         << "' (expected runtime or compile)";
      return signalPassFailure();
    }
    if (alignment <= 0 || (alignment & (alignment - 1)) != 0) {
      module.emitError("pool alignment must be a power of two");
      return signalPassFailure();
    }
    Block &body = func.getBody().front();
    Value context = func.getArgument(0);
    resolveStatedDims(func);
    // Temporaries nothing reads or writes any more (the CPU target's calls
    // absorbed the generics that used them; their dims are resolved above)
    // get no memory: they go, with the views and dims only they feed.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if ((isa<AllocTempOp>(op) && op.use_empty()) ||
          (isa<ViewLikeOpInterface, memref::DimOp>(op) &&
           isOpTriviallyDead(&op)))
        op.erase();

    // 1. Domains, in program order.
    SmallVector<SmallVector<AllocTempOp>> domains;
    for (Operation &op : llvm::make_early_inc_range(body)) {
      auto alloc = dyn_cast<AllocTempOp>(&op);
      // A target's session-lifetime copy (the CUDA target's constant
      // uploads, `onyx.session_constant`) is not a temporary of the call.
      if (!alloc || alloc->hasAttr(kSessionConstantAttr))
        continue;
      bool joins = !domains.empty();
      if (joins) {
        Operation *anchor = domains.back().front();
        for (Value size : alloc.getDynamicSizes())
          if (!makeAvailable(size, anchor)) {
            joins = false;
            break;
          }
      }
      if (!joins)
        domains.emplace_back();
      domains.back().push_back(alloc);
    }
    if (domains.empty())
      return;

    // 2. Positions and lifetimes (after hoisting, which changed the order).
    DenseMap<Operation *, int64_t> position;
    int64_t index = 0;
    for (Operation &op : body)
      position[&op] = index++;
    // Position of the entry-block op containing `op`; uses outside the
    // entry block (other blocks of the function) count as live to the end.
    int64_t endOfFunction = index;
    auto positionOf = [&](Operation *op) -> int64_t {
      while (op && op->getBlock() != &body) {
        if (op->getParentRegion() == &func.getBody())
          return endOfFunction;
        op = op->getParentOp();
      }
      return op ? position[op] : endOfFunction;
    };
    auto lastUse = [&](Value root) {
      int64_t last = positionOf(root.getDefiningOp());
      SmallVector<Value> worklist = {root};
      DenseSet<Value> seen;
      auto follow = [&](Operation *op) {
        // Any value an op derives from this buffer may alias it (views,
        // casts, memref.reshape, bufferization.to_tensor): follow all of
        // them, which can only lengthen lifetimes.
        for (Value result : op->getResults())
          if (isa<BaseMemRefType, TensorType>(result.getType()))
            worklist.push_back(result);
      };
      while (!worklist.empty()) {
        Value v = worklist.pop_back_val();
        if (!seen.insert(v).second)
          continue;
        for (Operation *user : v.getUsers()) {
          last = std::max(last, positionOf(user));
          follow(user);
          // A buffer yielded out of a region lives on as the parent's result.
          if (user->hasTrait<OpTrait::IsTerminator>() && user->getParentOp())
            follow(user->getParentOp());
        }
      }
      return last;
    };

    // 3-4. Plan and emit per domain.
    for (auto [domainId, members] : llvm::enumerate(domains))
      emitDomain(members, int64_t(domainId), context, positionOf, lastUse);
  }

  void emitDomain(ArrayRef<AllocTempOp> members, int64_t domainId,
                  Value context, function_ref<int64_t(Operation *)> positionOf,
                  function_ref<int64_t(Value)> lastUse) {
    Operation *anchor = members.front();
    OpBuilder b(anchor);
    Location loc = anchor->getLoc();
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value alignMinusOne = constant(alignment - 1);
    Value alignValue = constant(alignment);
    auto alignUp = [&](Value bytes) -> Value {
      Value sum = arith::AddIOp::create(b, loc, bytes, alignMinusOne);
      Value quotient = arith::DivUIOp::create(b, loc, sum, alignValue);
      return arith::MulIOp::create(b, loc, quotient, alignValue);
    };

    // Items: lifetimes, static sizes, size classes of run-time sizes.
    std::vector<pool::Item> items;
    SmallVector<Value> alignedBytes;
    std::map<std::pair<int64_t, std::vector<void *>>, int64_t> classes;
    for (AllocTempOp alloc : members) {
      auto type = cast<MemRefType>(alloc.getType());
      pool::Item item;
      item.start = positionOf(alloc);
      item.end = lastUse(alloc.getResult());
      int64_t staticPart = elementBytes(type.getElementType());
      for (int64_t d : type.getShape())
        if (!ShapedType::isDynamic(d))
          staticPart *= d;
      if (type.hasStaticShape()) {
        item.staticBytes = staticPart;
        alignedBytes.push_back(constant(pool::alignTo(staticPart, alignment)));
      } else {
        // Equal sizes: the same static factor and the same multiset of
        // dynamic extents (CSE has made equal extents one SSA value).
        std::vector<void *> key;
        Value bytes = constant(staticPart);
        for (Value size : alloc.getDynamicSizes()) {
          key.push_back(size.getAsOpaquePointer());
          bytes = arith::MulIOp::create(b, loc, bytes, size);
        }
        std::sort(key.begin(), key.end());
        auto it =
            classes.try_emplace({staticPart, key}, int64_t(classes.size()));
        item.sizeClass = it.first->second;
        alignedBytes.push_back(alignUp(bytes));
      }
      items.push_back(item);
    }

    pool::Plan plan = pool::planPool(
        items, alignment,
        scheme == "iree" ? pool::Scheme::SameSizeOnly : pool::Scheme::Lifetime);

    bool hasDynamic = llvm::any_of(
        items, [](const pool::Item &item) { return !item.staticBytes; });
    if (placement == "runtime" && scheme == "lifetime" && hasDynamic)
      return emitRuntimePlacement(members, items, plan, alignedBytes, domainId,
                                  context, b, loc);

    // Slabs and offsets: [static region | group slabs...].
    Value cursor = constant(plan.staticBytes);
    SmallVector<Value> groupOffset;
    for (const auto &group : plan.groups) {
      groupOffset.push_back(cursor);
      Value slab;
      DenseSet<int64_t> seenClasses;
      for (int64_t m : group) {
        if (!seenClasses.insert(items[m].sizeClass).second)
          continue; // Provably the same size: no maximum needed.
        slab = slab ? arith::MaxUIOp::create(b, loc, slab, alignedBytes[m])
                          .getResult()
                    : alignedBytes[m];
      }
      cursor = arith::AddIOp::create(b, loc, cursor, slab);
    }
    auto poolType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type());
    auto getPool = GetPoolOp::create(b, loc, poolType, context, cursor,
                                     b.getI64IntegerAttr(domainId));
    nameTemps(getPool, members);
    Value pool = getPool;
    for (auto [i, item] : llvm::enumerate(items))
      RecordTempOp::create(
          b, loc, context, alignedBytes[i], b.getI64IntegerAttr(item.start),
          b.getI64IntegerAttr(item.end), b.getI64IntegerAttr(domainId));

    for (size_t i = 0; i < members.size(); ++i) {
      AllocTempOp alloc = members[i];
      OpBuilder vb(alloc);
      Value offset = items[i].staticBytes
                         ? Value(arith::ConstantIndexOp::create(
                               vb, alloc.getLoc(), plan.staticOffset[i]))
                         : groupOffset[plan.group[i]];
      auto view = memref::ViewOp::create(vb, alloc.getLoc(), alloc.getType(),
                                         pool, offset, alloc.getDynamicSizes());
      alloc.getResult().replaceAllUsesWith(view.getResult());
      alloc.erase();
    }
  }

  /// The node name of each temporary, in `members` order, on the op that
  /// allocates the pool (`onyx.temp_names`): the runtime names the node
  /// whose temporary would exceed the memory limit (docs/runtime.md).
  static void nameTemps(Operation *poolOp, ArrayRef<AllocTempOp> members) {
    SmallVector<std::string> names;
    for (AllocTempOp alloc : members)
      names.push_back(nodeNameOf(alloc.getLoc()));
    if (llvm::all_of(names, [](const std::string &n) { return n.empty(); }))
      return;
    SmallVector<StringRef> refs(names.begin(), names.end());
    Builder b(poolOp->getContext());
    poolOp->setAttr("onyx.temp_names", b.getStrArrayAttr(refs));
  }

  /// Lays the domain out at run time: one `onyx.place_temps` at the anchor
  /// with every aligned size, the lifetimes and the compile-time plan; each
  /// allocation becomes a view at the offset it returns.
  void emitRuntimePlacement(ArrayRef<AllocTempOp> members,
                            const std::vector<pool::Item> &items,
                            const pool::Plan &plan,
                            ArrayRef<Value> alignedBytes, int64_t domainId,
                            Value context, OpBuilder &b, Location loc) {
    SmallVector<int64_t> starts, ends, groups, staticOffsets;
    for (auto [i, item] : llvm::enumerate(items)) {
      starts.push_back(item.start);
      ends.push_back(item.end);
      groups.push_back(plan.group[i]);
      staticOffsets.push_back(item.staticBytes ? plan.staticOffset[i] : 0);
    }
    auto poolType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type());
    SmallVector<Type> offsetTypes(items.size(), b.getIndexType());
    auto place = PlaceTempsOp::create(
        b, loc, poolType, offsetTypes, context, alignedBytes,
        b.getI64IntegerAttr(domainId), b.getDenseI64ArrayAttr(starts),
        b.getDenseI64ArrayAttr(ends), b.getDenseI64ArrayAttr(groups),
        b.getDenseI64ArrayAttr(staticOffsets),
        b.getI64IntegerAttr(plan.staticBytes));
    nameTemps(place, members);
    for (size_t i = 0; i < members.size(); ++i) {
      AllocTempOp alloc = members[i];
      OpBuilder vb(alloc);
      auto view = memref::ViewOp::create(vb, alloc.getLoc(), alloc.getType(),
                                         place.getPool(), place.getOffsets()[i],
                                         alloc.getDynamicSizes());
      alloc.getResult().replaceAllUsesWith(view.getResult());
      alloc.erase();
    }
  }
};

} // namespace
