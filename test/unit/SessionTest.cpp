//===- SessionTest.cpp - Sessions, validation and runtime services --------===//
//
// Runs hand-written `entry` functions (standing in for generated code)
// through onyxrt_run and checks outputs, error messages and memory stats.
//
//===----------------------------------------------------------------------===//
#include "RuntimeHandles.h"
#include "onyx/onyx_runtime.h"
#include "onyx/onyx_services.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

using onyx::test::ListPtr;
using onyx::test::StatePtr;

StatePtr makeState(const char *metadata, int32_t (*entry)(void *)) {
  OnyxModelDesc desc = {ONYX_ABI_VERSION, metadata, entry};
  const char *error = nullptr;
  OnyxState *state = onyxrt_state_create(&desc, &error);
  EXPECT_NE(state, nullptr) << (error ? error : "");
  return StatePtr(state);
}

OnyxTensor *f32Tensor(std::vector<int64_t> shape, std::vector<float> values) {
  return onyx_tensor_create_copy(ONYX_F32, static_cast<int32_t>(shape.size()),
                                 shape.data(), values.data());
}

ListPtr makeList(std::vector<OnyxTensor *> tensors) {
  ListPtr list(onyx_tensor_list_create());
  for (OnyxTensor *t : tensors)
    EXPECT_EQ(onyx_tensor_list_append(list.get(), t), 0);
  return list;
}

std::vector<float> f32Values(OnyxTensor *t) {
  auto *data = static_cast<float *>(onyx_tensor_data(t));
  return std::vector<float>(data, data + onyx_tensor_num_elements(t));
}

std::vector<int64_t> shapeOf(OnyxTensor *t) {
  const int64_t *shape = onyx_tensor_shape(t);
  return std::vector<int64_t>(shape, shape + onyx_tensor_rank(t));
}

OnyxMemoryStats statsOf(OnyxState *state) {
  OnyxMemoryStats stats;
  std::memset(&stats, 0xff, sizeof(stats));
  EXPECT_EQ(onyx_state_memory_stats(state, &stats), 0);
  return stats;
}

//===----------------------------------------------------------------------===//
// Hand-written entries
//===----------------------------------------------------------------------===//

/// y = 2 * x for x : f32[?batch, 3], going through a temporary that is freed
/// or leaked depending on `leakTemp`.
bool leakTemp = false;
int32_t doubleEntry(void *ctx) {
  const float *x = static_cast<const float *>(onyxrt_input_data(ctx, 0));
  int64_t n = onyxrt_input_dim(ctx, 0, 0);
  int64_t m = onyxrt_input_dim(ctx, 0, 1);
  if (!x || n < 0 || m < 0)
    return 1;
  auto *tmp = static_cast<float *>(onyxrt_alloc_temp(ctx, n * m * 4));
  if (!tmp)
    return 1;
  for (int64_t i = 0; i < n * m; ++i)
    tmp[i] = x[i] + x[i];
  const int64_t shape[] = {n, m};
  auto *y = static_cast<float *>(onyxrt_alloc_output(ctx, 0, 2, shape));
  if (!y)
    return 1;
  std::memcpy(y, tmp, n * m * 4);
  if (!leakTemp)
    onyxrt_free_temp(ctx, tmp);
  return 0;
}
const char *kDoubleModel = "onyx-model v1\n"
                           "input x 1 2 ?batch 3\n"
                           "output y 1 2 ?batch 3\n";

/// Two inputs sharing the symbol 'batch'; z[i] = sum_j x[i][j] + y[i].
int32_t rowSumEntry(void *ctx) {
  const float *x = static_cast<const float *>(onyxrt_input_data(ctx, 0));
  const int64_t *y = static_cast<const int64_t *>(onyxrt_input_data(ctx, 1));
  int64_t n = onyxrt_input_dim(ctx, 0, 0);
  const int64_t shape[] = {n};
  auto *z = static_cast<float *>(onyxrt_alloc_output(ctx, 0, 1, shape));
  if (!z)
    return 1;
  for (int64_t i = 0; i < n; ++i)
    z[i] = x[3 * i] + x[3 * i + 1] + x[3 * i + 2] + static_cast<float>(y[i]);
  return 0;
}
const char *kRowSumModel = "onyx-model v1\n"
                           "input x 1 2 ?batch 3\n"
                           "input y 7 1 ?batch\n"
                           "output z 1 1 ?batch\n";

} // namespace

