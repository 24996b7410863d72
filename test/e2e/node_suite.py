#!/usr/bin/python3
"""End-to-end runner over the ONNX backend node suites.

Two suites (--suite, repeatable; default: all):

  debian   Debian's libonnx-testdata, ONNX 1.12: 932 tests, opsets up to 17
           (/usr/share/libonnx-testdata/data/node)
  current  the ONNX 1.23 suite bundled as test/data/onnx-node-suite/
           onnx-node-tests.tar.xz: 1802 tests, opsets up to 28, the newer
           element types; unpacked once into build/onnx-node-suite-1.23/
  DIR      any directory of node tests (NAME=DIR names it)

For every test directory of a suite (model.onnx + test_data_set_0/) it runs
Onyx's tools in a subprocess and classifies the result:

  pass   all outputs match the reference (shape and dtype exactly; floats with
         the suite's own tolerance, rtol=1e-3 atol=1e-7 as in
         onnx.backend.test; integers, bools and strings exactly)
  wrong  the tool exited 0 but an output is missing or differs
  error  a clean failure: non-zero exit and a stderr line starting `error:`
  crash  killed by a signal, timed out, or non-zero exit without `error:`

Modes (repeat --mode; default: static and symbolic):

  import    onyx-compile MODEL --emit=onnx -o /dev/null   (pass = imports)
  static    onyx-run MODEL --input input_0.pb ... --output-dir TMP
  symbolic  the same with --make-inputs-dynamic (every graph-input dim becomes a
            symbol at import)

References are decoded by onnx_values.py (onnx 1.12's numpy_helper knows no
element type after bfloat16). Run with /usr/bin/python3 (Debian's, with onnx
and numpy). See docs/testing.md.
"""

import argparse
import concurrent.futures
import fcntl
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time

import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_values as ov  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Debian's suite (kept as DEFAULT_SUITE: scripts/gpu use it).
DEFAULT_SUITE = "/usr/share/libonnx-testdata/data/node"
CURRENT_ARCHIVE = os.path.join(REPO, "test", "data", "onnx-node-suite", "onnx-node-tests.tar.xz")
CURRENT_UNPACK_DIR = os.path.join(REPO, "build", "onnx-node-suite-1.23")
# The known suites, in the order they run and appear on the docs page.
SUITES = {
    "debian": {
        "title": "Debian's ONNX 1.12 suite",
        "source": "Debian's `libonnx-testdata` (ONNX 1.12, opsets up to 17), "
                  "`/usr/share/libonnx-testdata/data/node`",
    },
    "current": {
        "title": "The ONNX 1.23 suite",
        "source": "the ONNX repository's node tests at 1.23 (opsets up to 28), bundled as "
                  "`test/data/onnx-node-suite/onnx-node-tests.tar.xz`",
    },
}
DEFAULT_FLOOR = os.path.join(REPO, "test", "e2e", "node_suite_floor.json")
DEFAULT_DOCS = os.path.join(REPO, "docs", "supported-ops.md")
ALL_MODES = ("import", "static", "symbolic")
STATUSES = ("pass", "wrong", "error", "crash")

# The suite's own conventions (onnx/backend/test/case/node/__init__.py: expect()).
DEFAULT_RTOL = 1e-3
DEFAULT_ATOL = 1e-7


# --------------------------------------------------------------------------
# The suite
# --------------------------------------------------------------------------

def _numbered(directory, prefix, suffix):
    """Files PREFIX<K>SUFFIX in DIRECTORY sorted by K (numerically)."""
    found = []
    pat = re.compile(re.escape(prefix) + r"(\d+)" + re.escape(suffix) + r"$")
    for name in os.listdir(directory):
        m = pat.match(name)
        if m:
            found.append((int(m.group(1)), os.path.join(directory, name)))
    return [p for _, p in sorted(found)]


def _norm(name):
    return name.replace("_", "").lower()


_SCHEMA_NAMES = None


def _schema_names():
    global _SCHEMA_NAMES
    if _SCHEMA_NAMES is None:
        _SCHEMA_NAMES = {}
        for s in onnx.defs.get_all_schemas_with_history():
            label = s.name if s.domain in ("", "ai.onnx") else s.domain + "." + s.name
            _SCHEMA_NAMES.setdefault(_norm(s.name), label)
    return _SCHEMA_NAMES


def _longest_prefix_op(test_name, candidates):
    """The op (from {normalized name: label}) whose name is the longest prefix
    of the test name, ignoring underscores and case; None if none is."""
    key = _norm(test_name[len("test_"):] if test_name.startswith("test_") else test_name)
    best = None
    for norm, label in candidates.items():
        if key.startswith(norm) and (best is None or len(norm) > len(best[0])):
            best = (norm, label)
    return best[1] if best else None


class SuiteTest:
    def __init__(self, suite_dir, name):
        self.name = name
        self.suite_dir = suite_dir
        self.dir = os.path.join(suite_dir, name)
        self.model = os.path.join(self.dir, "model.onnx")
        data = os.path.join(self.dir, "test_data_set_0")
        self.inputs = _numbered(data, "input_", ".pb")
        self.outputs = _numbered(data, "output_", ".pb")
        self.ops = []           # distinct op labels of the top-level graph
        self.output_types = []  # TypeProto per graph output
        self.output_names = []
        self.load_error = None
        try:
            m = onnx.load(self.model, load_external_data=False)
            seen = []
            for n in m.graph.node:
                label = n.op_type if n.domain in ("", "ai.onnx") else n.domain + "." + n.op_type
                if label not in seen:
                    seen.append(label)
            self.ops = seen
            self.output_types = [o.type for o in m.graph.output]
            self.output_names = [o.name for o in m.graph.output]
        except Exception as e:  # a model the Python onnx cannot read
            self.load_error = "%s: %s" % (type(e).__name__, e)
        # Filled in by attribute_ops().
        self.attributed = []
        self.expanded = False


