#!/bin/bash
# On the GPU machine, with .gpu/deps and .gpu/rowvec.tar.xz (prep-rowvec.sh,
# then ../direct-2026-11-28-s35/merge.sh): checks every package (the
# suite), times the pairs at every K and runs memcheck on two. Writes $OUT/rowvec.tar.xz.
set -uo pipefail
W=/tmp/w; mkdir -p $W
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
ARCHIVE=$PWD/.gpu/rowvec.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
tail -3 $W/suite.log
KS=1,32,64,128,512
bash tools/scripts/gpu_kinds.sh build-gpu/suite-work/suite $W/k \
  bf16old:$KS:$KS bf16new:$KS:$KS > $W/kinds.log 2>&1
tail -8 $W/kinds.log
S=build-gpu/suite-work/suite/kinds
for p in $S/bf16new/rmat-s18e16.*.spp $S/bf16new/stencil-2d9-512.*.spp; do
  compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/bin/spperm-verify $p --k 64,128 --jobs 1 \
    > $W/san.$(basename $p).log 2>&1; echo "memcheck $(basename $p) rc=$?" | tee -a $W/san.txt
done
cd /tmp && tar -cJf $OUT/rowvec.tar.xz w
