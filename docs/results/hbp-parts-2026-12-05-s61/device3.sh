#!/usr/bin/env bash
# Session 61's fourth machine call: vectors of 4 columns a lane in the
# chain walk above K = 128 (prepare3.sh makes the packages; carries
# .gpu/deps, .gpu/base, .gpu/u1, .gpu/u2, .gpu/u4, .gpu/u8).
#  1. float64 checks of the u2, u4 and u8 packages at K = 1, 32, 128, 132,
#     256, 512, 516, then 8 threads on their own streams;
#  2. spperm-run --bench (median of 20 after 5 warm-ups), u1 / u2 / u4 / u8
#     in turn for each matrix at K = 256 and 512 (uniform also 32, 128),
#     the best cuSPARSE algorithm once per matrix and K.
#   OUT=DIR bash docs/results/hbp-parts-2026-12-05-s61/device3.sh
set -uo pipefail
O=${OUT:?}
. docs/results/hbp-parts-2026-12-05-s61/restore.sh spperm-verify spperm-run
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
V=$B/bin/spperm-verify R=$B/bin/spperm-run
for d in u2 u4 u8; do
  for p in .gpu/$d/*.spp; do
    timeout 120 $V "$p" --device gpu --k 1,32,128,132,256,512,516 --jobs 1 --threads 8 --calls 8 2>&1
  done
done >"$O/verify.log"
grep -E "^summary|FAIL|concurrent" "$O/verify.log" | cut -c1-200 | sort | uniq -c | sort -rn | head -8
grep -c FAIL "$O/verify.log"
for name in bcsstk13 cora tfm rn50 skewed uniform; do
  cols=$(python3 -c "import json;print(json.load(open('.gpu/u1/$name.spp/manifest.json'))['layers'][0]['cols'])")
  ks="256 512"; [ $name = uniform ] && ks="32 128 512"
  for K in $ks; do
    python3 -c "import numpy as np; np.save('$B/b.npy', np.random.default_rng(1).uniform(-1, 1, ($cols, $K)).astype('<f4'))"
    bench u1 $name $K --baseline cusparse
    bench u2 $name $K
    bench u4 $name $K
    bench u8 $name $K
  done
done | tee "$O/bench.txt"
rm -f "$O/run.txt"
