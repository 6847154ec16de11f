#!/usr/bin/env bash
#===- gpu_python.sh - The Python module on the GPU machine ----------------===#
#
# Part of the spperm project.
#
#===-----------------------------------------------------------------------===#
#
# Builds the Python module's runtime half (spperm._core, no LLVM/MLIR) on the
# GPU machine and runs the Python tests there, then the SparseLinear
# benchmark (tools/scripts/bench_sparse_linear.py). Run from the repository
# root with what tools/scripts/gpu_python_prepare.sh put in .gpu/:
#
#   OUT=DIR bash tools/scripts/gpu_python.sh
#
# .gpu/deps/nanobind (nanobind's source), .gpu/deps/pylib (pytest, when the
# machine's python3 lacks it), .gpu/pypk.tar.xz (the GPU tests' packages,
# conftest.save_gpu_packages) and .gpu/pybench.tar.xz (packages to time).
# PYBENCH names another tarball of packages to time (one of several
# gpu_python_prepare.sh runs, renamed). Logs and bench.json go to $OUT.
# PYTEST=0 skips the tests, BENCH=0 the benchmark, PYTEST_ARGS adds
# to pytest's arguments (e.g. "-k in_place"), BENCH_ARGS to the
# benchmark's (e.g. "--ks 32" for packages compiled with --k 32). Where the
# tarball holds pybench_t/ (TRANSPOSES=1), the gradient benchmark
# (tools/scripts/bench_sparse_linear_grad.py) runs after it, into
# $OUT/bench_grad.{log,json}.
#
#===-----------------------------------------------------------------------===#
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUTDIR="${OUT:-$ROOT/build-gpu-py/out}"
BUILD="$ROOT/build-gpu-py"
mkdir -p "$OUTDIR"
PY="${PYTHON:-python3}"
status=0

gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
# The extension links the machine's shared zlib (ZLIB_FLAGS).
. "$ROOT/tools/scripts/shared_zlib.sh"
gen+=(${ZLIB_FLAGS[@]+"${ZLIB_FLAGS[@]}"})
# shellcheck disable=SC2086
cmake "${gen[@]}" -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
  -DSPPERM_ENABLE_COMPILER=OFF -DSPPERM_ENABLE_TESTS="${SPPERM_ENABLE_TESTS:-OFF}" \
  -DPython_EXECUTABLE="$(command -v "$PY")" \
  -Dnanobind_DIR="$ROOT/.gpu/deps/nanobind/cmake" \
  ${SPPERM_CMAKE_ARGS:-} >"$OUTDIR/configure.log" 2>&1 ||
  { tail -n 30 "$OUTDIR/configure.log"; exit 1; }
cmake --build "$BUILD" --target _core -j "${JOBS:-16}" >"$OUTDIR/build.log" 2>&1 ||
  { grep -E "error|Error" "$OUTDIR/build.log" | head -30; exit 1; }

export PYTHONPATH="$BUILD/python${PYTHONPATH:+:$PYTHONPATH}"
"$PY" -c "import pytest" 2>/dev/null ||
  export PYTHONPATH="$PYTHONPATH:$ROOT/.gpu/deps/pylib"
work=$(mktemp -d)
tar xJf "$ROOT/.gpu/pypk.tar.xz" -C "$work"
[[ "${BENCH:-1}" == 0 ]] || tar xJf "${PYBENCH:-$ROOT/.gpu/pybench.tar.xz}" -C "$work"
export SPPERM_PY_PACKAGES="$work/pypk"

if [[ "${PYTEST:-1}" != 0 ]]; then
  echo "== pytest"
  # shellcheck disable=SC2086
  "$PY" -m pytest "$ROOT/python/tests" -q -rs -p no:cacheprovider \
    -W ignore::UserWarning ${PYTEST_ARGS:-} 2>&1 | tee "$OUTDIR/pytest.log" ||
    status=1
fi
if [[ "${BENCH:-1}" != 0 ]]; then
  echo "== SparseLinear benchmark"
  # shellcheck disable=SC2086
  "$PY" "$ROOT/tools/scripts/bench_sparse_linear.py" "$work"/pybench/*.spp \
    --json "$OUTDIR/bench.json" ${BENCH_ARGS:-} 2>&1 |
    tee "$OUTDIR/bench.log" || status=1
  if [[ -d "$work/pybench_t" ]]; then
    echo "== SparseLinear gradient benchmark"
    # shellcheck disable=SC2086
    "$PY" "$ROOT/tools/scripts/bench_sparse_linear_grad.py" "$work/pybench_t" \
      --json "$OUTDIR/bench_grad.json" ${BENCH_ARGS:-} 2>&1 |
      tee "$OUTDIR/bench_grad.log" || status=1
  fi
fi
rm -rf "$work"
exit "$status"
