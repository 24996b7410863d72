#!/usr/bin/env python3
"""The session memory limit on the GPU (issue 19, docs/runtime.md "Memory
limit"): a CUDA artifact of Range(0, n, 1) -> Mul -> ReduceSum (the range a
device temporary in a pool laid out at run time) with ONYX_MAX_ALLOC_BYTES=1G.
n = 3e9 must fail with one OnyxError naming the node and the bytes, the
session must stay usable, and n = 1000 must give numpy's result.

Run on the GPU machine through the onyx package:

  bash scripts/gpu/device_python.sh DIR python3 scripts/gpu/memory_limit_check.py DIR/range_temp_cuda.so

Make the artifact here: `python3 scripts/gpu/memory_limit_check.py --make
DIR` writes DIR/range_temp.onnx; then `onyx-compile --target=cuda
DIR/range_temp.onnx -o DIR/range_temp_cuda.so`.
"""
import os
import sys

import numpy as np


def make(directory):
    from onnx import TensorProto, helper
    vi = helper.make_tensor_value_info
    nodes = [helper.make_node("Range", ["a", "b", "c"], ["r"], name="range_node"),
             helper.make_node("Mul", ["r", "r"], ["sq"], name="square"),
             helper.make_node("ReduceSum", ["sq"], ["y"], name="total", keepdims=0)]
    graph = helper.make_graph(nodes, "range_temp_limit",
                              [vi(n, TensorProto.FLOAT, []) for n in "abc"],
                              [vi("y", TensorProto.FLOAT, [])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    path = os.path.join(directory, "range_temp.onnx")
    with open(path, "wb") as f:
        f.write(m.SerializeToString())
    print(path)


def check(artifact):
    os.environ["ONYX_MAX_ALLOC_BYTES"] = "1G"
    import onyx
    s = onyx.InferenceSession(artifact)

    def feeds(n):
        return {"a": np.float32(0), "b": np.float32(n), "c": np.float32(1)}

    failures = 0
    try:
        s.run(None, feeds(3e9))
        print("FAIL: n = 3e9 ran under a 1 GiB limit")
        failures += 1
    except onyx.OnyxError as e:
        message = str(e)
        want = "node 'range_node': growing pool 0 for its temporary of 12000000000 bytes"
        ok = want in message and "memory limit of 1073741824 bytes" in message
        print("%s: %s" % ("PASS" if ok else "FAIL", message))
        failures += not ok
    (y,) = s.run(None, feeds(1000))
    want = np.sum(np.arange(1000, dtype=np.float64) ** 2)
    ok = abs(float(y) - want) <= 1e-5 * want
    print("%s: n = 1000 after the error gives %r (numpy %r)" % ("PASS" if ok else "FAIL", float(y), want))
    failures += not ok
    return failures


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--make":
        make(sys.argv[2])
        sys.exit(0)
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(1 if check(sys.argv[1]) else 0)
