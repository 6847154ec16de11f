#!/bin/bash
# On the GPU machine, with .gpu/deps and .gpu/k.tar.xz (prep-k.sh, then
# ../direct-2026-11-28-s35/merge.sh): checks and times the pairs at their
# K, memcheck on one. Writes $OUT/k.tar.xz.
set -uo pipefail
W=/tmp/w; mkdir -p $W
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
ARCHIVE=$PWD/.gpu/k.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
tail -3 $W/suite.log
bash tools/scripts/gpu_kinds.sh build-gpu/suite-work/suite $W/k \
  bk40old:40:40 bk40new:40:40 bk96old:96:96 bk96new:96:96 > $W/kinds.log 2>&1
tail -4 $W/kinds.log
S=build-gpu/suite-work/suite/kinds
for p in $S/bk40new/skewed-16k.*.spp; do
  compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/bin/spperm-verify $p --k 40 --jobs 1 \
    > $W/san.$(basename $p).log 2>&1; echo "memcheck $(basename $p) rc=$?" | tee -a $W/san.txt
done
cd /tmp && tar -cJf $OUT/k.tar.xz w
