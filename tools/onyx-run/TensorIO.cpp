//===- TensorIO.cpp - .npy and TensorProto files <-> OnyxTensor -----------===//
#include "TensorIO.h"

#include "onyx/onyx_elements.h"

#include <onnx/onnx-data_pb.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

namespace onyx {
namespace run {

namespace {

const char kNpyMagic[] = "\x93NUMPY";
constexpr size_t kNpyMagicSize = 6;

TensorPtr makeTensor(int32_t elemType, const std::vector<int64_t> &shape,
                     const std::string &what, std::string &error) {
  TensorPtr tensor(onyx_tensor_create(
      elemType, static_cast<int32_t>(shape.size()), shape.data()));
  if (!tensor) {
    std::ostringstream os;
    os << what << ": cannot allocate a " << onyx_element_name(elemType)
       << " tensor of shape [";
    for (size_t i = 0; i < shape.size(); ++i)
      os << (i ? "," : "") << shape[i];
    os << "] (too large or out of memory)";
    error = os.str();
  }
  return tensor;
}

//===----------------------------------------------------------------------===//
// .npy header: a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
//===----------------------------------------------------------------------===//

struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  bool sawDescr = false, sawFortran = false, sawShape = false;
};

class HeaderParser {
public:
  explicit HeaderParser(const std::string &headerText) : text(headerText) {}

  bool parse(NpyHeader &header, std::string &error) {
    skipSpace();
    if (!consume('{'))
      return fail("expected '{'", error);
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (!parseString(key))
        return fail("expected a quoted key", error);
      skipSpace();
      if (!consume(':'))
        return fail("expected ':' after '" + key + "'", error);
      skipSpace();
      if (key == "descr") {
        if (!parseString(header.descr))
          return fail("'descr' is not a simple dtype string (structured "
                      "dtypes are not supported)",
                      error);
        header.sawDescr = true;
      } else if (key == "fortran_order") {
        if (consumeWord("True"))
          header.fortranOrder = true;
        else if (consumeWord("False"))
          header.fortranOrder = false;
        else
          return fail("'fortran_order' must be True or False", error);
        header.sawFortran = true;
      } else if (key == "shape") {
        if (!parseShape(header.shape))
          return fail("'shape' must be a tuple of non-negative integers",
                      error);
        header.sawShape = true;
      } else {
        return fail("unexpected key '" + key + "'", error);
      }
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume('}'))
        break;
      return fail("expected ',' or '}'", error);
    }
    if (!header.sawDescr || !header.sawFortran || !header.sawShape)
      return fail("missing 'descr', 'fortran_order' or 'shape'", error);
    return true;
  }

private:
  const std::string &text;
  size_t pos = 0;

  bool fail(const std::string &message, std::string &error) {
    error = "malformed .npy header: " + message;
    return false;
  }
  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }
  bool consume(char c) {
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool consumeWord(const char *word) {
    size_t n = std::strlen(word);
    if (text.compare(pos, n, word) != 0)
      return false;
    pos += n;
    return true;
  }
  bool parseString(std::string &out) {
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return false;
    char quote = text[pos++];
    size_t end = text.find(quote, pos);
    if (end == std::string::npos)
      return false;
    out = text.substr(pos, end - pos);
    pos = end + 1;
    return true;
  }
  bool parseShape(std::vector<int64_t> &shape) {
    shape.clear();
    if (!consume('('))
      return false;
    while (true) {
      skipSpace();
      if (consume(')'))
        return true;
      if (pos >= text.size() || text[pos] < '0' || text[pos] > '9')
        return false;
      int64_t value = 0;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        int digit = text[pos++] - '0';
        if (value > (std::numeric_limits<int64_t>::max() - digit) / 10)
          return false;
        value = value * 10 + digit;
      }
      consume('L'); // Python 2 longs.
      shape.push_back(value);
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume(')'))
        return true;
      return false;
    }
  }
};

