//===- DimAnalysis.h - Which dynamic dims are provably equal ----*- C++ -*-===//
//
// DimAnalysis answers, at compile time, whether two dimensions of tensors in
// `onnx`-dialect functions are equal at run time, or equal up to a constant
// offset (`d1 + c1 == d2 + c2`). Every dim of every ranked tensor value starts
// alone in a union-find with offsets; sets merge when a rule proves equality
// (the same value, an operator's shape rule, `onnx.dim_params` names shared by
// arguments/results) until a fixed point. See docs/dim-analysis.md.
//
// Two kinds of answer:
//
//  * The plain queries (`sameDim`, `sameDynDim`, ...) hold in every execution
//    that completes without a run-time error: they may rely on any op's
//    validity requirements (a MatMul's contraction dims agree, Concat's other
//    dims agree). Inspection and `--explain-shapes` use them.
//  * `before(op)` returns a view restricted to facts that hold whenever `op`
//    is reached: facts from the graph inputs' validated `dim_params` and from
//    ops that run (and check their requirements) before `op`. Generated code
//    that relies on an equality at `op` (a dropped run-time check, two
//    buffers given one size) must ask this view; asking the plain queries
//    there would let the op's own (or a later op's) requirement justify
//    skipping the check of that requirement.
//
//   DimAnalysis analysis(funcOrModule);
//   analysis.run();
//   if (analysis.before(addOp).sameDynDim(lhs, 0, rhs, 0)) ... no check ...
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_ANALYSIS_DIMANALYSIS_H
#define ONYX_ANALYSIS_DIMANALYSIS_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>

namespace onyx {

namespace dim_analysis_detail {
class Engine;
} // namespace dim_analysis_detail

/// One dimension: axis `axis` (non-negative) of the ranked tensor `value`.
struct DimRef {
  mlir::Value value;
  int64_t axis = 0;
};

class DimAnalysis {
public:
  /// Counters of one run (also the pass statistics).
  struct Statistics {
    uint64_t numOps = 0;         ///< ops visited
    uint64_t numDims = 0;        ///< dims of ranked tensor values
    uint64_t numDynamicDims = 0; ///< of which dynamic in their type
    uint64_t numGroups = 0;      ///< equality groups of dynamic dims
    uint64_t numMerges = 0;      ///< unions performed
    uint64_t numConflicts = 0;   ///< contradictory facts (ignored)
    uint64_t numIterations = 0;  ///< sweeps until the fixed point
  };

  /// "group `group` == group `baseGroup` + `offset`" (baseGroup < group).
  struct OffsetRelation {
    int64_t group;
    int64_t baseGroup;
    int64_t offset;
  };

  /// Analyzes every function (FunctionOpInterface with a body) nested in
  /// `root`, or `root` itself when it is a function. Nothing happens until
  /// `run()`.
  explicit DimAnalysis(mlir::Operation *root);
  virtual ~DimAnalysis();
  DimAnalysis(const DimAnalysis &) = delete;
  DimAnalysis &operator=(const DimAnalysis &) = delete;

  /// Dialects the analysis creates scratch IR in (arith, onyx: it asks the
  /// shared broadcast helper, which builds its run-time checks, in a
  /// detached block). A pass using the analysis declares them; outside a
  /// pass the constructor loads them.
  static void getDependentDialects(mlir::DialectRegistry &registry);

  /// Print each iteration's merges, the final groups and the offset
  /// relations to `os` while running (null: off). In builds with LLVM
  /// assertions, `-debug-only=dim-analysis` prints the same to dbgs().
  void setTraceStream(llvm::raw_ostream *os);

  /// Runs the analysis to its fixed point. Idempotent.
  void run();
  /// The seed's name for run().
  void analyze() { run(); }

  //===--------------------------------------------------------------------===//
  // Queries. Axes may be negative (counted from the innermost dim); an axis
  // out of range, an unranked value or a value the analysis did not see
  // gives false / nullopt.
  //===--------------------------------------------------------------------===//

  /// a[axisA] == b[axisB]: both static and equal, or proven equal.
  bool sameDim(mlir::Value a, int64_t axisA, mlir::Value b,
               int64_t axisB) const;
  /// Like sameDim, but false unless both dims are dynamic in their types.
  bool sameDynDim(mlir::Value a, int64_t axisA, mlir::Value b,
                  int64_t axisB) const;
  /// Same rank and sameDim on every axis.
  bool sameShape(mlir::Value a, mlir::Value b) const;
  /// Same rank and, on every axis: both static (values ignored), or both
  /// dynamic and sameDynDim. A static/dynamic pair is a mismatch.
  bool sameDynShape(mlir::Value a, mlir::Value b) const;
  /// Directional: `a` broadcasts to `b` along the last dim only. Same rank
  /// (>= 1), a's last dim is static 1 or sameDim with b's last dim, and
  /// every other axis is sameDim. broadcastLastDim(a, b) does not imply
  /// broadcastLastDim(b, a).
  bool broadcastLastDim(mlir::Value a, mlir::Value b) const;
  /// The c with a[axisA] + c == b[axisB], if proven.
  std::optional<int64_t> getDimOffset(mlir::Value a, int64_t axisA,
                                      mlir::Value b, int64_t axisB) const;
  /// a[axisA] + offsetA == b[axisB] + offsetB, if proven.
  bool sameDimWithOffset(mlir::Value a, int64_t axisA, int64_t offsetA,
                         mlir::Value b, int64_t axisB, int64_t offsetB) const;
  /// The compile-time value of a[axis]: its static extent, or a constant the
  /// analysis proved for a dynamic dim.
  std::optional<int64_t> getConstantDim(mlir::Value a, int64_t axis) const;
  /// A lower bound on a[axis] (dims are never negative, so at least 0).
  int64_t getLowerBound(mlir::Value a, int64_t axis) const;

