//===- ONNXImporter.cpp - ONNX ModelProto to the onnx dialect -------------===//
//
// Reads a ModelProto with the onnx C++ library and builds one func.func of
// `onnx.*` ops. Ops are created generically from the registered `onnx`
// dialect (which is generated from the same operator schemas), so this file
// knows about individual operators only where an older opset spelled an
// operator differently (see normalizeNode).
//
// Tensors (initializers, Constant values) become dense resource blobs, never
// per-element attributes. Result types come from the model's value_info
// after ONNX type/shape inference; when it has nothing, the element type is
// taken from the schema's type constraints.
//
// This translation unit is compiled with exceptions and RTTI because the onnx
// library throws; no exception escapes it.
//
//===----------------------------------------------------------------------===//

#include "onyx/Import/ONNXImporter.h"
#include "onyx/onyx_elements.h"

#include "ExternalData.h"
#include "GraphCheck.h"
#include "HandleTypes.h"
#include "OpsetNormalization.h"
#include "SchemaRegistry.h"
#include "TypeInference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/ScopedHashTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <onnx/onnx_pb.h>

#include <exception>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

using namespace mlir;

namespace onyx {
namespace {

using importer::checkAttributes;
using importer::kAttrInputPrefix;
using importer::NormalizedNode;
using importer::normalizeNode;

/// An import failure; the message is already one complete line.
struct ImportFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string &message) {
  throw ImportFailure(message);
}

std::string describeNode(const onnx::NodeProto &node, int64_t opset) {
  std::string domain = node.domain().empty() ? "ai.onnx" : node.domain();
  return "node '" + node.name() + "' (" + node.op_type() + ", domain " +
         domain + ", opset " + std::to_string(opset) + ")";
}

/// Element type for an ONNX TensorProto.DataType code.
std::optional<Type> getElementType(MLIRContext *ctx, int32_t code) {
  switch (code) {
  case onnx::TensorProto::FLOAT:
    return Float32Type::get(ctx);
  case onnx::TensorProto::DOUBLE:
    return Float64Type::get(ctx);
  case onnx::TensorProto::FLOAT16:
    return Float16Type::get(ctx);
  case onnx::TensorProto::BFLOAT16:
    return BFloat16Type::get(ctx);
  case onnx::TensorProto::BOOL:
    return IntegerType::get(ctx, 1);
  case onnx::TensorProto::INT8:
    return IntegerType::get(ctx, 8);
  case onnx::TensorProto::INT16:
    return IntegerType::get(ctx, 16);
  case onnx::TensorProto::INT32:
    return IntegerType::get(ctx, 32);
  case onnx::TensorProto::INT64:
    return IntegerType::get(ctx, 64);
  case onnx::TensorProto::UINT8:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case onnx::TensorProto::UINT16:
    return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case onnx::TensorProto::UINT32:
    return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case onnx::TensorProto::UINT64:
    return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  // The newer types (docs/element-types.md); libonnx 1.12 predates them, so
  // they are spelled by their codes.
  case 17: // FLOAT8E4M3FN
    return Float8E4M3FNType::get(ctx);
  case 18: // FLOAT8E4M3FNUZ
    return Float8E4M3FNUZType::get(ctx);
  case 19: // FLOAT8E5M2
    return Float8E5M2Type::get(ctx);
  case 20: // FLOAT8E5M2FNUZ
    return Float8E5M2FNUZType::get(ctx);
  case 21: // UINT4
    return IntegerType::get(ctx, 4, IntegerType::Unsigned);
  case 22: // INT4
    return IntegerType::get(ctx, 4);
  case 23: // FLOAT4E2M1
    return Float4E2M1FNType::get(ctx);
  case 24: // FLOAT8E8M0
    return Float8E8M0FNUType::get(ctx);
  case 25: // UINT2
    return IntegerType::get(ctx, 2, IntegerType::Unsigned);
  case 26: // INT2
    return IntegerType::get(ctx, 2);
  // Strings are !onnx.String; convert-onnx-to-tensor gives them their
  // run-time representation (docs/runtime.md, "String tensors").
  case onnx::TensorProto::STRING:
    return importer::makeStringType(ctx);
  default:
    return std::nullopt;
  }
}

std::string dataTypeName(int32_t code) {
  static const char *const kNewer[] = {
      "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4",
      "INT4",         "FLOAT4E2M1",     "FLOAT8E8M0", "UINT2",          "INT2"};
  if (code >= 17 && code <= 26)
    return kNewer[code - 17];
  if (onnx::TensorProto_DataType_IsValid(code))
    return onnx::TensorProto_DataType_Name(
        static_cast<onnx::TensorProto_DataType>(code));
  return "type code " + std::to_string(code);
}

/// Element type from a schema type string such as "tensor(int64)".
std::optional<Type> getElementTypeFromTypeStr(MLIRContext *ctx,
                                              const std::string &str) {
  static const std::map<std::string, int32_t> kNames = {
      {"tensor(float)", onnx::TensorProto::FLOAT},
      {"tensor(double)", onnx::TensorProto::DOUBLE},
      {"tensor(float16)", onnx::TensorProto::FLOAT16},
      {"tensor(bfloat16)", onnx::TensorProto::BFLOAT16},
      {"tensor(bool)", onnx::TensorProto::BOOL},
      {"tensor(int8)", onnx::TensorProto::INT8},
      {"tensor(int16)", onnx::TensorProto::INT16},
      {"tensor(int32)", onnx::TensorProto::INT32},
      {"tensor(int64)", onnx::TensorProto::INT64},
      {"tensor(uint8)", onnx::TensorProto::UINT8},
      {"tensor(uint16)", onnx::TensorProto::UINT16},
      {"tensor(uint32)", onnx::TensorProto::UINT32},
      {"tensor(uint64)", onnx::TensorProto::UINT64},
      {"tensor(float8e4m3fn)", 17},
      {"tensor(float8e4m3fnuz)", 18},
      {"tensor(float8e5m2)", 19},
      {"tensor(float8e5m2fnuz)", 20},
      {"tensor(uint4)", 21},
      {"tensor(int4)", 22},
      {"tensor(float4e2m1)", 23},
      {"tensor(float8e8m0)", 24},
      {"tensor(uint2)", 25},
      {"tensor(int2)", 26}};
  auto it = kNames.find(str);
  if (it == kNames.end())
    return std::nullopt;
  return getElementType(ctx, it->second);
}

/// Byte size of one element as stored in raw_data.
size_t rawElementSize(int32_t code) {
  switch (code) {
  case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT64:
    return 8;
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::UINT32:
    return 4;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
    return 2;
  case onnx::TensorProto::BOOL:
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
  case 17: // the float8 types: their bit patterns
  case 18:
  case 19:
  case 20:
  case 24:
    return 1;
  default:
    return 0;
  }
}

class Importer {
public:
  Importer(MLIRContext &context, std::string baseDir,
           const ImportOptions &options)
      : ctx(&context), builder(&context), baseDir(std::move(baseDir)),
        options(options) {}

