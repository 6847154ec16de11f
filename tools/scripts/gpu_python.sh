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
# WHEEL=1 installs the package as a user would instead (pip install ., which
# leaves the compiler out where there is no LLVM/MLIR: docs/Python.md
# "Installing"; scikit-build-core from
# .gpu/deps/pybuild) into a folder of its own, and runs everything on that.
#
#===-----------------------------------------------------------------------===#
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUTDIR="${OUT:-$ROOT/build-gpu-py/out}"
BUILD="$ROOT/build-gpu-py"
mkdir -p "$OUTDIR"
PY="${PYTHON:-python3}"
status=0

# The extension links the machine's shared zlib (ZLIB_FLAGS).
. "$ROOT/tools/scripts/shared_zlib.sh"
if [[ "${WHEEL:-0}" == 1 ]]; then
  # A fresh build, as a first install is (CMake's cache would keep an
  # earlier run's choices).
  site="$BUILD/site"
  rm -rf "$site" "$BUILD/pip"
  # No SPPERM_ENABLE_COMPILER: the wheel finds no LLVM/MLIR here and
  # leaves the compiler out by itself, as on a user's GPU server.
  defines=(-C "cmake.define.nanobind_DIR=$ROOT/.gpu/deps/nanobind/cmake"
    -C "cmake.define.CMAKE_PREFIX_PATH=$ROOT/.gpu/deps")
  for flag in ${ZLIB_FLAGS[@]+"${ZLIB_FLAGS[@]}"}; do
    defines+=(-C "cmake.define.${flag#-D}")
  done
  echo "== pip install . (the runtime-only wheel)"
  PYTHONPATH="$ROOT/.gpu/deps/pybuild" CMAKE_BUILD_PARALLEL_LEVEL="${JOBS:-16}" \
    "$PY" -m pip install -v --no-deps \
    --no-index --no-build-isolation --target "$site" "$ROOT" \
    -C "build-dir=$BUILD/pip" "${defines[@]}" >"$OUTDIR/build.log" 2>&1 ||
    { tail -n 40 "$OUTDIR/build.log"; exit 1; }
  export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
  "$PY" -c "import spperm, sys; assert spperm.__file__.startswith(sys.argv[1]), spperm.__file__; print('spperm', spperm.__version__, 'from', spperm.__file__)" "$site" ||
    exit 1
else
  gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
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
fi
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
