#!/usr/bin/env bash
# Session 56's machine call (README.md here), from the repository root,
# carrying .gpu/deps, .gpu/mats, .gpu/inplace-a, .gpu/inplace-b, .gpu/prof.
#  1. Issue 28: the staged in-place kernel of 6170828 (.gpu/inplace-a) and
#     with balanced-rounds.patch of ../staged-2026-12-04-s54 (.gpu/inplace-b)
#     on cora and citeseer in several row orders, isolated
#     (tools/lab/in_place_check.py). Made here: the orders by
#       python make_orders.py ../shared/data/matrices/gnn .gpu/mats
#     then, with spperm-opt built at 6170828 (a) and with the patch (b),
#       tools/lab/in_place_prepare.py --opt build/bin/spperm-opt
#         --out .gpu/inplace-a|b --ks 32,128,512 (identity, lpt/bsa and
#         random orders), --ks 32 / 128 / 512 for the deal16 / deal8 /
#         deal4|2 orders (cases renumbered into one directory).
#     The packages of part 2: spperm-compile banded.mtx --dtype bf16|f32
#       --k 32 --strategy keep --format csr -o .gpu/prof/banded-D.spp.
#  2. Issue 30: Nsight Compute on the generated bf16 and fp32 csr kernels
#     (.gpu/prof/banded-{bf16,f32}.spp, spperm-run of a runtime-only build)
#     and the lab's row16d / row32d (tools/lab/mma_rows_proto.cu) on
#     banded 65,536 x w8 at K = 32: speed of light, occupancy, launch,
#     warp state (stall reasons), scheduler, memory.
#   OUT=DIR bash docs/results/order-2026-12-05-s56/device.sh
set -uo pipefail
O=${OUT:?}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >"$O/gpu.txt"
if [[ "${PART28:-1}" == 1 ]]; then
  for s in a b; do
    python3 tools/lab/in_place_check.py .gpu/inplace-$s .gpu/mats >"$O/check-$s.log" 2>&1
    echo "check $s rc=$?"
  done
fi
[[ "${PART30:-1}" == 1 ]] || exit 0
B=build-gpu
{ cmake -G Ninja -S . -B $B -DSPPERM_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH=$PWD/.gpu/deps && cmake --build $B --target spperm-run; } >"$O/build.log" 2>&1
echo "runtime build rc=$?"
nvcc -O3 -std=c++17 -arch=sm_90 -o $B/proto tools/lab/mma_rows_proto.cu >"$O/nvcc.log" 2>&1
echo "proto build rc=$?"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SECT=(--section SpeedOfLight --section Occupancy --section LaunchStats
      --section WarpStateStats --section SchedulerStats
      --section MemoryWorkloadAnalysis --print-details all)
STALL='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
COMMON=(--cache-control none --clock-control none)
python3 -c 'import numpy as np; np.save("'$B'/b.npy", np.random.default_rng(1).uniform(-1, 1, (65536, 32)).astype("<f4"))'
export SPRT_TUNING_CACHE=$PWD/$B/tuning.cache
for d in bf16 f32; do
  P=.gpu/prof/banded-$d.spp
  $B/bin/spperm-run $P --device gpu --b $B/b.npy --bench --warmup 5 --runs 50 >"$O/run-$d.txt" 2>&1
  "$NCU" "${COMMON[@]}" "${SECT[@]}" -k regex:l0_csr --launch-skip 2 --launch-count 2 \
    $B/bin/spperm-run $P --device gpu --b $B/b.npy --bench --warmup 3 --runs 2 >"$O/ncu-gen-$d.txt" 2>&1
  "$NCU" "${COMMON[@]}" --metrics "$STALL" -k regex:l0_csr --launch-skip 2 --launch-count 1 \
    $B/bin/spperm-run $P --device gpu --b $B/b.npy --bench --warmup 3 --runs 2 >"$O/stall-gen-$d.txt" 2>&1
  echo "gen $d: $(grep -c 'l0_csr' "$O/ncu-gen-$d.txt") lines"
done
PROTO_ONLY=banded-64k-w8 PROTO_K=32 $B/proto >"$O/proto.txt" 2>&1
export PROTO_ONLY=banded-64k-w8 PROTO_K=32 PROTO_RUNS=1
"$NCU" "${COMMON[@]}" "${SECT[@]}" -k regex:'row16d|row32d' --launch-count 12 $B/proto >"$O/ncu-lab.txt" 2>&1
"$NCU" "${COMMON[@]}" --metrics "$STALL" -k regex:'row16d|row32d' --launch-count 12 $B/proto >"$O/stall-lab.txt" 2>&1
echo "lab: $(grep -c 'row1[6]d\|row32d' "$O/ncu-lab.txt") lines"
cd "$O" && tar cJf ncu.tar.xz ncu-*.txt stall-*.txt run-*.txt proto.txt build.log nvcc.log && rm -f ncu-*.txt stall-*.txt run-*.txt build.log nvcc.log