/// Maps a descr such as "<f4" to an element type; sets `error` otherwise.
int32_t elemTypeFromDescr(const std::string &descr, std::string &error) {
  if (descr.size() < 3) {
    error = "unsupported .npy dtype '" + descr + "'";
    return ONYX_UNDEFINED;
  }
  char order = descr[0];
  std::string code = descr.substr(1);
  struct Entry {
    const char *code;
    int32_t type;
  };
  static const Entry table[] = {
      {"f4", ONYX_F32},  {"f8", ONYX_F64}, {"f2", ONYX_F16}, {"i1", ONYX_I8},
      {"i2", ONYX_I16},  {"i4", ONYX_I32}, {"i8", ONYX_I64}, {"u1", ONYX_U8},
      {"u2", ONYX_U16},  {"u4", ONYX_U32}, {"u8", ONYX_U64}, {"b1", ONYX_BOOL},
      {"V2", ONYX_BF16}, // What ml_dtypes' bfloat16 arrays save as.
  };
  int32_t type = ONYX_UNDEFINED;
  for (const Entry &entry : table)
    if (code == entry.code)
      type = entry.type;
  if (type == ONYX_UNDEFINED) {
    error = "unsupported .npy dtype '" + descr +
            "' (supported: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1)";
    return ONYX_UNDEFINED;
  }
  bool singleByte = onyx_element_size(type) == 1;
  if (order == '>' && !singleByte) {
    error = "big-endian .npy data ('" + descr +
            "') is not supported; save it little-endian";
    return ONYX_UNDEFINED;
  }
  if (order != '<' && order != '|' && order != '=' && order != '>') {
    error = "unsupported .npy dtype '" + descr + "'";
    return ONYX_UNDEFINED;
  }
  return type;
}

} // namespace

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

TensorPtr parseNpy(const std::string &bytes, const std::string &what,
                   std::string &error) {
  auto fail = [&](const std::string &message) {
    error = what + ": " + message;
    return TensorPtr();
  };
  if (bytes.size() < 10 || bytes.compare(0, kNpyMagicSize, kNpyMagic) != 0)
    return fail("not a .npy file (bad magic)");
  auto byteAt = [&](size_t i) {
    return static_cast<uint32_t>(static_cast<unsigned char>(bytes[i]));
  };
  uint32_t major = byteAt(6);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = byteAt(8) | byteAt(9) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail("truncated .npy header");
    headerLen =
        byteAt(8) | byteAt(9) << 8 | byteAt(10) << 16 | byteAt(11) << 24;
    headerStart = 12;
  } else {
    return fail("unsupported .npy format version " + std::to_string(major));
  }
  if (headerLen > bytes.size() - headerStart)
    return fail("truncated .npy header");
  std::string headerText = bytes.substr(headerStart, headerLen);
  NpyHeader header;
  std::string message;
  if (!HeaderParser(headerText).parse(header, message))
    return fail(message);
  if (header.fortranOrder)
    return fail("Fortran-order .npy arrays are not supported; save a "
                "C-contiguous array");
  int32_t elemType = elemTypeFromDescr(header.descr, message);
  if (elemType == ONYX_UNDEFINED)
    return fail(message);
  TensorPtr tensor = makeTensor(elemType, header.shape, what, error);
  if (!tensor)
    return tensor;
  size_t dataStart = headerStart + headerLen;
  size_t available = bytes.size() - dataStart;
  size_t expected = onyx_tensor_byte_size(tensor.get());
  if (available != expected)
    return fail("expected " + std::to_string(expected) + " data bytes, found " +
                std::to_string(available));
  if (expected)
    std::memcpy(onyx_tensor_data(tensor.get()), bytes.data() + dataStart,
                expected);
  return tensor;
}

