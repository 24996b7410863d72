//===- ShapeArithmetic.cpp - Products and value numbering of dims ---------===//
//
// Shape arithmetic for the DimAnalysis engine: dims and shape-value elements
// that are products of other dims (`batch * heads`, the element count of a
// Reshape), and value numbering of integer operations on shape values.
//
// A product is a Monomial: a coefficient times a sorted list of canonical
// factors (root, offset). `monomialOf` reads a dim or element as one (a
// constant; a node known to hold a product, expanded; or the node itself as
// its one factor). `intern` maps a monomial to the node holding its value,
// creating one the first time: so `Mul(Shape(x)[1], 4)` computed twice, or
// once by a Mul and once as a Reshape's element count, is one node, and the
// dims taken from it are one group. Opaque operations (a Div that is not
// exact, Add/Sub of unlike terms) are numbered by (operation, operands):
// the same computation on equal operands is equal, which holds even under
// int64 wrap-around.
//
// Soundness. Multiplication is a ring operation, exact modulo 2^64, so
// reordering and merging the factors of a Mul is always sound. Exact
// division of a coefficient (`Div(Mul(x, 8), 4) = 2x`), the zero-product
// property (`s == 0` implies a factor is 0) and the element-count reasoning
// of Reshape treat the values as mathematical integers: they assume that
// shape arithmetic does not overflow int64 (an overflowing shape is an error
// in any model; a product of a real tensor's extents is its size). A
// product of dims is never 0 or non-negative "by default": those come from
// the factors' lower bounds (dims are >= 0), so `batch * 4` may be 0.
//
// Proof times: a node's product was proven when its defining op ran (the
// premises of that rule); it moves to the set's root on a union at offset
// 0 and is then dated no earlier than the union. Reading a product, a lower
// bound or a table entry notes those times as premises (notePremise), so
// `before(op)` only sees products computed before `op`.
//
//===----------------------------------------------------------------------===//

#include "DimAnalysisEngine.h"

using namespace mlir;
using namespace onyx;
using namespace onyx::dim_analysis_detail;

namespace {
/// Coefficients beyond this are not tracked (no overflow in products).
constexpr int64_t kMaxCoeff = int64_t(1) << 40;
/// Longest product tracked (factors).
constexpr size_t kMaxFactors = 16;
/// Expansion depth of products whose factors are products.
constexpr unsigned kMaxDepth = 4;
} // namespace

namespace onyx::dim_analysis_detail {

bool multiplyMonomial(Monomial &into, const Monomial &m) {
  if (into.coeff == 0 || m.coeff == 0) {
    into.coeff = 0;
    into.factors.clear();
    return true;
  }
  if (std::abs(into.coeff) > kMaxCoeff / std::abs(m.coeff))
    return false;
  if (into.factors.size() + m.factors.size() > kMaxFactors)
    return false;
  into.coeff *= m.coeff;
  into.factors.append(m.factors.begin(), m.factors.end());
  llvm::sort(into.factors);
  return true;
}

std::optional<Monomial> divideMonomial(const Monomial &n, const Monomial &d) {
  if (d.coeff == 0)
    return std::nullopt;
  if (n.coeff == 0)
    return Monomial{0, {}};
  if (n.coeff % d.coeff != 0)
    return std::nullopt;
  Monomial q{n.coeff / d.coeff, n.factors};
  for (const auto &f : d.factors) {
    auto it = llvm::find(q.factors, f);
    if (it == q.factors.end())
      return std::nullopt;
    q.factors.erase(it);
  }
  return q;
}

} // namespace onyx::dim_analysis_detail

std::optional<Monomial> Engine::monomialOf(Sym s) { return monomialOf(s, 0); }

std::optional<Monomial> Engine::monomialOf(Sym s, unsigned depth) {
  Sym c = canonical(s);
  if (!c.isKnown())
    return std::nullopt;
  if (c.isConstant())
    return Monomial{c.offset, {}};
  Monomial atomic{1, {{c.node, c.offset}}};
  if (c.offset != 0 || depth >= kMaxDepth)
    return atomic;
  auto it = terms.find(c.node);
  if (it == terms.end())
    return atomic;
  notePremise(it->second.time);
  Monomial stored = it->second.monomial; // the map may grow below
  Monomial result{stored.coeff, {}};
  for (auto [node, offset] : stored.factors) {
    auto f = monomialOf(Sym::of(node, offset), depth + 1);
    if (!f || !multiplyMonomial(result, *f))
      return atomic;
  }
  return result;
}

