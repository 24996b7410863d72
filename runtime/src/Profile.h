//===- Profile.h - Per-op and per-kernel profiles as Chrome traces -*- C++
//-*-===//
//
// A session with profiling on (onyx_state_enable_profiling, or the
// OnyxSessionOptions field) owns a Profiler: every call adds one event for
// the call itself, one per op of a CPU artifact compiled with --profile
// (onyxrt_profile_begin/onyxrt_profile_end around each op), and one per
// kernel launch or library call of a CUDA session (timed with device
// events, CudaDevice.cpp). The events are written as a Chrome trace
// (chrome://tracing, Perfetto: {"traceEvents": [...]}, complete events
// "ph": "X", times in microseconds) when profiling ends or the session is
// destroyed (docs/runtime.md, "Profiling").
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_PROFILE_H
#define ONYX_RUNTIME_PROFILE_H

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace onyx {
namespace rt {

struct ProfileEvent {
  std::string name;     ///< the node (an op) or the kernel / library function
  std::string category; ///< "op", "kernel", "library" or "call"
  double startUs = 0, durationUs = 0;
  /// Further "args": node, op, shapes (a JSON value each, already encoded).
  std::vector<std::pair<std::string, std::string>> args;
};

class Profiler {
public:
  explicit Profiler(std::string path);
  const std::string &path() const { return filePath; }
  /// Microseconds since the profiler started (steady clock).
  double nowUs() const;
  void add(ProfileEvent event);
  size_t numEvents() const { return events.size(); }
  /// Writes every event as a Chrome trace to path() (replacing the file).
  bool write(std::string &error) const;
  /// The trace as text.
  std::string json() const;

private:
  std::string filePath;
  std::chrono::steady_clock::time_point origin;
  std::vector<ProfileEvent> events;
};

/// JSON helpers for event args.
std::string jsonString(const std::string &text);
/// [[d0, d1], [d0]] from a shapes table: count, then per entry its rank
/// and dims (what onyxrt_profile_end receives).
std::string jsonShapes(const int64_t *table);
std::string jsonInts(const std::vector<int64_t> &values);
/// The operand shapes of a CUDA library call from its problem dims, as
/// jsonShapes gives them: cublasLt_matmul {batch, m, n, k} ->
/// [[batch, m, k], [batch, k, n], [batch, m, n]] (A and B as the product
/// reads them, i.e. after any transposition); cudnn_convolution_forward
/// {N, C, M, G, in..., kernel..., out..., ...} -> [[N, C, in...],
/// [M, C / G, kernel...], [N, M, out...]]; "[]" for anything else.
std::string libraryShapes(const std::string &function,
                          const std::vector<int64_t> &dims);

} // namespace rt
} // namespace onyx

#endif // ONYX_RUNTIME_PROFILE_H
