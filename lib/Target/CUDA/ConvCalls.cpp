//===- ConvCalls.cpp - Convolutions as cuDNN calls ------------------------===//
//
// The grouped convolution generic of the ONNX Conv lowering
// (Y[n, g, m, o...] += X[n, g, c, o * s + t * d] * W[g, m, c, t...], the
// input already padded; 1-3 spatial dims, a static group count) becomes
// `onyxrt_cuda_conv` with the dims packed in a stack array: N, C, M, G,
// in..., kernel..., out..., pads (0), strides..., dilations...
// (runtime/include/onyx/onyx_runtime.h). The Conv lowering's bias broadcast
// before it, a Relu after it, and ResNet's block tail
// `relu(conv + bias + residual)` are folded into the call (cuDNN's
// bias-activation convolution, the residual as its `z` operand) when
// nothing else reads the intermediate buffers. f32, f16 and bf16 (one
// element type for the operands and the fused buffers); f16 / bf16 run on
// tensor cores with f32 accumulation, their epilogues in the half type's
// form (`truncf(max(extf(x), 0))`, `truncf(extf(a) + extf(b))`).
// The channels-last form of onyx-cuda-channels-last
// (Y[n, o..., g, m] += X[n, o * s + t * d..., g, c] * W[g, m, c, t...]) is
// the same call with ONYXRT_CONV_NHWC (the bias over the last dim).
//
//===----------------------------------------------------------------------===//

#include "LibraryCalls.h"

#include "../CPU/ConvMatchers.h"

#include "onyx/Dialect/Onyx/OnyxDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace onyx::cuda {

namespace {

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

bool isIdentityGeneric(linalg::GenericOp g, unsigned inputs) {
  if (g.getNumDpsInputs() != inputs || g.getNumDpsInits() != 1 ||
      g.getNumLoops() != g.getNumParallelLoops())
    return false;
  return llvm::all_of(g.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); });
}

/// The Conv lowering initializes the output with the bias broadcast over
/// the channels (`yield %bias[c]` into `out`) right before the
/// convolution: that generic, if it is there.
linalg::GenericOp findBiasBroadcast(Operation *conv, Value out,
                                    bool channelsLast) {
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
    unsigned channel = channelsLast ? g.getNumLoops() - 1 : 1;
    if (!maps[1].isIdentity() || maps[0].getNumResults() != 1 ||
        maps[0].getResult(0) != getAffineDimExpr(channel, g.getContext()) ||
        !biasType ||
        !isDenseOf(g.getDpsInputs()[0],
                   cast<MemRefType>(out.getType()).getElementType()))
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
        !isDenseFloat(g.getDpsInits()[0]))
      return {};
    // max(x, 0) in f32; truncf(max(extf(x), 0)) in f16, and in bf16 with
    // the conversions either native or written out with integer ops.
    Block &body = g.getRegion().front();
    SmallVector<Operation *> steps;
    Value result = cast<linalg::YieldOp>(body.getTerminator()).getOperand(0);
    Value maxValue = stripRounding(result, steps);
    Operation *max = maxValue.getDefiningOp();
    if (!max || max->getBlock() != &body ||
        !isa<arith::MaximumFOp, arith::MaxNumFOp>(max))
      return {};
    steps.push_back(max);
    Value in = body.getArgument(0);
    Value lhs = stripExtension(max->getOperand(0), steps);
    Value rhs = stripExtension(max->getOperand(1), steps);
    if (!((lhs == in && isZeroConstant(max->getOperand(1))) ||
          (rhs == in && isZeroConstant(max->getOperand(0)))))
      return {};
    // Nothing but the max and its conversions.
    for (Operation &inner : body.without_terminator())
      if (!llvm::is_contained(steps, &inner) && !isa<arith::ConstantOp>(inner))
        return {};
    return g;
  }
  return {};
}

