//===- TensorIOTest.cpp - onyx-run's .npy and TensorProto I/O -------------===//
#include "TensorIO.h"

#include <onnx/onnx_pb.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

using namespace onyx::run;

namespace {

/// Builds .npy bytes by hand (what NumPy writes), for any header version.
std::string npyBytes(const std::string &dict, const std::string &data,
                     int version = 1) {
  std::string header = dict + "\n";
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(version));
  out.push_back('\0');
  size_t n = header.size();
  for (int i = 0; i < (version == 1 ? 2 : 4); ++i)
    out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  return out + header + data;
}

std::string floatBytes(std::vector<float> values) {
  return std::string(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(float));
}

std::vector<int64_t> shapeOf(OnyxTensor *t) {
  const int64_t *s = onyx_tensor_shape(t);
  return std::vector<int64_t>(s, s + onyx_tensor_rank(t));
}

template <typename T> std::vector<T> valuesOf(OnyxTensor *t) {
  const T *data = static_cast<const T *>(onyx_tensor_data(t));
  return std::vector<T>(data, data + onyx_tensor_num_elements(t));
}

std::string npyError(const std::string &bytes) {
  std::string error;
  TensorPtr t = parseNpy(bytes, "'f.npy'", error);
  EXPECT_EQ(t, nullptr);
  return error;
}

std::string protoError(const onnx::TensorProto &proto) {
  std::string error;
  TensorPtr t = parseTensorProto(proto.SerializeAsString(), "'t.pb'", error);
  EXPECT_EQ(t, nullptr);
  return error;
}

const char kDict23[] =
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";

} // namespace

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

TEST(Npy, ReadsAllHeaderVersions) {
  std::string data = floatBytes({1, 2, 3, 4, 5, 6});
  for (int version : {1, 2, 3}) {
    std::string error;
    TensorPtr t = parseNpy(npyBytes(kDict23, data, version), "'f'", error);
    ASSERT_NE(t, nullptr) << "v" << version << ": " << error;
    EXPECT_EQ(onyx_tensor_element_type(t.get()), ONYX_F32);
    EXPECT_EQ(shapeOf(t.get()), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(valuesOf<float>(t.get()), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  }
}

TEST(Npy, HeaderVariants) {
  std::string error;
  // Double quotes, other key order, no trailing comma, Python 2 longs.
  TensorPtr t = parseNpy(npyBytes("{\"shape\": (2L, 3L), \"fortran_order\": "
                                  "False, \"descr\": \"<f4\"}",
                                  floatBytes({1, 2, 3, 4, 5, 6})),
                         "'f'", error);
  ASSERT_NE(t, nullptr) << error;
  EXPECT_EQ(shapeOf(t.get()), (std::vector<int64_t>{2, 3}));
  // Rank 0 and zero-size.
  t = parseNpy(npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': "
                        "(), }",
                        std::string("\x2a\0\0\0\0\0\0\0", 8)),
               "'f'", error);
  ASSERT_NE(t, nullptr) << error;
  EXPECT_EQ(onyx_tensor_rank(t.get()), 0);
  EXPECT_EQ(valuesOf<int64_t>(t.get()), (std::vector<int64_t>{42}));
  t = parseNpy(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(4, 0), }",
                        ""),
               "'f'", error);
  ASSERT_NE(t, nullptr) << error;
  EXPECT_EQ(shapeOf(t.get()), (std::vector<int64_t>{4, 0}));
}

TEST(Npy, AllDtypes) {
  struct Case {
    const char *descr;
    int32_t type;
  } cases[] = {{"<f4", ONYX_F32}, {"<f8", ONYX_F64}, {"<f2", ONYX_F16},
               {"|i1", ONYX_I8},  {"<i2", ONYX_I16}, {"<i4", ONYX_I32},
               {"<i8", ONYX_I64}, {"|u1", ONYX_U8},  {"<u2", ONYX_U16},
               {"<u4", ONYX_U32}, {"<u8", ONYX_U64}, {"|b1", ONYX_BOOL},
               {"=f4", ONYX_F32}, {"<V2", ONYX_BF16}};
  for (const Case &c : cases) {
    size_t size = onyx_element_size(c.type);
    std::string data(3 * size, '\x01');
    std::string error;
    TensorPtr t = parseNpy(npyBytes(std::string("{'descr': '") + c.descr +
                                        "', 'fortran_order': False, "
                                        "'shape': (3,), }",
                                    data),
                           "'f'", error);
    ASSERT_NE(t, nullptr) << c.descr << ": " << error;
    EXPECT_EQ(onyx_tensor_element_type(t.get()), c.type) << c.descr;
    EXPECT_EQ(std::memcmp(onyx_tensor_data(t.get()), data.data(), data.size()),
              0);
  }
}

