//===- TensorExtents.cpp - The extent of a tensor dim, traced -------------===//

#include "TensorExtents.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

using namespace mlir;

Value onyx::stripSameSelect(Value v) {
  while (auto sel = v.getDefiningOp<arith::SelectOp>()) {
    if (sel.getTrueValue() != sel.getFalseValue())
      break;
    v = sel.getTrueValue();
  }
  return v;
}

OpFoldResult onyx::extentOf(Value t, int64_t pos) {
  // Bounded: a chain of casts and destinations is short in practice.
  for (int depth = 0; depth <= 64; ++depth) {
    auto type = dyn_cast<RankedTensorType>(t.getType());
    if (!type || pos >= type.getRank())
      return {};
    if (!type.isDynamicDim(pos))
      return IntegerAttr::get(IndexType::get(t.getContext()),
                              type.getDimSize(pos));
    Operation *def = t.getDefiningOp();
    if (!def)
      return {};
    if (auto empty = dyn_cast<tensor::EmptyOp>(def))
      return stripSameSelect(empty.getDynamicSize(pos));
    if (auto reshape = dyn_cast<tensor::ReshapeOp>(def)) {
      auto from = reshape.getShape().getDefiningOp<tensor::FromElementsOp>();
      return from ? OpFoldResult(stripSameSelect(from.getElements()[pos]))
                  : OpFoldResult();
    }
    if (auto cast = dyn_cast<tensor::CastOp>(def)) {
      t = cast.getSource();
      continue;
    }
    auto dps = dyn_cast<DestinationStyleOpInterface>(def);
    if (!dps)
      return {};
    t = dps.getTiedOpOperand(cast<OpResult>(t))->get();
  }
  return {};
}

bool onyx::sameExtent(OpFoldResult a, OpFoldResult b) {
  if (!a || !b)
    return false;
  if (auto va = dyn_cast<Value>(a))
    if (auto vb = dyn_cast<Value>(b))
      return stripSameSelect(va) == stripSameSelect(vb);
  std::optional<int64_t> ca = getConstantIntValue(a),
                         cb = getConstantIntValue(b);
  return ca && cb && *ca == *cb;
}
