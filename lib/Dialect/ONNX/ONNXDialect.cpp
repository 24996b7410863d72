//===- ONNXDialect.cpp - The onnx dialect, its types and attributes -------===//
//
// Registers the generated ops and types of the `onnx` dialect, materializes
// `onnx.NoValue` for folded `none` values, and verifies the `onnx.dim_params`
// attribute wherever it is attached to a function argument or result.
//
//===----------------------------------------------------------------------===//

#include "onyx/Dialect/ONNX/ONNXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include <cstring>

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace onyx::onnx;

#include "onyx/Dialect/ONNX/ONNXOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "onyx/Dialect/ONNX/ONNXOpsTypes.cpp.inc"

void ONNXDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "onyx/Dialect/ONNX/ONNXOpsTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "onyx/Dialect/ONNX/ONNXOps.cpp.inc"
      >();
}

Operation *ONNXDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  // The only constant this dialect owns is the absent value.
  if (isa<UnitAttr>(value) && isa<NoneType>(type))
    return ONNXNoValueOp::create(builder, loc);
  return nullptr;
}

//===----------------------------------------------------------------------===//
// onnx.dim_params
//===----------------------------------------------------------------------===//

LogicalResult onyx::onnx::parseDimParams(StringRef text,
                                         SmallVectorImpl<DimParam> &result,
                                         std::string *error) {
  auto fail = [&](const Twine &msg) {
    if (error)
      *error = msg.str();
    return failure();
  };
  result.clear();
  if (text.empty())
    return fail("is empty");
  SmallVector<StringRef> entries;
  text.split(entries, ',');
  for (StringRef entry : entries) {
    auto [axisText, name] = entry.split(':');
    int64_t axis;
    if (axisText.size() == entry.size())
      return fail("entry '" + entry + "' is not '<axis>:<name>'");
    if (axisText.getAsInteger(10, axis) || axis < 0)
      return fail("entry '" + entry + "' has an invalid axis '" + axisText +
                  "'");
    if (name.empty())
      return fail("entry '" + entry + "' has an empty name");
    for (const DimParam &prev : result)
      if (prev.axis == axis)
        return fail("axis " + Twine(axis) + " appears twice");
    result.push_back({axis, name.str()});
  }
  return success();
}

std::string onyx::onnx::printDimParams(ArrayRef<DimParam> params) {
  SmallVector<DimParam> sorted(params);
  llvm::stable_sort(sorted, [](const DimParam &a, const DimParam &b) {
    return a.axis < b.axis;
  });
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::interleave(
      sorted, os, [&](const DimParam &p) { os << p.axis << ':' << p.name; },
      ",");
  return out;
}

/// Checks an `onnx.dim_params` attribute attached to a value of type `type`
/// (the `index`-th argument or result, named by `what`, of `op`).
static LogicalResult verifyDimParams(Operation *op, NamedAttribute attr,
                                     Type type, StringRef what,
                                     unsigned index) {
  std::string where =
      ("'" + attr.getName().getValue() + "' on " + what + " #" + Twine(index))
          .str();
  auto str = dyn_cast<StringAttr>(attr.getValue());
  if (!str)
    return op->emitOpError() << where << " must be a string";
  SmallVector<DimParam> params;
  std::string error;
  if (failed(parseDimParams(str.getValue(), params, &error)))
    return op->emitOpError()
           << where << " " << error << " (expected \"<axis>:<name>[,...]\")";
  auto shaped = dyn_cast_or_null<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return success();
  for (const DimParam &p : params)
    if (p.axis >= shaped.getRank())
      return op->emitOpError()
             << where << " names axis " << p.axis << " ('" << p.name
             << "') but the type " << type << " has rank " << shaped.getRank();
  return success();
}

LogicalResult ONNXDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() != kDimParamsAttrName)
    return success();
  // Declarations have no entry block: take the type from the signature.
  Type type;
  if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
    ArrayRef<Type> args = fn.getArgumentTypes();
    if (argIndex < args.size())
      type = args[argIndex];
  } else if (regionIndex < op->getNumRegions() &&
             !op->getRegion(regionIndex).empty() &&
             argIndex < op->getRegion(regionIndex).getNumArguments()) {
    type = op->getRegion(regionIndex).getArgument(argIndex).getType();
  }
  return verifyDimParams(op, attr, type, "argument", argIndex);
}

LogicalResult ONNXDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned regionIndex,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  if (attr.getName() != kDimParamsAttrName)
    return success();
  Type type;
  if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
    ArrayRef<Type> results = fn.getResultTypes();
    if (resultIndex < results.size())
      type = results[resultIndex];
  }
  return verifyDimParams(op, attr, type, "result", resultIndex);
}

std::optional<llvm::SmallVector<int64_t>>
onyx::onnx::getConstantInts(mlir::Value value, int64_t maxElements) {
  using namespace mlir;
  Operation *def = value.getDefiningOp();
  if (!def)
    return std::nullopt;
  auto limited =
      [&](SmallVector<int64_t> values) -> std::optional<SmallVector<int64_t>> {
    if (maxElements >= 0 && int64_t(values.size()) > maxElements)
      return std::nullopt;
    return values;
  };
  ElementsAttr attr;
  if (auto c = dyn_cast<ONNXConstantOp>(def)) {
    if (auto v = c.getValueAttr())
      attr = v;
    else if (auto ints = c.getValueIntsAttr())
      return limited(SmallVector<int64_t>(llvm::map_range(
          ints, [](Attribute a) { return cast<IntegerAttr>(a).getInt(); })));
    else if (auto i = c.getValueIntAttr())
      return SmallVector<int64_t>{i.getInt()};
  } else if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    attr = dyn_cast<ElementsAttr>(c.getValue());
  }
  if (!attr || (maxElements >= 0 && attr.getNumElements() > maxElements))
    return std::nullopt;
  auto elementType = dyn_cast<IntegerType>(attr.getElementType());
  if (!elementType)
    return std::nullopt;
  if (auto dense = dyn_cast<DenseIntElementsAttr>(attr))
    return SmallVector<int64_t>(
        llvm::map_range(dense.getValues<APInt>(), [](const APInt &x) {
          // Booleans are 0/1, other integers signed.
          return x.getBitWidth() == 1 ? int64_t(x.getZExtValue())
                                      : x.getSExtValue();
        }));
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    unsigned width = elementType.getWidth();
    if (!blob || (width != 32 && width != 64))
      return std::nullopt;
    ArrayRef<char> data = blob->getData();
    size_t count = data.size() / (width / 8);
    if (int64_t(count) != attr.getNumElements())
      return std::nullopt;
    SmallVector<int64_t> result;
    for (size_t i = 0; i < count; ++i) {
      if (width == 64) {
        int64_t x;
        std::memcpy(&x, data.data() + i * 8, 8);
        result.push_back(x);
      } else {
        int32_t x;
        std::memcpy(&x, data.data() + i * 4, 4);
        result.push_back(x);
      }
    }
    return result;
  }
  return std::nullopt;
}
