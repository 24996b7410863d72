//===- Device.cpp - Device selection --------------------------------------===//
#include "Device.h"

namespace onyx {
namespace rt {

std::unique_ptr<Device> createDevice(const std::string &kind,
                                     const DeviceOptions &options,
                                     std::string &error) {
  if (kind == "cuda")
    return createCudaDevice(options, error);
  error = "unknown device '" + kind + "' (this runtime knows: cuda)";
  return nullptr;
}

} // namespace rt
} // namespace onyx
