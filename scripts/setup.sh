#!/usr/bin/env bash
# Installs every Debian 12 package Onyx needs to build and test.
# Idempotent: when everything is already installed it does not touch apt at all.
set -euo pipefail

PACKAGES=(
  # build
  cmake ninja-build ccache g++
  # MLIR / LLVM 22 (lit, FileCheck, not come with llvm-22-tools)
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22
  # the CPU target's threads: LLVM's OpenMP runtime (generated parallel loops
  # and the runtime's kernels share its one thread pool)
  libomp-22-dev
  # the importer's libFuzzer target (scripts/fuzz-importer.sh): clang's
  # fuzzer and sanitizer runtimes
  libclang-rt-22-dev
  # ONNX importer and its protobuf
  libonnx-dev protobuf-compiler libprotobuf-dev
  # tests: GoogleTest, the ONNX node suite, Python with onnx + numpy
  libgtest-dev libonnx-testdata python3-onnx python3-numpy libopenblas-dev
  # the Python package `onyx` (python/, docs/python.md) and its pytest suite
  pybind11-dev python3-dev python3-pytest
  # the real-model tests and the bundled example (scripts/demo.sh) export
  # their models with PyTorch 1.13 / torchvision 0.14 (Debian's, ~270 packages)
  python3-torch python3-torchvision
)

missing=()
for p in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  if [[ "$status" != "installed" ]]; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#PACKAGES[@]} packages already installed"
else
  SUDO=()
  if [[ $(id -u) -ne 0 ]]; then
    SUDO=(sudo)
  fi
  echo "setup: installing ${missing[*]}"
  "${SUDO[@]}" apt-get update
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y "${PACKAGES[@]}"
fi

# Sanity checks: the tools the build and the tests call by absolute path.
for tool in /usr/lib/llvm-22/bin/lit /usr/lib/llvm-22/bin/FileCheck /usr/lib/llvm-22/bin/not; do
  if [[ ! -x "$tool" ]]; then
    echo "setup: error: $tool is missing after installation" >&2
    exit 1
  fi
done
if ! /usr/bin/python3 -c 'import onnx, numpy, torch, torchvision, pytest' 2>/dev/null; then
  echo "setup: error: /usr/bin/python3 cannot import onnx, numpy, torch, torchvision and pytest" >&2
  exit 1
fi
if [[ ! -d /usr/share/libonnx-testdata/data/node ]]; then
  echo "setup: error: the ONNX node suite (libonnx-testdata) is missing" >&2
  exit 1
fi
echo "setup: done"
