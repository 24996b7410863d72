//===- EinsumShapes.cpp - Einsum equations and result dims ----------------===//
//
// Parsing follows numpy.einsum, which ONNX's reference uses: terms of
// letters with at most one `...`; an explicit output after `->`, or the
// implicit one (the broadcast ellipsis dims, then the letters that occur
// exactly once, in ASCII order). A letter's extent must agree wherever it
// occurs, except that a static 1 broadcasts (as numpy allows); ellipsis
// dims broadcast right-aligned like elementwise operands.
//
//===----------------------------------------------------------------------===//

#include "onyx/Shape/EinsumShapes.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace onyx::shape {
namespace {

/// One term of the equation: letters before and after its `...`.
struct Term {
  SmallVector<char> before, after;
  bool hasEllipsis = false;
};

FailureOr<Term> parseTerm(StringRef text, Operation *diagOp) {
  Term term;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (text.substr(i).starts_with("...")) {
      if (term.hasEllipsis)
        return diagOp->emitError()
               << "Einsum term '" << text << "' has more than one ellipsis";
      term.hasEllipsis = true;
      i += 3;
      continue;
    }
    if (!llvm::isAlpha(c))
      return diagOp->emitError()
             << "Einsum equation has an unexpected character '" << c << "'";
    (term.hasEllipsis ? term.after : term.before).push_back(c);
    ++i;
  }
  return term;
}

} // namespace

FailureOr<EinsumEquation>
parseEinsum(StringRef equation, ArrayRef<int64_t> ranks, Operation *diagOp) {
  std::string compact;
  for (char c : equation)
    if (!llvm::isSpace(static_cast<unsigned char>(c)))
      compact.push_back(c);
  StringRef text(compact);
  auto [lhs, rhs] = text.split("->");
  bool explicitOutput = text.contains("->");

  SmallVector<StringRef> termTexts;
  lhs.split(termTexts, ',');
  if (termTexts.size() != ranks.size())
    return diagOp->emitError()
           << "Einsum equation '" << equation << "' has " << termTexts.size()
           << " input terms for " << ranks.size() << " operands";
  SmallVector<Term> terms;
  for (StringRef t : termTexts) {
    auto term = parseTerm(t, diagOp);
    if (failed(term))
      return failure();
    terms.push_back(std::move(*term));
  }

  EinsumEquation eq;
  // Each operand's ellipsis covers the dims its letters leave over.
  SmallVector<int64_t> ellipsisDims;
  for (auto [i, term] : llvm::enumerate(terms)) {
    int64_t letters = int64_t(term.before.size() + term.after.size());
    int64_t rest = ranks[i] - letters;
    if (rest < 0 || (!term.hasEllipsis && rest != 0))
      return diagOp->emitError()
             << "Einsum term '" << termTexts[i] << "' does not match operand "
             << i << " of rank " << ranks[i];
    ellipsisDims.push_back(rest);
    eq.ellipsisRank = std::max(eq.ellipsisRank, rest);
  }
  eq.letters.assign(eq.ellipsisRank, 0);
  llvm::SmallDenseMap<char, int64_t> labelOf;
  auto label = [&](char c) {
    auto [it, inserted] = labelOf.try_emplace(c, eq.numLabels());
    if (inserted)
      eq.letters.push_back(c);
    return it->second;
  };
  llvm::SmallDenseMap<char, int64_t> uses;
  for (auto [i, term] : llvm::enumerate(terms)) {
    SmallVector<int64_t> labels;
    for (char c : term.before) {
      labels.push_back(label(c));
      ++uses[c];
    }
    for (int64_t e = 0; e < ellipsisDims[i]; ++e)
      labels.push_back(eq.ellipsisRank - ellipsisDims[i] + e);
    for (char c : term.after) {
      labels.push_back(label(c));
      ++uses[c];
    }
    eq.operands.push_back(std::move(labels));
  }

  if (!explicitOutput) {
    for (int64_t e = 0; e < eq.ellipsisRank; ++e)
      eq.output.push_back(e);
    SmallVector<char> once;
    for (auto [c, n] : uses)
      if (n == 1)
        once.push_back(c);
    llvm::sort(once);
    for (char c : once)
      eq.output.push_back(labelOf[c]);
    return eq;
  }

  auto out = parseTerm(rhs, diagOp);
  if (failed(out))
    return failure();
  if (!out->hasEllipsis && eq.ellipsisRank > 0)
    return diagOp->emitError()
           << "Einsum output '" << rhs
           << "' has no ellipsis for the inputs' broadcast dims";
  llvm::SmallDenseSet<char> seen;
  auto addLetter = [&](char c) -> LogicalResult {
    if (!labelOf.count(c))
      return diagOp->emitError()
             << "Einsum output letter '" << c << "' is not in any input";
    if (!seen.insert(c).second)
      return diagOp->emitError()
             << "Einsum output letter '" << c << "' is repeated";
    eq.output.push_back(labelOf[c]);
    return success();
  };
  for (char c : out->before)
    if (failed(addLetter(c)))
      return failure();
  for (int64_t e = 0; e < eq.ellipsisRank; ++e)
    eq.output.push_back(e);
  for (char c : out->after)
    if (failed(addLetter(c)))
      return failure();
  return eq;
}

