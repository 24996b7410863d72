"""Finding and running onyx-compile (docs/python.md, "Compiling").

The compiler is looked up, in order: $ONYX_COMPILE; bin/onyx-compile in a
directory above the package (build/python/onyx -> build/bin, and
PREFIX/lib/python3/dist-packages/onyx -> PREFIX/bin); onyx-compile on PATH.
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys

from ._onyx import OnyxError

_HERE = os.path.dirname(os.path.abspath(__file__))


def find_compiler():
    env = os.environ.get("ONYX_COMPILE")
    if env:
        if not os.access(env, os.X_OK):
            raise OnyxError("ONYX_COMPILE=%s is not an executable" % env)
        return env
    d = _HERE
    for _ in range(6):
        d = os.path.dirname(d)
        candidate = os.path.join(d, "bin", "onyx-compile")
        if os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("onyx-compile")
    if found:
        return found
    raise OnyxError("onyx-compile not found: set ONYX_COMPILE, or use the "
                    "package from an Onyx build or install tree")


def compiler_identity(compiler):
    """What the cache key takes as the compiler version: the binary's path,
    size and modification time (a rebuilt compiler is a new version), and
    `onyx-compile --version`."""
    st = os.stat(compiler)
    h = hashlib.sha256()
    h.update(os.path.realpath(compiler).encode())
    h.update(b"\0%d\0%d\0" % (st.st_size, st.st_mtime_ns))
    try:
        out = subprocess.run([compiler, "--version"], capture_output=True,
                             timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        raise OnyxError("cannot run %s --version: %s" % (compiler, e))
    h.update(out)
    return h.hexdigest()


_PROGRESS = re.compile(r"^\[\s*\d+%\] ")


def compile_model(compiler, model_path, output_path, options):
    """Runs `onyx-compile model -o output options...`; OnyxError with the
    compiler's error lines when it fails. When sys.stderr is a terminal the
    compiler's stage lines ("[ 33%] bufferization") are shown on it as they
    come; otherwise the compile is quiet."""
    args = [compiler, model_path, "-o", output_path] + list(options)
    show = getattr(sys.stderr, "isatty", lambda: False)()
    if show:
        args.append("--progress=always")
    try:
        # One pipe for both streams: nothing can block on a full pipe.
        p = subprocess.Popen(args, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    except OSError as e:
        raise OnyxError("cannot run %s: %s" % (compiler, e))
    kept = []
    for line in p.stdout:
        if show and _PROGRESS.match(line):
            sys.stderr.write("onyx-compile %s: %s" % (
                os.path.basename(model_path), line))
            sys.stderr.flush()
        else:
            kept.append(line)
    p.wait()
    if p.returncode != 0:
        lines = [l for l in "".join(kept).splitlines() if l.strip()]
        errors = [l for l in lines if "error" in l] or lines[-20:]
        raise OnyxError("compiling %s failed (onyx-compile exit status %d):\n%s"
                        % (model_path, p.returncode, "\n".join(errors)))
