#!/usr/bin/env bash
# Session 63, on the GPU machine (carry .gpu/deps, .gpu/pypk.tar.xz,
# .gpu/pybench.tar.xz, .gpu/sub, .gpu/dedup): the Python tests on CUDA,
# spperm-verify of the subnormal packages (session 62's), then of the
# packages whose variants share kernels, every variant at every K, and
# from 8 threads on their own streams.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/gpu.txt"
. tools/scripts/shared_zlib.sh
{ cmake -G Ninja -S . -B build-gpu -DSPPERM_ENABLE_COMPILER=OFF \
    -DCMAKE_BUILD_TYPE=Release ${ZLIB_FLAGS[@]+"${ZLIB_FLAGS[@]}"} \
    -DCMAKE_PREFIX_PATH="$PWD/.gpu/deps" &&
  cmake --build build-gpu -j 16 --target spperm-verify; } >"$O/build.log" 2>&1 ||
  { tail -20 "$O/build.log"; exit 1; }
V=build-gpu/bin/spperm-verify
$V .gpu/dedup --device gpu --k 1,5,32,100,128,512 > "$O/verify-dedup.log" 2>&1
echo "verify dedup rc=$?"; grep -c " ok\b\|PASS\|pass" "$O/verify-dedup.log"; tail -6 "$O/verify-dedup.log"
$V .gpu/sub --device gpu --k 1,5,32,128,512 > "$O/verify-sub.log" 2>&1
echo "verify sub rc=$?"; tail -4 "$O/verify-sub.log"
# QUICK=1 (little device time left): the two checks above only.
[[ "${QUICK:-0}" == 1 ]] && exit 0
$V .gpu/dedup --device gpu --k 8,32,128 --threads 8 --calls 30 > "$O/threads-dedup.log" 2>&1
echo "threads dedup rc=$?"; tail -4 "$O/threads-dedup.log"
SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps BENCH=0 OUT=$O \
  bash tools/scripts/gpu_python.sh > "$O/python.log" 2>&1
echo "python rc=$?"; tail -5 "$O/python.log"
