#!/bin/bash
# On the GPU machine, with .gpu/deps and .gpu/w.tar.xz (the whole half set's
# fp32 and bf16 packages from this session's compiler, which leaves out the
# kernels no variant launches: ../budget16-2026-12-02-s39/prep3.sh): builds
# the runtime (variants that take the same arrays share one upload) and runs
# RuntimeTests, checks both kinds at K = 1, then checks and times them at
# K = $K, each kind within $LIMIT s. Writes under $OUT/w$K as it goes.
set -uo pipefail
K=${K:-128}
W=$OUT/w$K; mkdir -p $W/k
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
ARCHIVE=$PWD/.gpu/w.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
grep -E "PASSED|FAILED|failures" $W/suite.log | tail -3
# gpu_kinds.sh moves each kind into kinds/KIND; it checks at K = 1 only, so
# that the timed runs below have their own limit per kind.
bash tools/scripts/gpu_kinds.sh build-gpu/suite-work/suite $W/k1 auto.auto:1 bf16:1 > $W/kinds.log 2>&1
tail -2 $W/kinds.log
S=build-gpu/suite-work/suite/kinds
for kind in auto.auto bf16; do
  timeout ${LIMIT:-175} build-gpu/bin/spperm-verify $S/$kind --device gpu --k $K --jobs 14 --bench $K --max-bench-ms 50 \
    > $W/k/$kind.k$K.verify.log 2>&1
  echo "$kind K=$K rc=$?: $(grep '^summary' $W/k/$kind.k$K.verify.log)"
done
