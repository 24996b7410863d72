//===- DeviceSequenceTest.cpp - Sequences on a device session -------------===//
//
// The device paths of the sequence store (docs/sequences.md, "CUDA") on a
// fake device, so that they are proven on a machine without a GPU. This
// test is built from the runtime's sources with its own createCudaDevice
// (test/unit/CMakeLists.txt), so a `device cuda` session gets a FakeDevice:
//
//   - device memory is address space reserved with PROT_NONE, backed by
//     host vectors the fake keeps aside: a host access to device memory
//     (a memcpy the runtime should have made a device copy) crashes the
//     test instead of passing silently;
//   - copies are checked against the live allocations (a view inside an
//     allocation is fine, a range that leaves it is a failure);
//   - downloads complete only at synchronize(), like cuMemcpyDtoHAsync;
//   - uploads, downloads, device copies, allocations and releases are
//     counted, so each test states exactly which copies a call makes and
//     that all device memory is released when the call ends.
//
// Hand-written entries stand in for generated code, as in SequenceTest.cpp;
// "kernels" are writes through the fake (FakeDevice::write).
//
//===----------------------------------------------------------------------===//
#include "Device.h"
#include "RuntimeHandles.h"
#include "onyx/onyx_runtime.h"
#include "onyx/onyx_services.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

class FakeDevice;
/// The device of the session most recently created (one at a time here).
FakeDevice *fake = nullptr;

class FakeDevice final : public onyx::rt::Device {
public:
  FakeDevice() {
    base = static_cast<char *>(mmap(nullptr, kReserved, PROT_NONE,
                                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                                    -1, 0));
    EXPECT_NE(base, MAP_FAILED);
    fake = this;
  }
  ~FakeDevice() override {
    EXPECT_TRUE(live.empty()) << live.size() << " device buffers leaked";
    munmap(base, kReserved);
    if (fake == this)
      fake = nullptr;
  }

  const char *name() const override { return "cuda"; }
  bool beginCall(std::string &) override {
    ++calls;
    return true;
  }
  void *allocate(size_t bytes, std::string &error) override {
    if (failAllocationsAfter && allocations >= failAllocationsAfter) {
      error = "fake device out of memory";
      return nullptr;
    }
    // 256-byte granules and a gap, never NULL (also for 0 bytes).
    size_t size = (bytes + 255) / 256 * 256 + 256;
    if (next + size > kReserved) {
      error = "fake device address space exhausted";
      return nullptr;
    }
    char *ptr = base + next;
    next += size;
    // One spare byte: a zero-byte buffer still has a backing address.
    live[ptr] = Buffer{std::vector<char>(bytes + 1, char(0xAB)), bytes};
    ++allocations;
    return ptr;
  }
  void release(void *ptr) override {
    if (!ptr)
      return;
    EXPECT_EQ(live.erase(static_cast<char *>(ptr)), 1u)
        << "release of a pointer that is not a live device buffer";
    ++releases;
  }
  bool upload(void *deviceDst, const void *hostSrc, size_t bytes,
              std::string &error) override {
    ++uploads;
    char *dst = resolve(deviceDst, bytes);
    if (!dst) {
      error = "upload to memory that is not a device buffer";
      return false;
    }
    if (bytes)
      std::memcpy(dst, hostSrc, bytes);
    return true;
  }
  bool download(void *hostDst, const void *deviceSrc, size_t bytes,
                std::string &error) override {
    ++downloads;
    const char *src = resolve(deviceSrc, bytes);
    if (!src) {
      error = "download from memory that is not a device buffer";
      return false;
    }
    // Stream-ordered: the data as of now, visible after synchronize().
    pendingDownloads.push_back(
        {static_cast<char *>(hostDst), std::vector<char>(src, src + bytes)});
    return true;
  }
  bool copy(void *deviceDst, const void *deviceSrc, size_t bytes,
            std::string &error) override {
    ++copies;
    char *dst = resolve(deviceDst, bytes);
    const char *src = resolve(deviceSrc, bytes);
    if (!dst || !src) {
      error = "device copy of memory that is not a device buffer";
      return false;
    }
    if (bytes)
      std::memmove(dst, src, bytes);
    return true;
  }
  bool synchronize(std::string &) override {
    ++syncs;
    for (auto &d : pendingDownloads)
      if (!d.second.empty())
        std::memcpy(d.first, d.second.data(), d.second.size());
    pendingDownloads.clear();
    return true;
  }

