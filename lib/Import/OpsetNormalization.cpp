//===- OpsetNormalization.cpp - Old operator versions in the newest form --===//
//
// See OpsetNormalization.h.
//
//===----------------------------------------------------------------------===//

#include "OpsetNormalization.h"

#include <onnx/onnx_pb.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <utility>

namespace onyx::importer {
namespace {

/// Moves attribute `attrName` (INTS/INT/FLOAT) to input position `index`.
struct AttrToInput {
  const char *attrName;
  unsigned index;
  /// The old version's default, made an explicit input when the attribute
  /// is absent (the new input's default differs); none: leave it absent.
  std::optional<int64_t> oldDefault = std::nullopt;
};

struct Normalization {
  const char *opType;
  /// Applies to schemas whose since_version is below this.
  int beforeVersion;
  std::vector<AttrToInput> moves;
};

const std::vector<Normalization> &normalizations() {
  static const std::vector<Normalization> kTable = {
      {"ReduceSum", 13, {{"axes", 1}}},
      // The other reductions took axes as an input from opset 18 on.
      {"ReduceL1", 18, {{"axes", 1}}},
      {"ReduceL2", 18, {{"axes", 1}}},
      {"ReduceLogSum", 18, {{"axes", 1}}},
      {"ReduceLogSumExp", 18, {{"axes", 1}}},
      {"ReduceMax", 18, {{"axes", 1}}},
      {"ReduceMean", 18, {{"axes", 1}}},
      {"ReduceMin", 18, {{"axes", 1}}},
      {"ReduceProd", 18, {{"axes", 1}}},
      {"ReduceSumSquare", 18, {{"axes", 1}}},
      // DFT-17's axis attribute defaults to 1, DFT-20's input to -2.
      {"DFT", 20, {{"axis", 2, 1}}},
      {"Split", 13, {{"split", 1}}},
      {"Squeeze", 13, {{"axes", 1}}},
      {"Unsqueeze", 13, {{"axes", 1}}},
      {"Clip", 11, {{"min", 1}, {"max", 2}}},
      {"Pad", 11, {{"pads", 1}, {"value", 2}}},
      {"Slice", 10, {{"starts", 1}, {"ends", 2}, {"axes", 3}}},
      {"TopK", 10, {{"k", 1}}},
      {"Dropout", 12, {{"ratio", 1}}},
      // Resize 11 has 13's inputs and attributes (roi and scales were
      // required, given empty when unused; tf_half_pixel_for_nn is 11's
      // own mode, which the lowering implements).
      {"Resize", 13, {}},
  };
  return kTable;
}

/// Whether a node of version `a` means the same as the same node read as
/// version `b` once absent inputs are NoValue and absent attributes take
/// `b`'s defaults: `b` may add trailing optional inputs/outputs and
/// attributes, an input may become optional, nothing may disappear.
bool isCompatible(const schema::OpSchema &a, const schema::OpSchema &b) {
  using schema::Option;
  if (a.inputs().size() > b.inputs().size() ||
      a.outputs().size() > b.outputs().size())
    return false;
  auto sameOption = [](Option from, Option to) {
    return from == to || (from == Option::Single && to == Option::Optional);
  };
  for (size_t i = 0; i < a.inputs().size(); ++i)
    if (!sameOption(a.inputs()[i].option, b.inputs()[i].option))
      return false;
  for (size_t i = a.inputs().size(); i < b.inputs().size(); ++i)
    if (b.inputs()[i].option != Option::Optional)
      return false;
  for (size_t i = 0; i < a.outputs().size(); ++i)
    if (!sameOption(a.outputs()[i].option, b.outputs()[i].option))
      return false;
  for (size_t i = a.outputs().size(); i < b.outputs().size(); ++i)
    if (b.outputs()[i].option != Option::Optional)
      return false;
  for (const schema::Attr &attr : a.attributes())
    if (!b.attribute(attr.name))
      return false;
  return true;
}

/// Operators whose meaning changed between versions while their signature
/// did not; importing an old node as the new op would be silently wrong.
bool changedMeaning(const std::string &opType, int sinceVersion) {
  if ((opType == "Softmax" || opType == "LogSoftmax" || opType == "Hardmax") &&
      sinceVersion < 13)
    return true;
  // Resize 10 is (X, scales) with other coordinates.
  if (opType == "Resize" && sinceVersion < 11)
    return true;
  // GroupNormalization 18 scales per group, 21 per channel.
  if (opType == "GroupNormalization" && sinceVersion < 21)
    return true;
  return false;
}

/// Attributes added after opset 17 whose every value the lowering
/// implements. An attribute of a newer version that is not listed here is
/// accepted only with its default value (see checkAttributes).
bool isImplementedNewAttribute(llvm::StringRef opType, llvm::StringRef name) {
  static const std::set<std::pair<std::string, std::string>> kImplemented = {
      // float8 targets saturate and float8e8m0 targets round
      // (LowPrecision.cpp).
      {"Cast", "saturate"},
      {"CastLike", "saturate"},
      {"Cast", "round_mode"},
      {"CastLike", "round_mode"},
      // Quantization.cpp: blocked quantization, the result type and the
      // division's precision; saturate for float8 results.
      {"QuantizeLinear", "block_size"},
      {"QuantizeLinear", "output_dtype"},
      {"QuantizeLinear", "precision"},
      {"QuantizeLinear", "saturate"},
      {"DequantizeLinear", "block_size"},
      {"DequantizeLinear", "output_dtype"},
      // The shared window code reads dilations and ceil_mode for every
      // pooling operator.
      {"AveragePool", "dilations"},
      {"LpPool", "dilations"},
      {"LpPool", "ceil_mode"},
      {"Split", "num_outputs"},
      // Resize-18's subset of dims and aspect-ratio policies
      // (NewOperatorShapes.cpp around shape::resizeShape).
      {"Resize", "axes"},
      {"Resize", "keep_aspect_ratio_policy"},
      // Linear and cubic downscaling with the stretched filter (Resize.cpp).
      {"Resize", "antialias"},
      {"ReduceL1", "noop_with_empty_axes"},
      {"ReduceL2", "noop_with_empty_axes"},
      {"ReduceLogSum", "noop_with_empty_axes"},
      {"ReduceLogSumExp", "noop_with_empty_axes"},
      {"ReduceMax", "noop_with_empty_axes"},
      {"ReduceMean", "noop_with_empty_axes"},
      {"ReduceMin", "noop_with_empty_axes"},
      {"ReduceProd", "noop_with_empty_axes"},
      {"ReduceSumSquare", "noop_with_empty_axes"},
  };
  return kImplemented.count({opType.str(), name.str()}) > 0;
}

/// The value of `attr` in the canonical text of schema::Attr::defaultText
/// (empty optional for kinds without one).
std::optional<std::string> canonicalText(const onnx::AttributeProto &attr) {
  auto floatText = [](float v) {
    // The shortest text that reads back as the same float32.
    for (int digits = 1; digits < 18; ++digits) {
      char buf[64];
      snprintf(buf, sizeof(buf), "%.*g", digits, double(v));
      if (strtof(buf, nullptr) == v) {
        std::string t(buf);
        if (t.find_first_of(".eEn") == std::string::npos)
          t += ".0";
        return t;
      }
    }
    return std::to_string(v);
  };
  switch (attr.type()) {
  case onnx::AttributeProto::INT:
    return std::to_string(attr.i());
  case onnx::AttributeProto::FLOAT:
    return floatText(attr.f());
  case onnx::AttributeProto::STRING:
    return attr.s();
  case onnx::AttributeProto::INTS: {
    std::string t;
    for (int i = 0; i < attr.ints_size(); ++i)
      t += (i ? "," : "") + std::to_string(attr.ints(i));
    return t;
  }
  case onnx::AttributeProto::FLOATS: {
    std::string t;
    for (int i = 0; i < attr.floats_size(); ++i)
      t += (i ? "," : "") + floatText(attr.floats(i));
    return t;
  }
  case onnx::AttributeProto::STRINGS: {
    std::string t;
    for (int i = 0; i < attr.strings_size(); ++i)
      t += (i ? "," : "") + attr.strings(i);
    return t;
  }
  default:
    return std::nullopt;
  }
}

/// The newest version of `opType` up to opset 17: the form the lowerings
/// were first written against. Null for operators introduced later.
const schema::OpSchema *legacySchema(llvm::StringRef opType) {
  return schema::lookup(opType, 17);
}

} // namespace

/// Never silently: every attribute of the node must be declared by its
/// version's schema, and an attribute that appeared after opset 17 must be
/// implemented by the lowering or carry its default value.
std::string checkAttributes(const onnx::NodeProto &node,
                            const schema::OpSchema &version,
                            const std::string &nodeDesc) {
  const schema::OpSchema *legacy = legacySchema(node.op_type());
  for (const auto &attr : node.attribute()) {
    const schema::Attr *declared = version.attribute(attr.name());
    if (!declared)
      return nodeDesc + ": attribute '" + attr.name() +
             "' is not an attribute of " + node.op_type() + " version " +
             std::to_string(version.sinceVersion);
    // The kind must be the schema's: the dialect's accessors trust it.
    if (int(attr.type()) != int(declared->kind))
      return nodeDesc + ": attribute '" + attr.name() + "' is a " +
             onnx::AttributeProto_AttributeType_Name(attr.type()) +
             ", the schema declares " +
             onnx::AttributeProto_AttributeType_Name(
                 onnx::AttributeProto_AttributeType(int(declared->kind)));
    // Versions up to 17 are what the lowerings were written against (their
    // attributes are normalized or rejected by normalizeNode).
    if (!legacy || version.sinceVersion <= 17 ||
        legacy->attribute(attr.name()) ||
        isImplementedNewAttribute(node.op_type(), attr.name()))
      continue;
    std::optional<std::string> text = canonicalText(attr);
    if (declared->defaultText && text && *text == declared->defaultText)
      continue;
    return nodeDesc + ": attribute '" + attr.name() +
           "' = " + (text ? "'" + *text + "'" : std::string("(given)")) +
           " is not supported (only its default" +
           (declared->defaultText
                ? std::string(" '") + declared->defaultText + "'"
                : std::string("")) +
           " is)";
  }
  return "";
}

std::string normalizeNode(const onnx::NodeProto &node,
                          const schema::OpSchema &schema,
                          const schema::OpSchema &latest,
                          const std::string &nodeDesc, NormalizedNode &norm) {
  norm.inputs.assign(node.input().begin(), node.input().end());
  for (const auto &attr : node.attribute())
    norm.attributes.push_back(&attr);
  if (&schema != &latest && schema.sinceVersion != latest.sinceVersion) {
    if (changedMeaning(node.op_type(), schema.sinceVersion))
      return nodeDesc + ": version " + std::to_string(schema.sinceVersion) +
             " of this operator has different semantics from version " +
             std::to_string(latest.sinceVersion) + " and is not supported yet";
    const Normalization *rule = nullptr;
    for (const auto &n : normalizations())
      if (node.op_type() == n.opType && schema.sinceVersion < n.beforeVersion)
        rule = &n;
    if (rule) {
      for (const auto &move : rule->moves) {
        const onnx::AttributeProto *found = nullptr;
        for (auto it = norm.attributes.begin(); it != norm.attributes.end();
             ++it) {
          if ((*it)->name() == move.attrName) {
            found = *it;
            norm.attributes.erase(it);
            break;
          }
        }
        if (norm.inputs.size() < move.index)
          norm.inputs.resize(move.index);
        if (!found && move.oldDefault) {
          if (norm.inputs.size() <= move.index)
            norm.inputs.resize(move.index + 1);
          norm.inputs[move.index] =
              kAttrInputPrefix + std::to_string(move.index);
          norm.intInputs[move.index] = {*move.oldDefault};
          continue;
        }
        if (!found)
          continue;
        if (norm.inputs.size() <= move.index)
          norm.inputs.resize(move.index + 1);
        norm.inputs[move.index] = kAttrInputPrefix + std::to_string(move.index);
        if (found->type() == onnx::AttributeProto::INTS)
          norm.intInputs[move.index].assign(found->ints().begin(),
                                            found->ints().end());
        else if (found->type() == onnx::AttributeProto::INT)
          norm.intInputs[move.index] = {found->i()};
        else if (found->type() == onnx::AttributeProto::FLOAT)
          norm.floatInputs[move.index] = found->f();
        else
          return nodeDesc + ": attribute '" + found->name() +
                 "' has an unexpected kind";
      }
      // Any other attribute the newest schema does not know is dropped only
      // if it is one of the legacy no-op markers.
      for (auto it = norm.attributes.begin(); it != norm.attributes.end();) {
        if (!latest.attribute((*it)->name())) {
          if ((*it)->name() == "is_test") {
            it = norm.attributes.erase(it);
            continue;
          }
          return nodeDesc + ": attribute '" + (*it)->name() +
                 "' of opset version " + std::to_string(schema.sinceVersion) +
                 " is not supported";
        }
        ++it;
      }
    } else if (!isCompatible(schema, latest)) {
      return nodeDesc + ": version " + std::to_string(schema.sinceVersion) +
             " of this operator differs from version " +
             std::to_string(latest.sinceVersion) +
             " and has no normalization yet";
    }
  }
  return "";
}

} // namespace onyx::importer
