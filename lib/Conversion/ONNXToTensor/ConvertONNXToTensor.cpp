//===- ConvertONNXToTensor.cpp - onnx ops to tensor-level DPS ops ---------===//
//
// The pass walks the graph in order and lowers each onnx op with the
// function registered for its name (one file per operator family). Each
// lowering builds its destination from lib/Shape's helpers and returns the
// replacement values; the pass reconciles them with the op's declared result
// types (tensor.cast where they are merely more or less static).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "Strings.h"

#include "onyx/Analysis/DimAnalysis.h"
#include "onyx/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/ScopeExit.h"

namespace onyx {
#define GEN_PASS_DEF_CONVERTONNXTOTENSOR
#include "onyx/Transforms/Passes.h.inc"
} // namespace onyx

using namespace mlir;

namespace onyx::conversion {

//===----------------------------------------------------------------------===//
// Shared utilities
//===----------------------------------------------------------------------===//

OperandAccess broadcastAccess(Value tensor,
                              const shape::OperandBroadcast &broadcast,
                              int64_t rank) {
  OperandAccess access;
  access.tensor = tensor;
  int64_t offset = rank - int64_t(broadcast.kinds.size());
  for (size_t j = 0; j < broadcast.kinds.size(); ++j) {
    switch (broadcast.kinds[j]) {
    case shape::BroadcastKind::Equal:
      access.loops.push_back(offset + int64_t(j));
      access.isOne.push_back(Value());
      break;
    case shape::BroadcastKind::One:
      access.loops.push_back(-1);
      access.isOne.push_back(Value());
      break;
    case shape::BroadcastKind::Runtime:
      access.loops.push_back(offset + int64_t(j));
      access.isOne.push_back(broadcast.isOne[j]);
      break;
    }
  }
  return access;
}

OperandAccess identityAccess(Value tensor) {
  OperandAccess access;
  access.tensor = tensor;
  int64_t rank = cast<RankedTensorType>(tensor.getType()).getRank();
  for (int64_t i = 0; i < rank; ++i) {
    access.loops.push_back(i);
    access.isOne.push_back(Value());
  }
  return access;
}

Value buildGeneric(OpBuilder &b, Location loc, ArrayRef<OperandAccess> inputs,
                   Value init, ArrayRef<int64_t> outputLoops,
                   ArrayRef<utils::IteratorType> iterators, BodyFn body) {
  MLIRContext *ctx = b.getContext();
  unsigned numLoops = iterators.size();
  auto mapFor = [&](ArrayRef<int64_t> loops) {
    SmallVector<AffineExpr> exprs;
    for (int64_t l : loops)
      exprs.push_back(l < 0 ? getAffineConstantExpr(0, ctx)
                            : getAffineDimExpr(unsigned(l), ctx));
    return AffineMap::get(numLoops, 0, exprs, ctx);
  };

  SmallVector<Value> mapped;
  SmallVector<AffineMap> maps;
  SmallVector<int> slot(inputs.size(), -1); // index into mapped, or -1
  for (auto [i, access] : llvm::enumerate(inputs)) {
    if (llvm::any_of(access.isOne, [](Value v) { return bool(v); }))
      continue;
    slot[i] = int(mapped.size());
    mapped.push_back(access.tensor);
    maps.push_back(mapFor(access.loops));
  }
  maps.push_back(mapFor(outputLoops));

  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, mapped, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
        SmallVector<Value> scalars;
        Value zero;
        for (auto [i, access] : llvm::enumerate(inputs)) {
          if (slot[i] >= 0) {
            scalars.push_back(args[slot[i]]);
            continue;
          }
          if (!zero)
            zero = arith::ConstantIndexOp::create(nb, nl, 0);
          SmallVector<Value> indices;
          for (auto [l, isOne] : llvm::zip(access.loops, access.isOne)) {
            if (l < 0) {
              indices.push_back(zero);
              continue;
            }
            Value idx = linalg::IndexOp::create(nb, nl, uint64_t(l));
            if (isOne)
              idx = arith::SelectOp::create(nb, nl, isOne, zero, idx);
            indices.push_back(idx);
          }
          scalars.push_back(
              tensor::ExtractOp::create(nb, nl, access.tensor, indices));
        }
        Value result = body(nb, nl, scalars, args.back());
        linalg::YieldOp::create(nb, nl, result);
      });
  return generic.getResult(0);
}

Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> dims,
                  Type elementType) {
  return tensor::EmptyOp::create(b, loc, dims, elementType);
}

