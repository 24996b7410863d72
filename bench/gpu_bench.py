#!/usr/bin/env python3
"""Onyx (CUDA target) against PyTorch eager on BERT-base and ResNet-50.

Issue 8's first speed bar: fp32 without TF32, BERT-base batch 1 seq 128 and
ResNet-50 batch 32 on the lent H200. MLIR is not on the GPU machine and the
weights are too big for the device tool's transfers, so the flow is:

  # 1. there (device call a): export the graphs, bring back only the .onnx
  python3 bench/gpu_bench.py export /tmp/g && mkdir -p $OUT/graphs && cp /tmp/g/*.onnx $OUT/graphs/
  # 2. here: compile against the graph (no weights here: no checksum)
  python3 bench/gpu_bench.py compile .dev/gpu/graphs .dev/gpu/art
  # 3. there (device call b, carry .dev/gpu): re-export with the same seeds
  #    (the weights file is byte-identical), time eager and Onyx, check
  python3 bench/gpu_bench.py run .dev/gpu/art --runtime .dev/gpu/libonyx_runtime.so

Models (built here and there from the same code and seeds, nothing
downloaded): a BERT-base encoder written out in torch (hidden 768, 12
layers, 12 heads, FFN 3072, GELU(erf), post-LayerNorm, word + position +
token-type embeddings; input_ids [batch, seq] int64, output the last hidden
state) and torchvision's ResNet-50 (eval mode, random BatchNorm statistics).
Both are exported by the TorchScript exporter (opset 17) with symbolic
batch/seq/height/width and every initializer in one external data file
(MODEL.onnx.data next to MODEL.onnx).

`run` times, per model, PyTorch eager fp32 on the GPU with TF32 off
(torch.backends.cuda.matmul.allow_tf32 = cudnn.allow_tf32 = False): the
model call on device-resident inputs (CUDA events), the same call from host
inputs to host outputs (what an Onyx call does), and the peak activation
memory; then Onyx: the median wall time of `inference_compute` (host inputs
to host outputs, synchronized) over >= 30 runs after warm-up, and the
relative error ||onyx - torch|| / ||torch|| against PyTorch's output. With
ONYX_CUDA_PROFILE a second session records per-kernel device time.
"""
import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
OPSET = 17
CASES = {"bert": {"batch": 1, "seq": 128}, "resnet50": {"batch": 32}}

# ---------------------------------------------------------------------------
# Models


def build_bert():
    import math
    import torch
    from torch import nn

    class Layer(nn.Module):
        def __init__(self, h, heads, ffn):
            super().__init__()
            self.heads, self.d = heads, h // heads
            self.q, self.k, self.v = nn.Linear(h, h), nn.Linear(h, h), nn.Linear(h, h)
            self.o = nn.Linear(h, h)
            self.ln1 = nn.LayerNorm(h, eps=1e-12)
            self.f1, self.f2 = nn.Linear(h, ffn), nn.Linear(ffn, h)
            self.ln2 = nn.LayerNorm(h, eps=1e-12)

        def split(self, x):
            b, s, _ = x.shape
            return x.view(b, s, self.heads, self.d).transpose(1, 2)

        def forward(self, x):
            b, s, h = x.shape
            q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
            scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.d)
            ctx = torch.matmul(torch.softmax(scores, dim=-1), v)
            ctx = ctx.transpose(1, 2).reshape(b, s, h)
            x = self.ln1(x + self.o(ctx))
            return self.ln2(x + self.f2(torch.nn.functional.gelu(self.f1(x))))

    class Bert(nn.Module):
        def __init__(self, vocab=30522, h=768, layers=12, heads=12, ffn=3072, maxpos=512):
            super().__init__()
            self.word = nn.Embedding(vocab, h)
            self.pos = nn.Embedding(maxpos, h)
            self.tok = nn.Embedding(2, h)
            self.ln = nn.LayerNorm(h, eps=1e-12)
            self.layers = nn.ModuleList(Layer(h, heads, ffn) for _ in range(layers))

        def forward(self, input_ids):
            s = input_ids.shape[1]
            pos = torch.arange(s, device=input_ids.device).unsqueeze(0)
            x = self.word(input_ids) + self.pos(pos) + self.tok.weight[0]
            x = self.ln(x)
            for layer in self.layers:
                x = layer(x)
            return x

    torch.manual_seed(0)
    m = Bert()
    # BERT's initializer range, so activations stay in a realistic range.
    with torch.no_grad():
        for p in m.parameters():
            if p.dim() > 1:
                p.normal_(0.0, 0.02)
    return m.eval()


