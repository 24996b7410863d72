"""Small ONNX models built with onnx.helper for the Python package tests."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper


def save(model, directory, name):
    path = os.path.join(str(directory), name + ".onnx")
    onnx.save(model, path)
    return path


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def elementwise(scale=2.0):
    """y = x * scale + b, z = ReduceSum(y, axis 1), x[n, m] f32, b[m] f32,
    plus an i64 output k = Shape(x)."""
    s = helper.make_tensor("s", TensorProto.FLOAT, [], [scale])
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    g = helper.make_graph(
        [helper.make_node("Mul", ["x", "s"], ["xs"]),
         helper.make_node("Add", ["xs", "b"], ["y"]),
         helper.make_node("ReduceSum", ["y", "axes"], ["z"], keepdims=0),
         helper.make_node("Shape", ["x"], ["k"])],
        "elementwise",
        [vi("x", TensorProto.FLOAT, ["n", "m"]), vi("b", TensorProto.FLOAT, ["m"])],
        [vi("y", TensorProto.FLOAT, ["n", "m"]), vi("z", TensorProto.FLOAT, ["n"]),
         vi("k", TensorProto.INT64, [2])],
        initializer=[s, axes])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def sequences():
    """parts = SplitToSequence(x, sizes) (axis 0), joined =
    ConcatFromSequence(parts), n = SequenceLength(xs) of a sequence input,
    o = OptionalHasElement(opt) of an optional tensor input."""
    opt_type = helper.make_optional_type_proto(
        helper.make_tensor_type_proto(TensorProto.FLOAT, ["q"]))
    g = helper.make_graph(
        [helper.make_node("SplitToSequence", ["x", "sizes"], ["parts"], axis=0),
         helper.make_node("ConcatFromSequence", ["parts"], ["joined"], axis=0),
         helper.make_node("SequenceLength", ["xs"], ["n"]),
         helper.make_node("OptionalHasElement", ["opt"], ["has"])],
        "sequences",
        [vi("x", TensorProto.FLOAT, ["r", "c"]), vi("sizes", TensorProto.INT64, ["k"]),
         helper.make_tensor_sequence_value_info("xs", TensorProto.INT32, None),
         helper.make_value_info("opt", opt_type)],
        [helper.make_tensor_sequence_value_info("parts", TensorProto.FLOAT, None),
         vi("joined", TensorProto.FLOAT, ["jr", "jc"]), vi("n", TensorProto.INT64, []),
         vi("has", TensorProto.BOOL, [])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def scale():
    """y = x * s for x[n] f32 and a scalar s[] f32, and t = s + s ([])."""
    g = helper.make_graph(
        [helper.make_node("Mul", ["x", "s"], ["y"]),
         helper.make_node("Add", ["s", "s"], ["t"])],
        "scale",
        [vi("x", TensorProto.FLOAT, ["n"]), vi("s", TensorProto.FLOAT, [])],
        [vi("y", TensorProto.FLOAT, ["n"]), vi("t", TensorProto.FLOAT, [])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m
