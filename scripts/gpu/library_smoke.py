#!/usr/bin/env python3
"""Small models for the CUDA library calls (cuBLASLt GEMMs, cuDNN convs).

    # here: write the models and compile them for cuda
    /usr/bin/python3 scripts/gpu/library_smoke.py make DIR
    # there (GPU machine): run each artifact and compare with ONNX Runtime
    python3 scripts/gpu/library_smoke.py run DIR --runtime LIB

Each model has symbolic dims; `run` draws fresh random inputs at two shapes
per model and checks Onyx against ONNX Runtime (CPU) by the relative error
on the norm (<= 1e-4: fp32 without TF32), so a wrong leading dim, transpose
or batch stride shows at once.
"""
import argparse
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def models():
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    F = TensorProto.FLOAT

    def w(name, shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    def model(nodes, inputs, inits, outs=("y",)):
        g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, F, s) for n, s in inputs],
                              [helper.make_tensor_value_info(o, F, None) for o in outs], inits)
        return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])

    N = helper.make_node
    out = {}
    # name: (model, {symbol: (shape A value, shape B value)})
    out["matmul_3d_2d"] = (model([N("MatMul", ["x", "W"], ["y"], name="mm")],
                                 [("x", ["b", "s", 96])], [w("W", (96, 80))]), {"b": (2, 3), "s": (17, 128)})
    out["matmul_bmm"] = (model([N("MatMul", ["q", "k"], ["y"], name="bmm")],
                               [("q", ["b", 4, "s", 32]), ("k", ["b", 4, 32, "t"])], []),
                         {"b": (1, 2), "s": (9, 128), "t": (7, 128)})
    out["matmul_2d"] = (model([N("MatMul", ["a", "b"], ["y"], name="mm2")],
                              [("a", ["m", "k"]), ("b", ["k", "n"])], []),
                        {"m": (5, 300), "k": (3, 257), "n": (1, 129)})
    out["gemm_transb_bias"] = (model([N("Gemm", ["x", "W", "B"], ["y"], transB=1, alpha=1.0, name="gemm")],
                                     [("x", ["n", 64])], [w("W", (10, 64)), w("B", (10,))]),
                               {"n": (1, 33)})
    out["gemm_transa"] = (model([N("Gemm", ["x", "W"], ["y"], transA=1, name="gemmT")],
                                [("x", [64, "n"])], [w("W", (64, 24))]), {"n": (3, 40)})
    out["conv_s2_p1_bias_relu"] = (model([N("Conv", ["x", "W", "B"], ["t"], pads=[1, 1, 1, 1], strides=[2, 2], name="conv"),
                                          N("Relu", ["t"], ["y"], name="relu")],
                                    [("x", ["n", 3, "h", "w"])], [w("W", (8, 3, 3, 3)), w("B", (8,))]),
                              {"n": (1, 4), "h": (9, 32), "w": (7, 30)})
    out["conv_residual_relu"] = (model([N("Conv", ["x", "W", "B"], ["t"], name="conv3"),
                                        N("Add", ["t", "r"], ["s"], name="add"),
                                        N("Relu", ["s"], ["y"], name="relu")],
                                       [("x", ["n", 8, "h", "w"]), ("r", ["n", 16, "h", "w"])],
                                       [w("W", (16, 8, 1, 1)), w("B", (16,))]),
                                 {"n": (1, 3), "h": (5, 28), "w": (7, 28)})
    out["conv_grouped_dilated"] = (model([N("Conv", ["x", "W"], ["y"], group=4, dilations=[2, 2], pads=[2, 2, 2, 2], name="gconv")],
                                         [("x", ["n", 8, "h", "w"])], [w("W", (12, 2, 3, 3))]),
                                   {"n": (2, 3), "h": (8, 20), "w": (9, 21)})
    out["conv_depthwise_1x1"] = (model([N("Conv", ["x", "W1"], ["t"], group=16, kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="dw"),
                                        N("Conv", ["t", "W2", "B2"], ["y"], name="pw")],
                                       [("x", ["n", 16, "h", "w"])], [w("W1", (16, 1, 3, 3)), w("W2", (32, 16, 1, 1)), w("B2", (32,))]),
                                 {"n": (1, 2), "h": (5, 14), "w": (6, 14)})
    out["conv_1d"] = (model([N("Conv", ["x", "W"], ["y"], strides=[3], name="conv1d")],
                            [("x", ["n", 4, "l"])], [w("W", (6, 4, 5))]), {"n": (1, 2), "l": (11, 50)})
    # Reductions (warp per output element in the outlined kernels).
    out["layernorm"] = (model([N("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1, epsilon=1e-5, name="ln")],
                              [("x", ["n", 768])], [w("g", (768,)), w("b", (768,))]), {"n": (3, 128)})
    out["softmax"] = (model([N("Softmax", ["x"], ["y"], axis=-1, name="sm")],
                            [("x", ["b", 12, "s", "t"])], []), {"b": (1, 2), "s": (5, 128), "t": (3, 1000)})
    out["reduce_max_mean"] = (model([N("ReduceMax", ["x"], ["m"], axes=[1, 2], keepdims=0, name="rmax"),
                                     N("ReduceMean", ["x"], ["r"], axes=[2], keepdims=0, name="rmean"),
                                     N("MatMul", ["m", "r"], ["y"], name="combine")],
                                    [("x", ["n", 40, "k"])], []), {"n": (2, 5), "k": (40, 40)})
    return out


def cmd_make(args):
    import onnx
    os.makedirs(args.dir, exist_ok=True)
    compiler = os.path.join(REPO, "build", "bin", "onyx-compile")
    for name, (m, _) in models().items():
        path = os.path.join(args.dir, name + ".onnx")
        onnx.save(m, path)
        subprocess.run([compiler, "--target=cuda", path, "-o", os.path.join(args.dir, name + ".so")], check=True)
        print("compiled", name)


def cmd_run(args):
    import onnx
    import onnxruntime as ort
    sys.path.insert(0, os.path.join(REPO, "bench"))
    from gpu_bench import Onyx, rel_err
    bad = 0
    for name, (_, dims) in models().items():
        path = os.path.join(args.dir, name + ".onnx")
        m = onnx.load(path)
        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        try:
            onyx = Onyx(args.runtime, os.path.join(args.dir, name + ".so"))
        except Exception as e:
            print("%-22s ERROR %s" % (name, e))
            bad += 1
            continue
        for case in range(2):
            rng = np.random.default_rng(100 + case)
            feeds = {}
            for inp in m.graph.input:
                shape = [d.dim_value if d.dim_param == "" else dims[d.dim_param][case]
                         for d in inp.type.tensor_type.shape.dim]
                feeds[inp.name] = rng.standard_normal(shape).astype(np.float32)
            ref = sess.run(None, feeds)[0]
            try:
                got = onyx.call(onyx.make_list(list(feeds.values())))[0]
                err = rel_err(got, ref) if got.shape == ref.shape else float("inf")
                status = "ok" if err <= 1e-4 else "WRONG"
            except Exception as e:
                err, status = float("nan"), "ERROR " + str(e)[:300]
            bad += status != "ok"
            shapes = {k: list(v.shape) for k, v in feeds.items()}
            print("%-22s %-44s rel err %.2e %s" % (name, shapes, err, status))
        onyx.close()
    print("library smoke: %s" % ("all ok" if bad == 0 else "%d not ok" % bad))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("make")
    a.add_argument("dir")
    b = sub.add_parser("run")
    b.add_argument("dir")
    b.add_argument("--runtime", required=True)
    args = p.parse_args()
    {"make": cmd_make, "run": cmd_run}[args.cmd](args)


if __name__ == "__main__":
    main()