  OwningOpRef<ModuleOp> importModel(onnx::ModelProto &model);

private:
  using ScopeTy = llvm::ScopedHashTableScope<llvm::StringRef, Value>;

  void makeInputsDynamic(onnx::GraphProto &graph);
  void collectValueInfo(const onnx::GraphProto &graph);
  void importGraphBody(const onnx::GraphProto &graph);
  void importNode(const onnx::NodeProto &node);
  /// Scan before opset 9 (batch axis, sequence_lens): see its definition.
  void importScanV8(const onnx::NodeProto &node, const std::string &nodeDesc,
                    Location loc);
  /// Imports `sub` as the single block of `region`, ending in onnx.Yield.
  void importSubgraphInto(Region *region, const onnx::GraphProto &sub,
                          const std::string &what, const onnx::NodeProto &node,
                          Location loc);
  Type typeFromProto(const onnx::TypeProto &type, const std::string &what);
  Type tensorTypeFromTensor(const onnx::TensorProto &tensor);
  ElementsAttr tensorAttr(const onnx::TensorProto &tensor,
                          const std::string &what);
  std::string readTensorBytes(const onnx::TensorProto &tensor,
                              const std::string &what);
  std::string readStoredBytes(const onnx::TensorProto &tensor,
                              const std::string &what);
  Value createConstant(const onnx::TensorProto &tensor, Location loc);
  Value createExternalWeight(const onnx::TensorProto &tensor, Location loc);
  Value createI64Constant(ArrayRef<int64_t> values, Location loc);
  Value createF32Constant(float value, Location loc);
  Value noValue(Location loc);
  Value lookup(const std::string &name, const onnx::NodeProto &node);
  Attribute convertAttribute(const onnx::AttributeProto &attr,
                             const onnx::NodeProto &node);
  std::optional<Type> inferHandleResult(const onnx::NodeProto &node,
                                        ArrayRef<Value> operands);
  std::optional<Type> inferResultType(const onnx::NodeProto &node,
                                      const schema::OpSchema &schema,
                                      unsigned resultIndex,
                                      ArrayRef<Value> operands);
  StringAttr dimParamsAttr(const onnx::TypeProto &type);

  MLIRContext *ctx;
  OpBuilder builder;
  std::string baseDir;
  const ImportOptions &options;
  int64_t opset = 0;
  llvm::ScopedHashTable<llvm::StringRef, Value> values;
  /// Storage for the keys of `values` (stable addresses).
  std::vector<std::unique_ptr<std::string>> keyStorage;
  std::map<std::string, onnx::TypeProto> valueInfo;
  std::string currentNode;
  unsigned blobCounter = 0;

  void define(const std::string &name, Value value) {
    keyStorage.push_back(std::make_unique<std::string>(name));
    values.insert(*keyStorage.back(), value);
  }

  friend struct NodeNormalizer;
};

//===----------------------------------------------------------------------===//
// Types and tensors
//===----------------------------------------------------------------------===//

Type Importer::typeFromProto(const onnx::TypeProto &type,
                             const std::string &what) {
  // Sequences and optionals (docs/sequences.md) of tensors.
  if (type.has_sequence_type()) {
    if (!type.sequence_type().has_elem_type() ||
        !type.sequence_type().elem_type().has_tensor_type())
      fail(what + ": only sequences of tensors are supported");
    return importer::makeSequenceType(
        typeFromProto(type.sequence_type().elem_type(), what));
  }
  if (type.has_optional_type()) {
    const auto &payload = type.optional_type().elem_type();
    if (!type.optional_type().has_elem_type() ||
        !(payload.has_tensor_type() || payload.has_sequence_type()))
      fail(what + ": only optional tensors and sequences are supported");
    return importer::makeOptionalType(typeFromProto(payload, what));
  }
  if (!type.has_tensor_type())
    fail(what + ": only tensor, sequence and optional types are supported "
                "(map types are not)");
  const auto &tensorType = type.tensor_type();
  auto elementType = getElementType(ctx, tensorType.elem_type());
  if (!elementType)
    fail(what + ": unsupported element type " +
         dataTypeName(tensorType.elem_type()));
  if (!tensorType.has_shape())
    return UnrankedTensorType::get(*elementType);
  SmallVector<int64_t> shape;
  for (const auto &dim : tensorType.shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() >= 0)
      shape.push_back(dim.dim_value());
    else
      shape.push_back(ShapedType::kDynamic);
  }
  return RankedTensorType::get(shape, *elementType);
}

StringAttr Importer::dimParamsAttr(const onnx::TypeProto &type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape())
    return {};
  std::string text;
  int index = 0;
  for (const auto &dim : type.tensor_type().shape().dim()) {
    // "unk__N" names are invented by ONNX shape inference for dims it could
    // not relate to anything; they are not the model's symbols, and a name
    // made again by a later inference round must not equate two dims.
    if (dim.has_dim_param() && !dim.dim_param().empty() &&
        llvm::StringRef(dim.dim_param()).starts_with("unk__")) {
      ++index;
      continue;
    }
    if (dim.has_dim_param() && !dim.dim_param().empty()) {
      if (!text.empty())
        text += ",";
      text += std::to_string(index) + ":" + dim.dim_param();
    }
    ++index;
  }
  if (text.empty())
    return {};
  return builder.getStringAttr(text);
}

Type Importer::tensorTypeFromTensor(const onnx::TensorProto &tensor) {
  auto elementType = getElementType(ctx, tensor.data_type());
  if (!elementType)
    fail("tensor '" + tensor.name() + "': unsupported element type " +
         dataTypeName(tensor.data_type()));
  SmallVector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  for (int64_t d : shape)
    if (d < 0)
      fail("tensor '" + tensor.name() + "': negative dimension");
  return RankedTensorType::get(shape, *elementType);
}

