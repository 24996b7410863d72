#!/usr/bin/python3
"""ONNX Runtime CPU against Onyx CPU: the same .onnx files, inputs and thread
count, in one run; median latency per call and the ratio per case.

    /usr/bin/python3 bench/cpu_bench.py [--threads 2,1] [--runs 10]
        [--cases resnet50_b1,...] [--cpu native,x86-64-v2] [--ort DIR]
        [-o build/cpu_bench.md]

Models come from test/e2e/real_models (build/real_models, written by its
make_models.py when missing), bench/bench_models.py (the BERT-base-sized
encoder, 340 MB: build/bench_models) and the bundled example
(examples/transformer_example.py, build/example; the cases example_* are the
shapes of scripts/demo.sh), each exported on demand into its cache folder.
Default cases: all of issue 16's. Each case's input is random with a fixed seed
(token ids below the vocabulary for the decoder), written once as .npy for
Onyx and as raw bytes for ONNX Runtime.

- Onyx: `onyx-compile MODEL.onnx -o MODEL.so --cpu=C` for each C of --cpu
  (default: only `native`, onyx-compile's default; several give one Onyx
  column each, measured in the same run), then in a fresh process per case and
  thread count: onyxrt_cpu_set_threads(T) (OpenBLAS threads), the session,
  --warmup calls, then the median of --runs calls of inference_compute.
- ONNX Runtime 1.30 from npm (`npm install --ignore-scripts
  onnxruntime-node@1.30.0` in DIR, default /tmp/ort_cpu; the install script
  only fetches GPU parts), driven from Node.js: intraOpNumThreads = T,
  interOpNumThreads = 1, graphOptimizationLevel 'all', the CPU provider,
  the same warm-up and median. It is a benchmark peer, never a dependency.

The outputs of the two are compared (max relative difference, reported).
Timings on a shared machine vary: the report records the load average
before and after; ratios within one run are what to compare. Speed is
never asserted.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BIN_DIR = os.environ.get("ONYX_BIN_DIR", os.path.join(REPO, "build", "bin"))
RUNTIME_LIB = os.environ.get("ONYX_RUNTIME_LIB",
                             os.path.join(REPO, "build", "lib", "libonyx_runtime.so"))
DATA = os.path.join(REPO, "build", "real_models")
BENCH_DATA = os.path.join(REPO, "build", "bench_models")
EXAMPLE_DATA = os.path.join(REPO, "build", "example")
BENCH_MODELS = ("bert_base_encoder",)

# name: (model, {input: (dtype, shape)})
CASES = {
    "resnet50_b1": ("resnet50", {"x": ("float32", [1, 3, 224, 224])}),
    "resnet50_b8": ("resnet50", {"x": ("float32", [8, 3, 224, 224])}),
    "mobilenet_v2_b1": ("mobilenet_v2", {"x": ("float32", [1, 3, 224, 224])}),
    "squeezenet1_1_b1": ("squeezenet1_1", {"x": ("float32", [1, 3, 224, 224])}),
    "transformer_encoder_b8_s128": ("transformer_encoder", {"x": ("float32", [8, 128, 64])}),
    "causal_decoder_b1_s128": ("causal_decoder", {"tokens": ("int64", [1, 128])}),
    "bert_base_encoder_b1_s128": ("bert_base_encoder", {"x": ("float32", [1, 128, 768])}),
    "bert_base_encoder_b8_s128": ("bert_base_encoder", {"x": ("float32", [8, 128, 768])}),
    # The bundled example (scripts/demo.sh, examples/transformer_example.py)
    # at the demo's three shapes.
    "example_b1_s1": ("example", {"x": ("float32", [1, 1, 64])}),
    "example_b7_s16": ("example", {"x": ("float32", [7, 16, 64])}),
    "example_b64_s32": ("example", {"x": ("float32", [64, 32, 64])}),
}
DEFAULT_CASES = ["resnet50_b1", "resnet50_b8", "mobilenet_v2_b1", "squeezenet1_1_b1",
                 "transformer_encoder_b8_s128", "causal_decoder_b1_s128",
                 "bert_base_encoder_b1_s128", "bert_base_encoder_b8_s128",
                 "example_b1_s1", "example_b7_s16", "example_b64_s32"]

ONYX_RUNNER = r'''
import ctypes, json, statistics, sys, time
so, runtime, threads, warmup, runs, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
# The runtime before numpy: Debian's numpy loads OpenBLAS (libblas.so.3 ->
# libopenblas.so.0), and the runtime can choose OpenBLAS's kernels only when
# it loads the library first (runtime/src/cpu/Blas.cpp).
rt = ctypes.CDLL(runtime, mode=ctypes.RTLD_GLOBAL)
import numpy as np
inputs = [np.ascontiguousarray(np.load(p)) for p in sys.argv[7:]]
rt.onyxrt_cpu_set_threads.restype = ctypes.c_int32
got = rt.onyxrt_cpu_set_threads(threads)
lib = ctypes.CDLL(so)
P = ctypes.c_void_p
lib.onyx_state_create.restype = P
lib.inference_compute.restype = P
lib.inference_compute.argtypes = [P, P]
for f, r, a in [("onyx_tensor_create_copy", P, [ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_int64), P]),
                ("onyx_tensor_list_create", P, []), ("onyx_tensor_list_append", ctypes.c_int, [P, P]),
                ("onyx_tensor_list_get", P, [P, ctypes.c_size_t]), ("onyx_tensor_list_destroy", None, [P]),
                ("onyx_tensor_data", P, [P]), ("onyx_tensor_rank", ctypes.c_int32, [P]),
                ("onyx_tensor_shape", ctypes.POINTER(ctypes.c_int64), [P]),
                ("onyx_state_last_error", ctypes.c_char_p, [P])]:
    getattr(rt, f).restype = r
    getattr(rt, f).argtypes = a
codes = {np.dtype("float32"): 1, np.dtype("int64"): 7}
state = lib.onyx_state_create()
if not state:
    sys.exit("state creation failed")
lst = rt.onyx_tensor_list_create()
for a in inputs:
    dims = (ctypes.c_int64 * a.ndim)(*a.shape)
    rt.onyx_tensor_list_append(lst, rt.onyx_tensor_create_copy(codes[a.dtype], a.ndim, dims, a.ctypes.data))
times = []
for k in range(warmup + runs):
    t0 = time.perf_counter()
    res = lib.inference_compute(state, lst)
    t1 = time.perf_counter()
    if not res:
        sys.exit("inference_compute failed: " + rt.onyx_state_last_error(state).decode())
    if k >= warmup:
        times.append((t1 - t0) * 1e3)
    if k == warmup + runs - 1:
        t = rt.onyx_tensor_list_get(res, 0)
        rank = rt.onyx_tensor_rank(t)
        shape = [rt.onyx_tensor_shape(t)[i] for i in range(rank)]
        n = int(np.prod(shape))
        y = np.ctypeslib.as_array(ctypes.cast(rt.onyx_tensor_data(t), ctypes.POINTER(ctypes.c_float)), (n,)).reshape(shape).copy()
        np.save(out, y)
    rt.onyx_tensor_list_destroy(res)
json.dump({"median_ms": statistics.median(times), "min_ms": min(times), "threads": got}, sys.stdout)
'''

ORT_RUNNER = r'''
const ort = require(process.argv[2]);
const fs = require("fs");
(async () => {
  const [model, threads, warmup, runs, out] = [process.argv[3], +process.argv[4], +process.argv[5], +process.argv[6], process.argv[7]];
  const sess = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: "sequential",
    graphOptimizationLevel: "all", executionProviders: ["cpu"]});
  const feeds = {};
  for (const spec of process.argv.slice(8)) {
    const [name, dtype, dims, path] = spec.split(":");
    const buf = fs.readFileSync(path);
    const shape = dims.split("x").map(Number);
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    const data = dtype === "int64" ? new BigInt64Array(ab) : new Float32Array(ab);
    feeds[name] = new ort.Tensor(dtype, data, shape);
  }
  const times = [];
  let result;
  for (let k = 0; k < warmup + runs; ++k) {
    const t0 = process.hrtime.bigint();
    result = await sess.run(feeds);
    const t1 = process.hrtime.bigint();
    if (k >= warmup) times.push(Number(t1 - t0) / 1e6);
  }
  const y = result[sess.outputNames[0]];
  fs.writeFileSync(out, Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength));
  times.sort((a, b) => a - b);
  const m = times.length;
  const median = m % 2 ? times[(m - 1) / 2] : (times[m / 2 - 1] + times[m / 2]) / 2;
  console.log(JSON.stringify({median_ms: median, min_ms: times[0], dims: y.dims}));
})().catch(e => { console.error(String(e)); process.exit(1); });
'''


def load():
    return os.getloadavg()[0]


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def model_files(models):
    """{model: .onnx path}, exporting what is missing: the real-model test
    set's models (test/e2e/real_models/make_models.py, build/real_models),
    the benchmark's own (bench/bench_models.py, build/bench_models) and the
    bundled example (examples/transformer_example.py, build/example)."""
    files = {}
    real = [m for m in models if m not in BENCH_MODELS and m != "example"]
    if real:
        subprocess.run([sys.executable, os.path.join(REPO, "test", "e2e", "real_models", "make_models.py"),
                        "--out", DATA, "--models", ",".join(real)], check=True, stdout=subprocess.DEVNULL)
        files.update({m: os.path.join(DATA, m + ".onnx") for m in real})
    bench = [m for m in models if m in BENCH_MODELS]
    if bench:
        subprocess.run([sys.executable, os.path.join(HERE, "bench_models.py"), "--out", BENCH_DATA,
                        "--models", ",".join(bench)], check=True, stdout=subprocess.DEVNULL)
        files.update({m: os.path.join(BENCH_DATA, m + ".onnx") for m in bench})
    if "example" in models:
        subprocess.run([sys.executable, os.path.join(REPO, "examples", "transformer_example.py"),
                        "--out", EXAMPLE_DATA], check=True, stdout=subprocess.DEVNULL)
        files["example"] = os.path.join(EXAMPLE_DATA, "transformer_encoder.onnx")
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", default="2,1", help="thread counts, comma-separated (default 2,1)")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--cases", default=",".join(DEFAULT_CASES),
                    help="comma-separated, of: " + ", ".join(CASES))
    ap.add_argument("--cpu", default="native",
                    help="onyx-compile --cpu values, comma-separated: one Onyx column each (default native)")
    ap.add_argument("--ort", default="/tmp/ort_cpu", help="npm prefix holding onnxruntime-node")
    ap.add_argument("-o", "--output", default=os.path.join(REPO, "build", "cpu_bench.md"))
    args = ap.parse_args()
    ort_module = os.path.join(args.ort, "node_modules", "onnxruntime-node")
    if not os.path.isdir(ort_module):
        sys.exit("onnxruntime-node not found in %s: run `npm install --ignore-scripts "
                 "onnxruntime-node@1.30.0` there (or pass --ort)" % args.ort)
    cases = args.cases.split(",")
    for c in cases:
        if c not in CASES:
            sys.exit("unknown case %r (known: %s)" % (c, ", ".join(CASES)))
    models = sorted({CASES[c][0] for c in cases})
    onnx_files = model_files(models)
    threads = [int(t) for t in args.threads.split(",")]
    work = tempfile.mkdtemp(prefix="onyx-cpu-bench-")
    ort_js = os.path.join(work, "ort.js")
    open(ort_js, "w").write(ORT_RUNNER)
    onyx_py = os.path.join(work, "onyx.py")
    open(onyx_py, "w").write(ONYX_RUNNER)
    load_before = os.getloadavg()
    started = datetime.datetime.now(datetime.timezone.utc)
    cpus = args.cpu.split(",")
    artifacts = {}
    for m in models:
        for cpu in cpus:
            so = os.path.join(work, "%s-%s.so" % (m, cpu))
            subprocess.run([os.path.join(BIN_DIR, "onyx-compile"), onnx_files[m], "-o", so,
                            "--cpu=" + cpu], check=True)
            artifacts[m, cpu] = so
    rows = []
    for c in cases:
        model, spec = CASES[c]
        rng = np.random.default_rng(0)
        npys, ort_args = [], []
        for name, (dtype, shape) in spec.items():
            if dtype == "int64":
                a = rng.integers(0, 100, size=shape, dtype=np.int64)
            else:
                a = rng.standard_normal(shape, dtype=np.float32)
            p = os.path.join(work, "%s_%s.npy" % (c, name))
            np.save(p, a)
            raw = p[:-4] + ".bin"
            a.tofile(raw)
            npys.append(p)
            ort_args.append("%s:%s:%s:%s" % (name, dtype, "x".join(map(str, shape)), raw))
        for t in threads:
            ort_out = os.path.join(work, "%s_t%d_ort.bin" % (c, t))
            onyx = {}
            for cpu in cpus:
                onyx_out = os.path.join(work, "%s_t%d_%s_onyx.npy" % (c, t, cpu))
                r = subprocess.run([sys.executable, onyx_py, artifacts[model, cpu], RUNTIME_LIB, str(t),
                                    str(args.warmup), str(args.runs), onyx_out] + npys,
                                   capture_output=True, text=True)
                if r.returncode:
                    sys.exit("onyx failed on %s (--cpu=%s): %s" % (c, cpu, r.stderr[-2000:]))
                onyx[cpu] = (json.loads(r.stdout)["median_ms"], onyx_out)
            r = subprocess.run(["node", ort_js, ort_module, onnx_files[model], str(t),
                                str(args.warmup), str(args.runs), ort_out] + ort_args,
                               capture_output=True, text=True)
            if r.returncode:
                sys.exit("onnxruntime failed on %s: %s" % (c, r.stderr[-2000:]))
            ortr = json.loads(r.stdout)
            yo = np.fromfile(ort_out, dtype=np.float32).reshape(ortr["dims"])
            diff = 0.0
            for cpu in cpus:
                y = np.load(onyx[cpu][1])
                diff = max(diff, float(np.abs(y - yo).max() / max(np.abs(yo).max(), 1e-30)))
            row = {"case": c, "threads": t, "ort_ms": ortr["median_ms"],
                   "onyx_ms": {cpu: onyx[cpu][0] for cpu in cpus}, "max_rel_diff": diff}
            rows.append(row)
            print("%-30s T=%d  ORT %9.2f ms  %s  diff %.1e" % (
                c, t, row["ort_ms"], "  ".join("Onyx(%s) %9.2f ms %6.2fx" % (
                    cpu, row["onyx_ms"][cpu], row["onyx_ms"][cpu] / row["ort_ms"]) for cpu in cpus),
                diff), flush=True)
    load_after = os.getloadavg()
    lines = [
        "# CPU benchmark: Onyx against ONNX Runtime",
        "",
        "- date: %s" % started.strftime("%Y-%m-%d %H:%M UTC"),
        "- machine: %s, %d logical CPUs" % (cpu_model(), os.cpu_count() or 0),
        "- load average (1 min) before / after: %.2f / %.2f" % (load_before[0], load_after[0]),
        "- command: `/usr/bin/python3 bench/cpu_bench.py %s`" % " ".join(sys.argv[1:]),
        "- median of %d calls after %d warm-up calls; ONNX Runtime 1.30 (onnxruntime-node, CPU provider, "
        "all graph optimizations, intraOpNumThreads = T); Onyx: onyx-compile --cpu=C, onyxrt_cpu_set_threads(T)" % (
            args.runs, args.warmup),
        "",
        "| case | threads | ONNX Runtime ms | %s max rel. diff |" % "".join(
            "Onyx `--cpu=%s` ms | Onyx / ORT | " % cpu for cpu in cpus),
        "| --- | --- | --- | %s--- |" % ("--- | --- | " * len(cpus)),
    ]
    for r in rows:
        lines.append("| %s | %d | %.2f | %s%.1e |" % (
            r["case"], r["threads"], r["ort_ms"], "".join(
                "%.2f | %.2fx | " % (r["onyx_ms"][cpu], r["onyx_ms"][cpu] / r["ort_ms"]) for cpu in cpus),
            r["max_rel_diff"]))
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    open(args.output, "w").write(text)
    print()
    print(text)


if __name__ == "__main__":
    main()
