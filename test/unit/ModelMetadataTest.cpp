//===- ModelMetadataTest.cpp - The metadata writer against the parser -----===//
//
// What the compiler's one metadata writer (onyx/Transforms/ModelMetadata.h)
// produces is what the runtime's parser (onyx_metadata_parse) reads: names
// and symbols with bytes to escape come back unchanged, every signature
// kind, weight, device and serial lines, and the keywords both spell
// through onyx/onyx_abi.h. Every line kind the writer writes is one the
// runtime knows (a kind it did not know would be skipped silently), and a
// header the runtime does not know is refused.
//
//===----------------------------------------------------------------------===//

#include "onyx/Transforms/ModelMetadata.h"
#include "onyx/onyx_abi.h"
#include "onyx/onyx_runtime.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace onyx;

namespace {

struct Parsed {
  explicit Parsed(const std::string &text) {
    md = onyx_metadata_parse(text.c_str(), &error);
  }
  ~Parsed() { onyx_metadata_destroy(md); }
  OnyxMetadata *md = nullptr;
  const char *error = nullptr;
};

TEST(ModelMetadata, EscapesWhatTheParserUnescapes) {
  EXPECT_EQ(metadata::escapeName("a_b.c:d/e-f9"), "a_b.c:d/e-f9");
  EXPECT_EQ(metadata::escapeName("x y%\n"), "x%20y%25%0A");
  EXPECT_EQ(metadata::escapeName("\xff"), "%FF");
}

TEST(ModelMetadata, SignatureLinesRoundTrip) {
  std::string text = metadata::headerLine();
  EXPECT_EQ(text, "onyx-model v1\n");
  text += metadata::tensorLine(
      /*isInput=*/true, "in put", 1,
      {{3, ""}, {std::nullopt, "batch size"}, {std::nullopt, ""}});
  text += metadata::valueLine(/*isInput=*/true, metadata::ValueKind::Sequence,
                              "seq", 7);
  text += metadata::tensorLine(/*isInput=*/false, "out", 7, {});
  text += metadata::valueLine(/*isInput=*/false, metadata::ValueKind::Optional,
                              "opt", 1);
  text += metadata::valueLine(/*isInput=*/false,
                              metadata::ValueKind::OptionalSequence, "os", 9);
  EXPECT_EQ(metadata::tensorLine(
                true, "in put", 1,
                {{3, ""}, {std::nullopt, "batch size"}, {std::nullopt, ""}}),
            "input in%20put 1 3 3 ?batch%20size ?\n");

  Parsed p(text);
  ASSERT_TRUE(p.md) << p.error << "\n" << text;
  ASSERT_EQ(onyx_metadata_num_inputs(p.md), 2u);
  ASSERT_EQ(onyx_metadata_num_outputs(p.md), 3u);
  EXPECT_STREQ(onyx_metadata_name(p.md, 0, 0), "in put");
  EXPECT_EQ(onyx_metadata_rank(p.md, 0, 0), 3);
  EXPECT_EQ(onyx_metadata_dim(p.md, 0, 0, 0), 3);
  EXPECT_EQ(onyx_metadata_dim(p.md, 0, 0, 1), -1);
  EXPECT_STREQ(onyx_metadata_dim_symbol(p.md, 0, 0, 1), "batch size");
  EXPECT_STREQ(onyx_metadata_dim_symbol(p.md, 0, 0, 2), "");
  EXPECT_EQ(onyx_metadata_kind(p.md, 0, 1), ONYX_SIGNATURE_SEQUENCE);
  EXPECT_EQ(onyx_metadata_element_type(p.md, 0, 1), 7);
  EXPECT_EQ(onyx_metadata_kind(p.md, 1, 0), ONYX_SIGNATURE_TENSOR);
  EXPECT_EQ(onyx_metadata_rank(p.md, 1, 0), 0);
  EXPECT_EQ(onyx_metadata_kind(p.md, 1, 1), ONYX_SIGNATURE_OPTIONAL_TENSOR);
  EXPECT_EQ(onyx_metadata_kind(p.md, 1, 2), ONYX_SIGNATURE_OPTIONAL_SEQUENCE);
  EXPECT_EQ(onyx_metadata_element_type(p.md, 1, 2), 9);
}

TEST(ModelMetadata, WeightDeviceAndSerialLines) {
  EXPECT_EQ(metadata::weightLine(0, 64, 256, 0xABCDEFull, "w dir/w.bin"),
            "weight 0 64 256 ABCDEF w%20dir/w.bin\n");
  // A weight the session converts from f32 when it loads it (--precision).
  EXPECT_EQ(metadata::weightLine(1, 0, 16, 0, "w.bin", /*convertTo=*/16),
            "weight 1 0 16 0 w.bin 16\n");
  EXPECT_EQ(metadata::deviceLine(ONYX_METADATA_DEVICE_CUDA), "device cuda\n");
  EXPECT_EQ(metadata::serialLine("/NonZero"), "serial /NonZero\n");
  EXPECT_EQ(metadata::serialLine(""), "serial ?\n");
  // The runtime reads them all (serial lines inform callers; the runtime
  // accepts them).
  std::string text = metadata::headerLine() +
                     metadata::tensorLine(true, "x", 1, {{4, ""}}) +
                     metadata::weightLine(0, 0, 16, 0, "w.bin") +
                     metadata::serialLine("/CumSum");
  Parsed p(text);
  ASSERT_TRUE(p.md) << p.error;
  EXPECT_EQ(onyx_metadata_num_inputs(p.md), 1u);
  // A malformed weight line (the writer never writes one) is refused.
  Parsed bad(metadata::headerLine() + "weight 0 0 16\n");
  EXPECT_FALSE(bad.md);
}

// Whether the runtime knows the kind of `line` (one line, '\n'-terminated):
// the parser skips kinds it does not know (forward compatible,
// docs/runtime-abi.md), so a kind is known when the line parses and the same
// line with one word too many is refused.
bool knownToRuntime(const std::string &line) {
  Parsed wellFormed(metadata::headerLine() + line);
  if (!wellFormed.md)
    return false;
  std::string longer = line.substr(0, line.size() - 1) + " extra\n";
  Parsed malformed(metadata::headerLine() + longer);
  return malformed.md == nullptr;
}

TEST(ModelMetadata, EveryKindTheWriterWritesIsKnownToTheRuntime) {
  using metadata::ValueKind;
  std::vector<std::string> lines = {
      metadata::tensorLine(true, "x", 1, {{2, ""}, {std::nullopt, "n"}}),
      metadata::tensorLine(false, "y", 1, {}),
      metadata::weightLine(0, 0, 16, 0x1234, "w.bin"),
      metadata::weightLine(0, 0, 16, 0x1234, "w.bin", /*convertTo=*/10),
      metadata::deviceLine(ONYX_METADATA_DEVICE_CUDA),
      metadata::serialLine("/NonZero"),
      metadata::serialLine("")};
  for (bool isInput : {true, false})
    for (ValueKind kind : {ValueKind::Sequence, ValueKind::Optional,
                           ValueKind::OptionalSequence})
      lines.push_back(metadata::valueLine(isInput, kind, "v", 1));
  for (const std::string &line : lines)
    EXPECT_TRUE(knownToRuntime(line)) << line;
  // The check itself: a kind the runtime does not know fails it.
  EXPECT_FALSE(knownToRuntime("producer onyx 0.1\n"));
  EXPECT_FALSE(knownToRuntime("serialized /NonZero\n"));
}

TEST(ModelMetadata, UnknownHeaderIsRefused) {
  Parsed p(std::string(ONYX_METADATA_MAGIC) + " v2\n");
  ASSERT_FALSE(p.md);
  EXPECT_NE(std::string(p.error).find("unsupported metadata version"),
            std::string::npos)
      << p.error;
  Parsed q("onyx-modelz v1\n");
  EXPECT_FALSE(q.md);
}

} // namespace
