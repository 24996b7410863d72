#!/usr/bin/env python3
"""Onyx (CUDA target) against PyTorch eager and torch.compile: issue 8's matrix.

Cases (one Onyx artifact per model: batch and sequence are symbolic):
BERT-base batch 1/8/32 seq 128, GPT-2 small batch 1 seq 128/512, ResNet-50
batch 1/32 at 224x224; fp32 without TF32 on both sides. MLIR is not on the
GPU machine and the weights are too big for the device tool's transfers, so
the flow is:

  # 1. there: export the graphs, bring back only the .onnx files (GPT-2's
  #    can also be exported here: see "weights layout" below)
  python3 bench/gpu_bench.py export /tmp/g && mkdir -p $OUT/graphs && cp /tmp/g/*.onnx $OUT/graphs/
  # 2. here: compile against the graphs alone (no weights: no checksums)
  python3 bench/gpu_bench.py compile .dev/gpu/graphs .dev/gpu/art
  cp build/lib/libonyx_runtime.so .dev/gpu/
  # 3. there (carry .dev/gpu): build the onyx package against the carried
  #    runtime (scripts/gpu/device_python.sh), re-export with the same
  #    seeds, lay the weights out as the compiled graph expects, time every
  #    case
  bash scripts/gpu/device_python.sh .dev/gpu python3 bench/gpu_bench.py run .dev/gpu/art --json $OUT/bench.json

Models (built here and there from the same code and seeds, nothing
downloaded):
- BERT-base encoder written out in torch (hidden 768, 12 layers, 12 heads,
  FFN 3072, GELU(erf), post-LayerNorm, word + position + token-type
  embeddings; input_ids [batch, seq] int64, output the last hidden state).
- GPT-2 small written out in torch (no transformers): hidden 768, 12
  layers, 12 heads, vocab 50257, n_positions 1024, GELU(tanh), pre-LayerNorm
  blocks and a final LayerNorm, causal self-attention with the mask built
  from positions as in OpenAI's attention_mask() (query i sees keys j <= i;
  masked scores set to the float minimum as HF's GPT2Attention does),
  Conv1D projections (weight [in, out], x @ W + b). Input input_ids
  [batch, seq] int64; output the last hidden state [batch, seq, 768] after
  ln_f, i.e. GPT2Model, NOT the tied LM head (its [batch, seq, 50257] logits
  would make the host-to-host timing a 100 MB download at seq 512).
- torchvision's ResNet-50 (eval mode, random BatchNorm statistics).
All are exported by the TorchScript exporter (opset 17) with symbolic
batch/seq/height/width and every initializer over 1 KiB in one external
data file (MODEL.onnx.data next to MODEL.onnx).

Weights layout: an external-weights artifact reads each weight at the
offset its graph gave; the runtime checks only the file's extent when the
graph was compiled without the data file. `run` re-exports every model on
the device and then writes ART/MODEL.onnx.data in the layout of the graph
the artifact was compiled from (--graphs, default ART/../graphs): same
layout -> the file as exported; otherwise weights are matched by name (and
type and shape), the rest by their order among same-typed, same-shaped
initializers. So a graph exported by another torch version (GPT-2's, here:
torch 1.13; the device has 2.11) still gets its own weights; the relative
error against eager checks the result either way.

`run` times, per case: PyTorch eager (TF32 off: matmul.allow_tf32 =
cudnn.allow_tf32 = False, cudnn.benchmark off) on device-resident inputs
(CUDA events) and from host inputs to host outputs (what an Onyx call
does), with its peak activation memory; torch.compile (mode default,
dynamic=False, one compile per case after torch._dynamo.reset(); the
compile time is the first call's and is reported apart) the same two ways;
Onyx, through the `onyx` package (onyx.InferenceSession over the
artifact): the median wall time of `run` (host numpy inputs to host
outputs, synchronized; the input arrays are copied into runtime tensors
and the outputs returned as views, no copy) after warm-up, its activation
memory (InferenceSession.memory_stats) and the relative error ||onyx -
eager|| / ||eager||; then device-resident torch inputs read in place
(DLPack) with outputs left on the device (device_outputs=True). Every timing is the median of >= --min-runs (30) runs after
--warmup (5) warm-up calls. Eager and Onyx for every case come first (one
JSON line per case); torch.compile follows case by case within --budget
seconds for the whole run (a compile that would not fit is skipped with the
reason; one that fails records its error), each case's full JSON line
printed again as it finishes, then a markdown table. `profile` runs a
profiling session (enable_profiling) and sums its Chrome trace's kernel
and library events: device time per kernel, with the shapes of each.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
OPSET = 17
VOCAB = {"bert": 30522, "gpt2": 50257}

# ---------------------------------------------------------------------------
# Cases: "bert-bB-sS", "gpt2-bB-sS", "resnet50-bB" (224x224) or
# "resnet50-bB-rR" (RxR). The matrix of issue 8:
MATRIX = ["bert-b1-s128", "bert-b8-s128", "bert-b32-s128", "gpt2-b1-s128",
          "gpt2-b1-s512", "resnet50-b1", "resnet50-b32"]
# The case `export` traces with and `profile` runs, per model.
HEADLINE = {"bert": "bert-b1-s128", "gpt2": "gpt2-b1-s128", "resnet50": "resnet50-b32"}
# torch.compile goes in this order, so that a short budget still covers
# each model's headline case first.
COMPILE_FIRST = ["bert-b1-s128", "resnet50-b32", "gpt2-b1-s128", "bert-b32-s128",
                 "gpt2-b1-s512", "resnet50-b1", "bert-b8-s128"]


def parse_case(cid):
    m = re.fullmatch(r"(bert|gpt2)-b(\d+)-s(\d+)", cid)
    if m:
        return {"id": cid, "model": m.group(1), "batch": int(m.group(2)), "seq": int(m.group(3))}
    m = re.fullmatch(r"resnet50-b(\d+)(?:-r(\d+))?", cid)
    if m:
        return {"id": cid, "model": "resnet50", "batch": int(m.group(1)),
                "size": int(m.group(2) or 224)}
    raise SystemExit("unknown case '%s' (bert-bB-sS, gpt2-bB-sS, resnet50-bB[-rR])" % cid)


def case_label(c):
    if c["model"] == "resnet50":
        return "b%d %dx%d" % (c["batch"], c["size"], c["size"])
    return "b%d s%d" % (c["batch"], c["seq"])


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


def build_gpt2():
    import math
    import torch
    from torch import nn

    class Conv1D(nn.Module):
        """GPT-2's projection: weight [in, out], y = x @ W + b. The exporter
        keeps the parameter itself as MatMul's operand (no transposed copy
        under a generated name), so the weights keep their names."""

        def __init__(self, nin, nout):
            super().__init__()
            self.weight = nn.Parameter(torch.empty(nin, nout))
            self.bias = nn.Parameter(torch.empty(nout))

        def forward(self, x):
            return torch.matmul(x, self.weight) + self.bias

    class Attention(nn.Module):
        def __init__(self, h, heads):
            super().__init__()
            self.h, self.heads, self.d = h, heads, h // heads
            self.c_attn, self.c_proj = Conv1D(h, 3 * h), Conv1D(h, h)

        def split(self, x):
            b, s, _ = x.shape
            return x.view(b, s, self.heads, self.d).transpose(1, 2)

        def forward(self, x):
            b, s, h = x.shape
            q, k, v = self.c_attn(x).split(self.h, dim=2)
            q, k, v = self.split(q), self.split(k), self.split(v)
            w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.d)
            # Causal: query i sees keys j <= i (OpenAI's attention_mask()),
            # built from positions, so any seq <= n_positions works; the
            # masked value as HF's GPT2Attention makes it (a tensor of w's
            # type: a Python float exports as a double constant).
            i = torch.arange(s, device=x.device)
            masked = torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype, device=w.device)
            w = torch.where(i.unsqueeze(1) >= i.unsqueeze(0), w, masked)
            ctx = torch.matmul(torch.softmax(w, dim=-1), v)
            return self.c_proj(ctx.transpose(1, 2).reshape(b, s, h))

    class Block(nn.Module):
        def __init__(self, h, heads):
            super().__init__()
            self.ln_1 = nn.LayerNorm(h, eps=1e-5)
            self.attn = Attention(h, heads)
            self.ln_2 = nn.LayerNorm(h, eps=1e-5)
            self.c_fc, self.c_proj = Conv1D(h, 4 * h), Conv1D(4 * h, h)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            f = torch.nn.functional.gelu(self.c_fc(self.ln_2(x)), approximate="tanh")
            return x + self.c_proj(f)

    class GPT2(nn.Module):
        def __init__(self, vocab=50257, npos=1024, h=768, layers=12, heads=12):
            super().__init__()
            self.wte = nn.Embedding(vocab, h)
            self.wpe = nn.Embedding(npos, h)
            self.h = nn.ModuleList(Block(h, heads) for _ in range(layers))
            self.ln_f = nn.LayerNorm(h, eps=1e-5)

        def forward(self, input_ids):
            s = input_ids.shape[1]
            pos = torch.arange(s, device=input_ids.device).unsqueeze(0)
            x = self.wte(input_ids) + self.wpe(pos)
            for block in self.h:
                x = block(x)
            return self.ln_f(x)

    torch.manual_seed(0)
    m = GPT2()
    # GPT-2's initialization, N(0, 0.02) with the residual projections
    # scaled by 1/sqrt(2 * layers), except that biases are N(0, 0.02) and
    # LayerNorm weights 1 + N(0, 0.02), not zeros and ones: every parameter
    # differs, so the exporter's deduplication of equal initializers (which
    # names the survivor differently across torch versions) leaves all of
    # them under their own names, and the bias adds are checked too.
    with torch.no_grad():
        for name, p in m.named_parameters():
            if name.endswith("c_proj.weight"):
                p.normal_(0.0, 0.02 / math.sqrt(2 * 12))
            elif name.split(".")[-2].startswith("ln") and name.endswith("weight"):
                p.normal_(1.0, 0.02)
            else:
                p.normal_(0.0, 0.02)
    return m.eval()


# name: (builder, input names, input dynamic axes, output dynamic axes)
MODELS = {
    "bert": (build_bert, ["input_ids"], {"input_ids": {0: "batch", 1: "seq"}}, {0: "batch"}),
    "gpt2": (build_gpt2, ["input_ids"], {"input_ids": {0: "batch", 1: "seq"}},
             {0: "batch", 1: "seq"}),
    "resnet50": (build_resnet50, ["x"], {"x": {0: "batch", 2: "height", 3: "width"}},
                 {0: "batch"}),
}


def make_inputs(case):
    """The inputs of a case (a case dict, id, or model name: its headline
    case); the same arrays for the same case every time."""
    if isinstance(case, str):
        case = parse_case(HEADLINE.get(case, case))
    rng = np.random.default_rng(1234)
    if case["model"] in VOCAB:
        return [rng.integers(0, VOCAB[case["model"]], size=(case["batch"], case["seq"]),
                             dtype=np.int64)]
    return [rng.standard_normal((case["batch"], 3, case["size"], case["size"])).astype(np.float32)]


# ---------------------------------------------------------------------------
# Export


def export(name, out_dir, model=None):
    import onnx
    import torch
    build, input_names, dyn, out_dyn = MODELS[name]
    model = model if model is not None else build()
    os.makedirs(out_dir, exist_ok=True)
    args = tuple(torch.from_numpy(a) for a in make_inputs(name))
    tmp = os.path.join(out_dir, name + ".tmp.onnx")
    kwargs = dict(input_names=input_names, output_names=["y"],
                  dynamic_axes=dict(dyn, y=out_dyn), opset_version=OPSET,
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
# Weights layout: the data file as the compiled graph expects it


def initializers(path):
    """(external, embedded) initializers of a graph, without loading data:
    external [(name, type, dims, location, offset, length)], embedded
    {name: (type, dims, bytes)}."""
    import onnx
    from onnx import numpy_helper
    g = onnx.load(path, load_external_data=False).graph
    ext, emb = [], {}
    for t in g.initializer:
        if t.data_location == onnx.TensorProto.EXTERNAL:
            kv = {e.key: e.value for e in t.external_data}
            ext.append((t.name, t.data_type, tuple(t.dims), kv["location"],
                        int(kv.get("offset", 0)), int(kv["length"])))
        else:
            emb[t.name] = (t.data_type, tuple(t.dims), numpy_helper.to_array(t).tobytes())
    return ext, emb


def align_weights(compiled, exported, out_data):
    """Writes out_data: the weights of the graph `exported` (with its data
    file beside it) in the layout of the graph `compiled`. Returns a note
    saying how they were matched; raises if they cannot be."""
    cext, cemb = initializers(compiled)
    eext, eemb = initializers(exported)
    edir = os.path.dirname(os.path.abspath(exported))
    locs = {e[3] for e in eext}
    if len(locs) > 1:
        raise RuntimeError("the re-export spreads its weights over %s" % sorted(locs))
    src = os.path.join(edir, eext[0][3]) if eext else None
    # Embedded initializers are part of the artifact: the re-export must
    # agree on the ones that are seed-dependent (all of them here).
    bad = [n for n, v in cemb.items() if n in eemb and eemb[n] != v]
    note_emb = "; %d embedded initializers differ: %s" % (len(bad), bad[:3]) if bad else ""
    same = [(n, t, d, o, l) for n, t, d, _, o, l in cext] == \
        [(n, t, d, o, l) for n, t, d, _, o, l in eext]
    if same:
        if os.path.abspath(src) != os.path.abspath(out_data):
            shutil.move(src, out_data)
        return "layout identical" + note_emb
    by_name = {e[0]: e for e in eext}
    pairs, rest_c, used = {}, [], set()
    for c in cext:
        e = by_name.get(c[0])
        if e is not None and e[1:3] == c[1:3]:
            pairs[c[0]] = e
            used.add(e[0])
        else:
            rest_c.append(c)
    # The rest (generated names such as onnx::MatMul_1465, which differ
    # between torch versions): in order among same type and shape.
    groups = {}
    for e in eext:
        if e[0] not in used:
            groups.setdefault(e[1:3], []).append(e)
    by_order = 0
    for c in rest_c:
        g = groups.get(c[1:3])
        if not g:
            raise RuntimeError("compiled initializer %s %s (type %d) has no counterpart in "
                               "the re-export" % (c[0], list(c[2]), c[1]))
        pairs[c[0]] = g.pop(0)
        by_order += 1
    left = sum(len(g) for g in groups.values())
    total = max([c[4] + c[5] for c in cext] or [0])
    tmp = out_data + ".tmp"
    with open(src, "rb") as fi, open(tmp, "wb") as fo:
        fo.truncate(total)
        for c in sorted(cext, key=lambda c: c[4]):
            e = pairs[c[0]]
            fi.seek(e[4])
            buf = fi.read(e[5])
            if len(buf) != c[5]:
                raise RuntimeError("weight %s: %d bytes, the compiled graph wants %d" % (
                    c[0], len(buf), c[5]))
            fo.seek(c[4])
            fo.write(buf)
    os.replace(tmp, out_data)
    if os.path.abspath(src) != os.path.abspath(out_data):
        os.remove(src)
    return ("layout differs: %d weights matched by name, %d by order among same type/shape, "
            "%d re-exported left unused%s" % (len(cext) - by_order, by_order, left, note_emb))


# ---------------------------------------------------------------------------
# Onyx through the `onyx` package (docs/python.md)


# numpy has no bfloat16: BF16 arrays hold the raw bits (a one-field record
# of uint16; .view(np.uint16) reads them). Onyx takes and returns them as
# uint16 (docs/python.md); make_list accepts this record form too.
BF16 = np.dtype([("bf16", "<u2")])
NP_TO_ONNX = {np.dtype(np.float32): 1, np.dtype(np.int64): 7, np.dtype(np.int32): 6,
              np.dtype(np.float16): 10, np.dtype(np.bool_): 9, BF16: 16}


class Onyx:
    """One artifact's session (onyx.InferenceSession over the .so).
    Onyx(artifact, **InferenceSession options); the older Onyx(runtime,
    artifact) form is accepted for the scripts that import this class, the
    runtime being the one the onyx package loaded."""

    def __init__(self, *paths, **options):
        import onyx
        if len(paths) not in (1, 2):
            raise TypeError("Onyx(artifact) or Onyx(runtime, artifact)")
        artifact = paths[-1]
        t0 = time.perf_counter()
        self.session = onyx.InferenceSession(artifact, **options)
        self.create_s = time.perf_counter() - t0
        self.names = [i.name for i in self.session.get_inputs()]

    def make_list(self, arrays):
        """The feeds of `arrays` (host numpy arrays or CUDA torch tensors,
        the latter read in place), in graph-input order."""
        return dict(zip(self.names, [a.view(np.uint16) if getattr(a, "dtype", None) == BF16
                                     else a for a in arrays]))

    def call(self, feeds, read=True, device_outputs=False):
        """Runs once (synchronized: the outputs are complete when it
        returns). read: the outputs as numpy copies (else None); with
        device_outputs they stay on the device (IO binding)."""
        out = self.session.run(None, feeds, device_outputs=device_outputs)
        return [np.array(o, copy=True) for o in out] if read else None

    def activation_bytes(self):
        """Device memory of the last call besides weights and inputs: the
        pools it requested, unplanned temporaries at their peak, and the
        outputs (what torch's peak above its baseline counts too)."""
        st = self.session.memory_stats()
        return st["pool_requested_bytes"] + st["temp_peak_bytes"] + st["output_bytes"]

    def close(self):
        self.session = None


def rel_err(a, ref):
    a, ref = np.asarray(a, np.float64), np.asarray(ref, np.float64)
    return float(np.linalg.norm(a - ref) / max(np.linalg.norm(ref), 1e-30))


# ---------------------------------------------------------------------------
# Timing


class Clock:
    """Median timings on one device: CUDA events around the call on CUDA,
    the wall clock on the CPU (the --device cpu dry run)."""

    def __init__(self, device, warmup, runs, min_runs, loop_s):
        import torch
        self.torch, self.dev = torch, torch.device(device)
        self.cuda = self.dev.type == "cuda"
        self.warmup, self.runs, self.min_runs, self.loop_s = warmup, runs, min_runs, loop_s

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize()

    def count(self, per_call_ms):
        """Timed runs: --runs, fewer (not under --min-runs) when they would
        take over --loop-s seconds."""
        if per_call_ms * self.runs <= self.loop_s * 1e3:
            return self.runs
        return max(self.min_runs, int(self.loop_s * 1e3 / max(per_call_ms, 1e-3)))

    def warm(self, fn):
        """Warm-up calls; the last ones' wall time estimates a call."""
        ts = []
        for _ in range(self.warmup):
            t0 = time.perf_counter()
            fn()
            self.sync()
            ts.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(ts[-3:]) if ts else 1.0

    def device_ms(self, fn, n):
        """Median of n calls on device-resident inputs, and the peak memory
        above the baseline (None on the CPU)."""
        torch = self.torch
        if self.cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            base = torch.cuda.memory_allocated()
        times = []
        for _ in range(n):
            if self.cuda:
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                fn()
                e.record()
                e.synchronize()
                times.append(s.elapsed_time(e))
            else:
                t0 = time.perf_counter()
                fn()
                times.append((time.perf_counter() - t0) * 1e3)
        peak = torch.cuda.max_memory_allocated() - base if self.cuda else None
        return statistics.median(times), peak

    def wall_ms(self, fn, n):
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            fn()
            self.sync()
            times.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(times)


def time_torch(clock, model, inputs, prefix, r):
    """Device-resident and host-to-host timings of model (eager or
    compiled) into r[prefix + ...]; returns the output as numpy."""
    torch, dev = clock.torch, clock.dev
    xs = [torch.from_numpy(a).to(dev) for a in inputs]
    out = {}
    with torch.no_grad():
        def call():
            out["y"] = model(*xs)

        def h2h():  # host inputs to host outputs, like an Onyx call
            out["h"] = model(*[torch.from_numpy(a).to(dev) for a in inputs]).cpu()
        est = clock.warm(call)
        n = clock.count(est)
        r[prefix + "_ms"], r[prefix + "_peak_bytes"] = clock.device_ms(call, n)
        clock.warm(h2h)
        r[prefix + "_h2h_ms"] = clock.wall_ms(h2h, n)
        r[prefix + "_runs"] = n
    return out["y"].float().cpu().numpy()


def time_onyx(clock, onyx, inputs, ref, r):
    feeds = onyx.make_list(inputs)
    t0 = time.perf_counter()
    out = onyx.call(feeds)
    r["onyx_first_ms"] = (time.perf_counter() - t0) * 1e3
    r["rel_err"] = rel_err(out[0], ref)
    r["onyx_shape"] = list(out[0].shape)
    est = clock.warm(lambda: onyx.call(feeds, read=False))
    n = clock.count(est)
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        onyx.call(feeds, read=False)  # synchronized: outputs are on the host
        times.append((time.perf_counter() - t0) * 1e3)
    r["onyx_ms"], r["onyx_ms_min"], r["onyx_runs"] = statistics.median(times), min(times), n
    r["onyx_activation_bytes"] = onyx.activation_bytes()
    time_onyx_device(clock, onyx, inputs, ref, r)


def time_onyx_device(clock, onyx, inputs, ref, r):
    """Onyx with IO binding: inputs already on the GPU (torch tensors read
    in place through DLPack), outputs left there - what eager's
    device-resident time measures. The outputs of the device-input call are
    checked against the reference first (downloaded as usual); then outputs
    stay on the device for the timing (each call still waits for its
    work)."""
    if not clock.cuda:
        return
    torch = clock.torch
    xs = [torch.from_numpy(np.require(a, requirements="C")).to(clock.dev) for a in inputs]
    feeds = onyx.make_list(xs)
    clock.sync()
    try:
        out = onyx.call(feeds)  # device inputs, host outputs: checked
        r["onyx_dev_rel_err"] = rel_err(out[0], ref)
        est = clock.warm(lambda: onyx.call(feeds, read=False, device_outputs=True))
        n = clock.count(est)
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            onyx.call(feeds, read=False, device_outputs=True)  # returns when the GPU work is done
            times.append((time.perf_counter() - t0) * 1e3)
        r["onyx_dev_ms"] = statistics.median(times)
    except RuntimeError as e:
        r["onyx_dev_error"] = str(e).splitlines()[0][:200] if str(e) else "error"
    finally:
        xs = feeds = None  # the device inputs go


def compile_case(clock, model, inputs, ref, r):
    """torch.compile (mode default) of one case, freshly: the first call's
    time is the compile time, reported apart from the timings."""
    torch = clock.torch
    if not hasattr(torch, "compile"):
        raise RuntimeError("unavailable: torch %s has no torch.compile" % torch.__version__)
    import torch._dynamo
    torch._dynamo.reset()  # a fresh compile per case: its own time, its own shapes
    xs = [torch.from_numpy(a).to(clock.dev) for a in inputs]
    t0 = time.perf_counter()
    cm = torch.compile(model, dynamic=False)
    with torch.no_grad():
        cm(*xs)
    clock.sync()
    r["compile_s"] = time.perf_counter() - t0
    y = time_torch(clock, cm, inputs, "compile", r)
    r["compile_rel_err"] = rel_err(y, ref)


def fmt(v, f):
    return "-" if v is None else f % v


def table(results):
    cols = ["model", "case", "eager ms", "eager h2h ms", "compile ms", "compile h2h ms",
            "onyx ms", "vs eager", "vs compile", "onyx dev ms", "dev vs eager",
            "dev vs compile", "rel err", "eager peak MiB", "onyx MiB", "compile s"]
    lines = ["| " + " | ".join(cols) + " |", "|" + " --- |" * len(cols)]
    for r in results:
        g = r.get
        on, eh, ch = g("onyx_ms"), g("eager_h2h_ms"), g("compile_h2h_ms")
        act = g("onyx_activation_bytes")
        row = [r["model"], case_label(r), fmt(g("eager_ms"), "%.3f"), fmt(eh, "%.3f"),
               fmt(g("compile_ms"), "%.3f") if "compile_ms" in r else
               (g("compile_error") or "-").splitlines()[0][:40].replace("|", "/"),
               fmt(ch, "%.3f"), fmt(on, "%.3f") if on else "ERR",
               fmt(eh / on if eh and on else None, "%.2fx"),
               fmt(ch / on if ch and on else None, "%.2fx"),
               fmt(g("onyx_dev_ms"), "%.3f"),
               fmt(g("eager_ms") / g("onyx_dev_ms")
                   if g("eager_ms") and g("onyx_dev_ms") else None, "%.2fx"),
               fmt(g("compile_ms") / g("onyx_dev_ms")
                   if g("compile_ms") and g("onyx_dev_ms") else None, "%.2fx"),
               fmt(g("rel_err"), "%.1e"),
               fmt(g("eager_peak_bytes") / 2**20 if g("eager_peak_bytes") is not None else None,
                   "%.1f"),
               fmt(act / 2**20 if act is not None else None, "%.1f"),
               fmt(g("compile_s"), "%.1f")]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Commands


def selected_cases(args):
    ids = args.cases.split(",") if args.cases else MATRIX
    models = args.models.split(",") if args.models else None
    cases = [parse_case(c) for c in ids]
    return [c for c in cases if models is None or c["model"] in models]


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
        # The graph alone: the weights are re-created on the device, so the
        # artifact must not carry checksums of a data file lying here.
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy(src, os.path.join(tmp, name + ".onnx"))
            cmd = [compiler, "--target=" + args.target, "--external-weights",
                   os.path.join(tmp, name + ".onnx"), "-o", dst]
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True)
        print("compiled %s (%.1f s): %s" % (name, time.perf_counter() - t0, " ".join(cmd)))


