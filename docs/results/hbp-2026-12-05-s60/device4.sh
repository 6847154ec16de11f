#!/usr/bin/env bash
# Session 60's fourth machine call: every kernel (and its duration) that
# one hbp call launches, old and new, for rn50 and bcsstk13 at K = 1 and
# 32, with the caches and clocks as they are (ncu --cache-control none
# --clock-control none), and nsys's summary where nsys exists. Carries
# .gpu/deps, .gpu/new, .gpu/old.
#   OUT=DIR bash docs/results/hbp-2026-12-05-s60/device4.sh
set -uo pipefail
O=${OUT:?}
. docs/results/hbp-2026-12-05-s60/runtime.sh spperm-run
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
echo "nsys: $(command -v nsys || ls /usr/local/cuda/bin/nsys 2>/dev/null || echo none)"
for name in rn50 bcsstk13; do
  cols=$(python3 -c "import json;print(json.load(open('.gpu/new/$name.spp/manifest.json'))['layers'][0]['cols'])")
  for K in 1 32; do
    python3 -c "import numpy as np; np.save('$B/b.npy', np.random.default_rng(1).uniform(-1, 1, ($cols, $K)).astype('<f4'))"
    for v in old new; do
      echo "== $name K=$K $v"
      "$NCU" --cache-control none --clock-control none --metrics gpu__time_duration.sum,sm__cycles_active.max,smsp__inst_executed.sum \
        $B/bin/spperm-run .gpu/$v/$name.spp --device gpu --b $B/b.npy --bench --warmup 2 --runs 3 2>&1 |
        grep -E "^  [a-zA-Z_0-9]+.*\(|gpu__time|cycles_active|inst_executed|^spperm " | sed 's/  */ /g' | tail -13
    done
  done
done 2>&1 | tee "$O/kernels.txt"
