#!/usr/bin/env bash
# On the device, .gpu/deps and one archive of prepare.sh carried:
#   NAME=a ARCHIVE=.gpu/b16-A.tar.xz KS=64 BENCH_KS=64,128,512 bash device.sh
#   NAME=b1 ARCHIVE=.gpu/b16-B1.tar.xz KS=1,32,128,512 BENCH_KS=32 bash device.sh
# gpu_suite.sh's main set over the archive's packages: checked at KS
# (every shortlist alternative), timed at BENCH_KS with RUNS runs
# against cuSPARSE and dense cuBLASLt at bf16, paired.
set -u
O=${OUT:?}
N=${NAME:?}
ARCHIVE=$PWD/${ARCHIVE:?} SETS=main GEN=0 KS="${KS:?}" BENCH_KS="${BENCH_KS:?}" \
  RUNS="${RUNS:-3}" MAIN_JOBS="${MAIN_JOBS:-4}" \
  SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps OUT=$O/$N \
  timeout "${LIMIT:-560}" bash tools/scripts/gpu_suite.sh >"$O/$N.out" 2>&1
echo "$N rc=$?"
cp "$O/$N/summary.txt" "$O/summary-$N.txt"
grep -E "verified in|checks|^FAIL|PASSED|FAILED|packages:" "$O/summary-$N.txt" | head -20
