"""InferenceSession(enable_profiling=True): a Chrome trace with one event
per call and one per op (the .onnx is compiled with --profile), written by
end_profiling() or when the session goes; results unchanged; errors."""
import collections
import gc
import json
import os

import numpy as np
import onnx
import pytest

import onyx
from reference import reference  # examples/reference.py

from conftest import EXAMPLE


def load(path):
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    for e in events:
        assert e["ph"] == "X" and isinstance(e["name"], str) and e["name"]
        assert e["dur"] >= 0 and e["ts"] >= 0
    return events


def test_one_event_per_op_per_call(tmp_path):
    path = tmp_path / "trace.json"
    s = onyx.InferenceSession(EXAMPLE, enable_profiling=True,
                              profile_file=str(path))
    batches = [2, 5, 7]
    for b in batches:
        x = np.random.default_rng(b).standard_normal((b, 16)).astype(np.float32)
        (y,) = s.run(None, {"x": x})
        np.testing.assert_allclose(y, reference(x), rtol=1e-5, atol=1e-6)
    assert s.end_profiling() == str(path)
    events = load(path)
    calls = [e for e in events if e["cat"] == "call"]
    ops = [e for e in events if e["cat"] == "op"]
    assert len(calls) == len(batches)
    nodes = {n.name for n in onnx.load(EXAMPLE).graph.node}
    # One event per dispatch: every op once a call, the batched MatMul 'mix'
    # included (one onyxrt_cpu_sgemm_batched call for the whole batch).
    counts = []
    covered = 0
    for k, call in enumerate(sorted(calls, key=lambda e: e["ts"])):
        inside = [e for e in ops if call["ts"] - 1e-3 <= e["ts"] and
                  e["ts"] + e["dur"] <= call["ts"] + call["dur"] + 1e-3]
        covered += len(inside)
        c = collections.Counter((e["name"], e["args"]["op"]) for e in inside)
        assert c.pop(("mix", "onyxrt_cpu_sgemm_batched")) == 1
        counts.append(c)
        # The batch of that call appears in the shapes of its ops.
        assert any(s and s[0] == batches[k]
                   for e in inside for s in e["args"]["shapes"])
    assert covered == len(ops)
    assert counts[0] == counts[1] == counts[2] and len(counts[0]) >= 5
    for e in ops:
        assert e["args"]["op"]
        assert e["args"]["node"] in nodes | {""}
        assert all(isinstance(d, int) for s in e["args"]["shapes"] for d in s)
    # Stopped: more calls record nothing, a second end is an error.
    s.run(None, {"x": np.zeros((1, 16), np.float32)})
    assert len(load(path)) == len(events)
    with pytest.raises(onyx.OnyxError, match="profiling is not enabled"):
        s.end_profiling()


def test_empty_batch(tmp_path):
    # Ops the generated code skips for empty buffers (a BLAS call with a
    # zero dim) record no event; the others do, with the 0 in their shapes.
    path = tmp_path / "t.json"
    s = onyx.InferenceSession(EXAMPLE, enable_profiling=True,
                              profile_file=str(path))
    s.run(None, {"x": np.zeros((3, 16), np.float32)})
    s.run(None, {"x": np.zeros((0, 16), np.float32)})
    s.end_profiling()
    calls = sorted([e for e in load(path) if e["cat"] == "call"],
                   key=lambda e: e["ts"])
    ops = [e for e in load(path) if e["cat"] == "op"]
    second = [e for e in ops if e["ts"] >= calls[1]["ts"] - 1e-3]
    assert 0 < len(second) <= len(ops) - len(second)
    assert all(s[0] == 0 for e in second for s in e["args"]["shapes"]
               if len(s) == 2 and s[1] in (16, 32, 10))


def test_written_when_the_session_goes(tmp_path):
    path = tmp_path / "t.json"
    s = onyx.InferenceSession(EXAMPLE, enable_profiling=True,
                              profile_file=str(path))
    s.run(None, {"x": np.zeros((3, 16), np.float32)})
    del s
    gc.collect()
    assert [e["cat"] for e in load(path)].count("call") == 1


