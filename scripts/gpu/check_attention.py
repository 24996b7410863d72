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

Kernel cases (`synth-compile` here, `synth-run` there): one-block ONNX
models (Q/K/V [B, S, H, D] transposed to heads, MatMul, Mul or Div by
sqrt(D), an additive padding mask [B, 1, 1, S] / a causal Where mask
[1, 1, S, S] with the type's lowest value, given as an input or built in the
graph from Range (i >= j, or i > j whose row 0 keeps no key: the kernel
computes it, onyx-cuda-causal-mask) / none, Softmax, MatMul) in f32,
f16 and bf16 at depths 32/64/128 and lengths that are no multiple of the
tiles; each must fuse into one onyx.attention. There, on fresh random
inputs, the output's error against an fp64 reference (PyTorch on the
inputs upcast) is compared with PyTorch's own error in the same precision
(the same ops run eagerly in that type on the GPU, TF32 off), and the
ratio printed. f32 (issue 14's rule): a case passes when onyx's error is
at most 1.5x PyTorch's (the all-masked case, whose reference is PyTorch's
own f32 result, under 1e-5); f16 / bf16: at most twice PyTorch's or under
the type's floor (f16 2e-3, bf16 1.6e-2). The long-key f32 cases (512 and
1024 keys) are where the tensor-core accumulation's error showed:

  /usr/bin/python3 scripts/gpu/check_attention.py synth-compile .dev/att/synth
  python3 scripts/gpu/check_attention.py synth-run .dev/att/synth --runtime .dev/att/libonyx_runtime.so
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
    compiler = os.environ.get("ONYX_COMPILE", os.path.join(REPO, "build", "bin", "onyx-compile"))
    os.makedirs(args.out, exist_ok=True)
    counts = {}
    for name in args.models.split(","):
        src = os.path.join(DATA, name + ".onnx")
        extra = args.flags.split()
        ir = subprocess.run([compiler, "--target=cuda", "--fuse-attention", "--emit=onyx", src, "-o", "-"] + extra,
                            capture_output=True, text=True)
        fused = ir.stdout.count("onyx.attention")
        r = subprocess.run([compiler, "--target=cuda", "--fuse-attention", src, "-o",
                            os.path.join(args.out, name + ".so")] + extra, capture_output=True, text=True)
        counts[name] = dict(fused=fused, compiled=r.returncode == 0,
                            error=r.stderr.strip()[-300:] if r.returncode else "")
        print("%-16s onyx.attention x%d  %s" % (name, fused, "ok" if r.returncode == 0 else r.stderr.strip()[-300:]))
    with open(os.path.join(args.out, "fused.json"), "w") as f:
        json.dump(counts, f, indent=1)


def cmd_run(args):
    sys.path.insert(0, args.harness)
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


