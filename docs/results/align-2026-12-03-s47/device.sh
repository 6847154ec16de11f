#!/usr/bin/env bash
# Session 47: a range variant at K aligned and not (README.md here). Carry
# .gpu/deps, .gpu/pypk.tar.xz, .gpu/pybench-any.tar.xz (the 8 SparseLinear
# layers' packages for any K, default buckets) and .gpu/pybench-nob512.tar.xz
# (the same with --k-buckets 8,32,64,128,256,1024: no bucket at 512, so
# r1024 runs every K from 260 to 1,024 with K read at run time).
#   OUT=DIR KS=480,496,504,508,512,516,544 bash .../device.sh
set -uo pipefail
O=${OUT:?}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >"$O/gpu.txt"
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
for which in ${SETS:-any nob512}; do
  SPPERM_LOG_CHOICES=1 PYTEST=0 BENCH_ARGS="--ks ${KS:?}" PYBENCH=.gpu/pybench-$which.tar.xz \
    OUT="$O/$which" bash tools/scripts/gpu_python.sh >"$O/$which.log" 2>&1
  echo "$which rc=$?"
  mv "$O/$which/bench.json" "$O/$which.json" 2>/dev/null
  rm -rf "$O/$which"
done
cd "$O" || exit 1
tar cJf logs.tar.xz *.log && rm -f *.log
ls