/// Returns the tensor's bytes in Onyx's in-memory layout: little-endian raw
/// layout, 1 byte per bool, and the 4-bit and 2-bit types unpacked to one
/// element per byte (onyx/onyx_elements.h).
std::string Importer::readTensorBytes(const onnx::TensorProto &tensor,
                                      const std::string &what) {
  std::string stored = readStoredBytes(tensor, what);
  int32_t code = tensor.data_type();
  if (!onyx_subbyte_bits(code))
    return stored;
  uint64_t count = 1;
  for (int64_t d : tensor.dims())
    count *= uint64_t(d);
  std::string bytes(count, '\0');
  onyx_unpack_elements(code, reinterpret_cast<const uint8_t *>(stored.data()),
                       count, reinterpret_cast<uint8_t *>(bytes.data()));
  return bytes;
}

/// The tensor's bytes as ONNX stores them (sub-byte types packed).
std::string Importer::readStoredBytes(const onnx::TensorProto &tensor,
                                      const std::string &what) {
  int32_t code = tensor.data_type();
  // Sub-byte types: one packed byte per int32_data entry.
  bool packed = onyx_subbyte_bits(code) != 0;
  size_t elementSize = packed ? 1 : rawElementSize(code);
  if (elementSize == 0)
    fail(what + ": unsupported element type " + dataTypeName(code));
  uint64_t count = 1;
  for (int64_t d : tensor.dims()) {
    if (d < 0 || (d != 0 && count > (uint64_t(1) << 40) / uint64_t(d)))
      fail(what + ": invalid dimensions");
    count *= uint64_t(d);
  }
  if (packed)
    count = onyx_packed_bytes(code, count);
  uint64_t expectedBytes = count * elementSize;

  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    // ExternalData.h: the location stays inside the model's directory and
    // the file holds every byte (a short one is an error, not zero-padded).
    import::ExternalData data;
    std::string error, bytes;
    if (!import::parseExternalData(tensor, baseDir, what, data, error))
      fail(error);
    if (data.length && *data.length != expectedBytes)
      fail(what + ": external data length " + std::to_string(*data.length) +
           " does not match its shape (" + std::to_string(expectedBytes) +
           " bytes)");
    if (!import::readExternalData(data, expectedBytes, what, bytes, error))
      fail(error);
    return bytes;
  }

  if (tensor.has_raw_data()) {
    if (tensor.raw_data().size() != expectedBytes)
      fail(what + ": raw_data holds " +
           std::to_string(tensor.raw_data().size()) + " bytes, expected " +
           std::to_string(expectedBytes));
    return tensor.raw_data();
  }

  // The values are in the proto itself: check how many there are before
  // allocating (a tensor claiming 2^40 elements allocated terabytes and
  // aborted in LLVM's out-of-memory handler).
  uint64_t stored =
      code == onnx::TensorProto::FLOAT    ? tensor.float_data_size()
      : code == onnx::TensorProto::DOUBLE ? tensor.double_data_size()
      : code == onnx::TensorProto::INT64  ? tensor.int64_data_size()
      : code == onnx::TensorProto::UINT64 || code == onnx::TensorProto::UINT32
          ? tensor.uint64_data_size()
          : tensor.int32_data_size();
  if (stored != count)
    fail(what + ": holds " + std::to_string(stored) + " values, expected " +
         std::to_string(count));
  std::string bytes(expectedBytes, '\0');
  auto checkCount = [&](int64_t have) {
    if (uint64_t(have) != count)
      fail(what + ": holds " + std::to_string(have) + " values, expected " +
           std::to_string(count));
  };
  char *out = bytes.data();
  switch (code) {
  case onnx::TensorProto::FLOAT:
    checkCount(tensor.float_data_size());
    if (expectedBytes) // data() of an empty field may be null
      memcpy(out, tensor.float_data().data(), expectedBytes);
    break;
  case onnx::TensorProto::DOUBLE:
    checkCount(tensor.double_data_size());
    if (expectedBytes) // data() of an empty field may be null
      memcpy(out, tensor.double_data().data(), expectedBytes);
    break;
  case onnx::TensorProto::INT64:
    checkCount(tensor.int64_data_size());
    if (expectedBytes) // data() of an empty field may be null
      memcpy(out, tensor.int64_data().data(), expectedBytes);
    break;
  case onnx::TensorProto::UINT64:
  case onnx::TensorProto::UINT32:
    checkCount(tensor.uint64_data_size());
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t v = tensor.uint64_data(i);
      memcpy(out + i * elementSize, &v, elementSize);
    }
    break;
  default:
    // INT32, INT16, INT8, UINT16, UINT8, BOOL, FLOAT16, BFLOAT16 and the
    // float8 types are stored in int32_data, one value (or bit pattern) per
    // entry; the sub-byte types one packed byte per entry.
    checkCount(tensor.int32_data_size());
    for (uint64_t i = 0; i < count; ++i) {
      int32_t v = tensor.int32_data(i);
      memcpy(out + i * elementSize, &v, elementSize);
    }
    break;
  }
  return bytes;
}

ElementsAttr Importer::tensorAttr(const onnx::TensorProto &tensor,
                                  const std::string &what) {
  auto type = cast<RankedTensorType>(tensorTypeFromTensor(tensor));
  if (tensor.data_type() == onnx::TensorProto::STRING) {
    // Strings: one StringAttr per element (convert-onnx-to-tensor makes
    // them constant globals, docs/conversion.md "String tensors").
    if (tensor.has_raw_data() ||
        tensor.data_location() == onnx::TensorProto::EXTERNAL)
      fail(what + ": a string tensor must use string_data");
    if (uint64_t(tensor.string_data_size()) != uint64_t(type.getNumElements()))
      fail(what + ": holds " + std::to_string(tensor.string_data_size()) +
           " strings, expected " + std::to_string(type.getNumElements()));
    SmallVector<StringRef> strings(tensor.string_data().begin(),
                                   tensor.string_data().end());
    return DenseStringElementsAttr::get(type, strings);
  }
  std::string bytes = readTensorBytes(tensor, what);
  if (type.getElementType().isInteger(1)) {
    // i1 has no byte-per-element resource layout; booleans are rare and small.
    SmallVector<bool> bits;
    bits.reserve(bytes.size());
    for (char c : bytes)
      bits.push_back(c != 0);
    return DenseElementsAttr::get(type, bits);
  }
  std::string name = "onnx_tensor_" + std::to_string(blobCounter++);
  auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
      ArrayRef<char>(bytes.data(), bytes.size()), alignof(uint64_t));
  return DenseResourceElementsAttr::get(type, name, std::move(blob));
}