def cmd_run(args):
    import torch
    t_start = time.perf_counter()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = False
    cuda = args.device == "cuda"
    env = {"torch": torch.__version__, "device": args.device,
           "cudnn": torch.backends.cudnn.version() if cuda else None,
           "gpu": torch.cuda.get_device_name(0) if cuda else None,
           "date": time.strftime("%Y-%m-%d %H:%M:%S"), "command": " ".join(sys.argv)}
    print(json.dumps({"env": env}), flush=True)
    clock = Clock(args.device, args.warmup, args.runs, args.min_runs, args.loop_s)
    cases = selected_cases(args)
    graphs = args.graphs or os.path.join(os.path.dirname(os.path.abspath(args.art)), "graphs")
    results, models, refs = [], {}, {}
    for name in dict.fromkeys(c["model"] for c in cases):
        mine = [c for c in cases if c["model"] == name]
        info = {}
        try:
            model = MODELS[name][0]()
        except Exception as e:
            for c in mine:
                results.append(dict(c, eager_error="build: %s: %s" % (type(e).__name__, e)))
                print(json.dumps(results[-1]), flush=True)
            continue
        compiled = os.path.join(graphs, name + ".onnx")
        try:
            # Same code, same seeds: the weights of the artifact's graph.
            t0 = time.perf_counter()
            _, path = export(name, os.path.join(args.art, "export"), model)
            info["export_s"] = time.perf_counter() - t0
            if os.path.exists(compiled):
                info["weights"] = align_weights(compiled, path,
                                                os.path.join(args.art, name + ".onnx.data"))
            else:
                info["weights"] = "compiled graph %s not found: re-export used as is" % compiled
                shutil.move(path + ".data", os.path.join(args.art, name + ".onnx.data"))
        except Exception as e:  # no Onyx for this model; torch still runs
            info["onyx_error"] = "export/weights: %s: %s" % (type(e).__name__, str(e)[:1000])
        model = model.to(clock.dev)
        models[name] = model
        onyx = None
        if "onyx_error" not in info:
            try:
                onyx = Onyx(os.path.join(args.art, name + ".so"))
                info["onyx_create_s"] = onyx.create_s
            except Exception as e:
                info["onyx_error"] = str(e)[:2000]
        print(json.dumps({"model": name, **info}), flush=True)
        # --variant NAME=DIR[:VAR=VALUE]: the same case timed with DIR's
        # artifact (same graph, so the same weights file) under VAR=VALUE.
        variants = []
        for spec in (args.variant or []) if onyx is not None else []:
            vname, rest = spec.split("=", 1)
            vdir, _, venv = rest.partition(":")
            data = os.path.join(vdir, name + ".onnx.data")
            if not os.path.exists(data):  # a hard link (the runtime refuses symbolic ones)
                try:
                    os.link(os.path.join(args.art, name + ".onnx.data"), data)
                except OSError:
                    shutil.copy(os.path.join(args.art, name + ".onnx.data"), data)
            variants.append((vname, Onyx(os.path.join(vdir, name + ".so")),
                             venv.split("=", 1) if venv else None))
        for c in mine:
            r = dict(c, **{k: v for k, v in info.items() if k != "onyx_create_s"})
            inputs = make_inputs(c)
            try:
                refs[c["id"]] = time_torch(clock, model, inputs, "eager", r)
            except Exception as e:
                r["eager_error"] = ("%s: %s" % (type(e).__name__, e))[:2000]
            if onyx is not None and c["id"] in refs:
                try:
                    time_onyx(clock, onyx, inputs, refs[c["id"]], r)
                except Exception as e:
                    r["onyx_error"] = ("%s: %s" % (type(e).__name__, e))[:2000]
                for vname, vonyx, venv in variants:
                    old = os.environ.get(venv[0]) if venv else None
                    if venv:
                        os.environ[venv[0]] = venv[1]
                    rv = {}
                    try:
                        time_onyx(clock, vonyx, inputs, refs[c["id"]], rv)
                    except Exception as e:
                        rv["onyx_error"] = ("%s: %s" % (type(e).__name__, e))[:500]
                    finally:
                        if venv and old is None:
                            del os.environ[venv[0]]
                        elif venv:
                            os.environ[venv[0]] = old
                    r.setdefault("variants", {})[vname] = {
                        k: rv[k] for k in ("onyx_ms", "onyx_dev_ms", "rel_err", "onyx_dev_rel_err",
                                           "onyx_activation_bytes", "onyx_error") if k in rv}
            results.append(r)
            print(json.dumps(r), flush=True)
        if onyx is not None:
            onyx.close()
        for _, vonyx, _ in variants:
            vonyx.close()
        if cuda:
            torch.cuda.empty_cache()
    # torch.compile, within the budget.
    order = [i for i in COMPILE_FIRST if any(r["id"] == i for r in results)]
    order += [r["id"] for r in results if r["id"] not in order]
    longest = None
    for cid in order:
        r = next(r for r in results if r["id"] == cid)
        if args.no_compile:
            r["compile_error"] = "skipped: --no-compile"
            continue
        if cid not in refs:
            r["compile_error"] = "skipped: no eager result"
            continue
        left = args.budget - (time.perf_counter() - t_start)
        need = 1.25 * longest if longest else args.compile_guess
        if left < need:
            r["compile_error"] = "skipped: time budget (%.0f s left, a compile took up to %.0f s)" % (
                left, longest or args.compile_guess)
            print(json.dumps(r), flush=True)
            continue
        t0 = time.perf_counter()
        try:
            compile_case(clock, models[r["model"]], make_inputs(r), refs[cid], r)
        except Exception as e:
            msg = "%s: %s" % (type(e).__name__, str(e).strip())
            r["compile_error"] = msg[:2000]
            for k in [k for k in r if k.startswith("compile_") and k != "compile_error"]:
                del r[k]
        took = time.perf_counter() - t0
        longest = max(longest or 0, took)
        if cuda:
            torch.cuda.empty_cache()
        print(json.dumps(r), flush=True)
    if hasattr(torch, "_dynamo"):
        torch._dynamo.reset()
    env["total_s"] = time.perf_counter() - t_start
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"env": env, "cases": results}, f, indent=1)
    print("\n%s, torch %s, cuDNN %s, %s; total %.0f s\n" % (
        env["gpu"] or args.device, env["torch"], env["cudnn"], env["date"], env["total_s"]))
    print(table(results))
    for r in results:
        for k in ("eager_error", "onyx_error", "compile_error"):
            if k in r and not r[k].startswith("skipped"):
                print("%s %s: %s" % (r["id"], k, r[k][:500].replace("\n", " | ")))


