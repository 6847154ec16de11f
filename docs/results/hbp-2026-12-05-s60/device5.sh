#!/usr/bin/env bash
# Session 60's last machine call (after device2.sh): the walk chosen per
# variant (batched rounds for K <= 128 on formats with long groups, the
# chain otherwise). The any-K packages of prepare.sh checked against
# float64 at K = 1, 5, 32, 128, 130, 512 (every variant: spmv, vec4,
# vec4.wide, scalar, scalar.wide) and from 8 threads on their own streams,
# then the old/new benchmark of device2.sh. Carries .gpu/deps, .gpu/new,
# .gpu/old.
#   OUT=DIR bash docs/results/hbp-2026-12-05-s60/device5.sh
set -uo pipefail
O=${OUT:?}
. docs/results/hbp-2026-12-05-s60/runtime.sh spperm-verify spperm-run
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
V=$B/bin/spperm-verify R=$B/bin/spperm-run
for p in bcsstk13 bcsstk13.bf16 tfm cora rn50 skewed uniform; do
  timeout 60 $V .gpu/new/$p.spp --device gpu --k 1,5,32,128,130,512 --jobs 1 --threads 8 --calls 12 2>&1
done >"$O/verify.log"
grep -E "^summary|FAIL|concurrent" "$O/verify.log" | cut -c1-160
for name in bcsstk13 tfm cora rn50 skewed uniform; do
  cols=$(python3 -c "import json;print(json.load(open('.gpu/new/$name.spp/manifest.json'))['layers'][0]['cols'])")
  for K in 1 32 128 512; do
    python3 -c "import numpy as np; np.save('$B/b.npy', np.random.default_rng(1).uniform(-1, 1, ($cols, $K)).astype('<f4'))"
    for v in old new; do
      timeout 30 $R .gpu/$v/$name.spp --device gpu --b $B/b.npy --bench --warmup 5 --runs 20 >"$O/run.txt" 2>&1
      echo "$name K=$K $v spperm_ms=$(awk '$1 == "spperm" {print $2}' "$O/run.txt")"
    done
  done
done | tee "$O/bench.txt"
rm -f "$O/run.txt"