/// FNV-1a, 64 bits: the checksum of external weights (docs/runtime-abi.md).
uint64_t fnv1a64(llvm::StringRef bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

Value Importer::createConstant(const onnx::TensorProto &tensor, Location loc) {
  // Sub-byte types are packed in the file but unpacked in memory
  // (docs/element-types.md): those are embedded.
  if (options.externalWeights &&
      tensor.data_location() == onnx::TensorProto::EXTERNAL &&
      !onyx_subbyte_bits(tensor.data_type()))
    return createExternalWeight(tensor, loc);
  ElementsAttr value =
      tensorAttr(tensor, "initializer '" + tensor.name() + "'");
  OperationState state(loc, "onnx.Constant");
  state.addAttribute("value", value);
  state.addTypes(value.getType());
  return builder.create(state)->getResult(0);
}

/// An initializer left in its external data file: only its metadata enters
/// the IR. The file may be absent at compile time (then there is no
/// checksum; the session still checks the size).
Value Importer::createExternalWeight(const onnx::TensorProto &tensor,
                                     Location loc) {
  std::string what = "initializer '" + tensor.name() + "'";
  auto type = cast<RankedTensorType>(tensorTypeFromTensor(tensor));
  size_t elementSize = rawElementSize(tensor.data_type());
  if (elementSize == 0 || type.getElementType().isInteger(1))
    fail(what + ": external weights of this element type are not supported");
  import::ExternalData data;
  std::string error;
  if (!import::parseExternalData(tensor, baseDir, what, data, error))
    fail(error);
  const std::string &location = data.location;
  uint64_t offset = data.offset;
  uint64_t expected = uint64_t(type.getNumElements()) * elementSize;
  if (data.length && *data.length != expected)
    fail(what + ": external data length " + std::to_string(*data.length) +
         " does not match its shape (" + std::to_string(expected) + " bytes)");
  uint64_t checksum = 0;
  if (llvm::sys::fs::exists(data.path)) {
    std::string bytes;
    if (!import::readExternalData(data, expected, what, bytes, error))
      fail(error);
    checksum = fnv1a64(bytes);
    if (checksum == 0)
      checksum = 1; // 0 means "no checksum".
  }
  OperationState state(loc, "onyx.weight");
  state.addAttribute("location", builder.getStringAttr(location));
  state.addAttribute("offset", builder.getI64IntegerAttr(int64_t(offset)));
  state.addAttribute("length", builder.getI64IntegerAttr(int64_t(expected)));
  state.addAttribute("checksum", builder.getI64IntegerAttr(int64_t(checksum)));
  state.addTypes(type);
  return builder.create(state)->getResult(0);
}

Value Importer::createI64Constant(ArrayRef<int64_t> values, Location loc) {
  onnx::TensorProto tensor;
  tensor.set_data_type(onnx::TensorProto::INT64);
  tensor.add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values)
    tensor.add_int64_data(v);
  return createConstant(tensor, loc);
}

Value Importer::createF32Constant(float value, Location loc) {
  onnx::TensorProto tensor;
  tensor.set_data_type(onnx::TensorProto::FLOAT);
  tensor.add_float_data(value);
  return createConstant(tensor, loc);
}

Value Importer::noValue(Location loc) {
  OperationState state(loc, "onnx.NoValue");
  state.addTypes(builder.getNoneType());
  return builder.create(state)->getResult(0);
}