//===----------------------------------------------------------------------===//
// Successful runs
//===----------------------------------------------------------------------===//

TEST(Run, ComputesOutputsAndKeepsInputs) {
  leakTemp = false;
  StatePtr state = makeState(kDoubleModel, doubleEntry);
  ListPtr inputs = makeList({f32Tensor({2, 3}, {1, 2, 3, -4, 5.5f, 0})});
  ListPtr outputs(onyxrt_run(state.get(), inputs.get()));
  ASSERT_NE(outputs, nullptr) << onyx_state_last_error(state.get());
  ASSERT_EQ(onyx_tensor_list_size(outputs.get()), 1u);
  OnyxTensor *y = onyx_tensor_list_get(outputs.get(), 0);
  EXPECT_EQ(onyx_tensor_element_type(y), ONYX_F32);
  EXPECT_EQ(shapeOf(y), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(f32Values(y), (std::vector<float>{2, 4, 6, -8, 11, 0}));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(onyx_tensor_data(y)) % 64, 0u);
  EXPECT_STREQ(onyx_state_last_error(state.get()), "");
  // The inputs are not consumed.
  ASSERT_EQ(onyx_tensor_list_size(inputs.get()), 1u);
  EXPECT_EQ(f32Values(onyx_tensor_list_get(inputs.get(), 0)),
            (std::vector<float>{1, 2, 3, -4, 5.5f, 0}));
}

TEST(Run, DynamicBatchAcrossCallsIncludingEmpty) {
  leakTemp = false;
  StatePtr state = makeState(kDoubleModel, doubleEntry);
  for (int64_t batch : {1, 4, 0, 3}) {
    std::vector<float> x(batch * 3);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>(i);
    ListPtr inputs = makeList({f32Tensor({batch, 3}, x)});
    ListPtr outputs(onyxrt_run(state.get(), inputs.get()));
    ASSERT_NE(outputs, nullptr) << onyx_state_last_error(state.get());
    OnyxTensor *y = onyx_tensor_list_get(outputs.get(), 0);
    EXPECT_EQ(shapeOf(y), (std::vector<int64_t>{batch, 3}));
    std::vector<float> expected(x);
    for (float &v : expected)
      v *= 2;
    EXPECT_EQ(f32Values(y), expected) << "batch " << batch;
  }
}

TEST(Run, SharedSymbolAcrossInputs) {
  StatePtr state = makeState(kRowSumModel, rowSumEntry);
  const int64_t yShape[] = {2};
  const int64_t yValues[] = {10, -100};
  ListPtr inputs =
      makeList({f32Tensor({2, 3}, {1, 2, 3, 4, 5, 6}),
                onyx_tensor_create_copy(ONYX_I64, 1, yShape, yValues)});
  ListPtr outputs(onyxrt_run(state.get(), inputs.get()));
  ASSERT_NE(outputs, nullptr) << onyx_state_last_error(state.get());
  EXPECT_EQ(f32Values(onyx_tensor_list_get(outputs.get(), 0)),
            (std::vector<float>{16, -85}));
}

namespace {
int32_t constantEntry(void *ctx) {
  auto *out = static_cast<int32_t *>(onyxrt_alloc_output(ctx, 0, 0, nullptr));
  if (!out)
    return 1;
  *out = 42;
  return 0;
}
} // namespace

TEST(Run, ModelWithoutInputsAndScalarOutput) {
  StatePtr state = makeState("onyx-model v1\noutput k 6 0\n", constantEntry);
  ListPtr inputs = makeList({});
  ListPtr outputs(onyxrt_run(state.get(), inputs.get()));
  ASSERT_NE(outputs, nullptr) << onyx_state_last_error(state.get());
  OnyxTensor *k = onyx_tensor_list_get(outputs.get(), 0);
  EXPECT_EQ(onyx_tensor_rank(k), 0);
  EXPECT_EQ(onyx_tensor_element_type(k), ONYX_I32);
  EXPECT_EQ(*static_cast<int32_t *>(onyx_tensor_data(k)), 42);
}

