//===- DimRules.h - Operator rules of DimAnalysis ---------------*- C++ -*-===//
//
// The rules of DimAnalysis and the helpers they share. A rule derives what
// one operator proves about dims (see DimRules.cpp for the contract); the
// one table mapping op names to rules is `buildRuleTable` in DimRules.cpp.
// Elementwise, linear-algebra, convolution and control-flow rules live in
// DimRules.cpp, data-movement, shape-value and reduction rules in
// DataMovementRules.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_ANALYSIS_DIMRULES_H
#define ONYX_LIB_ANALYSIS_DIMRULES_H

#include "DimAnalysisEngine.h"

namespace onyx::dim_analysis_detail {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// `axis` in [0, rank) after negative values count from the back.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);
/// An integer attribute, or `fallback` when absent (ONNX defaults).
int64_t intAttr(mlir::Operation *op, llvm::StringRef name, int64_t fallback);
/// An array-of-integers attribute, if present.
std::optional<llvm::SmallVector<int64_t>> intsAttr(mlir::Operation *op,
                                                   llvm::StringRef name);
/// An absent optional input (`none`).
bool isAbsent(mlir::Value v);
/// `to` has the shape of `from`, axis by axis.
void sameShape(Engine &e, mlir::Value from, mlir::Value to,
               llvm::StringRef why);
/// The elements of the shape value `from` reach `to` unchanged.
void sameContent(Engine &e, mlir::Value from, mlir::Value to);
/// Product of `factors`: a constant, or the one non-constant factor when the
/// constant ones multiply to 1; unknown otherwise.
Sym productOf(Engine &e, llvm::ArrayRef<Sym> factors);
/// The result dims `resultDims` of a multidirectional broadcast of
/// `operands`, as the shared shape library decides them.
void relateBroadcast(Engine &e, llvm::ArrayRef<SymList> operands,
                     llvm::ArrayRef<Sym> resultDims, llvm::StringRef why);

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

// DimRules.cpp
void unaryRule(Engine &e, mlir::Operation *op);
void allResultsLikeInputRule(Engine &e, mlir::Operation *op);
void castRule(Engine &e, mlir::Operation *op);
void broadcastRule(Engine &e, mlir::Operation *op);
void arithmeticRule(Engine &e, mlir::Operation *op);
void equalRule(Engine &e, mlir::Operation *op);
void whereRule(Engine &e, mlir::Operation *op);
void sameOperandsAndResultShapeRule(Engine &e, mlir::Operation *op);
void matmulRule(Engine &e, mlir::Operation *op);
void qlinearMatmulRule(Engine &e, mlir::Operation *op);
void gemmRule(Engine &e, mlir::Operation *op);
void convRule(Engine &e, mlir::Operation *op);
void qlinearConvRule(Engine &e, mlir::Operation *op);
void convTransposeRule(Engine &e, mlir::Operation *op);
void poolRule(Engine &e, mlir::Operation *op);
void ifRule(Engine &e, mlir::Operation *op);

// DataMovementRules.cpp
void transposeRule(Engine &e, mlir::Operation *op);
void reshapeRule(Engine &e, mlir::Operation *op);
void flattenRule(Engine &e, mlir::Operation *op);
void unsqueezeRule(Engine &e, mlir::Operation *op);
void squeezeRule(Engine &e, mlir::Operation *op);
void concatRule(Engine &e, mlir::Operation *op);
void sliceRule(Engine &e, mlir::Operation *op);
void padRule(Engine &e, mlir::Operation *op);
void gatherRule(Engine &e, mlir::Operation *op);
void gatherElementsRule(Engine &e, mlir::Operation *op);
void shapeRule(Engine &e, mlir::Operation *op);
void sizeRule(Engine &e, mlir::Operation *op);
void expandRule(Engine &e, mlir::Operation *op);
void constantOfShapeRule(Engine &e, mlir::Operation *op);
void rangeRule(Engine &e, mlir::Operation *op);
void tileRule(Engine &e, mlir::Operation *op);
void splitRule(Engine &e, mlir::Operation *op);
void reduceRule(Engine &e, mlir::Operation *op);
void argReduceRule(Engine &e, mlir::Operation *op);
void topKRule(Engine &e, mlir::Operation *op);
void layerNormRule(Engine &e, mlir::Operation *op);

} // namespace onyx::dim_analysis_detail

#endif // ONYX_LIB_ANALYSIS_DIMRULES_H
