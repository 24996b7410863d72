//===- TypeInference.cpp - Element types and ranks of every value ---------===//
//
// See TypeInference.h. This translation unit is compiled with exceptions and
// RTTI (libonnx throws); no exception escapes it.
//
//===----------------------------------------------------------------------===//

#include "TypeInference.h"

#include "GraphCheck.h"
#include "IsolatedInference.h"
#include "SchemaRegistry.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <climits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace onyx::importer {
namespace {

constexpr const char *kOpaquePrefix = "__onyx_opaque__";

bool isDefaultDomain(const onnx::NodeProto &node) {
  return node.domain().empty() || node.domain() == "ai.onnx";
}

/// Attributes newer versions added that never change a result's type or
/// shape: a node whose version differs from libonnx's only by these is
/// inferred by libonnx.
bool isShapeNeutralAttribute(const std::string &op, const std::string &name) {
  if (name == "saturate" || name == "round_mode")
    return op == "Cast" || op == "CastLike";
  if (name == "stash_type")
    return op == "Range";
  if (name == "mode")
    return op == "SpaceToDepth";
  return false;
}

/// Whether libonnx's inference of `node` means what Onyx's registry
/// resolves it to: the same schema version, or an older one that differs
/// only by element types and shape-neutral attributes.
bool libonnxInfers(const onnx::NodeProto &node, int64_t opset) {
  if (!isDefaultDomain(node))
    return true;
  const schema::OpSchema *ours = schema::lookup(node.op_type(), opset);
  if (!ours)
    return true; // the importer reports the operator
  const onnx::OpSchema *theirs = onnx::OpSchemaRegistry::Schema(
      node.op_type(), int(std::min<int64_t>(opset, INT_MAX)), "");
  if (!theirs)
    return false;
  if (theirs->SinceVersion() == ours->sinceVersion)
    return true;
  const schema::OpSchema *same =
      schema::lookup(node.op_type(), theirs->SinceVersion());
  if (!same || same->sinceVersion != theirs->SinceVersion() ||
      same->inputs().size() != ours->inputs().size() ||
      same->outputs().size() != ours->outputs().size())
    return false;
  for (const schema::Attr &attr : ours->attributes())
    if (!same->attribute(attr.name) &&
        !isShapeNeutralAttribute(node.op_type(), attr.name))
      return false;
  return true;
}

/// Hides (or restores) the nodes libonnx must not infer, in `graph` and
/// every subgraph.
void markOpaque(
    onnx::GraphProto &graph, int64_t opset,
    std::vector<std::pair<onnx::NodeProto *, std::string>> &hidden) {
  for (auto &node : *graph.mutable_node()) {
    for (auto &attr : *node.mutable_attribute()) {
      if (attr.has_g())
        markOpaque(*attr.mutable_g(), opset, hidden);
      for (auto &g : *attr.mutable_graphs())
        markOpaque(g, opset, hidden);
    }
    if (!libonnxInfers(node, opset)) {
      hidden.push_back({&node, node.op_type()});
      node.set_op_type(kOpaquePrefix + node.op_type());
    }
  }
  // libonnx 1.12's data propagation dereferences the type of every input
  // it reads (Shape of a hidden node's result crashed it): the results of
  // hidden nodes get a placeholder type (a tensor of unknown element type,
  // no shape) until Onyx's rules type them.
  std::set<std::string> typed;
  for (const auto &info : graph.value_info())
    typed.insert(info.name());
  for (const auto &info : graph.output())
    typed.insert(info.name());
  for (const auto &node : graph.node()) {
    if (node.op_type().rfind(kOpaquePrefix, 0) != 0)
      continue;
    for (const auto &name : node.output()) {
      if (name.empty() || !typed.insert(name).second)
        continue;
      auto *info = graph.add_value_info();
      info->set_name(name);
      info->mutable_type()->mutable_tensor_type()->set_elem_type(0);
    }
  }
  // The same for what Shape and Size read when it is computed in this
  // graph: when libonnx cannot type the producer (a Reshape whose static
  // dims disagree), its data propagation of the Shape dereferenced the
  // missing type (found by test/fuzz/mutate_models.py).
  std::set<std::string> producedHere;
  for (const auto &node : graph.node())
    for (const auto &name : node.output())
      producedHere.insert(name);
  std::vector<std::string> placeholders;
  for (const auto &node : graph.node())
    if (node.op_type() == "Shape" || node.op_type() == "Size")
      for (const auto &name : node.input())
        if (!name.empty() && producedHere.count(name) &&
            typed.insert(name).second)
          placeholders.push_back(name);
  for (const auto &name : placeholders) {
    auto *info = graph.add_value_info();
    info->set_name(name);
    info->mutable_type()->mutable_tensor_type()->set_elem_type(0);
  }
}

//===----------------------------------------------------------------------===//
// What is known about the values of one graph
//===----------------------------------------------------------------------===//

struct Known {
  std::map<std::string, onnx::TypeProto> types;
  /// Small integer constants (initializers, Constant nodes).
  std::map<std::string, std::vector<int64_t>> ints;