# name: (type, mask, B, H, S, D, scale op)
SYNTH = {
    "f32_pad_d64": ("f32", "pad", 2, 3, 77, 64, "Div"),
    "f32_causal_d128": ("f32", "causal", 1, 2, 130, 128, "Mul"),
    "f32_none_d32": ("f32", "none", 2, 2, 33, 32, "Mul"),
    # batch 1's every key masked: the softmax of equal scores (PyTorch's
    # result in f32 is the reference: fp64 keeps the scores apart)
    "f32_allpad_d64": ("f32", "allpad", 2, 2, 100, 64, "Mul"),
    # 512 and 1024 keys (BERT-base / GPT-2 at s512 and beyond)
    "f32_pad_s512_d64": ("f32", "pad", 1, 12, 512, 64, "Div"),
    "f32_causal_s512_d64": ("f32", "causal", 2, 12, 512, 64, "Div"),
    "f32_pad_s1024_d64": ("f32", "pad", 1, 12, 1024, 64, "Div"),
    "f32_causal_s1024_d64": ("f32", "causal", 1, 12, 1024, 64, "Mul"),
    "f32_causal_s512_d128": ("f32", "causal", 1, 4, 512, 128, "Mul"),
    "f16_pad_d64": ("f16", "pad", 2, 3, 77, 64, "Div"),
    "f16_causal_d64": ("f16", "causal", 2, 4, 300, 64, "Mul"),
    "f16_causal_d128": ("f16", "causal", 1, 2, 130, 128, "Mul"),
    "f16_none_d32": ("f16", "none", 2, 2, 33, 32, "Mul"),
    "bf16_pad_d64": ("bf16", "pad", 2, 3, 77, 64, "Div"),
    "bf16_causal_d64": ("bf16", "causal", 2, 4, 300, 64, "Mul"),
    "bf16_none_d128": ("bf16", "none", 1, 2, 70, 128, "Mul"),
    # the causal mask built in the graph from Range (mask mode 5)
    "f32_arange_d64": ("f32", "arange", 2, 3, 130, 64, "Div"),
    "f32_arange_s512_d64": ("f32", "arange", 1, 12, 512, 64, "Div"),
    "f16_arange_d64": ("f16", "arange", 2, 4, 300, 64, "Mul"),
    "f16_arangegt_d64": ("f16", "arangegt", 2, 4, 300, 64, "Mul"),
    "f16_arange_d32": ("f16", "arange", 2, 2, 77, 32, "Mul"),
    "f16_arange_d128": ("f16", "arange", 1, 2, 130, 128, "Mul"),
    "bf16_arange_d64": ("bf16", "arange", 2, 4, 300, 64, "Mul"),
    "bf16_arangegt_d128": ("bf16", "arangegt", 1, 2, 200, 128, "Div"),
}
CAUSAL = ("causal", "arange", "arangegt")  # Where masks of the lower triangle
# fp32 models compiled with --precision=fp16|bf16 (onnx-convert-precision
# keeps the mask and the Softmax in f32 between Casts; the block must still
# fuse): f32 inputs and output, the error compared with PyTorch's in the
# half type.
PRECISION = {"p16_pad_d64": "fp16", "pbf16_causal_d64": "bf16"}
SYNTH.update({
    "p16_pad_d64": ("f32", "pad", 2, 3, 77, 64, "Div"),
    "pbf16_causal_d64": ("f32", "causal", 2, 4, 300, 64, "Mul"),
})
COMPUTE = {"fp16": "f16", "bf16": "bf16"}
FLOOR = {"f32": 1e-5, "f16": 2e-3, "bf16": 1.6e-2}
RATIO = {"f32": 1.5, "f16": 2.0, "bf16": 2.0}  # onyx's error / PyTorch's
# Timed cases (one attention block at a bench model's shape): compiled with
# and without --fuse-attention; onyx with device-resident inputs (IO
# binding) against PyTorch eager (the same ops in that type) and SDPA.
SYNTH_TIMED = {
    "t_f32_gpt2_b8s512": ("f32", "causal", 8, 12, 512, 64, "Div"),
    "t_f16_gpt2_b8s512": ("f16", "causal", 8, 12, 512, 64, "Div"),
    "t_f16_gpt2ar_b8s512": ("f16", "arange", 8, 12, 512, 64, "Div"),
    "t_f32_bert_b32s128": ("f32", "pad", 32, 12, 128, 64, "Div"),
    "t_f16_bert_b32s128": ("f16", "pad", 32, 12, 128, 64, "Div"),
}
SYNTH.update(SYNTH_TIMED)


