#!/bin/bash
# On the GPU machine, with .gpu/deps and .gpu/tc2.tar.xz (prep2.sh, then
# merge2.sh): checks and times the three kinds (old, cga, caa) of bf16
# packages at every K, --k 32 at 32 and forced bell at every K; calls the
# new forced-bell packages of block-64k and banded-128k-w32 from 8 threads
# with a stream each; memcheck and racecheck on block-16k's. Writes
# $OUT/tc2.tar.xz.
set -uo pipefail
W=/tmp/w; mkdir -p $W
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
ARCHIVE=$PWD/.gpu/tc2.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
tail -3 $W/suite.log
KS=1,32,64,128,512
bash tools/scripts/gpu_kinds.sh build-gpu/suite-work/suite $W/k \
  bf16old:$KS:$KS bf16cga:$KS:$KS bf16caa:$KS:$KS bbold:$KS:$KS bbcga:$KS:$KS bbcaa:$KS:$KS \
  bk32old:32:32 bk32cga:32:32 bk32caa:32:32 > $W/kinds.log 2>&1
tail -9 $W/kinds.log
S=build-gpu/suite-work/suite/kinds
for T in cga caa; do
  for p in $S/bb$T/block-64k*.spp $S/bb$T/banded-128k*.spp; do
    build-gpu/bin/spperm-verify $p --k 32,64,128 --threads 8 --calls 30 > $W/threads.$(basename $p).log 2>&1
    echo "threads $(basename $p) rc=$?" | tee -a $W/threads.txt
  done
  for p in $S/bb$T/block-16k-*.spp; do
    for tool in memcheck racecheck; do
      compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/bin/spperm-verify $p --k 32,128 --jobs 1 \
        > $W/san.$tool.$(basename $p).log 2>&1; echo "$tool $(basename $p) rc=$?" | tee -a $W/san.txt
    done
  done
done
cd /tmp && tar -cJf $OUT/tc2.tar.xz w
