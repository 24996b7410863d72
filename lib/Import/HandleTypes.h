//===- HandleTypes.h - !onnx.Seq / !onnx.Opt for the importer ---*- C++ -*-===//
//
// The importer names ONNX's protobuf namespace `onnx`, which hides the
// dialect's `onyx::onnx`; these helpers build and take apart the dialect's
// sequence and optional types from a separate translation unit.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_IMPORT_HANDLETYPES_H
#define ONYX_LIB_IMPORT_HANDLETYPES_H

#include "mlir/IR/Types.h"

namespace onyx::importer {

/// !onnx.Seq<element>.
mlir::Type makeSequenceType(mlir::Type element);
/// !onnx.Opt<payload> (payload: a tensor or sequence type).
mlir::Type makeOptionalType(mlir::Type payload);
/// The element type of a sequence or the payload of an optional, else null.
mlir::Type handleElementType(mlir::Type type);
bool isSequenceType(mlir::Type type);
bool isOptionalType(mlir::Type type);
/// !onnx.String, the element type of tensor(string).
mlir::Type makeStringType(mlir::MLIRContext *ctx);

} // namespace onyx::importer

#endif // ONYX_LIB_IMPORT_HANDLETYPES_H
