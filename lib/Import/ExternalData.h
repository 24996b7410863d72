//===- ExternalData.h - Safe access to an initializer's external data -*- C++
//-*-//
//
// ONNX keeps large initializers outside the model (TensorProto.external_data:
// `location`, `offset`, `length`). A model is untrusted input, so before any
// byte is read:
//   * `location` must be a relative path that stays inside the model's
//     directory: no absolute path, no `..` component, no NUL, and once
//     symlinks are resolved the file must still be below that directory;
//   * `offset` and `length` must be decimal integers (no `stoull` errors);
//   * the file must hold the whole extent: a short file is an error, never
//     zero-padded (LLVM's getFileSlice pads a slice past the end of file).
// Every message names the initializer (docs/importer.md, "External data").
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_IMPORT_EXTERNALDATA_H
#define ONYX_LIB_IMPORT_EXTERNALDATA_H

#include <cstdint>
#include <optional>
#include <string>

namespace onnx {
class TensorProto;
} // namespace onnx

namespace onyx::import {

struct ExternalData {
  std::string location; ///< As the model spells it (relative).
  std::string path;     ///< baseDir joined with location.
  uint64_t offset = 0;
  std::optional<uint64_t> length;
};

/// Reads and checks `tensor.external_data()` (its location lexically, and,
/// when the file exists, that it resolves inside `baseDir`). On failure
/// returns false with `error` set to a message starting with `what`.
bool parseExternalData(const onnx::TensorProto &tensor,
                       const std::string &baseDir, const std::string &what,
                       ExternalData &result, std::string &error);

/// The `bytes` bytes at data.offset of data.path; false with `error` (naming
/// `what`) when the file cannot be read or holds fewer bytes.
bool readExternalData(const ExternalData &data, uint64_t bytes,
                      const std::string &what, std::string &result,
                      std::string &error);

/// Why `location` is not a safe relative location ("" when it is): absolute,
/// empty, a `..` component or a NUL byte. Shared with the runtime's check
/// (runtime/src/Session.cpp keeps its own copy: no LLVM there).
std::string unsafeLocationReason(const std::string &location);

} // namespace onyx::import

#endif // ONYX_LIB_IMPORT_EXTERNALDATA_H
