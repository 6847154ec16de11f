#!/bin/bash
# On the GPU machine, with .gpu/deps and .gpu/w.tar.xz (prep-k.sh): builds
# the runtime (gpu_suite.sh, no sets), then checks and times each --k kind
# at its own K, within $LIMIT s a kind. Writes under $OUT/wk as it goes.
set -uo pipefail
W=$OUT/wk; mkdir -p $W
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
ARCHIVE=$PWD/.gpu/w.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
grep -E "PASSED|FAILED|failures" $W/suite.log | tail -3
LIMIT=${LIMIT:-90} bash tools/scripts/gpu_kinds.sh build-gpu/suite-work/suite $W/k \
  f32k32:32:32 bf16k32:32:32 f32k64:64:64 bf16k64:64:64
