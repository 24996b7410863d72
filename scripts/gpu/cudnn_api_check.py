#!/usr/bin/env python3
"""cuDNN's backend (graph) API against its legacy API in onyxrt_cuda_conv.

    # here: the harness artifact (scripts/gpu/cudnn_conv_harness.c, linked
    # against LIB/libonyx_runtime.so) and, optionally, ResNet-50 artifacts
    # compiled from bench/gpu_bench.py export's graph
    /usr/bin/python3 scripts/gpu/cudnn_api_check.py make DIR --runtime LIB \
        [--resnet GRAPHS]   # ONYX_COMPILE=.../onyx-compile for --resnet
    # there (GPU machine; `onyx` package built against the carried runtime)
    python3 scripts/gpu/cudnn_api_check.py run DIR [--resnet-shapes] [--time] \
        [--apis backend,backend-unfused] [--resnet] --out $OUT

`run` opens the harness once per ONYX_CUDNN_API value (legacy, and each of
--apis; the variable is read when a session's first convolution runs) and
runs every check case in each: 11 convolution shapes (and with
--resnet-shapes every distinct ResNet-50 convolution at --batches) in fp32,
tf32, fp16, bf16 and NHWC fp16 / bf16, with their epilogues, on the same
random inputs, against an fp64 PyTorch reference:
  - fp32: within 1e-5 of legacy (relative L2) and 1e-4 of the reference;
  - tf32: within 2e-3 of the reference;
  - fp16 / bf16: error at most 1.5x legacy's plus 2e-4 / 2e-3, and below
    5e-3 / 3e-2.
ONYX_CUDNN_LOG collects the plan lines (path, engine, build time) in
OUT/cudnn_plans.log; the summary counts how many plans took each path.
--time: ResNet-50's 53 convolutions per harness call, legacy vs backend,
without and with CUDA graphs (median of --runs, CUDA events, device-resident
inputs). --resnet: compiled ResNet-50 artifacts (weights re-created from
gpu_bench's seed) at --batches, backend vs legacy outputs (the same rules
against the fp32 PyTorch model), timed with --time, without and with CUDA
graphs (`--no-checks --resnet --time --time-variants ""`: the compiled models
alone; first run 2026-12-06, docs/cuda-measurements.md "Compiled ResNet-50 on
the backend API"). The variants name their layout explicitly (fp32, tf32,
fp16, bf16 NCHW; fp32cl, tf32cl, fp16cl, bf16cl NHWC), whatever
onyx-compile's default; --resnet-variants picks some (the artifacts of
`make` are all of them). Where both layouts of a precision ran, the run
prints the relative L2 between their backend outputs (PREC vs PRECcl).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# variant: (onyx-compile flags, kind)
VARIANTS = {
    "fp32": ([], "fp32"),
    "tf32": (["--precision=tf32", "--cuda-channels-last=false"], "tf32"),
    "fp16": (["--precision=fp16", "--cuda-channels-last=false"], "fp16"),
    "bf16": (["--precision=bf16", "--cuda-channels-last=false"], "bf16"),
    "fp16cl": (["--precision=fp16", "--cuda-channels-last"], "fp16"),
    "bf16cl": (["--precision=bf16", "--cuda-channels-last"], "bf16"),
    "tf32cl": (["--precision=tf32", "--cuda-channels-last"], "tf32"),
    "fp32cl": (["--cuda-channels-last"], "fp32"),
}
RESNET_VARIANTS = ["fp32", "tf32", "fp16", "bf16", "fp16cl", "bf16cl", "tf32cl", "fp32cl"]


def compiler():
    return os.environ.get("ONYX_COMPILE", os.path.join(REPO, "build", "bin", "onyx-compile"))


def cmd_make(args):
    os.makedirs(args.dir, exist_ok=True)
    subprocess.run(["cc", "-O2", "-Wall", "-shared", "-fPIC", "-I" + os.path.join(REPO, "runtime", "include"),
                    os.path.join(HERE, "cudnn_conv_harness.c"), "-L" + args.runtime,
                    "-lonyx_runtime", "-o", os.path.join(args.dir, "harness.so")], check=True)
    print("built harness.so", flush=True)
    if args.resnet:
        import shutil
        import tempfile
        art = os.path.join(args.dir, "resnet")
        os.makedirs(art, exist_ok=True)
        src = os.path.join(args.resnet, "resnet50.onnx")
        shutil.copy(src, os.path.join(art, "resnet50.onnx"))
        with tempfile.TemporaryDirectory() as tmp:  # no data file: no checksums
            graph = os.path.join(tmp, "resnet50.onnx")
            shutil.copy(src, graph)
            for v in RESNET_VARIANTS:
                flags = VARIANTS[v][0]
                t0 = time.time()
                subprocess.run([compiler(), "--target=cuda", "--external-weights"] + flags +
                               [graph, "-o", os.path.join(art, "resnet50_%s.so" % v)], check=True)
                print("compiled resnet50_%s (%.1f s)" % (v, time.time() - t0), flush=True)


# onyx_abi.h / onyx_runtime.h values
ACC, TF32, RELU, NHWC, CONST = 1, 2, 4, 32, 64
ELEM = {"f32": 1, "f16": 10, "bf16": 16}
# harness variants: (kind, elem, flags)
HVARIANTS = {"fp32": ("fp32", "f32", 0), "tf32": ("tf32", "f32", TF32),
             "fp16": ("fp16", "f16", 0), "bf16": ("bf16", "bf16", 0),
             "fp16cl": ("fp16", "f16", NHWC | CONST), "bf16cl": ("bf16", "bf16", NHWC | CONST),
             "fp16cl_w": ("fp16", "f16", NHWC)}  # filter converted per call
# epilogue: (flags, bias, residual mode: 0 none, 1 r, 2 y itself)
EPILOGUES = {"none": (0, 0, 0), "acc": (ACC, 0, 0), "bias": (0, 1, 0),
             "bias_relu": (RELU, 1, 0), "bias_res": (0, 1, 1), "bias_res_relu": (RELU, 1, 1),
             "bias_resy_relu": (RELU, 1, 2)}


def conv_dims(n, c, m, g, inp, k, stride=None, pad=None, dil=None):
    r = len(inp)
    stride, pad, dil = stride or [1] * r, pad or [0] * r, dil or [1] * r
    out = [(inp[i] + 2 * pad[i] - dil[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(r)]
    return [n, c, m, g] + list(inp) + list(k) + out + list(pad) + list(stride) + list(dil)


def harness_cases():
    """(name, dims, epilogues): the shapes the compiler emits (pads 0 over
    a padded input) and some with cuDNN's pads."""
    allep = list(EPILOGUES)
    few = ["none", "acc", "bias_relu", "bias_res_relu"]
    return [
        ("3x3_p0_prepadded", conv_dims(2, 16, 32, 1, [16, 16], [3, 3]), allep),
        ("1x1_256_64", conv_dims(3, 256, 64, 1, [14, 14], [1, 1]), allep),
        ("3x3_s2_pad1", conv_dims(2, 24, 40, 1, [15, 15], [3, 3], [2, 2], [1, 1]), few),
        ("1x1_s2_downsample", conv_dims(2, 64, 128, 1, [14, 14], [1, 1], [2, 2]), few),
        ("stem7x7_c3", conv_dims(2, 3, 16, 1, [38, 38], [7, 7], [2, 2]), few),
        ("grouped4_dilated", conv_dims(2, 8, 12, 4, [16, 16], [3, 3], None, None, [2, 2]), few),
        ("grouped8", conv_dims(2, 64, 64, 8, [12, 12], [3, 3]), few),
        ("depthwise32", conv_dims(2, 32, 32, 32, [14, 14], [3, 3], None, [1, 1]), few),
        ("odd_channels", conv_dims(1, 5, 7, 1, [9, 11], [3, 3], None, [1, 1]), few),
        ("conv1d_s3", conv_dims(2, 4, 6, 1, [50], [5], [3]), few),
        ("conv3d", conv_dims(2, 4, 8, 1, [6, 8, 8], [3, 3, 3], None, [1, 1, 1]), few),
    ]


