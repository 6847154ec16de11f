#!/usr/bin/env bash
# Session 60's first machine call, from the repository root, carrying .gpu
# (.gpu/deps from tools/scripts/gpu_prepare.sh, .gpu/pkgs2 as in
# ../hbp-2026-12-05-s59/device-k.sh):
#  1. ../hbp-2026-12-05-s59/device-k.sh: hbp packages with a fixed K and
#     with 16-bit operands, checked against float64 and from 8 streams.
#  2. Nsight Compute on the hbp kernel of bcsstk13 at K = 32 (the --k 32
#     package): speed of light, occupancy, warp state and stall reasons,
#     memory and atomics, to tell the add_sign chain's latency from the
#     ticket traffic.
#   OUT=DIR bash docs/results/hbp-2026-12-05-s60/device.sh
set -uo pipefail
O=${OUT:?}
bash docs/results/hbp-2026-12-05-s59/device-k.sh
echo "device-k rc=$?"
B=build-gpu
cmake --build $B -j 16 --target spperm-run >"$O/build-run.log" 2>&1
echo "spperm-run build rc=$?"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SECT=(--section SpeedOfLight --section Occupancy --section LaunchStats
      --section WarpStateStats --section SchedulerStats
      --section MemoryWorkloadAnalysis --section SourceCounters --print-details all)
STALL='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
COMMON=(--cache-control none --clock-control none)
python3 -c 'import numpy as np; np.save("'$B'/b32.npy", np.random.default_rng(1).uniform(-1, 1, (2003, 32)).astype("<f4"))'
P=.gpu/pkgs2/bcsstk13.hbp.k32.spp
$B/bin/spperm-run $P --device gpu --b $B/b32.npy --bench --baseline cusparse --warmup 5 --runs 50 >"$O/run-k32.txt" 2>&1
cat "$O/run-k32.txt"
"$NCU" "${COMMON[@]}" "${SECT[@]}" -k regex:l0_hbp --launch-skip 2 --launch-count 1 \
  $B/bin/spperm-run $P --device gpu --b $B/b32.npy --bench --warmup 3 --runs 2 >"$O/ncu-hbp-k32.txt" 2>&1
"$NCU" "${COMMON[@]}" --metrics "$STALL" -k regex:l0_hbp --launch-skip 2 --launch-count 1 \
  $B/bin/spperm-run $P --device gpu --b $B/b32.npy --bench --warmup 3 --runs 2 >"$O/stall-hbp-k32.txt" 2>&1
grep -E "Duration|Elapsed Cycles|SM Busy|Achieved Occupancy|Registers Per|Grid Size|Block Size|Theoretical Occ|Memory Throughput|L2 Hit" "$O/ncu-hbp-k32.txt" | head -30
sort -t' ' -k3 -g "$O/stall-hbp-k32.txt" | grep ratio | awk '$NF+0 > 0.05' | tail -12