TEST(Npy, RejectsUnsupportedFilesCleanly) {
  std::string data = floatBytes({1, 2, 3, 4, 5, 6});
  EXPECT_EQ(npyError("PK\x03\x04 zip"), "'f.npy': not a .npy file (bad magic)");
  EXPECT_EQ(npyError(npyBytes(kDict23, data, 4)),
            "'f.npy': unsupported .npy format version 4");
  EXPECT_EQ(npyError(npyBytes(kDict23, data).substr(0, 30)),
            "'f.npy': truncated .npy header");
  EXPECT_EQ(npyError(npyBytes("{'descr': '<f4', 'fortran_order': True, "
                              "'shape': (2, 3), }",
                              data)),
            "'f.npy': Fortran-order .npy arrays are not supported; save a "
            "C-contiguous array");
  EXPECT_EQ(npyError(npyBytes("{'descr': '>f4', 'fortran_order': False, "
                              "'shape': (2, 3), }",
                              data)),
            "'f.npy': big-endian .npy data ('>f4') is not supported; save it "
            "little-endian");
  EXPECT_EQ(npyError(npyBytes("{'descr': '<c8', 'fortran_order': False, "
                              "'shape': (3,), }",
                              data)),
            "'f.npy': unsupported .npy dtype '<c8' (supported: f2 f4 f8 i1 i2 "
            "i4 i8 u1 u2 u4 u8 b1)");
  EXPECT_EQ(npyError(npyBytes("{'descr': [('a', '<f4')], 'fortran_order': "
                              "False, 'shape': (3,), }",
                              data)),
            "'f.npy': malformed .npy header: 'descr' is not a simple dtype "
            "string (structured dtypes are not supported)");
  EXPECT_EQ(npyError(npyBytes("{'descr': '<f4', 'shape': (2, 3), }", data)),
            "'f.npy': malformed .npy header: missing 'descr', "
            "'fortran_order' or 'shape'");
  EXPECT_EQ(npyError(npyBytes("{'descr': '<f4', 'fortran_order': False, "
                              "'shape': (2, -3), }",
                              data)),
            "'f.npy': malformed .npy header: 'shape' must be a tuple of "
            "non-negative integers");
  EXPECT_EQ(npyError(npyBytes(kDict23, data.substr(0, 20))),
            "'f.npy': expected 24 data bytes, found 20");
  EXPECT_EQ(npyError(npyBytes(kDict23, data + "xx")),
            "'f.npy': expected 24 data bytes, found 26");
  // A shape whose size overflows is refused, not allocated.
  EXPECT_EQ(npyError(npyBytes("{'descr': '<f8', 'fortran_order': False, "
                              "'shape': (4294967296, 4294967296), }",
                              "")),
            "'f.npy': cannot allocate a f64 tensor of shape "
            "[4294967296,4294967296] (too large or out of memory)");
}

