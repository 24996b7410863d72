#!/usr/bin/env python3
"""DimAnalysis benchmark: time `onyx-opt --onnx-dim-analysis` on generated graphs.

Generates transformer-like onnx-dialect functions with dynamic `batch` and
`seq` dims (dim_params on the inputs) and N ops, N = 1,000 / 10,000 /
100,000 by default: per layer, Q/K/V MatMuls, head split through
Shape/Gather/Concat-built Reshape shapes, Transposes, a broadcast mask Add,
Softmax, a residual Add, LayerNormalization, an MLP, and a Pad + Slice pair
on the sequence axis (an offset relation). Every layer's batch and seq dims
are provably those of the inputs, so a correct run ends with a handful of
groups however large the graph is; the script checks that.

For each size it reports the wall time of the ONNXDimAnalysis pass (analysis
plus DimGroup insertion) from `--mlir-timing`, the median of --repeat runs,
next to the parse time, and the analysis' own counters (from a trace=true
run). Usage:

    /usr/bin/python3 bench/dim_analysis_bench.py [--onyx-opt build/bin/onyx-opt]
        [--sizes 1000,10000,100000] [--repeat 3] [--keep DIR]
"""

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

HIDDEN, HEADS, HEAD_DIM, FF = 64, 4, 16, 128

PROLOGUE = f"""func.func @main_graph(%x: tensor<?x?x{HIDDEN}xf32> {{onnx.dim_params = "0:batch,1:seq"}},
                      %mask: tensor<?x?xi64> {{onnx.dim_params = "0:batch,1:seq"}})
    -> (tensor<?x?x{HIDDEN}xf32> {{onnx.dim_params = "0:batch,1:seq"}}) {{
  %wq = "onnx.Constant"() {{value = dense<0.01> : tensor<{HIDDEN}x{HIDDEN}xf32>}} : () -> tensor<{HIDDEN}x{HIDDEN}xf32>
  %w1 = "onnx.Constant"() {{value = dense<0.01> : tensor<{HIDDEN}x{FF}xf32>}} : () -> tensor<{HIDDEN}x{FF}xf32>
  %w2 = "onnx.Constant"() {{value = dense<0.01> : tensor<{FF}x{HIDDEN}xf32>}} : () -> tensor<{FF}x{HIDDEN}xf32>
  %b1 = "onnx.Constant"() {{value = dense<0.0> : tensor<{FF}xf32>}} : () -> tensor<{FF}xf32>
  %gamma = "onnx.Constant"() {{value = dense<1.0> : tensor<{HIDDEN}xf32>}} : () -> tensor<{HIDDEN}xf32>
  %scale = "onnx.Constant"() {{value = dense<0.25> : tensor<f32>}} : () -> tensor<f32>
  %i0 = "onnx.Constant"() {{value = dense<0> : tensor<i64>}} : () -> tensor<i64>
  %i1 = "onnx.Constant"() {{value = dense<1> : tensor<i64>}} : () -> tensor<i64>
  %ax0 = "onnx.Constant"() {{value = dense<[0]> : tensor<1xi64>}} : () -> tensor<1xi64>
  %ax12 = "onnx.Constant"() {{value = dense<[1, 2]> : tensor<2xi64>}} : () -> tensor<2xi64>
  %heads = "onnx.Constant"() {{value = dense<[{HEADS}, {HEAD_DIM}]> : tensor<2xi64>}} : () -> tensor<2xi64>
  %hid = "onnx.Constant"() {{value = dense<[{HIDDEN}]> : tensor<1xi64>}} : () -> tensor<1xi64>
  %pads = "onnx.Constant"() {{value = dense<[0, 1, 0, 0, 1, 0]> : tensor<6xi64>}} : () -> tensor<6xi64>
  %s1 = "onnx.Constant"() {{value = dense<[1]> : tensor<1xi64>}} : () -> tensor<1xi64>
  %e1 = "onnx.Constant"() {{value = dense<[-1]> : tensor<1xi64>}} : () -> tensor<1xi64>
  %ax1 = "onnx.Constant"() {{value = dense<[1]> : tensor<1xi64>}} : () -> tensor<1xi64>
  %none = onnx.NoValue
  %mf = "onnx.Cast"(%mask) {{to = 1 : i64}} : (tensor<?x?xi64>) -> tensor<?x?xf32>
  %mb = "onnx.Unsqueeze"(%mf, %ax12) : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x1x1x?xf32>
"""
PROLOGUE_OPS = 19

