//===- IndexMath.cpp - Folding index math and integer-list inputs ---------===//
//
// IndexMath (index arithmetic on OpFoldResults that folds what is static,
// and the checks it emits) and IntList (an integer-list input known at
// compile time or read at run time), declared in
// onyx/Shape/DataMovementShapes.h, on which the data-movement shape
// formulas (DataMovementShapes.cpp, DataMovementIndexingShapes.cpp) are
// written.
//
//===----------------------------------------------------------------------===//

#include "onyx/Shape/DataMovementShapes.h"

#include "onyx/Dialect/Onyx/OnyxDialect.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using arith::CmpIPredicate;

namespace onyx::shape {

//===----------------------------------------------------------------------===//
// IndexMath
//===----------------------------------------------------------------------===//

namespace {

int64_t floorDivInt(int64_t x, int64_t y) {
  int64_t q = x / y, r = x % y;
  return (r != 0 && ((r < 0) != (y < 0))) ? q - 1 : q;
}

int64_t ceilDivInt(int64_t x, int64_t y) {
  int64_t q = x / y, r = x % y;
  return (r != 0 && ((r < 0) == (y < 0))) ? q + 1 : q;
}

bool evalPredicate(CmpIPredicate pred, int64_t x, int64_t y) {
  switch (pred) {
  case CmpIPredicate::eq:
    return x == y;
  case CmpIPredicate::ne:
    return x != y;
  case CmpIPredicate::slt:
    return x < y;
  case CmpIPredicate::sle:
    return x <= y;
  case CmpIPredicate::sgt:
    return x > y;
  case CmpIPredicate::sge:
    return x >= y;
  default:
    llvm_unreachable("index comparisons are signed");
  }
}

/// `message` with {i} replaced by the static value of args[i] ("?" when
/// only known at run time).
std::string formatStatic(StringRef message, ArrayRef<OpFoldResult> args) {
  std::string text = message.str();
  for (size_t i = 0; i < args.size(); ++i) {
    std::string key = "{" + std::to_string(i) + "}";
    auto s = getStatic(args[i]);
    std::string v = s ? std::to_string(*s) : "?";
    for (size_t pos = text.find(key); pos != std::string::npos;
         pos = text.find(key, pos + v.size()))
      text.replace(pos, key.size(), v);
  }
  return text;
}

} // namespace

OpFoldResult IndexMath::cst(int64_t v) { return b.getIndexAttr(v); }

Value IndexMath::value(OpFoldResult v) { return toValue(b, loc, v); }

Value IndexMath::value(Cond c) {
  if (c.known)
    return arith::ConstantIntOp::create(b, loc, *c.known ? 1 : 0, 1);
  return c.value;
}

OpFoldResult IndexMath::add(OpFoldResult x, OpFoldResult y) {
  auto sx = getStatic(x), sy = getStatic(y);
  if (sx && sy)
    return cst(*sx + *sy);
  if (sx == 0)
    return y;
  if (sy == 0)
    return x;
  return arith::AddIOp::create(b, loc, value(x), value(y)).getResult();
}

OpFoldResult IndexMath::sub(OpFoldResult x, OpFoldResult y) {
  auto sx = getStatic(x), sy = getStatic(y);
  if (sx && sy)
    return cst(*sx - *sy);
  if (sy == 0)
    return x;
  if (provablyEqual(x, y))
    return cst(0);
  return arith::SubIOp::create(b, loc, value(x), value(y)).getResult();
}

OpFoldResult IndexMath::mul(OpFoldResult x, OpFoldResult y) {
  auto sx = getStatic(x), sy = getStatic(y);
  if (sx && sy)
    return cst(*sx * *sy);
  if (sx == 1)
    return y;
  if (sy == 1)
    return x;
  if (sx == 0 || sy == 0)
    return cst(0);
  return arith::MulIOp::create(b, loc, value(x), value(y)).getResult();
}

OpFoldResult IndexMath::floorDiv(OpFoldResult x, OpFoldResult y) {
  auto sx = getStatic(x), sy = getStatic(y);
  if (sx && sy && *sy != 0)
    return cst(floorDivInt(*sx, *sy));
  if (sy == 1)
    return x;
  // arith.floordivsi needs arith-expand, which the CPU pipeline does not
  // run: divsi rounds toward zero, so step down when the signs differ.
  Value vx = value(x), vy = value(y);
  Value q = arith::DivSIOp::create(b, loc, vx, vy);
  Value r = arith::RemSIOp::create(b, loc, vx, vy);
  Cond inexact = cmp(CmpIPredicate::ne, r, cst(0));
  Cond signsDiffer = Cond::of(
      arith::XOrIOp::create(b, loc, value(lt(r, cst(0))), value(lt(y, cst(0))))
          .getResult());
  return select(andOf(inexact, signsDiffer), sub(q, cst(1)), q);
}

OpFoldResult IndexMath::ceilDiv(OpFoldResult x, OpFoldResult y) {
  auto sx = getStatic(x), sy = getStatic(y);
  if (sx && sy && *sy != 0)
    return cst(ceilDivInt(*sx, *sy));
  if (sy == 1)
    return x;
  Value vx = value(x), vy = value(y);
  Value q = arith::DivSIOp::create(b, loc, vx, vy);
  Value r = arith::RemSIOp::create(b, loc, vx, vy);
  Cond inexact = cmp(CmpIPredicate::ne, r, cst(0));
  Cond signsAgree =
      Cond::of(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                     value(lt(r, cst(0))), value(lt(y, cst(0))))
                   .getResult());
  return select(andOf(inexact, signsAgree), add(q, cst(1)), q);
}

