#!/usr/bin/env bash
# On the device, .gpu carried (tools/scripts/gpu_prepare.sh, then
# PARTS="tc sub" ARCHIVE=.gpu/suite-ts.tar.xz tools/scripts/gpu_suite_prepare.sh):
#   bash docs/results/subnormal16-2026-12-06-s66/device.sh suite
#     RuntimeTests, the tc part's checks and timings, the sub part's checks
#     (every package: fp32, bf16 and f16; K in SUB_KS), and the four
#     compute-sanitizer tools on the sub packages of SAN_GLOB (default:
#     those new in this record: f16, and bf16 with dense tiles).
#   ARCHIVE=.gpu/all-N.tar.xz bash docs/results/subnormal16-2026-12-06-s66/device.sh all
#     (N = 1, d0, d1) the selected package of each shared matrix
#     (prepare.sh: FORMATS=" " PARTS=main, split into archives of under
#     64 MiB a call): checked at K = 1, 32, 128, 512 and timed against
#     cuSPARSE at K = 32, 128, 512.
#   NAME=b16-A ARCHIVE=.gpu/b16-A.tar.xz BENCH_KS=32 RUNS=3 device.sh all
#     the same for the bf16 selected packages (MAIN_EXTRA auto-bf16),
#     timed at K = 32 only.
set -u
O=${OUT:?}
case "${1:?suite or all}" in
suite)
  ARCHIVE=$PWD/.gpu/suite-ts.tar.xz SETS="tc sub san" \
    SAN_GLOB="${SAN_GLOB:-sub.*.f16 sub.bell-t*.bf16}" \
    SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps OUT=$O/suite \
    timeout "${LIMIT:-560}" bash tools/scripts/gpu_suite.sh >"$O/suite.out" 2>&1
  echo "suite rc=$?"
  cp "$O/suite/summary.txt" "$O/summary.txt"
  cat "$O/summary.txt"
  ;;
all)
  # NAME (all): the output folder; BENCH_KS and RUNS as gpu_suite.sh's.
  N=${NAME:-all}
  ARCHIVE=$PWD/${ARCHIVE:?} SETS=main GEN=0 KS=1,32,128,512 BENCH_KS="${BENCH_KS:-32,128,512}" \
    RUNS="${RUNS:-10}" MAIN_JOBS="${MAIN_JOBS:-4}" \
    SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps OUT=$O/$N \
    timeout "${LIMIT:-570}" bash tools/scripts/gpu_suite.sh >"$O/$N.out" 2>&1
  echo "$N rc=$?"
  cp "$O/$N/summary.txt" "$O/summary-$N.txt"
  grep -E "checks|^FAIL|PASSED|FAILED|packages:|^\| (32|128|512) " "$O/summary-$N.txt" | head -60
  ;;
esac
