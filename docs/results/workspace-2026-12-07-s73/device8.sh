#!/usr/bin/env bash
# The eighth device call of this record, from the repository root, carrying
# .gpu/deps and .gpu/pkgs:
#   OUT=$OUT bash docs/results/workspace-2026-12-07-s73/device8.sh
# capture_beside against a runtime built with release-probe.patch (the
# release prints the capture's status after each of its steps), a package
# loaded before the capture and released beside it, plainly and under
# compute-sanitizer memcheck.
set -uo pipefail
ROOT=$PWD
R=$ROOT/docs/results/workspace-2026-12-07-s73
W=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$W/gpu.txt"
GEN="Unix Makefiles"; command -v ninja >/dev/null && GEN=Ninja
T=/tmp/probe
rm -rf "$T" && mkdir -p "$T"
tar --exclude=./build-gpu --exclude=./.gpu -cf - . | tar -xf - -C "$T"
(cd "$T" && patch -p1 < "$R/release-probe.patch") > "$W/patch.log" 2>&1
cmake -G "$GEN" -S "$T" -B "$T/b" -DSPPERM_ENABLE_COMPILER=OFF \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$ROOT/.gpu/deps" > "$W/build.log" 2>&1 &&
  cmake --build "$T/b" -j 16 --target spperm_runtime >> "$W/build.log" 2>&1 || tail -20 "$W/build.log"
LIB=$(dirname "$(find "$T/b" -name 'libspperm_runtime.so' | head -1)")
nvcc -O2 -std=c++17 -o /tmp/capture_beside tools/lab/capture_beside.cu \
  -Iruntime/include -L"$LIB" -lspperm_runtime -lcuda -lcusparse \
  -Xlinker -rpath="$LIB" >> "$W/build.log" 2>&1 || echo "capture_beside build failed"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
PKG=$ROOT/.gpu/pkgs/cora.csr.spp
for steps in "preload release" "preload 1 5 release"; do
  for tool in plain memcheck; do
    name=probe-$(echo "$steps" | tr ' ' '-')-$tool
    pre=(); [ $tool = memcheck ] && pre=("$SAN" --tool memcheck)
    SPRT_TUNING_CACHE=$(mktemp -u) timeout 120 "${pre[@]}" /tmp/capture_beside "$PKG" thread $steps \
      > "$W/$name.txt" 2>&1
    echo "$name rc=$?" | tee -a "$W/rc.txt"
    grep -E "^step|^end|release probe|ERROR SUMMARY" "$W/$name.txt"
  done
done
tar -C "$W" -cJf "$OUT/call8.tar.xz" .
