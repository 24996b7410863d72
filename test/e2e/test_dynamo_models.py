#!/usr/bin/python3
"""Dynamo-exported models end to end: small random-weight models exported with
PyTorch 2.11's default ONNX exporter (torch.onnx.export(..., dynamo=True),
opset 20) -- HF transformers BERT, RoBERTa, DistilBERT, GPT-2, Llama, Qwen2,
T5 encoder, ViT; timm ResNet, EfficientNet, ConvNeXt, MobileNetV3, RegNet, ViT;
torchvision MobileNetV3, GoogLeNet -- stored with PyTorch's outputs at three shapes in
test/e2e/dynamo_models/ (see its README.md). Each model is compiled ONCE with
onyx-compile (CPU target) into one artifact that is run with onyx-run at every
stored shape and compared with PyTorch's outputs.

    /usr/bin/python3 test/e2e/test_dynamo_models.py [--expected FILE] [--update-expected]
                     [--models a,b] [--results FILE] [-j N] [--cuda-compile] [--compile-flags F]

A model passes when it compiles and, at every shape, every output has the
reference's shape and dtype, is finite, and ||y - ref|| / ||ref|| <= 1e-4
(norms over all elements, float64). Statuses, exit status and --expected /
--update-expected are those of test_real_models.py:

    pass         compiled, every shape matches
    unsupported  onyx-compile exited cleanly with an `error:`
    error        compiled, but onyx-run exited cleanly with an `error:`
    wrong        ran, but an output differs (shape, dtype, value, non-finite)
    crash        a signal, a timeout, or a non-zero exit without an `error:` line

- default: 0 only if every model passes (ONYX_DYNAMO_MODELS_ALLOW_UNSUPPORTED=1:
  `unsupported` models are listed but do not fail the run).
- --expected FILE (scripts/test.sh: test/e2e/dynamo_models/expected.json): each
  model's status must equal its entry ("pass" or "<status>: <reason>"); a pass
  that regresses, or a non-pass that passes or fails differently, fails the run
  (--update-expected rewrites the file from this run). A changed reason under
  the same status is only printed.

--cuda-compile only checks that `onyx-compile --target=cuda` writes an artifact
for each model (nothing is run; no GPU needed): pass, unsupported or crash.
It uses no expected file unless --expected names one (--update-expected then
needs an explicit --expected other than the CPU file).

Environment: ONYX_BIN_DIR (tools), ONYX_DYNAMO_MODELS (comma-separated subset).
Writes a JSON report (--results, default build/dynamo_models_results.json, or
build/dynamo_models_cuda_results.json with --cuda-compile).
"""
import argparse
import datetime
import json
import os
import shutil
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from onyx_e2e import (ONYX_COMPILE, ONYX_RUN, REPO, check_outputs, classify_failure,  # noqa: E402
                      expected_failures, require_tools, run_parallel, run_retrying, strict_failures,
                      update_expected, worst_case)

DATA = os.path.join(HERE, "dynamo_models")
DEFAULT_EXPECTED = os.path.join(DATA, "expected.json")
DEFAULT_RESULTS = os.path.join(REPO, "build", "dynamo_models_results.json")
DEFAULT_CUDA_RESULTS = os.path.join(REPO, "build", "dynamo_models_cuda_results.json")
REL_TOL = 1e-4
COMPILE_TIMEOUT = 900
RUN_TIMEOUT = 300

# Exported (manifest.json says "ok") but not part of the test set; see README.md.
EXCLUDED = {
    "tv_squeezenet": "not committed: 3 MB, and the real-model set's squeezenet1_1 covers SqueezeNet",
    "tv_shufflenet": "the exported graph is wrong (exporter bug): a Reshape bakes the traced 1x1 spatial "
                     "size of the last stage, so ONNX Runtime gives [8,10] where PyTorch gives [2,10] at 2x3x48x48",
}


def load_manifest():
    """(models: {name: manifest entry} in manifest order, skipped: {name: why})."""
    with open(os.path.join(DATA, "manifest.json")) as f:
        manifest = json.load(f)
    models, skipped = {}, {}
    for n, e in manifest.items():
        if e.get("status") != "ok":
            lines = [l.strip() for l in (e.get("error") or "?").strip().splitlines()
                     if l.strip() and l.strip("^~ ")]
            # the traceback's last line, with the failing source line when it is a bare exception name
            why = lines[-1] if ":" in lines[-1] or len(lines) < 2 else "%s (%s)" % (lines[-1], lines[-2])
            skipped[n] = "did not export: " + why[:200]
        elif n in EXCLUDED:
            skipped[n] = EXCLUDED[n]
        else:
            models[n] = e
    return models, skipped


def case_id(shape):
    return "x".join(str(d) for d in shape)


