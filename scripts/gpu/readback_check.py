#!/usr/bin/python3
"""Runs ON the GPU machine: a CUDA artifact whose graph reads a computed
value on the host (e.g. a Reshape whose shape is a graph input, read back
from device memory) must count that readback as a host synchronization
(InferenceSession.sync_stats, what `onyx-run --stats` prints), and an
injected readback fault (InferenceSession.inject_fault) must fail exactly
one call with an error naming the node while the next call on the same
session is right.

    bash scripts/gpu/device_python.sh DIR python3 scripts/gpu/readback_check.py ARTIFACT.so DATA

DATA holds input_K.pb and output_0.pb (an ONNX node-suite test's data); the
`onyx` package is the one scripts/gpu/device_python.sh builds there.
Exit status 0 when every check holds.
"""
import glob
import os
import sys

import numpy as np
from onnx import TensorProto, numpy_helper

import onyx


def load_pb(path):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def main():
    artifact, data = sys.argv[1:3]
    inputs = [load_pb(p) for p in sorted(glob.glob(os.path.join(data, "input_*.pb")))]
    want = load_pb(os.path.join(data, "output_0.pb"))
    s = onyx.InferenceSession(artifact)
    feeds = dict(zip([i.name for i in s.get_inputs()], inputs))

    ok = True
    (got,) = s.run(None, feeds)
    per_call = s.sync_stats()["last_call"]
    print("call 1: %s, host synchronizations %d" % (
        "right" if np.array_equal(got, want) else "WRONG", per_call))
    ok &= np.array_equal(got, want) and per_call >= 1
    s.inject_fault("readback", 1)
    try:
        s.run(None, feeds)
        print("call 2: no error despite the injected fault")
        ok = False
    except onyx.OnyxError as e:
        print("call 2: error: %s" % e)
        ok &= "node '" in str(e) and "fault injected" in str(e)
    (got,) = s.run(None, feeds)
    st = s.sync_stats()
    print("call 3: %s; host synchronizations last call %d, total %d over %d calls" % (
        "right" if np.array_equal(got, want) else "WRONG", st["last_call"], st["total"],
        st["calls"]))
    ok &= np.array_equal(got, want) and st["calls"] == 3
    print("readback check:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
