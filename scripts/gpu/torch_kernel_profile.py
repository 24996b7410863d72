#!/usr/bin/env python3
"""Where PyTorch's device time goes, kernel by kernel: the peer's side of
ONYX_CUDA_PROFILE (scripts/gpu/check_attention.py bench-run --profile), so
that a gap against torch.compile is read per kernel class instead of guessed.

There (the device machine, PyTorch 2.x):

  python3 scripts/gpu/torch_kernel_profile.py --cases bert-b32-s128,bert-b1-s512 \\
      --precisions fp32,fp16 --modes compile [--out DIR]

Each case's model is gpu_bench's (same seeds as bench-run), converted to the
precision as bench-run does (`.half()` / `.bfloat16()`, TF32 off for fp32,
on for tf32); torch.compile(dynamic=False) as in bench-run. After 5 warm-up
calls, torch.profiler records --runs calls; the table lists device time per
call by kernel name (top --top), the launch count per call and the total.
"""
import argparse
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PRECISIONS = {"fp32": "float32", "tf32": "float32", "fp16": "float16", "bf16": "bfloat16"}


def profile(fn, runs):
    import torch
    from torch.profiler import ProfilerActivity, profile as tprofile
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    with tprofile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            fn()
        torch.cuda.synchronize()
    totals = {}
    for e in prof.events():
        if e.device_type.name != "CUDA":
            continue
        t = totals.setdefault(e.name, [0.0, 0])
        t[0] += e.device_time_total if hasattr(e, "device_time_total") else e.cuda_time_total
        t[1] += 1
    return {k: (v[0] / runs / 1e3, v[1] / runs) for k, v in totals.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", default="bert-b32-s128")
    p.add_argument("--precisions", default="fp32")
    p.add_argument("--modes", default="compile", help="eager,compile")
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--top", type=int, default=15)
    p.add_argument("--harness", default=os.path.join(REPO, "bench"))
    p.add_argument("--out", default="")
    args = p.parse_args()
    import copy
    import torch
    sys.path.insert(0, args.harness)
    import gpu_bench as gb
    dev = torch.device("cuda")
    out = open(os.path.join(args.out, "torch_profile.jsonl"), "w") if args.out else None
    built = {}
    for cid in args.cases.split(","):
        case = gb.parse_case(cid)
        model = case["model"]
        if model not in built:
            built.clear()
            torch.cuda.empty_cache()
            built[model] = gb.MODELS[model][0]().to(dev).eval()
        fp32 = built[model]
        xs = [torch.from_numpy(a).to(dev) for a in gb.make_inputs(case)]
        for prec in args.precisions.split(","):
            torch.backends.cuda.matmul.allow_tf32 = prec == "tf32"
            torch.backends.cudnn.allow_tf32 = prec == "tf32"
            dt = getattr(torch, PRECISIONS[prec])
            m = copy.deepcopy(fp32).to(dt)
            hx = [x.to(dt) if x.is_floating_point() else x for x in xs]
            for mode in args.modes.split(","):
                fn = m
                if mode == "compile":
                    import torch._dynamo
                    torch._dynamo.reset()
                    fn = torch.compile(m, dynamic=False)
                with torch.no_grad():
                    per = profile(lambda: fn(*hx), args.runs)
                total = sum(v[0] for v in per.values())
                launches = sum(v[1] for v in per.values())
                print("%s %s %s: device %.3f ms per call, %d launches" % (cid, prec, mode, total, launches))
                top = sorted(per.items(), key=lambda kv: -kv[1][0])[:args.top]
                for name, (ms, n) in top:
                    print("  %8.4f ms %5.1f  %s" % (ms, n, name[:110]))
                if out:
                    out.write(json.dumps({"case": cid, "precision": prec, "mode": mode,
                                          "device_ms": total, "launches": launches,
                                          "top": [[round(v[0], 4), v[1], k[:160]] for k, v in top]}) + "\n")
                    out.flush()
            del m
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
