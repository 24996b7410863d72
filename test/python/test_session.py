"""onyx.InferenceSession: metadata, results against numpy references at
several shapes, sequences and optionals, and errors (which raise
onyx.OnyxError with the runtime's message and leave the session usable)."""
import os
import re

import numpy as np
import pytest

import onyx
from reference import reference  # examples/reference.py

import models
from conftest import EXAMPLE, REPO


def test_runtime_version_is_the_headers():
    with open(os.path.join(REPO, "runtime", "include", "onyx", "onyx_runtime.h")) as f:
        want = re.search(r'#define ONYX_RUNTIME_VERSION "([0-9.]+)"', f.read()).group(1)
    assert onyx.runtime_version() == want
    assert onyx.__version__ == want


def test_metadata_of_the_example(example_artifact):
    s = onyx.InferenceSession(example_artifact)
    (x,) = s.get_inputs()
    (y,) = s.get_outputs()
    assert (x.name, x.type, x.element_type, x.shape, x.kind) == \
        ("x", "tensor(float)", "f32", ["batch", 16], "tensor")
    assert (y.name, y.type, y.shape) == ("y", "tensor(float)", ["batch", 10])
    assert s.target == "cpu"


@pytest.mark.parametrize("batch", [1, 7, 64, 0])
def test_example_matches_numpy_reference(example_artifact, batch):
    s = onyx.InferenceSession(example_artifact)
    x = np.random.default_rng(batch).standard_normal((batch, 16)).astype(np.float32)
    (y,) = s.run(None, {"x": x})
    assert y.dtype == np.float32 and y.shape == (batch, 10)
    np.testing.assert_allclose(y, reference(x), rtol=1e-5, atol=1e-6)
    # Naming the output gives the same.
    (y2,) = s.run(["y"], {"x": x})
    np.testing.assert_array_equal(y, y2)


def test_onnx_path_compiles_and_runs():
    s = onyx.InferenceSession(EXAMPLE)
    assert s.from_cache is False and s.artifact_path.endswith(".so")
    x = np.ones((3, 16), np.float32)
    np.testing.assert_allclose(s.run(None, {"x": x})[0], reference(x), rtol=1e-5, atol=1e-6)


def test_outputs_are_independent_views(example_artifact):
    # Each output array owns its call's buffers: a later call (of another
    # size) leaves an earlier result untouched, and arrays outlive the session.
    s = onyx.InferenceSession(example_artifact)
    x1 = np.full((2, 16), 0.5, np.float32)
    (y1,) = s.run(None, {"x": x1})
    keep = y1.copy()
    s.run(None, {"x": np.zeros((50, 16), np.float32)})
    del s
    np.testing.assert_array_equal(y1, keep)
    np.testing.assert_allclose(y1, reference(x1), rtol=1e-5, atol=1e-6)


def test_any_layout_is_accepted(example_artifact):
    s = onyx.InferenceSession(example_artifact)
    base = np.random.default_rng(1).standard_normal((16, 9)).astype(np.float32)
    x = base.T  # Fortran order
    assert not x.flags.c_contiguous
    np.testing.assert_allclose(s.run(None, {"x": x})[0], reference(x), rtol=1e-5, atol=1e-6)
    x = base[:, ::2].T  # strided
    np.testing.assert_allclose(s.run(None, {"x": x})[0], reference(x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (17, 33)])
