//===- GraphCheck.cpp - Well-formedness before any library inference ------===//

#include "GraphCheck.h"

#include "SchemaRegistry.h"
#include "onyx/onyx_elements.h"

#include <onnx/onnx_pb.h>

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>

namespace onyx::importer {

std::string printableName(const std::string &text) {
  std::string out;
  static const char *hex = "0123456789abcdef";
  for (size_t i = 0; i < text.size() && i < 200; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f || c == '\'' || c == '\\') {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += char(c);
    }
  }
  if (text.size() > 200)
    out += "...";
  return out;
}

namespace {

bool isDefaultDomain(const onnx::NodeProto &node) {
  return node.domain().empty() || node.domain() == "ai.onnx";
}

std::string describe(const onnx::NodeProto &node) {
  return "node '" + printableName(node.name()) + "' (" +
         printableName(node.op_type()) + ")";
}

/// Why the data of `t` does not match its dims ("" when it does, when it is
/// external, or when its element type is one the importer rejects anyway):
/// libonnx parses initializers and Constant values for its data propagation
/// and trusted their sizes.
std::string tensorDataProblem(const onnx::TensorProto &t) {
  uint64_t count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0)
      return "has a negative dimension (" + std::to_string(d) + ")";
    if (d != 0 && count > (uint64_t(1) << 40) / uint64_t(d))
      return "has more than 2^40 elements";
    count *= uint64_t(d);
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    return "";
  int32_t code = t.data_type();
  uint64_t rawBytes = 0, typed = 0;
  bool known = true;
  switch (code) {
  case onnx::TensorProto::FLOAT:
    rawBytes = 4 * count, typed = uint64_t(t.float_data_size());
    break;
  case onnx::TensorProto::DOUBLE:
    rawBytes = 8 * count, typed = uint64_t(t.double_data_size());
    break;
  case onnx::TensorProto::INT64:
    rawBytes = 8 * count, typed = uint64_t(t.int64_data_size());
    break;
  case onnx::TensorProto::UINT32:
    rawBytes = 4 * count, typed = uint64_t(t.uint64_data_size());
    break;
  case onnx::TensorProto::UINT64:
    rawBytes = 8 * count, typed = uint64_t(t.uint64_data_size());
    break;
  case onnx::TensorProto::COMPLEX64:
    rawBytes = 8 * count, typed = uint64_t(t.float_data_size());
    count *= 2;
    break;
  case onnx::TensorProto::COMPLEX128:
    rawBytes = 16 * count, typed = uint64_t(t.double_data_size());
    count *= 2;
    break;
  case onnx::TensorProto::STRING:
    if (t.has_raw_data())
      return "is a string tensor with raw_data";
    rawBytes = 0, typed = uint64_t(t.string_data_size());
    break;
  case onnx::TensorProto::INT32:
    rawBytes = 4 * count, typed = uint64_t(t.int32_data_size());
    break;
  case onnx::TensorProto::UINT16:
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    rawBytes = 2 * count, typed = uint64_t(t.int32_data_size());
    break;
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::BOOL:
  case 17: // float8 types: one byte each
  case 18:
  case 19:
  case 20:
  case 24:
    rawBytes = count, typed = uint64_t(t.int32_data_size());
    break;
  default:
    if (onyx_subbyte_bits(code)) {
      // Packed: one byte per int32_data entry as in raw_data.
      count = onyx_packed_bytes(code, count);
      rawBytes = count, typed = uint64_t(t.int32_data_size());
    } else {
      known = false;
    }
  }
  if (!known)
    return "";
  if (t.has_raw_data()) {
    if (uint64_t(t.raw_data().size()) != rawBytes)
      return "holds " + std::to_string(t.raw_data().size()) +
             " bytes of raw_data, its dims need " + std::to_string(rawBytes);
    return "";
  }
  if (typed != count)
    return "holds " + std::to_string(typed) + " values, its dims need " +
           std::to_string(count);
  return "";
}