  /// True when `ptr` points into a live device buffer.
  bool isDevice(const void *ptr) { return resolve(ptr, 0, false) != nullptr; }
  /// A "kernel" writing device memory.
  void write(void *ptr, const std::vector<float> &values) {
    char *dst = resolve(ptr, values.size() * sizeof(float));
    ASSERT_TRUE(dst);
    std::memcpy(dst, values.data(), values.size() * sizeof(float));
  }
  std::vector<float> read(const void *ptr, size_t count) {
    const char *src = resolve(ptr, count * sizeof(float));
    std::vector<float> values(count);
    if (src)
      std::memcpy(values.data(), src, count * sizeof(float));
    return values;
  }

  size_t calls = 0, allocations = 0, releases = 0, uploads = 0, downloads = 0,
         copies = 0, syncs = 0;
  size_t failAllocationsAfter = 0; ///< 0: never
  size_t liveBuffers() const { return live.size(); }

private:
  static constexpr size_t kReserved = size_t(1) << 30;
  /// The backing store of the device range [ptr, ptr + bytes), or NULL
  /// (and a test failure with `report`) when it is not inside one live
  /// buffer.
  char *resolve(const void *ptr, size_t bytes, bool report = true) {
    auto *p = static_cast<const char *>(ptr);
    auto it = live.upper_bound(const_cast<char *>(p));
    if (it != live.begin()) {
      --it;
      size_t offset = size_t(p - it->first);
      if (p >= it->first && offset <= it->second.size &&
          bytes <= it->second.size - offset)
        return it->second.storage.data() + offset;
    }
    if (report)
      ADD_FAILURE() << "access to " << ptr << " (" << bytes
                    << " bytes) outside the live device buffers";
    return nullptr;
  }

  char *base = nullptr;
  size_t next = 0;
  struct Buffer {
    std::vector<char> storage;
    size_t size;
  };
  std::map<char *, Buffer> live;
  std::vector<std::pair<char *, std::vector<char>>> pendingDownloads;
};

} // namespace

namespace onyx {
namespace rt {
// The backend entry point CudaDevice.cpp would provide.
std::unique_ptr<Device> createCudaDevice(const DeviceOptions &, std::string &) {
  return std::make_unique<FakeDevice>();
}
} // namespace rt
} // namespace onyx

