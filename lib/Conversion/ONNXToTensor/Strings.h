//===- Strings.h - String tensors in the ONNX -> tensor conversion -*- C++ -*-//
//
// String tensors (docs/runtime.md, "String tensors"; docs/conversion.md):
// the importer's `tensor<...x!onnx.String>` becomes `tensor<...xindex>`
// (one `const char *` per element, as a pointer-sized integer) and the string
// operators become linalg.generics whose bodies call the runtime's string
// services (runtime/include/onyx/onyx_strings.h).
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_CONVERSION_ONNXTOTENSOR_STRINGS_H
#define ONYX_LIB_CONVERSION_ONNXTOTENSOR_STRINGS_H

#include "Lowering.h"

namespace onyx::conversion {

/// Gives every `!onnx.String` tensor of `func` (signature, block arguments,
/// results, nested regions) its run-time element type `index`.
void convertStringTypes(mlir::func::FuncOp func);

/// StringConcat, StringSplit, StringNormalizer, RegexFullMatch, and the
/// string forms of Equal, Cast and CastLike (which wrap the table's
/// entries for the other element types): call after every other
/// add*Lowerings.
void addStringLowerings(LoweringTable &table);

} // namespace onyx::conversion

#endif // ONYX_LIB_CONVERSION_ONNXTOTENSOR_STRINGS_H
