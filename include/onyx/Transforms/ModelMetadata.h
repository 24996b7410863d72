//===- ModelMetadata.h - The compiler's metadata writer ---------*- C++ -*-===//
//
// The one place the compiler writes the model metadata text that the
// runtime parses (format: docs/runtime-abi.md; keywords: onyx/onyx_abi.h).
// Passes build lines with these functions and add them to the module's
// kModelMetadataAttrName attribute; nothing else spells a line kind or
// escapes a name.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_TRANSFORMS_MODELMETADATA_H
#define ONYX_TRANSFORMS_MODELMETADATA_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace onyx::metadata {

/// `name` with every byte outside [A-Za-z0-9] and ONYX_METADATA_NAME_PUNCT
/// written as %XX (upper-case hex).
std::string escapeName(llvm::StringRef name);

/// "onyx-model v1\n".
std::string headerLine();

/// One dim of a tensor line: a static size, or dynamic with an optional
/// symbol name (written `?NAME`, escaped; `?` without one).
struct Dim {
  std::optional<int64_t> size;
  std::string symbol;
};

/// `input|output <name> <elem> <rank> <dim>...`.
std::string tensorLine(bool isInput, llvm::StringRef name, int elementCode,
                       llvm::ArrayRef<Dim> dims);

/// Sequence and optional signature kinds (docs/sequences.md).
enum class ValueKind { Sequence, Optional, OptionalSequence };
/// `input|output-sequence|-optional|-optional-sequence <name> <elem>`.
std::string valueLine(bool isInput, ValueKind kind, llvm::StringRef name,
                      int elementCode);

/// `weight <index> <offset> <length> <checksum hex> <file>`, with
/// ` <convertTo>` (10 f16, 16 bf16) for a weight whose f32 values the session
/// converts when it loads them (`--precision`).
std::string weightLine(int64_t index, int64_t offset, int64_t length,
                       uint64_t checksum, llvm::StringRef file,
                       int convertTo = 0);

/// `weight_concat <index> <rows> <convertTo> <part>...`: a weight the
/// session gathers row by row from the weights `parts` (0: no conversion).
std::string weightConcatLine(int64_t index, int64_t rows, int convertTo,
                             llvm::ArrayRef<int64_t> parts);

/// `device <name>`.
std::string deviceLine(llvm::StringRef device);

/// `serial <node>` (`?` for an unnamed node).
std::string serialLine(llvm::StringRef node);

/// Replaces the module's metadata text.
void setText(mlir::ModuleOp module, llvm::StringRef text);
/// Appends `lines` to the module's metadata text (nothing without one).
void append(mlir::ModuleOp module, llvm::StringRef lines);
/// Appends `line` unless the text already holds it.
void appendOnce(mlir::ModuleOp module, llvm::StringRef line);

} // namespace onyx::metadata

#endif // ONYX_TRANSFORMS_MODELMETADATA_H
