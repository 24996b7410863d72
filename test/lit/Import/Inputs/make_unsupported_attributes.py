"""Writes one-node models whose attribute values Onyx does not implement,
for unsupported-attributes.test (never silently: each must be an error that
names the node, the attribute and the value).

Usage: make_unsupported_attributes.py KIND OUT.onnx
  spacetodepth-crd   SpaceToDepth-28 mode=CRD (the importer: only the
                     default DCR of this post-17 attribute is implemented)
  range-stash        Range-27 stash_type=0 (the importer: only the default 1)
  resize-area        Resize-19 mode=area (not an ONNX mode)
  resize-nearest-aa  Resize-19 nearest with antialias=1 (defined for linear
                     and cubic only)
  lpnorm-p3          LpNormalization p=3 (ONNX defines 1 and 2)
  strnorm-locale     StringNormalizer locale=tr_TR (Onyx does C/POSIX/en_*)
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def main():
    kind, out = sys.argv[1], sys.argv[2]
    opset, inits = 19, []
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    inputs = [x]
    if kind == "spacetodepth-crd":
        opset = 28
        node = helper.make_node("SpaceToDepth", ["x"], ["y"], name="fold", blocksize=2,
                                mode="CRD")
    elif kind == "range-stash":
        opset = 27
        inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, []) for n in "sld"]
        node = helper.make_node("Range", ["s", "l", "d"], ["y"], name="steps", stash_type=0)
    elif kind in ("resize-area", "resize-nearest-aa"):
        inits = [numpy_helper.from_array(np.array([1, 1, 0.5, 0.5], np.float32), "scales")]
        attrs = {"mode": "area"} if kind == "resize-area" else {"mode": "nearest", "antialias": 1}
        node = helper.make_node("Resize", ["x", "", "scales"], ["y"], name="shrink", **attrs)
    elif kind == "lpnorm-p3":
        node = helper.make_node("LpNormalization", ["x"], ["y"], name="norm", p=3)
    elif kind == "strnorm-locale":
        opset = 20
        inputs = [helper.make_tensor_value_info("x", TensorProto.STRING, [3])]
        y = helper.make_tensor_value_info("y", TensorProto.STRING, None)
        node = helper.make_node("StringNormalizer", ["x"], ["y"], name="upper",
                                case_change_action="UPPER", locale="tr_TR")
    else:
        raise SystemExit("unknown kind " + kind)
    graph = helper.make_graph([node], "g", inputs, [y], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="onyx-lit")
    with open(out, "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main()
