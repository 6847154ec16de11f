#!/bin/bash
# On the GPU machine, with .gpu/deps and .gpu/k16.tar.xz (prep.sh, then
# ../direct-2026-11-28-s35/merge.sh): checks every package (gpu_suite.sh),
# then times old against new: f16 at every K, bf16 --k 128 at 128 and
# --k 512 at 512 (gpu_kinds.sh); the new f16 package of a DLMC ffn layer
# (its tensor-core twin chosen at K >= 32) from 8 threads with a stream
# each, and under compute-sanitizer memcheck / racecheck. Writes
# $OUT/k16.tar.xz.
set -uo pipefail
W=/tmp/w; mkdir -p $W
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
ARCHIVE=$PWD/.gpu/k16.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
tail -3 $W/suite.log
KS=1,32,64,128,512
bash tools/scripts/gpu_kinds.sh build-gpu/suite-work/suite $W/k \
  f16old:$KS:$KS f16new:$KS:$KS bk128old:128:128 bk128new:128:128 \
  bk512old:512:512 bk512new:512:512 > $W/kinds.log 2>&1
tail -9 $W/kinds.log
S=build-gpu/suite-work/suite/kinds
for p in $S/f16new/*encoder_layer_0_ffn_conv1*.spp $S/f16new/block-16k*.spp; do
  build-gpu/bin/spperm-verify $p --k 32,64,128 --threads 8 --calls 30 > $W/threads.$(basename $p).log 2>&1
  echo "threads $(basename $p) rc=$?" | tee -a $W/threads.txt
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/bin/spperm-verify $p --k 32,128 --jobs 1 \
      > $W/san.$tool.$(basename $p).log 2>&1; echo "$tool $(basename $p) rc=$?" | tee -a $W/san.txt
  done
done
cd /tmp && tar -cJf $OUT/k16.tar.xz w
