//===- TensorIO.h - .npy and TensorProto files <-> OnyxTensor ---*- C++ -*-===//
//
// Reading and writing the tensor files onyx-run accepts and produces:
//   - NumPy .npy (format versions 1, 2 and 3; C order; little-endian);
//   - ONNX TensorProto .pb (raw_data or the typed repeated fields).
// Every function reports failures through `error` (one line, no "error: "
// prefix) and never throws for bad input.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_TOOLS_ONYX_RUN_TENSORIO_H
#define ONYX_TOOLS_ONYX_RUN_TENSORIO_H

#include "onyx/onyx_runtime.h"

#include <memory>
#include <string>

namespace onyx {
namespace run {

struct TensorDeleter {
  void operator()(OnyxTensor *tensor) const { onyx_tensor_destroy(tensor); }
};
using TensorPtr = std::unique_ptr<OnyxTensor, TensorDeleter>;

/// Parses .npy file contents. `what` names the file in messages.
TensorPtr parseNpy(const std::string &bytes, const std::string &what,
                   std::string &error);
/// Parses a serialized onnx.TensorProto.
TensorPtr parseTensorProto(const std::string &bytes, const std::string &what,
                           std::string &error);
/// Reads `path`, as .npy when it has the .npy magic, else as a TensorProto
/// (`isNpy`, when given, says which).
TensorPtr readTensorFile(const std::string &path, std::string &error,
                         bool *isNpy = nullptr);

/// The .npy descr of an element type ("<f4", "|b1", ...); "" if none.
std::string npyDescr(int32_t elemType);
/// Serializes `tensor` in .npy format (version 1, or 2 for huge headers).
bool formatNpy(OnyxTensor *tensor, std::string &bytes, std::string &error);
bool writeNpyFile(OnyxTensor *tensor, const std::string &path,
                  std::string &error);

/// "f32[7,10]"; "seq(f32[2,3], f32[4])" and "optional(none)" for
/// sequence and empty-optional values.
std::string describeTensor(OnyxTensor *tensor);

/// A tensor read from an .npy file for an input of element type
/// `elemType`: the .npy form of the newer ONNX types (uint8 bit patterns
/// for float8/float4, int8 or uint8 values for int4/int2/uint4/uint2,
/// npyDescr) becomes a tensor of `elemType`; values out of range are an
/// error. Other tensors are returned unchanged.
TensorPtr adaptNpyTensor(TensorPtr tensor, int32_t elemType,
                         const std::string &what, std::string &error);

/// Sequences and optionals (docs/sequences.md): a graph input of
/// OnyxSignatureKind `kind` read from a serialized onnx.SequenceProto or
/// onnx.OptionalProto (tensor kinds: readTensorFile). `elemType` is the
/// model's element type, for empty values and adaptNpyTensor.
TensorPtr readValueFile(const std::string &path, int32_t kind, int32_t elemType,
                        std::string &error);
/// Writes a tensor (kind ONYX_SIGNATURE_TENSOR: string tensors, which .npy
/// cannot hold without pickling) as an onnx.TensorProto, a sequence value
/// as an onnx.SequenceProto, and a value of an optional output (kind
/// ONYX_SIGNATURE_OPTIONAL_*) as an onnx.OptionalProto, to `path`.
bool writeValueFile(OnyxTensor *value, int32_t kind, const std::string &path,
                    std::string &error);

} // namespace run
} // namespace onyx

#endif // ONYX_TOOLS_ONYX_RUN_TENSORIO_H
