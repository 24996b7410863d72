#!/usr/bin/env python3
"""Onyx (CUDA) against PyTorch eager and torch.compile in every precision:
issue 14's matrix (fp32, tf32, fp16, bf16) and issue 15's fp32 cases.

Models, inputs, seeds, export and the weight layout are bench/gpu_bench.py's
(BERT-base, GPT-2 small, torchvision ResNet-50; TorchScript exports with
symbolic dims, weights in MODEL.onnx.data). Only graphs travel to the
device; the weights are re-created there from the same seeds.

  # here: the graphs (weights left out of the compile: no checksums)
  /usr/bin/python3 bench/gpu_bench.py export GRAPHS --models bert,gpt2,resnet50
  /usr/bin/python3 bench/gpu_precision_bench.py compile GRAPHS ART
  # there (run tool, ART and a runtime folder carried):
  eval "$(bash scripts/gpu/device_python.sh LIB --env)"
  python3 bench/gpu_precision_bench.py run ART --cases bert-b32-s128,... --out $OUT

`compile` writes ART/MODEL_PREC.so for PREC in fp32 (the model's types,
TF32 off), tf32 (`--precision=tf32`), fp16 and bf16 (`--precision=fp16|bf16`:
the fp32 export run in half precision, inputs and outputs keeping their
types); fp16, bf16 and tf32 pass `--cuda-channels-last` (NHWC
convolutions, onyx-compile's default for them), fp32 passes no layout flag
(NCHW, the default); transformer models get `--fuse-attention` (onyx-compile's default;
--no-fuse: `--fuse-attention=false`). A layout suffix picks the convolution layout explicitly:
PREC-nchw (`--cuda-channels-last=false`) or PREC-nhwc (`--cuda-channels-last`;
for fp32 too: NHWC convolutions in exact fp32 math), e.g. --precisions
fp32,tf32,tf32-nchw,fp16,fp16-nchw,bf16,bf16-nchw.
`run` takes the same names; PyTorch's side of PREC-LAYOUT is PREC's (run
once per case and precision).

`run`, per case: the fp32 model in PyTorch (weights from gpu_bench's seed,
laid out for the compiled graph) and its fp64 copy, whose output is the
reference every error is measured against (relative L2). Per precision:
PyTorch eager and torch.compile (mode default, dynamic=False) on the model
in that precision (fp32 with TF32 off; tf32: fp32 with
`allow_tf32 = True` for matmul and cuDNN; fp16/bf16: `.half()` /
`.bfloat16()` and half inputs), and Onyx's MODEL_PREC.so through the `onyx`
package with device-resident inputs read in place (DLPack) and outputs left
on the device (IO binding). Time: CUDA events around one call, median of
--runs after 5 warm-up calls. Memory: PyTorch's peak allocation during a
call above what was allocated before it (weights and inputs); Onyx's
activation bytes (pools requested + unplanned temporaries at their peak +
outputs, `memory_stats()`). The table at the end gives Onyx / torch.compile,
Onyx's error over eager's (the accuracy rule: <= 1.5) and, for tf32, its
time over fp32's.
"""

import argparse
import copy
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import gpu_bench as gb  # noqa: E402

PRECISIONS = ["fp32", "tf32", "fp16", "bf16"]
LAYOUTS = ("nchw", "nhwc")
# The precisions whose convolutions onyx-compile runs NHWC by default.
NHWC_DEFAULT = ("fp16", "bf16", "tf32")


def split_precision(token):
    """'fp16-nchw' -> ('fp16', 'nchw'); 'fp16' -> ('fp16', None)."""
    prec, _, layout = token.partition("-")
    if prec not in PRECISIONS or (layout and layout not in LAYOUTS):
        raise SystemExit("unknown precision '%s' (%s, optionally -nchw / -nhwc)" % (
            token, ", ".join(PRECISIONS)))
    return prec, layout or None


def layout_of(model, token):
    """The convolution layout of an artifact: fp32 NCHW unless -nhwc, tf32 /
    fp16 / bf16 NHWC unless -nchw ('-' for models without convolutions)."""
    if model in TRANSFORMERS:
        return "-"
    prec, layout = split_precision(token)
    return (layout or ("nhwc" if prec in NHWC_DEFAULT else "nchw")).upper()
TRANSFORMERS = {"bert", "gpt2"}
DEFAULT_CASES = ("bert-b1-s128,bert-b8-s128,bert-b32-s128,bert-b1-s512,gpt2-b1-s128,"
                 "gpt2-b1-s512,gpt2-b8-s512,resnet50-b1,resnet50-b32,resnet50-b128")