/// The residual Add right after a convolution: an elementwise generic
/// writing `out = y + r` (or r + y) for `y` the convolution's output and a
/// buffer `r` of the same type and dims. The Add lowering reads its
/// operands with run-time broadcast selects, `select(dim == 1, 0, i)`,
/// which are the identity when the operand's dim is the output's. Returns
/// the generic and `r`. In f16 / bf16 elementwise fusion may already have
/// merged the Relu after it into the same generic,
/// `truncf(max(extf(truncf(extf(y) + extf(r))), 0))`: then `withRelu`.
struct ResidualAdd {
  linalg::GenericOp add;
  Value residual;
  bool withRelu = false;
};
ResidualAdd findResidualAdd(Operation *conv, Value y) {
  ResidualAdd none;
  Operation *next = conv->getNextNode();
  while (next && isNeutral(next))
    next = next->getNextNode();
  auto g = dyn_cast_or_null<linalg::GenericOp>(next);
  if (!g || !g.hasPureBufferSemantics() || g.getNumDpsInits() != 1 ||
      g.getNumLoops() != g.getNumParallelLoops())
    return none;
  Value out = g.getDpsInits()[0];
  if (out.getType() != y.getType() || !isDenseFloat(out) ||
      !g.getIndexingMapsArray().back().isIdentity())
    return none;
  Block &body = g.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  // y + r in f32; truncf(extf(y) + extf(r)) in f16 / bf16 (bf16's
  // conversions possibly written out with integer ops), possibly inside the
  // merged Relu's truncf(max(extf(...), 0)). `steps`: the ops they take.
  SmallVector<Operation *> steps;
  Value result = yield.getOperand(0);
  bool withRelu = false;
  Value sum;
  {
    SmallVector<Operation *> reluSteps;
    Value inner = stripRounding(result, reluSteps);
    auto max = inner.getDefiningOp<arith::MaximumFOp>();
    if (max && max->getBlock() == &body && inner != result &&
        isZeroConstant(max.getRhs())) {
      reluSteps.push_back(max);
      // The sum's rounding extended again: truncf / extf pairs, or bf16's
      // integer form with the bitcasts between folded away.
      if (Value rounded = stripExtendedRounding(max.getLhs(), reluSteps)) {
        withRelu = true;
        steps = std::move(reluSteps);
        sum = rounded;
      }
    }
  }
  if (!sum)
    sum = stripRounding(result, steps);
  bool half = withRelu || sum != result;
  auto add = sum.getDefiningOp<arith::AddFOp>();
  if (!add || add->getBlock() != &body)
    return none;
  steps.push_back(add);
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
      if (arg.getOwner() != &body || arg.getArgNumber() >= g.getNumDpsInputs())
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
  Value lhsValue = stripExtension(add.getLhs(), steps),
        rhsValue = stripExtension(add.getRhs(), steps);
  if (half != (lhsValue != add.getLhs()) || half != (rhsValue != add.getRhs()))
    return none;
  Value lhs = operandBuffer(lhsValue), rhs = operandBuffer(rhsValue);
  Type elementType = type.getElementType();
  if (!lhs || !rhs || !isDenseOf(lhs, elementType) ||
      !isDenseOf(rhs, elementType))
    return none;
  // Nothing else in the body has effects or computes (the steps are the
  // add's, its conversions and the Relu's).
  for (Operation &inner : body.without_terminator()) {
    if (llvm::is_contained(steps, &inner))
      continue;
    if (!isa<linalg::IndexOp, arith::SelectOp, arith::CmpIOp, arith::ConstantOp,
             memref::LoadOp>(inner))
      return none;
  }
  if (lhs == y && rhs != y)
    return {g, rhs, withRelu};
  if (rhs == y && lhs != y)
    return {g, lhs, withRelu};
  return none;
}

} // namespace

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
  // Y[n, g, m, o...], or Y[n, o..., g, m] channels last.
  unsigned g = (*wDims)[0], m = (*wDims)[1];
  bool channelsLast = (*yDims)[1] != g;
  if (channelsLast && ((*yDims)[rank + 1] != g || (*yDims)[rank + 2] != m))
    return std::nullopt;
  if (!channelsLast && (*yDims)[2] != m)
    return std::nullopt;
  unsigned n = (*yDims)[0], c = (*wDims)[2];
  unsigned firstOut = channelsLast ? 1 : 3;
  SmallVector<unsigned> outs((*yDims).begin() + firstOut,
                             (*yDims).begin() + firstOut + rank);
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
  // X[n, g, c, o * s + t * d], or X[n, o * s + t * d, g, c].
  AffineMap xMap = maps[0];
  auto isDim = [&](unsigned r, unsigned d) {
    auto dim = dyn_cast<AffineDimExpr>(xMap.getResult(r));
    return dim && dim.getPosition() == d;
  };
  unsigned xGroup = channelsLast ? unsigned(rank) + 1 : 1;
  if (!isDim(0, n) || !isDim(xGroup, g) || !isDim(xGroup + 1, c))
    return std::nullopt;
  ConvMatch match;
  match.rank = rank;
  match.channelsLast = channelsLast;
  for (int64_t i = 0; i < rank; ++i) {
    llvm::DenseMap<unsigned, int64_t> coefficients;
    if (!linearCoefficients(xMap.getResult(firstOut + i), coefficients))
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
  if (yType.isDynamicDim(channelsLast ? rank + 1 : 1))
    return std::nullopt;
  match.x = op.getDpsInputs()[0];
  match.w = op.getDpsInputs()[1];
  match.y = op.getDpsInits()[0];
  return match;
}