  //===--------------------------------------------------------------------===//
  // Check-safe queries
  //===--------------------------------------------------------------------===//

  /// Queries restricted to facts that hold whenever a given op is reached.
  /// Static extents and the validated `dim_params` of graph inputs always
  /// count; a fact an op proves (or requires) counts for the ops after it
  /// in the same function body. Facts from nested regions never count.
  class View {
  public:
    bool sameDim(mlir::Value a, int64_t axisA, mlir::Value b,
                 int64_t axisB) const;
    bool sameDynDim(mlir::Value a, int64_t axisA, mlir::Value b,
                    int64_t axisB) const;
    bool sameShape(mlir::Value a, mlir::Value b) const;
    bool sameDynShape(mlir::Value a, mlir::Value b) const;
    bool broadcastLastDim(mlir::Value a, mlir::Value b) const;
    std::optional<int64_t> getDimOffset(mlir::Value a, int64_t axisA,
                                        mlir::Value b, int64_t axisB) const;
    bool sameDimWithOffset(mlir::Value a, int64_t axisA, int64_t offsetA,
                           mlir::Value b, int64_t axisB, int64_t offsetB) const;

  private:
    friend class DimAnalysis;
    View(const dim_analysis_detail::Engine *engine, uint32_t bound)
        : engine(engine), bound(bound) {}
    const dim_analysis_detail::Engine *engine;
    uint32_t bound;
  };

  /// The facts that hold whenever `op` is reached (see View). An op the
  /// analysis did not visit gets only the always-valid facts.
  View before(mlir::Operation *op) const;

  //===--------------------------------------------------------------------===//
  // Groups, for display (onnx.DimGroup, onyx-annotate, --explain-shapes)
  //===--------------------------------------------------------------------===//

  /// Dense id (0, 1, ...) of the equality group of a dynamic dim, assigned in
  /// program order (function arguments first), so ids are deterministic for
  /// a given input. nullopt for static dims and unknown values.
  std::optional<int64_t> getGroupId(mlir::Value a, int64_t axis) const;
  int64_t getNumGroups() const;
  /// The dynamic dims in group `group`, in program order.
  llvm::SmallVector<DimRef> getGroupMembers(int64_t group) const;
  /// One relation per group related by a constant offset to an earlier
  /// group (the earliest one it is related to).
  llvm::SmallVector<OffsetRelation> getOffsetRelations() const;
  /// Groups whose value the analysis proved constant: (group, value).
  llvm::SmallVector<std::pair<int64_t, int64_t>> getConstantGroups() const;

  /// Prints the groups with their members ("group 0: %arg0[0], %0[0]").
  void dump(llvm::raw_ostream &os) const;
  /// Prints the offset relations ("group 3 = group 1 + 2").
  void dumpOffsetRelations(llvm::raw_ostream &os) const;

  const Statistics &getStatistics() const;

  //===--------------------------------------------------------------------===//
  // Keeping the analysis valid while a pass rewrites the IR
  //===--------------------------------------------------------------------===//

  /// Tells the analysis that `to` replaced `from` (same type): queries on
  /// `to` answer what they answered for `from`. A conversion that replaces
  /// values one op at a time calls this before erasing the old op, so
  /// queries on later ops' (new) operands keep working.
  void replaceValue(mlir::Value from, mlir::Value to);

protected:
  /// For ScopedDimAnalysis: analyze exactly `ops` (any order; they are
  /// visited in program order). Values defined outside are leaves.
  explicit DimAnalysis(llvm::ArrayRef<mlir::Operation *> ops);

private:
  std::unique_ptr<dim_analysis_detail::Engine> engine;
};

/// DimAnalysis of the few ops within `upwardLevel` def-use steps above `op`
/// (op's operands' defining ops are level 1, theirs level 2, ...), for
/// questions about one op, e.g. inside a shape helper. Runs on
/// construction. Cheaper than a whole-function analysis, and weaker: dims
/// whose equality is proven further up stay unrelated.
class ScopedDimAnalysis : public DimAnalysis {
public:
  ScopedDimAnalysis(mlir::Operation *op, unsigned upwardLevel);
};

//===----------------------------------------------------------------------===//
// Showing the result
//===----------------------------------------------------------------------===//

/// Inserts `onnx.DimGroup(%v) {axis, group_id}` for every dynamic dim the
/// analysis grouped: right after the op defining %v, or at the top of the
/// block for block arguments. Changes nothing else. Returns the number of
/// ops inserted.
int64_t insertDimGroupOps(mlir::Operation *root, const DimAnalysis &analysis);

/// The text of `module` with the `onnx.DimGroup` ops in it folded into the
/// tensor types (and removed): a dynamic dim in group N prints as `dN` where
/// the group first appears and `uN` after, and the type gets a textual
/// `#onnx.dg<axis:group,...>` encoding, e.g.
/// `tensor<d0x3xu1xf32, #onnx.dg<0:0,2:1>>`. Mutates the types of `module`
/// to print it; the caller discards the module afterwards. The result is
/// for reading: `#onnx.dg` is not a registered attribute.
std::string printWithFoldedDimGroups(mlir::Operation *module);

} // namespace onyx

#endif // ONYX_ANALYSIS_DIMANALYSIS_H
