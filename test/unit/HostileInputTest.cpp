//===- HostileInputTest.cpp - What a careless or hostile caller passes ----===//
//
// Inputs that are valid at the C API but break the generated code's
// assumptions: bool tensors whose bytes are not 0/1 (docs/runtime.md, "Bool
// inputs"); external weights whose location leaves the directory, whose
// file is short, or is truncated or rewritten after the session was
// created (docs/runtime.md, "External weights").
//
//===----------------------------------------------------------------------===//
#include "RuntimeHandles.h"
#include "onyx/onyx_runtime.h"
#include "onyx/onyx_services.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using onyx::test::ListPtr;
using onyx::test::StatePtr;

StatePtr makeState(const char *metadata, int32_t (*entry)(void *)) {
  OnyxModelDesc desc = {ONYX_ABI_VERSION, metadata, entry};
  const char *error = nullptr;
  OnyxState *state = onyxrt_state_create(&desc, &error);
  EXPECT_NE(state, nullptr) << (error ? error : "");
  return StatePtr(state);
}

/// y = the bytes of the bool input m : bool[?n], as u8; also records the
/// input pointer it was given.
const void *seenPointer = nullptr;
int32_t echoBoolEntry(void *ctx) {
  const auto *m = static_cast<const unsigned char *>(onyxrt_input_data(ctx, 0));
  int64_t n = onyxrt_input_dim(ctx, 0, 0);
  if (!m || n < 0)
    return 1;
  seenPointer = m;
  auto *y = static_cast<unsigned char *>(onyxrt_alloc_output(ctx, 0, 1, &n));
  if (!y)
    return 1;
  std::memcpy(y, m, size_t(n));
  return 0;
}
const char *kEchoBoolModel = "onyx-model v1\n"
                             "input m 9 1 ?n\n"
                             "output y 2 1 ?n\n";

std::vector<unsigned char> bytesOf(OnyxTensor *t) {
  auto *data = static_cast<unsigned char *>(onyx_tensor_data(t));
  return std::vector<unsigned char>(data, data + onyx_tensor_byte_size(t));
}

} // namespace

TEST(BoolInputs, NonZeroBytesAreTrueAndTheCallersTensorIsKept) {
  StatePtr state = makeState(kEchoBoolModel, echoBoolEntry);
  std::vector<unsigned char> bytes = {0, 1, 2, 255, 0, 128, 1, 7};
  int64_t n = int64_t(bytes.size());
  ListPtr in(onyx_tensor_list_create());
  OnyxTensor *m = onyx_tensor_create_copy(ONYX_BOOL, 1, &n, bytes.data());
  ASSERT_EQ(onyx_tensor_list_append(in.get(), m), 0);
  ListPtr out(onyxrt_run(state.get(), in.get()));
  ASSERT_TRUE(out) << onyx_state_last_error(state.get());
  EXPECT_EQ(bytesOf(onyx_tensor_list_get(out.get(), 0)),
            (std::vector<unsigned char>{0, 1, 1, 1, 0, 1, 1, 1}));
  // The generated code read a copy; the caller's bytes are unchanged.
  EXPECT_NE(seenPointer, onyx_tensor_data(m));
  EXPECT_EQ(bytesOf(m), bytes);
  // Canonical bytes are read in place (no copy).
  std::vector<unsigned char> canonical = {0, 1, 1, 0};
  n = 4;
  ListPtr in2(onyx_tensor_list_create());
  OnyxTensor *m2 = onyx_tensor_create_copy(ONYX_BOOL, 1, &n, canonical.data());
  ASSERT_EQ(onyx_tensor_list_append(in2.get(), m2), 0);
  ListPtr out2(onyxrt_run(state.get(), in2.get()));
  ASSERT_TRUE(out2) << onyx_state_last_error(state.get());
  EXPECT_EQ(seenPointer, onyx_tensor_data(m2));
  EXPECT_EQ(bytesOf(onyx_tensor_list_get(out2.get(), 0)), canonical);
}

