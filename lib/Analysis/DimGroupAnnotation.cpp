//===- DimGroupAnnotation.cpp - Show DimAnalysis groups in the IR ---------===//
//
// Two views of a DimAnalysis result for people: `onnx.DimGroup` ops after
// each dynamic dim's definition (what `--onnx-dim-analysis` writes), and the
// same groups folded into the printed tensor types (what `onyx-annotate`
// writes as FILE-annotated.mlir), e.g.
//
//   %0 = "onnx.Sigmoid"(%arg0) : (tensor<d0x3xd1xf32, #onnx.dg<0:0,2:1>>)
//                               -> tensor<u0x3xu1xf32, #onnx.dg<0:0,2:1>>
//
// The folding works on any module holding `onnx.DimGroup` ops, so it also
// reads files written earlier by the pass.
//
//===----------------------------------------------------------------------===//

#include "onyx/Analysis/DimAnalysis.h"

#include "onyx/Dialect/ONNX/ONNXDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace onyx;

int64_t onyx::insertDimGroupOps(Operation *root, const DimAnalysis &analysis) {
  // Collect first: the walk must not see the ops it inserts.
  SmallVector<Block *> blocks;
  SmallVector<Operation *> defs;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<onnx::ONNXDimGroupOp>(op))
      return;
    if (op != root && op->getNumResults())
      defs.push_back(op);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (block.getNumArguments())
          blocks.push_back(&block);
  });

  int64_t count = 0;
  OpBuilder b(root->getContext());
  auto annotate = [&](Value v, Location loc) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type)
      return;
    for (int64_t axis = 0; axis < type.getRank(); ++axis) {
      if (!type.isDynamicDim(axis))
        continue;
      if (auto group = analysis.getGroupId(v, axis)) {
        onnx::ONNXDimGroupOp::create(b, loc, v, axis, *group);
        ++count;
      }
    }
  };
  for (Block *block : blocks) {
    b.setInsertionPointToStart(block);
    for (BlockArgument arg : block->getArguments())
      annotate(arg, arg.getLoc());
  }
  for (Operation *op : defs) {
    if (op->hasTrait<OpTrait::IsTerminator>())
      continue;
    b.setInsertionPointAfter(op);
    for (Value result : op->getResults())
      annotate(result, op->getLoc());
  }
  return count;
}

namespace {
constexpr llvm::StringLiteral kMarker = "onyx-dg:";

/// Rewrites every `tensor<SHAPE, "onyx-dg:A:G,...">` of `text`: the k-th `?`
/// of SHAPE becomes dG (first time G is seen) or uG, for the k-th entry.
std::string rewriteMarkers(StringRef text) {
  std::string out;
  llvm::DenseSet<int64_t> seen;
  size_t pos = 0;
  std::string needle = ("\"" + kMarker).str();
  while (true) {
    size_t mark = text.find(needle, pos);
    if (mark == StringRef::npos)
      break;
    size_t open = text.take_front(mark).rfind("tensor<");
    size_t close = text.find("\">", mark);
    if (open == StringRef::npos || open < pos || close == StringRef::npos ||
        mark < open + 9) {
      out += text.substr(pos, mark + 1 - pos).str();
      pos = mark + 1;
      continue;
    }
    StringRef shape = text.slice(open + 7, mark - 2); // before ", "
    StringRef entries = text.slice(mark + needle.size(), close);
    SmallVector<StringRef> items;
    if (!entries.empty())
      entries.split(items, ',');
    std::string newShape;
    std::string encoding;
    size_t k = 0;
    for (char c : shape) {
      if (c != '?' || k >= items.size()) {
        newShape += c;
        continue;
      }
      auto [axis, group] = items[k++].split(':');
      int64_t id;
      if (group.getAsInteger(10, id)) {
        newShape += '?';
        continue;
      }
      newShape += (seen.insert(id).second ? "d" : "u") + std::to_string(id);
      if (!encoding.empty())
        encoding += ",";
      encoding += (axis + ":" + group).str();
    }
    out += text.slice(pos, open).str();
    out += "tensor<" + newShape;
    if (!encoding.empty())
      out += ", #onnx.dg<" + encoding + ">";
    out += ">";
    pos = close + 2; // past `"` and the tensor's `>`
  }
  out += text.substr(pos).str();
  return out;
}
} // namespace

std::string onyx::printWithFoldedDimGroups(Operation *module) {
  MLIRContext *ctx = module->getContext();
  // Groups per value, from the annotations.
  llvm::MapVector<Value, SmallVector<int64_t>> groups;
  SmallVector<Operation *> annotations;
  module->walk([&](onnx::ONNXDimGroupOp op) {
    auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
    if (type && op.getAxis() < type.getRank()) {
      auto &list = groups[op.getInput()];
      list.resize(type.getRank(), -1);
      list[op.getAxis()] = op.getGroupId();
    }
    annotations.push_back(op);
  });
  for (Operation *op : annotations)
    op->erase();

  // Each annotated value gets a type whose encoding carries its groups.
  for (auto &[value, list] : groups) {
    auto type = cast<RankedTensorType>(value.getType());
    std::string marker = kMarker.str();
    bool first = true;
    for (int64_t axis = 0; axis < type.getRank(); ++axis) {
      if (!type.isDynamicDim(axis))
        continue;
      marker +=
          (first ? "" : ",") + std::to_string(axis) + ":" +
          (list[axis] < 0 ? std::string("-") : std::to_string(list[axis]));
      first = false;
    }
    value.setType(RankedTensorType::get(type.getShape(), type.getElementType(),
                                        StringAttr::get(ctx, marker)));
  }
  // Function signatures follow their arguments and returned values.
  module->walk([&](FunctionOpInterface fn) {
    auto fnType = dyn_cast<FunctionType>(fn.getFunctionType());
    if (!fnType || fn.isExternal())
      return;
    SmallVector<Type> inputs(fn.getArgumentTypes());
    SmallVector<Type> results(fnType.getResults());
    Block &entry = fn.getFunctionBody().front();
    if (fn.getFunctionBody().hasOneBlock() && entry.mightHaveTerminator() &&
        entry.getTerminator()->getNumOperands() == results.size())
      results = llvm::to_vector(entry.getTerminator()->getOperandTypes());
    fn.setFunctionTypeAttr(
        TypeAttr::get(FunctionType::get(ctx, inputs, results)));
  });

  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().assumeVerified());
  return rewriteMarkers(text);
}
