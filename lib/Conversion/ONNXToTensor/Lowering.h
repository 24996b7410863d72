//===- Lowering.h - Shared pieces of the ONNX -> tensor conversion -*- C++ -*-//
#ifndef ONYX_LIB_CONVERSION_ONNXTOTENSOR_LOWERING_H
#define ONYX_LIB_CONVERSION_ONNXTOTENSOR_LOWERING_H

#include "onyx/Dialect/ONNX/ONNXDialect.h"
#include "onyx/Dialect/Onyx/OnyxDialect.h"
#include "onyx/Shape/ShapeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringMap.h"

namespace onyx::conversion {

/// Lowers one onnx op; returns the replacement values (one per result), or
/// failure after emitting an error on the op.
using LowerFn =
    llvm::function_ref<mlir::FailureOr<llvm::SmallVector<mlir::Value>>(
        mlir::Operation *, mlir::OpBuilder &)>;
using LowerFnPtr = mlir::FailureOr<llvm::SmallVector<mlir::Value>> (*)(
    mlir::Operation *, mlir::OpBuilder &);
using LoweringTable = llvm::StringMap<LowerFnPtr>;

void addElementwiseLowerings(LoweringTable &table);
void addLinearAlgebraLowerings(LoweringTable &table);
void addDataMovementLowerings(LoweringTable &table);
void addNormalizationLowerings(LoweringTable &table);
void addReductionLowerings(LoweringTable &table);
void addConvolutionLowerings(LoweringTable &table);
void addDataDependentLowerings(LoweringTable &table);
void addControlFlowLowerings(LoweringTable &table);
void addQuantizationLowerings(LoweringTable &table);
void addResizeLowerings(LoweringTable &table);
void addRecurrentLowerings(LoweringTable &table);
void addEinsumLowerings(LoweringTable &table);
void addSequenceLowerings(LoweringTable &table);
/// The operators added for the ONNX 1.23 node suite (NewOperators.cpp).
void addNewOperatorLowerings(LoweringTable &table);

/// Sequences and optionals (Sequence.cpp, docs/sequences.md): the onyx
/// handle type of an `!onnx.Seq`/`!onnx.Opt` type (null if it has none);
/// whether a type is such a handle type (either dialect's).
mlir::Type convertHandleType(mlir::Type type);
bool isHandleType(mlir::Type type);
/// Gives graph inputs of sequence/optional type their handle types.
mlir::LogicalResult convertHandleArguments(mlir::func::FuncOp func);

/// Lowers every onnx op of `block` in order with the lowering table (the
/// pass driver's per-op step: results replaced, declared types reconciled).
/// Ops nested in regions are left to their parent's lowering: the If, Loop
/// and Scan lowerings call this on their bodies.
mlir::LogicalResult lowerONNXOpsIn(mlir::Block &block);

/// Float -> float with one rounding; bf16 by integer ops (Elementwise.cpp).
mlir::Value castFloatTo(mlir::OpBuilder &b, mlir::Location l, mlir::Value v,
                        mlir::Type to);
/// The element type of an ONNX TensorProto.DataType code (Cast's `to`,
/// QuantizeLinear's `output_dtype`, ...), or an error on `op`.
mlir::FailureOr<mlir::Type> elementTypeForCode(mlir::Operation *op,
                                               int64_t code);

/// How the generic body reads one operand.
struct OperandAccess {
  mlir::Value tensor;
  /// Per operand dim: the loop it follows, or -1 for index 0.
  llvm::SmallVector<int64_t> loops;
  /// Per operand dim: "this extent is 1 at run time" (index 0 then), or null.
  llvm::SmallVector<mlir::Value> isOne;
};

/// Access of an operand broadcast to `rank` loops (right-aligned).
OperandAccess broadcastAccess(mlir::Value tensor,
                              const shape::OperandBroadcast &broadcast,
                              int64_t rank);
/// Identity access (operand dims follow loops 0..rank-1).
OperandAccess identityAccess(mlir::Value tensor);

using BodyFn = llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                              mlir::ValueRange inputs,
                                              mlir::Value output)>;

/// Builds a linalg.generic over `numLoops` loops. Inputs whose extents are
/// all known to match use affine indexing maps; inputs with run-time
/// broadcast flags are read with tensor.extract at clamped indices.
/// `outputLoops` maps output dims to loops.
mlir::Value buildGeneric(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::ArrayRef<OperandAccess> inputs, mlir::Value init,
                         llvm::ArrayRef<int64_t> outputLoops,
                         llvm::ArrayRef<mlir::utils::IteratorType> iterators,
                         BodyFn body);

/// tensor.empty of `dims` and `elementType`.
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                        llvm::ArrayRef<mlir::OpFoldResult> dims,
                        mlir::Type elementType);
/// A tensor of `dims` filled with `value`.
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::ArrayRef<mlir::OpFoldResult> dims,
                         mlir::Value value);

/// A scalar constant of `type` (float or integer).
mlir::Value scalarConstant(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Type type, double value);

/// The ranked tensor type of `value`, or an error on `op`.
mlir::FailureOr<mlir::RankedTensorType>
requireRanked(mlir::Operation *op, mlir::Value value, llvm::StringRef what);
/// Checks that the element type is one the lowering handles (float or
/// signless integer).
mlir::LogicalResult requireSupportedElement(mlir::Operation *op,
                                            mlir::Type elementType);

/// The integer contents of a constant tensor (the ONNX dialect's reader).
using onyx::onnx::getConstantInts;
/// Reads the float contents of a constant tensor (onnx.Constant or
/// arith.constant; dense, or an f32/f64 dense_resource), if `value` is one.
std::optional<llvm::SmallVector<double>> getConstantFloats(mlir::Value value);

/// Normalizes a possibly negative axis; error on `op` when out of range.
mlir::FailureOr<int64_t> normalizeAxis(mlir::Operation *op, int64_t axis,
                                       int64_t rank);

} // namespace onyx::conversion

#endif // ONYX_LIB_CONVERSION_ONNXTOTENSOR_LOWERING_H
