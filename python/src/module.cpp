//===- module.cpp - onyx._onyx: the Python binding of the runtime C API ---===//
//
// The native half of `import onyx` (python/onyx/__init__.py is the other):
//
//   Artifact(path, weights)   dlopen's a compiled MODEL.so and creates one
//                             session (onyx_state_create_with_weights);
//     .inputs() / .outputs()  the parsed metadata: (name, element type name,
//                             shape with symbolic dims as str / None, kind)
//     .run(values, device_outputs)
//                             values in graph-input order (numpy arrays,
//                             lists for sequences, None for an empty
//                             optional, DLPack capsules for device tensors);
//                             returns the outputs in graph-output order.
//
// Everything goes through the public C API of onyx/onyx_runtime.h; the
// artifact's own entry points are looked up with dlsym. The module links
// libonyx_runtime.so, and the artifact's DT_NEEDED libonyx_runtime.so
// resolves to that same, already loaded library, so tensors made here are
// the ones the artifact's session sees.
//
// Outputs are not copied: every output array (and each sequence element) is
// a view of the OnyxTensorList the call returned, kept alive by a shared
// owner until the last array referring to it goes away.
//
// Calls on one Artifact are serialized by a mutex held with the GIL
// released, so Python threads may share a session and distinct sessions run
// in parallel. Failures raise onyx.OnyxError with the runtime's message and
// leave the session usable.
//
//===----------------------------------------------------------------------===//
#include "onyx/onyx_abi.h"
#include "onyx/onyx_runtime.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

struct OnyxException : std::runtime_error {
  using std::runtime_error::runtime_error;
};

//===----------------------------------------------------------------------===//
// DLPack (https://dmlc.github.io/dlpack/latest/c_api.html), v0.x ABI: the
// structs are declared here, as the spec fixes them, to avoid a dependency.
//===----------------------------------------------------------------------===//
enum DLDeviceType : int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3 };
enum DLDataTypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
  kDLBool = 6
};
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(DLManagedTensor *self);
};

/// The ONNX element code of a DLPack dtype, or ONYX_UNDEFINED.
int32_t elementOfDLPack(DLDataType t) {
  if (t.lanes != 1)
    return ONYX_UNDEFINED;
  switch (t.code) {
  case kDLFloat:
    return t.bits == 32   ? ONYX_F32
           : t.bits == 64 ? ONYX_F64
           : t.bits == 16 ? ONYX_F16
                          : ONYX_UNDEFINED;
  case kDLBfloat:
    return t.bits == 16 ? ONYX_BF16 : ONYX_UNDEFINED;
  case kDLInt:
    return t.bits == 8    ? ONYX_I8
           : t.bits == 16 ? ONYX_I16
           : t.bits == 32 ? ONYX_I32
           : t.bits == 64 ? ONYX_I64
                          : ONYX_UNDEFINED;
  case kDLUInt:
    return t.bits == 8    ? ONYX_U8
           : t.bits == 16 ? ONYX_U16
           : t.bits == 32 ? ONYX_U32
           : t.bits == 64 ? ONYX_U64
                          : ONYX_UNDEFINED;
  case kDLBool:
    return t.bits == 8 ? ONYX_BOOL : ONYX_UNDEFINED;
  default:
    return ONYX_UNDEFINED;
  }
}

/// The DLPack dtype of an element code (sub-byte and float8 types: their
/// unpacked bytes, as uint8).
DLDataType dlpackOfElement(int32_t elem) {
  switch (elem) {
  case ONYX_F32:
    return {kDLFloat, 32, 1};
  case ONYX_F64:
    return {kDLFloat, 64, 1};
  case ONYX_F16:
    return {kDLFloat, 16, 1};
  case ONYX_BF16:
    return {kDLBfloat, 16, 1};
  case ONYX_I8:
    return {kDLInt, 8, 1};
  case ONYX_I16:
    return {kDLInt, 16, 1};
  case ONYX_I32:
    return {kDLInt, 32, 1};
  case ONYX_I64:
    return {kDLInt, 64, 1};
  case ONYX_U16:
    return {kDLUInt, 16, 1};
  case ONYX_U32:
    return {kDLUInt, 32, 1};
  case ONYX_U64:
    return {kDLUInt, 64, 1};
  case ONYX_BOOL:
    return {kDLBool, 8, 1};
  default:
    return {kDLUInt, 8, 1};
  }
}

//===----------------------------------------------------------------------===//
// numpy dtypes <-> element codes
//===----------------------------------------------------------------------===//

