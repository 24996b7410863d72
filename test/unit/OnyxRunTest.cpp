//===- OnyxRunTest.cpp - onyx-run's command line contract -----------------===//
//
// Runs the onyx-run binary on TestArtifact.c's artifact (no compiler
// involved) and checks outputs, stdout/stderr and exit codes.
//
//===----------------------------------------------------------------------===//
#include "TensorIO.h"

#include <onnx/onnx_pb.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace fs = std::filesystem;
using namespace onyx::run;

namespace {

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeFile(const fs::path &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

struct Result {
  int exitCode = -1;
  bool signaled = false;
  std::string out, err;
};

class OnyxRun : public ::testing::Test {
protected:
  fs::path dir;

  void SetUp() override {
    std::string pattern =
        (fs::temp_directory_path() / "onyx-run-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir = pattern;
    writeNpy("x.npy", ONYX_F32, {2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
    writeNpy("mask.npy", ONYX_BOOL, {2}, std::vector<uint8_t>{1, 0});
    writeNpy("mask3.npy", ONYX_BOOL, {3}, std::vector<uint8_t>{1, 0, 1});
    writeNpy("xneg.npy", ONYX_F32, {1, 3}, std::vector<float>{-1, 0, 0});
    writeNpy("mask1.npy", ONYX_BOOL, {1}, std::vector<uint8_t>{0});
    writeNpy("x_i64.npy", ONYX_I64, {2, 3}, std::vector<int64_t>(6, 1));
    writeNpy("x_wide.npy", ONYX_F32, {2, 4}, std::vector<float>(8, 1));
  }

  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }

  template <typename T>
  void writeNpy(const std::string &name, int32_t type,
                std::vector<int64_t> shape, const std::vector<T> &values) {
    TensorPtr t(onyx_tensor_create_copy(
        type, static_cast<int32_t>(shape.size()), shape.data(), values.data()));
    ASSERT_NE(t, nullptr);
    std::string bytes, error;
    ASSERT_TRUE(formatNpy(t.get(), bytes, error)) << error;
    writeFile(dir / name, bytes);
  }

  /// Runs onyx-run in `dir` with the test artifact as MODEL.
  Result run(const std::string &args, bool withModel = true) {
    std::string cmd = "cd '" + dir.string() + "' && '" ONYX_RUN_PATH "' " +
                      (withModel ? "'" ONYX_TEST_ARTIFACT_PATH "' " : "") +
                      args + " >stdout.txt 2>stderr.txt";
    int status = std::system(cmd.c_str());
    Result r;
    r.signaled = WIFSIGNALED(status);
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = readFile(dir / "stdout.txt");
    r.err = readFile(dir / "stderr.txt");
    return r;
  }

  /// Expects the error contract: exit 1, nothing on stdout, exactly one
  /// "error: <message>" line on stderr.
  void expectError(const Result &r, const std::string &message) {
    EXPECT_FALSE(r.signaled);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "error: " + message + "\n");
  }

  TensorPtr readOutput(const std::string &name) {
    std::string error;
    TensorPtr t = readTensorFile((dir / name).string(), error);
    EXPECT_NE(t, nullptr) << error;
    return t;
  }
};

template <typename T> std::vector<T> valuesOf(OnyxTensor *t) {
  const T *data = static_cast<const T *>(onyx_tensor_data(t));
  return std::vector<T>(data, data + onyx_tensor_num_elements(t));
}

} // namespace

TEST_F(OnyxRun, NamedInputsWriteOutputsAndSummary) {
  Result r = run("--input x=x.npy --input mask=mask.npy --output-dir out");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "output 0 'y': f32[2,3]\n"
                   "output 1 'n': i64[]\n"
                   "output 2 'm': bool[2]\n");
  EXPECT_EQ(r.err, "");
  TensorPtr y = readOutput("out/output_0.npy");
  EXPECT_EQ(valuesOf<float>(y.get()), (std::vector<float>{2, 4, 6, 8, 10, 12}));
  TensorPtr n = readOutput("out/output_1.npy");
  EXPECT_EQ(onyx_tensor_rank(n.get()), 0);
  EXPECT_EQ(valuesOf<int64_t>(n.get()), (std::vector<int64_t>{2}));
  TensorPtr m = readOutput("out/output_2.npy");
  EXPECT_EQ(onyx_tensor_element_type(m.get()), ONYX_BOOL);
  EXPECT_EQ(valuesOf<uint8_t>(m.get()), (std::vector<uint8_t>{0, 1}));
  EXPECT_NE(readFile(dir / "out/output_2.npy").find("'descr': '|b1'"),
            std::string::npos);
}

TEST_F(OnyxRun, PositionalTensorProtoInputsAndDefaultOutputDir) {
  onnx::TensorProto x;
  x.set_name("some_other_name"); // Position wins over the stored name.
  x.set_data_type(onnx::TensorProto::FLOAT);
  x.add_dims(1);
  x.add_dims(3);
  for (float v : {0.5f, 1.5f, 2.5f})
    x.add_float_data(v);
  writeFile(dir / "input_0.pb", x.SerializeAsString());
  onnx::TensorProto mask;
  mask.set_data_type(onnx::TensorProto::BOOL);
  mask.add_dims(1);
  mask.add_int32_data(1);
  writeFile(dir / "input_1.pb", mask.SerializeAsString());

  Result r = run("--input input_0.pb --input input_1.pb");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "output 0 'y': f32[1,3]\n"
                   "output 1 'n': i64[]\n"
                   "output 2 'm': bool[1]\n");
  EXPECT_EQ(valuesOf<float>(readOutput("output_0.npy").get()),
            (std::vector<float>{1, 3, 5}));
  EXPECT_EQ(valuesOf<uint8_t>(readOutput("output_2.npy").get()),
            (std::vector<uint8_t>{0}));
}

