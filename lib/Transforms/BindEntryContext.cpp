//===- BindEntryContext.cpp - Bind the graph function to the runtime ------===//
//
// After bufferization the graph is `@main_graph(memref...) -> memref...`.
// This pass makes it the runtime entry `@onyx_main(!onyx.context) -> i32`:
// inputs are read from the context, returned buffers are allocated as graph
// outputs (owned by the caller, never pooled), and every other allocation is
// a call temporary.
//
//===----------------------------------------------------------------------===//

#include "onyx/Transforms/ModelMetadata.h"
#include "onyx/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"

#include <map>
#include <vector>

namespace onyx {
#define GEN_PASS_DEF_BINDENTRYCONTEXT
#include "onyx/Transforms/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

namespace {

/// Parses "0:batch,1:seq" into index -> name.
DenseMap<int64_t, std::string> parseDimParams(DictionaryAttr attrs) {
  DenseMap<int64_t, std::string> result;
  if (!attrs)
    return result;
  auto text = attrs.getAs<StringAttr>("onnx.dim_params");
  if (!text)
    return result;
  SmallVector<StringRef> entries;
  text.getValue().split(entries, ',', -1, /*KeepEmpty=*/false);
  for (StringRef entry : entries) {
    auto [index, name] = entry.split(':');
    int64_t i;
    if (!index.getAsInteger(10, i))
      result[i] = name.str();
  }
  return result;
}

/// The metadata line of a graph input or output (onyx::metadata).
LogicalResult appendSignatureLine(std::string &out, bool isInput,
                                  StringRef name, Type type,
                                  DictionaryAttr attrs, Location loc) {
  StringRef kind = isInput ? "input" : "output";
  // Sequences and optionals (docs/sequences.md): `<kind>-sequence`,
  // `<kind>-optional` or `<kind>-optional-sequence` `<name> <elem>`.
  if (isa<SequenceType, OptionalType>(type)) {
    metadata::ValueKind valueKind = metadata::ValueKind::Sequence;
    Type scalar;
    if (auto seq = dyn_cast<SequenceType>(type)) {
      scalar = seq.getElementType();
    } else {
      Type payload = cast<OptionalType>(type).getPayloadType();
      auto inner = dyn_cast<SequenceType>(payload);
      valueKind = inner ? metadata::ValueKind::OptionalSequence
                        : metadata::ValueKind::Optional;
      scalar = inner ? inner.getElementType() : payload;
    }
    int code = onnxElementCode(scalar);
    if (code == 0)
      return emitError(loc) << kind << " '" << name
                            << "' has an unsupported element type " << scalar;
    out += metadata::valueLine(isInput, valueKind, name, code);
    return success();
  }
  auto memrefType = dyn_cast<MemRefType>(type);
  if (!memrefType)
    return emitError(loc) << kind << " '" << name
                          << "' is not a ranked buffer: " << type;
  int code = onnxElementCode(memrefType.getElementType());
  if (code == 0)
    return emitError(loc) << kind << " '" << name
                          << "' has an unsupported element type "
                          << memrefType.getElementType();
  auto params = parseDimParams(attrs);
  SmallVector<metadata::Dim> dims;
  for (int64_t i = 0; i < memrefType.getRank(); ++i) {
    metadata::Dim dim;
    if (!memrefType.isDynamicDim(i)) {
      dim.size = memrefType.getDimSize(i);
    } else if (auto it = params.find(i); it != params.end()) {
      dim.symbol = it->second;
    }
    dims.push_back(std::move(dim));
  }
  out += metadata::tensorLine(isInput, name, code, dims);
  return success();
}

struct BindEntryContextPass
    : public onyx::impl::BindEntryContextBase<BindEntryContextPass> {
  using BindEntryContextBase::BindEntryContextBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>(funcName);
    if (!func) {
      module.emitError() << "no graph function named '" << funcName << "'";
      return signalPassFailure();
    }
    if (!func.getBody().hasOneBlock()) {
      func.emitError("the graph function must have a single block here");
      return signalPassFailure();
    }
    if (failed(recordMetadata(module, func)) || failed(rewrite(func)))
      return signalPassFailure();
    bindWeights(module, func);
  }

