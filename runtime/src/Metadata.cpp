//===- Metadata.cpp - Model metadata text parser --------------------------===//
//
// Parses the text format of docs/runtime-abi.md:
//
//   onyx-model v1
//   input <name> <elem> <rank> <dim>...
//   output <name> <elem> <rank> <dim>...
//
// and exposes the result through the onyx_metadata_* C API.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "onyx/onyx_abi.h"

#include <climits>
#include <cstdlib>

#include <cstring>
#include <limits>
#include <new>
#include <set>

using namespace onyx::rt;

namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/// Decodes %XX escapes. False on a malformed escape.
bool unescape(const std::string &token, std::string &result,
              std::string &error) {
  result.clear();
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] != '%') {
      result.push_back(token[i]);
      continue;
    }
    int hi = i + 1 < token.size() ? hexValue(token[i + 1]) : -1;
    int lo = i + 2 < token.size() ? hexValue(token[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      error = "malformed escape in '" + token + "' (expected %XX)";
      return false;
    }
    result.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return true;
}

/// Parses a non-negative decimal integer without sign, bounded by `max`.
bool parseUnsigned(const std::string &token, int64_t max, int64_t &value) {
  if (token.empty() || token.size() > 19)
    return false;
  int64_t v = 0;
  for (char c : token) {
    if (c < '0' || c > '9')
      return false;
    v = v * 10 + (c - '0');
  }
  if (v > max)
    return false;
  value = v;
  return true;
}

std::vector<std::string> splitWords(const std::string &line) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
      ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t')
      ++i;
    if (i > start)
      words.push_back(line.substr(start, i - start));
  }
  return words;
}

bool parseValueLine(const std::vector<std::string> &words, ValueSpec &value,
                    std::string &error) {
  const std::string &kind = words[0];
  if (words.size() < 4) {
    error = "'" + kind + "' needs <name> <elem> <rank> <dim>...";
    return false;
  }
  if (!unescape(words[1], value.name, error))
    return false;
  if (value.name.empty()) {
    error = "empty " + kind + " name";
    return false;
  }
  int64_t elem;
  if (!parseUnsigned(words[2], std::numeric_limits<int32_t>::max(), elem)) {
    error = kind + " '" + value.name + "': bad element type '" + words[2] + "'";
    return false;
  }
  if (onyx_element_size(static_cast<int32_t>(elem)) == 0) {
    error =
        kind + " '" + value.name + "': unsupported element type " + words[2];
    return false;
  }
  value.elemType = static_cast<int32_t>(elem);
  int64_t rank;
  if (!parseUnsigned(words[3], std::numeric_limits<int32_t>::max(), rank)) {
    error = kind + " '" + value.name + "': bad rank '" + words[3] + "'";
    return false;
  }
  if (static_cast<int64_t>(words.size()) - 4 != rank) {
    error = kind + " '" + value.name + "': rank " + words[3] + " but " +
            std::to_string(words.size() - 4) + " dims";
    return false;
  }
  value.dims.assign(rank, DimSpec());
  for (int64_t d = 0; d < rank; ++d) {
    const std::string &token = words[4 + d];
    DimSpec &dim = value.dims[d];
    if (token[0] == '?') {
      dim.extent = -1;
      if (!unescape(token.substr(1), dim.symbol, error)) {
        error = kind + " '" + value.name + "' dim " + std::to_string(d) + ": " +
                error;
        return false;
      }
      continue;
    }
    if (!parseUnsigned(token, std::numeric_limits<int64_t>::max(),
                       dim.extent)) {
      error = kind + " '" + value.name + "' dim " + std::to_string(d) +
              ": bad dim '" + token +
              "' (expected an integer >= 0, '?' or '?NAME')";
      return false;
    }
  }
  return true;
}

} // namespace

