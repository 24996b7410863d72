//===- DimAnalysisEngine.cpp - Union-find with offsets and proof times ----===//
//
// The engine of DimAnalysis: a union-find with offsets and proof times over
// the dims of all ranked tensor values (DimAnalysisEngine.h), driven to a
// fixed point by visiting the ops in program order and re-visiting, through
// a worklist, the ops whose inputs just became related. The per-operator
// rules are in DimRules.cpp and DataMovementRules.cpp, shape values and the
// shared broadcast in ShapeValues.cpp; this file knows no operator.
//
// Cost: every op is visited once per sweep plus once per union that touches
// one of its inputs' sets (the smaller side's users; both sides when a
// lower bound or constant changes). Finds are O(log n) (union by size, no
// path compression, which would lose the proof times), so a run is
// O(n log n) in practice; bench/dim_analysis_bench.py measures it.
//
//===----------------------------------------------------------------------===//

#include "DimAnalysisEngine.h"

#include "onyx/Dialect/ONNX/ONNXDialect.h"
#include "onyx/Dialect/Onyx/OnyxDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Debug.h"

#include <functional>

#define DEBUG_TYPE "dim-analysis"

using namespace mlir;
using namespace onyx;
using namespace onyx::dim_analysis_detail;

namespace {
constexpr int64_t kNoMin = std::numeric_limits<int64_t>::max();
/// Offsets beyond this are not tracked (no overflow along tree paths).
constexpr int64_t kMaxOffset = int64_t(1) << 40;
} // namespace

//===----------------------------------------------------------------------===//
// Set-up
//===----------------------------------------------------------------------===//

Engine::Engine(MLIRContext *ctx)
    : ctx(ctx), scratch(std::make_unique<Block>()) {
  // The shared broadcast helper builds arith and onyx ops (in the scratch
  // block). A pass declares these dialects; elsewhere load them here.
  ctx->getOrLoadDialect<arith::ArithDialect>();
  ctx->getOrLoadDialect<OnyxDialect>();
}

Engine::~Engine() {
  while (!scratch->empty())
    scratch->back().erase();
}

void Engine::addRoot(Operation *root) {
  traceRoot = root;
  // Collects a region in pre-order: block arguments, then each op and its
  // results, then its regions. `nested` ops prove facts that hold only
  // inside their region; `bound` is the query bound of ops there.
  std::function<void(Region &, bool, Time)> collect =
      [&](Region &region, bool nested, Time bound) {
        for (Block &block : region) {
          bool straightLine = !nested && &block == &region.front();
          for (BlockArgument arg : block.getArguments())
            values.push_back(arg);
          for (Operation &op : block) {
            if (isa<onnx::ONNXDimGroupOp>(op))
              continue;
            auto index = uint32_t(ops.size());
            Time time = straightLine ? Time(index + 1) : kLateTime;
            Time opBound = straightLine ? time : bound;
            opIndex[&op] = index;
            ops.push_back({&op, time, opBound});
            for (Value result : op.getResults())
              values.push_back(result);
            for (Region &inner : op.getRegions())
              collect(inner, true, opBound);
          }
        }
      };
  auto addFunction = [&](FunctionOpInterface fn) {
    if (fn.isExternal())
      return;
    functions.push_back(fn);
    collect(fn.getFunctionBody(), false, kSeedTime + 1);
  };
  if (auto fn = dyn_cast<FunctionOpInterface>(root)) {
    addFunction(fn);
    return;
  }
  root->walk<WalkOrder::PreOrder>([&](FunctionOpInterface fn) {
    addFunction(fn);
    return WalkResult::skip();
  });
}

