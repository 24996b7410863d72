#!/usr/bin/env python3
"""Runs Onyx artifacts compiled elsewhere (scripts/gpu/build_suite.py) on the
ONNX node suite and compares them with the suite's reference outputs.

    python3 scripts/gpu/run_suite.py SUITE [--json OUT] [--shapes] [-k REGEX]

SUITE is the folder build_suite.py packed (or its suite.tar.xz): manifest.json,
art/<mode>/<test>.so, data/<test>/{model.onnx,input_K.pb,output_K.pb} and
libonyx_runtime.so. Needs only python3, numpy and onnx (for reading the .pb
files); no MLIR and no Onyx tools, so it runs on the lent GPU machine.

Each artifact is loaded with ctypes and run through the runtime's C API
(onyx_state_create / inference_compute), in a worker process that the
parent restarts after a crash or a failed test (a CUDA fault poisons the
context), so one bad test never hides the others.

  pass   every output matches (node_suite.compare: shape, dtype, rtol=1e-3,
         atol=1e-7; integers and bools exactly)
  wrong  ran, but an output differs
  error  a clean error (session creation or inference_compute returned one)
  crash  the worker died

--shapes: for artifacts compiled with symbolic dims whose inputs all share
one shape, also runs two other shapes (each dim 2d+1, and a large one of
about 2M elements, timed) against ONNX Runtime on the same model with
symbolic dims, when onnxruntime is installed.
"""

import argparse
import ctypes
import json
import os
import re
import select
import subprocess
import sys
import tarfile
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "test", "e2e"))

RTOL, ATOL = 1e-3, 1e-7
SHAPE_RTOL, SHAPE_ATOL = 1e-3, 1e-5

# numpy dtype -> ONNX element type code (onyx_runtime.h).
NP_TO_ONNX = {
    np.dtype(np.float32): 1, np.dtype(np.uint8): 2, np.dtype(np.int8): 3,
    np.dtype(np.uint16): 4, np.dtype(np.int16): 5, np.dtype(np.int32): 6,
    np.dtype(np.int64): 7, np.dtype(np.bool_): 9, np.dtype(np.float16): 10,
    np.dtype(np.float64): 11, np.dtype(np.uint32): 12, np.dtype(np.uint64): 13,
}
ONNX_TO_NP = {v: k for k, v in NP_TO_ONNX.items()}
ONNX_TO_NP[16] = np.dtype(np.uint16)  # bfloat16 as raw bits


