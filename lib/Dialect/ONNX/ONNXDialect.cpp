//===- ONNXDialect.cpp - The onnx dialect, its types and attributes -------===//
//
// Registers the generated ops and types of the `onnx` dialect, materializes
// `onnx.NoValue` for folded `none` values, and verifies the `onnx.dim_params`
// attribute wherever it is attached to a function argument or result.
//
//===----------------------------------------------------------------------===//

#include "onyx/Dialect/ONNX/ONNXDialect.h"

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