Value Importer::lookup(const std::string &name, const onnx::NodeProto &node) {
  Value v = values.lookup(name);
  if (!v)
    fail(describeNode(node, opset) + ": input '" + name +
         "' is not defined before its use");
  return v;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

Attribute Importer::convertAttribute(const onnx::AttributeProto &attr,
                                     const onnx::NodeProto &node) {
  std::string what =
      describeNode(node, opset) + ": attribute '" + attr.name() + "'";
  switch (attr.type()) {
  case onnx::AttributeProto::INT:
    return builder.getI64IntegerAttr(attr.i());
  case onnx::AttributeProto::FLOAT:
    return builder.getF32FloatAttr(attr.f());
  case onnx::AttributeProto::STRING:
    return builder.getStringAttr(attr.s());
  case onnx::AttributeProto::INTS:
    return builder.getI64ArrayAttr(
        SmallVector<int64_t>(attr.ints().begin(), attr.ints().end()));
  case onnx::AttributeProto::FLOATS:
    return builder.getF32ArrayAttr(
        SmallVector<float>(attr.floats().begin(), attr.floats().end()));
  case onnx::AttributeProto::STRINGS: {
    SmallVector<Attribute> strs;
    for (const auto &s : attr.strings())
      strs.push_back(builder.getStringAttr(s));
    return builder.getArrayAttr(strs);
  }
  case onnx::AttributeProto::TENSOR:
    return tensorAttr(attr.t(), what);
  case onnx::AttributeProto::TYPE_PROTO:
    return TypeAttr::get(typeFromProto(attr.tp(), what));
  default:
    fail(what + ": attribute kind " +
         onnx::AttributeProto_AttributeType_Name(attr.type()) +
         " is not supported");
  }
}

//===----------------------------------------------------------------------===//
// Nodes and graphs
//===----------------------------------------------------------------------===//

std::optional<Type> Importer::inferResultType(const onnx::NodeProto &node,
                                              const schema::OpSchema &schema,
                                              unsigned resultIndex,
                                              ArrayRef<Value> operands) {
  // Element type from the schema: a fixed type, or the type parameter shared
  // with an input.
  const auto &outputs = schema.outputs();
  if (outputs.empty())
    return std::nullopt;
  const auto &formal =
      outputs[std::min<size_t>(resultIndex, outputs.size() - 1)];
  const std::string typeStr = formal.typeStr;
  if (auto fixed = getElementTypeFromTypeStr(ctx, typeStr))
    return UnrankedTensorType::get(*fixed);
  for (size_t i = 0; i < schema.inputs().size() && i < operands.size(); ++i) {
    if (schema.inputs()[i].typeStr != typeStr)
      continue;
    if (auto shaped = dyn_cast<ShapedType>(operands[i].getType()))
      return UnrankedTensorType::get(shaped.getElementType());
    if (importer::handleElementType(operands[i].getType()))
      return operands[i].getType();
  }
  // A type parameter allowing a single type.
  for (const auto &param : schema.constraints()) {
    if (param.param == typeStr && param.numAllowed == 1)
      if (auto t = getElementTypeFromTypeStr(ctx, param.allowed[0]))
        return UnrankedTensorType::get(*t);
  }
  (void)node;
  return std::nullopt;
}

/// Whether ONNX inference gave `type` an element type (a tensor, or a
/// sequence/optional of one).
static bool hasKnownElementType(const onnx::TypeProto &type) {
  if (type.has_tensor_type())
    return type.tensor_type().elem_type() != 0;
  if (type.has_sequence_type())
    return type.sequence_type().has_elem_type() &&
           hasKnownElementType(type.sequence_type().elem_type());
  if (type.has_optional_type())
    return type.optional_type().has_elem_type() &&
           hasKnownElementType(type.optional_type().elem_type());
  return false;
}

/// Result types of the sequence and optional ops (docs/sequences.md) when
/// ONNX inference left them out: from the operands and attributes.
std::optional<Type> Importer::inferHandleResult(const onnx::NodeProto &node,
                                                ArrayRef<Value> operands) {
  const std::string &op = node.op_type();
  auto scalarOf = [](Value v) -> Type {
    Type t = v.getType();
    while (Type inner = importer::handleElementType(t))
      t = inner;
    if (auto shaped = dyn_cast<ShapedType>(t))
      return shaped.getElementType();
    return {};
  };
  auto unranked = [](Type scalar) -> std::optional<Type> {
    if (!scalar)
      return std::nullopt;
    return Type(UnrankedTensorType::get(scalar));
  };
  bool hasOperand = !operands.empty() && !isa<NoneType>(operands[0].getType());
  if (op == "SequenceEmpty") {
    int64_t dtype = 1;
    for (const auto &attr : node.attribute())
      if (attr.name() == "dtype")
        dtype = attr.i();
    auto scalar = getElementType(ctx, int32_t(dtype));
    if (!scalar)
      return std::nullopt;
    return importer::makeSequenceType(UnrankedTensorType::get(*scalar));
  }
  if ((op == "SequenceConstruct" || op == "SplitToSequence") && hasOperand) {
    if (auto t = unranked(scalarOf(operands[0])))
      return importer::makeSequenceType(*t);
    return std::nullopt;
  }
  if ((op == "SequenceAt" || op == "ConcatFromSequence") && hasOperand)
    return unranked(scalarOf(operands[0]));
  if ((op == "SequenceInsert" || op == "SequenceErase" || op == "Identity") &&
      hasOperand && importer::handleElementType(operands[0].getType()))
    return operands[0].getType();
  if (op == "Optional") {
    if (hasOperand)
      return importer::makeOptionalType(operands[0].getType());
    for (const auto &attr : node.attribute())
      if (attr.name() == "type" && attr.has_tp())
        return importer::makeOptionalType(
            typeFromProto(attr.tp(), describeNode(node, opset)));
    return std::nullopt;
  }
  if (op == "OptionalGetElement" && hasOperand) {
    if (importer::isOptionalType(operands[0].getType()))
      return importer::handleElementType(operands[0].getType());
    return operands[0].getType();
  }
  return std::nullopt;
}

/// The join of an If result's two branch types (the types the branches'
/// Yields carry): the common element type; the common rank with the dims
/// both agree on (others dynamic); unranked when the ranks differ.
static std::optional<Type> joinBranchTypes(Type a, Type b) {
  auto ta = dyn_cast<TensorType>(a), tb = dyn_cast<TensorType>(b);
  if (!ta || !tb || ta.getElementType() != tb.getElementType())
    return a == b ? std::optional<Type>(a) : std::nullopt;
  auto ra = dyn_cast<RankedTensorType>(ta), rb = dyn_cast<RankedTensorType>(tb);
  if (!ra || !rb || ra.getRank() != rb.getRank())
    return Type(UnrankedTensorType::get(ta.getElementType()));
  SmallVector<int64_t> dims;
  for (auto [x, y] : llvm::zip(ra.getShape(), rb.getShape()))
    dims.push_back(x == y ? x : ShapedType::kDynamic);
  return Type(RankedTensorType::get(dims, ta.getElementType()));
}

void Importer::importNode(const onnx::NodeProto &node) {
  std::string nodeDesc = describeNode(node, opset);
  std::string domain = node.domain();
  if (!domain.empty() && domain != "ai.onnx")
    fail(nodeDesc + ": unsupported operator domain '" + domain + "'");

  const schema::OpSchema *schema = schema::lookup(node.op_type(), opset);
  if (!schema) {
    if (schema::latest(node.op_type()))
      fail(nodeDesc + ": operator " + node.op_type() + " needs opset " +
           std::to_string(schema::versions(node.op_type())[0].sinceVersion) +
           " or newer");
    fail(nodeDesc + ": unknown operator");
  }
  const schema::OpSchema *latest = schema::latest(node.op_type());
  if (std::string error = checkAttributes(node, *schema, nodeDesc);
      !error.empty())
    fail(error);

  std::string opName = "onnx." + node.op_type();
  auto registered = RegisteredOperationName::lookup(opName, ctx);
  if (!registered)
    fail(nodeDesc + ": operator is not supported by the onnx dialect");

  std::string nodeName =
      node.name().empty() ? node.op_type() + "_" + node.output(0) : node.name();
  Location loc = NameLoc::get(builder.getStringAttr(nodeName));

  if (node.op_type() == "Scan" && schema->sinceVersion < 9)
    return importScanV8(node, nodeDesc, loc);

  // Bring the node into the newest schema's form.
  NormalizedNode norm;
  if (std::string error = normalizeNode(node, *schema, *latest, nodeDesc, norm);
      !error.empty())
    fail(error);

  // Operands: every formal input present (absent optional ones as NoValue),
  // the variadic tail as given.
  SmallVector<Value> operands;
  const auto &formals = latest->inputs();
  size_t numFormal = formals.size();
  bool variadicTail =
      numFormal > 0 && formals.back().option == schema::Option::Variadic;
  for (size_t i = 0; i < norm.inputs.size(); ++i) {
    const std::string &name = norm.inputs[i];
    if (i >= numFormal && !variadicTail)
      fail(nodeDesc + ": has " + std::to_string(norm.inputs.size()) +
           " inputs, the operator takes at most " + std::to_string(numFormal));
    if (name.empty()) {
      if (i + 1 >= numFormal && variadicTail)
        fail(nodeDesc + ": empty name in variadic input list");
      operands.push_back(noValue(loc));
    } else if (name.rfind(kAttrInputPrefix, 0) == 0) {
      if (norm.intInputs.count(i))
        operands.push_back(createI64Constant(norm.intInputs[i], loc));
      else
        operands.push_back(createF32Constant(norm.floatInputs[i], loc));
    } else {
      operands.push_back(lookup(name, node));
    }
  }
  size_t numFixed = variadicTail ? numFormal - 1 : numFormal;
  for (size_t i = operands.size(); i < numFixed; ++i) {
    if (formals[i].option != schema::Option::Optional)
      fail(nodeDesc + ": required input " + std::to_string(i) + " ('" +
           formals[i].name + "') is missing");
    operands.push_back(noValue(loc));
  }
  if (variadicTail && operands.size() < numFormal &&
      formals.back().minArity > 0)
    fail(nodeDesc + ": variadic input '" + formals.back().name +
         "' needs at least one value");

  // Results: every formal output present (NoneType when not produced).
  const auto &formalOuts = latest->outputs();
  bool variadicOut = !formalOuts.empty() &&
                     formalOuts.back().option == schema::Option::Variadic;
  size_t numResults =
      std::max<size_t>(node.output_size(),
                       variadicOut ? formalOuts.size() - 1 : formalOuts.size());
  if (!variadicOut && size_t(node.output_size()) > formalOuts.size())
    fail(nodeDesc + ": has " + std::to_string(node.output_size()) +
         " outputs, the operator has " + std::to_string(formalOuts.size()));
  SmallVector<Type> resultTypes;
  for (size_t i = 0; i < numResults; ++i) {
    const std::string name =
        i < size_t(node.output_size()) ? node.output(int(i)) : "";
    if (name.empty()) {
      resultTypes.push_back(builder.getNoneType());
      continue;
    }
    auto it = valueInfo.find(name);
    if (it != valueInfo.end() && hasKnownElementType(it->second)) {
      resultTypes.push_back(
          typeFromProto(it->second, nodeDesc + ": output '" + name + "'"));
      continue;
    }
    if (i == 0)
      if (auto t = inferHandleResult(node, operands)) {
        resultTypes.push_back(*t);
        continue;
      }
    // If: typed from what its branches yield, once they are imported.
    if (node.op_type() == "If") {
      resultTypes.push_back(Type());
      continue;
    }
    if (auto t = inferResultType(node, *latest, unsigned(i), operands)) {
      resultTypes.push_back(*t);
      continue;
    }
    fail(nodeDesc + ": cannot determine the type of output '" + name + "'");
  }

  OperationState state(loc, opName);
  state.addOperands(operands);
  for (const auto *attr : norm.attributes) {
    if (attr->type() == onnx::AttributeProto::GRAPH)
      continue;
    if (!attr->ref_attr_name().empty())
      fail(nodeDesc + ": attribute references are only valid in functions");
    state.addAttribute(attr->name(), convertAttribute(*attr, node));
  }

  // Graph attributes become regions, in the order of the schema's attribute
  // map (sorted by name), which is the order the dialect declares them in.
  std::vector<std::string> graphAttrNames;
  for (const schema::Attr &attr : latest->attributes())
    if (attr.kind == schema::AttrKind::GRAPH)
      graphAttrNames.push_back(attr.name);
  for (const auto &graphName : graphAttrNames) {
    Region *region = state.addRegion();
    const onnx::AttributeProto *graphAttr = nullptr;
    for (const auto *attr : norm.attributes)
      if (attr->name() == graphName)
        graphAttr = attr;
    if (!graphAttr)
      continue;
    if (graphAttr->type() != onnx::AttributeProto::GRAPH)
      fail(nodeDesc + ": attribute '" + graphName + "' must be a graph");
    importSubgraphInto(region, graphAttr->g(),
                       nodeDesc + ": subgraph '" + graphName + "'", node, loc);
  }
  for (size_t i = 0; i < resultTypes.size(); ++i) {
    if (resultTypes[i])
      continue;
    std::optional<Type> joined;
    if (state.regions.size() == 2 && !state.regions[0]->empty() &&
        !state.regions[1]->empty()) {
      Operation *thenYield = state.regions[0]->front().getTerminator();
      Operation *elseYield = state.regions[1]->front().getTerminator();
      if (i < thenYield->getNumOperands() && i < elseYield->getNumOperands())
        joined = joinBranchTypes(thenYield->getOperand(i).getType(),
                                 elseYield->getOperand(i).getType());
    }
    if (!joined)
      fail(nodeDesc + ": cannot determine the type of output '" +
           node.output(int(i)) + "' (the branches yield different types)");
    resultTypes[i] = *joined;
  }
  state.addTypes(resultTypes);

  Operation *op = builder.create(state);
  for (size_t i = 0; i < size_t(node.output_size()); ++i)
    if (!node.output(int(i)).empty())
      define(node.output(int(i)), op->getResult(unsigned(i)));
}

void Importer::importSubgraphInto(Region *region, const onnx::GraphProto &sub,
                                  const std::string &what,
                                  const onnx::NodeProto &node, Location loc) {
  Block *block = new Block();
  region->push_back(block);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(block);
  ScopeTy scope(values);
  for (const auto &input : sub.input()) {
    Type t =
        typeFromProto(input.type(), what + " input '" + input.name() + "'");
    define(input.name(), block->addArgument(t, loc));
  }
  importGraphBody(sub);
  SmallVector<Value> yielded;
  for (const auto &output : sub.output())
    yielded.push_back(lookup(output.name(), node));
  OperationState yield(loc, "onnx.Yield");
  yield.addOperands(yielded);
  builder.create(yield);
}

/// Scan before opset 9 has a batch axis 0 on every state and scan input,
/// each batch element an independent scan, and an optional sequence_lens
/// input. Without sequence_lens it is an outer Scan over the batch axis
/// (no states: every input is scanned, every result stacked) whose body is
/// the newest Scan on one batch element:
///
///   y, z = Scan-8(, init[B, ..], x[B, T, ..]) {directions}
///   ==>
///   y, z = onnx.Scan(init, x) {num_scan_inputs = N + M} (init_b, x_b) {
///     Yield(onnx.Scan(init_b, x_b) {num_scan_inputs = M,
///                                   scan_input_directions = directions})
///   }
void Importer::importScanV8(const onnx::NodeProto &node,
                            const std::string &nodeDesc, Location loc) {
  const onnx::GraphProto *body = nullptr;
  int64_t numScanInputs = -1;
  const onnx::AttributeProto *directions = nullptr;
  for (const auto &attr : node.attribute()) {
    if (attr.name() == "body" && attr.type() == onnx::AttributeProto::GRAPH)
      body = &attr.g();
    else if (attr.name() == "num_scan_inputs" &&
             attr.type() == onnx::AttributeProto::INT)
      numScanInputs = attr.i();
    else if (attr.name() == "directions" &&
             attr.type() == onnx::AttributeProto::INTS)
      directions = &attr;
    else
      fail(nodeDesc + ": attribute '" + attr.name() +
           "' is not supported for Scan before opset 9");
  }
  if (!body || numScanInputs < 1)
    fail(nodeDesc + ": needs a body graph and num_scan_inputs >= 1");
  if (node.input_size() > 0 && !node.input(0).empty())
    fail(nodeDesc + ": sequence_lens (Scan before opset 9, input 0) is not "
                    "supported yet; only full-length sequences are");
  SmallVector<Value> operands;
  for (int i = 1; i < node.input_size(); ++i)
    operands.push_back(lookup(node.input(i), node));
  int64_t numInputs = int64_t(operands.size());
  int64_t numStates = numInputs - numScanInputs;
  if (numStates < 0 || body->input_size() != numInputs ||
      body->output_size() < numStates)
    fail(nodeDesc + ": the body's inputs and outputs do not match the " +
         std::to_string(numStates) + " states and " +
         std::to_string(numScanInputs) + " scan inputs");

  // Per batch element: the operand types without the batch axis.
  auto dropBatch = [&](Value v, int64_t minRank) -> RankedTensorType {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || type.getRank() < minRank)
      fail(nodeDesc + ": Scan before opset 9 needs ranked inputs with a "
                      "batch axis (and a sequence axis on scan inputs)");
    return RankedTensorType::get(type.getShape().drop_front(),
                                 type.getElementType());
  };
  SmallVector<Type> sliceTypes, innerTypes, outerTypes;
  for (int64_t i = 0; i < numInputs; ++i)
    sliceTypes.push_back(dropBatch(operands[i], i < numStates ? 1 : 2));
  int64_t batch =
      cast<RankedTensorType>(operands.front().getType()).getDimSize(0);
  int64_t steps = cast<RankedTensorType>(sliceTypes[numStates]).getDimSize(0);
  for (int64_t i = 0; i < body->output_size(); ++i) {
    if (i < numStates) {
      innerTypes.push_back(sliceTypes[i]);
      continue;
    }
    auto out = dyn_cast<RankedTensorType>(
        typeFromProto(body->output(int(i)).type(),
                      nodeDesc + ": body output " + std::to_string(i)));
    if (!out)
      fail(nodeDesc + ": body output " + std::to_string(i) +
           " needs a known rank");
    SmallVector<int64_t> shape = {steps};
    shape.append(out.getShape().begin(), out.getShape().end());
    innerTypes.push_back(RankedTensorType::get(shape, out.getElementType()));
  }
  for (Type t : innerTypes) {
    auto ranked = cast<RankedTensorType>(t);
    SmallVector<int64_t> shape = {batch};
    shape.append(ranked.getShape().begin(), ranked.getShape().end());
    outerTypes.push_back(RankedTensorType::get(shape, ranked.getElementType()));
  }

  OperationState outer(loc, "onnx.Scan");
  outer.addOperands(operands);
  outer.addTypes(outerTypes);
  outer.addAttribute("num_scan_inputs", builder.getI64IntegerAttr(numInputs));
  Region *outerRegion = outer.addRegion();
  {
    Block *block = new Block();
    outerRegion->push_back(block);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(block);
    SmallVector<Value> slices;
    for (Type t : sliceTypes)
      slices.push_back(block->addArgument(t, loc));
    OperationState inner(loc, "onnx.Scan");
    inner.addOperands(slices);
    inner.addTypes(innerTypes);
    inner.addAttribute("num_scan_inputs",
                       builder.getI64IntegerAttr(numScanInputs));
    if (directions)
      inner.addAttribute(
          "scan_input_directions",
          builder.getI64ArrayAttr(SmallVector<int64_t>(
              directions->ints().begin(), directions->ints().end())));
    importSubgraphInto(inner.addRegion(), *body, nodeDesc + ": body", node,
                       loc);
    Operation *innerOp = builder.create(inner);
    OperationState yield(loc, "onnx.Yield");
    yield.addOperands(innerOp->getResults());
    builder.create(yield);
  }
  Operation *op = builder.create(outer);
  for (int i = 0; i < node.output_size(); ++i)
    if (!node.output(i).empty())
      define(node.output(i), op->getResult(unsigned(i)));
}