//===----------------------------------------------------------------------===//
// Input validation
//===----------------------------------------------------------------------===//

namespace {
int entryCalls = 0;
int32_t countingEntry(void *ctx) {
  ++entryCalls;
  return rowSumEntry(ctx);
}

/// Runs the row-sum model on `tensors`, expecting a validation error before
/// the entry is called; returns the message.
std::string validationError(std::vector<OnyxTensor *> tensors) {
  StatePtr state = makeState(kRowSumModel, countingEntry);
  ListPtr inputs = makeList(tensors);
  entryCalls = 0;
  ListPtr outputs(onyxrt_run(state.get(), inputs.get()));
  EXPECT_EQ(outputs, nullptr);
  EXPECT_EQ(entryCalls, 0);
  OnyxMemoryStats stats = statsOf(state.get());
  EXPECT_EQ(stats.tempAllocations, 0u);
  EXPECT_EQ(stats.outputBytes, 0u);
  return onyx_state_last_error(state.get());
}

OnyxTensor *i64Tensor(std::vector<int64_t> shape) {
  return onyx_tensor_create(ONYX_I64, static_cast<int32_t>(shape.size()),
                            shape.data());
}
} // namespace

TEST(Validation, WrongInputCount) {
  EXPECT_EQ(validationError({f32Tensor({2, 3}, std::vector<float>(6))}),
            "expected 2 inputs, got 1");
  EXPECT_EQ(validationError({f32Tensor({2, 3}, std::vector<float>(6)),
                             i64Tensor({2}), i64Tensor({2})}),
            "expected 2 inputs, got 3");
  StatePtr state = makeState(kDoubleModel, doubleEntry);
  ListPtr inputs = makeList({});
  EXPECT_EQ(onyxrt_run(state.get(), inputs.get()), nullptr);
  EXPECT_STREQ(onyx_state_last_error(state.get()), "expected 1 input, got 0");
}

TEST(Validation, WrongElementType) {
  EXPECT_EQ(validationError({i64Tensor({2, 3}), i64Tensor({2})}),
            "input 'x' (index 0): element type i64, but the model requires "
            "f32");
  EXPECT_EQ(validationError({f32Tensor({2, 3}, std::vector<float>(6)),
                             f32Tensor({2}, {1, 2})}),
            "input 'y' (index 1): element type f32, but the model requires "
            "i64");
}

TEST(Validation, WrongRank) {
  EXPECT_EQ(
      validationError({f32Tensor({6}, std::vector<float>(6)), i64Tensor({2})}),
      "input 'x' (index 0): rank 1, but the model requires rank 2");
  EXPECT_EQ(validationError(
                {f32Tensor({2, 3}, std::vector<float>(6)), i64Tensor({})}),
            "input 'y' (index 1): rank 0, but the model requires rank 1");
}

TEST(Validation, WrongStaticDim) {
  EXPECT_EQ(validationError(
                {f32Tensor({2, 4}, std::vector<float>(8)), i64Tensor({2})}),
            "input 'x' (index 0): dim 1 is 4, but the model requires 3");
}

namespace {
/// One input x : i4[3] (or another element type), copied to the output.
const char kSubByteModel[] = "onyx-model v1\n"
                             "input x 22 1 3\n"
                             "output y 22 1 3\n";
int32_t copyBytesEntry(void *ctx) {
  const void *x = onyxrt_input_data(ctx, 0);
  const int64_t shape[] = {3};
  void *y = onyxrt_alloc_output(ctx, 0, 1, shape);
  if (!x || !y)
    return 1;
  std::memcpy(y, x, 3);
  return 0;
}
} // namespace