def cmd_profile(args):
    """One profiling Onyx session (enable_profiling, docs/python.md): device
    time per kernel and library call from its Chrome trace, with the
    shapes of the busiest ones."""
    for name in args.models.split(","):
        inputs = make_inputs(name)
        prof = os.path.join(args.out, name + "_profile.json")
        # Warm up in an unprofiled session first: the libraries' lazy kernel
        # loading must not land inside the timed events.
        warm = Onyx(os.path.join(args.art, name + ".so"))
        feeds = warm.make_list(inputs)
        for _ in range(3):
            warm.call(feeds, read=False)
        warm.close()
        onyx = Onyx(os.path.join(args.art, name + ".so"), enable_profiling=True,
                    profile_file=prof)
        feeds = onyx.make_list(inputs)
        for _ in range(args.runs):
            onyx.call(feeds, read=False)
        onyx.session.end_profiling()
        onyx.close()
        with open(prof) as f:
            events = json.load(f)["traceEvents"]
        totals = {}
        for e in events:
            if e["cat"] not in ("kernel", "library"):
                continue
            key = (e["name"], e["args"].get("node", ""))
            t = totals.setdefault(key, {"us": 0.0, "n": 0, "shapes": e["args"].get("shapes")})
            t["us"] += e["dur"]
            t["n"] += 1
        total = sum(t["us"] for t in totals.values()) / args.runs / 1e3
        print("%s: device time per call %.3f ms (%d kernels/calls by node); top:" % (
            name, total, len(totals)))
        for (kernel, node), t in sorted(totals.items(), key=lambda kv: -kv[1]["us"])[:args.top]:
            print("  %8.3f ms %4d launches  %-28s %-24s %s" % (
                t["us"] / args.runs / 1e3, t["n"] // args.runs, kernel[:28], node[:24],
                json.dumps(t["shapes"])[:60]))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    all_models = ",".join(MODELS)
    e = sub.add_parser("export")
    e.add_argument("dir")
    e.add_argument("--models", default=all_models)
    c = sub.add_parser("compile")
    c.add_argument("graphs")
    c.add_argument("art")
    c.add_argument("--models", default=all_models)
    c.add_argument("--target", default="cuda")
    r = sub.add_parser("run")
    r.add_argument("art")
    r.add_argument("--models", help="only the cases of these models (comma-separated)")
    r.add_argument("--cases", help="comma-separated case ids (default: the matrix: %s)"
                   % ",".join(MATRIX))
    r.add_argument("--graphs", help="the graphs the artifacts were compiled from "
                   "(default ART/../graphs): the weights are laid out as they expect")
    r.add_argument("--runs", type=int, default=50)
    r.add_argument("--min-runs", type=int, default=30)
    r.add_argument("--loop-s", type=float, default=3.0,
                   help="fewer runs (not under --min-runs) for loops longer than this")
    r.add_argument("--warmup", type=int, default=5)
    r.add_argument("--budget", type=float, default=330,
                   help="seconds for the whole run: torch.compile cases that would not "
                   "fit are skipped")
    r.add_argument("--compile-guess", type=float, default=60,
                   help="seconds a first torch.compile is assumed to take")
    r.add_argument("--no-compile", action="store_true")
    r.add_argument("--variant", action="append",
                   help="NAME=DIR[:VAR=VALUE]: also time DIR's artifacts (compiled from the same "
                        "graphs) with VAR=VALUE set; results under 'variants' in each case's JSON")
    r.add_argument("--device", default="cuda", help="cpu: a dry run with CPU artifacts")
    r.add_argument("--json")
    f = sub.add_parser("profile")
    f.add_argument("art")
    f.add_argument("--out", required=True)
    f.add_argument("--models", default="bert,resnet50")
    f.add_argument("--runs", type=int, default=10)
    f.add_argument("--top", type=int, default=12)
    args = p.parse_args()
    {"export": cmd_export, "compile": cmd_compile, "run": cmd_run, "profile": cmd_profile}[args.cmd](args)


if __name__ == "__main__":
    main()
