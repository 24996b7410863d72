//===- import_fuzzer.cpp - libFuzzer target: the ONNX importer ------------===//
//
// Feeds arbitrary bytes to the compiler's front end as an ONNX ModelProto:
// protobuf parsing, the graph checks (lib/Import/GraphCheck.cpp), the schema
// registry, type inference (Onyx's rules and libonnx's shape inference) and
// the construction and verification of the `onnx` dialect module. Every input
// must end in a module or in one error string; a crash, a hang, a leak or a
// sanitizer report is a bug. Built with clang's -fsanitize=fuzzer,address,
// undefined by scripts/fuzz-importer.sh (docs/testing.md, "Fuzzing").
//
//===----------------------------------------------------------------------===//

#include "onyx/Dialect/ONNX/ONNXDialect.h"
#include "onyx/Import/ONNXImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

/// An empty directory for external data: a model naming an external file
/// finds nothing there (and must say so, never read outside it).
const std::string &emptyBaseDir() {
  static const std::string dir = [] {
    char pattern[] = "/tmp/onyx-import-fuzzer-XXXXXX";
    const char *made = mkdtemp(pattern);
    return std::string(made ? made : "/nonexistent-onyx-fuzz-dir");
  }();
  return dir;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // One context per input: uniqued types and attributes of earlier inputs
  // would otherwise accumulate (and hide use-after-free of IR).
  mlir::DialectRegistry registry;
  registry.insert<onyx::onnx::ONNXDialect, mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  std::string bytes(reinterpret_cast<const char *>(data), size);
  for (bool dynamic : {false, true}) {
    onyx::ImportOptions options;
    options.makeInputsDynamic = dynamic;
    std::string error;
    mlir::OwningOpRef<mlir::ModuleOp> module =
        onyx::importONNXBytes(context, bytes, emptyBaseDir(), options, error);
    // The contract: a module, or an error message. (It may quote names
    // holding control bytes; the tools escape them when they print it.)
    if (!module && error.empty())
      std::abort();
    if (!module)
      break; // The second pass would fail the same way.
  }
  return 0;
}
