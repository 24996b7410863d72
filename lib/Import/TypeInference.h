//===- TypeInference.h - Element types and ranks of every value -*- C++ -*-===//
//
// Onyx's type inference for imported models: every intermediate value gets
// an element type, a rank and the static dims that follow from its inputs,
// recorded in the graph's value_info for the importer.
//
// libonnx (1.12) inference runs for the nodes whose schema version it knows
// exactly as Onyx's registry resolves them (it carries the data propagation
// exporters' Shape -> Gather -> Concat -> Reshape chains rely on). Nodes of
// versions it does not know, or knows with another meaning, are hidden from
// it and typed by Onyx's own rules here; the two alternate until nothing
// changes.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_IMPORT_TYPEINFERENCE_H
#define ONYX_LIB_IMPORT_TYPEINFERENCE_H

#include <cstdint>
#include <string>

namespace onnx {
class GraphProto;
class ModelProto;
} // namespace onnx

namespace onyx::importer {

/// Fills `model`'s value_info (top-level graph and, where libonnx reaches
/// them, subgraphs). Best effort: a value left without a type is typed from
/// its schema's type constraints by the importer. libonnx runs in a child
/// process (IsolatedInference.h); returns "" or, when that child died, the
/// error naming the node.
std::string inferTypes(onnx::ModelProto &model, int64_t opset);

/// Gives each graph input declared without a shape the rank one of its uses
/// requires (Gemm's A and B: 2, a Reshape's shape: 1, a Conv's data: its
/// weight's rank, ...), with unknown dims but for vectors whose length the
/// data's rank fixes (InputRanks.cpp). Until `final`, such a vector waits
/// for its data's rank. Returns true when an input got a rank.
bool rankUnshapedInputs(onnx::GraphProto &graph, bool final);

} // namespace onyx::importer

#endif // ONYX_LIB_IMPORT_TYPEINFERENCE_H