TEST_F(OnyxRun, UnnamedInputsFillTheInputsNotNamed) {
  Result r = run("--input mask=mask.npy --input x.npy --output-dir o");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(valuesOf<float>(readOutput("o/output_0.npy").get()),
            (std::vector<float>{2, 4, 6, 8, 10, 12}));
}

TEST_F(OnyxRun, EmptyBatch) {
  writeNpy("x0.npy", ONYX_F32, {0, 3}, std::vector<float>{});
  writeNpy("m0.npy", ONYX_BOOL, {0}, std::vector<uint8_t>{});
  Result r = run("--input x0.npy --input m0.npy");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "output 0 'y': f32[0,3]\n"
                   "output 1 'n': i64[]\n"
                   "output 2 'm': bool[0]\n");
}

TEST_F(OnyxRun, MemoryReportToFile) {
  Result r = run("--input x.npy --input mask.npy --memory-report mem.json");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "output 0 'y': f32[2,3]\n"
                   "output 1 'n': i64[]\n"
                   "output 2 'm': bool[2]\n");
  // One temporary of 24 bytes (64 aligned); outputs 24 + 8 + 2 bytes.
  EXPECT_EQ(readFile(dir / "mem.json"), "{\n"
                                        "  \"planner\": \"none\",\n"
                                        "  \"unpacked_bytes\": 64,\n"
                                        "  \"requested_bytes\": 64,\n"
                                        "  \"retained_high_water_bytes\": 0,\n"
                                        "  \"max_live_bytes\": 64,\n"
                                        "  \"unplanned_temp_allocations\": 1,\n"
                                        "  \"output_bytes\": 34,\n"
                                        "  \"runs\": 1,\n"
                                        "  \"pools\": []\n"
                                        "}\n");
}

TEST_F(OnyxRun, MemoryReportToStdoutKeepsStdoutPureJson) {
  Result r = run("--input x.npy --input mask.npy --memory-report -");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.front(), '{');
  EXPECT_NE(r.out.find("\"max_live_bytes\": 64"), std::string::npos);
  EXPECT_NE(r.out.find("\"pools\": []"), std::string::npos);
  EXPECT_EQ(r.err, "output 0 'y': f32[2,3]\n"
                   "output 1 'n': i64[]\n"
                   "output 2 'm': bool[2]\n");
}