/// The numpy dtype an output of `elem` is returned as. Types numpy lacks
/// come back as their bit patterns: bf16 as uint16, float8 and the 4-/2-bit
/// types as uint8 (one element per byte, docs/element-types.md).
py::dtype dtypeOfElement(int32_t elem) {
  switch (elem) {
  case ONYX_F32:
    return py::dtype("float32");
  case ONYX_F64:
    return py::dtype("float64");
  case ONYX_F16:
    return py::dtype("float16");
  case ONYX_I8:
    return py::dtype("int8");
  case ONYX_I16:
    return py::dtype("int16");
  case ONYX_I32:
    return py::dtype("int32");
  case ONYX_I64:
    return py::dtype("int64");
  case ONYX_U8:
    return py::dtype("uint8");
  case ONYX_U16:
  case ONYX_BF16:
    return py::dtype("uint16");
  case ONYX_U32:
    return py::dtype("uint32");
  case ONYX_U64:
    return py::dtype("uint64");
  case ONYX_BOOL:
    return py::dtype("bool");
  default:
    if (onyx_element_size(elem) == 1)
      return py::dtype("uint8");
    throw OnyxException(std::string("element type ") + onyx_element_name(elem) +
                        " has no numpy representation");
  }
}

/// The element code of a numpy array, given the code the model expects
/// there: a uint16 array is accepted as bf16 and a uint8/int8 array as a
/// float8 / 4-bit / 2-bit type when the model wants one (bit patterns).
/// ONYX_UNDEFINED for dtypes with no ONNX counterpart.
int32_t elementOfDtype(const py::dtype &dt, int32_t expected) {
  char kind = dt.kind();
  size_t size = dt.itemsize();
  if (kind == 'f')
    return size == 4   ? ONYX_F32
           : size == 8 ? ONYX_F64
           : size == 2 ? ONYX_F16
                       : 0;
  if (kind == 'b')
    return size == 1 ? ONYX_BOOL : 0;
  if (kind == 'i') {
    if (size == 1 && expected != ONYX_I8 && onyx_element_size(expected) == 1 &&
        expected != ONYX_U8 && expected != ONYX_BOOL)
      return expected;
    return size == 1   ? ONYX_I8
           : size == 2 ? ONYX_I16
           : size == 4 ? ONYX_I32
           : size == 8 ? ONYX_I64
                       : 0;
  }
  if (kind == 'u') {
    if (size == 2 && expected == ONYX_BF16)
      return ONYX_BF16;
    if (size == 1 && expected != ONYX_U8 && onyx_element_size(expected) == 1 &&
        expected != ONYX_I8 && expected != ONYX_BOOL)
      return expected;
    return size == 1   ? ONYX_U8
           : size == 2 ? ONYX_U16
           : size == 4 ? ONYX_U32
           : size == 8 ? ONYX_U64
                       : 0;
  }
  return ONYX_UNDEFINED;
}

//===----------------------------------------------------------------------===//
// Owners
//===----------------------------------------------------------------------===//

struct ListDeleter {
  void operator()(OnyxTensorList *l) const { onyx_tensor_list_destroy(l); }
};
using ListPtr = std::unique_ptr<OnyxTensorList, ListDeleter>;
struct TensorDeleter {
  void operator()(OnyxTensor *t) const { onyx_tensor_destroy(t); }
};
using TensorPtr = std::unique_ptr<OnyxTensor, TensorDeleter>;

/// The output list of one call, shared by the arrays viewing it.
struct OutputOwner {
  explicit OutputOwner(OnyxTensorList *l) : list(l) {}
  ListPtr list;
};

/// A capsule keeping `owner` alive (the base object of an output array).
py::capsule ownerCapsule(const std::shared_ptr<OutputOwner> &owner) {
  auto *copy = new std::shared_ptr<OutputOwner>(owner);
  return py::capsule(copy, [](void *p) {
    delete static_cast<std::shared_ptr<OutputOwner> *>(p);
  });
}

/// A numpy view of a host tensor owned by `owner`.
py::array hostArray(OnyxTensor *t, const std::shared_ptr<OutputOwner> &owner) {
  int32_t elem = onyx_tensor_element_type(t);
  int32_t rank = onyx_tensor_rank(t);
  const int64_t *shape = onyx_tensor_shape(t);
  std::vector<py::ssize_t> dims(shape, shape + rank);
  py::dtype dt = dtypeOfElement(elem);
  void *data = onyx_tensor_data(t);
  if (!data || onyx_tensor_byte_size(t) == 0)
    return py::array(dt, dims); // no bytes to view (zero elements)
  return py::array(dt, dims, data, ownerCapsule(owner));
}

/// A tensor output left in device memory (IO binding): exposes DLPack so
/// torch/CuPy take it in place. The data is valid until the next run on its
/// session returns (docs/runtime-abi.md, "IO binding").
struct DeviceTensor {
  std::shared_ptr<OutputOwner> owner;
  py::object session; // the Artifact owning the device memory
  OnyxTensor *tensor;
  int deviceId;

