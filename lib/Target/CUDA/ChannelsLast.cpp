//===- ChannelsLast.cpp - Half-precision convolutions in NHWC -------------===//
//
// onyx-cuda-channels-last: on tensors, after the ONNX lowering and before
// elementwise fusion (the CUDA target). cuDNN's half-precision tensor-core
// convolutions want channels-last data, so every f16 / bf16 2-d convolution
// of the Conv lowering with one group
//   Y[n, g, m, oh, ow] += X[n, g, c, oh * s + kh * d, ...] * W[g, m, c, kh, kw]
// (X and Y split from [N, C, H, W] by tensor.expand_shape, Y merged back
// by tensor.collapse_shape) is rewritten to read and write NHWC,
//   Y[n, oh, ow, g, m] += X[n, oh * s + kh * d, ..., g, c] * W[g, m, c, kh, kw]
// (the weights stay KCRS; the runtime converts them once to KRSC), and the
// layout is propagated through the rank-4 tensors around it: every
// linalg.generic that reads or writes one of them (bias broadcasts, Relu,
// residual Adds, the padding generic, MaxPool, casts, reductions) reads and
// writes NHWC instead (its indexing maps and the tensor.extract indices of
// its body permuted, its loops interchanged so that an NHWC output is
// written in order), as do the tensor.empty / linalg.fill of their inits.
// Where an NHWC value meets anything else (the graph's input, a reshape
// such as Flatten, the return), one transpose generic converts it, so a
// ResNet keeps a transpose at its input and one after its pooled output
// only. f32 convolutions are seeds only with the option `f32` (the
// pipeline sets it for --precision=tf32, whose TF32 tensor-core
// convolutions want NHWC too, and for an explicit --cuda-channels-last):
// plain fp32 models are unchanged by default.
//
// Every rewrite is exact (a permutation of where elements live); what the
// pass does not understand stays NCHW behind a transpose.
//
//===----------------------------------------------------------------------===//

#include "onyx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"

namespace onyx {
#define GEN_PASS_DEF_CUDACHANNELSLAST
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;

namespace {

/// NHWC dim i is NCHW dim kToNHWC[i]; NCHW dim d is NHWC dim kFromNCHW[d].
constexpr int64_t kToNHWC[4] = {0, 2, 3, 1};
constexpr int64_t kFromNCHW[4] = {0, 3, 1, 2};

bool isRank4Tensor(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.getRank() == 4;
}

/// The results of `map` (indexing an NCHW operand) in NHWC order.
AffineMap permuteResults(AffineMap map) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d : kToNHWC)
    exprs.push_back(map.getResult(d));
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(), exprs,
                        map.getContext());
}

/// The convolution generic of the Conv lowering in f16 / bf16 (or f32 with
/// `f32`) with 2 spatial dims and one group, its split operands and merged
/// result.
struct ConvSeed {
  linalg::GenericOp conv;
  tensor::ExpandShapeOp x, init;
  tensor::CollapseShapeOp y;
};

bool isChannelSplit(ArrayRef<ReassociationIndices> groups) {
  return groups.size() == 4 && groups[0] == ReassociationIndices{0} &&
         groups[1] == ReassociationIndices{1, 2} &&
         groups[2] == ReassociationIndices{3} &&
         groups[3] == ReassociationIndices{4};
}