class Runtime:
    """The runtime's C API through ctypes."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        L = self.lib
        vp, i32, i64, sz = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64, ctypes.c_size_t
        sig = {
            "onyx_tensor_create_copy": (vp, [i32, i32, ctypes.POINTER(i64), vp]),
            "onyx_tensor_list_create": (vp, []),
            "onyx_tensor_list_append": (ctypes.c_int, [vp, vp]),
            "onyx_tensor_list_size": (sz, [vp]),
            "onyx_tensor_list_get": (vp, [vp, sz]),
            "onyx_tensor_list_destroy": (None, [vp]),
            "onyx_tensor_element_type": (i32, [vp]),
            "onyx_tensor_rank": (i32, [vp]),
            "onyx_tensor_shape": (ctypes.POINTER(i64), [vp]),
            "onyx_tensor_byte_size": (sz, [vp]),
            "onyx_tensor_data": (vp, [vp]),
            "onyx_state_last_error": (ctypes.c_char_p, [vp]),
            "onyxrt_state_create_error": (ctypes.c_char_p, []),
            # Sequence/optional values (docs/sequences.md).
            "onyx_value_kind": (i32, [vp]),
            "onyx_sequence_create": (vp, [i32]),
            "onyx_sequence_append": (ctypes.c_int, [vp, vp]),
            "onyx_sequence_length": (sz, [vp]),
            "onyx_sequence_get": (vp, [vp, sz]),
            "onyx_optional_none_create": (vp, [i32]),
        }
        for name, (res, args) in sig.items():
            fn = getattr(L, name, None)
            if fn is None:  # an older runtime: tensors only
                continue
            fn.restype, fn.argtypes = res, args

    def tensor(self, a):
        a = np.require(a, requirements="C")
        shape = (ctypes.c_int64 * max(1, a.ndim))(*a.shape)
        return self.lib.onyx_tensor_create_copy(NP_TO_ONNX[a.dtype], a.ndim, shape,
                                                a.ctypes.data_as(ctypes.c_void_p))

    def value(self, path, tp):
        """The .pb at `path` (TensorProto, SequenceProto or OptionalProto,
        per the graph input type `tp`) as a runtime value."""
        import onnx
        from onnx import numpy_helper
        data = open(path, "rb").read()
        kind = tp.WhichOneof("value")
        if kind in ("sequence_type", "optional_type"):
            inner = tp
            while inner.WhichOneof("value") in ("sequence_type", "optional_type"):
                inner = getattr(inner, inner.WhichOneof("value")).elem_type
            code = inner.tensor_type.elem_type
            if kind == "sequence_type":
                proto = onnx.SequenceProto()
                proto.ParseFromString(data)
                elements = numpy_helper.to_list(proto)
            else:
                proto = onnx.OptionalProto()
                proto.ParseFromString(data)
                if proto.HasField("tensor_value"):
                    return self.tensor(numpy_helper.to_array(proto.tensor_value))
                if not proto.HasField("sequence_value"):
                    return self.lib.onyx_optional_none_create(code)
                elements = numpy_helper.to_list(proto.sequence_value)
            seq = self.lib.onyx_sequence_create(code)
            for a in elements:
                self.lib.onyx_sequence_append(seq, self.tensor(a))
            return seq
        t = onnx.TensorProto()
        t.ParseFromString(data)
        return self.tensor(numpy_helper.to_array(t))

    def read_value(self, t):
        """A runtime value as an array, ("seq", [values]) or ("none",)."""
        kind = self.lib.onyx_value_kind(t)
        if kind == 0:
            return self.read_tensor(t)
        n = self.lib.onyx_sequence_length(t)
        if kind != 1 and n == 0:
            return ("none",)
        return ("seq", [self.read_value(self.lib.onyx_sequence_get(t, i))
                        for i in range(n)])

    def read_tensor(self, t):
        code = self.lib.onyx_tensor_element_type(t)
        rank = self.lib.onyx_tensor_rank(t)
        shape = tuple(self.lib.onyx_tensor_shape(t)[i] for i in range(rank))
        buf = ctypes.string_at(self.lib.onyx_tensor_data(t),
                               self.lib.onyx_tensor_byte_size(t))
        return np.frombuffer(buf, dtype=ONNX_TO_NP[code]).reshape(shape).copy()

    def make_list(self, arrays, codes=None):
        lst = self.lib.onyx_tensor_list_create()
        for i, a in enumerate(arrays):
            a = np.require(a, requirements="C")  # keeps rank 0, unlike ascontiguousarray
            code = NP_TO_ONNX.get(a.dtype)
            if codes and i < len(codes) and codes[i] == 16 and a.dtype == np.uint16:
                code = 16  # bfloat16 travels as its raw bits
            if code is None:
                self.lib.onyx_tensor_list_destroy(lst)
                raise ValueError("unsupported input dtype %s" % a.dtype)
            shape = (ctypes.c_int64 * max(1, a.ndim))(*a.shape)
            t = self.lib.onyx_tensor_create_copy(code, a.ndim, shape,
                                                 a.ctypes.data_as(ctypes.c_void_p))
            if not t:
                self.lib.onyx_tensor_list_destroy(lst)
                raise ValueError("onyx_tensor_create_copy failed")
            self.lib.onyx_tensor_list_append(lst, t)
        return lst

    def read_list(self, lst):
        out = []
        for k in range(self.lib.onyx_tensor_list_size(lst)):
            t = self.lib.onyx_tensor_list_get(lst, k)
            code = self.lib.onyx_tensor_element_type(t)
            rank = self.lib.onyx_tensor_rank(t)
            shape = tuple(self.lib.onyx_tensor_shape(t)[i] for i in range(rank))
            nbytes = self.lib.onyx_tensor_byte_size(t)
            buf = ctypes.string_at(self.lib.onyx_tensor_data(t), nbytes)
            out.append(np.frombuffer(buf, dtype=ONNX_TO_NP[code]).reshape(shape).copy())
        return out


class Artifact:
    def __init__(self, rt, path):
        self.rt = rt
        self.lib = ctypes.CDLL(path)
        L = self.lib
        L.onyx_state_create.restype = ctypes.c_void_p
        L.onyx_state_create.argtypes = []
        L.onyx_state_destroy.restype = None
        L.onyx_state_destroy.argtypes = [ctypes.c_void_p]
        L.inference_compute.restype = ctypes.c_void_p
        L.inference_compute.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self.state = None
        self.input_codes = None
        L.onyx_model_metadata.restype = ctypes.c_char_p
        L.onyx_model_metadata.argtypes = []
        meta = (L.onyx_model_metadata() or b"").decode()
        self.serial_nodes = [l.split(" ", 1)[1] for l in meta.splitlines()
                             if l.startswith("serial ")]

    def create(self):
        self.state = self.lib.onyx_state_create()
        if not self.state:
            raise RuntimeError("onyx_state_create: " +
                               (self.rt.lib.onyxrt_state_create_error() or b"").decode())

    def run(self, inputs):
        lst = self.rt.make_list(inputs, self.input_codes)
        try:
            res = self.lib.inference_compute(self.state, lst)
            if not res:
                raise RuntimeError(
                    (self.rt.lib.onyx_state_last_error(self.state) or b"").decode())
            try:
                return self.rt.read_list(res)
            finally:
                self.rt.lib.onyx_tensor_list_destroy(res)
        finally:
            self.rt.lib.onyx_tensor_list_destroy(lst)

    def destroy(self):
        if self.state:
            self.lib.onyx_state_destroy(self.state)
            self.state = None


def load_pb(path):
    import onnx
    from onnx import numpy_helper
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


# ---------------------------------------------------------------------------
# Other shapes against ONNX Runtime
# ---------------------------------------------------------------------------

def symbolic_model_bytes(model_path):
    import onnx
    m = onnx.load(model_path)
    for vi in list(m.graph.input) + list(m.graph.output):
        if vi.type.HasField("tensor_type") and vi.type.tensor_type.HasField("shape"):
            for i, d in enumerate(vi.type.tensor_type.shape.dim):
                d.ClearField("dim_value")
                d.dim_param = "%s_d%d" % (re.sub(r"\W", "_", vi.name), i)
    return m.SerializeToString()


def random_like(a, shape, rng):
    if a.dtype.kind == "f":
        return rng.standard_normal(shape).astype(a.dtype)
    if a.dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if a.dtype.kind in "iu":
        return rng.integers(1, 6, shape).astype(a.dtype)
    return None


def other_shapes(shape):
    small = tuple(2 * d + 1 for d in shape)
    n = int(np.prod(shape)) if shape else 1
    big = list(shape) if shape else []
    if big:
        factor = max(1, (1 << 21) // max(1, n))
        big[-1] *= factor
    return [small, tuple(big)]


def check_shapes(rt, art, model_path, inputs, mode_result):
    try:
        import onnxruntime as ort
    except ImportError:
        return {"status": "skip", "reason": "onnxruntime not installed"}
    if not inputs or len({a.shape for a in inputs}) != 1 or inputs[0].ndim == 0:
        return {"status": "skip", "reason": "inputs of different shapes"}
    try:
        sess = ort.InferenceSession(symbolic_model_bytes(model_path),
                                    providers=["CPUExecutionProvider"])
        names = [i.name for i in sess.get_inputs()]
    except Exception as e:  # noqa: BLE001
        return {"status": "skip", "reason": "ORT: %s" % str(e).splitlines()[0][:120]}
    rng = np.random.default_rng(7)
    runs = []
    for shape in other_shapes(inputs[0].shape):
        if art.serial_nodes and int(np.prod(shape)) >= (1 << 20):
            # Serial kernels (one GPU thread, `serial` metadata lines) are
            # checked at the small shape only: their time grows with the
            # data, the large shape measures bandwidth.
            runs.append({"shape": list(shape), "skipped": "serial kernels: %s"
                         % ",".join(art.serial_nodes)})
            continue
        new = [random_like(a, shape, rng) for a in inputs]
        if any(x is None for x in new):
            return {"status": "skip", "reason": "input dtype"}
        try:
            ref = sess.run(None, dict(zip(names, new)))
        except Exception as e:  # noqa: BLE001
            return {"status": "skip", "reason": "ORT: %s" % str(e).splitlines()[0][:120]}
        try:
            got = art.run(new)
        except RuntimeError as e:
            return {"status": "error", "shape": list(shape), "reason": str(e)}
        worst = 0.0
        for g, r in zip(got, ref):
            r = np.asarray(r)
            if g.shape != r.shape or g.dtype != r.dtype:
                return {"status": "wrong", "shape": list(shape),
                        "reason": "got %s %s, expected %s %s" % (g.dtype, g.shape, r.dtype, r.shape)}
            if r.dtype.kind == "f":
                ok = np.isclose(g, r, rtol=SHAPE_RTOL, atol=SHAPE_ATOL, equal_nan=True)
                if not ok.all():
                    return {"status": "wrong", "shape": list(shape),
                            "reason": "%d of %d elements off" % (int((~ok).sum()), r.size)}
                fin = np.isfinite(r) & np.isfinite(g)
                if fin.any():
                    worst = max(worst, float(np.max(np.abs(g[fin].astype(np.float64) - r[fin]) /
                                                     (np.abs(r[fin]) + 1e-6))))
            elif not np.array_equal(g, r):
                return {"status": "wrong", "shape": list(shape), "reason": "values differ"}
        entry = {"shape": list(shape), "max_rel_err": worst}
        t_big = time.perf_counter()
        if int(np.prod(shape)) >= (1 << 20):
            art.run(new)
        if int(np.prod(shape)) >= (1 << 20) and time.perf_counter() - t_big < 0.05:
            times = []
            for _ in range(10):
                t0 = time.perf_counter()
                art.run(new)
                times.append(time.perf_counter() - t0)
            med = float(np.median(times))
            nbytes = sum(a.nbytes for a in new) + sum(g.nbytes for g in got)
            entry.update(median_ms=med * 1e3, call_GBps=nbytes / med / 1e9)
        runs.append(entry)
    return {"status": "pass", "runs": runs}


# ---------------------------------------------------------------------------
# Worker: runs tests in order, one JSON line per test
# ---------------------------------------------------------------------------

def expected_value(path, tp):
    """The reference output at `path` like Runtime.read_value's result."""
    import onnx
    from onnx import numpy_helper
    data = open(path, "rb").read()
    kind = tp.WhichOneof("value")
    if kind == "sequence_type":
        proto = onnx.SequenceProto()
        proto.ParseFromString(data)
        return ("seq", numpy_helper.to_list(proto))
    if kind == "optional_type":
        proto = onnx.OptionalProto()
        proto.ParseFromString(data)
        if proto.HasField("tensor_value"):
            return numpy_helper.to_array(proto.tensor_value)
        if proto.HasField("sequence_value"):
            return ("seq", numpy_helper.to_list(proto.sequence_value))
        return ("none",)
    t = onnx.TensorProto()
    t.ParseFromString(data)
    return numpy_helper.to_array(t)