  std::vector<int64_t> shape() const {
    const int64_t *s = onyx_tensor_shape(tensor);
    return std::vector<int64_t>(s, s + onyx_tensor_rank(tensor));
  }
  std::string elementType() const {
    return onyx_element_name(onyx_tensor_element_type(tensor));
  }
};

struct DeviceManager {
  DLManagedTensor managed;
  std::shared_ptr<OutputOwner> owner;
  py::object session; // released with the GIL held
  std::vector<int64_t> shape;
};

py::capsule toDLPack(const DeviceTensor &d) {
  auto *m = new DeviceManager();
  m->owner = d.owner;
  m->session = d.session;
  m->shape = d.shape();
  DLTensor &t = m->managed.dl_tensor;
  t.data = onyx_tensor_data(d.tensor);
  t.device = {kDLCUDA, d.deviceId};
  t.ndim = static_cast<int32_t>(m->shape.size());
  t.dtype = dlpackOfElement(onyx_tensor_element_type(d.tensor));
  t.shape = m->shape.data();
  t.strides = nullptr; // compact row-major
  t.byte_offset = 0;
  m->managed.manager_ctx = m;
  m->managed.deleter = [](DLManagedTensor *self) {
    py::gil_scoped_acquire gil;
    delete static_cast<DeviceManager *>(self->manager_ctx);
  };
  // Per the protocol: the consumer renames the capsule "used_dltensor" and
  // calls the deleter itself; an unconsumed capsule deletes the tensor.
  PyObject *cap = PyCapsule_New(&m->managed, "dltensor", [](PyObject *c) {
    if (PyCapsule_IsValid(c, "dltensor")) {
      auto *mt =
          static_cast<DLManagedTensor *>(PyCapsule_GetPointer(c, "dltensor"));
      if (mt && mt->deleter)
        mt->deleter(mt);
    }
  });
  if (!cap) {
    delete m;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(cap);
}

//===----------------------------------------------------------------------===//
// The artifact and its session
//===----------------------------------------------------------------------===//

struct Signature {
  std::string name;
  int32_t elem;
  int32_t kind;
  int32_t rank;
  std::vector<int64_t> dims;
  std::vector<std::string> symbols;
};

class Artifact {
public:
  Artifact(const std::string &path, py::object weights, int deviceId,
           uintptr_t cudaStream) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *e = dlerror();
      throw OnyxException("cannot load the artifact '" + path +
                          "': " + (e ? e : "dlopen failed"));
    }
    using CreateFn = OnyxState *(*)();
    using CreateWeightsFn = OnyxState *(*)(const char *);
    using MetaFn = const char *(*)();
    auto create =
        reinterpret_cast<CreateFn>(dlsym(handle, ONYX_ABI_EXPORT_STATE_CREATE));
    auto createWeights = reinterpret_cast<CreateWeightsFn>(
        dlsym(handle, ONYX_ABI_EXPORT_STATE_CREATE_WITH_WEIGHTS));
    destroyFn = reinterpret_cast<void (*)(OnyxState *)>(
        dlsym(handle, ONYX_ABI_EXPORT_STATE_DESTROY));
    computeFn =
        reinterpret_cast<OnyxTensorList *(*)(OnyxState *, OnyxTensorList *)>(
            dlsym(handle, ONYX_ABI_EXPORT_RUN));
    auto metadataFn =
        reinterpret_cast<MetaFn>(dlsym(handle, ONYX_ABI_EXPORT_METADATA));
    if (!create || !destroyFn || !computeFn || !metadataFn) {
      dlclose(handle);
      throw OnyxException(
          "'" + path +
          "' is not an Onyx artifact (it lacks " ONYX_ABI_EXPORT_STATE_CREATE
          " / " ONYX_ABI_EXPORT_RUN " / " ONYX_ABI_EXPORT_METADATA ")");
    }
    if (!createWeights) {
      dlclose(handle);
      throw OnyxException("the artifact '" + path +
                          "' lacks onyx_state_create_with_weights");
    }
    // The session options (docs/runtime.md): the weights path, and the
    // device for a CUDA model (its metadata has a `device cuda` line).
    OnyxSessionOptions options;
    onyx_session_options_init(&options);
    std::string w = weights.is_none() ? "" : std::string(py::str(weights));
    if (!weights.is_none())
      options.weightsPath = w.c_str();
    std::string signature = metadataFn() ? metadataFn() : "";
    bool cudaModel = signature.find("\ndevice cuda\n") != std::string::npos;
    if (cudaModel)
      options.deviceId = deviceId;
    if (cudaStream) {
      if (!cudaModel) {
        dlclose(handle);
        throw OnyxException("cuda_stream is for a model compiled for cuda; '" +
                            path + "' runs on the host");
      }
      // The caller's CUstream: the session queues its work there.
      options.cudaStream = reinterpret_cast<void *>(cudaStream);
    }
    state = onyx_session_create(handle, &options, nullptr);
    if (!state) {
      std::string why = onyxrt_state_create_error();
      dlclose(handle);
      throw OnyxException("cannot create a session for '" + path +
                          "': " + (why.empty() ? "unknown error" : why));
    }
    const char *metaError = nullptr;
    OnyxMetadata *meta = onyx_metadata_parse(metadataFn(), &metaError);
    if (!meta) {
      std::string why = metaError ? metaError : "";
      destroyFn(state);
      dlclose(handle);
      throw OnyxException("the artifact '" + path +
                          "' has malformed metadata: " + why);
    }
    for (int isOutput = 0; isOutput < 2; ++isOutput) {
      size_t n = isOutput ? onyx_metadata_num_outputs(meta)
                          : onyx_metadata_num_inputs(meta);
      for (size_t i = 0; i < n; ++i) {
        Signature s;
        s.name = onyx_metadata_name(meta, isOutput, i);
        s.elem = onyx_metadata_element_type(meta, isOutput, i);
        s.kind = onyx_metadata_kind(meta, isOutput, i);
        s.rank = onyx_metadata_rank(meta, isOutput, i);
        for (int32_t d = 0; d < s.rank; ++d) {
          s.dims.push_back(onyx_metadata_dim(meta, isOutput, i, d));
          const char *sym = onyx_metadata_dim_symbol(meta, isOutput, i, d);
          s.symbols.push_back(sym ? sym : "");
        }
        (isOutput ? outputSigs : inputSigs).push_back(std::move(s));
      }
    }
    onyx_metadata_destroy(meta);
    std::string text =
        onyx_state_metadata(state) ? onyx_state_metadata(state) : "";
    onDevice = text.find("\ndevice ") != std::string::npos;
  }

  ~Artifact() {
    if (state)
      destroyFn(state);
    // The library stays mapped: arrays of earlier outputs are runtime
    // tensors (freed by libonyx_runtime), but a device session's memory is
    // released by code the artifact's session owns; dlclose is safe here
    // since the state is gone and no generated code runs any more.
    if (handle)
      dlclose(handle);
  }

  static py::list describe(const std::vector<Signature> &sigs) {
    static const char *kinds[] = {"tensor", "sequence", "optional",
                                  "optional_sequence"};
    py::list out;
    for (const Signature &s : sigs) {
      py::object shape = py::none();
      if (s.rank >= 0) {
        py::list dims;
        for (int32_t d = 0; d < s.rank; ++d) {
          if (s.dims[d] >= 0)
            dims.append(s.dims[d]);
          else if (!s.symbols[d].empty())
            dims.append(s.symbols[d]);
          else
            dims.append(py::none());
        }
        shape = dims;
      }
      const char *kind = s.kind >= 0 && s.kind < 4 ? kinds[s.kind] : "unknown";
      out.append(
          py::make_tuple(s.name, onyx_element_name(s.elem), shape, kind));
    }
    return out;
  }

  /// Profiling (docs/runtime.md, "Profiling"): a Chrome trace of the
  /// following calls, written to `path` by endProfiling (or when the
  /// session goes).
  void enableProfiling(const std::string &path) {
    if (onyx_state_enable_profiling(state, path.c_str()) != 0)
      throw OnyxException("cannot enable profiling");
  }
  int64_t endProfiling() {
    int64_t events = onyx_state_end_profiling(state);
    if (events < 0) {
      const char *e = onyx_state_last_error(state);
      throw OnyxException(e && *e ? e : "ending the profile failed");
    }
    return events;
  }

  /// The CPU kernels' thread count (process-wide): the runtime's
  /// onyxrt_cpu_set_threads when it has one, else OpenBLAS's, both looked up
  /// in the artifact's dependencies. Returns the count set.
  int setThreads(int threads) {
    using SetFn = int32_t (*)(int32_t);
    using GetFn = int32_t (*)();
    if (auto set =
            reinterpret_cast<SetFn>(dlsym(handle, "onyxrt_cpu_set_threads")))
      return set(threads);
    using BlasSetFn = void (*)(int);
    auto blasSet =
        reinterpret_cast<BlasSetFn>(dlsym(handle, "openblas_set_num_threads"));
    auto blasGet =
        reinterpret_cast<GetFn>(dlsym(handle, "openblas_get_num_threads"));
    if (!blasSet || !blasGet)
      throw OnyxException("threads: neither the runtime nor OpenBLAS offers "
                          "a thread count setting");
    blasSet(threads);
    return blasGet();
  }

  /// onyx_state_memory_stats of the last call, as a dict of its fields.
  py::dict memoryStats() {
    OnyxMemoryStats st;
    int rc;
    {
      std::lock_guard<std::mutex> guard(callMutex);
      rc = onyx_state_memory_stats(state, &st);
    }
    if (rc != 0)
      throw OnyxException("the session has no memory statistics");
    py::dict d;
    d["temp_bytes_requested"] = st.tempBytesRequested;
    d["temp_peak_bytes"] = st.tempPeakBytes;
    d["temp_allocations"] = st.tempAllocations;
    d["output_bytes"] = st.outputBytes;
    d["retained_bytes"] = st.retainedBytes;
    d["planned_temp_bytes"] = st.plannedTempBytes;
    d["pool_requested_bytes"] = st.poolRequestedBytes;
    d["max_live_bytes"] = st.maxLiveBytes;
    d["num_pools"] = st.numPools;
    return d;
  }

  /// onyx_state_set_cuda_graphs: CUDA graphs on or off, and the cache size.
  void setCudaGraphs(bool enable, uint32_t cacheSize) {
    std::lock_guard<std::mutex> guard(callMutex);
    if (onyx_state_set_cuda_graphs(state, enable ? 1 : 0, cacheSize) != 0)
      throw OnyxException("CUDA graphs are for a model compiled for cuda");
  }

  py::dict cudaGraphStats() {
    OnyxCudaGraphStats st = {};
    st.structSize = sizeof(st);
    std::string status;
    int rc;
    {
      std::lock_guard<std::mutex> guard(callMutex);
      rc = onyx_state_cuda_graph_stats(state, &st);
      status = onyx_state_cuda_graph_status(state);
    }
    if (rc != 0)
      throw OnyxException("the session has no CUDA graph statistics");
    static const char *kinds[] = {"normal", "captured", "replayed", "fallback"};
    py::dict d;
    d["enabled"] = bool(st.enabled);
    d["active"] = bool(st.active);
    d["last_call"] =
        st.lastCall >= 0 && st.lastCall < 4 ? kinds[st.lastCall] : "?";
    d["captures"] = st.captures;
    d["replays"] = st.replays;
    d["failed_captures"] = st.failedCaptures;
    d["evictions"] = st.evictions;
    d["invalidations"] = st.invalidations;
    d["cached_graphs"] = st.cachedGraphs;
    d["graph_bytes"] = st.graphBytes;
    d["last_graph_nodes"] = st.lastGraphNodes;
    d["status"] = status;
    return d;
  }

  /// onyx_state_sync_stats: host synchronizations for readbacks.
  py::dict syncStats() {
    uint64_t last = 0, total = 0, calls = 0;
    int rc;
    {
      std::lock_guard<std::mutex> guard(callMutex);
      rc = onyx_state_sync_stats(state, &last, &total, &calls);
    }
    if (rc != 0)
      throw OnyxException("the session has no synchronization statistics");
    py::dict d;
    d["last_call"] = last;
    d["total"] = total;
    d["calls"] = calls;
    return d;
  }

  /// onyx_state_inject_fault (tests): the `nth` later event of `kind`
  /// fails; nth = 0 disarms.
  void injectFault(const std::string &kind, int64_t nth) {
    if (nth < 0)
      throw OnyxException("inject_fault: nth must be >= 0");
    int rc;
    {
      std::lock_guard<std::mutex> guard(callMutex);
      rc = onyx_state_inject_fault(state, kind.c_str(), uint64_t(nth));
    }
    if (rc != 0)
      throw OnyxException("inject_fault: unknown fault kind '" + kind +
                          "' (known: readback)");
  }

  /// onyx_state_metadata: the session's metadata text.
  std::string metadata() const {
    const char *text = onyx_state_metadata(state);
    return text ? text : "";
  }

  py::list inputs() const { return describe(inputSigs); }
  py::list outputs() const { return describe(outputSigs); }
  bool isDevice() const { return onDevice; }

  py::list run(py::object self, py::list values, bool deviceOutputs,
               int deviceId) {
    if (values.size() != inputSigs.size())
      throw OnyxException("expected " + std::to_string(inputSigs.size()) +
                          " inputs, got " + std::to_string(values.size()));
    if (deviceOutputs && !onDevice)
      throw OnyxException(
          "device outputs need a model compiled for a device (target='cuda')");
    ListPtr inputs(onyx_tensor_list_create());
    if (!inputs)
      throw OnyxException("out of memory");
    // DLPack capsules consumed for this call, released when it ends.
    std::vector<DLManagedTensor *> borrowed;
    struct Release {
      std::vector<DLManagedTensor *> &v;
      ~Release() {
        for (DLManagedTensor *m : v)
          if (m->deleter)
            m->deleter(m);
      }
    } release{borrowed};
    for (size_t i = 0; i < inputSigs.size(); ++i) {
      TensorPtr value = convertInput(values[i], inputSigs[i], i, borrowed);
      if (onyx_tensor_list_append(inputs.get(), value.get()) != 0)
        throw OnyxException("out of memory");
      value.release();
    }
    OnyxTensorList *outputs = nullptr;
    std::string error;
    {
      py::gil_scoped_release unlocked;
      std::lock_guard<std::mutex> guard(callMutex);
      if (onyx_state_set_device_outputs(state, deviceOutputs ? 1 : 0) != 0 &&
          deviceOutputs)
        error = "the session cannot leave outputs on the device";
      else {
        outputs = computeFn(state, inputs.get());
        if (!outputs) {
          const char *e = onyx_state_last_error(state);
          error = e && *e ? e : "inference failed";
        }
      }
    }
    if (!outputs)
      throw OnyxException(error);
    auto owner = std::make_shared<OutputOwner>(outputs);
    py::list result;
    size_t n = onyx_tensor_list_size(outputs);
    for (size_t k = 0; k < n; ++k)
      result.append(convertOutput(onyx_tensor_list_get(outputs, k), owner, self,
                                  deviceId));
    return result;
  }

