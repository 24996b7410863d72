"""Writes models whose graph inputs are declared without a shape (an element
type only), for unshaped-inputs.test.

Usage: make_unshaped_inputs.py KIND OUT.onnx
  ranked    A (no shape) -> Gemm(A, B[4,3]) -> y; X (no shape) -> Conv with
            W[2,3,3,3] -> z; S (no shape, int64) is Tile's repeats of z.
            Every input takes the rank its use requires: A 2, X 4, S 1
            (of length 4, z's rank)
  unranked  C (no shape) -> Add(C, C): Add takes any rank (an error)
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def main():
    kind, out = sys.argv[1], sys.argv[2]
    inits = []
    if kind == "ranked":
        inputs = [helper.make_tensor_value_info(n, t, None) for n, t in
                  (("A", TensorProto.FLOAT), ("X", TensorProto.FLOAT), ("S", TensorProto.INT64))]
        outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
                   helper.make_tensor_value_info("r", TensorProto.FLOAT, None)]
        rng = np.random.RandomState(0)
        inits = [numpy_helper.from_array(rng.randn(4, 3).astype(np.float32), "B"),
                 numpy_helper.from_array(rng.randn(2, 3, 3, 3).astype(np.float32), "W")]
        nodes = [helper.make_node("Gemm", ["A", "B"], ["y"], name="gemm"),
                 helper.make_node("Conv", ["X", "W"], ["z"], name="conv"),
                 helper.make_node("Tile", ["z", "S"], ["r"], name="tile")]
    elif kind == "unranked":
        inputs = [helper.make_tensor_value_info("C", TensorProto.FLOAT, None)]
        outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
        nodes = [helper.make_node("Add", ["C", "C"], ["y"], name="twice")]
    else:
        raise SystemExit("unknown kind " + kind)
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="onyx-lit")
    with open(out, "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main()