def load_cases(name, entry):
    """Per stored shape S: the inputs in_K_S (K in graph-input order) and the
    references out_K_S, from <name>.npz."""
    z = np.load(os.path.join(DATA, name + ".npz"))
    cases = []
    for s, shape in enumerate(entry["shapes"]):
        inputs = [z["in_%d_%d" % (k, s)] for k in range(len(entry["inputs"]))]
        refs = []
        while "out_%d_%d" % (len(refs), s) in z.files:
            refs.append(z["out_%d_%d" % (len(refs), s)])
        if list(inputs[0].shape) != list(shape) or not refs:
            raise ValueError("%s.npz: shape %d is %s with %d outputs; manifest says %s"
                             % (name, s, list(inputs[0].shape), len(refs), shape))
        cases.append(dict(id=case_id(shape), shapes=[list(x.shape) for x in inputs], inputs=inputs, refs=refs))
    return cases


def scrub(text, work):
    """A reason without this run's temporary paths, to compare it across runs."""
    return text.replace(work + os.sep, "").replace(work, ".")


# More onyx-compile flags for every model (--compile-flags).
COMPILE_FLAGS = []


def compile_model(name, work, target, log):
    so = os.path.join(work, "%s-%s.so" % (name, target))
    r = run_retrying([ONYX_COMPILE, os.path.join(DATA, name + ".onnx"), "--target=" + target, "-o", so]
                     + COMPILE_FLAGS, COMPILE_TIMEOUT, log)
    return dict(ok=r.rc == 0 and os.path.isfile(so), seconds=r.seconds, result=r, so=so)


def run_case(name, entry, so, case, work, log):
    """Returns a dict: id, shapes, status, reason, errors (per output), seconds."""
    case_dir = os.path.join(work, name + "-" + case["id"])
    out_dir = os.path.join(case_dir, "out")
    os.makedirs(out_dir)
    cmd = [ONYX_RUN, so]
    for k, (iname, x) in enumerate(zip(entry["inputs"], case["inputs"])):
        path = os.path.join(case_dir, "in_%d.npy" % k)
        np.save(path, x)
        cmd += ["--input", "%s=%s" % (iname, path)]
    cmd += ["--output-dir", out_dir]
    r = run_retrying(cmd, RUN_TIMEOUT, log)
    res = dict(id=case["id"], shapes=case["shapes"], seconds=round(r.seconds, 3),
               status="pass", reason="", errors=[])
    if r.rc != 0 or r.timed_out:
        res["status"], res["reason"] = classify_failure(r, "onyx-run")
    else:
        res["status"], res["reason"], res["errors"] = check_outputs(out_dir, case["refs"], REL_TOL)
    res["reason"] = scrub(res["reason"], work)
    shutil.rmtree(case_dir, ignore_errors=True)
    return res


def model_result(name, entry, c, work):
    res = dict(model=name, opset=entry.get("opset"), ops=entry.get("ops"), onnx_bytes=entry.get("bytes"),
               compile_seconds=round(c["seconds"], 2),
               artifact_bytes=os.path.getsize(c["so"]) if c["ok"] else None,
               status="pass", reason="", cases=[])
    if not c["ok"]:
        r = c["result"]
        res["status"], res["reason"] = classify_failure(r, "onyx-compile") if r.rc != 0 else \
            ("crash", "onyx-compile exited 0 without writing %s" % c["so"])
        res["reason"] = scrub(res["reason"], work)
    return res


def test_model(name, entry, work, log):
    c = compile_model(name, work, "cpu", log)
    res = model_result(name, entry, c, work)
    if not c["ok"]:
        log("%s: %s after %.1f s: %s" % (name, res["status"].upper(), c["seconds"], res["reason"]))
        return res
    log("%s: compiled in %.1f s (%.1f MB artifact)" % (name, c["seconds"], res["artifact_bytes"] / 1e6))
    for case in load_cases(name, entry):
        cr = run_case(name, entry, c["so"], case, work, log)
        res["cases"].append(cr)
        errs = ", ".join("%.1e" % e if e is not None else "-" for e in cr["errors"]) or "-"
        log("  %-12s %-10s rel err %-8s %5.2f s  %s" % (cr["id"], cr["status"], errs, cr["seconds"],
                                                       cr["reason"]))
    worst = worst_case(res["cases"])  # crash > error > wrong
    if worst:
        res["status"] = worst["status"]
        res["reason"] = "%s: %s" % (worst["id"], worst["reason"])
    os.remove(c["so"])
    return res