std::string npyDescr(int32_t elemType) {
  switch (elemType) {
  case ONYX_F32:
    return "<f4";
  case ONYX_F64:
    return "<f8";
  case ONYX_F16:
    return "<f2";
  case ONYX_BF16:
    return "<V2";
  case ONYX_I8:
    return "|i1";
  case ONYX_I16:
    return "<i2";
  case ONYX_I32:
    return "<i4";
  case ONYX_I64:
    return "<i8";
  case ONYX_U8:
    return "|u1";
  case ONYX_U16:
    return "<u2";
  case ONYX_U32:
    return "<u4";
  case ONYX_U64:
    return "<u8";
  case ONYX_BOOL:
    return "|b1";
  // The newer types as docs/testing.md fixes them: float8 and float4 as
  // their bit patterns (uint8), int4/int2 as int8 values, uint4/uint2 as
  // uint8 values.
  case ONYX_F8E4M3FN:
  case ONYX_F8E4M3FNUZ:
  case ONYX_F8E5M2:
  case ONYX_F8E5M2FNUZ:
  case ONYX_F8E8M0:
  case ONYX_F4E2M1:
  case ONYX_U4:
  case ONYX_U2:
    return "|u1";
  case ONYX_I4:
  case ONYX_I2:
    return "|i1";
  default:
    return "";
  }
}

namespace {

/// The .npy header (magic, version, length, dict) for `tensor`.
bool npyHeader(OnyxTensor *tensor, std::string &bytes, std::string &error) {
  std::string descr = npyDescr(onyx_tensor_element_type(tensor));
  if (descr.empty()) {
    error = std::string("cannot write element type ") +
            onyx_element_name(onyx_tensor_element_type(tensor)) + " as .npy";
    return false;
  }
  std::string dict =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
  int32_t rank = onyx_tensor_rank(tensor);
  const int64_t *shape = onyx_tensor_shape(tensor);
  for (int32_t i = 0; i < rank; ++i)
    dict += std::to_string(shape[i]) + (rank == 1 || i + 1 < rank ? "," : "") +
            (i + 1 < rank ? " " : "");
  dict += "), }";
  // Pad with spaces and a final newline so that the data starts at a
  // multiple of 64 bytes, as NumPy does.
  bool v1 = dict.size() + 1 + 10 + 64 <= 65535;
  size_t prefix = v1 ? 10 : 12;
  size_t total = prefix + dict.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict.push_back('\n');
  size_t headerLen = dict.size();

  bytes.assign(kNpyMagic, kNpyMagicSize);
  bytes.push_back(static_cast<char>(v1 ? 1 : 2));
  bytes.push_back('\0');
  for (size_t i = 0; i < (v1 ? 2u : 4u); ++i)
    bytes.push_back(static_cast<char>((headerLen >> (8 * i)) & 0xff));
  bytes += dict;
  return true;
}

/// The .npy form of data bytes [begin, end) of `tensor` appended to `out`:
/// int4/int2 codes become the int8 values they stand for.
void appendNpyData(OnyxTensor *tensor, size_t begin, size_t end,
                   std::string &out) {
  size_t start = out.size();
  out.append(static_cast<const char *>(onyx_tensor_data(tensor)) + begin,
             end - begin);
  int32_t elemType = onyx_tensor_element_type(tensor);
  if (elemType == ONYX_I4 || elemType == ONYX_I2)
    for (size_t i = start; i < out.size(); ++i)
      out[i] = static_cast<char>(
          onyx_subbyte_value(elemType, static_cast<uint8_t>(out[i])));
}

} // namespace

bool formatNpy(OnyxTensor *tensor, std::string &bytes, std::string &error) {
  if (!npyHeader(tensor, bytes, error))
    return false;
  appendNpyData(tensor, 0, onyx_tensor_byte_size(tensor), bytes);
  return true;
}