  /// External weights become `onyx.get_weight %ctx[index]`, one index per
  /// distinct (file, offset, length), listed as "weight" metadata lines; a
  /// gathered weight (concat_rows) is a "weight_concat" line over its
  /// ranges' indices.
  void bindWeights(ModuleOp module, func::FuncOp func) {
    Value context = func.getArgument(0);
    std::map<std::tuple<std::string, int64_t, int64_t, int>, int64_t> indices;
    std::map<std::tuple<int64_t, int, std::vector<int64_t>>, int64_t> concats;
    int64_t next = 0;
    std::string lines;
    SmallVector<WeightBufferOp> weights;
    func.walk([&](WeightBufferOp op) { weights.push_back(op); });
    for (WeightBufferOp op : weights) {
      // A weight the file holds as f32 that the model reads as f16/bf16
      // (onnx-convert-precision's `onyx.file_element_type`): the session
      // converts it when it loads the file.
      int convertTo = 0;
      if (auto fileType =
              op->getAttrOfType<TypeAttr>("onyx.file_element_type")) {
        Type elem = op.getType().getElementType();
        if (fileType.getValue() != elem) {
          if (!fileType.getValue().isF32() ||
              !(elem.isF16() || elem.isBF16())) {
            op.emitError("an external weight stored as ")
                << fileType.getValue() << " cannot be loaded as " << elem
                << " (the runtime converts f32 to f16 or bf16)";
            return signalPassFailure();
          }
          convertTo = onnxElementCode(elem);
        }
      }
      // One index per distinct range (and conversion).
      auto rangeIndex = [&](int64_t offset, int64_t length, int64_t checksum,
                            int convert) {
        auto key =
            std::make_tuple(op.getLocation().str(), offset, length, convert);
        auto [it, inserted] = indices.try_emplace(key, next);
        if (inserted) {
          lines +=
              metadata::weightLine(next, offset, length, uint64_t(checksum),
                                   op.getLocation(), convert);
          ++next;
        }
        return it->second;
      };
      int64_t index;
      if (auto ranges = op.getConcatRangesAttr()) {
        // Gathered by the session from its ranges (read as they are, each
        // converted as it is gathered).
        SmallVector<int64_t> parts = {
            rangeIndex(op.getOffset(), op.getLength(), op.getChecksum(), 0)};
        ArrayRef<int64_t> r = ranges.asArrayRef();
        for (size_t i = 0; i < r.size(); i += 3)
          parts.push_back(rangeIndex(r[i], r[i + 1], r[i + 2], 0));
        int64_t rows = *op.getConcatRows();
        auto key = std::make_tuple(
            rows, convertTo, std::vector<int64_t>(parts.begin(), parts.end()));
        auto [it, inserted] = concats.try_emplace(key, next);
        if (inserted) {
          lines += metadata::weightConcatLine(next, rows, convertTo, parts);
          ++next;
        }
        index = it->second;
      } else {
        index = rangeIndex(op.getOffset(), op.getLength(), op.getChecksum(),
                           convertTo);
      }
      OpBuilder builder(op);
      auto get = GetWeightOp::create(builder, op.getLoc(), op.getType(),
                                     context, index);
      op.getResult().replaceAllUsesWith(get.getResult());
      op.erase();
    }
    metadata::append(module, lines);
  }

  LogicalResult recordMetadata(ModuleOp module, func::FuncOp func) {
    std::string text = metadata::headerLine();
    auto nameOf = [](DictionaryAttr attrs, StringRef fallback) {
      if (attrs)
        if (auto name = attrs.getAs<StringAttr>("onnx.name"))
          return name.getValue().str();
      return fallback.str();
    };
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      DictionaryAttr attrs = func.getArgAttrDict(i);
      if (failed(appendSignatureLine(
              text, /*isInput=*/true,
              nameOf(attrs, "input_" + std::to_string(i)),
              func.getArgument(i).getType(), attrs, func.getLoc())))
        return failure();
    }
    for (unsigned i = 0; i < func.getNumResults(); ++i) {
      DictionaryAttr attrs = func.getResultAttrDict(i);
      if (failed(appendSignatureLine(
              text, /*isInput=*/false,
              nameOf(attrs, "output_" + std::to_string(i)),
              func.getResultTypes()[i], attrs, func.getLoc())))
        return failure();
    }
    metadata::setText(module, text);
    return success();
  }