namespace onyx {
namespace rt {

uint64_t fnv1a64(const unsigned char *data, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    hash ^= data[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string &threadCreateError() {
  thread_local std::string message;
  return message;
}

/// A weight's conversion code: the element type its f32 values become at
/// load (ONYX_F16 or ONYX_BF16), or 0 (none) where `allowNone`.
static bool parseConvertTo(const std::string &word, bool allowNone,
                           int32_t &convertTo) {
  for (int32_t code : {0, int32_t(ONYX_F16), int32_t(ONYX_BF16)}) {
    if ((code != 0 || allowNone) && word == std::to_string(code)) {
      convertTo = code;
      return true;
    }
  }
  return false;
}

static std::string unsupportedConversion(const std::string &word) {
  return "weight conversion to element type '" + word +
         "' is not supported (f32 to 10 = f16 or 16 = bf16)";
}

bool parseMetadata(const char *text, ModelMetadata &result,
                   std::string &error) {
  result = ModelMetadata();
  if (!text) {
    error = "metadata is NULL";
    return false;
  }
  size_t lineNo = 0;
  bool sawHeader = false;
  std::set<std::string> inputNames;
  const char *p = text;
  while (*p) {
    const char *end = std::strchr(p, '\n');
    if (!end)
      end = p + std::strlen(p);
    std::string line(p, end);
    p = *end ? end + 1 : end;
    ++lineNo;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    std::vector<std::string> words = splitWords(line);
    if (words.empty())
      continue;
    auto fail = [&](const std::string &message) {
      error = "metadata line " + std::to_string(lineNo) + ": " + message;
      return false;
    };
    if (!sawHeader) {
      if (words.size() != 2 || words[0] != ONYX_METADATA_MAGIC)
        return fail("expected header '" ONYX_METADATA_HEADER "'");
      if (words[1] != ONYX_METADATA_VERSION)
        return fail("unsupported metadata version '" + words[1] +
                    "' (this runtime reads v1)");
      sawHeader = true;
      continue;
    }
    if (words[0] == ONYX_METADATA_WEIGHT) {
      // weight <index> <offset> <length> <checksum hex> <location>
      //        [<element type the f32 values are converted to at load>]
      WeightSpec weight;
      int64_t index;
      std::string message;
      if (words.size() == 7 &&
          !parseConvertTo(words[6], /*allowNone=*/false, weight.convertTo))
        return fail(unsupportedConversion(words[6]));
      if ((words.size() != 6 && words.size() != 7) ||
          !parseUnsigned(words[1], INT32_MAX, index) ||
          !parseUnsigned(words[2], INT64_MAX, weight.offset) ||
          !parseUnsigned(words[3], INT64_MAX, weight.length) ||
          !unescape(words[5], weight.location, message))
        return fail("malformed weight line");
      char *endp = nullptr;
      weight.checksum = std::strtoull(words[4].c_str(), &endp, 16);
      if (!endp || *endp != '\0')
        return fail("malformed weight checksum '" + words[4] + "'");
      if (index != int64_t(result.weights.size()))
        return fail("weight lines must be numbered 0, 1, ... in order");
      if (weight.convertTo && weight.length % 4 != 0)
        return fail("a converted weight's length must be a multiple of 4 "
                    "(f32 values)");
      result.weights.push_back(std::move(weight));
      continue;
    }
    if (words[0] == ONYX_METADATA_WEIGHT_CONCAT) {
      // weight_concat <index> <rows> <convert: 0, 10 or 16> <part>...
      WeightSpec weight;
      int64_t index;
      if (words.size() < 6 || !parseUnsigned(words[1], INT32_MAX, index) ||
          !parseUnsigned(words[2], INT64_MAX, weight.rows))
        return fail("malformed weight_concat line (expected 'weight_concat "
                    "INDEX ROWS CONVERT PART PART...')");
      if (index != int64_t(result.weights.size()))
        return fail("weight lines must be numbered 0, 1, ... in order");
      if (!parseConvertTo(words[3], /*allowNone=*/true, weight.convertTo))
        return fail(unsupportedConversion(words[3]));
      bool convert = weight.convertTo != 0;
      if (weight.rows == 0)
        return fail("a weight_concat needs at least one row");
      for (size_t w = 4; w < words.size(); ++w) {
        int64_t part;
        if (!parseUnsigned(words[w], INT32_MAX, part) || part >= index)
          return fail("a weight_concat part must be an earlier weight's "
                      "index, not '" +
                      words[w] + "'");
        const WeightSpec &source = result.weights[size_t(part)];
        if (!source.parts.empty() || source.convertTo)
          return fail("weight_concat part " + words[w] +
                      " is not a plain weight line");
        // Whole rows (of whole f32 values when converted).
        if (source.length % weight.rows != 0 ||
            (convert && (source.length / weight.rows) % 4 != 0))
          return fail("weight_concat part " + words[w] + " (" +
                      std::to_string(source.length) +
                      " bytes) does not split into " + words[2] +
                      (convert ? " rows of f32 values" : " rows"));
        int64_t bytes = convert ? source.length / 2 : source.length;
        if (bytes > INT64_MAX - weight.length)
          return fail("a weight_concat's size overflows");
        weight.parts.push_back(part);
        weight.length += bytes;
      }
      result.weights.push_back(std::move(weight));
      continue;
    }
    if (words[0] == ONYX_METADATA_DEVICE) {
      if (words.size() != 2)
        return fail("expected 'device NAME'");
      result.device = words[1];
      continue;
    }
    if (words[0] == ONYX_METADATA_SERIAL) {
      // serial <node>: informative (docs/runtime-abi.md). Its form is
      // checked, as every kind the writer writes is, and nothing is done.
      std::string node, message;
      if (words.size() != 2 || !unescape(words[1], node, message))
        return fail("expected 'serial NODE'");
      continue;
    }
    // input/output, or (docs/sequences.md) input-sequence, input-optional,
    // input-optional-sequence and the output ones: `<kind> <name> <elem>`.
    std::string kindWord = words[0];
    int32_t valueKind = ONYX_SIGNATURE_TENSOR;
    for (auto [suffix, kind] :
         {std::pair<const char *, int32_t>{ONYX_METADATA_SEQUENCE_SUFFIX,
                                           ONYX_SIGNATURE_SEQUENCE},
          {ONYX_METADATA_OPTIONAL_SUFFIX, ONYX_SIGNATURE_OPTIONAL_TENSOR},
          {ONYX_METADATA_OPTIONAL_SEQUENCE_SUFFIX,
           ONYX_SIGNATURE_OPTIONAL_SEQUENCE}}) {
      for (const char *base : {ONYX_METADATA_INPUT, ONYX_METADATA_OUTPUT})
        if (kindWord == std::string(base) + suffix) {
          kindWord = base;
          valueKind = kind;
        }
    }
    bool isInput = kindWord == ONYX_METADATA_INPUT;
    if (!isInput && kindWord != ONYX_METADATA_OUTPUT)
      continue; // Unknown line kinds are ignored (forward compatible).
    ValueSpec value;
    std::string message;
    if (valueKind != ONYX_SIGNATURE_TENSOR) {
      std::vector<std::string> asTensor = words;
      if (asTensor.size() != 3)
        return fail("'" + words[0] + "' needs <name> <elem>");
      asTensor.push_back("0");
      if (!parseValueLine(asTensor, value, message))
        return fail(message);
      value.kind = valueKind;
    } else if (!parseValueLine(words, value, message)) {
      return fail(message);
    }
    if (isInput) {
      if (!inputNames.insert(value.name).second)
        return fail("duplicate input '" + value.name + "'");
      result.inputs.push_back(std::move(value));
    } else {
      result.outputs.push_back(std::move(value));
    }
  }
  if (!sawHeader) {
    error = "metadata is empty (expected header '" ONYX_METADATA_HEADER "')";
    return false;
  }
  return true;
}

} // namespace rt
} // namespace onyx

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

struct OnyxMetadata {
  ModelMetadata md;
};

namespace {
const ValueSpec *lookup(const OnyxMetadata *metadata, int isOutput,
                        size_t index) {
  if (!metadata)
    return nullptr;
  const std::vector<ValueSpec> &values =
      isOutput ? metadata->md.outputs : metadata->md.inputs;
  return index < values.size() ? &values[index] : nullptr;
}
} // namespace

extern "C" {

ONYX_API OnyxMetadata *onyx_metadata_parse(const char *text,
                                           const char **errorOut) {
  try {
    OnyxMetadata *metadata = new OnyxMetadata();
    std::string error;
    if (parseMetadata(text, metadata->md, error))
      return metadata;
    delete metadata;
    threadCreateError() = error;
  } catch (...) {
    threadCreateError() = "out of memory parsing metadata";
  }
  if (errorOut)
    *errorOut = threadCreateError().c_str();
  return nullptr;
}

ONYX_API void onyx_metadata_destroy(OnyxMetadata *metadata) { delete metadata; }

ONYX_API size_t onyx_metadata_num_inputs(const OnyxMetadata *metadata) {
  return metadata ? metadata->md.inputs.size() : 0;
}

ONYX_API size_t onyx_metadata_num_outputs(const OnyxMetadata *metadata) {
  return metadata ? metadata->md.outputs.size() : 0;
}

ONYX_API const char *onyx_metadata_name(const OnyxMetadata *metadata,
                                        int isOutput, size_t index) {
  const ValueSpec *value = lookup(metadata, isOutput, index);
  return value ? value->name.c_str() : nullptr;
}

ONYX_API int32_t onyx_metadata_element_type(const OnyxMetadata *metadata,
                                            int isOutput, size_t index) {
  const ValueSpec *value = lookup(metadata, isOutput, index);
  return value ? value->elemType : ONYX_UNDEFINED;
}

ONYX_API int32_t onyx_metadata_rank(const OnyxMetadata *metadata, int isOutput,
                                    size_t index) {
  const ValueSpec *value = lookup(metadata, isOutput, index);
  if (!value || value->kind != ONYX_SIGNATURE_TENSOR)
    return -1;
  return static_cast<int32_t>(value->dims.size());
}

ONYX_API int32_t onyx_metadata_kind(const OnyxMetadata *metadata, int isOutput,
                                    size_t index) {
  const ValueSpec *value = lookup(metadata, isOutput, index);
  return value ? value->kind : -1;
}

ONYX_API int64_t onyx_metadata_dim(const OnyxMetadata *metadata, int isOutput,
                                   size_t index, int32_t dim) {
  const ValueSpec *value = lookup(metadata, isOutput, index);
  if (!value || dim < 0 || static_cast<size_t>(dim) >= value->dims.size())
    return -2;
  return value->dims[dim].extent;
}

ONYX_API const char *onyx_metadata_dim_symbol(const OnyxMetadata *metadata,
                                              int isOutput, size_t index,
                                              int32_t dim) {
  const ValueSpec *value = lookup(metadata, isOutput, index);
  if (!value || dim < 0 || static_cast<size_t>(dim) >= value->dims.size())
    return nullptr;
  return value->dims[dim].symbol.c_str();
}

ONYX_API int64_t onyx_metadata_find_input(const OnyxMetadata *metadata,
                                          const char *name) {
  if (!metadata || !name)
    return -1;
  for (size_t i = 0; i < metadata->md.inputs.size(); ++i)
    if (metadata->md.inputs[i].name == name)
      return static_cast<int64_t>(i);
  return -1;
}

} // extern "C"