def same_value(got, want):
    """Why `got` differs from `want` (None when equal within RTOL/ATOL)."""
    if isinstance(want, tuple):
        if not isinstance(got, tuple) or got[0] != want[0]:
            return "got %r, expected %s" % (type(got).__name__, want[0])
        if want[0] == "none":
            return None
        if len(got[1]) != len(want[1]):
            return "%d elements, expected %d" % (len(got[1]), len(want[1]))
        for i, (g, w) in enumerate(zip(got[1], want[1])):
            why = same_value(g, w)
            if why:
                return "element %d: %s" % (i, why)
        return None
    if isinstance(got, tuple):
        return "got a %s, expected a tensor" % got[0]
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    if not np.allclose(got.astype(np.float64), want.astype(np.float64),
                       rtol=RTOL, atol=ATOL, equal_nan=True):
        return "values differ"
    return None


def run_value_test(rt, art, model_path, ddir, entry):
    """A test with sequence/optional inputs or outputs: values through the
    runtime's value API (docs/sequences.md), compared element by element."""
    import onnx
    m = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    ins = [i for i in m.graph.input if i.name not in inits]
    lst = rt.lib.onyx_tensor_list_create()
    for f, i in zip(entry["inputs"], ins):
        rt.lib.onyx_tensor_list_append(lst, rt.value(os.path.join(ddir, f), i.type))
    try:
        res = art.lib.inference_compute(art.state, lst)
        if not res:
            return "error", (rt.lib.onyx_state_last_error(art.state) or b"").decode()
        try:
            for k, (f, o) in enumerate(zip(entry["outputs"], m.graph.output)):
                got = rt.read_value(rt.lib.onyx_tensor_list_get(res, k))
                why = same_value(got, expected_value(os.path.join(ddir, f), o.type))
                if why:
                    return "wrong", "output %d: %s" % (k, why)
            return "pass", ""
        finally:
            rt.lib.onyx_tensor_list_destroy(res)
    finally:
        rt.lib.onyx_tensor_list_destroy(lst)


