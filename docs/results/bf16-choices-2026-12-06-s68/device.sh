#!/usr/bin/env bash
# On the device, .gpu/deps and one archive of prepare.sh carried:
#   NAME=s1 ARCHIVE=.gpu/b16-S1.tar.xz bash device.sh
# The s67 record's device.sh (gpu_suite.sh's main set) with RUNS=10 and
# the runtime's choices logged (SPPERM_LOG_CHOICES=1: each first call's
# timings of the variants and of the library it checked against), checked
# at K = 32 and timed at K = 32, 64, 128, 512. One package at a time
# (MAIN_JOBS=1, gpu_suite.sh's default; the s67 script's 4 ran the calls
# s1 and s2: 166 and 133 s of checks and timings, against 20 s for S1
# with 1, call j1).
set -u
HERE=$(dirname "$0")
MAIN_JOBS="${MAIN_JOBS:-1}" SPPERM_LOG_CHOICES=1 RUNS="${RUNS:-10}" KS="${KS:-32}" \
  BENCH_KS="${BENCH_KS:-32,64,128,512}" \
  bash "$HERE/../bf16-shared-2026-12-06-s67/device.sh"
xz -dc "$OUT/$NAME/verify.log.xz" | grep -c "^spperm: layer" | sed "s/^/choice lines: /"
