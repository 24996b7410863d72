#!/usr/bin/env python3
"""The fused LayerNorm kernel (onyx.layer_norm) on the GPU, against fp64.

Here (MLIR is only here): one-node ONNX models (and MatMul -> LayerNorm ->
MatMul in fp32 compiled with --precision=fp16|bf16, the form whose casts
the op absorbs), compiled for --target=cuda --cuda-layer-norm; each must
hold exactly one onyx.layer_norm after the ONNX lowering:

  /usr/bin/python3 scripts/gpu/check_layer_norm.py compile .dev/ln

There (the `run` tool, carrying .dev/ln and a runtime folder; the onyx
package built by scripts/gpu/device_python.sh):

  python3 scripts/gpu/check_layer_norm.py run .dev/ln

A dry run of the script itself here (the generated LayerNorm of the CPU
target, PyTorch's side in f32 on the CPU; bf16 --precision does not
compile for the CPU, so that case reports FAIL):

  /usr/bin/python3 scripts/gpu/check_layer_norm.py compile /tmp/lncpu --target cpu
  PYTHONPATH=build/python /usr/bin/python3 scripts/gpu/check_layer_norm.py run /tmp/lncpu --device cpu

Every case runs at two shapes of its symbolic dims on fresh random inputs
(scaled and offset so that the mean is far from 0: the two-pass variance
matters) and its error against an fp64 reference (relative L2) is compared
with PyTorch's own error in the same precision (torch.nn.functional.
layer_norm on the GPU in the input's type; for the --precision cases the
fp32 model's f32 LayerNorm between casts, as PyTorch would run a model
converted by hand). A case passes when Onyx's error is at most 1.5x
PyTorch's or under the floor of its type (f32 1e-6, f16 1e-3, bf16 8e-3),
with every output finite. The row lengths cover the warp kernel's sizes
(64 to 1024, with and without the vector width) and the block kernel's
(4096, 20000, an odd 4099), 70000 rows (more than a grid's y limit),
normalization over two dims and no bias.

The residual cases (`res_*`) are the transformer block's form:
h = MatMul(x, w1), r = x + h, y = LayerNorm(r), z = MatMul(y, w2),
w = r + z, outputs y and w: the op reads the Add (residual), writes the sum
for the second Add and, under --precision, y in f32 for the output and in
the half type for the MatMul (a second output). Both outputs are checked.
"""
import argparse
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# name: (element type, precision flag, input dims (str: symbolic), axis,
#        bias, [shapes to run: values of the symbolic dims])
CASES = {
    "f32_bert": ("f32", None, ["b", "s", 768], -1, True, [(2, 7), (3, 128)]),
    "f32_odd": ("f32", None, ["b", "s", 1000], -1, True, [(2, 5), (1, 3)]),
    "f32_n13": ("f32", None, ["r", 13], -1, True, [(7,), (300,)]),
    "f32_n64": ("f32", None, ["r", 64], -1, False, [(70000,), (5,)]),
    "f32_4096": ("f32", None, ["r", 4096], -1, True, [(4,), (33,)]),
    "f32_4099": ("f32", None, ["r", 4099], -1, True, [(3,), (2,)]),
    "f32_20000": ("f32", None, ["r", 20000], -1, True, [(3,), (1,)]),
    "f32_two_dims": ("f32", None, ["b", 6, 16], 1, True, [(5,), (1,)]),
    "f16_768": ("f16", None, ["r", 768], -1, True, [(5,), (4096,)]),
    "f16_1024": ("f16", None, ["r", 1024], -1, True, [(9,), (2,)]),
    "f16_n13": ("f16", None, ["r", 13], -1, False, [(7,), (100,)]),
    "f16_4096": ("f16", None, ["r", 4096], -1, True, [(3,), (64,)]),
    "bf16_768": ("bf16", None, ["r", 768], -1, True, [(5,), (4096,)]),
    "bf16_5000": ("bf16", None, ["r", 5000], -1, True, [(3,), (8,)]),
    "p16_island": ("f32", "fp16", ["b", "s", 768], -1, True, [(2, 7), (4, 128)]),
    "pbf16_island": ("f32", "bf16", ["b", "s", 768], -1, True, [(2, 7), (4, 128)]),
    # (f32 weights of 768 x 768 would make the carried folder too big:
    # 512 takes the register kernel too; 202 is not a multiple of 4.)
    "res_f32": ("f32", None, ["b", "s", 512], -1, True, [(2, 7), (4, 128)]),
    "res_f16": ("f16", None, ["b", "s", 768], -1, True, [(2, 7), (4, 128)]),
    "res_f32_odd": ("f32", None, ["r", 202], -1, False, [(9,), (300,)]),
    "res_p16": ("f32", "fp16", ["b", "s", 512], -1, True, [(2, 7), (4, 128)]),
    "res_pbf16": ("f32", "bf16", ["b", "s", 512], -1, True, [(2, 7), (4, 128)]),
}
ONNX_TYPE = {"f32": 1, "f16": 10, "bf16": 16}
FLOOR = {"f32": 1e-6, "f16": 1e-3, "bf16": 8e-3}
RATIO = 1.5