def test_several_outputs_and_shapes(tmp_path, shape):
    s = onyx.InferenceSession(models.save(models.elementwise(3.0), tmp_path, "ew"))
    assert [a.shape for a in s.get_inputs()] == [["n", "m"], ["m"]]
    assert [(a.name, a.element_type) for a in s.get_outputs()] == \
        [("y", "f32"), ("z", "f32"), ("k", "i64")]
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal(shape[1]).astype(np.float32)
    y, z, k = s.run(None, {"x": x, "b": b})
    np.testing.assert_allclose(y, x * 3 + b, rtol=1e-6)
    np.testing.assert_allclose(z, (x * 3 + b).sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(k, np.array(shape, np.int64))
    (z_only, k_only) = s.run(["z", "k"], {"x": x, "b": b})
    np.testing.assert_array_equal(z_only, z)
    np.testing.assert_array_equal(k_only, k)


def test_scalars(tmp_path):
    s = onyx.InferenceSession(models.save(models.scale(), tmp_path, "scale"))
    assert [a.shape for a in s.get_inputs()] == [["n"], []]
    x = np.arange(5, dtype=np.float32)
    for scalar in (np.float32(2.5), np.array(2.5, np.float32)):
        y, t = s.run(None, {"x": x, "s": scalar})
        np.testing.assert_array_equal(y, x * 2.5)
        assert t.shape == () and float(t) == 5.0
    with pytest.raises(onyx.OnyxError, match="rank"):
        s.run(None, {"x": x, "s": np.array([2.5], np.float32)})


def test_sequences_and_optionals(tmp_path):
    s = onyx.InferenceSession(models.save(models.sequences(), tmp_path, "seq"))
    kinds = {a.name: (a.kind, a.type, a.shape) for a in s.get_inputs()}
    assert kinds["xs"] == ("sequence", "seq(tensor(int32))", None)
    assert kinds["opt"] == ("optional", "optional(tensor(float))", None)
    assert s.get_outputs()[0].kind == "sequence"
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    xs = [np.zeros(2, np.int32), np.ones((1, 3), np.int32), np.int32(7)]
    for sizes, opt, n in [([1, 3], np.ones(2, np.float32), 3), ([4, 0, 0], None, 0)]:
        parts, joined, length, has = s.run(None, {
            "x": x, "sizes": np.array(sizes, np.int64), "xs": xs[:n], "opt": opt})
        assert isinstance(parts, list) and len(parts) == len(sizes)
        assert all(p.dtype == np.float32 and p.ndim == 2 for p in parts)
        off = np.cumsum([0] + sizes)
        for p, a, b in zip(parts, off[:-1], off[1:]):
            np.testing.assert_array_equal(p, x[a:b])
        np.testing.assert_array_equal(joined, x)
        assert length.shape == () and int(length) == n
        assert bool(has) == (opt is not None)
    # Bad sequence and optional values.
    feed = {"x": x, "sizes": np.array([4], np.int64), "xs": []}
    for key, value, fragment in [
            ("xs", [np.zeros(2, np.float32)], "element 0 is f32, but the sequence holds i32"),
            ("xs", [1, 2], "expected a numpy array"),
            ("xs", [[np.zeros(2, np.int32)]], "got list"),
            ("xs", np.zeros(2, np.int32), "is a sequence: pass a list"),
            ("opt", [np.zeros(1, np.float32)], "takes a tensor there"),
            ("sizes", np.array([5, -1], np.int64), "split entry 1 is negative"),
            ("x", np.lib.stride_tricks.as_strided(np.zeros(1, np.float32), (2**20, 2**20),
                                                  (0, 0)), "cannot make a row-major copy")]:
        with pytest.raises(onyx.OnyxError, match=re.escape(fragment)):
            s.run(None, dict(feed, **{key: value}))
    # Leaving an optional out is an empty optional.
    _, _, _, has = s.run(None, {"x": x, "sizes": np.array([4], np.int64), "xs": []})
    assert not bool(has)


def expect_error(fn, *fragments):
    with pytest.raises(onyx.OnyxError) as info:
        fn()
    for f in fragments:
        assert f in str(info.value), str(info.value)
    return str(info.value)


def test_bad_inputs_raise_and_the_session_stays_usable(example_artifact):
    s = onyx.InferenceSession(example_artifact)
    good = np.random.default_rng(2).standard_normal((5, 16)).astype(np.float32)
    want = reference(good)
    bad_calls = [
        (lambda: s.run(None, {"x": good.astype(np.float64)}),
         ["input 'x'", "f64", "f32"]),
        (lambda: s.run(None, {"x": good.astype(np.int64)}), ["i64"]),
        (lambda: s.run(None, {"x": good[:, :15]}), ["input 'x'", "16"]),
        (lambda: s.run(None, {"x": good[0]}), ["input 'x'", "rank"]),
        (lambda: s.run(None, {"x": good.reshape(5, 16, 1)}), ["rank"]),
        (lambda: s.run(None, {}), ["missing inputs: x"]),
        (lambda: s.run(None, {"x": good, "w": good}), ["no input 'w'"]),
        (lambda: s.run(["nope"], {"x": good}), ["no output 'nope'"]),
        (lambda: s.run(None, {"x": good.tolist()}), ["input 0 'x'", "tensor"]),
        (lambda: s.run(None, {"x": "text"}), ["expected a numpy array", "str"]),
        (lambda: s.run(None, {"x": good.astype(np.complex64)}), ["complex64"]),
        (lambda: s.run(None, {"x": None}), ["not an optional"]),
        (lambda: s.run(None, [good]), ["dict"]),
    ]
    for call, fragments in bad_calls:
        expect_error(call, *fragments)
        (y,) = s.run(None, {"x": good})
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


def test_a_runtime_check_failing_inside_the_model(tmp_path):
    # Inputs sharing the symbol m must agree: the runtime says which dim.
    s = onyx.InferenceSession(models.save(models.elementwise(), tmp_path, "ew"))
    x = np.ones((2, 3), np.float32)
    msg = expect_error(lambda: s.run(None, {"x": x, "b": np.ones(4, np.float32)}), "'b'")
    assert "m" in msg
    y, _, _ = s.run(None, {"x": x, "b": np.ones(3, np.float32)})
    np.testing.assert_array_equal(y, np.full((2, 3), 3, np.float32))


def test_bad_sessions(tmp_path, example_artifact):
    expect_error(lambda: onyx.InferenceSession(str(tmp_path / "none.onnx")), "no such file")
    expect_error(lambda: onyx.InferenceSession(EXAMPLE, target="tpu"), "target")
    expect_error(lambda: onyx.InferenceSession(EXAMPLE, precision="int8"),
                 "precision 'int8' is not supported")
    expect_error(lambda: onyx.InferenceSession(EXAMPLE, threads=0), "threads")
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"this is not a protobuf")
    expect_error(lambda: onyx.InferenceSession(str(garbage)), "compiling", "failed")
    not_so = tmp_path / "fake.so"
    not_so.write_bytes(b"\x7fELF garbage")
    expect_error(lambda: onyx.InferenceSession(str(not_so)), "cannot load the artifact")
    runtime_lib = os.path.join(os.path.dirname(os.path.dirname(onyx.__file__)), "..",
                               "lib", "libonyx_runtime.so")
    if os.path.exists(runtime_lib):
        expect_error(lambda: onyx.InferenceSession(runtime_lib), "is not an Onyx artifact")
    # The artifact has no external weights to take.
    s = onyx.InferenceSession(example_artifact, weights=str(tmp_path))
    assert s.run(None, {"x": np.zeros((1, 16), np.float32)})[0].shape == (1, 10)


