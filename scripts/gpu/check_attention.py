#!/usr/bin/env python3
"""Fused attention on the GPU: the dynamo test models against PyTorch.

Here (MLIR is only here): compile the models of test/e2e/dynamo_models for
--target=cuda and count the onyx.attention ops each got:

  /usr/bin/python3 scripts/gpu/check_attention.py compile .dev/att/dyn

There (the `run` tool, carrying .dev/att and the runtime): run every
artifact at the three shapes of its .npz (inputs and PyTorch's outputs) and
print the relative error ||onyx - torch|| / ||torch|| (the CPU test's bound
is 1e-4):

  python3 scripts/gpu/check_attention.py run .dev/att/dyn --runtime .dev/att/libonyx_runtime.so
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(REPO, "test", "e2e", "dynamo_models")
MODELS = ["hf_bert", "hf_gpt2", "hf_llama", "hf_distilbert", "hf_roberta",
          "hf_qwen2", "hf_t5_encoder", "hf_vit", "timm_vit"]
REL_TOL = 1e-4


def cmd_compile(args):
    compiler = os.path.join(REPO, "build", "bin", "onyx-compile")
    os.makedirs(args.out, exist_ok=True)
    counts = {}
    for name in args.models.split(","):
        src = os.path.join(DATA, name + ".onnx")
        ir = subprocess.run([compiler, "--target=cuda", "--fuse-attention", "--emit=onyx", src, "-o", "-"],
                            capture_output=True, text=True)
        fused = ir.stdout.count("onyx.attention")
        r = subprocess.run([compiler, "--target=cuda", "--fuse-attention", src, "-o",
                            os.path.join(args.out, name + ".so")], capture_output=True, text=True)
        counts[name] = dict(fused=fused, compiled=r.returncode == 0,
                            error=r.stderr.strip()[-300:] if r.returncode else "")
        print("%-16s onyx.attention x%d  %s" % (name, fused, "ok" if r.returncode == 0 else r.stderr.strip()[-300:]))
    with open(os.path.join(args.out, "fused.json"), "w") as f:
        json.dump(counts, f, indent=1)


def cmd_run(args):
    sys.path.insert(0, os.path.join(REPO, "bench"))
    from gpu_bench import Onyx
    manifest = json.load(open(os.path.join(DATA, "manifest.json")))
    fused = json.load(open(os.path.join(args.art, "fused.json")))
    bad = 0
    for name in args.models.split(","):
        so = os.path.join(args.art, name + ".so")
        if not os.path.exists(so):
            print("%-16s not compiled" % name)
            continue
        z = np.load(os.path.join(DATA, name + ".npz"))
        onyx = Onyx(args.runtime, so)
        errs = []
        for s in range(len(manifest[name]["shapes"])):
            try:
                out = onyx.call(onyx.make_list([z["in_0_%d" % s]]))[0]
                ref = z["out_0_%d" % s].astype(np.float64)
                err = float(np.linalg.norm(out.astype(np.float64) - ref) / max(np.linalg.norm(ref), 1e-30))
                errs.append(err)
            except Exception as e:  # a failed call is a failure, never skipped
                errs.append(None)
                print("  %s shape %d: %s" % (name, s, e))
        onyx.close()
        ok = all(e is not None and e <= REL_TOL for e in errs)
        bad += not ok
        print("%-16s attention x%-2d %s  rel err %s" % (
            name, fused.get(name, {}).get("fused", -1), "PASS" if ok else "FAIL",
            ", ".join("%.1e" % e if e is not None else "error" for e in errs)))
    print("%d model(s) failing" % bad)
    return 1 if bad else 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile")
    c.add_argument("out")
    c.add_argument("--models", default=",".join(MODELS))
    r = sub.add_parser("run")
    r.add_argument("art")
    r.add_argument("--runtime", required=True)
    r.add_argument("--models", default=",".join(MODELS))
    args = p.parse_args()
    return {"compile": cmd_compile, "run": cmd_run}[args.cmd](args) or 0


if __name__ == "__main__":
    sys.exit(main())
