#!/bin/bash
# On the GPU machine, with .gpu/deps and .gpu/round.tar.xz (prep.sh, then
# ../direct-2026-11-28-s35/merge.sh): checks every package (the suite),
# times the pairs, then calls each new package from 8 threads, a stream
# each (spperm-verify --threads), and runs compute-sanitizer memcheck on
# three. PART=time or PART=streams does only that half. Writes
# $OUT/round.tar.xz.
set -uo pipefail
W=/tmp/w; mkdir -p $W
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
PART=${PART:-all}
ARCHIVE=$PWD/.gpu/round.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
tail -5 $W/suite.log
S=build-gpu/suite-work/suite/kinds
if [[ $PART != streams ]]; then
  KS=1,32,64,128,512
  bash tools/scripts/gpu_kinds.sh build-gpu/suite-work/suite $W/k \
    bf16old:$KS:$KS bf16new:$KS:$KS bk32old:32:32 bk32new:32:32 f16old:$KS:$KS f16new:$KS:$KS > $W/kinds.log 2>&1
  tail -30 $W/kinds.log
fi
if [[ $PART != time ]]; then
  for p in $S/bf16new/*.spp $S/f16new/*.spp $S/bk32new/*.spp; do
    build-gpu/bin/spperm-verify $p --k 32,64,128,512 --threads 8 --calls 40 > $W/threads.$(basename $(dirname $p)).$(basename $p).log 2>&1
    echo "threads $(basename $(dirname $p))/$(basename $p) rc=$?" | tee -a $W/threads.txt
  done
  for p in $S/bf16new/rmat-s16e16.*.spp $S/bf16new/suitesparse__Maragal_6.*.spp $S/f16new/skewed-16k.*.spp; do
    compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/bin/spperm-verify $p --k 1,32,128 --jobs 1 \
      > $W/san.$(basename $p).log 2>&1; echo "memcheck $(basename $p) rc=$?" | tee -a $W/san.txt
  done
fi
cd /tmp && tar -cJf $OUT/round.tar.xz w