# One layer (a str.format template): {i} is the layer index, {h} its input,
# {n} its output.
LAYER = """  %sh_{i} = "onnx.Shape"(%{h}) : (tensor<?x?x{H}xf32>) -> tensor<3xi64>
  %bs_{i} = "onnx.Gather"(%sh_{i}, %i0) {{axis = 0 : i64}} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %sq_{i} = "onnx.Gather"(%sh_{i}, %i1) {{axis = 0 : i64}} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %bs1_{i} = "onnx.Unsqueeze"(%bs_{i}, %ax0) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %sq1_{i} = "onnx.Unsqueeze"(%sq_{i}, %ax0) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %shp4_{i} = "onnx.Concat"(%bs1_{i}, %sq1_{i}, %heads) {{axis = 0 : i64}} : (tensor<1xi64>, tensor<1xi64>, tensor<2xi64>) -> tensor<4xi64>
  %shp3_{i} = "onnx.Concat"(%bs1_{i}, %sq1_{i}, %hid) {{axis = 0 : i64}} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %q_{i} = "onnx.MatMul"(%{h}, %wq) : (tensor<?x?x{H}xf32>, tensor<{H}x{H}xf32>) -> tensor<?x?x{H}xf32>
  %k_{i} = "onnx.MatMul"(%{h}, %wq) : (tensor<?x?x{H}xf32>, tensor<{H}x{H}xf32>) -> tensor<?x?x{H}xf32>
  %v_{i} = "onnx.MatMul"(%{h}, %wq) : (tensor<?x?x{H}xf32>, tensor<{H}x{H}xf32>) -> tensor<?x?x{H}xf32>
  %q4_{i} = "onnx.Reshape"(%q_{i}, %shp4_{i}) : (tensor<?x?x{H}xf32>, tensor<4xi64>) -> tensor<?x?x{NH}x{HD}xf32>
  %k4_{i} = "onnx.Reshape"(%k_{i}, %shp4_{i}) : (tensor<?x?x{H}xf32>, tensor<4xi64>) -> tensor<?x?x{NH}x{HD}xf32>
  %v4_{i} = "onnx.Reshape"(%v_{i}, %shp4_{i}) : (tensor<?x?x{H}xf32>, tensor<4xi64>) -> tensor<?x?x{NH}x{HD}xf32>
  %qt_{i} = "onnx.Transpose"(%q4_{i}) {{perm = [0, 2, 1, 3]}} : (tensor<?x?x{NH}x{HD}xf32>) -> tensor<?x{NH}x?x{HD}xf32>
  %kt_{i} = "onnx.Transpose"(%k4_{i}) {{perm = [0, 2, 3, 1]}} : (tensor<?x?x{NH}x{HD}xf32>) -> tensor<?x{NH}x{HD}x?xf32>
  %vt_{i} = "onnx.Transpose"(%v4_{i}) {{perm = [0, 2, 1, 3]}} : (tensor<?x?x{NH}x{HD}xf32>) -> tensor<?x{NH}x?x{HD}xf32>
  %sc_{i} = "onnx.MatMul"(%qt_{i}, %kt_{i}) : (tensor<?x{NH}x?x{HD}xf32>, tensor<?x{NH}x{HD}x?xf32>) -> tensor<?x{NH}x?x?xf32>
  %scs_{i} = "onnx.Mul"(%sc_{i}, %scale) : (tensor<?x{NH}x?x?xf32>, tensor<f32>) -> tensor<?x{NH}x?x?xf32>
  %msk_{i} = "onnx.Add"(%scs_{i}, %mb) : (tensor<?x{NH}x?x?xf32>, tensor<?x1x1x?xf32>) -> tensor<?x{NH}x?x?xf32>
  %p_{i} = "onnx.Softmax"(%msk_{i}) {{axis = -1 : i64}} : (tensor<?x{NH}x?x?xf32>) -> tensor<?x{NH}x?x?xf32>
  %o_{i} = "onnx.MatMul"(%p_{i}, %vt_{i}) : (tensor<?x{NH}x?x?xf32>, tensor<?x{NH}x?x{HD}xf32>) -> tensor<?x{NH}x?x{HD}xf32>
  %ot_{i} = "onnx.Transpose"(%o_{i}) {{perm = [0, 2, 1, 3]}} : (tensor<?x{NH}x?x{HD}xf32>) -> tensor<?x?x{NH}x{HD}xf32>
  %o3_{i} = "onnx.Reshape"(%ot_{i}, %shp3_{i}) : (tensor<?x?x{NH}x{HD}xf32>, tensor<3xi64>) -> tensor<?x?x{H}xf32>
  %pr_{i} = "onnx.MatMul"(%o3_{i}, %wq) : (tensor<?x?x{H}xf32>, tensor<{H}x{H}xf32>) -> tensor<?x?x{H}xf32>
  %r_{i} = "onnx.Add"(%{h}, %pr_{i}) : (tensor<?x?x{H}xf32>, tensor<?x?x{H}xf32>) -> tensor<?x?x{H}xf32>
  %ln_{i}:3 = "onnx.LayerNormalization"(%r_{i}, %gamma, %none) : (tensor<?x?x{H}xf32>, tensor<{H}xf32>, none) -> (tensor<?x?x{H}xf32>, none, none)
  %f_{i} = "onnx.MatMul"(%ln_{i}#0, %w1) : (tensor<?x?x{H}xf32>, tensor<{H}x{FF}xf32>) -> tensor<?x?x{FF}xf32>
  %fb_{i} = "onnx.Add"(%f_{i}, %b1) : (tensor<?x?x{FF}xf32>, tensor<{FF}xf32>) -> tensor<?x?x{FF}xf32>
  %a_{i} = "onnx.Relu"(%fb_{i}) : (tensor<?x?x{FF}xf32>) -> tensor<?x?x{FF}xf32>
  %f2_{i} = "onnx.MatMul"(%a_{i}, %w2) : (tensor<?x?x{FF}xf32>, tensor<{FF}x{H}xf32>) -> tensor<?x?x{H}xf32>
  %y_{i} = "onnx.Add"(%ln_{i}#0, %f2_{i}) : (tensor<?x?x{H}xf32>, tensor<?x?x{H}xf32>) -> tensor<?x?x{H}xf32>
  %pd_{i} = "onnx.Pad"(%y_{i}, %pads, %none) : (tensor<?x?x{H}xf32>, tensor<6xi64>, none) -> tensor<?x?x{H}xf32>
  %h{n} = "onnx.Slice"(%pd_{i}, %s1, %e1, %ax1, %none) : (tensor<?x?x{H}xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<?x?x{H}xf32>
"""
LAYER_OPS = 33


