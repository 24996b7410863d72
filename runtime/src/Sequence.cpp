//===- Sequence.cpp - ONNX sequences and optionals at run time ------------===//
//
// Two halves (docs/sequences.md):
//   - the caller's side: OnyxTensor values of kind SEQUENCE (owning their
//     element tensors) and NONE (an empty optional), passed in the same
//     OnyxTensorList slots as tensors;
//   - the generated code's side: onyxrt_seq_* services over call-owned,
//     immutable Sequence handles (Sequence.h).
//
// Nothing here throws into C code or aborts; a bad position or an empty
// optional fails the call with a message naming the node.
//
//===----------------------------------------------------------------------===//
#include "Sequence.h"

#include <cstring>
#include <new>

using namespace onyx::rt;

namespace onyx {
namespace rt {

SequenceStore::~SequenceStore() {
  for (auto &element : elements) {
    if (!element->owned)
      continue;
    if (device)
      device->release(element->data);
    else
      freeAligned(element->data);
  }
}

Sequence *SequenceStore::newSequence(int32_t elemType) {
  try {
    sequences.push_back(std::make_unique<Sequence>());
    sequences.back()->elemType = elemType;
    return sequences.back().get();
  } catch (...) {
    return nullptr;
  }
}

const SeqElement *SequenceStore::newDeviceElement(const int64_t *shape,
                                                  int64_t rank, size_t bytes,
                                                  std::string &error) {
  auto element = std::make_unique<SeqElement>();
  element->shape.assign(shape, shape + rank);
  element->bytes = bytes;
  // Never NULL, also for 0 bytes (Device::allocate).
  element->data = device->allocate(bytes, error);
  if (!element->data)
    return nullptr;
  element->owned = true;
  // Owned from here on: released by the destructor even if the copy fails.
  elements.push_back(std::move(element));
  return elements.back().get();
}

const SeqElement *SequenceStore::copyElement(const void *data, size_t bytes,
                                             const int64_t *shape, int64_t rank,
                                             std::string &error) {
  try {
    if (device) {
      // `data` is device memory (a kernel result, a device input, a view of
      // another element): copied on the device, ordered after the work that
      // wrote it and before any that reuses its buffer.
      std::string why;
      const SeqElement *element = newDeviceElement(shape, rank, bytes, why);
      if (!element || !device->copy(element->data, data, bytes, why)) {
        error = "copying a sequence element of " + std::to_string(bytes) +
                " bytes on the " + std::string(device->name()) +
                " device: " + why;
        return nullptr;
      }
      return element;
    }
    auto element = std::make_unique<SeqElement>();
    element->shape.assign(shape, shape + rank);
    element->bytes = bytes;
    element->data = allocAligned(bytes);
    if (!element->data) {
      error = "out of memory copying a sequence element of " +
              std::to_string(bytes) + " bytes";
      return nullptr;
    }
    element->owned = true;
    if (bytes)
      std::memcpy(element->data, data, bytes);
    elements.push_back(std::move(element));
    return elements.back().get();
  } catch (...) {
    error = "out of memory";
    return nullptr;
  }
}

const SeqElement *SequenceStore::borrowElement(const OnyxTensor *tensor) {
  try {
    auto element = std::make_unique<SeqElement>();
    element->shape.assign(tensor->shape, tensor->shape + tensor->rank);
    element->bytes = tensor->byteSize;
    element->data = tensor->data;
    elements.push_back(std::move(element));
    return elements.back().get();
  } catch (...) {
    return nullptr;
  }
}

bool SequenceStore::uploadInput(size_t index, const OnyxTensor *value,
                                std::string &error) {
  try {
    if (uploadedInputs.size() <= index)
      uploadedInputs.resize(index + 1);
    std::vector<const SeqElement *> &uploaded = uploadedInputs[index];
    uploaded.clear();
    if (value->kind == ONYX_VALUE_NONE)
      return true;
    // A present optional tensor is passed as the tensor itself.
    std::vector<const OnyxTensor *> tensors;
    if (value->kind == ONYX_VALUE_TENSOR)
      tensors.push_back(value);
    else
      tensors.assign(value->elements.begin(), value->elements.end());
    for (size_t k = 0; k < tensors.size(); ++k) {
      const OnyxTensor *tensor = tensors[k];
      std::string why;
      const SeqElement *element =
          newDeviceElement(tensor->shape, tensor->rank, tensor->byteSize, why);
      if (!element ||
          !device->upload(element->data, tensor->data, tensor->byteSize, why)) {
        error = "element " + std::to_string(k) + ": " + why;
        return false;
      }
      uploaded.push_back(element);
    }
    return true;
  } catch (...) {
    error = "out of memory";
    return false;
  }
}

bool SequenceStore::inputElements(size_t index, const OnyxTensor *value,
                                  std::vector<const SeqElement *> &result) {
  try {
    if (device) {
      // Uploaded when the call started (Run.cpp's uploadInputs).
      if (index < uploadedInputs.size())
        result = uploadedInputs[index];
      return true;
    }
    if (value->kind == ONYX_VALUE_NONE)
      return true;
    if (value->kind == ONYX_VALUE_TENSOR) {
      const SeqElement *e = borrowElement(value);
      if (!e)
        return false;
      result.push_back(e);
      return true;
    }
    for (const OnyxTensor *tensor : value->elements) {
      const SeqElement *e = borrowElement(tensor);
      if (!e)
        return false;
      result.push_back(e);
    }
    return true;
  } catch (...) {
    return false;
  }
}

bool SequenceStore::readElement(void *hostDst, const SeqElement *element,
                                std::string &error) {
  if (element->bytes == 0)
    return true;
  if (!device) {
    std::memcpy(hostDst, element->data, element->bytes);
    return true;
  }
  // Element buffers are immutable and live until the call ends, so the
  // download can wait until the call succeeded (Run.cpp's
  // downloadOutputs): a failed call never writes into the caller tensors it
  // discards, and the host does not wait for the device mid-call.
  try {
    downloads.push_back({hostDst, element->data, element->bytes});
    return true;
  } catch (...) {
    error = "out of memory";
    return false;
  }
}

bool SequenceStore::finishDownloads(std::string &error) {
  for (const Download &d : downloads)
    if (!device->download(d.hostDst, d.deviceSrc, d.bytes, error))
      return false;
  downloads.clear();
  return true;
}

bool validateValue(const ValueSpec &spec, const OnyxTensor *value,
                   std::string &error) {
  auto checkTensor = [&](const OnyxTensor *t, const std::string &what) {
    if (t->kind != ONYX_VALUE_TENSOR) {
      error = what + " is not a tensor";
      return false;
    }
    if (t->elemType != spec.elemType) {
      error = what + ": element type " + onyx_element_name(t->elemType) +
              ", but the model requires " + onyx_element_name(spec.elemType);
      return false;
    }
    std::string why;
    if (!checkSubByteElements(t, why)) {
      error = what + ": " + why;
      return false;
    }
    return true;
  };
  auto checkSequence = [&](const OnyxTensor *s) {
    if (s->kind != ONYX_VALUE_SEQUENCE) {
      error = s->kind == ONYX_VALUE_NONE ? "is an empty optional, but the "
                                           "model requires a sequence"
                                         : "is a tensor, but the model "
                                           "requires a sequence";
      return false;
    }
    for (size_t i = 0; i < s->elements.size(); ++i)
      if (!checkTensor(s->elements[i], "element " + std::to_string(i)))
        return false;
    return true;
  };
  switch (spec.kind) {
  case ONYX_SIGNATURE_SEQUENCE:
    return checkSequence(value);
  case ONYX_SIGNATURE_OPTIONAL_SEQUENCE:
    return value->kind == ONYX_VALUE_NONE || checkSequence(value);
  case ONYX_SIGNATURE_OPTIONAL_TENSOR:
    if (value->kind == ONYX_VALUE_NONE)
      return true;
    if (value->kind == ONYX_VALUE_SEQUENCE) {
      error = "is a sequence, but the model requires an optional tensor";
      return false;
    }
    return checkTensor(value, "the value");
  default:
    if (value->kind != ONYX_VALUE_TENSOR) {
      error = "is not a tensor, but the model requires one";
      return false;
    }
    return true;
  }
}

} // namespace rt
} // namespace onyx

