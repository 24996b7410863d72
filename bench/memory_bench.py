#!/usr/bin/python3
"""Memory benchmark for onyx-pool-allocations (issue 6, RFC Fix 2).

For every model and shape: compile the model once per --pool-scheme
(lifetime = Onyx, iree = share only identical run-time sizes, none = one
runtime allocation per temporary), run each artifact with
`onyx-run --memory-report -` at the shape, and print one table row:

    model, shape, unpacked_bytes, requested_bytes (lifetime),
    requested_bytes (iree), max_live_bytes, ratio requested/max_live

plus whether the issue's targets hold (requested <= 1.10 x max_live, and
lifetime <= iree). The outputs of the three schemes must be bit-identical
(same dtype, shape and bytes; np.array_equal as well); the script exits 1
if they are not, or if anything fails to compile or run. Missing targets
are reported, not fatal (pass --strict to make them fatal too).

Models:
  - examples/mlp_classifier.onnx (symbolic batch) at batch 1, 7 and 64;
  - every bench/models/*.onnx; shapes come from a sidecar NAME.json
    ({"shapes": [{"sym": value, ...}, ...]}) or, without one, every
    symbolic dim at 1, 7 and 64;
  - models generated here with onnx.helper (fixed seeds): a pre-LN
    transformer encoder block (MatMul/Add/Softmax/Reshape/Transpose,
    ReduceMean, Erf-GELU) with a symbolic sequence length, a cross-attention
    block with two symbolic lengths, an MLP autoencoder (widths
    32-256-16-256-32) with a symbolic batch, and "adversarial_pair", a
    three-buffer graph on which the lifetime scheme's greedy grouping
    requested more than the IREE-style scheme (a planner bug, fixed);
  - with --real-models [DIR]: the real-model set of the end-to-end tests
    (ResNet-50, MobileNetV2, SqueezeNet, TransformerEncoder, a causal
    decoder; made by test/e2e/real_models/make_models.py into
    build/real_models), each at the shapes of its test cases, with the
    cases' own input files.

Usage:
  /usr/bin/python3 bench/memory_bench.py [--bin-dir build/bin]
      [--work-dir DIR] [--only NAME]... [--markdown] [--json FILE] [--strict]
"""
import argparse
import datetime
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCHEMES = ("lifetime", "iree", "none")
TARGET_RATIO = 1.10
OPSET = 13

NP_TYPES = {
    TensorProto.FLOAT: np.float32,
    TensorProto.DOUBLE: np.float64,
    TensorProto.FLOAT16: np.float16,
    TensorProto.INT64: np.int64,
    TensorProto.INT32: np.int32,
    TensorProto.INT8: np.int8,
    TensorProto.UINT8: np.uint8,
    TensorProto.BOOL: np.bool_,
}


# ----------------------------------------------------------------------------
# Generated models
# ----------------------------------------------------------------------------

