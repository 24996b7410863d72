#!/usr/bin/python3
"""Runs ON the GPU machine: a CUDA artifact whose graph reads a computed
value on the host (e.g. a Reshape whose shape is a graph input, read back
from device memory) must count that readback as a host synchronization
(onyx_state_sync_stats, what `onyx-run --stats` prints), and an injected
readback fault (onyx_state_inject_fault) must fail exactly one call with an
error naming the node while the next call on the same session is right.

    python3 scripts/gpu/readback_check.py RUNTIME.so ARTIFACT.so DIR

DIR holds input_K.pb and output_0.pb (an ONNX node-suite test's data).
Exit status 0 when every check holds.
"""
import ctypes
import glob
import os
import sys

import numpy as np
from onnx import TensorProto, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from gpu_bench import Onyx  # noqa: E402


def load_pb(path):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def main():
    runtime, artifact, data = sys.argv[1:4]
    inputs = [load_pb(p) for p in sorted(glob.glob(os.path.join(data, "input_*.pb")))]
    want = load_pb(os.path.join(data, "output_0.pb"))
    onyx = Onyx(runtime, artifact)
    rt = onyx.rt
    u64p = ctypes.POINTER(ctypes.c_uint64)
    rt.onyx_state_sync_stats.restype = ctypes.c_int
    rt.onyx_state_sync_stats.argtypes = [ctypes.c_void_p, u64p, u64p, u64p]
    rt.onyx_state_inject_fault.restype = ctypes.c_int
    rt.onyx_state_inject_fault.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint64]

    def syncs():
        last, total, calls = ctypes.c_uint64(), ctypes.c_uint64(), ctypes.c_uint64()
        rt.onyx_state_sync_stats(onyx.state, ctypes.byref(last), ctypes.byref(total),
                                 ctypes.byref(calls))
        return last.value, total.value, calls.value

    ok = True
    lst = onyx.make_list(inputs)
    (got,) = onyx.call(lst)
    per_call = syncs()[0]
    print("call 1: %s, host synchronizations %d" % (
        "right" if np.array_equal(got, want) else "WRONG", per_call))
    ok &= np.array_equal(got, want) and per_call >= 1
    rt.onyx_state_inject_fault(onyx.state, b"readback", 1)
    try:
        onyx.call(lst)
        print("call 2: no error despite the injected fault")
        ok = False
    except RuntimeError as e:
        print("call 2: error: %s" % e)
        ok &= "node '" in str(e) and "fault injected" in str(e)
    (got,) = onyx.call(lst)
    last, total, calls = syncs()
    print("call 3: %s; host synchronizations last call %d, total %d over %d calls" % (
        "right" if np.array_equal(got, want) else "WRONG", last, total, calls))
    ok &= np.array_equal(got, want) and calls == 3
    onyx.close()
    print("readback check:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