TEST_F(OnyxRun, RepeatPrintsTiming) {
  Result r = run("--input x.npy --input mask.npy --repeat 7");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err.rfind("timing: 7 runs, median ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("s per call\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(", min "), std::string::npos) << r.err;
  EXPECT_EQ(valuesOf<float>(readOutput("output_0.npy").get()),
            (std::vector<float>{2, 4, 6, 8, 10, 12}));
}

TEST_F(OnyxRun, ThreadsOption) {
  Result r = run("--input x.npy --input mask.npy --threads 1");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(valuesOf<float>(readOutput("output_0.npy").get()),
            (std::vector<float>{2, 4, 6, 8, 10, 12}));
  r = run("--input x.npy --input mask.npy --threads=0");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  expectError(run("--threads -1"),
              "--threads needs an integer from 0 to 4096, not '-1'");
  expectError(run("--threads two"),
              "--threads needs an integer from 0 to 4096, not 'two'");
  expectError(run("--target=cuda --threads 2"),
              "--threads applies to the CPU target");
}

TEST_F(OnyxRun, HelpExitsZero) {
  Result r = run("--help", /*withModel=*/false);
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.out.rfind("usage: onyx-run MODEL(.onnx|.so)", 0), 0u);
}

TEST_F(OnyxRun, ValidationErrorsNameTheInput) {
  expectError(run("--input x=x_i64.npy --input mask.npy"),
              "input 'x' (index 0): element type i64, but the model "
              "requires f32");
  expectError(run("--input x=x_wide.npy --input mask.npy"),
              "input 'x' (index 0): dim 1 is 4, but the model requires 3");
  expectError(run("--input x.npy --input mask3.npy"),
              "input 'mask' (index 1): dim 0 is 3, but symbol 'batch' was "
              "bound to 2 by input 'x' dim 0");
}

TEST_F(OnyxRun, ModelFailureIsOneErrorLine) {
  expectError(run("--input xneg.npy --input mask1.npy"),
              "node 'Check': x[0] is negative at batch 1");
  // No output file is left behind by the failed run.
  EXPECT_FALSE(fs::exists(dir / "output_0.npy"));
}

TEST_F(OnyxRun, InputListErrors) {
  expectError(run("--input x.npy"),
              "no value for input 'mask' (index 1); pass --input mask=FILE");
  expectError(run("--input z=x.npy --input mask.npy"),
              "the model has no input named 'z' (its inputs: 'x', 'mask')");
  expectError(run("--input x=x.npy --input x=x.npy"),
              "input 'x' is given twice");
  expectError(run("--input x.npy --input mask.npy --input mask.npy"),
              "too many inputs: no model input is left for 'mask.npy' (the "
              "model has 2 inputs: 'x', 'mask')");
  expectError(run("--input x.npy --input missing.npy"),
              "cannot open input file 'missing.npy': No such file or "
              "directory");
  writeFile(dir / "junk.pb", "\xff\xff\xff\xff junk");
  expectError(run("--input x.npy --input junk.pb"),
              "'junk.pb': not a .npy file or an ONNX TensorProto");
}

TEST_F(OnyxRun, UsageAndModelErrors) {
  expectError(run("--bogus"), "unknown option '--bogus' (see --help)");
  expectError(run("--repeat 0"), "--repeat needs a positive integer, not '0'");
  expectError(run("--target=tpu"), "--target must be cpu or cuda, not 'tpu'");
  expectError(run("--input"), "--input needs a value");
  expectError(run("", /*withModel=*/false),
              "no model given (usage: onyx-run MODEL(.onnx|.so) [options]; "
              "see --help)");
  expectError(run("nothere.so", /*withModel=*/false),
              "cannot open model 'nothere.so': no such file");
  expectError(run("x.npy", /*withModel=*/false),
              "cannot tell the kind of model 'x.npy': expected a .onnx "
              "model or a .so artifact");
  writeFile(dir / "fake.so", "not an ELF file");
  Result r = run("fake.so", /*withModel=*/false);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err.rfind("error: cannot load 'fake.so': ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  expectError(run("--make-inputs-dynamic"),
              "--make-inputs-dynamic applies when compiling a .onnx model, "
              "not to the artifact '" ONYX_TEST_ARTIFACT_PATH "'");
}