namespace {

using onyx::test::ListPtr;
using onyx::test::StatePtr;

StatePtr makeState(int32_t (*entry)(void *), const char *metadata) {
  OnyxModelDesc desc{ONYX_ABI_VERSION, metadata, entry};
  const char *error = nullptr;
  StatePtr state(onyxrt_state_create(&desc, &error));
  EXPECT_TRUE(state) << (error ? error : "");
  EXPECT_TRUE(fake);
  return state;
}

OnyxTensor *vector(std::initializer_list<float> values) {
  int64_t n = int64_t(values.size());
  return onyx_tensor_create_copy(ONYX_F32, 1, &n, values.begin());
}

std::vector<float> valuesOf(OnyxTensor *t) {
  auto *data = static_cast<float *>(onyx_tensor_data(t));
  return std::vector<float>(data, data + onyx_tensor_num_elements(t));
}

const char *kMetadata = "onyx-model v1\n"
                        "input x 1 1 ?n\n"
                        "input-sequence xs 1\n"
                        "input-optional maybe 1\n"
                        "output-sequence ys 1\n"
                        "output-sequence old 1\n"
                        "output-optional none 1\n"
                        "device cuda\n";

/// x = [5, 6]; xs = [[1, 2], [3]]; maybe = absent or [7].
ListPtr inputs(bool withNone = true) {
  ListPtr list(onyx_tensor_list_create());
  onyx_tensor_list_append(list.get(), vector({5, 6}));
  OnyxTensor *xs = onyx_sequence_create(ONYX_F32);
  EXPECT_EQ(onyx_sequence_append(xs, vector({1, 2})), 0);
  EXPECT_EQ(onyx_sequence_append(xs, vector({3})), 0);
  onyx_tensor_list_append(list.get(), xs);
  onyx_tensor_list_append(
      list.get(), withNone ? onyx_optional_none_create(ONYX_F32) : vector({7}));
  return list;
}

#define CHECK_OR_FAIL(cond)                                                    \
  do {                                                                         \
    if (!(cond)) {                                                             \
      ADD_FAILURE() << "entry: " #cond;                                        \
      return 1;                                                                \
    }                                                                          \
  } while (0)

/// Builds ys as the generated code would, from the three kinds of device
/// data an insert gets: a kernel result (a temporary, reused right after
/// the insert), a view into another element and a device input:
///   s1 = insert(xs, temp = [10, 20], 0)       [[10, 20], [1, 2], [3]]
///   s2 = insert(s1, view xs[0][1:], 2)        [[10, 20], [1, 2], [2], [3]]
///   ys = insert(s2, x)                        ... [5, 6]]
/// old = xs (the uploaded input, unchanged), none = maybe.
int32_t deviceInserts(void *ctx) {
  void *x = onyxrt_input_data(ctx, 0);
  CHECK_OR_FAIL(fake->isDevice(x));
  void *xs = onyxrt_input_value(ctx, 1);
  CHECK_OR_FAIL(xs && onyxrt_seq_length(ctx, xs) == 2);
  int64_t shape[1];
  void *first = onyxrt_seq_at(ctx, xs, 0, 1, shape, "At");
  // seq_at hands back the element's device buffer (a view, no copy).
  CHECK_OR_FAIL(first && shape[0] == 2 && fake->isDevice(first));
  CHECK_OR_FAIL(fake->read(first, 2) == std::vector<float>({1, 2}));

  void *temp = onyxrt_alloc_temp(ctx, 8);
  CHECK_OR_FAIL(temp);
  fake->write(temp, {10, 20});
  shape[0] = 2;
  void *s1 = onyxrt_seq_insert(ctx, xs, 0, 1, temp, 1, shape, "Insert1");
  CHECK_OR_FAIL(s1);
  fake->write(temp, {99, 99}); // the buffer is reused: the element is a copy
  onyxrt_free_temp(ctx, temp);

  shape[0] = 1;
  void *s2 = onyxrt_seq_insert(ctx, s1, 2, 1, static_cast<float *>(first) + 1,
                               1, shape, "Insert2");
  shape[0] = 2;
  void *ys = onyxrt_seq_insert(ctx, s2, 0, 0, x, 1, shape, "Insert3");
  CHECK_OR_FAIL(s2 && ys && onyxrt_seq_length(ctx, ys) == 5);
  void *last = onyxrt_seq_at(ctx, ys, -1, 1, shape, "At2");
  CHECK_OR_FAIL(last && last != x && fake->isDevice(last));
  CHECK_OR_FAIL(onyxrt_seq_length(ctx, xs) == 2);

  if (onyxrt_set_output_value(ctx, 0, ys, "Out") ||
      onyxrt_set_output_value(ctx, 1, xs, "Out") ||
      onyxrt_set_output_value(ctx, 2, onyxrt_input_value(ctx, 2), "Out"))
    return 1;
  return 0;
}

/// What a call did on the fake device (differences of its counters).
struct Counts {
  size_t allocations, releases, uploads, downloads, copies, syncs;
};
Counts counts() {
  return {fake->allocations, fake->releases, fake->uploads,
          fake->downloads,   fake->copies,   fake->syncs};
}
Counts since(const Counts &before) {
  Counts now = counts();
  return {
      now.allocations - before.allocations, now.releases - before.releases,
      now.uploads - before.uploads,         now.downloads - before.downloads,
      now.copies - before.copies,           now.syncs - before.syncs};
}

TEST(DeviceSequence, InsertsCopyOnTheDeviceInputsUploadOutputsDownload) {
  StatePtr state = makeState(deviceInserts, kMetadata);
  ASSERT_TRUE(state && fake);
  // Twice on one session: an empty optional input, then a present one.
  for (bool withNone : {true, false}) {
    SCOPED_TRACE(withNone ? "maybe absent" : "maybe present");
    ListPtr in = inputs(withNone);
    Counts before = counts();
    ListPtr out(onyxrt_run(state.get(), in.get()));
    ASSERT_TRUE(out) << onyx_state_last_error(state.get());
    Counts c = since(before);
    size_t maybe = withNone ? 0 : 1;
    // x and the two elements of xs (and maybe's tensor) are uploaded.
    EXPECT_EQ(c.uploads, 3 + maybe);
    // One device copy per insert; nothing is copied through the host.
    EXPECT_EQ(c.copies, 3u);
    // Every element of every output is downloaded, once, and the call
    // synchronizes once, after them.
    EXPECT_EQ(c.downloads, 5 + 2 + maybe);
    EXPECT_EQ(c.syncs, 1u);
    // Inputs (3 + maybe), the temporary, the three inserted elements: all
    // released when the call ends.
    EXPECT_EQ(c.allocations, 7 + maybe);
    EXPECT_EQ(c.releases, c.allocations);
    EXPECT_EQ(fake->liveBuffers(), 0u);

    OnyxTensor *ys = onyx_tensor_list_get(out.get(), 0);
    ASSERT_EQ(onyx_value_kind(ys), ONYX_VALUE_SEQUENCE);
    ASSERT_EQ(onyx_sequence_length(ys), 5u);
    std::vector<std::vector<float>> expected = {
        {10, 20}, {1, 2}, {2}, {3}, {5, 6}};
    for (size_t k = 0; k < 5; ++k)
      EXPECT_EQ(valuesOf(onyx_sequence_get(ys, k)), expected[k]) << k;
    OnyxTensor *old = onyx_tensor_list_get(out.get(), 1);
    ASSERT_EQ(onyx_sequence_length(old), 2u);
    EXPECT_EQ(valuesOf(onyx_sequence_get(old, 0)), std::vector<float>({1, 2}));
    EXPECT_EQ(valuesOf(onyx_sequence_get(old, 1)), std::vector<float>({3}));
    OnyxTensor *none = onyx_tensor_list_get(out.get(), 2);
    if (withNone) {
      EXPECT_EQ(onyx_value_kind(none), ONYX_VALUE_NONE);
    } else {
      ASSERT_EQ(onyx_value_kind(none), ONYX_VALUE_TENSOR);
      EXPECT_EQ(valuesOf(none), std::vector<float>({7}));
    }
  }
}

const char *kEmptyMetadata = "onyx-model v1\n"
                             "input-sequence es 1\n"
                             "input-optional-sequence maybe 1\n"
                             "input-sequence zs 1\n"
                             "output-sequence es_out 1\n"
                             "output-optional-sequence none 1\n"
                             "output-sequence ys 1\n"
                             "output-optional z 1\n"
                             "device cuda\n";

/// Empty sequences and optionals pass through; zero-byte elements (shape
/// [0]) are inserted from a zero-byte temporary and from another sequence.
int32_t empties(void *ctx) {
  void *es = onyxrt_input_value(ctx, 0);
  CHECK_OR_FAIL(es && onyxrt_seq_length(ctx, es) == 0);
  CHECK_OR_FAIL(!onyxrt_input_value(ctx, 1));
  void *zs = onyxrt_input_value(ctx, 2);
  int64_t shape[1] = {-1};
  void *zero = onyxrt_seq_at(ctx, zs, 0, 1, shape, "At");
  CHECK_OR_FAIL(zero && shape[0] == 0 && fake->isDevice(zero));
  void *temp = onyxrt_alloc_temp(ctx, 0);
  CHECK_OR_FAIL(temp);
  void *ys = onyxrt_seq_empty(ctx, ONYX_F32);
  ys = onyxrt_seq_insert(ctx, ys, 0, 0, temp, 1, shape, "Insert1");
  ys = onyxrt_seq_insert(ctx, ys, 0, 1, zero, 1, shape, "Insert2");
  void *z = onyxrt_seq_insert(ctx, onyxrt_seq_empty(ctx, ONYX_F32), 0, 0, zero,
                              1, shape, "Insert3");
  CHECK_OR_FAIL(ys && z && onyxrt_seq_length(ctx, ys) == 2);
  if (onyxrt_set_output_value(ctx, 0, es, "Out") ||
      onyxrt_set_output_value(ctx, 1, nullptr, "Out") ||
      onyxrt_set_output_value(ctx, 2, ys, "Out") ||
      onyxrt_set_output_value(ctx, 3, z, "Out"))
    return 1;
  return 0;
}

TEST(DeviceSequence, EmptySequencesOptionalsAndZeroByteElements) {
  StatePtr state = makeState(empties, kEmptyMetadata);
  ASSERT_TRUE(state && fake);
  ListPtr in(onyx_tensor_list_create());
  onyx_tensor_list_append(in.get(), onyx_sequence_create(ONYX_F32));
  onyx_tensor_list_append(in.get(), onyx_optional_none_create(ONYX_F32));
  OnyxTensor *zs = onyx_sequence_create(ONYX_F32);
  int64_t zeroShape[1] = {0};
  ASSERT_EQ(
      onyx_sequence_append(zs, onyx_tensor_create(ONYX_F32, 1, zeroShape)), 0);
  onyx_tensor_list_append(in.get(), zs);

  Counts before = counts();
  ListPtr out(onyxrt_run(state.get(), in.get()));
  ASSERT_TRUE(out) << onyx_state_last_error(state.get());
  Counts c = since(before);
  EXPECT_EQ(c.uploads, 1u); // zs's element: zero bytes, still a buffer
  EXPECT_EQ(c.copies, 3u);
  EXPECT_EQ(c.downloads, 0u); // zero-byte elements need no transfer
  EXPECT_EQ(c.releases, c.allocations);
  EXPECT_EQ(fake->liveBuffers(), 0u);

  OnyxTensor *esOut = onyx_tensor_list_get(out.get(), 0);
  ASSERT_EQ(onyx_value_kind(esOut), ONYX_VALUE_SEQUENCE);
  EXPECT_EQ(onyx_sequence_length(esOut), 0u);
  EXPECT_EQ(onyx_value_kind(onyx_tensor_list_get(out.get(), 1)),
            ONYX_VALUE_NONE);
  OnyxTensor *ys = onyx_tensor_list_get(out.get(), 2);
  ASSERT_EQ(onyx_sequence_length(ys), 2u);
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(onyx_tensor_rank(onyx_sequence_get(ys, k)), 1);
    EXPECT_EQ(onyx_tensor_shape(onyx_sequence_get(ys, k))[0], 0);
  }
  OnyxTensor *z = onyx_tensor_list_get(out.get(), 3);
  ASSERT_EQ(onyx_value_kind(z), ONYX_VALUE_TENSOR);
  EXPECT_EQ(onyx_tensor_num_elements(z), 0);
}

