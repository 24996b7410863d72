#!/usr/bin/python3
"""numpy reference for examples/mlp_classifier.onnx.

It reads the weights from the model's initializers and evaluates the graph
node by node with ONNX semantics (Gemm, MatMul, broadcasting Add/Sub/Mul/Div,
Relu, Transpose, Reshape with 0 and -1, Softmax), in float32 like the model.
It supports exactly the ops the example uses and checks the graph is the one
it expects.

Usage:
  /usr/bin/python3 examples/reference.py X.npy OUT.npy     # y for x in X.npy
  /usr/bin/python3 examples/reference.py --self-test        # check the model
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MODEL = os.path.join(HERE, "mlp_classifier.onnx")


def _attrs(node):
    return {a.name: helper_value(a) for a in node.attribute}


def helper_value(a):
    return onnx.helper.get_attribute_value(a)


def _reshape(x, shape, allowzero=0):
    shape = [int(s) for s in shape]
    out = []
    for i, s in enumerate(shape):
        out.append(x.shape[i] if (s == 0 and not allowzero) else s)
    return x.reshape(out)  # numpy resolves one -1 like ONNX


def _softmax(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=axis, keepdims=True)


def run_graph(model, feeds):
    """Evaluates MODEL's graph on FEEDS ({name: array}); returns the outputs
    in graph-output order."""
    env = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    env.update(feeds)
    for node in model.graph.node:
        a = _attrs(node)
        ins = [env[n] for n in node.input]
        op = node.op_type
        if op == "Gemm":
            A, B = ins[0], ins[1]
            if a.get("transA", 0):
                A = A.T
            if a.get("transB", 0):
                B = B.T
            y = np.float32(a.get("alpha", 1.0)) * (A @ B)
            if len(ins) > 2:
                y = y + np.float32(a.get("beta", 1.0)) * ins[2]
        elif op == "MatMul":
            y = np.matmul(ins[0], ins[1])
        elif op == "Add":
            y = ins[0] + ins[1]
        elif op == "Sub":
            y = ins[0] - ins[1]
        elif op == "Mul":
            y = ins[0] * ins[1]
        elif op == "Div":
            y = ins[0] / ins[1]
        elif op == "Relu":
            y = np.maximum(ins[0], np.zeros((), ins[0].dtype))
        elif op == "Transpose":
            y = np.transpose(ins[0], a.get("perm"))
        elif op == "Reshape":
            y = _reshape(ins[0], ins[1], a.get("allowzero", 0))
        elif op == "Softmax":
            y = _softmax(ins[0], a.get("axis", -1))
        else:
            raise NotImplementedError("reference.py: op %s" % op)
        env[node.output[0]] = np.asarray(y, dtype=ins[0].dtype)
    return [env[o.name] for o in model.graph.output]


def reference(x, model_path=DEFAULT_MODEL):
    """y = model(x) for x of shape [batch, 16], float32."""
    model = onnx.load(model_path)
    return run_graph(model, {"x": np.asarray(x, dtype=np.float32)})[0]


def self_test(model_path):
    model = onnx.load(model_path)
    onnx.checker.check_model(model, full_check=True)
    inp = model.graph.input[0].type.tensor_type.shape.dim
    assert inp[0].dim_param == "batch" and inp[1].dim_value == 16, inp
    rng = np.random.default_rng(0)
    for batch in (1, 7, 64):
        x = rng.standard_normal((batch, 16)).astype(np.float32)
        y = reference(x, model_path)
        assert y.shape == (batch, 10) and y.dtype == np.float32, (y.shape, y.dtype)
        assert np.allclose(y.sum(axis=-1), 1.0, atol=1e-5)
        # Independent float64 evaluation of the same weights (closed form).
        w = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in model.graph.initializer}
        h = np.maximum(x.astype(np.float64) @ w["W1"].T + w["b1"], 0)
        h = h.reshape(batch, 4, 8).transpose(0, 2, 1) @ w["W2"] + w["b2"]
        h = (h - w["mu"]) * w["gamma"] / w["scale"]
        logits = h.reshape(batch, 48) @ w["W3"] + w["b3"]
        y64 = np.exp(logits - logits.max(-1, keepdims=True))
        y64 /= y64.sum(-1, keepdims=True)
        err = np.abs(y - y64).max() / np.abs(y64).max()
        assert err < 1e-6, err
        print("batch %2d: y %s, sums to 1, float32 vs float64 max rel diff %.2e"
              % (batch, list(y.shape), err))
    print("reference self-test OK")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("x", nargs="?", help="input .npy (float32 [batch, 16])")
    p.add_argument("out", nargs="?", help="output .npy")
    p.add_argument("--model", default=DEFAULT_MODEL)
    p.add_argument("--self-test", action="store_true")
    args = p.parse_args()
    if args.self_test:
        self_test(args.model)
        return 0
    if not args.x or not args.out:
        p.error("X.npy and OUT.npy are required (or --self-test)")
    y = reference(np.load(args.x), args.model)
    np.save(args.out, y)
    print("y: %s %s" % (y.dtype, list(y.shape)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