def load_suite(suite_dir, regex=None):
    names = sorted(d for d in os.listdir(suite_dir)
                   if os.path.isfile(os.path.join(suite_dir, d, "model.onnx")))
    tests = [SuiteTest(suite_dir, n) for n in names]
    attribute_ops(tests)
    if regex:
        r = re.compile(regex)
        tests = [t for t in tests if r.search(t.name)]
    return tests


def _archive_digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def unpack_suite(archive, dest):
    """Unpacks ARCHIVE (a .tar.xz holding node/<test>/...) into DEST once and
    returns DEST/node. DEST/.archive-sha256 records what was unpacked; a
    different archive is unpacked afresh. Concurrent runners take a lock."""
    node = os.path.join(dest, "node")
    stamp = os.path.join(dest, ".archive-sha256")
    digest = _archive_digest(archive)
    os.makedirs(os.path.dirname(os.path.abspath(dest)), exist_ok=True)
    with open(os.path.abspath(dest) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with open(stamp) as f:
                if f.read().strip() == digest and os.path.isdir(node):
                    return node
        except OSError:
            pass
        shutil.rmtree(dest, ignore_errors=True)
        tmp = tempfile.mkdtemp(prefix=os.path.basename(dest) + ".unpack-",
                               dir=os.path.dirname(os.path.abspath(dest)))
        try:
            with tarfile.open(archive, "r:xz") as tar:
                members = tar.getmembers()
                for m in members:
                    parts = m.name.split("/")
                    if (m.name.startswith("/") or ".." in parts or parts[0] != "node"
                            or not (m.isfile() or m.isdir())):
                        raise RuntimeError("%s: unexpected member %r" % (archive, m.name))
                if hasattr(tarfile, "data_filter"):
                    tar.extractall(tmp, members=members, filter="data")
                else:
                    tar.extractall(tmp, members=members)
            with open(os.path.join(tmp, ".archive-sha256"), "w") as f:
                f.write(digest + "\n")
            os.chmod(tmp, 0o755)
            os.rename(tmp, dest)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return node


def attribute_ops(tests):
    """Decide which operator(s) each test counts for on the supported-ops page.

    - a test whose graph has one op type (Constant nodes aside) counts for it;
    - `*_expanded` tests (the op's function body inlined) count, as
      "expanded", for the op of the same test without `_expanded`, else for
      the ONNX op whose name is the longest prefix of the test name;
    - other multi-op tests count for the op in the model named by the test
      name prefix, else for every op in the model.

    The op names for the prefix match are onnx 1.12's schemas plus the ops
    the suite's own graphs use (newer suites have ops 1.12 does not know).
    """
    by_name = {t.name: t for t in tests}
    known = dict(_schema_names())
    for t in tests:
        for o in t.ops:
            known.setdefault(_norm(o.split(".")[-1]), o)

    def direct_ops(t):
        ops = [o for o in t.ops if o != "Constant"]
        return ops or list(t.ops) or ["(none)"]

    for t in tests:
        ops = direct_ops(t)
        if t.name.endswith("_expanded"):
            t.expanded = True
            base = by_name.get(t.name[: -len("_expanded")])
            if base is not None and len(direct_ops(base)) == 1:
                t.attributed = direct_ops(base)
                continue
            op = _longest_prefix_op(t.name[: -len("_expanded")], known)
            t.attributed = [op] if op else ops
            continue
        if len(ops) == 1:
            t.attributed = ops
            continue
        op = _longest_prefix_op(t.name, {_norm(o.split(".")[-1]): o for o in ops})
        t.attributed = [op] if op else ops


# --------------------------------------------------------------------------
# Running one test
# --------------------------------------------------------------------------

def limit_memory(limit_bytes):
    """Caps the address space of this process and so of every tool it starts
    (children inherit the limit; no preexec_fn, which is unsafe with threads).
    A runaway compile then fails instead of pushing the machine into swap."""
    if not limit_bytes:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit_bytes = min(limit_bytes, hard)
    if soft == resource.RLIM_INFINITY or soft > limit_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, hard))


def run_tool(cmd, timeout):
    """Runs CMD in its own process group. Returns (rc, stdout, stderr,
    timed_out, seconds)."""
    start = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError as e:
        return None, "", "cannot execute %s: %s" % (cmd[0], e), False, 0.0
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
    return (proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
            timed_out, time.monotonic() - start)


def _first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def classify_failure(rc, stderr, timed_out, timeout):
    """For a run that did not exit 0: (status, reason)."""
    if timed_out:
        return "crash", "timeout after %gs" % timeout
    if rc is None:
        return "crash", _first_line(stderr)
    if rc < 0:
        try:
            sig = signal.Signals(-rc).name
        except ValueError:
            sig = "signal %d" % -rc
        last = [l for l in stderr.splitlines() if l.strip()]
        return "crash", "killed by %s%s" % (sig, (": " + last[-1].strip()) if last else "")
    errors = [l for l in stderr.splitlines() if l.startswith("error:")]
    if errors:
        reason = errors[0].strip()
        if len(errors) > 1:
            reason += " (+%d more error: lines)" % (len(errors) - 1)
        return "error", reason
    last = [l for l in stderr.splitlines() if l.strip()]
    return "crash", "exit code %d without an error: line%s" % (
        rc, (": " + last[-1].strip()) if last else "")


def load_reference(path, type_proto):
    """A reference output: an array (tensor), a list (sequence) or
    ("optional", None | value), decoded by onnx_values."""
    return ov.decode_file(path, type_proto)


def _optional_value(v):
    """An optional's value: None (empty), an array or a list. V is decoded
    already, or an OptionalProto."""
    if isinstance(v, onnx.OptionalProto):
        return ov.decode_optional(v)[1]
    return v


def load_output(path, type_proto=None):
    """An output onyx-run wrote: .npy (tensor), or .pb: a SequenceProto or
    OptionalProto for outputs of those types (docs/sequences.md), else a
    TensorProto."""
    if path.endswith(".pb"):
        return ov.decode_file(path, type_proto)
    return np.load(path, allow_pickle=False)


