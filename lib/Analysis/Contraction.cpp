//===- Contraction.cpp - Recognizing contractions in linalg ops -----------===//
//
// include/onyx/Analysis/Contraction.h. The body test is shared by both
// forms; matchContractionGroups classifies loops by the operands that read
// them (any number of loops per group, no broadcasts), matchRowMajorGemm
// reads loops by position (one loop per group, batch dims that A or B may
// broadcast), which is what one BLAS call per batch index can take.
//
//===----------------------------------------------------------------------===//

#include "onyx/Analysis/Contraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace onyx {

bool isMultiplyAccumulate(linalg::LinalgOp op) {
  if (op->getNumRegions() != 1)
    return false;
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

bool isContractionOrConvolution(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumReductionLoops() == 0)
    return false;
  if (!isa<linalg::GenericOp>(op))
    return true; // matmul, batch_matmul, conv_*, ...
  Block &body = op->getRegion(0).front();
  unsigned numInputs = linalgOp.getNumDpsInputs();
  auto isInput = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == &body && arg.getArgNumber() < numInputs;
  };
  for (Operation &inner : body.without_terminator())
    if (isa<arith::MulFOp, arith::MulIOp>(inner) &&
        isInput(inner.getOperand(0)) && isInput(inner.getOperand(1)) &&
        inner.getOperand(0) != inner.getOperand(1))
      return true;
  return false;
}

namespace {

/// The loops a map's results name, in order; std::nullopt when a result is
/// not a plain loop.
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

/// Matches the trailing two results of `map` against loops (row, col) or
/// (col, row), and its leading results against batch loops or constant 0.
std::optional<MatrixOperand> matchMatrix(AffineMap map, unsigned row,
                                         unsigned col, unsigned numBatch) {
  if (map.getNumResults() < 2)
    return std::nullopt;
  MatrixOperand access;
  unsigned n = map.getNumResults();
  for (unsigned i = 0; i + 2 < n; ++i) {
    AffineExpr e = map.getResult(i);
    if (auto c = dyn_cast<AffineConstantExpr>(e)) {
      if (c.getValue() != 0)
        return std::nullopt;
      access.batchLoops.push_back(-1);
    } else if (auto d = dyn_cast<AffineDimExpr>(e)) {
      if (d.getPosition() >= numBatch)
        return std::nullopt;
      access.batchLoops.push_back(d.getPosition());
    } else {
      return std::nullopt;
    }
  }
  auto r = dyn_cast<AffineDimExpr>(map.getResult(n - 2));
  auto c = dyn_cast<AffineDimExpr>(map.getResult(n - 1));
  if (!r || !c)
    return std::nullopt;
  if (r.getPosition() == row && c.getPosition() == col)
    return access;
  if (r.getPosition() == col && c.getPosition() == row) {
    access.transposed = true;
    return access;
  }
  return std::nullopt;
}

} // namespace

std::optional<ContractionGroups> matchContractionGroups(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !isMultiplyAccumulate(op) ||
      op.getNumLoops() != op.getNumParallelLoops() + op.getNumReductionLoops())
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
  ContractionGroups match;
  for (unsigned d = 0; d < numLoops; ++d) {
    bool reduction = iterators[d] == utils::IteratorType::reduction;
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
  return match;
}

std::optional<RowMajorGemm> matchRowMajorGemm(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return std::nullopt;
  unsigned numLoops = op.getNumLoops();
  if (numLoops < 3)
    return std::nullopt;
  auto iterators = op.getIteratorTypesArray();
  for (unsigned i = 0; i + 1 < numLoops; ++i)
    if (iterators[i] != utils::IteratorType::parallel)
      return std::nullopt;
  if (iterators.back() != utils::IteratorType::reduction)
    return std::nullopt;
  unsigned numBatch = numLoops - 3, m = numBatch, n = numBatch + 1,
           k = numBatch + 2;
  auto maps = op.getIndexingMapsArray();
  // The output is (batch..., m, n) in loop order.
  AffineMap out = maps[2];
  if (out.getNumResults() != numBatch + 2)
    return std::nullopt;
  for (unsigned i = 0; i < numBatch + 2; ++i) {
    auto d = dyn_cast<AffineDimExpr>(out.getResult(i));
    if (!d || d.getPosition() != i)
      return std::nullopt;
  }
  auto a = matchMatrix(maps[0], m, k, numBatch);
  auto b = matchMatrix(maps[1], k, n, numBatch);
  if (!a || !b || !isMultiplyAccumulate(op))
    return std::nullopt;
  return RowMajorGemm{numBatch, *a, *b};
}

} // namespace onyx