def has_values(model_path):
    """Whether the model has sequence/optional graph inputs or outputs."""
    import onnx
    m = onnx.load(model_path, load_external_data=False)
    return any(v.type.WhichOneof("value") != "tensor_type"
               for v in list(m.graph.input) + list(m.graph.output))


def run_test(rt, root, manifest, name, mode, shapes):
    import node_suite
    entry = manifest["tests"][name]
    art_path = os.path.join(root, "art", mode, name + ".so")
    ddir = os.path.join(root, "data", name)
    res = {"test": name, "mode": mode}
    t0 = time.perf_counter()
    try:
        art = Artifact(rt, art_path)
        art.input_codes = entry.get("input_elem_types")
        art.create()
    except (OSError, RuntimeError) as e:
        res.update(status="error", reason=str(e).splitlines()[0])
        return res
    res["create_ms"] = (time.perf_counter() - t0) * 1e3
    try:
        model_path = os.path.join(ddir, "model.onnx")
        if has_values(model_path):
            status, why = run_value_test(rt, art, model_path, ddir, entry)
            res.update(status=status, reason=why)
            return res
        inputs = [load_pb(os.path.join(ddir, f)) for f in entry["inputs"]]
        refs = [load_pb(os.path.join(ddir, f)) for f in entry["outputs"]]
        t1 = time.perf_counter()
        try:
            got = art.run(inputs)
        except RuntimeError as e:
            res.update(status="error", reason=str(e).splitlines()[0] if str(e) else "error")
            return res
        res["first_call_ms"] = (time.perf_counter() - t1) * 1e3
        t2 = time.perf_counter()
        got2 = art.run(inputs)  # a second call: the session stays usable
        res["second_call_ms"] = (time.perf_counter() - t2) * 1e3
        if len(got) != len(refs):
            res.update(status="wrong", reason="%d outputs, expected %d" % (len(got), len(refs)))
            return res
        types = entry.get("output_elem_types", [])
        for k, (g, r) in enumerate(zip(got, refs)):
            why = node_suite.compare(k, "", g, r, RTOL, ATOL,
                                     types[k] if k < len(types) else None)
            if why:
                res.update(status="wrong", reason=why)
                return res
        for g, g2 in zip(got, got2):
            if g.tobytes() != g2.tobytes():
                res.update(status="wrong", reason="the second call differs from the first")
                return res
        res["status"] = "pass"
        if shapes and mode == "symbolic":
            res["shapes"] = check_shapes(rt, art, os.path.join(ddir, "model.onnx"),
                                         inputs, res)
        return res
    finally:
        art.destroy()


