"""Writes the small ONNX models used by the Import lit tests.

Usage: make_model.py KIND OUT.onnx
  gemm          x[batch,4] -> Gemm(transB=1, alpha=0.5, beta=2, W[3,4], b[3])
                -> Relu -> y[batch,3]; W and b are initializers
  unknown-op    one node of an op type no opset defines
  custom-domain one node in a domain Onyx does not support
  computed-shape x[batch,4] -> Slice with run-time ends (from Shape) ->
                Reshape to [batch, 2, -1] computed with Shape/Gather/Concat
                -> Relu -> y (no declared shape: the ranks are inferred)
  scan8         opset 8 Scan: init[batch,2], x[batch,3,2] (reverse), body
                sum_out = sum_in + next, scan_out = sum_out
  scan8-lens    the same with a sequence_lens input (not supported)
  opset20       x[batch,seq,8] (opset 20) -> ReduceMean-18 (axes input)
                -> Sub -> Gelu-20 (tanh) -> Split-18 (num_outputs=3: 3,3,2)
                -> y0, y1, y2 with no declared shapes (Onyx infers them)
  antialias     Resize-19 with antialias=1 (linear downscaling by 2)
  spacetodepth-crd  SpaceToDepth-28 with mode=CRD (not implemented: an
                error)
  resize13-antialias  Resize-13 carrying antialias (not a Resize-13
                attribute: an error)
  opset29       an Add at opset 29 (newer than the registry: an error)
  bad-attr-kind Flatten whose axis is a FLOAT (the schema says INT)
"""
import sys

import numpy as np
from onnx import TensorProto, TypeProto, helper, numpy_helper


