"""Writes x f32[n, 3, h, w] -> Relu(Conv 3x3 pad 1, 8 channels) -> MaxPool
3x3 stride 2 ceil_mode (symbolic n, h, w) to argv[1]."""
import sys

import numpy as np
from onnx import TensorProto, checker, helper, numpy_helper, save

x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, "h", "w"])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 8, "oh", "ow"])
rng = np.random.default_rng(0)
w = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w")
b = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "b")
nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["r"]),
         helper.make_node("MaxPool", ["r"], ["y"], kernel_shape=[3, 3],
                          strides=[2, 2], ceil_mode=1)]
model = helper.make_model(
    helper.make_graph(nodes, "padded_conv_pool", [x], [y], [w, b]),
    opset_imports=[helper.make_opsetid("", 13)])
checker.check_model(model)
save(model, sys.argv[1])
