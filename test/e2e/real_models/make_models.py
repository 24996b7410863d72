#!/usr/bin/python3
"""Writes Onyx's real-model test set: ONNX models exported by PyTorch's own
exporter from torchvision / torch.nn models with random weights (fixed seeds,
nothing downloaded), plus inputs and PyTorch reference outputs at several
shapes per model.

    /usr/bin/python3 test/e2e/real_models/make_models.py [--out DIR] [--models a,b] [--force]

DIR (default build/real_models) receives

    manifest.json               what was written (see below)
    <model>.onnx                one model per entry of MODELS
    <model>/<case>/<input>.npy  the inputs of one shape case
    <model>/<case>/ref_K.npy    PyTorch's output K (float32, eval mode)

The directory is a cache: when manifest.json exists and its key (a hash of this
file and the versions of torch, torchvision and onnx) matches, and every file
it names exists, the requested models are not exported again. --force rewrites.

manifest.json:

    {"key": ..., "opset": 14, "torch": ..., "torchvision": ..., "onnx": ...,
     "models": {"resnet50": {
         "onnx": "resnet50.onnx", "description": ..., "params": N,
         "onnx_bytes": N, "inputs": [{"name": "x", "dtype": "float32",
         "dims": ["batch", 3, "height", "width"]}], "outputs": ["logits"],
         "cases": [{"id": "b1_64x64", "inputs": {"x": "resnet50/b1_64x64/x.npy"},
                    "shapes": {"x": [1, 3, 64, 64]},
                    "refs": ["resnet50/b1_64x64/ref_0.npy"],
                    "ref_shapes": [[1, 1000]],
                    "torch_fp32_vs_fp64": 3e-7}, ...]}, ...}}

torch_fp32_vs_fp64 is ||y32 - y64|| / ||y64|| for PyTorch itself (the model
and inputs in float64): the floating-point noise floor of the reference.
"""
import argparse
import hashlib
import json
import math
import os
import shutil
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
DEFAULT_OUT = os.path.join(REPO, "build", "real_models")
OPSET = 14


# ---------------------------------------------------------------------------
# Model definitions. Imports of torch are deferred so that --help is fast and
# importing this module (for MODELS / the cache check) does not need torch.

def _randomize_batchnorm(model, gen):
    """Random eval-mode statistics, so BatchNormalization is not the identity
    that torchvision's init leaves (mean 0, var 1, weight 1, bias 0)."""
    import torch
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            n = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
                m.weight.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(n, generator=gen) * 0.1)


def build_resnet50():
    import torchvision
    import torch
    torch.manual_seed(0)
    m = torchvision.models.resnet50(weights=None)
    _randomize_batchnorm(m, torch.Generator().manual_seed(1))
    return m


def build_mobilenet_v2():
    import torchvision
    import torch
    torch.manual_seed(0)
    m = torchvision.models.mobilenet_v2(weights=None)
    _randomize_batchnorm(m, torch.Generator().manual_seed(1))
    return m


def build_squeezenet1_1():
    import torchvision
    import torch
    torch.manual_seed(0)
    return torchvision.models.squeezenet1_1(weights=None)


def build_transformer_encoder():
    import torch
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
                                             dropout=0.0, batch_first=True)
    enc = torch.nn.TransformerEncoder(layer, num_layers=2, norm=torch.nn.LayerNorm(64),
                                      enable_nested_tensor=False)
    return enc


