//===- GraphCheck.cpp - Well-formedness before any library inference ------===//

#include "GraphCheck.h"

#include "SchemaRegistry.h"

#include <onnx/onnx_pb.h>

#include <deque>
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

struct Checker {
  int64_t opset;
  /// Names visible in the graphs being walked, innermost last (a deque:
  /// a subgraph's scope must not move its enclosing graph's).
  std::deque<std::set<std::string>> scopes;

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
    for (const schema::Attr &attr : s->attributes()) {
      if (attr.kind != schema::AttrKind::GRAPH)
        continue;
      const onnx::AttributeProto *given = nullptr;
      for (const auto &a : node.attribute())
        if (a.name() == attr.name)
          given = &a;
      if (!given) {
        if (attr.required)
          return describe(node) + ": required graph attribute '" +
                 attr.name + "' is missing";
        continue;
      }
      if (!given->has_g())
        return describe(node) + ": attribute '" + attr.name +
               "' must hold a graph";
    }
    return "";
  }

  std::string checkGraph(const onnx::GraphProto &graph) {
    scopes.emplace_back();
    auto &defined = scopes.back();
    for (const auto &input : graph.input())
      defined.insert(input.name());
    for (const auto &init : graph.initializer())
      defined.insert(init.name());
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
    return "";
  }
};

} // namespace

std::string checkWellFormed(const onnx::GraphProto &graph, int64_t opset) {
  Checker checker{opset, {}};
  return checker.checkGraph(graph);
}

} // namespace onyx::importer
