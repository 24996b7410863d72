#!/usr/bin/python3
"""Compiles the ONNX node suite for a target HERE and packs what the device
machine needs to run it: the artifacts, the runtime library and the test data.

    /usr/bin/python3 scripts/gpu/build_suite.py --out .gpu-carry/suite \
        [--target cuda] [--mode static --mode symbolic] [--filter REGEX] [-j N]

For every test of /usr/share/libonnx-testdata/data/node it runs
`onyx-compile --target=T [--make-inputs-dynamic] model.onnx -o ART.so` and
records the outcome (ok, or the `error:` line) in OUT/manifest.json. The
artifacts and the test data of the tests that compiled are packed into
OUT/suite.tar.xz (they compress about tenfold), together with
libonyx_runtime.so and libomp.so.5 (its thread pool), so that one carried
folder holds everything scripts/gpu/run_suite.py needs on the machine with
the GPU. Run the same
runner here on --target cpu builds to get the CPU numbers on the same tests.

Run with /usr/bin/python3 (Debian's, with onnx and numpy). See
docs/cuda-backend.md.
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "test", "e2e"))
import node_suite  # noqa: E402  (the suite loader and op attribution)

DEFAULT_SUITE = node_suite.DEFAULT_SUITE


def input_elem_types(model_path):
    """ONNX element type code of each graph input (initializers excluded)."""
    import onnx
    try:
        m = onnx.load(model_path, load_external_data=False)
    except Exception:  # noqa: BLE001
        return []
    inits = {i.name for i in m.graph.initializer}
    return [i.type.tensor_type.elem_type if i.type.HasField("tensor_type") else 0
            for i in m.graph.input if i.name not in inits]


def compile_one(compiler, model, out, target, symbolic, timeout):
    cmd = [compiler, model, "--target=" + target, "-o", out]
    if symbolic:
        cmd.append("--make-inputs-dynamic")
    rc, _, err, timed_out, seconds = node_suite.run_tool(cmd, timeout)
    if rc == 0 and os.path.isfile(out):
        return "ok", "", seconds
    status, reason = node_suite.classify_failure(rc, err, timed_out, timeout)
    return status, reason, seconds


def libomp_of(runtime):
    """The libomp.so.5 that `runtime` loads (ldd), for the carried folder."""
    out = subprocess.run(["ldd", runtime], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == "libomp.so.5" and len(parts) >= 3 \
                and os.path.isfile(parts[2]):
            return os.path.realpath(parts[2])
    sys.exit("error: %s does not load libomp.so.5 (ldd):\n%s" % (runtime, out))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output folder (emptied)")
    ap.add_argument("--suite", default=DEFAULT_SUITE)
    ap.add_argument("--target", default="cuda")
    ap.add_argument("--mode", action="append", choices=("static", "symbolic"))
    ap.add_argument("--filter", help="regex on test names")
    ap.add_argument("--bin-dir", default=os.path.join(REPO, "build", "bin"))
    ap.add_argument("--runtime", default=os.path.join(REPO, "build", "lib",
                                                      "libonyx_runtime.so"))
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--no-pack", action="store_true",
                    help="leave the artifacts unpacked in OUT/suite")
    args = ap.parse_args()
    modes = args.mode or ["static", "symbolic"]
    compiler = os.path.join(args.bin_dir, "onyx-compile")

    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    stage = os.path.join(args.out, "suite")
    os.makedirs(stage)
    tests = node_suite.load_suite(args.suite, args.filter)

    jobs = []
    for t in tests:
        for mode in modes:
            out = os.path.join(stage, "art", mode, t.name + ".so")
            os.makedirs(os.path.dirname(out), exist_ok=True)
            jobs.append((t, mode, out))
    start = time.monotonic()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(compile_one, compiler, t.model, out, args.target,
                               mode == "symbolic", args.timeout): (t, mode)
                   for t, mode, out in jobs}
        for fut in concurrent.futures.as_completed(futures):
            t, mode = futures[fut]
            status, reason, seconds = fut.result()
            results.setdefault(t.name, {})[mode] = {
                "status": status, "reason": reason, "seconds": round(seconds, 3)}
    compile_seconds = time.monotonic() - start

    # The data of every test that compiled in some mode.
    manifest = {"target": args.target, "suite": args.suite, "modes": modes,
                "compile_seconds": round(compile_seconds, 1), "tests": {}}
    for t in tests:
        entry = {"ops": t.attributed, "compile": results.get(t.name, {}),
                 "inputs": [], "outputs": [],
                 "output_elem_types": [ot.tensor_type.elem_type
                                       if ot.HasField("tensor_type") else 0
                                       for ot in t.output_types],
                 "input_elem_types": input_elem_types(t.model)}
        if any(r["status"] == "ok" for r in entry["compile"].values()):
            ddir = os.path.join(stage, "data", t.name)
            os.makedirs(ddir, exist_ok=True)
            for kind, files in (("inputs", t.inputs), ("outputs", t.outputs)):
                for f in files:
                    shutil.copy(f, ddir)
                    entry[kind].append(os.path.basename(f))
            shutil.copy(t.model, ddir)
        manifest["tests"][t.name] = entry
    shutil.copy(args.runtime, os.path.join(stage, "libonyx_runtime.so"))
    # LLVM's OpenMP runtime (the CPU kernels' thread pool): the GPU machine
    # has none; the runtime finds the copy next to itself ($ORIGIN).
    shutil.copy(libomp_of(args.runtime), os.path.join(stage, "libomp.so.5"))
    with open(os.path.join(stage, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)

    counts = {}
    for name, per_mode in results.items():
        for mode, r in per_mode.items():
            counts.setdefault(mode, {}).setdefault(r["status"], 0)
            counts[mode][r["status"]] += 1
    reasons = {}
    for name, per_mode in results.items():
        for mode, r in per_mode.items():
            if r["status"] != "ok":
                key = r["reason"].split(": ", 2)[-1][:90]
                reasons[key] = reasons.get(key, 0) + 1

    if not args.no_pack:
        tar_path = os.path.join(args.out, "suite.tar.xz")
        with tarfile.open(tar_path, "w:xz", preset=6) as tar:
            tar.add(stage, arcname="suite")
        shutil.rmtree(stage)
        print("packed %s (%.1f MiB)" % (tar_path, os.path.getsize(tar_path) / 2**20))
    print("compiled %d artifacts for %s in %.0fs" % (len(jobs), args.target,
                                                     compile_seconds))
    for mode in modes:
        print("  %-8s %s" % (mode, json.dumps(counts.get(mode, {}), sort_keys=True)))
    print("most common compile failures:")
    for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1])[:25]:
        print("  %4d  %s" % (n, reason))


if __name__ == "__main__":
    main()
