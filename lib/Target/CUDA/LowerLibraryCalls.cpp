//===- LowerLibraryCalls.cpp - GEMMs and convolutions as library calls ----===//
//
// Runs on buffers, before onyx-cuda-outline-dispatches. Contractions and
// convolutions would otherwise become one naive kernel each (one thread per
// output element, the reduction walked serially); here they become calls of
// the runtime's library services, which run cuBLASLt and cuDNN on the
// session's stream:
//
//   linalg.fill ins(%zero) outs(%c)              // erased: beta = 0
//   linalg.generic {A (d0, d1, d3), B (d3, d2), C (d0, d1, d2)} mul-add
//   ==>
//   %s = func.call @onyxrt_cuda_gemm(%ctx, @label, f32, flags, batch, m, n,
//            k, %a, lda, strideA, %b, ldb, strideB, %c, ldc, strideC)
//            {onyx.cuda_status}
//
// Any linalg op (named or generic) whose body is `out + in0 * in1` on f32
// and whose maps are projected permutations is classified into batch, M, N
// and K loops (linalg::inferContractionDims). It is a row-major strided
// batched GEMM when every operand is a dense, identity-layout buffer whose
// dims come in the order [batch..., rows..., cols...] with each group
// contiguous: then the groups collapse (M = product of the M loops, ...),
// A is [M, K] or [K, M] (transposed), B [K, N] or [N, K], C [M, N]. That
// covers ONNX MatMul (2-D, N-D x 2-D with the leading dims folded into M,
// batched N-D x N-D), Gemm with any transA/transB, and linalg.matmul /
// batch_matmul / matmul_transpose_b and friends.
//
// The grouped convolution generic of the ONNX Conv lowering
// (Y[n, g, m, o...] += X[n, g, c, o * s + t * d] * W[g, m, c, t...], the
// input already padded) becomes `onyxrt_cuda_conv` with the dims packed in a
// stack array (runtime/include/onyx/onyx_runtime.h).
//
// Everything else, and anything that does not match exactly (other element
// types, strided views, broadcast batch dims that break a group), is left
// to the outlining pass, which runs it as a generic kernel: correct, slower.
//
// Host constants (embedded constants, external weights) read by a call are
// passed as their session copy on the device: an `onyx.alloc_temp` filled by
// a `gpu.memcpy {onyx.session_constant}`, which onyx-cuda-lower-launches
// turns into `onyxrt_cuda_constant` (uploaded once per session). The status
// of each call is checked by onyx-cuda-lower-launches (`onyx.cuda_status`:
// a non-zero status returns 1 from the entry with the runtime's message,
// which names the node).
//
//===----------------------------------------------------------------------===//

#include "onyx/Dialect/Onyx/OnyxDialect.h"
#include "onyx/Target/CUDA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallBitVector.h"

namespace onyx {
#define GEN_PASS_DEF_CUDALOWERLIBRARYCALLS
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

namespace {

constexpr llvm::StringLiteral kGemmFn = "onyxrt_cuda_gemm";
constexpr llvm::StringLiteral kConvFn = "onyxrt_cuda_conv";
constexpr llvm::StringLiteral kStatusAttr = "onyx.cuda_status";
constexpr llvm::StringLiteral kSessionConstantAttr = "onyx.session_constant";

// Flags of onyx_runtime.h.
constexpr int32_t kGemmTransA = 1, kGemmTransB = 2, kGemmAccumulate = 4,
                  kGemmTF32 = 8;
constexpr int32_t kConvAccumulate = 1, kConvTF32 = 2, kConvRelu = 4;
constexpr int32_t kOnyxF32 = 1;

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

/// The buffer a chain of views starts from.
Value rootBuffer(Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewLikeOpInterface>())
    buffer = view.getViewSource();
  return buffer;
}

/// The buffer `buffer` is a whole reshape of (expand/collapse only: same
/// elements, same order).
Value reshapeRoot(Value buffer) {
  while (true) {
    if (auto e = buffer.getDefiningOp<memref::ExpandShapeOp>())
      buffer = e.getSrc();
    else if (auto c = buffer.getDefiningOp<memref::CollapseShapeOp>())
      buffer = c.getSrc();
    else
      return buffer;
  }
}

/// Host memory in a CUDA session: constants and external weights (the
/// outlining pass has the same rule); stack buffers are host memory too,
/// but never read by a library call here.
bool isHostConstant(Value buffer) {
  Operation *def = rootBuffer(buffer).getDefiningOp();
  if (!def)
    return false;
  if (isa<memref::GetGlobalOp>(def))
    return true;
  StringRef name = def->getName().getStringRef();
  return name == "onyx.get_weight" || name == "onyx.weight_buffer";
}

bool isStackBuffer(Value buffer) {
  return isa_and_nonnull<memref::AllocaOp>(rootBuffer(buffer).getDefiningOp());
}

/// A dense f32 buffer with the identity layout (so offset 0 and row-major
/// strides) that a library call can address as a plain pointer.
bool isDenseF32(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || !type.getElementType().isF32() ||
      !type.getLayout().isIdentity() || isStackBuffer(buffer))
    return false;
  // Host constants get a device copy, which needs a static shape.
  return !isHostConstant(buffer) || type.hasStaticShape();
}

/// Whether `op` may sit between a library op and the ops folded into it:
/// it writes no tensor data.
bool isNeutral(Operation *op) {
  return !isa<linalg::LinalgOp, func::CallOp, gpu::MemcpyOp, memref::StoreOp,
              memref::CopyOp>(op) &&
         op->getNumRegions() == 0;
}

