#!/usr/bin/env bash
# On the device, .gpu/deps and .gpu/b16-S1.tar.xz carried:
#   bash docs/results/bf16-choices-2026-12-06-s68/bias.sh
# Builds the runtime alone and tools/lab/check_bias.cpp, and runs it on
# the S1 half's packages at KS (default 64 and 512), the choices logged,
# the tuning cache off (a warm machine's cache would replay the choices).
# CHECK_BIAS_FIRST=1 makes each package's first call before its timings
# (the bias-first/ run).
set -u
O=${OUT:?}
cd "$(dirname "$0")/../../.."
. tools/scripts/shared_zlib.sh
START=$SECONDS
cmake -G Ninja -S . -B build-gpu -DSPPERM_ENABLE_COMPILER=OFF ${ZLIB_FLAGS[@]+"${ZLIB_FLAGS[@]}"} \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$PWD/.gpu/deps >"$O/configure.log" 2>&1 &&
  cmake --build build-gpu --target spperm_runtime >"$O/build.log" 2>&1 || { tail -20 "$O/build.log"; exit 1; }
g++ -O2 -std=c++17 -Iruntime/include tools/lab/check_bias.cpp \
  -Lbuild-gpu/lib -lspperm_runtime -Wl,-rpath,$PWD/build-gpu/lib -o build-gpu/check_bias || exit 1
echo "built in $((SECONDS - START)) s"
W=build-gpu/bias-work
rm -rf "$W" && mkdir -p "$W" && xz -dc "${ARCHIVE:-.gpu/b16-S1.tar.xz}" | tar -C "$W" -xf -
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv | tee "$O/gpu.txt"
for k in ${KS:-64 512}; do
  SPRT_TUNING_CACHE=off SPPERM_LOG_CHOICES=1 timeout "${LIMIT:-200}" build-gpu/check_bias "$k" "$W"/suite/*.spp \
    >"$O/bias-k$k.txt" 2>"$O/choices-k$k.txt"
  echo "k=$k rc=$? lines=$(grep -c '^bias' "$O/bias-k$k.txt")"
done
