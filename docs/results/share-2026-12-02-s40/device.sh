#!/bin/bash
# On the GPU machine, with .gpu/deps and .gpu/w.tar.xz (the whole half set's
# fp32 and bf16 packages from this session's compiler, which leaves out the
# kernels no variant launches: ../budget16-2026-12-02-s39/prep3.sh): builds
# the runtime (variants that take the same arrays share one upload) and runs
# RuntimeTests (gpu_suite.sh, no sets); moves each kind's packages into
# kinds/KIND, checking them at K = 1 where CHECK1=1 (call 1; call 2 skipped
# it); then checks and times both kinds at K = $K, each kind within $LIMIT
# s. Writes under $OUT/w$K as it goes. Call 1: K=128 CHECK1=1 LIMIT=175;
# call 2: K=512 CHECK1=0 LIMIT=230.
set -uo pipefail
K=${K:-128}
W=$OUT/w$K; mkdir -p $W/k
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
ARCHIVE=$PWD/.gpu/w.tar.xz SETS=none OUT=$W/suite bash tools/scripts/gpu_suite.sh > $W/suite.log 2>&1
grep -E "PASSED|FAILED|failures" $W/suite.log | tail -3
G=tools/scripts/gpu_kinds.sh; SUITE=build-gpu/suite-work/suite
if [[ ${CHECK1:-1} == 1 ]]; then
  bash $G $SUITE $W/k1 auto.auto:1 bf16:1 > $W/kinds.log 2>&1
  tail -2 $W/kinds.log
else
  VERIFY=/bin/true bash $G $SUITE $W/moved auto.auto:1 bf16:1 > $W/kinds.log 2>&1
fi
for kind in auto.auto bf16; do
  timeout ${LIMIT:-175} build-gpu/bin/spperm-verify $SUITE/kinds/$kind --device gpu --k $K --jobs 14 \
    --bench $K --max-bench-ms 50 > $W/k/$kind.k$K.verify.log 2>&1
  echo "$kind K=$K rc=$?: $(grep '^summary' $W/k/$kind.k$K.verify.log) $(grep -c '^bench' $W/k/$kind.k$K.verify.log) timed"
done
