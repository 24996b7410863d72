"""Writes the model of embedded-weights.test: a Conv whose weight is a rank-4
initializer, so that upstream's lowering would give it a nested array type.

Usage: make_weights_model.py OUT.onnx
  x[batch,1,3,3] -> Conv(W[16,1,2,2] = 0, 1, ..., 63; B[16] = -1, ..., -16)
  -> y[batch,16,2,2]
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def main():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 1, 3, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 16, 2, 2])
    w = numpy_helper.from_array(np.arange(64, dtype=np.float32).reshape(16, 1, 2, 2), "W")
    b = numpy_helper.from_array(-np.arange(1, 17, dtype=np.float32), "B")
    node = helper.make_node("Conv", ["x", "W", "B"], ["y"], name="conv", kernel_shape=[2, 2])
    graph = helper.make_graph([node], "g", [x], [y], initializer=[w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="onyx-lit")
    with open(sys.argv[1], "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main()