def build_causal_decoder():
    import torch
    from torch import nn
    import torch.nn.functional as F

    class Block(nn.Module):
        def __init__(self, d, heads):
            super().__init__()
            self.heads = heads
            self.ln1 = nn.LayerNorm(d)
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.ln2 = nn.LayerNorm(d)
            self.fc1 = nn.Linear(d, 4 * d)
            self.fc2 = nn.Linear(4 * d, d)

        def forward(self, h, mask):
            b, t, d = h.shape
            dh = d // self.heads
            q, k, v = self.qkv(self.ln1(h)).split(d, dim=-1)
            q = q.reshape(b, t, self.heads, dh).transpose(1, 2)   # [b, heads, t, dh]
            k = k.reshape(b, t, self.heads, dh).transpose(1, 2)
            v = v.reshape(b, t, self.heads, dh).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(dh))
            att = att.masked_fill(mask, float("-inf"))            # causal: j > i masked
            att = F.softmax(att, dim=-1)
            y = (att @ v).transpose(1, 2).reshape(b, t, d)
            h = h + self.proj(y)
            return h + self.fc2(F.gelu(self.fc1(self.ln2(h))))

    class CausalDecoder(nn.Module):
        """GPT-style decoder: token + learned position embeddings, pre-LN blocks
        of causal self-attention and a GELU MLP, final LayerNorm, vocab head.
        The causal mask is built in the graph from the run-time sequence length
        (Range -> Unsqueeze -> Greater), so its shape is [seq, seq]."""

        def __init__(self, vocab=256, d=64, heads=4, layers=2, max_len=128):
            super().__init__()
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Embedding(max_len, d)
            self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
            self.ln_f = nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab, bias=False)

        def forward(self, tokens):
            t = tokens.shape[1]
            i = torch.arange(t, device=tokens.device)
            mask = i.unsqueeze(0) > i.unsqueeze(1)                # [t, t], True above the diagonal
            h = self.tok(tokens) + self.pos(i).unsqueeze(0)
            for blk in self.blocks:
                h = blk(h, mask)
            return self.head(self.ln_f(h))

    torch.manual_seed(0)
    return CausalDecoder()


def _image_case(b, h, w):
    return ("b%d_%dx%d" % (b, h, w), {"x": (b, 3, h, w)})


def _seq_case(b, t, feat=None):
    shape = (b, t) if feat is None else (b, t, feat)
    return ("b%d_s%d" % (b, t), {"x" if feat else "tokens": shape})


# name -> how to build and export it. `trace` is the shape used for tracing:
# deliberately none of the test shapes, so a size the exporter baked into the
# graph shows up as a failure instead of passing by accident.
MODELS = {
    "resnet50": dict(
        build=build_resnet50,
        description="torchvision ResNet-50 (random weights, random BN statistics)",
        inputs=[("x", "float32", ["batch", 3, "height", "width"])],
        outputs=["logits"],
        trace={"x": (2, 3, 80, 72)},
        cases=[_image_case(1, 224, 224), _image_case(2, 64, 64), _image_case(3, 64, 96)],
    ),
    "mobilenet_v2": dict(
        build=build_mobilenet_v2,
        description="torchvision MobileNetV2 (random weights, random BN statistics)",
        inputs=[("x", "float32", ["batch", 3, "height", "width"])],
        outputs=["logits"],
        trace={"x": (2, 3, 80, 72)},
        cases=[_image_case(1, 224, 224), _image_case(2, 64, 64), _image_case(3, 96, 64)],
    ),
    "squeezenet1_1": dict(
        build=build_squeezenet1_1,
        description="torchvision SqueezeNet 1.1 (random weights)",
        inputs=[("x", "float32", ["batch", 3, "height", "width"])],
        outputs=["logits"],
        trace={"x": (2, 3, 80, 72)},
        cases=[_image_case(1, 224, 224), _image_case(2, 64, 64), _image_case(3, 96, 80)],
    ),
    "transformer_encoder": dict(
        build=build_transformer_encoder,
        description="torch.nn.TransformerEncoder: d_model 64, 4 heads, 2 layers, FFN 128, "
                    "batch_first, final LayerNorm",
        inputs=[("x", "float32", ["batch", "seq", 64])],
        outputs=["y"],
        trace={"x": (2, 5, 64)},
        cases=[_seq_case(1, 1, 64), _seq_case(2, 7, 64), _seq_case(3, 16, 64), _seq_case(1, 64, 64)],
    ),
    "causal_decoder": dict(
        build=build_causal_decoder,
        description="GPT-style decoder written for the test: vocab 256, d 64, 4 heads, 2 layers, "
                    "causal mask computed in the graph from the sequence length",
        inputs=[("tokens", "int64", ["batch", "seq"])],
        outputs=["logits"],
        trace={"tokens": (2, 5)},
        cases=[_seq_case(1, 1), _seq_case(2, 7), _seq_case(3, 16), _seq_case(1, 128)],
    ),
}