class Builder:
    """A tiny graph builder over onnx.helper with deterministic weights."""

    def __init__(self, name, seed):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.inits = []
        self.count = 0

    def fresh(self, hint):
        self.count += 1
        return "%s_%d" % (hint, self.count)

    def weight(self, shape, scale=None, hint="w"):
        fan_in = shape[0] if shape else 1
        scale = scale if scale is not None else 1.0 / np.sqrt(fan_in)
        value = (scale * self.rng.standard_normal(shape)).astype(np.float32)
        return self.const(value, hint)

    def const(self, value, hint="c"):
        name = self.fresh(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(value), name=name))
        return name

    def op(self, op_type, inputs, hint=None, **attrs):
        out = self.fresh(hint or op_type.lower())
        self.nodes.append(helper.make_node(op_type, list(inputs), [out],
                                           name=out, **attrs))
        return out

    def linear(self, x, d_in, d_out):
        return self.op("Add", [self.op("MatMul", [x, self.weight((d_in, d_out))]),
                               self.weight((d_out,), 0.1)])

    def layer_norm(self, x, d, eps=1e-5):
        mean = self.op("ReduceMean", [x], axes=[-1], keepdims=1)
        xc = self.op("Sub", [x, mean])
        var = self.op("ReduceMean", [self.op("Mul", [xc, xc])], axes=[-1],
                      keepdims=1)
        denom = self.op("Sqrt", [self.op("Add", [var, self.const(
            np.array(eps, np.float32), "eps")])])
        y = self.op("Div", [xc, denom])
        gamma = self.const((1 + 0.1 * self.rng.standard_normal(d)).astype(np.float32), "gamma")
        beta = self.const((0.1 * self.rng.standard_normal(d)).astype(np.float32), "beta")
        return self.op("Add", [self.op("Mul", [y, gamma]), beta])

    def gelu(self, x):
        inner = self.op("Erf", [self.op("Div", [x, self.const(
            np.array(np.sqrt(2.0), np.float32), "sqrt2")])])
        one_plus = self.op("Add", [inner, self.const(np.array(1.0, np.float32), "one")])
        half_x = self.op("Mul", [x, self.const(np.array(0.5, np.float32), "half")])
        return self.op("Mul", [half_x, one_plus])

    def attention(self, q_in, kv_in, d, heads):
        dh = d // heads
        split = self.const(np.array([0, 0, heads, dh], np.int64), "split_shape")
        merge = self.const(np.array([0, 0, d], np.int64), "merge_shape")

        def project(x, perm):
            y = self.linear(x, d, d)
            y = self.op("Reshape", [y, split])
            return self.op("Transpose", [y], perm=perm)

        q = project(q_in, [0, 2, 1, 3])   # [1, H, Sq, Dh]
        k = project(kv_in, [0, 2, 3, 1])  # [1, H, Dh, Skv]
        v = project(kv_in, [0, 2, 1, 3])  # [1, H, Skv, Dh]
        scores = self.op("MatMul", [q, k])  # [1, H, Sq, Skv]
        scores = self.op("Mul", [scores, self.const(
            np.array(1.0 / np.sqrt(dh), np.float32), "scale")])
        probs = self.op("Softmax", [scores], axis=-1)
        ctx = self.op("MatMul", [probs, v])  # [1, H, Sq, Dh]
        ctx = self.op("Transpose", [ctx], perm=[0, 2, 1, 3])
        ctx = self.op("Reshape", [ctx, merge])
        return self.linear(ctx, d, d)

    def model(self, inputs, outputs):
        graph = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs],
            initializer=self.inits)
        m = helper.make_model(graph, producer_name="onyx-bench",
                              opset_imports=[helper.make_opsetid("", OPSET)])
        m.ir_version = 8
        onnx.checker.check_model(m, full_check=True)
        return m


def make_transformer_block(d=64, heads=4, ff=256):
    """Pre-LN encoder block: x + Attn(LN(x)), then + FFN(LN(.))."""
    b = Builder("transformer_block", seed=11)
    x = "x"
    h = b.layer_norm(x, d)
    x1 = b.op("Add", [x, b.attention(h, h, d, heads)])
    h2 = b.layer_norm(x1, d)
    ffn = b.linear(b.gelu(b.linear(h2, d, ff)), ff, d)
    b.nodes.append(helper.make_node("Add", [x1, ffn], ["y"], name="residual2"))
    return b.model([("x", [1, "seq", d])], [("y", [1, "seq", d])])


def make_cross_attention(d=64, heads=4):
    """q attends to kv: activations of Sq*D, Skv*D and H*Sq*Skv elements."""
    b = Builder("cross_attention", seed=12)
    out = b.attention("q", "kv", d, heads)
    b.nodes.append(helper.make_node("Add", ["q", out], ["y"], name="residual"))
    return b.model([("q", [1, "sq", d]), ("kv", [1, "skv", d])],
                   [("y", [1, "sq", d])])


def make_autoencoder_mlp(widths=(32, 256, 16, 256, 32)):
    """Gemm/Relu stack whose activations alternate between two widths."""
    b = Builder("autoencoder_mlp", seed=13)
    x = "x"
    for i in range(len(widths) - 1):
        w = b.weight((widths[i + 1], widths[i]), 1.0 / np.sqrt(widths[i]))
        bias = b.weight((widths[i + 1],), 0.1)
        x = b.op("Gemm", [x, w, bias], transB=1)
        if i + 2 < len(widths):
            x = b.op("Relu", [x])
    b.nodes.append(helper.make_node("Relu", [x], ["y"], name="out"))
    return b.model([("x", ["batch", widths[0]])], [("y", ["batch", widths[-1]])])


