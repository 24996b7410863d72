#!/usr/bin/python3
"""The bundled example: the real-model test set's torch.nn.TransformerEncoder
(d_model 64, 4 heads, 2 layers, FFN 128, batch_first, final LayerNorm; see
build_transformer_encoder in test/e2e/real_models/make_models.py), exported by
PyTorch's own ONNX exporter with a symbolic batch AND sequence length, plus
inputs and PyTorch's outputs at the example's three shapes.

    /usr/bin/python3 examples/transformer_example.py [--out DIR] [--force]

Nothing is downloaded: the weights are PyTorch's random initialization under a
fixed seed (torch.manual_seed(0)), the inputs come from numpy generators with
fixed seeds. DIR (default build/example) receives

    example.json                       what was written (below)
    transformer_encoder.onnx           x[batch,seq,64] -> y[batch,seq,64]
    transformer_encoder/<case>/x.npy   the input of one shape case
    transformer_encoder/<case>/ref_0.npy   PyTorch's output (float32, eval mode)

example.json is the model's entry in make_models.py's manifest format
({"onnx": ..., "inputs": [...], "cases": [{"id": "b7_s16", "inputs": {"x":
...}, "shapes": {"x": [7, 16, 64]}, "refs": [...], "torch_fp32_vs_fp64": ...},
...]}) plus "key". The directory is a cache: when example.json's key (a hash of
this file, make_models.py and the torch/onnx versions) matches and its files
exist, nothing is exported again (torch is not even imported).

`check(out_dir, case, y)` compares an output with PyTorch's: the relative
error of the norms, ||y - ref|| / ||ref|| (float64), which must be <= 1e-4
like every real-model test (REL_TOL).
"""
import argparse
import hashlib
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "test", "e2e", "real_models"))
import make_models  # noqa: E402  (torch is imported only when exporting)

NAME = "transformer_encoder"
DEFAULT_OUT = os.path.join(REPO, "build", "example")
REL_TOL = 1e-4
# (batch, seq): batch 1, 7 and 64, with a sequence length of 1 among them.
SHAPES = [(1, 1), (7, 16), (64, 32)]


def spec():
    """The test set's model, at the example's shapes."""
    s = dict(make_models.MODELS[NAME])
    s["cases"] = [make_models._seq_case(b, t, 64) for b, t in SHAPES]
    return s


def cache_key():
    h = hashlib.sha256(make_models.cache_key().encode())
    with open(os.path.abspath(__file__), "rb") as f:
        h.update(f.read())
    return h.hexdigest()[:16]


def load(out_dir=DEFAULT_OUT):
    """example.json, or None when it is missing, stale or incomplete."""
    try:
        with open(os.path.join(out_dir, "example.json")) as f:
            entry = json.load(f)
    except (OSError, ValueError):
        return None
    if entry.get("key") != cache_key() or not make_models.entry_complete(out_dir, entry):
        return None
    return entry


def ensure(out_dir=DEFAULT_OUT, force=False, log=print):
    """Exports the example into out_dir unless it is there already; returns
    example.json's contents."""
    entry = None if force else load(out_dir)
    if entry is not None:
        log("example: %s (cached in %s)" % (entry["onnx"], out_dir))
        return entry
    import warnings
    warnings.filterwarnings("ignore")
    import torch
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    os.makedirs(out_dir, exist_ok=True)
    entry = make_models.export_model(NAME, spec(), out_dir, log)
    entry["key"] = cache_key()
    tmp = os.path.join(out_dir, "example.json.tmp")
    with open(tmp, "w") as f:
        json.dump(entry, f, indent=1)
        f.write("\n")
    os.replace(tmp, os.path.join(out_dir, "example.json"))
    return entry


def rel_err(y, ref):
    return make_models.rel_err(y, ref)


def check(out_dir, case, y):
    """(ok, message) for output y of one case of example.json."""
    ref = np.load(os.path.join(out_dir, case["refs"][0]))
    if y.shape != ref.shape or y.dtype != ref.dtype:
        return False, "output %s%s, PyTorch %s%s" % (y.dtype, list(y.shape), ref.dtype, list(ref.shape))
    if not np.isfinite(y).all():
        return False, "output has non-finite values"
    err = rel_err(y, ref)
    msg = "||y - torch|| / ||torch|| = %.1e (PyTorch fp32 vs fp64: %.1e)" % (
        err, case["torch_fp32_vs_fp64"])
    return err <= REL_TOL, msg


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT, help="output directory (default %(default)s)")
    ap.add_argument("--force", action="store_true", help="export again even when cached")
    args = ap.parse_args(argv)
    ensure(args.out, args.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
