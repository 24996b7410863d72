#!/usr/bin/env bash
# Builds the importer's libFuzzer target (test/fuzz/import_fuzzer.cpp) with
# clang, AddressSanitizer and UndefinedBehaviorSanitizer in a build directory
# of its own, and runs it on a corpus seeded from the ONNX node suite, the
# bundled example and the committed CLI-campaign crashers. Fails on any
# crash, hang (-timeout), leak or sanitizer report; the reproducer is left
# in the build directory (crash-*, timeout-*, leak-*).
#
#   bash scripts/fuzz-importer.sh [--runs N] [--jobs J] [--seed S] [--build-dir DIR]
#   bash scripts/fuzz-importer.sh --corpus-only [--build-dir DIR]
#
# --corpus-only: every seed and committed crasher once, no mutation: the
# sanitizers check the importer on all of them. CI runs the corpus and then
# --runs 20000 mutations (--seed 1); libonnx's shape inference runs in a
# child process (lib/Import/IsolatedInference.h), so a crash inside it is a
# clean import error, not a fuzzer finding.
# --seed: libFuzzer's random seed (default 1, so that CI's bounded run is
# the same run every time; a long campaign uses other seeds, 0 = random).
# --runs: executions per job (default 20000, what CI runs); the committed
# long run (docs/testing.md, "Fuzzing") used --runs 1000000.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

RUNS=20000
JOBS=1
SEED=1
DIR=build-fuzz
CORPUS_ONLY=0
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --corpus-only) CORPUS_ONLY=1; shift ;;
    --build-dir) DIR=$2; shift 2 ;;
    *) echo "fuzz-importer.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

LLVM=/usr/lib/llvm-22/bin
SAN="-fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link"
if [ ! -f "$DIR/build.ninja" ]; then
  mkdir -p "$DIR"
  cmake -S . -B "$DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$LLVM/clang" -DCMAKE_CXX_COMPILER="$LLVM/clang++" \
    -DCMAKE_C_FLAGS="$SAN -g -fno-omit-frame-pointer" \
    -DCMAKE_CXX_FLAGS="$SAN -g -fno-omit-frame-pointer" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1" -DCMAKE_C_FLAGS_RELEASE="-O1" \
    -DONYX_BUILD_FUZZERS=ON > "$DIR/configure.log" 2>&1 ||
    { cat "$DIR/configure.log" >&2; exit 1; }
fi
cmake --build "$DIR" --target onyx-import-fuzzer

# The corpus: small models that reach every importer path.
CORPUS=$(mktemp -d /tmp/onyx-fuzz-corpus-XXXXXX)
trap 'rm -rf "$CORPUS"' EXIT
SEEDS=$CORPUS/seeds
mkdir -p "$SEEDS" "$CORPUS/new"
cp examples/mlp_classifier.onnx test/fuzz/crashers/*.onnx "$SEEDS/"
NODE=/usr/share/libonnx-testdata/data/node
if [ -d "$NODE" ]; then
  for m in "$NODE"/*/model.onnx; do
    cp "$m" "$SEEDS/$(basename "$(dirname "$m")").onnx"
  done
fi
[ "$CORPUS_ONLY" -eq 1 ] ||
  echo "fuzz-importer.sh: $(ls "$SEEDS" | wc -l) seeds, $RUNS runs x $JOBS jobs (seed $SEED)"

# No leak is expected: the importer owns nothing past a call.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
ART="$DIR/fuzz-artifacts/"
mkdir -p "$ART"
LOG="$DIR/fuzz-importer.log"
rc=0
if [ "$CORPUS_ONLY" -eq 1 ]; then
  echo "fuzz-importer.sh: corpus only: each of the $(ls "$SEEDS" | wc -l) inputs once"
  "$DIR/bin/onyx-import-fuzzer" -timeout=20 -rss_limit_mb=3072 \
    -artifact_prefix="$ART" "$SEEDS"/* > "$LOG" 2>&1 || rc=$?
  echo "fuzz-importer.sh: ran $(grep -c '^Running: ' "$LOG") inputs"
elif [ "$JOBS" -gt 1 ]; then
  (cd "$DIR" && ./bin/onyx-import-fuzzer -runs="$RUNS" -seed="$SEED" -jobs="$JOBS" \
     -workers="$JOBS" -timeout=20 -rss_limit_mb=3072 -max_len=262144 \
     -print_final_stats=1 -artifact_prefix="fuzz-artifacts/" \
     "$CORPUS/new" "$SEEDS") > "$LOG" 2>&1 || rc=$?
  cat "$DIR"/fuzz-*.log >> "$LOG" 2>/dev/null || true
else
  "$DIR/bin/onyx-import-fuzzer" -runs="$RUNS" -seed="$SEED" -timeout=20 -rss_limit_mb=3072 \
    -max_len=262144 -print_final_stats=1 -artifact_prefix="$ART" \
    "$CORPUS/new" "$SEEDS" > "$LOG" 2>&1 || rc=$?
fi
grep -E "^#[0-9]+ +(DONE|INITED)|stat::number_of_executed_units|stat::peak_rss" "$LOG" | tail -6 || true
if [ $rc -ne 0 ] || grep -qE "ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:" "$LOG"; then
  echo "fuzz-importer.sh: the fuzzer found a problem (rc $rc; log $LOG, reproducers in $ART):" >&2
  grep -E "ERROR:|runtime error:|SUMMARY" "$LOG" | head -5 >&2
  exit 1
fi
echo "fuzz-importer.sh: no crash, hang, leak or sanitizer report"
