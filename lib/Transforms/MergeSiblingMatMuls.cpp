//===- MergeSiblingMatMuls.cpp - One GEMM for MatMuls of one input --------===//
//
// On the ONNX dialect. Transformer exporters write a block's query, key and
// value projections as three MatMuls of the same input with constant
// weights, each followed by the Add of a constant bias (BERT, RoBERTa,
// ViT, Qwen2; LLaMA's without the Adds):
//
//   Y_i = Add(MatMul(X, W_i), b_i)         W_i : [K, N_i], b_i : [N_i]
//
// They become one MatMul of the weights side by side, one Add and a Split:
//
//   Y_0, Y_1, ... = Split(Add(MatMul(X, [W_0 | W_1 | ...]), [b_0 | b_1 | ...]),
//                         axis = -1, split = [N_0, N_1, ...])
//
// the form GPT-2's c_attn has: one GEMM of N = sum N_i instead of several
// narrow ones (BERT-base: N = 2304 instead of 3 x 768, three times the
// thread blocks on a GPU), and on the CUDA target the fused attention reads
// the Split's parts in place (onyx-cuda-fold-head-split).
//
// Inline weights are concatenated here. External weights (`onyx.weight`,
// `--external-weights`) become one `onyx.weight` with `concat_rows` /
// `concat_ranges`: the session gathers the ranges' rows once when it loads
// the file (runtime/src/Weights.cpp), never per call.
//
// Siblings merge when they read the same X in the same block, their weights
// are 2-D, static and of X's element type, all inline or all ranges of one
// weights file, either every one or none has such a bias Add as its
// MatMul's only user (the biases alike inline or external), and each
// result is only reshaped (into heads: attention projections, whose parts
// the CUDA attention reads in place; LLaMA's gate and up projections,
// which feed SiLU and Mul, would keep a Split copy per part).
//
//===----------------------------------------------------------------------===//

#include "onyx/Dialect/ONNX/ONNXDialect.h"
#include "onyx/Dialect/Onyx/OnyxDialect.h"
#include "onyx/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/MapVector.h"

#include <cstring>

namespace onyx {
#define GEN_PASS_DEF_ONNXMERGESIBLINGMATMULS
#include "onyx/Transforms/Passes.h.inc"
} // namespace onyx

using namespace mlir;

namespace onyx {
namespace {

/// A constant operand: an inline tensor (`bytes`) or a range of a weights
/// file (`weight`).
struct Operand {
  Value value;
  mutable WeightOp weight;    // external
  SmallVector<char, 0> bytes; // inline
  RankedTensorType type;
};

/// The bytes of an inline constant of a float type (splats expanded).
bool rawBytes(Attribute attr, RankedTensorType type,
              SmallVectorImpl<char> &out) {
  int64_t size =
      type.getNumElements() * int64_t(type.getElementTypeBitWidth() / 8);
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || int64_t(blob->getData().size()) != size)
      return false;
    out.assign(blob->getData().begin(), blob->getData().end());
    return true;
  }
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return false;
  ArrayRef<char> raw = dense.getRawData();
  if (dense.isSplat()) {
    size_t element = raw.size();
    if (int64_t(element) * type.getNumElements() != size)
      return false;
    out.clear();
    for (int64_t i = 0; i < type.getNumElements(); ++i)
      out.append(raw.begin(), raw.end());
    return true;
  }
  if (int64_t(raw.size()) != size)
    return false;
  out.assign(raw.begin(), raw.end());
  return true;
}

/// `value` as a constant of rank `rank`, static shape and float element
/// type `element`.
std::optional<Operand> constantOperand(Value value, int64_t rank,
                                       Type element) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() != rank || !type.hasStaticShape() ||
      type.getElementType() != element || !isa<FloatType>(element))
    return std::nullopt;
  Operand operand{value, nullptr, {}, type};
  Operation *def = value.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto weight = dyn_cast<WeightOp>(def)) {
    if (weight.getConcatRows())
      return std::nullopt;
    operand.weight = weight;
    return operand;
  }
  if (def->getName().getStringRef() != "onnx.Constant")
    return std::nullopt;
  Attribute attr = def->getAttr("value");
  if (!attr || !rawBytes(attr, type, operand.bytes))
    return std::nullopt;
  return operand;
}

/// Whether two constants can be parts of one: both inline, or ranges of one
/// file read the same way.
bool sameKind(const Operand &a, const Operand &b) {
  if (!a.weight || !b.weight)
    return !a.weight && !b.weight;
  return a.weight.getLocation() == b.weight.getLocation() &&
         a.weight->getAttr("onyx.file_element_type") ==
             b.weight->getAttr("onyx.file_element_type");
}