bool isZeroConstant(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  auto value = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
  return value && value.getValue().isZero();
}

/// Whether the body is `yield out + in0 * in1` (either operand order) on
/// floats.
bool isMulAddBody(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (!body || body->getNumArguments() != 3)
    return false;
  auto ops = body->without_terminator();
  if (std::distance(ops.begin(), ops.end()) != 2)
    return false;
  auto mul = dyn_cast<arith::MulFOp>(&*ops.begin());
  auto add = dyn_cast<arith::AddFOp>(&*std::next(ops.begin()));
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!mul || !add || !yield || yield.getNumOperands() != 1 ||
      yield.getOperand(0) != add.getResult())
    return false;
  Value a = body->getArgument(0), b = body->getArgument(1),
        out = body->getArgument(2);
  bool mulOk = (mul.getLhs() == a && mul.getRhs() == b) ||
               (mul.getLhs() == b && mul.getRhs() == a);
  bool addOk = (add.getLhs() == out && add.getRhs() == mul.getResult()) ||
               (add.getRhs() == out && add.getLhs() == mul.getResult());
  return mulOk && addOk;
}

/// The loops an indexing map reads, in result order; empty when a result
/// is not a plain loop.
std::optional<SmallVector<unsigned>> mapDims(AffineMap map) {
  SmallVector<unsigned> dims;
  for (AffineExpr expr : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim)
      return std::nullopt;
    dims.push_back(dim.getPosition());
  }
  return dims;
}

/// A linear affine expression in the loops: coefficient per loop; false
/// for anything else (constants included: the input is already padded).
bool linearCoefficients(AffineExpr expr, llvm::DenseMap<unsigned, int64_t> &out,
                        int64_t scale = 1) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
    out[dim.getPosition()] += scale;
    return true;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return false;
  if (bin.getKind() == AffineExprKind::Add)
    return linearCoefficients(bin.getLHS(), out, scale) &&
           linearCoefficients(bin.getRHS(), out, scale);
  if (bin.getKind() == AffineExprKind::Mul) {
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      return linearCoefficients(bin.getLHS(), out, scale * c.getValue());
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getLHS()))
      return linearCoefficients(bin.getRHS(), out, scale * c.getValue());
  }
  return false;
}

struct GemmMatch {
  Value a, b, c;
  bool transA = false, transB = false;
  SmallVector<unsigned> batch, m, n, k;
};

struct ConvMatch {
  Value x, w, y;
  int64_t rank = 0;
  SmallVector<int64_t> strides, dilations;
};