void Importer::importGraphBody(const onnx::GraphProto &graph) {
  for (const auto &init : graph.initializer()) {
    Location loc = NameLoc::get(builder.getStringAttr(init.name()));
    define(init.name(), createConstant(init, loc));
  }
  if (graph.sparse_initializer_size() > 0)
    fail("graph '" + graph.name() + "': sparse initializers are not supported");
  for (const auto &node : graph.node()) {
    currentNode = describeNode(node, opset);
    importNode(node);
  }
}

void Importer::collectValueInfo(const onnx::GraphProto &graph) {
  auto add = [&](const onnx::ValueInfoProto &vi) {
    if (vi.has_type())
      valueInfo[vi.name()] = vi.type();
  };
  for (const auto &vi : graph.value_info())
    add(vi);
  for (const auto &vi : graph.output())
    add(vi);
  for (const auto &node : graph.node())
    for (const auto &attr : node.attribute()) {
      if (attr.type() == onnx::AttributeProto::GRAPH)
        collectValueInfo(attr.g());
      for (const auto &g : attr.graphs())
        collectValueInfo(g);
    }
}

void Importer::makeInputsDynamic(onnx::GraphProto &graph) {
  std::set<std::string> initializers;
  for (const auto &init : graph.initializer())
    initializers.insert(init.name());
  for (auto &input : *graph.mutable_input()) {
    if (initializers.count(input.name()) || !input.type().has_tensor_type() ||
        !input.type().tensor_type().has_shape())
      continue;
    auto *shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    int index = 0;
    for (auto &dim : *shape->mutable_dim()) {
      if (!dim.has_dim_param() || dim.dim_param().empty())
        dim.set_dim_param(input.name() + "_d" + std::to_string(index));
      ++index;
    }
  }
  // Shapes inferred from the static dims are stale now.
  graph.clear_value_info();
  // Outputs keep their rank; their extents are unknown now.
  for (auto &output : *graph.mutable_output()) {
    if (!output.type().has_tensor_type() ||
        !output.type().tensor_type().has_shape())
      continue;
    for (auto &dim : *output.mutable_type()
                          ->mutable_tensor_type()
                          ->mutable_shape()
                          ->mutable_dim())
      if (!dim.has_dim_param())
        dim.clear_dim_value();
  }
}