def build_model(name, path):
    import onnx
    from onnx import helper as oh
    from onnx import numpy_helper
    dt, prec, dims, axis, bias, _ = CASES[name]
    rng = np.random.default_rng(7)
    rank = len(dims)
    ax = axis % rank
    norm = [d for d in dims[ax:]]
    T = ONNX_TYPE[dt]
    npt = {"f32": np.float32, "f16": np.float16, "bf16": np.float32}[dt]

    def init(nm, arr):
        if dt == "bf16":
            t = oh.make_tensor(nm, T, arr.shape, arr.astype(np.float32).flatten().tolist())
            return t
        return numpy_helper.from_array(arr.astype(npt), nm)
    inits = [init("g", 1.0 + 0.5 * rng.standard_normal(norm))]
    ln_in = ["x", "g"]
    if bias:
        inits.append(init("b", 0.3 * rng.standard_normal(norm)))
        ln_in.append("b")
    nodes = []
    hidden = dims[-1]
    residual = name.startswith("res_")
    if residual:
        for nm in ("w1", "w2"):
            inits.append(init(nm, rng.standard_normal((hidden, hidden)) / np.sqrt(hidden)))
        nodes += [oh.make_node("MatMul", ["x", "w1"], ["h"]),
                  oh.make_node("Add", ["x", "h"], ["r"]),
                  oh.make_node("LayerNormalization", ["r"] + ln_in[1:], ["y"], axis=axis,
                               epsilon=1e-5),
                  oh.make_node("MatMul", ["y", "w2"], ["z"]),
                  oh.make_node("Add", ["r", "z"], ["w"])]
        g = oh.make_graph(nodes, name, [oh.make_tensor_value_info("x", T, dims)],
                          [oh.make_tensor_value_info("y", T, dims),
                           oh.make_tensor_value_info("w", T, dims)], inits)
        m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 17)])
        onnx.checker.check_model(m)
        onnx.save(m, path)
        return
    if prec:
        # MatMul -> LayerNorm -> MatMul: the LayerNorm stays f32 between
        # casts under --precision, which the fused op absorbs.
        inits.append(numpy_helper.from_array(
            (rng.standard_normal((hidden, hidden)) / np.sqrt(hidden)).astype(np.float32), "w1"))
        inits.append(numpy_helper.from_array(
            (rng.standard_normal((hidden, hidden)) / np.sqrt(hidden)).astype(np.float32), "w2"))
        nodes.append(oh.make_node("MatMul", ["x", "w1"], ["h"]))
        ln_in[0] = "h"
    nodes.append(oh.make_node("LayerNormalization", ln_in, ["y"], axis=axis, epsilon=1e-5))
    out = "y"
    if prec:
        nodes.append(oh.make_node("MatMul", ["y", "w2"], ["z"]))
        out = "z"
    g = oh.make_graph(nodes, name, [oh.make_tensor_value_info("x", T, dims)],
                      [oh.make_tensor_value_info(out, T, dims)], inits)
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 17)])
    onnx.checker.check_model(m)
    onnx.save(m, path)


def cmd_compile(args):
    compiler = os.environ.get("ONYX_COMPILE", os.path.join(REPO, "build", "bin", "onyx-compile"))
    os.makedirs(args.out, exist_ok=True)
    bad = 0
    for name in CASES:
        src = os.path.join(args.out, name + ".onnx")
        build_model(name, src)
        prec = CASES[name][1]
        cuda = args.target == "cuda"
        flags = ["--target=" + args.target] + (["--cuda-layer-norm"] if cuda else [])
        if prec:
            flags.append("--precision=" + prec)
        ir = subprocess.run([compiler, "--emit=onyx", src, "-o", "-"] + flags,
                            capture_output=True, text=True)
        n = ir.stdout.count("onyx.layer_norm")
        r = subprocess.run([compiler, src, "-o", os.path.join(args.out, name + ".so")] + flags,
                           capture_output=True, text=True)
        ok = n == (1 if cuda else 0) and r.returncode == 0
        bad += not ok
        print("%-14s onyx.layer_norm x%d  %s" % (name, n, "ok" if r.returncode == 0 else r.stderr.strip()[-300:]))
    print("%d case(s) not formed or not compiled" % bad)
    return 1 if bad else 0