TEST(BoolInputs, EveryByteValue) {
  StatePtr state = makeState(kEchoBoolModel, echoBoolEntry);
  std::vector<unsigned char> bytes(256 * 3);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<unsigned char>(i * 7);
  int64_t n = int64_t(bytes.size());
  ListPtr in(onyx_tensor_list_create());
  ASSERT_EQ(
      onyx_tensor_list_append(
          in.get(), onyx_tensor_create_copy(ONYX_BOOL, 1, &n, bytes.data())),
      0);
  ListPtr out(onyxrt_run(state.get(), in.get()));
  ASSERT_TRUE(out) << onyx_state_last_error(state.get());
  std::vector<unsigned char> got = bytesOf(onyx_tensor_list_get(out.get(), 0));
  ASSERT_EQ(got.size(), bytes.size());
  for (size_t i = 0; i < bytes.size(); ++i)
    EXPECT_EQ(got[i], bytes[i] != 0) << "byte " << i;
}

namespace {

/// y = the number of true elements over the elements of the sequence input
/// s : seq(bool), counted as the sum of their bytes (so a byte 2 counts 2).
int32_t sumSequenceEntry(void *ctx) {
  void *seq = onyxrt_input_value(ctx, 0);
  if (!seq)
    return 1;
  int64_t length = onyxrt_seq_length(ctx, seq);
  int64_t total = 0;
  for (int64_t k = 0; k < length; ++k) {
    int64_t shape[1];
    const auto *data = static_cast<const unsigned char *>(
        onyxrt_seq_at(ctx, seq, k, 1, shape, "Sum"));
    if (!data)
      return 1;
    for (int64_t i = 0; i < shape[0]; ++i)
      total += data[i];
  }
  auto *y = static_cast<int64_t *>(onyxrt_alloc_output(ctx, 0, 0, nullptr));
  if (!y)
    return 1;
  *y = total;
  return 0;
}
const char *kSumSequenceModel = "onyx-model v1\n"
                                "input-sequence s 9\n"
                                "output y 7 0\n";

} // namespace

TEST(BoolInputs, SequenceElementsAreNormalizedToo) {
  StatePtr state = makeState(kSumSequenceModel, sumSequenceEntry);
  ASSERT_TRUE(state);
  OnyxTensor *seq = onyx_sequence_create(ONYX_BOOL);
  std::vector<unsigned char> a = {3, 0, 200}, b = {1, 1};
  int64_t na = 3, nb = 2;
  ASSERT_EQ(onyx_sequence_append(
                seq, onyx_tensor_create_copy(ONYX_BOOL, 1, &na, a.data())),
            0);
  ASSERT_EQ(onyx_sequence_append(
                seq, onyx_tensor_create_copy(ONYX_BOOL, 1, &nb, b.data())),
            0);
  ListPtr in(onyx_tensor_list_create());
  ASSERT_EQ(onyx_tensor_list_append(in.get(), seq), 0);
  ListPtr out(onyxrt_run(state.get(), in.get()));
  ASSERT_TRUE(out) << onyx_state_last_error(state.get());
  auto *y = static_cast<int64_t *>(
      onyx_tensor_data(onyx_tensor_list_get(out.get(), 0)));
  EXPECT_EQ(*y, 4);
  EXPECT_EQ(bytesOf(onyx_sequence_get(seq, 0)), a);
}

//===----------------------------------------------------------------------===//
// External weights (docs/runtime.md, "External weights")
//===----------------------------------------------------------------------===//