def cuda_compile_model(name, entry, work, log):
    c = compile_model(name, work, "cuda", log)
    res = model_result(name, entry, c, work)
    if c["ok"]:
        log("%s: compiled for CUDA in %.1f s (%.1f MB artifact)" % (name, c["seconds"], res["artifact_bytes"] / 1e6))
        os.remove(c["so"])
    else:
        log("%s: %s after %.1f s: %s" % (name, res["status"].upper(), c["seconds"], res["reason"]))
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description="Onyx dynamo-exported model end-to-end test")
    ap.add_argument("--expected", help="expected-status JSON (scripts/test.sh: %s)" %
                    os.path.relpath(DEFAULT_EXPECTED, REPO))
    ap.add_argument("--update-expected", action="store_true",
                    help="rewrite the --expected file (default %s) from this run" %
                    os.path.relpath(DEFAULT_EXPECTED, REPO))
    ap.add_argument("--models", default=os.environ.get("ONYX_DYNAMO_MODELS", ""),
                    help="comma-separated subset (default: all)")
    ap.add_argument("--results", help="JSON report (default %s, or %s with --cuda-compile)" %
                    (os.path.relpath(DEFAULT_RESULTS, REPO), os.path.relpath(DEFAULT_CUDA_RESULTS, REPO)))
    ap.add_argument("-j", "--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="models compiled and run in parallel (default %(default)s)")
    ap.add_argument("--cuda-compile", action="store_true",
                    help="only check that onyx-compile --target=cuda succeeds for each model")
    ap.add_argument("--keep-temp", action="store_true", help="keep the artifacts' temporary directory")
    ap.add_argument("--compile-flags", default="",
                    help="more onyx-compile flags for every model, e.g. --merge-matmuls")
    args = ap.parse_args(argv)
    COMPILE_FLAGS[:] = args.compile_flags.split()
    if args.update_expected and not args.expected:
        if args.cuda_compile:
            ap.error("--cuda-compile --update-expected needs --expected FILE (not the CPU statuses' file)")
        args.expected = DEFAULT_EXPECTED
    if args.cuda_compile and args.expected and \
            os.path.realpath(args.expected) == os.path.realpath(DEFAULT_EXPECTED):
        ap.error("%s holds the CPU statuses; give --cuda-compile its own --expected file"
                 % os.path.relpath(DEFAULT_EXPECTED, REPO))
    results_path = args.results or (DEFAULT_CUDA_RESULTS if args.cuda_compile else DEFAULT_RESULTS)
    models, skipped = load_manifest()
    names = [n for n in args.models.split(",") if n] or list(models)
    for n in names:
        if n not in models:
            ap.error("unknown model %r (%s)" % (n, skipped[n] if n in skipped else "known: " + ", ".join(models)))
    for n in names:
        for ext in (".onnx", ".npz"):
            if not os.path.isfile(os.path.join(DATA, n + ext)):
                ap.error("%s%s is missing from %s" % (n, ext, os.path.relpath(DATA, REPO)))
    allow_unsupported = os.environ.get("ONYX_DYNAMO_MODELS_ALLOW_UNSUPPORTED", "") not in ("", "0")
    require_tools(ONYX_COMPILE, ONYX_RUN)

    def log(msg):
        print(msg, flush=True)

    t_all = time.time()
    if not args.models:
        for n, why in skipped.items():
            log("not in the set: %s (%s)" % (n, why))
    log("%s %d models from %s\n" % ("compiling (CUDA target, no run)" if args.cuda_compile else "testing",
                                    len(names), os.path.relpath(DATA, REPO)))

    # compile once, run every shape; the biggest models first so that they overlap the rest
    work = tempfile.mkdtemp(prefix="onyx-dynamo-models-")
    order = sorted(names, key=lambda n: -models[n]["bytes"])
    fn = cuda_compile_model if args.cuda_compile else test_model
    try:
        results = run_parallel(order, lambda n, nlog: fn(n, models[n], work, nlog), args.jobs, log)
    finally:
        if args.keep_temp:
            log("artifacts kept in %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)

    log("\n%-18s %-11s %9s %9s  %s" % ("model", "status", "compile", "max err", "shapes / reason"))
    for n in names:
        r = results[n]
        errs = [e for c in r["cases"] for e in c["errors"] if e is not None]
        detail = ", ".join(c["id"] for c in r["cases"]) if r["status"] == "pass" else r["reason"]
        log("%-18s %-11s %8.1fs %9s  %s" % (n, r["status"], r["compile_seconds"],
                                           "%.1e" % max(errs) if errs else "-", detail[:160]))

    failures = []
    if args.expected and not args.update_expected:
        failures = expected_failures(names, results, args.expected, log)
    elif not args.update_expected:
        failures = strict_failures(names, results, allow_unsupported, "ONYX_DYNAMO_MODELS_ALLOW_UNSUPPORTED", log)
    if args.update_expected:
        update_expected(args.expected, names, results, models, log)

    report = dict(date=datetime.datetime.now().isoformat(timespec="seconds"),
                  command=" ".join([os.path.relpath(sys.argv[0], REPO)] + (argv if argv is not None else sys.argv[1:])),
                  target="cuda (compile only)" if args.cuda_compile else "cpu", rel_tol=REL_TOL,
                  data=os.path.relpath(DATA, REPO), total_seconds=round(time.time() - t_all, 1),
                  not_in_set=skipped, models=[results[n] for n in names], failures=failures)
    os.makedirs(os.path.dirname(os.path.abspath(results_path)), exist_ok=True)
    with open(results_path, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")

    log("\ntotal %.1f s; report in %s" % (time.time() - t_all, results_path))
    if failures:
        log("FAILED:")
        for m in failures:
            log("  " + m)
        return 1
    log("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