OwningOpRef<ModuleOp> Importer::importModel(onnx::ModelProto &model) {
  for (const auto &entry : model.opset_import())
    if (entry.domain().empty() || entry.domain() == "ai.onnx")
      opset = entry.version();
  if (opset == 0)
    fail("the model imports no ai.onnx opset");
  if (!model.has_graph())
    fail("the model has no graph");

  onnx::GraphProto &graph = *model.mutable_graph();
  if (options.makeInputsDynamic)
    makeInputsDynamic(graph);

  if (opset > schema::maxOpset())
    fail("the model imports ai.onnx opset " + std::to_string(opset) +
         "; Onyx knows opsets up to " + std::to_string(schema::maxOpset()));

  // A malformed graph is an error before libonnx's inference sees it
  // (GraphCheck.h: it crashed on a Scan without a body, a missing input).
  if (std::string why = importer::checkWellFormed(graph, opset); !why.empty())
    fail(why);

  // Element types, ranks and static dims of intermediate values
  // (TypeInference.h); Onyx refines shapes itself later.
  if (std::string why = importer::inferTypes(model, opset); !why.empty())
    fail(why);
  collectValueInfo(graph);

  // Owned from the start: an ImportFailure thrown below frees it.
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(ctx));
  builder.setInsertionPointToEnd(module->getBody());

  std::set<std::string> initializers;
  for (const auto &init : graph.initializer())
    initializers.insert(init.name());

  SmallVector<Type> argTypes;
  SmallVector<const onnx::ValueInfoProto *> graphInputs;
  for (const auto &input : graph.input()) {
    if (initializers.count(input.name()))
      continue; // Pre-IR-4 models list initializers as inputs.
    argTypes.push_back(
        typeFromProto(input.type(), "graph input '" + input.name() + "'"));
    graphInputs.push_back(&input);
  }
  SmallVector<Type> resultTypes;
  for (const auto &output : graph.output())
    resultTypes.push_back(
        typeFromProto(output.type(), "graph output '" + output.name() + "'"));

  auto funcType = builder.getFunctionType(argTypes, resultTypes);
  auto func = func::FuncOp::create(builder, UnknownLoc::get(ctx),
                                   options.funcName, funcType);
  for (size_t i = 0; i < graphInputs.size(); ++i) {
    func.setArgAttr(unsigned(i), "onnx.name",
                    builder.getStringAttr(graphInputs[i]->name()));
    if (auto dims = dimParamsAttr(graphInputs[i]->type()))
      func.setArgAttr(unsigned(i), "onnx.dim_params", dims);
  }
  for (int i = 0; i < graph.output_size(); ++i) {
    func.setResultAttr(unsigned(i), "onnx.name",
                       builder.getStringAttr(graph.output(i).name()));
    if (auto dims = dimParamsAttr(graph.output(i).type()))
      func.setResultAttr(unsigned(i), "onnx.dim_params", dims);
  }

  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  ScopeTy scope(values);
  for (size_t i = 0; i < graphInputs.size(); ++i)
    define(graphInputs[i]->name(), entry->getArgument(unsigned(i)));
  importGraphBody(graph);

  SmallVector<Value> results;
  for (const auto &output : graph.output()) {
    Value v = values.lookup(output.name());
    if (!v)
      fail("graph output '" + output.name() + "' is never produced");
    results.push_back(v);
  }
  // Graph outputs may be more precisely typed than the producer (or less);
  // keep the function type in sync with what is returned.
  SmallVector<Type> returnedTypes;
  for (auto [v, declared] : llvm::zip(results, resultTypes)) {
    if (v.getType() != declared && isa<RankedTensorType>(declared) &&
        !isa<RankedTensorType>(v.getType()))
      returnedTypes.push_back(v.getType());
    else
      returnedTypes.push_back(v.getType());
  }
  func.setFunctionType(builder.getFunctionType(argTypes, returnedTypes));
  func::ReturnOp::create(builder, UnknownLoc::get(ctx), results);
  return module;
}

