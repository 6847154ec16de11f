#!/usr/bin/env bash
# Session 52's machine call (README.md here): the xe prototype
# (tools/lab/xe_proto.cu) on the 8 SparseLinear layers, and in the same
# call bench_sparse_linear.py on their packages (the row-major call and
# SparseLinear today). Carry .gpu/deps, .gpu/pypk.tar.xz,
# .gpu/pybench_fwd.tar.xz (pybench/ of tools/scripts/gpu_python_prepare.sh)
# and .gpu/mats (the 8 matrix files).
#   OUT=DIR XE_LIMIT=SECONDS bash docs/results/xe-2026-12-04-s52/device.sh
set -uo pipefail
O=${OUT:?}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >"$O/gpu.txt"
(cd tools/lab && nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/xe_proto xe_proto.cu) \
  >"$O/nvcc.log" 2>&1 &
if [[ "${BENCH:-1}" != 0 ]]; then
  SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps PYTEST=0 OUT="$O/py" \
    PYBENCH=$PWD/.gpu/pybench_fwd.tar.xz \
    bash tools/scripts/gpu_python.sh >"$O/py.log" 2>&1
  echo "gpu_python rc=$?" >>"$O/py.log"
fi
wait
timeout "${XE_LIMIT:-300}" /tmp/xe_proto .gpu/mats/* >"$O/xe.log" 2>&1
echo "xe_proto rc=$?" >>"$O/xe.log"
grep '^best' "$O/xe.log"
