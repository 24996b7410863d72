//===- onyx-run.cpp - Run an ONNX model or a compiled Onyx artifact -------===//
//
//   onyx-run MODEL(.onnx|.so) [--target=cpu|cuda] [--input [NAME=]FILE]...
//            [--output-dir DIR] [--repeat N] [--memory-report FILE|-]
//            [--make-inputs-dynamic] [--profile FILE]
//
// A .onnx model is compiled in-process into a private temporary directory;
// a .so artifact is loaded directly. Inputs are .npy or ONNX TensorProto
// files; outputs are written as DIR/output_K.npy in graph-output order and
// summarized on stdout as "output K 'name': f32[7,10]".
//
// Exit 0 on success; on any failure exactly one "error: ..." line on stderr
// and exit 1.
//
//===----------------------------------------------------------------------===//
#include "TensorIO.h"

#include "onyx/Pipelines/Compiler.h"
#include "onyx/onyx_abi.h"
#include "onyx/onyx_runtime.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using namespace onyx::run;

namespace {

const char kUsage[] =
    "usage: onyx-run MODEL(.onnx|.so) [options]\n"
    "\n"
    "Runs an ONNX model (compiled in-process first) or an Onyx artifact.\n"
    "\n"
    "options:\n"
    "  --input [NAME=]FILE      an input as .npy or ONNX TensorProto (.pb);\n"
    "                           repeat for each input; files without NAME\n"
    "                           fill the inputs not named, in graph order\n"
    "  --output-dir DIR         where output_K.npy are written (default .)\n"
    "  --target=cpu|cuda        compilation target for .onnx (default cpu)\n"
    "  --make-inputs-dynamic    compile .onnx with every input dim symbolic\n"
    "  --external-weights       compile .onnx without embedding external-data\n"
    "                           initializers (loaded at session creation)\n"
    "  --weights PATH           external weights file (or its directory)\n"
    "  --pool-scheme=S          memory plan when compiling .onnx: lifetime\n"
    "                           (default), iree or none\n"
    "  --threads N              CPU threads (the thread pool of the GEMMs,\n"
    "                           kernels and generated loops; default\n"
    "                           OMP_NUM_THREADS, else OPENBLAS_NUM_THREADS,\n"
    "                           else every core; 0: every core)\n"
    "  --repeat N               run N times (outputs of the last run); print\n"
    "                           median and min time per call on stderr\n"
    "  --profile FILE           write a Chrome trace (JSON) of the calls:\n"
    "                           one event per op (CPU; a .onnx is compiled\n"
    "                           with --profile) or per kernel (CUDA)\n"
    "  --memory-report FILE|-   write memory statistics as JSON ('-': "
    "stdout,\n"
    "                           the output summary then goes to stderr)\n"
    "  --cuda-graphs            CUDA models record each input signature's\n"
    "                           call as a CUDA graph on its second run and\n"
    "                           replay it after (docs/runtime.md): the\n"
    "                           default for a CUDA model (unless\n"
    "                           ONYX_CUDA_GRAPHS=0); an error for a host one.\n"
    "                           --stats also prints captures and replays\n"
    "  --no-cuda-graphs         a CUDA model runs every call normally\n"
    "  --stats                  print host synchronizations (readbacks of\n"
    "                           computed sizes and conditions) per call on\n"
    "                           stderr\n"
    "  --inject-fault=readback:N\n"
    "                           make the N-th host synchronization fail (a\n"
    "                           test of the error path): the failing call's\n"
    "                           error is printed, later --repeat calls still\n"
    "                           run on the same session, the exit status is 1\n"
    "  --help                   print this help\n"
    "\n"
    "Prints one line per output on stdout: output K 'name': f32[7,10].\n"
    "On failure prints one 'error: ...' line on stderr and exits with 1.\n";

/// Any failure; main prints it as the single "error: ..." line.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string &message) { throw Error(message); }

struct Options {
  std::string model;
  std::string target = "cpu";
  bool targetGiven = false;
  std::vector<std::string> inputs;
  std::string outputDir = ".";
  int64_t repeat = 1;
  bool repeatGiven = false;
  /// 1: --cuda-graphs, 0: --no-cuda-graphs, -1: the runtime's default.
  int cudaGraphs = -1;
  int32_t threads = -1; // -1: not given
  std::string memoryReport;
  std::string profile;
  bool makeInputsDynamic = false;
  std::string poolScheme = "lifetime";
  bool externalWeights = false;
  std::string weights;
  bool stats = false;
  uint64_t faultReadbackAt = 0;
};

bool startsWith(const std::string &s, const char *prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}
bool endsWith(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

/// Parses the command line; returns false when --help was printed.
bool parseArgs(int argc, char **argv, Options &opts) {
  bool sawModel = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return false;
    }
    if (!startsWith(arg, "--") || arg == "--") {
      if (startsWith(arg, "-") && arg != "-")
        fail("unknown option '" + arg + "' (see --help)");
      if (sawModel)
        fail("unexpected argument '" + arg +
             "' (one MODEL only; inputs go in --input)");
      opts.model = arg;
      sawModel = true;
      continue;
    }
    std::string name = arg.substr(2), value;
    bool hasValue = false;
    size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      hasValue = true;
    }
    if (name == "external-weights") {
      if (hasValue)
        fail("--external-weights takes no value");
      opts.externalWeights = true;
      continue;
    }
    if (name == "cuda-graphs") {
      if (hasValue)
        fail("--cuda-graphs takes no value");
      opts.cudaGraphs = 1;
      continue;
    }
    if (name == "no-cuda-graphs") {
      if (hasValue)
        fail("--no-cuda-graphs takes no value");
      opts.cudaGraphs = 0;
      continue;
    }
    if (name == "stats") {
      if (hasValue)
        fail("--stats takes no value");
      opts.stats = true;
      continue;
    }
    if (name == "make-inputs-dynamic") {
      if (hasValue)
        fail("--make-inputs-dynamic takes no value");
      opts.makeInputsDynamic = true;
      continue;
    }
    if (name != "target" && name != "input" && name != "output-dir" &&
        name != "repeat" && name != "memory-report" && name != "pool-scheme" &&
        name != "weights" && name != "inject-fault" && name != "threads" &&
        name != "profile")
      fail("unknown option '--" + name + "' (see --help)");
    if (!hasValue) {
      if (i + 1 >= argc)
        fail("--" + name + " needs a value");
      value = argv[++i];
    }
    if (name == "weights") {
      opts.weights = value;
      continue;
    }
    if (name == "pool-scheme") {
      opts.poolScheme = value;
      continue;
    }
    if (name == "inject-fault") {
      const std::string prefix = "readback:";
      char *end = nullptr;
      errno = 0;
      unsigned long long n = 0;
      if (startsWith(value, prefix.c_str()) && value.size() > prefix.size()) {
        n = std::strtoull(value.c_str() + prefix.size(), &end, 10);
        if (*end || errno)
          n = 0;
      }
      if (n == 0)
        fail("--inject-fault needs readback:N with N >= 1, not '" + value +
             "'");
      opts.faultReadbackAt = n;
      continue;
    }
    if (name == "target") {
      if (value != "cpu" && value != "cuda")
        fail("--target must be cpu or cuda, not '" + value + "'");
      opts.target = value;
      opts.targetGiven = true;
    } else if (name == "input") {
      if (value.empty())
        fail("--input needs a file");
      opts.inputs.push_back(value);
    } else if (name == "output-dir") {
      if (value.empty())
        fail("--output-dir needs a directory");
      opts.outputDir = value;
    } else if (name == "repeat") {
      char *end = nullptr;
      errno = 0;
      long long n = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end || errno || n < 1 || n > 1000000000)
        fail("--repeat needs a positive integer, not '" + value + "'");
      opts.repeat = n;
      opts.repeatGiven = true;
    } else if (name == "threads") {
      char *end = nullptr;
      errno = 0;
      long long n = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end || errno || n < 0 || n > 4096)
        fail("--threads needs an integer from 0 to 4096, not '" + value + "'");
      opts.threads = int32_t(n);
    } else if (name == "memory-report") {
      if (value.empty())
        fail("--memory-report needs a file or '-'");
      opts.memoryReport = value;
    } else if (name == "profile") {
      if (value.empty())
        fail("--profile needs a file");
      opts.profile = value;
    }
  }
  if (!sawModel)
    fail("no model given (usage: onyx-run MODEL(.onnx|.so) [options]; see "
         "--help)");
  return true;
}

