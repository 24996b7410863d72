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

namespace onyx {
namespace rt {

class Profiler;

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
