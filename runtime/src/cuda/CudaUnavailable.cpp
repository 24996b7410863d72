//===- CudaUnavailable.cpp - CUDA services of a runtime built without CUDA
//-===//
//
// Built instead of CudaDevice.cpp when CMake finds no CUDA toolkit: the
// runtime exports the same symbols, so CUDA artifacts still load, and
// creating their session fails with a clear message.
//
//===----------------------------------------------------------------------===//
#include "../Device.h"
#include "../Internal.h"

namespace onyx {
namespace rt {

std::unique_ptr<Device> createCudaDevice(const DeviceOptions &,
                                         std::string &error) {
  error = "this Onyx runtime was built without CUDA support";
  return nullptr;
}

} // namespace rt
} // namespace onyx

extern "C" {

ONYX_API int32_t onyxrt_cuda_launch(void *ctx, const OnyxCudaKernel *,
                                    const char *, int64_t, int64_t, int64_t,
                                    int64_t, int64_t, int64_t, int64_t,
                                    const uint64_t *) {
  onyx::rt::failCall(ctx, "this Onyx runtime was built without CUDA support");
  return 1;
}

ONYX_API void onyxrt_cuda_profile_shapes(void *, const int64_t *) {}

ONYX_API int32_t onyxrt_cuda_upload(void *ctx, void *, const void *, int64_t,
                                    const char *) {
  onyx::rt::failCall(ctx, "this Onyx runtime was built without CUDA support");
  return 1;
}

ONYX_API int32_t onyxrt_cuda_download(void *ctx, void *, const void *, int64_t,
                                      const char *) {
  onyx::rt::failCall(ctx, "this Onyx runtime was built without CUDA support");
  return 1;
}

ONYX_API int32_t onyxrt_cuda_readback(void *ctx, void *, const void *, int64_t,
                                      const char *) {
  onyx::rt::failCall(ctx, "this Onyx runtime was built without CUDA support");
  return 1;
}

ONYX_API int32_t onyxrt_cuda_readback_wait(void *ctx, const char *) {
  onyx::rt::failCall(ctx, "this Onyx runtime was built without CUDA support");
  return 1;
}

ONYX_API void *onyxrt_cuda_constant(void *ctx, const void *, int64_t,
                                    const char *) {
  onyx::rt::failCall(ctx, "this Onyx runtime was built without CUDA support");
  return nullptr;
}

ONYX_API int32_t onyxrt_cuda_gemm(void *ctx, const char *, int32_t, int32_t,
                                  int64_t, int64_t, int64_t, int64_t,
                                  const void *, int64_t, int64_t, const void *,
                                  int64_t, int64_t, void *, int64_t, int64_t,
                                  const void *) {
  onyx::rt::failCall(ctx, "this Onyx runtime was built without CUDA support");
  return 1;
}

ONYX_API int32_t onyxrt_cuda_conv(void *ctx, const char *, int32_t, int32_t,
                                  int64_t, const int64_t *, const void *,
                                  const void *, const void *, const void *,
                                  void *) {
  onyx::rt::failCall(ctx, "this Onyx runtime was built without CUDA support");
  return 1;
}

ONYX_API int32_t onyxrt_cuda_attention(
    void *ctx, const char *, int32_t, int64_t, int64_t, int64_t, int64_t,
    int64_t, int64_t, int64_t, double, const void *, int64_t, int64_t, int64_t,
    int64_t, const void *, int64_t, int64_t, int64_t, int64_t, const void *,
    int64_t, int64_t, int64_t, int64_t, const void *, int64_t, int64_t, int64_t,
    int64_t, int32_t, double, int64_t, void *, int64_t, int64_t, int64_t,
    int64_t) {
  onyx::rt::failCall(ctx, "this Onyx runtime was built without CUDA support");
  return 1;
}

ONYX_API int32_t onyxrt_cuda_layer_norm(void *ctx, const char *, int32_t,
                                        int32_t, int32_t, int32_t, int32_t,
                                        int32_t, int64_t, int64_t, double,
                                        const void *, const void *,
                                        const void *, const void *, void *,
                                        void *, void *) {
  onyx::rt::failCall(ctx, "this Onyx runtime was built without CUDA support");
  return 1;
}

} // extern "C"
