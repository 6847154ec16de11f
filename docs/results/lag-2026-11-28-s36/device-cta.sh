#!/bin/bash
# On the GPU machine, with .gpu/deps and .gpu/cta.tar.xz (merge-cta.sh):
# checks and times the four kinds at K = 1, 32, 64, 128, 512, the two of
# each pair in one machine session. Writes $OUT/cta.tar.xz.
set -uo pipefail
W=/tmp/w; mkdir -p $W
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
ARCHIVE=$PWD/.gpu/cta.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
KS=${KS:-1,32,64,128,512}
bash tools/scripts/gpu_kinds.sh build-gpu/suite-work/suite $W/k \
  f32old:$KS:$KS f32new:$KS:$KS bf16old:$KS:$KS bf16new:$KS:$KS > $W/kinds.log 2>&1
cat $W/kinds.log
cd /tmp && tar -cJf $OUT/cta.tar.xz w
