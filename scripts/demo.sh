#!/usr/bin/env bash
# The bundled example, end to end on the CPU:
#   1. examples/transformer_example.py exports the real-model test set's
#      torch.nn.TransformerEncoder (2 layers, d_model 64; random weights under
#      a fixed seed, nothing downloaded) with PyTorch's ONNX exporter, with a
#      symbolic batch AND sequence length, plus PyTorch's outputs at three
#      shapes (cached in build/demo/example);
#   2. onyx-compile compiles it ONCE into one artifact;
#   3. onyx-run runs that artifact at (batch, seq) = (1, 1), (7, 16), (64, 32),
#      and each output is compared with PyTorch's (||y - torch|| / ||torch||
#      <= 1e-4), with a short memory summary.
# Exits 1 when a tool is missing or a shape does not match PyTorch.
# Environment: ONYX_BIN_DIR (default build/bin).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PY=/usr/bin/python3
BIN=${ONYX_BIN_DIR:-build/bin}
OUT=build/demo
EXAMPLE=$OUT/example

for tool in "$BIN/onyx-compile" "$BIN/onyx-run"; do
  if [[ ! -x "$tool" ]]; then
    echo "demo: error: $tool is not built; run scripts/build.sh first" >&2
    exit 1
  fi
done
if ! "$PY" -c 'import torch, onnx' 2>/dev/null; then
  echo "demo: error: $PY cannot import torch and onnx; run scripts/setup.sh first" >&2
  exit 1
fi
mkdir -p "$OUT"

echo "== export: examples/transformer_example.py (PyTorch $("$PY" -c 'import torch; print(torch.__version__)')) =="
"$PY" examples/transformer_example.py --out "$EXAMPLE"
MODEL=$EXAMPLE/transformer_encoder.onnx

echo
echo "== compile once: $MODEL (input x: f32[batch,seq,64]) =="
start=$(date +%s%N)
"$BIN/onyx-compile" "$MODEL" -o "$OUT/transformer_encoder.so"
ms=$((($(date +%s%N) - start) / 1000000))
ls -l "$OUT/transformer_encoder.so" |
  awk -v ms="$ms" '{printf "artifact: %s (%s bytes, compiled in %.1f s)\n", $NF, $5, ms / 1000}'

# One line per case of example.json: id, input file, its shape.
cases=$("$PY" - "$EXAMPLE" <<'PYEOF'
import json, os, sys
with open(os.path.join(sys.argv[1], "example.json")) as f:
    for c in json.load(f)["cases"]:
        print(c["id"], c["inputs"]["x"], "x".join(map(str, c["shapes"]["x"])))
PYEOF
)

failed=0
while read -r id input shape; do
  echo
  echo "== $id: x f32[${shape//x/,}] =="
  rm -rf "$OUT/out_$id"
  mkdir -p "$OUT/out_$id"
  "$BIN/onyx-run" "$OUT/transformer_encoder.so" --target=cpu \
      --input "x=$EXAMPLE/$input" --output-dir "$OUT/out_$id" \
      --memory-report "$OUT/memory_$id.json"
  "$PY" - "$OUT" "$EXAMPLE" "$id" <<'PYEOF' || failed=1
import json, sys
import numpy as np
sys.path.insert(0, "examples")
import transformer_example as ex
out, example, cid = sys.argv[1:4]
with open("%s/example.json" % example) as f:
    case = [c for c in json.load(f)["cases"] if c["id"] == cid][0]
y = np.load("%s/out_%s/output_0.npy" % (out, cid))
ok, msg = ex.check(example, case, y)
print("output y: %s%s, %s: %s" % (y.dtype, list(y.shape), msg, "ok" if ok else "MISMATCH"))
with open("%s/memory_%s.json" % (out, cid)) as f:
    rep = json.load(f)
def kib(v):
    return "%.1f KiB" % (v / 1024.0) if isinstance(v, (int, float)) else str(v)
keys = ["unpacked_bytes", "requested_bytes", "max_live_bytes", "retained_high_water_bytes"]
planner = " (planner: %s)" % rep["planner"] if "planner" in rep else ""
print("memory%s: " % planner + ", ".join("%s %s" % (k.replace("_bytes", ""), kib(rep[k])) for k in keys if k in rep))
sys.exit(0 if ok else 1)
PYEOF
done <<<"$cases"

echo
if [[ $failed -ne 0 ]]; then
  echo "demo: error: the artifact's output differs from PyTorch's at some shape" >&2
  exit 1
fi
echo "demo: one artifact, three shapes, all equal to PyTorch (relative error <= 1e-4)"