std::optional<ConvSeed> matchSeed(linalg::GenericOp g, bool f32) {
  if (!g.hasPureTensorSemantics() || g.getNumDpsInputs() != 2 ||
      g.getNumDpsInits() != 1 || g.getNumLoops() != 8 ||
      g.getNumReductionLoops() != 3)
    return std::nullopt;
  Type element = getElementTypeOrSelf(g.getResult(0).getType());
  if (!element.isF16() && !element.isBF16() && !(f32 && element.isF32()))
    return std::nullopt;
  for (Value v : g->getOperands())
    if (getElementTypeOrSelf(v.getType()) != element ||
        cast<RankedTensorType>(v.getType()).getRank() != 5)
      return std::nullopt;
  // Body: out + x * w.
  Block &body = g.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add || body.getOperations().size() != 3)
    return std::nullopt;
  Value acc = body.getArgument(2);
  Value product = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if ((add.getLhs() != acc && add.getRhs() != acc) || !mul ||
      !((mul.getLhs() == body.getArgument(0) &&
         mul.getRhs() == body.getArgument(1)) ||
        (mul.getRhs() == body.getArgument(0) &&
         mul.getLhs() == body.getArgument(1))))
    return std::nullopt;
  // Maps: Y[n, g, m, oh, ow], W[g, m, c, kh, kw], X[n, g, c, ...].
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  auto dimAt = [](AffineMap m, unsigned r) -> int64_t {
    auto d = dyn_cast<AffineDimExpr>(m.getResult(r));
    return d ? int64_t(d.getPosition()) : -1;
  };
  for (unsigned r = 0; r < 5; ++r)
    if (dimAt(maps[2], r) < 0)
      return std::nullopt;
  if (dimAt(maps[1], 0) != dimAt(maps[2], 1) ||
      dimAt(maps[1], 1) != dimAt(maps[2], 2) ||
      dimAt(maps[0], 0) != dimAt(maps[2], 0) ||
      dimAt(maps[0], 1) != dimAt(maps[2], 1) || dimAt(maps[0], 2) < 0 ||
      dimAt(maps[0], 2) != dimAt(maps[1], 2))
    return std::nullopt;
  ConvSeed seed;
  seed.conv = g;
  seed.x = g.getDpsInputs()[0].getDefiningOp<tensor::ExpandShapeOp>();
  seed.init = g.getDpsInits()[0].getDefiningOp<tensor::ExpandShapeOp>();
  if (!seed.x || !seed.init ||
      !isChannelSplit(seed.x.getReassociationIndices()) ||
      !isChannelSplit(seed.init.getReassociationIndices()) ||
      !g.getResult(0).hasOneUse() || !isRank4Tensor(seed.x.getSrc()) ||
      !isRank4Tensor(seed.init.getSrc()))
    return std::nullopt;
  seed.y = dyn_cast<tensor::CollapseShapeOp>(*g.getResult(0).user_begin());
  if (!seed.y || !isChannelSplit(seed.y.getReassociationIndices()))
    return std::nullopt;
  // One group (the split's group extent is static 1).
  auto xType = cast<RankedTensorType>(g.getDpsInputs()[0].getType());
  auto yType = cast<RankedTensorType>(g.getDpsInits()[0].getType());
  if (xType.getDimSize(1) != 1 || yType.getDimSize(1) != 1)
    return std::nullopt;
  return seed;
}

class ChannelsLast {
public:
  ChannelsLast(func::FuncOp fn, bool f32)
      : fn(fn), entry(fn.getBody().front()), f32(f32) {}

  void run() {
    SmallVector<ConvSeed> ordered;
    for (Operation &op : entry)
      if (auto g = dyn_cast<linalg::GenericOp>(op))
        if (auto seed = matchSeed(g, f32))
          ordered.push_back(*seed);
    // A split X (or init) may be shared by several convolutions (CSE: the
    // block input of a ResNet stage read by its first convolution and the
    // downsampling one): only when all of them are rewritten.
    for (bool changed = true; changed;) {
      changed = false;
      llvm::DenseSet<Operation *> convs;
      for (const ConvSeed &seed : ordered)
        convs.insert(seed.conv);
      auto onlySeeds = [&](Operation *split) {
        return llvm::all_of(split->getUsers(), [&](Operation *user) {
          return convs.contains(user);
        });
      };
      size_t before = ordered.size();
      llvm::erase_if(ordered, [&](const ConvSeed &seed) {
        return !onlySeeds(seed.x) || !onlySeeds(seed.init);
      });
      changed = ordered.size() != before;
    }
    if (ordered.empty())
      return;
    for (const ConvSeed &seed : ordered) {
      seeds[seed.conv] = seed;
      converted.insert(seed.conv);
      converted.insert(seed.y);
      collapses.insert(seed.y);
    }
    for (ConvSeed &seed : ordered)
      for (Value v : {seed.x.getSrc(), seed.init.getSrc(), seed.y.getResult()})
        add(v);
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      if (Operation *def = v.getDefiningOp())
        visit(def);
      for (Operation *user : v.getUsers())
        if (Operation *top = entry.findAncestorOpInBlock(*user))
          visit(top);
    }
    rewrite();
  }