OpFoldResult IndexMath::floorMod(OpFoldResult x, OpFoldResult y) {
  auto sx = getStatic(x), sy = getStatic(y);
  if (sx && sy && *sy > 0)
    return cst(((*sx % *sy) + *sy) % *sy);
  if (sy == 1)
    return cst(0);
  OpFoldResult r =
      arith::RemSIOp::create(b, loc, value(x), value(y)).getResult();
  return select(lt(r, cst(0)), add(r, y), r);
}

OpFoldResult IndexMath::min(OpFoldResult x, OpFoldResult y) {
  auto sx = getStatic(x), sy = getStatic(y);
  if (sx && sy)
    return cst(std::min(*sx, *sy));
  if (provablyEqual(x, y))
    return x;
  return arith::MinSIOp::create(b, loc, value(x), value(y)).getResult();
}

OpFoldResult IndexMath::max(OpFoldResult x, OpFoldResult y) {
  auto sx = getStatic(x), sy = getStatic(y);
  if (sx && sy)
    return cst(std::max(*sx, *sy));
  if (provablyEqual(x, y))
    return x;
  return arith::MaxSIOp::create(b, loc, value(x), value(y)).getResult();
}

OpFoldResult IndexMath::clamp(OpFoldResult x, OpFoldResult lo,
                              OpFoldResult hi) {
  return max(lo, min(x, hi));
}

OpFoldResult IndexMath::select(Cond c, OpFoldResult x, OpFoldResult y) {
  if (c.known)
    return *c.known ? x : y;
  if (provablyEqual(x, y))
    return x;
  return arith::SelectOp::create(b, loc, c.value, value(x), value(y))
      .getResult();
}

Cond IndexMath::cmp(CmpIPredicate pred, OpFoldResult x, OpFoldResult y) {
  auto sx = getStatic(x), sy = getStatic(y);
  if (sx && sy)
    return Cond::of(evalPredicate(pred, *sx, *sy));
  if (provablyEqual(x, y))
    return Cond::of(evalPredicate(pred, 0, 0));
  return Cond::of(
      arith::CmpIOp::create(b, loc, pred, value(x), value(y)).getResult());
}

Cond IndexMath::eq(OpFoldResult x, OpFoldResult y) {
  return cmp(CmpIPredicate::eq, x, y);
}
Cond IndexMath::lt(OpFoldResult x, OpFoldResult y) {
  return cmp(CmpIPredicate::slt, x, y);
}
Cond IndexMath::le(OpFoldResult x, OpFoldResult y) {
  return cmp(CmpIPredicate::sle, x, y);
}

Cond IndexMath::andOf(Cond x, Cond y) {
  if (x.isFalse() || y.isFalse())
    return Cond::of(false);
  if (x.isTrue())
    return y;
  if (y.isTrue())
    return x;
  return Cond::of(arith::AndIOp::create(b, loc, x.value, y.value).getResult());
}

Cond IndexMath::orOf(Cond x, Cond y) {
  if (x.isTrue() || y.isTrue())
    return Cond::of(true);
  if (x.isFalse())
    return y;
  if (y.isFalse())
    return x;
  return Cond::of(arith::OrIOp::create(b, loc, x.value, y.value).getResult());
}

Cond IndexMath::notOf(Cond x) {
  if (x.known)
    return Cond::of(!*x.known);
  Value t = arith::ConstantIntOp::create(b, loc, 1, 1);
  return Cond::of(arith::XOrIOp::create(b, loc, x.value, t).getResult());
}

