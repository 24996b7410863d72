#!/usr/bin/python3
"""`onyx-compile --precision=fp16|bf16` on the CPU target: fp32 models run in
half precision (onnx-convert-precision, docs/cuda-backend.md "Precision").

    /usr/bin/python3 test/e2e/test_precision.py [-j N]

1. Placement: each model's `--emit=onnx` IR under --precision=fp16 has
   every MatMul/Gemm/Conv in f16, every Softmax, ReduceMean, Pow, Exp and
   Sqrt in f32, every LayerNormalization either in f32 or reading and
   writing f16 with f32 statistics (stash_type = 1), the transformers'
   LayerNorms (and so their residual streams) in f16, and the graph
   signature of the fp32 compile (inputs and outputs keep their declared
   types). The same for bf16 with --target=cuda (the IR is
   target-independent). With --precision-f32-layer-norm every
   LayerNormalization is f32.
2. Values: small real models of the dynamo set (test/e2e/dynamo_models: HF
   BERT, GPT-2, timm ResNet, stored with PyTorch's fp32 outputs), compiled
   with --precision=fp16, run with onyx-run; the output must be float32,
   finite and within a relative L2 error of 5e-3 of the fp32 reference
   (measured 8e-6, 2e-4, 5e-4 with the stream in f32), and above 1e-6 (the
   half type was really used: fp32 noise is 1e-7); the same with
   --precision-f32-layer-norm. bf16 on the CPU target is a clear compile
   error (its bf16 contractions do not run yet); bf16 values are checked on
   the GPU (scripts/gpu/half_precision_check.py).
3. A LayerNorm on activations of ~2000 (whose variance, ~6e5, overflows
   f16): MatMul -> LayerNorm -> MatMul against numpy in float64, finite and
   within 5e-3; once as LayerNormalization, once decomposed as older
   exporters write it (ReduceMean, Sub, Pow, ...), where a Pow or
   ReduceMean placed in f16 would give inf.
4. --precision=fp32 is bit-identical to no --precision.
5. External weights (--external-weights): the f32 weights the f16 MatMuls
   read are converted when the session loads the file (`weight ... 10`
   metadata lines: the MatMuls' two and the f16 LayerNorm's scale and
   bias; with --precision-f32-layer-norm those two stay f32), and the
   output is
   bit-identical to the per-call Cast form
   (--precision-cast-weights-per-call).
"""
import argparse
import os
import re
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from onyx_e2e import ONYX_COMPILE, ONYX_RUN, rel_err, require_tools, run  # noqa: E402

DATA = os.path.join(HERE, "dynamo_models")
MODELS = ("hf_bert", "hf_gpt2", "timm_resnet")
CASE = 1  # the stored shape index: tokens [2, 8], images [2, 3, 48, 48]
TOL = {"fp16": 5e-3}
HALF = {"fp16": "f16", "bf16": "bf16"}
COMPUTE_OPS = ("MatMul", "Gemm", "Conv")
F32_OPS = ("Softmax", "ReduceMean", "Pow", "Exp", "Sqrt")
# Models whose LayerNorms read a half value under --precision (the stream).
HALF_STREAM = ("hf_bert", "hf_gpt2")


def elem_types(sig):
    """The element types of the tensor types in `sig`, in order."""
    return re.findall(r"tensor<(?:[?\dx]*x)?([a-z0-9]+)>", sig)


def layer_norms(ir):
    """(operand / result float types, statistics in f32) per LayerNormalization."""
    out = []
    for line in ir.splitlines():
        if '"onnx.LayerNormalization"(' not in line:
            continue
        sig = line.rsplit(" : ", 1)[-1]
        floats = [t for t in elem_types(sig) if t.startswith(("f", "bf"))]
        out.append((floats, "stash_type = 1 " in line or "stash_type = 1}" in line))
    return out


def compile_(model, so, *extra):
    r = run([ONYX_COMPILE, model, "--target=cpu", "-o", so, *extra], timeout=600)
    if r.rc != 0:
        raise AssertionError("compile failed:\n" + r.describe())


