"""pytest setup for the Python package tests (docs/python.md, "Tests").

Imports `onyx` from the build tree ($ONYX_BUILD_DIR, default build/, at
build/python) unless ONYX_PYTHON_FROM_PATH=1 (the installed package, found on
sys.path). Every test gets a fresh compile cache under its tmp dir, so the
user's ~/.cache/onyx is never touched.

  /usr/bin/python3 -m pytest -q test/python
"""
import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.abspath(os.path.join(REPO, os.environ.get("ONYX_BUILD_DIR", "build")))
if os.environ.get("ONYX_PYTHON_FROM_PATH") != "1":
    sys.path.insert(0, os.path.join(BUILD, "python"))
sys.path.insert(0, os.path.join(REPO, "examples"))

EXAMPLE = os.path.join(REPO, "examples", "mlp_classifier.onnx")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    d = tmp_path / "onyx-cache"
    monkeypatch.setenv("ONYX_CACHE_DIR", str(d))
    monkeypatch.delenv("ONYX_CACHE_MAX_BYTES", raising=False)
    monkeypatch.delenv("ONYX_COMPILE", raising=False)
    return d


@pytest.fixture(scope="session")
def example_artifact(tmp_path_factory):
    """examples/mlp_classifier.onnx compiled once for the whole run (an
    artifact .so path; tests that exercise compiling use their own cache)."""
    import onyx
    d = tmp_path_factory.mktemp("example-cache")
    s = onyx.InferenceSession(EXAMPLE, cache_dir=str(d))
    return s.artifact_path