/// `v` as `base + offset` through additions and subtractions of constants.
static std::pair<Value, int64_t> baseAndOffset(Value v) {
  int64_t offset = 0;
  while (true) {
    if (auto add = v.getDefiningOp<arith::AddIOp>()) {
      if (auto c = getConstantIntValue(add.getRhs())) {
        offset += *c;
        v = add.getLhs();
        continue;
      }
      if (auto c = getConstantIntValue(add.getLhs())) {
        offset += *c;
        v = add.getRhs();
        continue;
      }
    }
    if (auto sub = v.getDefiningOp<arith::SubIOp>())
      if (auto c = getConstantIntValue(sub.getRhs())) {
        offset -= *c;
        v = sub.getLhs();
        continue;
      }
    return {v, offset};
  }
}

/// Whether the padded buffer's extent of dim `d` is the source's plus
/// `total` (both pads of that dim): statically, or as sizes that differ by
/// that constant (`h + 3` against `h + 1`).
static bool isPaddedExtent(Value padded, Value src, int64_t d, int64_t total) {
  auto paddedType = cast<MemRefType>(padded.getType());
  auto srcType = cast<MemRefType>(src.getType());
  if (!paddedType.isDynamicDim(d))
    return !srcType.isDynamicDim(d) &&
           paddedType.getDimSize(d) == srcType.getDimSize(d) + total;
  auto sizes = dynamicSizes(padded);
  if (!sizes || !srcType.isDynamicDim(d))
    return false;
  auto [paddedBase, paddedOffset] =
      baseAndOffset((*sizes)[paddedType.getDynamicDimIndex(d)]);
  if (paddedOffset == total && cpu_conv::isExtent(paddedBase, src, d))
    return true;
  auto srcSizes = dynamicSizes(src);
  if (!srcSizes)
    return false;
  auto [srcBase, srcOffset] =
      baseAndOffset((*srcSizes)[srcType.getDynamicDimIndex(d)]);
  return paddedBase == srcBase && paddedOffset == srcOffset + total;
}