/// One MatMul(X, W) and its bias Add, if it has one.
struct Sibling {
  Operation *matmul;
  Operation *add = nullptr; // Add(MatMul, b) or Add(b, MatMul)
  Operand w;
  std::optional<Operand> b;
  int64_t n;
  /// The value the merged Split replaces.
  Value result() const {
    return add ? add->getResult(0) : matmul->getResult(0);
  }
};

/// Whether `v` is only reshaped (into heads, as attention projections are;
/// the exporters' Shape reads of it for the head shape aside): the parts
/// whose Split copies onyx-cuda-fold-head-split removes. Others (LLaMA's
/// gate and up projections feed SiLU and Mul) would keep a copy per part
/// for a GEMM that is wide already.
bool onlyReshaped(Value v) {
  bool reshaped = false;
  for (Operation *user : v.getUsers()) {
    StringRef name = user->getName().getStringRef();
    if (name == "onnx.Reshape")
      reshaped = true;
    else if (name != "onnx.Shape")
      return false;
  }
  return reshaped;
}

std::optional<Sibling> matchProjection(Operation *op) {
  if (op->getName().getStringRef() != "onnx.MatMul" ||
      op->getNumOperands() != 2 || op->getNumResults() != 1)
    return std::nullopt;
  Value x = op->getOperand(0);
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  auto yType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!xType || !yType || xType.getRank() < 1 || yType.getRank() < 1)
    return std::nullopt;
  std::optional<Operand> w =
      constantOperand(op->getOperand(1), 2, xType.getElementType());
  if (!w || w->type.getDimSize(0) == 0 || w->type.getDimSize(1) == 0)
    return std::nullopt;
  Sibling s{op, nullptr, *w, std::nullopt, w->type.getDimSize(1)};
  if (yType.getDimSize(yType.getRank() - 1) != s.n)
    return std::nullopt;
  if (!op->getResult(0).hasOneUse())
    return s;
  Operation *user = *op->getResult(0).getUsers().begin();
  if (user->getName().getStringRef() != "onnx.Add" ||
      user->getBlock() != op->getBlock() ||
      user->getResult(0).getType() != yType)
    return s;
  Value other = user->getOperand(user->getOperand(0) == op->getResult(0));
  if (other == op->getResult(0))
    return s;
  std::optional<Operand> b = constantOperand(other, 1, xType.getElementType());
  if (!b || b->type.getDimSize(0) != s.n)
    return s;
  s.add = user;
  s.b = std::move(b);
  return s;
}

/// A projection whose result is only reshaped.
std::optional<Sibling> matchSibling(Operation *op) {
  std::optional<Sibling> s = matchProjection(op);
  if (!s || !onlyReshaped(s->result()))
    return std::nullopt;
  return s;
}

/// Parts of one merge: the same block, weights (and biases) of one kind
/// and one K.
bool compatible(const Sibling &a, const Sibling &b) {
  if (a.matmul->getBlock() != b.matmul->getBlock() ||
      a.w.type.getDimSize(0) != b.w.type.getDimSize(0) || !sameKind(a.w, b.w) ||
      bool(a.b) != bool(b.b))
    return false;
  if (a.b && !sameKind(*a.b, *b.b))
    return false;
  return cast<RankedTensorType>(a.matmul->getResult(0).getType())
             .getShape()
             .drop_back() ==
         cast<RankedTensorType>(b.matmul->getResult(0).getType())
             .getShape()
             .drop_back();
}

