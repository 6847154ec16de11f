#!/usr/bin/env bash
# Session 43's machine calls for the runtime's in-place decision timed as
# CUDA graphs (README.md here). SUITE=1: RuntimeTests (tools/scripts/
# gpu_suite.sh, no matrix sets) and the whole pytest suite on CUDA first.
# Then, for each K of KS, bench_sparse_linear.py on the 8 layers' packages
# compiled with --k K --in-place-b auto (.gpu/pybench-kK.tar.xz), once with
# SPRT_IN_PLACE_B=never (the transposing path) and once with auto (the
# runtime's choice, logged). Carry .gpu/deps, .gpu/pypk.tar.xz and the
# .gpu/pybench-k*.tar.xz of KS.
# PYTEST_K runs the pytest tests it selects (-k) instead of the suite.
#   OUT=DIR SUITE=1 KS="32 128" bash docs/results/inplace-2026-12-02-s43/device.sh
#   OUT=DIR PYTEST_K=in_place ANY=1,20,32,100,128,512 bash .../device.sh
set -uo pipefail
O=${OUT:?}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >"$O/gpu.txt"
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
if [[ "${SUITE:-0}" == 1 ]]; then
  OUT="$O/suite" SETS=none bash tools/scripts/gpu_suite.sh >"$O/suite.log" 2>&1
  grep -E "tests? ran|PASSED|FAILED|InPlace" "$O/suite.log" | head -20
  OUT="$O/pytest" BENCH=0 \
    bash tools/scripts/gpu_python.sh >"$O/pytest.log" 2>&1
  grep -E "passed|failed|error" "$O/pytest.log" | tail -3
fi
if [[ -n "${PYTEST_K:-}" ]]; then
  OUT="$O/pytest" BENCH=0 PYTEST_ARGS="-k $PYTEST_K" \
    bash tools/scripts/gpu_python.sh >"$O/pytest.log" 2>&1
  grep -E "passed|failed|error" "$O/pytest.log" | tail -3
  rm -rf "$O/pytest"
fi
# ANY: the K list for the packages compiled without --k
# (.gpu/pybench-any.tar.xz, --in-place-b auto), never then auto.
if [[ -n "${ANY:-}" ]]; then
  for mode in never auto; do
    SPRT_IN_PLACE_B=$mode SPPERM_LOG_CHOICES=1 PYTEST=0 BENCH_ARGS="--ks $ANY" \
      PYBENCH=.gpu/pybench-any.tar.xz OUT="$O/any-$mode" \
      bash tools/scripts/gpu_python.sh >"$O/any-$mode.log" 2>&1
    echo "any $mode rc=$?" | tee -a "$O/any-$mode.log"
    grep -E "geomean" "$O/any-$mode.log"
    mv "$O/any-$mode/bench.json" "$O/any-$mode.json" 2>/dev/null
    rm -rf "$O/any-$mode"
  done
fi
for k in ${KS:-}; do
  for mode in never auto; do
    SPRT_IN_PLACE_B=$mode SPPERM_LOG_CHOICES=1 PYTEST=0 BENCH_ARGS="--ks $k" \
      PYBENCH=.gpu/pybench-k$k.tar.xz OUT="$O/k$k-$mode" \
      bash tools/scripts/gpu_python.sh >"$O/k$k-$mode.log" 2>&1
    echo "k=$k $mode rc=$?" | tee -a "$O/k$k-$mode.log"
    # Few files come back: the benchmark's JSON, the rest is in the log.
    mv "$O/k$k-$mode/bench.json" "$O/k$k-$mode.json" 2>/dev/null
    rm -rf "$O/k$k-$mode"
    grep -E "geomean" "$O/k$k-$mode.log"
  done
done
