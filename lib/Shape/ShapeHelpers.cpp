//===- ShapeHelpers.cpp - The one place result shapes are computed --------===//

#include "onyx/Shape/ShapeHelpers.h"

#include "onyx/Dialect/Onyx/OnyxDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace onyx::shape {

OpFoldResult getDim(OpBuilder &b, Location loc, Value value, int64_t index) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.isDynamicDim(index))
    return b.getIndexAttr(type.getDimSize(index));
  return tensor::DimOp::create(b, loc, value, index).getResult();
}

SmallVector<OpFoldResult> getDims(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> dims;
  for (int64_t i = 0; i < type.getRank(); ++i)
    dims.push_back(getDim(b, loc, value, i));
  return dims;
}

std::optional<int64_t> getStatic(OpFoldResult dim) {
  return getConstantIntValue(dim);
}

namespace {
thread_local const DimEquivalence *activeEquivalence = nullptr;
} // namespace

ScopedDimEquivalence::ScopedDimEquivalence(const DimEquivalence *equivalence)
    : previous(activeEquivalence) {
  activeEquivalence = equivalence;
}

ScopedDimEquivalence::~ScopedDimEquivalence() { activeEquivalence = previous; }

bool provablyEqual(OpFoldResult a, OpFoldResult b) {
  auto sa = getStatic(a), sb = getStatic(b);
  if (sa && sb)
    return *sa == *sb;
  if (sa || sb)
    return false;
  Value va = cast<Value>(a), vb = cast<Value>(b);
  if (va == vb)
    return true;
  // The same dim of the same tensor, read twice.
  auto da = va.getDefiningOp<tensor::DimOp>();
  auto db = vb.getDefiningOp<tensor::DimOp>();
  if (!da || !db)
    return false;
  auto ia = getConstantIntValue(da.getIndex());
  auto ib = getConstantIntValue(db.getIndex());
  if (!ia || !ib)
    return false;
  if (da.getSource() == db.getSource() && *ia == *ib)
    return true;
  return activeEquivalence &&
         (*activeEquivalence)(da.getSource(), *ia, db.getSource(), *ib);
}

Value toValue(OpBuilder &b, Location loc, OpFoldResult dim) {
  if (auto s = getStatic(dim))
    return arith::ConstantIndexOp::create(b, loc, *s);
  return cast<Value>(dim);
}

SmallVector<int64_t> toStaticShape(ArrayRef<OpFoldResult> dims) {
  SmallVector<int64_t> shape;
  for (OpFoldResult d : dims)
    shape.push_back(getStatic(d).value_or(ShapedType::kDynamic));
  return shape;
}

namespace {

Value isOneValue(OpBuilder &b, Location loc, OpFoldResult dim) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                               toValue(b, loc, dim), one);
}

/// Run-time check: `dim` is 1 or equal to `result`.
void assertBroadcastable(OpBuilder &b, Location loc, OpFoldResult dim,
                         OpFoldResult result, size_t operand, int64_t axis) {
  Value d = toValue(b, loc, dim), r = toValue(b, loc, result);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d, r);
  Value isOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d, one);
  Value ok = arith::OrIOp::create(b, loc, eq, isOne);
  std::string message = "cannot broadcast operand " + std::to_string(operand) +
                        " dim " + std::to_string(axis) +
                        " of extent {0} against extent {1}";
  AssertOp::create(b, loc, ok, b.getStringAttr(message), ValueRange{d, r});
}

} // namespace

OpFoldResult productOf(OpBuilder &b, Location loc,
                       ArrayRef<OpFoldResult> dims) {
  int64_t staticPart = 1;
  Value dynamicPart;
  for (OpFoldResult d : dims) {
    if (auto s = getStatic(d)) {
      staticPart *= *s;
      continue;
    }
    Value v = cast<Value>(d);
    dynamicPart =
        dynamicPart ? arith::MulIOp::create(b, loc, dynamicPart, v).getResult()
                    : v;
  }
  if (!dynamicPart)
    return b.getIndexAttr(staticPart);
  if (staticPart == 1)
    return dynamicPart;
  return arith::MulIOp::create(
             b, loc, dynamicPart,
             arith::ConstantIndexOp::create(b, loc, staticPart))
      .getResult();
}