# ---------------------------------------------------------------------------

def cache_key():
    import importlib.metadata as md
    h = hashlib.sha256()
    with open(os.path.abspath(__file__), "rb") as f:
        h.update(f.read())
    for pkg in ("torch", "torchvision", "onnx", "numpy"):
        try:
            h.update(("%s=%s;" % (pkg, md.version(pkg))).encode())
        except md.PackageNotFoundError:
            h.update(("%s=?;" % pkg).encode())
    return h.hexdigest()[:16]


def make_input(name, dtype, shape, seed):
    rng = np.random.default_rng(seed)
    if dtype == "int64":
        return rng.integers(0, 256, size=shape, dtype=np.int64)
    return rng.standard_normal(shape).astype(np.float32)


def _torch_run(model, arrays, double):
    import torch
    ts = []
    for a in arrays:
        t = torch.from_numpy(a)
        if double and t.dtype == torch.float32:
            t = t.double()
        ts.append(t)
    m = model.double() if double else model.float()
    with torch.no_grad():
        y = m(*ts)
    ys = y if isinstance(y, (tuple, list)) else (y,)
    return [t.detach().float().numpy() if not double else t.detach().numpy() for t in ys]


def rel_err(y, ref):
    y = np.asarray(y, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    n = np.linalg.norm(ref.ravel())
    d = np.linalg.norm((y - ref).ravel())
    return float(d / n) if n > 0 else float(d)


def export_model(name, spec, out_dir, log):
    import torch
    import onnx
    t0 = time.time()
    model = spec["build"]().eval()
    n_params = sum(p.numel() for p in model.parameters())
    onnx_rel = name + ".onnx"
    onnx_path = os.path.join(out_dir, onnx_rel)
    in_names = [i[0] for i in spec["inputs"]]
    dyn = {}
    for iname, _, dims in spec["inputs"]:
        dyn[iname] = {k: d for k, d in enumerate(dims) if isinstance(d, str)}
    for oname in spec["outputs"]:
        dyn[oname] = {}  # filled by the exporter's shape inference; see the fixup below
    trace_args = tuple(torch.from_numpy(make_input(iname, dt, spec["trace"][iname], 7))
                       for iname, dt, _ in spec["inputs"])
    # Output dims that follow input symbols: batch everywhere, seq for sequence models.
    out_dyn = {0: "batch"}
    if any("seq" in dims for _, _, dims in spec["inputs"]):
        out_dyn[1] = "seq"
    for oname in spec["outputs"]:
        dyn[oname] = out_dyn
    tmp_path = onnx_path + ".tmp"
    # Exported with autograd on: with it off, torch 1.13's TransformerEncoderLayer
    # takes its fused fast path (aten::_transformer_encoder_layer_fwd), which
    # the ONNX exporter does not know.
    with torch.enable_grad():
        torch.onnx.export(model, trace_args, tmp_path, opset_version=OPSET,
                          input_names=in_names, output_names=spec["outputs"],
                          dynamic_axes=dyn, do_constant_folding=True)
    m = onnx.load(tmp_path)
    onnx.checker.check_model(m)
    for vi, (iname, _, dims) in zip(m.graph.input, spec["inputs"]):
        got = [d.dim_param if d.HasField("dim_param") else d.dim_value
               for d in vi.type.tensor_type.shape.dim]
        if got != dims:
            raise RuntimeError("%s: input %s exported with dims %s, expected %s" % (name, iname, got, dims))
    os.replace(tmp_path, onnx_path)
    ops = {}
    for node in m.graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
    entry = dict(onnx=onnx_rel, description=spec["description"], params=int(n_params),
                 onnx_bytes=os.path.getsize(onnx_path),
                 inputs=[dict(name=n, dtype=dt, dims=dims) for n, dt, dims in spec["inputs"]],
                 outputs=list(spec["outputs"]), opset=OPSET,
                 nodes=len(m.graph.node), ops=dict(sorted(ops.items())), cases=[])
    log("%s: exported (%d params, %d nodes, %.1f MB) in %.1f s" % (
        name, n_params, len(m.graph.node), entry["onnx_bytes"] / 1e6, time.time() - t0))

    model64 = spec["build"]().eval()  # same seeds: same weights, converted to float64 per case
    for ci, (cid, shapes) in enumerate(spec["cases"]):
        t1 = time.time()
        case_dir = os.path.join(out_dir, name, cid)
        os.makedirs(case_dir, exist_ok=True)
        arrays, in_files = [], {}
        for ii, (iname, dt, _) in enumerate(spec["inputs"]):
            a = make_input(iname, dt, shapes[iname], 1000 * (ci + 1) + ii)
            rel = os.path.join(name, cid, iname + ".npy")
            np.save(os.path.join(out_dir, rel), a)
            arrays.append(a)
            in_files[iname] = rel
        ys = _torch_run(model, arrays, double=False)
        ys64 = _torch_run(model64, arrays, double=True)
        refs = []
        for k, y in enumerate(ys):
            rel = os.path.join(name, cid, "ref_%d.npy" % k)
            np.save(os.path.join(out_dir, rel), y.astype(np.float32))
            refs.append(rel)
        entry["cases"].append(dict(
            id=cid, inputs=in_files, shapes={k: list(v) for k, v in shapes.items()},
            refs=refs, ref_shapes=[list(y.shape) for y in ys],
            torch_fp32_vs_fp64=max(rel_err(a, b) for a, b in zip(ys, ys64))))
        log("  %s: ref %s, torch fp32 vs fp64 %.1e (%.1f s)" % (
            cid, [list(y.shape) for y in ys], entry["cases"][-1]["torch_fp32_vs_fp64"], time.time() - t1))
    return entry


def load_manifest(out_dir):
    try:
        with open(os.path.join(out_dir, "manifest.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def entry_complete(out_dir, entry):
    files = [entry["onnx"]]
    for c in entry["cases"]:
        files += list(c["inputs"].values()) + c["refs"]
    return all(os.path.isfile(os.path.join(out_dir, f)) for f in files)


def ensure_models(out_dir=DEFAULT_OUT, names=None, force=False, log=print):
    """Makes sure out_dir holds the named models (all by default); returns the
    manifest. Exports only what is missing or stale."""
    names = list(MODELS) if names is None else list(names)
    for n in names:
        if n not in MODELS:
            raise SystemExit("unknown model %r (known: %s)" % (n, ", ".join(MODELS)))
    os.makedirs(out_dir, exist_ok=True)
    key = cache_key()
    man = load_manifest(out_dir)
    if force or man is None or man.get("key") != key:
        man = dict(key=key, opset=OPSET, models={})
    todo = []
    for n in names:
        e = man["models"].get(n)
        if e is not None and entry_complete(out_dir, e):
            log("%s: cached" % n)
        else:
            todo.append(n)
    if not todo:
        return man
    import torch  # only when something has to be exported: importing torch takes seconds
    import torchvision
    import onnx
    man.update(torch=torch.__version__, torchvision=torchvision.__version__, onnx=onnx.__version__)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    for n in todo:
        shutil.rmtree(os.path.join(out_dir, n), ignore_errors=True)
        man["models"][n] = export_model(n, MODELS[n], out_dir, log)
        # keep the model order of MODELS
        man["models"] = {k: man["models"][k] for k in MODELS if k in man["models"]}
        tmp = os.path.join(out_dir, "manifest.json.tmp")
        with open(tmp, "w") as f:
            json.dump(man, f, indent=1, sort_keys=False)
            f.write("\n")
        os.replace(tmp, os.path.join(out_dir, "manifest.json"))
    return man


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT, help="output directory (default %(default)s)")
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated subset")
    ap.add_argument("--force", action="store_true", help="export again even when cached")
    args = ap.parse_args(argv)
    import warnings
    warnings.filterwarnings("ignore")
    names = [n for n in args.models.split(",") if n]
    ensure_models(args.out, names, args.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