  LogicalResult rewrite(func::FuncOp func) {
    MLIRContext *ctx = func.getContext();
    Block &body = func.getBody().front();
    OpBuilder builder(ctx);
    Location loc = func.getLoc();
    auto contextType = ContextType::get(ctx);

    Value context = body.insertArgument(0u, contextType, loc);
    builder.setInsertionPointToStart(&body);
    for (unsigned i = 1; i < body.getNumArguments(); ++i) {
      BlockArgument arg = body.getArgument(i);
      if (isa<SequenceType, OptionalType>(arg.getType())) {
        auto input = GetInputValueOp::create(
            builder, arg.getLoc(), arg.getType(), context, int64_t(i - 1));
        arg.replaceAllUsesWith(input.getResult());
        continue;
      }
      auto input = GetInputOp::create(builder, arg.getLoc(), arg.getType(),
                                      context, int64_t(i - 1));
      arg.replaceAllUsesWith(input.getResult());
    }
    body.eraseArguments(1, body.getNumArguments() - 1);

    auto returnOp = cast<func::ReturnOp>(body.getTerminator());
    DenseSet<Value> bound;
    for (auto [index, value] : llvm::enumerate(returnOp.getOperands())) {
      if (isa<SequenceType, OptionalType>(value.getType())) {
        builder.setInsertionPoint(returnOp);
        SetOutputValueOp::create(builder, returnOp.getLoc(), context,
                                 int64_t(index), value);
        continue;
      }
      auto memrefType = dyn_cast<MemRefType>(value.getType());
      if (!memrefType)
        return returnOp.emitError("graph output ")
               << index << " is not a buffer: " << value.getType();
      auto alloc = value.getDefiningOp<memref::AllocOp>();
      if (alloc && !bound.contains(value) && alloc->getBlock() == &body &&
          memrefType.getLayout().isIdentity()) {
        builder.setInsertionPoint(alloc);
        auto output =
            AllocOutputOp::create(builder, alloc.getLoc(), memrefType, context,
                                  int64_t(index), alloc.getDynamicSizes());
        alloc.getResult().replaceAllUsesWith(output.getResult());
        alloc.erase();
        bound.insert(output.getResult());
        continue;
      }
      // The returned buffer is an input, a constant, a view or returned
      // twice: copy it into a fresh output.
      builder.setInsertionPoint(returnOp);
      auto outType =
          MemRefType::get(memrefType.getShape(), memrefType.getElementType());
      SmallVector<Value> dynSizes;
      for (int64_t d = 0; d < memrefType.getRank(); ++d)
        if (memrefType.isDynamicDim(d))
          dynSizes.push_back(
              memref::DimOp::create(builder, returnOp.getLoc(), value, d));
      auto output = AllocOutputOp::create(builder, returnOp.getLoc(), outType,
                                          context, int64_t(index), dynSizes);
      memref::CopyOp::create(builder, returnOp.getLoc(), value, output);
    }

    // Remaining allocations are temporaries of this call; the runtime frees
    // them when the call ends, so explicit deallocations go away.
    SmallVector<Operation *> toErase;
    func.walk([&](Operation *op) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        builder.setInsertionPoint(alloc);
        auto temp =
            AllocTempOp::create(builder, alloc.getLoc(), alloc.getType(),
                                context, alloc.getDynamicSizes());
        alloc.getResult().replaceAllUsesWith(temp.getResult());
        toErase.push_back(alloc);
      } else if (isa<memref::DeallocOp>(op)) {
        toErase.push_back(op);
      }
    });
    for (Operation *op : toErase)
      op->erase();
    if (func.walk([](memref::AllocOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      return func.emitError("unexpected allocation left");

    builder.setInsertionPoint(returnOp);
    Value zero = arith::ConstantIntOp::create(builder, loc, 0, 32);
    func::ReturnOp::create(builder, returnOp.getLoc(), ValueRange{zero});
    returnOp.erase();

    func.setFunctionType(
        FunctionType::get(ctx, {contextType}, {builder.getI32Type()}));
    func.setAllArgAttrs(ArrayRef<DictionaryAttr>{DictionaryAttr::get(ctx)});
    func.setAllResultAttrs(ArrayRef<DictionaryAttr>{DictionaryAttr::get(ctx)});
    func.setSymName(kEntryFuncName);
    return success();
  }
};

} // namespace