def resnet50_check_cases(batches):
    """Every distinct convolution of resnet50_convs at each batch, with its
    epilogue and again accumulating (the compiler emits ACCUMULATE where
    another kernel initialized the output)."""
    seen, out = set(), []
    for nb in batches:
        for flags, bias, res, dims in resnet50_convs(nb):
            key = (tuple(dims), flags, bias, res)
            if key in seen:
                continue
            seen.add(key)
            ep = {(RELU, 1, 0): "bias_relu", (RELU, 1, 1): "bias_res_relu", (0, 1, 0): "bias"}[
                (flags, bias, res)]
            name = "resnet50_b%d_%dx%d_c%d_m%d_s%d" % (nb, dims[6], dims[7], dims[1], dims[2],
                                                        dims[12])
            out.append((name, dims, [ep, "acc"]))
    return out


def resnet50_convs(n, acc=False):
    """ResNet-50 (torchvision, 224x224) as the compiler emits its 53
    convolutions: pads 0 over padded inputs; block tails with bias, residual
    and ReLU, downsamples with bias, the rest bias + ReLU. acc: the 16 3x3
    convolutions and the 4 downsamples accumulate into an output without a
    bias instead (about as many ACCUMULATE calls as the compiled model has:
    21-22 of 53). [(flags, bias, res, dims)]."""
    convs = [(RELU, 1, 0, conv_dims(n, 3, 64, 1, [230, 230], [7, 7], [2, 2]))]
    cin, size = 64, 56
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for b in range(blocks):
            s = stride if b == 0 else 1
            out = size // s
            convs.append((RELU, 1, 0, conv_dims(n, cin, width, 1, [size, size], [1, 1])))
            convs.append((ACC, 0, 0) if acc else (RELU, 1, 0))
            convs[-1] += (conv_dims(n, width, width, 1, [size + 2, size + 2], [3, 3], [s, s]),)
            if b == 0:
                convs.append((ACC if acc else 0, 0 if acc else 1, 0,
                              conv_dims(n, cin, width * 4, 1, [size, size], [1, 1], [s, s])))
            convs.append((RELU, 1, 1, conv_dims(n, width, width * 4, 1, [out, out], [1, 1])))
            cin, size = width * 4, out
    assert len(convs) == 53
    return convs