/// A private temporary directory, removed with its contents on destruction.
struct TempDir {
  std::string path;
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/onyx-run-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!mkdtemp(buffer.data()))
      fail("cannot create a temporary directory in '" +
           pattern.substr(0, pattern.size() - 16) +
           "': " + std::strerror(errno));
    path = buffer.data();
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
};

/// A loaded artifact and its four exports (docs/runtime-abi.md).
struct Artifact {
  void *handle = nullptr;
  OnyxState *(*stateCreate)() = nullptr;
  OnyxState *(*stateCreateWithWeights)(const char *) = nullptr;
  void (*stateDestroy)(OnyxState *) = nullptr;
  OnyxTensorList *(*compute)(OnyxState *, OnyxTensorList *) = nullptr;
  const char *(*metadata)() = nullptr;

  void load(const std::string &path) {
    std::string absolute = fs::absolute(path).string();
    dlerror();
    handle = dlopen(absolute.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *message = dlerror();
      fail("cannot load '" + path + "': " + (message ? message : "dlopen"));
    }
    resolve(ONYX_ABI_EXPORT_STATE_CREATE, stateCreate, path);
    resolve(ONYX_ABI_EXPORT_STATE_CREATE_WITH_WEIGHTS, stateCreateWithWeights,
            path);
    resolve(ONYX_ABI_EXPORT_STATE_DESTROY, stateDestroy, path);
    resolve(ONYX_ABI_EXPORT_RUN, compute, path);
    resolve(ONYX_ABI_EXPORT_METADATA, metadata, path);
  }