def main():
    kind, out = sys.argv[1], sys.argv[2]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])
    opsets = [helper.make_opsetid("", 13)]
    inits = []
    if kind == "gemm":
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])
        inits = [
            numpy_helper.from_array(
                np.arange(12, dtype=np.float32).reshape(3, 4), "W"),
            numpy_helper.from_array(
                np.array([0.5, -1.0, 2.0], dtype=np.float32), "b"),
        ]
        nodes = [
            helper.make_node("Gemm", ["x", "W", "b"], ["g"], name="fc",
                             transB=1, alpha=0.5, beta=2.0),
            helper.make_node("Relu", ["g"], ["y"], name="act"),
        ]
    elif kind == "unknown-op":
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])
        nodes = [helper.make_node("FancyOp", ["x"], ["y"], name="mystery")]
    elif kind == "custom-domain":
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])
        nodes = [helper.make_node("Relu", ["x"], ["y"], name="vendor_relu",
                                  domain="com.example")]
        opsets.append(helper.make_opsetid("com.example", 1))
    elif kind == "computed-shape":
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
        inits = [
            numpy_helper.from_array(np.array([0], np.int64), "zero"),
            numpy_helper.from_array(np.array([1], np.int64), "one"),
            numpy_helper.from_array(np.array([2], np.int64), "two"),
            numpy_helper.from_array(np.array([-1], np.int64), "minus_one"),
        ]
        nodes = [
            helper.make_node("Shape", ["x"], ["s"], name="shape"),
            helper.make_node("Gather", ["s", "one"], ["cols"], name="cols"),
            # ends computed at run time: ONNX inference alone loses the rank
            helper.make_node("Slice", ["x", "zero", "cols", "one"], ["sl"],
                             name="slice"),
            helper.make_node("Gather", ["s", "zero"], ["rows"], name="rows"),
            helper.make_node("Concat", ["rows", "two", "minus_one"], ["t"],
                             name="target", axis=0),
            helper.make_node("Reshape", ["sl", "t"], ["r"], name="reshape"),
            helper.make_node("Relu", ["r"], ["y"], name="act"),
        ]
    elif kind in ("scan8", "scan8-lens"):
        opsets = [helper.make_opsetid("", 8)]
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                          ["batch", 3, 2])
        init = helper.make_tensor_value_info("init", TensorProto.FLOAT,
                                             ["batch", 2])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                          ["batch", 2])
        z = helper.make_tensor_value_info("z", TensorProto.FLOAT,
                                          ["batch", 3, 2])
        f2 = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2])
              for n in ("sum_in", "next", "sum_out", "scan_out")]
        body = helper.make_graph(
            [helper.make_node("Add", ["sum_in", "next"], ["sum_out"]),
             helper.make_node("Identity", ["sum_out"], ["scan_out"])],
            "body", f2[:2], f2[2:])
        inputs = [init, x]
        first = ""
        if kind == "scan8-lens":
            inputs.append(helper.make_tensor_value_info(
                "lens", TensorProto.INT32, ["batch"]))
            first = "lens"
        nodes = [helper.make_node("Scan", [first, "init", "x"], ["y", "z"],
                                  name="scan", body=body, num_scan_inputs=1,
                                  directions=[1])]
        graph = helper.make_graph(nodes, "g", inputs, [y, z])
        model = helper.make_model(graph, opset_imports=opsets,
                                  producer_name="onyx-lit")
        with open(out, "wb") as f:
            f.write(model.SerializeToString())
        return
    elif kind == "opset20":
        opsets = [helper.make_opsetid("", 20)]
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                          ["batch", "seq", 8])
        outs = [helper.make_tensor_value_info("y%d" % i, TensorProto.FLOAT,
                                              None) for i in range(3)]
        inits = [numpy_helper.from_array(np.array([-1], np.int64), "axes")]
        nodes = [
            helper.make_node("ReduceMean", ["x", "axes"], ["m"], name="mean"),
            helper.make_node("Sub", ["x", "m"], ["c"], name="center"),
            helper.make_node("Gelu", ["c"], ["g"], name="gelu",
                             approximate="tanh"),
            helper.make_node("Split", ["g"], ["y0", "y1", "y2"], name="split",
                             axis=2, num_outputs=3),
        ]
        graph = helper.make_graph(nodes, "g", [x], outs, initializer=inits)
        model = helper.make_model(graph, opset_imports=opsets,
                                  producer_name="onyx-lit")
        with open(out, "wb") as f:
            f.write(model.SerializeToString())
        return
    elif kind in ("antialias", "resize13-antialias"):
        opsets = [helper.make_opsetid("", 19 if kind == "antialias" else 13)]
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                          [1, 1, 4, 4])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
        inits = [numpy_helper.from_array(
            np.array([1, 1, 0.5, 0.5], np.float32), "scales")]
        nodes = [helper.make_node("Resize", ["x", "", "scales"], ["y"],
                                  name="shrink", mode="linear", antialias=1)]
    elif kind == "spacetodepth-crd":
        opsets = [helper.make_opsetid("", 28)]
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                          [1, 1, 4, 4])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
        nodes = [helper.make_node("SpaceToDepth", ["x"], ["y"], name="fold",
                                  blocksize=2, mode="CRD")]
    elif kind == "if-untyped":
        # Function-expanded models (e.g. AffineGrid's) declare no types on
        # their branches' outputs: the If's result is the join of what the
        # branches yield (a [2, 3] and a [2, 6] tensor: [2, ?]).
        opsets = [helper.make_opsetid("", 20)]
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
        c = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
        then_out = helper.make_value_info("t", TypeProto())
        else_out = helper.make_value_info("e", TypeProto())
        then_g = helper.make_graph(
            [helper.make_node("Neg", ["x"], ["t"], name="neg")], "then", [],
            [then_out])
        else_g = helper.make_graph(
            [helper.make_node("Concat", ["x", "x"], ["e"], name="cat",
                              axis=1)], "else", [], [else_out])
        nodes = [helper.make_node("If", ["c"], ["y"], name="pick",
                                  then_branch=then_g, else_branch=else_g)]
        graph = helper.make_graph(nodes, "g", [x, c], [y])
        model = helper.make_model(graph, opset_imports=opsets,
                                  producer_name="onyx-lit")
        with open(out, "wb") as f:
            f.write(model.SerializeToString())
        return
    elif kind == "bad-attr-kind":
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
        node = helper.make_node("Flatten", ["x"], ["y"], name="flat")
        node.attribute.extend([helper.make_attribute("axis", 1.5)])
        nodes = [node]
    elif kind == "opset29":
        opsets = [helper.make_opsetid("", 29)]
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])
        nodes = [helper.make_node("Add", ["x", "x"], ["y"], name="twice")]
    else:
        raise SystemExit("unknown kind " + kind)
    graph = helper.make_graph(nodes, "g", [x], [y], initializer=inits)
    model = helper.make_model(graph, opset_imports=opsets,
                              producer_name="onyx-lit")
    with open(out, "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main()