private:
  static std::string where(const Signature &s, size_t i) {
    return "input " + std::to_string(i) + " '" + s.name + "'";
  }

  /// A host tensor copied from a numpy array (any layout).
  static TensorPtr tensorOfArray(py::handle obj, const Signature &s, size_t i,
                                 int32_t expected) {
    py::module_ np = py::module_::import("numpy");
    // asarray(order="C") keeps 0-d arrays 0-d (ascontiguousarray would
    // make them 1-d).
    py::array arr;
    try {
      arr = py::reinterpret_borrow<py::array>(
          np.attr("asarray")(obj, py::arg("order") = "C"));
    } catch (py::error_already_set &e) {
      if (!e.matches(PyExc_MemoryError))
        throw;
      throw OnyxException(where(s, i) + ": cannot make a row-major copy: " +
                          std::string(py::str(e.value())));
    }
    int32_t elem = elementOfDtype(arr.dtype(), expected);
    if (elem == ONYX_UNDEFINED)
      throw OnyxException(where(s, i) + ": numpy dtype " +
                          std::string(py::str(arr.dtype())) +
                          " has no ONNX element type");
    std::vector<int64_t> shape(arr.shape(), arr.shape() + arr.ndim());
    OnyxTensor *t = onyx_tensor_create_copy(
        elem, static_cast<int32_t>(shape.size()), shape.data(), arr.data());
    if (!t)
      throw OnyxException(where(s, i) + ": cannot create a tensor of shape " +
                          std::string(py::str(py::tuple(arr.attr("shape")))) +
                          " (out of memory or too large)");
    return TensorPtr(t);
  }

  /// A tensor from a DLPack capsule: a CUDA tensor is wrapped in place
  /// (onyx_tensor_wrap_device), a CPU one copied.
  TensorPtr tensorOfDLPack(py::capsule cap, const Signature &s, size_t i,
                           std::vector<DLManagedTensor *> &borrowed) {
    if (!PyCapsule_IsValid(cap.ptr(), "dltensor"))
      throw OnyxException(where(s, i) + ": not an unused DLPack capsule");
    auto *m = static_cast<DLManagedTensor *>(
        PyCapsule_GetPointer(cap.ptr(), "dltensor"));
    PyCapsule_SetName(cap.ptr(), "used_dltensor");
    borrowed.push_back(m);
    const DLTensor &t = m->dl_tensor;
    int32_t elem = elementOfDLPack(t.dtype);
    if (elem == ONYX_UNDEFINED)
      throw OnyxException(
          where(s, i) + ": DLPack dtype (code " + std::to_string(t.dtype.code) +
          ", " + std::to_string(t.dtype.bits) + " bits, " +
          std::to_string(t.dtype.lanes) + " lanes) has no ONNX element type");
    if (elem == ONYX_U16 && s.elem == ONYX_BF16)
      elem = ONYX_BF16;
    std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
    // Only compact row-major tensors are taken as they are.
    if (t.strides) {
      int64_t expect = 1;
      for (int32_t d = t.ndim - 1; d >= 0; --d) {
        if (shape[d] != 1 && t.strides[d] != expect)
          throw OnyxException(where(s, i) +
                              ": the DLPack tensor is not contiguous "
                              "(call .contiguous() first)");
        expect *= shape[d];
      }
    }
    char *data = static_cast<char *>(t.data) + t.byte_offset;
    OnyxTensor *tensor = nullptr;
    if (t.device.device_type == kDLCPU || t.device.device_type == kDLCUDAHost) {
      tensor = onyx_tensor_create_copy(elem, t.ndim, shape.data(), data);
    } else if (t.device.device_type == kDLCUDA) {
      if (!onDevice)
        throw OnyxException(where(s, i) +
                            " is CUDA memory, but this model runs on the "
                            "host (compile it with target='cuda')");
      tensor = onyx_tensor_wrap_device(elem, t.ndim, shape.data(), data);
    } else {
      throw OnyxException(where(s, i) + ": DLPack device type " +
                          std::to_string(t.device.device_type) +
                          " is not supported (CPU and CUDA are)");
    }
    if (!tensor)
      throw OnyxException(where(s, i) + ": cannot create a tensor (bad "
                                        "shape or out of memory)");
    return TensorPtr(tensor);
  }

  TensorPtr convertInput(py::handle obj, const Signature &s, size_t i,
                         std::vector<DLManagedTensor *> &borrowed) {
    bool sequence = s.kind == ONYX_SIGNATURE_SEQUENCE ||
                    s.kind == ONYX_SIGNATURE_OPTIONAL_SEQUENCE;
    bool optional = s.kind == ONYX_SIGNATURE_OPTIONAL_TENSOR ||
                    s.kind == ONYX_SIGNATURE_OPTIONAL_SEQUENCE;
    if (obj.is_none()) {
      if (!optional)
        throw OnyxException(where(s, i) +
                            " is None, but it is not an optional");
      OnyxTensor *none = onyx_optional_none_create(s.elem);
      if (!none)
        throw OnyxException(where(s, i) + ": cannot create an empty optional");
      return TensorPtr(none);
    }
    if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
      if (!sequence)
        throw OnyxException(
            where(s, i) + " is a " +
            std::string(py::str(obj.get_type().attr("__name__"))) +
            ", but the model takes a tensor there");
      TensorPtr seq(onyx_sequence_create(s.elem));
      if (!seq)
        throw OnyxException(where(s, i) + ": cannot create a sequence of " +
                            onyx_element_name(s.elem));
      size_t k = 0;
      for (py::handle item : obj) {
        TensorPtr element = tensorOf(item, s, i, borrowed);
        if (onyx_tensor_is_device(element.get()))
          throw OnyxException(where(s, i) + " element " + std::to_string(k) +
                              ": device tensors are not accepted in "
                              "sequences");
        if (onyx_sequence_append(seq.get(), element.get()) != 0)
          throw OnyxException(
              where(s, i) + " element " + std::to_string(k) + " is " +
              onyx_element_name(onyx_tensor_element_type(element.get())) +
              ", but the sequence holds " + onyx_element_name(s.elem));
        element.release();
        ++k;
      }
      return seq;
    }
    if (sequence)
      throw OnyxException(where(s, i) +
                          " is a sequence: pass a list of arrays");
    return tensorOf(obj, s, i, borrowed);
  }

  TensorPtr tensorOf(py::handle obj, const Signature &s, size_t i,
                     std::vector<DLManagedTensor *> &borrowed) {
    if (py::isinstance<py::capsule>(obj))
      return tensorOfDLPack(py::reinterpret_borrow<py::capsule>(obj), s, i,
                            borrowed);
    if (py::isinstance<py::array>(obj) ||
        py::isinstance(obj, py::module_::import("numpy").attr("generic")))
      return tensorOfArray(obj, s, i, s.elem);
    throw OnyxException(where(s, i) +
                        ": expected a numpy array (or a DLPack "
                        "tensor), got " +
                        std::string(py::str(obj.get_type().attr("__name__"))));
  }

  py::object convertOutput(OnyxTensor *value,
                           const std::shared_ptr<OutputOwner> &owner,
                           py::object self, int deviceId) {
    switch (onyx_value_kind(value)) {
    case ONYX_VALUE_NONE:
      return py::none();
    case ONYX_VALUE_SEQUENCE: {
      py::list items;
      size_t n = onyx_sequence_length(value);
      for (size_t k = 0; k < n; ++k)
        items.append(hostArray(onyx_sequence_get(value, k), owner));
      return items;
    }
    default:
      if (onyx_tensor_is_device(value))
        return py::cast(DeviceTensor{owner, self, value, deviceId});
      return hostArray(value, owner);
    }
  }

  void *handle = nullptr;
  OnyxState *state = nullptr;
  void (*destroyFn)(OnyxState *) = nullptr;
  OnyxTensorList *(*computeFn)(OnyxState *, OnyxTensorList *) = nullptr;
  std::vector<Signature> inputSigs, outputSigs;
  bool onDevice = false;
  std::mutex callMutex;
};

