//===- ONNXImporter.h - ONNX ModelProto to the onnx dialect -----*- C++ -*-===//
#ifndef ONYX_IMPORT_ONNXIMPORTER_H
#define ONYX_IMPORT_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace onyx {

struct ImportOptions {
  /// Replace every graph-input dim by a symbol named "<input>_d<K>" unless
  /// it already has a dim_param.
  bool makeInputsDynamic = false;
  /// Keep initializers stored in external data files out of the IR: they
  /// become `onyx.weight` ops naming the file, offset and length (and a
  /// checksum when the file is present), loaded by the session at run time.
  bool externalWeights = false;
  /// Name of the generated graph function.
  std::string funcName = "main_graph";
};

/// Imports the ONNX model file at `path` into a new module holding one
/// `func.func` whose arguments are the graph inputs (with `onnx.name` and
/// `onnx.dim_params` attributes) and whose results are the graph outputs.
/// On failure returns a null module and sets `error` to one line naming the
/// node (name, op type, domain, opset) where that applies.
mlir::OwningOpRef<mlir::ModuleOp> importONNXFile(mlir::MLIRContext &context,
                                                 const std::string &path,
                                                 const ImportOptions &options,
                                                 std::string &error);

/// Same, from serialized ModelProto bytes. `baseDir` resolves external data.
mlir::OwningOpRef<mlir::ModuleOp> importONNXBytes(mlir::MLIRContext &context,
                                                  const std::string &bytes,
                                                  const std::string &baseDir,
                                                  const ImportOptions &options,
                                                  std::string &error);

} // namespace onyx

#endif // ONYX_IMPORT_ONNXIMPORTER_H
