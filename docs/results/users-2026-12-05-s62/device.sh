#!/usr/bin/env bash
# Session 62, on the GPU machine (carry .gpu/deps, .gpu/pypk.tar.xz,
# .gpu/pybench.tar.xz, .gpu/sub): the Python tests on CUDA (the new user
# scenarios among them), then spperm-verify of the subnormal packages.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/gpu.txt"
SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps BENCH=0 OUT=$O \
  bash tools/scripts/gpu_python.sh > "$O/python.log" 2>&1
echo "python rc=$?"; tail -5 "$O/python.log"
. tools/scripts/shared_zlib.sh
{ cmake -G Ninja -S . -B build-gpu -DSPPERM_ENABLE_COMPILER=OFF \
    -DCMAKE_BUILD_TYPE=Release ${ZLIB_FLAGS[@]+"${ZLIB_FLAGS[@]}"} \
    -DCMAKE_PREFIX_PATH="$PWD/.gpu/deps" &&
  cmake --build build-gpu -j 16 --target spperm-verify; } >"$O/build.log" 2>&1 ||
  { tail -20 "$O/build.log"; exit 1; }
build-gpu/bin/spperm-verify .gpu/sub --device gpu --k 1,5,32,128,512 \
  > "$O/verify-sub.log" 2>&1
echo "verify rc=$?"; tail -14 "$O/verify-sub.log"
