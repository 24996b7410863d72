//===- OpsetNormalizationTest.cpp - Old operator versions, newest form ----===//
//
// lib/Import/OpsetNormalization.h on hand-built NodeProtos: attributes that
// became inputs move there (with the old default where the new one
// differs), versions whose meaning changed are refused, and undeclared,
// mistyped or unimplemented newer attributes are one message naming the
// node.
//
//===----------------------------------------------------------------------===//
#include "OpsetNormalization.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

using namespace onyx;
using namespace onyx::importer;

namespace {

onnx::NodeProto node(const std::string &op, std::vector<std::string> inputs) {
  onnx::NodeProto n;
  n.set_op_type(op);
  n.set_name("n0");
  for (const std::string &i : inputs)
    n.add_input(i);
  n.add_output("y");
  return n;
}

void intsAttr(onnx::NodeProto &n, const std::string &name,
              std::vector<int64_t> values) {
  onnx::AttributeProto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values)
    a->add_ints(v);
}

void intAttr(onnx::NodeProto &n, const std::string &name, int64_t value) {
  onnx::AttributeProto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

/// normalizeNode at `opset` against the newest schema.
std::string normalize(const onnx::NodeProto &n, int64_t opset,
                      NormalizedNode &norm) {
  const schema::OpSchema *version = schema::lookup(n.op_type(), opset);
  const schema::OpSchema *latest = schema::latest(n.op_type());
  EXPECT_TRUE(version && latest) << n.op_type() << " " << opset;
  if (!version || !latest)
    return "no schema";
  return normalizeNode(n, *version, *latest, "node 'n0'", norm);
}

} // namespace

TEST(OpsetNormalization, AttributeBecomesInput) {
  onnx::NodeProto n = node("ReduceSum", {"x"});
  intsAttr(n, "axes", {1, -1});
  intAttr(n, "keepdims", 0);
  NormalizedNode norm;
  ASSERT_EQ(normalize(n, 11, norm), "");
  ASSERT_EQ(norm.inputs.size(), 2u);
  EXPECT_EQ(norm.inputs[0], "x");
  EXPECT_EQ(norm.inputs[1], kAttrInputPrefix + "1");
  EXPECT_EQ(norm.intInputs[1], (std::vector<int64_t>{1, -1}));
  // keepdims stays an attribute; axes left the attribute list.
  ASSERT_EQ(norm.attributes.size(), 1u);
  EXPECT_EQ(norm.attributes[0]->name(), "keepdims");
}

TEST(OpsetNormalization, OldDefaultBecomesExplicitInput) {
  // DFT-17's axis defaults to 1; DFT-20's input to -2: an absent attribute
  // must become the old default.
  onnx::NodeProto n = node("DFT", {"x"});
  NormalizedNode norm;
  ASSERT_EQ(normalize(n, 17, norm), "");
  ASSERT_EQ(norm.inputs.size(), 3u);
  EXPECT_EQ(norm.intInputs[2], (std::vector<int64_t>{1}));
}

TEST(OpsetNormalization, NewestVersionIsUnchanged) {
  onnx::NodeProto n = node("ReduceSum", {"x", "axes"});
  NormalizedNode norm;
  ASSERT_EQ(normalize(n, 18, norm), "");
  EXPECT_EQ(norm.inputs, (std::vector<std::string>{"x", "axes"}));
  EXPECT_TRUE(norm.intInputs.empty());
}

TEST(OpsetNormalization, ChangedMeaningIsRefused) {
  onnx::NodeProto n = node("Softmax", {"x"});
  NormalizedNode norm;
  std::string error = normalize(n, 11, norm);
  EXPECT_NE(error.find("node 'n0': version 11 of this operator has different "
                       "semantics"),
            std::string::npos)
      << error;
}

TEST(OpsetNormalization, AttributesAreChecked) {
  const schema::OpSchema *softmax13 = schema::lookup("Softmax", 13);
  ASSERT_TRUE(softmax13);
  onnx::NodeProto n = node("Softmax", {"x"});
  intAttr(n, "axis", 1);
  EXPECT_EQ(checkAttributes(n, *softmax13, "node 'n0'"), "");
  // Not declared by the schema.
  intAttr(n, "bogus", 1);
  std::string error = checkAttributes(n, *softmax13, "node 'n0'");
  EXPECT_NE(error.find("attribute 'bogus' is not an attribute of Softmax"),
            std::string::npos)
      << error;
  // Declared with another kind.
  onnx::NodeProto m = node("Softmax", {"x"});
  intsAttr(m, "axis", {1});
  error = checkAttributes(m, *softmax13, "node 'n0'");
  EXPECT_NE(error.find("attribute 'axis' is a INTS, the schema declares INT"),
            std::string::npos)
      << error;
}