  const onnx::TypeProto *type(const std::string &name) const {
    auto it = types.find(name);
    return it == types.end() ? nullptr : &it->second;
  }
  const onnx::TensorShapeProto *shape(const std::string &name) const {
    const onnx::TypeProto *t = type(name);
    if (!t || !t->has_tensor_type() || !t->tensor_type().has_shape())
      return nullptr;
    return &t->tensor_type().shape();
  }
  int32_t elem(const std::string &name) const {
    const onnx::TypeProto *t = type(name);
    return t && t->has_tensor_type() ? t->tensor_type().elem_type() : 0;
  }
  int64_t rank(const std::string &name) const {
    const auto *s = shape(name);
    return s ? s->dim_size() : -1;
  }
  const std::vector<int64_t> *constant(const std::string &name) const {
    auto it = ints.find(name);
    return it == ints.end() ? nullptr : &it->second;
  }
};

std::optional<std::vector<int64_t>> intsOf(const onnx::TensorProto &t) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    return std::nullopt;
  int64_t count = 1;
  for (int64_t d : t.dims())
    count *= d;
  if (count > 64)
    return std::nullopt;
  std::vector<int64_t> values;
  if (t.data_type() == onnx::TensorProto::INT64) {
    if (t.has_raw_data()) {
      if (t.raw_data().size() != size_t(count) * 8)
        return std::nullopt;
      values.resize(count);
      if (count)
        memcpy(values.data(), t.raw_data().data(), t.raw_data().size());
    } else {
      values.assign(t.int64_data().begin(), t.int64_data().end());
    }
  } else if (t.data_type() == onnx::TensorProto::INT32) {
    if (t.has_raw_data()) {
      if (t.raw_data().size() != size_t(count) * 4)
        return std::nullopt;
      std::vector<int32_t> v32(count);
      if (count)
        memcpy(v32.data(), t.raw_data().data(), t.raw_data().size());
      values.assign(v32.begin(), v32.end());
    } else {
      values.assign(t.int32_data().begin(), t.int32_data().end());
    }
  } else {
    return std::nullopt;
  }
  if (int64_t(values.size()) != count)
    return std::nullopt;
  return values;
}

Known collect(const onnx::GraphProto &graph) {
  Known known;
  auto note = [&](const onnx::ValueInfoProto &info) {
    if (info.has_type())
      known.types[info.name()] = info.type();
  };
  for (const auto &init : graph.initializer()) {
    onnx::TypeProto t;
    t.mutable_tensor_type()->set_elem_type(init.data_type());
    auto *shape = t.mutable_tensor_type()->mutable_shape();
    for (int64_t d : init.dims())
      shape->add_dim()->set_dim_value(d);
    known.types[init.name()] = t;
    if (auto v = intsOf(init))
      known.ints[init.name()] = *v;
  }
  for (const auto &info : graph.input())
    note(info);
  for (const auto &info : graph.value_info())
    note(info);
  for (const auto &info : graph.output())
    note(info);
  for (const auto &node : graph.node()) {
    if (node.op_type() != "Constant" || node.output_size() != 1)
      continue;
    for (const auto &attr : node.attribute()) {
      if (attr.name() == "value" && attr.has_t()) {
        if (auto v = intsOf(attr.t()))
          known.ints[node.output(0)] = *v;
      } else if (attr.name() == "value_ints") {
        known.ints[node.output(0)].assign(attr.ints().begin(),
                                          attr.ints().end());
      } else if (attr.name() == "value_int") {
        known.ints[node.output(0)] = {attr.i()};
      }
    }
  }
  return known;
}

