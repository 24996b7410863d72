#!/usr/bin/python3
"""Real models end to end: models exported by PyTorch's ONNX exporter
(torchvision ResNet-50, MobileNetV2, SqueezeNet 1.1, a torch.nn.TransformerEncoder
and a small causal decoder; see test/e2e/real_models/make_models.py), each
compiled ONCE with onyx-compile into one artifact that is run at 3-4 input
shapes (batch 1 and sequence length 1 among them) with onyx-run, and compared
with PyTorch's outputs.

    /usr/bin/python3 test/e2e/test_real_models.py [--expected FILE] [--update-expected]
                     [--models a,b] [--data DIR] [--results FILE] [-j N]

A model passes when it compiles and, at every shape, every output has the
reference's shape and dtype, is finite, and ||y - ref|| / ||ref|| <= 1e-4
(norms over all elements, float64).

Each model gets one status:

    pass         compiled, every shape matches
    unsupported  onyx-compile exited cleanly with an `error:` (an operator or
                 attribute the compiler does not handle yet, ...)
    error        compiled, but onyx-run exited cleanly with an `error:`
    wrong        ran, but an output differs (shape, dtype, value, non-finite)
    crash        a signal, a timeout, or a non-zero exit without an `error:` line

Exit status:

- default: 0 only if every model passes. With ONYX_REAL_MODELS_ALLOW_UNSUPPORTED=1
  `unsupported` models are listed but do not fail the run (anything else still does).
- --expected FILE (what scripts/test.sh uses, with test/e2e/real_models/expected.json):
  the file maps each model to "pass" or "<status>: <reason>"; the run fails
  when a model's status differs from its entry: a `pass` model regressed, or a
  model that was not passing now passes or fails differently (update the file:
  --update-expected rewrites it from this run). The reason text is informational.

Environment: ONYX_BIN_DIR (tools), ONYX_REAL_MODELS_DIR (model cache, default
build/real_models), ONYX_REAL_MODELS (comma-separated subset).
Writes a JSON report (--results, default build/real_models_results.json).
"""
import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from onyx_e2e import (ONYX_COMPILE, ONYX_RUN, REPO, check_outputs, classify_failure,  # noqa: E402
                      expected_failures, require_tools, run_parallel, run_retrying, strict_failures,
                      update_expected, worst_case)

REAL = os.path.join(HERE, "real_models")
MAKE_MODELS = os.path.join(REAL, "make_models.py")
DEFAULT_EXPECTED = os.path.join(REAL, "expected.json")
DEFAULT_DATA = os.environ.get("ONYX_REAL_MODELS_DIR", os.path.join(REPO, "build", "real_models"))
DEFAULT_RESULTS = os.path.join(REPO, "build", "real_models_results.json")
REL_TOL = 1e-4
COMPILE_TIMEOUT = 900
RUN_TIMEOUT = 300

sys.path.insert(0, REAL)
import make_models  # noqa: E402  (MODELS only; torch is imported by the subprocess)


def compile_model(name, entry, data_dir, work, log):
    onnx_path = os.path.join(data_dir, entry["onnx"])
    so = os.path.join(work, name + ".so")
    r = run_retrying([ONYX_COMPILE, onnx_path, "-o", so], COMPILE_TIMEOUT, log)
    dt = r.seconds
    ok = r.rc == 0 and os.path.isfile(so)
    return dict(ok=ok, seconds=dt, result=r, so=so)


def run_case(name, so, case, data_dir, work, log):
    """Returns a dict: id, shapes, status, reason, errors (per output), seconds."""
    res = _run_case(name, so, case, data_dir, work, log)
    # reasons without this run's temporary paths, to compare them across runs
    res["reason"] = res["reason"].replace(work + os.sep, "").replace(work, ".")
    return res


def _run_case(name, so, case, data_dir, work, log):
    out_dir = os.path.join(work, name + "-" + case["id"])
    os.makedirs(out_dir, exist_ok=True)
    cmd = [ONYX_RUN, so]
    for iname, rel in case["inputs"].items():
        cmd += ["--input", "%s=%s" % (iname, os.path.join(data_dir, rel))]
    cmd += ["--output-dir", out_dir]
    r = run_retrying(cmd, RUN_TIMEOUT, log)
    res = dict(id=case["id"], shapes=case["shapes"], seconds=round(r.seconds, 3),
               status="pass", reason="", errors=[])
    if r.rc != 0 or r.timed_out:
        res["status"], res["reason"] = classify_failure(r, "onyx-run")
        return res
    refs = [np.load(os.path.join(data_dir, rel)) for rel in case["refs"]]
    res["status"], res["reason"], res["errors"] = check_outputs(out_dir, refs, REL_TOL)
    shutil.rmtree(out_dir, ignore_errors=True)
    return res