def build_resnet50():
    import torch
    import torchvision
    torch.manual_seed(0)
    m = torchvision.models.resnet50()
    gen = torch.Generator().manual_seed(1)
    for mod in m.modules():
        if isinstance(mod, torch.nn.BatchNorm2d):
            n = mod.num_features
            with torch.no_grad():
                mod.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
                mod.running_var.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
                mod.weight.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
                mod.bias.copy_(torch.randn(n, generator=gen) * 0.1)
    return m.eval()


MODELS = {
    "bert": (build_bert, ["input_ids"], {"input_ids": {0: "batch", 1: "seq"}}),
    "resnet50": (build_resnet50, ["x"], {"x": {0: "batch", 2: "height", 3: "width"}}),
}


def make_inputs(name):
    rng = np.random.default_rng(1234)
    if name == "bert":
        c = CASES[name]
        return [rng.integers(0, 30522, size=(c["batch"], c["seq"]), dtype=np.int64)]
    return [rng.standard_normal((CASES[name]["batch"], 3, 224, 224)).astype(np.float32)]


# ---------------------------------------------------------------------------
# Export


def export(name, out_dir):
    import onnx
    import torch
    build, input_names, dyn = MODELS[name]
    model = build()
    os.makedirs(out_dir, exist_ok=True)
    args = tuple(torch.from_numpy(a) for a in make_inputs(name))
    tmp = os.path.join(out_dir, name + ".tmp.onnx")
    kwargs = dict(input_names=input_names, output_names=["y"],
                  dynamic_axes=dict(dyn, y={0: "batch"}), opset_version=OPSET,
                  do_constant_folding=True)
    with torch.no_grad():
        try:
            torch.onnx.export(model, args, tmp, dynamo=False, **kwargs)
        except TypeError:  # torch without the dynamo exporter
            torch.onnx.export(model, args, tmp, **kwargs)
    m = onnx.load(tmp)
    os.remove(tmp)
    path = os.path.join(out_dir, name + ".onnx")
    data = name + ".onnx.data"
    if os.path.exists(os.path.join(out_dir, data)):
        os.remove(os.path.join(out_dir, data))
    onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=data, size_threshold=1024)
    return model, path


# ---------------------------------------------------------------------------
# The Onyx runtime through ctypes

NP_TO_ONNX = {np.dtype(np.float32): 1, np.dtype(np.int64): 7, np.dtype(np.int32): 6}
ONNX_TO_NP = {v: k for k, v in NP_TO_ONNX.items()}


class OnyxMemoryStats(ctypes.Structure):
    """runtime/include/onyx/onyx_runtime.h, field for field."""
    _fields_ = [(n, ctypes.c_uint64) for n in (
        "tempBytesRequested", "tempPeakBytes", "tempAllocations", "outputBytes",
        "retainedBytes", "plannedTempBytes", "poolRequestedBytes", "maxLiveBytes",
        "numPools")]