//===----------------------------------------------------------------------===//
// Onyx's rules
//===----------------------------------------------------------------------===//

/// A tensor type: `dims` entries < 0 are unknown; no dims = unknown rank.
onnx::TypeProto tensorType(int32_t elem,
                           const std::optional<std::vector<int64_t>> &dims) {
  onnx::TypeProto t;
  auto *tensor = t.mutable_tensor_type();
  tensor->set_elem_type(elem);
  if (dims) {
    auto *shape = tensor->mutable_shape();
    for (int64_t d : *dims) {
      auto *dim = shape->add_dim();
      if (d >= 0)
        dim->set_dim_value(d);
    }
  }
  return t;
}

/// The dims of a value as numbers (-1 unknown), or nullopt for unknown rank.
std::optional<std::vector<int64_t>> dimsOf(const Known &known,
                                           const std::string &name) {
  const auto *shape = known.shape(name);
  if (!shape)
    return std::nullopt;
  std::vector<int64_t> dims;
  for (const auto &d : shape->dim())
    dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
  return dims;
}

const onnx::AttributeProto *attribute(const onnx::NodeProto &node,
                                      const char *name) {
  for (const auto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

int64_t intAttr(const onnx::NodeProto &node, const char *name,
                int64_t otherwise) {
  const auto *a = attribute(node, name);
  return a ? a->i() : otherwise;
}

std::optional<std::vector<int64_t>> intsAttr(const onnx::NodeProto &node,
                                             const char *name) {
  const auto *a = attribute(node, name);
  if (!a)
    return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::string input(const onnx::NodeProto &node, int i) {
  return i < node.input_size() ? node.input(i) : std::string();
}

/// Operators whose first result has the type (and shape) of input 0.
bool isSameAsFirstInput(const std::string &op) {
  static const std::set<std::string> kOps = {"Gelu",
                                             "Mish",
                                             "Swish",
                                             "HardSwish",
                                             "BitwiseNot",
                                             "Celu",
                                             "RMSNormalization",
                                             "GroupNormalization",
                                             "LpNormalization",
                                             "RotaryEmbedding",
                                             "CumProd",
                                             "CumSum",
                                             "Softplus",
                                             "Softsign",
                                             "Selu",
                                             "Elu",
                                             "HardSigmoid",
                                             "ThresholdedRelu",
                                             "Round",
                                             "Acos",
                                             "Acosh",
                                             "Asin",
                                             "Asinh",
                                             "Atan",
                                             "Atanh",
                                             "Cos",
                                             "Cosh",
                                             "Sin",
                                             "Sinh",
                                             "Tan",
                                             "InstanceNormalization",
                                             "LayerNormalization",
                                             "Dropout",
                                             "Bernoulli",
                                             "TensorScatter",
                                             "ReverseSequence",
                                             "Shrink",
                                             "Clip",
                                             "Neg",
                                             "Abs",
                                             "Relu",
                                             "LeakyRelu",
                                             "PRelu",
                                             "Sigmoid",
                                             "Tanh",
                                             "Exp",
                                             "Log",
                                             "Sqrt",
                                             "Reciprocal",
                                             "Floor",
                                             "Ceil",
                                             "Sign",
                                             "Erf",
                                             "Softmax",
                                             "LogSoftmax",
                                             "Hardmax",
                                             "Identity"};
  return kOps.count(op) > 0;
}

/// Multidirectional (numpy) broadcast of the dims of `names`.
std::optional<std::vector<int64_t>>
broadcastDims(const Known &known, const std::vector<std::string> &names) {
  std::vector<int64_t> out;
  for (const auto &name : names) {
    auto dims = dimsOf(known, name);
    if (!dims)
      return std::nullopt;
    if (dims->size() > out.size())
      out.insert(out.begin(), dims->size() - out.size(), 1);
    size_t offset = out.size() - dims->size();
    for (size_t i = 0; i < dims->size(); ++i) {
      int64_t a = out[offset + i], b = (*dims)[i];
      if (a == 1)
        out[offset + i] = b;
      else if (b == 1)
        continue;
      else if (a < 0 || b < 0)
        out[offset + i] = a >= 0 ? a : b; // known side; equal when valid
    }
  }
  return out;
}

/// Normalized axes (in [0, rank)) or nullopt when one is out of range.
std::optional<std::vector<int64_t>> normalizeAxes(std::vector<int64_t> axes,
                                                  int64_t rank) {
  for (int64_t &a : axes) {
    if (a < 0)
      a += rank;
    if (a < 0 || a >= rank)
      return std::nullopt;
  }
  return axes;
}

std::optional<onnx::TypeProto> reduceRule(const onnx::NodeProto &node,
                                          const Known &known) {
  auto dims = dimsOf(known, input(node, 0));
  int32_t elem = known.elem(input(node, 0));
  if (!elem)
    return std::nullopt;
  bool keep = intAttr(node, "keepdims", 1) != 0;
  if (!dims)
    return tensorType(elem, std::nullopt);
  int64_t rank = int64_t(dims->size());
  std::string axesName = input(node, 1);
  std::vector<int64_t> axes;
  if (!axesName.empty()) {
    const auto *values = known.constant(axesName);
    if (!values) {
      // Run-time axes: the rank is known only when reduced axes are kept.
      if (!keep)
        return std::nullopt;
      return tensorType(elem, std::vector<int64_t>(rank, -1));
    }
    axes = *values;
  }
  if (axes.empty()) {
    if (intAttr(node, "noop_with_empty_axes", 0))
      return tensorType(elem, dims);
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  auto norm = normalizeAxes(axes, rank);
  if (!norm)
    return std::nullopt;
  std::set<int64_t> reduced(norm->begin(), norm->end());
  std::vector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced.count(i))
      out.push_back((*dims)[i]);
    else if (keep)
      out.push_back(1);
  }
  return tensorType(elem, out);
}

std::optional<onnx::TypeProto> splitRule(const onnx::NodeProto &node,
                                         const Known &known, int k) {
  auto dims = dimsOf(known, input(node, 0));
  int32_t elem = known.elem(input(node, 0));
  if (!elem)
    return std::nullopt;
  if (!dims)
    return tensorType(elem, std::nullopt);
  int64_t rank = int64_t(dims->size());
  int64_t axis = intAttr(node, "axis", 0);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return std::nullopt;
  std::vector<int64_t> out = *dims;
  int64_t extent = (*dims)[axis];
  int64_t n = node.output_size();
  out[axis] = -1;
  if (const auto *split = known.constant(input(node, 1))) {
    if (k < int64_t(split->size()))
      out[axis] = (*split)[k];
  } else if (input(node, 1).empty() && extent >= 0) {
    int64_t parts = intAttr(node, "num_outputs", n);
    if (parts > 0) {
      int64_t chunk = (extent + parts - 1) / parts;
      if (attribute(node, "num_outputs"))
        out[axis] = std::max<int64_t>(0, std::min(chunk, extent - chunk * k));
      else if (extent % parts == 0)
        out[axis] = extent / parts;
    }
  }
  return tensorType(elem, out);
}

std::optional<onnx::TypeProto> padRule(const onnx::NodeProto &node,
                                       const Known &known) {
  auto dims = dimsOf(known, input(node, 0));
  int32_t elem = known.elem(input(node, 0));
  if (!elem)
    return std::nullopt;
  if (!dims)
    return tensorType(elem, std::nullopt);
  int64_t rank = int64_t(dims->size());
  std::vector<int64_t> out(rank, -1);
  const auto *pads = known.constant(input(node, 1));
  std::vector<int64_t> axes;
  if (input(node, 3).empty()) {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  } else if (const auto *a = known.constant(input(node, 3))) {
    auto norm = normalizeAxes(*a, rank);
    if (!norm)
      return std::nullopt;
    axes = *norm;
  } else {
    pads = nullptr;
  }
  if (pads && pads->size() == 2 * axes.size()) {
    out = *dims;
    for (size_t i = 0; i < axes.size(); ++i) {
      int64_t a = axes[i];
      if (out[a] >= 0)
        out[a] += (*pads)[i] + (*pads)[i + axes.size()];
    }
  }
  return tensorType(elem, out);
}

/// Output extent of one pooled spatial axis (ONNX's pooling rules,
/// ceil_mode dropping a last window that starts in the right padding).
int64_t pooledExtent(int64_t in, int64_t kernel, int64_t stride,
                     int64_t dilation, int64_t padBegin, int64_t padEnd,
                     bool ceilMode, const std::string &autoPad) {
  if (in < 0)
    return -1;
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")
    return (in + stride - 1) / stride;
  int64_t effective = dilation * (kernel - 1) + 1;
  if (autoPad == "VALID") {
    padBegin = padEnd = 0;
  }
  int64_t span = in + padBegin + padEnd - effective;
  if (span < 0)
    return -1;
  int64_t out = (ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceilMode && (out - 1) * stride >= in + padBegin)
    --out;
  return out;
}

std::optional<onnx::TypeProto> poolRule(const onnx::NodeProto &node,
                                        const Known &known) {
  auto dims = dimsOf(known, input(node, 0));
  int32_t elem = known.elem(input(node, 0));
  if (!elem || !dims || dims->size() < 3)
    return elem ? std::optional(tensorType(elem, std::nullopt)) : std::nullopt;
  size_t spatial = dims->size() - 2;
  auto kernel = intsAttr(node, "kernel_shape");
  std::vector<int64_t> out = *dims;
  if (!kernel || kernel->size() != spatial) {
    for (size_t i = 0; i < spatial; ++i)
      out[2 + i] = -1;
    return tensorType(elem, out);
  }
  auto strides =
      intsAttr(node, "strides").value_or(std::vector<int64_t>(spatial, 1));
  auto dilations =
      intsAttr(node, "dilations").value_or(std::vector<int64_t>(spatial, 1));
  auto pads =
      intsAttr(node, "pads").value_or(std::vector<int64_t>(2 * spatial, 0));
  const auto *autoPadAttr = attribute(node, "auto_pad");
  std::string autoPad = autoPadAttr ? autoPadAttr->s() : "NOTSET";
  bool ceilMode = intAttr(node, "ceil_mode", 0) != 0;
  if (strides.size() != spatial || dilations.size() != spatial ||
      pads.size() != 2 * spatial)
    return std::nullopt;
  for (size_t i = 0; i < spatial; ++i)
    out[2 + i] =
        pooledExtent((*dims)[2 + i], (*kernel)[i], strides[i], dilations[i],
                     pads[i], pads[i + spatial], ceilMode, autoPad);
  return tensorType(elem, out);
}

std::optional<onnx::TypeProto> resizeRule(const onnx::NodeProto &node,
                                          const Known &known) {
  auto dims = dimsOf(known, input(node, 0));
  int32_t elem = known.elem(input(node, 0));
  if (!elem)
    return std::nullopt;
  if (!dims)
    return tensorType(elem, std::nullopt);
  std::vector<int64_t> out(dims->size(), -1);
  const auto *sizes = known.constant(input(node, 3));
  auto axes = intsAttr(node, "axes");
  const auto *policy = attribute(node, "keep_aspect_ratio_policy");
  bool stretch = !policy || policy->s() == "stretch";
  if (sizes && stretch) {
    std::vector<int64_t> which;
    if (axes) {
      auto norm = normalizeAxes(*axes, int64_t(dims->size()));
      if (!norm)
        return std::nullopt;
      which = *norm;
    } else {
      for (size_t i = 0; i < dims->size(); ++i)
        which.push_back(int64_t(i));
    }
    if (which.size() == sizes->size()) {
      out = *dims;
      for (size_t i = 0; i < which.size(); ++i)
        out[which[i]] = (*sizes)[i];
    }
  }
  return tensorType(elem, out);
}

std::optional<onnx::TypeProto>
quantizeRule(const onnx::NodeProto &node, const Known &known, bool dequantize) {
  auto dims = dimsOf(known, input(node, 0));
  int32_t elem = int32_t(intAttr(node, "output_dtype", 0));
  if (!elem) {
    if (dequantize)
      elem = known.elem(input(node, 1));
    else if (!input(node, 2).empty())
      elem = known.elem(input(node, 2));
    else
      elem = onnx::TensorProto::UINT8;
  }
  if (!elem)
    return std::nullopt;
  return tensorType(elem, dims);
}

/// CausalConvWithState-27: the output has the input's shape; the state
/// handed on is (B, C, k - 1) in the past state's type (else the input's).
std::optional<onnx::TypeProto> causalConvRule(const onnx::NodeProto &node,
                                              const Known &known, int k) {
  auto x = dimsOf(known, input(node, 0));
  int32_t elem = known.elem(input(node, 0));
  if (!elem)
    return std::nullopt;
  if (k == 0)
    return tensorType(elem, x);
  if (!input(node, 3).empty() && known.elem(input(node, 3)))
    if (const onnx::TypeProto *t = known.type(input(node, 3)))
      return *t;
  auto w = dimsOf(known, input(node, 1));
  int64_t km1 = w && w->size() == 3 && (*w)[2] > 0 ? (*w)[2] - 1 : -1;
  if (!x || x->size() != 3)
    return tensorType(elem, std::vector<int64_t>{-1, -1, km1});
  return tensorType(elem, std::vector<int64_t>{(*x)[0], (*x)[1], km1});
}

/// LinearAttention-27: the output is (B, T, Hq * d_v) in the query's type;
/// the present state (B, Hkv, d_k, d_v) in the past state's type (else the
/// query's).
std::optional<onnx::TypeProto> linearAttentionRule(const onnx::NodeProto &node,
                                                   const Known &known, int k) {
  auto q = dimsOf(known, input(node, 0));
  auto v = dimsOf(known, input(node, 2));
  int32_t elem = known.elem(input(node, 0));
  int64_t hq = intAttr(node, "q_num_heads", -1);
  int64_t hkv = intAttr(node, "kv_num_heads", -1);
  if (!elem || hq <= 0 || hkv <= 0)
    return std::nullopt;
  auto at = [](const std::optional<std::vector<int64_t>> &d, size_t i) {
    return d && d->size() == 3 ? (*d)[i] : int64_t(-1);
  };
  int64_t dv = at(v, 2) >= 0 ? at(v, 2) / hkv : -1;
  int64_t dk = at(q, 2) >= 0 ? at(q, 2) / hq : -1;
  if (k == 0)
    return tensorType(
        elem, std::vector<int64_t>{at(q, 0), at(q, 1), dv >= 0 ? hq * dv : -1});
  if (!input(node, 3).empty() && known.elem(input(node, 3)))
    if (const onnx::TypeProto *t = known.type(input(node, 3)))
      return *t;
  return tensorType(elem, std::vector<int64_t>{at(q, 0), hkv, dk, dv});
}

/// Attention-23: Y is (B, Sq, Hq*Dv) for 3-D inputs, (B, Hq, Sq, Dv) for
/// 4-D; present_key/value append the new keys/values to the past ones.
std::optional<onnx::TypeProto> attentionRule(const onnx::NodeProto &node,
                                             const Known &known, int k) {
  auto q = dimsOf(known, input(node, 0));
  auto key = dimsOf(known, input(node, 1));
  auto v = dimsOf(known, input(node, 2));
  int32_t elem = known.elem(input(node, 0));
  if (!elem || !q || !key || !v || q->size() != key->size() ||
      q->size() != v->size() || (q->size() != 3 && q->size() != 4))
    return std::nullopt;
  bool fourD = q->size() == 4;
  int64_t qHeads = intAttr(node, "q_num_heads", -1);
  int64_t kvHeads = intAttr(node, "kv_num_heads", -1);
  int64_t batch = (*q)[0];
  if (k == 0) {
    if (fourD)
      return tensorType(elem,
                        std::vector<int64_t>{batch, (*q)[1], (*q)[2], (*v)[3]});
    int64_t hidden = -1;
    if (qHeads > 0 && kvHeads > 0 && (*v)[2] >= 0)
      hidden = qHeads * ((*v)[2] / kvHeads);
    return tensorType(elem, std::vector<int64_t>{batch, (*q)[1], hidden});
  }
  if (k == 1 || k == 2) {
    // present_key (from K) / present_value (from V), 4-D.
    const auto &src = k == 1 ? *key : *v;
    int64_t heads = fourD ? src[1] : kvHeads;
    int64_t seq = fourD ? src[2] : src[1];
    int64_t head =
        fourD ? src[3] : (kvHeads > 0 && src[2] >= 0 ? src[2] / kvHeads : -1);
    auto past = dimsOf(known, input(node, k == 1 ? 4 : 5));
    if (past && past->size() == 4)
      seq = (seq >= 0 && (*past)[2] >= 0) ? seq + (*past)[2] : -1;
    else if (!input(node, k == 1 ? 4 : 5).empty())
      seq = -1;
    return tensorType(elem, std::vector<int64_t>{batch, heads, seq, head});
  }
  return tensorType(elem, std::vector<int64_t>(4, -1));
}

/// Slice keeps its data input's rank; Reshape's rank is the static length
/// of its shape input (libonnx gives up on both with run-time values).
std::optional<onnx::TypeProto> rankRule(const onnx::NodeProto &node,
                                        const Known &known) {
  int32_t elem = known.elem(input(node, 0));
  if (!elem)
    return std::nullopt;
  int64_t rank = -1;
  if (node.op_type() == "Slice") {
    rank = known.rank(input(node, 0));
  } else if (const auto *target = known.shape(input(node, 1))) {
    if (target->dim_size() == 1 && target->dim(0).has_dim_value())
      rank = target->dim(0).dim_value();
  }
  if (rank < 0)
    return std::nullopt;
  return tensorType(elem, std::vector<int64_t>(rank, -1));
}

/// Onyx's rule for result `k` of `node`, or nullopt.
std::optional<onnx::TypeProto> inferResult(const onnx::NodeProto &node,
                                           const std::string &op,
                                           const Known &known, int k,
                                           bool hidden) {
  if (!hidden) {
    if ((op == "Slice" || op == "Reshape") && k == 0)
      return rankRule(node, known);
    return std::nullopt;
  }
  if (op.rfind("Reduce", 0) == 0 && k == 0)
    return reduceRule(node, known);
  if (op == "Split")
    return splitRule(node, known, k);
  if (op == "Pad" && k == 0)
    return padRule(node, known);
  if ((op == "AveragePool" || op == "LpPool" || op == "MaxPool") && k == 0)
    return poolRule(node, known);
  if (op == "Resize" && k == 0)
    return resizeRule(node, known);
  if (op == "QuantizeLinear" && k == 0)
    return quantizeRule(node, known, false);
  if (op == "DequantizeLinear" && k == 0)
    return quantizeRule(node, known, true);
  if (op == "Attention")
    return attentionRule(node, known, k);
  if (op == "CausalConvWithState")
    return causalConvRule(node, known, k);
  if (op == "LinearAttention")
    return linearAttentionRule(node, known, k);
  if ((op == "BitwiseAnd" || op == "BitwiseOr" || op == "BitwiseXor" ||
       op == "BitShift" || op == "Mod") &&
      k == 0) {
    int32_t elem = known.elem(input(node, 0));
    if (!elem)
      return std::nullopt;
    return tensorType(elem,
                      broadcastDims(known, {input(node, 0), input(node, 1)}));
  }
  if ((op == "IsInf" || op == "IsNaN") && k == 0)
    return tensorType(onnx::TensorProto::BOOL, dimsOf(known, input(node, 0)));
  if (op == "CenterCropPad" && k == 0) {
    int32_t elem = known.elem(input(node, 0));
    if (!elem)
      return std::nullopt;
    int64_t rank = known.rank(input(node, 0));
    return tensorType(elem,
                      rank < 0 ? std::nullopt
                               : std::optional(std::vector<int64_t>(rank, -1)));
  }
  if (isSameAsFirstInput(op) && k == 0) {
    if (const onnx::TypeProto *t = known.type(input(node, 0)))
      return *t;
    return std::nullopt;
  }
  return std::nullopt;
}

/// One pass of Onyx's rules over `graph` (node order is topological).
/// Returns true when a value got a type.
bool applyRules(onnx::GraphProto &graph) {
  Known known = collect(graph);
  bool changed = false;
  for (const auto &node : graph.node()) {
    std::string op = node.op_type();
    bool hidden = op.rfind(kOpaquePrefix, 0) == 0;
    if (hidden)
      op = op.substr(strlen(kOpaquePrefix));
    else if (op != "Slice" && op != "Reshape")
      continue;
    if (!isDefaultDomain(node))
      continue;
    for (int k = 0; k < node.output_size(); ++k) {
      const std::string &name = node.output(k);
      if (name.empty())
        continue;
      const onnx::TypeProto *have = known.type(name);
      if (have && have->has_tensor_type() &&
          have->tensor_type().elem_type() != 0 &&
          have->tensor_type().has_shape())
        continue;
      auto t = inferResult(node, op, known, k, hidden);
      if (!t || (have && have->SerializeAsString() == t->SerializeAsString()))
        continue;
      bool found = false;
      for (auto &info : *graph.mutable_value_info())
        if (info.name() == name) {
          *info.mutable_type() = *t;
          found = true;
        }
      // A graph output declared without a shape takes the inferred one.
      for (auto &info : *graph.mutable_output())
        if (info.name() == name) {
          *info.mutable_type() = *t;
          found = true;
        }
      if (!found) {
        auto *info = graph.add_value_info();
        info->set_name(name);
        *info->mutable_type() = *t;
      }
      known.types[name] = *t;
      changed = true;
    }
  }
  return changed;
}

} // namespace

std::string inferTypes(onnx::ModelProto &model, int64_t opset) {
  std::vector<std::pair<onnx::NodeProto *, std::string>> hidden;
  markOpaque(*model.mutable_graph(), opset, hidden);
  rankUnshapedInputs(*model.mutable_graph(), /*final=*/false);
  std::string error;
  // libonnx and Onyx's rules alternate: each round libonnx types what
  // follows the values the rules typed, and the other way round.
  for (int round = 0; round < 256; ++round) {
    if (auto failure = inferShapesIsolated(model)) {
      error = "ONNX shape inference (libonnx) " + failure->cause;
      if (failure->node >= 0) {
        const onnx::NodeProto &node = model.graph().node(failure->node);
        std::string op = node.op_type();
        if (op.rfind(kOpaquePrefix, 0) == 0)
          op = op.substr(strlen(kOpaquePrefix));
        error = "node '" + printableName(node.name()) + "' (" +
                printableName(op) + "): " + error +
                " on this node; its attributes or inputs are malformed";
      }
      break;
    }
    bool typed = applyRules(*model.mutable_graph());
    if (!rankUnshapedInputs(*model.mutable_graph(), /*final=*/false) &&
        !typed && !rankUnshapedInputs(*model.mutable_graph(), /*final=*/true))
      break;
  }
  for (auto &[node, opType] : hidden)
    node->set_op_type(opType);
  return error;
}

} // namespace onyx::importer