def output_elem_type(type_proto, ref_path):
    """The element type to compare an output by: the model's declared one
    (inside sequences and optionals too), else the reference tensor's."""
    et = ov.leaf_elem_type(type_proto)
    if et is None and (type_proto is None or type_proto.WhichOneof("value") in (None, "tensor_type")):
        t = onnx.TensorProto()
        with open(ref_path, "rb") as f:
            t.ParseFromString(f.read())
        et = t.data_type or None
    return et


def _fmt_index(idx):
    return "[" + ", ".join(str(int(i)) for i in idx) + "]"


def _bfloat16_as_float32(a):
    """bfloat16 data as float32: raw 16-bit patterns (uint16, or the 2-byte
    void dtype .npy files used for bfloat16) are widened; floats pass through."""
    if a.dtype.kind == "f":
        return a.astype(np.float32)
    if a.dtype == np.uint16 or (a.dtype.kind == "V" and a.dtype.itemsize == 2):
        return ov.narrow_to_float32(a, ov.BFLOAT16)
    return None


def _code(a, idx):
    return "0x%02x" % int(a[idx])


def _compare_codes(label, got, ref, elem_type):
    """Float8 (incl. e8m0) and float4e2m1: GOT and REF hold the raw codes
    (uint8; REF may hold decoded floats instead). Their values must be equal
    (NaN equals NaN, +0 equals -0)."""
    tname = ov.type_name(elem_type)
    if got.dtype != np.uint8:
        return "%s: dtype %s, expected uint8 (%s codes)" % (label, got.dtype, tname)
    if ref.dtype != np.uint8 and ref.dtype.kind != "f":
        return "%s: reference dtype %s is not %s data; cannot compare" % (label, ref.dtype, tname)
    if got.shape != ref.shape:
        return "%s: shape %s, expected %s" % (label, list(got.shape), list(ref.shape))
    if ref.size == 0:
        return None
    limit = 16 if elem_type == ov.FLOAT4E2M1 else 256
    if int(got.max()) >= limit:
        first = tuple(np.argwhere(got >= limit)[0])
        return "%s: %s code %s at %s is out of range" % (label, tname, _code(got, first), _fmt_index(first))
    g = ov.narrow_to_float32(got, elem_type)
    r = ov.narrow_to_float32(ref, elem_type) if ref.dtype == np.uint8 else ref.astype(np.float32)
    ok = (g == r) | (np.isnan(g) & np.isnan(r))
    if ok.all():
        return None
    bad = np.argwhere(~ok)
    first = tuple(bad[0])
    expected = ("%s = %r" % (_code(ref, first), r[first].item())) if ref.dtype == np.uint8 else repr(r[first].item())
    return "%s: %d of %d %s elements differ; first at %s (got %s = %r, expected %s)" % (
        label, len(bad), ref.size, tname, _fmt_index(first), _code(got, first),
        g[first].item(), expected)


def _dft_inverse_float64(inputs):
    """test_dft_inverse*: DFT(x, inverse=1) along axis 1 of a [1, N, M, 2]
    complex signal, recomputed in float64 (numpy's ifft of the complex128
    input)."""
    x = inputs[0].astype(np.float64)
    axis = int(inputs[1]) if len(inputs) > 1 else 1
    if axis < 0:
        axis += x.ndim
    y = np.fft.ifft(x[..., 0] + 1j * x[..., 1], axis=axis)
    return [np.stack((y.real, y.imag), axis=-1)]


# Tests whose stored output is float32 rounding noise of the exact result, so
# that a more accurate implementation fails the suite's atol=1e-7: the output
# is checked against the exact result recomputed in float64 from the test's
# inputs, at the suite's tolerance, and against the stored output within
# STORED_OUTPUT_ATOL. ONNX's test loader has the same escape hatch (a test's
# data.json may set rtol/atol); these tests ship none.
#   test_dft_inverse*: numpy computed the expected output as ifft of a
#   complex64 signal in single precision; elements whose exact value is 0
#   carry |noise| up to 1.9e-7 (ONNX Runtime 1.30 misses the stored output
#   by up to 1.9e-5 on the same test).
FLOAT64_REFERENCES = {
    "test_dft_inverse": _dft_inverse_float64,
    "test_dft_inverse_opset19": _dft_inverse_float64,
}
STORED_OUTPUT_ATOL = 1e-6