struct CUDALowerLibraryCallsPass
    : public onyx::impl::CUDALowerLibraryCallsBase<CUDALowerLibraryCallsPass> {
  using CUDALowerLibraryCallsBase::CUDALowerLibraryCallsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || func.getNumArguments() == 0 ||
          !isa<ContextType>(func.getArgument(0).getType()))
        continue;
      Value context = func.getArgument(0);
      SmallVector<linalg::LinalgOp> candidates;
      for (Block &block : func.getBody())
        for (Operation &op : block)
          if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
            if (linalgOp.hasPureBufferSemantics())
              candidates.push_back(linalgOp);
      for (linalg::LinalgOp op : candidates) {
        // Fused into an earlier call (a ReLU or bias Add after it).
        if (erased.contains(op.getOperation()))
          continue;
        if (auto gemm = matchGemm(op))
          lowerGemm(module, context, op, *gemm);
        else if (auto conv = matchConv(op))
          lowerConv(module, context, op, *conv);
      }
    }
  }

  //===--------------------------------------------------------------------===//
  // Matching
  //===--------------------------------------------------------------------===//

  /// Operands, maps and body of a 2-input, 1-output f32 mul-add.
  bool isMulAddOp(linalg::LinalgOp op) {
    if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
        op->getNumRegions() != 1 || !isMulAddBody(op))
      return false;
    for (OpOperand &operand : op->getOpOperands())
      if (!isDenseF32(operand.get()))
        return false;
    // The output must not be an input (C = A * B in place). Distinct views
    // of one session pool are disjoint: the pool planner never overlaps
    // buffers that are live together.
    Value out = reshapeRoot(op.getDpsInits()[0]);
    for (Value in : op.getDpsInputs())
      if (reshapeRoot(in) == out)
        return false;
    return true;
  }

  std::optional<GemmMatch> matchGemm(linalg::LinalgOp op) {
    if (!isMulAddOp(op) || op.getNumLoops() != op.getNumParallelLoops() +
                                                   op.getNumReductionLoops())
      return std::nullopt;
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    auto aDims = mapDims(maps[0]), bDims = mapDims(maps[1]),
         cDims = mapDims(maps[2]);
    if (!aDims || !bDims || !cDims)
      return std::nullopt;
    // Classify the loops by the operands they index.
    unsigned numLoops = op.getNumLoops();
    llvm::SmallBitVector inA(numLoops), inB(numLoops), inC(numLoops);
    for (unsigned d : *aDims)
      inA.set(d);
    for (unsigned d : *bDims)
      inB.set(d);
    for (unsigned d : *cDims)
      inC.set(d);
    // Each loop at most once per operand.
    if (inA.count() != aDims->size() || inB.count() != bDims->size() ||
        inC.count() != cDims->size())
      return std::nullopt;
    auto iterators = op.getIteratorTypesArray();
    GemmMatch match;
    for (unsigned d = 0; d < numLoops; ++d) {
      bool reduction = linalg::isReductionIterator(iterators[d]);
      if (inA[d] && inB[d] && inC[d] && !reduction)
        match.batch.push_back(d);
      else if (inA[d] && !inB[d] && inC[d] && !reduction)
        match.m.push_back(d);
      else if (!inA[d] && inB[d] && inC[d] && !reduction)
        match.n.push_back(d);
      else if (inA[d] && inB[d] && !inC[d] && reduction)
        match.k.push_back(d);
      else
        return std::nullopt; // A loop only one operand reads, ...
    }
    if (match.m.empty() || match.n.empty() || match.k.empty())
      return std::nullopt;
    auto contains = [](ArrayRef<unsigned> group, unsigned d) {
      return llvm::is_contained(group, d);
    };
    // C: [batch..., M..., N...]; the orders in C define the groups' orders.
    size_t nb = match.batch.size();
    SmallVector<unsigned> batchOrder(cDims->begin(), cDims->begin() + nb);
    SmallVector<unsigned> mOrder, nOrder, kOrder;
    for (size_t i = nb; i < cDims->size(); ++i) {
      unsigned d = (*cDims)[i];
      if (contains(match.m, d) && nOrder.empty())
        mOrder.push_back(d);
      else if (contains(match.n, d))
        nOrder.push_back(d);
      else
        return std::nullopt;
    }
    for (unsigned d : batchOrder)
      if (!contains(match.batch, d))
        return std::nullopt;
    // An operand is [batch..., first..., second...] with the groups in order.
    auto split = [&](ArrayRef<unsigned> dims, ArrayRef<unsigned> first,
                     ArrayRef<unsigned> second) {
      if (dims.size() != nb + first.size() + second.size() ||
          dims.take_front(nb) != ArrayRef<unsigned>(batchOrder))
        return false;
      ArrayRef<unsigned> rest = dims.drop_front(nb);
      return rest.take_front(first.size()) == first &&
             rest.drop_front(first.size()) == second;
    };
    // K's order is A's.
    for (unsigned d : ArrayRef<unsigned>(*aDims).drop_front(nb))
      if (contains(match.k, d))
        kOrder.push_back(d);
    if (split(*aDims, mOrder, kOrder))
      match.transA = false;
    else if (split(*aDims, kOrder, mOrder))
      match.transA = true;
    else
      return std::nullopt;
    if (split(*bDims, kOrder, nOrder))
      match.transB = false;
    else if (split(*bDims, nOrder, kOrder))
      match.transB = true;
    else
      return std::nullopt;
    match.batch = batchOrder;
    match.m = mOrder;
    match.n = nOrder;
    match.k = kOrder;
    match.a = op.getDpsInputs()[0];
    match.b = op.getDpsInputs()[1];
    match.c = op.getDpsInits()[0];
    return match;
  }

  std::optional<ConvMatch> matchConv(linalg::LinalgOp op) {
    if (!isMulAddOp(op))
      return std::nullopt;
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    auto yDims = mapDims(maps[2]);
    auto wDims = mapDims(maps[1]);
    if (!yDims || !wDims || yDims->size() < 4 || yDims->size() > 6 ||
        wDims->size() != yDims->size() ||
        maps[0].getNumResults() != yDims->size())
      return std::nullopt;
    int64_t rank = int64_t(yDims->size()) - 3;
    unsigned numLoops = op.getNumLoops();
    if (numLoops != unsigned(3 + 2 * rank + 1))
      return std::nullopt;
    unsigned n = (*yDims)[0], g = (*yDims)[1], m = (*yDims)[2];
    if ((*wDims)[0] != g || (*wDims)[1] != m)
      return std::nullopt;
    unsigned c = (*wDims)[2];
    SmallVector<unsigned> outs((*yDims).begin() + 3, (*yDims).end());
    SmallVector<unsigned> taps((*wDims).begin() + 3, (*wDims).end());
    // Every loop exactly once among n, g, m, outs, c, taps.
    llvm::SmallBitVector seen(numLoops);
    SmallVector<unsigned> all = {n, g, m, c};
    all.append(outs);
    all.append(taps);
    for (unsigned d : all) {
      if (seen.test(d))
        return std::nullopt;
      seen.set(d);
    }
    if (seen.count() != numLoops)
      return std::nullopt;
    auto iterators = op.getIteratorTypesArray();
    for (unsigned d : {n, g, m})
      if (!linalg::isParallelIterator(iterators[d]))
        return std::nullopt;
    for (unsigned d : outs)
      if (!linalg::isParallelIterator(iterators[d]))
        return std::nullopt;
    if (!linalg::isReductionIterator(iterators[c]))
      return std::nullopt;
    for (unsigned d : taps)
      if (!linalg::isReductionIterator(iterators[d]))
        return std::nullopt;
    // X[n, g, c, o * s + t * d].
    AffineMap xMap = maps[0];
    auto isDim = [&](unsigned r, unsigned d) {
      auto dim = dyn_cast<AffineDimExpr>(xMap.getResult(r));
      return dim && dim.getPosition() == d;
    };
    if (!isDim(0, n) || !isDim(1, g) || !isDim(2, c))
      return std::nullopt;
    ConvMatch match;
    match.rank = rank;
    for (int64_t i = 0; i < rank; ++i) {
      llvm::DenseMap<unsigned, int64_t> coefficients;
      if (!linearCoefficients(xMap.getResult(3 + i), coefficients))
        return std::nullopt;
      int64_t stride = coefficients.lookup(outs[i]);
      int64_t dilation = coefficients.lookup(taps[i]);
      coefficients.erase(outs[i]);
      coefficients.erase(taps[i]);
      for (auto &entry : coefficients)
        if (entry.second != 0)
          return std::nullopt;
      if (stride <= 0)
        return std::nullopt;
      if (dilation <= 0) {
        // No tap term: only a kernel extent of 1 reads like that.
        auto wType = cast<MemRefType>(op.getDpsInputs()[1].getType());
        if (dilation < 0 || wType.getDimSize(3 + i) != 1)
          return std::nullopt;
        dilation = 1;
      }
      match.strides.push_back(stride);
      match.dilations.push_back(dilation);
    }
    // The group count must be static (it shapes the descriptors).
    auto yType = cast<MemRefType>(op.getDpsInits()[0].getType());
    if (yType.isDynamicDim(1))
      return std::nullopt;
    match.x = op.getDpsInputs()[0];
    match.w = op.getDpsInputs()[1];
    match.y = op.getDpsInits()[0];
    return match;
  }

  //===--------------------------------------------------------------------===//
  // Rewriting
  //===--------------------------------------------------------------------===//

  /// A linalg.fill of zero that initializes exactly `out` right before `op`
  /// (nothing in between writes tensor data): erased, the call then
  /// overwrites instead of accumulating.
  bool absorbZeroFill(Operation *op, Value out) {
    Value root = reshapeRoot(out);
    Operation *prev = op->getPrevNode();
    while (prev && isNeutral(prev))
      prev = prev->getPrevNode();
    // ONNX MatMul's accumulator may come as a copy of a zero-filled buffer
    // (fill %t; ... copy %t -> %c, %t shared by several MatMuls): when the
    // fill, before the copy, is the only writer of %t, the copy goes, and
    // the fill with the last copy.
    if (auto copy = dyn_cast_or_null<memref::CopyOp>(prev)) {
      if (copy.getTarget() != root)
        return false;
      Value source = copy.getSource();
      linalg::FillOp fill;
      // Before the copy, %t is written by the fill alone (later users, such
      // as a MatMul accumulating into %t in place, do not matter).
      for (Operation *user : source.getUsers()) {
        if (user == copy.getOperation() || isa<memref::DimOp>(user))
          continue;
        if (user->getBlock() == copy->getBlock() && copy->isBeforeInBlock(user))
          continue;
        auto other = dyn_cast<memref::CopyOp>(user);
        if (other && other.getSource() == source && other.getTarget() != source)
          continue;
        auto f = dyn_cast<linalg::FillOp>(user);
        if (!f || fill)
          return false;
        fill = f;
      }
      if (!fill || !fill.hasPureBufferSemantics() ||
          fill->getBlock() != copy->getBlock() ||
          !fill->isBeforeInBlock(copy) || !isZeroConstant(fill.getInputs()[0]))
        return false;
      copy->erase();
      if (llvm::all_of(source.getUsers(), [&](Operation *user) {
            return user == fill.getOperation() || isa<memref::DimOp>(user);
          }))
        fill->erase();
      return true;
    }
    for (; prev; prev = prev->getPrevNode()) {
      if (auto fill = dyn_cast<linalg::FillOp>(prev)) {
        if (fill.hasPureBufferSemantics() &&
            reshapeRoot(fill.getDpsInits()[0]) == root) {
          auto cst = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
          auto value = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
          if (value && value.getValue().isZero()) {
            fill.erase();
            return true;
          }
        }
        return false;
      }
      if (isa<linalg::LinalgOp, func::CallOp, gpu::MemcpyOp, memref::StoreOp,
              memref::CopyOp>(prev) ||
          prev->getNumRegions() > 0)
        return false;
    }
    return false;
  }

  func::FuncOp declare(ModuleOp module, StringRef name, ArrayRef<Type> args,
                       Type result) {
    if (auto fn = module.lookupSymbol<func::FuncOp>(name))
      return fn;
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto fn = func::FuncOp::create(b, module.getLoc(), name,
                                   b.getFunctionType(args, {result}));
    fn.setPrivate();
    return fn;
  }

  /// A pointer to a NUL-terminated private global holding `text`.
  Value label(OpBuilder &b, ModuleOp module, Location loc, StringRef text) {
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());
    auto found = labels.find(text);
    std::string name;
    if (found != labels.end()) {
      name = found->second;
    } else {
      name = "onyx_library_label";
      while (module.lookupSymbol(name))
        name = "onyx_library_label_" + std::to_string(++labelCounter);
      std::string bytes = text.str();
      bytes.push_back('\0');
      OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
      auto type = LLVM::LLVMArrayType::get(mb.getI8Type(), bytes.size());
      LLVM::GlobalOp::create(mb, loc, type, /*isConstant=*/true,
                             LLVM::Linkage::Private, name,
                             mb.getStringAttr(bytes), /*alignment=*/1);
      labels[text] = name;
    }
    return LLVM::AddressOfOp::create(b, loc, ptr, name);
  }

  /// The device address of `buffer` (dense, identity layout) as a pointer;
  /// a host constant is read through its session copy.
  Value devicePointer(OpBuilder &b, Location loc, Value context, Value buffer) {
    if (isHostConstant(buffer)) {
      auto type = cast<MemRefType>(buffer.getType());
      auto temp = AllocTempOp::create(b, loc, type, context, ValueRange{});
      auto copy =
          gpu::MemcpyOp::create(b, loc, Type(), ValueRange{}, temp, buffer);
      copy->setAttr(kSessionConstantAttr, b.getUnitAttr());
      buffer = temp;
    }
    Value index =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
    Value bits = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
    return LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), bits);
  }

  Value i64(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  }
  Value i32(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  }
  Value toI64(OpBuilder &b, Location loc, OpFoldResult ofr) {
    if (auto attr = dyn_cast<Attribute>(ofr))
      return i64(b, loc, cast<IntegerAttr>(attr).getInt());
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), cast<Value>(ofr));
  }
  /// Product of the extents of `loops` (i64).
  Value product(OpBuilder &b, Location loc, ArrayRef<Value> sizes,
                ArrayRef<unsigned> loops) {
    Value result = i64(b, loc, 1);
    for (unsigned d : loops)
      result = arith::MulIOp::create(b, loc, result, sizes[d]);
    return result;
  }

  std::string labelFor(Operation *op, StringRef library) {
    std::string node = nodeNameOf(op->getLoc());
    if (node.empty())
      return ("'" + op->getName().getStringRef() + "' (" + library + ")").str();
    return ("node '" + node + "' (" + library + ")").str();
  }

  void emitCall(OpBuilder &b, Location loc, ModuleOp module, StringRef fnName,
                ArrayRef<Value> args) {
    SmallVector<Type> types;
    for (Value a : args)
      types.push_back(a.getType());
    func::FuncOp fn = declare(module, fnName, types, b.getI32Type());
    auto call = func::CallOp::create(b, loc, fn, args);
    call->setAttr(kStatusAttr, b.getUnitAttr());
  }

  /// ONNX MatMul + Add of a bias over the last dim, right after the GEMM:
  /// `out[..., j] = c[..., j] + bias[j]` (either operand order), with `c`
  /// read by nothing else. cuBLASLt's bias epilogue does it.
  linalg::GenericOp findBiasAdd(Operation *gemm, Value c) {
    auto cType = cast<MemRefType>(c.getType());
    for (Operation *next = gemm->getNextNode(); next;
         next = next->getNextNode()) {
      if (isNeutral(next))
        continue;
      auto g = dyn_cast<linalg::GenericOp>(next);
      if (!g || !g.hasPureBufferSemantics() || g.getNumDpsInputs() != 2 ||
          g.getNumDpsInits() != 1 ||
          g.getNumLoops() != g.getNumParallelLoops() ||
          g.getNumLoops() != unsigned(cType.getRank()) ||
          g.getDpsInits()[0].getType() != c.getType() ||
          !isDenseF32(g.getDpsInits()[0]))
        return {};
      SmallVector<AffineMap> maps = g.getIndexingMapsArray();
      int cIndex = g.getDpsInputs()[0] == c ? 0 : 1;
      Value bias = g.getDpsInputs()[1 - cIndex];
      auto biasType = dyn_cast<MemRefType>(bias.getType());
      if (g.getDpsInputs()[cIndex] != c || !maps[cIndex].isIdentity() ||
          !maps[2].isIdentity() || !biasType || biasType.getRank() != 1 ||
          !isDenseF32(bias) || maps[1 - cIndex].getNumResults() != 1 ||
          maps[1 - cIndex].getResult(0) !=
              getAffineDimExpr(g.getNumLoops() - 1, g.getContext()))
        return {};
      Block &body = g.getRegion().front();
      if (body.getOperations().size() != 2)
        return {};
      auto add = dyn_cast<arith::AddFOp>(&body.front());
      if (!add ||
          cast<linalg::YieldOp>(body.getTerminator()).getOperand(0) !=
              add.getResult() ||
          !((add.getLhs() == body.getArgument(0) &&
             add.getRhs() == body.getArgument(1)) ||
            (add.getLhs() == body.getArgument(1) &&
             add.getRhs() == body.getArgument(0))))
        return {};
      return g;
    }
    return {};
  }

  void lowerGemm(ModuleOp module, Value context, linalg::LinalgOp op,
                 const GemmMatch &match) {
    Location loc = op.getLoc();
    bool zeroed = absorbZeroFill(op, match.c);
    // Bias epilogue: one GEMM (no batch) whose N loop is C's last dim,
    // overwriting C, followed by the bias Add; the call writes the Add's
    // output and goes where the Add was.
    Operation *anchor = op;
    Value target = match.c, biasBuffer;
    linalg::GenericOp biasAdd;
    auto cDims = mapDims(op.getIndexingMapsArray()[2]);
    if (zeroed && match.batch.empty() && match.n.size() == 1 && cDims &&
        cDims->back() == match.n.front() &&
        (biasAdd = findBiasAdd(op, match.c)) &&
        (onlyUsedBy(match.c, {op.getOperation(), biasAdd.getOperation()}) ||
         // The Add writes C in place (onyx-elementwise-in-place): later
         // readers of C read the Add's result, which the call writes.
         (biasAdd.getDpsInits()[0] == match.c &&
          !usedBetween(match.c, op, biasAdd)))) {
      anchor = biasAdd;
      target = biasAdd.getDpsInits()[0];
      biasBuffer = biasAdd.getDpsInputs()[0] == match.c
                       ? biasAdd.getDpsInputs()[1]
                       : biasAdd.getDpsInputs()[0];
    } else {
      biasAdd = {};
    }
    OpBuilder b(anchor);
    SmallVector<Value> sizes;
    for (Range range : op.createLoopRanges(b, loc))
      sizes.push_back(toI64(b, loc, range.size));
    Value batch = product(b, loc, sizes, match.batch);
    Value m = product(b, loc, sizes, match.m);
    Value n = product(b, loc, sizes, match.n);
    Value k = product(b, loc, sizes, match.k);
    auto mul = [&](Value x, Value y) -> Value {
      return arith::MulIOp::create(b, loc, x, y);
    };
    int32_t flags = (match.transA ? kGemmTransA : 0) |
                    (match.transB ? kGemmTransB : 0) |
                    (zeroed ? 0 : kGemmAccumulate) | (tf32 ? kGemmTF32 : 0);
    Value lda = match.transA ? m : k;
    Value ldb = match.transB ? k : n;
    SmallVector<Value> args = {context,
                               label(b, module, loc, labelFor(op, "cuBLASLt")),
                               i32(b, loc, kOnyxF32),
                               i32(b, loc, flags),
                               batch,
                               m,
                               n,
                               k,
                               devicePointer(b, loc, context, match.a),
                               lda,
                               mul(m, k),
                               devicePointer(b, loc, context, match.b),
                               ldb,
                               mul(k, n),
                               devicePointer(b, loc, context, target),
                               n,
                               mul(m, n)};
    args.push_back(
        biasBuffer ? devicePointer(b, loc, context, biasBuffer)
                   : Value(LLVM::ZeroOp::create(
                         b, loc, LLVM::LLVMPointerType::get(b.getContext()))));
    emitCall(b, loc, module, kGemmFn, args);
    if (biasAdd)
      eraseLater(biasAdd);
    op->erase();
  }

  static bool isIdentityGeneric(linalg::GenericOp g, unsigned inputs) {
    if (g.getNumDpsInputs() != inputs || g.getNumDpsInits() != 1 ||
        g.getNumLoops() != g.getNumParallelLoops())
      return false;
    return llvm::all_of(g.getIndexingMapsArray(),
                        [](AffineMap m) { return m.isIdentity(); });
  }

  /// The Conv lowering initializes the output with the bias broadcast over
  /// the channels (`yield %bias[c]` into `out`) right before the
  /// convolution: that generic, if it is there.
  linalg::GenericOp findBiasBroadcast(Operation *conv, Value out) {
    for (Operation *prev = conv->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      if (isNeutral(prev))
        continue;
      auto g = dyn_cast<linalg::GenericOp>(prev);
      if (!g || !g.hasPureBufferSemantics() || g.getNumDpsInputs() != 1 ||
          g.getNumDpsInits() != 1 || g.getDpsInits()[0] != out ||
          g.getNumLoops() != g.getNumParallelLoops() || g.getNumLoops() < 3)
        return {};
      SmallVector<AffineMap> maps = g.getIndexingMapsArray();
      auto biasType = dyn_cast<MemRefType>(g.getDpsInputs()[0].getType());
      if (!maps[1].isIdentity() || maps[0].getNumResults() != 1 ||
          maps[0].getResult(0) != getAffineDimExpr(1, g.getContext()) ||
          !biasType || !isDenseF32(g.getDpsInputs()[0]))
        return {};
      Block &body = g.getRegion().front();
      auto yield = cast<linalg::YieldOp>(body.getTerminator());
      if (body.getOperations().size() != 1 ||
          yield.getOperand(0) != body.getArgument(0))
        return {};
      return g;
    }
    return {};
  }

  /// ONNX Relu of the convolution's output right after it: a generic
  /// `max(in, 0)` from `out` into a buffer of the same shape.
  linalg::GenericOp findRelu(Operation *conv, Value out) {
    for (Operation *next = conv->getNextNode(); next;
         next = next->getNextNode()) {
      if (isNeutral(next))
        continue;
      auto g = dyn_cast<linalg::GenericOp>(next);
      if (!g || !g.hasPureBufferSemantics() || !isIdentityGeneric(g, 1) ||
          g.getDpsInputs()[0] != out ||
          g.getDpsInits()[0].getType() != out.getType() ||
          !isDenseF32(g.getDpsInits()[0]))
        return {};
      Block &body = g.getRegion().front();
      if (body.getOperations().size() != 2)
        return {};
      Operation *max = &body.front();
      if (!isa<arith::MaximumFOp, arith::MaxNumFOp>(max) ||
          cast<linalg::YieldOp>(body.getTerminator()).getOperand(0) !=
              max->getResult(0))
        return {};
      auto isZero = [](Value v) {
        auto cst = v.getDefiningOp<arith::ConstantOp>();
        auto value = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
        return value && value.getValue().isZero();
      };
      Value in = body.getArgument(0);
      if (!((max->getOperand(0) == in && isZero(max->getOperand(1))) ||
            (max->getOperand(1) == in && isZero(max->getOperand(0)))))
        return {};
      return g;
    }
    return {};
  }

  /// Whether `buffer` is read only by `allowed` (and views/dims that only
  /// `allowed` use): then what the fused call does not write is never read.
  /// Whether `buffer` (or an expand_shape view of it) is used by an op
  /// strictly between `first` and `last` of one block.
  static bool usedBetween(Value buffer, Operation *first, Operation *last) {
    Block *block = first->getBlock();
    for (Operation *user : buffer.getUsers()) {
      if (isa<memref::DimOp>(user))
        continue;
      if (auto view = dyn_cast<memref::ExpandShapeOp>(user))
        if (usedBetween(view.getResult(), first, last))
          return true;
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock || inBlock == first || inBlock == last)
        continue;
      if (first->isBeforeInBlock(inBlock) && inBlock->isBeforeInBlock(last))
        return true;
    }
    return false;
  }

  static bool onlyUsedBy(Value buffer, ArrayRef<Operation *> allowed) {
    for (Operation *user : buffer.getUsers()) {
      if (isa<memref::DimOp>(user) || llvm::any_of(allowed, [&](Operation *op) {
            return op == user || op->isProperAncestor(user);
          }))
        continue;
      if (auto view = dyn_cast<memref::ExpandShapeOp>(user)) {
        if (onlyUsedBy(view.getResult(), allowed))
          continue;
      }
      return false;
    }
    return true;
  }

  /// The sizes a buffer was given (memref.view / alloc ops), to prove two
  /// buffers have equal dims.
  static std::optional<SmallVector<Value>> dynamicSizes(Value buffer) {
    if (auto view = buffer.getDefiningOp<memref::ViewOp>())
      return SmallVector<Value>(view.getSizes());
    if (auto alloc = buffer.getDefiningOp<AllocTempOp>())
      return SmallVector<Value>(alloc.getDynamicSizes());
    if (auto alloc = buffer.getDefiningOp<AllocOutputOp>())
      return SmallVector<Value>(alloc.getDynamicSizes());
    return std::nullopt;
  }

  /// The residual Add right after a convolution: an elementwise generic
  /// writing `out = y + r` (or r + y) for `y` the convolution's output and a
  /// buffer `r` of the same type and dims. The Add lowering reads its
  /// operands with run-time broadcast selects, `select(dim == 1, 0, i)`,
  /// which are the identity when the operand's dim is the output's. Returns
  /// the generic and `r`.
  std::pair<linalg::GenericOp, Value> findResidualAdd(Operation *conv,
                                                      Value y) {
    auto none = std::make_pair(linalg::GenericOp(), Value());
    Operation *next = conv->getNextNode();
    while (next && isNeutral(next))
      next = next->getNextNode();
    auto g = dyn_cast_or_null<linalg::GenericOp>(next);
    if (!g || !g.hasPureBufferSemantics() || g.getNumDpsInits() != 1 ||
        g.getNumLoops() != g.getNumParallelLoops())
      return none;
    Value out = g.getDpsInits()[0];
    if (out.getType() != y.getType() || !isDenseF32(out) ||
        !g.getIndexingMapsArray().back().isIdentity())
      return none;
    Block &body = g.getRegion().front();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
    if (!add || add->getBlock() != &body)
      return none;
    auto sizes = dynamicSizes(out), ySizes = dynamicSizes(y);
    if (!sizes || !ySizes || *sizes != *ySizes)
      return none;
    auto type = cast<MemRefType>(out.getType());
    // The output's extent of dim d as an SSA value (null when static).
    auto extent = [&](unsigned d) -> Value {
      return type.isDynamicDim(d) ? (*sizes)[type.getDynamicDimIndex(d)]
                                  : Value();
    };
    auto isOne = [](Value v) {
      auto c = getConstantIntValue(v);
      return c && *c == 1;
    };
    // An operand of the add: a block argument of an identity-mapped input,
    // or a load at identity indices (possibly through broadcast selects).
    auto operandBuffer = [&](Value v) -> Value {
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        if (arg.getOwner() != &body ||
            arg.getArgNumber() >= g.getNumDpsInputs())
          return {};
        OpOperand *operand = g.getDpsInputOperand(arg.getArgNumber());
        if (!g.getMatchingIndexingMap(operand).isIdentity())
          return {};
        return operand->get();
      }
      auto load = v.getDefiningOp<memref::LoadOp>();
      if (!load || load->getBlock() != &body)
        return {};
      for (auto [d, index] : llvm::enumerate(load.getIndices())) {
        Value i = index;
        if (auto select = i.getDefiningOp<arith::SelectOp>()) {
          auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
          auto zero = getConstantIntValue(select.getTrueValue());
          // select(extent_d == 1, 0, i): i itself, as i < extent_d.
          if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq || !zero ||
              *zero != 0 || !extent(d) ||
              !((cmp.getLhs() == extent(d) && isOne(cmp.getRhs())) ||
                (cmp.getRhs() == extent(d) && isOne(cmp.getLhs()))))
            return {};
          i = select.getFalseValue();
        }
        auto idx = i.getDefiningOp<linalg::IndexOp>();
        if (!idx || idx.getDim() != d)
          return {};
      }
      Value buffer = load.getMemRef();
      auto bufferSizes = dynamicSizes(buffer);
      if (buffer.getType() != out.getType() || !bufferSizes ||
          *bufferSizes != *sizes)
        return {};
      return buffer;
    };
    Value lhs = operandBuffer(add.getLhs()), rhs = operandBuffer(add.getRhs());
    if (!lhs || !rhs || !isDenseF32(lhs) || !isDenseF32(rhs))
      return none;
    // Nothing else in the body has effects.
    for (Operation &inner : body.without_terminator())
      if (!isa<linalg::IndexOp, arith::SelectOp, arith::CmpIOp,
               arith::ConstantOp, memref::LoadOp, arith::AddFOp>(inner))
        return none;
    if (lhs == y && rhs != y)
      return {g, rhs};
    if (rhs == y && lhs != y)
      return {g, lhs};
    return none;
  }

  void lowerConv(ModuleOp module, Value context, linalg::LinalgOp op,
                 const ConvMatch &match) {
    Location loc = op.getLoc();
    // Bias and ReLU fused into the call (cuDNN's bias-activation
    // convolution): the broadcast generic before and the Relu generic after
    // disappear, the call writes the ReLU's output.
    Value yRoot = reshapeRoot(match.y);
    Value target = match.y;
    Value biasBuffer;
    int32_t fused = 0;
    // The call goes where the last op it replaces was (the ReLU's output
    // buffer may be defined after the convolution).
    Operation *anchor = op;
    linalg::GenericOp fusedRelu, fusedAdd;
    Value residual;
    if (linalg::GenericOp bias = findBiasBroadcast(op, yRoot)) {
      linalg::GenericOp relu = findRelu(op, yRoot);
      SmallVector<Operation *> users = {bias, op};
      if (relu)
        users.push_back(relu);
      if (relu && onlyUsedBy(yRoot, users)) {
        target = relu.getDpsInits()[0];
        fused = kConvRelu;
        fusedRelu = relu;
        anchor = relu;
      } else if (auto [add, other] = findResidualAdd(op, yRoot); add) {
        // ResNet's block tail: relu(conv + bias + residual), one call
        // (cuDNN's z operand).
        Value sum = add.getDpsInits()[0];
        linalg::GenericOp relu2 = findRelu(add, sum);
        if (relu2 && onlyUsedBy(yRoot, {bias, op, add}) &&
            (relu2.getDpsInits()[0] == sum ||
             onlyUsedBy(sum, {add.getOperation(), relu2.getOperation()}))) {
          target = relu2.getDpsInits()[0];
          residual = other;
          fused = kConvRelu;
          fusedAdd = add;
          fusedRelu = relu2;
          anchor = relu2;
        }
      }
      biasBuffer = bias.getDpsInputs()[0];
      bias->erase();
    }
    bool zeroed = biasBuffer || absorbZeroFill(op, match.y);
    OpBuilder b(anchor);
    auto dim = [&](Value buffer, int64_t d) -> Value {
      auto type = cast<MemRefType>(buffer.getType());
      if (!type.isDynamicDim(d))
        return i64(b, loc, type.getDimSize(d));
      return arith::IndexCastOp::create(
          b, loc, b.getI64Type(), memref::DimOp::create(b, loc, buffer, d));
    };
    auto mul = [&](Value x, Value y) -> Value {
      return arith::MulIOp::create(b, loc, x, y);
    };
    int64_t r = match.rank;
    Value g = dim(match.y, 1);
    // N, C, M, G, in..., kernel..., out..., pads..., strides...,
    // dilations....
    SmallVector<Value> dims = {dim(match.y, 0), mul(g, dim(match.x, 2)),
                               mul(g, dim(match.y, 2)), g};
    for (int64_t i = 0; i < r; ++i)
      dims.push_back(dim(match.x, 3 + i));
    for (int64_t i = 0; i < r; ++i)
      dims.push_back(dim(match.w, 3 + i));
    for (int64_t i = 0; i < r; ++i)
      dims.push_back(dim(match.y, 3 + i));
    for (int64_t i = 0; i < r; ++i)
      dims.push_back(i64(b, loc, 0));
    for (int64_t i = 0; i < r; ++i)
      dims.push_back(i64(b, loc, match.strides[i]));
    for (int64_t i = 0; i < r; ++i)
      dims.push_back(i64(b, loc, match.dilations[i]));
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());
    Value array = LLVM::AllocaOp::create(b, loc, ptr, b.getI64Type(),
                                         i64(b, loc, int64_t(dims.size())), 8);
    for (auto [i, value] : llvm::enumerate(dims)) {
      Value address = LLVM::GEPOp::create(b, loc, ptr, b.getI64Type(), array,
                                          ArrayRef<LLVM::GEPArg>{int32_t(i)});
      LLVM::StoreOp::create(b, loc, value, address);
    }
    int32_t flags =
        (zeroed ? 0 : kConvAccumulate) | (tf32 ? kConvTF32 : 0) | fused;
    Value biasPointer = biasBuffer ? devicePointer(b, loc, context, biasBuffer)
                                   : Value(LLVM::ZeroOp::create(b, loc, ptr));
    SmallVector<Value> args = {context,
                               label(b, module, loc, labelFor(op, "cuDNN")),
                               i32(b, loc, kOnyxF32),
                               i32(b, loc, flags),
                               i64(b, loc, r),
                               array,
                               devicePointer(b, loc, context, match.x),
                               devicePointer(b, loc, context, match.w),
                               biasPointer,
                               residual
                                   ? devicePointer(b, loc, context, residual)
                                   : Value(LLVM::ZeroOp::create(b, loc, ptr)),
                               devicePointer(b, loc, context, target)};
    emitCall(b, loc, module, kConvFn, args);
    if (fusedAdd)
      eraseLater(fusedAdd);
    if (fusedRelu)
      eraseLater(fusedRelu);
    op->erase();
  }

  /// Erases a candidate that has not been visited yet.
  void eraseLater(Operation *op) {
    erased.insert(op);
    op->erase();
  }

  llvm::StringMap<std::string> labels;
  unsigned labelCounter = 0;
  llvm::DenseSet<Operation *> erased;
};

} // namespace
