//===- InputRanks.cpp - Ranks for graph inputs declared without a shape ---===//
//
// ONNX lets a graph input be declared with an element type and no shape (a
// Gemm's `A` exported as `tensor(float)`, say). Onyx compiles for a fixed
// rank, so such an input takes the rank that one of its uses requires: Gemm's
// A and B are matrices, a Reshape's shape is a vector, a Conv's data has the
// rank of its weight, a MaxPool's data has two dims more than its kernel, an
// Einsum operand as many as its term has letters. Its dims stay unknown
// (symbolic), but for vectors whose length follows from the data's rank (a
// Tile's repeats, a Slice's starts without axes, ...). An input no use ranks
// keeps no shape; the lowering then names it in its error.
//
//===----------------------------------------------------------------------===//

#include "TypeInference.h"

#include "onnx/onnx_pb.h"

#include <map>
#include <string>

namespace onyx::importer {
namespace {

/// The rank every value of `graph` is known to have (declared inputs,
/// outputs and value_info with a shape, initializers).
std::map<std::string, int64_t> knownRanks(const onnx::GraphProto &graph) {
  std::map<std::string, int64_t> ranks;
  auto note = [&](const onnx::ValueInfoProto &info) {
    if (info.type().has_tensor_type() && info.type().tensor_type().has_shape())
      ranks[info.name()] = info.type().tensor_type().shape().dim_size();
  };
  for (const auto &info : graph.input())
    note(info);
  for (const auto &info : graph.value_info())
    note(info);
  for (const auto &info : graph.output())
    note(info);
  for (const auto &init : graph.initializer())
    ranks[init.name()] = init.dims_size();
  return ranks;
}

const onnx::AttributeProto *findAttribute(const onnx::NodeProto &node,
                                          const std::string &name) {
  for (const auto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

/// Einsum: the number of letters of the operand's term, when it has no
/// ellipsis; -1 otherwise.
int64_t einsumOperandRank(const onnx::NodeProto &node, int index) {
  const auto *eq = findAttribute(node, "equation");
  if (!eq)
    return -1;
  std::string lhs = eq->s().substr(0, eq->s().find("->"));
  int term = 0;
  int64_t letters = 0;
  for (char c : lhs + ",") {
    if (c == ',') {
      if (term == index)
        return letters;
      ++term;
      letters = 0;
    } else if (c == '.') {
      if (term == index)
        return -1;
    } else if (c != ' ') {
      ++letters;
    }
  }
  return -1;
}

/// The rank input `index` of `node` must have, or -1 when the operator
/// allows more than one (or it depends on something still unknown).
int64_t requiredRank(const onnx::NodeProto &node, int index,
                     const std::map<std::string, int64_t> &ranks) {
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return -1;
  const std::string &op = node.op_type();
  auto rankOfInput = [&](int other) -> int64_t {
    if (other >= node.input_size())
      return -1;
    auto it = ranks.find(node.input(other));
    return it == ranks.end() ? -1 : it->second;
  };
  if (op == "Gemm" && index <= 1)
    return 2;
  if (op == "Conv" || op == "ConvTranspose" || op == "ConvInteger" ||
      op == "DeformConv") {
    if (index == 0)
      return rankOfInput(1);
    if (index == 1)
      return rankOfInput(0);
  }
  if ((op == "MaxPool" || op == "AveragePool" || op == "LpPool") &&
      index == 0) {
    const auto *kernel = findAttribute(node, "kernel_shape");
    return kernel ? kernel->ints_size() + 2 : -1;
  }
  if (op == "Einsum")
    return einsumOperandRank(node, index);
  if ((op == "BatchNormalization" && index >= 1 && index <= 4) ||
      (op == "InstanceNormalization" && index >= 1))
    return 1;
  // Inputs that are lists of sizes, indices or axes.
  if ((op == "Reshape" || op == "Expand" || op == "Tile" || op == "Split" ||
       op == "Squeeze" || op == "Unsqueeze" || op == "Upsample" ||
       op == "ReduceSum" || op == "ReduceMean" || op == "ReduceMax" ||
       op == "ReduceMin" || op == "ReduceProd" || op == "ReduceL1" ||
       op == "ReduceL2" || op == "ReduceLogSum" || op == "ReduceLogSumExp" ||
       op == "ReduceSumSquare" || op == "TopK") &&
      index == 1)
    return 1;
  if ((op == "Slice" && index >= 1) || (op == "Resize" && index >= 1) ||
      (op == "Pad" && (index == 1 || index == 3)) ||
      (op == "ConstantOfShape" && index == 0))
    return 1;
  if (op == "Range")
    return 0;
  return -1;
}

/// For a vector input (rank 1) whose length the operator fixes from the
/// rank of its data: Tile's repeats, and Slice's starts/ends/steps, Pad's
/// pads and Resize's scales/sizes when there are no axes. -1 otherwise.
int64_t requiredLength(const onnx::NodeProto &node, int index,
                       const std::map<std::string, int64_t> &ranks) {
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return -1;
  if (node.input_size() == 0)
    return -1;
  auto it = ranks.find(node.input(0));
  if (it == ranks.end())
    return -1;
  int64_t dataRank = it->second;
  auto absent = [&](int i) {
    return i >= node.input_size() || node.input(i).empty();
  };
  const std::string &op = node.op_type();
  if (op == "Tile" && index == 1)
    return dataRank;
  if (op == "Slice" && (index == 1 || index == 2 || index == 4) && absent(3))
    return dataRank;
  if (op == "Pad" && index == 1 && absent(3) && !findAttribute(node, "axes"))
    return 2 * dataRank;
  if (op == "Resize" && (index == 2 || index == 3) &&
      !findAttribute(node, "axes"))
    return dataRank;
  return -1;
}

/// `ranks` with node's data (input 0) assumed ranked, to ask whether
/// requiredLength would fix a vector's length once its rank is known.
std::map<std::string, int64_t>
dataRanked(const onnx::NodeProto &node,
           const std::map<std::string, int64_t> &ranks) {
  std::map<std::string, int64_t> assumed = ranks;
  if (node.input_size() > 0)
    assumed.emplace(node.input(0), 0);
  return assumed;
}

} // namespace

bool rankUnshapedInputs(onnx::GraphProto &graph, bool final) {
  std::map<std::string, int64_t> ranks = knownRanks(graph);
  bool changed = false;
  for (auto &info : *graph.mutable_input()) {
    if (!info.type().has_tensor_type() ||
        info.type().tensor_type().has_shape() || ranks.count(info.name()))
      continue;
    int64_t rank = -1, length = -1;
    for (const auto &node : graph.node()) {
      for (int i = 0; i < node.input_size() && rank < 0; ++i)
        if (node.input(i) == info.name()) {
          rank = requiredRank(node, i, ranks);
          if (rank == 1)
            length = requiredLength(node, i, ranks);
          // A vector whose length follows from a rank inference has not
          // given yet: wait for it, unless inference is done.
          if (rank == 1 && length < 0 && !final &&
              requiredLength(node, i, dataRanked(node, ranks)) >= 0)
            rank = -1;
        }
      if (rank >= 0)
        break;
    }
    if (rank < 0)
      continue;
    auto *shape = info.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int64_t d = 0; d < rank; ++d) {
      auto *dim = shape->add_dim();
      if (length >= 0)
        dim->set_dim_value(length);
    }
    ranks[info.name()] = rank;
    changed = true;
  }
  return changed;
}

} // namespace onyx::importer
