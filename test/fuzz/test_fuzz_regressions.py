#!/usr/bin/python3
"""Regression tests of the CLI mutation campaign (test/fuzz/mutate_models.py,
issue 19): every committed crasher, and the hand-written cases of the
hostile-input campaign, must end in a compiled artifact or exactly one
`error:` line; never a signal, a hang, or an exit without a message.

  test/fuzz/crashers/seed<S>_case<N>.onnx   what `mutate_models.py --seed S`
      generated as case N and what it did before the fix:
        - a Scan without a body, a Shape/Mul without a required input, a
          value used before it is defined, fewer variadic inputs than the
          schema's minimum: libonnx's shape inference segfaulted (now
          lib/Import/GraphCheck.cpp rejects them first);
        - a Shape reading a value libonnx could not type (static dims that
          contradict a Reshape): libonnx's data propagation segfaulted (now
          a placeholder type, TypeInference.cpp);
        - a Constant claiming 2^40 elements: allocated before counting its
          values, aborted in LLVM's out-of-memory handler;
        - a Constant whose raw_data is shorter than its dims feeding an Add:
          libonnx's data propagation read past its end (tensors are now
          checked against their dims first, GraphCheck.cpp);
        - a LayerNormalization with axis INT64_MAX (or -100) on a rank-3
          graph input: libonnx indexed the dims with it (axis attributes
          are now checked against ranks known before inference);
        - a DepthToSpace with blocksize 2^40 (libonnx divided by its square,
          0), a sequence graph input passed to Scan (libonnx read its tensor
          type): GraphCheck checks blocksize and declared input kinds;
        - a BatchNormalization outside training mode whose running mean is
          used: the lowering erased it under the use (now an error);
        - an Unsqueeze whose axes input has 2^40 entries: never finished
          (unrolled per entry; lists are now limited to 4096 entries).
  test/fuzz/crashers/libfuzzer_<what>.onnx   found by the importer's libFuzzer
      target (scripts/fuzz-importer.sh, ASan + UBSan):
        - empty_float_data: a tensor attribute with no values; memcpy from
          the empty field's null data() (undefined behaviour, UBSan);
        - scan_without_num_scan_inputs: a Scan whose required attribute is
          misspelt; libonnx's Scan inference dereferenced it (segfault).
          GraphCheck now requires every required attribute first;
        - input_without_type: a graph input whose TypeProto is empty, read by
          a Shape; libonnx's Shape inference dereferenced the missing type
          (segfault). GraphCheck rejects a main-graph input without a type.
        - convinteger_rank_mismatch: a ConvInteger whose data has rank 3 and
          weight rank 4; libonnx's convPoolShapeInference segfaulted. libonnx
          now runs in a child process (lib/Import/IsolatedInference.h): its
          death is an error naming the node.

  /usr/bin/python3 test/fuzz/test_fuzz_regressions.py [-v]
"""
import glob
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "e2e"))
import onyx_e2e as E  # noqa: E402


class FuzzRegressions(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        E.require_tools(E.ONYX_COMPILE)
        cls.tmp = tempfile.mkdtemp(prefix="onyx-fuzz-reg-")

    def compile_cleanly(self, path, *expect):
        so = os.path.join(self.tmp, "out.so")
        r = E.run([E.ONYX_COMPILE, path, "-o", so], timeout=120)
        self.assertFalse(r.timed_out, r.describe())
        self.assertIsNotNone(r.rc, r.describe())
        self.assertGreaterEqual(r.rc, 0, "killed by a signal\n" + r.describe())
        if r.rc != 0:
            self.assertEqual(len(r.error_lines), 1, r.describe())
            self.assertEqual(len(r.stderr.splitlines()), 1, r.describe())
        for e in expect:
            self.assertIn(e, r.stderr, r.describe())
        return r

    def test_committed_crashers(self):
        files = sorted(glob.glob(os.path.join(HERE, "crashers", "*.onnx")))
        self.assertGreater(len(files), 0)
        for f in files:
            with self.subTest(os.path.basename(f)):
                self.compile_cleanly(f)

    def write(self, name, nodes, inputs=None, outputs=None, opset=13):
        import onnx
        from onnx import TensorProto, helper
        inputs = inputs or [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])]
        outputs = outputs or [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
        g = helper.make_graph(nodes, "g", inputs, outputs)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = 7
        path = os.path.join(self.tmp, name + ".onnx")
        onnx.save(m, path)
        return path

    def test_attribute_of_the_wrong_kind(self):
        # The class behind 41 of the campaign's 43 segfaults (fixed at import
        # by checking every attribute against the schema).
        from onnx import TensorProto, helper
        vi = helper.make_tensor_value_info
        cases = [
            ("argmax_float_axis", [helper.make_node("ArgMax", ["x"], ["y"], axis=1.5)], None, None, 13),
            ("flatten_string_axis", [helper.make_node("Flatten", ["x"], ["y"], axis="one")], None, None, 13),
            ("lrn_float_size", [helper.make_node("LRN", ["x"], ["y"], size=2.0)], None, None, 13),
            ("elu_string_alpha", [helper.make_node("Elu", ["x"], ["y"], alpha="big")], None, None, 13),
            ("sce_int_reduction", [helper.make_node("SoftmaxCrossEntropyLoss", ["x", "t"], ["y"], reduction=3)],
             [vi("x", TensorProto.FLOAT, [2, 3]), vi("t", TensorProto.INT64, [2])], None, 13),
            ("gridsample_int_mode", [helper.make_node("GridSample", ["x", "g"], ["y"], mode=2)],
             [vi("x", TensorProto.FLOAT, [1, 1, 4, 4]), vi("g", TensorProto.FLOAT, [1, 2, 2, 2])], None, 16),
            ("resize_float_mode", [helper.make_node("Resize", ["x", "", "s"], ["y"], mode=1.0)],
             [vi("x", TensorProto.FLOAT, [1, 1, 4, 4]), vi("s", TensorProto.FLOAT, [4])], None, 13),
        ]
        for name, nodes, inputs, outputs, opset in cases:
            with self.subTest(name):
                self.compile_cleanly(self.write(name, nodes, inputs, outputs, opset),
                                     "the schema declares")

    def test_malformed_graphs_before_library_inference(self):
        from onnx import TensorProto, helper
        vi = helper.make_tensor_value_info
        shape_missing = self.write("shape_missing", [helper.make_node("Shape", [], ["y"])],
                                   outputs=[vi("y", TensorProto.INT64, None)])
        self.compile_cleanly(shape_missing, "(Shape): required input 0 ('data') is missing")
        scan = self.write("scan_no_body", [helper.make_node("Scan", ["x"], ["y"], num_scan_inputs=1)], opset=11)
        self.compile_cleanly(scan, "(Scan): required graph attribute 'body' is missing")
        undefined = self.write("undefined", [helper.make_node("Add", ["x", "nowhere"], ["y"])])
        self.compile_cleanly(undefined, "input 'nowhere' is not defined before it is used")
        twice = self.write("twice", [helper.make_node("Relu", ["x"], ["y"]),
                                     helper.make_node("Neg", ["x"], ["y"])])
        self.compile_cleanly(twice, "output 'y' is defined twice")

    def test_names_with_control_bytes_stay_on_one_line(self):
        from onnx import helper
        path = self.write("forged", [helper.make_node(
            "Relu", ["x", "nope"], ["y"], name="a\nerror: forged line\x1b[31m")])
        r = self.compile_cleanly(path)
        self.assertNotIn("\x1b", r.stderr)
        self.assertIn("\\x0aerror: forged line\\x1b", r.stderr)


if __name__ == "__main__":
    unittest.main()
