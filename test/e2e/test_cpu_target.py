#!/usr/bin/python3
"""onyx-compile --cpu=NAME (docs/performance-cpu.md, "Vector width").

The example MLP (examples/mlp_classifier.onnx, x[batch,16] -> y[batch,10]) is
compiled for each --cpu the host can run (native, the default, x86-64,
x86-64-v2, x86-64-v3 and x86-64-v4 where the host has AVX2 / AVX-512) and run
with onyx-run at batch 1 and 37 against the numpy reference
examples/reference.py: max|y - y_ref| / max|y_ref| <= 1e-5.

The refusal path: an artifact records the instruction-set extensions it was
built with, and its session creation refuses a CPU that lacks one. The runtime's
test hook $ONYXRT_TEST_CPU_FEATURES stands in for the host's extensions: with
the list of an x86-64-v2 CPU, an x86-64-v3 (AVX2) artifact must fail with one
`error:` line naming avx2, exit 1 and no signal (never SIGILL), while the
x86-64-v2 artifact runs; an empty-ish list (sse3 only) refuses x86-64-v2.
A bad --cpu is one error line at compile time.

  /usr/bin/python3 test/e2e/test_cpu_target.py [-v]
"""
import os
import shutil
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from onyx_e2e import EXAMPLE, ONYX_COMPILE, ONYX_RUN, REPO, require_tools, run  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "examples"))
import reference  # noqa: E402

REL_TOL = 1e-5
V2_FEATURES = "sse3,ssse3,sse4.1,sse4.2,crc32,popcnt,cx16,sahf"


def host_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


FLAGS = host_flags()
CPUS = ["native", "x86-64", "x86-64-v2"]
if {"avx2", "fma", "bmi2"} <= FLAGS:
    CPUS.append("x86-64-v3")
if {"avx512f", "avx512bw", "avx512dq", "avx512vl"} <= FLAGS:
    CPUS.append("x86-64-v4")


class CPUTargetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_tools(ONYX_COMPILE, ONYX_RUN)
        cls.tmp = tempfile.mkdtemp(prefix="onyx-cpu-target-")
        cls.so = {}
        for cpu in CPUS + ["x86-64-v3"]:
            if cpu in cls.so:
                continue
            so = os.path.join(cls.tmp, "model-%s.so" % cpu)
            args = [] if cpu == "native" else ["--cpu=" + cpu]
            r = run([ONYX_COMPILE, EXAMPLE, "-o", so] + args, timeout=300)
            if r.rc != 0 or not os.path.isfile(so):
                raise AssertionError("compiling for %s failed\n%s" % (cpu, r.describe()))
            cls.so[cpu] = so

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def onyx_run(self, so, x, tag, env=None):
        xin = os.path.join(self.tmp, "x_%s.npy" % tag)
        np.save(xin, x)
        out = os.path.join(self.tmp, "out_%s" % tag)
        os.makedirs(out, exist_ok=True)
        cmd = [ONYX_RUN, so, "--output-dir", out, "--input", "x=" + xin]
        if env:
            cmd = ["env"] + ["%s=%s" % kv for kv in env.items()] + cmd
        return run(cmd, timeout=120), os.path.join(out, "output_0.npy")

    def test_values_for_each_cpu(self):
        for cpu in CPUS:
            for batch in (1, 37):
                rng = np.random.default_rng(batch)
                x = rng.standard_normal((batch, 16)).astype(np.float32)
                r, path = self.onyx_run(self.so[cpu], x, "%s_%d" % (cpu, batch))
                self.assertEqual(r.rc, 0, r.describe())
                self.assertEqual(r.error_lines, [], r.describe())
                y = np.load(path)
                ref = reference.reference(x, EXAMPLE)
                self.assertEqual(y.shape, (batch, 10))
                err = float(np.abs(y.astype(np.float64) - ref).max() / np.abs(ref).max())
                print("--cpu=%-9s batch %2d: max|diff|/max|ref| = %.2e" % (cpu, batch, err))
                self.assertLessEqual(err, REL_TOL, "%s batch %d" % (cpu, batch))

    def check_refused(self, cpu, features, missing):
        x = np.ones((2, 16), np.float32)
        r, _ = self.onyx_run(self.so[cpu], x, "refused_" + cpu,
                             env={"ONYXRT_TEST_CPU_FEATURES": features})
        self.assertEqual(r.rc, 1, r.describe())
        self.assertEqual(len(r.error_lines), 1, r.describe())
        line = r.error_lines[0]
        self.assertIn("--cpu=" + cpu, line, r.describe())
        self.assertIn("this CPU lacks", line, r.describe())
        for name in missing:
            self.assertIn(name, line, r.describe())

    def test_v3_artifact_refused_on_v2_cpu(self):
        self.check_refused("x86-64-v3", V2_FEATURES, ["avx", "avx2", "fma"])

    def test_v2_artifact_refused_without_sse4(self):
        self.check_refused("x86-64-v2", "sse3", ["ssse3", "sse4.2", "popcnt"])

    def test_v2_artifact_runs_on_v2_cpu(self):
        x = np.ones((3, 16), np.float32)
        r, path = self.onyx_run(self.so["x86-64-v2"], x, "v2_on_v2",
                                env={"ONYXRT_TEST_CPU_FEATURES": V2_FEATURES})
        self.assertEqual(r.rc, 0, r.describe())
        ref = reference.reference(x, EXAMPLE)
        y = np.load(path)
        err = float(np.abs(y.astype(np.float64) - ref).max() / np.abs(ref).max())
        self.assertLessEqual(err, REL_TOL)

    def test_baseline_artifact_records_nothing_to_refuse(self):
        # x86-64 needs only SSE2, which every x86-64 has: no list refuses it.
        x = np.ones((1, 16), np.float32)
        r, _ = self.onyx_run(self.so["x86-64"], x, "base_on_nothing",
                             env={"ONYXRT_TEST_CPU_FEATURES": "none"})
        self.assertEqual(r.rc, 0, r.describe())

    def test_llvm_ir_records_features(self):
        r = run([ONYX_COMPILE, EXAMPLE, "--emit=llvm", "--cpu=x86-64-v3"], timeout=300)
        self.assertEqual(r.rc, 0, r.describe())
        self.assertIn("onyxrt_cpu_check_features", r.stdout)
        self.assertRegex(r.stdout, r'c"[^"]*avx2[^"]*\\00"')

    def test_bad_cpu(self):
        r = run([ONYX_COMPILE, EXAMPLE, "-o", os.path.join(self.tmp, "bad.so"),
                 "--cpu=pentium4"], timeout=60)
        self.assertEqual(r.rc, 1, r.describe())
        self.assertEqual(len(r.error_lines), 1, r.describe())
        self.assertIn("unknown --cpu 'pentium4'", r.error_lines[0])


if __name__ == "__main__":
    unittest.main(verbosity=2)
