//===- ConvolutionCommon.h - Window lowering helpers ------------*- C++ -*-===//
//
// Private to Convolution.cpp and Pooling.cpp: what the convolutions and the
// pools share to build a windowed linalg.generic (explicit padding, the loop
// numbering of a window generic, ui<N> <-> i<N> reinterpretation).
// Convolution.cpp defines them.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_CONVERSION_ONNXTOTENSOR_CONVOLUTIONCOMMON_H
#define ONYX_LIB_CONVERSION_ONNXTOTENSOR_CONVOLUTIONCOMMON_H

#include "Lowering.h"

#include "onyx/Shape/ConvolutionShapes.h"

namespace onyx::conversion::convolution {

using shape::WindowAttrs;
using shape::WindowDim;
using IteratorType = mlir::utils::IteratorType;

/// The integers of an optional I64ArrayAttr (empty when absent).
llvm::SmallVector<int64_t> intList(std::optional<mlir::ArrayAttr> attr);
/// `v` when `attr` is present, else nullopt.
std::optional<llvm::ArrayRef<int64_t>>
optionalList(const llvm::SmallVector<int64_t> &v,
             std::optional<mlir::ArrayAttr> attr);
bool isUnsignedInt(mlir::Type type);
/// The signless integer type of the same width as `type`, else `type`.
mlir::Type signlessOf(mlir::Type type);
/// Reinterprets a scalar between ui<N> and i<N>. arith rejects unsigned
/// types; the LLVM lowering maps both to i<N>, so these casts vanish in
/// reconcile-unrealized-casts.
mlir::Value castScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                       mlir::Type type);
/// 0, 1, ..., n - 1.
llvm::SmallVector<int64_t> iota(int64_t n);
/// An elementwise copy of `t` with its elements reinterpreted as
/// `elementType` (ui<N> <-> i<N>).
mlir::Value castElements(mlir::OpBuilder &b, mlir::Location loc, mlir::Value t,
                         mlir::Type elementType);
/// The smallest value of `type` (the padding of max pooling): -inf, the
/// most negative integer, or 0 when the integer is read as unsigned.
mlir::Value lowestValue(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                        bool asUnsigned);
/// Index value of linalg loop `l` inside a generic body.
mlir::Value loopIndex(mlir::OpBuilder &b, mlir::Location loc, int64_t l);
/// `input` padded for the windows of `window` (begin pad, end pad plus the
/// ceil_mode overhang) with `padValue`; `input` itself when nothing is
/// padded.
mlir::Value padForWindow(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value input, llvm::ArrayRef<WindowDim> window,
                         mlir::Value padValue);

/// Loop numbering of a window generic: `lead` leading parallel loops (batch,
/// channels), the output spatial loops, `inner` reduction loops (input
/// channels), then the kernel taps.
struct WindowLoops {
  int64_t lead, rank, inner;
  mlir::MLIRContext *ctx;

  int64_t count() const { return lead + 2 * rank + inner; }
  mlir::AffineExpr loop(int64_t l) const {
    return mlir::getAffineDimExpr(unsigned(l), ctx);
  }
  mlir::AffineExpr out(int64_t i) const { return loop(lead + i); }
  mlir::AffineExpr reduced(int64_t j) const { return loop(lead + rank + j); }
  mlir::AffineExpr tap(int64_t i) const {
    return loop(lead + rank + inner + i);
  }
  int64_t outLoop(int64_t i) const { return lead + i; }
  int64_t tapLoop(int64_t i) const { return lead + rank + inner + i; }
  /// The padded input position read by output `i` and its tap.
  mlir::AffineExpr read(int64_t i, int64_t stride, int64_t dilation) const {
    return out(i) * stride + tap(i) * dilation;
  }
  mlir::AffineMap map(llvm::ArrayRef<mlir::AffineExpr> exprs) const {
    return mlir::AffineMap::get(unsigned(count()), 0, exprs, ctx);
  }
  llvm::SmallVector<IteratorType> iterators() const {
    llvm::SmallVector<IteratorType> iters(count(), IteratorType::reduction);
    for (int64_t l = 0; l < lead + rank; ++l)
      iters[l] = IteratorType::parallel;
    return iters;
  }
};

using GenericBody = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange args)>;

/// A linalg.generic with explicit indexing maps (window reads are affine
/// expressions, not plain loops, so buildGeneric does not fit).
llvm::SmallVector<mlir::Value>
buildWindowGeneric(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::ValueRange inputs, mlir::ValueRange inits,
                   llvm::ArrayRef<mlir::AffineMap> maps,
                   llvm::ArrayRef<IteratorType> iterators, GenericBody body);

/// MaxPool, AveragePool, LpPool and the global pools (Pooling.cpp);
/// addConvolutionLowerings calls it.
void addPoolingLowerings(LoweringTable &table);

} // namespace onyx::conversion::convolution

#endif // ONYX_LIB_CONVERSION_ONNXTOTENSOR_CONVOLUTIONCOMMON_H
