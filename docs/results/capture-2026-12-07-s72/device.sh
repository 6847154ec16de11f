#!/usr/bin/env bash
# The device call of this record (H100 or H200), from the repository root,
# with the device tool carrying .gpu/deps, .gpu/suite-f2.tar.xz and
# .gpu/nofix.patch (README.md, "How it was prepared"):
#   OUT=$OUT bash docs/results/capture-2026-12-07-s72/device.sh
# 1. The GPU suite's main set over suite-f2 (RuntimeTests with the new
#    GpuCaptureTest, every package checked, the `<f2` step), RUNS=1.
# 2. The same tree without the runtime fixes (nofix.patch: the files of
#    168d4aa, before them), the two GpuCaptureTest tests: both must fail.
set -uo pipefail
ROOT=$PWD
export SPPERM_CMAKE_ARGS="-DCMAKE_PREFIX_PATH=$ROOT/.gpu/deps"
mkdir -p "$OUT/suite" "$OUT/nofix"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/gpu.txt" 2>&1

OUT="$OUT/suite" ARCHIVE="$ROOT/.gpu/suite-f2.tar.xz" SETS="main" RUNS=1 \
  BENCH_KS=32 bash tools/scripts/gpu_suite.sh > "$OUT/suite.log" 2>&1
echo "suite rc=$?" | tee "$OUT/rc.txt"

NF=/tmp/nofix
rm -rf "$NF" && mkdir -p "$NF"
tar --exclude=./build-gpu --exclude=./.gpu -cf - . | tar -xf - -C "$NF"
(cd "$NF" && patch -p1 < "$ROOT/.gpu/nofix.patch") > "$OUT/nofix/patch.log" 2>&1
GEN="Unix Makefiles"; command -v ninja >/dev/null && GEN=Ninja
if cmake -G "$GEN" -S "$NF" -B "$NF/b" -DSPPERM_ENABLE_COMPILER=OFF \
     -DCMAKE_BUILD_TYPE=Release $SPPERM_CMAKE_ARGS > "$OUT/nofix/build.log" 2>&1 &&
   cmake --build "$NF/b" -j 16 --target RuntimeTests >> "$OUT/nofix/build.log" 2>&1; then
  # One process per test: a graph replayed over freed arrays may leave a
  # sticky device error behind.
  for t in GpuCaptureTest.PackageCallsBesideAGlobalCapture \
           GpuCaptureTest.CapturedFallbackSurvivesLaterDecisions; do
    "$NF/b/unittests/Runtime/RuntimeTests" --gtest_filter="$t" \
      >> "$OUT/nofix/RuntimeTests.log" 2>&1
    echo "nofix $t rc=$?" | tee -a "$OUT/rc.txt"
  done
else
  tail -20 "$OUT/nofix/build.log"; echo "nofix build failed" | tee -a "$OUT/rc.txt"
fi
grep -E "^\[  (PASSED|SKIPPED|FAILED|       OK) |Failure|Expected|Which is|actual" "$OUT/nofix/RuntimeTests.log" | head -40
tail -40 "$OUT/suite.log"