bool writeNpyFile(OnyxTensor *tensor, const std::string &path,
                  std::string &error) {
  // Written from the tensor in 16 MiB pieces: a copy of the whole file
  // doubled the peak memory of a large output.
  std::string bytes;
  if (!npyHeader(tensor, bytes, error))
    return false;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out)
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  const size_t size = onyx_tensor_byte_size(tensor), piece = size_t(16) << 20;
  for (size_t begin = 0; out && begin < size; begin += piece) {
    bytes.clear();
    appendNpyData(tensor, begin, std::min(size, begin + piece), bytes);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  if (out)
    out.close();
  if (!out) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// TensorProto
//===----------------------------------------------------------------------===//

namespace {

/// Copies `count` elements of a repeated field into `dst`, narrowing each to
/// `Dst` (e.g. int32_data holding int8, bool or the bits of f16/bf16).
template <typename Dst, typename Field>
void copyField(const Field &field, void *dst) {
  Dst *out = static_cast<Dst *>(dst);
  for (int i = 0; i < field.size(); ++i)
    out[i] = static_cast<Dst>(field.Get(i));
}

} // namespace

TensorPtr parseTensorProto(const std::string &bytes, const std::string &what,
                           std::string &error) {
  auto fail = [&](const std::string &message) {
    error = what + ": " + message;
    return TensorPtr();
  };
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes))
    return fail("not a .npy file or an ONNX TensorProto");
  if (proto.data_location() == onnx::TensorProto_DataLocation_EXTERNAL ||
      proto.external_data_size() > 0)
    return fail("TensorProto with external data is not supported");
  if (proto.has_segment())
    return fail("segmented TensorProto is not supported");
  int32_t elemType = proto.data_type();
  if (onyx_element_size(elemType) == 0)
    return fail("unsupported TensorProto data type " +
                std::to_string(elemType) + " (" + onyx_element_name(elemType) +
                ")");
  std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
  for (int64_t d : shape)
    if (d < 0)
      return fail("negative dim " + std::to_string(d));
  TensorPtr tensor = makeTensor(elemType, shape, what, error);
  if (!tensor)
    return tensor;
  void *data = onyx_tensor_data(tensor.get());
  size_t byteSize = onyx_tensor_byte_size(tensor.get());
  int64_t count = onyx_tensor_num_elements(tensor.get());

  // The 4-bit and 2-bit types are packed in the file (two or four per byte,
  // in raw_data or one packed byte per int32_data entry) and unpacked in
  // memory (onyx/onyx_elements.h).
  if (onyx_subbyte_bits(elemType)) {
    uint64_t packedBytes = onyx_packed_bytes(elemType, uint64_t(count));
    std::string packed;
    if (proto.has_raw_data()) {
      packed = proto.raw_data();
      if (packed.size() != packedBytes)
        return fail("raw_data has " + std::to_string(packed.size()) +
                    " bytes, but the " + onyx_element_name(elemType) +
                    " shape needs " + std::to_string(packedBytes) +
                    " (packed)");
    } else {
      if (uint64_t(proto.int32_data_size()) != packedBytes)
        return fail("int32_data has " +
                    std::to_string(proto.int32_data_size()) +
                    " values, but the " + onyx_element_name(elemType) +
                    " shape needs " + std::to_string(packedBytes) +
                    " (one packed byte each)");
      for (int i = 0; i < proto.int32_data_size(); ++i)
        packed.push_back(static_cast<char>(proto.int32_data(i) & 0xff));
    }
    onyx_unpack_elements(elemType,
                         reinterpret_cast<const uint8_t *>(packed.data()),
                         uint64_t(count), static_cast<uint8_t *>(data));
    return tensor;
  }

  // Strings: string_data, one entry per element (docs/runtime.md, "String
  // tensors"); the tensor keeps copies. A string with a NUL byte cannot be
  // a `const char *`.
  if (elemType == ONYX_STRING) {
    if (proto.has_raw_data())
      return fail("a string tensor must use string_data, not raw_data");
    if (proto.string_data_size() != count)
      return fail("string_data has " +
                  std::to_string(proto.string_data_size()) +
                  " values, but the shape needs " + std::to_string(count));
    for (int64_t i = 0; i < count; ++i) {
      const std::string &text = proto.string_data(int(i));
      if (text.find('\0') != std::string::npos)
        return fail("string " + std::to_string(i) +
                    " contains a NUL byte, which Onyx's strings cannot hold");
      if (onyx_tensor_set_string(tensor.get(), i, text.data(), text.size()))
        return fail("cannot store string " + std::to_string(i));
    }
    return tensor;
  }
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != byteSize)
      return fail("raw_data has " + std::to_string(proto.raw_data().size()) +
                  " bytes, but the " + onyx_element_name(elemType) +
                  " shape needs " + std::to_string(byteSize));
    if (byteSize)
      std::memcpy(data, proto.raw_data().data(), byteSize);
    return tensor;
  }

  auto checkCount = [&](int size, const char *field) {
    if (size == count)
      return true;
    fail(std::string(field) + " has " + std::to_string(size) +
         " values, but the shape needs " + std::to_string(count));
    return false;
  };
  switch (elemType) {
  case ONYX_F32:
    if (!checkCount(proto.float_data_size(), "float_data"))
      return TensorPtr();
    copyField<float>(proto.float_data(), data);
    break;
  case ONYX_F64:
    if (!checkCount(proto.double_data_size(), "double_data"))
      return TensorPtr();
    copyField<double>(proto.double_data(), data);
    break;
  case ONYX_I64:
    if (!checkCount(proto.int64_data_size(), "int64_data"))
      return TensorPtr();
    copyField<int64_t>(proto.int64_data(), data);
    break;
  case ONYX_U32:
    if (!checkCount(proto.uint64_data_size(), "uint64_data"))
      return TensorPtr();
    copyField<uint32_t>(proto.uint64_data(), data);
    break;
  case ONYX_U64:
    if (!checkCount(proto.uint64_data_size(), "uint64_data"))
      return TensorPtr();
    copyField<uint64_t>(proto.uint64_data(), data);
    break;
  case ONYX_I32:
    if (!checkCount(proto.int32_data_size(), "int32_data"))
      return TensorPtr();
    copyField<int32_t>(proto.int32_data(), data);
    break;
  case ONYX_I16:
    if (!checkCount(proto.int32_data_size(), "int32_data"))
      return TensorPtr();
    copyField<int16_t>(proto.int32_data(), data);
    break;
  case ONYX_U16:
  case ONYX_F16: // Bit patterns in the low 16 bits.
  case ONYX_BF16:
    if (!checkCount(proto.int32_data_size(), "int32_data"))
      return TensorPtr();
    copyField<uint16_t>(proto.int32_data(), data);
    break;
  case ONYX_I8:
    if (!checkCount(proto.int32_data_size(), "int32_data"))
      return TensorPtr();
    copyField<int8_t>(proto.int32_data(), data);
    break;
  case ONYX_U8:
  case ONYX_F8E4M3FN: // Bit patterns in the low 8 bits.
  case ONYX_F8E4M3FNUZ:
  case ONYX_F8E5M2:
  case ONYX_F8E5M2FNUZ:
  case ONYX_F8E8M0:
    if (!checkCount(proto.int32_data_size(), "int32_data"))
      return TensorPtr();
    copyField<uint8_t>(proto.int32_data(), data);
    break;
  case ONYX_BOOL: {
    if (!checkCount(proto.int32_data_size(), "int32_data"))
      return TensorPtr();
    auto *out = static_cast<uint8_t *>(data);
    for (int i = 0; i < proto.int32_data_size(); ++i)
      out[i] = proto.int32_data(i) != 0;
    break;
  }
  default:
    return fail(std::string("unsupported TensorProto data type ") +
                onyx_element_name(elemType));
  }
  return tensor;
}