class Onyx:
    def __init__(self, runtime, artifact):
        vp, i32, i64, sz = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64, ctypes.c_size_t
        self.rt = L = ctypes.CDLL(runtime, mode=ctypes.RTLD_GLOBAL)
        for fn, res, args in [
                ("onyx_tensor_create_copy", vp, [i32, i32, ctypes.POINTER(i64), vp]),
                ("onyx_tensor_list_create", vp, []),
                ("onyx_tensor_list_append", ctypes.c_int, [vp, vp]),
                ("onyx_tensor_list_size", sz, [vp]),
                ("onyx_tensor_list_get", vp, [vp, sz]),
                ("onyx_tensor_list_destroy", None, [vp]),
                ("onyx_tensor_element_type", i32, [vp]),
                ("onyx_tensor_rank", i32, [vp]),
                ("onyx_tensor_shape", ctypes.POINTER(i64), [vp]),
                ("onyx_tensor_byte_size", sz, [vp]),
                ("onyx_tensor_data", vp, [vp]),
                ("onyx_state_last_error", ctypes.c_char_p, [vp]),
                ("onyx_state_memory_stats", ctypes.c_int,
                 [vp, ctypes.POINTER(OnyxMemoryStats)]),
                ("onyxrt_state_create_error", ctypes.c_char_p, [])]:
            f = getattr(L, fn)
            f.restype, f.argtypes = res, args
        self.art = A = ctypes.CDLL(artifact)
        A.onyx_state_create.restype, A.onyx_state_create.argtypes = vp, []
        A.onyx_state_destroy.restype, A.onyx_state_destroy.argtypes = None, [vp]
        A.inference_compute.restype = vp
        A.inference_compute.argtypes = [vp, vp]
        t0 = time.perf_counter()
        self.state = A.onyx_state_create()
        self.create_s = time.perf_counter() - t0
        if not self.state:
            raise RuntimeError("onyx_state_create: " + (L.onyxrt_state_create_error() or b"").decode())

    def make_list(self, arrays):
        lst = self.rt.onyx_tensor_list_create()
        for a in arrays:
            a = np.require(a, requirements="C")
            shape = (ctypes.c_int64 * max(1, a.ndim))(*a.shape)
            t = self.rt.onyx_tensor_create_copy(NP_TO_ONNX[a.dtype], a.ndim, shape,
                                                a.ctypes.data_as(ctypes.c_void_p))
            self.rt.onyx_tensor_list_append(lst, t)
        return lst

    def call(self, lst, read=True):
        res = self.art.inference_compute(self.state, lst)
        if not res:
            raise RuntimeError((self.rt.onyx_state_last_error(self.state) or b"").decode())
        out = []
        if read:
            for k in range(self.rt.onyx_tensor_list_size(res)):
                t = self.rt.onyx_tensor_list_get(res, k)
                rank = self.rt.onyx_tensor_rank(t)
                shape = tuple(self.rt.onyx_tensor_shape(t)[i] for i in range(rank))
                buf = ctypes.string_at(self.rt.onyx_tensor_data(t), self.rt.onyx_tensor_byte_size(t))
                code = self.rt.onyx_tensor_element_type(t)
                out.append(np.frombuffer(buf, dtype=ONNX_TO_NP[code]).reshape(shape).copy())
        self.rt.onyx_tensor_list_destroy(res)
        return out

    def activation_bytes(self):
        """Device memory of the last call besides weights and inputs: the
        pools it requested, unplanned temporaries at their peak, and the
        outputs (what torch's peak above its baseline counts too)."""
        st = OnyxMemoryStats()
        if self.rt.onyx_state_memory_stats(self.state, ctypes.byref(st)) != 0:
            return None
        return st.poolRequestedBytes + st.tempPeakBytes + st.outputBytes

    def close(self):
        if self.state:
            self.art.onyx_state_destroy(self.state)
            self.state = None


def rel_err(a, ref):
    a, ref = np.asarray(a, np.float64), np.asarray(ref, np.float64)
    return float(np.linalg.norm(a - ref) / max(np.linalg.norm(ref), 1e-30))


# ---------------------------------------------------------------------------
# Commands


def cmd_export(args):
    for name in args.models.split(","):
        t0 = time.perf_counter()
        _, path = export(name, args.dir)
        print("exported %s -> %s (%.1f s, graph %.1f KiB)" % (
            name, path, time.perf_counter() - t0, os.path.getsize(path) / 1024))


def cmd_compile(args):
    compiler = os.path.join(REPO, "build", "bin", "onyx-compile")
    os.makedirs(args.art, exist_ok=True)
    for name in args.models.split(","):
        src = os.path.join(args.graphs, name + ".onnx")
        dst = os.path.join(args.art, name + ".so")
        cmd = [compiler, "--target=" + args.target, "--external-weights", src, "-o", dst]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True)
        print("compiled %s (%.1f s): %s" % (name, time.perf_counter() - t0, " ".join(cmd)))


def time_torch(model, inputs, runs, warmup):
    import torch
    dev = torch.device("cuda")
    model = model.to(dev)
    xs = [torch.from_numpy(a).to(dev) for a in inputs]
    with torch.no_grad():
        for _ in range(warmup):
            y = model(*xs)
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        times = []
        for _ in range(runs):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            y = model(*xs)
            e.record()
            e.synchronize()
            times.append(s.elapsed_time(e))
        peak = torch.cuda.max_memory_allocated() - base
        # Host inputs to host outputs, like an Onyx call.
        h2h = []
        for _ in range(runs):
            t0 = time.perf_counter()
            ys = model(*[torch.from_numpy(a).to(dev) for a in inputs]).cpu()
            h2h.append((time.perf_counter() - t0) * 1e3)
    return y.float().cpu().numpy(), statistics.median(times), statistics.median(h2h), peak