void Engine::addOps(ArrayRef<Operation *> scope) {
  if (scope.empty())
    return;
  // Program order: ops of one block by position; otherwise by the position
  // of their ancestors in the first common block.
  auto isBefore = [](Operation *a, Operation *b) {
    if (a == b)
      return false;
    if (a->getBlock() == b->getBlock())
      return a->isBeforeInBlock(b);
    for (Operation *x = a; x; x = x->getParentOp())
      for (Operation *y = b; y; y = y->getParentOp())
        if (x->getBlock() && x->getBlock() == y->getBlock())
          return x == y ? x == a : x->isBeforeInBlock(y);
    return a < b;
  };
  SmallVector<Operation *> sorted(scope.begin(), scope.end());
  llvm::stable_sort(sorted, isBefore);
  Block *mainBlock = sorted.back()->getBlock();
  traceRoot = sorted.back()->getParentOfType<FunctionOpInterface>();
  if (!traceRoot)
    traceRoot = sorted.back()->getParentOp();
  llvm::SmallPtrSet<Operation *, 4> seedFunctions;
  for (Operation *op : sorted) {
    if (opIndex.count(op) || isa<onnx::ONNXDimGroupOp>(op))
      continue;
    for (Value operand : op->getOperands()) {
      auto arg = dyn_cast<BlockArgument>(operand);
      if (!arg)
        continue;
      auto fn =
          dyn_cast_or_null<FunctionOpInterface>(arg.getOwner()->getParentOp());
      if (fn && arg.getOwner()->isEntryBlock() &&
          seedFunctions.insert(fn).second) {
        functions.push_back(fn);
        for (BlockArgument a : fn.getArguments())
          values.push_back(a);
      }
    }
    auto index = uint32_t(ops.size());
    Time time = op->getBlock() == mainBlock ? Time(index + 1) : kLateTime;
    opIndex[op] = index;
    ops.push_back({op, time, time == kLateTime ? kSeedTime + 1 : time});
    for (Value result : op->getResults())
      values.push_back(result);
  }
}

//===----------------------------------------------------------------------===//
// Nodes
//===----------------------------------------------------------------------===//

int64_t Engine::rankOf(Value v) {
  if (!v)
    return -1;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type ? type.getRank() : -1;
}

NodeId Engine::newNode(Value v, int64_t index, bool isElement) {
  auto id = NodeId(nodes.size());
  Node n;
  n.parent = id;
  n.time = kSeedTime;
  n.size = 1;
  n.offset = 0;
  n.minDimOffset = isElement ? kNoMin : 0;
  n.hasConstant = false;
  n.constant = 0;
  n.classTime = kSeedTime;
  n.value = v;
  n.index = index;
  n.isElement = isElement;
  nodes.push_back(n);
  return id;
}

NodeId Engine::dimNode(Value v, int64_t axis) {
  int64_t rank = rankOf(v);
  if (rank < 0 || axis < 0 || axis >= rank)
    return kNoNode;
  auto it = firstDimNode.find(v);
  if (it != firstDimNode.end())
    return it->second + NodeId(axis);
  auto first = NodeId(nodes.size());
  auto type = cast<RankedTensorType>(v.getType());
  for (int64_t i = 0; i < rank; ++i) {
    NodeId n = newNode(v, i, /*isElement=*/false);
    if (!type.isDynamicDim(i)) {
      nodes[n].hasConstant = true;
      nodes[n].constant = type.getDimSize(i);
    }
  }
  firstDimNode[v] = first;
  return first + NodeId(axis);
}

SymList Engine::dims(Value v) {
  SymList result;
  for (int64_t i = 0, e = rankOf(v); i < e; ++i)
    result.push_back(dim(v, i));
  return result;
}

NodeId Engine::lookupDim(Value v, int64_t axis) const {
  int64_t rank = rankOf(v);
  if (rank < 0 || axis < 0 || axis >= rank)
    return kNoNode;
  auto it = firstDimNode.find(v);
  return it == firstDimNode.end() ? kNoNode : it->second + NodeId(axis);
}

std::pair<NodeId, int64_t> Engine::find(NodeId n) const {
  int64_t offset = 0;
  while (nodes[n].parent != n) {
    offset += nodes[n].offset;
    n = nodes[n].parent;
  }
  return {n, offset};
}

Time Engine::pathTime(NodeId n) const {
  Time t = kSeedTime;
  for (; nodes[n].parent != n; n = nodes[n].parent)
    t = std::max(t, nodes[n].time);
  return t;
}

Sym Engine::canonical(Sym s) const {
  if (s.node == kNoNode || s.isConstant())
    return s;
  auto [root, offset] = find(s.node);
  const Node &r = nodes[root];
  if (current)
    notePremise(pathTime(s.node));
  if (r.hasConstant) {
    notePremise(r.classTime);
    return Sym::constant(r.constant + offset + s.offset);
  }
  return Sym::of(root, offset + s.offset);
}

