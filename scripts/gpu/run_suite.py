#!/usr/bin/env python3
"""Runs Onyx artifacts compiled elsewhere (scripts/gpu/build_suite.py) on the
ONNX node suite and compares them with the suite's reference outputs.

    python3 scripts/gpu/run_suite.py SUITE [--json OUT] [--shapes] [-k REGEX]

SUITE is the folder build_suite.py packed (or its suite.tar.xz): manifest.json,
art/<mode>/<test>.so, data/<test>/{model.onnx,input_K.pb,output_K.pb} and
libonyx_runtime.so. Needs python3, numpy, onnx (for reading the .pb files)
and the `onyx` package (docs/python.md), built for that python3 against the
suite's libonyx_runtime.so: on the lent GPU machine

    bash scripts/gpu/device_python.sh SUITE python3 scripts/gpu/run_suite.py SUITE ...

builds it there (no MLIR and no Onyx tools are needed). The artifacts link
the runtime the module loaded.

Each artifact is run through onyx.InferenceSession (the .so as it is), in a
worker process that the parent restarts after a crash or a failed test (a
CUDA fault poisons the context), so one bad test never hides the others.

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


class Artifact:
    """One test's artifact: an onyx.InferenceSession over the .so."""

    def __init__(self, path, device_id=0, cuda_graphs=False):
        import onyx
        self.path = path
        self.device_id = device_id
        self.cuda_graphs = cuda_graphs
        # The `serial` metadata lines: kernels that run on one GPU thread.
        meta = onyx.artifact_metadata(path)
        self.serial_nodes = [l.split(" ", 1)[1] for l in meta.splitlines()
                             if l.startswith("serial ")]
        self.session = None

    def create(self):
        import onyx
        try:
            self.session = onyx.InferenceSession(
                self.path, device_id=self.device_id,
                **({"enable_cuda_graph": True} if self.cuda_graphs else {}))
        except onyx.OnyxError as e:
            raise RuntimeError(str(e)) from None
        self.names = [i.name for i in self.session.get_inputs()]

    def run(self, inputs):
        """Outputs (numpy arrays; lists for sequences, None for empty
        optionals) for `inputs` in graph-input order."""
        import onyx
        try:
            return [_copy(v) for v in self.session.run(None, dict(zip(self.names, inputs)))]
        except onyx.OnyxError as e:
            raise RuntimeError(str(e)) from None

    def destroy(self):
        self.session = None


def _copy(v):
    """An output detached from the runtime's buffers."""
    if isinstance(v, list):
        return [_copy(x) for x in v]
    return None if v is None else np.array(v, copy=True)


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


def check_shapes(art, model_path, inputs, mode_result):
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
    """The reference output at `path`: an array, ("seq", [values]) or ("none",)."""
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


def input_value(path, tp):
    """The .pb at `path` (TensorProto, SequenceProto or OptionalProto, per
    the graph input type `tp`) as a value for InferenceSession.run: an
    array, a list of arrays, or None for an empty optional."""
    import onnx
    from onnx import numpy_helper
    data = open(path, "rb").read()
    kind = tp.WhichOneof("value")
    if kind == "sequence_type":
        proto = onnx.SequenceProto()
        proto.ParseFromString(data)
        return list(numpy_helper.to_list(proto))
    if kind == "optional_type":
        proto = onnx.OptionalProto()
        proto.ParseFromString(data)
        if proto.HasField("tensor_value"):
            return numpy_helper.to_array(proto.tensor_value)
        if proto.HasField("sequence_value"):
            return list(numpy_helper.to_list(proto.sequence_value))
        return None
    t = onnx.TensorProto()
    t.ParseFromString(data)
    return numpy_helper.to_array(t)


def as_value(v):
    """A run() output in expected_value's form."""
    if v is None:
        return ("none",)
    if isinstance(v, list):
        return ("seq", [as_value(x) for x in v])
    return v


