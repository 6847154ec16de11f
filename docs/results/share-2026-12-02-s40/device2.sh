#!/bin/bash
# On the GPU machine, with .gpu/deps and .gpu/w.tar.xz (as device1.sh): builds
# the runtime (gpu_suite.sh, no sets), moves each kind's packages into
# kinds/KIND without checking them (device1.sh checked them at K = 1 and
# 128), then checks and times both kinds at K = $K, each kind within $LIMIT
# s. Writes under $OUT/w$K as it goes.
set -uo pipefail
K=${K:-512}
W=$OUT/w$K; mkdir -p $W/k
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
ARCHIVE=$PWD/.gpu/w.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
grep -E "PASSED|FAILED|failures" $W/suite.log | tail -3
VERIFY=/bin/true bash tools/scripts/gpu_kinds.sh build-gpu/suite-work/suite $W/moved auto.auto:1 bf16:1 > $W/kinds.log 2>&1
S=build-gpu/suite-work/suite/kinds
for kind in auto.auto bf16; do
  timeout ${LIMIT:-230} build-gpu/bin/spperm-verify $S/$kind --device gpu --k $K --jobs 14 --bench $K --max-bench-ms 50 \
    > $W/k/$kind.k$K.verify.log 2>&1
  echo "$kind K=$K rc=$?: $(grep '^summary' $W/k/$kind.k$K.verify.log) $(grep -c '^bench' $W/k/$kind.k$K.verify.log) timed"
done
