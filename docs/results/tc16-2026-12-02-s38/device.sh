#!/bin/bash
# On the GPU machine, with .gpu/deps and .gpu/tc.tar.xz (prep.sh, then
# ../direct-2026-11-28-s35/merge.sh): checks every package (the suite),
# times the pairs (bf16 and f16 at every K, --k 32 and --k 128 at theirs,
# bell forced at every K), calls each new bf16 package from 8 threads with
# a stream each, and runs memcheck and racecheck on two. Writes
# $OUT/tc.tar.xz.
set -uo pipefail
W=/tmp/w; mkdir -p $W
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
ARCHIVE=$PWD/.gpu/tc.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
tail -3 $W/suite.log
KS=1,32,64,128,512
bash tools/scripts/gpu_kinds.sh build-gpu/suite-work/suite $W/k \
  bf16old:$KS:$KS bf16new:$KS:$KS f16old:$KS:$KS f16new:$KS:$KS \
  bbold:$KS:$KS bbnew:$KS:$KS bk32old:32:32 bk32new:32:32 \
  bk128old:128:128 bk128new:128:128 > $W/kinds.log 2>&1
tail -12 $W/kinds.log
S=build-gpu/suite-work/suite/kinds
for p in $S/bf16new/*.spp $S/bbnew/block-64k*.spp; do
  build-gpu/bin/spperm-verify $p --k 32,64,128 --threads 8 --calls 30 > $W/threads.$(basename $p).log 2>&1
  echo "threads $(basename $p) rc=$?" | tee -a $W/threads.txt
done
for p in $S/bbnew/block-16k-*.spp $S/bbnew/banded-128k-*.spp; do
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/bin/spperm-verify $p --k 32,128 --jobs 1 \
      > $W/san.$tool.$(basename $p).log 2>&1; echo "$tool $(basename $p) rc=$?" | tee -a $W/san.txt
  done
done
cd /tmp && tar -cJf $OUT/tc.tar.xz w