/// Sets an output, then fails: nothing is downloaded into the discarded
/// output, and everything is released.
int32_t failsAfterOutput(void *ctx) {
  void *xs = onyxrt_input_value(ctx, 1);
  if (onyxrt_set_output_value(ctx, 1, xs, "Out"))
    return 1;
  int64_t shape[1];
  return onyxrt_seq_at(ctx, xs, 5, 1, shape, "At_9") ? 0 : 1;
}

TEST(DeviceSequence, FailedCallsDownloadNothingAndReleaseEverything) {
  StatePtr state = makeState(failsAfterOutput, kMetadata);
  ASSERT_TRUE(state && fake);
  ListPtr in = inputs();
  Counts before = counts();
  EXPECT_FALSE(onyxrt_run(state.get(), in.get()));
  EXPECT_EQ(std::string(onyx_state_last_error(state.get())),
            "node 'At_9': SequenceAt position 5 is out of range [-2, 1] for a "
            "sequence of length 2");
  Counts c = since(before);
  EXPECT_EQ(c.uploads, 3u);
  EXPECT_EQ(c.downloads, 0u);
  EXPECT_EQ(c.releases, c.allocations);
  EXPECT_EQ(fake->liveBuffers(), 0u);

  // An upload that cannot get device memory fails the call before the
  // entry runs, naming the input and the element; nothing leaks.
  fake->failAllocationsAfter = fake->allocations + 2; // x, xs[0]; not xs[1]
  before = counts();
  EXPECT_FALSE(onyxrt_run(state.get(), in.get()));
  EXPECT_EQ(std::string(onyx_state_last_error(state.get())),
            "copying input 'xs' (index 1) to the cuda device: element 1: fake "
            "device out of memory");
  c = since(before);
  EXPECT_EQ(c.releases, c.allocations);
  EXPECT_EQ(fake->liveBuffers(), 0u);
  fake->failAllocationsAfter = 0;

  // The session stays usable: the same failure again, the same message.
  EXPECT_FALSE(onyxrt_run(state.get(), in.get()));
  EXPECT_NE(std::string(onyx_state_last_error(state.get())).find("At_9"),
            std::string::npos);
  EXPECT_EQ(fake->liveBuffers(), 0u);
}

} // namespace