TEST(Npy, WriteThenReadRoundTripsEveryType) {
  const int32_t types[] = {ONYX_F32, ONYX_F64, ONYX_F16, ONYX_BF16, ONYX_I8,
                           ONYX_I16, ONYX_I32, ONYX_I64, ONYX_U8,   ONYX_U16,
                           ONYX_U32, ONYX_U64, ONYX_BOOL};
  for (int32_t type : types) {
    const int64_t shape[] = {2, 5};
    TensorPtr t(onyx_tensor_create(type, 2, shape));
    auto *bytes = static_cast<unsigned char *>(onyx_tensor_data(t.get()));
    for (size_t i = 0; i < onyx_tensor_byte_size(t.get()); ++i)
      bytes[i] = type == ONYX_BOOL ? i % 2 : static_cast<unsigned char>(i * 7);
    std::string file, error;
    ASSERT_TRUE(formatNpy(t.get(), file, error)) << error;
    // NumPy's layout: the data starts at a multiple of 64 bytes.
    size_t headerLen = static_cast<unsigned char>(file[8]) |
                       static_cast<unsigned char>(file[9]) << 8;
    EXPECT_EQ((10 + headerLen) % 64, 0u);
    EXPECT_EQ(file[10 + headerLen - 1], '\n');
    EXPECT_NE(file.find("'descr': '" + npyDescr(type) + "'"),
              std::string::npos);
    TensorPtr back = parseNpy(file, "'f'", error);
    ASSERT_NE(back, nullptr) << onyx_element_name(type) << ": " << error;
    EXPECT_EQ(onyx_tensor_element_type(back.get()), type);
    EXPECT_EQ(shapeOf(back.get()), (std::vector<int64_t>{2, 5}));
    EXPECT_EQ(std::memcmp(onyx_tensor_data(back.get()), bytes,
                          onyx_tensor_byte_size(t.get())),
              0);
  }
  EXPECT_EQ(npyDescr(ONYX_BOOL), "|b1");
  EXPECT_EQ(npyDescr(ONYX_F32), "<f4");
  EXPECT_EQ(npyDescr(ONYX_STRING), "");
}

TEST(Npy, WritesShapesLikeNumPy) {
  std::string file, error;
  TensorPtr scalar(onyx_tensor_create(ONYX_I64, 0, nullptr));
  ASSERT_TRUE(formatNpy(scalar.get(), file, error));
  EXPECT_NE(file.find("'shape': (), }"), std::string::npos);
  const int64_t one[] = {3};
  TensorPtr vec(onyx_tensor_create(ONYX_F32, 1, one));
  ASSERT_TRUE(formatNpy(vec.get(), file, error));
  EXPECT_NE(file.find("'shape': (3,), }"), std::string::npos);
  const int64_t three[] = {2, 0, 4};
  TensorPtr empty(onyx_tensor_create(ONYX_F32, 3, three));
  ASSERT_TRUE(formatNpy(empty.get(), file, error));
  EXPECT_NE(file.find("'shape': (2, 0, 4), }"), std::string::npos);
  EXPECT_EQ(file.size() % 64, 0u); // No data after the header.
  EXPECT_EQ(describeTensor(empty.get()), "f32[2,0,4]");
  EXPECT_EQ(describeTensor(scalar.get()), "i64[]");
}

//===----------------------------------------------------------------------===//
// TensorProto
//===----------------------------------------------------------------------===//