def run_value_test(art, model_path, ddir, entry):
    """A test with sequence/optional inputs or outputs (docs/sequences.md),
    compared element by element."""
    import onnx
    m = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    ins = [i for i in m.graph.input if i.name not in inits]
    feeds = [input_value(os.path.join(ddir, f), i.type)
             for f, i in zip(entry["inputs"], ins)]
    try:
        got = art.run(feeds)
    except RuntimeError as e:
        return "error", str(e)
    for k, (f, o) in enumerate(zip(entry["outputs"], m.graph.output)):
        why = same_value(as_value(got[k]), expected_value(os.path.join(ddir, f), o.type))
        if why:
            return "wrong", "output %d: %s" % (k, why)
    return "pass", ""


def has_values(model_path):
    """Whether the model has sequence/optional graph inputs or outputs."""
    import onnx
    m = onnx.load(model_path, load_external_data=False)
    return any(v.type.WhichOneof("value") != "tensor_type"
               for v in list(m.graph.input) + list(m.graph.output))


def run_test(root, manifest, name, mode, shapes, device_id=0, cuda_graphs=False):
    import node_suite
    entry = manifest["tests"][name]
    art_path = os.path.join(root, "art", mode, name + ".so")
    ddir = os.path.join(root, "data", name)
    res = {"test": name, "mode": mode}
    t0 = time.perf_counter()
    try:
        art = Artifact(art_path, device_id, cuda_graphs)
        art.create()
    except (OSError, RuntimeError) as e:
        res.update(status="error", reason=str(e).splitlines()[0])
        return res
    res["create_ms"] = (time.perf_counter() - t0) * 1e3
    try:
        model_path = os.path.join(ddir, "model.onnx")
        if has_values(model_path):
            status, why = run_value_test(art, model_path, ddir, entry)
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
        if cuda_graphs:
            # The second call was recorded (and launched); a third replays
            # the graph: both bit for bit the first call's outputs.
            got3 = art.run(inputs)
            for g, g3 in zip(got, got3):
                if g.tobytes() != g3.tobytes():
                    res.update(status="wrong", reason="the replayed call differs from the first")
                    return res
            st = art.session.cuda_graph_stats()
            res["graph"] = st["last_call"]
            if st["status"]:
                res["graph_status"] = st["status"].splitlines()[0][:160]
        res["status"] = "pass"
        if shapes and mode == "symbolic":
            res["shapes"] = check_shapes(art, os.path.join(ddir, "model.onnx"),
                                         inputs, res)
        return res
    finally:
        art.destroy()


def worker(args):
    root = args.suite
    with open(os.path.join(root, "manifest.json")) as f:
        manifest = json.load(f)
    todo = [line.split("\t") for line in sys.stdin.read().splitlines() if line]
    out = sys.stdout
    for name, mode in todo:
        out.write(json.dumps({"start": name, "mode": mode}) + "\n")
        out.flush()
        res = run_test(root, manifest, name, mode, args.shapes, args.device_id,
                       args.cuda_graphs)
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
    ap.add_argument("--mode", action="append", choices=("static", "symbolic"))
    ap.add_argument("-k", "--filter", help="regex on test names")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--shapes", action="store_true", help="also run other shapes (ORT reference)")
    ap.add_argument("--device-id", type=int, default=0,
                    help="the CUDA device of the sessions (InferenceSession device_id)")
    ap.add_argument("--cuda-graphs", action="store_true",
                    help="sessions with CUDA graphs: a third call replays the "
                         "second's recording, both compared bit for bit with the first")
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
    try:
        import onyx  # noqa: F401
    except ImportError as e:
        sys.exit("error: the onyx package is not importable (%s); on the GPU machine "
                 "run this through scripts/gpu/device_python.sh SUITE" % e)
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
        if args.shapes:
            cmd.append("--shapes")
        if args.cuda_graphs:
            cmd.append("--cuda-graphs")
        cmd += ["--device-id", str(args.device_id)]
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
    graphed = [r for r in results.values() if "graph" in r]
    if graphed:
        gc, why = {}, {}
        for r in graphed:
            gc[r["graph"]] = gc.get(r["graph"], 0) + 1
            if r.get("graph_status"):
                why[r["graph_status"]] = why.get(r["graph_status"], 0) + 1
        print("\nCUDA graphs, the third call of each passing test: %s" % json.dumps(gc))
        for w, n in sorted(why.items(), key=lambda x: -x[1])[:10]:
            print("  %4d  %s" % (n, w))
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