  template <typename Fn>
  void resolve(const char *symbol, Fn &fn, const std::string &path) {
    void *address = dlsym(handle, symbol);
    if (!address)
      fail("'" + path + "' is not an Onyx artifact: it does not export '" +
           symbol + "'");
    fn = reinterpret_cast<Fn>(address);
  }

  ~Artifact() {
    if (handle)
      dlclose(handle);
  }
};

struct MetadataDeleter {
  void operator()(OnyxMetadata *md) const { onyx_metadata_destroy(md); }
};
struct ListDeleter {
  void operator()(OnyxTensorList *list) const {
    onyx_tensor_list_destroy(list);
  }
};
using ListPtr = std::unique_ptr<OnyxTensorList, ListDeleter>;

bool isElfFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in && std::memcmp(magic,
                           "\x7f"
                           "ELF",
                           4) == 0;
}

std::string inputNames(const OnyxMetadata *md) {
  std::string names;
  size_t n = onyx_metadata_num_inputs(md);
  for (size_t i = 0; i < n; ++i)
    names +=
        std::string(i ? ", " : "") + "'" + onyx_metadata_name(md, 0, i) + "'";
  return n ? names : "none";
}

/// Reads the --input files into a list in graph-input order. Inputs given
/// as NAME=FILE go to that input; the others fill the remaining inputs in
/// graph order (so a list of bare files is positional).
ListPtr loadInputs(const Options &opts, const OnyxMetadata *md) {
  size_t numInputs = onyx_metadata_num_inputs(md);
  std::vector<std::string> files(numInputs);
  std::vector<std::string> unnamed;
  for (const std::string &raw : opts.inputs) {
    size_t eq = raw.find('=');
    if (eq == std::string::npos) {
      unnamed.push_back(raw);
      continue;
    }
    std::string name = raw.substr(0, eq);
    int64_t index = onyx_metadata_find_input(md, name.c_str());
    if (index < 0) {
      std::error_code ec;
      if (fs::exists(raw, ec)) { // A file name that contains '='.
        unnamed.push_back(raw);
        continue;
      }
      fail("the model has no input named '" + name +
           "' (its inputs: " + inputNames(md) + ")");
    }
    std::string file = raw.substr(eq + 1);
    if (file.empty())
      fail("--input " + raw + ": missing file after '='");
    if (!files[index].empty())
      fail("input '" + name + "' is given twice");
    files[index] = file;
  }
  size_t next = 0;
  for (const std::string &file : unnamed) {
    while (next < numInputs && !files[next].empty())
      ++next;
    if (next == numInputs)
      fail("too many inputs: no model input is left for '" + file +
           "' (the model has " + std::to_string(numInputs) + " input" +
           (numInputs == 1 ? "" : "s") + ": " + inputNames(md) + ")");
    files[next] = file;
  }

  ListPtr list(onyx_tensor_list_create());
  if (!list)
    throw std::bad_alloc();
  for (size_t i = 0; i < numInputs; ++i) {
    const char *name = onyx_metadata_name(md, 0, i);
    if (files[i].empty())
      fail(std::string("no value for input '") + name + "' (index " +
           std::to_string(i) + "); pass --input " + name + "=FILE");
    std::string error;
    // Sequences and optionals come as SequenceProto / OptionalProto.
    TensorPtr tensor =
        readValueFile(files[i], onyx_metadata_kind(md, 0, i),
                      onyx_metadata_element_type(md, 0, i), error);
    if (!tensor)
      fail(error);
    // ONNX <= 1.13 stores bfloat16 test data as UINT16 bit patterns (numpy
    // has no bfloat16): accept them for a bf16 input.
    if (onyx_tensor_element_type(tensor.get()) == ONYX_U16 &&
        onyx_metadata_element_type(md, 0, i) == ONYX_BF16) {
      TensorPtr asBf16(onyx_tensor_create_copy(
          ONYX_BF16, onyx_tensor_rank(tensor.get()),
          onyx_tensor_shape(tensor.get()), onyx_tensor_data(tensor.get())));
      if (!asBf16)
        throw std::bad_alloc();
      tensor = std::move(asBf16);
    }
    if (onyx_tensor_list_append(list.get(), tensor.get()) != 0)
      throw std::bad_alloc();
    tensor.release();
  }
  return list;
}

