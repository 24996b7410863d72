"""Concurrency: many sessions in parallel threads, and one session shared by
threads (the runtime serializes calls on one session, docs/runtime.md
"Threads"; the module releases the GIL while a call runs). Every result is
checked against single-threaded results and the numpy reference."""
import threading

import numpy as np

import onyx
from reference import reference


def inputs(n):
    rng = np.random.default_rng(42)
    return [rng.standard_normal((1 + (k * 7) % 40, 16)).astype(np.float32) for k in range(n)]


def hammer(calls, nthreads):
    errors = []

    def worker(t):
        try:
            calls(t)
        except Exception as e:  # reported below, with the thread
            errors.append("thread %d: %r" % (t, e))
    threads = [threading.Thread(target=worker, args=(t,)) for t in range(nthreads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors


def test_many_sessions_in_parallel(example_artifact):
    xs = inputs(24)
    want = [reference(x) for x in xs]
    sessions = [onyx.InferenceSession(example_artifact) for _ in range(6)]

    def calls(t):
        s = sessions[t]
        for r in range(40):
            k = (t * 5 + r) % len(xs)
            (y,) = s.run(None, {"x": xs[k]})
            np.testing.assert_allclose(y, want[k], rtol=1e-5, atol=1e-6)
    hammer(calls, len(sessions))


def test_sessions_created_in_parallel(example_artifact):
    x = inputs(1)[0]
    want = reference(x)

    def calls(t):
        for _ in range(5):
            s = onyx.InferenceSession(example_artifact)
            np.testing.assert_allclose(s.run(None, {"x": x})[0], want, rtol=1e-5, atol=1e-6)
    hammer(calls, 4)


def test_one_session_many_threads(example_artifact):
    s = onyx.InferenceSession(example_artifact)
    xs = inputs(16)
    single = [s.run(None, {"x": x})[0].copy() for x in xs]
    for x, y in zip(xs, single):
        np.testing.assert_allclose(y, reference(x), rtol=1e-5, atol=1e-6)

    def calls(t):
        for r in range(60):
            k = (t * 3 + r) % len(xs)
            if r % 13 == 5:
                # A failing call in the mix: its own message, no effect on others.
                try:
                    s.run(None, {"x": xs[k][0]})
                    raise AssertionError("a rank-1 input was accepted")
                except onyx.OnyxError as e:
                    assert "rank" in str(e), str(e)
            (y,) = s.run(None, {"x": xs[k]})
            np.testing.assert_array_equal(y, single[k])
    hammer(calls, 8)
