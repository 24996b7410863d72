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