FailureOr<BroadcastShape>
broadcastDims(OpBuilder &b, Location loc,
              ArrayRef<SmallVector<OpFoldResult>> operandDims,
              Operation *diagOp) {
  size_t rank = 0;
  for (const auto &dims : operandDims)
    rank = std::max(rank, dims.size());

  BroadcastShape result;
  result.dims.resize(rank);
  // Operand dim aligned to result axis `axis`, if the operand has it.
  auto operandDim = [&](size_t operand,
                        size_t axis) -> std::optional<OpFoldResult> {
    const auto &dims = operandDims[operand];
    size_t offset = rank - dims.size();
    if (axis < offset)
      return std::nullopt;
    return dims[axis - offset];
  };

  for (size_t axis = 0; axis < rank; ++axis) {
    // A static extent other than 1 decides the result; otherwise the
    // dynamic extents do (first one not equal to 1 at run time).
    std::optional<int64_t> staticExtent;
    SmallVector<OpFoldResult> dynamics;
    for (size_t i = 0; i < operandDims.size(); ++i) {
      auto dim = operandDim(i, axis);
      if (!dim)
        continue;
      if (auto s = getStatic(*dim)) {
        if (*s == 1)
          continue;
        if (staticExtent && *staticExtent != *s)
          return diagOp->emitError()
                 << "incompatible broadcast dims " << *staticExtent << " and "
                 << *s << " (output axis " << axis << ")";
        staticExtent = *s;
      } else if (llvm::none_of(dynamics, [&](OpFoldResult d) {
                   return provablyEqual(d, *dim);
                 })) {
        dynamics.push_back(*dim);
      }
    }
    if (staticExtent) {
      result.dims[axis] = b.getIndexAttr(*staticExtent);
    } else if (dynamics.empty()) {
      result.dims[axis] = b.getIndexAttr(1);
    } else {
      Value r = toValue(b, loc, dynamics.front());
      for (size_t i = 1; i < dynamics.size(); ++i) {
        Value d = toValue(b, loc, dynamics[i]);
        Value rIsOne = isOneValue(b, loc, r);
        r = arith::SelectOp::create(b, loc, rIsOne, d, r);
      }
      result.dims[axis] = r;
    }
  }

  for (size_t i = 0; i < operandDims.size(); ++i) {
    OperandBroadcast ob;
    const auto &dims = operandDims[i];
    size_t offset = rank - dims.size();
    for (size_t j = 0; j < dims.size(); ++j) {
      OpFoldResult res = result.dims[offset + j];
      if (provablyEqual(dims[j], res)) {
        ob.kinds.push_back(BroadcastKind::Equal);
        ob.isOne.push_back(Value());
      } else if (getStatic(dims[j]) == 1) {
        ob.kinds.push_back(BroadcastKind::One);
        ob.isOne.push_back(Value());
      } else {
        assertBroadcastable(b, loc, dims[j], res, i, int64_t(offset + j));
        ob.kinds.push_back(BroadcastKind::Runtime);
        ob.isOne.push_back(isOneValue(b, loc, dims[j]));
      }
    }
    result.operands.push_back(std::move(ob));
  }
  return result;
}

FailureOr<BroadcastShape> broadcastShapes(OpBuilder &b, Location loc,
                                          ValueRange operands,
                                          Operation *diagOp) {
  SmallVector<SmallVector<OpFoldResult>> dims;
  for (Value v : operands)
    dims.push_back(getDims(b, loc, v));
  return broadcastDims(b, loc, dims, diagOp);
}

FailureOr<OperandBroadcast> broadcastTo(OpBuilder &b, Location loc,
                                        ArrayRef<OpFoldResult> dims,
                                        ArrayRef<OpFoldResult> target,
                                        Operation *diagOp,
                                        unsigned operandIndex) {
  if (dims.size() > target.size())
    return diagOp->emitError() << "cannot broadcast a rank-" << dims.size()
                               << " operand to rank " << target.size();
  OperandBroadcast ob;
  size_t offset = target.size() - dims.size();
  for (size_t j = 0; j < dims.size(); ++j) {
    OpFoldResult t = target[offset + j];
    if (provablyEqual(dims[j], t)) {
      ob.kinds.push_back(BroadcastKind::Equal);
      ob.isOne.push_back(Value());
      continue;
    }
    auto s = getStatic(dims[j]);
    if (s == 1) {
      ob.kinds.push_back(BroadcastKind::One);
      ob.isOne.push_back(Value());
      continue;
    }
    if (s && getStatic(t))
      return diagOp->emitError()
             << "cannot broadcast dim " << j << " of extent " << *s
             << " to extent " << *getStatic(t);
    assertBroadcastable(b, loc, dims[j], t, operandIndex, int64_t(offset + j));
    ob.kinds.push_back(BroadcastKind::Runtime);
    ob.isOne.push_back(isOneValue(b, loc, dims[j]));
  }
  return ob;
}