def generate(num_ops):
    layers = max(1, -(-(num_ops - PROLOGUE_OPS - 2) // LAYER_OPS))  # ceil
    parts = [PROLOGUE, "  %h0 = \"onnx.Identity\"(%x) : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32>\n"]
    for i in range(layers):
        parts.append(LAYER.format(i=i, h=f"h{i}", n=i + 1, H=HIDDEN, NH=HEADS,
                                  HD=HEAD_DIM, FF=FF))
    parts.append(f"  return %h{layers} : tensor<?x?x{HIDDEN}xf32>\n}}\n")
    return "".join(parts), PROLOGUE_OPS + 1 + layers * LAYER_OPS + 1


def pass_times(onyx_opt, path):
    out = subprocess.run(
        [onyx_opt, path, "--onnx-dim-analysis", "--mlir-timing", "-o", "/dev/null"],
        check=True, capture_output=True, text=True).stderr
    def grab(name):
        m = re.search(r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+" + name + r"$", out, re.M)
        return float(m.group(1)) if m else float("nan")
    return grab("ONNXDimAnalysis"), grab("Parser")


def counters(onyx_opt, path):
    err = subprocess.run(
        [onyx_opt, path, "--onnx-dim-analysis=trace=true", "-o", "/dev/null"],
        check=True, capture_output=True, text=True).stderr
    last = [l for l in err.splitlines() if l.startswith("dim-analysis:") and "iterations" in l]
    relations = re.search(r"offset relations \((\d+)\)", err)
    return (last[-1][len("dim-analysis: "):] if last else "?",
            int(relations.group(1)) if relations else -1)


def machine():
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--onyx-opt", default=os.path.join(root, "build", "bin", "onyx-opt"))
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", help="write the generated graphs into this directory")
    args = parser.parse_args()

    print(f"# DimAnalysis benchmark, {time.strftime('%Y-%m-%d %H:%M')}")
    print(f"# machine: {machine()}")
    print(f"# command: {' '.join([os.path.relpath(sys.argv[0], root)] + sys.argv[1:])}")
    print("| ops | analysis + DimGroup insertion (s, median) | parse (s) | us/op | groups | offset relations | counters |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = args.keep or tmp
        os.makedirs(out_dir, exist_ok=True)
        for size in [int(s) for s in args.sizes.split(",")]:
            text, num_ops = generate(size)
            path = os.path.join(out_dir, f"dim_analysis_bench_{size}.mlir")
            with open(path, "w") as f:
                f.write(text)
            runs = [pass_times(args.onyx_opt, path) for _ in range(args.repeat)]
            analysis = statistics.median(r[0] for r in runs)
            parse = statistics.median(r[1] for r in runs)
            summary, relations = counters(args.onyx_opt, path)
            groups = int(re.search(r"(\d+) groups", summary).group(1)) if "groups" in summary else -1
            # batch, seq and the padded seq (seq + 2, one group for every
            # layer): three groups at any size.
            ok &= groups == 3 and relations == 1
            print(f"| {num_ops} | {analysis:.4f} | {parse:.4f} | {analysis / num_ops * 1e6:.2f} "
                  f"| {groups} | {relations} | {summary} |")
    if not ok:
        print("error: expected 3 groups (batch, seq, seq + 2) and 1 offset relation")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