TensorPtr readTensorFile(const std::string &path, std::string &error,
                         bool *isNpy) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open input file '" + path + "': " + std::strerror(errno);
    return TensorPtr();
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) {
    error = "cannot read input file '" + path + "'";
    return TensorPtr();
  }
  std::string bytes = contents.str();
  std::string what = "'" + path + "'";
  if (bytes.empty()) {
    error = what + ": file is empty";
    return TensorPtr();
  }
  if (isNpy)
    *isNpy = bytes.compare(0, kNpyMagicSize, kNpyMagic) == 0;
  if (bytes.compare(0, kNpyMagicSize, kNpyMagic) == 0)
    return parseNpy(bytes, what, error);
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0)
    return parseNpy(bytes, what, error); // Reports the bad magic.
  return parseTensorProto(bytes, what, error);
}

std::string describeTensor(OnyxTensor *tensor) {
  if (onyx_value_kind(tensor) == ONYX_VALUE_NONE)
    return "optional(none)";
  if (onyx_value_kind(tensor) == ONYX_VALUE_SEQUENCE) {
    std::string s = "seq(";
    for (size_t i = 0; i < onyx_sequence_length(tensor); ++i)
      s += (i ? ", " : "") + describeTensor(onyx_sequence_get(tensor, i));
    return s + ")";
  }
  std::string s = onyx_element_name(onyx_tensor_element_type(tensor));
  s += "[";
  const int64_t *shape = onyx_tensor_shape(tensor);
  for (int32_t i = 0; i < onyx_tensor_rank(tensor); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

//===----------------------------------------------------------------------===//
// SequenceProto / OptionalProto (docs/sequences.md)
//===----------------------------------------------------------------------===//

namespace {

bool readBytes(const std::string &path, std::string &bytes,
               std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open input file '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) {
    error = "cannot read input file '" + path + "'";
    return false;
  }
  bytes = contents.str();
  return true;
}

TensorPtr sequenceFromProto(const onnx::SequenceProto &proto, int32_t elemType,
                            const std::string &what, std::string &error) {
  if (proto.elem_type() != onnx::SequenceProto::TENSOR &&
      proto.elem_type() != onnx::SequenceProto::UNDEFINED) {
    error = what + ": only sequences of tensors are supported";
    return TensorPtr();
  }
  TensorPtr seq(onyx_sequence_create(elemType));
  if (!seq) {
    error =
        what + ": cannot create a sequence of " + onyx_element_name(elemType);
    return TensorPtr();
  }
  for (int i = 0; i < proto.tensor_values_size(); ++i) {
    std::string bytes = proto.tensor_values(i).SerializeAsString();
    TensorPtr element =
        parseTensorProto(bytes, what + " element " + std::to_string(i), error);
    if (!element)
      return TensorPtr();
    if (onyx_sequence_append(seq.get(), element.get()) != 0) {
      error = what + " element " + std::to_string(i) + ": element type " +
              onyx_element_name(onyx_tensor_element_type(element.get())) +
              ", but the model requires " + onyx_element_name(elemType);
      return TensorPtr();
    }
    element.release();
  }
  return seq;
}

void tensorToProto(OnyxTensor *tensor, onnx::TensorProto &proto) {
  int32_t elemType = onyx_tensor_element_type(tensor);
  proto.set_data_type(elemType);
  const int64_t *shape = onyx_tensor_shape(tensor);
  for (int32_t i = 0; i < onyx_tensor_rank(tensor); ++i)
    proto.add_dims(shape[i]);
  if (elemType == ONYX_STRING) {
    for (int64_t i = 0; i < onyx_tensor_num_elements(tensor); ++i)
      proto.add_string_data(onyx_tensor_get_string(tensor, i));
    return;
  }
  if (onyx_subbyte_bits(elemType)) {
    uint64_t count = uint64_t(onyx_tensor_num_elements(tensor));
    std::string packed(onyx_packed_bytes(elemType, count), '\0');
    onyx_pack_elements(elemType,
                       static_cast<const uint8_t *>(onyx_tensor_data(tensor)),
                       count, reinterpret_cast<uint8_t *>(packed.data()));
    proto.set_raw_data(packed);
    return;
  }
  proto.set_raw_data(onyx_tensor_data(tensor), onyx_tensor_byte_size(tensor));
}

void sequenceToProto(OnyxTensor *seq, onnx::SequenceProto &proto) {
  proto.set_elem_type(onnx::SequenceProto::TENSOR);
  for (size_t i = 0; i < onyx_sequence_length(seq); ++i)
    tensorToProto(onyx_sequence_get(seq, i), *proto.add_tensor_values());
}

} // namespace

TensorPtr adaptNpyTensor(TensorPtr tensor, int32_t elemType,
                         const std::string &what, std::string &error) {
  int32_t have = onyx_tensor_element_type(tensor.get());
  if (have == elemType || npyDescr(elemType) != npyDescr(have) ||
      npyDescr(elemType).empty())
    return tensor;
  // An .npy of the newer types is the uint8/int8 representation that
  // npyDescr names; anything else is left for the session to reject.
  int32_t rank = onyx_tensor_rank(tensor.get());
  const int64_t *shape = onyx_tensor_shape(tensor.get());
  std::vector<int64_t> dims(shape, shape + rank);
  TensorPtr adapted = makeTensor(elemType, dims, what, error);
  if (!adapted)
    return adapted;
  const auto *src =
      static_cast<const uint8_t *>(onyx_tensor_data(tensor.get()));
  auto *dst = static_cast<uint8_t *>(onyx_tensor_data(adapted.get()));
  int64_t count = onyx_tensor_num_elements(tensor.get());
  int32_t bits = onyx_subbyte_bits(elemType);
  for (int64_t i = 0; i < count; ++i) {
    uint8_t byte = src[i];
    if (bits) {
      int32_t value = have == ONYX_I8 ? int32_t(int8_t(byte)) : int32_t(byte);
      uint8_t code = uint8_t(value & ((1 << bits) - 1));
      if (onyx_subbyte_value(elemType, code) != value) {
        error = what + ": element " + std::to_string(i) + " is " +
                std::to_string(value) + ", out of range for " +
                onyx_element_name(elemType);
        return TensorPtr();
      }
      byte = code;
    }
    dst[i] = byte;
  }
  return adapted;
}

TensorPtr readValueFile(const std::string &path, int32_t kind, int32_t elemType,
                        std::string &error) {
  if (kind == ONYX_SIGNATURE_TENSOR) {
    bool isNpy = false;
    TensorPtr tensor = readTensorFile(path, error, &isNpy);
    if (!tensor || !isNpy)
      return tensor;
    return adaptNpyTensor(std::move(tensor), elemType, "'" + path + "'", error);
  }
  std::string bytes;
  if (!readBytes(path, bytes, error))
    return TensorPtr();
  std::string what = "'" + path + "'";
  if (kind == ONYX_SIGNATURE_SEQUENCE) {
    onnx::SequenceProto proto;
    if (!proto.ParseFromString(bytes)) {
      error = what + ": not an ONNX SequenceProto";
      return TensorPtr();
    }
    return sequenceFromProto(proto, elemType, what, error);
  }
  onnx::OptionalProto proto;
  if (!proto.ParseFromString(bytes)) {
    error = what + ": not an ONNX OptionalProto";
    return TensorPtr();
  }
  bool wantsSequence = kind == ONYX_SIGNATURE_OPTIONAL_SEQUENCE;
  if (proto.has_sequence_value() && wantsSequence)
    return sequenceFromProto(proto.sequence_value(), elemType, what, error);
  if (proto.has_tensor_value() && !wantsSequence)
    return parseTensorProto(proto.tensor_value().SerializeAsString(), what,
                            error);
  if (proto.has_tensor_value() || proto.has_sequence_value() ||
      proto.has_sparse_tensor_value() || proto.has_map_value() ||
      proto.has_optional_value()) {
    error = what + ": the optional holds a " +
            (proto.has_tensor_value() ? "tensor" : "non-tensor value") +
            ", but the model requires an optional " +
            (wantsSequence ? "sequence" : "tensor");
    return TensorPtr();
  }
  TensorPtr none(onyx_optional_none_create(elemType));
  if (!none)
    error = what + ": cannot create an empty optional";
  return none;
}

bool writeValueFile(OnyxTensor *value, int32_t kind, const std::string &path,
                    std::string &error) {
  std::string bytes;
  int32_t valueKind = onyx_value_kind(value);
  if (kind == ONYX_SIGNATURE_TENSOR) {
    onnx::TensorProto proto;
    tensorToProto(value, proto);
    bytes = proto.SerializeAsString();
  } else if (kind == ONYX_SIGNATURE_SEQUENCE) {
    onnx::SequenceProto proto;
    sequenceToProto(value, proto);
    bytes = proto.SerializeAsString();
  } else {
    onnx::OptionalProto proto;
    if (valueKind == ONYX_VALUE_SEQUENCE) {
      proto.set_elem_type(onnx::OptionalProto::SEQUENCE);
      sequenceToProto(value, *proto.mutable_sequence_value());
    } else if (valueKind == ONYX_VALUE_TENSOR) {
      proto.set_elem_type(onnx::OptionalProto::TENSOR);
      tensorToProto(value, *proto.mutable_tensor_value());
    }
    bytes = proto.SerializeAsString();
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  out.close();
  if (!out) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

} // namespace run
} // namespace onyx