def make_adversarial_pair():
    """The planner's greedy-order weakness, end to end (see
    test/lit/Transforms/pool-allocations-not-above-iree.mlir): a [1, n] dies
    before t [1, m] is allocated; t and c [n, 1] (same byte size as a, other
    type, so it is not CSE'd into a's buffer) are then live together. The
    lifetime scheme pairs a with t and gives c a slab of its own; the
    IREE-style scheme pairs a with c."""
    b = Builder("adversarial_pair", seed=14)
    a = b.op("Relu", ["x"])                                    # [1, n]
    s = b.op("ReduceMean", [a], axes=[1], keepdims=1)          # [1, 1]
    t = b.op("Relu", ["z"])                                    # [1, m]
    c = b.op("Add", [b.op("Transpose", ["x"], perm=[1, 0]), s])  # [n, 1]
    rt = b.op("ReduceMean", [t], axes=[1], keepdims=1)         # [1, 1]
    rc = b.op("ReduceMean", [c], axes=[0], keepdims=1)         # [1, 1]
    b.nodes.append(helper.make_node("Add", [rt, rc], ["y"], name="sum"))
    return b.model([("x", [1, "n"]), ("z", [1, "m"])], [("y", [1, 1])])


GENERATED = [
    ("transformer_block", make_transformer_block,
     [{"seq": 8}, {"seq": 37}, {"seq": 128}]),
    ("cross_attention", make_cross_attention,
     [{"sq": 4, "skv": 96}, {"sq": 96, "skv": 4}, {"sq": 33, "skv": 33}]),
    ("autoencoder_mlp", make_autoencoder_mlp,
     [{"batch": 1}, {"batch": 13}, {"batch": 200}]),
    ("adversarial_pair", make_adversarial_pair,
     [{"n": 1024, "m": 64}, {"n": 64, "m": 1024}, {"n": 300, "m": 300}]),
]


# ----------------------------------------------------------------------------
# Running
# ----------------------------------------------------------------------------

class BenchError(Exception):
    pass


def run(cmd, env=None):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=env)
    if proc.returncode != 0:
        raise BenchError("%s failed (exit %d): %s" % (
            " ".join(cmd), proc.returncode, proc.stderr.strip()[-2000:]))
    return proc.stdout


def graph_inputs(model):
    """[(name, numpy dtype, [int or symbol])] of the real graph inputs."""
    inits = {i.name for i in model.graph.initializer}
    out = []
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        dims = []
        for d in tt.shape.dim:
            if d.HasField("dim_value"):
                dims.append(d.dim_value)
            else:
                dims.append(d.dim_param or "?")
        if tt.elem_type not in NP_TYPES:
            raise BenchError("input %s: unsupported element type %d" % (vi.name, tt.elem_type))
        out.append((vi.name, NP_TYPES[tt.elem_type], dims))
    return out


def make_inputs(inputs, shape, seed, directory):
    rng = np.random.default_rng(seed)
    files = []
    for name, dtype, dims in inputs:
        concrete = []
        for d in dims:
            if isinstance(d, int):
                concrete.append(d)
            elif d in shape:
                concrete.append(int(shape[d]))
            else:
                raise BenchError("no value for symbolic dim '%s' of input %s" % (d, name))
        if np.issubdtype(dtype, np.floating):
            value = rng.standard_normal(concrete).astype(dtype)
        elif dtype == np.bool_:
            value = rng.integers(0, 2, concrete).astype(np.bool_)
        else:
            value = rng.integers(0, 8, concrete).astype(dtype)
        path = os.path.join(directory, "%s.npy" % name)
        np.save(path, value)
        files.append((name, path))
    return files


def shape_label(shape):
    return ",".join("%s=%s" % (k, v) for k, v in shape.items()) or "static"


def discover_models(work_dir, only):
    """[(name, path, [shape dict])]"""
    models = [("mlp_classifier", os.path.join(ROOT, "examples", "mlp_classifier.onnx"),
               [{"batch": 1}, {"batch": 7}, {"batch": 64}])]
    for path in sorted(glob.glob(os.path.join(HERE, "models", "*.onnx"))):
        name = os.path.splitext(os.path.basename(path))[0]
        sidecar = os.path.splitext(path)[0] + ".json"
        if os.path.exists(sidecar):
            with open(sidecar) as f:
                shapes = json.load(f)["shapes"]
        else:
            symbols = []
            for _, _, dims in graph_inputs(onnx.load(path, load_external_data=False)):
                symbols += [d for d in dims if isinstance(d, str) and d not in symbols]
            shapes = [{s: v for s in symbols} for v in (1, 7, 64)] if symbols else [{}]
        models.append((name, path, shapes))
    gen_dir = os.path.join(work_dir, "generated")
    os.makedirs(gen_dir, exist_ok=True)
    for name, make, shapes in GENERATED:
        if only and name not in only:
            continue
        path = os.path.join(gen_dir, name + ".onnx")
        onnx.save(make(), path)
        models.append((name, path, shapes))
    if only:
        models = [m for m in models if m[0] in only]
    return models


