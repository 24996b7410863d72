//===- HandleTypes.cpp - !onnx.Seq / !onnx.Opt for the importer -----------===//
#include "HandleTypes.h"

#include "onyx/Dialect/ONNX/ONNXDialect.h"

namespace onyx::importer {

mlir::Type makeSequenceType(mlir::Type element) {
  return onnx::SeqType::get(element.getContext(), element);
}

mlir::Type makeOptionalType(mlir::Type payload) {
  return onnx::OptType::get(payload.getContext(), payload);
}

mlir::Type handleElementType(mlir::Type type) {
  if (auto seq = llvm::dyn_cast<onnx::SeqType>(type))
    return seq.getElementType();
  if (auto opt = llvm::dyn_cast<onnx::OptType>(type))
    return opt.getElementType();
  return {};
}

bool isSequenceType(mlir::Type type) { return llvm::isa<onnx::SeqType>(type); }
bool isOptionalType(mlir::Type type) { return llvm::isa<onnx::OptType>(type); }

mlir::Type makeStringType(mlir::MLIRContext *ctx) {
  return onnx::StringType::get(ctx);
}

} // namespace onyx::importer