def synth_model(name, path):
    import onnx
    import onnx.numpy_helper
    from onnx import helper as oh, TensorProto as TP
    dt, mask, B, H, S, D, scale_op = SYNTH[name]
    T = {"f32": TP.FLOAT, "f16": TP.FLOAT16, "bf16": TP.BFLOAT16}[dt]

    def scalar(n, x):
        if dt == "bf16":
            return oh.make_tensor(n, T, [], [float(x)])
        return onnx.numpy_helper.from_array(np.array(x, dtype={"f32": np.float32, "f16": np.float16}[dt]), n)
    ins = [oh.make_tensor_value_info(n, T, [B, S, H, D]) for n in "qkv"]
    nodes = [oh.make_node("Transpose", ["q"], ["qh"], perm=[0, 2, 1, 3]),
             oh.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 3, 1]),
             oh.make_node("Transpose", ["v"], ["vh"], perm=[0, 2, 1, 3]),
             oh.make_node("MatMul", ["qh", "kt"], ["s"])]
    inits = [scalar("c", np.sqrt(D) if scale_op == "Div" else 1 / np.sqrt(D))]
    nodes.append(oh.make_node(scale_op, ["s", "c"], ["x"]))
    last = "x"
    if mask in ("pad", "allpad"):
        ins.append(oh.make_tensor_value_info("m", T, [B, 1, 1, S]))
        nodes.append(oh.make_node("Add", ["x", "m"], ["xm"]))
        last = "xm"
    elif mask in CAUSAL:
        if mask == "causal":
            ins.append(oh.make_tensor_value_info("m", TP.BOOL, [1, 1, S, S]))
        else:  # i = Range(0, S): m = i[:, None] >= (>) i[None, :]
            inits += [onnx.numpy_helper.from_array(np.array(x, np.int64), n)
                      for n, x in (("zero", 0), ("one", 1), ("seq_at", [1]), ("ax0", [0]), ("ax1", [1]))]
            nodes += [oh.make_node("Shape", ["q"], ["qshape"]),
                      oh.make_node("Gather", ["qshape", "seq_at"], ["seq1"]),
                      oh.make_node("Squeeze", ["seq1", "ax0"], ["seq"]),
                      oh.make_node("Range", ["zero", "seq", "one"], ["i"]),
                      oh.make_node("Unsqueeze", ["i", "ax1"], ["iq"]),
                      oh.make_node("Unsqueeze", ["i", "ax0"], ["ik"]),
                      oh.make_node("GreaterOrEqual" if mask == "arange" else "Greater", ["iq", "ik"], ["m"])]
        lowest = {"f32": float(np.finfo(np.float32).min), "f16": -65504.0, "bf16": -3.3895e38}[dt]
        inits.append(scalar("f", lowest))
        nodes.append(oh.make_node("Where", ["m", "x", "f"], ["xm"]))
        last = "xm"
    nodes += [oh.make_node("Softmax", [last], ["p"], axis=-1),
              oh.make_node("MatMul", ["p", "vh"], ["o"])]
    g = oh.make_graph(nodes, name, ins, [oh.make_tensor_value_info("o", T, [B, H, S, D])], inits)
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 17)])
    onnx.checker.check_model(m)
    onnx.save(m, path)


def cmd_synth_compile(args):
    compiler = os.environ.get("ONYX_COMPILE", os.path.join(REPO, "build", "bin", "onyx-compile"))
    os.makedirs(args.out, exist_ok=True)
    fused, bad = {}, 0
    for name in SYNTH:
        src = os.path.join(args.out, name + ".onnx")
        synth_model(name, src)
        prec = ["--precision=" + PRECISION[name]] if name in PRECISION else []
        ir = subprocess.run([compiler, "--target=cuda", "--fuse-attention", "--emit=onyx", src, "-o", "-"] + prec,
                            capture_output=True, text=True)
        n = ir.stdout.count("onyx.attention")
        r = subprocess.run([compiler, "--target=cuda", "--fuse-attention", src, "-o",
                            os.path.join(args.out, name + ".so")] + prec, capture_output=True, text=True)
        fused[name] = n
        ok = n == 1 and r.returncode == 0
        if name in SYNTH_TIMED:
            u = subprocess.run([compiler, "--target=cuda", src, "-o",
                                os.path.join(args.out, name + "_unfused.so")], capture_output=True, text=True)
            ok = ok and u.returncode == 0
        bad += not ok
        print("%-18s onyx.attention x%d  %s" % (name, n, "ok" if r.returncode == 0 else r.stderr.strip()[-300:]))
    with open(os.path.join(args.out, "fused.json"), "w") as f:
        json.dump(fused, f, indent=1)
    print("%d case(s) not fused into one kernel" % bad)
    return 1 if bad else 0