def run_model(so, inputs, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    cmd = [ONYX_RUN, so]
    for name, x in inputs.items():
        path = os.path.join(out_dir, name + ".npy")
        np.save(path, x)
        cmd += ["--input", "%s=%s" % (name, path)]
    cmd += ["--output-dir", out_dir]
    r = run(cmd, timeout=300)
    if r.rc != 0:
        raise AssertionError("run failed:\n" + r.describe())
    return np.load(os.path.join(out_dir, "output_0.npy"))


def op_types(ir, op):
    """The element types of each `"onnx.<op>"(...) : (operands) -> results`
    line: a list of (operand types, result types)."""
    out = []
    for line in ir.splitlines():
        if '"onnx.%s"(' % op not in line:
            continue
        sig = line.rsplit(" : ", 1)[-1]
        ins, _, res = sig.partition(" -> ")
        out.append((elem_types(ins), elem_types(res)))
    return out


def signature(ir):
    m = re.search(r"func\.func @main_graph\((.*?)\)\s*->\s*(.*?)\s*\{", ir, re.S)
    return re.sub(r"%[\w]+", "", m.group(0)) if m else None


def check_placement(name, work):
    """fp16 on the CPU, bf16 for cuda (the IR stage is target-independent;
    the CPU target rejects bf16)."""
    model = os.path.join(DATA, name + ".onnx")
    irs = {}
    for prec, target, extra in (("fp32", "cpu", ()), ("fp16", "cpu", ()), ("bf16", "cuda", ()),
                                ("fp16-f32ln", "cpu", ("--precision-f32-layer-norm",))):
        path = os.path.join(work, "%s-%s.mlir" % (name, prec))
        r = run([ONYX_COMPILE, model, "--emit=onnx", "--target=" + target,
                 "--precision=" + prec.split("-")[0], "-o", path, *extra], timeout=300)
        if r.rc != 0:
            raise AssertionError("emit failed:\n" + r.describe())
        irs[prec] = open(path).read()
    problems = []
    for prec in ("fp16", "bf16"):
        ir = irs[prec]
        compute = 0
        for op in COMPUTE_OPS:
            for ins, res in op_types(ir, op):
                compute += 1
                if any(t != HALF[prec] for t in ins + res):
                    problems.append("%s: %s not in %s: %s -> %s" % (prec, op, HALF[prec], ins, res))
        if compute == 0:
            problems.append("%s: no MatMul/Gemm/Conv found" % prec)
        for op in F32_OPS:
            for ins, res in op_types(ir, op):
                floats = [t for t in ins + res if t.startswith(("f", "bf"))]
                if any(t != "f32" for t in floats):
                    problems.append("%s: %s not in f32: %s -> %s" % (prec, op, ins, res))
        lns = layer_norms(ir)
        for floats, f32_stats in lns:
            if set(floats) != {"f32"} and not (f32_stats and set(floats) == {HALF[prec]}):
                problems.append("%s: LayerNormalization neither f32 nor %s with f32 statistics: %s"
                                % (prec, HALF[prec], floats))
        if name in HALF_STREAM and not any(set(f) == {HALF[prec]} for f, _ in lns):
            problems.append("%s: no LayerNormalization reads and writes %s (the stream stayed f32)"
                            % (prec, HALF[prec]))
        if "onnx.Cast" not in ir:
            problems.append("%s: no Cast at an island boundary" % prec)
        if signature(ir) != signature(irs["fp32"]):
            problems.append("%s: signature changed: %s vs %s" % (prec, signature(ir), signature(irs["fp32"])))
    for floats, _ in layer_norms(irs["fp16-f32ln"]):
        if set(floats) != {"f32"}:
            problems.append("--precision-f32-layer-norm: a LayerNormalization not in f32: %s" % floats)
    return problems


def check_bf16_cpu_error(work):
    r = run([ONYX_COMPILE, os.path.join(DATA, "hf_bert.onnx"), "--precision=bf16", "-o",
             os.path.join(work, "bf16.so")])
    want = "error: --precision=bf16 needs --target=cuda"
    if r.rc != 1 or not r.error_lines or not r.error_lines[0].startswith(want):
        return ["--precision=bf16 --target=cpu: expected one '%s' line:\n%s" % (want, r.describe())]
    return []


def check_values(name, work):
    entry_inputs = ["x"]
    data = np.load(os.path.join(DATA, name + ".npz"))
    x, ref = data["in_0_%d" % CASE], data["out_0_%d" % CASE]
    model = os.path.join(DATA, name + ".onnx")
    lines, problems = [], []
    for prec, extra in (("fp16", ()), ("fp16", ("--precision-f32-layer-norm",))):
        tag = prec + ("-f32ln" if extra else "")
        so = os.path.join(work, "%s-%s.so" % (name, tag))
        compile_(model, so, "--precision=" + prec, *extra)
        y = run_model(so, dict(zip(entry_inputs, [x])), os.path.join(work, "%s-%s-out" % (name, tag)))
        if y.dtype != ref.dtype or y.shape != ref.shape:
            problems.append("%s %s: %s%s, expected %s%s" % (name, prec, y.dtype, y.shape, ref.dtype, ref.shape))
            continue
        if not np.isfinite(y).all():
            problems.append("%s %s: non-finite output" % (name, prec))
            continue
        e = rel_err(y, ref)
        lines.append("%s --precision=%s%s: rel L2 %.2e (bound %g)" % (name, prec, " ".join(("",) + extra), e, TOL[prec]))
        if not 1e-6 < e <= TOL[prec]:
            problems.append("%s %s: rel L2 %.3e outside (1e-6, %g]" % (name, prec, e, TOL[prec]))
    return lines, problems


def large_layernorm_model(path, decomposed=False):
    """MatMul -> LayerNorm -> MatMul; `decomposed`: the LayerNorm as older
    exporters write it (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div,
    Mul, Add), where a Pow or ReduceMean placed in f16 gives inf."""
    import onnx
    from onnx import helper, numpy_helper, TensorProto
    rng = np.random.default_rng(0)
    w1 = (rng.standard_normal((16, 64)) * 200).astype(np.float32)
    w2 = (rng.standard_normal((64, 8)) * 0.1).astype(np.float32)
    g = (1 + rng.standard_normal(64) * 0.1).astype(np.float32)
    b = (rng.standard_normal(64) * 0.1).astype(np.float32)
    N = helper.make_node
    consts = [("w1", w1), ("w2", w2), ("g", g), ("b", b)]
    if decomposed:
        consts += [("two", np.array(2, np.float32)), ("eps", np.array(1e-5, np.float32))]
        ln = [N("ReduceMean", ["h"], ["mu"], axes=[-1]), N("Sub", ["h", "mu"], ["d"]),
              N("Pow", ["d", "two"], ["d2"]), N("ReduceMean", ["d2"], ["var"], axes=[-1]),
              N("Add", ["var", "eps"], ["ve"]), N("Sqrt", ["ve"], ["sd"]), N("Div", ["d", "sd"], ["z"]),
              N("Mul", ["z", "g"], ["zg"]), N("Add", ["zg", "b"], ["n"])]
    else:
        ln = [N("LayerNormalization", ["h", "g", "b"], ["n"], axis=-1, epsilon=1e-5)]
    nodes = [N("MatMul", ["x", "w1"], ["h"])] + ln + [N("MatMul", ["n", "w2"], ["y"])]
    graph = helper.make_graph(
        nodes, "ln", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", 8])],
        [numpy_helper.from_array(a, n) for n, a in consts])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return w1, w2, g, b


def check_large_layernorm(work):
    path = os.path.join(work, "ln.onnx")
    w1, w2, g, b = large_layernorm_model(path)
    large_layernorm_model(os.path.join(work, "ln_decomposed.onnx"), decomposed=True)
    x = np.random.default_rng(1).standard_normal((4, 16)).astype(np.float32)
    h = x.astype(np.float64) @ w1
    mu, var = h.mean(-1, keepdims=True), h.var(-1, keepdims=True)
    ref = ((h - mu) / np.sqrt(var + 1e-5) * g + b) @ w2
    lines, problems = ["large LayerNorm: max |activation| %.0f, variance up to %.1e" % (abs(h).max(), var.max())], []
    assert var.max() > 65504, "the test's activations must overflow f16 in a half LayerNorm"
    for tag in ("ln", "ln_decomposed"):
        prec = "fp16"
        so = os.path.join(work, "%s-%s.so" % (tag, prec))
        compile_(os.path.join(work, tag + ".onnx"), so, "--precision=" + prec)
        y = run_model(so, {"x": x}, os.path.join(work, "%s-%s-out" % (tag, prec)))
        if not np.isfinite(y).all():
            problems.append("large %s %s: non-finite output" % (tag, prec))
            continue
        e = rel_err(y, ref)
        bound = TOL[prec]
        lines.append("large %s --precision=%s: rel L2 %.2e (bound %g)" % (tag, prec, e, bound))
        if not e <= bound:
            problems.append("large %s %s: rel L2 %.3e > %g" % (tag, prec, e, bound))
    return lines, problems


def check_external_weights(work):
    """--external-weights: the f32 weights are converted to f16 when the
    session loads the file (metadata `weight ... 10`); the output is
    bit-identical to the old form that casts them in every call
    (--precision-cast-weights-per-call), and within the bound of the f64
    reference."""
    import onnx
    ext = os.path.join(work, "ln_ext")
    os.makedirs(ext, exist_ok=True)
    src = os.path.join(ext, "src.onnx")
    large_layernorm_model(src)
    model = os.path.join(ext, "ln.onnx")
    onnx.save_model(onnx.load(src), model, save_as_external_data=True,
                    all_tensors_to_one_file=True, location="ln.onnx.data", size_threshold=0)
    x = np.random.default_rng(2).standard_normal((3, 16)).astype(np.float32)
    outs, problems, lines = {}, [], []
    for tag, extra in (("load", ()), ("cast", ("--precision-cast-weights-per-call",))):
        so = os.path.join(ext, "ln-%s.so" % tag)
        compile_(model, so, "--external-weights", "--precision=fp16", *extra)
        outs[tag] = run_model(so, {"x": x}, os.path.join(ext, "out-" + tag))
    r = run([ONYX_COMPILE, model, "--external-weights", "--precision=fp16", "--emit=buffers", "-o", "-"],
            timeout=300)
    # w1 and w2 feed the f16 MatMuls, g and b the f16 LayerNorm (its input
    # is the f16 MatMul's output).
    converted = len(re.findall(r"weight \d+ \d+ \d+ \w+ ln.onnx.data 10\\0A", r.stdout))
    plain = len(re.findall(r"weight \d+ \d+ \d+ \w+ ln.onnx.data\\0A", r.stdout))
    if (converted, plain) != (4, 0):
        problems.append("external weights: %d weight lines convert to f16, %d do not (expected 4 and 0)"
                        % (converted, plain))
    if not np.array_equal(outs["load"], outs["cast"]):
        problems.append("external weights: converted at load differs from the per-call cast (max %g)"
                        % float(np.abs(outs["load"] - outs["cast"]).max()))
    lines.append("external weights --precision=fp16: %d of %d weights converted at load, %s the per-call cast"
                 % (converted, converted + plain, "bit-identical to" if np.array_equal(outs["load"], outs["cast"]) else "NOT equal to"))
    return lines, problems


def check_fp32_exact(work):
    name = "hf_bert"
    data = np.load(os.path.join(DATA, name + ".npz"))
    x = data["in_0_%d" % CASE]
    outs = []
    for tag, extra in (("default", ()), ("fp32", ("--precision=fp32",))):
        so = os.path.join(work, "%s-%s.so" % (name, tag))
        compile_(os.path.join(DATA, name + ".onnx"), so, *extra)
        outs.append(run_model(so, {"x": x}, os.path.join(work, "%s-%s-out" % (name, tag))))
    if not np.array_equal(outs[0], outs[1]):
        return ["--precision=fp32 differs from the default"]
    return []


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    require_tools(ONYX_COMPILE, ONYX_RUN)
    work = tempfile.mkdtemp(prefix="onyx-precision-")
    problems = []
    try:
        with ThreadPoolExecutor(args.j) as pool:
            placement = {n: pool.submit(check_placement, n, work) for n in MODELS}
            values = {n: pool.submit(check_values, n, work) for n in MODELS}
            ln = pool.submit(check_large_layernorm, work)
            exact = pool.submit(check_fp32_exact, work)
            bf16 = pool.submit(check_bf16_cpu_error, work)
            ext = pool.submit(check_external_weights, work)
            for n in MODELS:
                p = placement[n].result()
                print("%s placement: %s" % (n, "ok" if not p else "; ".join(p)))
                problems += ["%s placement: %s" % (n, q) for q in p]
            for n in MODELS:
                lines, p = values[n].result()
                print("\n".join(lines))
                problems += p
            lines, p = ln.result()
            print("\n".join(lines))
            problems += p
            p = exact.result()
            print("fp32 bit-exact to the default: %s" % ("ok" if not p else p[0]))
            problems += p
            lines, p = ext.result()
            print("\n".join(lines))
            problems += p
            p = bf16.result()
            print("bf16 on the CPU target: %s" % ("a clear error" if not p else p[0]))
            problems += p
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if problems:
        print("FAIL:\n  " + "\n  ".join(problems))
        return 1
    print("precision: all ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
