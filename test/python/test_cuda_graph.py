"""InferenceSession(enable_cuda_graph=True): refused for a host model (the
GPU paths are checked on the device, docs/cuda-measurements.md "CUDA
graphs at batch 1")."""
import os

import numpy as np
import pytest

import onyx

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                       "mlp_classifier.onnx")


def test_cuda_graph_is_refused_for_a_host_model():
    with pytest.raises(onyx.OnyxError, match="enable_cuda_graph is for a model "
                       "compiled for cuda"):
        onyx.InferenceSession(EXAMPLE, enable_cuda_graph=True)


def test_host_session_reports_graphs_off():
    s = onyx.InferenceSession(EXAMPLE)
    s.run(None, {"x": np.zeros((2, 16), np.float32)})
    st = s.cuda_graph_stats()
    assert st["enabled"] is False and st["active"] is False
    assert st["last_call"] == "normal" and st["captures"] == 0
    assert st["status"] == ""


def test_host_session_default_and_off():
    # The default (None: on for a cuda session) and an explicit False are
    # both fine for a host model; so is ONYX_CUDA_GRAPHS=0.
    for kwargs in ({"enable_cuda_graph": None}, {"enable_cuda_graph": False},
                   {"cuda_graph_cache_size": 4}):
        s = onyx.InferenceSession(EXAMPLE, **kwargs)
        s.run(None, {"x": np.zeros((2, 16), np.float32)})
        assert s.cuda_graph_stats()["enabled"] is False