LogicalResult IndexMath::require(Cond ok, StringRef message,
                                 ArrayRef<OpFoldResult> args,
                                 Operation *diagOp) {
  assert(args.size() <= 4 && "onyx.assert formats at most four values");
  if (ok.isTrue())
    return success();
  if (ok.isFalse())
    return diagOp->emitError(formatStatic(message, args));
  SmallVector<Value> values;
  for (OpFoldResult a : args)
    values.push_back(value(a));
  AssertOp::create(b, loc, ok.value, b.getStringAttr(message), values);
  return success();
}

//===----------------------------------------------------------------------===//
// IntList
//===----------------------------------------------------------------------===//

IntList IntList::constant(ArrayRef<int64_t> values) {
  IntList list;
  list.isConstantList = true;
  list.values.assign(values.begin(), values.end());
  return list;
}

IntList IntList::tensor(Value tensor) {
  IntList list;
  list.source = tensor;
  return list;
}

std::optional<int64_t> IntList::staticSize() const {
  if (isConstantList)
    return int64_t(values.size());
  if (!source)
    return 0;
  auto type = cast<RankedTensorType>(source.getType());
  if (type.getRank() == 0)
    return 1;
  if (type.isDynamicDim(0))
    return std::nullopt;
  return type.getDimSize(0);
}

OpFoldResult IntList::size(IndexMath &m) const {
  if (auto s = staticSize())
    return m.cst(*s);
  return tensor::DimOp::create(m.b, m.loc, source, 0).getResult();
}

Value indexFromElement(OpBuilder &b, Location loc, Value element) {
  Type type = element.getType();
  if (isa<FloatType>(type))
    element = arith::FPToSIOp::create(b, loc, b.getI64Type(), element);
  else if (type.isInteger(1))
    element = arith::ExtUIOp::create(b, loc, b.getI64Type(), element);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), element);
}

static Value readEntry(OpBuilder &b, Location loc, Value tensor, Value k) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> indices;
  if (type.getRank() == 1)
    indices.push_back(k);
  else
    for (int64_t i = 0; i < type.getRank(); ++i)
      indices.push_back(arith::ConstantIndexOp::create(b, loc, 0));
  return indexFromElement(b, loc,
                          tensor::ExtractOp::create(b, loc, tensor, indices));
}

OpFoldResult IntList::get(IndexMath &m, int64_t k) const {
  if (isConstantList)
    return m.cst(values[k]);
  assert(source && "reading an absent list");
  return readEntry(m.b, m.loc, source, m.value(m.cst(k)));
}

OpFoldResult IntList::getOr(IndexMath &m, int64_t k,
                            OpFoldResult fallback) const {
  return getOr(m, m.cst(k), fallback);
}

OpFoldResult IntList::getOr(IndexMath &m, OpFoldResult k,
                            OpFoldResult fallback) const {
  auto sk = getStatic(k);
  auto n = staticSize();
  if (sk && n)
    return (*sk >= 0 && *sk < *n) ? get(m, *sk) : fallback;
  if (isConstantList) {
    // A run-time position into constant values: select among them.
    OpFoldResult result = fallback;
    for (int64_t j = int64_t(values.size()) - 1; j >= 0; --j)
      result = m.select(m.eq(k, m.cst(j)), m.cst(values[j]), result);
    return result;
  }
  // The length or the position is only known at run time: read behind a
  // guard, so a short list is never read out of bounds.
  Cond inBounds = m.andOf(m.le(m.cst(0), k), m.lt(k, size(m)));
  if (inBounds.isFalse())
    return fallback;
  if (inBounds.isTrue() && sk)
    return get(m, *sk);
  Value position = m.value(k);
  auto guarded = scf::IfOp::create(
      m.b, m.loc, inBounds.value,
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, readEntry(b, loc, source, position));
      },
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, toValue(b, loc, fallback));
      });
  return guarded.getResult(0);
}

LogicalResult IntList::requireSize(IndexMath &m, int64_t expected,
                                   StringRef what, Operation *diagOp) const {
  OpFoldResult n = size(m);
  return m.require(m.eq(n, m.cst(expected)),
                   (what + " has {0} entries, expected {1}").str(),
                   {n, m.cst(expected)}, diagOp);
}

Value readScalarIndex(OpBuilder &b, Location loc, Value tensor) {
  return readEntry(b, loc, tensor, arith::ConstantIndexOp::create(b, loc, 0));
}

} // namespace onyx::shape
