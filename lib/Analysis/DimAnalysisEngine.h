//===- DimAnalysisEngine.h - Union-find with offsets and times -*- C++ -*-===//
//
// The machinery behind DimAnalysis, shared by the engine
// (DimAnalysisEngine.cpp, ShapeValues.cpp), the public queries
// (DimAnalysis.cpp) and the operator rules (DimRules.h).
//
// Nodes are integers: one per axis of every ranked tensor value, plus one per
// element of small integer tensors whose contents are not known (shape
// values read at run time). A node's value is `value(parent) + offset`; a
// root may carry a proven constant and the minimum offset of its tensor-dim
// members (dims are >= 0, which gives lower bounds such as "x + 2 >= 2").
//
// Every union records the time it was proven: 0 for validated graph-input
// seeds, `index + 1` for a fact found while visiting the op at `index` in
// program order, kLateTime for facts found later (nested regions, result
// dim_params, any sweep after the first). There is no path compression, so
// the union tree keeps the times: two nodes are connected before time T iff
// the largest time on the tree path between them is below T (unions are
// made in non-decreasing time order in the first sweep, as in Kruskal's
// algorithm; later unions only make the answer more conservative). A fact
// is dated no earlier than the facts its rule relied on (`notePremise`):
// reading a set's root, constant or lower bound, or a shape value's
// elements, counts the times along the way.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_ANALYSIS_DIMANALYSISENGINE_H
#define ONYX_LIB_ANALYSIS_DIMANALYSISENGINE_H

#include "onyx/Analysis/DimAnalysis.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <limits>
#include <map>
#include <vector>

namespace onyx::dim_analysis_detail {

using NodeId = uint32_t;
using Time = uint32_t;
/// "No node": an unknown quantity (e.g. a dim of an unranked tensor).
constexpr NodeId kNoNode = std::numeric_limits<NodeId>::max();
/// Marks a Sym that is a constant.
constexpr NodeId kConstNode = std::numeric_limits<NodeId>::max() - 1;
constexpr Time kSeedTime = 0;
constexpr Time kLateTime = std::numeric_limits<Time>::max() - 1;
/// A query bound that admits every fact.
constexpr Time kAnyTime = std::numeric_limits<Time>::max();

/// A symbolic integer: `value(node) + offset`, the constant `offset` (node
/// kConstNode), or unknown (node kNoNode, the default).
struct Sym {
  NodeId node = kNoNode;
  int64_t offset = 0;

  static Sym constant(int64_t c) { return {kConstNode, c}; }
  static Sym of(NodeId n, int64_t offset = 0) { return {n, offset}; }
  bool isConstant() const { return node == kConstNode; }
  bool isKnown() const { return node != kNoNode; }
  Sym plus(int64_t c) const {
    return isKnown() ? Sym{node, offset + c} : *this;
  }
};
using SymList = llvm::SmallVector<Sym, 4>;

/// A product `coeff * f1 * f2 * ...` of symbolic factors, each a canonical
/// (root, offset) pair (value(root) + offset), sorted. The shape arithmetic
/// of ShapeArithmetic.cpp: Mul of shape values, the element counts of
/// Reshape and Flatten. An empty factor list is the constant `coeff`.
struct Monomial {
  int64_t coeff = 1;
  llvm::SmallVector<std::pair<NodeId, int64_t>, 4> factors;
  bool operator==(const Monomial &o) const {
    return coeff == o.coeff && factors == o.factors;
  }
};
/// `into *= m`; false on a coefficient too large to track.
bool multiplyMonomial(Monomial &into, const Monomial &m);
/// `n / d` when `d`'s factors are among `n`'s and its coefficient divides
/// `n`'s (exact division); nullopt otherwise.
std::optional<Monomial> divideMonomial(const Monomial &n, const Monomial &d);

class Engine;
/// A rule: derives facts about `op` (usually about its results).
using RuleFn = void (*)(Engine &, mlir::Operation *);

/// The rule for `op`, or null (see DimRules.cpp).
RuleFn lookupRule(mlir::Operation *op);

class Engine {
public:
  explicit Engine(mlir::MLIRContext *ctx);
  ~Engine();

  //===--------------------------------------------------------------------===//
  // Set-up and run
  //===--------------------------------------------------------------------===//

  /// Adds every function with a body under `root` (or `root` itself).
  void addRoot(mlir::Operation *root);
  /// Adds exactly `ops` (scoped analysis).
  void addOps(llvm::ArrayRef<mlir::Operation *> ops);
  void setTrace(llvm::raw_ostream *os) { traceStream = os; }
  void run();
  bool hasRun() const { return finished; }

  //===--------------------------------------------------------------------===//
  // For rules: nodes and facts
  //===--------------------------------------------------------------------===//