def test_cuda_stream_option(example_artifact):
    # A caller's stream is for CUDA models (the GPU side is checked by
    # scripts/gpu/dlpack_cuda_check.py on the GPU machine).
    class TorchLikeStream:
        cuda_stream = 0x1234

    for stream in (0x1234, TorchLikeStream()):
        expect_error(lambda: onyx.InferenceSession(example_artifact,
                                                   cuda_stream=stream),
                     "cuda_stream is for a model compiled for cuda", "host")
    for bad in ("s", -1, 1.5, True):
        expect_error(lambda: onyx.InferenceSession(example_artifact,
                                                   cuda_stream=bad),
                     "cuda_stream must be a CUstream handle")
    s = onyx.InferenceSession(example_artifact, cuda_stream=None)
    assert s.run(None, {"x": np.zeros((1, 16), np.float32)})[0].shape == (1, 10)


def test_threads_option(example_artifact):
    x = np.random.default_rng(3).standard_normal((33, 16)).astype(np.float32)
    for n in (1, 2):
        s = onyx.InferenceSession(example_artifact, threads=n)
        np.testing.assert_allclose(s.run(None, {"x": x})[0], reference(x),
                                   rtol=1e-5, atol=1e-6)


def test_readme_example_runs(tmp_path):
    # The README's Python example, verbatim, from the repository root.
    import subprocess
    with open(os.path.join(REPO, "README.md")) as f:
        text = f.read()
    block = re.search(r'```sh\n(PYTHONPATH=build/python /usr/bin/python3 -c ".*?"\n)```',
                      text, re.S)
    assert block, "the README's Python example is missing"
    build = os.environ.get("ONYX_BUILD_DIR", "build")
    command = block.group(1).replace("PYTHONPATH=build/python",
                                     "PYTHONPATH=%s/python" % build)
    r = subprocess.run(["bash", "-c", command], cwd=REPO, capture_output=True, text=True,
                       env=dict(os.environ, ONYX_CACHE_DIR=str(tmp_path)))
    assert r.returncode == 0, r.stderr
    assert "shape=['batch', 16]" in r.stdout and "(4, 10)" in r.stdout, r.stdout
