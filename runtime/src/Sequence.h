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
// On a device session (CUDA) every element buffer is device memory from the
// call's Device: an inserted element is copied device -> device (it is a
// kernel result, a device input or a view of another element), the
// elements of sequence/optional graph inputs are uploaded when the call
// starts (like tensor inputs), and the elements of graph outputs are
// downloaded into the caller's host tensors after the call's work, before
// the final synchronization (like tensor outputs). The host never touches
// element data there. A host session keeps elements in host memory and
// borrows the caller's input tensors.
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

  /// Device sessions, when the call starts: uploads the elements of input
  /// `index` (a sequence value, the tensor of a present optional; nothing
  /// for an empty optional). False with `error` set.
  bool uploadInput(size_t index, const OnyxTensor *value, std::string &error);
  /// The elements of input `index` as this call sees them: the uploaded
  /// copies on a device session, else borrowed caller tensors. False on out
  /// of memory.
  bool inputElements(size_t index, const OnyxTensor *value,
                     std::vector<const SeqElement *> &result);

  /// Copies `element` into `hostDst` (its `bytes` bytes): at once on the
  /// host; on a device session a download queued by finishDownloads (the
  /// destination is a caller tensor of the call's outputs, written only if
  /// the call succeeds). False with `error` set.
  bool readElement(void *hostDst, const SeqElement *element,
                   std::string &error);
  /// Device sessions, after a successful run: issues the queued downloads
  /// (valid after the device's synchronize()). False with `error` set.
  bool finishDownloads(std::string &error);

private:
  const SeqElement *newDeviceElement(const int64_t *shape, int64_t rank,
                                     size_t bytes, std::string &error);

  Device *device;
  std::vector<std::unique_ptr<Sequence>> sequences;
  std::vector<std::unique_ptr<SeqElement>> elements;
  /// Device sessions: the uploaded elements of each input, by input index.
  std::vector<std::vector<const SeqElement *>> uploadedInputs;
  struct Download {
    void *hostDst;
    const void *deviceSrc;
    size_t bytes;
  };
  std::vector<Download> downloads;
};

/// Run.cpp's hooks for Sequence.cpp: the call's store, its input values
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
