"""Writes a ResNet stem and basic block in f32 to argv[1]: x f32[n, 3, h, w]
-> Conv 3x3 pad 1 (8 channels) + Relu -> MaxPool 3x3 stride 2 pad 1 ->
Conv 1x1 + Relu -> Conv 3x3 pad 1 -> Add (the MaxPool's output) -> Relu ->
GlobalAveragePool -> Flatten -> Gemm (4 outputs); symbolic n, h, w."""
import sys

import numpy as np
from onnx import TensorProto, checker, helper, numpy_helper, save

rng = np.random.default_rng(0)


def weight(name, shape):
    return numpy_helper.from_array(
        (0.1 * rng.standard_normal(shape)).astype(np.float32), name)


x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, "h", "w"])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4])
inits = [weight("w1", (8, 3, 3, 3)), weight("b1", (8,)),
         weight("w2", (8, 8, 1, 1)), weight("b2", (8,)),
         weight("w3", (8, 8, 3, 3)), weight("b3", (8,)),
         weight("fw", (4, 8)), weight("fb", (4,))]
nodes = [
    helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c1"], ["r1"]),
    helper.make_node("MaxPool", ["r1"], ["p"], kernel_shape=[3, 3],
                     strides=[2, 2], pads=[1, 1, 1, 1]),
    helper.make_node("Conv", ["p", "w2", "b2"], ["c2"]),
    helper.make_node("Relu", ["c2"], ["r2"]),
    helper.make_node("Conv", ["r2", "w3", "b3"], ["c3"], pads=[1, 1, 1, 1]),
    helper.make_node("Add", ["c3", "p"], ["s"]),
    helper.make_node("Relu", ["s"], ["r3"]),
    helper.make_node("GlobalAveragePool", ["r3"], ["g"]),
    helper.make_node("Flatten", ["g"], ["f"]),
    helper.make_node("Gemm", ["f", "fw", "fb"], ["y"], transB=1),
]
model = helper.make_model(
    helper.make_graph(nodes, "resnet_block", [x], [y], inits),
    opset_imports=[helper.make_opsetid("", 13)])
checker.check_model(model)
save(model, sys.argv[1])