def cmd_run(args):
    import torch
    import onyx
    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    dev = args.device
    gen = torch.Generator().manual_seed(int.from_bytes(os.urandom(4), "little"))
    bad = 0
    print("%-14s %-12s %10s %10s %7s  %s" % ("case", "shape", "onyx err", "torch err", "ratio", "verdict"))
    for name, (dt, prec, dims, axis, bias, shapes) in CASES.items():
        so = os.path.join(args.art, name + ".so")
        if not os.path.exists(so):
            print("%-14s not compiled: FAIL" % name)
            bad += 1
            continue
        import onnx
        from onnx import numpy_helper
        src = os.path.join(args.art, name + ".onnx")
        if not os.path.exists(src):
            # Left behind to keep the carried folder small: the same model
            # again (fixed seed), as `compile` wrote it.
            build_model(name, src)
        model = onnx.load(src)
        w = {t.name: torch.from_numpy(numpy_helper.to_array(t).astype(np.float64)) for t in model.graph.initializer}
        sess = onyx.InferenceSession(so)
        for vals in shapes:
            it = iter(vals)
            shape = [next(it) if isinstance(d, str) else d for d in dims]
            x = (3.0 + 2.0 * torch.randn(*shape, generator=gen, dtype=torch.float64))
            xt = x.to(tdt[dt])  # the input as the model gets it
            xr = xt.double()
            rank = len(shape)
            ax = axis % rank
            ns = shape[ax:]

            def ln(v, dtype, dev):
                g = w["g"].to(dev, dtype)
                b = w["b"].to(dev, dtype) if bias else None
                return torch.nn.functional.layer_norm(v.to(dev, dtype), ns, g, b, 1e-5)
            residual = name.startswith("res_")
            if residual:
                # fp64 reference; PyTorch in the same precision: everything
                # in the model's type, or (--precision) the MatMuls in the
                # half type, Adds and the LayerNorm in f32.
                r64 = xr + xr @ w["w1"]
                y64 = ln(r64, torch.float64, "cpu")
                refs = [y64, r64 + y64 @ w["w2"]]
                if prec:
                    half = tdt[{"fp16": "f16", "bf16": "bf16"}[prec]]
                    ct = {"fp16": "f16", "bf16": "bf16"}[prec]
                    cdt = torch.float32
                else:
                    half = cdt = tdt[dt] if dev == "cuda" else torch.float32
                    ct = dt
                xs = xt.to(dev, cdt)

                def mm(a, b):
                    if dev == "cuda":
                        return (a.to(half) @ b.to(dev, half)).to(cdt)
                    return (a.to(half).float() @ b.to(half).float()).to(half).to(cdt)
                rs = xs + mm(xs, w["w1"])
                ys = ln(rs, cdt, dev)
                sames = [ys, rs + mm(ys, w["w2"])]
                sames = [v.to(tdt[dt]).cpu().double() for v in sames]
            elif prec:
                half = tdt[{"fp16": "f16", "bf16": "bf16"}[prec]]
                ref = ln(xr @ w["w1"], torch.float64, "cpu") @ w["w2"]
                # PyTorch as a user converts by hand: the MatMuls in the half
                # type, the LayerNorm in f32 between casts.
                def mm(a, b):  # in the half type (the CPU dry run: f32, rounded)
                    if dev == "cuda":
                        return a.to(half) @ b.to(dev, half)
                    return (a.to(half).float() @ b.to(half).float()).to(half)
                h = mm(xt.to(dev), w["w1"]).float()
                same = mm(ln(h, torch.float32, dev), w["w2"]).cpu().double()
                ct = {"fp16": "f16", "bf16": "bf16"}[prec]
            else:
                ref = ln(xr, torch.float64, "cpu")
                same = ln(xt, tdt[dt] if dev == "cuda" else torch.float32, dev).to(tdt[dt]).cpu().double()
                ct = dt
            if not residual:
                refs, sames = [ref], [same]
            try:
                feed = xt.to(dev) if dev == "cuda" else (
                    xt.view(torch.int16).numpy().view(np.uint16) if dt == "bf16" else xt.numpy())
                outs = sess.run(None, {sess.get_inputs()[0].name: feed})
            except Exception as e:  # noqa: BLE001
                print("%-14s %-12s error: %s" % (name, "x".join(map(str, shape)), e))
                bad += 1
                continue
            for k, (out, ref, same) in enumerate(zip(outs, refs, sames)):
                out = np.array(out, copy=True)
                if dt == "bf16":
                    o = torch.from_numpy(out.view(np.uint16).view(np.int16).copy()).view(torch.bfloat16).double()
                else:
                    o = torch.from_numpy(out).double()

                def err(v):
                    return float(torch.linalg.norm(v - ref) / torch.linalg.norm(ref))
                e, et = err(o), err(same)
                ok = bool(torch.isfinite(o).all()) and (e <= RATIO * et or e <= FLOOR[ct])
                bad += not ok
                label = name if len(refs) == 1 else "%s[%d]" % (name, k)
                print("%-14s %-12s %10.2e %10.2e %7.2f  %s" % (
                    label, "x".join(map(str, shape)), e, et, e / et if et else float("inf"),
                    "PASS" if ok else "FAIL"), flush=True)
        sess = None
    print("%d case(s) failing" % bad)
    return 1 if bad else 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile")
    c.add_argument("out")
    c.add_argument("--target", default="cuda",
                   help="cpu: the same models for the CPU (the generated LayerNorm; a dry run of `run`)")
    r = sub.add_parser("run")
    r.add_argument("art")
    r.add_argument("--device", default="cuda",
                   help="cpu: with --target=cpu artifacts, a dry run of this script (PyTorch's side in "
                   "f32 on the CPU)")
    args = p.parse_args()
    return {"compile": cmd_compile, "run": cmd_run}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
