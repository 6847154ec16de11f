#!/bin/bash
# On the GPU machine, with .gpu/deps and .gpu/rule.tar.xz (prep-rule.sh,
# then ../direct-2026-11-28-s35/merge.sh): checks every package (the
# suite), times the pairs (bf16 and f16 at every K, --k 64 and --k 128 at
# theirs), calls each new package from 8 threads with a stream each, and
# runs memcheck on two. Writes $OUT/rule.tar.xz.
set -uo pipefail
W=/tmp/w; mkdir -p $W
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
ARCHIVE=$PWD/.gpu/rule.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
tail -3 $W/suite.log
KS=1,32,64,128,512
bash tools/scripts/gpu_kinds.sh build-gpu/suite-work/suite $W/k \
  bf16old:$KS:$KS bf16new:$KS:$KS f16old:$KS:$KS f16new:$KS:$KS \
  bk64old:64:64 bk64new:64:64 bk128old:128:128 bk128new:128:128 > $W/kinds.log 2>&1
tail -8 $W/kinds.log
S=build-gpu/suite-work/suite/kinds
for p in $S/bf16new/*.spp; do
  build-gpu/bin/spperm-verify $p --k 32,64,128 --threads 8 --calls 30 > $W/threads.$(basename $p).log 2>&1
  echo "threads $(basename $p) rc=$?" | tee -a $W/threads.txt
done
for p in $S/bf16new/rmat-s18e16.*.spp $S/bk64new/suitesparse__Maragal_6.*.spp; do
  compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/bin/spperm-verify $p --k 64,128 --jobs 1 \
    > $W/san.$(basename $p).log 2>&1; echo "memcheck $(basename $p) rc=$?" | tee -a $W/san.txt
done
cd /tmp && tar -cJf $OUT/rule.tar.xz w
