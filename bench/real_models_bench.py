#!/usr/bin/python3
"""Compile time and loading cost of real models, against the model's size.

    /usr/bin/python3 bench/real_models_bench.py [--models resnet50,transformer_encoder]
        [--external | --no-external] [--runs N] [-o build/real_models_bench.md]

For each model of test/e2e/real_models/make_models.py (default: ResNet-50 and the
TransformerEncoder), in embedded-weights form (the default artifact) and, with
--external (the default), also with the weights in an ONNX external data file
compiled with `onyx-compile --external-weights`:

- compile: wall time of `onyx-compile MODEL.onnx -o MODEL.so --timing`, split
  into the stages of the one report --timing prints (lib/Pipelines/Compiler.cpp):
  import, the four MLIR stages (ONNX cleanup, ONNX conversion, bufferization,
  CPU code generation), translation to LLVM IR, LLVM's O2, object emission
  (instruction selection and writing the object), the link (`cc -shared`),
  freeing the IR, and the rest (setup, process start and exit).
- loading, in a fresh process per artifact (the `onyx` package, no onyx-run):
  dlopen of the artifact (`onyx.artifact_metadata`: dlopen, read, dlclose),
  session creation (`onyx.InferenceSession`: dlopen again and
  `onyx_state_create`, which reads and checks
  external weights), the first `inference_compute`, and the median of --runs
  further calls, at the model's largest test shape.

Writes a markdown report (default build/real_models_bench.md) and prints it.
Timings on a shared machine vary; the report records the load average.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BIN_DIR = os.environ.get("ONYX_BIN_DIR", os.path.join(REPO, "build", "bin"))
ONYX_COMPILE = os.path.join(BIN_DIR, "onyx-compile")
# The onyx package of the build tree (docs/python.md).
PACKAGE_DIR = os.path.join(os.path.abspath(os.environ.get("ONYX_BUILD_DIR", os.path.join(REPO, "build"))), "python")
TRANSIENT = re.compile(r"cannot find -lonyx_runtime|Text file busy|cannot execute|exec: Permission denied")

# Runs in a fresh interpreter: loads one artifact and times state creation and runs.
LOADER = r'''
import json, statistics, sys, time
import numpy as np
so, package_dir, weights, nruns = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
inputs = [np.load(p) for p in sys.argv[5:]]
sys.path.insert(0, package_dir)
import onyx
t0 = time.perf_counter()
onyx.artifact_metadata(so)  # dlopen (and dlclose) alone
t1 = time.perf_counter()
try:
    s = onyx.InferenceSession(so, weights=weights or None)
except onyx.OnyxError as e:
    print(json.dumps(dict(error="state creation failed: %s" % e)))
    sys.exit(0)
t2 = time.perf_counter()
feeds = {a.name: x for a, x in zip(s.get_inputs(), inputs)}
times = []
for i in range(1 + nruns):
    t = time.perf_counter()
    try:
        s.run(None, feeds)
    except onyx.OnyxError as e:
        print(json.dumps(dict(error="run failed: %s" % e)))
        sys.exit(0)
    times.append(time.perf_counter() - t)
print(json.dumps(dict(dlopen=t1 - t0, state_create=t2 - t1, first_run=times[0],
                      steady_run=statistics.median(times[1:]) if nruns else None)))
'''


# The stages of `onyx-compile --timing`'s report (one tree, lib/Pipelines/Compiler.cpp)
# as (column, report line): top-level lines, and LLVM's steps nested under "LLVM".
STAGES = [
    ("import", "import (ONNX file to IR)"),
    ("ONNX cleanup", "ONNX cleanup"),
    ("ONNX conversion", "ONNX conversion"),
    ("bufferization", "bufferization"),
    ("CPU codegen", "CPU code generation"),
    ("to LLVM IR", "LLVM/translation to LLVM IR"),
    ("LLVM O2", "LLVM/LLVM optimization (O2)"),
    ("object", "LLVM/object emission (instruction selection, assembly)"),
    ("link", "LLVM/link (cc -shared)"),
    ("freeing", None),  # "LLVM/freeing LLVM IR" + "freeing MLIR IR"
    ("other", None),    # setup, the report's "Rest", and process start/exit (wall - Total)
]
# "    0.1222 (  2.2%)    translation to LLVM IR": nesting is the indentation
# after the percentage, two spaces a level.
TIMING_LINE = re.compile(r"^ +([0-9.]+) \(\s*[0-9.]+%\)  ( *)(\S.*?)\s*$")


def parse_timing(stderr):
    """The --timing report as {"name": s, "parent/child": s, ...}: wall times
    of the top-level stages and of the entries nested one level under them."""
    out, parent = {}, None
    for line in stderr.splitlines():
        m = TIMING_LINE.match(line)
        if not m:
            continue
        secs, depth, name = float(m.group(1)), len(m.group(2)) // 2, m.group(3)
        if depth == 0:
            parent = name
            out[name] = out.get(name, 0.0) + secs
        elif depth == 1 and parent is not None:
            key = parent + "/" + name
            out[key] = out.get(key, 0.0) + secs
    return out


def stage_times(t, wall):
    """The STAGES columns from a parsed report (None where absent)."""
    cols = {}
    for col, key in STAGES:
        if key is not None:
            cols[col] = t.get(key)
    if "Total" in t:
        cols["freeing"] = t.get("LLVM/freeing LLVM IR", 0.0) + t.get("freeing MLIR IR", 0.0)
        cols["other"] = t.get("setup (dialects, context)", 0.0) + t.get("Rest", 0.0) + (wall - t["Total"])
    return cols


def compile_artifact(onnx_path, so, extra, log):
    cmd = [ONYX_COMPILE, onnx_path, "-o", so, "--timing"] + extra
    for attempt in range(3):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        err = p.stderr.decode("utf-8", "replace")
        # the tools or the runtime library being rebuilt meanwhile (a developer's machine)
        if p.returncode == 0 or not TRANSIENT.search(err):
            break
        log("  note: transient failure (%s); retrying" % TRANSIENT.search(err).group(0))
        time.sleep(10)
    res = dict(wall=wall, ok=p.returncode == 0 and os.path.isfile(so))
    if not res["ok"]:
        res["error"] = ([l for l in err.splitlines() if l.startswith("error:")] or err.splitlines()[-1:] or ["?"])[0]
        return res
    res["artifact_bytes"] = os.path.getsize(so)
    res["stages"] = stage_times(parse_timing(err), wall)
    return res


def load_artifact(so, weights, inputs, runs):
    cmd = [sys.executable, "-c", LOADER, so, PACKAGE_DIR, weights or "", str(runs)] + inputs
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    out = p.stdout.decode().strip().splitlines()
    if p.returncode != 0 or not out:
        return dict(error="loader exited %d: %s" % (p.returncode, p.stderr.decode()[-300:]))
    return json.loads(out[-1])


def save_external(src, dst_dir, name):
    import onnx
    m = onnx.load(src)
    path = os.path.join(dst_dir, name + ".onnx")
    onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=name + ".onnx.data", size_threshold=1024)
    return path


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def fmt_s(x):
    return "-" if x is None else ("%.2f" % x if x < 10 else "%.1f" % x)


def fmt_ms(x):
    return "-" if x is None else "%.1f" % (x * 1e3)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="resnet50,transformer_encoder")
    ap.add_argument("--data", default=os.path.join(REPO, "build", "real_models"))
    ap.add_argument("--external", dest="external", action="store_true", default=True,
                    help="also measure external weights (default)")
    ap.add_argument("--no-external", dest="external", action="store_false")
    ap.add_argument("--runs", type=int, default=5, help="steady-state runs after the first (default 5)")
    ap.add_argument("-o", "--output", default=os.path.join(REPO, "build", "real_models_bench.md"))
    ap.add_argument("--json", default=None, help="also write the raw numbers as JSON")
    args = ap.parse_args(argv)
    names = [n for n in args.models.split(",") if n]

    p = subprocess.run([sys.executable, os.path.join(REPO, "test", "e2e", "real_models", "make_models.py"),
                        "--out", args.data, "--models", ",".join(names)])
    if p.returncode != 0:
        return 1
    with open(os.path.join(args.data, "manifest.json")) as f:
        manifest = json.load(f)

    work = tempfile.mkdtemp(prefix="onyx-bench-")
    rows = []
    load_before = os.getloadavg()
    try:
        for n in names:
            e = manifest["models"][n]
            # the largest test shape
            case = max(e["cases"], key=lambda c: sum(_numel(v) for v in c["shapes"].values()))
            inputs = [os.path.join(args.data, case["inputs"][i["name"]]) for i in e["inputs"]]
            variants = [("embedded", os.path.join(args.data, e["onnx"]), [], None)]
            if args.external:
                d = os.path.join(work, n + "-ext")
                os.makedirs(d)
                variants.append(("external", save_external(os.path.join(args.data, e["onnx"]), d, n),
                                 ["--external-weights"], None))
            for kind, onnx_path, extra, weights in variants:
                so = os.path.join(os.path.dirname(onnx_path) if kind == "external" else work,
                                  "%s-%s.so" % (n, kind))
                print("%s (%s weights): compiling ..." % (n, kind), flush=True)
                c = compile_artifact(onnx_path, so, extra, print)
                row = dict(model=n, weights=kind, params=e["params"], onnx_bytes=e["onnx_bytes"],
                           shape=case["shapes"], compile=c)
                if c["ok"]:
                    row["load"] = load_artifact(so, weights, inputs, args.runs)
                    os.remove(so)
                rows.append(row)
                print("  %s" % json.dumps(row, default=str)[:600], flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load_after = os.getloadavg()

    date = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    cmd = "/usr/bin/python3 bench/real_models_bench.py " + " ".join(argv if argv is not None else sys.argv[1:])
    md = ["# Real-model benchmark", "",
          "%s, `%s`, %s, %d cores, load average %.1f before / %.1f after "
          "(a shared machine: other jobs ran at the same time)." % (
              date, cmd.strip(), platform.node() or "host", os.cpu_count() or 0, load_before[0], load_after[0]),
          "", "## Compile time and loading cost", "",
          "| model | weights | params | ONNX MB | artifact MB | compile s | s / 100 MB | dlopen ms "
          "| state creation ms | first run ms | next runs ms (median) | shape |",
          "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in rows:
        c, ld = r["compile"], r.get("load", {})
        mb = r["onnx_bytes"] / 1e6
        if not c["ok"]:
            md.append("| %s | %s | %.2fM | %.1f | - | %s | - | - | - | - | - | compile failed: %s |" % (
                r["model"], r["weights"], r["params"] / 1e6, mb, fmt_s(c["wall"]),
                c.get("error", "?").replace("|", "\\|")[:200]))
            continue
        shape = ", ".join("%s %s" % (k, "x".join(map(str, v))) for k, v in r["shape"].items())
        if "error" in ld:
            shape += " (%s)" % ld["error"].replace("|", "\\|")[:200]
        md.append("| %s | %s | %.2fM | %.1f | %.1f | %s | %s | %s | %s | %s | %s | %s |" % (
            r["model"], r["weights"], r["params"] / 1e6, mb, c["artifact_bytes"] / 1e6, fmt_s(c["wall"]),
            fmt_s(c["wall"] / mb * 100) if mb >= 1 else "-",
            fmt_ms(ld.get("dlopen")), fmt_ms(ld.get("state_create")), fmt_ms(ld.get("first_run")),
            fmt_ms(ld.get("steady_run")), shape))
    cols = [col for col, _ in STAGES]
    md += ["", "## Where the compile time goes (seconds)", "",
           "From `onyx-compile --timing` (wall times; the MLIR stages include their passes, "
           "`to LLVM IR` the flattening of the weights, `object` instruction selection and "
           "writing the object; `other` is setup, the report's rest and process start/exit).", "",
           "| model | weights | " + " | ".join(cols) + " | total |",
           "| --- | --- | " + " | ".join("---:" for _ in cols) + " | ---: |"]
    for r in rows:
        c = r["compile"]
        if not c["ok"]:
            continue
        st = c.get("stages", {})
        md.append("| %s | %s | %s | %s |" % (
            r["model"], r["weights"], " | ".join(fmt_s(st.get(k)) for k in cols), fmt_s(c["wall"])))
    text = "\n".join(md) + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w") as f:
        f.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(date=date, command=cmd, rows=rows), f, indent=1, default=str)
    print()
    print(text)
    print("wrote %s" % args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
