//===- ONNXDimAnalysisPass.cpp - Show DimAnalysis groups as onnx.DimGroup -===//
//
// `--onnx-dim-analysis`: runs DimAnalysis on the module and writes its
// equality groups into the IR as `onnx.DimGroup` ops, one per dynamic dim,
// right after the dim's definition. The analysis itself lives in
// lib/Analysis; this pass only queries it, for lit tests and inspection.
//
//===----------------------------------------------------------------------===//

#include "onyx/Analysis/DimAnalysis.h"
#include "onyx/Dialect/ONNX/ONNXDialect.h"
#include "onyx/Transforms/Passes.h"

namespace onyx {
#define GEN_PASS_DEF_ONNXDIMANALYSIS
#include "onyx/Transforms/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

namespace {

struct ONNXDimAnalysisPass
    : public onyx::impl::ONNXDimAnalysisBase<ONNXDimAnalysisPass> {
  using Base::Base;

  void runOnOperation() override {
    DimAnalysis analysis(getOperation());
    if (trace)
      analysis.setTraceStream(&llvm::errs());
    analysis.run();
    insertDimGroupOps(getOperation(), analysis);

    const DimAnalysis::Statistics &stats = analysis.getStatistics();
    numDynamicDims = stats.numDynamicDims;
    numGroups = stats.numGroups;
    numMerges = stats.numMerges;
    numIterations = stats.numIterations;
  }
};

} // namespace
