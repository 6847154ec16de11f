#!/usr/bin/env bash
# Session 53's machine call: the runtime-only build and RuntimeTests
# (gpu_suite.sh with SETS=none), then spperm-verify on the GPU over
# packages with shards and with a `rows` range of their source (.gpu/vpk,
# made here: see README.md), every check and --threads, and --bench (a
# sharded layer is not timed, and says so).
#   carry: .gpu/deps .gpu/vpk
#   OUT=DIR bash docs/results/verify-shards-2026-12-04-s53/device.sh
set -uo pipefail
O=${OUT:?}
nvidia-smi --query-gpu=name,driver_version --format=csv >"$O/gpu.txt"
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
OUT="$O/suite" SETS=none bash tools/scripts/gpu_suite.sh >"$O/suite.log" 2>&1
echo "suite rc=$?" >>"$O/suite.log"
grep -E "PASSED|FAILED|rc=" "$O/suite.log" | head
V=build-gpu/bin/spperm-verify
$V .gpu/vpk --device gpu --k 1,32,128,200,512 >"$O/verify.log" 2>&1
echo "verify rc=$?" >>"$O/verify.log"
$V .gpu/vpk --device gpu --k 1,32,512 --threads 4 --calls 40 >"$O/threads.log" 2>&1
echo "threads rc=$?" >>"$O/threads.log"
$V .gpu/vpk --device gpu --k 32 --bench 32 >"$O/bench.log" 2>&1
echo "bench rc=$?" >>"$O/bench.log"
tail -n 8 "$O/verify.log" "$O/threads.log" "$O/bench.log"
grep -c "^FAIL" "$O/verify.log" "$O/threads.log"