TEST(Validation, SubByteElementsHoldTheirCodeInTheLowBits) {
  StatePtr state = makeState(kSubByteModel, copyBytesEntry);
  const int64_t shape[] = {3};
  // int4 -8, 7, -1 as their 4-bit two's-complement codes.
  const uint8_t codes[] = {0x8, 0x7, 0xf};
  ListPtr good = makeList({onyx_tensor_create_copy(ONYX_I4, 1, shape, codes)});
  ListPtr out(onyxrt_run(state.get(), good.get()));
  ASSERT_NE(out, nullptr) << onyx_state_last_error(state.get());
  OnyxTensor *y = onyx_tensor_list_get(out.get(), 0);
  EXPECT_EQ(onyx_tensor_element_type(y), ONYX_I4);
  EXPECT_EQ(std::memcmp(onyx_tensor_data(y), codes, 3), 0);
  // -1 as a sign-extended byte is not an int4 element.
  const uint8_t widened[] = {0x8, 0x7, 0xff};
  ListPtr bad = makeList({onyx_tensor_create_copy(ONYX_I4, 1, shape, widened)});
  EXPECT_EQ(onyxrt_run(state.get(), bad.get()), nullptr);
  EXPECT_STREQ(onyx_state_last_error(state.get()),
               "input 'x' (index 0): element 2 is the byte 0xff, not a i4 "
               "(4-bit elements hold their bit pattern in the low bits of a "
               "byte, the upper bits zero)");
}

TEST(Validation, SymbolMismatchAcrossInputs) {
  EXPECT_EQ(validationError(
                {f32Tensor({7, 3}, std::vector<float>(21)), i64Tensor({5})}),
            "input 'y' (index 1): dim 0 is 5, but symbol 'batch' was bound "
            "to 7 by input 'x' dim 0");
}

namespace {
int32_t squareEntry(void *ctx) {
  int64_t n = onyxrt_input_dim(ctx, 0, 0);
  const int64_t shape[] = {n, n};
  return onyxrt_alloc_output(ctx, 0, 2, shape) ? 0 : 1;
}
} // namespace

TEST(Validation, SymbolMismatchWithinOneInputAndUnknownDims) {
  StatePtr state = makeState("onyx-model v1\n"
                             "input sq 1 2 ?n ?n\n"
                             "input any 1 2 ? ?\n"
                             "output o 1 2 ?n ?n\n",
                             squareEntry);
  ListPtr bad = makeList(
      {f32Tensor({2, 3}, std::vector<float>(6)), f32Tensor({1, 1}, {0})});
  EXPECT_EQ(onyxrt_run(state.get(), bad.get()), nullptr);
  EXPECT_STREQ(onyx_state_last_error(state.get()),
               "input 'sq' (index 0): dim 1 is 3, but symbol 'n' was bound "
               "to 2 by input 'sq' dim 0");
  // '?' dims accept anything, independently of each other.
  ListPtr good = makeList(
      {f32Tensor({2, 2}, std::vector<float>(4)), f32Tensor({5, 0}, {})});
  ListPtr outputs(onyxrt_run(state.get(), good.get()));
  EXPECT_NE(outputs, nullptr) << onyx_state_last_error(state.get());
  EXPECT_STREQ(onyx_state_last_error(state.get()), "");
}

TEST(Validation, NullArguments) {
  StatePtr state = makeState(kDoubleModel, doubleEntry);
  EXPECT_EQ(onyxrt_run(state.get(), nullptr), nullptr);
  EXPECT_STREQ(onyx_state_last_error(state.get()), "the inputs list is NULL");
  EXPECT_EQ(onyxrt_run(nullptr, nullptr), nullptr);
  EXPECT_STREQ(onyx_state_last_error(nullptr), "the state is NULL");
  OnyxMemoryStats stats;
  EXPECT_NE(onyx_state_memory_stats(nullptr, &stats), 0);
  EXPECT_NE(onyx_state_memory_stats(state.get(), nullptr), 0);
}

//===----------------------------------------------------------------------===//
// Failures inside the entry
//===----------------------------------------------------------------------===//

namespace {
int32_t failingEntry(void *ctx) {
  // Allocate things that the runtime must release on failure.
  void *t = onyxrt_alloc_temp(ctx, 1000);
  const int64_t shape[] = {onyxrt_input_dim(ctx, 0, 0), 3};
  void *y = onyxrt_alloc_output(ctx, 0, 2, shape);
  if (!t || !y)
    return 1;
  onyxrt_fail(ctx, "node 'Gather_{0}': index {1} out of range [0, {2}) {3}{0}",
              3, 7, -5, 10, 99);
  return 1;
}
} // namespace