std::optional<int64_t> Engine::constantOf(Sym s) const {
  Sym c = canonical(s);
  if (c.isConstant())
    return c.offset;
  return std::nullopt;
}

std::optional<int64_t> Engine::lowerBound(Sym s) const {
  if (s.node == kNoNode)
    return std::nullopt;
  if (s.isConstant())
    return s.offset;
  auto [root, offset] = find(s.node);
  const Node &r = nodes[root];
  notePremise(r.classTime);
  if (r.hasConstant)
    return r.constant + offset + s.offset;
  if (r.minDimOffset == kNoMin)
    return std::nullopt;
  // Every tensor-dim member m has value(root) + off(m) >= 0.
  return -r.minDimOffset + offset + s.offset;
}

bool Engine::provablyEqual(Sym a, Sym b) const {
  Sym ca = canonical(a), cb = canonical(b);
  return ca.node != kNoNode && ca.node == cb.node && ca.offset == cb.offset;
}

bool Engine::provablyNotOne(Sym s) const {
  if (auto c = constantOf(s))
    return *c != 1;
  auto lb = lowerBound(s);
  return lb && *lb >= 2;
}

//===----------------------------------------------------------------------===//
// Facts
//===----------------------------------------------------------------------===//

/// A proof time for the trace: "0" (graph inputs), "i + 1" (proven at the
/// op at position i), "late".
static std::string timeText(Time t) {
  return t >= kLateTime ? std::string("late") : std::to_string(t);
}

raw_ostream *Engine::trace() const {
  if (traceStream)
    return traceStream;
  LLVM_DEBUG(return &llvm::dbgs());
  return nullptr;
}

void Engine::printNode(raw_ostream &os, NodeId n) {
  if (!asmState)
    asmState = std::make_unique<AsmState>(traceRoot);
  const Node &node = nodes[n];
  if (!node.value) {
    os << "<node " << n << ">";
    return;
  }
  node.value.printAsOperand(os, *asmState);
  if (node.isElement)
    os << "<" << node.index << ">";
  else
    os << "[" << node.index << "]";
}

void Engine::printSym(raw_ostream &os, Sym s) {
  if (s.node == kNoNode) {
    os << "?";
    return;
  }
  if (s.isConstant()) {
    os << s.offset;
    return;
  }
  printNode(os, s.node);
  if (s.offset > 0)
    os << " + " << s.offset;
  else if (s.offset < 0)
    os << " - " << -s.offset;
}

void Engine::conflict(StringRef what, StringRef why) {
  ++stats.numConflicts;
  if (raw_ostream *os = trace()) {
    *os << "    conflict: " << what << "  ["
        << (current ? current->getName().getStringRef() : "seed") << ": " << why
        << "]; ignored (the model cannot run without an error)\n";
  }
}

