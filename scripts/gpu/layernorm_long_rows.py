#!/usr/bin/env python3
"""LayerNormalization over one ~2M-element row: Onyx (CUDA) and ONNX Runtime
against an fp64 numpy reference.

The node-suite runner (scripts/gpu/run_suite.py) runs each symbolic artifact
at a ~2M-element shape against ONNX Runtime (CPU provider) with rtol 1e-3 /
atol 1e-5; the LayerNormalization tests over axis 0 ([3, 699048]-like:
the whole tensor is one normalized row) differ there in ~0.3% of the
elements. This script says which side is off: both are compared with the
same LayerNorm computed in float64 on the same inputs (the runner's inputs:
numpy default_rng(7), the 2d+1 shape drawn first, then the large one).

Here (MLIR, ONNX Runtime through Node.js in --ort, default /tmp/ort_cpu):
compile the tests with --target=cuda --make-inputs-dynamic as build_suite.py
does, copy the runtime (and libomp.so.5) next to them, and write ORT's
outputs under DIR/local (not carried: 8 MiB per output):

  /usr/bin/python3 scripts/gpu/layernorm_long_rows.py prep DIR

There (the `run` tool, carrying DIR/art; device_python.sh DIR/art builds the
onyx package): run each artifact on the same inputs, write Y, Mean and
InvStdDev under $OUT:

  bash scripts/gpu/device_python.sh DIR/art python3 \\
      scripts/gpu/layernorm_long_rows.py run DIR

Here again, RESULTS being the folder the `run` tool returned:

  /usr/bin/python3 scripts/gpu/layernorm_long_rows.py compare DIR RESULTS
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Node-suite test -> its input shape (X, W and B share it: axis 0).
TESTS = {
    "test_layer_normalization_2d_axis0": (3, 4),
    "test_layer_normalization_3d_axis0_epsilon": (2, 3, 5),
    "test_layer_normalization_4d_axis0": (2, 3, 4, 5),
    "test_layer_normalization_2d_axis0_expanded": (3, 4),
}
OUTPUTS = ("Y", "Mean", "InvStdDev")

ORT_JS = r'''
const ort = require(process.argv[2]);
const fs = require("fs");
(async () => {
  const [model, prefix] = [process.argv[3], process.argv[4]];
  const sess = await ort.InferenceSession.create(model, {
    intraOpNumThreads: 1, executionProviders: ["cpu"]});
  const feeds = {};
  for (const spec of process.argv.slice(5)) {
    const [name, dims, path] = spec.split(":");
    const buf = fs.readFileSync(path);
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    feeds[name] = new ort.Tensor("float32", new Float32Array(ab),
                                 dims.split("x").map(Number));
  }
  const result = await sess.run(feeds);
  for (const n of sess.outputNames) {
    const y = result[n];
    fs.writeFileSync(prefix + "." + n + ".bin",
                     Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength));
  }
})().catch(e => { console.error(String(e)); process.exit(1); });
'''


def inputs(test):
    """X, W, B as run_suite.check_shapes draws them for the large shape."""
    shape = TESTS[test]
    big = list(shape)
    big[-1] *= max(1, (1 << 21) // int(np.prod(shape)))
    rng = np.random.default_rng(7)
    small = tuple(2 * d + 1 for d in shape)
    for _ in range(3):
        rng.standard_normal(small)
    return [rng.standard_normal(tuple(big)).astype(np.float32) for _ in range(3)]


def digest(arrays):
    return hashlib.sha1(b"".join(a.tobytes() for a in arrays)).hexdigest()[:12]


def node_dir():
    import onnx
    return os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")


def cmd_prep(args):
    sys.path.insert(0, os.path.join(REPO, "scripts", "gpu"))
    from run_suite import symbolic_model_bytes
    art = os.path.join(args.dir, "art")
    local = os.path.join(args.dir, "local")
    os.makedirs(art, exist_ok=True)
    os.makedirs(local, exist_ok=True)
    runtime = os.path.join(REPO, "build", "lib", "libonyx_runtime.so")
    shutil.copy(runtime, art)
    shutil.copy("/usr/lib/llvm-22/lib/libomp.so.5", art)
    ort_js = os.path.join(local, "ort.js")
    with open(ort_js, "w") as f:
        f.write(ORT_JS)
    ort_module = os.path.join(args.ort, "node_modules", "onnxruntime-node")
    for test in TESTS:
        model = os.path.join(node_dir(), test, "model.onnx")
        subprocess.run([os.path.join(REPO, "build", "bin", "onyx-compile"), model,
                        "--target=cuda", "--make-inputs-dynamic", "-o",
                        os.path.join(art, test + ".so")], check=True)
        sym = os.path.join(local, test + ".sym.onnx")
        with open(sym, "wb") as f:
            f.write(symbolic_model_bytes(model))
        ins = inputs(test)
        dims = "x".join(map(str, ins[0].shape))
        specs = []
        for name, a in zip(("X", "W", "B"), ins):
            path = os.path.join(local, "%s.%s.bin" % (test, name))
            a.tofile(path)
            specs.append("%s:%s:%s" % (name, dims, path))
        subprocess.run(["node", ort_js, ort_module, sym,
                        os.path.join(local, test + ".ort")] + specs, check=True)
        print("%s: %s, inputs %s" % (test, dims, digest(ins)))


def cmd_run(args):
    import onyx
    out = os.environ.get("OUT", "/tmp/onyx-out")
    for test in TESTS:
        ins = inputs(test)
        session = onyx.InferenceSession(os.path.join(args.dir, "art", test + ".so"))
        names = [i.name for i in session.get_inputs()]
        got = session.run(None, dict(zip(names, ins)))
        np.savez(os.path.join(out, test + ".npz"),
                 **{n: np.array(v, copy=True) for n, v in zip(OUTPUTS, got)})
        print("%s: inputs %s" % (test, digest(ins)), flush=True)


def reference(test, x, w, b):
    import onnx
    eps = 1e-5
    model = onnx.load(os.path.join(node_dir(), test.replace("_expanded", ""), "model.onnx"))
    for a in model.graph.node[0].attribute:
        if a.name == "epsilon":
            eps = a.f
    x, w, b = (a.astype(np.float64) for a in (x, w, b))
    mean = x.mean()
    inv = 1.0 / np.sqrt(((x - mean) ** 2).mean() + eps)
    return (x - mean) * inv * w + b, mean, inv


def cmd_compare(args):
    local = os.path.join(args.dir, "local")
    for test in TESTS:
        x, w, b = inputs(test)
        ref, mean, inv = reference(test, x, w, b)
        onyx_out = np.load(os.path.join(args.results, test + ".npz"))
        sides = {
            "ORT": [np.fromfile(os.path.join(local, "%s.ort.%s.bin" % (test, n)),
                                dtype=np.float32) for n in OUTPUTS],
            "Onyx": [onyx_out[n].ravel() for n in OUTPUTS],
        }
        print("%s %s: fp64 mean %.9g, InvStdDev %.9g" % (test, "x".join(map(str, x.shape)),
                                                         mean, inv))
        for side, (y, m, s) in sides.items():
            y = y.reshape(ref.shape)
            past = ~np.isclose(y, ref, rtol=1e-3, atol=1e-5)
            print("  %-4s mean err %.1e, InvStdDev rel err %+.2e; Y max abs err %.2e, "
                  "past rtol 1e-3/atol 1e-5 of fp64: %d (%.3f%%)"
                  % (side, m[0] - mean, s[0] / inv - 1,
                     np.abs(y.astype(np.float64) - ref).max(), past.sum(), 100 * past.mean()))
        diff = ~np.isclose(sides["Onyx"][0], sides["ORT"][0], rtol=1e-3, atol=1e-5)
        print("  Onyx vs ORT (the runner's check): %d past (%.3f%%)" % (diff.sum(),
                                                                       100 * diff.mean()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prep")
    p.add_argument("dir")
    p.add_argument("--ort", default="/tmp/ort_cpu", help="npm prefix holding onnxruntime-node")
    p = sub.add_parser("run")
    p.add_argument("dir")
    p = sub.add_parser("compare")
    p.add_argument("dir")
    p.add_argument("results")
    args = ap.parse_args()
    {"prep": cmd_prep, "run": cmd_run, "compare": cmd_compare}[args.cmd](args)


if __name__ == "__main__":
    main()