OwningOpRef<ModuleOp> runImport(MLIRContext &context, onnx::ModelProto &model,
                                const std::string &baseDir,
                                const ImportOptions &options,
                                std::string &error) {
  context.loadDialect<func::FuncDialect>();
  if (!context.getLoadedDialect("onnx")) {
    error = "the onnx dialect is not registered";
    return nullptr;
  }
  std::string firstDiagnostic;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (firstDiagnostic.empty() &&
        diag.getSeverity() == DiagnosticSeverity::Error) {
      std::string where;
      if (auto nameLoc = dyn_cast<NameLoc>(diag.getLocation()))
        where = "node '" + nameLoc.getName().str() + "': ";
      firstDiagnostic = where + diag.str();
    }
    return success();
  });
  try {
    Importer importer(context, baseDir, options);
    OwningOpRef<ModuleOp> module = importer.importModel(model);
    if (failed(verify(*module))) {
      error = firstDiagnostic.empty() ? "the imported graph does not verify"
                                      : firstDiagnostic;
      return nullptr;
    }
    return module;
  } catch (const ImportFailure &e) {
    error = e.what();
  } catch (const std::exception &e) {
    error = std::string("import failed: ") + e.what();
  }
  return nullptr;
}

} // namespace

OwningOpRef<ModuleOp> importONNXBytes(MLIRContext &context,
                                      const std::string &bytes,
                                      const std::string &baseDir,
                                      const ImportOptions &options,
                                      std::string &error) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) {
    error = "the file is not a valid ONNX model (protobuf parse failed)";
    return nullptr;
  }
  return runImport(context, model, baseDir, options, error);
}

OwningOpRef<ModuleOp> importONNXFile(MLIRContext &context,
                                     const std::string &path,
                                     const ImportOptions &options,
                                     std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    error = "cannot read '" + path + "': " + buffer.getError().message();
    return nullptr;
  }
  llvm::SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  return importONNXBytes(context, (*buffer)->getBuffer().str(),
                         std::string(dir), options, error);
}

} // namespace onyx
