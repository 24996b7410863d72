"""Onyx: run ONNX models compiled ahead of time (docs/python.md).

    import numpy as np, onyx
    s = onyx.InferenceSession("examples/mlp_classifier.onnx")
    (probs,) = s.run(None, {"x": np.random.rand(3, 16).astype(np.float32)})

The API follows ONNX Runtime's: InferenceSession, get_inputs()/get_outputs()
(objects with .name, .type, .shape), run(output_names, feeds). An .onnx path
is compiled with onyx-compile on first use and the artifact cached
(_cache.py); an artifact .so is loaded as it is.
"""
import os

from ._onyx import OnyxError, DeviceTensor, runtime_version, to_dlpack
from ._onyx import artifact_metadata
from ._onyx import Artifact as _Artifact
from . import _cache

__all__ = ["InferenceSession", "NodeArg", "OnyxError", "DeviceTensor",
           "from_dlpack", "to_dlpack", "runtime_version", "artifact_metadata",
           "__version__"]

__version__ = runtime_version()

_TARGETS = ("cpu", "cuda")


class NodeArg:
    """One graph input or output: name, element type (ONNX Runtime's
    'tensor(float)' spelling in .type, Onyx's 'f32' in .element_type),
    shape (ints for static dims, the symbol's name for symbolic ones, None
    for unnamed dynamic ones; None for sequences) and kind ('tensor',
    'sequence', 'optional', 'optional_sequence')."""

    _ORT = {"f32": "float", "f64": "double", "f16": "float16", "bf16": "bfloat16",
            "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
            "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
            "bool": "bool"}

    def __init__(self, name, element_type, shape, kind):
        self.name = name
        self.element_type = element_type
        self.shape = shape
        self.kind = kind
        t = "tensor(%s)" % self._ORT.get(element_type, element_type)
        if kind == "sequence":
            t = "seq(%s)" % t
        elif kind == "optional":
            t = "optional(%s)" % t
        elif kind == "optional_sequence":
            t = "optional(seq(%s))" % t
        self.type = t

    def __repr__(self):
        return "NodeArg(name=%r, type=%r, shape=%r)" % (self.name, self.type,
                                                         self.shape)


def from_dlpack(tensor):
    """A numpy array over a CPU DLPack tensor (torch, CuPy host arrays, ...),
    sharing its memory. CUDA tensors need no conversion: pass them to run()
    as they are (they are read in place by a CUDA session)."""
    import numpy as np
    dev = tensor.__dlpack_device__() if hasattr(tensor, "__dlpack_device__") else (1, 0)
    if dev[0] != 1:
        raise OnyxError("from_dlpack gives numpy arrays, for CPU tensors only "
                        "(device type %d); pass device tensors to run() directly"
                        % dev[0])
    return np.from_dlpack(tensor)


def _is_device_dlpack(value):
    dev = getattr(value, "__dlpack_device__", None)
    if dev is None:
        return False
    try:
        return dev()[0] not in (1, 3)  # kDLCPU, kDLCUDAHost
    except Exception:
        return False


# InferenceSession(precision=...): onyx-compile's --precision values.
_PRECISIONS = (None, "fp32", "float32", "tf32", "fp16", "bf16")


def _stream_handle(stream):
    """The CUstream handle of `cuda_stream` (0 for None)."""
    if stream is None:
        return 0
    for attr in ("cuda_stream", "ptr"):  # torch.cuda.Stream, cupy's Stream
        if not isinstance(stream, int) and hasattr(stream, attr):
            stream = getattr(stream, attr)
            break
    if isinstance(stream, bool) or not isinstance(stream, int) or stream < 0:
        raise OnyxError("cuda_stream must be a CUstream handle (a non-negative "
                        "int), a torch.cuda.Stream or a CuPy stream, not %r"
                        % (stream,))
    return stream


