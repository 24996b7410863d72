"""onyx.InferenceSession(precision=...): onyx-compile's --precision for an
.onnx (docs/python.md). fp16 runs the example MLP's GEMMs in half
precision; its output keeps the model's float32 type and is close to the
fp32 session's, but not identical (the half type was used)."""
import numpy as np

import onyx
from conftest import EXAMPLE


def test_fp16_session_of_the_example(tmp_path):
    x = np.random.default_rng(0).standard_normal((5, 16)).astype(np.float32)
    (ref,) = onyx.InferenceSession(EXAMPLE, cache_dir=str(tmp_path)).run(None, {"x": x})
    s = onyx.InferenceSession(EXAMPLE, precision="fp16", cache_dir=str(tmp_path))
    (y,) = s.run(None, {"x": x})
    assert y.dtype == np.float32 and y.shape == ref.shape
    err = np.linalg.norm(y.astype(np.float64) - ref) / np.linalg.norm(ref)
    assert 1e-6 < err < 5e-3, err


def test_bf16_needs_cuda(tmp_path):
    try:
        onyx.InferenceSession(EXAMPLE, precision="bf16", cache_dir=str(tmp_path))
    except onyx.OnyxError as e:
        assert "--precision=bf16 needs --target=cuda" in str(e), str(e)
    else:
        raise AssertionError("a bf16 CPU session compiled")