namespace {

OnyxTensor *newValue(int32_t elemType, int32_t kind) {
  if (onyx_element_size(elemType) == 0)
    return nullptr;
  std::string error;
  OnyxTensor *value = createTensor(elemType, 0, nullptr, /*zero=*/true, error);
  if (!value)
    return nullptr;
  // No data bytes: a rank-0 tensor would claim one element.
  value->numElements = 0;
  value->byteSize = 0;
  value->kind = kind;
  return value;
}

/// "node 'LABEL': " (the generated code passes the node name).
std::string prefix(const char *label) {
  return label && *label ? "node '" + std::string(label) + "': " : "";
}

/// Normalizes an ONNX position in [-n, n - 1] (n + 1 with `inclusiveEnd`).
bool normalizePosition(int64_t position, size_t length, bool inclusiveEnd,
                       size_t &result) {
  int64_t n = int64_t(length);
  int64_t p = position < 0 ? position + n : position;
  if (p < 0 || p > n || (p == n && !inclusiveEnd))
    return false;
  result = size_t(p);
  return true;
}

std::string rangeText(size_t length, bool inclusiveEnd) {
  int64_t n = int64_t(length);
  return "[" + std::to_string(-n) + ", " +
         std::to_string(inclusiveEnd ? n : n - 1) + "]";
}

/// An OnyxTensor copy of one element (outputs; on a device session its
/// data arrives with the store's finishDownloads).
OnyxTensor *tensorOf(SequenceStore &store, int32_t elemType,
                     const SeqElement *element, std::string &error) {
  OnyxTensor *tensor =
      createTensor(elemType, int64_t(element->shape.size()),
                   element->shape.data(), /*zero=*/false, error);
  if (tensor && !store.readElement(tensor->data, element, error)) {
    destroyTensor(tensor);
    return nullptr;
  }
  return tensor;
}

OnyxTensor *sequenceValueOf(SequenceStore &store, const Sequence *seq,
                            std::string &error) {
  OnyxTensor *value = newValue(seq->elemType, ONYX_VALUE_SEQUENCE);
  if (!value) {
    error = "out of memory";
    return nullptr;
  }
  try {
    for (const SeqElement *element : seq->elements) {
      OnyxTensor *tensor = tensorOf(store, seq->elemType, element, error);
      if (!tensor) {
        destroyTensor(value);
        return nullptr;
      }
      value->elements.push_back(tensor);
    }
  } catch (...) {
    destroyTensor(value);
    error = "out of memory";
    return nullptr;
  }
  return value;
}

} // namespace