void Engine::relate(Sym a, Sym b, StringRef why) {
  if (a.node == kNoNode || b.node == kNoNode)
    return;
  if (std::abs(a.offset) > kMaxOffset || std::abs(b.offset) > kMaxOffset)
    return;
  auto describe = [&]() {
    std::string text;
    llvm::raw_string_ostream os(text);
    printSym(os, a);
    os << " == ";
    printSym(os, b);
    return text;
  };
  if (a.isConstant() && b.isConstant()) {
    if (a.offset != b.offset)
      conflict(trace() ? describe() : "", why);
    return;
  }
  if (a.isConstant())
    std::swap(a, b);
  if (b.isConstant()) {
    // value(a.node) = b - a.offset.
    auto [root, offset] = find(a.node);
    int64_t rootValue = b.offset - a.offset - offset;
    Node &r = nodes[root];
    if (r.hasConstant) {
      if (r.constant != rootValue)
        conflict(trace() ? describe() : "", why);
      return;
    }
    if (r.minDimOffset != kNoMin && rootValue + r.minDimOffset < 0) {
      conflict(trace() ? describe() : "", why);
      return;
    }
    r.hasConstant = true;
    r.constant = rootValue;
    r.classTime = std::max(r.classTime, factTime());
    ++mergesThisSweep;
    if (raw_ostream *os = trace())
      *os << "    " << describe() << "  ["
          << (current ? current->getName().getStringRef() : "seed") << ": "
          << why << " @" << timeText(factTime()) << "]\n";
    enqueueUsers(root);
    return;
  }
  // value(a.node) + a.offset == value(b.node) + b.offset.
  auto [ra, oa] = find(a.node);
  auto [rb, ob] = find(b.node);
  int64_t delta = a.offset - b.offset; // value(b.node) = value(a.node) + delta
  if (ra == rb) {
    if (ob - oa != delta)
      conflict(trace() ? describe() : "", why);
    return;
  }
  // value(rb) = value(ra) + k.
  int64_t k = oa + delta - ob;
  NodeId parent = ra, child = rb;
  int64_t childOffset = k;
  if (nodes[ra].size < nodes[rb].size) {
    std::swap(parent, child);
    childOffset = -k;
  }
  Node &p = nodes[parent];
  Node &c = nodes[child];
  if (p.hasConstant && c.hasConstant &&
      c.constant != p.constant + childOffset) {
    conflict(trace() ? describe() : "", why);
    return;
  }
  bool parentGainsConstant = !p.hasConstant && c.hasConstant;
  bool childGainsConstant = p.hasConstant && !c.hasConstant;
  if (parentGainsConstant) {
    p.hasConstant = true;
    p.constant = c.constant - childOffset;
  }
  int64_t childMin =
      c.minDimOffset == kNoMin ? kNoMin : c.minDimOffset + childOffset;
  int64_t newMin = std::min(p.minDimOffset, childMin);
  bool parentMinChanged = newMin != p.minDimOffset;
  bool childMinChanged = newMin != childMin;
  p.minDimOffset = newMin;
  c.parent = parent;
  c.offset = childOffset;
  c.time = factTime();
  p.size += c.size;
  p.classTime = std::max({p.classTime, c.classTime, c.time});
  // A product describing the child's value describes the parent's when
  // they are equal (offset 0): the root carries it, as of this union.
  bool parentGainsTerm = false, childGainsTerm = false;
  if (childOffset == 0) {
    bool parentHas = terms.count(parent), childHas = terms.count(child);
    if (childHas && !parentHas) {
      Term t = terms.find(child)->second;
      t.time = std::max(t.time, nodes[child].time);
      terms[parent] = std::move(t);
      parentGainsTerm = true;
    }
    childGainsTerm = parentHas && !childHas;
  }
  ++stats.numMerges;
  ++mergesThisSweep;
  if (raw_ostream *os = trace())
    *os << "    " << describe() << "  ["
        << (current ? current->getName().getStringRef() : "seed") << ": " << why
        << " @" << timeText(c.time) << "]\n";

  // Ops reading members of either set may now prove more. An op reading
  // both sets is on both lists, so the shorter list suffices unless a
  // set's lower bound or constant changed.
  std::vector<uint32_t> childUsers;
  auto it = users.find(child);
  if (it != users.end()) {
    childUsers = std::move(it->second);
    users.erase(it);
  }
  std::vector<uint32_t> &parentUsers = users[parent];
  bool childShorter = childUsers.size() <= parentUsers.size();
  auto enqueue = [&](const std::vector<uint32_t> &list) {
    for (uint32_t u : list)
      if (!queuedStamp[u]) {
        queuedStamp[u] = 1;
        worklist.push_back(u);
      }
  };
  if (childShorter || childGainsConstant || childMinChanged || childGainsTerm)
    enqueue(childUsers);
  if (!childShorter || parentGainsConstant || parentMinChanged ||
      parentGainsTerm)
    enqueue(parentUsers);
  if (!childShorter)
    std::swap(parentUsers, childUsers);
  parentUsers.insert(parentUsers.end(), childUsers.begin(), childUsers.end());
}

void Engine::relateDims(Value v, int64_t axisV, Value w, int64_t axisW,
                        StringRef why, int64_t offset) {
  NodeId a = dimNode(v, axisV), b = dimNode(w, axisW);
  if (a == kNoNode || b == kNoNode)
    return;
  relate(Sym::of(a), Sym::of(b, offset), why);
}

