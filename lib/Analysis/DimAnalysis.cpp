//===- DimAnalysis.cpp - Which dynamic dims are provably equal ------------===//
//
// The public face of DimAnalysis (include/onyx/Analysis/DimAnalysis.h): the
// queries, over all facts or over the facts proven before an op, and the
// scoped variant. The work is done by the engine (DimAnalysisEngine.cpp).
//
//===----------------------------------------------------------------------===//

#include "DimAnalysisEngine.h"

#include "onyx/Dialect/ONNX/ONNXDialect.h"
#include "onyx/Dialect/Onyx/OnyxDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace onyx;
using namespace onyx::dim_analysis_detail;

//===----------------------------------------------------------------------===//
// DimAnalysis
//===----------------------------------------------------------------------===//

namespace {
/// The queries, over a time bound (kAnyTime: every fact, with constants).
struct Queries {
  const Engine &e;
  Time bound;

  static std::optional<int64_t> normalize(Value v, int64_t axis) {
    int64_t rank = Engine::rankOf(v);
    if (rank < 0 || axis < -rank || axis >= rank)
      return std::nullopt;
    return axis < 0 ? axis + rank : axis;
  }
  static std::optional<int64_t> staticDim(Value v, int64_t axis) {
    auto type = cast<RankedTensorType>(v.getType());
    if (type.isDynamicDim(axis))
      return std::nullopt;
    return type.getDimSize(axis);
  }
  std::optional<int64_t> constant(Value v, int64_t axis) const {
    if (auto s = staticDim(v, axis))
      return s;
    if (bound != kAnyTime)
      return std::nullopt;
    NodeId n = e.lookupDim(v, axis);
    return n == kNoNode ? std::nullopt : e.constantOf(Sym::of(n));
  }
  /// value(b[ib]) - value(a[ia]).
  std::optional<int64_t> offset(Value a, int64_t ia, Value b,
                                int64_t ib) const {
    auto na = normalize(a, ia), nb = normalize(b, ib);
    if (!na || !nb)
      return std::nullopt;
    auto sa = staticDim(a, *na), sb = staticDim(b, *nb);
    if (sa && sb)
      return *sb - *sa;
    if (a == b && *na == *nb)
      return 0;
    if (auto d =
            e.offsetBetween(e.lookupDim(a, *na), e.lookupDim(b, *nb), bound))
      return d;
    auto ca = constant(a, *na), cb = constant(b, *nb);
    if (ca && cb)
      return *cb - *ca;
    return std::nullopt;
  }
  bool sameDim(Value a, int64_t ia, Value b, int64_t ib) const {
    return offset(a, ia, b, ib) == 0;
  }
  bool sameDynDim(Value a, int64_t ia, Value b, int64_t ib) const {
    auto na = normalize(a, ia), nb = normalize(b, ib);
    if (!na || !nb || staticDim(a, *na) || staticDim(b, *nb))
      return false;
    return sameDim(a, *na, b, *nb);
  }
  bool sameShape(Value a, Value b) const {
    int64_t rank = Engine::rankOf(a);
    if (rank < 0 || rank != Engine::rankOf(b))
      return false;
    for (int64_t i = 0; i < rank; ++i)
      if (!sameDim(a, i, b, i))
        return false;
    return true;
  }
  bool sameDynShape(Value a, Value b) const {
    int64_t rank = Engine::rankOf(a);
    if (rank < 0 || rank != Engine::rankOf(b))
      return false;
    for (int64_t i = 0; i < rank; ++i) {
      bool sa = staticDim(a, i).has_value(), sb = staticDim(b, i).has_value();
      if (sa && sb)
        continue;
      if (sa != sb || !sameDynDim(a, i, b, i))
        return false;
    }
    return true;
  }
  bool broadcastLastDim(Value a, Value b) const {
    int64_t rank = Engine::rankOf(a);
    if (rank < 1 || rank != Engine::rankOf(b))
      return false;
    if (staticDim(a, rank - 1) != std::optional<int64_t>(1) &&
        !sameDim(a, rank - 1, b, rank - 1))
      return false;
    for (int64_t i = 0; i + 1 < rank; ++i)
      if (!sameDim(a, i, b, i))
        return false;
    return true;
  }
  bool sameDimWithOffset(Value a, int64_t ia, int64_t oa, Value b, int64_t ib,
                         int64_t ob) const {
    auto d = offset(a, ia, b, ib);
    return d && *d == oa - ob;
  }
};
} // namespace

DimAnalysis::DimAnalysis(Operation *root)
    : engine(std::make_unique<Engine>(root->getContext())) {
  engine->addRoot(root);
}

DimAnalysis::DimAnalysis(ArrayRef<Operation *> ops)
    : engine(std::make_unique<Engine>(ops.front()->getContext())) {
  engine->addOps(ops);
}

DimAnalysis::~DimAnalysis() = default;

void DimAnalysis::getDependentDialects(DialectRegistry &registry) {
  registry.insert<arith::ArithDialect, OnyxDialect, onnx::ONNXDialect>();
}

void DimAnalysis::setTraceStream(raw_ostream *os) { engine->setTrace(os); }

void DimAnalysis::run() { engine->run(); }

