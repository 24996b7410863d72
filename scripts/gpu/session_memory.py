#!/usr/bin/env python3
"""Device memory and start-up cost of Onyx sessions, artifact against
artifact (e.g. `--precision=fp16` with the external weights converted at
load, MODEL_PREC_fused.so, against the per-call Cast form compiled with
--precision-cast-weights-per-call, MODEL_PREC_fusedcast.so).

There (GPU machine; ART holds the artifacts and MODEL.onnx.data laid out by
`check_attention.py bench-run` on the same ART):

    eval "$(bash scripts/gpu/device_python.sh LIBDIR --env)"
    python3 scripts/gpu/session_memory.py ART --cases bert-b32-s128 \\
        --precisions fp16,bf16 --variants fusedcast,fused

Per artifact: session creation and first-call seconds, the device memory
the session holds after its first call (torch.cuda.mem_get_info before the
session and after the call: session constants, pools, outputs, library
workspaces) and memory_stats()'s activation bytes (pools + unplanned
temporaries + outputs), with bench/gpu_bench.py's inputs of the case.
"""
import argparse
import gc
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("art")
    ap.add_argument("--cases", default="bert-b32-s128,gpt2-b8-s512")
    ap.add_argument("--precisions", default="fp16,bf16")
    ap.add_argument("--variants", default="fusedcast,fused")
    args = ap.parse_args()
    import torch
    import gpu_bench as gb
    import onyx
    torch.cuda.init()
    for cid in args.cases.split(","):
        case = gb.parse_case(cid)
        inputs = gb.make_inputs(case)
        for prec in args.precisions.split(","):
            for variant in args.variants.split(","):
                so = os.path.join(args.art, "%s_%s_%s.so" % (case["model"], prec, variant))
                torch.cuda.synchronize()
                gc.collect()
                free0 = torch.cuda.mem_get_info()[0]
                t0 = time.perf_counter()
                s = onyx.InferenceSession(so)
                t1 = time.perf_counter()
                s.run(None, dict(zip([i.name for i in s.get_inputs()], inputs)))
                t2 = time.perf_counter()
                free1 = torch.cuda.mem_get_info()[0]
                st = s.memory_stats()
                act = st["pool_requested_bytes"] + st["temp_peak_bytes"] + st["output_bytes"]
                print("%s %s %-10s session create %.2f s, first call %.2f s, device memory held %.1f MiB, "
                      "activation %.1f MiB" % (cid, prec, variant, t1 - t0, t2 - t1,
                                               (free0 - free1) / 2**20, act / 2**20), flush=True)
                del s


if __name__ == "__main__":
    main()
