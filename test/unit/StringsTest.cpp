//===- StringsTest.cpp - String tensors and the string services -----------===//
#include "onyx/onyx_runtime.h"
#include "onyx/onyx_strings.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace {

TEST(StringTensor, CreateCopySetAndGet) {
  const int64_t shape[] = {3};
  const char *values[] = {"a", nullptr, "\xe7\x9a\x84"};
  OnyxTensor *t = onyx_tensor_create_copy(ONYX_STRING, 1, shape, values);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(onyx_tensor_byte_size(t), 3 * sizeof(const char *));
  EXPECT_STREQ(onyx_tensor_get_string(t, 0), "a");
  EXPECT_STREQ(onyx_tensor_get_string(t, 1), "");
  EXPECT_STREQ(onyx_tensor_get_string(t, 2), "\xe7\x9a\x84");
  // The tensor keeps copies, not the caller's pointers.
  EXPECT_NE(onyx_tensor_get_string(t, 0), values[0]);
  EXPECT_EQ(onyx_tensor_set_string(t, 1, "hello", 5), 0);
  EXPECT_STREQ(onyx_tensor_get_string(t, 1), "hello");
  EXPECT_EQ(static_cast<const char *const *>(onyx_tensor_data(t))[1],
            onyx_tensor_get_string(t, 1));
  // A NUL inside, out of range, NULL with a length: refused.
  EXPECT_EQ(onyx_tensor_set_string(t, 0, "a\0b", 3), -1);
  EXPECT_EQ(onyx_tensor_set_string(t, 3, "x", 1), -1);
  EXPECT_EQ(onyx_tensor_set_string(t, -1, "x", 1), -1);
  EXPECT_EQ(onyx_tensor_set_string(t, 0, nullptr, 2), -1);
  EXPECT_EQ(onyx_tensor_get_string(t, 3), nullptr);
  EXPECT_STREQ(onyx_tensor_get_string(t, 0), "a");
  onyx_tensor_destroy(t);

  // Zero-filled: every element reads "".
  OnyxTensor *zero = onyx_tensor_create(ONYX_STRING, 1, shape);
  ASSERT_NE(zero, nullptr);
  EXPECT_STREQ(onyx_tensor_get_string(zero, 2), "");
  onyx_tensor_destroy(zero);
  // Not a string tensor.
  OnyxTensor *f = onyx_tensor_create(ONYX_F32, 1, shape);
  EXPECT_EQ(onyx_tensor_set_string(f, 0, "x", 1), -1);
  EXPECT_EQ(onyx_tensor_get_string(f, 0), nullptr);
  onyx_tensor_destroy(f);
}

TEST(StringServices, EqualAndConcat) {
  EXPECT_EQ(onyxrt_str_equal("abc", "abc"), 1);
  EXPECT_EQ(onyxrt_str_equal("abc", "abd"), 0);
  EXPECT_EQ(onyxrt_str_equal(nullptr, ""), 1);
  EXPECT_STREQ(onyxrt_str_concat("ab", "cd"), "abcd");
  EXPECT_STREQ(onyxrt_str_concat(nullptr, "x"), "x");
}

TEST(StringServices, RegexFullMatch) {
  const char *p = "www\\.[\\w.-]+\\.\\bcom\\b";
  EXPECT_EQ(onyxrt_str_regex_full_match("www.google.com", p), 1);
  EXPECT_EQ(onyxrt_str_regex_full_match("www.bbc.co.uk", p), 0);
  const char *mail = "(\\W|^)[\\w.\\-]{0,25}@(yahoo|gmail)\\.com(\\W|$)";
  EXPECT_EQ(onyxrt_str_regex_full_match("account@gmail.com", mail), 1);
  EXPECT_EQ(onyxrt_str_regex_full_match("account@hotmail.com", mail), 0);
  // Full match, not search.
  EXPECT_EQ(onyxrt_str_regex_full_match("xabc", "abc"), 0);
}

TEST(StringServices, SplitLikePython) {
  // Whitespace runs, leading/trailing dropped.
  EXPECT_EQ(onyxrt_str_split_count("  hello   world ! ", "", -1), 3);
  EXPECT_STREQ(onyxrt_str_split_part("  hello   world ! ", "", -1, 1), "world");
  EXPECT_STREQ(onyxrt_str_split_part("a b", "", -1, 5), "");
  EXPECT_EQ(onyxrt_str_split_count("", "", -1), 0);
  EXPECT_EQ(onyxrt_str_split_count("   ", "", -1), 0);
  // maxsplit keeps the rest.
  EXPECT_EQ(onyxrt_str_split_count("the quick brown fox", "", 2), 3);
  EXPECT_STREQ(onyxrt_str_split_part("the quick brown fox", "", 2, 2),
               "brown fox");
  // A delimiter: empty parts kept, "" is one part.
  EXPECT_EQ(onyxrt_str_split_count("a,,b", ",", -1), 3);
  EXPECT_STREQ(onyxrt_str_split_part("a,,b", ",", -1, 1), "");
  EXPECT_EQ(onyxrt_str_split_count("", ",", -1), 1);
  EXPECT_EQ(onyxrt_str_split_count("a--b--c", "--", 1), 2);
  EXPECT_STREQ(onyxrt_str_split_part("a--b--c", "--", 1, 1), "b--c");
}