struct Checker {
  int64_t opset;
  /// Names visible in the graphs being walked, innermost last (a deque:
  /// a subgraph's scope must not move its enclosing graph's).
  std::deque<std::set<std::string>> scopes;
  /// Ranks known before any inference (graph inputs and value_info with a
  /// shape, initializers, Constant values), innermost graph last.
  std::deque<std::map<std::string, int64_t>> ranks;
  /// What graph inputs and value_info declare a value to be: 't'ensor,
  /// 's'equence, 'o'ptional, 'm'ap (other kinds are not recorded).
  std::deque<std::map<std::string, char>> kinds;

  std::optional<char> kindOf(const std::string &name) const {
    for (auto it = kinds.rbegin(); it != kinds.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end())
        return found->second;
    }
    return std::nullopt;
  }

  /// A value of a kind the formal cannot take (a sequence passed to Scan):
  /// libonnx's inference functions read the tensor type unchecked.
  std::string checkInputKinds(const onnx::NodeProto &node,
                              const schema::OpSchema &s) {
    auto inputs = s.inputs();
    if (inputs.empty())
      return "";
    for (int i = 0; i < node.input_size(); ++i) {
      if (node.input(i).empty())
        continue;
      std::optional<char> kind = kindOf(node.input(i));
      if (!kind)
        continue;
      const schema::Formal &formal =
          inputs[std::min<size_t>(size_t(i), inputs.size() - 1)];
      llvm::SmallVector<llvm::StringRef> allowed;
      llvm::StringRef typeStr = formal.typeStr;
      for (const schema::TypeConstraint &c : s.constraints())
        if (typeStr == c.param)
          for (const char *t : c.allowedTypes())
            allowed.push_back(t);
      if (allowed.empty()) {
        if (!typeStr.contains('('))
          continue; // a parameter without listed types: anything goes
        allowed.push_back(typeStr);
      }
      const char *prefix = *kind == 't'   ? "tensor("
                           : *kind == 's' ? "seq("
                           : *kind == 'o' ? "optional("
                                          : "map(";
      bool ok = false;
      for (llvm::StringRef t : allowed)
        ok |= t.starts_with(prefix);
      if (!ok)
        return describe(node) + ": input '" + printableName(node.input(i)) +
               "' is a " +
               (*kind == 't'   ? "tensor"
                : *kind == 's' ? "sequence"
                : *kind == 'o' ? "optional"
                               : "map") +
               ", which input '" + formal.name + "' does not take";
    }
    return "";
  }

  std::optional<int64_t> rankOf(const std::string &name) const {
    for (auto it = ranks.rbegin(); it != ranks.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end())
        return found->second;
    }
    return std::nullopt;
  }

  /// An `axis` attribute outside [-r, r] for input 0 of rank r ([-r-1, r]
  /// for OneHot, whose axis counts the result's dims): libonnx's inference
  /// of several operators (LayerNormalization with axis -100 or INT64_MAX)
  /// indexes the input's dims with it unchecked.
  std::string checkAxis(const onnx::NodeProto &node) {
    if (!isDefaultDomain(node) || node.input_size() == 0)
      return "";
    std::optional<int64_t> rank = rankOf(node.input(0));
    if (!rank)
      return "";
    for (const auto &attr : node.attribute()) {
      if (attr.name() != "axis" || attr.type() != onnx::AttributeProto::INT)
        continue;
      int64_t low = node.op_type() == "OneHot" ? -*rank - 1 : -*rank;
      if (attr.i() < low || attr.i() > *rank)
        return describe(node) +
               ": attribute 'axis' = " + std::to_string(attr.i()) +
               " is out of range for input '" + printableName(node.input(0)) +
               "' of rank " + std::to_string(*rank);
    }
    return "";
  }

  bool visible(const std::string &name) const {
    for (const auto &scope : scopes)
      if (scope.count(name))
        return true;
    return false;
  }

  std::string checkSchema(const onnx::NodeProto &node) {
    if (!isDefaultDomain(node))
      return "";
    const schema::OpSchema *s = schema::lookup(node.op_type(), opset);
    if (!s)
      return ""; // the importer reports an unknown operator
    if (std::string why = checkInputKinds(node, *s); !why.empty())
      return why;
    // More inputs or outputs than any version of the operator has (a Shape
    // with two inputs: libonnx's data propagation read past its data).
    size_t maxInputs = 0, maxOutputs = 0;
    bool variadicIn = false, variadicOut = false;
    for (const schema::OpSchema &v : schema::versions(node.op_type())) {
      maxInputs = std::max(maxInputs, v.inputs().size());
      maxOutputs = std::max(maxOutputs, v.outputs().size());
      variadicIn |= !v.inputs().empty() &&
                    v.inputs().back().option == schema::Option::Variadic;
      variadicOut |= !v.outputs().empty() &&
                     v.outputs().back().option == schema::Option::Variadic;
    }
    if (!variadicIn && size_t(node.input_size()) > maxInputs)
      return describe(node) + ": has " + std::to_string(node.input_size()) +
             " inputs, the operator takes at most " + std::to_string(maxInputs);
    if (!variadicOut && size_t(node.output_size()) > maxOutputs)
      return describe(node) + ": has " + std::to_string(node.output_size()) +
             " outputs, the operator has at most " + std::to_string(maxOutputs);
    // Sizes libonnx multiplies unchecked (blocksize 2^40 squared is 0: a
    // division by zero in its DepthToSpace inference).
    for (const auto &attr : node.attribute())
      if (attr.name() == "blocksize" &&
          attr.type() == onnx::AttributeProto::INT &&
          (attr.i() < 1 || attr.i() > (int64_t(1) << 20)))
        return describe(node) +
               ": attribute 'blocksize' = " + std::to_string(attr.i()) +
               " is not in [1, 2^20]";
    auto inputs = s->inputs();
    for (size_t i = 0; i < inputs.size(); ++i) {
      const schema::Formal &formal = inputs[i];
      if (formal.option == schema::Option::Single &&
          (int(i) >= node.input_size() || node.input(int(i)).empty()))
        return describe(node) + ": required input " + std::to_string(i) +
               " ('" + formal.name + "') is missing";
      if (formal.option == schema::Option::Variadic &&
          node.input_size() - int(i) < formal.minArity)
        return describe(node) + ": variadic input '" + formal.name +
               "' needs at least " + std::to_string(formal.minArity) +
               (formal.minArity == 1 ? " value" : " values") + ", got " +
               std::to_string(std::max(0, node.input_size() - int(i)));
    }
    // Required attributes, of every kind: libonnx's inference functions
    // dereference them unchecked (a Scan without num_scan_inputs segfaulted
    // in ScanInferenceFunctionOpset9; found by the importer's fuzzer).
    for (const schema::Attr &attr : s->attributes()) {
      const onnx::AttributeProto *given = nullptr;
      for (const auto &a : node.attribute())
        if (a.name() == attr.name)
          given = &a;
      if (!given) {
        if (attr.required)
          return describe(node) + ": required " +
                 (attr.kind == schema::AttrKind::GRAPH ? "graph " : "") +
                 "attribute '" + attr.name + "' is missing";
        continue;
      }
      if (attr.kind != schema::AttrKind::GRAPH)
        continue;
      if (!given->has_g())
        return describe(node) + ": attribute '" + attr.name +
               "' must hold a graph";
    }
    return "";
  }

  std::string checkGraph(const onnx::GraphProto &graph) {
    scopes.emplace_back();
    auto &defined = scopes.back();
    ranks.emplace_back();
    auto &known = ranks.back();
    kinds.emplace_back();
    auto &kindHere = kinds.back();
    auto noteRank = [&](const onnx::ValueInfoProto &info) {
      const onnx::TypeProto &t = info.type();
      if (t.has_tensor_type())
        kindHere[info.name()] = 't';
      else if (t.has_sequence_type())
        kindHere[info.name()] = 's';
      else if (t.has_optional_type())
        kindHere[info.name()] = 'o';
      else if (t.has_map_type())
        kindHere[info.name()] = 'm';
      if (info.type().has_tensor_type() &&
          info.type().tensor_type().has_shape())
        known[info.name()] = info.type().tensor_type().shape().dim_size();
    };
    // The main graph's inputs need a type: libonnx's inference functions
    // read it unchecked (a Shape of an input whose TypeProto was empty
    // segfaulted; found by the importer's fuzzer). Initializers listed as
    // inputs (IR < 4) take theirs from the initializer.
    if (scopes.size() == 1) {
      std::set<std::string> initialized;
      for (const auto &init : graph.initializer())
        initialized.insert(init.name());
      for (const auto &info : graph.input())
        if (!initialized.count(info.name()) &&
            info.type().value_case() == onnx::TypeProto::VALUE_NOT_SET)
          return "graph input '" + printableName(info.name()) + "' has no type";
    }
    for (const auto &info : graph.input())
      noteRank(info);
    for (const auto &info : graph.value_info())
      noteRank(info);
    for (const auto &init : graph.initializer())
      known[init.name()] = init.dims_size();
    for (const auto &input : graph.input())
      defined.insert(input.name());
    for (const auto &init : graph.initializer()) {
      if (std::string why = tensorDataProblem(init); !why.empty())
        return "initializer '" + printableName(init.name()) + "' " + why;
      defined.insert(init.name());
    }
    for (const auto &init : graph.sparse_initializer())
      defined.insert(init.values().name());
    std::set<std::string> outputsHere;
    for (const auto &node : graph.node()) {
      for (const auto &name : node.input())
        if (!name.empty() && !visible(name))
          return describe(node) + ": input '" + printableName(name) +
                 "' is not defined before it is used";
      if (std::string why = checkSchema(node); !why.empty())
        return why;
      if (std::string why = checkAxis(node); !why.empty())
        return why;
      if (node.op_type() == "Constant" && node.output_size() == 1)
        for (const auto &attr : node.attribute())
          if (attr.name() == "value" && attr.has_t())
            known[node.output(0)] = attr.t().dims_size();
      for (const auto &attr : node.attribute()) {
        std::string why;
        if (attr.has_t())
          why = tensorDataProblem(attr.t());
        for (const auto &t : attr.tensors())
          if (why.empty())
            why = tensorDataProblem(t);
        if (!why.empty())
          return describe(node) + ", attribute '" + printableName(attr.name()) +
                 "': the tensor " + why;
      }
      for (const auto &attr : node.attribute()) {
        if (attr.has_g())
          if (std::string why = checkGraph(attr.g()); !why.empty())
            return describe(node) + ", attribute '" +
                   printableName(attr.name()) + "': " + why;
        for (const auto &g : attr.graphs())
          if (std::string why = checkGraph(g); !why.empty())
            return describe(node) + ", attribute '" +
                   printableName(attr.name()) + "': " + why;
      }
      for (const auto &name : node.output()) {
        if (name.empty())
          continue;
        bool isInput = false;
        for (const auto &input : graph.input())
          isInput |= input.name() == name;
        if (!outputsHere.insert(name).second || isInput)
          return describe(node) + ": output '" + printableName(name) +
                 "' is defined twice in the graph";
        defined.insert(name);
      }
    }
    for (const auto &output : graph.output())
      if (!visible(output.name()))
        return "graph output '" + printableName(output.name()) +
               "' is not defined by any node, input or initializer";
    scopes.pop_back();
    ranks.pop_back();
    kinds.pop_back();
    return "";
  }
};

} // namespace

std::string checkWellFormed(const onnx::GraphProto &graph, int64_t opset) {
  Checker checker{opset, {}};
  return checker.checkGraph(graph);
}

} // namespace onyx::importer
