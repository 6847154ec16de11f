#!/bin/bash
# On the GPU machine, with .gpu/deps and .gpu/split.tar.xz (prep-split.sh,
# then merge-split.sh): checks every package (the suite), times the three
# kinds of each, memcheck on two. Writes $OUT/split.tar.xz.
set -uo pipefail
W=/tmp/w; mkdir -p $W
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
ARCHIVE=$PWD/.gpu/split.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
tail -3 $W/suite.log
KS=1,32,64,128,512
bash tools/scripts/gpu_kinds.sh build-gpu/suite-work/suite $W/k \
  bf16old:$KS:$KS bf16prt:$KS:$KS bf16vec:$KS:$KS bk32old:32:32 bk32prt:32:32 bk32vec:32:32 > $W/kinds.log 2>&1
tail -8 $W/kinds.log
S=build-gpu/suite-work/suite/kinds
for p in $S/bf16prt/rmat-s18e16.*.spp $S/bf16vec/rmat-s18e16.*.spp; do
  compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/bin/spperm-verify $p --k 32,64 --jobs 1 \
    > $W/san.$(basename $p).log 2>&1; echo "memcheck $(basename $p) rc=$?" | tee -a $W/san.txt
done
cd /tmp && tar -cJf $OUT/split.tar.xz w