Value filledTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> dims,
                   Value value) {
  Value empty = emptyTensor(b, loc, dims, value.getType());
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

Value scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  return arith::ConstantOp::create(b, loc,
                                   b.getIntegerAttr(type, int64_t(value)));
}

FailureOr<RankedTensorType> requireRanked(Operation *op, Value value,
                                          StringRef what) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (type)
    return type;
  // A graph input declared without a shape that no use ranks
  // (lib/Import/InputRanks.cpp): the model has to say.
  if (auto arg = dyn_cast<BlockArgument>(value))
    if (auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()))
      if (auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                        "onnx.name"))
        return op->emitError()
               << what << ": graph input '" << name.getValue()
               << "' is declared without a shape and none of its uses "
                  "determines its rank; declare its shape in the model";
  return op->emitError() << what << " has unknown rank (" << value.getType()
                         << "); shape refinement could not rank it";
}

LogicalResult requireSupportedElement(Operation *op, Type elementType) {
  if (isa<FloatType>(elementType) || elementType.isSignlessInteger())
    return success();
  return op->emitError() << "element type " << elementType
                         << " is not supported by the CPU lowering yet";
}

/// The float contents of a constant tensor (onnx.Constant or
/// arith.constant, dense or dense_resource), if `value` is one.
std::optional<SmallVector<double>> getConstantFloats(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return std::nullopt;
  ElementsAttr attr;
  if (auto c = dyn_cast<onnx::ONNXConstantOp>(def)) {
    if (auto v = c.getValueAttr())
      attr = v;
    else if (auto floats = c.getValueFloatsAttr())
      return SmallVector<double>(llvm::map_range(floats, [](Attribute a) {
        return cast<FloatAttr>(a).getValueAsDouble();
      }));
    else if (auto f = c.getValueFloatAttr())
      return SmallVector<double>{f.getValueAsDouble()};
  } else if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    attr = dyn_cast<ElementsAttr>(c.getValue());
  }
  if (!attr)
    return std::nullopt;
  auto elementType = dyn_cast<FloatType>(attr.getElementType());
  if (!elementType)
    return std::nullopt;
  if (auto dense = dyn_cast<DenseFPElementsAttr>(attr))
    return SmallVector<double>(
        llvm::map_range(dense.getValues<APFloat>(),
                        [](APFloat v) { return v.convertToDouble(); }));
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    ArrayRef<char> data = blob->getData();
    SmallVector<double> result;
    if (elementType.isF32()) {
      for (size_t i = 0; i + 4 <= data.size(); i += 4) {
        float v;
        memcpy(&v, data.data() + i, 4);
        result.push_back(v);
      }
    } else if (elementType.isF64()) {
      for (size_t i = 0; i + 8 <= data.size(); i += 8) {
        double v;
        memcpy(&v, data.data() + i, 8);
        result.push_back(v);
      }
    } else {
      return std::nullopt;
    }
    return result;
  }
  return std::nullopt;
}

FailureOr<int64_t> normalizeAxis(Operation *op, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
    return op->emitError() << "axis " << axis << " is out of range for rank "
                           << rank;
  return axis < 0 ? axis + rank : axis;
}

