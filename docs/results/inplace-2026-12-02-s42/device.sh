#!/usr/bin/env bash
# Session 42's machine call for the runtime's in-place decision (README.md
# here): RuntimeTests (GeneratedKernelGpuTest.InPlaceColumnMajorB among
# them), the Python module's in-place test, and bench_sparse_linear.py at
# K = 32 on packages compiled with --k 32 --in-place-b auto, once with
# SPRT_IN_PLACE_B=never (the transposing path) and once with auto (the
# runtime's choice). Carry .gpu/deps, .gpu/pypk.tar.xz and
# .gpu/pybench.tar.xz (tools/scripts/gpu_python_prepare.sh with
# BENCH_FLAGS="--k 32 --in-place-b auto").
#   OUT=DIR bash docs/results/inplace-2026-12-02-s42/device.sh
set -uo pipefail
O=${OUT:?}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >"$O/gpu.txt"
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
OUT="$O/suite" SETS=none bash tools/scripts/gpu_suite.sh >"$O/suite.log" 2>&1
grep -E "tests? ran|PASSED|FAILED|InPlace" "$O/suite.log" | head -20
SPRT_IN_PLACE_B=never PYTEST_ARGS="-k in_place" BENCH_ARGS="--ks 32" \
  OUT="$O/never" bash tools/scripts/gpu_python.sh >"$O/never.log" 2>&1
echo "never rc=$?" >>"$O/never.log"
SPRT_IN_PLACE_B=auto SPPERM_LOG_CHOICES=1 PYTEST=0 BENCH_ARGS="--ks 32" \
  OUT="$O/auto" bash tools/scripts/gpu_python.sh >"$O/auto.log" 2>&1
echo "auto rc=$?" >>"$O/auto.log"
tail -n 5 "$O/never/pytest.log"
grep -c "column-major B" "$O/auto.log"
