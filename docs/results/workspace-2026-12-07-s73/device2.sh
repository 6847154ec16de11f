#!/usr/bin/env bash
# The second device call of this record (after device.sh, whose `sync` step
# invalidated every capture by itself: a synchronization of the caller's,
# not a package call), from the repository root, carrying .gpu/deps and
# .gpu/pkgs:
#   OUT=$OUT bash docs/results/workspace-2026-12-07-s73/device2.sh
# capture_beside's steps without `sync`, plainly and under memcheck, and
# the release alone; everything in $OUT/call2.tar.xz with cublas.txt.
set -uo pipefail
ROOT=$PWD
B=$ROOT/build-gpu
W=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$W/gpu.txt"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvcc -O2 -arch=sm_90 -o /tmp/cublas_workspace tools/lab/cublas_workspace.cu \
  -lcublas > "$W/cublas-build.log" 2>&1 &&
  timeout 240 /tmp/cublas_workspace > "$W/cublas.txt" 2>&1
echo "cublas_workspace rc=$?" | tee "$W/rc.txt"
GEN="Unix Makefiles"; command -v ninja >/dev/null && GEN=Ninja
cmake -G "$GEN" -S "$ROOT" -B "$B" -DSPPERM_ENABLE_COMPILER=OFF \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$ROOT/.gpu/deps" \
  > "$W/build.log" 2>&1 &&
  cmake --build "$B" -j 16 --target spperm_runtime >> "$W/build.log" 2>&1
LIB=$(dirname "$(find "$B" -name 'libspperm_runtime.so' | head -1)")
nvcc -O2 -std=c++17 -o /tmp/capture_beside tools/lab/capture_beside.cu \
  -Iruntime/include -L"$LIB" -lspperm_runtime -lcuda \
  -Xlinker -rpath="$LIB" >> "$W/build.log" 2>&1 || echo "capture_beside build failed"
PKG=$ROOT/.gpu/pkgs/cora.csr.spp
run() { # name, then the command
  local name=$1; shift
  SPRT_TUNING_CACHE=$(mktemp -u) timeout 120 "$@" > "$W/$name.txt" 2>&1
  echo "$name rc=$?" | tee -a "$W/rc.txt"
  grep -E "^step|^end|ERROR SUMMARY" "$W/$name.txt" | head -12
}
for where in thread here; do
  run "beside-$where-plain" /tmp/capture_beside "$PKG" $where load 1 1 5 32 33 release
  run "beside-$where-memcheck" "$SAN" --tool memcheck /tmp/capture_beside "$PKG" $where load 1 1 5 32 33 release
done
run "beside-thread-memcheck-load-release" "$SAN" --tool memcheck /tmp/capture_beside "$PKG" thread load release
run "beside-thread-memcheck-load" "$SAN" --tool memcheck /tmp/capture_beside "$PKG" thread load
tar -C "$W" -cJf "$OUT/call2.tar.xz" .