def cmd_compile(args):
    compiler = os.environ.get("ONYX_COMPILE", os.path.join(REPO, "build", "bin", "onyx-compile"))
    os.makedirs(args.art, exist_ok=True)
    for model in args.models.split(","):
        src = os.path.join(args.graphs, model + ".onnx")
        shutil.copy(src, os.path.join(args.art, model + ".onnx"))
        with tempfile.TemporaryDirectory() as tmp:  # no data file: no checksums
            graph = os.path.join(tmp, model + ".onnx")
            shutil.copy(src, graph)
            for token in args.precisions.split(","):
                prec, layout = split_precision(token)
                flags = ["--target=cuda", "--external-weights"]
                if prec != "fp32":
                    flags.append("--precision=" + prec)
                if layout == "nchw":
                    flags.append("--cuda-channels-last=false")
                elif layout == "nhwc" or prec in NHWC_DEFAULT:
                    # NHWC convolutions, passed explicitly.
                    flags.append("--cuda-channels-last")
                if model in TRANSFORMERS:
                    flags.append("--fuse-attention=false" if args.no_fuse
                                 else "--fuse-attention")
                flags += args.flags.split()
                so = os.path.join(args.art, "%s_%s.so" % (model, token))
                t0 = time.time()
                subprocess.run([compiler] + flags + [graph, "-o", so], check=True)
                print("compiled %s (%s) in %.1f s" % (os.path.basename(so), " ".join(flags),
                                                      time.time() - t0), flush=True)


def cmd_run(args):
    import torch
    dev = torch.device("cuda")
    start = time.time()

    def events_ms(fn):
        for _ in range(5):
            fn()
        torch.cuda.synchronize()
        ts = []
        for _ in range(args.runs):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            b.synchronize()
            ts.append(a.elapsed_time(b))
        return statistics.median(ts)

    def peak_mib(fn):
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        out = fn()
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated() - base
        del out
        return peak / 2**20

    def set_tf32(on):
        torch.backends.cuda.matmul.allow_tf32 = on
        torch.backends.cudnn.allow_tf32 = on

    torch.backends.cudnn.benchmark = False
    out = open(os.path.join(args.out, "precision_bench.jsonl"), "w") if args.out else None
    rows, models = [], {}
    for cid in args.cases.split(","):
        if time.time() - start > args.budget:
            print("%s: skipped (--budget %.0f s)" % (cid, args.budget), flush=True)
            continue
        case = gb.parse_case(cid)
        model = case["model"]
        t0 = time.time()
        if model not in models:  # one export and weight layout per model
            models.clear()
            torch.cuda.empty_cache()
            tmp = tempfile.mkdtemp()
            fp32, exported = gb.export(model, tmp)
            note = gb.align_weights(os.path.join(args.art, model + ".onnx"), exported,
                                    os.path.join(args.art, model + ".onnx.data"))
            shutil.rmtree(tmp, ignore_errors=True)
            models[model] = (fp32.to(dev).eval(), note)
        fp32, note = models[model]
        inputs = gb.make_inputs(case)
        xs = [torch.from_numpy(a).to(dev) for a in inputs]
        with torch.no_grad():
            m64 = copy.deepcopy(fp32).double()
            ref = m64(*[x.double() if x.is_floating_point() else x for x in xs]).cpu().numpy()
            del m64
        torch.cuda.empty_cache()
        print("%s: model and fp64 reference in %.1f s (%s)" % (cid, time.time() - t0, note),
              flush=True)
        torch_rows = {}  # PyTorch's results per precision (shared by layouts)
        for token in args.precisions.split(","):
            prec, _ = split_precision(token)
            r = {"case": cid, "precision": prec, "layout": layout_of(model, token), "artifact": token}
            if prec in torch_rows:
                r.update(torch_rows[prec])
                run_torch = False
            else:
                run_torch = True
            set_tf32(prec == "tf32")
            if run_torch and prec in ("fp16", "bf16"):
                dt = torch.float16 if prec == "fp16" else torch.bfloat16
                m = copy.deepcopy(fp32).to(dt)
                hx = [x.to(dt) if x.is_floating_point() else x for x in xs]
            else:
                m, hx = fp32, xs
            if run_torch:
                with torch.no_grad():
                    r["eager_err"] = gb.rel_err(m(*hx).float().cpu().numpy(), ref)
                    r["eager_ms"] = events_ms(lambda: m(*hx))
                    r["eager_mib"] = peak_mib(lambda: m(*hx))
                    if args.compile and time.time() - start < args.compile_budget:
                        try:
                            import torch._dynamo
                            torch._dynamo.reset()
                            t1 = time.time()
                            cm = torch.compile(m, dynamic=False)
                            cm(*hx)
                            torch.cuda.synchronize()
                            r["compile_s"] = round(time.time() - t1, 1)
                            r["compile_ms"] = events_ms(lambda: cm(*hx))
                            r["compile_mib"] = peak_mib(lambda: cm(*hx))
                            r["compile_err"] = gb.rel_err(cm(*hx).float().cpu().numpy(), ref)
                            del cm
                        except Exception as e:  # reported, the case goes on
                            r["compile_error"] = str(e).splitlines()[0][:200]
                torch_rows[prec] = {k: v for k, v in r.items() if k.startswith(("eager_", "compile_"))}
            if m is not fp32:
                del m
            set_tf32(False)
            torch.cuda.empty_cache()
            so = os.path.join(args.art, "%s_%s.so" % (model, token))
            sessions = [("onyx", {"enable_cuda_graph": False})]
            if args.cuda_graphs:
                sessions.append(("graphs", {"enable_cuda_graph": True}))
            for name, options in sessions:
                try:
                    onyx = gb.Onyx(so, **options)
                    feeds = dict(zip(onyx.names, xs))
                    torch.cuda.synchronize()
                    r[name + "_err"] = gb.rel_err(onyx.call(feeds)[0], ref)
                    r[name + "_ms"] = events_ms(
                        lambda: onyx.call(feeds, read=False, device_outputs=True))
                    r[name + "_mib"] = (onyx.activation_bytes() or 0) / 2**20
                    if options:
                        st = onyx.session.cuda_graph_stats()
                        r[name + "_stats"] = {k: st.get(k) for k in
                                              ("last_call", "captures", "replays", "status")}
                    onyx.close()
                except Exception as e:  # reported, the case goes on
                    r[name + "_error"] = str(e)[:300]
            print(json.dumps(r), flush=True)
            rows.append(r)
            if out:
                out.write(json.dumps(r) + "\n")
                out.flush()
    print_table(rows)