def discover_real_models(directory, only):
    """[(name, path, [(label, [(input name, file)])])] from the real-model
    manifest (test/e2e/real_models/make_models.py)."""
    manifest_path = os.path.join(directory, "manifest.json")
    if not os.path.exists(manifest_path):
        raise BenchError("%s is missing: run `/usr/bin/python3 "
                         "test/e2e/real_models/make_models.py` (or the "
                         "real-model tests) first" % manifest_path)
    with open(manifest_path) as f:
        manifest = json.load(f)
    models = []
    for name, model in sorted(manifest["models"].items()):
        if only and name not in only:
            continue
        cases = []
        for case in model["cases"]:
            label = ";".join("%s=%s" % (k, "x".join(map(str, v)))
                             for k, v in case["shapes"].items())
            cases.append((label, [(k, os.path.join(directory, v))
                                  for k, v in case["inputs"].items()]))
        models.append((name, os.path.join(directory, model["onnx"]), cases))
    return models


def bench_model(name, path, shapes, args, env, work_dir):
    artifacts = {}
    for scheme in SCHEMES:
        artifact = os.path.join(work_dir, "%s.%s.so" % (name, scheme))
        run([os.path.join(args.bin_dir, "onyx-compile"), path, "-o", artifact,
             "--pool-scheme=%s" % scheme], env)
        artifacts[scheme] = artifact
    inputs = graph_inputs(onnx.load(path, load_external_data=False))
    rows = []
    for index, shape in enumerate(shapes):
        shape_dir = os.path.join(work_dir, "%s.%d" % (name, index))
        os.makedirs(shape_dir, exist_ok=True)
        if isinstance(shape, tuple):  # (label, given input files)
            label, files = shape
        else:
            label = shape_label(shape)
            files = make_inputs(inputs, shape, seed=1000 + index, directory=shape_dir)
        reports, outputs = {}, {}
        for scheme in SCHEMES:
            out_dir = os.path.join(shape_dir, "out_" + scheme)
            os.makedirs(out_dir, exist_ok=True)
            cmd = [os.path.join(args.bin_dir, "onyx-run"), artifacts[scheme],
                   "--output-dir", out_dir, "--memory-report", "-"]
            for input_name, file in files:
                cmd += ["--input", "%s=%s" % (input_name, file)]
            reports[scheme] = json.loads(run(cmd, env))
            outputs[scheme] = [np.load(p) for p in sorted(
                glob.glob(os.path.join(out_dir, "output_*.npy")),
                key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))]
        identical = True
        base = outputs["none"]
        for scheme in ("lifetime", "iree"):
            other = outputs[scheme]
            if len(other) != len(base) or not base:
                identical = False
                continue
            for a, b in zip(base, other):
                same = (a.dtype == b.dtype and a.shape == b.shape
                        and a.tobytes() == b.tobytes()
                        and np.array_equal(a, b, equal_nan=True))
                identical = identical and same
        ours, iree, none = reports["lifetime"], reports["iree"], reports["none"]
        max_live = ours["max_live_bytes"]
        row = {
            "model": name,
            "shape": label,
            "unpacked_bytes": ours["unpacked_bytes"],
            "requested_lifetime": ours["requested_bytes"],
            "requested_iree": iree["requested_bytes"],
            "max_live_bytes": max_live,
            "ratio": (ours["requested_bytes"] / max_live) if max_live else float("nan"),
            "ratio_iree": (iree["requested_bytes"] / max_live) if max_live else float("nan"),
            "pools_lifetime": len(ours["pools"]),
            "none_requested_bytes": none["requested_bytes"],
            "none_allocations": none["unplanned_temp_allocations"],
            "unplanned_lifetime": ours["unplanned_temp_allocations"],
            "max_live_iree": iree["max_live_bytes"],
            "outputs_identical": identical,
        }
        row["meets_ratio"] = bool(max_live) and row["ratio"] <= TARGET_RATIO + 1e-12
        row["not_above_iree"] = row["requested_lifetime"] <= row["requested_iree"]
        rows.append(row)
    return rows


