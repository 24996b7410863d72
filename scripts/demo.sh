#!/usr/bin/env bash
# Compiles examples/mlp_classifier.onnx (symbolic batch dim) ONCE, then runs
# the same artifact on the CPU at batch 1, 7 and 64 with random inputs,
# printing the outputs' shapes, a short memory summary and the difference
# from the numpy reference (examples/reference.py).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PY=/usr/bin/python3
BIN=${ONYX_BIN_DIR:-build/bin}
OUT=build/demo
MODEL=${ONYX_EXAMPLE_MODEL:-examples/mlp_classifier.onnx}

for tool in "$BIN/onyx-compile" "$BIN/onyx-run"; do
  if [[ ! -x "$tool" ]]; then
    echo "demo: error: $tool is not built; run scripts/build.sh first" >&2
    exit 1
  fi
done
mkdir -p "$OUT"

echo "== compile once: $MODEL (input x: f32[batch,16]) =="
"$BIN/onyx-compile" "$MODEL" -o "$OUT/mlp_classifier.so"
ls -l "$OUT/mlp_classifier.so" | awk '{print "artifact: " $NF " (" $5 " bytes)"}'

for batch in 1 7 64; do
  echo
  echo "== batch $batch =="
  "$PY" - "$OUT/x_$batch.npy" "$batch" <<'PYEOF'
import sys, numpy as np
np.save(sys.argv[1], np.random.default_rng(int(sys.argv[2])).standard_normal((int(sys.argv[2]), 16)).astype(np.float32))
PYEOF
  rm -rf "$OUT/out_$batch"
  mkdir -p "$OUT/out_$batch"
  "$BIN/onyx-run" "$OUT/mlp_classifier.so" --target=cpu \
      --input "x=$OUT/x_$batch.npy" --output-dir "$OUT/out_$batch" \
      --memory-report "$OUT/memory_$batch.json"
  "$PY" - "$OUT" "$batch" "$MODEL" <<'PYEOF'
import json, sys
import numpy as np
sys.path.insert(0, "examples")
import reference
out, batch = sys.argv[1], sys.argv[2]
x = np.load("%s/x_%s.npy" % (out, batch))
y = np.load("%s/out_%s/output_0.npy" % (out, batch))
ref = reference.reference(x, sys.argv[3])
err = np.abs(y.astype(np.float64) - ref).max() / np.abs(ref).max()
print("output y: %s%s, max|y - numpy|/max|numpy| = %.1e" % (y.dtype, list(y.shape), err))
with open("%s/memory_%s.json" % (out, batch)) as f:
    rep = json.load(f)
def kib(v):
    return "%.1f KiB" % (v / 1024.0) if isinstance(v, (int, float)) else str(v)
keys = ["unpacked_bytes", "requested_bytes", "max_live_bytes", "retained_high_water_bytes"]
planner = " (planner: %s)" % rep["planner"] if "planner" in rep else ""
print("memory%s: " % planner + ", ".join("%s %s" % (k.replace("_bytes", ""), kib(rep[k])) for k in keys if k in rep))
PYEOF
done
