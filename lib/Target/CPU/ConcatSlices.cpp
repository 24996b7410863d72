//===- ConcatSlices.cpp - Convolution outputs written into a Concat -------===//
//
// See ConcatSlices.h. The legality argument: the call moves the values the
// copy wrote from the copy's position to the call's; in between, nothing
// reads B (its readers come after the copy) and nothing writes the slice
// (the other writers of B write other channels), so B holds the same
// values after the copy's position as before, and y is read by nothing
// else.
//
//===----------------------------------------------------------------------===//

#include "ConcatSlices.h"
#include "ConvMatchers.h"

#include "onyx/Dialect/Onyx/OnyxDialect.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace onyx {
namespace {

using cpu_conv::isDenseF32;

/// `buffer`'s users are all dims, `allowed` (or inside them), or views
/// whose users are.
bool usedOnlyBy(Value buffer, ArrayRef<Operation *> allowed) {
  for (Operation *user : buffer.getUsers()) {
    if (isa<memref::DimOp>(user) || llvm::any_of(allowed, [&](Operation *op) {
          return op == user || op->isProperAncestor(user);
        }))
      continue;
    if (auto view = dyn_cast<memref::ExpandShapeOp>(user))
      if (usedOnlyBy(view.getResult(), allowed))
        continue;
    if (auto view = dyn_cast<memref::CollapseShapeOp>(user))
      if (usedOnlyBy(view.getResult(), allowed))
        continue;
    return false;
  }
  return true;
}

/// The static channel range [lo, hi) of a subview that only copies write
/// (and dims read), or nullopt.
std::optional<std::pair<int64_t, int64_t>>
copiedChannels(memref::SubViewOp view) {
  for (Operation *user : view.getResult().getUsers()) {
    if (isa<memref::DimOp>(user))
      continue;
    // Bufferization's in-place insert_slice leaves a copy onto itself (a
    // no-op the canonicalizer drops).
    if (auto self = dyn_cast<memref::CopyOp>(user);
        self && self.getSource() == self.getTarget())
      continue;
    auto copy = dyn_cast<linalg::CopyOp>(user);
    if (!copy || copy.getOutputs()[0] != view.getResult() ||
        llvm::is_contained(copy.getInputs(), view.getResult()))
      return std::nullopt;
  }
  ArrayRef<int64_t> offsets = view.getStaticOffsets(),
                    sizes = view.getStaticSizes();
  if (offsets.size() < 2 || ShapedType::isDynamic(offsets[1]) ||
      ShapedType::isDynamic(sizes[1]) || view.getDroppedDims().any())
    return std::nullopt;
  return std::make_pair(offsets[1], offsets[1] + sizes[1]);
}

/// Whether `size` (a subview's size of dim d) is B's extent there.
bool isFullExtent(OpFoldResult size, Value buffer, int64_t d) {
  auto type = cast<MemRefType>(buffer.getType());
  if (auto attr = dyn_cast<Attribute>(size))
    return !type.isDynamicDim(d) &&
           cast<IntegerAttr>(attr).getInt() == type.getDimSize(d);
  if (!type.isDynamicDim(d))
    return false;
  auto value = cast<Value>(size);
  if (auto dim = value.getDefiningOp<memref::DimOp>()) {
    std::optional<int64_t> index = dim.getConstantIndex();
    if (dim.getSource() == buffer && index && *index == d)
      return true;
  }
  if (auto alloc = buffer.getDefiningOp<AllocTempOp>())
    return alloc.getDynamicSizes()[type.getDynamicDimIndex(d)] == value;
  return false;
}

/// Whether `op`, in `at`'s block after `at`, can move right before `at`.
bool canMoveBefore(Operation *op, Operation *at) {
  for (Value operand : op->getOperands()) {
    Operation *def = operand.getDefiningOp();
    if (!def)
      continue; // a block argument: defined before every op of the block
    Operation *ancestor = at->getBlock()->findAncestorOpInBlock(*def);
    if (ancestor && !ancestor->isBeforeInBlock(at))
      return false;
  }
  return true;
}

} // namespace

std::optional<ConcatSlice> findConcatSlice(Value y, Operation *at,
                                           ArrayRef<Operation *> writers,
                                           const SliceWrites &sliceWrites) {
  if (!isDenseF32(y))
    return std::nullopt;
  linalg::CopyOp copy;
  for (Operation *user : y.getUsers())
    if (auto c = dyn_cast<linalg::CopyOp>(user);
        c && c.getInputs()[0] == y && !copy)
      copy = c;
  if (!copy || copy->getBlock() != at->getBlock() ||
      !at->isBeforeInBlock(copy) || !copy.hasPureBufferSemantics())
    return std::nullopt;
  SmallVector<Operation *> allowed(writers.begin(), writers.end());
  allowed.push_back(copy);
  if (!usedOnlyBy(y, allowed))
    return std::nullopt;
  auto view = copy.getOutputs()[0].getDefiningOp<memref::SubViewOp>();
  if (!view)
    return std::nullopt;
  Value buffer = view.getSource();
  auto yType = cast<MemRefType>(y.getType());
  auto bufferType = dyn_cast<MemRefType>(buffer.getType());
  if (!isDenseF32(buffer) || bufferType.getRank() != yType.getRank() ||
      yType.getRank() < 3 || buffer == y)
    return std::nullopt;
  // Offsets 0 but in the channel dim, unit strides, full spatial extents.
  std::optional<std::pair<int64_t, int64_t>> mine = copiedChannels(view);
  if (!mine)
    return std::nullopt;
  for (auto [d, offset] : llvm::enumerate(view.getStaticOffsets()))
    if (d != 1 && offset != 0)
      return std::nullopt;
  for (int64_t stride : view.getStaticStrides())
    if (stride != 1)
      return std::nullopt;
  SmallVector<OpFoldResult> sizes = view.getMixedSizes();
  for (int64_t d = 2; d < yType.getRank(); ++d)
    if (!isFullExtent(sizes[d], buffer, d))
      return std::nullopt;
  // The other users of B.
  auto disjoint = [&](std::pair<int64_t, int64_t> range) {
    return range.second <= mine->first || mine->second <= range.first;
  };
  for (Operation *user : buffer.getUsers()) {
    if (user == view || isa<memref::DimOp>(user))
      continue;
    if (auto other = dyn_cast<memref::SubViewOp>(user))
      if (std::optional<std::pair<int64_t, int64_t>> range =
              copiedChannels(other);
          range && disjoint(*range))
        continue;
    if (auto it = sliceWrites.find(user);
        it != sliceWrites.end() && disjoint(it->second))
      continue;
    Operation *ancestor = copy->getBlock()->findAncestorOpInBlock(*user);
    if (!ancestor || !copy->isBeforeInBlock(ancestor))
      return std::nullopt;
  }
  // B's allocation before the call.
  Operation *alloc = buffer.getDefiningOp();
  if (!alloc || !isa<AllocTempOp>(alloc) || alloc->getBlock() != at->getBlock())
    return std::nullopt;
  if (at->isBeforeInBlock(alloc)) {
    if (!canMoveBefore(alloc, at))
      return std::nullopt;
    alloc->moveBefore(at);
  }
  return ConcatSlice{copy, buffer, mine->first, mine->second};
}

} // namespace onyx
