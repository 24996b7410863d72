//===- ShapeHelpers.h - The one place result shapes are computed -*- C++
//-*-===//
//
// Every operator's result dims are computed here, as OpFoldResults: static
// extents stay attributes, dynamic ones are SSA index values. Destination
// construction in the ONNX conversion uses these helpers; a converter that
// computes a dim itself is a bug (RFC Fix 1).
//
// Helpers that must check compatibility at run time emit `onyx.assert`
// with a message naming the dims, so a mismatch is a clean error.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_SHAPE_SHAPEHELPERS_H
#define ONYX_SHAPE_SHAPEHELPERS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"

#include <functional>

namespace onyx::shape {

using mlir::OpFoldResult;

/// Dim `index` of ranked tensor `value`: an attribute when static, else a
/// `tensor.dim` (one per value and index).
OpFoldResult getDim(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                    int64_t index);
llvm::SmallVector<OpFoldResult> getDims(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Value value);

/// Extra knowledge for provablyEqual: whether dim `axisA` of tensor `a`
/// equals dim `axisB` of tensor `b` at run time (DimAnalysis). A converter
/// installs one for the duration of one op's lowering; it must only answer
/// true for facts that hold whenever that op runs.
using DimEquivalence =
    std::function<bool(mlir::Value, int64_t, mlir::Value, int64_t)>;
class ScopedDimEquivalence {
public:
  explicit ScopedDimEquivalence(const DimEquivalence *equivalence);
  ~ScopedDimEquivalence();

private:
  const DimEquivalence *previous;
};

/// True when `a` and `b` are provably the same extent: the same value or
/// constant, the same dim of the same tensor, or equal by the installed
/// DimEquivalence.
bool provablyEqual(OpFoldResult a, OpFoldResult b);
/// The static value of `dim`, if any.
std::optional<int64_t> getStatic(OpFoldResult dim);
/// Index value of `dim` (materializes a constant for static dims).
mlir::Value toValue(mlir::OpBuilder &b, mlir::Location loc, OpFoldResult dim);
/// Product of `dims`, folded to an attribute when all are static.
OpFoldResult productOf(mlir::OpBuilder &b, mlir::Location loc,
                       llvm::ArrayRef<OpFoldResult> dims);
/// Static shape (kDynamic for SSA dims).
llvm::SmallVector<int64_t> toStaticShape(llvm::ArrayRef<OpFoldResult> dims);

/// How one operand dim reaches the broadcast result.
enum class BroadcastKind {
  Equal,   ///< provably the result extent: index passes through
  One,     ///< statically 1 while the result may not be: index 0
  Runtime, ///< 1 or the result extent, known at run time only
};

struct OperandBroadcast {
  /// Per operand dim (the operand's own rank).
  llvm::SmallVector<BroadcastKind> kinds;
  /// For Runtime dims: an i1 value "this dim is 1" (else null).
  llvm::SmallVector<mlir::Value> isOne;
};

struct BroadcastShape {
  llvm::SmallVector<OpFoldResult> dims;
  llvm::SmallVector<OperandBroadcast> operands;
};

/// ONNX multidirectional (numpy) broadcasting of dim lists, right-aligned.
/// Extents that cannot be proven compatible are checked at run time.
/// Incompatible static extents are reported on `diagOp`.
mlir::FailureOr<BroadcastShape>
broadcastDims(mlir::OpBuilder &b, mlir::Location loc,
              llvm::ArrayRef<llvm::SmallVector<OpFoldResult>> operandDims,
              mlir::Operation *diagOp);

/// Broadcast of whole ranked tensors.
mlir::FailureOr<BroadcastShape> broadcastShapes(mlir::OpBuilder &b,
                                                mlir::Location loc,
                                                mlir::ValueRange operands,
                                                mlir::Operation *diagOp);

/// ONNX unidirectional broadcasting of `dims` to `target` (Gemm's C,
/// Expand-like uses): each dim equals the target or is 1. `operandIndex`
/// names the operand in run-time error messages.
mlir::FailureOr<OperandBroadcast>
broadcastTo(mlir::OpBuilder &b, mlir::Location loc,
            llvm::ArrayRef<OpFoldResult> dims,
            llvm::ArrayRef<OpFoldResult> target, mlir::Operation *diagOp,
            unsigned operandIndex = 0);

/// Checks (statically or at run time) that two extents are equal, e.g. a
/// contraction dim. `what` names them in the message.
mlir::LogicalResult checkEqual(mlir::OpBuilder &b, mlir::Location loc,
                               OpFoldResult lhs, OpFoldResult rhs,
                               llvm::StringRef what, mlir::Operation *diagOp);

/// MatMul (numpy matmul semantics, 1-D promotion on either side).
struct MatMulShape {
  llvm::SmallVector<OpFoldResult> dims; ///< result dims
  BroadcastShape batch;                 ///< batch dims broadcast
  bool lhsIsVector = false, rhsIsVector = false;
  OpFoldResult m, n, k;
};
mlir::FailureOr<MatMulShape> matmulShape(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value lhs, mlir::Value rhs,
                                         mlir::Operation *diagOp);

/// Gemm: A' (M,K) x B' (K,N) with transA/transB.
struct GemmShape {
  OpFoldResult m, n, k;
};
mlir::FailureOr<GemmShape> gemmShape(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::Value a, mlir::Value bMat,
                                     bool transA, bool transB,
                                     mlir::Operation *diagOp);

/// Transpose with `perm` (empty: reverse).
llvm::SmallVector<OpFoldResult> transposeShape(mlir::OpBuilder &b,
                                               mlir::Location loc,
                                               mlir::Value input,
                                               llvm::ArrayRef<int64_t> perm);

/// Reshape to the constant `shape` (0 copies the input dim unless
/// `allowZero`; one -1 is inferred). Emits the run-time element-count check.
mlir::FailureOr<llvm::SmallVector<OpFoldResult>>
reshapeShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
             llvm::ArrayRef<int64_t> shape, bool allowZero,
             mlir::Operation *diagOp);

/// Reshape to a shape read at run time from the 1-D integer tensor
/// `shapeTensor` of `rank` entries. Every entry rule of ONNX (0, -1,
/// allowzero) and the element count are checked at run time.
mlir::FailureOr<llvm::SmallVector<OpFoldResult>>
reshapeShapeFromTensor(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value input, mlir::Value shapeTensor, int64_t rank,
                       bool allowZero, mlir::Operation *diagOp);

/// Flatten: [prod(dims < axis), prod(dims >= axis)]; `axis` in [0, rank].
llvm::SmallVector<OpFoldResult> flattenShape(mlir::OpBuilder &b,
                                             mlir::Location loc,
                                             mlir::Value input, int64_t axis);

/// Dims of `input` with `axis` removed (reductions without keepdims).
llvm::SmallVector<OpFoldResult> dropDim(llvm::ArrayRef<OpFoldResult> dims,
                                        int64_t axis);

} // namespace onyx::shape

#endif // ONYX_SHAPE_SHAPEHELPERS_H
