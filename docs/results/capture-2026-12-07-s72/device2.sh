#!/usr/bin/env bash
# The second device call of this record, from the repository root, with the
# device tool carrying .gpu/deps (with deps/nanobind), .gpu/pypk.tar.xz and
# .gpu/pybench.tar.xz (tools/scripts/gpu_python_prepare.sh gnn/cora.mtx.gz):
#   OUT=$OUT bash docs/results/capture-2026-12-07-s72/device2.sh
# 1. The Python tests on CUDA tensors (torch.cuda.graph captures included),
#    no benchmark.
# 2. compute-sanitizer memcheck over RuntimeTests' capture and decision tests.
set -uo pipefail
ROOT=$PWD
export SPPERM_CMAKE_ARGS="-DCMAKE_PREFIX_PATH=$ROOT/.gpu/deps"
mkdir -p "$OUT/py" "$OUT/san"
OUT="$OUT/py" BENCH=0 bash tools/scripts/gpu_python.sh > "$OUT/py.log" 2>&1
echo "python rc=$?" | tee "$OUT/rc.txt"
B=$ROOT/build-gpu
GEN="Unix Makefiles"; command -v ninja >/dev/null && GEN=Ninja
if cmake -G "$GEN" -S "$ROOT" -B "$B" -DSPPERM_ENABLE_COMPILER=OFF \
     -DCMAKE_BUILD_TYPE=Release $SPPERM_CMAKE_ARGS > "$OUT/san/build.log" 2>&1 &&
   cmake --build "$B" -j 16 --target RuntimeTests >> "$OUT/san/build.log" 2>&1; then
  SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck; do
    "$SAN" --tool "$tool" --error-exitcode 3 \
      "$B/unittests/Runtime/RuntimeTests" --gtest_filter='GpuCapture*:GpuDecision*' \
      > "$OUT/san/$tool.log" 2>&1
    echo "sanitizer $tool rc=$?" | tee -a "$OUT/rc.txt"
    grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED) " "$OUT/san/$tool.log"
  done
else
  tail -20 "$OUT/san/build.log"; echo "build failed" | tee -a "$OUT/rc.txt"
fi
grep -E "passed|failed|skipped|error" "$OUT/py.log" | tail -15
