"""The compile cache: a second session (in another process too) of the same
model runs no compiler; the key covers model bytes, options and the
compiler; entries appear atomically, concurrent first uses compile once,
and the directory stays under ONYX_CACHE_MAX_BYTES (LRU)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import onyx
import models
from conftest import BUILD, EXAMPLE

REAL_COMPILER = os.path.join(BUILD, "bin", "onyx-compile")


@pytest.fixture
def counted_compiler(tmp_path, monkeypatch):
    """ONYX_COMPILE = a wrapper that logs each compile (not --version)."""
    log = tmp_path / "compiles.log"
    wrapper = tmp_path / "onyx-compile"
    wrapper.write_text(textwrap.dedent("""\
        #!/bin/sh
        if [ "$1" != "--version" ]; then echo "$@" >> %s; fi
        exec %s "$@"
        """ % (log, REAL_COMPILER)))
    wrapper.chmod(0o755)
    monkeypatch.setenv("ONYX_COMPILE", str(wrapper))

    def count():
        return len(log.read_text().splitlines()) if log.exists() else 0
    return count


def entries(d):
    return sorted(f for f in os.listdir(d) if f.endswith(".so"))


def test_second_session_compiles_nothing(private_cache, counted_compiler):
    s1 = onyx.InferenceSession(EXAMPLE)
    assert s1.from_cache is False and counted_compiler() == 1
    s2 = onyx.InferenceSession(EXAMPLE)
    assert s2.from_cache is True and counted_compiler() == 1
    assert s2.artifact_path == s1.artifact_path
    assert os.path.dirname(s1.artifact_path) == str(private_cache)
    x = np.ones((4, 16), np.float32)
    np.testing.assert_array_equal(s1.run(None, {"x": x})[0], s2.run(None, {"x": x})[0])
    # Another process, same cache: still no compile.
    code = ("import onyx, numpy as np; s = onyx.InferenceSession(%r); "
            "assert s.from_cache; print(s.run(None, {'x': np.ones((4, 16), np.float32)})[0].sum())"
            % EXAMPLE)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(onyx.__file__)))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert counted_compiler() == 1
    assert entries(private_cache) == [os.path.basename(s1.artifact_path)]
    assert not [f for f in os.listdir(private_cache) if f.startswith(".tmp-")]


def test_key_covers_model_options_and_compiler(tmp_path, private_cache, counted_compiler):
    a = models.save(models.elementwise(2.0), tmp_path, "a")
    b = models.save(models.elementwise(5.0), tmp_path / "..", "b")
    onyx.InferenceSession(a)
    onyx.InferenceSession(b)  # other bytes
    assert counted_compiler() == 2 and len(entries(private_cache)) == 2
    # Same bytes under another name: a hit.
    c = tmp_path / "copy.onnx"
    c.write_bytes(open(a, "rb").read())
    assert onyx.InferenceSession(str(c)).from_cache is True
    # A rebuilt compiler (here: its binary touched) is a new version.
    wrapper = os.environ["ONYX_COMPILE"]
    st = os.stat(wrapper)
    os.utime(wrapper, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert onyx.InferenceSession(a).from_cache is False
    assert counted_compiler() == 3


def test_cache_dir_argument(tmp_path, private_cache, counted_compiler):
    d = tmp_path / "explicit"
    s = onyx.InferenceSession(EXAMPLE, cache_dir=str(d))
    assert os.path.dirname(s.artifact_path) == str(d)
    assert not os.path.exists(private_cache) or entries(private_cache) == []
    assert onyx.InferenceSession(EXAMPLE, cache_dir=str(d)).from_cache


def test_lru_eviction(tmp_path, private_cache, counted_compiler, monkeypatch):
    paths = [models.save(models.elementwise(float(k)), tmp_path, "m%d" % k) for k in range(3)]
    s0 = onyx.InferenceSession(paths[0])
    size = os.path.getsize(s0.artifact_path)
    # Room for two entries.
    monkeypatch.setenv("ONYX_CACHE_MAX_BYTES", str(int(size * 2.5)))
    s1 = onyx.InferenceSession(paths[1])
    os.utime(s0.artifact_path, ns=(1, 1))
    os.utime(s1.artifact_path, ns=(2, 2))
    assert onyx.InferenceSession(paths[0]).from_cache  # a hit refreshes m0
    onyx.InferenceSession(paths[2])  # evicts m1, the least recently used
    left = entries(private_cache)
    assert len(left) == 2
    assert os.path.basename(s0.artifact_path) in left
    assert os.path.basename(s1.artifact_path) not in left
    # s1 still runs: its library was mapped before the file went away.
    y, _, _ = s1.run(None, {"x": np.ones((1, 2), np.float32), "b": np.zeros(2, np.float32)})
    np.testing.assert_array_equal(y, np.ones((1, 2), np.float32))
    monkeypatch.setenv("ONYX_CACHE_MAX_BYTES", "lots")
    with pytest.raises(onyx.OnyxError, match="ONYX_CACHE_MAX_BYTES"):
        onyx.InferenceSession(paths[1])


def test_concurrent_first_use_compiles_once(private_cache, counted_compiler):
    code = ("import onyx, numpy as np; s = onyx.InferenceSession(%r); "
            "y = s.run(None, {'x': np.ones((2, 16), np.float32)})[0]; print(y.shape)" % EXAMPLE)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(onyx.__file__)))
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(4)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        assert out.strip() == "(2, 10)"
    assert counted_compiler() == 1
    assert len(entries(private_cache)) == 1


def test_compile_errors_leave_nothing(tmp_path, private_cache, counted_compiler):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07garbage")
    with pytest.raises(onyx.OnyxError, match="compiling"):
        onyx.InferenceSession(str(bad))
    assert entries(private_cache) == []
    assert not [f for f in os.listdir(private_cache) if f.startswith(".tmp-")]