private:
  func::FuncOp fn;
  Block &entry;
  bool f32;
  llvm::DenseMap<Operation *, ConvSeed> seeds;
  /// The values that live in NHWC, and the ops rewritten to produce or
  /// consume them.
  llvm::SetVector<Value> nhwc;
  llvm::DenseSet<Operation *> converted;
  /// The seeds' merged results (rewritten with their convolution).
  llvm::DenseSet<Operation *> collapses;
  SmallVector<Value> worklist;
  /// Each NHWC value's new SSA value.
  IRMapping mapping;

  void add(Value v) {
    if (nhwc.insert(v))
      worklist.push_back(v);
  }

  /// The rank-4 tensors a generic reads from outside its body with
  /// tensor.extract; false when its body uses an outside rank-4 tensor in
  /// any other way (then it is not rewritten).
  bool capturedTensors(linalg::GenericOp g, SmallVectorImpl<Value> &out) {
    bool ok = true;
    g.getRegion().walk([&](Operation *inner) {
      for (Value operand : inner->getOperands()) {
        if (!isRank4Tensor(operand) ||
            g.getRegion().isAncestor(operand.getParentRegion()))
          continue;
        auto extract = dyn_cast<tensor::ExtractOp>(inner);
        if (extract && extract.getTensor() == operand)
          out.push_back(operand);
        else
          ok = false;
      }
    });
    return ok;
  }

  /// `op` (an op of the entry block) joins the rewrite when it can hold
  /// NHWC operands: its rank-4 tensors join too.
  void visit(Operation *op) {
    if (converted.contains(op) || op->getBlock() != &entry)
      return;
    SmallVector<Value> tied;
    if (auto g = dyn_cast<linalg::GenericOp>(op)) {
      if (!g.hasPureTensorSemantics() || seeds.count(op) ||
          !capturedTensors(g, tied))
        return;
      for (Value v : g->getOperands())
        if (isRank4Tensor(v))
          tied.push_back(v);
      for (Value v : g->getResults())
        if (isRank4Tensor(v))
          tied.push_back(v);
    } else if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      if (!fill.hasPureTensorSemantics() || !isRank4Tensor(fill->getResult(0)))
        return;
      tied = {fill.getDpsInits()[0], fill->getResult(0)};
    } else if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
      if (!isRank4Tensor(empty.getResult()))
        return;
      tied = {empty.getResult()};
    } else {
      return;
    }
    converted.insert(op);
    for (Value v : tied)
      add(v);
  }

  /// A transpose generic of `v`: NCHW -> NHWC (`toNHWC`) or back.
  Value transpose(OpBuilder &b, Location loc, Value v, bool toNHWC) {
    auto type = cast<RankedTensorType>(v.getType());
    const int64_t *order = toNHWC ? kToNHWC : kFromNCHW;
    SmallVector<OpFoldResult> sizes;
    SmallVector<AffineExpr> read(4);
    for (int64_t i = 0; i < 4; ++i) {
      sizes.push_back(tensor::getMixedSize(b, loc, v, order[i]));
      read[order[i]] = b.getAffineDimExpr(unsigned(i));
    }
    Value init = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
    SmallVector<AffineMap> maps = {AffineMap::get(4, 0, read, b.getContext()),
                                   b.getMultiDimIdentityMap(4)};
    SmallVector<utils::IteratorType> iterators(4,
                                               utils::IteratorType::parallel);
    auto g = linalg::GenericOp::create(
        b, loc, TypeRange{init.getType()}, ValueRange{v}, ValueRange{init},
        maps, iterators, [](OpBuilder &nb, Location nl, ValueRange args) {
          linalg::YieldOp::create(nb, nl, args[0]);
        });
    return g.getResult(0);
  }

  Value lookup(Value v) { return nhwc.contains(v) ? mapping.lookup(v) : v; }

  void rewriteGeneric(IRRewriter &rewriter, linalg::GenericOp g) {
    SmallVector<Value> inputs, inits;
    SmallVector<AffineMap> maps;
    for (OpOperand &operand : g->getOpOperands()) {
      AffineMap map = g.getMatchingIndexingMap(&operand);
      bool moved = nhwc.contains(operand.get());
      (g.isDpsInit(&operand) ? inits : inputs).push_back(lookup(operand.get()));
      maps.push_back(moved ? permuteResults(map) : map);
    }
    SmallVector<Type> resultTypes;
    for (Value init : inits)
      resultTypes.push_back(init.getType());
    auto copy =
        linalg::GenericOp::create(rewriter, g.getLoc(), resultTypes, inputs,
                                  inits, maps, g.getIteratorTypesArray());
    rewriter.cloneRegionBefore(g.getRegion(), copy.getRegion(),
                               copy.getRegion().end());
    // Reads of NHWC tensors captured by the body: indices permuted.
    copy.getRegion().walk([&](tensor::ExtractOp extract) {
      Value source = extract.getTensor();
      if (!nhwc.contains(source))
        return;
      SmallVector<Value> indices;
      for (int64_t d : kToNHWC)
        indices.push_back(extract.getIndices()[d]);
      rewriter.setInsertionPoint(extract);
      rewriter.replaceOpWithNewOp<tensor::ExtractOp>(
          extract, mapping.lookup(source), indices);
    });
    linalg::GenericOp result = copy;
    // Loops in the order of the first NHWC output, so that it is written
    // in order (and an elementwise op keeps identity maps).
    for (OpOperand &init : copy.getDpsInitsMutable()) {
      if (!nhwc.contains(g.getDpsInits()[init.getOperandNumber() -
                                         copy.getNumDpsInputs()]))
        continue;
      AffineMap map = copy.getMatchingIndexingMap(&init);
      SmallVector<unsigned> order;
      llvm::SmallBitVector used(copy.getNumLoops());
      for (AffineExpr e : map.getResults()) {
        auto d = dyn_cast<AffineDimExpr>(e);
        if (!d || used.test(d.getPosition()))
          break;
        used.set(d.getPosition());
        order.push_back(d.getPosition());
      }
      if (order.size() != 4)
        break;
      for (unsigned l = 0; l < copy.getNumLoops(); ++l)
        if (!used.test(l))
          order.push_back(l);
      if (!llvm::equal(order, llvm::seq<unsigned>(0, order.size()))) {
        rewriter.setInsertionPoint(copy);
        FailureOr<linalg::GenericOp> swapped =
            linalg::interchangeGenericOp(rewriter, copy, order);
        if (succeeded(swapped))
          result = *swapped;
      }
      break;
    }
    for (auto [old, now] : llvm::zip(g->getResults(), result->getResults()))
      mapping.map(old, now);
  }

  void rewriteConv(IRRewriter &rewriter, ConvSeed seed) {
    Location loc = seed.conv.getLoc();
    // [N, H, W, C] -> [N, H, W, 1, C].
    auto split = [&](Value v) -> Value {
      auto type = cast<RankedTensorType>(v.getType());
      SmallVector<OpFoldResult> sizes;
      for (int64_t i = 0; i < 3; ++i)
        sizes.push_back(tensor::getMixedSize(rewriter, loc, v, i));
      sizes.push_back(rewriter.getIndexAttr(1));
      sizes.push_back(tensor::getMixedSize(rewriter, loc, v, 3));
      SmallVector<int64_t> shape = {type.getDimSize(0), type.getDimSize(1),
                                    type.getDimSize(2), 1, type.getDimSize(3)};
      SmallVector<ReassociationIndices> groups = {{0}, {1}, {2}, {3, 4}};
      return tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(shape, type.getElementType()), v,
          groups, sizes);
    };
    Value x = split(mapping.lookup(seed.x.getSrc()));
    Value init = split(mapping.lookup(seed.init.getSrc()));
    SmallVector<AffineMap> maps = seed.conv.getIndexingMapsArray();
    auto toChannelsLast = [](AffineMap map) {
      SmallVector<AffineExpr> exprs;
      for (unsigned r : {0u, 3u, 4u, 1u, 2u})
        exprs.push_back(map.getResult(r));
      return AffineMap::get(map.getNumDims(), 0, exprs, map.getContext());
    };
    maps[0] = toChannelsLast(maps[0]);
    maps[2] = toChannelsLast(maps[2]);
    auto conv = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()},
        ValueRange{x, seed.conv.getDpsInputs()[1]}, ValueRange{init}, maps,
        seed.conv.getIteratorTypesArray());
    rewriter.cloneRegionBefore(seed.conv.getRegion(), conv.getRegion(),
                               conv.getRegion().end());
    SmallVector<ReassociationIndices> groups = {{0}, {1}, {2}, {3, 4}};
    Value y = tensor::CollapseShapeOp::create(rewriter, loc, conv.getResult(0),
                                              groups);
    mapping.map(seed.y.getResult(), y);
  }

  void rewrite() {
    IRRewriter rewriter(fn.getContext());
    // Values that stay: their NHWC copy right after their definition.
    for (Value v : nhwc) {
      Operation *def = v.getDefiningOp();
      if (def && converted.contains(def))
        continue;
      if (def) {
        rewriter.setInsertionPointAfter(def);
      } else {
        rewriter.setInsertionPointToStart(&entry);
      }
      mapping.map(v, transpose(rewriter, v.getLoc(), v, /*toNHWC=*/true));
    }
    // The rewritten ops, in order, each before its old self.
    SmallVector<Operation *> old;
    for (Operation &op : entry)
      if (converted.contains(&op))
        old.push_back(&op);
    for (Operation *op : old) {
      rewriter.setInsertionPoint(op);
      if (collapses.contains(op))
        continue;
      if (auto seed = seeds.find(op); seed != seeds.end()) {
        rewriteConv(rewriter, seed->second);
      } else if (auto g = dyn_cast<linalg::GenericOp>(op)) {
        rewriteGeneric(rewriter, g);
      } else if (auto fill = dyn_cast<linalg::FillOp>(op)) {
        auto copy =
            linalg::FillOp::create(rewriter, fill.getLoc(), fill.getInputs()[0],
                                   mapping.lookup(fill.getDpsInits()[0]));
        mapping.map(fill->getResult(0), copy->getResult(0));
      } else if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
        SmallVector<OpFoldResult> sizes = empty.getMixedSizes(), permuted;
        for (int64_t d : kToNHWC)
          permuted.push_back(sizes[d]);
        mapping.map(empty.getResult(),
                    tensor::EmptyOp::create(rewriter, empty.getLoc(), permuted,
                                            empty.getType().getElementType())
                        .getResult());
      }
    }
    // Old NHWC values: their dims read from the new value, any other use
    // (not an op being replaced) through one transpose back.
    llvm::DenseSet<Operation *> dying(old.begin(), old.end());
    for (auto &[op, seed] : seeds) {
      dying.insert(seed.x);
      dying.insert(seed.init);
    }
    auto isDying = [&](Operation *user) {
      Operation *top = entry.findAncestorOpInBlock(*user);
      return top && dying.contains(top);
    };
    for (Value v : nhwc) {
      Operation *def = v.getDefiningOp();
      if (!def || !converted.contains(def))
        continue;
      Value now = mapping.lookup(v);
      // An empty tensor that other ops use as well stays for them.
      if (isa<tensor::EmptyOp>(def))
        continue;
      for (OpOperand &use : llvm::make_early_inc_range(v.getUses())) {
        auto dim = dyn_cast<tensor::DimOp>(use.getOwner());
        if (!dim || isDying(dim))
          continue;
        std::optional<int64_t> index = dim.getConstantIndex();
        if (!index)
          continue;
        rewriter.setInsertionPoint(dim);
        rewriter.replaceOpWithNewOp<tensor::DimOp>(dim, now, kFromNCHW[*index]);
      }
      Value back;
      for (OpOperand &use : llvm::make_early_inc_range(v.getUses())) {
        if (isDying(use.getOwner()))
          continue;
        if (!back) {
          rewriter.setInsertionPointAfterValue(now);
          back = transpose(rewriter, v.getLoc(), now, /*toNHWC=*/false);
        }
        use.set(back);
      }
    }
    llvm::DenseSet<Operation *> erased;
    for (Operation *op : llvm::reverse(old)) {
      if (isa<tensor::EmptyOp>(op) && !op->use_empty())
        continue;
      rewriter.eraseOp(op);
      if (auto seed = seeds.find(op); seed != seeds.end()) {
        // A split shared with another seed goes with the last of them.
        for (Operation *split :
             {seed->second.x.getOperation(), seed->second.init.getOperation()})
          if (split->use_empty() && erased.insert(split).second)
            rewriter.eraseOp(split);
      }
    }
  }
};

struct CUDAChannelsLastPass
    : onyx::impl::CUDAChannelsLastBase<CUDAChannelsLastPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp fn) {
      if (!fn.isExternal())
        ChannelsLast(fn, f32).run();
    });
  }
};

} // namespace