class MergeSiblingMatMulsPass
    : public impl::ONNXMergeSiblingMatMulsBase<MergeSiblingMatMulsPass> {
public:
  void runOnOperation() override {
    // Candidates by input, in program order.
    llvm::MapVector<Value, SmallVector<Sibling>> byInput;
    getOperation()->walk([&](Operation *op) {
      if (std::optional<Sibling> s = matchSibling(op))
        byInput[op->getOperand(0)].push_back(std::move(*s));
    });
    for (auto &entry : byInput) {
      SmallVector<Sibling> &all = entry.second;
      std::vector<bool> used(all.size(), false);
      for (size_t i = 0; i < all.size(); ++i) {
        if (used[i])
          continue;
        SmallVector<Sibling *> group = {&all[i]};
        for (size_t j = i + 1; j < all.size(); ++j)
          if (!used[j] && compatible(all[i], all[j])) {
            group.push_back(&all[j]);
            used[j] = true;
          }
        if (group.size() >= 2)
          merge(entry.first, group);
      }
    }
  }

private:
  /// The parts side by side: [K, sum N] weights (rows = K) or [sum N]
  /// biases (rows = 1).
  Value concat(OpBuilder &b, Location loc, ArrayRef<const Operand *> parts,
               int64_t rows, RankedTensorType type) {
    const Operand &first = *parts.front();
    if (first.weight) {
      SmallVector<int64_t> ranges;
      for (const Operand *p : parts.drop_front())
        ranges.append({int64_t(p->weight.getOffset()),
                       int64_t(p->weight.getLength()),
                       int64_t(p->weight.getChecksum())});
      OperationState state(loc, "onyx.weight");
      state.addAttributes(first.weight->getAttrs());
      state.addAttribute("concat_rows", b.getI64IntegerAttr(rows));
      state.addAttribute("concat_ranges", b.getDenseI64ArrayAttr(ranges));
      state.addTypes(type);
      return b.create(state)->getResult(0);
    }
    SmallVector<char, 0> bytes;
    for (int64_t r = 0; r < rows; ++r)
      for (const Operand *p : parts) {
        size_t row = p->bytes.size() / size_t(rows);
        bytes.append(p->bytes.begin() + r * row,
                     p->bytes.begin() + (r + 1) * row);
      }
    auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        ArrayRef<char>(bytes.data(), bytes.size()), alignof(uint64_t));
    auto value = DenseResourceElementsAttr::get(type, "onnx_merged_weight",
                                                std::move(blob));
    OperationState state(loc, "onnx.Constant");
    state.addAttribute("value", value);
    state.addTypes(type);
    return b.create(state)->getResult(0);
  }

  void merge(Value x, ArrayRef<Sibling *> group) {
    // The merged ops go where the first MatMul is: X is defined above it,
    // and every value they replace is used below it.
    Operation *first = group.front()->matmul;
    for (Sibling *s : group)
      if (s->matmul->isBeforeInBlock(first))
        first = s->matmul;
    SmallVector<Location> locs;
    SmallVector<int64_t> widths;
    SmallVector<const Operand *> weights, biases;
    int64_t total = 0;
    for (Sibling *s : group) {
      locs.push_back(s->matmul->getLoc());
      if (s->add)
        locs.push_back(s->add->getLoc());
      widths.push_back(s->n);
      weights.push_back(&s->w);
      if (s->b)
        biases.push_back(&*s->b);
      total += s->n;
    }
    OpBuilder b(first);
    Location loc = b.getFusedLoc(locs);
    Type element = cast<RankedTensorType>(x.getType()).getElementType();
    int64_t k = group.front()->w.type.getDimSize(0);
    Value w =
        concat(b, loc, weights, k, RankedTensorType::get({k, total}, element));
    auto yType = cast<RankedTensorType>(first->getResult(0).getType());
    SmallVector<int64_t> shape(yType.getShape());
    shape.back() = total;
    auto mergedType = RankedTensorType::get(shape, element);
    OperationState matmul(loc, "onnx.MatMul");
    matmul.addOperands({x, w});
    matmul.addTypes(mergedType);
    Value y = b.create(matmul)->getResult(0);
    if (!biases.empty()) {
      Value bias =
          concat(b, loc, biases, 1, RankedTensorType::get({total}, element));
      OperationState add(loc, "onnx.Add");
      add.addOperands({y, bias});
      add.addTypes(mergedType);
      y = b.create(add)->getResult(0);
    }
    auto splitType =
        RankedTensorType::get({int64_t(widths.size())}, b.getI64Type());
    OperationState sizes(loc, "onnx.Constant");
    sizes.addAttribute(
        "value", DenseElementsAttr::get(splitType, ArrayRef<int64_t>(widths)));
    sizes.addTypes(splitType);
    Value split = b.create(sizes)->getResult(0);
    OperationState parts(loc, "onnx.Split");
    parts.addOperands({y, split});
    parts.addAttribute("axis", b.getI64IntegerAttr(yType.getRank() - 1));
    for (Sibling *s : group)
      parts.addTypes(s->result().getType());
    Operation *splitOp = b.create(parts);
    for (auto [s, part] : llvm::zip(group, splitOp->getResults())) {
      Value old = s->result();
      old.replaceAllUsesWith(part);
      if (s->add)
        s->add->erase();
      s->matmul->erase();
    }
  }
};

} // namespace
} // namespace onyx