Sym Engine::intern(const Monomial &m, Value home, int64_t index) {
  if (m.coeff == 0 || m.factors.empty())
    return Sym::constant(m.factors.empty() ? m.coeff : 0);
  if (m.coeff == 1 && m.factors.size() == 1)
    return Sym::of(m.factors.front().first, m.factors.front().second);
  std::vector<int64_t> key{0, m.coeff};
  for (auto [node, offset] : m.factors) {
    key.push_back(int64_t(node));
    key.push_back(offset);
  }
  auto it = internTable.find(key);
  if (it != internTable.end()) {
    notePremise(it->second.second);
    return Sym::of(it->second.first);
  }
  // A lower bound from the factors' (dims are >= 0): a positive coefficient
  // times non-negative factors is >= 0, times factors >= 1 is >= coeff.
  std::optional<int64_t> lb;
  if (m.coeff > 0) {
    lb = m.coeff;
    for (auto [node, offset] : m.factors) {
      auto f = lowerBound(Sym::of(node, offset));
      if (!f || *f < 0) {
        lb.reset();
        break;
      }
      if (*f == 0)
        lb = 0;
    }
  }
  NodeId n = newNode(home, index, /*isElement=*/true);
  Time t = factTime();
  terms[n] = {m, t};
  if (lb) {
    nodes[n].minDimOffset = -*lb;
    nodes[n].classTime = t;
  }
  internTable[key] = {n, t};
  return Sym::of(n);
}

Sym Engine::internOp(StringRef kind, Sym a, Sym b, Value home, int64_t index) {
  if (!a.isKnown() || !b.isKnown())
    return Sym();
  // Opaque keys start with 1 (monomials with 0), then the operation name.
  std::vector<int64_t> key{1};
  for (char ch : kind)
    key.push_back(ch);
  for (Sym s : {a, b}) {
    key.push_back(s.isConstant() ? -1 : int64_t(s.node));
    key.push_back(s.offset);
  }
  auto it = internTable.find(key);
  if (it != internTable.end()) {
    notePremise(it->second.second);
    return Sym::of(it->second.first);
  }
  NodeId n = newNode(home, index, /*isElement=*/true);
  internTable[key] = {n, factTime()};
  return Sym::of(n);
}

bool Engine::provablyNonZero(Sym s) {
  if (auto c = constantOf(s))
    return *c != 0;
  if (auto lb = lowerBound(s); lb && *lb >= 1)
    return true;
  auto m = monomialOf(s);
  if (!m || m->coeff == 0 || m->factors.size() < 2)
    return false;
  for (auto [node, offset] : m->factors) {
    auto lb = lowerBound(Sym::of(node, offset));
    if (!lb || *lb < 1)
      return false;
  }
  return true;
}

bool Engine::provablyNonNegative(Sym s) {
  if (auto lb = lowerBound(s); lb && *lb >= 0)
    return true;
  auto m = monomialOf(s);
  if (!m || m->coeff < 0)
    return false;
  for (auto [node, offset] : m->factors) {
    auto lb = lowerBound(Sym::of(node, offset));
    if (!lb || *lb < 0)
      return false;
  }
  return true;
}

bool Engine::zeroImplies(Sym s, Sym d) {
  if (provablyEqual(s, d))
    return true;
  auto ms = monomialOf(s), md = monomialOf(d);
  if (!ms || !md)
    return false;
  if (md->coeff == 0)
    return true; // d is always 0
  if (ms->coeff == 0)
    return false; // s is always 0, d need not be
  // s == 0 means one of its factors is 0 (no overflow): each factor that
  // may be 0 must be one of d's.
  for (auto f : ms->factors) {
    if (llvm::is_contained(md->factors, f))
      continue;
    auto lb = lowerBound(Sym::of(f.first, f.second));
    if (lb && *lb >= 1)
      continue;
    return false;
  }
  return true;
}