  /// Rank of a ranked tensor value, or -1.
  static int64_t rankOf(mlir::Value v);
  /// The node of `v[axis]` (axis already non-negative), allocating the
  /// value's nodes on first use; kNoNode if `v` is not a ranked tensor or
  /// the axis is out of range.
  NodeId dimNode(mlir::Value v, int64_t axis);
  Sym dim(mlir::Value v, int64_t axis) { return Sym::of(dimNode(v, axis)); }
  /// All dims of a ranked tensor (empty if unranked).
  SymList dims(mlir::Value v);

  /// Records value(a) == value(b). Either may be a constant.
  void relate(Sym a, Sym b, llvm::StringRef why);
  /// Records v[axisV] == w[axisW] + offset.
  void relateDims(mlir::Value v, int64_t axisV, mlir::Value w, int64_t axisW,
                  llvm::StringRef why, int64_t offset = 0);

  /// Canonical form: the root node and offset, or a constant.
  Sym canonical(Sym s) const;
  std::optional<int64_t> constantOf(Sym s) const;
  /// value(s) >= result (nullopt: nothing known, e.g. an unknown element).
  std::optional<int64_t> lowerBound(Sym s) const;
  /// Provably value(a) == value(b).
  bool provablyEqual(Sym a, Sym b) const;
  /// Provably not 1 (a constant other than 1, or a lower bound >= 2).
  bool provablyNotOne(Sym s) const;

  //===--------------------------------------------------------------------===//
  // For rules: shape arithmetic (ShapeArithmetic.cpp)
  //===--------------------------------------------------------------------===//

  /// `s` as a product of canonical factors: a constant, a node defined by a
  /// product (`intern`), or `s` itself as the one factor. Nullopt if `s` is
  /// unknown.
  std::optional<Monomial> monomialOf(Sym s);
  /// The node whose value is `m` (value numbering): the same product of the
  /// same sets is the same node. A new node gets `home`/`index` for the
  /// trace (a shape value's element; none for a product only a rule saw).
  Sym intern(const Monomial &m, mlir::Value home = {}, int64_t index = 0);
  /// The node whose value is `kind(a, b)` for an integer operation the
  /// monomials do not describe (Div that is not exact, Add/Sub of unlike
  /// terms): equal operands give the same node. `a`, `b` canonical.
  Sym internOp(llvm::StringRef kind, Sym a, Sym b, mlir::Value home,
               int64_t index);
  /// Provably never 0 (a constant other than 0, a lower bound >= 1, or a
  /// product of such factors).
  bool provablyNonZero(Sym s);
  /// Provably >= 0 (a lower bound, or a positive product of such factors).
  bool provablyNonNegative(Sym s);
  /// Provably `s == 0` implies `d == 0` (every factor of `s` that may be 0
  /// is a factor of `d`).
  bool zeroImplies(Sym s, Sym d);

  //===--------------------------------------------------------------------===//
  // For rules: contents of small integer tensors (shape values)
  //===--------------------------------------------------------------------===//

  /// The elements of a 0-D or short 1-D integer tensor: computed by a rule,
  /// read from a constant, or (otherwise) fresh unknown nodes, one per
  /// element. Null for other values.
  const SymList *content(mlir::Value v);
  /// Records the elements of `v` (by the rule of its defining op).
  void setContent(mlir::Value v, SymList elements);
  /// The elements of `v` if they are all compile-time constants.
  std::optional<llvm::SmallVector<int64_t>> constantInts(mlir::Value v);

  /// Multidirectional broadcast of `operands` (right-aligned dim lists),
  /// decided by the shared shape library (onyx::shape::broadcastDims): each
  /// result dim is a Sym when the library resolves it to one operand
  /// extent (or a constant), nullopt when it is only known at run time.
  llvm::SmallVector<std::optional<Sym>>
  broadcast(llvm::ArrayRef<SymList> operands);

  /// True on an op's first visit (rules that create contents do it then).
  bool isFirstVisit() const { return firstVisit; }
  mlir::Operation *currentOp() const { return current; }

  //===--------------------------------------------------------------------===//
  // Queries (time-bounded)
  //===--------------------------------------------------------------------===//

  /// If a and b are connected by facts with times < bound, the c with
  /// value(b) == value(a) + c.
  std::optional<int64_t> offsetBetween(NodeId a, NodeId b, Time bound) const;
  /// The node of `v[axis]` for a query (no allocation; kNoNode if unknown).
  NodeId lookupDim(mlir::Value v, int64_t axis) const;
  /// The query bound of "before op".
  Time boundBefore(mlir::Operation *op) const;

  std::optional<int64_t> groupOf(NodeId n) const;
  int64_t numGroups() const { return int64_t(groupMembers.size()); }
  llvm::SmallVector<DimRef> membersOf(int64_t group) const;
  llvm::SmallVector<DimAnalysis::OffsetRelation> offsetRelations() const;
  llvm::SmallVector<std::pair<int64_t, int64_t>> constantGroups() const;
  void dumpGroups(llvm::raw_ostream &os) const;
  void dumpOffsets(llvm::raw_ostream &os) const;
  void replaceValue(mlir::Value from, mlir::Value to);

