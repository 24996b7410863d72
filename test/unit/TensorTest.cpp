//===- TensorTest.cpp - Tensors, lists and element types ------------------===//
#include "onyx/onyx_runtime.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <vector>

namespace {

bool isAligned(const void *p) {
  return reinterpret_cast<uintptr_t>(p) % 64 == 0;
}

TEST(ElementType, SizesAndNames) {
  EXPECT_EQ(onyx_element_size(ONYX_F32), 4u);
  EXPECT_EQ(onyx_element_size(ONYX_F64), 8u);
  EXPECT_EQ(onyx_element_size(ONYX_F16), 2u);
  EXPECT_EQ(onyx_element_size(ONYX_BF16), 2u);
  EXPECT_EQ(onyx_element_size(ONYX_I8), 1u);
  EXPECT_EQ(onyx_element_size(ONYX_U8), 1u);
  EXPECT_EQ(onyx_element_size(ONYX_I16), 2u);
  EXPECT_EQ(onyx_element_size(ONYX_U16), 2u);
  EXPECT_EQ(onyx_element_size(ONYX_I32), 4u);
  EXPECT_EQ(onyx_element_size(ONYX_U32), 4u);
  EXPECT_EQ(onyx_element_size(ONYX_I64), 8u);
  EXPECT_EQ(onyx_element_size(ONYX_U64), 8u);
  EXPECT_EQ(onyx_element_size(ONYX_BOOL), 1u);
  EXPECT_EQ(onyx_element_size(ONYX_STRING), sizeof(const char *));
  EXPECT_EQ(onyx_element_size(ONYX_UNDEFINED), 0u);
  EXPECT_EQ(onyx_element_size(14), 0u); // complex128: unsupported
  EXPECT_EQ(onyx_element_size(-1), 0u);

  EXPECT_STREQ(onyx_element_name(ONYX_F32), "f32");
  EXPECT_STREQ(onyx_element_name(ONYX_I64), "i64");
  EXPECT_STREQ(onyx_element_name(ONYX_BOOL), "bool");
  EXPECT_STREQ(onyx_element_name(ONYX_BF16), "bf16");
  EXPECT_STREQ(onyx_element_name(ONYX_U16), "u16");
  EXPECT_STREQ(onyx_element_name(999), "unknown");
}

TEST(ElementType, NewerOnnxTypesTakeOneBytePerElement) {
  // float8 (17-20, 24) and the unpacked 4-bit/2-bit types (21-23, 25, 26).
  const struct {
    int32_t code;
    const char *name;
    int32_t bits;
  } kTypes[] = {{ONYX_F8E4M3FN, "f8e4m3fn", 8},
                {ONYX_F8E4M3FNUZ, "f8e4m3fnuz", 8},
                {ONYX_F8E5M2, "f8e5m2", 8},
                {ONYX_F8E5M2FNUZ, "f8e5m2fnuz", 8},
                {ONYX_U4, "u4", 4},
                {ONYX_I4, "i4", 4},
                {ONYX_F4E2M1, "f4e2m1", 4},
                {ONYX_F8E8M0, "f8e8m0", 8},
                {ONYX_U2, "u2", 2},
                {ONYX_I2, "i2", 2}};
  int32_t expectedCode = 17;
  for (const auto &t : kTypes) {
    EXPECT_EQ(t.code, expectedCode++);
    EXPECT_EQ(onyx_element_size(t.code), 1u) << t.name;
    EXPECT_STREQ(onyx_element_name(t.code), t.name);
    EXPECT_EQ(onyx_element_bits(t.code), t.bits) << t.name;
    const int64_t shape[] = {3};
    OnyxTensor *tensor = onyx_tensor_create(t.code, 1, shape);
    ASSERT_NE(tensor, nullptr) << t.name;
    EXPECT_EQ(onyx_tensor_byte_size(tensor), 3u);
    onyx_tensor_destroy(tensor);
  }
  EXPECT_EQ(onyx_element_bits(ONYX_F32), 32);
  EXPECT_EQ(onyx_element_bits(ONYX_BOOL), 8);
  EXPECT_EQ(onyx_element_bits(27), 0);
  EXPECT_EQ(onyx_element_size(27), 0u);
}

TEST(Tensor, CreateIsZeroFilledAndAligned) {
  const int64_t shape[] = {2, 3};
  OnyxTensor *t = onyx_tensor_create(ONYX_F32, 2, shape);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(onyx_tensor_element_type(t), ONYX_F32);
  EXPECT_EQ(onyx_tensor_rank(t), 2);
  EXPECT_EQ(onyx_tensor_shape(t)[0], 2);
  EXPECT_EQ(onyx_tensor_shape(t)[1], 3);
  EXPECT_EQ(onyx_tensor_num_elements(t), 6);
  EXPECT_EQ(onyx_tensor_byte_size(t), 24u);
  auto *data = static_cast<float *>(onyx_tensor_data(t));
  ASSERT_NE(data, nullptr);
  EXPECT_TRUE(isAligned(data));
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(data[i], 0.0f);
  data[5] = 7.5f; // Writable.
  EXPECT_EQ(data[5], 7.5f);
  onyx_tensor_destroy(t);
}

TEST(Tensor, CreateCopyCopiesValuesAndShape) {
  const int64_t values[] = {-1, 42, std::numeric_limits<int64_t>::max()};
  int64_t shapeCopy[] = {3};
  OnyxTensor *t = onyx_tensor_create_copy(ONYX_I64, 1, shapeCopy, values);
  ASSERT_NE(t, nullptr);
  shapeCopy[0] = 99; // The tensor keeps its own copy of the shape.
  EXPECT_EQ(onyx_tensor_shape(t)[0], 3);
  EXPECT_EQ(onyx_tensor_byte_size(t), 24u);
  EXPECT_EQ(std::memcmp(onyx_tensor_data(t), values, sizeof(values)), 0);
  EXPECT_TRUE(isAligned(onyx_tensor_data(t)));
  onyx_tensor_destroy(t);
}

TEST(Tensor, RankZeroScalar) {
  const double value = 3.25;
  OnyxTensor *t = onyx_tensor_create_copy(ONYX_F64, 0, nullptr, &value);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(onyx_tensor_rank(t), 0);
  EXPECT_NE(onyx_tensor_shape(t), nullptr);
  EXPECT_EQ(onyx_tensor_num_elements(t), 1);
  EXPECT_EQ(onyx_tensor_byte_size(t), 8u);
  EXPECT_EQ(*static_cast<double *>(onyx_tensor_data(t)), 3.25);
  onyx_tensor_destroy(t);
}

TEST(Tensor, ZeroSizeDims) {
  const int64_t shape[] = {4, 0, 5};
  OnyxTensor *t = onyx_tensor_create(ONYX_F32, 3, shape);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(onyx_tensor_num_elements(t), 0);
  EXPECT_EQ(onyx_tensor_byte_size(t), 0u);
  EXPECT_NE(onyx_tensor_data(t), nullptr); // Still a valid pointer.
  EXPECT_EQ(onyx_tensor_shape(t)[1], 0);
  onyx_tensor_destroy(t);

  // Copy from NULL is fine when there is nothing to copy.
  OnyxTensor *c = onyx_tensor_create_copy(ONYX_F32, 3, shape, nullptr);
  ASSERT_NE(c, nullptr);
  onyx_tensor_destroy(c);

  // A zero dim wins over huge other dims: no overflow, an empty tensor.
  const int64_t huge[] = {int64_t(1) << 40, int64_t(1) << 40, 0};
  OnyxTensor *h = onyx_tensor_create(ONYX_F64, 3, huge);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(onyx_tensor_num_elements(h), 0);
  onyx_tensor_destroy(h);
}

TEST(Tensor, BadArgumentsGiveNull) {
  const int64_t shape[] = {2, 3};
  const int64_t negative[] = {2, -1};
  EXPECT_EQ(onyx_tensor_create(ONYX_UNDEFINED, 2, shape), nullptr);
  EXPECT_EQ(onyx_tensor_create(12345, 2, shape), nullptr);
  EXPECT_EQ(onyx_tensor_create(ONYX_F32, -1, shape), nullptr);
  EXPECT_EQ(onyx_tensor_create(ONYX_F32, 2, nullptr), nullptr);
  EXPECT_EQ(onyx_tensor_create(ONYX_F32, 2, negative), nullptr);
  // Non-empty copy from NULL.
  EXPECT_EQ(onyx_tensor_create_copy(ONYX_F32, 2, shape, nullptr), nullptr);
}

TEST(Tensor, OverflowingSizesGiveNull) {
  const int64_t big = int64_t(1) << 32;
  const int64_t elements[] = {big, big}; // 2^64 elements: int64 overflow.
  EXPECT_EQ(onyx_tensor_create(ONYX_U8, 2, elements), nullptr);
  const int64_t bytes[] = {int64_t(1) << 61}; // 2^64 bytes of f64.
  EXPECT_EQ(onyx_tensor_create(ONYX_F64, 1, bytes), nullptr);
  const int64_t max[] = {std::numeric_limits<int64_t>::max()};
  EXPECT_EQ(onyx_tensor_create(ONYX_U8, 1, max), nullptr); // Out of memory.
}

TEST(Tensor, NullTensorAccessors) {
  EXPECT_EQ(onyx_tensor_element_type(nullptr), ONYX_UNDEFINED);
  EXPECT_EQ(onyx_tensor_rank(nullptr), -1);
  EXPECT_EQ(onyx_tensor_shape(nullptr), nullptr);
  EXPECT_EQ(onyx_tensor_num_elements(nullptr), -1);
  EXPECT_EQ(onyx_tensor_byte_size(nullptr), 0u);
  EXPECT_EQ(onyx_tensor_data(nullptr), nullptr);
  onyx_tensor_destroy(nullptr); // No-op.
}

TEST(TensorList, OwnsItsTensors) {
  OnyxTensorList *list = onyx_tensor_list_create();
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(onyx_tensor_list_size(list), 0u);
  EXPECT_EQ(onyx_tensor_list_get(list, 0), nullptr);

  const int64_t s1[] = {2};
  const int32_t v1[] = {10, 20};
  OnyxTensor *a = onyx_tensor_create_copy(ONYX_I32, 1, s1, v1);
  OnyxTensor *b = onyx_tensor_create(ONYX_BOOL, 0, nullptr);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(onyx_tensor_list_append(list, a), 0);
  EXPECT_EQ(onyx_tensor_list_append(list, b), 0);
  EXPECT_EQ(onyx_tensor_list_size(list), 2u);
  EXPECT_EQ(onyx_tensor_list_get(list, 0), a);
  EXPECT_EQ(onyx_tensor_list_get(list, 1), b);
  EXPECT_EQ(onyx_tensor_list_get(list, 2), nullptr);
  EXPECT_EQ(static_cast<int32_t *>(
                onyx_tensor_data(onyx_tensor_list_get(list, 0)))[1],
            20);

  // Bad appends are refused without taking ownership or changing the list.
  EXPECT_NE(onyx_tensor_list_append(list, nullptr), 0);
  EXPECT_NE(onyx_tensor_list_append(list, a), 0); // Already owned.
  EXPECT_NE(onyx_tensor_list_append(nullptr, a), 0);
  EXPECT_EQ(onyx_tensor_list_size(list), 2u);

  EXPECT_EQ(onyx_tensor_list_size(nullptr), 0u);
  EXPECT_EQ(onyx_tensor_list_get(nullptr, 0), nullptr);
  onyx_tensor_list_destroy(
      list); // Destroys a and b (checked by ASan/valgrind).
  onyx_tensor_list_destroy(nullptr);
}

} // namespace