def worker(args):
    root = args.suite
    with open(os.path.join(root, "manifest.json")) as f:
        manifest = json.load(f)
    rt = Runtime(args.runtime or os.path.join(root, "libonyx_runtime.so"))
    todo = [line.split("\t") for line in sys.stdin.read().splitlines() if line]
    out = sys.stdout
    for name, mode in todo:
        out.write(json.dumps({"start": name, "mode": mode}) + "\n")
        out.flush()
        res = run_test(rt, root, manifest, name, mode, args.shapes)
        out.write(json.dumps(res) + "\n")
        out.flush()
        if res["status"] in ("error", "wrong") and "CUDA_ERROR" in res.get("reason", ""):
            return 3  # the context may be poisoned: let the parent restart us


# ---------------------------------------------------------------------------
# Parent
# ---------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suite", help="suite folder or suite.tar.xz from build_suite.py")
    ap.add_argument("--runtime", help="libonyx_runtime.so (default: the suite's)")
    ap.add_argument("--mode", action="append", choices=("static", "symbolic"))
    ap.add_argument("-k", "--filter", help="regex on test names")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--shapes", action="store_true", help="also run other shapes (ORT reference)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--timeout", type=float, default=120,
                    help="seconds one test may take (a hung test is a crash)")
    ap.add_argument("--max-list", type=int, default=80,
                    help="non-passing tests to list")
    args = ap.parse_args()

    if args.suite.endswith(".tar.xz"):
        tmp = tempfile.mkdtemp(prefix="onyx-suite-")
        with tarfile.open(args.suite) as tar:
            tar.extractall(tmp)
        args.suite = os.path.join(tmp, "suite")
    args.suite = os.path.abspath(args.suite)
    if args.worker:
        sys.exit(worker(args) or 0)

    with open(os.path.join(args.suite, "manifest.json")) as f:
        manifest = json.load(f)
    modes = args.mode or manifest["modes"]
    todo = []
    for name in sorted(manifest["tests"]):
        if args.filter and not re.search(args.filter, name):
            continue
        for mode in modes:
            c = manifest["tests"][name]["compile"].get(mode)
            if c and c["status"] == "ok":
                todo.append((name, mode))

    results = {}
    start = time.monotonic()
    restarts = 0
    while todo:
        cmd = [sys.executable, os.path.abspath(__file__), args.suite, "--worker"]
        if args.runtime:
            cmd += ["--runtime", args.runtime]
        if args.shapes:
            cmd.append("--shapes")
        errfile = tempfile.TemporaryFile(mode="w+")
        with tempfile.TemporaryFile(mode="w+") as todo_file:
            todo_file.write("".join("%s\t%s\n" % t for t in todo))
            todo_file.seek(0)
            proc = subprocess.Popen(cmd, stdin=todo_file, stdout=subprocess.PIPE,
                                    stderr=errfile, text=True)
        # One test may take --timeout seconds; a silent worker is killed.
        lines = []
        while True:
            ready, _, _ = select.select([proc.stdout], [], [], args.timeout)
            if not ready:
                proc.kill()
                break
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
        proc.wait()
        errfile.seek(0)
        err = errfile.read()
        errfile.close()
        started = None
        for line in lines:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if "start" in rec:
                started = (rec["start"], rec["mode"])
                continue
            results[(rec["test"], rec["mode"])] = rec
            started = None
        if started is not None and started not in results:
            tail = [l for l in err.splitlines() if l.strip()][-1:] or [""]
            results[started] = {"test": started[0], "mode": started[1], "status": "crash",
                                "reason": "worker exit %s %s" % (proc.returncode, tail[0][:200])}
        todo = [t for t in todo if t not in results]
        restarts += 1
        if restarts > 200:
            break
    seconds = time.monotonic() - start

    # Summary.
    counts = {m: {"pass": 0, "wrong": 0, "error": 0, "crash": 0} for m in modes}
    for (name, mode), r in results.items():
        counts[mode][r["status"]] += 1
    compile_failed = {m: sum(1 for t in manifest["tests"].values()
                             if t["compile"].get(m, {}).get("status") not in (None, "ok"))
                      for m in modes}
    print()
    print("%-9s %6s %6s %6s %6s   (compile errors, not run: %s)" % (
        "mode", "pass", "wrong", "error", "crash",
        ", ".join("%s %d" % (m, compile_failed[m]) for m in modes)))
    for m in modes:
        c = counts[m]
        print("%-9s %6d %6d %6d %6d" % (m, c["pass"], c["wrong"], c["error"], c["crash"]))
    bad = [r for r in results.values() if r["status"] != "pass"]
    if bad:
        print("\nnot passing:")
        for r in sorted(bad, key=lambda r: (r["mode"], r["test"]))[:args.max_list]:
            print("  %-8s %-50s %-5s %s" % (r["mode"], r["test"], r["status"],
                                            r.get("reason", "")[:160]))
    shape_runs = [r for r in results.values() if "shapes" in r]
    if shape_runs:
        sc = {}
        for r in shape_runs:
            sc[r["shapes"]["status"]] = sc.get(r["shapes"]["status"], 0) + 1
        print("\nother shapes vs ONNX Runtime (symbolic artifacts): %s" % json.dumps(sc))
        for r in shape_runs:
            if r["shapes"]["status"] in ("wrong", "error"):
                print("  %-50s %s %s %s" % (r["test"], r["shapes"]["status"],
                                            r["shapes"].get("shape", ""),
                                            r["shapes"].get("reason", "")[:140]))
        timed = [(r["test"], run) for r in shape_runs if r["shapes"]["status"] == "pass"
                 for run in r["shapes"]["runs"] if "median_ms" in run]
        if timed:
            ms = sorted(t[1]["median_ms"] for t in timed)
            gbps = sorted(t[1]["call_GBps"] for t in timed)
            print("  timed large shapes: %d, median call %.3f ms, median %.1f GB/s "
                  "(inputs+outputs per call, host<->device copies included)" % (
                      len(timed), ms[len(ms) // 2], gbps[len(gbps) // 2]))
    cre = sorted(r["create_ms"] for r in results.values() if "create_ms" in r)
    first = sorted(r["first_call_ms"] for r in results.values() if "first_call_ms" in r)
    second = sorted(r["second_call_ms"] for r in results.values() if "second_call_ms" in r)
    if cre and first and second:
        print("\nmedian session create %.2f ms, first call %.3f ms, second call %.3f ms"
              % (cre[len(cre) // 2], first[len(first) // 2], second[len(second) // 2]))
    print("ran %d artifacts in %.0fs (%d worker starts)" % (len(results), seconds, restarts))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"counts": counts, "compile_failed": compile_failed,
                       "seconds": round(seconds, 1),
                       "results": {"%s/%s" % k: v for k, v in sorted(results.items())}},
                      f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
