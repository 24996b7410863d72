#!/usr/bin/python3
"""One session of a compiled model called from many threads (docs/runtime.md,
"Threads"), through the C API with ctypes (foreign calls release the GIL, so
the calls really are concurrent).

The example MLP (x[batch,16], run-time placement of its temporaries: the
placement cache and the pools change with the batch) is compiled once. Each
input's expected output is computed first by single-threaded calls; then 8
threads share one session and every result must be bit-identical, with a bad
call (wrong rank) mixed in to check that each thread reads its own message.
The expected outputs are also checked against examples/reference.py.

  /usr/bin/python3 test/e2e/test_threads.py [-v]
"""
import ctypes
import os
import shutil
import sys
import tempfile
import threading
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onyx_e2e as E  # noqa: E402

sys.path.insert(0, os.path.join(E.REPO, "examples"))

ONYX_F32 = 1
THREADS = 8
CALLS = 150


class Artifact:
    """The C API of a compiled MODEL.so (and the runtime it links)."""

    def __init__(self, so):
        lib = ctypes.CDLL(so)
        P, I64, SZ = ctypes.c_void_p, ctypes.c_int64, ctypes.c_size_t
        sig = {
            "onyx_state_create": (P, []),
            "onyx_state_destroy": (None, [P]),
            "inference_compute": (P, [P, P]),
            "onyx_state_last_error": (ctypes.c_char_p, [P]),
            "onyx_tensor_create_copy": (P, [ctypes.c_int32, ctypes.c_int32,
                                            ctypes.POINTER(I64), P]),
            "onyx_tensor_list_create": (P, []),
            "onyx_tensor_list_append": (ctypes.c_int, [P, P]),
            "onyx_tensor_list_get": (P, [P, SZ]),
            "onyx_tensor_list_destroy": (None, [P]),
            "onyx_tensor_rank": (ctypes.c_int32, [P]),
            "onyx_tensor_shape": (ctypes.POINTER(I64), [P]),
            "onyx_tensor_byte_size": (SZ, [P]),
            "onyx_tensor_data": (P, [P]),
        }
        for name, (res, args) in sig.items():
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        self.lib = lib

    def inputs(self, x):
        x = np.ascontiguousarray(x, dtype=np.float32)
        shape = (ctypes.c_int64 * x.ndim)(*x.shape)
        t = self.lib.onyx_tensor_create_copy(ONYX_F32, x.ndim, shape,
                                             x.ctypes.data)
        lst = self.lib.onyx_tensor_list_create()
        assert t and lst and self.lib.onyx_tensor_list_append(lst, t) == 0
        return lst

    def run(self, state, x):
        """(output array or None, this thread's message)."""
        lst = self.inputs(x)
        try:
            out = self.lib.inference_compute(state, lst)
            msg = self.lib.onyx_state_last_error(state).decode()
            if not out:
                return None, msg
            try:
                t = self.lib.onyx_tensor_list_get(out, 0)
                rank = self.lib.onyx_tensor_rank(t)
                shape = tuple(self.lib.onyx_tensor_shape(t)[i] for i in range(rank))
                nbytes = self.lib.onyx_tensor_byte_size(t)
                buf = ctypes.string_at(self.lib.onyx_tensor_data(t), nbytes)
                return np.frombuffer(buf, dtype=np.float32).reshape(shape).copy(), msg
            finally:
                self.lib.onyx_tensor_list_destroy(out)
        finally:
            self.lib.onyx_tensor_list_destroy(lst)


class OneSessionManyThreads(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        E.require_tools(E.ONYX_COMPILE)
        cls.tmp = tempfile.mkdtemp(prefix="onyx-threads-")
        so = os.path.join(cls.tmp, "model.so")
        r = E.run([E.ONYX_COMPILE, E.EXAMPLE, "-o", so], timeout=300)
        if r.rc != 0:
            raise AssertionError(r.describe())
        cls.art = Artifact(so)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_eight_threads_one_session(self):
        art = self.art
        rng = np.random.default_rng(19)
        batches = [1, 2, 3, 5, 7, 8, 13, 31, 64, 100]
        xs = [rng.standard_normal((b, 16)).astype(np.float32) for b in batches]
        state = art.lib.onyx_state_create()
        self.assertTrue(state)
        try:
            expected = []
            for x in xs:
                y, msg = art.run(state, x)
                self.assertIsNotNone(y, msg)
                expected.append(y)
            from reference import reference
            for x, y in zip(xs, expected):
                ref = reference(x)
                self.assertLessEqual(np.abs(y - ref).max() / np.abs(ref).max(), 1e-5)

            bad = np.zeros((3,), dtype=np.float32)  # rank 1: rejected
            problems = []
            counts = {"ok": 0, "bad": 0}
            lock = threading.Lock()
            start = threading.Barrier(THREADS)

            def worker(t):
                start.wait()
                for k in range(CALLS):
                    if (t + k) % 9 == 0:
                        y, msg = art.run(state, bad)
                        good = y is None and "rank 1, but the model requires rank 2" in msg
                        kind = "bad"
                    else:
                        i = (t * 7 + k * 3) % len(xs)
                        y, msg = art.run(state, xs[i])
                        good = (y is not None and msg == "" and
                                y.shape == expected[i].shape and
                                np.array_equal(y, expected[i]))
                        kind = "ok"
                    with lock:
                        counts[kind] += 1
                        if not good:
                            problems.append((t, k, kind, msg))

            threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            self.assertEqual(problems, [], "%d of %d calls wrong" %
                             (len(problems), THREADS * CALLS))
            self.assertEqual(counts["ok"] + counts["bad"], THREADS * CALLS)
            self.assertGreater(counts["bad"], 0)
        finally:
            art.lib.onyx_state_destroy(state)


if __name__ == "__main__":
    unittest.main()
