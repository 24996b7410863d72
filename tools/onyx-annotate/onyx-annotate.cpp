//===- onyx-annotate.cpp - DimAnalysis groups folded into tensor types ----===//
//
// onyx-annotate FILE.mlir writes FILE-dg.mlir (what
// `onyx-opt --onnx-dim-analysis FILE.mlir` prints) and FILE-annotated.mlir
// (the same groups folded into the tensor types, for reading). The role of
// onnx-mlir's utils/AnalyzeShape.py, in process.
//
//===----------------------------------------------------------------------===//

#include "onyx/Analysis/DimAnalysis.h"
#include "onyx/Dialect/ONNX/ONNXDialect.h"
#include "onyx/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace llvm;

static cl::OptionCategory category("onyx-annotate options");

static cl::opt<std::string> inputFilename(cl::Positional, cl::Required,
                                          cl::desc("<FILE.mlir>"),
                                          cl::cat(category));

static cl::opt<std::string> outputPrefix(
    "prefix",
    cl::desc("Write PREFIX-dg.mlir and PREFIX-annotated.mlir (default: the "
             "input path without its .mlir suffix)"),
    cl::value_desc("PREFIX"), cl::cat(category));

static cl::opt<bool> traceOpt(
    "trace",
    cl::desc("Print the analysis' iterations, groups and offset relations "
             "to stderr"),
    cl::cat(category));

static const char *const kOverview = R"(Onyx DimAnalysis annotator

onyx-annotate FILE.mlir runs DimAnalysis on an onnx-dialect module (MLIR text,
e.g. `onyx-compile MODEL.onnx --emit=onnx -o FILE.mlir`) and writes two files:

  FILE-dg.mlir         the input with an "onnx.DimGroup"(%v) {axis, group_id}
                       after each dynamic dim's definition: exactly what
                       `onyx-opt --onnx-dim-analysis FILE.mlir` prints.
                       Dims with the same group_id are proven equal at run time.
  FILE-annotated.mlir  the same groups folded into the tensor types, with the
                       DimGroup ops removed. A dynamic dim in group N is
                       written dN where group N first appears in the file
                       and uN (a use) everywhere after, and each such type
                       gets an encoding listing axis:group pairs:
                         %0 = "onnx.Sigmoid"(%arg0) : (tensor<d0x3xd1xf32, #onnx.dg<0:0,2:1>>)
                                                     -> tensor<u0x3xu1xf32, #onnx.dg<0:0,2:1>>
                       says %0 has the dims of %arg0. A header comment lists
                       the offset relations ("d3 = d1 + 2") and the
                       groups proven constant. This file is for reading: the
                       dN/uN dims and #onnx.dg are not MLIR syntax, and it
                       does not parse back.

Group ids are dense and assigned in program order (function arguments
first), so they are the same from run to run for the same input.
Existing onnx.DimGroup ops in FILE.mlir are replaced. See docs/dim-analysis.md.
)";

static std::string defaultPrefix(StringRef input) {
  if (input.ends_with(".mlir"))
    return input.drop_back(5).str();
  return input.str();
}

static LogicalResult writeFile(StringRef path, StringRef text) {
  std::string error;
  auto file = openOutputFile(path, &error);
  if (!file) {
    errs() << "error: cannot write " << path << ": " << error << "\n";
    return failure();
  }
  file->os() << text;
  file->keep();
  return success();
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, kOverview);

  DialectRegistry registry;
  onyx::registerOnyxDialects(registry);
  onyx::DimAnalysis::getDependentDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  std::string error;
  auto file = openInputFile(inputFilename, &error);
  if (!file) {
    errs() << "error: cannot read " << inputFilename << ": " << error << "\n";
    return 1;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  // Stale annotations would be counted twice.
  SmallVector<Operation *> stale;
  module->walk([&](onyx::onnx::ONNXDimGroupOp op) { stale.push_back(op); });
  for (Operation *op : stale)
    op->erase();

  onyx::DimAnalysis analysis(*module);
  if (traceOpt)
    analysis.setTraceStream(&errs());
  analysis.run();
  onyx::insertDimGroupOps(*module, analysis);
  if (failed(verify(*module)))
    return 1;

  std::string prefix =
      outputPrefix.empty() ? defaultPrefix(inputFilename) : outputPrefix;
  std::string dg;
  raw_string_ostream dgStream(dg);
  module->print(dgStream);
  dgStream << "\n";

  std::string header;
  raw_string_ostream h(header);
  h << "// onyx-annotate: DimAnalysis groups of " << inputFilename
    << " folded into the tensor types.\n"
    << "// A dynamic dim of group N is dN where the group first appears, uN "
       "after;\n"
    << "// #onnx.dg<axis:group,...> repeats the groups. Not parseable MLIR.\n";
  auto relations = analysis.getOffsetRelations();
  auto constants = analysis.getConstantGroups();
  h << "// " << analysis.getNumGroups() << " groups, " << relations.size()
    << " offset relations, " << constants.size() << " constant groups\n";
  for (const auto &r : relations)
    h << "//   d" << r.group << " = d" << r.baseGroup
      << (r.offset >= 0 ? " + " : " - ") << std::abs(r.offset) << "\n";
  for (const auto &[group, value] : constants)
    h << "//   d" << group << " = " << value << "\n";
  std::string annotated =
      header + onyx::printWithFoldedDimGroups(*module) + "\n";

  std::string dgPath = prefix + "-dg.mlir";
  std::string annotatedPath = prefix + "-annotated.mlir";
  if (failed(writeFile(dgPath, dg)) ||
      failed(writeFile(annotatedPath, annotated)))
    return 1;
  outs() << "wrote " << dgPath << "\nwrote " << annotatedPath << "\n";
  return 0;
}
