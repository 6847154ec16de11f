#!/usr/bin/env bash
# Session 61's seventh machine call: two vectors a lane in the rounds walk
# of parts above K = 32 when the parts stay under their cap (the planner's
# rule after d92d2ee). .gpu/x2 holds the packages whose PTX that rule
# changes — cora, tfm, rn50 (any K and --k 128) — and cora in bf16, made
# by this checkout's build/bin/spperm-compile as prepare5.sh makes
# .gpu/new (their data.bin left out but cora.bf16's); carries .gpu/deps,
# .gpu/base, .gpu/new, .gpu/x2.
#  1. float64 checks (any K at K = 1, 5, 32, 33, 36, 64, 100, 128, 130,
#     512; fixed K at its K), 8 threads on their own streams; memcheck and
#     racecheck on cora;
#  2. spperm-run --bench (median of 20 after 5 warm-ups), .gpu/new (d92d2ee)
#     against .gpu/x2 at K = 36, 64, 128, and the --k 128 packages.
#   OUT=DIR bash docs/results/hbp-parts-2026-12-05-s61/device6.sh
set -uo pipefail
O=${OUT:?}
. docs/results/hbp-parts-2026-12-05-s61/restore.sh spperm-verify spperm-run
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
V=$B/bin/spperm-verify R=$B/bin/spperm-run
for p in .gpu/x2/*.spp; do
  case $p in *.k[0-9]*) ks=() ;; *) ks=(--k 1,5,32,33,36,64,100,128,130,512) ;; esac
  timeout 120 $V "$p" --device gpu "${ks[@]}" --jobs 1 --threads 8 --calls 8 2>&1
done >"$O/verify.log"
grep -E "^summary|FAIL|concurrent" "$O/verify.log" | cut -c1-200 | sort | uniq -c | sort -rn | head -8
grep -c FAIL "$O/verify.log"
CS=/usr/local/cuda/bin/compute-sanitizer
{ timeout 150 "$CS" --tool memcheck --error-exitcode 3 \
    $V .gpu/x2/cora.spp --device gpu --k 36,128 --jobs 1 2>&1 | tail -2
  echo "memcheck rc=${PIPESTATUS[0]}"
  timeout 150 "$CS" --tool racecheck --kernel-name "regex=^l[0-9]+_" --error-exitcode 3 \
    $V .gpu/x2/cora.spp --device gpu --k 64 --jobs 1 --threads 4 --calls 4 2>&1 | tail -2
  echo "racecheck rc=${PIPESTATUS[0]}"; } >"$O/san.log" 2>&1
grep -E "rc=" "$O/san.log"
for name in cora tfm rn50; do
  cols=$(python3 -c "import json;print(json.load(open('.gpu/base/$name.spp/manifest.json'))['layers'][0]['cols'])")
  for K in 36 64 128; do
    python3 -c "import numpy as np; np.save('$B/b.npy', np.random.default_rng(1).uniform(-1, 1, ($cols, $K)).astype('<f4'))"
    for r in 1 2; do bench new $name $K; bench x2 $name $K; done
    if [ $K = 128 ]; then for r in 1 2; do bench new $name.k128 $K; bench x2 $name.k128 $K; done; fi
  done
done | tee "$O/bench.txt"
rm -f "$O/run.txt"