LogicalResult checkEqual(OpBuilder &b, Location loc, OpFoldResult lhs,
                         OpFoldResult rhs, StringRef what, Operation *diagOp) {
  if (provablyEqual(lhs, rhs))
    return success();
  auto sl = getStatic(lhs), sr = getStatic(rhs);
  if (sl && sr)
    return diagOp->emitError() << what << " mismatch: " << *sl << " vs " << *sr;
  Value l = toValue(b, loc, lhs), r = toValue(b, loc, rhs);
  Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, l, r);
  AssertOp::create(b, loc, eq,
                   b.getStringAttr(what.str() + " mismatch: {0} vs {1}"),
                   ValueRange{l, r});
  return success();
}

FailureOr<MatMulShape> matmulShape(OpBuilder &b, Location loc, Value lhs,
                                   Value rhs, Operation *diagOp) {
  SmallVector<OpFoldResult> a = getDims(b, loc, lhs);
  SmallVector<OpFoldResult> c = getDims(b, loc, rhs);
  if (a.empty() || c.empty())
    return diagOp->emitError("MatMul operands must have rank >= 1");
  MatMulShape shape;
  shape.lhsIsVector = a.size() == 1;
  shape.rhsIsVector = c.size() == 1;
  shape.k = a.back();
  OpFoldResult rhsK = shape.rhsIsVector ? c[0] : c[c.size() - 2];
  if (failed(
          checkEqual(b, loc, shape.k, rhsK, "MatMul contraction dim", diagOp)))
    return failure();
  shape.m =
      shape.lhsIsVector ? OpFoldResult(b.getIndexAttr(1)) : a[a.size() - 2];
  shape.n = shape.rhsIsVector ? OpFoldResult(b.getIndexAttr(1)) : c.back();
  SmallVector<OpFoldResult> aBatch(a.begin(),
                                   a.end() - (shape.lhsIsVector ? 1 : 2));
  SmallVector<OpFoldResult> cBatch(c.begin(),
                                   c.end() - (shape.rhsIsVector ? 1 : 2));
  auto batch = broadcastDims(b, loc, {aBatch, cBatch}, diagOp);
  if (failed(batch))
    return failure();
  shape.batch = std::move(*batch);
  shape.dims = shape.batch.dims;
  if (!shape.lhsIsVector)
    shape.dims.push_back(shape.m);
  if (!shape.rhsIsVector)
    shape.dims.push_back(shape.n);
  return shape;
}

FailureOr<GemmShape> gemmShape(OpBuilder &b, Location loc, Value a, Value bMat,
                               bool transA, bool transB, Operation *diagOp) {
  auto ad = getDims(b, loc, a), bd = getDims(b, loc, bMat);
  if (ad.size() != 2 || bd.size() != 2)
    return diagOp->emitError("Gemm operands A and B must have rank 2");
  GemmShape shape;
  shape.m = transA ? ad[1] : ad[0];
  shape.k = transA ? ad[0] : ad[1];
  shape.n = transB ? bd[0] : bd[1];
  OpFoldResult bk = transB ? bd[1] : bd[0];
  if (failed(checkEqual(b, loc, shape.k, bk, "Gemm contraction dim", diagOp)))
    return failure();
  return shape;
}

SmallVector<OpFoldResult> transposeShape(OpBuilder &b, Location loc,
                                         Value input, ArrayRef<int64_t> perm) {
  SmallVector<OpFoldResult> dims = getDims(b, loc, input);
  SmallVector<OpFoldResult> result;
  for (size_t i = 0; i < dims.size(); ++i)
    result.push_back(perm.empty() ? dims[dims.size() - 1 - i] : dims[perm[i]]);
  return result;
}