def compare(k, name, got, ref, rtol, atol, elem_type=None):
    """None if GOT matches REF, else a one-line reason. ELEM_TYPE is the
    model's TensorProto element type for the output, if known: it decides
    how both sides are read (docs/testing.md, "Element types")."""
    label = "output %d '%s'" % (k, name)
    # Optionals: both empty, or the values compared; sequences: the lengths,
    # then element by element.
    if isinstance(ref, tuple) and ref and ref[0] == "optional":
        if not (isinstance(got, tuple) and got and got[0] == "optional"):
            return "%s: expected an optional, got %s" % (label, type(got).__name__)
        r, g = _optional_value(ref[1]), _optional_value(got[1])
        if r is None or g is None:
            if r is None and g is None:
                return None
            return "%s: optional is %s, expected %s" % (
                label, "empty" if g is None else "present", "empty" if r is None else "present")
        return compare(k, name, g, r, rtol, atol, elem_type)
    if isinstance(ref, list):
        if not isinstance(got, list):
            return "%s: expected a sequence, got %s" % (label, type(got).__name__)
        if len(got) != len(ref):
            return "%s: sequence of length %d, expected %d" % (label, len(got), len(ref))
        for i, (g, r) in enumerate(zip(got, ref)):
            why = compare(k, "%s' element %d '" % (name, i), g, r, rtol, atol, elem_type)
            if why:
                return why
        return None
    if not isinstance(ref, np.ndarray):
        return "%s: reference is not a tensor (%s); cannot compare" % (label, type(ref).__name__)
    if not isinstance(got, np.ndarray):
        return "%s: expected a tensor, got %s" % (label, type(got).__name__)
    if elem_type is not None and elem_type not in ov.TYPE_NAMES:
        return "%s: the runner cannot compare element type %s" % (label, elem_type)
    if elem_type in ov.NARROW_FLOATS and elem_type != ov.BFLOAT16:
        return _compare_codes(label, got, ref, elem_type)
    if elem_type == ov.BFLOAT16:
        # onyx-run writes bfloat16 as uint16 bit patterns (older builds: the
        # 2-byte void type); compare values, allowing one bfloat16 ulp
        # (Debian's 1.12 references truncate, a backend may round).
        g = _bfloat16_as_float32(got) if got.dtype.kind != "f" else None
        r = _bfloat16_as_float32(ref)  # (references decoded to float32 elsewhere read too)
        if g is None:
            return "%s: dtype %s, expected bfloat16" % (label, got.dtype)
        if r is None:
            return "%s: reference dtype %s is not bfloat16 data" % (label, ref.dtype)
        got, ref, rtol = g, r, max(rtol, 2.0 ** -7)
    if elem_type in (ov.INT4, ov.UINT4, ov.INT2, ov.UINT2):
        # Values, one per element: int8 for the signed, uint8 for the unsigned.
        want = ov.STORAGE_DTYPE[elem_type]
        if got.dtype != want:
            return "%s: dtype %s, expected %s (%s values)" % (label, got.dtype, want, ov.type_name(elem_type))
        if ref.dtype != want:
            return "%s: reference dtype %s is not %s data; cannot compare" % (
                label, ref.dtype, ov.type_name(elem_type))
    if elem_type == ov.STRING or (elem_type is None and ref.dtype.kind == "U"):
        # Strings: a unicode array (object arrays of str also read), exactly.
        if got.dtype.kind not in "UO":
            return "%s: dtype %s, expected strings" % (label, got.dtype)
        if ref.dtype.kind not in "UO":
            return "%s: reference dtype %s is not string data; cannot compare" % (label, ref.dtype)
        if got.shape != ref.shape:
            return "%s: shape %s, expected %s" % (label, list(got.shape), list(ref.shape))
        eq = np.array([isinstance(a, str) and a == b for a, b in zip(got.ravel().tolist(), ref.ravel().tolist())],
                      dtype=bool).reshape(ref.shape)
        if eq.all():
            return None
        bad = np.argwhere(~eq)
        first = tuple(bad[0])
        return "%s: %d of %d elements differ; first at %s (got %r, expected %r)" % (
            label, len(bad), ref.size, _fmt_index(first), got[first].item(), ref[first].item())
    if got.dtype != ref.dtype:
        return "%s: dtype %s, expected %s" % (label, got.dtype, ref.dtype)
    if got.shape != ref.shape:
        return "%s: shape %s, expected %s" % (label, list(got.shape), list(ref.shape))
    if ref.size == 0:
        return None
    if ref.dtype.kind in "fc":
        ok = np.isclose(got, ref, rtol=rtol, atol=atol, equal_nan=True)
        if ok.all():
            return None
        g = got.astype(np.complex128 if ref.dtype.kind == "c" else np.float64)
        r = ref.astype(g.dtype)
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.abs(g - r)
        diff = np.where(ok, 0.0, np.where(np.isnan(diff), np.inf, diff))
        worst = np.unravel_index(int(np.argmax(diff)), ref.shape)
        return ("%s: max abs error %.3g at %s (got %r, expected %r); %d of %d elements "
                "outside rtol=%g atol=%g" % (label, float(diff[worst]), _fmt_index(worst),
                                             got[worst].item(), ref[worst].item(),
                                             int((~ok).sum()), ref.size, rtol, atol))
    eq = got == ref
    if ref.dtype.kind == "O":
        eq = np.array([a == b for a, b in zip(got.ravel(), ref.ravel())]).reshape(ref.shape)
    if np.all(eq):
        return None
    bad = np.argwhere(~np.asarray(eq))
    first = tuple(bad[0])
    return "%s: %d of %d elements differ; first at %s (got %r, expected %r)" % (
        label, len(bad), ref.size, _fmt_index(first), got[first].item(), ref[first].item())


_TOOL_TMP = re.compile(re.escape(tempfile.gettempdir()) + r"/onyx-[A-Za-z0-9_.-]+")


