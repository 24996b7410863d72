//===- SchemaRegistry.cpp - Onyx's own table of ONNX operator schemas -----===//

#include "SchemaRegistry.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace onyx::schema {
namespace {
#include "ONNXSchemaTable.inc"
} // namespace

const Attr *OpSchema::attribute(llvm::StringRef attrName) const {
  for (const Attr &a : attributes())
    if (attrName == a.name)
      return &a;
  return nullptr;
}

int maxOpset() { return kMaxOpset; }

llvm::ArrayRef<OpSchema> versions(llvm::StringRef opType) {
  // kSchemas is sorted by (name, since_version).
  const OpSchema *begin = std::begin(kSchemas), *end = std::end(kSchemas);
  const OpSchema *lo = std::lower_bound(
      begin, end, opType, [](const OpSchema &s, llvm::StringRef n) {
        return llvm::StringRef(s.name) < n;
      });
  const OpSchema *hi = lo;
  while (hi != end && opType == hi->name)
    ++hi;
  return {lo, hi};
}

const OpSchema *lookup(llvm::StringRef opType, int64_t opset) {
  const OpSchema *found = nullptr;
  for (const OpSchema &s : versions(opType))
    if (s.sinceVersion <= opset)
      found = &s;
  return found;
}

const OpSchema *latest(llvm::StringRef opType) {
  llvm::ArrayRef<OpSchema> all = versions(opType);
  return all.empty() ? nullptr : &all.back();
}

} // namespace onyx::schema
