//===- Weights.cpp - A session's external weights
//--------------------------===//
//
// A model compiled with --external-weights names one weights file; the
// session reads it into memory it owns when it is created and checks every
// weight's extent and checksum (docs/runtime.md, "External weights").
//
//===----------------------------------------------------------------------===//
#include "State.h"

#include <dlfcn.h>
#include <fcntl.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ONYX_WEIGHTS_F16C 1
#endif
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace onyx {
namespace rt {

namespace {

/// Directory of the shared object that holds `address` (the artifact).
std::string artifactDirectory(const void *address) {
  Dl_info info;
  if (!dladdr(address, &info) || !info.dli_fname)
    return ".";
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

/// Why `location` (a weight's file as the metadata names it) is not a safe
/// relative location, "" when it is: absolute, empty, a `..` component or a
/// NUL byte (lib/Import/ExternalData.cpp applies the same rule at compile
/// time).
std::string unsafeLocationReason(const std::string &location) {
  if (location.empty())
    return "is empty";
  if (location.find('\0') != std::string::npos)
    return "contains a NUL byte";
  if (location.front() == '/' || location.front() == '\\' ||
      (location.size() >= 2 && location[1] == ':'))
    return "is an absolute path";
  size_t start = 0;
  while (start <= location.size()) {
    size_t end = location.find_first_of("/\\", start);
    if (end == std::string::npos)
      end = location.size();
    if (location.compare(start, end - start, "..") == 0)
      return "has a '..' component";
    start = end + 1;
  }
  return "";
}

/// True when the file `path` resolves (symlinks followed) inside the
/// directory `dir`; `resolved` receives the file's real path.
bool resolvesInside(const std::string &path, const std::string &dir,
                    std::string &resolved) {
  char *file = realpath(path.c_str(), nullptr);
  char *base = realpath(dir.c_str(), nullptr);
  bool inside = false;
  if (file && base) {
    std::string f = file, b = base;
    resolved = f;
    inside = b == "/" || (f.size() > b.size() &&
                          f.compare(0, b.size(), b) == 0 && f[b.size()] == '/');
  }
  std::free(file);
  std::free(base);
  return inside;
}

/// f32 to f16 bits, round to nearest even; overflow is infinity, NaN stays
/// a (quiet) NaN: what a run-time Cast computes (lib/Transforms/
/// ConvertPrecision.cpp converts constants the same way).
uint16_t f32ToF16Bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t abs = x & 0x7fffffff;
  if (abs >= 0x7f800000) // inf, NaN (quiet, payload kept where it fits)
    return uint16_t(sign | 0x7c00 |
                    (abs > 0x7f800000 ? 0x200 | ((abs >> 13) & 0x3ff) : 0));
  if (abs >= 0x477ff000) // >= 65520: rounds to infinity
    return uint16_t(sign | 0x7c00);
  if (abs < 0x38800000) { // below 2^-14: a subnormal half (or zero)
    float v;
    std::memcpy(&v, &abs, 4);
    // v * 2^24 is exact; nearbyint rounds to nearest even (the default
    // rounding mode). m == 0x400 is the smallest normal: the same bits.
    auto m = uint32_t(std::nearbyint(v * 16777216.0f));
    return uint16_t(sign | m);
  }
  uint32_t h = ((((abs >> 23) - 127 + 15) << 10) | ((abs & 0x7fffff) >> 13));
  uint32_t rem = abs & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
    ++h; // a carry into the exponent is the right result
  return uint16_t(sign | h);
}

/// f32 to bf16 bits, round to nearest even; NaN stays a quiet NaN.
uint16_t f32ToBF16Bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000) // NaN: quiet, sign kept
    return uint16_t((x >> 16) | 0x40);
  return uint16_t((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

/// `count` f32 values (any alignment) to f16 bits.
void f32ToF16Scalar(const char *in, uint16_t *out, size_t count) {
  for (size_t j = 0; j < count; ++j) {
    float f;
    std::memcpy(&f, in + 4 * j, 4);
    out[j] = f32ToF16Bits(f);
  }
}

#ifdef ONYX_WEIGHTS_F16C
/// The same with the F16C instruction, 8 values at a time: IEEE round to
/// nearest even, overflow to infinity, NaN quieted with its payload's top
/// bits, as f32ToF16Bits (BERT-base's weights: ~0.7 s -> well under 0.1 s
/// at session creation).
__attribute__((target("avx,f16c"))) void
f32ToF16Vector(const char *in, uint16_t *out, size_t count) {
  size_t j = 0;
  for (; j + 8 <= count; j += 8) {
    __m256 v = _mm256_loadu_ps(reinterpret_cast<const float *>(in + 4 * j));
    __m128i h =
        _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out + j), h);
  }
  f32ToF16Scalar(in + 4 * j, out + j, count - j);
}
#endif

void f32ToF16(const char *in, uint16_t *out, size_t count) {
#ifdef ONYX_WEIGHTS_F16C
  static const bool f16c =
      __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
  if (f16c)
    return f32ToF16Vector(in, out, count);
#endif
  f32ToF16Scalar(in, out, count);
}

/// `count` f32 values (any alignment) to `convertTo` (ONYX_F16 or
/// ONYX_BF16) bits.
void convertF32(const char *in, uint16_t *out, size_t count,
                int32_t convertTo) {
  if (convertTo == ONYX_F16)
    return f32ToF16(in, out, count);
  for (size_t j = 0; j < count; ++j) {
    float f;
    std::memcpy(&f, in + 4 * j, 4);
    out[j] = f32ToBF16Bits(f);
  }
}

} // namespace

/// Reads the weights file into session memory and checks every weight's
/// extent and checksum. The file is copied, not mapped, so that nothing done
/// to it after session creation (truncation, rewriting) can crash or change
/// a running model (docs/runtime.md, "External weights").
bool loadWeights(OnyxState &state, const OnyxModelDesc &desc,
                 const char *weightsPath, std::string &error) {
  const auto &weights = state.metadata.weights;
  if (weights.empty())
    return true;
  for (const WeightSpec &w : weights)
    if (w.parts.empty() && w.location != weights.front().location) {
      error = "the model's weights are spread over several files; this "
              "runtime loads one";
      return false;
    }
  // A file, a directory holding the model's weights file, or (default) the
  // artifact's directory. The model's location must stay inside the
  // directory it is looked up in; a file given by the caller is taken as is.
  const std::string &location = weights.front().location;
  std::string path, dir;
  struct stat given;
  if (weightsPath && *weightsPath && stat(weightsPath, &given) == 0 &&
      S_ISDIR(given.st_mode))
    dir = weightsPath;
  else if (weightsPath && *weightsPath)
    path = weightsPath;
  else
    dir = artifactDirectory(desc.metadata);
  if (path.empty()) {
    std::string why = unsafeLocationReason(location);
    if (!why.empty()) {
      error = "the model's weights file location '" + location + "' " + why +
              " (it must be a relative path inside the artifact's or the "
              "given directory)";
      return false;
    }
    path = dir + "/" + location;
    std::string resolved;
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && !resolvesInside(path, dir, resolved)) {
      error = "the weights file '" + path + "' resolves to '" + resolved +
              "', outside '" + dir + "' (a symbolic link?)";
      return false;
    }
  }
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error =
        "cannot open the weights file '" + path + "': " + std::strerror(errno);
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = "the weights file '" + path + "' is not a regular file";
    close(fd);
    return false;
  }
  // Only the bytes the weights use are read (a file may hold more).
  size_t size = size_t(st.st_size), needed = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (!weights[i].parts.empty())
      continue; // gathered from other weights (below)
    if (uint64_t(weights[i].offset) + uint64_t(weights[i].length) > size) {
      error = "the weights file '" + path + "' holds " + std::to_string(size) +
              " bytes, but weight " + std::to_string(i) + " needs bytes " +
              std::to_string(weights[i].offset) + ".." +
              std::to_string(weights[i].offset + weights[i].length);
      close(fd);
      return false;
    }
    needed = std::max(needed, size_t(weights[i].offset + weights[i].length));
  }
  void *data = allocAligned(needed);
  if (!data) {
    error = "out of memory reading the weights file '" + path + "' (" +
            std::to_string(needed) + " bytes)";
    close(fd);
    return false;
  }
  size_t done = 0;
  while (done < needed) {
    ssize_t n =
        pread(fd, static_cast<char *>(data) + done, needed - done, off_t(done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = "reading the weights file '" + path + "': " +
              (n == 0 ? std::string("it became shorter while being read")
                      : std::string(std::strerror(errno)));
      freeAligned(data);
      close(fd);
      return false;
    }
    done += size_t(n);
  }
  close(fd);
  state.weightsData = data;
  state.weightsSize = needed;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (weights[i].checksum == 0 || !weights[i].parts.empty())
      continue;
    uint64_t sum =
        fnv1a64(static_cast<unsigned char *>(data) + weights[i].offset,
                size_t(weights[i].length));
    if (sum == 0)
      sum = 1;
    if (sum != weights[i].checksum) {
      error = "the weights file '" + path +
              "' does not match the model: "
              "checksum of weight " +
              std::to_string(i) + " differs";
      return false;
    }
  }
  // Weights the model reads in another type (f32 values of an fp32 model
  // compiled with --precision=fp16|bf16) are converted once, here, into
  // memory the session owns, instead of by a Cast in every call.
  state.convertedWeights.assign(weights.size(), nullptr);
  for (size_t i = 0; i < weights.size(); ++i) {
    if (!weights[i].convertTo || !weights[i].parts.empty())
      continue;
    size_t count = size_t(weights[i].length) / 4;
    auto *out = static_cast<uint16_t *>(allocAligned(count * 2));
    if (!out) {
      error = "out of memory converting weight " + std::to_string(i) + " (" +
              std::to_string(count * 2) + " bytes)";
      return false;
    }
    convertF32(static_cast<const char *>(data) + weights[i].offset, out, count,
               weights[i].convertTo);
    state.convertedWeights[i] = out;
  }
  // Weights gathered from the rows of others ("weight_concat": sibling
  // MatMuls' weights as one, onnx-merge-sibling-matmuls), built once here;
  // their parts stay in the file's copy, which the generated code does not
  // read.
  for (size_t i = 0; i < weights.size(); ++i) {
    const WeightSpec &w = weights[i];
    if (w.parts.empty())
      continue;
    char *out = static_cast<char *>(
        allocAligned(std::max<size_t>(1, size_t(w.length))));
    if (!out) {
      error = "out of memory gathering weight " + std::to_string(i) + " (" +
              std::to_string(w.length) + " bytes)";
      return false;
    }
    state.convertedWeights[i] = out;
    for (int64_t r = 0; r < w.rows; ++r) {
      for (int64_t part : w.parts) {
        const WeightSpec &p = weights[size_t(part)];
        size_t row = size_t(p.length / w.rows);
        const char *in = static_cast<const char *>(data) + p.offset + r * row;
        if (w.convertTo) {
          convertF32(in, reinterpret_cast<uint16_t *>(out), row / 4,
                     w.convertTo);
          out += row / 2;
        } else {
          std::memcpy(out, in, row);
          out += row;
        }
      }
    }
  }
  return true;
}

} // namespace rt
} // namespace onyx