void Engine::enqueueUsers(NodeId root) {
  auto it = users.find(root);
  if (it == users.end())
    return;
  for (uint32_t u : it->second)
    if (!queuedStamp[u]) {
      queuedStamp[u] = 1;
      worklist.push_back(u);
    }
}

void Engine::addUser(NodeId n, uint32_t index) {
  if (n == kNoNode)
    return;
  std::vector<uint32_t> &list = users[find(n).first];
  if (list.empty() || list.back() != index)
    list.push_back(index);
}

void Engine::registerUses(uint32_t index) {
  Operation *op = ops[index].op;
  auto use = [&](Value v) {
    for (int64_t i = 0, e = rankOf(v); i < e; ++i)
      addUser(dimNode(v, i), index);
    if (const SymList *elements = content(v))
      for (Sym s : *elements)
        if (!s.isConstant())
          addUser(s.node, index);
  };
  for (Value v : op->getOperands())
    use(v);
  // Ops with regions (If) read what their regions yield.
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>())
        for (Value v : block.back().getOperands())
          use(v);
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

void Engine::seedDimParams() {
  for (Operation *op : functions) {
    auto fn = cast<FunctionOpInterface>(op);
    // The runtime checks the symbols of the graph's inputs on entry: the
    // seeds of a public function (the graph) hold before any op. A private
    // function's arguments are whatever its callers pass: late facts.
    auto symbol = dyn_cast<SymbolOpInterface>(op);
    currentTime = !symbol || symbol.isPublic() ? kSeedTime : kLateTime;
    llvm::StringMap<Sym> &byName = namedDims[op];
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
      auto text = fn.getArgAttrOfType<StringAttr>(
          i, onnx::ONNXDialect::kDimParamsAttrName);
      SmallVector<onnx::DimParam> params;
      if (!text || failed(onnx::parseDimParams(text.getValue(), params)))
        continue;
      Value arg = fn.getArgument(i);
      for (const onnx::DimParam &p : params) {
        Sym d = dim(arg, p.axis);
        if (d.node == kNoNode)
          continue;
        auto [it, inserted] = byName.try_emplace(p.name, d);
        if (!inserted)
          relate(it->second, d, ("dim_params '" + p.name + "'").c_str());
      }
    }
  }
  currentTime = kSeedTime;
}

void Engine::seedResultDimParams(Operation *returnOp) {
  auto fn = dyn_cast_or_null<FunctionOpInterface>(returnOp->getParentOp());
  if (!fn || fn.getNumResults() != returnOp->getNumOperands())
    return;
  llvm::StringMap<Sym> &byName = namedDims[fn];
  Time saved = currentTime;
  // Nothing checks result dim_params at run time: late facts only.
  currentTime = kLateTime;
  for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i) {
    auto text = fn.getResultAttrOfType<StringAttr>(
        i, onnx::ONNXDialect::kDimParamsAttrName);
    SmallVector<onnx::DimParam> params;
    if (!text || failed(onnx::parseDimParams(text.getValue(), params)))
      continue;
    Value result = returnOp->getOperand(i);
    for (const onnx::DimParam &p : params) {
      Sym d = dim(result, p.axis);
      if (d.node == kNoNode)
        continue;
      auto [it, inserted] = byName.try_emplace(p.name, d);
      if (!inserted)
        relate(it->second, d, ("result dim_params '" + p.name + "'").c_str());
    }
  }
  currentTime = saved;
}

void Engine::visit(uint32_t index, bool first) {
  OpEntry &entry = ops[index];
  Operation *op = entry.op;
  if (first) {
    entry.visited = true;
    registerUses(index);
  }
  current = op;
  firstVisit = first;
  currentTime = std::max(entry.time, cursorTime);
  premiseTime = kSeedTime;
  if (op->hasTrait<OpTrait::ReturnLike>() &&
      isa_and_nonnull<FunctionOpInterface>(op->getParentOp())) {
    if (first)
      seedResultDimParams(op);
  } else if (RuleFn rule = lookupRule(op)) {
    rule(*this, op);
  }
  current = nullptr;
  firstVisit = false;
}

