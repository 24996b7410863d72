#!/usr/bin/env python3
"""Behaviour-preservation check for the CUDA backend (no GPU needed).

Compiles a fixed set of models for --target=cuda and keeps what the CUDA
code generation produced, so that a refactoring of lib/Target/CUDA can be
checked to change nothing:

  scripts/gpu/compare_cuda_artifacts.py baseline DIR    # with the old code
  scripts/gpu/compare_cuda_artifacts.py compare DIR     # with the new code

Per case (a model, and for the node-suite models also with every input dim
symbolic, `--make-inputs-dynamic`) it keeps:

  NAME.buffers.mlir   `onyx-compile --emit=buffers`: the input of the CUDA
                      code generation (what the shared stages produced);
  NAME.kernels.mlir   the IR right before onyx-cuda-serialize-kernels, from
                      `onyx-opt NAME.buffers.mlir --onyx-cuda-codegen-pipeline`:
                      the host code after the CUDA passes (readbacks,
                      snapshots, launches) and every kernel in NVVM;
  NAME.codegen.mlir   the end of that pipeline (LLVM dialect, the PTX and
                      cubins embedded);
  NAME.ll             `onyx-compile --emit=llvm` of the model;
  NAME.err            stderr and exit status of each step (compile errors
                      are behaviour too).

`compare` runs the CUDA code generation on the *baseline's* buffers files,
so that changes in the stages before it (other people's work on the
importer or the conversion) do not show up as CUDA differences; it also
re-runs the whole compile and reports separately when the buffers (input)
changed, which explains any .ll difference of that case. Exit status 1 when
a kernels/codegen/err output differs (or a .ll whose input did not change).
New outputs go to DIR.new (or --out).
"""

import argparse
import concurrent.futures
import difflib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NODE_DIR = Path("/usr/share/libonnx-testdata/data/node")

# Node-suite models exercising host visibility (readbacks, snapshots),
# serial kernels, warp reductions, control flow, sequences and the library
# calls.
NODE_MODELS = """
test_nonzero_example
test_cumsum_1d test_cumsum_1d_exclusive test_cumsum_1d_reverse_exclusive
test_cumsum_2d_axis_0 test_cumsum_2d_axis_1 test_cumsum_2d_negative_axis
test_top_k test_top_k_negative_axis test_top_k_smallest
test_unique_not_sorted_without_axis test_unique_sorted_with_axis
test_unique_sorted_with_axis_3d test_unique_sorted_without_axis
test_nonmaxsuppression_center_point_box_format
test_nonmaxsuppression_suppress_by_IOU_and_scores
test_nonmaxsuppression_two_batches test_nonmaxsuppression_limit_output_size
test_reshape_extended_dims
test_loop11 test_loop13_seq test_loop16_seq_none
test_if test_if_opt test_if_seq
test_scan9_sum test_scan_sum
test_reduce_sum_keepdims_random test_reduce_sum_empty_axes_input_noop_example
test_reduce_sum_default_axes_keepdims_random test_reduce_mean_keepdims_random
test_reduce_max_do_not_keepdims_random test_reduce_min_negative_axes_keepdims_random
test_reduce_prod_keepdims_random test_reduce_log_sum_exp_keepdims_random
test_reduce_l2_keep_dims_random test_reduce_sum_square_do_not_keepdims_random
test_layer_normalization_2d_axis0 test_layer_normalization_3d_axis1_epsilon
test_layer_normalization_4d_axis_negative_1
test_layer_normalization_default_axis_expanded
test_softmax_axis_0 test_softmax_large_number test_softmax_default_axis_expanded
test_softmax_example
test_sequence_insert_at_back test_sequence_map_add_2_sequences
test_sequence_map_extract_shapes test_sequence_map_identity_1_sequence_1_tensor
test_dynamicquantizelinear test_dynamicquantizelinear_max_adjusted_expanded
test_dynamicquantizelinear_min_adjusted
test_compress_0 test_compress_default_axis test_compress_negative_axis
test_scatter_elements_with_axis test_scatter_elements_with_duplicate_indices
test_scatter_elements_with_negative_indices test_scatter_elements_without_axis
test_slice test_slice_negative_axes test_expand_dim_changed test_tile
test_onehot_with_axis test_range_float_type_positive_delta test_shape
test_clip test_clip_default_inbounds
test_matmul_2d test_matmul_3d test_gemm_all_attributes test_gemm_default_vector_bias
test_basic_conv_with_padding test_conv_with_strides_and_asymmetric_padding
test_einsum_batch_matmul
test_rnn_seq_length test_gru_defaults test_lstm_with_peepholes
test_maxpool_2d_default test_averagepool_2d_pads test_globalaveragepool
""".split()


def cases():
    for model in sorted((ROOT / "test/e2e/dynamo_models").glob("*.onnx")):
        yield "dynamo_" + model.stem, model, []
    for name in NODE_MODELS:
        model = NODE_DIR / name / "model.onnx"
        if not model.exists():
            continue
        yield name, model, []
        yield name + ".sym", model, ["--make-inputs-dynamic"]