class Runner:
    def __init__(self, args):
        self.args = args
        self.onyx_run = args.onyx_run or os.path.join(args.bin_dir, "onyx-run")
        self.onyx_compile = args.onyx_compile or os.path.join(args.bin_dir, "onyx-compile")

    def sanitize(self, text, tmp=None, suite_dir=None):
        if tmp:
            text = text.replace(tmp, "<tmp>")
        if suite_dir:
            text = text.replace(suite_dir, "<suite>")
        # onyx-run's own temporary directories (its compiled model.so).
        text = _TOOL_TMP.sub("<tmp>", text)
        return text.replace(REPO + "/", "")

    def run(self, test, mode):
        start = time.monotonic()
        try:
            if mode == "import":
                res = self._run_import(test)
            else:
                res = self._run_model(test, mode)
        except Exception as e:  # a bug in this script, or unreadable data
            res = {"status": "crash", "reason": "runner exception: %s: %s" % (type(e).__name__, e)}
        res["seconds"] = round(time.monotonic() - start, 3)
        return res

    def _run_import(self, test):
        cmd = [self.onyx_compile, test.model, "--emit=onnx", "-o", os.devnull]
        rc, _, err, timed_out, _ = run_tool(cmd, self.args.timeout)
        if rc == 0 and not timed_out:
            return {"status": "pass", "reason": ""}
        status, reason = classify_failure(rc, err, timed_out, self.args.timeout)
        return {"status": status, "reason": self.sanitize(reason, suite_dir=test.suite_dir)}

    def _run_model(self, test, mode):
        tmp = tempfile.mkdtemp(prefix="onyx-node-%s-%s-" % (mode, test.name))
        try:
            cmd = [self.onyx_run, test.model]
            for path in test.inputs:
                cmd += ["--input", path]
            cmd += ["--output-dir", tmp]
            if self.args.target:
                cmd.append("--target=" + self.args.target)
            if mode == "symbolic":
                cmd.append("--make-inputs-dynamic")
            rc, _, err, timed_out, _ = run_tool(cmd, self.args.timeout)
            if rc != 0 or timed_out:
                status, reason = classify_failure(rc, err, timed_out, self.args.timeout)
                return {"status": status, "reason": self.sanitize(reason, tmp, test.suite_dir)}
            # Tensors come as output_K.npy; sequences and optionals as
            # output_K.pb (SequenceProto / OptionalProto).
            produced = sorted(_numbered(tmp, "output_", ".npy") + _numbered(tmp, "output_", ".pb"),
                              key=lambda p: int(re.search(r"output_(\d+)\.", p).group(1)))
            for k, ref_path in enumerate(test.outputs):
                name = test.output_names[k] if k < len(test.output_names) else "?"
                if k >= len(produced):
                    return {"status": "wrong",
                            "reason": "output %d '%s' missing: %d output file(s) written, %d expected"
                                      % (k, name, len(produced), len(test.outputs))}
                type_proto = test.output_types[k] if k < len(test.output_types) else None
                try:
                    ref = load_reference(ref_path, type_proto)
                    elem = output_elem_type(type_proto, ref_path)
                except Exception as e:  # never a pass: the runner cannot tell
                    return {"status": "wrong", "reason": "output %d '%s': the runner cannot decode "
                            "the reference %s: %s: %s" % (k, name, os.path.basename(ref_path),
                                                         type(e).__name__, e)}
                try:
                    got = load_output(produced[k], type_proto)
                except Exception as e:
                    return {"status": "wrong", "reason": "output %d '%s': unreadable %s: %s"
                            % (k, name, os.path.basename(produced[k]), e)}
                exact = FLOAT64_REFERENCES.get(test.name)
                if exact is not None:
                    why = compare(k, name, got, ref, self.args.rtol, STORED_OUTPUT_ATOL, elem)
                    if not why:
                        inputs = [load_reference(p, None) for p in test.inputs]
                        why = compare(k, name + " (against the float64 reference)", got, exact(inputs)[k].astype(ref.dtype),
                                      self.args.rtol, self.args.atol, elem)
                else:
                    why = compare(k, name, got, ref, self.args.rtol, self.args.atol, elem)
                if why:
                    return {"status": "wrong", "reason": why}
            if len(produced) > len(test.outputs):
                return {"status": "wrong", "reason": "%d output file(s) written, %d expected"
                        % (len(produced), len(test.outputs))}
            return {"status": "pass", "reason": ""}
        finally:
            if not self.args.keep_temp:
                shutil.rmtree(tmp, ignore_errors=True)


# --------------------------------------------------------------------------
# Reports
# --------------------------------------------------------------------------

def counts_of(results):
    c = {s: 0 for s in STATUSES}
    for r in results.values():
        c[r["status"]] += 1
    c["total"] = len(results)
    return c


def _short(reason, limit=160):
    reason = reason.replace("|", "\\|").replace("\n", " ")
    return reason if len(reason) <= limit else reason[: limit - 3] + "..."


def _status_reason(status, reason):
    if status == "pass":
        return "pass"
    if status == "error" and reason.startswith("error:"):
        return _short(reason)
    return "%s: %s" % (status, _short(reason))


_GROUP_RULES = [
    # The node that failed: "node 'n' (Op, domain d, opset 18): ..." -> "Op: ...".
    (re.compile(r"^node '[^']*' \(([^,()]+), domain (?:ai\.onnx|''), opset \d+\): "), r"\1: "),
    (re.compile(r"^node '[^']*' \(([^,()]+), domain ([^,()]+), opset \d+\): "), r"\2.\1: "),
    (re.compile(r"^node '[^']*': "), ""),
    (re.compile(r"(?<!\w)'[^']*'"), "'…'"),  # quoted names, not apostrophes
    (re.compile(r"\(got .*?, expected .*?\)"), "(…)"),
    (re.compile(r"\[[-0-9, ]*\]"), "[…]"),
    (re.compile(r"0x[0-9a-fA-F]+"), "N"),
    (re.compile(r"(?<!type code )(?<!opset )-?\b\d+(\.\d+)?(e[-+]?\d+)?\b"), "N"),
]


def reason_group(status, reason):
    """A failure reason with names and numbers taken out, so that tests
    failing for the same cause fall into one group."""
    r = _first_line(reason)
    if status == "error" and r.startswith("error: "):
        r = r[len("error: "):]
    elif status != "error":
        r = "%s: %s" % (status, r)
    for rx, sub in _GROUP_RULES:
        r = rx.sub(sub, r)
    return _short(r, 120)


def reason_groups(results, modes):
    """[(group, {mode: count})] over the non-passing tests, most frequent
    first (by the sum over modes), then alphabetically."""
    groups = {}
    for m in modes:
        for r in results[m].values():
            if r["status"] != "pass":
                g = groups.setdefault(reason_group(r["status"], r["reason"]), {x: 0 for x in modes})
                g[m] += 1
    return sorted(groups.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))