bool DimAnalysis::sameDim(Value a, int64_t ia, Value b, int64_t ib) const {
  return Queries{*engine, kAnyTime}.sameDim(a, ia, b, ib);
}
bool DimAnalysis::sameDynDim(Value a, int64_t ia, Value b, int64_t ib) const {
  return Queries{*engine, kAnyTime}.sameDynDim(a, ia, b, ib);
}
bool DimAnalysis::sameShape(Value a, Value b) const {
  return Queries{*engine, kAnyTime}.sameShape(a, b);
}
bool DimAnalysis::sameDynShape(Value a, Value b) const {
  return Queries{*engine, kAnyTime}.sameDynShape(a, b);
}
bool DimAnalysis::broadcastLastDim(Value a, Value b) const {
  return Queries{*engine, kAnyTime}.broadcastLastDim(a, b);
}
std::optional<int64_t> DimAnalysis::getDimOffset(Value a, int64_t ia, Value b,
                                                 int64_t ib) const {
  return Queries{*engine, kAnyTime}.offset(a, ia, b, ib);
}
bool DimAnalysis::sameDimWithOffset(Value a, int64_t ia, int64_t oa, Value b,
                                    int64_t ib, int64_t ob) const {
  return Queries{*engine, kAnyTime}.sameDimWithOffset(a, ia, oa, b, ib, ob);
}
std::optional<int64_t> DimAnalysis::getConstantDim(Value a,
                                                   int64_t axis) const {
  auto n = Queries::normalize(a, axis);
  if (!n)
    return std::nullopt;
  return Queries{*engine, kAnyTime}.constant(a, *n);
}
int64_t DimAnalysis::getLowerBound(Value a, int64_t axis) const {
  auto n = Queries::normalize(a, axis);
  if (!n)
    return 0;
  if (auto s = Queries::staticDim(a, *n))
    return *s;
  NodeId node = engine->lookupDim(a, *n);
  if (node == kNoNode)
    return 0;
  return std::max<int64_t>(0, engine->lowerBound(Sym::of(node)).value_or(0));
}

bool DimAnalysis::View::sameDim(Value a, int64_t ia, Value b,
                                int64_t ib) const {
  return Queries{*engine, bound}.sameDim(a, ia, b, ib);
}
bool DimAnalysis::View::sameDynDim(Value a, int64_t ia, Value b,
                                   int64_t ib) const {
  return Queries{*engine, bound}.sameDynDim(a, ia, b, ib);
}
bool DimAnalysis::View::sameShape(Value a, Value b) const {
  return Queries{*engine, bound}.sameShape(a, b);
}
bool DimAnalysis::View::sameDynShape(Value a, Value b) const {
  return Queries{*engine, bound}.sameDynShape(a, b);
}
bool DimAnalysis::View::broadcastLastDim(Value a, Value b) const {
  return Queries{*engine, bound}.broadcastLastDim(a, b);
}
std::optional<int64_t> DimAnalysis::View::getDimOffset(Value a, int64_t ia,
                                                       Value b,
                                                       int64_t ib) const {
  return Queries{*engine, bound}.offset(a, ia, b, ib);
}
bool DimAnalysis::View::sameDimWithOffset(Value a, int64_t ia, int64_t oa,
                                          Value b, int64_t ib,
                                          int64_t ob) const {
  return Queries{*engine, bound}.sameDimWithOffset(a, ia, oa, b, ib, ob);
}

DimAnalysis::View DimAnalysis::before(Operation *op) const {
  return View(engine.get(), engine->boundBefore(op));
}

std::optional<int64_t> DimAnalysis::getGroupId(Value a, int64_t axis) const {
  auto n = Queries::normalize(a, axis);
  if (!n)
    return std::nullopt;
  return engine->groupOf(engine->lookupDim(a, *n));
}

int64_t DimAnalysis::getNumGroups() const { return engine->numGroups(); }

SmallVector<DimRef> DimAnalysis::getGroupMembers(int64_t group) const {
  if (group < 0 || group >= engine->numGroups())
    return {};
  return engine->membersOf(group);
}

SmallVector<DimAnalysis::OffsetRelation>
DimAnalysis::getOffsetRelations() const {
  return engine->offsetRelations();
}

SmallVector<std::pair<int64_t, int64_t>>
DimAnalysis::getConstantGroups() const {
  return engine->constantGroups();
}

void DimAnalysis::dump(raw_ostream &os) const { engine->dumpGroups(os); }

void DimAnalysis::dumpOffsetRelations(raw_ostream &os) const {
  engine->dumpOffsets(os);
}

const DimAnalysis::Statistics &DimAnalysis::getStatistics() const {
  return engine->stats;
}

void DimAnalysis::replaceValue(Value from, Value to) {
  engine->replaceValue(from, to);
}

//===----------------------------------------------------------------------===//
// ScopedDimAnalysis
//===----------------------------------------------------------------------===//

static SmallVector<Operation *> opsAbove(Operation *op, unsigned levels) {
  SmallVector<Operation *> result{op};
  llvm::SmallPtrSet<Operation *, 16> seen{op};
  SmallVector<Operation *> frontier{op};
  for (unsigned level = 0; level < levels && !frontier.empty(); ++level) {
    SmallVector<Operation *> next;
    for (Operation *o : frontier)
      for (Value v : o->getOperands())
        if (Operation *def = v.getDefiningOp())
          if (seen.insert(def).second) {
            result.push_back(def);
            next.push_back(def);
          }
    frontier = std::move(next);
  }
  return result;
}

ScopedDimAnalysis::ScopedDimAnalysis(Operation *op, unsigned upwardLevel)
    : DimAnalysis(ArrayRef<Operation *>(opsAbove(op, upwardLevel))) {
  run();
}
