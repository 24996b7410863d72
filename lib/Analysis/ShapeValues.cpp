//===- ShapeValues.cpp - Shape values and the shared broadcast ------------===//
//
// Two services of the DimAnalysis engine to the rules: the elements of small
// integer tensors that hold shapes (read from constants, computed by rules,
// or fresh unknown nodes), and multidirectional broadcasting decided by the
// shared shape library (onyx::shape::broadcastDims) on placeholder values,
// one per set of equal dims, in a detached scratch block.
//
//===----------------------------------------------------------------------===//

#include "DimAnalysisEngine.h"

#include "onyx/Dialect/ONNX/ONNXDialect.h"
#include "onyx/Shape/ShapeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

using namespace mlir;
using namespace onyx;
using namespace onyx::dim_analysis_detail;

namespace {
/// Longest 1-D integer tensor whose elements are tracked.
constexpr int64_t kMaxContent = 64;

bool isContentType(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || !ranked.hasStaticShape() || ranked.getRank() > 1)
    return false;
  if (ranked.getRank() == 1 && ranked.getDimSize(0) > kMaxContent)
    return false;
  Type elt = ranked.getElementType();
  return elt.isIndex() || isa<IntegerType>(elt);
}

/// Integer elements of a small constant (at most kMaxContent).
std::optional<SmallVector<int64_t>> readConstantInts(Value v) {
  return onnx::getConstantInts(v, kMaxContent);
}
} // namespace

//===----------------------------------------------------------------------===//
// Contents of shape values
//===----------------------------------------------------------------------===//

const SymList *Engine::content(Value v) {
  if (!v || !isContentType(v.getType()))
    return nullptr;
  auto it = contents.find(v);
  if (it != contents.end()) {
    auto t = contentTime.find(v);
    if (t != contentTime.end())
      notePremise(t->second);
    return &it->second;
  }
  SymList elements;
  if (auto values = readConstantInts(v)) {
    for (int64_t x : *values)
      elements.push_back(Sym::constant(x));
  } else {
    auto type = cast<RankedTensorType>(v.getType());
    int64_t count = type.getRank() == 0 ? 1 : type.getDimSize(0);
    for (int64_t i = 0; i < count; ++i)
      elements.push_back(Sym::of(newNode(v, i, /*isElement=*/true)));
  }
  return &(contents[v] = std::move(elements));
}

void Engine::setContent(Value v, SymList elements) {
  if (!isContentType(v.getType()))
    return;
  auto type = cast<RankedTensorType>(v.getType());
  int64_t count = type.getRank() == 0 ? 1 : type.getDimSize(0);
  if (int64_t(elements.size()) != count)
    return;
  auto it = contents.find(v);
  if (it == contents.end()) {
    contents[v] = std::move(elements);
    contentTime[v] = factTime();
    return;
  }
  // Already read (e.g. by a scoped analysis): the two descriptions agree.
  SymList existing = it->second;
  for (size_t i = 0; i < elements.size(); ++i)
    relate(existing[i], elements[i], "shape value");
}

std::optional<SmallVector<int64_t>> Engine::constantInts(Value v) {
  const SymList *elements = content(v);
  if (!elements)
    return std::nullopt;
  SmallVector<int64_t> result;
  for (Sym s : *elements) {
    auto c = constantOf(s);
    if (!c)
      return std::nullopt;
    result.push_back(*c);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Broadcast through the shared shape library
//===----------------------------------------------------------------------===//

SmallVector<std::optional<Sym>> Engine::broadcast(ArrayRef<SymList> operands) {
  size_t rank = 0;
  for (const SymList &dims : operands)
    rank = std::max(rank, dims.size());
  SmallVector<std::optional<Sym>> result(rank);

  // Canonical forms; two different static extents other than 1 make the op
  // fail at run time: nothing to prove (and no diagnostic from here).
  SmallVector<SymList> canon;
  for (const SymList &dims : operands) {
    SymList c;
    for (Sym s : dims)
      c.push_back(canonical(s));
    canon.push_back(std::move(c));
  }
  for (size_t axis = 0; axis < rank; ++axis) {
    std::optional<int64_t> extent;
    for (const SymList &dims : canon) {
      if (axis < rank - dims.size())
        continue;
      Sym s = dims[axis - (rank - dims.size())];
      if (!s.isConstant() || s.offset == 1)
        continue;
      if (extent && *extent != s.offset)
        return result;
      extent = s.offset;
    }
  }

  // Each set (root, offset) becomes one placeholder value of the scratch
  // block, so the library's "provably equal" is "same set" here.
  if (rank == 0)
    return result;
  // (The scratch block has no parent region to take the context from.)
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(scratch.get());
  Location loc = UnknownLoc::get(ctx);
  SmallVector<Sym> argSym;
  DenseMap<std::pair<NodeId, int64_t>, unsigned> argOf;
  auto placeholder = [&](Sym s) -> OpFoldResult {
    if (s.isConstant())
      return b.getIndexAttr(s.offset);
    unsigned index;
    auto key = std::make_pair(s.node, s.offset);
    auto it = s.node == kNoNode ? argOf.end() : argOf.find(key);
    if (it != argOf.end()) {
      index = it->second;
    } else {
      index = argSym.size();
      argSym.push_back(s);
      if (s.node != kNoNode)
        argOf[key] = index;
    }
    while (scratch->getNumArguments() <= index)
      scratch->addArgument(b.getIndexType(), loc);
    return scratch->getArgument(index);
  };
  SmallVector<SmallVector<OpFoldResult>> dims;
  for (const SymList &list : canon) {
    SmallVector<OpFoldResult> d;
    for (Sym s : list)
      d.push_back(placeholder(s));
    dims.push_back(std::move(d));
  }
  Operation *diagOp = current ? current : traceRoot;
  FailureOr<shape::BroadcastShape> shape =
      shape::broadcastDims(b, loc, dims, diagOp);
  if (succeeded(shape)) {
    for (size_t axis = 0; axis < rank; ++axis) {
      OpFoldResult d = shape->dims[axis];
      if (auto c = shape::getStatic(d)) {
        result[axis] = Sym::constant(*c);
        continue;
      }
      auto arg = dyn_cast<BlockArgument>(cast<Value>(d));
      if (arg && arg.getOwner() == scratch.get() &&
          argSym[arg.getArgNumber()].node != kNoNode)
        result[axis] = argSym[arg.getArgNumber()];
    }
  }
  // Drop the run-time checks and selects the helper built.
  while (!scratch->empty())
    scratch->back().erase();
  return result;
}