//===----------------------------------------------------------------------===//
// IO binding: device inputs read in place, outputs left on the device
//===----------------------------------------------------------------------===//

/// y = 2 * x, on the "device".
int32_t doubleOnDevice(void *ctx) {
  void *x = onyxrt_input_data(ctx, 0);
  CHECK_OR_FAIL(fake->isDevice(x));
  int64_t n = onyxrt_input_dim(ctx, 0, 0);
  void *y = onyxrt_alloc_output(ctx, 0, 1, &n);
  CHECK_OR_FAIL(y && fake->isDevice(y));
  std::vector<float> values = fake->read(x, size_t(n));
  for (float &v : values)
    v *= 2;
  fake->write(y, values);
  return 0;
}

TEST(DeviceIOBinding, DeviceInputsAreReadInPlaceAndOutputsStayOnTheDevice) {
  StatePtr state = makeState(doubleOnDevice, "onyx-model v1\ninput x 1 1 ?n\n"
                                             "output y 1 1 ?n\ndevice cuda\n");
  ASSERT_TRUE(state && fake);
  std::string error;
  void *x = fake->allocate(12, error);
  ASSERT_TRUE(x);
  fake->write(x, {1, 2, 3});
  int64_t n = 3;

  // A device input: no upload; the output is downloaded as usual.
  {
    ListPtr in(onyx_tensor_list_create());
    onyx_tensor_list_append(in.get(),
                            onyx_tensor_wrap_device(ONYX_F32, 1, &n, x));
    ASSERT_TRUE(onyx_tensor_is_device(onyx_tensor_list_get(in.get(), 0)));
    Counts before = counts();
    ListPtr out(onyxrt_run(state.get(), in.get()));
    ASSERT_TRUE(out) << onyx_state_last_error(state.get());
    Counts c = since(before);
    EXPECT_EQ(c.uploads, 0u);
    EXPECT_EQ(c.downloads, 1u);
    OnyxTensor *y = onyx_tensor_list_get(out.get(), 0);
    EXPECT_FALSE(onyx_tensor_is_device(y));
    EXPECT_EQ(valuesOf(y), std::vector<float>({2, 4, 6}));
  }

  // Device outputs: no download; the buffer stays live until the next call
  // returns, so it can be that call's input (chaining), then is released.
  ASSERT_EQ(onyx_state_set_device_outputs(state.get(), 1), 0);
  void *first = nullptr;
  {
    ListPtr in(onyx_tensor_list_create());
    onyx_tensor_list_append(in.get(),
                            onyx_tensor_wrap_device(ONYX_F32, 1, &n, x));
    Counts before = counts();
    ListPtr out(onyxrt_run(state.get(), in.get()));
    ASSERT_TRUE(out) << onyx_state_last_error(state.get());
    EXPECT_EQ(since(before).downloads, 0u);
    OnyxTensor *y = onyx_tensor_list_get(out.get(), 0);
    ASSERT_TRUE(onyx_tensor_is_device(y));
    first = onyx_tensor_data(y);
    EXPECT_EQ(fake->read(first, 3), std::vector<float>({2, 4, 6}));
  } // destroying the list does not free the device buffer
  size_t live = fake->liveBuffers();
  {
    ListPtr in(onyx_tensor_list_create());
    onyx_tensor_list_append(in.get(),
                            onyx_tensor_wrap_device(ONYX_F32, 1, &n, first));
    ListPtr out(onyxrt_run(state.get(), in.get()));
    ASSERT_TRUE(out) << onyx_state_last_error(state.get());
    EXPECT_EQ(
        fake->read(onyx_tensor_data(onyx_tensor_list_get(out.get(), 0)), 3),
        std::vector<float>({4, 8, 12}));
  }
  // The first output was released when the second call returned; the
  // second is held.
  EXPECT_EQ(fake->liveBuffers(), live);
  fake->release(x);
  state.reset();
  EXPECT_EQ(fake,
            nullptr); // every device buffer released (checked by ~FakeDevice)
}

TEST(DeviceIOBinding, HostSessionsRejectDeviceTensors) {
  OnyxModelDesc desc{ONYX_ABI_VERSION,
                     "onyx-model v1\ninput x 1 1 ?n\noutput y 1 1 ?n\n",
                     doubleOnDevice};
  const char *error = nullptr;
  StatePtr state(onyxrt_state_create(&desc, &error));
  ASSERT_TRUE(state) << (error ? error : "");
  EXPECT_EQ(onyx_state_set_device_outputs(state.get(), 1), -1);
  int64_t n = 3;
  float bogus[3] = {0, 0, 0};
  ListPtr in(onyx_tensor_list_create());
  onyx_tensor_list_append(in.get(),
                          onyx_tensor_wrap_device(ONYX_F32, 1, &n, bogus));
  EXPECT_EQ(onyxrt_run(state.get(), in.get()), nullptr);
  EXPECT_NE(std::string(onyx_state_last_error(state.get()))
                .find("is device memory, but this model runs on the host"),
            std::string::npos)
      << onyx_state_last_error(state.get());
}