/// DLPack capsule (CPU) of a numpy array's memory, for torch < 1.10-style
/// consumers: `onyx.to_dlpack(array)`; the array stays alive with it.
struct HostManager {
  DLManagedTensor managed;
  py::object keepAlive; // the array (released with the GIL held)
  std::vector<int64_t> shape;
};

py::capsule arrayToDLPack(py::array arr) {
  if (!(arr.flags() & py::array::c_style))
    arr = py::reinterpret_borrow<py::array>(py::module_::import("numpy").attr(
        "asarray")(arr, py::arg("order") = "C"));
  int32_t elem = elementOfDtype(arr.dtype(), ONYX_UNDEFINED);
  if (elem == ONYX_UNDEFINED)
    throw OnyxException("numpy dtype " + std::string(py::str(arr.dtype())) +
                        " has no DLPack form here");
  auto *m = new HostManager();
  m->keepAlive = arr;
  m->shape.assign(arr.shape(), arr.shape() + arr.ndim());
  DLTensor &t = m->managed.dl_tensor;
  t.data = const_cast<void *>(arr.data());
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int32_t>(m->shape.size());
  t.dtype = dlpackOfElement(elem);
  t.shape = m->shape.data();
  t.strides = nullptr;
  t.byte_offset = 0;
  m->managed.manager_ctx = m;
  m->managed.deleter = [](DLManagedTensor *self) {
    py::gil_scoped_acquire gil;
    delete static_cast<HostManager *>(self->manager_ctx);
  };
  PyObject *cap = PyCapsule_New(&m->managed, "dltensor", [](PyObject *c) {
    if (PyCapsule_IsValid(c, "dltensor")) {
      auto *mt =
          static_cast<DLManagedTensor *>(PyCapsule_GetPointer(c, "dltensor"));
      if (mt && mt->deleter)
        mt->deleter(mt);
    }
  });
  if (!cap) {
    delete m;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(cap);
}

} // namespace