FailureOr<SmallVector<OpFoldResult>>
reshapeShape(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> shape,
             bool allowZero, Operation *diagOp) {
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  SmallVector<OpFoldResult> out;
  int64_t inferIndex = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t v = shape[i];
    if (v == -1) {
      if (inferIndex >= 0)
        return diagOp->emitError("Reshape: more than one -1 in the shape");
      inferIndex = int64_t(i);
      out.push_back(b.getIndexAttr(1)); // placeholder
    } else if (v == 0 && !allowZero) {
      if (i >= in.size())
        return diagOp->emitError()
               << "Reshape: shape entry " << i
               << " is 0 but the input has rank " << in.size();
      out.push_back(in[i]);
    } else if (v < 0) {
      return diagOp->emitError() << "Reshape: invalid shape entry " << v;
    } else {
      out.push_back(b.getIndexAttr(v));
    }
  }
  if (inferIndex >= 0 && allowZero && llvm::is_contained(shape, 0))
    return diagOp->emitError("Reshape: -1 together with 0 and allowzero=1");

  // Element counts, folded where static.
  auto product = [&](ArrayRef<OpFoldResult> dims, int64_t skip) {
    int64_t staticPart = 1;
    Value dynamicPart;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (int64_t(i) == skip)
        continue;
      if (auto s = getStatic(dims[i])) {
        staticPart *= *s;
        continue;
      }
      Value d = cast<Value>(dims[i]);
      dynamicPart =
          dynamicPart
              ? arith::MulIOp::create(b, loc, dynamicPart, d).getResult()
              : d;
    }
    return std::make_pair(staticPart, dynamicPart);
  };
  auto [inStatic, inDynamic] = product(in, -1);
  auto [outStatic, outDynamic] = product(out, inferIndex);

  if (inferIndex >= 0) {
    if (!inDynamic && !outDynamic) {
      if (outStatic == 0 || inStatic % outStatic != 0)
        return diagOp->emitError()
               << "Reshape: cannot infer the -1 dim: " << inStatic
               << " elements into blocks of " << outStatic;
      out[inferIndex] = b.getIndexAttr(inStatic / outStatic);
      return out;
    }
    Value total = arith::ConstantIndexOp::create(b, loc, inStatic);
    if (inDynamic)
      total = arith::MulIOp::create(b, loc, total, inDynamic);
    Value known = arith::ConstantIndexOp::create(b, loc, outStatic);
    if (outDynamic)
      known = arith::MulIOp::create(b, loc, known, outDynamic);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value knownIsZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, known, zero);
    Value safeKnown = arith::SelectOp::create(b, loc, knownIsZero, one, known);
    Value rem = arith::RemUIOp::create(b, loc, total, safeKnown);
    Value remZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem, zero);
    Value knownNonZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, known, zero);
    Value ok = arith::AndIOp::create(b, loc, remZero, knownNonZero);
    AssertOp::create(
        b, loc, ok,
        b.getStringAttr("Reshape: cannot infer the -1 dim: {0} elements "
                        "into blocks of {1}"),
        ValueRange{total, known});
    out[inferIndex] =
        arith::DivUIOp::create(b, loc, total, safeKnown).getResult();
    return out;
  }

  // No inference: the counts must agree.
  if (!inDynamic && !outDynamic) {
    if (inStatic != outStatic)
      return diagOp->emitError()
             << "Reshape: the input has " << inStatic
             << " elements but the target shape holds " << outStatic;
    return out;
  }
  Value inCount = arith::ConstantIndexOp::create(b, loc, inStatic);
  if (inDynamic)
    inCount = arith::MulIOp::create(b, loc, inCount, inDynamic);
  Value outCount = arith::ConstantIndexOp::create(b, loc, outStatic);
  if (outDynamic)
    outCount = arith::MulIOp::create(b, loc, outCount, outDynamic);
  Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, inCount,
                                   outCount);
  AssertOp::create(b, loc, eq,
                   b.getStringAttr("Reshape: the input has {0} elements but "
                                   "the target shape holds {1}"),
                   ValueRange{inCount, outCount});
  return out;
}

