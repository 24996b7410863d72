//===- OpsetNormalization.h - Old operator versions in the newest form -*- C++
//-*-//
//
// The `onnx` dialect declares each operator in its newest schema's form.
// A node of an older version is imported only when that form means the
// same: attributes that later became inputs move to their input position
// (normalizeNode's table), versions whose signature only grew are taken as
// they are, and versions whose meaning changed are refused. Every attribute
// a node carries must be declared by its version's schema, and one added
// after opset 17 (what the lowerings were first written against) must be
// implemented or carry its default (checkAttributes). Never silently: each
// refusal is one message naming the node.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_IMPORT_OPSETNORMALIZATION_H
#define ONYX_LIB_IMPORT_OPSETNORMALIZATION_H

#include "SchemaRegistry.h"

#include <map>
#include <string>
#include <vector>

namespace onnx {
class AttributeProto;
class NodeProto;
} // namespace onnx

namespace onyx::importer {

/// The operands and attributes of one node, in the form of the newest
/// schema (the form the `onnx` dialect declares).
struct NormalizedNode {
  std::vector<std::string> inputs;
  std::vector<const onnx::AttributeProto *> attributes;
  std::vector<onnx::AttributeProto> ownedAttributes;
  /// Constants to create for inputs that older opsets gave as attributes:
  /// input index -> integer values (or a float).
  std::map<unsigned, std::vector<int64_t>> intInputs;
  std::map<unsigned, float> floatInputs;
};

/// The name normalizeNode gives an input made from an attribute: this
/// prefix and the input's index (no ONNX value name starts with byte 1).
inline const std::string kAttrInputPrefix = "\x01"
                                            "attr:";

/// "" when every attribute of `node` is declared by `version` (with the
/// declared kind) and each one newer than opset 17 is implemented or has
/// its default value; else the message, prefixed with `nodeDesc`.
std::string checkAttributes(const onnx::NodeProto &node,
                            const schema::OpSchema &version,
                            const std::string &nodeDesc);

/// Fills `norm` with `node` (read with `schema`) in the form of `latest`,
/// the operator's newest schema: "" on success, else the message, prefixed
/// with `nodeDesc`. Inputs named kAttrInputPrefix + <index> stand for
/// the constants in `norm.intInputs` / `norm.floatInputs`.
std::string normalizeNode(const onnx::NodeProto &node,
                          const schema::OpSchema &schema,
                          const schema::OpSchema &latest,
                          const std::string &nodeDesc, NormalizedNode &norm);

} // namespace onyx::importer

#endif // ONYX_LIB_IMPORT_OPSETNORMALIZATION_H