namespace {

/// y[i] = weight `Index`'s bytes, as u8[16].
template <int64_t Index> int32_t weightEntryAt(void *ctx) {
  const auto *w =
      static_cast<const unsigned char *>(onyxrt_get_weight(ctx, Index));
  if (!w)
    return 1;
  int64_t n = 16;
  auto *y = static_cast<unsigned char *>(onyxrt_alloc_output(ctx, 0, 1, &n));
  if (!y)
    return 1;
  std::memcpy(y, w, 16);
  return 0;
}

/// A scratch directory with `w.bin` (16 bytes 0..15 after 8 bytes of
/// padding) and a subdirectory `sub`.
struct WeightsDir {
  std::string dir;
  WeightsDir() {
    char templ[] = "/tmp/onyx-weights-XXXXXX";
    dir = mkdtemp(templ);
    std::string sub = dir + "/sub";
    mkdir(sub.c_str(), 0700);
    std::vector<unsigned char> bytes(24, 0xee);
    for (int i = 0; i < 16; ++i)
      bytes[8 + i] = static_cast<unsigned char>(i);
    write("w.bin", bytes);
  }
  ~WeightsDir() { std::system(("rm -rf '" + dir + "'").c_str()); }
  void write(const std::string &name, const std::vector<unsigned char> &b) {
    FILE *f = std::fopen((dir + "/" + name).c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(b.data(), 1, b.size(), f);
    std::fclose(f);
  }
};

/// The metadata of a model whose weight 0 is 16 bytes at offset 8 of
/// `location` (no checksum: size check only).
std::string weightModel(const std::string &location) {
  return "onyx-model v1\noutput y 2 1 16\nweight 0 8 16 0 " + location + "\n";
}

OnyxState *createWithWeights(const std::string &metadata, const char *path,
                             std::string &error,
                             int32_t (*entry)(void *) = weightEntryAt<0>) {
  OnyxModelDesc desc = {ONYX_ABI_VERSION, metadata.c_str(), entry};
  const char *message = nullptr;
  OnyxState *state = onyxrt_state_create_with_weights(&desc, path, &message);
  error = message ? message : "";
  return state;
}

} // namespace

TEST(Weights, LocationMustStayInsideTheDirectory) {
  WeightsDir d;
  std::string sub = d.dir + "/sub";
  std::string error;
  // In the directory: fine.
  StatePtr ok(createWithWeights(weightModel("w.bin"), d.dir.c_str(), error));
  ASSERT_TRUE(ok) << error;
  // '..' out of the given directory, an absolute path.
  EXPECT_FALSE(createWithWeights(weightModel("../w.bin"), sub.c_str(), error));
  EXPECT_NE(error.find("'../w.bin' has a '..' component"), std::string::npos)
      << error;
  std::string absolute = d.dir + "/w.bin";
  EXPECT_FALSE(createWithWeights(weightModel(absolute), sub.c_str(), error));
  EXPECT_NE(error.find("is an absolute path"), std::string::npos) << error;
  // A symbolic link inside the directory that leads out of it.
  ASSERT_EQ(symlink(absolute.c_str(), (sub + "/link.bin").c_str()), 0);
  EXPECT_FALSE(createWithWeights(weightModel("link.bin"), sub.c_str(), error));
  EXPECT_NE(error.find("outside"), std::string::npos) << error;
  // A file named by the caller is taken as is.
  StatePtr given(
      createWithWeights(weightModel("other.bin"), absolute.c_str(), error));
  EXPECT_TRUE(given) << error;
}

TEST(Weights, ShortFileIsAnError) {
  WeightsDir d;
  d.write("w.bin", std::vector<unsigned char>(23, 1));
  std::string error;
  EXPECT_FALSE(createWithWeights(weightModel("w.bin"), d.dir.c_str(), error));
  EXPECT_NE(error.find("holds 23 bytes, but weight 0 needs bytes 8..24"),
            std::string::npos)
      << error;
}

TEST(Weights, FileTruncatedOrRewrittenAfterCreationIsNotUsed) {
  // The session reads the file at creation: truncating it (a mapped file
  // raised SIGBUS) or rewriting it afterwards changes nothing.
  WeightsDir d;
  std::string error;
  StatePtr state(createWithWeights(weightModel("w.bin"), d.dir.c_str(), error));
  ASSERT_TRUE(state) << error;
  ASSERT_EQ(truncate((d.dir + "/w.bin").c_str(), 0), 0);
  ListPtr in(onyx_tensor_list_create());
  ListPtr out(onyxrt_run(state.get(), in.get()));
  ASSERT_TRUE(out) << onyx_state_last_error(state.get());
  std::vector<unsigned char> want(16);
  for (int i = 0; i < 16; ++i)
    want[i] = static_cast<unsigned char>(i);
  EXPECT_EQ(bytesOf(onyx_tensor_list_get(out.get(), 0)), want);
  d.write("w.bin", std::vector<unsigned char>(24, 0x55));
  ListPtr out2(onyxrt_run(state.get(), in.get()));
  ASSERT_TRUE(out2) << onyx_state_last_error(state.get());
  EXPECT_EQ(bytesOf(onyx_tensor_list_get(out2.get(), 0)), want);
}

namespace {

/// `w.bin` holding `values` (f32) after 8 bytes of padding.
void writeF32Weights(WeightsDir &d, const std::vector<float> &values) {
  std::vector<unsigned char> bytes(8, 0xee);
  bytes.resize(8 + 4 * values.size());
  std::memcpy(bytes.data() + 8, values.data(), 4 * values.size());
  d.write("w.bin", bytes);
}

/// That file, and a model whose weight 0 (those 32 bytes) the session
/// converts to `convertTo`.
std::string convertedWeightModel(WeightsDir &d,
                                 const std::vector<float> &values,
                                 const char *convertTo) {
  writeF32Weights(d, values);
  return "onyx-model v1\noutput y 2 1 16\nweight 0 8 " +
         std::to_string(4 * values.size()) + " 0 w.bin " + convertTo + "\n";
}

std::vector<unsigned char> halfBytes(const std::vector<uint16_t> &bits) {
  std::vector<unsigned char> bytes(2 * bits.size());
  std::memcpy(bytes.data(), bits.data(), bytes.size());
  return bytes;
}

} // namespace

TEST(Weights, ConvertedToHalfWhenLoaded) {
  // A `weight` line with a 7th word (--precision=fp16|bf16): the session
  // converts the file's f32 values once, at creation, rounding to nearest
  // even as a Cast does; the generated code reads the half values.
  WeightsDir d;
  std::string error;
  float tie16 = 1.0f + 1.0f / 2048, tie16Up = 1.0f + 3.0f / 2048;
  StatePtr f16(createWithWeights(
      convertedWeightModel(d,
                           {1.0f, -2.5f, 65504.0f, 65520.0f, 0x1p-24f,
                            1.5f * 0x1p-24f, tie16, tie16Up},
                           "10"),
      d.dir.c_str(), error));
  ASSERT_TRUE(f16) << error;
  ListPtr in(onyx_tensor_list_create());
  ListPtr out(onyxrt_run(f16.get(), in.get()));
  ASSERT_TRUE(out) << onyx_state_last_error(f16.get());
  // 65520 rounds to infinity; 2^-24 and 1.5 * 2^-24 are subnormals (the
  // tie to even 2); 1 + 2^-11 ties down to 1, 1 + 3 * 2^-11 up.
  EXPECT_EQ(bytesOf(onyx_tensor_list_get(out.get(), 0)),
            halfBytes({0x3c00, 0xc100, 0x7bff, 0x7c00, 0x0001, 0x0002, 0x3c00,
                       0x3c02}));

  float tieB = 1.0f + 1.0f / 256, tieBUp = 1.0f + 3.0f / 256;
  StatePtr bf16(createWithWeights(
      convertedWeightModel(d,
                           {1.0f, -2.5f, tieB, tieBUp, __builtin_nanf(""),
                            -__builtin_inff(), 3.0e38f, 1e-40f},
                           "16"),
      d.dir.c_str(), error));
  ASSERT_TRUE(bf16) << error;
  ListPtr outB(onyxrt_run(bf16.get(), in.get()));
  ASSERT_TRUE(outB) << onyx_state_last_error(bf16.get());
  EXPECT_EQ(bytesOf(onyx_tensor_list_get(outB.get(), 0)),
            halfBytes({0x3f80, 0xc020, 0x3f80, 0x3f82, 0x7fc0, 0xff80, 0x7f62,
                       0x0001}));

  // Only f32 -> f16 / bf16, and whole f32 values.
  EXPECT_FALSE(createWithWeights(
      convertedWeightModel(d, std::vector<float>(8, 1.0f), "1"), d.dir.c_str(),
      error));
  EXPECT_NE(error.find("weight conversion to element type '1' is not "
                       "supported"),
            std::string::npos)
      << error;
  EXPECT_FALSE(createWithWeights(
      "onyx-model v1\noutput y 2 1 16\nweight 0 8 30 0 w.bin 10\n",
      d.dir.c_str(), error));
  EXPECT_NE(error.find("multiple of 4"), std::string::npos) << error;
}

namespace {

/// Weight 2 (gathered) of `metadata`.
OnyxState *createConcat(const std::string &metadata, const char *path,
                        std::string &error) {
  return createWithWeights(metadata, path, error, weightEntryAt<2>);
}

} // namespace

TEST(Weights, GatheredRowByRowWhenLoaded) {
  // weight_concat (onnx-merge-sibling-matmuls): weights 0 and 1 (bytes
  // 0..7 and 8..15 of the data) as two rows of 4 + 4 bytes each.
  WeightsDir d;
  std::string error;
  const std::string head = "onyx-model v1\noutput y 2 1 16\n"
                           "weight 0 8 8 0 w.bin\nweight 1 16 8 0 w.bin\n";
  StatePtr state(
      createConcat(head + "weight_concat 2 2 0 0 1\n", d.dir.c_str(), error));
  ASSERT_TRUE(state) << error;
  ListPtr in(onyx_tensor_list_create());
  ListPtr out(onyxrt_run(state.get(), in.get()));
  ASSERT_TRUE(out) << onyx_state_last_error(state.get());
  EXPECT_EQ(bytesOf(onyx_tensor_list_get(out.get(), 0)),
            (std::vector<unsigned char>{0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7,
                                        12, 13, 14, 15}));

  // Malformed lines are refused at creation, naming the line.
  struct Bad {
    const char *line, *message;
  } bad[] = {
      {"weight_concat 2 2 0 0 2\n", "must be an earlier weight's index"},
      {"weight_concat 3 2 0 0 1\n", "numbered 0, 1, ... in order"},
      {"weight_concat 2 3 0 0 1\n", "does not split into 3 rows"},
      {"weight_concat 2 0 0 0 1\n", "at least one row"},
      {"weight_concat 2 9223372036854775807 10 0 1\n", "does not split"},
      {"weight_concat 2 4 10 0 1\n", "rows of f32 values"},
      {"weight_concat 2 1 1 0 1\n", "element type '1' is not supported"},
      {"weight_concat 2 2 0\n", "malformed weight_concat line"},
      {"weight_concat 2 1 0 0 1\nweight_concat 3 1 0 2 0\n",
       "is not a plain weight line"},
  };
  for (const Bad &b : bad) {
    EXPECT_FALSE(createConcat(head + b.line, d.dir.c_str(), error)) << b.line;
    EXPECT_NE(error.find(b.message), std::string::npos)
        << b.line << ": " << error;
  }
}

TEST(Weights, GatheredAndConvertedToHalf) {
  // Each range's f32 values converted (f16) as they are gathered: two
  // ranges of two rows of two f32 values.
  WeightsDir d;
  writeF32Weights(d, {1.0f, 2.0f, 3.0f, 4.0f, -1.0f, -2.0f, -3.0f, -4.0f});
  std::string error;
  StatePtr state(createConcat("onyx-model v1\noutput y 2 1 16\n"
                              "weight 0 8 16 0 w.bin\n"
                              "weight 1 24 16 0 w.bin\n"
                              "weight_concat 2 2 10 0 1\n",
                              d.dir.c_str(), error));
  ASSERT_TRUE(state) << error;
  ListPtr in(onyx_tensor_list_create());
  ListPtr out(onyxrt_run(state.get(), in.get()));
  ASSERT_TRUE(out) << onyx_state_last_error(state.get());
  // Rows [1, 2 | -1, -2] and [3, 4 | -3, -4] in f16.
  EXPECT_EQ(bytesOf(onyx_tensor_list_get(out.get(), 0)),
            halfBytes({0x3c00, 0x4000, 0xbc00, 0xc000, 0x4200, 0x4400, 0xc200,
                       0xc400}));
}

//===----------------------------------------------------------------------===//
// Memory limit (docs/runtime.md, "Memory limit")
//===----------------------------------------------------------------------===//

namespace {

/// What limitEntry allocates, from the i64 input n: a temporary of n bytes,
/// then pool 0 of n bytes, then output y : u8[n].
int32_t limitEntry(void *ctx) {
  const int64_t *n = static_cast<const int64_t *>(onyxrt_input_data(ctx, 0));
  if (!n)
    return 1;
  void *tmp = onyxrt_alloc_temp(ctx, n[0]);
  if (!tmp)
    return 1;
  onyxrt_free_temp(ctx, tmp);
  if (!onyxrt_get_pool(ctx, 0, n[1]))
    return 1;
  int64_t size = n[2];
  auto *y = static_cast<unsigned char *>(onyxrt_alloc_output(ctx, 0, 1, &size));
  return y ? 0 : 1;
}
const char *kLimitModel = "onyx-model v1\n"
                          "input n 7 1 3\n"
                          "output y 2 1 ?\n";

/// Runs limitEntry with (temp, pool, output) sizes; "" or the message.
std::string runLimit(OnyxState *state, int64_t temp, int64_t pool,
                     int64_t output) {
  int64_t three = 3;
  const int64_t sizes[3] = {temp, pool, output};
  ListPtr in(onyx_tensor_list_create());
  onyx_tensor_list_append(in.get(),
                          onyx_tensor_create_copy(ONYX_I64, 1, &three, sizes));
  ListPtr out(onyxrt_run(state, in.get()));
  return out ? "" : onyx_state_last_error(state);
}

} // namespace

TEST(MemoryLimit, EveryDataDependentAllocationIsChecked) {
  StatePtr state = makeState(kLimitModel, limitEntry);
  ASSERT_TRUE(state);
  // The default: the machine's memory, never below a gigabyte here.
  EXPECT_GE(onyx_state_memory_limit(state.get()), uint64_t(1) << 30);
  ASSERT_EQ(onyx_state_set_memory_limit(state.get(), 1 << 20), 0);
  EXPECT_EQ(onyx_state_memory_limit(state.get()), uint64_t(1) << 20);
  EXPECT_EQ(runLimit(state.get(), 1000, 1000, 1000), "");
  // A temporary, a pool and an output over the limit (the first call left
  // a pool of 1024 bytes).
  EXPECT_EQ(runLimit(state.get(), 2 << 20, 0, 0),
            "allocating a temporary: 2097152 bytes would exceed the session's "
            "memory limit of 1048576 bytes (1024 in use by outputs, "
            "temporaries and pools; set with ONYX_MAX_ALLOC_BYTES or "
            "onyx_state_set_memory_limit)");
  onyx_state_trim(state.get());
  std::string pool = runLimit(state.get(), 0, 3 << 20, 0);
  EXPECT_EQ(pool.rfind("growing pool 0: 3145728 bytes would exceed", 0), 0)
      << pool;
  std::string output = runLimit(state.get(), 0, 0, int64_t(3e9));
  EXPECT_EQ(output.rfind("output 0 'y': 3000000000 bytes would exceed the "
                         "session's memory limit of 1048576 bytes",
                         0),
            0)
      << output;
  // What the call holds counts: the pool (retained) plus the output.
  onyx_state_trim(state.get());
  EXPECT_EQ(runLimit(state.get(), 0, 600 << 10, 400 << 10), "");
  std::string sum = runLimit(state.get(), 0, 600 << 10, 500 << 10);
  EXPECT_NE(sum.find("(614400 in use"), std::string::npos) << sum;
  // The session stays usable; raising the limit lets the call through.
  ASSERT_EQ(onyx_state_set_memory_limit(state.get(), UINT64_MAX), 0);
  EXPECT_EQ(runLimit(state.get(), 2 << 20, 3 << 20, 500 << 10), "");
  EXPECT_EQ(onyx_state_set_memory_limit(state.get(), 0), -1);
  EXPECT_EQ(onyx_state_set_memory_limit(nullptr, 1), -1);
}

TEST(MemoryLimit, EnvironmentVariable) {
  struct Case {
    const char *value;
    uint64_t limit; // 0: creation fails
  } cases[] = {{"4096", 4096},     {"64K", 64ull << 10},
               {"3m", 3ull << 20}, {"2G", 2ull << 30},
               {"1T", 1ull << 40}, {"none", UINT64_MAX},
               {"0", 0},           {"-5", 0},
               {"12Q", 0},         {"abc", 0},
               {"5G5", 0},         {"99999999999999999999", 0},
               {"20000000T", 0}};
  for (const Case &c : cases) {
    setenv("ONYX_MAX_ALLOC_BYTES", c.value, 1);
    OnyxModelDesc desc = {ONYX_ABI_VERSION, kLimitModel, limitEntry};
    const char *error = nullptr;
    StatePtr state(onyxrt_state_create(&desc, &error));
    if (c.limit == 0) {
      EXPECT_FALSE(state) << c.value;
      EXPECT_NE(std::string(error ? error : "").find("ONYX_MAX_ALLOC_BYTES='"),
                std::string::npos)
          << c.value;
    } else {
      ASSERT_TRUE(state) << c.value << ": " << (error ? error : "");
      EXPECT_EQ(onyx_state_memory_limit(state.get()), c.limit) << c.value;
    }
  }
  unsetenv("ONYX_MAX_ALLOC_BYTES");
}