def _suite_docs(w, suite, results, modes):
    tests = suite.tests
    by_op = {}
    for t in tests:
        for op in t.attributed:
            by_op.setdefault(op, []).append(t)
    w("### Per operator")
    w("")
    head = "| operator |" + "".join(" %s |" % m for m in modes) + "".join(" expanded %s |" % m for m in modes)
    w(head)
    w("| --- |" + " ---: |" * (2 * len(modes)))

    def frac(ts, m):
        if not ts:
            return ""
        p = sum(1 for t in ts if results[m][t.name]["status"] == "pass")
        s = "%d/%d" % (p, len(ts))
        return "**%s**" % s if p == len(ts) else s

    for op in sorted(by_op, key=lambda o: o.lower()):
        direct = [t for t in by_op[op] if not t.expanded]
        exp = [t for t in by_op[op] if t.expanded]
        w("| %s |" % op + "".join(" %s |" % frac(direct, m) for m in modes)
          + "".join(" %s |" % frac(exp, m) for m in modes))
    w("")
    groups = reason_groups(results, modes)
    if groups:
        w("### Failure reasons")
        w("")
        w("Non-passing tests per mode, grouped by reason (names and numbers replaced by `…` "
          "and `N`), most frequent first.")
        w("")
        w("| reason |" + "".join(" %s |" % m for m in modes))
        w("| --- |" + " ---: |" * len(modes))
        for g, per in groups:
            w("| %s |" % g.replace("|", "\\|") + "".join(" %s |" % (per[m] or "") for m in modes))
        w("")
    w("### Tests that do not pass")
    w("")
    w("Per operator: each test with, per mode, its classification and the first line "
      "of the reason (`error:` lines are the tool's own message).")
    for op in sorted(by_op, key=lambda o: o.lower()):
        failing = [t for t in by_op[op] if any(results[m][t.name]["status"] != "pass" for m in modes)]
        if not failing:
            continue
        w("")
        w("#### %s" % op)
        w("")
        for t in failing:
            # Group the modes by outcome: "import: pass; static, symbolic: error: ...".
            groups = []
            for m in modes:
                r = results[m][t.name]
                key = (r["status"], _first_line(r["reason"]))
                for g in groups:
                    if g[0] == key:
                        g[1].append(m)
                        break
                else:
                    groups.append((key, [m]))
            parts = []
            for (status, reason), ms in groups:
                who = "all modes" if len(ms) == len(modes) and len(modes) > 1 else ", ".join(ms)
                parts.append("%s: %s" % (who, _status_reason(status, reason)))
            w("- `%s` — %s" % (t.name, "; ".join(parts)))
    w("")


def write_docs(path, suites, results, modes, args):
    """The supported-operators page: RESULTS[suite name][mode][test]."""
    lines = []
    w = lines.append
    w("# Supported ONNX operators")
    w("")
    w("<!-- Generated by `/usr/bin/python3 test/e2e/node_suite.py --write-docs`; do not edit. -->")
    w("")
    w("Results of Onyx on the ONNX backend node suites on the CPU:")
    w("")
    for s in suites:
        w("- **%s**: %s, %d tests." % (s.name, s.source, len(s.tests)))
    w("")
    w("Modes:")
    w("")
    if "import" in modes:
        w("- **import**: `onyx-compile model.onnx --emit=onnx -o /dev/null` succeeds.")
    if "static" in modes:
        w("- **static**: `onyx-run model.onnx --input input_0.pb ...` with the model's shapes; "
          "every output matches `output_K.pb` (shape and dtype exactly, floats within "
          "rtol=%g atol=%g, bfloat16 within one bfloat16 ulp, float8 and float4 values "
          "exactly, other types exactly)." % (args.rtol, args.atol))
    if "symbolic" in modes:
        w("- **symbolic**: the same with `--make-inputs-dynamic`: every graph-input dim is a "
          "symbol at import, so the compiled code cannot rely on static shapes.")
    w("")
    w("A test that does not pass is **wrong** (ran, result differs), **error** (clean "
      "`error:` exit) or **crash** (signal, timeout, or exit without `error:`). Each test "
      "counts for the operator its graph uses; `*_expanded` tests (the operator's function "
      "body inlined) are counted separately in the *expanded* columns.")
    w("")
    w("## Summary")
    w("")
    w("| suite | mode | pass | wrong | error | crash | total |")
    w("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for s in suites:
        for m in modes:
            c = counts_of(results[s.name][m])
            w("| %s | %s | %d | %d | %d | %d | %d |" % (s.name, m, c["pass"], c["wrong"], c["error"],
                                                       c["crash"], c["total"]))
    w("")
    for s in suites:
        w("## %s (`%s`)" % (s.title, s.name))
        w("")
        _suite_docs(w, s, results[s.name], modes)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines))


def floor_spec(floor, suite):
    """The per-mode floors for SUITE: FLOOR[suite], or FLOOR itself when it
    is a flat file (mode keys at the top: it applies to every suite)."""
    if any(m in floor for m in ALL_MODES):
        return floor
    return floor.get(suite, {})


def check_floor(floor, results, modes, filtered, suite=None):
    """FLOOR: per-mode floors of one suite; RESULTS[mode][test]. Returns
    failures as (kind, message) pairs, kind in crash / must_pass / min_pass
    (empty: OK), and a list of notes."""
    failures, notes = [], []
    where = (suite + " ") if suite else ""
    for m in modes:
        spec = floor.get(m, {})
        c = counts_of(results[m])
        max_crash = int(spec.get("max_crash", 0))
        if c["crash"] > max_crash:
            crashed = sorted(n for n, r in results[m].items() if r["status"] == "crash")
            failures.append(("crash", "%s%s: %d crash(es) (max %d): %s" % (
                where, m, c["crash"], max_crash, ", ".join(crashed[:20]) + (" ..." if len(crashed) > 20 else ""))))
        must = spec.get("must_pass", [])
        if must:
            rx = re.compile("|".join("(?:%s)" % p for p in must))
            missing = sorted(n for n, r in results[m].items() if rx.search(n) and r["status"] != "pass")
            if missing:
                failures.append(("must_pass", "%s%s: %d test(s) listed in must_pass do not pass: %s" % (
                    where, m, len(missing), ", ".join(missing[:30]) + (" ..." if len(missing) > 30 else ""))))
        if filtered:
            continue
        min_pass = int(spec.get("min_pass", 0))
        if c["pass"] < min_pass:
            failures.append(("min_pass", "%s%s: %d passing, below the floor of %d" % (where, m, c["pass"], min_pass)))
        elif c["pass"] > min_pass:
            notes.append("%s%s: %d passing, above the floor of %d (raise it with --update-floor)"
                         % (where, m, c["pass"], min_pass))
    return failures, notes


def update_floor(path, floor, results, modes):
    """Raises min_pass to the current counts (never lowers it); RESULTS[suite
    name][mode][test]. A flat floor file stays flat."""
    changed = []
    flat = any(m in floor for m in ALL_MODES)
    for suite in results:
        root = floor if flat else floor.setdefault(suite, {})
        for m in modes:
            spec = root.setdefault(m, {"min_pass": 0, "max_crash": 0})
            c = counts_of(results[suite][m])
            old = int(spec.get("min_pass", 0))
            if c["pass"] > old:
                spec["min_pass"] = c["pass"]
                changed.append("%s %s %d -> %d" % (suite, m, old, c["pass"]))
            spec.setdefault("max_crash", 0)
    with open(path, "w") as f:
        json.dump(floor, f, indent=2, sort_keys=False)
        f.write("\n")
    return changed


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------

