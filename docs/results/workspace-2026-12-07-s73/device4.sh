#!/usr/bin/env bash
# The fourth device call of this record, from the repository root, carrying
# .gpu/deps and .gpu/pkgs:
#   OUT=$OUT bash docs/results/workspace-2026-12-07-s73/device4.sh
# 1. GpuDecisionTest.DenseChoiceOnStreamsAtOnce at its final shape (128 x
#    16384, K = 128, 8 calls in flight per stream), with the runtime's
#    per-stream workspaces and with shared-workspace.patch (it must fail
#    there), three times each; CapturedDenseCallHoldsOnlyKernels with them.
# 2. capture_beside: a release beside a capture, the package loaded before
#    it; and the release's calls made and undone during the capture, under
#    compute-sanitizer memcheck.
set -uo pipefail
ROOT=$PWD
R=$ROOT/docs/results/workspace-2026-12-07-s73
export SPPERM_CMAKE_ARGS="-DCMAKE_PREFIX_PATH=$ROOT/.gpu/deps"
W=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$W/gpu.txt"
GEN="Unix Makefiles"; command -v ninja >/dev/null && GEN=Ninja
FILTER='GpuCaptureTest.CapturedDenseCallHoldsOnlyKernels:GpuDecisionTest.DenseChoice*'
for arm in fixed shared-workspace; do
  T=/tmp/$arm
  rm -rf "$T" && mkdir -p "$T"
  tar --exclude=./build-gpu --exclude=./.gpu -cf - . | tar -xf - -C "$T"
  [ $arm = fixed ] || (cd "$T" && patch -p1 < "$R/$arm.patch") > "$W/$arm-patch.log" 2>&1
  if cmake -G "$GEN" -S "$T" -B "$T/b" -DSPPERM_ENABLE_COMPILER=OFF \
       -DCMAKE_BUILD_TYPE=Release $SPPERM_CMAKE_ARGS > "$W/$arm-build.log" 2>&1 &&
     cmake --build "$T/b" -j 16 --target RuntimeTests spperm_runtime >> "$W/$arm-build.log" 2>&1; then
    for i in 1 2 3; do
      "$T/b/unittests/Runtime/RuntimeTests" --gtest_filter="$FILTER" \
        >> "$W/$arm-tests.log" 2>&1
      echo "$arm run $i rc=$?" | tee -a "$W/rc.txt"
    done
    grep -E "^\[  (PASSED|FAILED) |Which is|of [0-9]+ calls" "$W/$arm-tests.log" | head -20
  else
    tail -20 "$W/$arm-build.log"; echo "$arm build failed" | tee -a "$W/rc.txt"
  fi
done

LIB=$(dirname "$(find /tmp/fixed/b -name 'libspperm_runtime.so' | head -1)")
nvcc -O2 -std=c++17 -o /tmp/capture_beside tools/lab/capture_beside.cu \
  -Iruntime/include -L"$LIB" -lspperm_runtime -lcuda -lcusparse \
  -Xlinker -rpath="$LIB" >> "$W/lab-build.log" 2>&1 || echo "capture_beside build failed"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
PKG=$ROOT/.gpu/pkgs/cora.csr.spp
for steps in "preload release" "x-alloc-free" "x-load-unload" "x-create-destroy" \
             "load release" "preload 1 release"; do
  name=beside-$(echo "$steps" | tr ' ' '-')
  SPRT_TUNING_CACHE=$(mktemp -u) timeout 120 "$SAN" --tool memcheck \
    /tmp/capture_beside "$PKG" thread $steps > "$W/$name-memcheck.txt" 2>&1
  echo "$name memcheck rc=$?" | tee -a "$W/rc.txt"
  grep -E "^step|^end|ERROR SUMMARY" "$W/$name-memcheck.txt"
done
tar -C "$W" -cJf "$OUT/call4.tar.xz" .