# The tools, copied under the build lock when the run starts (others may
# relink build/bin while it runs).
BIN = ROOT / "build/bin"


def snapshot_tools(into):
    into.mkdir(parents=True, exist_ok=True)
    subprocess.run(["flock", "/tmp/onyx-build.lock", "cp",
                    BIN / "onyx-compile", BIN / "onyx-opt", into], check=True)
    return into


def run(cmd, err):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, errors="replace")
    err.append("$ " + " ".join(str(c) for c in cmd[1:]) +
               f"\nexit {proc.returncode}\n" + proc.stdout + proc.stderr)
    return proc.returncode


def codegen(buffers, out, name, err):
    """The CUDA codegen on a saved buffers file: kernels + codegen outputs."""
    opt = BIN / "onyx-opt"
    tree = out / f"{name}.tree"
    shutil.rmtree(tree, ignore_errors=True)
    cmd = [opt, buffers, "--onyx-cuda-codegen-pipeline",
           "--mlir-print-ir-before=onyx-cuda-serialize-kernels",
           f"--mlir-print-ir-tree-dir={tree}",
           "-o", out / f"{name}.codegen.mlir"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, errors="replace")
    dumps = sorted(tree.rglob("*.mlir")) if tree.exists() else []
    pre = out / f"{name}.kernels.mlir"
    if dumps:
        pre.write_bytes(dumps[0].read_bytes())
    elif pre.exists():
        pre.unlink()
    shutil.rmtree(tree, ignore_errors=True)
    err.append(f"$ onyx-opt {name}.buffers.mlir --onyx-cuda-codegen-pipeline"
               f"\nexit {proc.returncode}\n" + proc.stdout + proc.stderr)


def one_case(case, out, baseline):
    name, model, flags = case
    compile_ = BIN / "onyx-compile"
    err = []
    buffers = out / f"{name}.buffers.mlir"
    run([compile_, model, "--target=cuda", "--emit=buffers", "-o", buffers]
        + flags, err)
    source = (baseline / f"{name}.buffers.mlir") if baseline else buffers
    if source.exists() and source.stat().st_size > 0:
        codegen(source, out, name, err)
    run([compile_, model, "--target=cuda", "--emit=llvm", "-o",
         out / f"{name}.ll"] + flags, err)
    # Paths differ between runs (DIR vs DIR.new): keep them out of .err.
    text = "\n".join(err).replace(str(out), "OUT")
    if baseline:
        text = text.replace(str(baseline), "OUT")
    (out / f"{name}.err").write_text(text)
    return name


def same(a, b):
    if not a.exists() and not b.exists():
        return True
    if not a.exists() or not b.exists():
        return False
    return a.read_bytes() == b.read_bytes()


def show_diff(a, b, limit):
    lines = list(difflib.unified_diff(
        a.read_text(errors="replace").splitlines() if a.exists() else [],
        b.read_text(errors="replace").splitlines() if b.exists() else [],
        str(a), str(b), lineterm="", n=1))
    for line in lines[:limit]:
        print("    " + line[:300])
    if len(lines) > limit:
        print(f"    ... {len(lines) - limit} more diff lines")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=["baseline", "compare"])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--out", type=Path, help="compare: new outputs "
                        "(default DIR.new)")
    parser.add_argument("-j", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--filter", default="", help="only cases whose name "
                        "contains this")
    parser.add_argument("--diff-lines", type=int, default=40)
    args = parser.parse_args()

    todo = [c for c in cases() if args.filter in c[0]]
    if args.mode == "baseline":
        out, baseline = args.dir, None
    else:
        out, baseline = args.out or Path(str(args.dir) + ".new"), args.dir
        if not baseline.is_dir():
            sys.exit(f"error: no baseline at {baseline}")
    out.mkdir(parents=True, exist_ok=True)
    global BIN
    BIN = snapshot_tools(out / ".bin")
    with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
        list(pool.map(lambda c: one_case(c, out, baseline), todo))
    if args.mode == "baseline":
        print(f"baseline: {len(todo)} cases in {out}")
        return 0

    failed, drift = [], []
    for name, _, _ in todo:
        input_same = same(baseline / f"{name}.buffers.mlir",
                          out / f"{name}.buffers.mlir")
        if not input_same:
            drift.append(name)
        bad = [ext for ext in ("kernels.mlir", "codegen.mlir", "err")
               if not same(baseline / f"{name}.{ext}", out / f"{name}.{ext}")]
        if input_same and not same(baseline / f"{name}.ll", out / f"{name}.ll"):
            bad.append("ll")
        if bad:
            failed.append(name)
            print(f"DIFF {name}: {', '.join(bad)}")
            for ext in bad:
                show_diff(baseline / f"{name}.{ext}", out / f"{name}.{ext}",
                          args.diff_lines)
    for name in drift:
        print(f"note {name}: the input (--emit=buffers) changed since the "
              f"baseline; its CUDA outputs were compared on the baseline's "
              f"input, its .ll not")
    print(f"compare: {len(todo)} cases, {len(todo) - len(failed)} identical, "
          f"{len(failed)} different, {len(drift)} with a changed input")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
