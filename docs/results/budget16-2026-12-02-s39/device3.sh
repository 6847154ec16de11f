#!/bin/bash
# On the GPU machine, with .gpu/deps and .gpu/w.tar.xz (prep3.sh): the whole
# half-precision set's fp32 and bf16 packages checked at K = 32 and timed
# at K = 32 and 64 (the K where issue 30's bf16 / fp32 target was open),
# then at K = 128 while the call's time lasts. Writes $OUT/w.tar.xz.
set -uo pipefail
W=/tmp/w; mkdir -p $W
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
ARCHIVE=$PWD/.gpu/w.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
grep -E "PASSED|FAILED|failures" $W/suite.log | tail -3
bash tools/scripts/gpu_kinds.sh build-gpu/suite-work/suite $W/k \
  auto.auto:32:32,64 bf16:32:32,64 > $W/kinds.log 2>&1
tail -2 $W/kinds.log
S=build-gpu/suite-work/suite/kinds
for kind in auto.auto bf16; do
  timeout 100 build-gpu/bin/spperm-verify $S/$kind --device gpu --k 128 --jobs 14 --bench 128 --max-bench-ms 50 \
    > $W/k/$kind.k128.verify.log 2>&1
  echo "$kind K=128 rc=$?: $(grep '^summary' $W/k/$kind.k128.verify.log)"
done
cd /tmp && tar -cJf $OUT/w.tar.xz w