TEST(EntryFailure, MessageIsFormattedAndStateStaysUsable) {
  leakTemp = false;
  StatePtr state = makeState(kDoubleModel, failingEntry);
  ListPtr inputs = makeList({f32Tensor({2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(onyxrt_run(state.get(), inputs.get()), nullptr);
  // {3} is beyond numArgs = 3 and stays literal.
  EXPECT_STREQ(onyx_state_last_error(state.get()),
               "node 'Gather_7': index -5 out of range [0, 10) {3}7");
  OnyxMemoryStats stats = statsOf(state.get());
  EXPECT_EQ(stats.tempAllocations, 1u);
  EXPECT_EQ(stats.tempBytesRequested, 1024u);
  EXPECT_EQ(stats.outputBytes, 24u);
  // The failure repeats identically: nothing leaked into the next call.
  EXPECT_EQ(onyxrt_run(state.get(), inputs.get()), nullptr);
  EXPECT_STREQ(onyx_state_last_error(state.get()),
               "node 'Gather_7': index -5 out of range [0, 10) {3}7");
  // A validation error replaces the message.
  ListPtr wrong = makeList({f32Tensor({2, 2}, {1, 2, 3, 4})});
  EXPECT_EQ(onyxrt_run(state.get(), wrong.get()), nullptr);
  EXPECT_STREQ(onyx_state_last_error(state.get()),
               "input 'x' (index 0): dim 1 is 2, but the model requires 3");
}

TEST(EntryFailure, SuccessAfterFailureClearsTheMessage) {
  // A model whose entry fails on even batch sizes only.
  struct Local {
    static int32_t entry(void *ctx) {
      int64_t n = onyxrt_input_dim(ctx, 0, 0);
      if (n % 2 == 0) {
        onyxrt_fail(ctx, "batch {0} is even", 1, n, 0, 0, 0);
        return 1;
      }
      return doubleEntry(ctx);
    }
  };
  leakTemp = false;
  StatePtr state = makeState(kDoubleModel, Local::entry);
  ListPtr even = makeList({f32Tensor({2, 3}, std::vector<float>(6))});
  EXPECT_EQ(onyxrt_run(state.get(), even.get()), nullptr);
  EXPECT_STREQ(onyx_state_last_error(state.get()), "batch 2 is even");
  ListPtr odd = makeList({f32Tensor({1, 3}, {1, 2, 3})});
  ListPtr outputs(onyxrt_run(state.get(), odd.get()));
  ASSERT_NE(outputs, nullptr) << onyx_state_last_error(state.get());
  EXPECT_STREQ(onyx_state_last_error(state.get()), "");
  EXPECT_EQ(f32Values(onyx_tensor_list_get(outputs.get(), 0)),
            (std::vector<float>{2, 4, 6}));
}

namespace {
int32_t onlyFirstOutputEntry(void *ctx) {
  const int64_t shape[] = {2};
  return onyxrt_alloc_output(ctx, 0, 1, shape) ? 0 : 1;
}
int32_t silentFailureEntry(void *) { return 7; }
int32_t ignoredServiceFailureEntry(void *ctx) {
  onyxrt_input_data(ctx, 5); // Records an error; the entry ignores it.
  const int64_t shape[] = {2};
  onyxrt_alloc_output(ctx, 0, 1, shape);
  onyxrt_alloc_output(ctx, 1, 1, shape);
  return 0;
}
const char *kTwoOutputs = "onyx-model v1\n"
                          "output a 1 1 2\n"
                          "output b 7 1 ?\n";
} // namespace

TEST(EntryFailure, OutputNotProduced) {
  StatePtr state = makeState(kTwoOutputs, onlyFirstOutputEntry);
  ListPtr inputs = makeList({});
  EXPECT_EQ(onyxrt_run(state.get(), inputs.get()), nullptr);
  EXPECT_STREQ(onyx_state_last_error(state.get()),
               "output 1 was not produced ('b')");
}

TEST(EntryFailure, NonZeroStatusWithoutMessage) {
  StatePtr state = makeState(kTwoOutputs, silentFailureEntry);
  ListPtr inputs = makeList({});
  EXPECT_EQ(onyxrt_run(state.get(), inputs.get()), nullptr);
  EXPECT_STREQ(onyx_state_last_error(state.get()),
               "model failed with status 7 (no message recorded)");
}

TEST(EntryFailure, ServiceErrorIgnoredByTheEntryStillFails) {
  StatePtr state = makeState(kTwoOutputs, ignoredServiceFailureEntry);
  ListPtr inputs = makeList({});
  EXPECT_EQ(onyxrt_run(state.get(), inputs.get()), nullptr);
  EXPECT_STREQ(onyx_state_last_error(state.get()),
               "onyxrt_input_data: input index 5 out of range");
}

//===----------------------------------------------------------------------===//
// Misuse of the services (compiler bugs) is reported, not fatal
//===----------------------------------------------------------------------===//

namespace {
int misuseCase = 0;
int32_t misuseEntry(void *ctx) {
  const int64_t two[] = {2};
  const int64_t three[] = {3};
  switch (misuseCase) {
  case 0:
    return onyxrt_input_dim(ctx, 0, 0) < 0 ? 1 : 0;
  case 1:
    return onyxrt_alloc_output(ctx, 0, 2, two) ? 0 : 1;
  case 2:
    return onyxrt_alloc_output(ctx, 0, 1, three) ? 0 : 1;
  case 3:
    return onyxrt_alloc_output(ctx, 2, 1, two) ? 0 : 1;
  case 4:
    onyxrt_alloc_output(ctx, 0, 1, two);
    return onyxrt_alloc_output(ctx, 0, 1, two) ? 0 : 1;
  case 5:
    return onyxrt_alloc_temp(ctx, -1) ? 0 : 1;
  case 6: {
    int local = 0;
    onyxrt_free_temp(ctx, &local);
    return 1;
  }
  case 7: {
    void *p = onyxrt_alloc_temp(ctx, 8);
    onyxrt_free_temp(ctx, p);
    onyxrt_free_temp(ctx, p);
    return 1;
  }
  case 8: {
    const int64_t negative[] = {-3};
    return onyxrt_alloc_output(ctx, 1, 1, negative) ? 0 : 1;
  }
  case 9:
    return onyxrt_alloc_temp(ctx, INT64_MAX) ? 0 : 1;
  }
  return 1;
}
} // namespace

TEST(Services, MisuseIsReported) {
  StatePtr state = makeState(kTwoOutputs, misuseEntry);
  // Case 9 is the allocator's failure, not the memory limit's (that is
  // HostileInputTest.cpp's MemoryLimit.*).
  ASSERT_EQ(onyx_state_set_memory_limit(state.get(), UINT64_MAX), 0);
  ListPtr inputs = makeList({});
  const char *expected[] = {
      "onyxrt_input_dim: input index 0 out of range",
      "output 0 'a': allocated with rank 2, but the model declares rank 1",
      "output 0 'a': dim 0 is 3, but the model declares 2",
      "onyxrt_alloc_output: output index 2 out of range (the model has 2 "
      "outputs)",
      "output 0 'a' allocated twice",
      "onyxrt_alloc_temp: negative size -1",
      "onyxrt_free_temp: pointer was not allocated by onyxrt_alloc_temp in "
      "this call (or was freed twice)",
      "onyxrt_free_temp: pointer was not allocated by onyxrt_alloc_temp in "
      "this call (or was freed twice)",
      "output 1 'b': dim 0 is negative (-3)",
      "out of memory allocating a temporary of 9223372036854775807 bytes",
  };
  for (misuseCase = 0; misuseCase < 10; ++misuseCase) {
    EXPECT_EQ(onyxrt_run(state.get(), inputs.get()), nullptr);
    EXPECT_STREQ(onyx_state_last_error(state.get()), expected[misuseCase])
        << "case " << misuseCase;
  }
}

TEST(Services, NullContextIsHarmless) {
  EXPECT_EQ(onyxrt_input_data(nullptr, 0), nullptr);
  EXPECT_EQ(onyxrt_input_dim(nullptr, 0, 0), -1);
  EXPECT_EQ(onyxrt_alloc_output(nullptr, 0, 0, nullptr), nullptr);
  EXPECT_EQ(onyxrt_alloc_temp(nullptr, 16), nullptr);
  onyxrt_free_temp(nullptr, nullptr);
  onyxrt_fail(nullptr, "x", 0, 0, 0, 0, 0);
}

//===----------------------------------------------------------------------===//
// Memory statistics
//===----------------------------------------------------------------------===//

namespace {
int32_t statsEntry(void *ctx) {
  void *a = onyxrt_alloc_temp(ctx, 100); // Accounted as 128.
  void *b = onyxrt_alloc_temp(ctx, 64);  // 64; live 192 (the peak).
  onyxrt_free_temp(ctx, a);              // Live 64.
  void *c = onyxrt_alloc_temp(ctx, 10);  // 64; live 128.
  void *d = onyxrt_alloc_temp(ctx, 0);   // 0 bytes, still a valid pointer.
  if (!a || !b || !c || !d)
    return 1;
  if (reinterpret_cast<uintptr_t>(c) % 64 ||
      reinterpret_cast<uintptr_t>(b) % 64)
    return 2;
  std::memset(c, 1, 10);
  const int64_t a2[] = {2};
  const int64_t b5[] = {5};
  if (!onyxrt_alloc_output(ctx, 0, 1, a2) ||
      !onyxrt_alloc_output(ctx, 1, 1, b5))
    return 1;
  return 0; // b, c and d are leaked: the runtime frees them.
}
} // namespace

TEST(MemoryStats, CountsTemporariesAndOutputs) {
  StatePtr state = makeState(kTwoOutputs, statsEntry);
  OnyxMemoryStats before = statsOf(state.get());
  EXPECT_EQ(before.tempAllocations, 0u);
  EXPECT_EQ(before.tempBytesRequested, 0u);

  ListPtr inputs = makeList({});
  for (int call = 0; call < 2; ++call) {
    ListPtr outputs(onyxrt_run(state.get(), inputs.get()));
    ASSERT_NE(outputs, nullptr) << onyx_state_last_error(state.get());
    OnyxMemoryStats stats = statsOf(state.get());
    EXPECT_EQ(stats.tempAllocations, 4u);
    EXPECT_EQ(stats.tempBytesRequested, 128u + 64u + 64u);
    EXPECT_EQ(stats.tempPeakBytes, 192u);
    EXPECT_EQ(stats.outputBytes, 2u * 4u + 5u * 8u);
    EXPECT_EQ(stats.retainedBytes, 0u);
    // b is i64[5], zero-initialized.
    OnyxTensor *b = onyx_tensor_list_get(outputs.get(), 1);
    EXPECT_EQ(onyx_tensor_element_type(b), ONYX_I64);
    EXPECT_EQ(static_cast<int64_t *>(onyx_tensor_data(b))[4], 0);
  }
}

TEST(MemoryStats, LeakedAndFreedTempsGiveTheSameStats) {
  StatePtr state = makeState(kDoubleModel, doubleEntry);
  ListPtr inputs = makeList({f32Tensor({5, 3}, std::vector<float>(15, 1.0f))});
  for (bool leak : {false, true}) {
    leakTemp = leak;
    ListPtr outputs(onyxrt_run(state.get(), inputs.get()));
    ASSERT_NE(outputs, nullptr) << onyx_state_last_error(state.get());
    EXPECT_EQ(f32Values(onyx_tensor_list_get(outputs.get(), 0)),
              std::vector<float>(15, 2.0f));
    OnyxMemoryStats stats = statsOf(state.get());
    EXPECT_EQ(stats.tempAllocations, 1u);
    EXPECT_EQ(stats.tempBytesRequested, 64u); // 60 bytes, aligned.
    EXPECT_EQ(stats.tempPeakBytes, 64u);
    EXPECT_EQ(stats.outputBytes, 60u);
  }
  leakTemp = false;
}
