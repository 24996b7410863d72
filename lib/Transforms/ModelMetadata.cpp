//===- ModelMetadata.cpp - The compiler's metadata writer -----------------===//
//
// include/onyx/Transforms/ModelMetadata.h; the runtime's parser is
// runtime/src/Metadata.cpp, both spelled through onyx/onyx_abi.h.
//
//===----------------------------------------------------------------------===//

#include "onyx/Transforms/ModelMetadata.h"
#include "onyx/Transforms/Passes.h"

#include "onyx/onyx_abi.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace onyx::metadata {

std::string escapeName(StringRef name) {
  StringRef punct = ONYX_METADATA_NAME_PUNCT;
  std::string out;
  for (unsigned char c : name) {
    if (llvm::isAlnum(c) || punct.contains(char(c))) {
      out.push_back(char(c));
    } else {
      out.push_back('%');
      out.push_back(llvm::hexdigit(c >> 4, /*LowerCase=*/false));
      out.push_back(llvm::hexdigit(c & 15, /*LowerCase=*/false));
    }
  }
  return out;
}

std::string headerLine() { return ONYX_METADATA_HEADER "\n"; }

static const char *kindWord(bool isInput) {
  return isInput ? ONYX_METADATA_INPUT : ONYX_METADATA_OUTPUT;
}

std::string tensorLine(bool isInput, StringRef name, int elementCode,
                       ArrayRef<Dim> dims) {
  std::string out = std::string(kindWord(isInput)) + " " + escapeName(name) +
                    " " + std::to_string(elementCode) + " " +
                    std::to_string(dims.size());
  for (const Dim &dim : dims) {
    out += " ";
    if (dim.size) {
      out += std::to_string(*dim.size);
      continue;
    }
    out += "?";
    out += escapeName(dim.symbol);
  }
  return out + "\n";
}

std::string valueLine(bool isInput, ValueKind kind, StringRef name,
                      int elementCode) {
  const char *suffix =
      kind == ValueKind::Sequence   ? ONYX_METADATA_SEQUENCE_SUFFIX
      : kind == ValueKind::Optional ? ONYX_METADATA_OPTIONAL_SUFFIX
                                    : ONYX_METADATA_OPTIONAL_SEQUENCE_SUFFIX;
  return std::string(kindWord(isInput)) + suffix + " " + escapeName(name) +
         " " + std::to_string(elementCode) + "\n";
}

std::string weightLine(int64_t index, int64_t offset, int64_t length,
                       uint64_t checksum, StringRef file, int convertTo) {
  return std::string(ONYX_METADATA_WEIGHT) + " " + std::to_string(index) + " " +
         std::to_string(offset) + " " + std::to_string(length) + " " +
         llvm::utohexstr(checksum) + " " + escapeName(file) +
         (convertTo ? " " + std::to_string(convertTo) : std::string()) + "\n";
}

std::string weightConcatLine(int64_t index, int64_t rows, int convertTo,
                             ArrayRef<int64_t> parts) {
  std::string line = std::string(ONYX_METADATA_WEIGHT_CONCAT) + " " +
                     std::to_string(index) + " " + std::to_string(rows) + " " +
                     std::to_string(convertTo);
  for (int64_t part : parts)
    line += " " + std::to_string(part);
  return line + "\n";
}

std::string deviceLine(StringRef device) {
  return std::string(ONYX_METADATA_DEVICE) + " " + device.str() + "\n";
}

std::string serialLine(StringRef node) {
  return std::string(ONYX_METADATA_SERIAL) + " " +
         (node.empty() ? std::string("?") : escapeName(node)) + "\n";
}

void setText(ModuleOp module, StringRef text) {
  module->setAttr(kModelMetadataAttrName,
                  StringAttr::get(module.getContext(), text));
}

void append(ModuleOp module, StringRef lines) {
  auto text = module->getAttrOfType<StringAttr>(kModelMetadataAttrName);
  if (!text || lines.empty())
    return;
  setText(module, text.getValue().str() + lines.str());
}

void appendOnce(ModuleOp module, StringRef line) {
  auto text = module->getAttrOfType<StringAttr>(kModelMetadataAttrName);
  if (!text || text.getValue().contains(line))
    return;
  setText(module, text.getValue().str() + line.str());
}

} // namespace onyx::metadata
