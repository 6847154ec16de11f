#!/usr/bin/env bash
# Session 41's machine call (README.md here): the xs prototype
# (tools/lab/xs_proto.cu) on the 8 SparseLinear layers, and in the same
# call bench_sparse_linear.py on their packages (the row-major call and
# SparseLinear today). Carry .gpu/deps, .gpu/pypk.tar.xz,
# .gpu/pybench.tar.xz (tools/scripts/gpu_python_prepare.sh) and .gpu/mats
# (the 8 matrix files).
#   OUT=DIR XS_LIMIT=SECONDS bash docs/results/xs-2026-12-02-s41/device.sh
set -uo pipefail
O=${OUT:?}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >"$O/gpu.txt"
(cd tools/lab && nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/xs_proto xs_proto.cu) \
  >"$O/nvcc.log" 2>&1 &
SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps PYTEST=0 OUT="$O/py" \
  bash tools/scripts/gpu_python.sh >"$O/py.log" 2>&1
echo "gpu_python rc=$?" >>"$O/py.log"
wait
XS_KINDS="${XS_KINDS:-0,5}" timeout "${XS_LIMIT:-300}" /tmp/xs_proto .gpu/mats/* >"$O/xs.log" 2>&1
echo "xs_proto rc=$?" >>"$O/xs.log"