namespace {

//===----------------------------------------------------------------------===//
// Constants and trivial ops
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerConstant(Operation *op, OpBuilder &b) {
  auto c = cast<onnx::ONNXConstantOp>(op);
  Location loc = op->getLoc();
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  TypedAttr value;
  if (auto v = c.getValueAttr()) {
    value = cast<TypedAttr>(v);
    // Scalars stay inline: the LLVM lowering of rank-0 globals needs a
    // splat it can iterate, which a resource blob does not offer.
    auto resource = dyn_cast<DenseResourceElementsAttr>(v);
    if (resource && resource.getType().getNumElements() == 1) {
      AsmResourceBlob *blob = resource.getRawHandle().getBlob();
      if (!blob)
        return op->emitError("constant data is missing");
      value = DenseElementsAttr::getFromRawBuffer(resource.getType(),
                                                  blob->getData());
    }
  } else if (auto f = c.getValueFloatAttr()) {
    value = DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                                   f.getValue());
  } else if (auto fs = c.getValueFloatsAttr()) {
    SmallVector<float> values;
    for (Attribute a : fs)
      values.push_back(float(cast<FloatAttr>(a).getValueAsDouble()));
    value = DenseElementsAttr::get(
        RankedTensorType::get({int64_t(values.size())}, b.getF32Type()),
        ArrayRef<float>(values));
  } else if (auto i = c.getValueIntAttr()) {
    value = DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()),
                                   i.getInt());
  } else if (auto is = c.getValueIntsAttr()) {
    SmallVector<int64_t> values;
    for (Attribute a : is)
      values.push_back(cast<IntegerAttr>(a).getInt());
    value = DenseElementsAttr::get(
        RankedTensorType::get({int64_t(values.size())}, b.getI64Type()),
        ArrayRef<int64_t>(values));
  } else {
    return op->emitError("only numeric tensor constants are supported");
  }
  // Unsigned constants (ui8, and ui4/ui2 stored one element per byte) are
  // plain data as well: arith.constant takes any integer tensor.
  Type constantElement = cast<ShapedType>(value.getType()).getElementType();
  if (!isa<IntegerType>(constantElement) &&
      failed(requireSupportedElement(op, constantElement)))
    return failure();
  // No elements, no data: an empty tensor (a zero-size global crashes the
  // LLVM translation). Empty initial values are common in Loop models.
  if (auto shaped = cast<ShapedType>(value.getType());
      shaped.hasStaticShape() && shaped.getNumElements() == 0)
    return SmallVector<Value>{tensor::EmptyOp::create(b, loc, shaped.getShape(),
                                                      shaped.getElementType())};
  Value result = arith::ConstantOp::create(b, loc, value);
  (void)resultType;
  return SmallVector<Value>{result};
}

FailureOr<SmallVector<Value>> lowerIdentity(Operation *op, OpBuilder &) {
  return SmallVector<Value>{op->getOperand(0)};
}

const LoweringTable &loweringTable() {
  static const LoweringTable table = [] {
    LoweringTable t;
    t["onnx.Constant"] = lowerConstant;
    t["onnx.Identity"] = lowerIdentity;
    addElementwiseLowerings(t);
    addLinearAlgebraLowerings(t);
    addDataMovementLowerings(t);
    addNormalizationLowerings(t);
    addReductionLowerings(t);
    addConvolutionLowerings(t);
    addDataDependentLowerings(t);
    addControlFlowLowerings(t);
    addQuantizationLowerings(t);
    addResizeLowerings(t);
    addRecurrentLowerings(t);
    addEinsumLowerings(t);
    addSequenceLowerings(t);
    addNewOperatorLowerings(t);
    addStringLowerings(t); // wraps Equal and Cast: last
    return t;
  }();
  return table;
}

/// Makes `value` usable where `expected` was declared.
FailureOr<Value> reconcile(OpBuilder &b, Operation *op, Value value,
                           Type expected) {
  if (value.getType() == expected)
    return value;
  // Sequence/optional handles carry no shapes to reconcile.
  if (isHandleType(value.getType()) &&
      convertHandleType(expected) == value.getType())
    return value;
  auto actual = dyn_cast<RankedTensorType>(value.getType());
  auto want = dyn_cast<TensorType>(expected);
  if (!actual || !want)
    return op->emitError() << "lowering produced " << value.getType()
                           << " where " << expected << " was declared";
  if (!want.hasRank())
    return value; // Users will see the more precise type.
  if (want.getElementType() != actual.getElementType() ||
      want.getRank() != actual.getRank())
    return op->emitError() << "lowering produced " << value.getType()
                           << " where " << expected << " was declared";
  for (int64_t i = 0; i < actual.getRank(); ++i)
    if (!actual.isDynamicDim(i) && !want.isDynamicDim(i) &&
        actual.getDimSize(i) != want.getDimSize(i))
      return op->emitError() << "computed result shape " << value.getType()
                             << " contradicts the declared " << expected;
  return tensor::CastOp::create(b, op->getLoc(), want, value).getResult();
}

} // namespace

