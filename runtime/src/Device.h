//===- Device.h - Where a session's tensors live ----------------*- C++ -*-===//
//
// The runtime's device interface. A session whose metadata names a device
// (`device cuda`) owns one Device; the services of the generated code then
// answer with device memory: onyxrt_input_data returns the device copy of an
// input (uploaded when the call starts), onyxrt_alloc_output a device buffer
// that is copied into the caller's host tensor when the call succeeds, and
// onyxrt_alloc_temp/onyxrt_get_pool device temporaries and pools. A session
// without a device (the CPU target) keeps everything on the host.
//
// A backend (CUDA today, HIP tomorrow) implements this class plus its own
// launch services (onyxrt_cuda_launch, ...), which reach the call's device
// through callDevice().
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_DEVICE_H
#define ONYX_RUNTIME_DEVICE_H

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace onyx {
namespace rt {

class Profiler;

/// A recorded graph of a device (Device::endCapture): frees what it owns
/// when destroyed.
class DeviceGraph {
public:
  virtual ~DeviceGraph() = default;
  /// Bytes of device memory it owns (outputs, temporaries, inputs).
  uint64_t ownedBytes = 0;
  /// Operations recorded (kernels, copies, library calls' kernels).
  uint64_t nodes = 0;
  /// Parts: 1, plus one per readback point the graph is split at.
  uint64_t segments = 1;
};

class Device {
public:
  virtual ~Device() = default;
  /// The session's trace while it is profiling (Profile.h), else NULL: the
  /// backend adds an event per kernel launch and library call.
  Profiler *profiler = nullptr;
  /// Adds the events of work still in flight to `profiler` (waiting for it).
  virtual void flushProfile() {}
  /// The name used in the metadata ("cuda").
  virtual const char *name() const = 0;
  /// Called on the calling thread before the generated code runs (makes the
  /// device's context current).
  virtual bool beginCall(std::string &error) = 0;
  /// Device memory of at least `bytes` bytes, 256-byte aligned and never
  /// NULL on success (also for 0 bytes). NULL with `error` set on failure.
  virtual void *allocate(size_t bytes, std::string &error) = 0;
  virtual void release(void *ptr) = 0;
  /// Host -> device and device -> host copies, ordered with the launches
  /// of the session; `download` targets are valid after synchronize().
  virtual bool upload(void *deviceDst, const void *hostSrc, size_t bytes,
                      std::string &error) = 0;
  virtual bool download(void *hostDst, const void *deviceSrc, size_t bytes,
                        std::string &error) = 0;
  /// Device -> device copy, ordered with the launches of the session like
  /// the copies above (sequence elements, docs/sequences.md). `src` may be
  /// a view into a buffer (an element of another sequence).
  virtual bool copy(void *deviceDst, const void *deviceSrc, size_t bytes,
                    std::string &error) = 0;
  /// Waits for all work of the session; reports errors of earlier
  /// asynchronous work.
  virtual bool synchronize(std::string &error) = 0;

  /// Graphs (docs/runtime.md, "CUDA graphs"): a backend that can record a
  /// call's device work and replay it. Why it cannot now ("" when it can;
  /// the default: it never can).
  virtual std::string graphsUnavailable() const {
    return "this device cannot record graphs";
  }
  /// Starts recording the session's work instead of running it; from here
  /// to endCapture, allocations belong to the graph and are never freed
  /// before it. A readback splits the graph: the part recorded so far runs,
  /// the values are read back (and recorded), recording goes on. Anything
  /// else that cannot be recorded (a synchronization, an upload of host
  /// data) breaks the capture.
  virtual bool beginCapture(std::string &error) {
    error = "this device cannot record graphs";
    return false;
  }
  /// Ends the recording. With `keep` (the call succeeded), returns the
  /// graph, owning what was allocated while recording plus `adopt`
  /// (buffers of the call allocated before it, the uploaded inputs); every
  /// other live allocation except `transient` (the previous call's
  /// outputs, released at this call's end) counts as one the graph reads,
  /// and releasing it later bumps graphEpoch(). NULL with `error` set
  /// when the capture broke or `keep` is false (nothing leaks either way).
  virtual std::unique_ptr<DeviceGraph>
  endCapture(bool keep, const std::vector<void *> &adopt,
             const std::vector<void *> &transient, std::string &error) {
    (void)keep, (void)adopt, (void)transient;
    error = "this device cannot record graphs";
    return nullptr;
  }
  /// Runs a recorded graph on the session's stream. A graph split at
  /// readbacks reads the same values back between its parts and compares
  /// them with the recorded ones: kGraphStale when one differs (the host
  /// code would have decided otherwise; nothing was handed out and the call
  /// must run normally), kGraphError with `error` set on a failure.
  enum { kGraphOk = 0, kGraphError = 1, kGraphStale = 2 };
  virtual int launchGraph(DeviceGraph &graph, std::string &error) {
    (void)graph;
    error = "this device cannot record graphs";
    return kGraphError;
  }
  /// Incremented whenever a buffer some graph reads is released (a pool
  /// that grows or is trimmed, a library workspace): graphs recorded
  /// before are stale.
  virtual uint64_t graphEpoch() const { return 0; }
};

/// What the caller chose for the device (OnyxSessionOptions).
struct DeviceOptions {
  /// The device ordinal; -1: the backend's default (ONYX_CUDA_DEVICE, else
  /// 0).
  int deviceId = -1;
  /// The caller's stream (a CUstream), used instead of one of the session's
  /// own and never destroyed; NULL: the session creates one.
  void *stream = nullptr;
};

/// Creates the device `kind` names ("cuda"). NULL with `error` set when this
/// runtime has no such backend, its driver cannot be loaded, or no device is
/// present.
std::unique_ptr<Device> createDevice(const std::string &kind,
                                     const DeviceOptions &options,
                                     std::string &error);

/// Backend entry points (runtime/src/<backend>/).
std::unique_ptr<Device> createCudaDevice(const DeviceOptions &options,
                                         std::string &error);

/// For services implemented outside Run.cpp: the device of the call
/// behind `ctx` (NULL for a host session or an invalid ctx) and the call's
/// failure record.
Device *callDevice(void *ctx);
void failCall(void *ctx, const std::string &message);

} // namespace rt
} // namespace onyx

#endif // ONYX_RUNTIME_DEVICE_H
