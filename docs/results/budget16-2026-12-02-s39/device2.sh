#!/bin/bash
# On the GPU machine, with .gpu/deps and .gpu/whole.tar.xz (prep2.sh, then
# merge.sh: the 8 layers of the set whose bf16 variants the 16-bit storage
# changes): checks (RuntimeTests of this tree included, gpu_suite.sh) and
# times old against new at every K; the new block-64k package (own variant
# Blocked-ELL, its bell-bf16 twin) from 8 threads with a stream each and
# under compute-sanitizer memcheck / racecheck. Writes $OUT/whole.tar.xz.
set -uo pipefail
W=/tmp/w; mkdir -p $W
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
ARCHIVE=$PWD/.gpu/whole.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
grep -E "tests ran|PASSED|FAILED|failures" $W/suite.log | tail -4
KS=1,32,64,128,512
bash tools/scripts/gpu_kinds.sh build-gpu/suite-work/suite $W/k \
  bf16old:$KS:$KS bf16new:$KS:$KS > $W/kinds.log 2>&1
tail -3 $W/kinds.log
S=build-gpu/suite-work/suite/kinds
for p in $S/bf16new/block-64k*.spp $S/bf16new/stencil-2d9*.spp; do
  build-gpu/bin/spperm-verify $p --k 32,64,128 --threads 8 --calls 30 > $W/threads.$(basename $p).log 2>&1
  echo "threads $(basename $p) rc=$?" | tee -a $W/threads.txt
done
for p in $S/bf16new/block-64k*.spp; do
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/bin/spperm-verify $p --k 32,128 --jobs 1 \
      > $W/san.$tool.$(basename $p).log 2>&1; echo "$tool $(basename $p) rc=$?" | tee -a $W/san.txt
  done
done
cd /tmp && tar -cJf $OUT/whole.tar.xz w
