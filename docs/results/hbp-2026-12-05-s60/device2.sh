#!/usr/bin/env bash
# Session 60's second machine call, from the repository root, carrying
# .gpu/deps, .gpu/new and .gpu/old (prepare.sh):
#  1. every new hbp package checked against float64 (any-K packages at
#     K = 1, 5, 8, 32, 128, 512; fixed-K ones at their K), then called from
#     8 threads, each on its own stream;
#  2. compute-sanitizer memcheck and racecheck on three of them;
#  3. spperm-run --bench (median of 20 after 5 warm-ups) of the old and the
#     new kernels at K = 1, 32, 128, 512, with the best cuSPARSE algorithm.
#   OUT=DIR bash docs/results/hbp-2026-12-05-s60/device2.sh
set -uo pipefail
O=${OUT:?}
. docs/results/hbp-2026-12-05-s60/runtime.sh spperm-verify spperm-run
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
V=$B/bin/spperm-verify R=$B/bin/spperm-run
for p in .gpu/new/*.spp; do
  ks=()
  grep -q '"k": 0' "$p/manifest.json" && ks=(--k 1,5,8,32,128,512)
  timeout 120 $V "$p" --device gpu "${ks[@]}" --jobs 1 --threads 8 --calls 24 2>&1
done >"$O/verify.log"
grep -E "^summary|FAIL|concurrent" "$O/verify.log" | cut -c1-200
CS=/usr/local/cuda/bin/compute-sanitizer
for p in .gpu/new/bcsstk13.spp .gpu/new/skewed.spp .gpu/new/uniform.spp; do
  echo "== $p"
  timeout 100 "$CS" --tool memcheck --error-exitcode 3 \
    $V "$p" --device gpu --k 1,5,32,128 --jobs 1 2>&1 | tail -2
  echo "memcheck rc=${PIPESTATUS[0]}"
  timeout 100 "$CS" --tool racecheck --kernel-name "regex=^l[0-9]+_" --error-exitcode 3 \
    $V "$p" --device gpu --k 8,32 --jobs 1 --threads 4 --calls 8 2>&1 | tail -2
  echo "racecheck rc=${PIPESTATUS[0]}"
done >"$O/san.log" 2>&1
grep -E "==|rc=" "$O/san.log"
for name in bcsstk13 tfm cora rn50 skewed uniform; do
  cols=$(python3 -c "import json;print(json.load(open('.gpu/new/$name.spp/manifest.json'))['layers'][0]['cols'])")
  for K in 1 32 128 512; do
    python3 -c "import numpy as np; np.save('$B/b.npy', np.random.default_rng(1).uniform(-1, 1, ($cols, $K)).astype('<f4'))"
    for v in old new; do
      base=(); [[ $v == new ]] && base=(--baseline cusparse)
      timeout 60 $R .gpu/$v/$name.spp --device gpu --b $B/b.npy --bench "${base[@]}" \
        --warmup 5 --runs 20 >"$O/run.txt" 2>&1
      spp=$(awk '$1 == "spperm" {print $2}' "$O/run.txt")
      best=$(awk '/^best cuSPARSE/ {print $3}' "$O/run.txt" | tr -d ';')
      bms=$(awk -v n="$best" '$1 == n {print $2}' "$O/run.txt")
      echo "$name K=$K $v spperm_ms=$spp ${bms:+best_cusparse_ms=$bms ($best)}"
    done
  done
done | tee "$O/bench.txt"
rm -f "$O/run.txt"