class InferenceSession:
    """A compiled model and one runtime session.

    path: an .onnx model (compiled with onyx-compile on first use, the
        artifact cached in `cache_dir`, else $ONYX_CACHE_DIR, else
        ~/.cache/onyx) or an artifact .so.
    target: 'cpu' or 'cuda' (for .onnx; an artifact is what it was compiled
        for).
    precision: None or 'fp32' (the model's own element types), 'tf32'
        (cuda: f32 GEMMs/convolutions on TF32 tensor cores), 'fp16' or
        'bf16' (an fp32 model run in half precision; bf16 needs cuda):
        onyx-compile's --precision, for an .onnx (an artifact is what it
        was compiled with).
    device_id: the CUDA device of a 'cuda' session.
    cuda_stream: a 'cuda' session's stream, the caller's: a CUstream handle
        (int), a torch.cuda.Stream (its .cuda_stream) or a CuPy stream (its
        .ptr), of the primary context of `device_id`. The session queues its
        copies, kernels and library calls there, after the caller's work,
        and waits for it before each run returns; it never destroys it.
        None: a stream of the session's own.
    threads: the CPU target's thread count (its thread pool's size:
        onyxrt_cpu_set_threads), process-wide.
    weights: the external weights file (or its directory) of an artifact
        compiled with --external-weights; for an .onnx, compile it that way
        and read the weights from there.
    enable_cuda_graph: a 'cuda' session records each input signature's
        call as a CUDA graph on its second use and replays it afterwards
        (cuda_graph_cache_size signatures, 0: 8; docs/runtime.md "CUDA
        graphs"). None (default): on for a 'cuda' session unless the
        environment has ONYX_CUDA_GRAPHS=0; False: off; True: on (an
        OnyxError for a 'cpu' model). cuda_graph_stats() says what the last
        call did and, when graphs are not used, why.
    enable_profiling: record a Chrome trace (one event per call, per op on
        the CPU and per kernel or library call on CUDA, with their shapes --
        an .onnx is compiled with --profile), written by end_profiling() or
        when the session is freed, to `profile_file` (default
        onyx_profile_<pid>_<date>.json in the current directory).
    """

    def __init__(self, path, target="cpu", precision=None, device_id=0,
                 threads=None, cache_dir=None, weights=None,
                 enable_profiling=False, profile_file=None, cuda_stream=None,
                 enable_cuda_graph=None, cuda_graph_cache_size=0):
        path = os.fspath(path)
        if target not in _TARGETS:
            raise OnyxError("target must be 'cpu' or 'cuda', not %r" % (target,))
        if precision not in _PRECISIONS:
            raise OnyxError("precision %r is not supported (expected None, "
                            "'fp32', 'tf32', 'fp16' or 'bf16')" % (precision,))
        if not isinstance(device_id, int) or device_id < 0:
            raise OnyxError("device_id must be a non-negative int")
        stream = _stream_handle(cuda_stream)
        if threads is not None and (not isinstance(threads, int) or threads < 1):
            raise OnyxError("threads must be a positive int or None")
        if not os.path.isfile(path):
            raise OnyxError("no such file: %s" % path)
        self.from_cache = None
        if path.endswith(".so"):
            artifact = path
        else:
            options = ["--target=" + target]
            if precision not in (None, "fp32", "float32"):
                options.append("--precision=" + precision)
            if enable_profiling:
                # CPU: per-op events; CUDA: the kernels' buffer shapes.
                options.append("--profile")
            if weights is not None:
                options.append("--external-weights")
            artifact, self.from_cache = _cache.get_artifact(
                os.path.abspath(path), options, cache_dir)
            if weights is None and "--external-weights" in options:
                weights = os.path.dirname(os.path.abspath(path))
        self.artifact_path = artifact
        self._device_id = device_id
        # The device goes to the runtime in the session options
        # (OnyxSessionOptions.deviceId), not through ONYX_CUDA_DEVICE.
        self._art = _Artifact(artifact, None if weights is None
                              else os.fspath(weights), device_id, stream)
        if threads is not None:
            self._art.set_threads(threads)
        if enable_cuda_graph:
            # docs/runtime.md, "CUDA graphs": one graph per input signature
            # (shapes, device input addresses), recorded on its second call.
            if not self._art.on_device:
                raise OnyxError("enable_cuda_graph is for a model compiled "
                                "for cuda; '%s' runs on the host" % artifact)
            self._art.set_cuda_graphs(True, int(cuda_graph_cache_size))
        elif enable_cuda_graph is not None:
            if self._art.on_device:
                self._art.set_cuda_graphs(False, 0)
        elif cuda_graph_cache_size and self._art.on_device and \
                self._art.cuda_graph_stats()["enabled"]:
            # On by default: only the cache size changes.
            self._art.set_cuda_graphs(True, int(cuda_graph_cache_size))
        self._profile_file = None
        if enable_profiling:
            if profile_file is None:
                import datetime
                profile_file = "onyx_profile_%d_%s.json" % (
                    os.getpid(),
                    datetime.datetime.now().strftime("%Y-%m-%d_%H-%M-%S-%f"))
            self._profile_file = os.path.abspath(os.fspath(profile_file))
            self._art.enable_profiling(self._profile_file)
        self._inputs = [NodeArg(*i) for i in self._art.inputs()]
        self._outputs = [NodeArg(*o) for o in self._art.outputs()]
        self._input_index = {a.name: k for k, a in enumerate(self._inputs)}
        self._output_index = {a.name: k for k, a in enumerate(self._outputs)}

    def end_profiling(self):
        """Writes the trace recorded since the session was created and
        stops profiling; returns the file's path (ONNX Runtime's
        end_profiling). An OnyxError when profiling is off or the file
        cannot be written."""
        if self._profile_file is None:
            raise OnyxError("profiling is not enabled on this session "
                            "(InferenceSession(..., enable_profiling=True))")
        path, self._profile_file = self._profile_file, None
        self._art.end_profiling()
        return path

    def cuda_graph_stats(self):
        """CUDA graphs of the session (onyx_state_cuda_graph_stats,
        docs/runtime.md "CUDA graphs"): enabled, active, last_call
        ('normal', 'captured', 'replayed', 'fallback'), captures, replays,
        failed_captures, evictions, invalidations, cached_graphs,
        graph_bytes, last_graph_nodes, and status (why graphs are not
        used, '' when they are)."""
        return self._art.cuda_graph_stats()

    def memory_stats(self):
        """Memory of the last run (onyx_state_memory_stats, docs/runtime.md):
        a dict with temp_bytes_requested, temp_peak_bytes, temp_allocations,
        output_bytes, retained_bytes, planned_temp_bytes,
        pool_requested_bytes, max_live_bytes and num_pools. On a CUDA
        session these are device bytes; pool_requested_bytes +
        temp_peak_bytes + output_bytes is the call's activation memory
        (weights and inputs excluded)."""
        return self._art.memory_stats()

    def sync_stats(self):
        """Host synchronizations for readbacks (onyx_state_sync_stats): a
        dict with last_call (in the last run), total (over the session's
        runs) and calls (runs so far)."""
        return self._art.sync_stats()

    def inject_fault(self, kind, nth):
        """Fault injection for tests (onyx_state_inject_fault): with kind
        'readback', the nth (>= 1) host synchronization from now on fails,
        that run raising an OnyxError naming the node; the session stays
        usable. nth=0 disarms. An unknown kind is an OnyxError."""
        if not isinstance(nth, int) or isinstance(nth, bool):
            raise OnyxError("inject_fault: nth must be an int")
        self._art.inject_fault(str(kind), nth)

    def metadata(self):
        """The artifact's metadata text (docs/runtime-abi.md)."""
        return self._art.metadata()

    def get_inputs(self):
        return list(self._inputs)

    def get_outputs(self):
        return list(self._outputs)

    @property
    def target(self):
        return "cuda" if self._art.on_device else "cpu"

    def run(self, output_names, input_feed, device_outputs=False):
        """Runs the model. output_names: the outputs to return (None: all,
        in graph order); input_feed: {input name: value}, a value being a
        numpy array (or anything with __dlpack__: torch tensors, CUDA ones
        read in place by a CUDA session), a list of arrays for a sequence,
        None for an empty optional. Returns a list of numpy arrays (views of
        the runtime's output buffers, no copy), lists for sequences, None
        for empty optionals; with device_outputs=True a CUDA session leaves
        tensor outputs on the device as DeviceTensor objects (DLPack),
        valid until the next run on this session returns."""
        if not isinstance(input_feed, dict):
            raise OnyxError("input_feed must be a dict {name: value}")
        values = [None] * len(self._inputs)
        given = [False] * len(self._inputs)
        for name, value in input_feed.items():
            k = self._input_index.get(name)
            if k is None:
                raise OnyxError("the model has no input %r (inputs: %s)" % (
                    name, ", ".join(a.name for a in self._inputs)))
            values[k] = self._convert(value)
            given[k] = True
        missing = [a.name for a, g in zip(self._inputs, given)
                   if not g and a.kind not in ("optional", "optional_sequence")]
        if missing:
            raise OnyxError("missing inputs: %s" % ", ".join(missing))
        picks = None
        if output_names is not None:
            picks = []
            for name in output_names:
                k = self._output_index.get(name)
                if k is None:
                    raise OnyxError("the model has no output %r (outputs: %s)"
                                    % (name, ", ".join(a.name for a in self._outputs)))
                picks.append(k)
        outs = self._art.run(values, bool(device_outputs), self._device_id)
        if picks is None:
            return outs
        return [outs[k] for k in picks]

    def _convert(self, value):
        import numpy as np
        if value is None or isinstance(value, (np.ndarray, np.generic)):
            return value
        if isinstance(value, (list, tuple)):
            return [self._convert(v) for v in value]
        if hasattr(value, "__dlpack__"):
            if _is_device_dlpack(value):
                return value.__dlpack__()
            return from_dlpack(value)
        return value  # the native side names the wrong type
