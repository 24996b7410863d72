//===- SequenceTest.cpp - The runtime's sequence store
//---------------------===//
//
// Hand-written entries (standing in for generated code) drive the
// onyxrt_seq_* services through onyxrt_run: value semantics (an insert or
// erase leaves the old handle unchanged), positions checked with messages
// naming the node, optional inputs/outputs, and input validation of
// sequence values (docs/sequences.md).
//
//===----------------------------------------------------------------------===//
#include "RuntimeHandles.h"
#include "onyx/onyx_runtime.h"
#include "onyx/onyx_services.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

namespace {

using onyx::test::ListPtr;
using onyx::test::StatePtr;

const char *kMetadata = "onyx-model v1\n"
                        "input-sequence xs 1\n"
                        "input-optional maybe 1\n"
                        "output-sequence ys 1\n"
                        "output-optional-sequence old 1\n"
                        "output-optional none 1\n";

StatePtr makeState(int32_t (*entry)(void *), const char *metadata = kMetadata) {
  OnyxModelDesc desc{ONYX_ABI_VERSION, metadata, entry};
  const char *error = nullptr;
  StatePtr state(onyxrt_state_create(&desc, &error));
  EXPECT_TRUE(state) << (error ? error : "");
  return state;
}

OnyxTensor *vector(std::initializer_list<float> values) {
  int64_t n = int64_t(values.size());
  return onyx_tensor_create_copy(ONYX_F32, 1, &n, values.begin());
}

/// xs = [[1, 2], [3]]; maybe = absent.
ListPtr inputs(bool withNone = true) {
  ListPtr list(onyx_tensor_list_create());
  OnyxTensor *xs = onyx_sequence_create(ONYX_F32);
  EXPECT_EQ(onyx_sequence_append(xs, vector({1, 2})), 0);
  EXPECT_EQ(onyx_sequence_append(xs, vector({3})), 0);
  onyx_tensor_list_append(list.get(), xs);
  onyx_tensor_list_append(
      list.get(), withNone ? onyx_optional_none_create(ONYX_F32) : vector({7}));
  return list;
}

/// ys = insert(erase(xs, 0), xs[1] at the front); old = xs (unchanged);
/// none = maybe.
int32_t valueSemantics(void *ctx) {
  void *xs = onyxrt_input_value(ctx, 0);
  int64_t shape[1];
  void *second = onyxrt_seq_at(ctx, xs, -1, 1, shape, "At");
  if (!second || shape[0] != 1)
    return 1;
  void *erased = onyxrt_seq_erase(ctx, xs, 0, 1, "Erase");
  void *ys = onyxrt_seq_insert(ctx, erased, 0, 1, second, 1, shape, "Insert");
  if (!ys || onyxrt_seq_length(ctx, xs) != 2 || onyxrt_seq_length(ctx, ys) != 2)
    return 1;
  if (onyxrt_set_output_value(ctx, 0, ys, "Out") ||
      onyxrt_set_output_value(ctx, 1, xs, "Out") ||
      onyxrt_set_output_value(ctx, 2, onyxrt_input_value(ctx, 1), "Out"))
    return 1;
  return 0;
}

TEST(Sequence, MetadataKinds) {
  const char *error = nullptr;
  OnyxMetadata *md = onyx_metadata_parse(kMetadata, &error);
  ASSERT_TRUE(md) << error;
  EXPECT_EQ(onyx_metadata_num_inputs(md), 2u);
  EXPECT_EQ(onyx_metadata_num_outputs(md), 3u);
  EXPECT_EQ(onyx_metadata_kind(md, 0, 0), ONYX_SIGNATURE_SEQUENCE);
  EXPECT_EQ(onyx_metadata_kind(md, 0, 1), ONYX_SIGNATURE_OPTIONAL_TENSOR);
  EXPECT_EQ(onyx_metadata_kind(md, 1, 1), ONYX_SIGNATURE_OPTIONAL_SEQUENCE);
  EXPECT_EQ(onyx_metadata_rank(md, 0, 0), -1);
  EXPECT_EQ(onyx_metadata_element_type(md, 0, 0), ONYX_F32);
  onyx_metadata_destroy(md);
  EXPECT_FALSE(
      onyx_metadata_parse("onyx-model v1\ninput-sequence xs 1 2\n", &error));
}

TEST(Sequence, InsertAndEraseKeepTheOldSequence) {
  StatePtr state = makeState(valueSemantics);
  ListPtr in = inputs();
  ListPtr out(onyxrt_run(state.get(), in.get()));
  ASSERT_TRUE(out) << onyx_state_last_error(state.get());
  OnyxTensor *ys = onyx_tensor_list_get(out.get(), 0);
  ASSERT_EQ(onyx_value_kind(ys), ONYX_VALUE_SEQUENCE);
  ASSERT_EQ(onyx_sequence_length(ys), 2u);
  EXPECT_EQ(onyx_tensor_shape(onyx_sequence_get(ys, 0))[0], 1);
  EXPECT_EQ(static_cast<float *>(onyx_tensor_data(onyx_sequence_get(ys, 0)))[0],
            3.0f);
  OnyxTensor *old = onyx_tensor_list_get(out.get(), 1);
  ASSERT_EQ(onyx_sequence_length(old), 2u);
  EXPECT_EQ(onyx_tensor_shape(onyx_sequence_get(old, 0))[0], 2);
  EXPECT_EQ(
      static_cast<float *>(onyx_tensor_data(onyx_sequence_get(old, 0)))[1],
      2.0f);
  EXPECT_EQ(onyx_value_kind(onyx_tensor_list_get(out.get(), 2)),
            ONYX_VALUE_NONE);
  // The session is reusable; an optional tensor input is passed as is.
  ListPtr in2 = inputs(/*withNone=*/false);
  ListPtr out2(onyxrt_run(state.get(), in2.get()));
  ASSERT_TRUE(out2) << onyx_state_last_error(state.get());
  OnyxTensor *maybe = onyx_tensor_list_get(out2.get(), 2);
  ASSERT_EQ(onyx_value_kind(maybe), ONYX_VALUE_TENSOR);
  EXPECT_EQ(static_cast<float *>(onyx_tensor_data(maybe))[0], 7.0f);
}

int32_t atOutOfRange(void *ctx) {
  int64_t shape[1];
  return onyxrt_seq_at(ctx, onyxrt_input_value(ctx, 0), 2, 1, shape,
                       "SequenceAt_7")
             ? 0
             : 1;
}

int32_t insertOutOfRange(void *ctx) {
  float v = 1;
  int64_t shape[1] = {1};
  return onyxrt_seq_insert(ctx, onyxrt_input_value(ctx, 0), -3, 1, &v, 1, shape,
                           "Insert_2")
             ? 0
             : 1;
}

int32_t wrongRank(void *ctx) {
  int64_t shape[2];
  return onyxrt_seq_at(ctx, onyxrt_input_value(ctx, 0), 0, 2, shape, "At_3")
             ? 0
             : 1;
}

int32_t unwrapEmpty(void *ctx) {
  return onyxrt_optional_unwrap(ctx, onyxrt_input_value(ctx, 1), "Get_4") ? 0
                                                                          : 1;
}

TEST(Sequence, BadPositionsFailNamingTheNode) {
  struct Case {
    int32_t (*entry)(void *);
    const char *message;
  } cases[] = {
      {atOutOfRange, "node 'SequenceAt_7': SequenceAt position 2 is out of "
                     "range [-2, 1] for a sequence of length 2"},
      {insertOutOfRange, "node 'Insert_2': SequenceInsert position -3 is out "
                         "of range [-2, 2] for a sequence of length 2"},
      {wrongRank, "node 'At_3': sequence element 0 has rank 1, but the model "
                  "expects rank 2"},
      {unwrapEmpty, "node 'Get_4': OptionalGetElement of an empty optional"},
  };
  for (const Case &c : cases) {
    StatePtr state = makeState(c.entry);
    ListPtr in = inputs();
    ListPtr out(onyxrt_run(state.get(), in.get()));
    EXPECT_FALSE(out);
    EXPECT_EQ(std::string(onyx_state_last_error(state.get())), c.message);
  }
}

TEST(Sequence, InputsAreValidated) {
  StatePtr state = makeState(valueSemantics);
  ListPtr in(onyx_tensor_list_create());
  onyx_tensor_list_append(in.get(), vector({1}));
  onyx_tensor_list_append(in.get(), onyx_optional_none_create(ONYX_F32));
  EXPECT_FALSE(onyxrt_run(state.get(), in.get()));
  EXPECT_NE(std::string(onyx_state_last_error(state.get()))
                .find("input 'xs' (index 0) is a tensor, but the model "
                      "requires a sequence"),
            std::string::npos)
      << onyx_state_last_error(state.get());

  OnyxTensor *seq = onyx_sequence_create(ONYX_F32);
  int64_t n = 1;
  OnyxTensor *i64 = onyx_tensor_create(ONYX_I64, 1, &n);
  EXPECT_NE(onyx_sequence_append(seq, i64), 0); // wrong element type
  onyx_tensor_destroy(i64);
  EXPECT_NE(onyx_sequence_append(seq, seq), 0);
  onyx_tensor_destroy(seq);
}

} // namespace
