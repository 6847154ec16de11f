#!/usr/bin/env bash
# The third device call of this record, from the repository root, carrying
# .gpu/deps, .gpu/pkgs and .gpu/suite-f2.tar.xz (session 72's main-set
# archive; the compiler has not changed since):
#   OUT=$OUT bash docs/results/workspace-2026-12-07-s73/device3.sh
# 1. The GPU suite's main set (RuntimeTests with the new dense tests, every
#    package checked, the `<f2` step), RUNS=1.
# 2. The two new tests on the tree with default-pool.patch (cublasSgemm on
#    cuBLAS's default pool, as before this record) and with
#    shared-workspace.patch (one workspace for every stream).
# 3. capture_beside: what of a package's release invalidates a capture
#    beside it under compute-sanitizer memcheck.
set -uo pipefail
ROOT=$PWD
R=$ROOT/docs/results/workspace-2026-12-07-s73
export SPPERM_CMAKE_ARGS="-DCMAKE_PREFIX_PATH=$ROOT/.gpu/deps"
W=$(mktemp -d)
mkdir -p "$W/suite"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$W/gpu.txt"

OUT="$W/suite" ARCHIVE="$ROOT/.gpu/suite-f2.tar.xz" SETS="main" RUNS=1 \
  BENCH_KS=32 bash tools/scripts/gpu_suite.sh > "$W/suite.log" 2>&1
echo "suite rc=$?" | tee "$W/rc.txt"
tail -25 "$W/suite.log"

GEN="Unix Makefiles"; command -v ninja >/dev/null && GEN=Ninja
for arm in default-pool shared-workspace; do
  T=/tmp/$arm
  rm -rf "$T" && mkdir -p "$T"
  tar --exclude=./build-gpu --exclude=./.gpu -cf - . | tar -xf - -C "$T"
  (cd "$T" && patch -p1 < "$R/$arm.patch") > "$W/$arm-patch.log" 2>&1
  if cmake -G "$GEN" -S "$T" -B "$T/b" -DSPPERM_ENABLE_COMPILER=OFF \
       -DCMAKE_BUILD_TYPE=Release $SPPERM_CMAKE_ARGS > "$W/$arm-build.log" 2>&1 &&
     cmake --build "$T/b" -j 16 --target RuntimeTests >> "$W/$arm-build.log" 2>&1; then
    "$T/b/unittests/Runtime/RuntimeTests" \
      --gtest_filter='GpuCaptureTest.CapturedDenseCallHoldsOnlyKernels:GpuDecisionTest.DenseChoiceOnStreamsAtOnce' \
      > "$W/$arm-tests.log" 2>&1
    echo "$arm rc=$?" | tee -a "$W/rc.txt"
    grep -E "^\[  (PASSED|FAILED|       OK) |Failure|Which is|graph allocates|of [0-9]+ calls" "$W/$arm-tests.log" | head -20
  else
    tail -20 "$W/$arm-build.log"; echo "$arm build failed" | tee -a "$W/rc.txt"
  fi
done

B=/tmp/rt
cmake -G "$GEN" -S "$ROOT" -B "$B" -DSPPERM_ENABLE_COMPILER=OFF \
  -DCMAKE_BUILD_TYPE=Release $SPPERM_CMAKE_ARGS > "$W/rt-build.log" 2>&1 &&
  cmake --build "$B" -j 16 --target spperm_runtime >> "$W/rt-build.log" 2>&1
LIB=$(dirname "$(find "$B" -name 'libspperm_runtime.so' | head -1)")
nvcc -O2 -std=c++17 -o /tmp/capture_beside tools/lab/capture_beside.cu \
  -Iruntime/include -L"$LIB" -lspperm_runtime -lcuda -lcusparse \
  -Xlinker -rpath="$LIB" >> "$W/rt-build.log" 2>&1 || echo "capture_beside build failed"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
PKG=$ROOT/.gpu/pkgs/cora.csr.spp
for steps in "x-free" "x-unload" "x-cusparse" "load release"; do
  name=beside-$(echo "$steps" | tr ' ' '-')
  for tool in plain memcheck; do
    pre=(); [ $tool = memcheck ] && pre=("$SAN" --tool memcheck)
    SPRT_TUNING_CACHE=$(mktemp -u) timeout 120 "${pre[@]}" /tmp/capture_beside "$PKG" thread $steps \
      > "$W/$name-$tool.txt" 2>&1
    echo "$name $tool rc=$?" | tee -a "$W/rc.txt"
    grep -E "^step|^end|ERROR SUMMARY" "$W/$name-$tool.txt"
  done
done
tar -C "$W" -cJf "$OUT/call3.tar.xz" .
