"""Writes a pre-LayerNorm transformer fragment in f32 to argv[1]: x f32[n,
s, 64] -> MatMul -> h; r = x + h (the residual stream) ->
LayerNormalization (axis -1, Scale, B) -> MatMul -> y, and r + y -> w (the
stream's next step, so the sum r is used twice); LayerNormalization(x) (no
B) -> z; symbolic n, s."""
import sys

import numpy as np
from onnx import TensorProto, checker, helper, numpy_helper, save

rng = np.random.default_rng(0)


def weight(name, shape, scale=0.1, offset=0.0):
    return numpy_helper.from_array(
        (offset + scale * rng.standard_normal(shape)).astype(np.float32), name)


x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", "s", 64])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", "s", 64])
z = helper.make_tensor_value_info("z", TensorProto.FLOAT, ["n", "s", 64])
w = helper.make_tensor_value_info("w", TensorProto.FLOAT, ["n", "s", 64])
inits = [weight("w1", (64, 64)), weight("g", (64,), offset=1.0),
         weight("b", (64,)), weight("w2", (64, 64)), weight("g2", (64,), offset=1.0)]
nodes = [
    helper.make_node("MatMul", ["x", "w1"], ["h"]),
    helper.make_node("Add", ["x", "h"], ["r"]),
    helper.make_node("LayerNormalization", ["r", "g", "b"], ["ln"], axis=-1,
                     epsilon=1e-5),
    helper.make_node("MatMul", ["ln", "w2"], ["y"]),
    helper.make_node("Add", ["r", "y"], ["w"]),
    helper.make_node("LayerNormalization", ["x", "g2"], ["z"], axis=-1),
]
graph = helper.make_graph(nodes, "layer_norm_block", [x], [y, z, w], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
checker.check_model(model)
save(model, sys.argv[1])