def cmd_synth_run(args):
    import torch
    sys.path.insert(0, args.harness)
    from gpu_bench import Onyx, BF16
    torch.backends.cuda.matmul.allow_tf32 = False
    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    gen = torch.Generator().manual_seed(int.from_bytes(os.urandom(4), "little"))
    bad, timed = 0, []
    print("%-20s %10s %10s %7s %10s  %s" % ("case", "onyx err", "torch err", "ratio", "sdpa err", "verdict"))
    for name in (args.cases.split(",") if args.cases else SYNTH):
        dt, mask, B, H, S, D, _ = SYNTH[name]
        ct = COMPUTE[PRECISION[name]] if name in PRECISION else dt  # the arithmetic's type
        so = os.path.join(args.art, name + ".so")
        if not os.path.exists(so):
            print("%-18s not compiled" % name)
            bad += 1
            continue
        q, k, v = [torch.randn(B, S, H, D, generator=gen).to(tdt[dt]) for _ in range(3)]
        feeds = [q, k, v]
        m = None
        if mask in ("pad", "allpad"):
            keep = torch.ones(B, S)
            for b in range(B):
                keep[b, S - 1 - b * (S // 5):] = 0  # batch b pads its last b*S/5 + 1 keys
            if mask == "allpad":
                keep[1:] = 0
            m = ((1 - keep) * torch.finfo(tdt[dt]).min).to(tdt[dt]).view(B, 1, 1, S)
            feeds.append(m)
        elif mask in CAUSAL:  # arangegt: i > j, row 0 keeps no key
            m = torch.tril(torch.ones(S, S, dtype=torch.bool), -1 if mask == "arangegt" else 0).view(1, 1, S, S)
            if mask == "causal":
                feeds.append(m)

        def np_in(t):
            if t.dtype == torch.bfloat16:
                return t.view(torch.int16).numpy().view(np.uint16).view(BF16)
            return t.numpy()

        def attention(qq, kk, vv, mm, dtype, dev):
            qq, kk, vv = [x.to(dev, dtype).transpose(1, 2) for x in (qq, kk, vv)]
            s = (qq @ kk.transpose(-1, -2)) * (1.0 / np.sqrt(D))
            if mask in ("pad", "allpad"):
                s = s + mm.to(dev, dtype)
            elif mask in CAUSAL:
                s = torch.where(mm.to(dev), s, torch.tensor(torch.finfo(tdt[dt]).min, dtype=dtype, device=dev))
            return torch.softmax(s, -1) @ vv
        ref = attention(q, k, v, m, torch.float64, "cpu")
        same = attention(q, k, v, m, tdt[ct], "cuda").cpu().double()
        qq, kk, vv = [x.cuda().to(tdt[ct]).transpose(1, 2) for x in (q, k, v)]
        am = None
        if mask in ("pad", "allpad"):
            am = m.cuda().to(tdt[ct])
        elif mask in CAUSAL:
            am = m.cuda()
        sdpa = torch.nn.functional.scaled_dot_product_attention(qq, kk, vv, attn_mask=am).cpu().double()
        onyx = Onyx(args.runtime, so)
        try:
            out = onyx.call(onyx.make_list([np_in(t) for t in feeds]))[0]
        except Exception as e:
            print("%-18s error: %s" % (name, e))
            bad += 1
            onyx.close()
            continue
        onyx.close()
        if dt == "bf16":
            out = torch.from_numpy(out.view(np.uint16).view(np.int16).copy()).view(torch.bfloat16)
        else:
            out = torch.from_numpy(out)
        out = out.double()

        def err(x):
            return float(torch.linalg.norm(x - ref) / torch.linalg.norm(ref))
        if mask == "allpad":
            ref = same
        e, et, es = err(out), err(same), err(sdpa)
        ratio = e / et if et > 0 else float("inf")
        if ct == "f32" and mask != "allpad":  # issue 14: no floor for f32
            ok = e <= RATIO[ct] * et
        else:
            ok = e <= RATIO[ct] * et or e <= FLOOR[ct]
        ok = ok and bool(torch.isfinite(out).all())
        bad += not ok
        print("%-20s %10.2e %10.2e %7.2f %10.2e  %s" % (name, e, et, ratio, es, "PASS" if ok else "FAIL"),
              flush=True)
        if name in SYNTH_TIMED:
            timed.append((name, feeds, ref, qq, kk, vv, am, m))
    # Timings: median of 30 after 3 warm-up calls.
    from gpu_bench import Clock, time_onyx_device
    clock = Clock("cuda", 3, 30, 30, 0.0)

    def events_ms(fn):
        for _ in range(3):
            fn()
        ts = []
        for _ in range(30):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            b.synchronize()
            ts.append(a.elapsed_time(b))
        return sorted(ts)[len(ts) // 2]
    if timed:
        print("\n%-20s %10s %10s %10s %10s %10s" % ("timed case", "fused ms", "unfused ms", "eager ms",
                                                      "sdpa ms", "fused err"))
    for name, feeds, ref, qq, kk, vv, am, m in timed:
        dt, mask, B, H, S, D, _ = SYNTH[name]
        row = {}
        for tag in ("fused", "unfused"):
            onyx = Onyx(args.runtime, os.path.join(args.art, name + ("" if tag == "fused" else "_unfused") + ".so"))
            r = {}
            time_onyx_device(clock, onyx, [t.numpy() for t in feeds], ref.numpy(), r)
            onyx.close()
            row[tag] = r.get("onyx_dev_ms", float("nan"))
            row[tag + "_err"] = r.get("onyx_dev_rel_err", float("nan"))
        scale = 1.0 / np.sqrt(D)
        fill = torch.tensor(torch.finfo(tdt[dt]).min, dtype=tdt[dt], device="cuda")
        amd = am

        def eager():
            sc = (qq @ kk.transpose(-1, -2)) * scale
            if mask == "pad":
                sc = sc + amd
            elif mask in CAUSAL:
                sc = torch.where(amd, sc, fill)
            return torch.softmax(sc, -1) @ vv
        row["eager"] = events_ms(eager)
        if mask == "arange":  # the mask SDPA computes itself
            row["sdpa"] = events_ms(lambda: torch.nn.functional.scaled_dot_product_attention(qq, kk, vv,
                                                                                             is_causal=True))
        else:
            row["sdpa"] = events_ms(lambda: torch.nn.functional.scaled_dot_product_attention(qq, kk, vv,
                                                                                             attn_mask=amd))
        print("%-20s %10.3f %10.3f %10.3f %10.3f %10.2e" % (name, row["fused"], row["unfused"], row["eager"],
                                                          row["sdpa"], row["fused_err"]), flush=True)
    print("%d case(s) failing" % bad)
    return 1 if bad else 0


# ---------------------------------------------------------------------------
# Whole models in half precision: bench/gpu_bench.py's fp32 BERT-base and
# GPT-2 small graphs compiled with --precision=fp16|bf16, unfused and with
# --fuse-attention, against PyTorch (.half()/.bfloat16()) eager and
# torch.compile; errors against the fp32 model (TF32 off).

BENCH_MODELS = ["bert", "gpt2"]
BENCH_PRECISIONS = {"fp16": "float16", "bf16": "bfloat16"}
# bench-run times fp32 artifacts too (TF32 off on both sides), compiled elsewhere.
RUN_PRECISIONS = {"fp32": "float32", **BENCH_PRECISIONS}
BENCH_VARIANTS = {"unfused": ["--fuse-attention=false"], "fused": ["--fuse-attention"]}  # bench-compile


def cmd_bench_compile(args):
    """Here: GRAPHS/MODEL.onnx (gpu_bench.py export, the weights left out)
    into OUT/MODEL_PREC[_fused].so, and OUT/MODEL.onnx (the layout
    bench-run re-creates the weights in)."""
    import shutil
    import tempfile
    compiler = os.environ.get("ONYX_COMPILE", os.path.join(REPO, "build", "bin", "onyx-compile"))
    os.makedirs(args.out, exist_ok=True)
    for model in args.models.split(","):
        src = os.path.join(args.graphs, model + ".onnx")
        shutil.copy(src, os.path.join(args.out, model + ".onnx"))
        with tempfile.TemporaryDirectory() as tmp:  # no data file: no checksums
            shutil.copy(src, os.path.join(tmp, model + ".onnx"))
            for prec in BENCH_PRECISIONS:
                for variant, flags in BENCH_VARIANTS.items():
                    so = os.path.join(args.out, "%s_%s%s.so" % (model, prec, "_fused" if flags else ""))
                    subprocess.run([compiler, "--target=cuda", "--external-weights", "--precision=" + prec,
                                    os.path.join(tmp, model + ".onnx"), "-o", so] + flags, check=True)
                    print("compiled", os.path.basename(so), flush=True)


def cmd_bench_run(args):
    """There: each case's model re-created from gpu_bench's seed (weights laid
    out for the compiled graph), the fp32 eager output the reference; per
    precision PyTorch eager and torch.compile(dynamic=False) on the
    converted model, and each Onyx variant on device-resident inputs (IO
    binding, outputs left on the device); CUDA events, median of --runs
    after 5 warm-up calls; the rel. L2 error against the reference; Onyx's
    activation bytes; with --profile, ONYX_CUDA_PROFILE's device time per
    kernel (10 calls) of each Onyx variant (the top 25 in the JSON lines,
    --out/bench.jsonl)."""
    import copy
    import tempfile
    import statistics
    import time
    import torch
    sys.path.insert(0, args.harness)
    import gpu_bench as gb
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    start = time.time()

    def events_ms(fn, runs):
        for _ in range(5):
            fn()
        torch.cuda.synchronize()
        ts = []
        for _ in range(runs):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            b.synchronize()
            ts.append(a.elapsed_time(b))
        return statistics.median(ts)

    def rel(a, ref):
        a, ref = np.asarray(a, np.float64), np.asarray(ref, np.float64)
        return float(np.linalg.norm(a - ref) / max(np.linalg.norm(ref), 1e-30))
    # name=suffix: the artifact MODEL_PREC<suffix>.so
    variants = [tuple(v.split("=", 1)) for v in args.variants.split(",")]
    rows = []
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    out = open(os.path.join(args.out, "bench.jsonl"), "w") if args.out else None
    models = {}
    for cid in args.cases.split(","):
        if time.time() - start > args.budget:
            print("%s: skipped (--budget %.0f s)" % (cid, args.budget), flush=True)
            continue
        case = gb.parse_case(cid)
        model = case["model"]
        t0 = time.time()
        if model not in models:  # one export and weight layout per model
            for other in list(models):
                del models[other]
            torch.cuda.empty_cache()
            tmp = tempfile.mkdtemp()
            fp32, exported = gb.export(model, tmp)
            data = os.path.join(args.art, model + ".onnx.data")  # read by the artifacts
            note = gb.align_weights(os.path.join(args.art, model + ".onnx"), exported, data)
            models[model] = (fp32.to(dev).eval(), note)
        fp32, note = models[model]
        inputs = gb.make_inputs(case)
        xs = [torch.from_numpy(a).to(dev) for a in inputs]
        with torch.no_grad():
            ref = fp32(*xs).float().cpu().numpy()
        print("%s: exported and laid out in %.1f s (%s)" % (cid, time.time() - t0, note), flush=True)
        for prec, dtname in RUN_PRECISIONS.items():
            if prec not in args.precisions.split(","):
                continue
            dt = getattr(torch, dtname)
            r = {"case": cid, "precision": prec}
            m = copy.deepcopy(fp32).to(dt)
            hx = [x.to(dt) if x.is_floating_point() else x for x in xs]
            with torch.no_grad():
                r["torch_err"] = rel(m(*hx).float().cpu().numpy(), ref)
                r["eager_ms"] = events_ms(lambda: m(*hx), args.runs)
                if args.compile and time.time() - start < args.compile_budget:
                    try:
                        import torch._dynamo
                        torch._dynamo.reset()
                        t1 = time.time()
                        cm = torch.compile(m, dynamic=False)
                        cm(*hx)
                        torch.cuda.synchronize()
                        r["compile_s"] = round(time.time() - t1, 1)
                        r["compile_ms"] = events_ms(lambda: cm(*hx), args.runs)
                        r["compile_err"] = rel(cm(*hx).float().cpu().numpy(), ref)
                    except Exception as e:
                        r["compile_error"] = str(e).splitlines()[0][:200]
            del m
            torch.cuda.empty_cache()
            for variant, suffix in variants:
                so = os.path.join(args.art, "%s_%s%s.so" % (model, prec, suffix))
                try:
                    # Device-resident torch inputs, read in place through
                    # DLPack; outputs left on the device while timing.
                    onyx = gb.Onyx(so)
                    feeds = dict(zip(onyx.names, xs))
                    torch.cuda.synchronize()
                    r[variant + "_err"] = rel(onyx.call(feeds)[0], ref)
                    r[variant + "_ms"] = events_ms(
                        lambda: onyx.call(feeds, read=False, device_outputs=True), args.runs)
                    r[variant + "_mib"] = (onyx.activation_bytes() or 0) / 2**20
                    onyx.close()
                    if args.profile:
                        prof = os.path.join(tempfile.gettempdir(), "prof_%s_%s_%s.tsv" % (cid, prec, variant))
                        os.environ["ONYX_CUDA_PROFILE"] = prof
                        onyx = gb.Onyx(args.runtime, so)
                        lst = onyx.make_list(inputs)
                        for _ in range(3):  # unprofiled lazy loads land here too; subtracted below
                            onyx.call(lst, read=False)
                        onyx.close()
                        warm = {l.split("\t")[0]: float(l.split("\t")[2]) for l in open(prof)}
                        os.remove(prof)
                        onyx = gb.Onyx(args.runtime, so)
                        for _ in range(3 + 10):
                            onyx.call(lst, read=False)
                        onyx.close()
                        os.environ.pop("ONYX_CUDA_PROFILE", None)
                        lines = [l.rstrip("\n").split("\t") for l in open(prof)]
                        per = []
                        for l in lines:  # (13 calls) - (3 calls) = 10 calls
                            per.append((( float(l[2]) - warm.get(l[0], 0.0)) / 10, int(l[1]) // 13, l[0], l[3] if len(l) > 3 else ""))
                        per.sort(key=lambda t: -t[0])
                        r[variant + "_device_ms"] = sum(t[0] for t in per)
                        r[variant + "_launches"] = sum(t[1] for t in per)
                        r[variant + "_top"] = [[round(t[0], 4), t[1], t[2], t[3][:60]] for t in per[:25]]
                except Exception as e:
                    r[variant + "_error"] = str(e)[:300]
                    os.environ.pop("ONYX_CUDA_PROFILE", None)
            print(json.dumps(r), flush=True)
            rows.append(r)
            if out:
                out.write(json.dumps(r) + "\n")
                out.flush()
        del fp32
    head = "%-14s %-5s %8s %8s %8s" % ("case", "prec", "eager", "compile", "tc err")
    for name, _ in variants:
        head += " %10s %8s %7s %7s" % (name, "/comp", "err", "MiB")
    print("\n" + head)
    for r in rows:
        line = "%-14s %-5s %8s %8s %8s" % (r["case"], r["precision"], "%.2f" % r["eager_ms"],
                                          "%.2f" % r["compile_ms"] if "compile_ms" in r else "-",
                                          "%.1e" % r["compile_err"] if "compile_err" in r else "-")
        for name, _ in variants:
            if name + "_ms" not in r:
                line += " %10s %8s %7s %7s" % ("error", "-", "-", "-")
                continue
            line += " %10.2f %8s %7.1e %7.0f" % (
                r[name + "_ms"], "%.2fx" % (r[name + "_ms"] / r["compile_ms"]) if "compile_ms" in r else "-",
                r[name + "_err"], r.get(name + "_mib", 0))
        print(line, flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile")
    c.add_argument("out")
    c.add_argument("--models", default=",".join(MODELS))
    c.add_argument("--flags", default="", help="more onyx-compile flags, e.g. '--cuda-layer-norm'")
    r = sub.add_parser("run")
    r.add_argument("art")
    r.add_argument("--runtime", required=True)
    r.add_argument("--harness", default=os.path.join(REPO, "bench"),
                   help="the folder of the gpu_bench.py to take Onyx's session wrapper from")
    r.add_argument("--models", default=",".join(MODELS))
    sc = sub.add_parser("synth-compile")
    sc.add_argument("out")
    sr = sub.add_parser("synth-run")
    sr.add_argument("art")
    sr.add_argument("--runtime", required=True)
    sr.add_argument("--harness", default=os.path.join(REPO, "bench"),
                    help="the folder of the gpu_bench.py to take Onyx's session wrapper from")
    sr.add_argument("--cases", default="", help="a comma-separated subset of the cases (default: all)")
    bc = sub.add_parser("bench-compile")
    bc.add_argument("out")
    bc.add_argument("--graphs", required=True, help="bench/gpu_bench.py export's fp32 graphs")
    bc.add_argument("--models", default=",".join(BENCH_MODELS))
    br = sub.add_parser("bench-run")
    br.add_argument("art")
    br.add_argument("--runtime", required=True)
    br.add_argument("--harness", default=os.path.join(REPO, "bench"),
                    help="the folder of the gpu_bench.py to take the models and weights from")
    br.add_argument("--cases", default="bert-b32-s128,gpt2-b8-s512")
    br.add_argument("--precisions", default="fp16,bf16")
    br.add_argument("--runs", type=int, default=30)
    br.add_argument("--no-compile", dest="compile", action="store_false")
    br.add_argument("--compile-budget", type=float, default=200,
                    help="seconds since the start after which torch.compile is skipped")
    br.add_argument("--variants", default="unfused=,fused=_fused",
                    help="name=suffix,...: the Onyx artifacts MODEL_PREC<suffix>.so to time")
    br.add_argument("--budget", type=float, default=1e9, help="seconds after which no case starts")
    br.add_argument("--profile", action="store_true")
    br.add_argument("--out")
    args = p.parse_args()
    return {"compile": cmd_compile, "run": cmd_run, "synth-compile": cmd_synth_compile,
            "synth-run": cmd_synth_run, "bench-compile": cmd_bench_compile,
            "bench-run": cmd_bench_run}[args.cmd](args) or 0


if __name__ == "__main__":
    sys.exit(main())
