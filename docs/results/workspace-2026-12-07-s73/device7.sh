#!/usr/bin/env bash
# The seventh device call of this record (after session 73's review of the
# change: captured plans got a workspace of their own, the tests check that
# the tuning cache's dense choice was taken), from the repository root,
# carrying .gpu/deps and .gpu/pypk.tar.xz (tools/scripts/gpu_python_prepare.sh):
#   OUT=$OUT bash docs/results/workspace-2026-12-07-s73/device7.sh
# 1. RuntimeTests, every test, on the final tree; the dense tests twice more.
# 2. The dense tests on default-pool.patch, shared-workspace.patch and
#    shared-captured.patch (captured plans share the stream key's
#    workspace), twice each: each arm must fail its test.
# 3. The Python tests on CUDA tensors (gpu_python.sh, BENCH=0).
set -uo pipefail
ROOT=$PWD
R=$ROOT/docs/results/workspace-2026-12-07-s73
export SPPERM_CMAKE_ARGS="-DCMAKE_PREFIX_PATH=$ROOT/.gpu/deps"
W=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$W/gpu.txt"
GEN="Unix Makefiles"; command -v ninja >/dev/null && GEN=Ninja
FILTER='GpuCaptureTest.*Dense*:GpuDecisionTest.DenseChoice*'
for arm in fixed default-pool shared-workspace shared-captured; do
  T=/tmp/$arm
  rm -rf "$T" && mkdir -p "$T"
  tar --exclude=./build-gpu --exclude=./.gpu -cf - . | tar -xf - -C "$T"
  [ $arm = fixed ] || (cd "$T" && patch -p1 < "$R/$arm.patch") > "$W/$arm-patch.log" 2>&1
  if cmake -G "$GEN" -S "$T" -B "$T/b" -DSPPERM_ENABLE_COMPILER=OFF \
       -DCMAKE_BUILD_TYPE=Release $SPPERM_CMAKE_ARGS > "$W/$arm-build.log" 2>&1 &&
     cmake --build "$T/b" -j 16 --target RuntimeTests >> "$W/$arm-build.log" 2>&1; then
    if [ $arm = fixed ]; then
      "$T/b/unittests/Runtime/RuntimeTests" > "$W/fixed-all.log" 2>&1
      echo "fixed all rc=$?" | tee -a "$W/rc.txt"
      grep -E "^\[  (PASSED|SKIPPED|FAILED) " "$W/fixed-all.log"
    fi
    for i in 1 2; do
      "$T/b/unittests/Runtime/RuntimeTests" --gtest_filter="$FILTER" \
        >> "$W/$arm-tests.log" 2>&1
      echo "$arm run $i rc=$?" | tee -a "$W/rc.txt"
    done
    grep -E "^\[  FAILED  \] Gpu|Which is|of [0-9]+ (calls|replays)|graph allocates" "$W/$arm-tests.log" | head -12
  else
    tail -20 "$W/$arm-build.log"; echo "$arm build failed" | tee -a "$W/rc.txt"
  fi
done
mkdir -p "$W/py"
OUT="$W/py" BENCH=0 timeout 300 bash tools/scripts/gpu_python.sh > "$W/py.log" 2>&1
echo "python rc=$?" | tee -a "$W/rc.txt"
grep -E "passed|failed|error" "$W/py.log" | tail -5
tar -C "$W" -cJf "$OUT/call7.tar.xz" .
