#!/usr/bin/python3
"""Models that only the CPU benchmark uses (bench/cpu_bench.py), too large to
be part of the real-model test set: exported on demand into a cache folder,
never committed.

    /usr/bin/python3 bench/bench_models.py [--out DIR] [--models bert_base_encoder] [--force]

- bert_base_encoder: a BERT-base-sized encoder, torch.nn.TransformerEncoder
  with hidden size 768, 12 heads, FFN 3072, GELU (exact: ONNX Erf), post-LN
  as BERT, 12 layers, batch_first; input x[batch, seq, 768] (the embeddings
  are not part of it). 85M parameters, a 340 MB .onnx. Random weights (normal,
  std 0.02 as BERT's initializer; LayerNorm scales 1 + 0.02 N(0, 1)), each layer
  its own, from fixed seeds; nothing downloaded.

The export is make_models.export_model's (test/e2e/real_models: PyTorch 1.13's
own exporter, opset 14, symbolic batch and sequence, the graph checked by
onnx.checker), with one small reference case (b1 s8, PyTorch's fp32 output and
its fp32-vs-fp64 noise floor). DIR (default build/bench_models) receives
manifest.json in make_models.py's format plus "key" (a hash of this file,
make_models.py and the package versions): when it matches and the files
exist, nothing is exported again and torch is not imported.
"""
import argparse
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "test", "e2e", "real_models"))
import make_models  # noqa: E402  (torch is imported only when exporting)

DEFAULT_OUT = os.path.join(REPO, "build", "bench_models")


def build_bert_base_encoder():
    import torch
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=768, nhead=12, dim_feedforward=3072,
                                             dropout=0.0, activation="gelu",
                                             batch_first=True, norm_first=False)
    enc = torch.nn.TransformerEncoder(layer, num_layers=12, enable_nested_tensor=False)
    # The layers are deep copies of one: drawn again one by one, so that the
    # 12 layers have their own weights (the exporter would otherwise store
    # one set of initializers shared by all of them).
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for name, p in enc.named_parameters():
            if name.endswith("bias"):
                p.copy_(torch.randn(p.shape, generator=gen) * 0.02)
            elif "norm" in name:
                p.copy_(1.0 + torch.randn(p.shape, generator=gen) * 0.02)
            else:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.02)
    return enc


MODELS = {
    "bert_base_encoder": dict(
        build=build_bert_base_encoder,
        description="BERT-base-sized torch.nn.TransformerEncoder: hidden 768, 12 heads, FFN 3072, "
                    "GELU, post-LN, 12 layers, batch_first (no embeddings)",
        inputs=[("x", "float32", ["batch", "seq", 768])],
        outputs=["y"],
        trace={"x": (2, 5, 768)},
        cases=[make_models._seq_case(1, 8, 768)],
    ),
}


def cache_key():
    h = hashlib.sha256(make_models.cache_key().encode())
    with open(os.path.abspath(__file__), "rb") as f:
        h.update(f.read())
    return h.hexdigest()[:16]


def ensure(out_dir=DEFAULT_OUT, names=None, force=False, log=print):
    """Exports the named models (all by default) into out_dir unless they are
    there already; returns the manifest."""
    names = list(MODELS) if names is None else list(names)
    for n in names:
        if n not in MODELS:
            raise SystemExit("unknown bench model %r (known: %s)" % (n, ", ".join(MODELS)))
    os.makedirs(out_dir, exist_ok=True)
    key = cache_key()
    man = make_models.load_manifest(out_dir)
    if force or man is None or man.get("key") != key:
        man = dict(key=key, opset=make_models.OPSET, models={})
    todo = [n for n in names
            if man["models"].get(n) is None or not make_models.entry_complete(out_dir, man["models"][n])]
    for n in names:
        if n not in todo:
            log("%s: cached in %s" % (n, out_dir))
    if not todo:
        return man
    import warnings
    warnings.filterwarnings("ignore")
    import torch
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    for n in todo:
        man["models"][n] = make_models.export_model(n, MODELS[n], out_dir, log)
        tmp = os.path.join(out_dir, "manifest.json.tmp")
        with open(tmp, "w") as f:
            json.dump(man, f, indent=1)
            f.write("\n")
        os.replace(tmp, os.path.join(out_dir, "manifest.json"))
    return man


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT, help="output directory (default %(default)s)")
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated subset")
    ap.add_argument("--force", action="store_true", help="export again even when cached")
    args = ap.parse_args(argv)
    ensure(args.out, [n for n in args.models.split(",") if n], args.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