FailureOr<EinsumShape> einsumShape(OpBuilder &b, Location loc,
                                   StringRef equation, ValueRange operands,
                                   Operation *diagOp) {
  SmallVector<int64_t> ranks;
  SmallVector<SmallVector<OpFoldResult>> dims;
  for (Value v : operands) {
    dims.push_back(getDims(b, loc, v));
    ranks.push_back(int64_t(dims.back().size()));
  }
  auto eq = parseEinsum(equation, ranks, diagOp);
  if (failed(eq))
    return failure();

  EinsumShape shape;
  shape.equation = *eq;
  int64_t numLabels = eq->numLabels(), e = eq->ellipsisRank;
  shape.extents.assign(numLabels, OpFoldResult());
  for (auto [i, labels] : llvm::enumerate(eq->operands)) {
    OperandBroadcast access;
    access.kinds.assign(labels.size(), BroadcastKind::Equal);
    access.isOne.assign(labels.size(), Value());
    shape.operands.push_back(std::move(access));
  }

  // Ellipsis dims: numpy broadcasting of each operand's `...` dims.
  if (e > 0) {
    SmallVector<SmallVector<OpFoldResult>> ellipsis;
    SmallVector<SmallVector<int64_t>> positions;
    for (auto [i, labels] : llvm::enumerate(eq->operands)) {
      SmallVector<OpFoldResult> list;
      SmallVector<int64_t> pos;
      for (auto [d, l] : llvm::enumerate(labels))
        if (l < e) {
          list.push_back(dims[i][d]);
          pos.push_back(int64_t(d));
        }
      ellipsis.push_back(std::move(list));
      positions.push_back(std::move(pos));
    }
    auto bc = broadcastDims(b, loc, ellipsis, diagOp);
    if (failed(bc))
      return failure();
    for (int64_t l = 0; l < e; ++l)
      shape.extents[l] = bc->dims[l];
    for (auto [i, pos] : llvm::enumerate(positions))
      for (auto [j, d] : llvm::enumerate(pos)) {
        shape.operands[i].kinds[d] = bc->operands[i].kinds[j];
        shape.operands[i].isOne[d] = bc->operands[i].isOne[j];
      }
  }

  // Letters: one extent wherever they occur; a static 1 broadcasts.
  for (int64_t l = e; l < numLabels; ++l) {
    SmallVector<std::pair<size_t, size_t>> occurrences;
    for (auto [i, labels] : llvm::enumerate(eq->operands))
      for (auto [d, x] : llvm::enumerate(labels))
        if (x == l)
          occurrences.push_back({i, d});
    // The extent: a static one other than 1 if any, else a dynamic one,
    // else 1.
    OpFoldResult extent;
    for (auto [i, d] : occurrences) {
      auto s = getStatic(dims[i][d]);
      if (s && *s != 1) {
        extent = dims[i][d];
        break;
      }
    }
    if (!extent)
      for (auto [i, d] : occurrences)
        if (!getStatic(dims[i][d])) {
          extent = dims[i][d];
          break;
        }
    if (!extent)
      extent = b.getIndexAttr(1);
    shape.extents[l] = extent;
    std::string what = std::string("Einsum label '") + eq->letters[l] + "'";
    for (auto [i, d] : occurrences) {
      OpFoldResult dim = dims[i][d];
      auto s = getStatic(dim);
      // A letter repeated within one operand takes its diagonal: those dims
      // must agree exactly (numpy rejects "ii" on a 5x1 operand).
      bool repeatedInOperand =
          llvm::count_if(occurrences, [&, i = i](const auto &o) {
            return o.first == i;
          }) > 1;
      if (s && *s == 1 && !repeatedInOperand && !provablyEqual(dim, extent)) {
        shape.operands[i].kinds[d] = BroadcastKind::One;
        continue;
      }
      if (failed(checkEqual(b, loc, dim, extent, what, diagOp)))
        return failure();
    }
  }

  for (int64_t l : eq->output)
    shape.dims.push_back(shape.extents[l]);
  return shape;
}

} // namespace onyx::shape
