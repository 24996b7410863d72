"""Writes a model y = erf(x) + tanh(x), x f32[n, 64] (symbolic n), to argv[1]."""
import sys

from onnx import TensorProto, checker, helper, save

x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 64])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 64])
nodes = [helper.make_node("Erf", ["x"], ["e"]),
         helper.make_node("Tanh", ["x"], ["t"]),
         helper.make_node("Add", ["e", "t"], ["y"])]
model = helper.make_model(helper.make_graph(nodes, "erf_tanh", [x], [y]),
                          opset_imports=[helper.make_opsetid("", 13)])
checker.check_model(model)
save(model, sys.argv[1])
