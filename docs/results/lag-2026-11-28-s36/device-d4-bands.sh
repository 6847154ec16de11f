#!/bin/bash
# device-d4.sh on .gpu/d4b.tar.xz (prep-d4-bands.sh, then the merge).
# Checks and times the pairs, then compute-sanitizer memcheck on the new
# packages. Writes $OUT/d4b.tar.xz.
set -uo pipefail
W=/tmp/w; mkdir -p $W
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
ARCHIVE=$PWD/.gpu/d4b.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
KS=1,32,64,128,512
bash tools/scripts/gpu_kinds.sh build-gpu/suite-work/suite $W/k \
  bf16old:$KS:$KS bf16new:$KS:$KS bf16k32old:32:32 bf16k32new:32:32 > $W/kinds.log 2>&1
cat $W/kinds.log
S=build-gpu/suite-work/suite/kinds
for p in $S/bf16new/*.spp $S/bf16k32new/*.spp; do
  compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/bin/spperm-verify $p --k 32,64 --jobs 1 \
    > $W/san.$(basename $p).log 2>&1; echo "memcheck $(basename $p) rc=$?" | tee -a $W/san.txt
done
cd /tmp && tar -cJf $OUT/d4b.tar.xz w