def test_model(name, entry, data_dir, work, log):
    c = compile_model(name, entry, data_dir, work, log)
    res = dict(model=name, description=entry["description"], params=entry["params"],
               onnx_bytes=entry["onnx_bytes"], compile_seconds=round(c["seconds"], 2),
               artifact_bytes=os.path.getsize(c["so"]) if c["ok"] else None,
               status="pass", reason="", cases=[])
    if not c["ok"]:
        r = c["result"]
        res["status"], res["reason"] = classify_failure(r, "onyx-compile") if r.rc != 0 else \
            ("crash", "onyx-compile exited 0 without writing %s" % c["so"])
        res["reason"] = res["reason"].replace(work + os.sep, "").replace(work, ".")
        log("%s: %s after %.1f s: %s" % (name, res["status"].upper(), c["seconds"], res["reason"]))
        return res
    log("%s: compiled in %.1f s (%.1f MB artifact)" % (name, c["seconds"], res["artifact_bytes"] / 1e6))
    for case in entry["cases"]:
        cr = run_case(name, c["so"], case, data_dir, work, log)
        res["cases"].append(cr)
        errs = ", ".join("%.1e" % e if e is not None else "-" for e in cr["errors"]) or "-"
        log("  %-12s %-10s rel err %-8s %5.2f s  %s" % (cr["id"], cr["status"], errs, cr["seconds"],
                                                       cr["reason"]))
    worst = worst_case(res["cases"])  # crash > error > wrong
    if worst:
        res["status"] = worst["status"]
        res["reason"] = "%s: %s" % (worst["id"], worst["reason"])
    try:
        os.remove(c["so"])
    except OSError:
        pass
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description="Onyx real-model end-to-end test")
    ap.add_argument("--expected", help="expected-status JSON (scripts/test.sh: %s)" %
                    os.path.relpath(DEFAULT_EXPECTED, REPO))
    ap.add_argument("--update-expected", action="store_true",
                    help="rewrite the --expected file (default %s) from this run" %
                    os.path.relpath(DEFAULT_EXPECTED, REPO))
    ap.add_argument("--models", default=os.environ.get("ONYX_REAL_MODELS", ""),
                    help="comma-separated subset (default: all)")
    ap.add_argument("--data", default=DEFAULT_DATA, help="model cache directory (default %(default)s)")
    ap.add_argument("--results", default=DEFAULT_RESULTS, help="JSON report (default %(default)s)")
    ap.add_argument("-j", "--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="models compiled and run in parallel (default %(default)s)")
    ap.add_argument("--keep-temp", action="store_true", help="keep the artifacts' temporary directory")
    args = ap.parse_args(argv)
    if args.update_expected and not args.expected:
        args.expected = DEFAULT_EXPECTED
    names = [n for n in args.models.split(",") if n] or list(make_models.MODELS)
    for n in names:
        if n not in make_models.MODELS:
            ap.error("unknown model %r (known: %s)" % (n, ", ".join(make_models.MODELS)))
    allow_unsupported = os.environ.get("ONYX_REAL_MODELS_ALLOW_UNSUPPORTED", "") not in ("", "0")
    require_tools(ONYX_COMPILE, ONYX_RUN)

    def log(msg):
        print(msg, flush=True)

    t_all = time.time()
    # 1. the models (cached in --data)
    t0 = time.time()
    p = subprocess.run([sys.executable, MAKE_MODELS, "--out", args.data, "--models", ",".join(names)],
                       stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        log("error: make_models.py failed (exit %d)" % p.returncode)
        return 1
    with open(os.path.join(args.data, "manifest.json")) as f:
        manifest = json.load(f)
    gen_seconds = time.time() - t0
    log("models ready in %s (%.1f s)\n" % (args.data, gen_seconds))

    # 2. compile once, run every shape; the biggest models first so that they overlap the rest
    work = tempfile.mkdtemp(prefix="onyx-real-models-")
    order = sorted(names, key=lambda n: -manifest["models"][n]["onnx_bytes"])
    try:
        results = run_parallel(order, lambda n, nlog: test_model(n, manifest["models"][n], args.data, work, nlog),
                               args.jobs, log)
    finally:
        if args.keep_temp:
            log("artifacts kept in %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)

    # 3. report
    log("\n%-20s %-11s %9s %9s  %s" % ("model", "status", "compile", "max err", "shapes / reason"))
    for n in names:
        r = results[n]
        errs = [e for c in r["cases"] for e in c["errors"] if e is not None]
        detail = ", ".join(c["id"] for c in r["cases"]) if r["status"] == "pass" else r["reason"]
        log("%-20s %-11s %8.1fs %9s  %s" % (n, r["status"], r["compile_seconds"],
                                           "%.1e" % max(errs) if errs else "-", detail[:160]))

    failures = []
    if args.expected and not args.update_expected:
        failures = expected_failures(names, results, args.expected, log)
    elif not args.update_expected:
        failures = strict_failures(names, results, allow_unsupported, "ONYX_REAL_MODELS_ALLOW_UNSUPPORTED", log)
    if args.update_expected:
        update_expected(args.expected, names, results, make_models.MODELS, log)

    report = dict(date=datetime.datetime.now().isoformat(timespec="seconds"),
                  command=" ".join([os.path.relpath(sys.argv[0], REPO)] + (argv if argv is not None else sys.argv[1:])),
                  rel_tol=REL_TOL, data=args.data, generate_seconds=round(gen_seconds, 1),
                  total_seconds=round(time.time() - t_all, 1),
                  manifest={k: v for k, v in manifest.items() if k != "models"},
                  models=[results[n] for n in names], failures=failures)
    os.makedirs(os.path.dirname(os.path.abspath(args.results)), exist_ok=True)
    with open(args.results, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")

    log("\ntotal %.1f s; report in %s" % (time.time() - t_all, args.results))
    if failures:
        log("FAILED:")
        for m in failures:
            log("  " + m)
        return 1
    log("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