void Engine::drainWorklist(uint32_t maxIndex) {
  while (!worklist.empty()) {
    uint32_t index = worklist.back();
    worklist.pop_back();
    queuedStamp[index] = 0;
    // Ops after the cursor are visited in turn (their facts must not be
    // dated before them).
    if (index > maxIndex || !ops[index].visited)
      continue;
    visit(index, /*first=*/false);
  }
}

void Engine::run() {
  if (finished)
    return;
  if (!traceRoot && !ops.empty())
    traceRoot = ops.front().op->getParentOp();
  stats.numOps = ops.size();
  queuedStamp.assign(ops.size(), 0);
  raw_ostream *os = trace();
  if (os)
    *os << "dim-analysis: " << ops.size() << " ops\n"
        << "dim-analysis: seeds (dim_params of arguments)\n";
  seedDimParams();

  // Sweep 1: program order; a fact found while at op i is dated i + 1.
  if (os)
    *os << "dim-analysis: iteration 1\n";
  mergesThisSweep = 0;
  for (uint32_t i = 0, e = uint32_t(ops.size()); i < e; ++i) {
    cursorTime = ops[i].time;
    visit(i, /*first=*/true);
    drainWorklist(i);
  }
  stats.numIterations = 1;
  if (os)
    *os << "dim-analysis: iteration 1: " << mergesThisSweep << " facts\n";

  // Later sweeps re-check every rule until nothing changes (the worklist
  // normally leaves nothing to find). Their facts are dated late.
  cursorTime = kLateTime;
  for (unsigned iteration = 2; iteration <= 16; ++iteration) {
    mergesThisSweep = 0;
    if (os)
      *os << "dim-analysis: iteration " << iteration << "\n";
    for (uint32_t i = 0, e = uint32_t(ops.size()); i < e; ++i) {
      visit(i, /*first=*/false);
      drainWorklist(e - 1);
    }
    stats.numIterations = iteration;
    if (os)
      *os << "dim-analysis: iteration " << iteration << ": " << mergesThisSweep
          << " facts" << (mergesThisSweep ? "" : " (fixed point)") << "\n";
    if (mergesThisSweep == 0)
      break;
  }
  finalize();
  finished = true;
  if (os) {
    dumpGroups(*os);
    dumpOffsets(*os);
    *os << "dim-analysis: " << stats.numOps << " ops, " << stats.numDims
        << " dims (" << stats.numDynamicDims << " dynamic), " << stats.numGroups
        << " groups, " << stats.numMerges << " merges, " << stats.numConflicts
        << " conflicts, " << stats.numIterations << " iterations\n";
  }
}