/// The --memory-report JSON (fields: DESIGN.md). Planned temporaries live
/// in session pools; temporaries outside the plan (allocated one by one)
/// count at their own sizes.
std::string memoryReportJson(const OnyxState *state,
                             const OnyxMemoryStats &stats,
                             uint64_t retainedHighWater, int64_t runs) {
  std::ostringstream os;
  uint64_t unpacked = stats.plannedTempBytes + stats.tempBytesRequested;
  uint64_t requested = stats.poolRequestedBytes + stats.tempBytesRequested;
  uint64_t maxLive = stats.maxLiveBytes + stats.tempPeakBytes;
  os << "{\n"
     << "  \"planner\": \"" << (stats.numPools ? "pools" : "none") << "\",\n"
     << "  \"unpacked_bytes\": " << unpacked << ",\n"
     << "  \"requested_bytes\": " << requested << ",\n"
     << "  \"retained_high_water_bytes\": " << retainedHighWater << ",\n"
     << "  \"max_live_bytes\": " << maxLive << ",\n"
     << "  \"unplanned_temp_allocations\": " << stats.tempAllocations << ",\n"
     << "  \"output_bytes\": " << stats.outputBytes << ",\n"
     << "  \"runs\": " << runs << ",\n"
     << "  \"pools\": [";
  int64_t domain;
  uint64_t poolRequested, capacity;
  for (size_t i = 0;
       onyx_state_pool_info(state, i, &domain, &poolRequested, &capacity) == 0;
       ++i)
    os << (i ? ", " : "") << "{\"domain_id\": " << domain
       << ", \"requested_bytes\": " << poolRequested
       << ", \"capacity_bytes\": " << capacity << "}";
  os << "]\n}\n";
  return os.str();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/// "12.345 ms", or in us / s when that reads better.
std::string formatDuration(double ms) {
  char buffer[64];
  if (ms < 1.0)
    std::snprintf(buffer, sizeof(buffer), "%.3f us", ms * 1000.0);
  else if (ms < 10000.0)
    std::snprintf(buffer, sizeof(buffer), "%.3f ms", ms);
  else
    std::snprintf(buffer, sizeof(buffer), "%.3f s", ms / 1000.0);
  return buffer;
}

int runMain(int argc, char **argv) {
  Options opts;
  if (!parseArgs(argc, argv, opts))
    return 0;

  std::error_code ec;
  if (!fs::is_regular_file(opts.model, ec))
    fail("cannot open model '" + opts.model + "': " +
         (fs::exists(opts.model, ec) ? "not a regular file" : "no such file"));

  // Declared before the artifact: the directory outlives the mapping.
  std::unique_ptr<TempDir> tempDir;
  std::string artifactPath = opts.model;
  bool isArtifact = endsWith(opts.model, ".so") || isElfFile(opts.model);
  if (!isArtifact && !endsWith(opts.model, ".onnx"))
    fail("cannot tell the kind of model '" + opts.model +
         "': expected a .onnx model or a .so artifact");
  if (isArtifact && opts.makeInputsDynamic)
    fail("--make-inputs-dynamic applies when compiling a .onnx model, not "
         "to the artifact '" +
         opts.model + "'");
  if (!isArtifact) {
    tempDir = std::make_unique<TempDir>();
    artifactPath = tempDir->path + "/model.so";
    onyx::CompileOptions options;
    options.target = opts.target;
    options.makeInputsDynamic = opts.makeInputsDynamic;
    options.poolScheme = opts.poolScheme;
    options.externalWeights = opts.externalWeights;
    options.profile = !opts.profile.empty();
    options.progress = isatty(2);
    std::string error;
    if (!onyx::compileModelFile(opts.model, artifactPath, options, error))
      fail(error.empty() ? "compilation of '" + opts.model + "' failed"
                         : error);
  }

  if (opts.threads >= 0) {
    if (opts.target != "cpu")
      fail("--threads applies to the CPU target");
    onyxrt_cpu_set_threads(opts.threads);
  }

  Artifact artifact;
  artifact.load(artifactPath);

  const char *metadataText = artifact.metadata();
  const char *parseError = nullptr;
  std::unique_ptr<OnyxMetadata, MetadataDeleter> md(
      onyx_metadata_parse(metadataText, &parseError));
  if (!md)
    fail("invalid model metadata in '" + opts.model +
         "': " + (parseError ? parseError : "unknown error"));

  ListPtr inputs = loadInputs(opts, md.get());

  // Weights: --weights, else for a model compiled here the model's own
  // directory, else (an artifact) the artifact's directory.
  std::string weights = opts.weights;
  if (weights.empty() && !isArtifact)
    weights = fs::absolute(opts.model).parent_path().string();
  OnyxState *state = weights.empty()
                         ? artifact.stateCreate()
                         : artifact.stateCreateWithWeights(weights.c_str());
  if (!state) {
    std::string why = onyxrt_state_create_error();
    fail("cannot create a session for '" + opts.model +
         "': " + (why.empty() ? "onyx_state_create failed" : why));
  }
  struct StateGuard {
    Artifact &artifact;
    OnyxState *state;
    ~StateGuard() { artifact.stateDestroy(state); }
  } stateGuard{artifact, state};

  if (opts.faultReadbackAt &&
      onyx_state_inject_fault(state, "readback", opts.faultReadbackAt) != 0)
    fail("this runtime does not support --inject-fault");
  if (!opts.profile.empty() &&
      onyx_state_enable_profiling(state, opts.profile.c_str()) != 0)
    fail("cannot enable profiling");
  if (opts.cudaGraphs == 1 && onyx_state_set_cuda_graphs(state, 1, 0) != 0)
    fail("--cuda-graphs applies to a model compiled for cuda");
  if (opts.cudaGraphs == 0 && onyx_state_set_cuda_graphs(state, 0, 0) != 0)
    fail("cannot disable CUDA graphs");

  ListPtr outputs;
  std::vector<double> millis;
  OnyxMemoryStats stats = {};
  uint64_t retainedHighWater = 0;
  std::vector<uint64_t> syncsPerCall;
  int64_t failedCalls = 0;
  for (int64_t run = 0; run < opts.repeat; ++run) {
    auto start = std::chrono::steady_clock::now();
    OnyxTensorList *result = artifact.compute(state, inputs.get());
    auto end = std::chrono::steady_clock::now();
    uint64_t syncs = 0;
    if (onyx_state_sync_stats(state, &syncs, nullptr, nullptr) == 0)
      syncsPerCall.push_back(syncs);
    if (!result) {
      const char *message = onyx_state_last_error(state);
      std::string text = message && *message
                             ? message
                             : "inference_compute failed without a message";
      // With an injected fault the session must stay usable: report the
      // call and go on with the next one.
      if (!opts.faultReadbackAt)
        fail(text);
      std::cerr << "error: call " << run + 1 << ": " << text << "\n";
      ++failedCalls;
      continue;
    }
    outputs.reset();
    outputs.reset(result);
    millis.push_back(
        std::chrono::duration<double, std::milli>(end - start).count());
    if (onyx_state_memory_stats(state, &stats) == 0)
      retainedHighWater = std::max(retainedHighWater, stats.retainedBytes);
  }

  if (!opts.profile.empty() && onyx_state_end_profiling(state) < 0)
    fail(onyx_state_last_error(state));
  if (!outputs)
    fail("no call succeeded");
  // Write every output before printing anything, so that a failure leaves
  // stdout empty.
  size_t numOutputs = onyx_tensor_list_size(outputs.get());
  if (numOutputs != onyx_metadata_num_outputs(md.get()))
    fail("the model returned " + std::to_string(numOutputs) +
         " outputs, but its metadata declares " +
         std::to_string(onyx_metadata_num_outputs(md.get())));
  fs::create_directories(opts.outputDir, ec);
  if (!fs::is_directory(opts.outputDir))
    fail("cannot create output directory '" + opts.outputDir + "'" +
         (ec ? ": " + ec.message() : ""));
  std::vector<std::string> summary;
  for (size_t k = 0; k < numOutputs; ++k) {
    OnyxTensor *tensor = onyx_tensor_list_get(outputs.get(), k);
    // Sequences and optionals are written as output_K.pb (SequenceProto /
    // OptionalProto), string tensors too (TensorProto); other tensors as
    // output_K.npy.
    int32_t kind = onyx_metadata_kind(md.get(), 1, k);
    bool isTensor = kind == ONYX_SIGNATURE_TENSOR &&
                    onyx_tensor_element_type(tensor) != ONYX_STRING;
    std::string path =
        (fs::path(opts.outputDir) /
         ("output_" + std::to_string(k) + (isTensor ? ".npy" : ".pb")))
            .string();
    std::string error;
    if (isTensor ? !writeNpyFile(tensor, path, error)
                 : !writeValueFile(tensor, kind, path, error))
      fail(error);
    summary.push_back("output " + std::to_string(k) + " '" +
                      onyx_metadata_name(md.get(), 1, k) +
                      "': " + describeTensor(tensor));
  }

  bool reportToStdout = opts.memoryReport == "-";
  if (!opts.memoryReport.empty() && !reportToStdout) {
    std::ofstream out(opts.memoryReport, std::ios::trunc);
    out << memoryReportJson(state, stats, retainedHighWater, opts.repeat);
    out.close();
    if (!out)
      fail("cannot write memory report '" + opts.memoryReport +
           "': " + std::strerror(errno));
  }

  std::ostream &summaryStream = reportToStdout ? std::cerr : std::cout;
  for (const std::string &line : summary)
    summaryStream << line << "\n";
  if (reportToStdout)
    std::cout << memoryReportJson(state, stats, retainedHighWater, opts.repeat);
  if (opts.repeatGiven)
    std::cerr << "timing: " << millis.size() << " run"
              << (millis.size() == 1 ? "" : "s") << ", median "
              << formatDuration(median(millis)) << ", min "
              << formatDuration(*std::min_element(millis.begin(), millis.end()))
              << " per call\n";
  if (opts.stats) {
    uint64_t total = 0;
    for (uint64_t n : syncsPerCall)
      total += n;
    std::cerr << "stats: " << syncsPerCall.size() << " call"
              << (syncsPerCall.size() == 1 ? "" : "s")
              << ", host synchronizations per call: "
              << (syncsPerCall.empty() ? 0 : syncsPerCall.back()) << " (last), "
              << total << " in all\n";
    OnyxCudaGraphStats graphs = {};
    graphs.structSize = sizeof(graphs);
    if (onyx_state_cuda_graph_stats(state, &graphs) == 0 && graphs.enabled) {
      std::string status = onyx_state_cuda_graph_status(state);
      std::cerr << "stats: cuda graphs: " << graphs.captures << " captured, "
                << graphs.replays << " replayed, " << graphs.failedCaptures
                << " failed captures"
                << (status.empty() ? "" : "; not used: " + status) << "\n";
    }
  }
  std::cout.flush();
  if (!std::cout)
    fail("cannot write to stdout");
  return failedCalls ? 1 : 0;
}

/// One line, whatever the message contains.
std::string oneLine(std::string message) {
  std::replace(message.begin(), message.end(), '\n', ' ');
  std::replace(message.begin(), message.end(), '\r', ' ');
  while (!message.empty() && message.back() == ' ')
    message.pop_back();
  // Other control bytes (escape codes in a model's names) as \xNN.
  std::string line;
  for (unsigned char c : message) {
    if (c < 0x20 || c == 0x7f) {
      static const char *hex = "0123456789abcdef";
      line += "\\x";
      line += hex[c >> 4];
      line += hex[c & 15];
    } else {
      line += char(c);
    }
  }
  return line.empty() ? "unknown failure" : line;
}

} // namespace

int main(int argc, char **argv) {
  // A closed stdout must give an error, not kill us with SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  try {
    return runMain(argc, argv);
  } catch (const Error &e) {
    std::cerr << "error: " << oneLine(e.what()) << std::endl;
  } catch (const std::bad_alloc &) {
    std::cerr << "error: out of memory" << std::endl;
  } catch (const std::exception &e) {
    std::cerr << "error: " << oneLine(e.what()) << std::endl;
  } catch (...) {
    std::cerr << "error: unexpected failure" << std::endl;
  }
  return 1;
}