def test_failing_call_is_in_the_trace(tmp_path):
    path = tmp_path / "t.json"
    s = onyx.InferenceSession(EXAMPLE, enable_profiling=True,
                              profile_file=str(path))
    with pytest.raises(onyx.OnyxError, match="element type f64"):
        s.run(None, {"x": np.zeros((3, 16), np.float64)})
    s.run(None, {"x": np.zeros((3, 16), np.float32)})
    s.end_profiling()
    calls = [e for e in load(path) if e["cat"] == "call"]
    assert [c["args"]["ok"] for c in calls] == [False, True]
    assert "element type f64" in calls[0]["args"]["error"]


def test_default_file_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    s = onyx.InferenceSession(EXAMPLE, enable_profiling=True)
    s.run(None, {"x": np.zeros((1, 16), np.float32)})
    path = s.end_profiling()
    assert os.path.dirname(path) == str(tmp_path)
    assert os.path.basename(path).startswith("onyx_profile_%d_" % os.getpid())
    assert len(load(path)) > 1


def test_profiled_artifacts_are_cached_apart(tmp_path):
    plain = onyx.InferenceSession(EXAMPLE)
    profiled = onyx.InferenceSession(EXAMPLE, enable_profiling=True,
                                     profile_file=str(tmp_path / "p.json"))
    assert plain.artifact_path != profiled.artifact_path
    # An artifact compiled without --profile: the calls only.
    s = onyx.InferenceSession(plain.artifact_path, enable_profiling=True,
                              profile_file=str(tmp_path / "a.json"))
    s.run(None, {"x": np.zeros((2, 16), np.float32)})
    s.end_profiling()
    assert [e["cat"] for e in load(tmp_path / "a.json")] == ["call"]


def test_off_by_default_and_unwritable_file(tmp_path):
    s = onyx.InferenceSession(EXAMPLE)
    with pytest.raises(onyx.OnyxError, match="not enabled"):
        s.end_profiling()
    s = onyx.InferenceSession(EXAMPLE, enable_profiling=True,
                              profile_file="/nonexistent-dir/t.json")
    s.run(None, {"x": np.zeros((1, 16), np.float32)})
    with pytest.raises(onyx.OnyxError, match="cannot write the profile"):
        s.end_profiling()
    (y,) = s.run(None, {"x": np.zeros((1, 16), np.float32)})
    assert y.shape == (1, 10)


class _Terminal:
    """A stand-in for sys.stderr on a terminal."""

    def __init__(self):
        self.text = ""

    def isatty(self):
        return True

    def write(self, s):
        self.text += s

    def flush(self):
        pass


def test_compile_progress_on_a_terminal_only(monkeypatch, capsys, tmp_path):
    term = _Terminal()
    monkeypatch.setattr("sys.stderr", term)
    s = onyx.InferenceSession(EXAMPLE, cache_dir=str(tmp_path / "a"))
    assert s.from_cache is False
    lines = term.text.splitlines()
    assert lines[0].startswith("onyx-compile mlp_classifier.onnx: [  0%] import")
    assert lines[-1].startswith("onyx-compile mlp_classifier.onnx: [100%] done in ")
    assert len(lines) == 7
    monkeypatch.undo()
    # Not a terminal (pytest's captured stderr): quiet.
    s = onyx.InferenceSession(EXAMPLE, cache_dir=str(tmp_path / "b"))
    assert s.from_cache is False
    assert capsys.readouterr().err == ""


def test_cuda_onnx_is_compiled_with_profile(tmp_path, monkeypatch):
    # target="cuda" with enable_profiling compiles with --profile (kernel
    # events then carry their buffers' shapes: the artifact imports
    # onyxrt_cuda_profile_shapes); without it, the artifact does not. No
    # GPU here: the session itself fails after the compile, which is cached.
    def compiled(**kw):
        with pytest.raises(onyx.OnyxError):
            onyx.InferenceSession(EXAMPLE, target="cuda", **kw)
        arts = sorted(tmp_path.glob("*.so"), key=os.path.getmtime)
        return arts[-1].read_bytes()
    monkeypatch.setenv("ONYX_CACHE_DIR", str(tmp_path))
    plain = compiled()
    profiled = compiled(enable_profiling=True,
                        profile_file=str(tmp_path / "t.json"))
    assert b"onyxrt_cuda_profile_shapes" not in plain
    assert b"onyxrt_cuda_profile_shapes" in profiled
    assert len(list(tmp_path.glob("*.so"))) == 2