class Suite:
    """One suite to run: NAME (debian, current, or a directory's name),
    its DIR, and the docs page's TITLE and SOURCE."""

    def __init__(self, name, directory, title, source):
        self.name, self.dir, self.title, self.source = name, directory, title, source
        self.tests = []


def resolve_suites(args):
    """The suites --suite selects, in run order. Raises SystemExit(2) with a
    message when one is missing."""
    specs = args.suite or ["all"]
    wanted = []
    for spec in specs:
        if spec == "all":
            wanted += [("debian", None), ("current", None)]
        elif spec in SUITES:
            wanted.append((spec, None))
        else:
            name, _, directory = spec.rpartition("=") if "=" in spec else ("", "", spec)
            directory = os.path.abspath(directory)
            if not name and os.path.realpath(directory) == os.path.realpath(DEFAULT_SUITE):
                wanted.append(("debian", None))
            else:
                wanted.append((name or None, directory))
    suites, seen = [], set()
    for name, directory in wanted:
        if directory is None:
            if name in seen:
                continue
            if name == "debian":
                if not os.path.isdir(DEFAULT_SUITE):
                    raise SystemExit("node_suite: error: Debian's suite %s is not installed "
                                     "(scripts/setup.sh installs libonnx-testdata)" % DEFAULT_SUITE)
                d = DEFAULT_SUITE
            else:
                if not os.path.isfile(args.current_archive):
                    raise SystemExit("node_suite: error: %s not found" % args.current_archive)
                d = unpack_suite(args.current_archive, args.unpack_dir)
            suites.append(Suite(name, d, SUITES[name]["title"], SUITES[name]["source"]))
        else:
            if not os.path.isdir(directory):
                raise SystemExit("node_suite: error: suite directory %s not found" % directory)
            base = name or "custom"
            name, i = base, 2
            while name in seen:
                name, i = "%s%d" % (base, i), i + 1
            suites.append(Suite(name, directory, "The suite `%s`" % name, "`<suite>`"))
        seen.add(name)
    return suites


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="See docs/testing.md.")
    p.add_argument("--mode", action="append", choices=ALL_MODES,
                   help="mode to run (repeatable; default: static and symbolic)")
    p.add_argument("--suite", action="append", metavar="debian|current|all|[NAME=]DIR",
                   help="suite to run (repeatable; default: all = debian and current): "
                        "debian (%s), current (the bundled ONNX 1.23 suite), or a directory "
                        "of node tests" % DEFAULT_SUITE)
    p.add_argument("--current-archive", default=CURRENT_ARCHIVE,
                   help="the current suite's archive (default: %(default)s)")
    p.add_argument("--unpack-dir", default=CURRENT_UNPACK_DIR,
                   help="where the current suite is unpacked, once (default: %(default)s)")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                   help="parallel jobs (default: %(default)s)")
    p.add_argument("--timeout", type=float, default=60, help="seconds per test (default: 60)")
    p.add_argument("--max-timeouts", type=int, default=25,
                   help="after this many timeouts, skip the remaining tests as crashes, so a "
                        "hanging compiler cannot eat the CI budget (0: no limit; default 25)")
    p.add_argument("--filter", metavar="REGEX", help="only tests whose name matches (re.search)")
    p.add_argument("--bin-dir", default=os.environ.get("ONYX_BIN_DIR", os.path.join(REPO, "build", "bin")),
                   help="where onyx-run and onyx-compile are (default: $ONYX_BIN_DIR, else build/bin, "
                        "as the other e2e scripts)")
    p.add_argument("--onyx-run", help="onyx-run binary (overrides --bin-dir)")
    p.add_argument("--onyx-compile", help="onyx-compile binary (overrides --bin-dir)")
    p.add_argument("--target", help="pass --target=TARGET to onyx-run (default: its default, cpu)")
    p.add_argument("--rtol", type=float, default=DEFAULT_RTOL)
    p.add_argument("--atol", type=float, default=DEFAULT_ATOL)
    p.add_argument("--mem-limit-gb", type=float, default=16,
                   help="address-space limit (this process and each tool) in GiB (0: none; default 16)")
    p.add_argument("--results", default=os.path.join(REPO, "build", "node_suite_results.json"),
                   help="JSON results file (default: build/node_suite_results.json)")
    p.add_argument("--from-results", metavar="FILE",
                   help="run nothing: take every test's result from FILE, the --results of "
                        "an earlier run of the same suites and modes (e.g. CI's), to write "
                        "the docs or check/update the floors from it")
    p.add_argument("--write-docs", nargs="?", const=DEFAULT_DOCS, metavar="PATH",
                   help="write the supported-operators page (default path: docs/supported-ops.md)")
    p.add_argument("--floor", metavar="FILE", nargs="?", const=DEFAULT_FLOOR,
                   help="check pass counts / crashes against FILE "
                        "(default FILE: test/e2e/node_suite_floor.json)")
    p.add_argument("--update-floor", action="store_true",
                   help="raise the floor file's min_pass to the current counts (never lowers)")
    p.add_argument("--list-failures", action="store_true", help="print every non-passing test")
    p.add_argument("--keep-temp", action="store_true", help="keep per-test output directories")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    args = p.parse_args(argv)
    modes = args.mode or ["static", "symbolic"]
    args.modes = [m for m in ALL_MODES if m in modes]
    if args.update_floor and not args.floor:
        args.floor = DEFAULT_FLOOR
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        suites = resolve_suites(args)
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    for s in suites:
        s.tests = load_suite(s.dir, args.filter)
    if not any(s.tests for s in suites):
        print("node_suite: no tests selected", file=sys.stderr)
        return 2
    for tool, modes in ((args.onyx_compile or os.path.join(args.bin_dir, "onyx-compile"), {"import"}),
                        (args.onyx_run or os.path.join(args.bin_dir, "onyx-run"), {"static", "symbolic"})):
        if modes & set(args.modes) and not args.from_results and not os.access(tool, os.X_OK):
            print("node_suite: error: %s is not an executable (build first)" % tool, file=sys.stderr)
            return 2

    previous = None
    if args.from_results:
        with open(args.from_results) as f:
            previous = json.load(f)
        for s in suites:
            for m in args.modes:
                have = previous.get("suites", {}).get(s.name, {}).get("modes", {}).get(m)
                missing = [t.name for t in s.tests
                           if not have or t.name not in have.get("tests", {})]
                if missing:
                    print("node_suite: error: %s has no %s %s result for %d tests (e.g. %s)"
                          % (args.from_results, s.name, m, len(missing), missing[0]),
                          file=sys.stderr)
                    return 2
        args.results = None

    limit_memory(int(args.mem_limit_gb * (1 << 30)))
    runner = Runner(args)
    jobs = [(s, t, m) for s in suites for m in args.modes for t in s.tests]
    results = {s.name: {m: {} for m in args.modes} for s in suites}
    # Per (suite, mode): [first start, last end], monotonic seconds.
    spans = {}
    lock = threading.Lock()
    done = [0]
    start = time.monotonic()
    tty = sys.stderr.isatty()

    timeouts = [0]

    def work(job):
        s, t, m = job
        t0 = time.monotonic()
        if previous is not None:
            r = previous["suites"][s.name]["modes"][m]["tests"][t.name]
        elif args.max_timeouts and timeouts[0] >= args.max_timeouts:
            r = {"status": "crash", "seconds": 0.0,
                 "reason": "not run: %d tests already timed out (--max-timeouts)" % timeouts[0]}
        else:
            r = runner.run(t, m)
        with lock:
            span = spans.setdefault((s.name, m), [t0, t0])
            span[0] = min(span[0], t0)
            span[1] = max(span[1], time.monotonic())
            if r["reason"].startswith("timeout after"):
                timeouts[0] += 1
            results[s.name][m][t.name] = r
            done[0] += 1
            if not args.quiet:
                if tty:
                    sys.stderr.write("\r[%d/%d] %-60s" % (done[0], len(jobs),
                                                          ("%s %s %s" % (s.name, m, t.name))[:60]))
                elif done[0] % 200 == 0 or done[0] == len(jobs):
                    sys.stderr.write("[%d/%d] %.0fs\n" % (done[0], len(jobs), time.monotonic() - start))
                sys.stderr.flush()

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for f in concurrent.futures.as_completed([pool.submit(work, j) for j in jobs]):
            f.result()
    if tty and not args.quiet:
        sys.stderr.write("\n")
    elapsed = time.monotonic() - start

    def wall(s, m):
        span = spans.get((s.name, m))
        return round(span[1] - span[0], 1) if span else 0.0

    # Results file.
    out = {
        "onnx_version": onnx.__version__,
        "filter": args.filter,
        "rtol": args.rtol,
        "atol": args.atol,
        "seconds": round(elapsed, 1),
        "jobs": args.jobs,
        "suites": {
            s.name: {
                "dir": s.dir,
                "modes": {m: {"counts": counts_of(results[s.name][m]),
                              "seconds": wall(s, m),
                              "tests": {n: results[s.name][m][n] for n in sorted(results[s.name][m])}}
                          for m in args.modes},
                "ops": {t.name: {"ops": t.ops, "counts_for": t.attributed, "expanded": t.expanded}
                        for t in s.tests},
            } for s in suites},
    }
    if args.results:
        os.makedirs(os.path.dirname(os.path.abspath(args.results)), exist_ok=True)
        with open(args.results, "w") as f:
            json.dump(out, f, indent=1)

    if args.list_failures:
        for s in suites:
            for m in args.modes:
                for n in sorted(results[s.name][m]):
                    r = results[s.name][m][n]
                    if r["status"] != "pass":
                        print("%-8s %-8s %-5s %s: %s" % (s.name, m, r["status"], n, _first_line(r["reason"])))

    print("node suites (%.0fs, -j%d):" % (elapsed, args.jobs))
    for s in suites:
        print("  %s (%d tests):" % (s.name, len(s.tests)))
        for m in args.modes:
            c = counts_of(results[s.name][m])
            print("    %-8s pass %4d  wrong %4d  error %4d  crash %4d  / %d  (%.0fs)"
                  % (m, c["pass"], c["wrong"], c["error"], c["crash"], c["total"], wall(s, m)))

    if args.write_docs:
        if args.filter:
            print("node_suite: not writing %s: --filter selects a subset" % args.write_docs)
        else:
            write_docs(args.write_docs, suites, results, args.modes, args)
            print("wrote %s" % os.path.relpath(args.write_docs))

    rc = 0
    floor = {}
    if args.floor and os.path.exists(args.floor):
        with open(args.floor) as f:
            floor = json.load(f)
    elif args.floor and not args.update_floor:
        print("node_suite: error: floor file %s not found" % args.floor, file=sys.stderr)
        rc = 1
    failures, notes = [], []
    for s in suites:
        f, n = check_floor(floor_spec(floor, s.name), results[s.name], args.modes,
                           bool(args.filter), s.name)
        failures += f
        notes += n
    if args.filter:
        notes.append("pass-count floors not checked: --filter selects a subset of the suite")
    if not args.floor:
        # Without a floor file, only crashes fail the run.
        failures = [f for f in failures if f[0] == "crash"]
        notes = []
    if args.update_floor:
        notes = [n for n in notes if "--update-floor" not in n]
    for n in notes:
        print("note: " + n)
    for _, f in failures:
        print("FAIL: " + f)
    if failures:
        rc = 1
    if args.update_floor:
        if args.filter:
            print("node_suite: not updating the floor: --filter selects a subset")
        else:
            changed = update_floor(args.floor, floor, results, args.modes)
            print("floor %s: %s" % (os.path.relpath(args.floor), ", ".join(changed) if changed else "unchanged"))
    return rc


if __name__ == "__main__":
    sys.exit(main())