/// The DimAnalysis of the function being converted, if enabled.
static thread_local DimAnalysis *activeAnalysis = nullptr;

/// Graph-input dims already materialized at the top of the function, so
/// that every extent DimAnalysis proves equal to one becomes the same SSA
/// value (the memory planner and CSE then see one size).
static thread_local llvm::DenseMap<std::pair<Value, int64_t>, Value>
    *argumentDims = nullptr;

/// Replaces each `tensor.dim` the lowering of `op` created (the ops between
/// `first` and `op`) by the dim of a graph input that the analysis proves
/// equal when `op` runs.
static void canonicalizeDims(Operation *op, Operation *first,
                             const DimAnalysis::View &view) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func || !argumentDims)
    return;
  SmallVector<tensor::DimOp> dims;
  for (Operation *it = first; it && it != op; it = it->getNextNode())
    it->walk([&](tensor::DimOp dim) { dims.push_back(dim); });
  for (tensor::DimOp dim : dims) {
    std::optional<int64_t> index = dim.getConstantIndex();
    Value source = dim.getSource();
    auto type = dyn_cast<RankedTensorType>(source.getType());
    if (!index || !type || *index < 0 || *index >= type.getRank())
      continue;
    for (BlockArgument arg : func.getArguments()) {
      auto argType = dyn_cast<RankedTensorType>(arg.getType());
      if (!argType)
        continue;
      bool replaced = false;
      for (int64_t m = 0; m < argType.getRank() && !replaced; ++m) {
        if (!argType.isDynamicDim(m) ||
            !view.sameDynDim(source, *index, arg, m))
          continue;
        if (arg == source && m == *index) {
          replaced = true; // already the first graph input's dim
          break;
        }
        Value &canonical = (*argumentDims)[{arg, m}];
        if (!canonical) {
          OpBuilder b(&func.getBody().front(), func.getBody().front().begin());
          Value c = arith::ConstantIndexOp::create(b, arg.getLoc(), m);
          canonical = tensor::DimOp::create(b, arg.getLoc(), arg, c);
        }
        dim.getResult().replaceAllUsesWith(canonical);
        replaced = true;
      }
      if (replaced)
        break;
    }
  }
}

