#!/usr/bin/env bash
# The node suite on the GPU, as users run it and with CUDA graphs (one
# device call, about 4 minutes). Here:
#   /usr/bin/python3 scripts/gpu/build_suite.py --out DIR --target cuda \
#       --mode static --mode symbolic -j 2
# There (carry DIR):
#   bash scripts/gpu/graphs_suite_check.sh DIR
#   1. the whole suite with the sessions' defaults (with graphs on by
#      default, each test's second call is recorded and launched; either
#      way compared bit for bit with the first), other shapes of the
#      symbolic artifacts against ONNX Runtime;
#   2. the symbolic artifacts with --cuda-graphs: a third call replays the
#      recording, compared bit for bit with the first.
# Logs and JSON under $OUT.
set -u
dir=${1:?usage: graphs_suite_check.sh DIR}
out=${OUT:-/tmp/onyx-out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
work=$(mktemp -d /tmp/onyx-suite-XXXX)
tar -xJf "$dir/suite.tar.xz" -C "$work" || exit 1
eval "$(bash scripts/gpu/device_python.sh "$work/suite" --env 2>"$out/module_build.txt")" || {
  echo "building the onyx module failed:"; tail -5 "$out/module_build.txt"; exit 1; }
t0=$(date +%s)
python3 scripts/gpu/run_suite.py "$work/suite" --shapes --json "$out/default.json" \
  --max-list 100 >"$out/default.txt" 2>&1
echo "== 1. the sessions' defaults, $(($(date +%s) - t0)) s"
sed -n '/^mode /,$p' "$out/default.txt" | head -60
python3 scripts/gpu/run_suite.py "$work/suite" --mode symbolic --cuda-graphs \
  --json "$out/graphs.json" --max-list 100 >"$out/graphs.txt" 2>&1
echo "== 2. --cuda-graphs (a third call replays), $(($(date +%s) - t0)) s"
sed -n '/^mode /,$p' "$out/graphs.txt" | head -60
