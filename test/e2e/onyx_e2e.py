"""Shared helpers for Onyx's Python end-to-end tests (run with /usr/bin/python3)."""
import os
import re
import shutil
import signal
import subprocess
import tempfile
import unittest

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


# -- model tests: compile once, run at several shapes, statuses ----------------
# (test_real_models.py and test_dynamo_models.py)

STATUSES = ("pass", "unsupported", "error", "wrong", "crash")

# Signs that the tools or the runtime library were being rebuilt while a test
# ran (a developer's machine, never CI): such a run is retried, not classified.
TRANSIENT = re.compile(r"cannot find -lonyx_runtime|Text file busy|cannot execute|exec: Permission denied|"
                       r"libonyx_runtime\.so: cannot open shared object file")
RETRIES = 2


def run_retrying(cmd, timeout, log):
    """run(), retried twice after 10 s when the failure is TRANSIENT; sets
    .seconds (of the last attempt only)."""
    import time
    for attempt in range(RETRIES + 1):
        t0 = time.time()
        try:
            r = run(cmd, timeout=timeout)
            r.seconds = time.time() - t0
        except OSError as e:  # the tool is being relinked
            r = None
            msg = str(e)
        else:
            msg = r.stderr
            if r.rc == 0 or r.timed_out or not TRANSIENT.search(msg):
                return r
        if attempt == RETRIES:
            if r is None:
                raise
            return r
        m = TRANSIENT.search(msg)
        log("  note: %s failed transiently (%s); retrying" % (os.path.basename(cmd[0]), m.group(0) if m else msg))
        time.sleep(10)


def classify_failure(r, stage):
    """(status, reason) for a failed tool run; `stage` is 'onyx-compile' or 'onyx-run'."""
    if r.timed_out:
        return "crash", "%s timed out" % stage
    if r.rc is not None and r.rc < 0:
        return "crash", "%s killed by signal %d" % (stage, -r.rc)
    if r.error_lines:
        msg = r.error_lines[0][len("error:"):].strip()
        return ("unsupported" if stage == "onyx-compile" else "error"), msg
    tail = (r.stderr.strip().splitlines() or ["(no output)"])[-1]
    return "crash", "%s exited %s without an error: line: %s" % (stage, r.rc, tail[:200])


def rel_err(y, ref):
    """||y - ref|| / ||ref|| over all elements, in float64 (||y - ref|| when ref is 0)."""
    import numpy as np
    y = np.asarray(y, dtype=np.float64).ravel()
    ref = np.asarray(ref, dtype=np.float64).ravel()
    n = np.linalg.norm(ref)
    d = np.linalg.norm(y - ref)
    return float(d / n) if n > 0 else float(d)


def check_outputs(out_dir, refs, rel_tol):
    """Compares onyx-run's DIR/output_K.npy with the reference arrays `refs`:
    exactly as many files, dtype and shape equal, all finite, rel_err <= rel_tol.
    Returns (status 'pass' or 'wrong', reason, errors: rel_err per output or None)."""
    import numpy as np
    produced = sorted(f for f in os.listdir(out_dir) if f.endswith(".npy"))
    expected = ["output_%d.npy" % k for k in range(len(refs))]
    if produced != expected:
        return "wrong", "outputs %s, expected %s" % (produced, expected), []
    problems, errors = [], []
    for k, ref in enumerate(refs):
        y = np.load(os.path.join(out_dir, "output_%d.npy" % k))
        if y.dtype != ref.dtype or y.shape != ref.shape:
            problems.append("output %d: %s%s, expected %s%s" % (k, y.dtype, list(y.shape), ref.dtype,
                                                                list(ref.shape)))
            errors.append(None)
            continue
        if not np.isfinite(y).all():
            problems.append("output %d: %d non-finite values" % (k, int((~np.isfinite(y)).sum())))
            errors.append(None)
            continue
        e = rel_err(y, ref)
        errors.append(e)
        if not e <= rel_tol:
            problems.append("output %d: ||y-ref||/||ref|| = %.3e > %g" % (k, e, rel_tol))
    if problems:
        return "wrong", "; ".join(problems), errors
    return "pass", "", errors


def worst_case(cases):
    """The failing case that decides a model's status (crash > error > wrong), or None."""
    order = {"crash": 0, "error": 1, "wrong": 2}
    bad = [c for c in cases if c["status"] != "pass"]
    return min(bad, key=lambda c: order[c["status"]]) if bad else None


def parse_expected(text):
    """'pass' or 'status: reason' -> (status, reason)."""
    m = re.match(r"\s*([a-z]+)\s*(?::\s*(.*))?$", text, re.S)
    if not m or m.group(1) not in STATUSES:
        raise ValueError("bad expected status %r (want 'pass' or '<%s>: reason')" % (text, "|".join(STATUSES)))
    return m.group(1), (m.group(2) or "").strip()


def format_expected(res):
    return "pass" if res["status"] == "pass" else "%s: %s" % (res["status"], res["reason"])