def print_table(rows):
    print("\n| case | prec | layout | eager ms | torch.compile ms | Onyx ms | Onyx + graphs ms "
          "| Onyx / compile | graphs / compile | err eager / compile / Onyx (fp64 ref.) "
          "| Onyx err / eager err | MiB eager / compile / Onyx |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")

    def f(r, k, fmt):
        return fmt % r[k] if k in r else "-"

    def over(r, k):
        return "%.2fx" % (r[k] / r["compile_ms"]) if k in r and "compile_ms" in r else "-"
    for r in rows:
        acc = "%.2f" % (r["onyx_err"] / r["eager_err"]) if "onyx_err" in r and r.get("eager_err") \
            else "-"
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s / %s | %s | %s / %s / %s |" % (
            r["case"], r["precision"], r.get("layout", "-"), f(r, "eager_ms", "%.2f"),
            f(r, "compile_ms", "%.2f"), f(r, "onyx_ms", "%.2f") if "onyx_ms" in r else "error",
            f(r, "graphs_ms", "%.2f"), over(r, "onyx_ms"), over(r, "graphs_ms"),
            f(r, "eager_err", "%.1e"), f(r, "compile_err", "%.1e"), f(r, "onyx_err", "%.1e"), acc,
            f(r, "eager_mib", "%.0f"), f(r, "compile_mib", "%.0f"), f(r, "onyx_mib", "%.0f")),
            flush=True)
    for r in rows:
        for k in ("onyx_error", "graphs_error", "compile_error"):
            if k in r:
                print("%s %s %s: %s: %s" % (r["case"], r["precision"], r.get("layout", "-"), k, r[k]))
        if "compile_s" in r:
            print("%s %s: torch.compile's first call %.1f s" % (r["case"], r["precision"],
                                                                r["compile_s"]))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile")
    c.add_argument("graphs", help="bench/gpu_bench.py export's folder")
    c.add_argument("art")
    c.add_argument("--models", default="bert,gpt2,resnet50")
    c.add_argument("--precisions", default=",".join(PRECISIONS))
    c.add_argument("--no-fuse", action="store_true", help="transformers without --fuse-attention")
    c.add_argument("--flags", default="",
                   help="more onyx-compile flags for every artifact, e.g. '--cuda-layer-norm' "
                   "(compile into another ART to compare)")
    r = sub.add_parser("run")
    r.add_argument("art")
    r.add_argument("--cases", default=DEFAULT_CASES)
    r.add_argument("--precisions", default=",".join(PRECISIONS),
                   help="as compiled: fp32, tf32, fp16, bf16, optionally -nchw / -nhwc")
    r.add_argument("--runs", type=int, default=30)
    r.add_argument("--no-compile", dest="compile", action="store_false")
    r.add_argument("--compile-budget", type=float, default=1e9,
                   help="seconds since the start after which torch.compile is skipped")
    r.add_argument("--budget", type=float, default=1e9, help="seconds after which no case starts")
    r.add_argument("--cuda-graphs", action="store_true",
                   help="also time Onyx with CUDA graphs (the session option enable_cuda_graph)")
    r.add_argument("--out")
    args = p.parse_args()
    {"compile": cmd_compile, "run": cmd_run}[args.cmd](args)


if __name__ == "__main__":
    main()
