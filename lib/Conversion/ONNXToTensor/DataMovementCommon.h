//===- DataMovementCommon.h - Helpers of the data-movement lowerings -*- C++
//-*-===//
//
// Private to DataMovement*.cpp: how those files read list inputs, match
// results to the model's declared dims, and build index-computing generics.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_CONVERSION_ONNXTOTENSOR_DATAMOVEMENTCOMMON_H
#define ONYX_LIB_CONVERSION_ONNXTOTENSOR_DATAMOVEMENTCOMMON_H

#include "Lowering.h"

#include "onyx/Shape/DataMovementShapes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace onyx::conversion {

/// The integer list an op input holds: absent (a NoneType value), constant
/// (getConstantInts), or a 0-/1-D integer tensor read at run time.
mlir::FailureOr<shape::IntList>
intListOf(mlir::Operation *op, mlir::Value value, llvm::StringRef what);

/// The rank the model declares for result `result`, if ranked.
std::optional<int64_t> declaredRank(mlir::Operation *op, unsigned result);

/// `dims` matched against the declared type of result `result`
/// (shape::matchDeclared).
mlir::FailureOr<llvm::SmallVector<mlir::OpFoldResult>>
declaredDims(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
             unsigned result, llvm::ArrayRef<mlir::OpFoldResult> dims);

/// The ranked type of `value`, which must have rank >= `minRank`.
mlir::FailureOr<mlir::RankedTensorType>
requireRankAtLeast(mlir::Operation *op, mlir::Value value, int64_t minRank,
                   llvm::StringRef what);

/// The single integer of a constant scalar input, or its run-time value
/// read with tensor.extract.
mlir::OpFoldResult scalarIndexOf(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value value);

/// `value` cast to the (more static) extents `dims`, if its type differs.
mlir::Value castToDims(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value value,
                       llvm::ArrayRef<mlir::OpFoldResult> dims);

using IndexBodyFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange ivs)>;

/// A linalg.generic filling a fresh `dims` tensor element by element from
/// the element's indices alone (reads are tensor.extracts in `body`).
mlir::Value indexGeneric(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::ArrayRef<mlir::OpFoldResult> dims,
                         mlir::Type elementType, IndexBodyFn body);

using IndexInputsBodyFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange ivs,
    mlir::ValueRange inputs)>;

/// The same with `inputs` read through indexing maps (so later passes see
/// them as producers), their elements passed to `body`.
mlir::Value indexGeneric(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::ArrayRef<mlir::OpFoldResult> dims,
                         mlir::Type elementType,
                         llvm::ArrayRef<OperandAccess> inputs,
                         IndexInputsBodyFn body);

/// Access of `tensor` whose dim i follows loop loops[i].
OperandAccess projectedAccess(mlir::Value tensor,
                              llvm::ArrayRef<int64_t> loops);

/// The first element of a scalar (or one-element) tensor.
mlir::Value readScalar(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value tensor);

/// tensor.reshape of `input` to `dims` (already validated).
mlir::Value reshapeTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                      llvm::ArrayRef<mlir::OpFoldResult> dims);

/// linalg.copy of `source` into `dest`.
mlir::Value copyInto(mlir::OpBuilder &b, mlir::Location loc, mlir::Value source,
                     mlir::Value dest);

/// Gather, GatherElements, GatherND, Scatter, ScatterElements, ScatterND,
/// OneHot, Trilu, EyeLike, CumSum, ReverseSequence, DepthToSpace,
/// SpaceToDepth (DataMovementIndexing.cpp).
void addDataMovementIndexingLowerings(LoweringTable &table);

} // namespace onyx::conversion

#endif // ONYX_LIB_CONVERSION_ONNXTOTENSOR_DATAMOVEMENTCOMMON_H
