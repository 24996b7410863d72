//===- MetadataTest.cpp - Metadata text parsing ---------------------------===//
#include "onyx/onyx_runtime.h"

#include <gtest/gtest.h>

#include <string>

namespace {

int32_t dummyEntry(void *) { return 0; }

/// Parses `text`, expecting failure; returns the message.
std::string parseError(const char *text) {
  const char *error = nullptr;
  OnyxMetadata *md = onyx_metadata_parse(text, &error);
  EXPECT_EQ(md, nullptr) << "parsed: " << (text ? text : "(null)");
  onyx_metadata_destroy(md);
  return error ? error : "(no message)";
}

TEST(Metadata, ParsesInputsOutputsAndDims) {
  const char *text = "onyx-model v1\n"
                     "input x 1 2 ?batch 3\n"
                     "input y%2Fz 7 3 ?batch ? 0\n"
                     "output out 9 1 ?\n"
                     "output s 11 0\n";
  const char *error = nullptr;
  OnyxMetadata *md = onyx_metadata_parse(text, &error);
  ASSERT_NE(md, nullptr) << error;
  ASSERT_EQ(onyx_metadata_num_inputs(md), 2u);
  ASSERT_EQ(onyx_metadata_num_outputs(md), 2u);

  EXPECT_STREQ(onyx_metadata_name(md, 0, 0), "x");
  EXPECT_EQ(onyx_metadata_element_type(md, 0, 0), ONYX_F32);
  EXPECT_EQ(onyx_metadata_rank(md, 0, 0), 2);
  EXPECT_EQ(onyx_metadata_dim(md, 0, 0, 0), -1);
  EXPECT_STREQ(onyx_metadata_dim_symbol(md, 0, 0, 0), "batch");
  EXPECT_EQ(onyx_metadata_dim(md, 0, 0, 1), 3);
  EXPECT_STREQ(onyx_metadata_dim_symbol(md, 0, 0, 1), "");

  EXPECT_STREQ(onyx_metadata_name(md, 0, 1), "y/z"); // Unescaped.
  EXPECT_EQ(onyx_metadata_element_type(md, 0, 1), ONYX_I64);
  EXPECT_EQ(onyx_metadata_rank(md, 0, 1), 3);
  EXPECT_EQ(onyx_metadata_dim(md, 0, 1, 1), -1);
  EXPECT_STREQ(onyx_metadata_dim_symbol(md, 0, 1, 1), ""); // Plain "?".
  EXPECT_EQ(onyx_metadata_dim(md, 0, 1, 2), 0);

  EXPECT_STREQ(onyx_metadata_name(md, 1, 0), "out");
  EXPECT_EQ(onyx_metadata_element_type(md, 1, 0), ONYX_BOOL);
  EXPECT_EQ(onyx_metadata_rank(md, 1, 1), 0);
  EXPECT_EQ(onyx_metadata_element_type(md, 1, 1), ONYX_F64);

  EXPECT_EQ(onyx_metadata_find_input(md, "y/z"), 1);
  EXPECT_EQ(onyx_metadata_find_input(md, "x"), 0);
  EXPECT_EQ(onyx_metadata_find_input(md, "out"), -1);
  EXPECT_EQ(onyx_metadata_find_input(md, nullptr), -1);

  // Out of range queries.
  EXPECT_EQ(onyx_metadata_name(md, 0, 2), nullptr);
  EXPECT_EQ(onyx_metadata_element_type(md, 1, 5), ONYX_UNDEFINED);
  EXPECT_EQ(onyx_metadata_rank(md, 1, 2), -1);
  EXPECT_EQ(onyx_metadata_dim(md, 0, 0, 2), -2);
  EXPECT_EQ(onyx_metadata_dim(md, 0, 0, -1), -2);
  EXPECT_EQ(onyx_metadata_dim_symbol(md, 1, 1, 0), nullptr);
  onyx_metadata_destroy(md);
}

TEST(Metadata, ToleratesBlankLinesCrLfAndUnknownKinds) {
  const char *text = "\n  onyx-model   v1\r\n"
                     "\n"
                     "producer onyx 0.1 whatever\n"
                     "input a%25b\t2 1\t?n%20m\r\n"
                     "output c 1 1 5"; // No trailing newline.
  const char *error = nullptr;
  OnyxMetadata *md = onyx_metadata_parse(text, &error);
  ASSERT_NE(md, nullptr) << error;
  EXPECT_EQ(onyx_metadata_num_inputs(md), 1u);
  EXPECT_STREQ(onyx_metadata_name(md, 0, 0), "a%b");
  EXPECT_EQ(onyx_metadata_element_type(md, 0, 0), ONYX_U8);
  EXPECT_STREQ(onyx_metadata_dim_symbol(md, 0, 0, 0), "n m");
  EXPECT_EQ(onyx_metadata_dim(md, 1, 0, 0), 5);
  onyx_metadata_destroy(md);
}

TEST(Metadata, NoInputsIsValid) {
  const char *error = nullptr;
  OnyxMetadata *md =
      onyx_metadata_parse("onyx-model v1\noutput k 6 1 4\n", &error);
  ASSERT_NE(md, nullptr) << error;
  EXPECT_EQ(onyx_metadata_num_inputs(md), 0u);
  EXPECT_EQ(onyx_metadata_num_outputs(md), 1u);
  onyx_metadata_destroy(md);
}

TEST(Metadata, MalformedTextIsRejectedWithAClearMessage) {
  EXPECT_EQ(parseError(nullptr), "metadata is NULL");
  EXPECT_EQ(parseError(""),
            "metadata is empty (expected header 'onyx-model v1')");
  EXPECT_EQ(parseError("input x 1 1 3\n"),
            "metadata line 1: expected header 'onyx-model v1'");
  EXPECT_EQ(parseError("onyx-model v2\ninput x 1 1 3\n"),
            "metadata line 1: unsupported metadata version 'v2' (this "
            "runtime reads v1)");
  EXPECT_EQ(parseError("onyx-model v1\ninput x 1\n"),
            "metadata line 2: 'input' needs <name> <elem> <rank> <dim>...");
  EXPECT_EQ(parseError("onyx-model v1\ninput x f32 1 3\n"),
            "metadata line 2: input 'x': bad element type 'f32'");
  EXPECT_EQ(parseError("onyx-model v1\noutput y 14 1 3\n"),
            "metadata line 2: output 'y': unsupported element type 14");
  EXPECT_EQ(parseError("onyx-model v1\ninput x 1 -1\n"),
            "metadata line 2: input 'x': bad rank '-1'");
  EXPECT_EQ(parseError("onyx-model v1\ninput x 1 2 3\n"),
            "metadata line 2: input 'x': rank 2 but 1 dims");
  EXPECT_EQ(parseError("onyx-model v1\ninput x 1 1 3 4\n"),
            "metadata line 2: input 'x': rank 1 but 2 dims");
  EXPECT_EQ(parseError("onyx-model v1\n\ninput x 1 2 3 -4\n"),
            "metadata line 3: input 'x' dim 1: bad dim '-4' (expected an "
            "integer >= 0, '?' or '?NAME')");
  EXPECT_EQ(parseError("onyx-model v1\ninput x 1 1 99999999999999999999\n"),
            "metadata line 2: input 'x' dim 0: bad dim "
            "'99999999999999999999' (expected an integer >= 0, '?' or "
            "'?NAME')");
  EXPECT_EQ(parseError("onyx-model v1\ninput x%4 1 1 3\n"),
            "metadata line 2: malformed escape in 'x%4' (expected %XX)");
  EXPECT_EQ(parseError("onyx-model v1\ninput x 1 1 ?b%zz\n"),
            "metadata line 2: input 'x' dim 0: malformed escape in 'b%zz' "
            "(expected %XX)");
  EXPECT_EQ(parseError("onyx-model v1\ninput x 1 1 3\ninput x 1 1 3\n"),
            "metadata line 3: duplicate input 'x'");
}

TEST(Session, CreateRejectsBadDescriptors) {
  const char *error = nullptr;
  EXPECT_EQ(onyxrt_state_create(nullptr, &error), nullptr);
  EXPECT_STREQ(error, "model descriptor is NULL");
  EXPECT_STREQ(onyxrt_state_create_error(), "model descriptor is NULL");

  OnyxModelDesc desc = {2, "onyx-model v1\n", dummyEntry};
  EXPECT_EQ(onyxrt_state_create(&desc, &error), nullptr);
  EXPECT_STREQ(error,
               "artifact ABI version 2, but this runtime supports version 1");

  desc = {ONYX_ABI_VERSION, "onyx-model v1\n", nullptr};
  EXPECT_EQ(onyxrt_state_create(&desc, &error), nullptr);
  EXPECT_STREQ(error, "model descriptor has no entry function");

  desc = {ONYX_ABI_VERSION, "onyx-model v1\ninput x 1 1 ?n ?m\n", dummyEntry};
  EXPECT_EQ(onyxrt_state_create(&desc, nullptr), nullptr); // errorOut NULL.
  EXPECT_STREQ(onyxrt_state_create_error(),
               "invalid model metadata: metadata line 2: input 'x': rank 1 "
               "but 2 dims");

  desc = {ONYX_ABI_VERSION, "onyx-model v1\ninput x 1 1 3\n", dummyEntry};
  OnyxState *state = onyxrt_state_create(&desc, &error);
  ASSERT_NE(state, nullptr);
  EXPECT_STREQ(onyxrt_state_create_error(), "");
  EXPECT_STREQ(onyx_state_metadata(state), "onyx-model v1\ninput x 1 1 3\n");
  EXPECT_STREQ(onyx_state_last_error(state), "");
  onyxrt_state_destroy(state);
  onyxrt_state_destroy(nullptr);
}

} // namespace
