//===- Sequence.h - The call's sequence store --------------------*- C++
//-*-===//
//
// Run-time values of ONNX sequences and optionals (docs/sequences.md).
//
// A Sequence is an immutable list of pointers to immutable SeqElements.
// Every operation that "changes" a sequence (insert, erase) builds a new
// Sequence that shares the element objects it keeps, so an old handle stays
// valid and unchanged (value semantics without copying element data more
// than once). Everything is owned by the call's SequenceStore and freed
// when the call ends; graph outputs are copied out into OnyxTensor values.
//
// Element buffers come from the call's Device when the session has one
// (the CUDA target does not lower sequences yet, so that path only
// allocates and releases), else from the host allocator.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_SEQUENCE_H
#define ONYX_RUNTIME_SEQUENCE_H

#include "Device.h"
#include "Internal.h"

#include <memory>
#include <vector>

namespace onyx {
namespace rt {

struct SeqElement {
  std::vector<int64_t> shape;
  void *data = nullptr; ///< Never NULL.
  size_t bytes = 0;
  bool owned = false; ///< Allocated by the store (else: a caller's input).
};

struct Sequence {
  int32_t elemType = ONYX_UNDEFINED;
  std::vector<const SeqElement *> elements;
};

class SequenceStore {
public:
  explicit SequenceStore(Device *device) : device(device) {}
  ~SequenceStore();
  SequenceStore(const SequenceStore &) = delete;
  SequenceStore &operator=(const SequenceStore &) = delete;

  /// NULL on out of memory (never throws).
  Sequence *newSequence(int32_t elemType);
  /// A copy of `bytes` bytes at `data` with `shape`; NULL with `error` set.
  const SeqElement *copyElement(const void *data, size_t bytes,
                                const int64_t *shape, int64_t rank,
                                std::string &error);
  /// An element that borrows a caller's tensor (inputs outlive the call).
  const SeqElement *borrowElement(const OnyxTensor *tensor);

private:
  Device *device;
  std::vector<std::unique_ptr<Sequence>> sequences;
  std::vector<std::unique_ptr<SeqElement>> elements;
};

/// Session.cpp's hooks for Sequence.cpp: the call's store, its input values
/// and metadata, and the output slots.
SequenceStore *callSequenceStore(void *ctx);
const OnyxTensor *callInputValue(void *ctx, int64_t index);
const ValueSpec *callOutputSpec(void *ctx, int64_t index);
/// Stores `value` as output `index` (takes ownership; false when the slot
/// is taken or out of range, then the caller still owns `value`).
bool setCallOutput(void *ctx, int64_t index, OnyxTensor *value);

/// Checks a caller's value against a non-tensor signature (input
/// validation); false with `error` set.
bool validateValue(const ValueSpec &spec, const OnyxTensor *value,
                   std::string &error);

} // namespace rt
} // namespace onyx

#endif // ONYX_RUNTIME_SEQUENCE_H
