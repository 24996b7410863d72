"""DLPack with torch 1.13 (CPU): torch tensors as inputs, outputs handed to
torch without a copy, onyx.from_dlpack / onyx.to_dlpack. (CUDA tensors:
docs/python.md; not testable on a machine without a GPU.)"""
import numpy as np
import pytest

import onyx
from reference import reference

torch = pytest.importorskip("torch")


def test_torch_input_and_output_round_trip(example_artifact):
    s = onyx.InferenceSession(example_artifact)
    xt = torch.randn(6, 16, generator=torch.Generator().manual_seed(0))
    (y,) = s.run(None, {"x": xt})  # a CPU torch tensor, through __dlpack__
    np.testing.assert_allclose(y, reference(xt.numpy()), rtol=1e-5, atol=1e-6)
    # The output goes to torch in place (numpy arrays speak DLPack).
    yt = torch.from_dlpack(y)
    assert yt.data_ptr() == y.ctypes.data
    assert yt.shape == (6, 10) and yt.dtype == torch.float32
    # ... and back into another run, through torch.
    (y2,) = s.run(None, {"x": torch.cat([yt, yt[:, :6]], dim=1)})
    np.testing.assert_allclose(
        y2, reference(np.concatenate([y, y[:, :6]], axis=1)), rtol=1e-5, atol=1e-6)


def test_from_dlpack_shares_memory():
    t = torch.arange(12, dtype=torch.int64).reshape(3, 4)
    a = onyx.from_dlpack(t)
    assert a.ctypes.data == t.data_ptr() and a.dtype == np.int64
    t[0, 0] = 99
    assert a[0, 0] == 99


def test_to_dlpack_capsule():
    a = np.linspace(0, 1, 10, dtype=np.float64).reshape(2, 5)
    t = torch.utils.dlpack.from_dlpack(onyx.to_dlpack(a))
    assert t.data_ptr() == a.ctypes.data and t.dtype == torch.float64
    np.testing.assert_array_equal(t.numpy(), a)
    b = np.arange(6, dtype=np.int32).reshape(3, 2).T  # not contiguous: copied
    np.testing.assert_array_equal(torch.utils.dlpack.from_dlpack(onyx.to_dlpack(b)).numpy(), b)


def test_capsules_and_bad_tensors_as_inputs(example_artifact):
    s = onyx.InferenceSession(example_artifact)
    x = np.random.default_rng(0).standard_normal((3, 16)).astype(np.float32)
    (y,) = s.run(None, {"x": onyx.to_dlpack(x)})  # a raw capsule
    np.testing.assert_allclose(y, reference(x), rtol=1e-5, atol=1e-6)
    used = onyx.to_dlpack(x)
    torch.utils.dlpack.from_dlpack(used)  # consumed: renamed used_dltensor
    with pytest.raises(onyx.OnyxError, match="not an unused DLPack capsule"):
        s.run(None, {"x": used})
    with pytest.raises(onyx.OnyxError, match="f64"):
        s.run(None, {"x": torch.zeros(3, 16, dtype=torch.float64)})
    # A transposed torch tensor: numpy takes it with its strides, and the
    # session copies it to the dense layout.
    xt = torch.from_numpy(x.T.copy()).t()
    np.testing.assert_allclose(s.run(None, {"x": xt})[0], reference(x), rtol=1e-5, atol=1e-6)
    with pytest.raises(onyx.OnyxError, match="rank"):
        s.run(None, {"x": torch.zeros(16)})
    assert s.run(None, {"x": torch.zeros(1, 16)})[0].shape == (1, 10)


def test_device_outputs_need_a_device_session(example_artifact):
    s = onyx.InferenceSession(example_artifact)
    with pytest.raises(onyx.OnyxError, match="device"):
        s.run(None, {"x": np.zeros((1, 16), np.float32)}, device_outputs=True)
