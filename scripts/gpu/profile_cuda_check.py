#!/usr/bin/env python3
"""The CUDA trace's shapes, on the GPU machine (issue 17):

    bash scripts/gpu/device_python.sh DIR python3 scripts/gpu/profile_cuda_check.py DIR

DIR holds mlp_cuda_profile.so (examples/mlp_classifier.onnx compiled with
--target=cuda --profile) and mlp_cuda.so (the same without --profile).
A profiling session of the --profile artifact runs batches 3, 7 and 64
(results against examples/reference.py) and its Chrome trace must hold,
inside each call, the same kernel and library events every call, every
kernel event with `shapes` (its buffers at that call: lists of ints, the
call's batch among the dims of each call's kernels) and every cuBLASLt
event with the [[batch, m, k], [batch, k, n], [batch, m, n]] of its dims.
The artifact without --profile gives kernel events with `shapes` [].
Prints the events of one call and PASS / FAIL; exits 1 on a failure.
"""
import collections
import json
import os
import sys
import tempfile

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "examples"))

import onyx  # noqa: E402
from reference import reference  # noqa: E402

BATCHES = [3, 7, 64]


def trace(artifact, path):
    s = onyx.InferenceSession(artifact, enable_profiling=True, profile_file=path)
    worst = 0.0
    for b in BATCHES:
        x = np.random.default_rng(b).standard_normal((b, 16)).astype(np.float32)
        (y,) = s.run(None, {"x": x})
        worst = max(worst, float(np.max(np.abs(y - reference(x)))))
    s.end_profiling()
    with open(path) as f:
        return json.load(f)["traceEvents"], worst


def per_call(events):
    calls = sorted([e for e in events if e["cat"] == "call"], key=lambda e: e["ts"])
    dev = [e for e in events if e["cat"] in ("kernel", "library")]
    out = []
    for c in calls:
        out.append([e for e in dev if c["ts"] - 1.0 <= e["ts"] and
                    e["ts"] + e["dur"] <= c["ts"] + c["dur"] + 1.0])
    return calls, dev, out


def main():
    d = sys.argv[1]
    failures = []

    def check(ok, what):
        print("%s  %s" % ("ok  " if ok else "FAIL", what), flush=True)
        if not ok:
            failures.append(what)

    tmp = tempfile.mkdtemp()
    events, worst = trace(os.path.join(d, "mlp_cuda_profile.so"), os.path.join(tmp, "p.json"))
    check(worst < 1e-4, "profiled artifact: results vs reference, max abs err %.2e" % worst)
    calls, dev, inside = per_call(events)
    check(len(calls) == len(BATCHES), "%d call events" % len(calls))
    check(sum(map(len, inside)) == len(dev), "every device event inside a call (%d)" % len(dev))
    kinds = [collections.Counter((e["cat"], e["name"], e["args"].get("node")) for e in evs)
             for evs in inside]
    check(all(k == kinds[0] for k in kinds) and kinds[0],
          "the same %d device events every call" % sum(kinds[0].values()))
    for b, evs in zip(BATCHES, inside):
        kernels = [e for e in evs if e["cat"] == "kernel"]
        shaped = [e for e in kernels if e["args"]["shapes"]]
        ints = all(isinstance(dim, int) for e in evs for s in e["args"]["shapes"] for dim in s)
        check(len(shaped) == len(kernels) and kernels and ints,
              "batch %d: %d/%d kernel events with shapes" % (b, len(shaped), len(kernels)))
        check(any(b in s for e in kernels for s in e["args"]["shapes"]),
              "batch %d: the batch among the kernels' dims" % b)
        for e in evs:
            if e["cat"] == "library" and e["name"] == "cublasLt_matmul":
                bt, m, n, k = e["args"]["dims"]
                want = [[bt, m, k], [bt, k, n], [bt, m, n]]
                if e["args"]["shapes"] != want:
                    check(False, "batch %d: %s shapes %s, dims %s" % (
                        b, e["args"]["node"], e["args"]["shapes"], e["args"]["dims"]))
                    break
        else:
            check(True, "batch %d: cuBLASLt shapes from their dims" % b)
    for e in sorted(inside[1], key=lambda e: e["ts"]):
        print("  %-8s %-34s node %-14s %7.2f us  shapes %s" % (
            e["cat"], e["name"][:34], e["args"].get("node", "")[:14], e["dur"],
            json.dumps(e["args"]["shapes"])))
    events, _ = trace(os.path.join(d, "mlp_cuda.so"), os.path.join(tmp, "q.json"))
    kernels = [e for e in events if e["cat"] == "kernel"]
    check(kernels and all(e["args"]["shapes"] == [] for e in kernels),
          "without --profile: %d kernel events, shapes []" % len(kernels))
    print("profile check:", "PASS" if not failures else "FAIL (%d)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
