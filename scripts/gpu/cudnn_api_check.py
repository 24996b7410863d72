#!/usr/bin/env python3
"""cuDNN's backend (graph) API against its legacy API in onyxrt_cuda_conv.

    # here: convolution models, each compiled in six precisions/layouts, and
    # (optional) ResNet-50 graphs of bench/gpu_bench.py export
    ONYX_COMPILE=.../onyx-compile /usr/bin/python3 scripts/gpu/cudnn_api_check.py \\
        make DIR [--resnet GRAPHS]
    # there (GPU machine; `onyx` package built against the carried runtime)
    python3 scripts/gpu/cudnn_api_check.py run DIR [--resnet] [--time] --out $OUT

`run` opens every artifact twice, with ONYX_CUDNN_API=legacy and =backend
(the variable is read when a session's first convolution runs), feeds both
the same random inputs at two batch sizes, and checks
  - fp32: backend vs legacy within 1e-5 (relative L2), both vs ONNX Runtime
    within 1e-4 (no TF32);
  - tf32: backend vs ONNX Runtime within 2e-3;
  - fp16 / bf16 (NCHW, and NHWC with --cuda-channels-last): backend's error
    vs ONNX Runtime at most 1.5x legacy's plus 2e-4 (fp16) / 2e-3 (bf16).
ONYX_CUDNN_LOG collects the plan lines (path, engine, build time) in
OUT/cudnn_plans.log; the summary counts how many plans took each path.
With --resnet, ResNet-50 (weights re-created from gpu_bench's seed) at b1
and b32: backend vs legacy outputs (same rules against the fp32 PyTorch
model), and with --time the median of --runs calls (CUDA events, IO
binding, device-resident inputs) without and with CUDA graphs.
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
    "tf32": (["--precision=tf32"], "tf32"),
    "fp16": (["--precision=fp16"], "fp16"),
    "bf16": (["--precision=bf16"], "bf16"),
    "fp16cl": (["--precision=fp16", "--cuda-channels-last"], "fp16"),
    "bf16cl": (["--precision=bf16", "--cuda-channels-last"], "bf16"),
}
RESNET_VARIANTS = ["fp32", "tf32", "fp16", "fp16cl", "bf16cl"]


def models():
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    F = TensorProto.FLOAT

    def w(name, shape):
        fan_in = int(np.prod(shape[1:]))
        a = rng.standard_normal(shape) / np.sqrt(fan_in)
        return numpy_helper.from_array(a.astype(np.float32), name)

    def model(nodes, inputs, inits):
        g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, F, s) for n, s in inputs],
                              [helper.make_tensor_value_info("y", F, None)], inits)
        return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])

    N = helper.make_node

    def conv(name, c, m, spatial, kernel, relu=False, bias=True, **attrs):
        ins = ["x", "W"] + (["B"] if bias else [])
        nodes = [N("Conv", ins, ["t" if relu else "y"], name=name, **attrs)]
        if relu:
            nodes.append(N("Relu", ["t"], ["y"], name=name + "_relu"))
        inits = [w("W", (m, c // attrs.get("group", 1)) + tuple(kernel))]
        if bias:
            inits.append(w("B", (m,)))
        return model(nodes, [("x", ["n", c] + list(spatial))], inits)

    out = {
        "c3x3_bias_relu": conv("c3", 16, 32, (14, 14), (3, 3), relu=True, pads=[1, 1, 1, 1]),
        "c3x3_s2_bias": conv("c3s2", 24, 40, (15, 15), (3, 3), strides=[2, 2], pads=[1, 1, 1, 1]),
        "c1x1_nobias": conv("c1", 64, 128, (7, 7), (1, 1), bias=False),
        "stem7x7_s2_relu": conv("stem", 3, 16, (32, 32), (7, 7), relu=True, strides=[2, 2],
                                pads=[3, 3, 3, 3]),
        "grouped_dilated": conv("gd", 8, 12, (12, 12), (3, 3), bias=False, group=4,
                                dilations=[2, 2], pads=[2, 2, 2, 2]),
        "grouped8_bias_relu": conv("g8", 64, 64, (10, 10), (3, 3), relu=True, group=8,
                                   pads=[1, 1, 1, 1]),
        "depthwise_bias_relu": conv("dw", 32, 32, (12, 12), (3, 3), relu=True, group=32,
                                    pads=[1, 1, 1, 1]),
        "odd_channels": conv("odd", 5, 7, (9, 11), (3, 3), relu=True, pads=[1, 1, 1, 1]),
        "conv1d_s3": conv("c1d", 4, 6, (50,), (5,), strides=[3]),
        "conv3d_relu": conv("c3d", 4, 8, (6, 8, 8), (3, 3, 3), relu=True, pads=[1] * 6),
    }
    # conv + bias, residual Add, Relu (ResNet's block tail; fused where the
    # compiler recognizes it).
    out["residual_relu"] = model(
        [N("Conv", ["x", "W", "B"], ["t"], name="cr", pads=[1, 1, 1, 1]),
         N("Add", ["t", "r"], ["s"], name="add"), N("Relu", ["s"], ["y"], name="relu")],
        [("x", ["n", 16, 8, 8]), ("r", ["n", 16, 8, 8])], [w("W", (16, 16, 3, 3)), w("B", (16,))])
    return out


def compiler():
    return os.environ.get("ONYX_COMPILE", os.path.join(REPO, "build", "bin", "onyx-compile"))


def cmd_make(args):
    import onnx
    os.makedirs(args.dir, exist_ok=True)
    for name, m in models().items():
        path = os.path.join(args.dir, name + ".onnx")
        onnx.save(m, path)
        for v, (flags, _) in VARIANTS.items():
            so = os.path.join(args.dir, "%s_%s.so" % (name, v))
            subprocess.run([compiler(), "--target=cuda"] + flags + [path, "-o", so], check=True)
        print("compiled", name, flush=True)
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


def rel(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))


def judge(kind, e_backend, e_legacy, d):
    """e_*: errors against the fp32 reference; d: backend vs legacy."""
    if not np.isfinite(e_backend) or not np.isfinite(d):
        return False
    if kind == "fp32":
        return d <= 1e-5 and e_backend <= 1e-4
    if kind == "tf32":
        return e_backend <= 2e-3
    slack = 2e-4 if kind == "fp16" else 2e-3
    return e_backend <= 1.5 * e_legacy + slack


def session(path, api, log, **options):
    import onyx
    os.environ["ONYX_CUDNN_API"] = api
    with open(log, "a") as f:
        f.write("# %s %s %s\n" % (os.path.basename(path), api, options or ""))
    return onyx.InferenceSession(path, **options)


def run_convs(args, log, results):
    import onnx
    import onnxruntime as ort
    bad = 0
    for name in models():
        path = os.path.join(args.dir, name + ".onnx")
        m = onnx.load(path)
        ref_sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        feeds_by_n = {}
        for n in (1, 3):
            rng = np.random.default_rng(100 + n)
            feeds = {}
            for inp in m.graph.input:
                shape = [d.dim_value if d.dim_param == "" else n
                         for d in inp.type.tensor_type.shape.dim]
                feeds[inp.name] = rng.standard_normal(shape).astype(np.float32)
            feeds_by_n[n] = (feeds, ref_sess.run(None, feeds)[0])
        for v, (_, kind) in VARIANTS.items():
            so = os.path.join(args.dir, "%s_%s.so" % (name, v))
            r = {"model": name, "variant": v}
            try:
                sess = {api: session(so, api, log) for api in ("legacy", "backend")}
                worst = None
                for n, (feeds, ref) in feeds_by_n.items():
                    outs = {api: np.asarray(s.run(None, feeds)[0], np.float32)
                            for api, s in sess.items()}
                    e_l, e_b = rel(outs["legacy"], ref), rel(outs["backend"], ref)
                    d = rel(outs["backend"], outs["legacy"])
                    ok = judge(kind, e_b, e_l, d)
                    if worst is None or not ok or d > worst[2]:
                        worst = (e_l, e_b, d, ok, n)
                    r.setdefault("ok", True)
                    r["ok"] = r["ok"] and ok
                r.update(err_legacy=worst[0], err_backend=worst[1], diff=worst[2])
            except Exception as e:  # reported, the check goes on
                r["ok"] = False
                r["error"] = str(e)[:300]
            bad += not r["ok"]
            results.append(r)
            print("%-22s %-7s %s" % (name, v, "ERROR " + r["error"] if "error" in r else
                                     "err legacy %.2e backend %.2e, backend vs legacy %.2e %s" % (
                                         r["err_legacy"], r["err_backend"], r["diff"],
                                         "ok" if r["ok"] else "WRONG")), flush=True)
    return bad


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
    for v in RESNET_VARIANTS:
        so = os.path.join(art, "resnet50_%s.so" % v)
        kind = VARIANTS[v][1]
        modes = [("", {})] + ([("graphs", {"enable_cuda_graph": True})] if args.time else [])
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
                    del s
            except Exception as e:
                print("resnet50 %s %s: ERROR %s" % (v, mode, str(e)[:300]), flush=True)
                results.append({"model": "resnet50", "variant": v, "mode": mode, "ok": False,
                                "error": str(e)[:300]})
                bad += 1
                continue
            for b, (_, ref) in cases.items():
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
    if not args.no_convs:
        bad += run_convs(args, log, results)
    if args.resnet:
        bad += run_resnet(args, log, results)
    with open(os.path.join(out, "cudnn_api_check.json"), "w") as f:
        json.dump(results, f, indent=1)
    summarize_log(log)
    print("cudnn api check: %s" % ("all ok" if bad == 0 else "%d not ok" % bad))
    if args.time:
        print("\n| case | legacy ms | backend ms | backend / legacy |")
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
    a.add_argument("--resnet", help="folder with bench/gpu_bench.py export's resnet50.onnx")
    b = sub.add_parser("run")
    b.add_argument("dir")
    b.add_argument("--no-convs", action="store_true")
    b.add_argument("--resnet", action="store_true")
    b.add_argument("--time", action="store_true")
    b.add_argument("--batches", type=lambda s: [int(v) for v in s.split(",")], default=[1, 32])
    b.add_argument("--runs", type=int, default=30)
    b.add_argument("--budget", type=float, default=400, help="seconds after which no ResNet run starts")
    b.add_argument("--out")
    args = p.parse_args()
    sys.exit({"make": cmd_make, "run": cmd_run}[args.cmd](args))


if __name__ == "__main__":
    main()
