#!/usr/bin/env bash
# Session 61's second machine call (the part length chosen by the
# planner's rule): hbp warps that run one warp group walk a part
# of its rounds (prepare2.sh makes the packages; carries .gpu/deps,
# .gpu/base, .gpu/new).
#  1. float64 checks of every new package (any K at K = 1, 5, 32, 33, 36,
#     64, 128, 130, 512; fixed K at its K), then 8 threads on their own
#     streams;
#  2. compute-sanitizer memcheck and racecheck on new bcsstk13 and skewed;
#  3. spperm-run --bench (median of 20 after 5 warm-ups), base / new in
#     turn for each matrix and K = 1, 32, 64, 128, 512 (any K), base /
#     new for the fixed-K packages at their K, the best cuSPARSE algorithm
#     once per matrix and K.
#   OUT=DIR bash docs/results/hbp-parts-2026-12-05-s61/device2.sh
set -uo pipefail
O=${OUT:?}
. docs/results/hbp-parts-2026-12-05-s61/restore.sh spperm-verify spperm-run
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
V=$B/bin/spperm-verify R=$B/bin/spperm-run
for d in new; do
  for p in .gpu/$d/*.spp; do
    case $p in *.k[0-9]*) ks=() ;; *) ks=(--k 1,5,32,33,36,64,128,130,512) ;; esac
    timeout 90 $V "$p" --device gpu "${ks[@]}" --jobs 1 --threads 8 --calls 12 2>&1
  done
done >"$O/verify.log"
grep -E "^summary|FAIL|concurrent" "$O/verify.log" | cut -c1-200 | sort | uniq -c | sort -rn | head -20
grep -c FAIL "$O/verify.log"
CS=/usr/local/cuda/bin/compute-sanitizer
for p in .gpu/new/bcsstk13.spp .gpu/new/skewed.spp; do
  echo "== $p"
  timeout 100 "$CS" --tool memcheck --error-exitcode 3 \
    $V "$p" --device gpu --k 1,5,32,128 --jobs 1 2>&1 | tail -2
  echo "memcheck rc=${PIPESTATUS[0]}"
  timeout 100 "$CS" --tool racecheck --kernel-name "regex=^l[0-9]+_" --error-exitcode 3 \
    $V "$p" --device gpu --k 8,32 --jobs 1 --threads 4 --calls 8 2>&1 | tail -2
  echo "racecheck rc=${PIPESTATUS[0]}"
done >"$O/san.log" 2>&1
grep -E "==|rc=" "$O/san.log"
for name in bcsstk13 cora tfm rn50 skewed; do
  cols=$(python3 -c "import json;print(json.load(open('.gpu/new/$name.spp/manifest.json'))['layers'][0]['cols'])")
  for K in 1 32 64 128 512; do
    python3 -c "import numpy as np; np.save('$B/b.npy', np.random.default_rng(1).uniform(-1, 1, ($cols, $K)).astype('<f4'))"
    bench base $name $K
    bench new $name $K --baseline cusparse
    if [ -d .gpu/new/$name.k$K.spp ]; then bench base $name.k$K $K; bench new $name.k$K $K; fi
  done
done | tee "$O/bench.txt"
rm -f "$O/run.txt"