def expected_failures(names, results, expected_path, log):
    """--expected: each model's status must equal its entry in the JSON file
    (a changed reason under the same status is only printed). Returns the failures."""
    import json
    with open(expected_path) as f:
        expected = json.load(f)
    rel = os.path.relpath(expected_path, REPO)
    failures = []
    for n in names:
        if n not in expected:
            failures.append("%s: not in %s" % (n, expected_path))
            continue
        est, ereason = parse_expected(expected[n])
        r = results[n]
        if r["status"] == est:
            if est != "pass" and ereason and ereason != r["reason"]:
                log("note: %s is still '%s' but the reason changed:\n  expected: %s\n  now:      %s"
                    % (n, est, ereason, r["reason"]))
            continue
        if est == "pass":
            failures.append("%s: REGRESSION, expected pass, got %s: %s" % (n, r["status"], r["reason"]))
        elif r["status"] == "pass":
            failures.append("%s: now PASSES but %s says '%s'; update it (--update-expected)" % (n, rel, est))
        else:
            failures.append("%s: expected %s, got %s: %s; update %s if this is intended"
                            % (n, est, r["status"], r["reason"], rel))
    return failures


def strict_failures(names, results, allow_unsupported, allow_env, log):
    """Without --expected: every model must pass (`unsupported` is only listed
    when allow_unsupported). Returns the failures."""
    failures = []
    for n in names:
        r = results[n]
        if r["status"] == "pass":
            continue
        if r["status"] == "unsupported" and allow_unsupported:
            log("note: %s is unsupported (allowed by %s): %s" % (n, allow_env, r["reason"]))
            continue
        failures.append("%s: %s: %s" % (n, r["status"], r["reason"]))
    return failures


def update_expected(expected_path, names, results, order, log):
    """--update-expected: rewrites the entries of `names` in the JSON file (others
    kept), keys in the order of `order`."""
    import json
    old = {}
    if os.path.isfile(expected_path):
        with open(expected_path) as f:
            old = json.load(f)
    for n in names:
        old[n] = format_expected(results[n])
    new = {n: old[n] for n in order if n in old}
    with open(expected_path, "w") as f:
        json.dump(new, f, indent=2)
        f.write("\n")
    log("wrote %s" % expected_path)


def run_parallel(order, fn, jobs, log):
    """{name: fn(name, log)} for each name of `order`, `jobs` at a time; each
    model's log lines are printed together when it finishes."""
    import concurrent.futures
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        futs = {}
        for n in order:
            lines = []
            futs[ex.submit(fn, n, lines.append)] = (n, lines)
        for fut in concurrent.futures.as_completed(futs):
            n, lines = futs[fut]
            results[n] = fut.result()
            log("\n".join(lines))
    return results


# -- a unittest base for tests that compile and run small models --------------


class ModelTestCase(unittest.TestCase):
    """Base of the e2e tests that build small ONNX models, compile them with
    onyx-compile and run them with onyx-run: a temporary directory per class
    (`tmp_prefix`), the outcome checks every such test makes (never a signal
    or a timeout; an expected failure is exactly one `error:` line), and
    `execute_npy` for models whose inputs and outputs are plain tensors.
    With `reuse_compiles`, a second compile of the same name returns the
    first artifact."""

    tmp_prefix = "onyx-e2e-"
    reuse_compiles = False

    @classmethod
    def setUpClass(cls):
        require_tools(ONYX_COMPILE, ONYX_RUN)
        cls.tmp = tempfile.mkdtemp(prefix=cls.tmp_prefix)
        cls.compiled = {}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check_outcome(self, r, expect_error=None, what="the run"):
        """Asserts how `r` (a Result) ended. With `expect_error`: a non-zero
        exit with exactly one `error:` line containing it (returns False);
        else exit status 0 (returns True)."""
        self.assertFalse(r.timed_out, r.describe())
        self.assertIsNotNone(r.rc, r.describe())
        self.assertGreaterEqual(r.rc, 0, "killed by a signal\n" + r.describe())
        if expect_error is not None:
            self.assertNotEqual(r.rc, 0, "expected a failure\n" + r.describe())
            self.assertEqual(len(r.error_lines), 1, r.describe())
            self.assertIn(expect_error, r.error_lines[0], r.describe())
            return False
        self.assertEqual(r.rc, 0, "%s failed\n%s" % (what, r.describe()))
        return True

    def save(self, m, name):
        import onnx
        path = os.path.join(self.tmp, name + ".onnx")
        onnx.save(m, path)
        return path

    def compile(self, m, name, extra=(), expect_error=None):
        """The artifact of model `m` (None when `expect_error` is given and
        the compile failed as expected)."""
        key = (name, tuple(extra))
        if self.reuse_compiles and expect_error is None and key in self.compiled:
            return self.compiled[key]
        so = os.path.join(self.tmp, name + ".so")
        r = run([ONYX_COMPILE, self.save(m, name), "-o", so] + list(extra),
                timeout=300)
        if not self.check_outcome(r, expect_error, "compiling %s" % name):
            return None
        self.compiled[key] = so
        return so

    def execute_npy(self, so, inputs, expect_error=None):
        """Runs `so` on {name: numpy array} (as .npy files); returns the
        outputs, or None when it failed as `expect_error` says."""
        import numpy as np
        out_dir = tempfile.mkdtemp(dir=self.tmp)
        args = [ONYX_RUN, so, "--output-dir", out_dir]
        for name, array in inputs.items():
            path = os.path.join(out_dir, name + ".npy")
            np.save(path, array)
            args += ["--input", "%s=%s" % (name, path)]
        if not self.check_outcome(run(args, timeout=120), expect_error):
            return None
        outputs = []
        k = 0
        while os.path.exists(os.path.join(out_dir, "output_%d.npy" % k)):
            outputs.append(np.load(os.path.join(out_dir, "output_%d.npy" % k)))
            k += 1
        return outputs
