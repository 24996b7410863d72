"""The compile cache (docs/python.md, "The compile cache").

An artifact is stored as DIR/<key>.so, key = sha256 of the model's bytes
(plus its external data files' names, sizes and modification times), the
compile options and the compiler's identity. DIR is `cache_dir`, else
$ONYX_CACHE_DIR, else ~/.cache/onyx. Entries are compiled to a temporary
name and renamed into place while holding DIR/.lock (fcntl.flock), so
concurrent processes compile a model once and never see a partial file.
The directory is kept under $ONYX_CACHE_MAX_BYTES (default 4 GiB) by
evicting the least recently used entries (a hit refreshes its mtime).
"""
import fcntl
import hashlib
import json
import os
import tempfile

from ._onyx import OnyxError
from . import _compiler

DEFAULT_MAX_BYTES = 4 << 30


def default_dir():
    return os.environ.get("ONYX_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "onyx")


def max_bytes():
    v = os.environ.get("ONYX_CACHE_MAX_BYTES")
    if not v:
        return DEFAULT_MAX_BYTES
    try:
        n = int(v)
    except ValueError:
        raise OnyxError("ONYX_CACHE_MAX_BYTES=%r is not an integer" % v)
    if n < 0:
        raise OnyxError("ONYX_CACHE_MAX_BYTES must be >= 0")
    return n


def _external_files(model_path, model_bytes):
    """(name, size, mtime) of the external data files the model names."""
    files = set()
    try:
        import warnings
        import onnx
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = onnx.load_from_string(model_bytes)
        for t in onnx.external_data_helper._get_all_tensors(m):
            if t.data_location == onnx.TensorProto.EXTERNAL:
                for e in t.external_data:
                    if e.key == "location":
                        files.add(e.value)
    except ImportError:
        # Without onnx, every other file next to the model counts.
        d = os.path.dirname(os.path.abspath(model_path))
        files = {f for f in os.listdir(d)
                 if os.path.isfile(os.path.join(d, f)) and not f.endswith(".onnx")}
    except Exception:
        pass  # not parseable here: the compiler will say why
    out = []
    base = os.path.dirname(os.path.abspath(model_path))
    for f in sorted(files):
        p = os.path.join(base, f)
        try:
            st = os.stat(p)
            out.append([f, st.st_size, st.st_mtime_ns])
        except OSError:
            out.append([f, -1, -1])
    return out


def cache_key(model_path, options, compiler_id):
    with open(model_path, "rb") as f:
        data = f.read()
    h = hashlib.sha256()
    h.update(data)
    h.update(json.dumps({"options": list(options), "compiler": compiler_id,
                         "external": _external_files(model_path, data)},
                        sort_keys=True).encode())
    return h.hexdigest()


class _Lock:
    def __init__(self, directory):
        self.path = os.path.join(directory, ".lock")

    def __enter__(self):
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def _evict(directory, keep, limit):
    entries = []
    for name in os.listdir(directory):
        if not name.endswith(".so"):
            continue
        p = os.path.join(directory, name)
        try:
            st = os.stat(p)
        except OSError:
            continue
        entries.append((st.st_mtime_ns, st.st_size, p))
    total = sum(e[1] for e in entries)
    for _, size, p in sorted(entries):
        if total <= limit:
            break
        if p == keep:
            continue
        try:
            os.unlink(p)
            total -= size
        except OSError:
            pass


def get_artifact(model_path, options, cache_dir=None):
    """The cached artifact for (model, options, compiler), compiling it on a
    miss. Returns (path, hit)."""
    compiler = _compiler.find_compiler()
    key = cache_key(model_path, options, _compiler.compiler_identity(compiler))
    directory = cache_dir or default_dir()
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise OnyxError("cannot create the cache directory %s: %s" % (directory, e))
    target = os.path.join(directory, key + ".so")
    with _Lock(directory):
        if os.path.isfile(target):
            os.utime(target)  # most recently used
            return target, True
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".so", dir=directory)
        os.close(fd)
        try:
            _compiler.compile_model(compiler, model_path, tmp, options)
            os.chmod(tmp, 0o755)
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        _evict(directory, target, max_bytes())
    return target, False
