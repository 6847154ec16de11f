#!/usr/bin/env bash
# The tenth device call of this record, from the repository root, carrying
# .gpu/deps and .gpu/pkgs:
#   OUT=$OUT bash docs/results/workspace-2026-12-07-s73/device10.sh
# capture_beside under compute-sanitizer memcheck: the package's cubin
# unloaded beside a capture after its kernels were looked up by name (and their
# parameters asked), as the runtime does.
set -uo pipefail
ROOT=$PWD
W=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$W/gpu.txt"
GEN="Unix Makefiles"; command -v ninja >/dev/null && GEN=Ninja
B=/tmp/rt
cmake -G "$GEN" -S "$ROOT" -B "$B" -DSPPERM_ENABLE_COMPILER=OFF \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$ROOT/.gpu/deps" > "$W/build.log" 2>&1 &&
  cmake --build "$B" -j 16 --target spperm_runtime >> "$W/build.log" 2>&1
LIB=$(dirname "$(find "$B" -name 'libspperm_runtime.so' | head -1)")
nvcc -O2 -std=c++17 -o /tmp/capture_beside tools/lab/capture_beside.cu \
  -Iruntime/include -L"$LIB" -lspperm_runtime -lcuda -lcusparse \
  -Xlinker -rpath="$LIB" >> "$W/build.log" 2>&1 || echo "capture_beside build failed"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
PKG=$ROOT/.gpu/pkgs/cora.csr.spp
for steps in "x-unload-named" "x-unload-params"; do
  for tool in plain memcheck; do
    name=beside-$steps-$tool
    pre=(); [ $tool = memcheck ] && pre=("$SAN" --tool memcheck)
    timeout 120 "${pre[@]}" /tmp/capture_beside "$PKG" thread $steps > "$W/$name.txt" 2>&1
    echo "$name rc=$?" | tee -a "$W/rc.txt"
    grep -E "^resolved|^step|^end|ERROR SUMMARY" "$W/$name.txt"
  done
done
tar -C "$W" -cJf "$OUT/call10.tar.xz" .