extern "C" {

//===----------------------------------------------------------------------===//
// Caller values
//===----------------------------------------------------------------------===//

ONYX_API int32_t onyx_value_kind(const OnyxTensor *value) {
  return value ? value->kind : -1;
}

ONYX_API OnyxTensor *onyx_sequence_create(int32_t elemType) {
  try {
    return newValue(elemType, ONYX_VALUE_SEQUENCE);
  } catch (...) {
    return nullptr;
  }
}

ONYX_API int onyx_sequence_append(OnyxTensor *sequence, OnyxTensor *tensor) {
  if (!sequence || !tensor || sequence == tensor ||
      sequence->kind != ONYX_VALUE_SEQUENCE ||
      tensor->kind != ONYX_VALUE_TENSOR ||
      tensor->elemType != sequence->elemType)
    return -1;
  for (OnyxTensor *e : sequence->elements)
    if (e == tensor)
      return -1;
  try {
    sequence->elements.push_back(tensor);
  } catch (...) {
    return -1;
  }
  return 0;
}

ONYX_API size_t onyx_sequence_length(const OnyxTensor *sequence) {
  return sequence && sequence->kind == ONYX_VALUE_SEQUENCE
             ? sequence->elements.size()
             : 0;
}

ONYX_API OnyxTensor *onyx_sequence_get(OnyxTensor *sequence, size_t index) {
  if (!sequence || sequence->kind != ONYX_VALUE_SEQUENCE ||
      index >= sequence->elements.size())
    return nullptr;
  return sequence->elements[index];
}

ONYX_API OnyxTensor *onyx_optional_none_create(int32_t elemType) {
  try {
    return newValue(elemType, ONYX_VALUE_NONE);
  } catch (...) {
    return nullptr;
  }
}

//===----------------------------------------------------------------------===//
// Services called by generated code
//===----------------------------------------------------------------------===//

ONYX_API void *onyxrt_seq_empty(void *ctx, int32_t elemType) {
  SequenceStore *store = callSequenceStore(ctx);
  if (!store)
    return nullptr;
  Sequence *seq = store->newSequence(elemType);
  if (!seq)
    failCall(ctx, "out of memory creating a sequence");
  return seq;
}

ONYX_API int64_t onyxrt_seq_length(void *, void *seq) {
  return seq ? int64_t(static_cast<Sequence *>(seq)->elements.size()) : 0;
}

ONYX_API void *onyxrt_seq_insert(void *ctx, void *seqHandle, int64_t position,
                                 int32_t hasPosition, const void *data,
                                 int64_t rank, const int64_t *shape,
                                 const char *label) {
  SequenceStore *store = callSequenceStore(ctx);
  auto *seq = static_cast<Sequence *>(seqHandle);
  if (!store || !seq)
    return nullptr;
  size_t at = seq->elements.size();
  if (hasPosition &&
      !normalizePosition(position, seq->elements.size(), true, at)) {
    failCall(ctx, prefix(label) + "SequenceInsert position " +
                      std::to_string(position) + " is out of range " +
                      rangeText(seq->elements.size(), true) +
                      " for a sequence of length " +
                      std::to_string(seq->elements.size()));
    return nullptr;
  }
  size_t count = 1;
  for (int64_t d = 0; d < rank; ++d)
    count *= size_t(shape[d]);
  std::string error;
  const SeqElement *element = store->copyElement(
      data, count * onyx_element_size(seq->elemType), shape, rank, error);
  Sequence *result = element ? store->newSequence(seq->elemType) : nullptr;
  if (!result) {
    failCall(ctx, prefix(label) + (error.empty() ? "out of memory" : error));
    return nullptr;
  }
  try {
    result->elements.reserve(seq->elements.size() + 1);
    result->elements.assign(seq->elements.begin(), seq->elements.end());
    result->elements.insert(result->elements.begin() + at, element);
  } catch (...) {
    failCall(ctx, prefix(label) + "out of memory");
    return nullptr;
  }
  return result;
}

ONYX_API void *onyxrt_seq_at(void *ctx, void *seqHandle, int64_t position,
                             int64_t rank, int64_t *shapeOut,
                             const char *label) {
  auto *seq = static_cast<Sequence *>(seqHandle);
  if (!callSequenceStore(ctx) || !seq)
    return nullptr;
  size_t at;
  if (!normalizePosition(position, seq->elements.size(), false, at)) {
    failCall(ctx, prefix(label) + "SequenceAt position " +
                      std::to_string(position) + " is out of range " +
                      (seq->elements.empty()
                           ? std::string("(the sequence is empty)")
                           : rangeText(seq->elements.size(), false) +
                                 " for a sequence of length " +
                                 std::to_string(seq->elements.size())));
    return nullptr;
  }
  const SeqElement *element = seq->elements[at];
  if (int64_t(element->shape.size()) != rank) {
    failCall(ctx, prefix(label) + "sequence element " + std::to_string(at) +
                      " has rank " + std::to_string(element->shape.size()) +
                      ", but the model expects rank " + std::to_string(rank));
    return nullptr;
  }
  for (int64_t d = 0; d < rank; ++d)
    shapeOut[d] = element->shape[d];
  return element->data;
}

ONYX_API void *onyxrt_seq_erase(void *ctx, void *seqHandle, int64_t position,
                                int32_t hasPosition, const char *label) {
  SequenceStore *store = callSequenceStore(ctx);
  auto *seq = static_cast<Sequence *>(seqHandle);
  if (!store || !seq)
    return nullptr;
  size_t n = seq->elements.size();
  size_t at = n ? n - 1 : 0;
  if ((hasPosition && !normalizePosition(position, n, false, at)) || n == 0) {
    failCall(
        ctx,
        prefix(label) + "SequenceErase position " +
            (hasPosition ? std::to_string(position) : std::string("(last)")) +
            " is out of range " +
            (n == 0 ? std::string("(the sequence is empty)")
                    : rangeText(n, false) + " for a sequence of length " +
                          std::to_string(n)));
    return nullptr;
  }
  Sequence *result = store->newSequence(seq->elemType);
  if (!result) {
    failCall(ctx, prefix(label) + "out of memory");
    return nullptr;
  }
  try {
    result->elements.assign(seq->elements.begin(), seq->elements.end());
    result->elements.erase(result->elements.begin() + at);
  } catch (...) {
    failCall(ctx, prefix(label) + "out of memory");
    return nullptr;
  }
  return result;
}

ONYX_API void *onyxrt_optional_unwrap(void *ctx, void *optional,
                                      const char *label) {
  if (!optional)
    failCall(ctx, prefix(label) + "OptionalGetElement of an empty optional");
  return optional;
}

ONYX_API void *onyxrt_input_value(void *ctx, int64_t index) {
  SequenceStore *store = callSequenceStore(ctx);
  const OnyxTensor *value = callInputValue(ctx, index);
  if (!store || !value || value->kind == ONYX_VALUE_NONE)
    return nullptr;
  // Validated before the call: a sequence, or the tensor of an optional.
  Sequence *seq = store->newSequence(value->elemType);
  if (!seq || !store->inputElements(size_t(index), value, seq->elements)) {
    failCall(ctx, "out of memory reading input " + std::to_string(index));
    return nullptr;
  }
  return seq;
}

ONYX_API int32_t onyxrt_set_output_value(void *ctx, int64_t index, void *value,
                                         const char *label) {
  const ValueSpec *spec = callOutputSpec(ctx, index);
  SequenceStore *store = callSequenceStore(ctx);
  if (!spec || !store) {
    failCall(ctx, "onyxrt_set_output_value: output index " +
                      std::to_string(index) + " out of range");
    return 1;
  }
  auto *seq = static_cast<Sequence *>(value);
  std::string error;
  OnyxTensor *out = nullptr;
  try {
    if (!seq) {
      if (spec->kind == ONYX_SIGNATURE_SEQUENCE) {
        failCall(ctx, prefix(label) + "output '" + spec->name +
                          "' is an empty optional, not a sequence");
        return 1;
      }
      out = newValue(spec->elemType, ONYX_VALUE_NONE);
    } else if (spec->kind == ONYX_SIGNATURE_OPTIONAL_TENSOR) {
      if (seq->elements.size() != 1) {
        failCall(ctx, prefix(label) + "output '" + spec->name +
                          "': an optional tensor holds " +
                          std::to_string(seq->elements.size()) + " values");
        return 1;
      }
      out = tensorOf(*store, seq->elemType, seq->elements[0], error);
    } else {
      out = sequenceValueOf(*store, seq, error);
    }
  } catch (...) {
    out = nullptr;
  }
  if (!out) {
    failCall(ctx, prefix(label) + "output '" + spec->name +
                      "': " + (error.empty() ? "out of memory" : error));
    return 1;
  }
  if (!setCallOutput(ctx, index, out)) {
    destroyTensor(out);
    failCall(ctx, prefix(label) + "output '" + spec->name + "' produced twice");
    return 1;
  }
  return 0;
}

} // extern "C"