def dims_parts(dims):
    r = (len(dims) - 4) // 6
    n, c, m, g = dims[:4]
    p = [dims[4 + i * r:4 + (i + 1) * r] for i in range(6)]
    return n, c, m, g, r, p  # p: in, kernel, out, pads, strides, dilations


class Harness:
    """The harness artifact in one session (legacy or backend API)."""

    def __init__(self, path, api, log, **options):
        self.api = api
        self.session = session(path, api, log, **options)

    def run(self, spec, arrays, **kw):
        os.environ["ONYX_CUDNN_API"] = self.api
        os.environ["ONYX_CONV_HARNESS"] = spec
        return self.session.run(None, dict(zip(["x", "w", "b", "r", "y0"], arrays)), **kw)


def torch_dtype(elem):
    import torch
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[elem]


def as_bytes(t):
    """A device tensor's bytes as a flat uint8 device tensor (read in place)."""
    import torch
    return t.contiguous().view(-1).view(torch.uint8)


def run_harness_checks(args, log, results):
    import torch
    import torch.nn.functional as F
    path = os.path.join(args.dir, "harness.so")
    apis = ["legacy"] + [a for a in args.apis.split(",") if a != "legacy"]
    sess = {api: Harness(path, api, log) for api in apis}
    bad = 0
    start = time.time()
    dev = torch.device("cuda")
    filters = []
    cases = harness_cases() + (resnet50_check_cases(args.batches) if args.resnet_shapes else [])
    for name, dims, eps in cases:
        n, c, m, g, r, (inp, k, out, pads, strides, dil) = dims_parts(dims)
        gen = torch.Generator(device=dev).manual_seed(len(results) + 7)
        x32 = torch.randn([n, c] + inp, generator=gen, device=dev)
        w32 = torch.randn([m, c // g] + k, generator=gen, device=dev) / float(np.sqrt(c // g * np.prod(k)))
        b32 = torch.randn([m], generator=gen, device=dev)
        r32 = torch.randn([n, m] + out, generator=gen, device=dev)
        y032 = torch.randn([n, m] + out, generator=gen, device=dev)
        convf = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[r]
        for vname, (kind, elem, vflags) in HVARIANTS.items():
            dt = torch_dtype(elem)
            q = [t.to(dt) for t in (x32, w32, b32, r32, y032)]
            xq, wq, bq, rq, y0q = [t.double() for t in q]
            base = convf(xq, wq, None, strides, pads, dil, g)
            nhwc = bool(vflags & NHWC)

            def lay(t):  # the buffer layout of x, y, r
                return t.movedim(1, -1) if nhwc else t
            arrays = [as_bytes(lay(q[0])), as_bytes(q[1]), as_bytes(q[2]), as_bytes(lay(q[3])),
                      as_bytes(lay(q[4]))]
            # ONYXRT_CONV_CONST_FILTER: the sessions keep each filter's KRSC
            # copy by address and size, so no later filter may reuse this
            # one's memory: the filters stay alive until the end.
            filters.append(arrays[1])
            for ep in eps:
                if time.time() - start > args.check_budget:
                    break
                eflags, bias, res = EPILOGUES[ep]
                ref = base.clone()
                if eflags & ACC or res == 2:
                    ref = ref + y0q
                if bias:
                    ref = ref + bq.view([1, m] + [1] * r)
                if res == 1:
                    ref = ref + rq
                if eflags & RELU:
                    ref = ref.clamp_min(0)
                spec = "check %d %d %d %d %d %s" % (ELEM[elem], vflags | eflags, r, bias, res,
                                                    " ".join(map(str, dims)))
                outs, failed = {}, {}
                for api, h in sess.items():
                    try:
                        raw = np.asarray(h.run(spec, arrays)[0], np.uint8)
                        t = torch.from_numpy(raw.copy()).to(dev).view(dt)
                        t = t.view([n] + out + [m]).movedim(-1, 1) if nhwc else t.view([n, m] + out)
                        outs[api] = t.double()
                    except Exception as e:  # reported, the check goes on
                        failed[api] = str(e)[:400]
                for api in apis[1:]:
                    rec = {"case": name, "variant": vname, "epilogue": ep, "api": api}
                    if "legacy" in failed or api in failed:
                        rec.update(ok=False, error=failed.get(api) or "legacy: " + failed["legacy"])
                    else:
                        e_l, e_b = trel(outs["legacy"], ref), trel(outs[api], ref)
                        d = trel(outs[api], outs["legacy"])
                        rec.update(err_legacy=e_l, err_backend=e_b, diff=d,
                                   ok=judge(kind, e_b, e_l, d))
                    bad += not rec["ok"]
                    results.append(rec)
                    if not rec["ok"] or args.verbose:
                        print(json.dumps(rec), flush=True)
    n_ok = sum(1 for r in results if r.get("ok"))
    print("harness checks: %d run, %d ok, %d not ok (%.0f s)" % (len(results), n_ok, bad,
                                                                   time.time() - start), flush=True)
    return bad


def run_harness_timing(args, log, results):
    """ResNet-50's 53 convolutions per call, legacy vs backend, without and
    with CUDA graphs (median of --runs, CUDA events, device-resident inputs)."""
    import torch
    path = os.path.join(args.dir, "harness.so")
    dev = torch.device("cuda")
    rows = []
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

    for vname, chain in [(v, c) for c in args.chains.split(",") for v in args.time_variants.split(",")]:
        kind, elem, vflags = HVARIANTS[vname]
        dt = torch_dtype(elem)
        for nb in args.batches:
            convs = resnet50_convs(nb, chain == "acc")
            sizes = [0, 0, 0, 0]
            parts = []
            for flags, bias, res, dims in convs:
                n, c, m, g, r, (inp, k, out, _, _, _) = dims_parts(dims)
                xs, ws = n * c * int(np.prod(inp)), m * (c // g) * int(np.prod(k))
                ys = n * m * int(np.prod(out))
                sizes = [max(sizes[0], xs, ys), max(sizes[1], ws), max(sizes[2], m),
                         max(sizes[3], ys)]
                parts.append("%d %d %d %d %s" % (vflags | flags, r, bias, res, " ".join(map(str, dims))))
            spec = "time %d %d %s" % (ELEM[elem], len(convs), " ".join(parts))
            gen = torch.Generator(device=dev).manual_seed(nb)
            bufs = [torch.randn(sz, generator=gen, device=dev, dtype=torch.float32).to(dt).view(torch.uint8)
                    for sz in (sizes[0], sizes[1], sizes[2], sizes[3], sizes[3])]
            row = {"variant": vname, "chain": chain, "batch": nb}
            for graphs in (False, True):
                for api in ("legacy", "backend"):
                    if time.time() - start > args.time_budget:
                        continue
                    opts = {"enable_cuda_graph": True} if graphs else {}
                    try:
                        h = Harness(path, api, log, **opts)
                        t0 = time.time()
                        h.run(spec, bufs, device_outputs=True)
                        torch.cuda.synchronize()
                        row["first_s_%s%s" % (api, "_graphs" if graphs else "")] = round(time.time() - t0, 3)
                        row["%s%s_ms" % (api, "_graphs" if graphs else "")] = events_ms(
                            lambda: h.run(spec, bufs, device_outputs=True))
                        h = None
                    except Exception as e:
                        row["%s%s_error" % (api, "_graphs" if graphs else "")] = str(e)[:300]
            rows.append(row)
            results.append(dict(row, timing=True))
            print(json.dumps(row), flush=True)
    print("\nResNet-50's 53 convolutions per call (harness; median of %d, CUDA events):" % args.runs)
    print("| variant | chain | batch | legacy ms | backend ms | backend / legacy | legacy + graphs ms "
          "| backend + graphs ms |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")

    def f(r, k):
        return "%.2f" % r[k] if k in r else "-"
    for r in rows:
        ratio = "%.2f" % (r["backend_ms"] / r["legacy_ms"]) if "backend_ms" in r and "legacy_ms" in r else "-"
        print("| %s | %s | %d | %s | %s | %s | %s | %s |" % (r["variant"], r["chain"], r["batch"], f(r, "legacy_ms"),
                                                       f(r, "backend_ms"), ratio,
                                                       f(r, "legacy_graphs_ms"), f(r, "backend_graphs_ms")))
    for r in rows:
        for k, v in r.items():
            if k.endswith("_error"):
                print("%s %s b%d %s: %s" % (r["variant"], r["chain"], r["batch"], k, v))
    return 0


def rel(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))


def trel(a, b):
    """rel() of two float64 torch tensors."""
    return float((a - b).norm() / max(float(b.norm()), 1e-30))


def judge(kind, e_backend, e_legacy, d):
    """e_*: errors against the fp32 reference; d: backend vs legacy."""
    if not np.isfinite(e_backend) or not np.isfinite(d):
        return False
    if kind == "fp32":
        return d <= 1e-5 and e_backend <= 1e-4
    if kind == "tf32":
        return e_backend <= 2e-3
    slack, bound = (2e-4, 5e-3) if kind == "fp16" else (2e-3, 3e-2)
    return e_backend <= 1.5 * e_legacy + slack and e_backend <= bound


def session(path, api, log, **options):
    import onyx
    os.environ["ONYX_CUDNN_API"] = api
    with open(log, "a") as f:
        f.write("# %s %s %s\n" % (os.path.basename(path), api, options or ""))
    return onyx.InferenceSession(path, **options)


def run_resnet(args, log, results):
    import torch
    sys.path.insert(0, os.path.join(REPO, "bench"))
    import gpu_bench as gb
    import tempfile
    import shutil
    art = os.path.join(args.dir, "resnet")
    dev = torch.device("cuda")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    tmp = tempfile.mkdtemp()
    fp32, exported = gb.export("resnet50", tmp)
    note = gb.align_weights(os.path.join(art, "resnet50.onnx"), exported,
                            os.path.join(art, "resnet50.onnx.data"))
    shutil.rmtree(tmp, ignore_errors=True)
    print("resnet50 weights: %s" % note, flush=True)
    fp32 = fp32.to(dev).eval()

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

    cases = {}
    for b in args.batches:
        x = torch.from_numpy(gb.make_inputs({"model": "resnet50", "batch": b, "size": 224})[0]).to(dev)
        with torch.no_grad():
            cases[b] = (x, fp32(x).float().cpu().numpy())
    bad = 0
    start = time.time()
    backend_outs = {}  # (variant, batch): the graph-free backend output
    for v in (args.resnet_variants.split(",") if args.resnet_variants else RESNET_VARIANTS):
        so = os.path.join(art, "resnet50_%s.so" % v)
        kind = VARIANTS[v][1]
        modes = [("", {})] + ([("graphs", {"enable_cuda_graph": True})] if args.time else [])
        if not os.path.exists(so):
            print("resnet50 %s: no artifact" % v)
            continue
        for mode, options in modes:
            if time.time() - start > args.budget:
                print("resnet50 %s %s: skipped (--budget)" % (v, mode), flush=True)
                continue
            outs, ms, create = {}, {}, {}
            try:
                for api in ("legacy", "backend"):
                    t0 = time.time()
                    s = session(so, api, log, **options)
                    names = [i.name for i in s.get_inputs()]
                    for b, (x, _) in cases.items():
                        feeds = dict(zip(names, [x]))
                        o = np.asarray(s.run(None, feeds)[0], np.float32)
                        if b == args.batches[0]:
                            create[api] = time.time() - t0  # session + first call (plans)
                        outs[(api, b)] = o
                        if args.time:
                            ms[(api, b)] = events_ms(
                                lambda: s.run(None, feeds, device_outputs=True))
                    s = None
            except Exception as e:
                print("resnet50 %s %s: ERROR %s" % (v, mode, str(e)[:300]), flush=True)
                results.append({"model": "resnet50", "variant": v, "mode": mode, "ok": False,
                                "error": str(e)[:300]})
                bad += 1
                continue
            for b, (_, ref) in cases.items():
                if not mode:
                    backend_outs[(v, b)] = outs[("backend", b)]
                e_l, e_b = rel(outs[("legacy", b)], ref), rel(outs[("backend", b)], ref)
                d = rel(outs[("backend", b)], outs[("legacy", b)])
                ok = judge(kind, e_b, e_l, d)
                bad += not ok
                r = {"model": "resnet50", "variant": v, "mode": mode or "no graphs", "batch": b,
                     "err_legacy": e_l, "err_backend": e_b, "diff": d, "ok": ok,
                     "first_call_s": create, "legacy_ms": ms.get(("legacy", b)),
                     "backend_ms": ms.get(("backend", b))}
                results.append(r)
                print(json.dumps(r), flush=True)
    for (v, b), o in sorted(backend_outs.items()):
        if (v + "cl", b) in backend_outs:
            r = {"model": "resnet50", "layouts": "%s vs %scl" % (v, v), "batch": b,
                 "diff": rel(backend_outs[(v + "cl", b)], o)}
            results.append(r)
            print(json.dumps(r), flush=True)
    return bad


def summarize_log(log):
    paths, engines, build_ms = {}, {}, []
    for line in open(log):
        if not line.startswith("onyx cudnn plan:"):
            continue
        body = line[len("onyx cudnn plan:"):]
        path = body.split(":", 1)[1].split(",")[0].split(";")[0].strip()
        paths[path] = paths.get(path, 0) + 1
        if path.startswith("backend") and "engine " in body:
            e = body.split("engine ", 1)[1].split(")")[0] + ")"
            engines[e] = engines.get(e, 0) + 1
        build_ms.append(float(line.rsplit(";", 1)[1].strip().split()[0]))
    print("plans by path: %s" % json.dumps(paths))
    print("backend engines: %s" % json.dumps(engines))
    if build_ms:
        print("plan build ms: median %.1f, max %.1f, total %.1f s" % (
            statistics.median(build_ms), max(build_ms), sum(build_ms) / 1000))


def cmd_run(args):
    out = args.out or "/tmp/onyx-out"
    os.makedirs(out, exist_ok=True)
    log = os.path.join(out, "cudnn_plans.log")
    open(log, "w").close()
    os.environ["ONYX_CUDNN_LOG"] = log
    try:
        import ctypes
        lib = ctypes.CDLL(os.environ.get("ONYX_CUDNN_LIBRARY", "libcudnn.so.9"))
        print("cuDNN (libcudnn.so.9): %d" % lib.cudnnGetVersion(), flush=True)
    except OSError as e:
        print("cuDNN: %s" % e)
    results = []
    bad = 0
    if not args.no_checks:
        bad += run_harness_checks(args, log, results)
    if args.time and args.time_variants:
        run_harness_timing(args, log, results)
    if args.resnet:
        bad += run_resnet(args, log, results)
    with open(os.path.join(out, "cudnn_api_check.json"), "w") as f:
        json.dump(results, f, indent=1)
    try:
        summarize_log(log)
    except Exception as e:  # the results above stand
        print("plan log summary failed: %s" % e)
    print("cudnn api check: %s" % ("all ok" if bad == 0 else "%d not ok" % bad))
    if args.time and args.resnet:
        print("\nResNet-50 (compiled):\n| case | legacy ms | backend ms | backend / legacy |")
        print("| --- | --- | --- | --- |")
        for r in results:
            if r.get("legacy_ms"):
                print("| resnet50 b%d %s %s | %.2f | %.2f | %.2f |" % (
                    r["batch"], r["variant"], r["mode"], r["legacy_ms"], r["backend_ms"],
                    r["backend_ms"] / r["legacy_ms"]))
    return 1 if bad else 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("make")
    a.add_argument("dir")
    a.add_argument("--runtime", required=True, help="folder with libonyx_runtime.so to link the harness")
    a.add_argument("--resnet", help="folder with bench/gpu_bench.py export's resnet50.onnx")
    b = sub.add_parser("run")
    b.add_argument("dir")
    b.add_argument("--no-checks", action="store_true", help="skip the harness checks")
    b.add_argument("--check-budget", type=float, default=240)
    b.add_argument("--time-budget", type=float, default=240)
    b.add_argument("--time-variants", default="fp32,tf32,fp16,fp16cl,bf16cl",
                   help="harness variants timed with --time ('': none, e.g. to time --resnet alone)")
    b.add_argument("--verbose", action="store_true")
    b.add_argument("--apis", default="backend",
                   help="ONYX_CUDNN_API values checked against legacy (backend, backend-unfused)")
    b.add_argument("--chains", default="fused,acc",
                   help="timing: ResNet-50 convolutions with fused epilogues, and/or with 20 accumulating")
    b.add_argument("--resnet-shapes", action="store_true",
                   help="also check ResNet-50's convolutions at --batches")
    b.add_argument("--resnet", action="store_true")
    b.add_argument("--resnet-variants", default="",
                   help="--resnet: these variants only (e.g. tf32,tf32cl); default all")
    b.add_argument("--time", action="store_true")
    b.add_argument("--batches", type=lambda s: [int(v) for v in s.split(",")], default=[1, 32])
    b.add_argument("--runs", type=int, default=30)
    b.add_argument("--budget", type=float, default=400, help="seconds after which no ResNet run starts")
    b.add_argument("--out")
    args = p.parse_args()
    sys.exit({"make": cmd_make, "run": cmd_run}[args.cmd](args))


if __name__ == "__main__":
    main()
