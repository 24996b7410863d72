#!/usr/bin/env python3
"""fp16 / bf16 GEMMs and convolutions on the GPU (cuBLASLt / cuDNN), checked
against PyTorch in the same precision, and a BERT-like fp16 encoder timed
against PyTorch eager and torch.compile.

    # here: write the models and compile them for cuda (no weights for BERT)
    /usr/bin/python3 scripts/gpu/half_precision_check.py make DIR [--layers 12]
    cp build/lib/libonyx_runtime.so DIR/
    # there (GPU machine, DIR carried): lay out BERT's weights from the seed,
    # check every case, time BERT
    bash scripts/gpu/device_python.sh DIR python3 scripts/gpu/half_precision_check.py run DIR

    # fp32 exports run in half precision (onyx-compile --precision=fp16|bf16):
    # here, the graphs of bench/gpu_bench.py (export) compiled twice each
    /usr/bin/python3 scripts/gpu/half_precision_check.py make-precision DIR --graphs GRAPHS
    # there: weights re-created from the seeds, PyTorch .half()/.bfloat16()
    # eager and torch.compile against Onyx, errors against the fp32 output
    bash scripts/gpu/device_python.sh DIR python3 scripts/gpu/half_precision_check.py run-precision DIR

Accuracy: for each case, the relative L2 error of Onyx and of PyTorch (same
precision, on the GPU) against an fp64 reference (PyTorch on the GPU in
fp64, or fp32 for BERT) on the same inputs and weights; a case passes when
Onyx's error is at most 1.5x PyTorch's (plus 1e-3 for the tiny cases).
Timing (BERT): median of --runs (30) after 5 warm-up calls, device-resident
inputs on both sides (Onyx through IO binding, outputs left on the device),
CUDA events around each call; Onyx's wall time per call too.

Onyx runs through the `onyx` package (docs/python.md), which
scripts/gpu/device_python.sh builds on the GPU machine against DIR's
libonyx_runtime.so.
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
F16, BF16, F32 = 10, 16, 1
HID, HEADS, FFN = 768, 12, 3072


def bf16_bits(a):
    """float32 array -> bf16 bit patterns (round to nearest even)."""
    u = np.ascontiguousarray(a, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bits_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def small_cases():
    """name: (elem code, nodes, inputs [(name, shape)], weights {name: array},
    run-time input shapes, torch reference builder)."""
    rng = np.random.default_rng(0)

    def w(*shape, scale=0.1):
        return (rng.standard_normal(shape) * scale).astype(np.float32)
    cases = {}
    for code, tag in ((F16, "f16"), (BF16, "bf16")):
        cases["matmul_bias_" + tag] = (
            code, [("MatMul", ["x", "W"], ["t"], {}), ("Add", ["t", "B"], ["y"], {})],
            [("x", ["b", "s", 256])], {"W": w(256, 384), "B": w(384)}, {"x": [4, 96, 256]},
            lambda T, F, i, p: i["x"] @ p["W"] + p["B"])
        cases["bmm_" + tag] = (
            code, [("MatMul", ["q", "k"], ["y"], {})],
            [("q", ["b", 12, "s", 64]), ("k", ["b", 12, 64, "t"])], {},
            {"q": [2, 12, 128, 64], "k": [2, 12, 64, 128]}, lambda T, F, i, p: i["q"] @ i["k"])
        cases["gemm_transb_bias_" + tag] = (
            code, [("Gemm", ["x", "W", "B"], ["y"], {"transB": 1})],
            [("x", ["n", 512])], {"W": w(320, 512), "B": w(320)}, {"x": [64, 512]},
            lambda T, F, i, p: i["x"] @ p["W"].T + p["B"])
        cases["conv_bias_relu_" + tag] = (
            code, [("Conv", ["x", "W", "B"], ["t"], {"pads": [1, 1, 1, 1], "strides": [2, 2]}),
                   ("Relu", ["t"], ["y"], {})],
            [("x", ["n", 32, "h", "w"])], {"W": w(64, 32, 3, 3), "B": w(64)}, {"x": [4, 32, 56, 56]},
            lambda T, F, i, p: F.relu(F.conv2d(i["x"], p["W"], p["B"], stride=2, padding=1)))
        cases["conv_residual_relu_" + tag] = (
            code, [("Conv", ["x", "W", "B"], ["t"], {}), ("Add", ["t", "r"], ["s"], {}),
                   ("Relu", ["s"], ["y"], {})],
            [("x", ["n", 64, "h", "w"]), ("r", ["n", 128, "h", "w"])], {"W": w(128, 64, 1, 1), "B": w(128)},
            {"x": [4, 64, 28, 28], "r": [4, 128, 28, 28]},
            lambda T, F, i, p: F.relu(F.conv2d(i["x"], p["W"], p["B"]) + i["r"]))
    # ResNet's block tail on an intermediate residual (a graph input has no
    # known sizes, so the residual fold needs one); after the others, which
    # keep their weights.
    for code, tag in ((F16, "f16"), (BF16, "bf16")):
        cases["conv_block_tail_" + tag] = (
            code, [("Conv", ["x", "W0", "B0"], ["r"], {}), ("Conv", ["r", "W", "B"], ["t"], {}),
                   ("Add", ["t", "r"], ["s"], {}), ("Relu", ["s"], ["y"], {})],
            [("x", ["n", 64, "h", "w"])],
            {"W0": w(64, 64, 1, 1), "B0": w(64), "W": w(64, 64, 1, 1), "B": w(64)}, {"x": [4, 64, 28, 28]},
            lambda T, F, i, p: (lambda r: F.relu(F.conv2d(r, p["W"], p["B"]) + r))(
                F.conv2d(i["x"], p["W0"], p["B0"])))
    return cases


def onnx_type(code):
    from onnx import TensorProto
    return {F16: TensorProto.FLOAT16, BF16: TensorProto.BFLOAT16, F32: TensorProto.FLOAT}[code]


def tensor(name, a, code):
    from onnx import helper, numpy_helper
    if code == F16:
        return numpy_helper.from_array(a.astype(np.float16), name)
    if code == F32:
        return numpy_helper.from_array(a.astype(np.float32), name)
    return helper.make_tensor(name, onnx_type(BF16), a.shape, bf16_bits(a).tobytes(), raw=True)


def small_model(code, nodes, inputs, weights):
    from onnx import helper
    g = helper.make_graph(
        [helper.make_node(op, i, o, name=o[0], **attrs) for op, i, o, attrs in nodes], "g",
        [helper.make_tensor_value_info(n, onnx_type(code), s) for n, s in inputs],
        [helper.make_tensor_value_info("y", onnx_type(code), None)],
        [tensor(k, v, code) for k, v in weights.items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def bert_weights(layers, seed=0):
    """name -> float32 array, BERT-style init (the same here and there)."""
    rng = np.random.default_rng(seed)
    out = {}
    for l in range(layers):
        p = "l%d_" % l
        for n, shape in (("q", (HID, HID)), ("k", (HID, HID)), ("v", (HID, HID)), ("o", (HID, HID)),
                         ("f1", (HID, FFN)), ("f2", (FFN, HID))):
            out[p + n + "_w"] = (rng.standard_normal(shape) * 0.02).astype(np.float32)
            out[p + n + "_b"] = (rng.standard_normal(shape[1]) * 0.02).astype(np.float32)
        for n in ("ln1", "ln2"):
            out[p + n + "_g"] = (1 + rng.standard_normal(HID) * 0.05).astype(np.float32)
            out[p + n + "_b"] = (rng.standard_normal(HID) * 0.05).astype(np.float32)
    return out


def bert_model(layers, code):
    """Post-LN BERT encoder layers on hidden states x [b, s, 768] (no
    embeddings): QKV/O projections, softmax attention, GELU(erf) FFN."""
    from onnx import helper
    N = helper.make_node
    nodes, inits = [], []
    T = onnx_type(code)

    def const(name, values, dt=None):
        inits.append(helper.make_tensor(name, dt if dt is not None else T, [len(values)] if len(values) > 1 else [],
                                        values))
        return name
    from onnx import TensorProto
    shp4 = const("shape4", [0, 0, HEADS, HID // HEADS], TensorProto.INT64)
    shp3 = const("shape3", [0, 0, HID], TensorProto.INT64)
    scale, half, one, rsq2 = const("scale", [0.125]), const("half", [0.5]), const("one", [1.0]), const("rsq2", [0.7071067811865476])
    x = "x"
    for l in range(layers):
        p = "l%d_" % l

        def lin(inp, n):
            nodes.append(N("MatMul", [inp, p + n + "_w"], [p + n + "_mm"], name=p + n))
            nodes.append(N("Add", [p + n + "_mm", p + n + "_b"], [p + n + "_out"], name=p + n + "_bias"))
            return p + n + "_out"
        q, k, v = lin(x, "q"), lin(x, "k"), lin(x, "v")
        for t, perm in ((q, [0, 2, 1, 3]), (k, [0, 2, 3, 1]), (v, [0, 2, 1, 3])):
            nodes.append(N("Reshape", [t, shp4], [t + "_r"]))
            nodes.append(N("Transpose", [t + "_r"], [t + "_h"], perm=perm))
        nodes.append(N("MatMul", [q + "_h", k + "_h"], [p + "scores"], name=p + "scores"))
        nodes.append(N("Mul", [p + "scores", scale], [p + "scaled"]))
        nodes.append(N("Softmax", [p + "scaled"], [p + "probs"], axis=-1))
        nodes.append(N("MatMul", [p + "probs", v + "_h"], [p + "ctx"], name=p + "ctx"))
        nodes.append(N("Transpose", [p + "ctx"], [p + "ctx_t"], perm=[0, 2, 1, 3]))
        nodes.append(N("Reshape", [p + "ctx_t", shp3], [p + "ctx_m"]))
        a = lin(p + "ctx_m", "o")
        nodes.append(N("Add", [x, a], [p + "res1"]))
        nodes.append(N("LayerNormalization", [p + "res1", p + "ln1_g", p + "ln1_b"], [p + "h"], axis=-1, epsilon=1e-12))
        f = lin(p + "h", "f1")
        nodes.append(N("Mul", [f, rsq2], [p + "g0"]))
        nodes.append(N("Erf", [p + "g0"], [p + "g1"]))
        nodes.append(N("Add", [p + "g1", one], [p + "g2"]))
        nodes.append(N("Mul", [f, p + "g2"], [p + "g3"]))
        nodes.append(N("Mul", [p + "g3", half], [p + "gelu"]))
        o = lin(p + "gelu", "f2")
        nodes.append(N("Add", [p + "h", o], [p + "res2"]))
        x = "y" if l == layers - 1 else p + "out"
        nodes.append(N("LayerNormalization", [p + "res2", p + "ln2_g", p + "ln2_b"], [x], axis=-1, epsilon=1e-12))
    # Weights: external data, zeros here (only the layout matters: the
    # graph is compiled without the data file; `run` writes the real one).
    for l in range(layers):
        p = "l%d_" % l
        for n, shape in (("q", (HID, HID)), ("k", (HID, HID)), ("v", (HID, HID)), ("o", (HID, HID)),
                         ("f1", (HID, FFN)), ("f2", (FFN, HID))):
            inits.append(tensor(p + n + "_w", np.zeros(shape, np.float32), code))
            inits.append(tensor(p + n + "_b", np.zeros(shape[1], np.float32), code))
        for n in ("ln1", "ln2"):
            inits.append(tensor(p + n + "_g", np.zeros(HID, np.float32), code))
            inits.append(tensor(p + n + "_b", np.zeros(HID, np.float32), code))
    g = helper.make_graph(nodes, "bert", [helper.make_tensor_value_info("x", T, ["b", "s", HID])],
                          [helper.make_tensor_value_info("y", T, None)], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def compile_(path, out, extra=()):
    t0 = time.time()
    subprocess.run([os.path.join(REPO, "build", "bin", "onyx-compile"), "--target=cuda", path, "-o", out,
                    *extra], check=True)
    print("compiled %s (%.0f s)" % (os.path.basename(out), time.time() - t0), flush=True)


def cmd_make(args):
    import onnx
    os.makedirs(args.dir, exist_ok=True)
    for name, (code, nodes, inputs, weights, _, _) in small_cases().items():
        path = os.path.join(args.dir, name + ".onnx")
        onnx.save(small_model(code, nodes, inputs, weights), path)
        compile_(path, os.path.join(args.dir, name + ".so"))
    for code, tag, prec in ((F16, "f16", "fp32"), (F32, "f32", "fp32"), (F32, "f32", "tf32")):
        if tag == "f32" and not args.fp32:
            continue
        name = "bert_%s" % tag
        path = os.path.join(args.dir, name + ".onnx")
        if not os.path.exists(path):
            m = bert_model(args.layers, code)
            onnx.save(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                      location=name + ".onnx.data", size_threshold=1024)
        data = path + ".data"
        # Compiled without the data file: no checksums, `run` writes it.
        if os.path.exists(data):
            os.remove(data)
        so = os.path.join(args.dir, "%s_%s.so" % (name, prec))
        compile_(path, so, ["--external-weights", "--precision=" + prec])


# ---------------------------------------------------------------------------
# On the GPU machine


class Artifact:
    """An artifact run through onyx.InferenceSession (docs/python.md)."""

    def __init__(self, path):
        import onyx
        self.session = onyx.InferenceSession(path)
        self.names = [i.name for i in self.session.get_inputs()]

    def host_list(self, arrays, code):
        """Feeds of host arrays (f16 as float16, bf16 as its uint16 bits)."""
        return dict(zip(self.names, [np.ascontiguousarray(a) for a in arrays]))

    def device_list(self, tensors, code):
        """Feeds of CUDA torch tensors, read in place (DLPack)."""
        return dict(zip(self.names, tensors))

    def call(self, feeds, code, read=True, device_outputs=False):
        """The first output as float32 (read), else None; with
        device_outputs the outputs stay on the device (IO binding)."""
        outs = self.session.run(None, feeds, device_outputs=device_outputs)
        if not read:
            return None
        raw = np.asarray(outs[0])
        return bits_to_f32(raw) if code == BF16 else raw.astype(np.float32)


def rel(a, ref):
    a, ref = np.asarray(a, np.float64), np.asarray(ref, np.float64)
    return float(np.linalg.norm(a - ref) / max(np.linalg.norm(ref), 1e-30))


def quantize(a, code):
    """The values a half-precision tensor holds, as float32."""
    return bits_to_f32(bf16_bits(a)) if code == BF16 else (a.astype(np.float16).astype(np.float32) if code == F16 else a)


def cmd_run(args):
    import torch
    import torch.nn.functional as F
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    tdt = {F16: torch.float16, BF16: torch.bfloat16, F32: torch.float32}
    results, bad = [], 0
    for name, (code, _, inputs, weights, shapes, ref_fn) in small_cases().items():
        rng = np.random.default_rng(1)
        ins = {n: quantize(rng.standard_normal(shapes[n]).astype(np.float32), code) for n, _ in inputs}
        ws = {k: quantize(v, code) for k, v in weights.items()}
        r = {"case": name}
        with torch.no_grad():
            ref = ref_fn(torch, F, {k: torch.from_numpy(v).double().to(dev) for k, v in ins.items()},
                         {k: torch.from_numpy(v).double().to(dev) for k, v in ws.items()}).cpu().numpy()
            tq = ref_fn(torch, F, {k: torch.from_numpy(v).to(dev, tdt[code]) for k, v in ins.items()},
                        {k: torch.from_numpy(v).to(dev, tdt[code]) for k, v in ws.items()}).float().cpu().numpy()
        r["torch_err"] = rel(tq, ref)
        try:
            art = Artifact(os.path.join(args.dir, name + ".so"))
            arrays = [ins[n] if code == F16 else bf16_bits(ins[n]) for n, _ in inputs]
            if code == F16:
                arrays = [a.astype(np.float16) for a in arrays]
            got = art.call(art.host_list(arrays, code), code)
            r["onyx_err"] = rel(got, ref)
            r["ok"] = r["onyx_err"] <= 1.5 * r["torch_err"] + 1e-3
        except Exception as e:
            r["error"], r["ok"] = str(e)[:300], False
        bad += not r["ok"]
        results.append(r)
        print(json.dumps(r), flush=True)
    print("small cases: %s" % ("all ok" if bad == 0 else "%d not ok" % bad), flush=True)
    if args.bert:
        results += run_bert(args, torch, dev)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


def write_bert_data(art_dir, tag, layers, code):
    import onnx
    m = onnx.load(os.path.join(art_dir, "bert_%s.onnx" % tag), load_external_data=False)
    ws = bert_weights(layers)
    path = os.path.join(art_dir, "bert_%s.onnx.data" % tag)
    with open(path, "wb") as f:
        for t in m.graph.initializer:
            info = {e.key: e.value for e in t.external_data}
            if "location" not in info:
                continue
            a = quantize(ws[t.name], code)
            raw = (bf16_bits(a) if code == BF16 else a.astype(np.float16 if code == F16 else np.float32)).tobytes()
            assert len(raw) == int(info["length"]), t.name
            f.seek(int(info.get("offset", 0)))
            f.write(raw)
    return {k: quantize(v, code) for k, v in ws.items()}


def torch_bert(torch, F, layers, p):
    def fwd(x):
        b, s, _ = x.shape
        for l in range(layers):
            P = lambda n: p["l%d_%s" % (l, n)]
            lin = lambda t, n: t @ P(n + "_w") + P(n + "_b")
            q = lin(x, "q").view(b, s, HEADS, 64).transpose(1, 2)
            k = lin(x, "k").view(b, s, HEADS, 64).permute(0, 2, 3, 1)
            v = lin(x, "v").view(b, s, HEADS, 64).transpose(1, 2)
            probs = torch.softmax((q @ k) * 0.125, dim=-1)
            ctx = (probs @ v).transpose(1, 2).reshape(b, s, HID)
            h = F.layer_norm(x + lin(ctx, "o"), (HID,), P("ln1_g"), P("ln1_b"), 1e-12)
            f = lin(h, "f1")
            g = f * (1 + torch.erf(f * 0.7071067811865476)) * 0.5
            x = F.layer_norm(h + lin(g, "f2"), (HID,), P("ln2_g"), P("ln2_b"), 1e-12)
        return x
    return fwd


def events_ms(torch, fn, runs):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    ts, walls = [], []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t0 = time.perf_counter()
        s.record()
        fn()
        e.record()
        e.synchronize()
        walls.append((time.perf_counter() - t0) * 1e3)
        ts.append(s.elapsed_time(e))
    return statistics.median(ts), statistics.median(walls)


def run_bert(args, torch, dev):
    import torch.nn.functional as F
    out = []
    for tag, code in (("f16", F16), ("f32", F32)):
        if not os.path.exists(os.path.join(args.dir, "bert_%s.onnx" % tag)):
            continue
        t0 = time.time()
        ws = write_bert_data(args.dir, tag, args.layers, code)
        tdt = torch.float16 if code == F16 else torch.float32
        p = {k: torch.from_numpy(v).to(dev, tdt) for k, v in ws.items()}
        p64 = {k: torch.from_numpy(v).to(dev, torch.float32) for k, v in ws.items()}
        model, ref_model = torch_bert(torch, F, args.layers, p), torch_bert(torch, F, args.layers, p64)
        print("bert %s weights ready (%.1f s)" % (tag, time.time() - t0), flush=True)
        for b, s in args.bert_cases:
            rng = np.random.default_rng(7)
            x = quantize(rng.standard_normal((b, s, HID)).astype(np.float32), code)
            xd = torch.from_numpy(x).to(dev, tdt)
            r = {"case": "bert%d_%s b%d s%d" % (args.layers, tag, b, s)}
            with torch.no_grad():
                ref = ref_model(xd.float()).double().cpu().numpy()  # fp32, no TF32
                y = model(xd)
                r["torch_err_vs_fp32"] = rel(y.float().cpu().numpy(), ref)
                r["eager_ms"], _ = events_ms(torch, lambda: model(xd), args.runs)
                if args.compile and code == F16:
                    try:
                        import torch._dynamo
                        torch._dynamo.reset()
                        t1 = time.time()
                        cm = torch.compile(model, dynamic=False)
                        cm(xd)
                        torch.cuda.synchronize()
                        r["compile_s"] = time.time() - t1
                        r["compile_ms"], _ = events_ms(torch, lambda: cm(xd), args.runs)
                        r["compile_err_vs_fp32"] = rel(cm(xd).float().cpu().numpy(), ref)
                    except Exception as e:
                        r["compile_error"] = str(e).splitlines()[0][:200]
            precs = ["fp32"] if code == F16 else ["fp32", "tf32"]
            for prec in precs:
                key = "onyx" if prec == "fp32" else "onyx_tf32"
                try:
                    t1 = time.time()
                    art = Artifact(os.path.join(args.dir, "bert_%s_%s.so" % (tag, prec)))
                    r[key + "_create_s"] = time.time() - t1
                    lst = art.device_list([xd], code)
                    got = art.call(lst, code)
                    r[key + "_err_vs_fp32"] = rel(got, ref)
                    r[key + "_ms"], r[key + "_wall_ms"] = events_ms(
                        torch, lambda: art.call(lst, code, read=False, device_outputs=True), args.runs)
                    art = None  # the session goes
                except Exception as e:
                    r[key + "_error"] = str(e)[:300]
            print(json.dumps(r), flush=True)
            out.append(r)
        del p, p64
        torch.cuda.empty_cache()
    return out


# ---------------------------------------------------------------------------
# fp32 exports compiled with --precision=fp16|bf16 (onnx-convert-precision)

PREC_CASES = ["bert-b8-s128", "gpt2-b1-s512", "resnet50-b32"]
PREC_DTYPES = {"fp16": "float16", "bf16": "bfloat16"}


def cmd_make_precision(args):
    """Here: each fp32 graph of bench/gpu_bench.py (GRAPHS/MODEL.onnx, the
    weights left out) compiled for cuda with --external-weights and
    --precision=fp16 and bf16 into DIR/MODEL_PREC.so."""
    import shutil
    import tempfile
    os.makedirs(args.dir, exist_ok=True)
    for model in args.models.split(","):
        src = os.path.join(args.graphs, model + ".onnx")
        shutil.copy(src, os.path.join(args.dir, model + ".onnx"))
        with tempfile.TemporaryDirectory() as tmp:  # no data file: no checksums
            shutil.copy(src, os.path.join(tmp, model + ".onnx"))
            for prec in PREC_DTYPES:
                compile_(os.path.join(tmp, model + ".onnx"), os.path.join(args.dir, "%s_%s.so" % (model, prec)),
                         ["--external-weights", "--precision=" + prec])


def cmd_run_precision(args):
    """There: each model of bench/gpu_bench.py re-created from its seed,
    its weights laid out for the compiled graph (gpu_bench.align_weights);
    the fp32 eager output (TF32 off) is the reference; per precision,
    PyTorch eager and torch.compile on the model converted with .half() /
    .bfloat16() and Onyx's fp32-graph artifact compiled with --precision:
    relative L2 error against the fp32 reference and CUDA-event medians on
    device-resident inputs (Onyx through IO binding)."""
    import copy
    import tempfile
    import torch
    sys.path.insert(0, os.path.join(REPO, "bench"))
    import gpu_bench as gb
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    start = time.time()
    results = []
    out = open(args.json, "w") if args.json else None
    for cid in args.cases.split(","):
        case = gb.parse_case(cid)
        model = case["model"]
        t0 = time.time()
        tmp = tempfile.mkdtemp()
        fp32, exported = gb.export(model, tmp)
        note = gb.align_weights(os.path.join(args.dir, model + ".onnx"), exported,
                                os.path.join(args.dir, model + ".onnx.data"))
        fp32 = fp32.to(dev).eval()
        xs = [torch.from_numpy(a).to(dev) for a in gb.make_inputs(case)]
        with torch.no_grad():
            ref = fp32(*xs).float().cpu().numpy()
        print("%s: exported and laid out in %.1f s (%s)" % (cid, time.time() - t0, note), flush=True)
        for prec, dtname in PREC_DTYPES.items():
            dt = getattr(torch, dtname)
            r = {"case": cid, "precision": prec}
            m = copy.deepcopy(fp32).to(dt)
            hx = [x.to(dt) if x.is_floating_point() else x for x in xs]
            with torch.no_grad():
                r["torch_err"] = rel(m(*hx).float().cpu().numpy(), ref)
                r["eager_ms"], _ = events_ms(torch, lambda: m(*hx), args.runs)
                if args.compile and time.time() - start < args.compile_budget:
                    try:
                        import torch._dynamo
                        torch._dynamo.reset()
                        t1 = time.time()
                        cm = torch.compile(m, dynamic=False)
                        cm(*hx)
                        torch.cuda.synchronize()
                        r["compile_s"] = round(time.time() - t1, 1)
                        r["compile_ms"], _ = events_ms(torch, lambda: cm(*hx), args.runs)
                        r["compile_err"] = rel(cm(*hx).float().cpu().numpy(), ref)
                    except Exception as e:
                        r["compile_error"] = str(e).splitlines()[0][:200]
                elif args.compile:
                    r["compile_skipped"] = "budget"
            try:
                t1 = time.time()
                art = Artifact(os.path.join(args.dir, "%s_%s.so" % (model, prec)))
                r["onyx_create_s"] = round(time.time() - t1, 1)
                # The graph's own input types (int64 ids, f32 images), read
                # in place on the device.
                lst = art.device_list(xs, F32)
                got = art.call(lst, F32)
                r["onyx_err"] = rel(got, ref)
                r["onyx_ms"], r["onyx_wall_ms"] = events_ms(
                    torch, lambda: art.call(lst, F32, read=False, device_outputs=True), args.runs)
                art = None  # the session goes
                r["accuracy_ok"] = r["onyx_err"] <= 1.5 * r["torch_err"]
            except Exception as e:
                r["onyx_error"] = str(e)[:300]
            del m
            torch.cuda.empty_cache()
            print(json.dumps(r), flush=True)
            results.append(r)
            if out:
                out.write(json.dumps(r) + "\n")
                out.flush()
        del fp32
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("make")
    a.add_argument("dir")
    a.add_argument("--layers", type=int, default=12)
    a.add_argument("--fp32", action="store_true", help="also BERT in fp32 (compiled fp32 and tf32)")
    b = sub.add_parser("run")
    b.add_argument("dir")
    b.add_argument("--layers", type=int, default=12)
    b.add_argument("--runs", type=int, default=30)
    b.add_argument("--no-compile", dest="compile", action="store_false")
    b.add_argument("--no-bert", dest="bert", action="store_false", help="the small cases only")
    b.add_argument("--json")
    b.add_argument("--bert-cases", type=lambda t: [tuple(map(int, c.split("x"))) for c in t.split(",")],
                   default=[(1, 128), (32, 128)])
    c = sub.add_parser("make-precision", help="fp32 bench graphs compiled with --precision=fp16/bf16")
    c.add_argument("dir")
    c.add_argument("--graphs", required=True, help="bench/gpu_bench.py's exported graphs")
    c.add_argument("--models", default="bert,gpt2,resnet50")
    d = sub.add_parser("run-precision")
    d.add_argument("dir")
    d.add_argument("--cases", default=",".join(PREC_CASES))
    d.add_argument("--runs", type=int, default=30)
    d.add_argument("--no-compile", dest="compile", action="store_false")
    d.add_argument("--compile-budget", type=float, default=150,
                   help="seconds since the start after which torch.compile is skipped")
    d.add_argument("--json")
    args = ap.parse_args()
    {"make": cmd_make, "run": cmd_run, "make-precision": cmd_make_precision,
     "run-precision": cmd_run_precision}[args.cmd](args)


if __name__ == "__main__":
    main()
