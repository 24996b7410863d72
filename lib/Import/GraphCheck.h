//===- GraphCheck.h - Well-formedness before any library inference -*- C++ -*-//
//
// libonnx's shape inference trusts the graph: a Scan without a body, a
// Shape node whose input is missing, or a value used before it is defined
// crash it (it runs before Onyx's own checks). checkWellFormed walks the
// graph and every subgraph first and reports the first problem:
//   * a value used (as a node input or a graph output) that is not defined
//     before: not a graph input, an initializer, an output of an earlier
//     node, or a value of an enclosing graph;
//   * a value defined twice in one graph (two node outputs, or a node
//     output that is also a graph input);
//   * an `axis` attribute outside [-r, r] for an input 0 whose rank r is
//     known before inference (OneHot: [-r-1, r]);
//   * an input whose declared kind (tensor, sequence, optional, map) the
//     formal's types do not include; a `blocksize` outside [1, 2^20];
//   * an initializer or attribute tensor whose data does not match its
//     dims (raw_data size, number of typed values; negative dims);
//   * for nodes of the default domain that Onyx's registry knows
//     (SchemaRegistry.h): a required input that is missing or empty, fewer
//     variadic inputs than the schema's minimum, a required graph attribute
//     that is absent, or a graph attribute that holds no graph.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_IMPORT_GRAPHCHECK_H
#define ONYX_LIB_IMPORT_GRAPHCHECK_H

#include <cstdint>
#include <string>

namespace onnx {
class GraphProto;
} // namespace onnx

namespace onyx::importer {

/// "" when `graph` (imported at default-domain `opset`) is well formed,
/// else a one-line message naming the node and the value.
std::string checkWellFormed(const onnx::GraphProto &graph, int64_t opset);

/// `text` for a message: control bytes, quotes and backslashes escaped as
/// \xNN, at most 200 bytes (names come from the model).
std::string printableName(const std::string &text);

} // namespace onyx::importer

#endif // ONYX_LIB_IMPORT_GRAPHCHECK_H
