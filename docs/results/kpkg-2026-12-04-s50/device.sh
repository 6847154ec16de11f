#!/bin/bash
# On the GPU machine, with .gpu/deps and .gpu/kpkg.tar.xz (prep.sh): builds
# the runtime, runs RuntimeTests (gpu_suite.sh, no sets), then checks each
# kind of package at its K values against float64 (poisoned C) and times
# it there (gpu_kinds.sh; SPPERM_LOG_CHOICES=1 logs the runtime's
# first-call choices). Writes $OUT/logs.tar.xz.
set -uo pipefail
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
W=$OUT/w; mkdir -p $W
ARCHIVE=$PWD/.gpu/kpkg.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
grep -E "PASSED|FAILED|failures" $W/suite.log | tail -3
G=tools/scripts/gpu_kinds.sh; SUITE=build-gpu/suite-work/suite
LIMIT=90 bash $G $SUITE $W/k auto.auto:1,32,36,128,200,512,520:32,128,512 \
  k32:32:32 k128:128:128 k512:512:512 bf16k32:32:32 bf16k128:128:128 bf16k512:512:512 2>&1 | tee $W/kinds.log
nvidia-smi --query-gpu=name,driver_version --format=csv > $W/gpu.txt 2>&1
tar -C $OUT -cJf $OUT/logs.tar.xz w && rm -rf $W