def format_table(rows, markdown):
    headers = ["model", "shape", "unpacked_bytes", "requested (lifetime)",
               "requested (iree)", "max_live_bytes", "ratio", "iree ratio",
               "none (64 B acct.)", "pools", "<=1.10", "<=iree", "bit-identical"]
    body = []
    for r in rows:
        body.append([r["model"], r["shape"], str(r["unpacked_bytes"]),
                     str(r["requested_lifetime"]), str(r["requested_iree"]),
                     str(r["max_live_bytes"]), "%.3f" % r["ratio"],
                     "%.3f" % r["ratio_iree"], str(r["none_requested_bytes"]),
                     str(r["pools_lifetime"]),
                     "yes" if r["meets_ratio"] else "NO",
                     "yes" if r["not_above_iree"] else "NO",
                     "yes" if r["outputs_identical"] else "NO"])
    if markdown:
        lines = ["| " + " | ".join(headers) + " |",
                 "| " + " | ".join("---" if i < 2 else "---:" for i in range(len(headers))) + " |"]
        lines += ["| " + " | ".join(b) + " |" for b in body]
        return "\n".join(lines)
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h)
              for i, h in enumerate(headers)]
    fmt = lambda cells: "  ".join(c.ljust(w) if i < 2 else c.rjust(w)
                                  for i, (c, w) in enumerate(zip(cells, widths)))
    return "\n".join([fmt(headers), fmt(["-" * w for w in widths])] + [fmt(b) for b in body])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bin-dir", default=os.environ.get("ONYX_BIN_DIR", os.path.join(ROOT, "build", "bin")),
                   help="where onyx-compile and onyx-run are (default build/bin)")
    p.add_argument("--work-dir", help="keep models, artifacts, inputs and outputs here "
                   "(default: a temporary directory, removed)")
    p.add_argument("--only", action="append", default=[], help="run only this model (repeatable)")
    p.add_argument("--real-models", nargs="?", const=os.path.join(ROOT, "build", "real_models"),
                   help="also run the real-model set (default directory: build/real_models, "
                   "made by test/e2e/real_models/make_models.py); ResNet-50 alone compiles "
                   "three times, so this takes minutes")
    p.add_argument("--markdown", action="store_true", help="print the table as markdown")
    p.add_argument("--json", help="also write the rows as JSON to this file")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 also when a target (ratio <= 1.10, <= iree) is missed")
    args = p.parse_args()

    for tool in ("onyx-compile", "onyx-run"):
        if not os.access(os.path.join(args.bin_dir, tool), os.X_OK):
            print("memory_bench: error: %s is not built" % os.path.join(args.bin_dir, tool),
                  file=sys.stderr)
            return 1
    env = dict(os.environ)
    work_dir = args.work_dir or tempfile.mkdtemp(prefix="onyx-memory-bench-")
    os.makedirs(work_dir, exist_ok=True)
    rows, failures = [], []
    try:
        models = discover_models(work_dir, set(args.only))
        if args.real_models:
            try:
                models += discover_real_models(args.real_models, set(args.only))
            except BenchError as e:
                failures.append(str(e))
        for name, path, shapes in models:
            try:
                rows += bench_model(name, path, shapes, args, env, work_dir)
            except BenchError as e:
                failures.append("%s: %s" % (name, e))
                print("memory_bench: %s: %s" % (name, e), file=sys.stderr)
    finally:
        if not args.work_dir:
            shutil.rmtree(work_dir, ignore_errors=True)

    print("# onyx memory benchmark, %s, bytes per call; pooled columns count "
          "256-byte aligned footprints, 'none' the runtime's 64-byte accounting"
          % datetime.date.today().isoformat())
    print(format_table(rows, args.markdown))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)

    mismatched = [r for r in rows if not r["outputs_identical"]]
    missed = [r for r in rows if not (r["meets_ratio"] and r["not_above_iree"])]
    print()
    print("outputs bit-identical across lifetime/iree/none: %d/%d rows" % (
        len(rows) - len(mismatched), len(rows)))
    print("requested <= %.2f x max_live: %d/%d rows; lifetime <= iree: %d/%d rows" % (
        TARGET_RATIO, sum(r["meets_ratio"] for r in rows), len(rows),
        sum(r["not_above_iree"] for r in rows), len(rows)))
    for r in mismatched:
        print("MISMATCH: %s %s: outputs differ between schemes" % (r["model"], r["shape"]))
    for f in failures:
        print("FAILED: %s" % f)
    if mismatched or failures or not rows:
        return 1
    if args.strict and missed:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