void Engine::finalize() {
  // Group ids in program order; a group is a (root, offset) pair.
  DenseMap<std::pair<NodeId, int64_t>, int64_t> groupOfKey;
  for (Value v : values) {
    int64_t rank = rankOf(v);
    if (rank < 0)
      continue;
    auto type = cast<RankedTensorType>(v.getType());
    for (int64_t axis = 0; axis < rank; ++axis) {
      NodeId n = dimNode(v, axis);
      ++stats.numDims;
      if (!type.isDynamicDim(axis))
        continue;
      ++stats.numDynamicDims;
      auto key = find(n);
      auto [it, inserted] =
          groupOfKey.try_emplace(key, int64_t(groupMembers.size()));
      if (inserted)
        groupMembers.emplace_back();
      groupMembers[it->second].push_back(n);
      if (nodeGroup.size() < nodes.size())
        nodeGroup.resize(nodes.size(), -1);
      nodeGroup[n] = it->second;
    }
  }
  nodeGroup.resize(nodes.size(), -1);
  stats.numGroups = groupMembers.size();
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

std::optional<int64_t> Engine::offsetBetween(NodeId a, NodeId b,
                                             Time bound) const {
  if (a == kNoNode || b == kNoNode)
    return std::nullopt;
  if (a == b)
    return 0;
  if (bound == kAnyTime) {
    auto [ra, oa] = find(a);
    auto [rb, ob] = find(b);
    if (ra != rb)
      return std::nullopt;
    return ob - oa;
  }
  // The tree path between a and b: through their lowest common ancestor.
  struct Step {
    NodeId node;
    int64_t offset; ///< value(a) = value(node) + offset
    Time time;      ///< latest proof on the way up from a
  };
  SmallVector<Step, 16> chain;
  NodeId n = a;
  int64_t offset = 0;
  Time time = kSeedTime;
  chain.push_back({n, 0, kSeedTime});
  while (nodes[n].parent != n) {
    offset += nodes[n].offset;
    time = std::max(time, nodes[n].time);
    n = nodes[n].parent;
    chain.push_back({n, offset, time});
  }
  n = b;
  offset = 0;
  time = kSeedTime;
  while (true) {
    for (const Step &s : chain)
      if (s.node == n) {
        if (std::max(time, s.time) >= bound)
          return std::nullopt;
        return offset - s.offset;
      }
    if (nodes[n].parent == n)
      return std::nullopt;
    offset += nodes[n].offset;
    time = std::max(time, nodes[n].time);
    n = nodes[n].parent;
  }
}

Time Engine::boundBefore(Operation *op) const {
  auto it = opIndex.find(op);
  if (it == opIndex.end())
    return kSeedTime + 1;
  return ops[it->second].bound;
}

SmallVector<DimRef> Engine::membersOf(int64_t group) const {
  SmallVector<DimRef> result;
  for (NodeId n : groupMembers[group])
    result.push_back({nodes[n].value, nodes[n].index});
  return result;
}

std::optional<int64_t> Engine::groupOf(NodeId n) const {
  if (n == kNoNode || n >= nodeGroup.size() || nodeGroup[n] < 0)
    return std::nullopt;
  return nodeGroup[n];
}

SmallVector<DimAnalysis::OffsetRelation> Engine::offsetRelations() const {
  // Per root, the first group seen is the base of the others.
  DenseMap<NodeId, std::pair<int64_t, int64_t>> base; // root -> (group, off)
  SmallVector<DimAnalysis::OffsetRelation> result;
  for (int64_t g = 0, e = numGroups(); g < e; ++g) {
    auto [root, offset] = find(groupMembers[g].front());
    auto [it, inserted] = base.try_emplace(root, g, offset);
    if (!inserted)
      result.push_back({g, it->second.first, offset - it->second.second});
  }
  return result;
}

SmallVector<std::pair<int64_t, int64_t>> Engine::constantGroups() const {
  SmallVector<std::pair<int64_t, int64_t>> result;
  for (int64_t g = 0, e = numGroups(); g < e; ++g) {
    if (auto c = constantOf(Sym::of(groupMembers[g].front())))
      result.push_back({g, *c});
  }
  return result;
}

void Engine::dumpGroups(raw_ostream &os) const {
  auto *self = const_cast<Engine *>(this);
  os << "dim-analysis: groups (" << numGroups() << ")\n";
  for (int64_t g = 0, e = numGroups(); g < e; ++g) {
    os << "  group " << g << ":";
    llvm::interleave(
        groupMembers[g], os,
        [&](NodeId n) {
          os << " ";
          self->printNode(os, n);
        },
        ",");
    if (auto c = constantOf(Sym::of(groupMembers[g].front())))
      os << "  (= " << *c << ")";
    os << "\n";
  }
}

void Engine::dumpOffsets(raw_ostream &os) const {
  auto relations = offsetRelations();
  os << "dim-analysis: offset relations (" << relations.size() << ")\n";
  for (const auto &r : relations) {
    os << "  group " << r.group << " = group " << r.baseGroup;
    if (r.offset >= 0)
      os << " + " << r.offset << "\n";
    else
      os << " - " << -r.offset << "\n";
  }
}

void Engine::replaceValue(Value from, Value to) {
  if (from == to)
    return;
  auto it = firstDimNode.find(from);
  if (it != firstDimNode.end()) {
    NodeId first = it->second;
    firstDimNode.erase(it);
    firstDimNode[to] = first;
    for (int64_t i = 0, e = rankOf(to); i < e; ++i)
      nodes[first + i].value = to;
  }
  auto c = contents.find(from);
  if (c != contents.end()) {
    SymList elements = std::move(c->second);
    contents.erase(c);
    contents[to] = std::move(elements);
  }
  auto t = contentTime.find(from);
  if (t != contentTime.end()) {
    Time time = t->second;
    contentTime.erase(t);
    contentTime[to] = time;
  }
}