FailureOr<SmallVector<OpFoldResult>>
reshapeShapeFromTensor(OpBuilder &b, Location loc, Value input,
                       Value shapeTensor, int64_t rank, bool allowZero,
                       Operation *diagOp) {
  auto shapeType = cast<RankedTensorType>(shapeTensor.getType());
  if (shapeType.getRank() != 1)
    return diagOp->emitError("Reshape: the shape input must be 1-D");
  SmallVector<OpFoldResult> in = getDims(b, loc, input);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value minusOne = arith::ConstantIndexOp::create(b, loc, -1);
  if (shapeType.isDynamicDim(0)) {
    Value length = tensor::DimOp::create(b, loc, shapeTensor, 0);
    Value expected = arith::ConstantIndexOp::create(b, loc, rank);
    Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, length,
                                     expected);
    AssertOp::create(b, loc, ok,
                     b.getStringAttr("Reshape: the shape input has {0} "
                                     "entries but the result has rank {1}"),
                     ValueRange{length, expected});
  }
  Value inCount = toValue(b, loc, productOf(b, loc, in));
  SmallVector<Value> dims, isInfer;
  Value numInfer = zero, allValid = arith::ConstantIntOp::create(b, loc, 1, 1);
  Value known = one;
  for (int64_t i = 0; i < rank; ++i) {
    Value idx = arith::ConstantIndexOp::create(b, loc, i);
    Value raw = tensor::ExtractOp::create(b, loc, shapeTensor, idx);
    Value e = arith::IndexCastOp::create(b, loc, b.getIndexType(), raw);
    Value d = e;
    if (!allowZero) {
      Value isZero =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, e, zero);
      // 0 copies the input dim; past the input's rank it is invalid.
      Value copied = i < int64_t(in.size()) ? toValue(b, loc, in[i]) : minusOne;
      if (i >= int64_t(in.size()))
        allValid = arith::AndIOp::create(
            b, loc, allValid,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, e, zero));
      d = arith::SelectOp::create(b, loc, isZero, copied, e);
    }
    Value infer =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, e, minusOne);
    Value valid =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, e, minusOne);
    allValid = arith::AndIOp::create(b, loc, allValid, valid);
    numInfer = arith::AddIOp::create(
        b, loc, numInfer, arith::SelectOp::create(b, loc, infer, one, zero));
    known = arith::MulIOp::create(
        b, loc, known, arith::SelectOp::create(b, loc, infer, one, d));
    dims.push_back(d);
    isInfer.push_back(infer);
  }
  Value atMostOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, numInfer, one);
  AssertOp::create(b, loc, arith::AndIOp::create(b, loc, allValid, atMostOne),
                   b.getStringAttr("Reshape: invalid target shape (entries "
                                   "below -1, more than one -1, or 0 past "
                                   "the input rank)"),
                   ValueRange{});
  Value knownIsZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, known, zero);
  Value safeKnown = arith::SelectOp::create(b, loc, knownIsZero, one, known);
  Value inferred = arith::DivUIOp::create(b, loc, inCount, safeKnown);
  SmallVector<OpFoldResult> result;
  Value outCount = one;
  for (int64_t i = 0; i < rank; ++i) {
    Value d = arith::SelectOp::create(b, loc, isInfer[i], inferred, dims[i]);
    outCount = arith::MulIOp::create(b, loc, outCount, d);
    result.push_back(d);
  }
  Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, inCount,
                                   outCount);
  AssertOp::create(b, loc, eq,
                   b.getStringAttr("Reshape: the input has {0} elements but "
                                   "the target shape holds {1}"),
                   ValueRange{inCount, outCount});
  return result;
}

SmallVector<OpFoldResult> flattenShape(OpBuilder &b, Location loc, Value input,
                                       int64_t axis) {
  SmallVector<OpFoldResult> dims = getDims(b, loc, input);
  ArrayRef<OpFoldResult> all(dims);
  return {productOf(b, loc, all.take_front(axis)),
          productOf(b, loc, all.drop_front(axis))};
}

SmallVector<OpFoldResult> dropDim(ArrayRef<OpFoldResult> dims, int64_t axis) {
  SmallVector<OpFoldResult> result;
  for (size_t i = 0; i < dims.size(); ++i)
    if (int64_t(i) != axis)
      result.push_back(dims[i]);
  return result;
}

} // namespace onyx::shape