def cmd_run(args):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = False
    print("torch", torch.__version__, "cuDNN", torch.backends.cudnn.version(),
          "GPU", torch.cuda.get_device_name(0))
    results = {}
    for name in args.models.split(","):
        r = results[name] = {"case": CASES[name]}
        t0 = time.perf_counter()
        model, path = export(name, args.art)  # writes ART/NAME.onnx.data beside NAME.so
        r["export_s"] = time.perf_counter() - t0
        inputs = make_inputs(name)
        ref, r["torch_ms"], r["torch_h2h_ms"], r["torch_peak_bytes"] = time_torch(
            model, inputs, args.runs, args.warmup)
        del model
        torch.cuda.empty_cache()
        so = os.path.join(args.art, name + ".so")
        try:
            onyx = Onyx(args.runtime, so)
            r["onyx_create_s"] = onyx.create_s
            lst = onyx.make_list(inputs)
            t0 = time.perf_counter()
            out = onyx.call(lst)
            r["onyx_first_ms"] = (time.perf_counter() - t0) * 1e3
            r["rel_err"] = rel_err(out[0], ref)
            r["shape"] = list(out[0].shape)
            for _ in range(args.warmup):
                onyx.call(lst, read=False)
            times = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                onyx.call(lst, read=False)
                times.append((time.perf_counter() - t0) * 1e3)
            r["onyx_ms"] = statistics.median(times)
            r["onyx_activation_bytes"] = onyx.activation_bytes()
            r["onyx_ms_min"] = min(times)
            onyx.close()
        except Exception as e:  # keep the other model's numbers
            r["error"] = str(e)[:2000]
        print(json.dumps({name: r}), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    print("\n%-9s %-18s %9s %9s %9s %9s %10s %9s %9s" % (
        "model", "case", "torch ms", "t h2h ms", "onyx ms", "speedup", "rel err", "peak MiB",
        "onyx MiB"))
    for name, r in results.items():
        case = ",".join("%s=%s" % kv for kv in r["case"].items())
        if "error" in r:
            print("%-9s %-18s %9.3f %9.3f  ERROR %s" % (name, case, r["torch_ms"],
                                                       r["torch_h2h_ms"], r["error"][:300]))
            continue
        onyx_mib = (r["onyx_activation_bytes"] or 0) / 2**20
        print("%-9s %-18s %9.3f %9.3f %9.3f %8.2fx %10.2e %9.1f %9.1f" % (
            name, case, r["torch_ms"], r["torch_h2h_ms"], r["onyx_ms"],
            r["torch_h2h_ms"] / r["onyx_ms"], r["rel_err"], r["torch_peak_bytes"] / 2**20,
            onyx_mib))


def cmd_profile(args):
    """One Onyx session with ONYX_CUDA_PROFILE: device time per kernel."""
    for name in args.models.split(","):
        prof = os.path.join(args.out, name + "_profile.tsv")
        # Warm up in an unprofiled session first: the libraries' lazy kernel
        # loading must not land inside the timed events.
        os.environ.pop("ONYX_CUDA_PROFILE", None)
        warm = Onyx(args.runtime, os.path.join(args.art, name + ".so"))
        lst = warm.make_list(make_inputs(name))
        for _ in range(3):
            warm.call(lst, read=False)
        warm.close()
        os.environ["ONYX_CUDA_PROFILE"] = prof
        onyx = Onyx(args.runtime, os.path.join(args.art, name + ".so"))
        if os.path.exists(prof):
            os.remove(prof)
        lst = onyx.make_list(make_inputs(name))
        for _ in range(args.runs):
            onyx.call(lst, read=False)
        onyx.close()
        rows = [l.rstrip("\n").split("\t") for l in open(prof)]
        total = sum(float(r[2]) for r in rows) / args.runs
        print("%s: device time per call %.3f ms (%d distinct kernels); top:" % (name, total, len(rows)))
        for r in sorted(rows, key=lambda r: -float(r[2]))[:args.top]:
            print("  %8.3f ms %6d launches  %-28s %s" % (float(r[2]) / args.runs,
                                                      int(r[1]) // args.runs, r[0][:28], r[3][:70]))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export")
    e.add_argument("dir")
    e.add_argument("--models", default="bert,resnet50")
    c = sub.add_parser("compile")
    c.add_argument("graphs")
    c.add_argument("art")
    c.add_argument("--models", default="bert,resnet50")
    c.add_argument("--target", default="cuda")
    r = sub.add_parser("run")
    r.add_argument("art")
    r.add_argument("--runtime", required=True)
    r.add_argument("--models", default="bert,resnet50")
    r.add_argument("--runs", type=int, default=50)
    r.add_argument("--warmup", type=int, default=10)
    r.add_argument("--json")
    f = sub.add_parser("profile")
    f.add_argument("art")
    f.add_argument("--runtime", required=True)
    f.add_argument("--out", required=True)
    f.add_argument("--models", default="bert,resnet50")
    f.add_argument("--runs", type=int, default=10)
    f.add_argument("--top", type=int, default=12)
    args = p.parse_args()
    {"export": cmd_export, "compile": cmd_compile, "run": cmd_run, "profile": cmd_profile}[args.cmd](args)


if __name__ == "__main__":
    main()
