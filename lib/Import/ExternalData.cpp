//===- ExternalData.cpp - Safe access to an initializer's external data ---===//

#include "ExternalData.h"
#include "GraphCheck.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <onnx/onnx_pb.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace onyx::import {

namespace {

/// A printable form of untrusted text for messages (GraphCheck.h's:
/// control bytes and quotes escaped, at most 200 bytes).
std::string printable(const std::string &text) {
  return importer::printableName(text);
}

bool parseUnsigned(const std::string &text, uint64_t &value) {
  if (text.empty() || text.size() > 19)
    return false;
  value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    value = value * 10 + uint64_t(c - '0');
  }
  // 19 digits fit in uint64_t; keep offsets and lengths in int64_t range.
  return value <= uint64_t(INT64_MAX);
}

} // namespace

std::string unsafeLocationReason(const std::string &location) {
  if (location.empty())
    return "is empty";
  if (location.find('\0') != std::string::npos)
    return "contains a NUL byte";
  if (location.front() == '/' || location.front() == '\\')
    return "is an absolute path";
  // Windows drive letters ("C:...") are absolute too where they mean it.
  if (location.size() >= 2 && location[1] == ':')
    return "is an absolute path";
  size_t start = 0;
  while (start <= location.size()) {
    size_t end = location.find_first_of("/\\", start);
    if (end == std::string::npos)
      end = location.size();
    if (location.compare(start, end - start, "..") == 0)
      return "has a '..' component (it must stay inside the model's "
             "directory)";
    start = end + 1;
  }
  return "";
}

bool parseExternalData(const onnx::TensorProto &tensor,
                       const std::string &baseDir, const std::string &what,
                       ExternalData &result, std::string &error) {
  result = ExternalData();
  bool haveLocation = false;
  for (const auto &entry : tensor.external_data()) {
    const std::string &key = entry.key();
    if (key == "location") {
      result.location = entry.value();
      haveLocation = true;
    } else if (key == "offset" || key == "length") {
      uint64_t value;
      if (!parseUnsigned(entry.value(), value)) {
        error = what + ": external data " + key + " '" +
                printable(entry.value()) +
                "' is not a non-negative decimal integer";
        return false;
      }
      if (key == "offset")
        result.offset = value;
      else
        result.length = value;
    }
  }
  if (!haveLocation || result.location.empty()) {
    error = what + ": external data without a location";
    return false;
  }
  std::string why = unsafeLocationReason(result.location);
  if (!why.empty()) {
    error = what + ": external data location '" + printable(result.location) +
            "' " + why + "; locations are relative to the model's directory";
    return false;
  }
  llvm::SmallString<256> path(baseDir);
  llvm::sys::path::append(path, result.location);
  result.path = std::string(path);
  // Symlinks: the resolved file must still be below the resolved directory.
  llvm::SmallString<256> realFile, realBase;
  if (!llvm::sys::fs::real_path(path, realFile) &&
      !llvm::sys::fs::real_path(baseDir, realBase)) {
    llvm::StringRef file = realFile, base = realBase;
    if (!(file.starts_with(base) && file.size() > base.size() &&
          llvm::sys::path::is_separator(file[base.size()])) &&
        base != "/") {
      error = what + ": external data location '" + printable(result.location) +
              "' resolves to '" + printable(std::string(realFile)) +
              "', outside the model's directory (a symbolic link?)";
      return false;
    }
  }
  return true;
}

bool readExternalData(const ExternalData &data, uint64_t bytes,
                      const std::string &what, std::string &result,
                      std::string &error) {
  auto failWith = [&](const std::string &why) {
    error = what + ": external data '" + printable(data.path) + "': " + why;
    return false;
  };
  int fd = ::open(data.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return failWith(std::string("cannot open: ") + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return failWith("not a regular file");
  }
  uint64_t size = uint64_t(st.st_size);
  if (data.offset > size || bytes > size - data.offset) {
    ::close(fd);
    return failWith("the file holds " + std::to_string(size) +
                    " bytes, but the tensor needs bytes " +
                    std::to_string(data.offset) + ".." +
                    std::to_string(data.offset + bytes) +
                    " (a short file is an error, not zero-padded)");
  }
  try {
    result.assign(size_t(bytes), '\0');
  } catch (...) {
    ::close(fd);
    return failWith("out of memory reading " + std::to_string(bytes) +
                    " bytes");
  }
  uint64_t done = 0;
  while (done < bytes) {
    ssize_t n = ::pread(fd, result.data() + done, size_t(bytes - done),
                        off_t(data.offset + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      ::close(fd);
      return failWith(n == 0 ? "the file became shorter while being read"
                             : std::string("read failed: ") +
                                   std::strerror(errno));
    }
    done += uint64_t(n);
  }
  ::close(fd);
  return true;
}

} // namespace onyx::import