void lowerConv(LibraryCallBuilder &calls, Value context, linalg::LinalgOp op,
               const ConvMatch &match, bool foldPadding) {
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
  int64_t r = match.rank;
  linalg::GenericOp bias = findBiasBroadcast(op, yRoot, match.channelsLast);
  // The zero padding of the input, when symmetric (cuDNN's pads): the call
  // reads the unpadded source, which nothing touches between the padding
  // and the call (only neutral ops and the bias broadcast sit there).
  Value xSource;
  SmallVector<int64_t> pads(r, 0);
  linalg::GenericOp padding;
  if (foldPadding) {
    Value xRoot = reshapeRoot(match.x), source;
    SmallVector<int64_t> allPads;
    if (linalg::GenericOp found = cpu_conv::findPadding(
            op, bias, xRoot, source, allPads, nullptr, match.channelsLast)) {
      auto rootType = cast<MemRefType>(xRoot.getType());
      int64_t firstSpatial = match.channelsLast ? 1 : 2;
      // Between the padding and the convolution nothing but the bias
      // broadcast (folded into the call, so gone) may touch the source:
      // bufferization may have given the broadcast the source's buffer,
      // dead after the padding. The call's output may then overlap its
      // input, which the runtime computes through a scratch buffer.
      bool ok =
          rootType.getRank() == r + 2 && onlyUsedBy(xRoot, {found, op}, found);
      for (Operation *at = found->getNextNode(); ok && at && at != op;
           at = at->getNextNode())
        ok = at == bias.getOperation() || isNeutral(at);
      for (int64_t i = 0; ok && i < r; ++i) {
        int64_t d = firstSpatial + i;
        ok = isPaddedExtent(xRoot, source, d, 2 * allPads[d]);
        pads[i] = allPads[d];
      }
      if (ok) {
        padding = found;
        xSource = source;
      } else {
        pads.assign(r, 0);
      }
    }
  }
  if (bias) {
    linalg::GenericOp relu = findRelu(op, yRoot);
    SmallVector<Operation *> users = {bias, op};
    if (relu)
      users.push_back(relu);
    // A Relu in place over the output leaves the final value in yRoot for
    // the readers after it (see the add below).
    if (relu && onlyUsedBy(yRoot, users, bias,
                           relu.getDpsInits()[0] == yRoot ? relu.getOperation()
                                                          : nullptr)) {
      target = relu.getDpsInits()[0];
      fused = kConvRelu;
      fusedRelu = relu;
      anchor = relu;
    } else if (auto [add, other, withRelu] = findResidualAdd(op, yRoot); add) {
      // ResNet's block tail: relu(conv + bias + residual), one call
      // (cuDNN's z operand).
      Value sum = add.getDpsInits()[0];
      // The add may write over this convolution's own output (an in-place
      // elementwise op: ResNet's downsample branch, the second operand):
      // yRoot's readers after the tail then want the final value, which the
      // call leaves there.
      bool overY = sum == yRoot;
      if (withRelu &&
          onlyUsedBy(yRoot, {bias, op, add}, bias, overY ? add : nullptr)) {
        // Add and Relu already one generic (f16 / bf16).
        target = sum;
        residual = other;
        fused = kConvRelu;
        fusedAdd = add;
        anchor = add;
      }
      linalg::GenericOp relu2 =
          withRelu ? linalg::GenericOp() : findRelu(add, sum);
      if (relu2 &&
          onlyUsedBy(yRoot, {bias, op, add, relu2}, bias,
                     overY ? relu2.getOperation() : nullptr) &&
          (relu2.getDpsInits()[0] == sum ||
           onlyUsedBy(sum, {add.getOperation(), relu2.getOperation()}, add))) {
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
      return calls.i64(b, loc, type.getDimSize(d));
    return arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                      memref::DimOp::create(b, loc, buffer, d));
  };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulIOp::create(b, loc, x, y);
  };
  // Where the group, per-group channels and spatial dims are in x and y.
  int64_t groupDim = match.channelsLast ? r + 1 : 1;
  int64_t spatial = match.channelsLast ? 1 : 3;
  Value g = dim(match.y, groupDim);
  // N, C, M, G, in..., kernel..., out..., pads..., strides...,
  // dilations....
  SmallVector<Value> dims = {dim(match.y, 0),
                             mul(g, dim(match.x, groupDim + 1)),
                             mul(g, dim(match.y, groupDim + 1)), g};
  // The source's spatial dims when the padding folded ([N, C, in...] or
  // [N, in..., C]), else the padded input's.
  for (int64_t i = 0; i < r; ++i)
    dims.push_back(xSource ? dim(xSource, (match.channelsLast ? 1 : 2) + i)
                           : dim(match.x, spatial + i));
  for (int64_t i = 0; i < r; ++i)
    dims.push_back(dim(match.w, 3 + i));
  for (int64_t i = 0; i < r; ++i)
    dims.push_back(dim(match.y, spatial + i));
  for (int64_t i = 0; i < r; ++i)
    dims.push_back(calls.i64(b, loc, pads[i]));
  for (int64_t i = 0; i < r; ++i)
    dims.push_back(calls.i64(b, loc, match.strides[i]));
  for (int64_t i = 0; i < r; ++i)
    dims.push_back(calls.i64(b, loc, match.dilations[i]));
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value array = LLVM::AllocaOp::create(
      b, loc, ptr, b.getI64Type(), calls.i64(b, loc, int64_t(dims.size())), 8);
  for (auto [i, value] : llvm::enumerate(dims)) {
    Value address = LLVM::GEPOp::create(b, loc, ptr, b.getI64Type(), array,
                                        ArrayRef<LLVM::GEPArg>{int32_t(i)});
    LLVM::StoreOp::create(b, loc, value, address);
  }
  int32_t elementCode = *libraryElementCode(elementTypeOf(match.y));
  // TF32 is a choice for f32 alone.
  bool tf32 = calls.tf32 && elementCode == kOnyxF32;
  int32_t flags =
      (zeroed ? 0 : kConvAccumulate) | (tf32 ? kConvTF32 : 0) | fused;
  // Channels last: the runtime reads the weights as KRSC, a copy it keeps
  // for the session when they are a constant.
  if (match.channelsLast)
    flags |= kConvNHWC |
             (isHostConstant(reshapeRoot(match.w)) ? kConvConstFilter : 0);
  Value biasPointer = biasBuffer
                          ? calls.devicePointer(b, loc, context, biasBuffer)
                          : Value(LLVM::ZeroOp::create(b, loc, ptr));
  SmallVector<Value> args = {
      context,
      calls.label(b, loc, calls.labelFor(op, "cuDNN")),
      calls.i32(b, loc, elementCode),
      calls.i32(b, loc, flags),
      calls.i64(b, loc, r),
      array,
      calls.devicePointer(b, loc, context, xSource ? xSource : match.x),
      calls.devicePointer(b, loc, context, match.w),
      biasPointer,
      residual ? calls.devicePointer(b, loc, context, residual)
               : Value(LLVM::ZeroOp::create(b, loc, ptr)),
      calls.devicePointer(b, loc, context, target)};
  calls.emitCall(b, loc, kConvFn, args);
  if (padding)
    calls.eraseLater(padding);
  if (fusedAdd)
    calls.eraseLater(fusedAdd);
  if (fusedRelu)
    calls.eraseLater(fusedRelu);
  op->erase();
}

} // namespace onyx::cuda
