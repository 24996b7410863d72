//===- SchemaRegistry.h - Onyx's own table of ONNX operator schemas -*- C++
//-*-===//
//
// Every version of every ai.onnx operator, generated from the schema dump
// utils/onnx_schemas.json by utils/gen_onnx_ops.py (ONNXSchemaTable.inc).
// The importer resolves each node with it, never with the installed onnx
// library's registry, so the operators Onyx knows do not depend on the
// libonnx version it was built against.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_IMPORT_SCHEMAREGISTRY_H
#define ONYX_LIB_IMPORT_SCHEMAREGISTRY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace onyx::schema {

enum class Option : uint8_t { Single, Optional, Variadic };

/// A formal input or output.
struct Formal {
  const char *name;
  /// A type parameter ("T") or a fixed type ("tensor(int64)").
  const char *typeStr;
  Option option;
  bool homogeneous;
  int minArity;
};

/// Attribute kinds, numbered as AttributeProto.AttributeType.
enum class AttrKind : uint8_t {
  FLOAT = 1,
  INT = 2,
  STRING = 3,
  TENSOR = 4,
  GRAPH = 5,
  FLOATS = 6,
  INTS = 7,
  STRINGS = 8,
  TENSORS = 9,
  GRAPHS = 10,
  SPARSE_TENSOR = 11,
  SPARSE_TENSORS = 12,
  TYPE_PROTO = 13,
  TYPE_PROTOS = 14,
};

struct Attr {
  const char *name;
  AttrKind kind;
  bool required;
  bool hasDefault;
  /// The default in canonical text (integers in decimal, floats as the
  /// shortest text of their float32 value, lists comma-separated); null
  /// when there is none or it is not a scalar/list.
  const char *defaultText;
};

struct TypeConstraint {
  const char *param;
  const char *const *allowed;
  unsigned numAllowed;

  llvm::ArrayRef<const char *> allowedTypes() const {
    return {allowed, numAllowed};
  }
};

/// One operator version.
struct OpSchema {
  const char *name;
  int sinceVersion;
  bool deprecated;
  const Formal *inputsPtr;
  unsigned numInputs;
  const Formal *outputsPtr;
  unsigned numOutputs;
  const Attr *attrsPtr;
  unsigned numAttrs;
  const TypeConstraint *constraintsPtr;
  unsigned numConstraints;

  llvm::ArrayRef<Formal> inputs() const { return {inputsPtr, numInputs}; }
  llvm::ArrayRef<Formal> outputs() const { return {outputsPtr, numOutputs}; }
  llvm::ArrayRef<Attr> attributes() const { return {attrsPtr, numAttrs}; }
  llvm::ArrayRef<TypeConstraint> constraints() const {
    return {constraintsPtr, numConstraints};
  }
  /// The attribute named `name`, or null.
  const Attr *attribute(llvm::StringRef name) const;
};

/// The newest opset of the ai.onnx domain the table knows.
int maxOpset();

/// The schema a model importing ai.onnx `opset` selects for `opType` (the
/// newest version not above `opset`); null if the operator is unknown or
/// was introduced later.
const OpSchema *lookup(llvm::StringRef opType, int64_t opset);

/// The newest version of `opType` (the form the `onnx` dialect declares).
const OpSchema *latest(llvm::StringRef opType);

/// Every version of `opType`, oldest first (empty if unknown).
llvm::ArrayRef<OpSchema> versions(llvm::StringRef opType);

} // namespace onyx::schema

#endif // ONYX_LIB_IMPORT_SCHEMAREGISTRY_H