TEST(StringServices, CaseAndStopwords) {
  EXPECT_STREQ(onyxrt_str_change_case("Monday", 2), "MONDAY");
  EXPECT_STREQ(onyxrt_str_change_case("Monday", 1), "monday");
  EXPECT_STREQ(onyxrt_str_change_case("Monday", 0), "Monday");
  // Beyond ASCII (C.UTF-8's mapping): e-acute, and a CJK character kept.
  EXPECT_STREQ(onyxrt_str_change_case("\xc3\xa9t\xc3\xa9", 2),
               "\xc3\x89T\xc3\x89");
  EXPECT_STREQ(onyxrt_str_change_case("\xe7\x9a\x84", 2), "\xe7\x9a\x84");
  // Invalid UTF-8 bytes are kept.
  EXPECT_STREQ(onyxrt_str_change_case("a\xffz", 2), "A\xffZ");
  const char words[] = "monday\0tuesday";
  EXPECT_EQ(onyxrt_str_is_stopword("monday", words, 2, 1), 1);
  EXPECT_EQ(onyxrt_str_is_stopword("tuesday", words, 2, 1), 1);
  EXPECT_EQ(onyxrt_str_is_stopword("Monday", words, 2, 1), 0);
  EXPECT_EQ(onyxrt_str_is_stopword("Monday", words, 2, 0), 1);
  EXPECT_EQ(onyxrt_str_is_stopword("friday", words, 2, 0), 0);
}

TEST(StringServices, FloatsToStringsLikeNumpy) {
  EXPECT_STREQ(onyxrt_str_from_f32(0.9767611f), "0.9767611");
  EXPECT_STREQ(onyxrt_str_from_f32(0.039187793f), "0.039187793");
  EXPECT_STREQ(onyxrt_str_from_f32(1.0f), "1.0");
  EXPECT_STREQ(onyxrt_str_from_f32(-0.0f), "-0.0");
  EXPECT_STREQ(onyxrt_str_from_f32(100000.0f), "100000.0");
  EXPECT_STREQ(onyxrt_str_from_f32(1e-5f), "1e-05");
  EXPECT_STREQ(onyxrt_str_from_f32(1.5e20f), "1.5e+20");
  EXPECT_STREQ(onyxrt_str_from_f32(0.0001f), "0.0001");
  EXPECT_STREQ(onyxrt_str_from_f32(std::numeric_limits<float>::quiet_NaN()),
               "nan");
  EXPECT_STREQ(onyxrt_str_from_f32(-std::numeric_limits<float>::infinity()),
               "-inf");
  EXPECT_STREQ(onyxrt_str_from_f64(0.1), "0.1");
  EXPECT_STREQ(onyxrt_str_from_f64(123.25), "123.25");
  EXPECT_STREQ(onyxrt_str_from_i64(-42), "-42");
  EXPECT_STREQ(onyxrt_str_from_u64(18446744073709551615ull),
               "18446744073709551615");
}

TEST(StringServices, StringsToNumbers) {
  EXPECT_EQ(onyxrt_str_to_f32("0.47892547"), 0.47892547f);
  EXPECT_EQ(onyxrt_str_to_f32("1e-3"), 1e-3f);
  EXPECT_EQ(onyxrt_str_to_f32(" -2.5E+2 "), -250.0f);
  EXPECT_TRUE(std::isnan(onyxrt_str_to_f32("NaN")));
  EXPECT_EQ(onyxrt_str_to_f32("INF"), std::numeric_limits<float>::infinity());
  EXPECT_EQ(onyxrt_str_to_f32("+INF"), std::numeric_limits<float>::infinity());
  EXPECT_EQ(onyxrt_str_to_f32("-INF"), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(onyxrt_str_to_f64("0.1"), 0.1);
  EXPECT_EQ(onyxrt_str_to_i64("-128", 8), -128);
  EXPECT_EQ(onyxrt_str_to_u64("255", 8), 255u);
  EXPECT_EQ(onyxrt_str_to_i64("+7", 32), 7);
}

} // namespace
