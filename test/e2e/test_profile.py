#!/usr/bin/python3
"""Profiles (docs/runtime.md, "Profiling") and compile progress, end to end.

ProfileTest: examples/mlp_classifier.onnx run by `onyx-run --profile F`
(compiled with --profile, batch 3, --repeat 4). The trace must be Chrome's
JSON ({"traceEvents": [...]}, complete events "ph": "X"), with one
"onyxrt_run" event per call and, per call, exactly one "op" event per
dispatch: the same events in every call, the batched MatMul 'mix' as one
onyxrt_cpu_sgemm_batched call for the whole batch, the same events at batch
5, and no more than the onyxrt_profile_begin call sites of `onyx-compile
--profile --emit=llvm`. Every op event has a name (a node of the model, or the op
kind for compiler-made ops), the op kind, shapes (lists of ints, the batch
dim 3 among them) and dur >= 0, and lies inside its call's event. Without
--profile at compile time, the trace holds the calls only; the outputs of a
profiled run equal the reference's.

ProgressTest: --progress=always prints one "[ NN%] stage" line per stage
(import, ONNX cleanup, ONNX conversion, bufferization, code generation,
LLVM) and "[100%] done"; --progress=auto with stderr a pipe prints nothing.
"""
import json
import os
import re
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

CALLS = 4
BATCH = 3


def load_trace(test, path):
    with open(path) as f:
        trace = json.load(f)
    test.assertIsInstance(trace, dict)
    events = trace["traceEvents"]
    test.assertIsInstance(events, list)
    for e in events:
        test.assertEqual(e["ph"], "X", e)
        test.assertIsInstance(e["name"], str)
        test.assertTrue(e["name"], e)
        test.assertGreaterEqual(e["dur"], 0, e)
        test.assertGreaterEqual(e["ts"], 0, e)
    return events


def node_names(model_path):
    import onnx
    return {n.name for n in onnx.load(model_path).graph.node}


class ProfileTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_tools(ONYX_COMPILE, ONYX_RUN)
        cls.tmp = tempfile.mkdtemp(prefix="onyx-profile-")
        cls.x = np.random.RandomState(0).rand(BATCH, 16).astype(np.float32)
        cls.x_path = os.path.join(cls.tmp, "x.npy")
        np.save(cls.x_path, cls.x)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def profiled_sites(self):
        ll = os.path.join(self.tmp, "model.ll")
        r = run([ONYX_COMPILE, EXAMPLE, "--profile", "--emit=llvm", "-o", ll])
        self.assertEqual(r.rc, 0, r.describe())
        with open(ll) as f:
            text = f.read()
        return len(re.findall(r"call i64 @onyxrt_profile_begin\(", text))

    def profile(self, batch, name):
        x = np.random.RandomState(batch).rand(batch, 16).astype(np.float32)
        x_path = os.path.join(self.tmp, "x%d.npy" % batch)
        np.save(x_path, x)
        trace_path = os.path.join(self.tmp, name)
        r = run([ONYX_RUN, EXAMPLE, "--input", "x=" + x_path, "--output-dir",
                 os.path.join(self.tmp, "out%d" % batch), "--repeat", str(CALLS),
                 "--profile", trace_path], timeout=300)
        self.assertEqual(r.rc, 0, r.describe())
        return load_trace(self, trace_path)

    def test_one_event_per_dispatch(self):
        sites = self.profiled_sites()
        pairs = {}
        for batch in (BATCH, 5):
            events = self.profile(batch, "trace%d.json" % batch)
            calls = sorted([e for e in events if e["cat"] == "call"], key=lambda e: e["ts"])
            ops = [e for e in events if e["cat"] == "op"]
            self.assertEqual(len(calls), CALLS)
            per_call = []
            for c in calls:
                inside = [e for e in ops if c["ts"] - 1e-3 <= e["ts"] <= c["ts"] + c["dur"] + 1e-3]
                per_call.append(sorted((e["name"], e["args"]["op"]) for e in inside))
            self.assertTrue(all(p == per_call[0] for p in per_call))
            self.assertEqual(sum(len(p) for p in per_call), len(ops))
            # The batched MatMul 'mix': one onyxrt_cpu_sgemm_batched call
            # for the whole batch.
            self.assertEqual(per_call[0].count(("mix", "onyxrt_cpu_sgemm_batched")), 1)
            self.assertEqual(per_call[0].count(("mix", "onyxrt_cpu_sgemm")), 0)
            pairs[batch] = per_call[0]
        self.assertEqual(pairs[5], pairs[BATCH])
        self.assertLessEqual(len(pairs[BATCH]), sites)

    def test_event_contents(self):
        trace_path = os.path.join(self.tmp, "trace.json")
        out = os.path.join(self.tmp, "out")
        r = run([ONYX_RUN, EXAMPLE, "--input", "x=" + self.x_path,
                 "--output-dir", out, "--repeat", str(CALLS),
                 "--profile", trace_path], timeout=300)
        self.assertEqual(r.rc, 0, r.describe())
        y = np.load(os.path.join(out, "output_0.npy"))
        ref = reference.reference(self.x, EXAMPLE)
        self.assertLessEqual(np.abs(y - ref).max() / np.abs(ref).max(), 1e-5)
        events = load_trace(self, trace_path)
        calls = [e for e in events if e["cat"] == "call"]
        ops = [e for e in events if e["cat"] == "op"]
        self.assertEqual(len(calls), CALLS)
        self.assertEqual(len(events), len(calls) + len(ops))
        names = node_names(EXAMPLE)
        seen_nodes = set()
        for e in ops:
            args = e["args"]
            self.assertIsInstance(args["op"], str)
            self.assertTrue(args["op"])
            if args["node"]:
                self.assertIn(args["node"], names)
                self.assertEqual(e["name"], args["node"])
                seen_nodes.add(args["node"])
            shapes = args["shapes"]
            self.assertIsInstance(shapes, list)
            self.assertTrue(shapes, e)
            for s in shapes:
                self.assertTrue(all(isinstance(d, int) and d >= 0 for d in s), e)
            # Inside one call's interval.
            self.assertTrue(any(c["ts"] <= e["ts"] + 1e-3 and
                                e["ts"] + e["dur"] <= c["ts"] + c["dur"] + 1e-3
                                for c in calls), e)
        self.assertGreater(len(seen_nodes), 3, seen_nodes)
        self.assertTrue(any(BATCH in s for e in ops for s in e["args"]["shapes"]))

    def test_artifact_without_profile_records_calls(self):
        so = os.path.join(self.tmp, "plain.so")
        r = run([ONYX_COMPILE, EXAMPLE, "-o", so])
        self.assertEqual(r.rc, 0, r.describe())
        trace_path = os.path.join(self.tmp, "plain.json")
        r = run([ONYX_RUN, so, "--input", "x=" + self.x_path, "--output-dir",
                 os.path.join(self.tmp, "out2"), "--repeat", "2",
                 "--profile", trace_path])
        self.assertEqual(r.rc, 0, r.describe())
        events = load_trace(self, trace_path)
        self.assertEqual([e["cat"] for e in events], ["call", "call"])

    def test_bad_profile_path(self):
        r = run([ONYX_RUN, EXAMPLE, "--input", "x=" + self.x_path,
                 "--output-dir", os.path.join(self.tmp, "out3"),
                 "--profile", "/nonexistent-dir/trace.json"])
        self.assertEqual(r.rc, 1, r.describe())
        self.assertEqual(len(r.error_lines), 1, r.describe())
        self.assertIn("cannot write the profile", r.error_lines[0])


class ProgressTest(unittest.TestCase):
    def test_always_and_auto(self):
        require_tools(ONYX_COMPILE)
        tmp = tempfile.mkdtemp(prefix="onyx-progress-")
        try:
            so = os.path.join(tmp, "m.so")
            r = run([ONYX_COMPILE, EXAMPLE, "-o", so, "--progress=always"])
            self.assertEqual(r.rc, 0, r.describe())
            lines = [l for l in r.stderr.splitlines() if l.strip()]
            stages = [re.match(r"\[\s*(\d+)%\] (.*)$", l) for l in lines]
            self.assertTrue(all(stages), lines)
            percents = [int(m.group(1)) for m in stages]
            self.assertEqual(percents, sorted(percents), lines)
            self.assertEqual(percents[-1], 100, lines)
            text = "\n".join(lines)
            for stage in ("import", "ONNX cleanup", "ONNX conversion",
                          "bufferization", "CPU code generation", "LLVM"):
                self.assertIn(stage, text)
            self.assertTrue(lines[-1].startswith("[100%] done in "), lines)
            r = run([ONYX_COMPILE, EXAMPLE, "-o", so])  # stderr is a pipe
            self.assertEqual(r.rc, 0, r.describe())
            self.assertEqual(r.stderr.strip(), "", r.describe())
            r = run([ONYX_COMPILE, EXAMPLE, "-o", so, "--progress=sometimes"])
            self.assertEqual(r.rc, 1, r.describe())
            self.assertIn("--progress must be auto, always or never",
                          r.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
