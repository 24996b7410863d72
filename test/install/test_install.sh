#!/usr/bin/env bash
# The installed tree (docs/python.md, "Installing"): `cmake --install` of the
# build into a temporary prefix, then from there only:
#   1. the installed onyx-compile compiles examples/mlp_classifier.onnx;
#   2. test/install/consumer, built with find_package(Onyx) -> Onyx::runtime,
#      runs it at batch 5 (and a bad call), checked against examples/reference.py;
#   3. the same main.c built with `pkg-config onyx-runtime`;
#   4. the installed Python package compiles and runs the example (its
#      compiler: PREFIX/bin/onyx-compile).
#   bash test/install/test_install.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
BUILD=${1:-${ONYX_BUILD_DIR:-build}}
PY=/usr/bin/python3
TMP=$(mktemp -d /tmp/onyx-install-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
PREFIX=$TMP/prefix
REPO=$PWD

cmake --install "$BUILD" --prefix "$PREFIX" > "$TMP/install.log"
for f in bin/onyx-compile bin/onyx-run lib/libonyx_runtime.so include/onyx/onyx_runtime.h \
         lib/cmake/Onyx/OnyxConfig.cmake lib/pkgconfig/onyx-runtime.pc \
         lib/python3/dist-packages/onyx/__init__.py; do
  [[ -e $PREFIX/$f ]] || { echo "error: $PREFIX/$f was not installed"; exit 1; }
done
echo "installed into $PREFIX"

"$PREFIX/bin/onyx-compile" examples/mlp_classifier.onnx -o "$TMP/mlp.so"
if readelf -d "$TMP/mlp.so" | grep -q "$(realpath "$BUILD")"; then
  echo "error: the artifact of the installed compiler refers to the build tree"; exit 1
fi

check() {  # check OUTPUT_FILE: compares with the numpy reference at batch 5
  "$PY" - "$1" <<'PYEOF'
import sys
import numpy as np
sys.path.insert(0, "examples")
from reference import reference
x = np.sin(np.arange(5 * 16, dtype=np.float64)).astype(np.float32).reshape(5, 16)
got = np.loadtxt(sys.argv[1], dtype=np.float32)
want = reference(x).reshape(-1)
assert got.shape == want.shape, (got.shape, want.shape)
np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
print("outputs match the numpy reference (%d values)" % got.size)
PYEOF
}

cmake -S test/install/consumer -B "$TMP/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$PREFIX" > "$TMP/consumer-configure.log"
cmake --build "$TMP/consumer" > "$TMP/consumer-build.log" || { cat "$TMP/consumer-build.log"; exit 1; }
"$TMP/consumer/onyx-consumer" "$TMP/mlp.so" 5 > "$TMP/cmake-out.txt"
check "$TMP/cmake-out.txt"

PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
export PKG_CONFIG_PATH
[[ $(pkg-config --modversion onyx-runtime) == "$("$PY" -c "import re;print(re.search(r'ONYX_RUNTIME_VERSION \"(.*)\"', open('$PREFIX/include/onyx/onyx_runtime.h').read()).group(1))")" ]]
cc -o "$TMP/pc-consumer" test/install/consumer/main.c $(pkg-config --cflags --libs onyx-runtime) -ldl -lm
"$TMP/pc-consumer" "$TMP/mlp.so" 5 > "$TMP/pc-out.txt"
check "$TMP/pc-out.txt"

(cd "$TMP" && ONYX_CACHE_DIR=$TMP/cache PYTHONPATH=$PREFIX/lib/python3/dist-packages "$PY" - <<PYEOF
import numpy as np, onyx, onyx._compiler
assert onyx.__file__.startswith("$PREFIX"), onyx.__file__
assert onyx._compiler.find_compiler() == "$PREFIX/bin/onyx-compile"
s = onyx.InferenceSession("$REPO/examples/mlp_classifier.onnx")
(y,) = s.run(None, {"x": np.ones((3, 16), np.float32)})
assert y.shape == (3, 10) and abs(float(y.sum()) - 3.0) < 1e-4
print("installed Python package: ok,", s.get_inputs())
PYEOF
)
echo "install test: all passed"
