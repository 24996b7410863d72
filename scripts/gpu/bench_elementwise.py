#!/usr/bin/env python3
"""Elementwise throughput of CUDA artifacts, against PyTorch eager.

Two steps, two machines:

  here:    /usr/bin/python3 scripts/gpu/bench_elementwise.py build OUT_DIR
           writes chain_K.onnx (x[n] -> K elementwise ops -> y, n symbolic)
           for K in 1 and 129 and compiles each with onyx-compile
           --target=cuda into OUT_DIR/chain_K.so (plus libonyx_runtime.so);
  device:  python3 scripts/gpu/bench_elementwise.py run OUT_DIR [--n N]
           runs them at n elements: the median time of one inference call
           (inputs copied to the device, outputs back: pageable host memory)
           for K = 1 and K = 129; the difference over 128 is the time of one
           kernel with the copies cancelled out, and 8n bytes over it its
           bandwidth. PyTorch eager runs the same chain on a device tensor
           (CUDA events); checks that both agree with each other.

The ops cycle through Mul, Add, Tanh, Sigmoid-free forms that keep values
bounded: x*1.0001, x+(-0.0001), tanh(x), relu(x), ... (no fusion in Onyx
yet: one kernel per op).
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CHAINS = (1, 129)
OPS = ("Mul", "Add", "Tanh", "Relu")


def make_model(k, path):
    import onnx
    from onnx import TensorProto, helper
    nodes, inits = [], []
    cur = "x"
    for i in range(k):
        op = OPS[i % len(OPS)]
        out = "y" if i == k - 1 else "t%d" % i
        if op in ("Mul", "Add"):
            c = "c%d" % i
            inits.append(helper.make_tensor(c, TensorProto.FLOAT, [],
                                            [1.0001 if op == "Mul" else -0.0001]))
            nodes.append(helper.make_node(op, [cur, c], [out], name="%s_%d" % (op, i)))
        else:
            nodes.append(helper.make_node(op, [cur], [out], name="%s_%d" % (op, i)))
        cur = out
    graph = helper.make_graph(
        nodes, "chain%d" % k,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path)


def reference(x, k):
    y = x.astype(np.float32)
    for i in range(k):
        op = OPS[i % len(OPS)]
        if op == "Mul":
            y = y * np.float32(1.0001)
        elif op == "Add":
            y = y + np.float32(-0.0001)
        elif op == "Tanh":
            y = np.tanh(y)
        else:
            y = np.maximum(y, 0)
    return y


def build(out_dir, bin_dir):
    os.makedirs(out_dir, exist_ok=True)
    for k in CHAINS:
        onnx_path = os.path.join(out_dir, "chain_%d.onnx" % k)
        make_model(k, onnx_path)
        so = os.path.join(out_dir, "chain_%d.so" % k)
        t0 = time.monotonic()
        subprocess.run([os.path.join(bin_dir, "onyx-compile"), onnx_path,
                        "--target=cuda", "-o", so], check=True)
        print("compiled chain_%d.so in %.1fs (%d bytes)" % (k, time.monotonic() - t0,
                                                            os.path.getsize(so)))
    lib = os.path.join(bin_dir, "..", "lib", "libonyx_runtime.so")
    subprocess.run(["cp", lib, out_dir], check=True)


def median_ms(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)) * 1e3


def run(out_dir, n, repeat):
    sys.path.insert(0, HERE)
    from run_suite import Artifact, Runtime
    profile = os.path.join(out_dir, "profile-%d.tsv" % os.getpid())
    os.environ["ONYX_CUDA_PROFILE"] = profile  # read when sessions start
    rt = Runtime(os.path.join(out_dir, "libonyx_runtime.so"))
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    rows = []
    results = {}
    for k in CHAINS:
        art = Artifact(rt, os.path.join(out_dir, "chain_%d.so" % k))
        art.create()
        got = art.run([x])[0]
        ref = reference(x, k)
        rel = float(np.linalg.norm(got - ref) / max(np.linalg.norm(ref), 1e-30))
        art.run([x])
        ms = median_ms(lambda: art.run([x]), repeat)
        results[k] = (ms, got)
        rows.append("onyx  chain %3d  n=%d  call %.3f ms  rel.err %.2e" % (k, n, ms, rel))
        art.destroy()
    k0, k1 = CHAINS
    per_kernel = (results[k1][0] - results[k0][0]) / (k1 - k0)
    bytes_per_op = 8.0 * n
    rows.append("onyx  one kernel from call times: %.4f ms  -> %.0f GB/s "
                "(read+write %.0f MB)" % (per_kernel, bytes_per_op / (per_kernel * 1e-3) / 1e9,
                                          bytes_per_op / 1e6))
    # Device events around every launch (ONYX_CUDA_PROFILE), per kernel.
    if os.path.exists(profile):
        per = {}
        with open(profile) as f:
            for line in f:
                name, launches, ms, label = line.rstrip("\n").split("\t", 3)
                op = label.split("'")[1].split("_")[0] if "'" in label else name
                c, t = per.get(op, (0, 0.0))
                per[op] = (c + int(launches), t + float(ms))
        for op, (c, t) in sorted(per.items()):
            us = t / c * 1e3
            rows.append("onyx  kernel %-5s %6d launches  mean %.1f us  -> %.0f GB/s" % (
                op, c, us, bytes_per_op / (us * 1e-6) / 1e9))
        os.remove(profile)
    try:
        import torch
        dev = torch.device("cuda")
        xt = torch.from_numpy(x).to(dev)

        def chain(t, k):
            for i in range(k):
                op = OPS[i % len(OPS)]
                if op == "Mul":
                    t = t * 1.0001
                elif op == "Add":
                    t = t + (-0.0001)
                elif op == "Tanh":
                    t = torch.tanh(t)
                else:
                    t = torch.relu(t)
            return t
        ev = {}
        for k in CHAINS:
            for _ in range(3):
                chain(xt, k)
            torch.cuda.synchronize()
            times = []
            for _ in range(repeat):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                y = chain(xt, k)
                b.record()
                torch.cuda.synchronize()
                times.append(a.elapsed_time(b))
            ev[k] = float(np.median(times))
            diff = float(np.max(np.abs(y.cpu().numpy() - results[k][1])))
            rows.append("torch chain %3d  n=%d  device %.3f ms  max|torch-onyx| %.2e" % (
                k, n, ev[k], diff))
        tk = (ev[k1] - ev[k0]) / (k1 - k0)
        rows.append("torch one kernel: %.4f ms  -> %.0f GB/s" % (
            tk, bytes_per_op / (tk * 1e-3) / 1e9))
        # The call boundary alone: host -> device -> host of x, pageable.
        xs = torch.from_numpy(x)
        copy_ms = median_ms(lambda: xs.to(dev).cpu(), repeat)
        rows.append("torch pageable H2D+D2H of x: %.3f ms" % copy_ms)
    except Exception as e:  # noqa: BLE001
        rows.append("torch: not run (%s)" % e)
    print("\n".join(rows))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("step", choices=("build", "run"))
    ap.add_argument("dir")
    ap.add_argument("--bin-dir", default=os.path.join(REPO, "build", "bin"))
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args()
    if args.step == "build":
        build(args.dir, args.bin_dir)
    else:
        run(args.dir, args.n, args.repeat)


if __name__ == "__main__":
    main()