PYBIND11_MODULE(_onyx, m) {
  m.doc() = "Native part of the onyx package (the Onyx runtime C API)";
  py::register_exception<OnyxException>(m, "OnyxError", PyExc_RuntimeError);

  m.def(
      "runtime_version", []() { return std::string(onyx_runtime_version()); },
      "Version of the linked libonyx_runtime (onyx_runtime_version()).");
  m.def("to_dlpack", &arrayToDLPack,
        "A DLPack capsule over a numpy array's memory (CPU).");
  m.def(
      "artifact_metadata",
      [](const std::string &path) {
        // No session: a CUDA artifact's signature is readable without a GPU.
        void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
          const char *e = dlerror();
          throw OnyxException("cannot load the artifact '" + path +
                              "': " + (e ? e : "dlopen failed"));
        }
        using MetaFn = const char *(*)();
        auto meta =
            reinterpret_cast<MetaFn>(dlsym(handle, ONYX_ABI_EXPORT_METADATA));
        std::string text = meta && meta() ? meta() : "";
        dlclose(handle);
        if (!meta)
          throw OnyxException(
              "'" + path +
              "' is not an Onyx artifact (no " ONYX_ABI_EXPORT_METADATA ")");
        return text;
      },
      py::arg("path"),
      "The metadata text of an artifact (docs/runtime-abi.md), read without "
      "creating a session.");

  py::class_<DeviceTensor>(m, "DeviceTensor",
                           "A tensor output left in device memory; valid "
                           "until the next run on its session returns.")
      .def_property_readonly("shape", &DeviceTensor::shape)
      .def_property_readonly("element_type", &DeviceTensor::elementType)
      .def(
          "__dlpack__",
          [](const DeviceTensor &d, py::object /*stream*/) {
            return toDLPack(d);
          },
          py::arg("stream") = py::none())
      .def("__dlpack_device__", [](const DeviceTensor &d) {
        return py::make_tuple(static_cast<int>(kDLCUDA), d.deviceId);
      });

  py::class_<Artifact>(m, "Artifact")
      .def(py::init<const std::string &, py::object, int, uintptr_t>(),
           py::arg("path"), py::arg("weights") = py::none(),
           py::arg("device_id") = 0, py::arg("cuda_stream") = 0)
      .def("inputs", &Artifact::inputs)
      .def("outputs", &Artifact::outputs)
      .def_property_readonly("on_device", &Artifact::isDevice)
      .def("set_threads", &Artifact::setThreads, py::arg("threads"))
      .def("enable_profiling", &Artifact::enableProfiling, py::arg("path"))
      .def("end_profiling", &Artifact::endProfiling)
      .def("memory_stats", &Artifact::memoryStats)
      .def("sync_stats", &Artifact::syncStats)
      .def("set_cuda_graphs", &Artifact::setCudaGraphs, py::arg("enable"),
           py::arg("cache_size") = 0)
      .def("cuda_graph_stats", &Artifact::cudaGraphStats)
      .def("inject_fault", &Artifact::injectFault, py::arg("kind"),
           py::arg("nth"))
      .def("metadata", &Artifact::metadata)
      .def(
          "run",
          [](py::object self, py::list values, bool deviceOutputs,
             int deviceId) {
            return self.cast<Artifact &>().run(self, values, deviceOutputs,
                                               deviceId);
          },
          py::arg("values"), py::arg("device_outputs") = false,
          py::arg("device_id") = 0);
}