TEST(TensorProto, RawData) {
  onnx::TensorProto proto;
  proto.set_name("input_0");
  proto.set_data_type(onnx::TensorProto::FLOAT);
  proto.add_dims(2);
  proto.add_dims(3);
  proto.set_raw_data(floatBytes({1, 2, 3, 4, 5, 6}));
  std::string error;
  TensorPtr t = parseTensorProto(proto.SerializeAsString(), "'t'", error);
  ASSERT_NE(t, nullptr) << error;
  EXPECT_EQ(shapeOf(t.get()), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(valuesOf<float>(t.get()), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(TensorProto, TypedFields) {
  std::string error;
  auto parse = [&](const onnx::TensorProto &proto) {
    TensorPtr t = parseTensorProto(proto.SerializeAsString(), "'t'", error);
    EXPECT_NE(t, nullptr) << error;
    return t;
  };
  onnx::TensorProto p;
  p.add_dims(3);

  p.set_data_type(onnx::TensorProto::FLOAT);
  for (float v : {1.5f, -2.0f, 0.25f})
    p.add_float_data(v);
  EXPECT_EQ(valuesOf<float>(parse(p).get()),
            (std::vector<float>{1.5f, -2.0f, 0.25f}));
  p.clear_float_data();

  p.set_data_type(onnx::TensorProto::DOUBLE);
  for (double v : {1.5, -2.0, 1e300})
    p.add_double_data(v);
  EXPECT_EQ(valuesOf<double>(parse(p).get()),
            (std::vector<double>{1.5, -2.0, 1e300}));
  p.clear_double_data();

  p.set_data_type(onnx::TensorProto::INT64);
  for (int64_t v : {INT64_MIN, int64_t(0), INT64_MAX})
    p.add_int64_data(v);
  EXPECT_EQ(valuesOf<int64_t>(parse(p).get()),
            (std::vector<int64_t>{INT64_MIN, 0, INT64_MAX}));
  p.clear_int64_data();

  p.set_data_type(onnx::TensorProto::UINT64);
  for (uint64_t v : {uint64_t(0), uint64_t(7), UINT64_MAX})
    p.add_uint64_data(v);
  EXPECT_EQ(valuesOf<uint64_t>(parse(p).get()),
            (std::vector<uint64_t>{0, 7, UINT64_MAX}));
  p.set_data_type(onnx::TensorProto::UINT32);
  p.set_uint64_data(2, UINT32_MAX);
  EXPECT_EQ(valuesOf<uint32_t>(parse(p).get()),
            (std::vector<uint32_t>{0, 7, UINT32_MAX}));
  p.clear_uint64_data();

  // int32_data carries every narrower type.
  for (int32_t v : {-1, 127, -128})
    p.add_int32_data(v);
  p.set_data_type(onnx::TensorProto::INT8);
  EXPECT_EQ(valuesOf<int8_t>(parse(p).get()),
            (std::vector<int8_t>{-1, 127, -128}));
  p.set_data_type(onnx::TensorProto::INT32);
  EXPECT_EQ(valuesOf<int32_t>(parse(p).get()),
            (std::vector<int32_t>{-1, 127, -128}));
  p.set_data_type(onnx::TensorProto::INT16);
  p.set_int32_data(0, -32768);
  EXPECT_EQ(valuesOf<int16_t>(parse(p).get()),
            (std::vector<int16_t>{-32768, 127, -128}));
  p.set_data_type(onnx::TensorProto::BOOL);
  EXPECT_EQ(valuesOf<uint8_t>(parse(p).get()), (std::vector<uint8_t>{1, 1, 1}));
  p.set_int32_data(1, 0);
  EXPECT_EQ(valuesOf<uint8_t>(parse(p).get()), (std::vector<uint8_t>{1, 0, 1}));
  p.set_data_type(onnx::TensorProto::UINT8);
  p.set_int32_data(0, 255);
  EXPECT_EQ(valuesOf<uint8_t>(parse(p).get()),
            (std::vector<uint8_t>{255, 0, 128}));
  // f16 / bf16: the bit patterns, e.g. 1.0 = 0x3c00 (f16), 0x3f80 (bf16).
  p.set_data_type(onnx::TensorProto::FLOAT16);
  p.set_int32_data(0, 0x3c00);
  p.set_int32_data(1, 0xc000);
  p.set_int32_data(2, 0x7bff);
  EXPECT_EQ(valuesOf<uint16_t>(parse(p).get()),
            (std::vector<uint16_t>{0x3c00, 0xc000, 0x7bff}));
  p.set_data_type(onnx::TensorProto::BFLOAT16);
  p.set_int32_data(0, 0x3f80);
  EXPECT_EQ(valuesOf<uint16_t>(parse(p).get()),
            (std::vector<uint16_t>{0x3f80, 0xc000, 0x7bff}));
  p.set_data_type(onnx::TensorProto::UINT16);
  EXPECT_EQ(valuesOf<uint16_t>(parse(p).get()),
            (std::vector<uint16_t>{0x3f80, 0xc000, 0x7bff}));
}

TEST(TensorProto, ScalarsAndEmptyTensors) {
  onnx::TensorProto p;
  p.set_data_type(onnx::TensorProto::INT64);
  p.add_int64_data(-9);
  std::string error;
  TensorPtr t = parseTensorProto(p.SerializeAsString(), "'t'", error);
  ASSERT_NE(t, nullptr) << error;
  EXPECT_EQ(onyx_tensor_rank(t.get()), 0);
  EXPECT_EQ(valuesOf<int64_t>(t.get()), (std::vector<int64_t>{-9}));

  onnx::TensorProto e;
  e.set_data_type(onnx::TensorProto::FLOAT);
  e.add_dims(0);
  e.add_dims(4);
  t = parseTensorProto(e.SerializeAsString(), "'t'", error);
  ASSERT_NE(t, nullptr) << error;
  EXPECT_EQ(shapeOf(t.get()), (std::vector<int64_t>{0, 4}));
}

TEST(TensorProto, RejectsUnsupportedTensorsCleanly) {
  onnx::TensorProto p;
  p.set_data_type(onnx::TensorProto::FLOAT);
  p.add_dims(2);
  p.add_dims(3);
  EXPECT_EQ(protoError(p),
            "'t.pb': float_data has 0 values, but the shape needs 6");
  p.set_raw_data(floatBytes({1, 2, 3}));
  EXPECT_EQ(protoError(p),
            "'t.pb': raw_data has 12 bytes, but the f32 shape needs 24");
  p.clear_raw_data();

  onnx::TensorProto ext = p;
  ext.set_data_location(onnx::TensorProto::EXTERNAL);
  onnx::StringStringEntryProto *entry = ext.add_external_data();
  entry->set_key("location");
  entry->set_value("weights.bin");
  EXPECT_EQ(protoError(ext),
            "'t.pb': TensorProto with external data is not supported");

  onnx::TensorProto seg = p;
  seg.mutable_segment()->set_begin(0);
  EXPECT_EQ(protoError(seg), "'t.pb': segmented TensorProto is not supported");

  onnx::TensorProto complex;
  complex.set_data_type(onnx::TensorProto::COMPLEX64);
  complex.add_float_data(1);
  complex.add_float_data(2);
  EXPECT_EQ(protoError(complex),
            "'t.pb': unsupported TensorProto data type 14 (unknown)");

  // Strings (docs/runtime.md, "String tensors"): string_data only, one per
  // element, no NUL byte.
  onnx::TensorProto str;
  str.set_data_type(onnx::TensorProto::STRING);
  str.add_dims(2);
  str.add_string_data("hello");
  EXPECT_EQ(protoError(str),
            "'t.pb': string_data has 1 values, but the shape needs 2");
  str.add_string_data(std::string("a\0b", 3));
  EXPECT_EQ(protoError(str), "'t.pb': string 1 contains a NUL byte, which "
                             "Onyx's strings cannot hold");
  str.set_raw_data("xx");
  EXPECT_EQ(protoError(str),
            "'t.pb': a string tensor must use string_data, not raw_data");

  onnx::TensorProto undefined;
  undefined.add_dims(1);
  EXPECT_EQ(protoError(undefined),
            "'t.pb': unsupported TensorProto data type 0 (unknown)");

  onnx::TensorProto negative;
  negative.set_data_type(onnx::TensorProto::FLOAT);
  negative.add_dims(-2);
  EXPECT_EQ(protoError(negative), "'t.pb': negative dim -2");

  std::string error;
  EXPECT_EQ(parseTensorProto("\xff\xff\xff\xff garbage", "'g'", error),
            nullptr);
  EXPECT_EQ(error, "'g': not a .npy file or an ONNX TensorProto");
}

//===----------------------------------------------------------------------===//
// The newer ONNX element types (docs/element-types.md)
//===----------------------------------------------------------------------===//

#include "onyx/onyx_elements.h"

TEST(SubByte, PackAndUnpackFollowOnnx) {
  // int4 [-8, 7, -1] -> codes [8, 7, 15] -> bytes [0x78, 0x0f]: element 2i
  // in the low nibble, the last byte zero-padded.
  const uint8_t codes4[] = {0x8, 0x7, 0xf};
  uint8_t packed[2] = {0xaa, 0xaa};
  EXPECT_EQ(onyx_packed_bytes(ONYX_I4, 3), 2u);
  onyx_pack_elements(ONYX_I4, codes4, 3, packed);
  EXPECT_EQ(packed[0], 0x78);
  EXPECT_EQ(packed[1], 0x0f);
  uint8_t back[3];
  onyx_unpack_elements(ONYX_I4, packed, 3, back);
  EXPECT_EQ(std::memcmp(back, codes4, 3), 0);
  EXPECT_EQ(onyx_subbyte_value(ONYX_I4, 0x8), -8);
  EXPECT_EQ(onyx_subbyte_value(ONYX_I4, 0xf), -1);
  EXPECT_EQ(onyx_subbyte_value(ONYX_U4, 0xf), 15);
  // 2-bit: element 4i+j in bits 2j..2j+1.
  const uint8_t codes2[] = {0, 1, 2, 3, 3};
  uint8_t packed2[2];
  EXPECT_EQ(onyx_packed_bytes(ONYX_U2, 5), 2u);
  onyx_pack_elements(ONYX_U2, codes2, 5, packed2);
  EXPECT_EQ(packed2[0], 0xe4);
  EXPECT_EQ(packed2[1], 0x03);
  uint8_t back2[5];
  onyx_unpack_elements(ONYX_I2, packed2, 5, back2);
  EXPECT_EQ(std::memcmp(back2, codes2, 5), 0);
  EXPECT_EQ(onyx_subbyte_value(ONYX_I2, 2), -2);
  EXPECT_EQ(onyx_subbyte_bits(ONYX_F4E2M1), 4);
  EXPECT_EQ(onyx_subbyte_bits(ONYX_F8E4M3FN), 0);
}

TEST(TensorProto, SubByteTypesAreUnpacked) {
  std::string error;
  onnx::TensorProto p;
  p.set_data_type(22); // INT4
  p.add_dims(3);
  p.set_raw_data(std::string("\x78\x0f", 2));
  TensorPtr t = parseTensorProto(p.SerializeAsString(), "'t'", error);
  ASSERT_NE(t, nullptr) << error;
  EXPECT_EQ(onyx_tensor_element_type(t.get()), ONYX_I4);
  EXPECT_EQ(valuesOf<uint8_t>(t.get()), (std::vector<uint8_t>{8, 7, 15}));

  // int32_data: one packed byte per entry.
  p.clear_raw_data();
  p.add_int32_data(0x78);
  p.add_int32_data(0x0f);
  t = parseTensorProto(p.SerializeAsString(), "'t'", error);
  ASSERT_NE(t, nullptr) << error;
  EXPECT_EQ(valuesOf<uint8_t>(t.get()), (std::vector<uint8_t>{8, 7, 15}));

  onnx::TensorProto two;
  two.set_data_type(26); // INT2
  two.add_dims(2);
  two.add_dims(3);
  two.set_raw_data(std::string("\xe4\x09", 2));
  t = parseTensorProto(two.SerializeAsString(), "'t'", error);
  ASSERT_NE(t, nullptr) << error;
  EXPECT_EQ(valuesOf<uint8_t>(t.get()),
            (std::vector<uint8_t>{0, 1, 2, 3, 1, 2}));

  // The packed size is checked.
  p.clear_int32_data();
  p.set_raw_data(std::string("\x78\x0f\x00", 3));
  EXPECT_EQ(protoError(p), "'t.pb': raw_data has 3 bytes, but the i4 shape "
                           "needs 2 (packed)");
  p.clear_raw_data();
  p.add_int32_data(0x78);
  EXPECT_EQ(protoError(p), "'t.pb': int32_data has 1 values, but the i4 "
                           "shape needs 2 (one packed byte each)");
}

TEST(TensorProto, Float8BitPatterns) {
  std::string error;
  for (int32_t code : {17, 18, 19, 20, 24}) {
    onnx::TensorProto p;
    p.set_data_type(code);
    p.add_dims(3);
    p.set_raw_data(std::string("\x01\x7f\x80", 3));
    TensorPtr t = parseTensorProto(p.SerializeAsString(), "'t'", error);
    ASSERT_NE(t, nullptr) << error;
    EXPECT_EQ(onyx_tensor_element_type(t.get()), code);
    EXPECT_EQ(valuesOf<uint8_t>(t.get()),
              (std::vector<uint8_t>{0x01, 0x7f, 0x80}));
    p.clear_raw_data();
    for (int v : {0x01, 0x7f, 0x80})
      p.add_int32_data(v);
    t = parseTensorProto(p.SerializeAsString(), "'t'", error);
    ASSERT_NE(t, nullptr) << error;
    EXPECT_EQ(valuesOf<uint8_t>(t.get()),
              (std::vector<uint8_t>{0x01, 0x7f, 0x80}));
  }
}

TEST(Npy, NewerTypesFollowTheRunnerContract) {
  // docs/testing.md: float8/float4 as uint8 bits, int4/int2 as int8 values,
  // uint4/uint2 as uint8 values.
  const struct {
    int32_t type;
    const char *descr;
    std::vector<uint8_t> stored;
    std::vector<int8_t> written;
  } kCases[] = {
      {ONYX_F8E4M3FN, "|u1", {0x01, 0x7f, 0xff}, {0x01, 0x7f, -1}},
      {ONYX_F8E8M0, "|u1", {0x00, 0x7f, 0xff}, {0x00, 0x7f, -1}},
      {ONYX_F4E2M1, "|u1", {0x0, 0x7, 0xf}, {0, 7, 15}},
      {ONYX_U4, "|u1", {0x0, 0x7, 0xf}, {0, 7, 15}},
      {ONYX_U2, "|u1", {0, 1, 3}, {0, 1, 3}},
      {ONYX_I4, "|i1", {0x8, 0x7, 0xf}, {-8, 7, -1}},
      {ONYX_I2, "|i1", {2, 1, 3}, {-2, 1, -1}},
  };
  for (const auto &c : kCases) {
    const int64_t shape[] = {3};
    TensorPtr t(onyx_tensor_create_copy(c.type, 1, shape, c.stored.data()));
    std::string file, error;
    ASSERT_TRUE(formatNpy(t.get(), file, error)) << error;
    EXPECT_NE(file.find(std::string("'descr': '") + c.descr + "'"),
              std::string::npos);
    EXPECT_EQ(file.substr(file.size() - 3),
              std::string(reinterpret_cast<const char *>(c.written.data()), 3))
        << onyx_element_name(c.type);
    // Read back for an input of that type: the same elements.
    TensorPtr read = parseNpy(file, "'f'", error);
    ASSERT_NE(read, nullptr) << error;
    TensorPtr back = adaptNpyTensor(std::move(read), c.type, "'f'", error);
    ASSERT_NE(back, nullptr) << error;
    EXPECT_EQ(onyx_tensor_element_type(back.get()), c.type);
    EXPECT_EQ(valuesOf<uint8_t>(back.get()), c.stored)
        << onyx_element_name(c.type);
  }
  // Values out of the type's range are refused.
  const int8_t tooBig[] = {0, 8};
  const int64_t shape[] = {2};
  TensorPtr i8(onyx_tensor_create_copy(ONYX_I8, 1, shape, tooBig));
  std::string error;
  EXPECT_EQ(adaptNpyTensor(std::move(i8), ONYX_I4, "'f'", error), nullptr);
  EXPECT_EQ(error, "'f': element 1 is 8, out of range for i4");
  // Other element types pass through (the session reports mismatches).
  TensorPtr f(onyx_tensor_create(ONYX_F32, 1, shape));
  TensorPtr same = adaptNpyTensor(std::move(f), ONYX_I4, "'f'", error);
  ASSERT_NE(same, nullptr);
  EXPECT_EQ(onyx_tensor_element_type(same.get()), ONYX_F32);
}

TEST(TensorProto, StringsRoundTrip) {
  onnx::TensorProto str;
  str.set_data_type(onnx::TensorProto::STRING);
  str.add_dims(1);
  str.add_dims(2);
  str.add_string_data("");
  str.add_string_data("\xe7\x9a\x84 x");
  std::string error;
  TensorPtr t = parseTensorProto(str.SerializeAsString(), "'s.pb'", error);
  ASSERT_NE(t, nullptr) << error;
  EXPECT_EQ(onyx_tensor_element_type(t.get()), ONYX_STRING);
  EXPECT_STREQ(onyx_tensor_get_string(t.get(), 0), "");
  EXPECT_STREQ(onyx_tensor_get_string(t.get(), 1), "\xe7\x9a\x84 x");
  std::string path = ::testing::TempDir() + "onyx_strings_out.pb";
  ASSERT_TRUE(writeValueFile(t.get(), ONYX_SIGNATURE_TENSOR, path, error))
      << error;
  TensorPtr back = readTensorFile(path, error);
  ASSERT_NE(back, nullptr) << error;
  EXPECT_EQ(shapeOf(back.get()), (std::vector<int64_t>{1, 2}));
  EXPECT_STREQ(onyx_tensor_get_string(back.get(), 1), "\xe7\x9a\x84 x");
}
