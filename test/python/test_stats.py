"""InferenceSession.memory_stats(), sync_stats(), inject_fault() and
metadata(): the runtime's per-call statistics and fault injection
(onyx_state_memory_stats, onyx_state_sync_stats, onyx_state_inject_fault),
what scripts/gpu/readback_check.py and bench/gpu_bench.py read on the GPU,
checked here on CPU artifacts."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onyx
from conftest import EXAMPLE

import models


def nonzero_model(directory):
    """y = Transpose(NonZero(x)): the output's size is data-dependent, so
    the host reads a computed count (a host synchronization) every call."""
    g = helper.make_graph(
        [helper.make_node("NonZero", ["x"], ["nz"], name="the_nonzero"),
         helper.make_node("Transpose", ["nz"], ["y"], perm=[1, 0])],
        "nonzero", [models.vi("x", TensorProto.FLOAT, ["n"])],
        [models.vi("y", TensorProto.INT64, ["k", 1])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return models.save(m, directory, "nonzero")


def test_memory_stats_follow_the_batch(example_artifact):
    s = onyx.InferenceSession(example_artifact)
    keys = {"temp_bytes_requested", "temp_peak_bytes", "temp_allocations",
            "output_bytes", "retained_bytes", "planned_temp_bytes",
            "pool_requested_bytes", "max_live_bytes", "num_pools"}
    s.run(None, {"x": np.zeros((4, 16), np.float32)})
    small = s.memory_stats()
    assert set(small) == keys and all(isinstance(v, int) for v in small.values())
    assert small["output_bytes"] == 4 * 10 * 4  # y [4, 10] f32
    s.run(None, {"x": np.zeros((64, 16), np.float32)})
    big = s.memory_stats()
    assert big["output_bytes"] == 64 * 10 * 4
    # The hidden activations are planned temporaries sized by the batch.
    assert big["planned_temp_bytes"] > small["planned_temp_bytes"] > 0
    assert big["pool_requested_bytes"] >= big["max_live_bytes"] > 0


def test_sync_stats_count_readbacks(tmp_path):
    s = onyx.InferenceSession(nonzero_model(tmp_path))
    assert s.sync_stats() == {"last_call": 0, "total": 0, "calls": 0}
    x = np.array([0, 1.5, 0, 2, 3], np.float32)
    (y,) = s.run(None, {"x": x})
    np.testing.assert_array_equal(y, np.transpose(np.nonzero(x)))
    first = s.sync_stats()
    assert first["calls"] == 1 and first["last_call"] >= 1
    assert first["total"] == first["last_call"]
    s.run(None, {"x": x})
    second = s.sync_stats()
    assert second["calls"] == 2
    assert second["total"] == first["total"] + second["last_call"]
    # A model without data-dependent sizes reads nothing back.
    s = onyx.InferenceSession(EXAMPLE)
    s.run(None, {"x": np.zeros((2, 16), np.float32)})
    assert s.sync_stats() == {"last_call": 0, "total": 0, "calls": 1}


def test_injected_readback_fault_fails_one_call(tmp_path):
    s = onyx.InferenceSession(nonzero_model(tmp_path))
    x = np.array([1, 0, 2], np.float32)
    want = np.transpose(np.nonzero(x))
    s.inject_fault("readback", 1)
    with pytest.raises(onyx.OnyxError, match="fault injected") as e:
        s.run(None, {"x": x})
    assert "node '" in str(e.value)
    (y,) = s.run(None, {"x": x})  # one fault per arming: usable again
    np.testing.assert_array_equal(y, want)
    s.inject_fault("readback", 1)
    s.inject_fault("readback", 0)  # disarmed
    (y,) = s.run(None, {"x": x})
    np.testing.assert_array_equal(y, want)
    assert s.sync_stats()["calls"] == 3


def test_inject_fault_bad_arguments(example_artifact):
    s = onyx.InferenceSession(example_artifact)
    with pytest.raises(onyx.OnyxError, match="unknown fault kind 'launch'"):
        s.inject_fault("launch", 1)
    with pytest.raises(onyx.OnyxError, match="nth must be >= 0"):
        s.inject_fault("readback", -1)
    with pytest.raises(onyx.OnyxError, match="nth must be an int"):
        s.inject_fault("readback", "1")
    (y,) = s.run(None, {"x": np.zeros((1, 16), np.float32)})
    assert y.shape == (1, 10)


def test_metadata_is_the_artifacts(example_artifact):
    s = onyx.InferenceSession(example_artifact)
    text = s.metadata()
    assert text.startswith("onyx-model v1\n")
    assert text == onyx.artifact_metadata(example_artifact)
