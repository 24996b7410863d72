#!/usr/bin/python3
"""A stand-in for onyx-run / onyx-compile used by test_node_suite_runner.py to
check node_suite.py's classification without the real compiler.

It computes `Add` of its two inputs, and misbehaves according to the name of
the test directory that holds the model (test_crash_*, test_wrong_*, ...).
A test directory with canned outputs (fake_output_K.npy or .pb next to
model.onnx) gets those copied as output_K.npy / .pb instead.
"""
import glob
import os
import shutil
import signal
import sys
import time

import numpy as np
import onnx
from onnx import numpy_helper


def main(argv):
    model = argv[0]
    name = os.path.basename(os.path.dirname(os.path.abspath(model)))
    inputs, out_dir, symbolic, emit = [], None, False, None
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--input":
            inputs.append(argv[i + 1]); i += 2; continue
        if a == "--output-dir":
            out_dir = argv[i + 1]; i += 2; continue
        if a == "-o":
            i += 2; continue
        if a == "--make-inputs-dynamic":
            symbolic = True
        elif a.startswith("--emit="):
            emit = a.split("=", 1)[1]
        i += 1

    if "import_error" in name:
        print("error: node 'n0' (Foo, domain '', opset 13): unknown op", file=sys.stderr)
        return 1
    if emit is not None:
        return 0
    if name == "test_crash_signal":
        sys.stderr.write("about to die\n"); sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGSEGV)
    if name == "test_crash_timeout":
        time.sleep(30)
    if name == "test_crash_exit":
        print("something went wrong", file=sys.stderr)
        return 3
    if name == "test_error_clean" or (name == "test_error_symbolic" and symbolic):
        print("note: context", file=sys.stderr)
        print("error: input 0 'x': dim 0 is 3, the model says 4", file=sys.stderr)
        return 1

    canned = sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(model)), "fake_output_*")))
    if canned:
        for p in canned:
            shutil.copy(p, os.path.join(out_dir, os.path.basename(p)[len("fake_"):]))
        return 0

    vals = []
    for p in inputs:
        t = onnx.TensorProto()
        with open(p, "rb") as f:
            t.ParseFromString(f.read())
        vals.append(numpy_helper.to_array(t))
    y = vals[0] + vals[1]
    if name == "test_wrong_value":
        y = y.copy(); y.flat[3] += 1.0
    if name == "test_wrong_dtype":
        y = y.astype(np.float64)
    if name == "test_wrong_shape":
        y = y.reshape(-1)
    if name == "test_pass_close":
        y = y * (1 + 5e-4)  # within rtol 1e-3
    if name != "test_wrong_missing":
        np.save(os.path.join(out_dir, "output_0.npy"), y)
    print("output 0 'y': f32%s" % list(y.shape))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
