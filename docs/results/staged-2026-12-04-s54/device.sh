#!/usr/bin/env bash
# Session 54's machine calls (README.md here): the in-place kernels that
# stage their row block's entries too. CHECK=1: every generated in-place
# kernel of .gpu/inplace (tools/lab/in_place_prepare.py) launched on its
# own against float64 (tools/lab/in_place_check.py, matrices in .gpu/mats),
# and the Python module's in-place tests on CUDA. Then session 43's
# benchmark calls (../inplace-2026-12-02-s43/device.sh: KS, ANY; packages
# in .gpu/pybench-k*.tar.xz and .gpu/pybench-any.tar.xz). Carry .gpu.
# Made here (at commit 6170828, which has the staged kernels):
#   python3 tools/lab/in_place_prepare.py --opt build/bin/spperm-opt \
#     --out .gpu/inplace --ks 8,32,36,128,200,512 .gpu/mats/*
#   BENCH_FLAGS="--k K --in-place-b auto" (or "--in-place-b auto") \
#     bash tools/scripts/gpu_python_prepare.sh LAYER...   (then rename
#     .gpu/pybench.tar.xz to .gpu/pybench-kK.tar.xz / pybench-any.tar.xz)
# Only 8 files come back from a call: tar the output directory.
#   OUT=DIR CHECK=1 KS="32 128 512" ANY=1,32,128,256,512 \
#     bash docs/results/staged-2026-12-04-s54/device.sh
set -uo pipefail
O=${OUT:?}
if [[ "${CHECK:-0}" == 1 ]]; then
  python3 tools/lab/in_place_check.py .gpu/inplace .gpu/mats >"$O/check.log" 2>&1
  echo "in_place_check rc=$?" | tee -a "$O/check.log"
  tail -n 1 "$O/check.log"
  KS= ANY= PYTEST_K=in_place OUT="$O" bash docs/results/inplace-2026-12-02-s43/device.sh
fi
PYTEST_K= OUT="$O" bash docs/results/inplace-2026-12-02-s43/device.sh
