#!/usr/bin/python3
"""Writes examples/mlp_classifier.onnx: a small classifier with a symbolic
batch dim, built only from the Foundation slice's operators (Gemm, MatMul,
Add, Sub, Mul, Div with broadcasting, Relu, Transpose, Reshape, Softmax).

    x[batch,16]
      Gemm(W1[32,16], b1[32], transB=1)   -> [batch,32]
      Relu                                -> [batch,32]
      Reshape(shape=[0,4,8])              -> [batch,4,8]   (0 copies batch)
      Transpose(perm=[0,2,1])             -> [batch,8,4]
      MatMul(W2[4,6])                     -> [batch,8,6]
      Add(b2[6])                          -> [batch,8,6]   (broadcast)
      Sub(mu[8,1])                        -> [batch,8,6]   (broadcast)
      Mul(gamma[1,8,6])                   -> [batch,8,6]   (broadcast)
      Div(scale[] = 0.25)                 -> [batch,8,6]   (scalar broadcast)
      Reshape(shape=[-1,48])              -> [batch,48]    (-1 becomes batch)
      MatMul(W3[48,10])                   -> [batch,10]
      Add(b3[10])                         -> [batch,10]
      Softmax(axis=-1)                    -> y[batch,10]

Weights are initializers drawn from a fixed seed, so the file is reproducible
byte for byte. examples/reference.py computes the same model in numpy.

Usage: /usr/bin/python3 examples/make_example.py [-o examples/mlp_classifier.onnx]
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "mlp_classifier.onnx")
SEED = 20261130
OPSET = 13


def make_weights(seed=SEED):
    rng = np.random.default_rng(seed)

    def normal(shape, fan_in):
        return (rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)

    return {
        "W1": normal((32, 16), 16),
        "b1": (0.1 * rng.standard_normal(32)).astype(np.float32),
        "shape1": np.array([0, 4, 8], dtype=np.int64),
        "W2": normal((4, 6), 4),
        "b2": (0.1 * rng.standard_normal(6)).astype(np.float32),
        "mu": (0.1 * rng.standard_normal((8, 1))).astype(np.float32),
        "gamma": (1.0 + 0.1 * rng.standard_normal((1, 8, 6))).astype(np.float32),
        "scale": np.array(0.25, dtype=np.float32),
        "shape2": np.array([-1, 48], dtype=np.int64),
        "W3": normal((48, 10), 48),
        "b3": (0.1 * rng.standard_normal(10)).astype(np.float32),
    }


def build_model(seed=SEED):
    w = make_weights(seed)
    nodes = [
        helper.make_node("Gemm", ["x", "W1", "b1"], ["h1"], name="fc1", transB=1),
        helper.make_node("Relu", ["h1"], ["h2"], name="relu1"),
        helper.make_node("Reshape", ["h2", "shape1"], ["h3"], name="split_heads"),
        helper.make_node("Transpose", ["h3"], ["h4"], name="swap", perm=[0, 2, 1]),
        helper.make_node("MatMul", ["h4", "W2"], ["h5"], name="mix"),
        helper.make_node("Add", ["h5", "b2"], ["h6"], name="mix_bias"),
        helper.make_node("Sub", ["h6", "mu"], ["h7"], name="center"),
        helper.make_node("Mul", ["h7", "gamma"], ["h8"], name="gain"),
        helper.make_node("Div", ["h8", "scale"], ["h9"], name="rescale"),
        helper.make_node("Reshape", ["h9", "shape2"], ["h10"], name="flatten"),
        helper.make_node("MatMul", ["h10", "W3"], ["h11"], name="fc2"),
        helper.make_node("Add", ["h11", "b3"], ["logits"], name="fc2_bias"),
        helper.make_node("Softmax", ["logits"], ["y"], name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes,
        "mlp_classifier",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 10])],
        initializer=[numpy_helper.from_array(v, name=k) for k, v in w.items()],
    )
    model = helper.make_model(graph, producer_name="onyx-examples",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.doc_string = "Onyx example: a small classifier with a symbolic batch dim."
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("-o", "--output", default=DEFAULT_OUT)
    args = p.parse_args()
    model = build_model()
    onnx.save(model, args.output)
    print("wrote %s (%d bytes)" % (os.path.relpath(args.output), os.path.getsize(args.output)))


if __name__ == "__main__":
    main()