  DimAnalysis::Statistics stats;

private:
  struct Node {
    NodeId parent;
    Time time; ///< when the edge to the parent was proven
    uint32_t size;
    int64_t offset; ///< value(this) = value(parent) + offset
    // Root summaries.
    int64_t minDimOffset; ///< min offset of tensor-dim members to the root
    bool hasConstant;
    int64_t constant; ///< value of the root when hasConstant
    Time classTime;   ///< latest union or constant in the set
    // Where the node comes from (tracing and group members).
    mlir::Value value;
    int64_t index;
    bool isElement;
  };
  struct OpEntry {
    mlir::Operation *op;
    Time time;  ///< time of the facts its rule proves
    Time bound; ///< query bound of before(op)
    bool visited = false;
  };

  NodeId newNode(mlir::Value v, int64_t index, bool isElement);
  std::optional<Monomial> monomialOf(Sym s, unsigned depth);
  std::pair<NodeId, int64_t> find(NodeId n) const;
  /// Records that the rule being evaluated relies on facts up to time `t`:
  /// what it proves is dated no earlier.
  void notePremise(Time t) const {
    if (current && t > premiseTime)
      premiseTime = t;
  }
  /// The latest time on the path from `n` to its root.
  Time pathTime(NodeId n) const;
  /// The time of a fact proven now: the op's, or its premises' if later.
  Time factTime() const { return std::max(currentTime, premiseTime); }
  void unite(NodeId a, NodeId b, int64_t delta, llvm::StringRef why);
  void setConstant(NodeId n, int64_t c, llvm::StringRef why);
  void conflict(llvm::StringRef what, llvm::StringRef why);
  void enqueueUsers(NodeId root);
  void registerUses(uint32_t opIndex);
  void addUser(NodeId n, uint32_t opIndex);
  void visit(uint32_t opIndex, bool first);
  void seedDimParams();
  void seedResultDimParams(mlir::Operation *returnOp);
  void drainWorklist(uint32_t maxIndex);
  void finalize();
  void printNode(llvm::raw_ostream &os, NodeId n);
  void printSym(llvm::raw_ostream &os, Sym s);
  llvm::raw_ostream *trace() const;

  mlir::MLIRContext *ctx;
  std::vector<Node> nodes;
  llvm::DenseMap<mlir::Value, NodeId> firstDimNode;
  llvm::DenseMap<mlir::Value, SymList> contents;
  /// When a rule described a value's elements (absent: from the start).
  llvm::DenseMap<mlir::Value, Time> contentTime;
  std::vector<OpEntry> ops;
  llvm::DenseMap<mlir::Operation *, uint32_t> opIndex;
  /// Analyzed functions (their dim_params seed the sets).
  std::vector<mlir::Operation *> functions;
  /// Per function, the first dim seen with each dim_params name.
  llvm::DenseMap<mlir::Operation *, llvm::StringMap<Sym>> namedDims;
  /// Products: the root (or node) whose value is a monomial, with the
  /// time that became true; moved to the new root on a union at offset 0.
  struct Term {
    Monomial monomial;
    Time time;
  };
  llvm::DenseMap<NodeId, Term> terms;
  /// Value numbering: a monomial's (or an opaque operation's) key to the
  /// node holding its value and the time of that fact.
  std::map<std::vector<int64_t>, std::pair<NodeId, Time>> internTable;
  /// Every value analyzed, in program order (for group ids).
  std::vector<mlir::Value> values;

  // Worklist: per root, the ops whose rule reads one of its members.
  llvm::DenseMap<NodeId, std::vector<uint32_t>> users;
  std::vector<uint32_t> worklist;
  std::vector<uint8_t> queuedStamp;

  // Visiting state.
  mlir::Operation *current = nullptr;
  Time currentTime = kSeedTime;
  Time cursorTime = kSeedTime;
  mutable Time premiseTime = kSeedTime;
  bool firstVisit = false;
  uint64_t mergesThisSweep = 0;
  bool finished = false;

  // Results.
  std::vector<int64_t> nodeGroup; ///< group id per node, -1 if none
  std::vector<llvm::SmallVector<NodeId, 2>> groupMembers;

  // Scratch IR for the shared broadcast helper.
  std::unique_ptr<mlir::Block> scratch;

  // Tracing.
  llvm::raw_ostream *traceStream = nullptr;
  std::unique_ptr<mlir::AsmState> asmState;
  mlir::Operation *traceRoot = nullptr;
};

} // namespace onyx::dim_analysis_detail

#endif // ONYX_LIB_ANALYSIS_DIMANALYSISENGINE_H
