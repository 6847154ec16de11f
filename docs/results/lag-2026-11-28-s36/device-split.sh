#!/bin/bash
# On the GPU machine, with .gpu/deps and .gpu/split.tar.xz (prep-split.sh,
# then ../direct-2026-11-28-s35/merge.sh): checks and times the pairs,
# then compute-sanitizer memcheck on the new packages. Writes
# $OUT/split.tar.xz.
set -uo pipefail
W=/tmp/w; mkdir -p $W
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
ARCHIVE=$PWD/.gpu/split.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
KS=1,32,64,128,512
bash tools/scripts/gpu_kinds.sh build-gpu/suite-work/suite $W/k \
  bf16old:$KS:$KS bf16new:$KS:$KS f32old:$KS:$KS f32new:$KS:$KS > $W/kinds.log 2>&1
cat $W/kinds.log
S=build-gpu/suite-work/suite/kinds
for p in $S/bf16new/rmat-s16e16.*.spp $S/bf16new/suitesparse__Maragal_6.*.spp $S/f32new/skewed-16k.*.spp; do
  compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/bin/spperm-verify $p --k 1,32,128 --jobs 1 \
    > $W/san.$(basename $p).log 2>&1; echo "memcheck $(basename $p) rc=$?" | tee -a $W/san.txt
done
cd /tmp && tar -cJf $OUT/split.tar.xz w
