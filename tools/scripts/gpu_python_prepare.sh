#!/usr/bin/env bash
#===- gpu_python_prepare.sh - What gpu_python.sh carries -------------------===#
#
# Part of the spperm project.
#
#===------------------------------------------------------------------------===#
#
# Run here after the README's build and tools/scripts/gpu_prepare.sh (which
# makes .gpu/deps): adds to .gpu/
#   deps/nanobind     nanobind's source and CMake package (from build/venv),
#                     which the GPU machine's Python lacks
#   deps/pybuild      scikit-build-core and what it imports (PyPI; on Python
#                     3.9 and 3.10 also tomli and exceptiongroup), for
#                     gpu_python.sh's WHEEL=1 (pip install . there)
#   pypk.tar.xz       pypk/: the Python GPU tests' packages and matrices
#                     (python/tests/conftest.py, save_gpu_packages)
#   pybench.tar.xz    pybench/: one package per MATRIX for
#                     tools/scripts/bench_sparse_linear.py, compiled with
#                     spperm-compile $BENCH_FLAGS (e.g. "--dtype bf16");
#                     with TRANSPOSES=1 also pybench_t/: NAME.spp and
#                     NAME.t.spp (Wᵀ) per MATRIX, as from_dense compiles
#                     them (in_place_b="auto"), for
#                     tools/scripts/bench_sparse_linear_grad.py
# Then, with the device tool (carry [".gpu/deps", ".gpu/pypk.tar.xz",
# ".gpu/pybench.tar.xz"]):
#   SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps \
#     OUT=$OUT bash tools/scripts/gpu_python.sh
#
# Usage: gpu_python_prepare.sh MATRIX...   (env BENCH_FLAGS, TRANSPOSES)
#
#===------------------------------------------------------------------------===#
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN="$ROOT/build/bin"
PY="$ROOT/build/venv/bin/python"
DEST="$ROOT/.gpu"
[[ -d "$DEST/deps" ]] || { echo "$0: run tools/scripts/gpu_prepare.sh first (.gpu/deps)" >&2; exit 2; }

nanobind=$("$PY" -c "import nanobind, os; print(os.path.dirname(nanobind.__file__))")
rm -rf "$DEST/deps/nanobind"
cp -r "$nanobind" "$DEST/deps/nanobind"

# pip's build backend, installed as files (the GPU machine has no network):
# the versions of build/venv, and tomli for a Python before 3.11.
rm -rf "$DEST/deps/pybuild"
"$PY" -m pip install -q --no-deps --target "$DEST/deps/pybuild" \
  $("$PY" -c "import importlib.metadata as m; print(' '.join(f'{p}=={m.version(p)}' for p in ('scikit-build-core', 'packaging', 'pathspec')))")
# What scikit-build-core imports on a Python before 3.11, as Python files
# (tomli's wheels for this interpreter are compiled).
"$PY" -m pip install -q --no-deps --target "$DEST/deps/pybuild" \
  --no-binary tomli tomli exceptiongroup

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$ROOT/python/tests" &&
  "$PY" -c "import sys, conftest; conftest.save_gpu_packages(sys.argv[1])" "$work/pypk")
mkdir -p "$work/pybench"
for m in "$@"; do
  # The path below data/matrices/ (DLMC layers of several sparsities share
  # a file name), "/" as "__", without the extension.
  rel=${m#*/data/matrices/}
  [[ "$rel" != "$m" ]] || rel=$(basename "$m")
  name=$(echo "$rel" | sed -E 's|/|__|g; s/\.(s?mtx(\.gz)?|npz)$//')
  # shellcheck disable=SC2086
  "$BIN/spperm-compile" "$m" -o "$work/pybench/$name.spp" ${BENCH_FLAGS:-} >/dev/null
  if [[ "${TRANSPOSES:-0}" == 1 ]]; then
    mkdir -p "$work/pybench_t"
    (cd "$ROOT/python/tests" && "$PY" -c "
import sys, spperm
a = spperm.read_matrix(sys.argv[1])
for m, out, name in ((a, sys.argv[2], 'weight'), (a.T.tocsr(), sys.argv[3], 'weight_t')):
    spperm.compile(m, name=name, in_place_b='auto').save(out)
" "$m" "$work/pybench_t/$name.spp" "$work/pybench_t/$name.t.spp")
  fi
done
tar cJf "$DEST/pypk.tar.xz" -C "$work" pypk
tar cJf "$DEST/pybench.tar.xz" -C "$work" pybench $([[ -d "$work/pybench_t" ]] && echo pybench_t)
du -sh "$DEST/deps" "$DEST/pypk.tar.xz" "$DEST/pybench.tar.xz"