/// Lowers one onnx op with its table entry and replaces its results.
static LogicalResult lowerOneOp(Operation *op, const LoweringTable &table) {
  auto it = table.find(op->getName().getStringRef());
  if (it == table.end())
    return op->emitError() << "operator "
                           << op->getName().getStringRef().drop_front(5)
                           << " is not supported by the CPU lowering yet";
  OpBuilder b(op);
  // Dims DimAnalysis proves equal whenever this op runs need no run-time
  // broadcast check and no clamped reads.
  std::optional<DimAnalysis::View> view;
  shape::DimEquivalence equivalence;
  if (activeAnalysis) {
    view = activeAnalysis->before(op);
    equivalence = [&](Value a, int64_t i, Value c, int64_t j) {
      return view->sameDim(a, i, c, j);
    };
  }
  shape::ScopedDimEquivalence scope(activeAnalysis ? &equivalence : nullptr);
  Operation *before = op->getPrevNode();
  FailureOr<SmallVector<Value>> results = it->second(op, b);
  if (failed(results))
    return failure();
  if (view && op->getParentOp() == op->getParentOfType<func::FuncOp>())
    canonicalizeDims(
        op, before ? before->getNextNode() : &op->getBlock()->front(), *view);
  // A result the lowering does not produce (BatchNormalization's running
  // mean and variance outside training mode) must be unused: erasing the
  // op under a use left a null value that crashed the verifier's printer
  // (found by test/fuzz/mutate_models.py).
  for (auto [i, oldValue] : llvm::enumerate(op->getResults()))
    if ((i >= results->size() || !(*results)[i]) && !oldValue.use_empty())
      return op->emitError() << "output " << i
                             << " is used, but the operator does not produce "
                                "it with these attributes and inputs";
  for (auto [oldValue, newValue] : llvm::zip(op->getResults(), *results)) {
    if (!newValue)
      continue;
    // Graph-visible types stay as declared where they are used by
    // the return; elsewhere the refined type flows on.
    bool usedByReturn = llvm::any_of(oldValue.getUsers(), [](Operation *u) {
      return isa<func::ReturnOp>(u);
    });
    Value replacement = newValue;
    if (usedByReturn || !isa<RankedTensorType>(newValue.getType())) {
      FailureOr<Value> r = reconcile(b, op, newValue, oldValue.getType());
      if (failed(r))
        return failure();
      replacement = *r;
    } else if (auto declared = dyn_cast<RankedTensorType>(oldValue.getType())) {
      FailureOr<Value> r = reconcile(b, op, newValue, declared);
      if (failed(r))
        return failure();
      // Keep the more static of the two.
      replacement = newValue;
    }
    if (activeAnalysis)
      activeAnalysis->replaceValue(oldValue, replacement);
    oldValue.replaceAllUsesWith(replacement);
  }
  op->erase();
  return success();
}

LogicalResult lowerONNXOpsIn(Block &block) {
  const LoweringTable &table = loweringTable();
  // The ops of this block, in order; ops nested in an op's regions (If,
  // Loop and Scan bodies) are lowered by that op's lowering.
  SmallVector<Operation *> ops;
  for (Operation &op : block)
    if (op.getDialect() && op.getDialect()->getNamespace() == "onnx" &&
        !isa<onnx::ONNXNoValueOp, onnx::ONNXYieldOp>(op))
      ops.push_back(&op);
  for (Operation *op : ops)
    if (failed(lowerOneOp(op, table)))
      return failure();
  return success();
}

namespace {

struct ConvertONNXToTensorPass
    : public onyx::impl::ConvertONNXToTensorBase<ConvertONNXToTensorPass> {
  using ConvertONNXToTensorBase::ConvertONNXToTensorBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool failedAny = false;
    module.walk([&](func::FuncOp func) {
      if (failedAny || func.getBody().empty())
        return;
      std::optional<DimAnalysis> analysis;
      if (useDimAnalysis) {
        analysis.emplace(func);
        analysis->run();
      }
      activeAnalysis = analysis ? &*analysis : nullptr;
      llvm::DenseMap<std::pair<Value, int64_t>, Value> dimsOfArguments;
      argumentDims = &dimsOfArguments;
      llvm::scope_exit reset([] {
        activeAnalysis = nullptr;
        argumentDims = nullptr;
      });
      convertStringTypes(func);
      if (failed(convertHandleArguments(func)) ||
          failed(lowerONNXOpsIn(func.getBody().front()))) {
        failedAny = true;
        return;
      }
      // A graph output declared without a rank takes the lowered type.
      auto returnOp =
          cast<func::ReturnOp>(func.getBody().back().getTerminator());
      SmallVector<Type> resultTypes(func.getResultTypes());
      for (auto [i, v] : llvm::enumerate(returnOp.getOperands()))
        if (isa<UnrankedTensorType>(resultTypes[i]) ||
            isHandleType(resultTypes[i]))
          resultTypes[i] = v.getType();
      func.setFunctionType(FunctionType::get(
          func.getContext(), func.getArgumentTypes(), resultTypes));
      // NoValue placeholders are dead now.
      func.walk([](onnx::ONNXNoValueOp op) {
        if (op->use_empty())
          op->erase();
      });
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
} // namespace onyx::conversion
