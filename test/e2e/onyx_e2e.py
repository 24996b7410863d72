"""Shared helpers for Onyx's Python end-to-end tests (run with /usr/bin/python3)."""
import os
import signal
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN_DIR = os.environ.get("ONYX_BIN_DIR", os.path.join(REPO, "build", "bin"))
ONYX_COMPILE = os.path.join(BIN_DIR, "onyx-compile")
ONYX_RUN = os.path.join(BIN_DIR, "onyx-run")
EXAMPLE = os.environ.get("ONYX_EXAMPLE_MODEL", os.path.join(REPO, "examples", "mlp_classifier.onnx"))


def require_tools(*tools):
    """Raises (fails the test, not a skip) when a tool is not built."""
    for t in tools:
        if not os.access(t, os.X_OK):
            raise AssertionError("%s is not built (run scripts/build.sh)" % t)


class Result:
    def __init__(self, cmd, rc, stdout, stderr, timed_out):
        self.cmd, self.rc, self.stdout, self.stderr, self.timed_out = cmd, rc, stdout, stderr, timed_out

    @property
    def error_lines(self):
        return [l for l in self.stderr.splitlines() if l.startswith("error:")]

    def describe(self):
        sig = ""
        if self.rc is not None and self.rc < 0:
            try:
                sig = " (%s)" % signal.Signals(-self.rc).name
            except ValueError:
                pass
        return "$ %s\nexit %s%s%s\n--- stdout\n%s--- stderr\n%s" % (
            " ".join(self.cmd), self.rc, sig, " TIMED OUT" if self.timed_out else "",
            self.stdout, self.stderr)


def run(cmd, timeout=120):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, timeout=timeout)
        return Result(cmd, p.returncode, p.stdout.decode("utf-8", "replace"),
                      p.stderr.decode("utf-8", "replace"), False)
    except subprocess.TimeoutExpired as e:
        return Result(cmd, None, (e.stdout or b"").decode("utf-8", "replace"),
                      (e.stderr or b"").decode("utf-8", "replace"), True)


# -- building test models (onnx imported lazily: not every test needs it) ----

def value_info(name, elem, shape):
    """A tensor graph input/output of ONNX element type `elem`."""
    from onnx import helper
    return helper.make_tensor_value_info(name, elem, shape)


def constant_node(name, array):
    """An ONNX Constant node producing `name` from a numpy value."""
    import numpy as np
    from onnx import helper, numpy_helper
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(np.asarray(array), name + "_v"))


def checked_model(nodes, inputs, outputs, name, opset, ir_version):
    """A one-graph model of the default domain at `opset`, checked by onnx."""
    import onnx
    from onnx import helper
    graph = helper.make_graph(nodes, name, inputs, outputs)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir_version
    onnx.checker.check_model(m)
    return m
