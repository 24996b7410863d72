#!/usr/bin/env python3
"""Runs the dynamo test set's CUDA artifacts on the GPU against PyTorch's
references (test/e2e/dynamo_models/<model>.npz).

    python3 scripts/gpu/run_dynamo_models.py DIR [--json OUT]

DIR holds <model>.so (compiled here: `onyx-compile MODEL.onnx --target=cuda
-o DIR/MODEL.so`; the models' batch and sequence or image dims are symbolic
in the exports themselves), <model>.npz and libonyx_runtime.so. Needs python3,
numpy and the onyx package (run_suite.py's Artifact, an InferenceSession), so it
runs on the lent GPU machine as

    bash scripts/gpu/device_python.sh DIR python3 scripts/gpu/run_dynamo_models.py DIR

Every artifact is run at the three stored shapes; a model passes when every output has the
reference's shape and dtype, is finite and ||y - ref|| / ||ref|| <= 1e-4
(test_dynamo_models.py's rule on the CPU). TF32 is not enabled (the
runtime's default is full fp32).
"""
import argparse
import glob
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_suite import Artifact  # noqa: E402

TOLERANCE = 1e-4


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--json")
    args = ap.parse_args()
    results = {}
    for so in sorted(glob.glob(os.path.join(args.dir, "*.so"))):
        name = os.path.basename(so)[:-3]
        if name.startswith("libonyx"):
            continue
        refs = np.load(os.path.join(args.dir, name + ".npz"))
        res = {"status": "pass", "rel_err": []}
        try:
            art = Artifact(so)
            art.create()
            s = 0
            while "in_0_%d" % s in refs:
                (y,) = art.run([refs["in_0_%d" % s]])
                ref = refs["out_0_%d" % s]
                if y.shape != ref.shape or y.dtype != ref.dtype:
                    raise RuntimeError("shape %s %s, expected %s %s at shape %d"
                                       % (y.shape, y.dtype, ref.shape, ref.dtype, s))
                if not np.isfinite(y).all():
                    raise RuntimeError("non-finite output at shape %d" % s)
                ref64 = ref.astype(np.float64)
                err = float(np.linalg.norm(y - ref64) / max(np.linalg.norm(ref64), 1e-30))
                res["rel_err"].append(err)
                if err > TOLERANCE:
                    res["status"] = "wrong"
                s += 1
            art.destroy()
        except Exception as e:  # a clean error of the runtime, or a mismatch
            res["status"] = "error" if res["status"] == "pass" else res["status"]
            res["reason"] = str(e)[:300]
        results[name] = res
        print("%-18s %-6s %s %s" % (name, res["status"],
                                    " ".join("%.1e" % e for e in res["rel_err"]),
                                    res.get("reason", "")), flush=True)
    passed = sum(r["status"] == "pass" for r in results.values())
    print("%d/%d pass" % (passed, len(results)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
