//===- Internal.h - Onyx runtime internals ----------------------*- C++ -*-===//
//
// Definitions shared by the runtime's translation units. Nothing here is
// exported: the library's only interfaces are onyx/onyx_runtime.h (callers)
// and onyx/onyx_services.h (generated code).
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_INTERNAL_H
#define ONYX_RUNTIME_INTERNAL_H

#include "onyx/onyx_services.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

/// A dense row-major tensor owning a 64-byte aligned buffer.
struct OnyxTensor {
  int32_t elemType = ONYX_UNDEFINED;
  int32_t rank = 0;
  /// max(rank, 1) entries, so that the pointer is never NULL.
  int64_t *shape = nullptr;
  int64_t numElements = 0;
  size_t byteSize = 0;
  /// Never NULL for a live tensor, even when byteSize is 0.
  void *data = nullptr;
  /// IO binding: `data` is device memory (onyx_tensor_wrap_device, or a
  /// device output); the tensor frees it only when it owns it.
  bool onDevice = false;
  bool ownsData = true;
  /// ONYX_VALUE_TENSOR, or a sequence (owning `elements`) or an empty
  /// optional (docs/sequences.md); those two have rank 0 and no data bytes.
  int32_t kind = ONYX_VALUE_TENSOR;
  std::vector<OnyxTensor *> elements;
  /// String tensors (ONYX_STRING): the strings this tensor owns. `data`
  /// holds one `const char *` per element (NULL reads as ""); the pointers
  /// the tensor set itself point into this store (docs/runtime.md, "String
  /// tensors"). Null until the first string is stored.
  std::deque<std::string> *strings = nullptr;
};

struct OnyxTensorList {
  std::vector<OnyxTensor *> tensors;
};

namespace onyx {
namespace rt {

/// Alignment of every buffer the runtime hands out.
constexpr size_t kAlignment = 64;

/// Rounds `bytes` up to kAlignment (at least kAlignment); false on overflow.
bool alignedSize(size_t bytes, size_t &result);
/// Allocates a kAlignment-aligned block of at least `bytes` (at least
/// kAlignment) bytes; NULL on failure. Free with freeAligned.
void *allocAligned(size_t bytes);
void freeAligned(void *ptr);

/// Creates a tensor; on failure returns NULL and sets `error` (without
/// throwing). `zero` selects zero-filling of the data.
OnyxTensor *createTensor(int32_t elemType, int64_t rank, const int64_t *shape,
                         bool zero, std::string &error);
void destroyTensor(OnyxTensor *tensor);
/// True for a host bool tensor, or a sequence of them, holding a byte that is
/// neither 0 nor 1 (a valid numpy bool array can: a uint8 view). The
/// generated code relies on 0/1 bytes (docs/runtime.md, "Bool inputs").
bool hasNonCanonicalBools(const OnyxTensor *value);
/// A copy of `value` (a tensor or a sequence) in which every non-zero bool
/// byte is 1; NULL with `error` set on failure (out of memory).
OnyxTensor *copyWithCanonicalBools(const OnyxTensor *value, std::string &error);
/// For a host tensor of a 4-bit or 2-bit type: false, with `error` naming
/// the first byte whose upper bits are not zero (these types hold their bit
/// pattern in the low bits of a byte, onyx_runtime.h). True otherwise.
bool checkSubByteElements(const OnyxTensor *tensor, std::string &error);

/// String tensors (Strings.cpp). Stores a copy of `text` as element
/// `index` of `tensor` (owned by the tensor).
void setTensorString(OnyxTensor *tensor, int64_t index, std::string text);
/// One onyxrt_run call's string state on this thread: the arena of the
/// strings the string services return and the first failure they
/// recorded, both dropped when the scope ends.
struct StringCallScope {
  StringCallScope();
  ~StringCallScope();
};
/// After the generated code returned 0: false with `error` set when a
/// string service recorded a failure; otherwise every string output gets
/// its own copy of its strings (they pointed into the arena or the inputs).
bool finishStringOutputs(const std::vector<OnyxTensor *> &outputs,
                         std::string &error);

/// One dim of a metadata value: a static extent, or a dynamic one that may
/// carry a symbol shared with other inputs.
struct DimSpec {
  int64_t extent = -1; ///< >= 0 static, -1 dynamic.
  std::string symbol;  ///< Non-empty only for "?NAME".
  bool isStatic() const { return extent >= 0; }
};

struct ValueSpec {
  std::string name; ///< Unescaped.
  /// OnyxSignatureKind: tensor, sequence, optional tensor/sequence.
  int32_t kind = ONYX_SIGNATURE_TENSOR;
  int32_t elemType = ONYX_UNDEFINED;
  std::vector<DimSpec> dims;
};

/// An initializer kept in an external weights file ("weight" lines).
struct WeightSpec {
  int64_t offset = 0, length = 0;
  uint64_t checksum = 0; ///< FNV-1a 64 of the bytes; 0: size check only.
  std::string location;  ///< Unescaped, relative to the artifact.
  /// ONYX_F16 or ONYX_BF16: the file holds f32 values that the session
  /// converts to this type when it loads them (`onyx-compile --precision`);
  /// 0: the bytes as they are.
  int32_t convertTo = 0;
  /// A "weight_concat" line: the weight is gathered by the session from the
  /// earlier (plain) weights `parts`, row by row: row r is row r of
  /// parts[0], then row r of parts[1], ... (each part holds `rows` rows of
  /// equal length); converted per `convertTo` as it is gathered. Empty for
  /// a plain weight (offset, length, location).
  std::vector<int64_t> parts;
  int64_t rows = 0;
};

struct ModelMetadata {
  std::vector<ValueSpec> inputs;
  std::vector<ValueSpec> outputs;
  /// Indexed by the generated code's onyxrt_get_weight index.
  std::vector<WeightSpec> weights;
  /// The `device NAME` line: where the generated code expects its tensors
  /// ("" = the host).
  std::string device;
};

/// FNV-1a, 64 bits (the external weights checksum).
uint64_t fnv1a64(const unsigned char *data, size_t size);

/// Parses the metadata text of docs/runtime-abi.md. On failure returns false
/// and sets `error` to a one-line message naming the offending line.
bool parseMetadata(const char *text, ModelMetadata &result, std::string &error);

/// Thread-local buffer for messages handed out as `const char *` by
/// functions without a state (onyx_metadata_parse, onyxrt_state_create).
std::string &threadCreateError();

} // namespace rt
} // namespace onyx

#endif // ONYX_RUNTIME_INTERNAL_H
