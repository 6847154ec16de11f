#!/usr/bin/env bash
# Session 61's fifth machine call (prepare4.sh makes the packages; carries
# .gpu/deps, .gpu/base, .gpu/new, .gpu/w):
#  1. float64 checks of every new and w package at K = 1, 5, 32, 33, 36,
#     64, 128, 130, 132, 256, 512, 516 (fixed K at its K), then 8 threads
#     on their own streams; compute-sanitizer memcheck on new bcsstk13;
#  2. spperm-run --bench (median of 20 after 5 warm-ups): base / new for
#     each matrix at K = 132, 256, 512 and its --k 512 package; the
#     uniform variants at K = 32, 128, 512; the best cuSPARSE algorithm
#     once per matrix and K.
#   OUT=DIR bash docs/results/hbp-parts-2026-12-05-s61/device4.sh
set -uo pipefail
O=${OUT:?}
. docs/results/hbp-parts-2026-12-05-s61/restore.sh spperm-verify spperm-run
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
V=$B/bin/spperm-verify R=$B/bin/spperm-run
for p in .gpu/new/*.spp .gpu/w/*.spp; do
  case $p in *.k[0-9]*) ks=() ;; *) ks=(--k 1,5,32,33,36,64,128,130,132,256,512,516) ;; esac
  timeout 120 $V "$p" --device gpu "${ks[@]}" --jobs 1 --threads 8 --calls 8 2>&1
done >"$O/verify.log"
grep -E "^summary|FAIL|concurrent" "$O/verify.log" | cut -c1-200 | sort | uniq -c | sort -rn | head -8
grep -c FAIL "$O/verify.log"
timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 3 \
  $V .gpu/new/bcsstk13.spp --device gpu --k 132,512 --jobs 1 >"$O/san.log" 2>&1
echo "memcheck rc=$?"; tail -2 "$O/san.log"
for name in bcsstk13 cora tfm rn50 skewed uniform; do
  cols=$(python3 -c "import json;print(json.load(open('.gpu/base/$name.spp/manifest.json'))['layers'][0]['cols'])")
  ks="132 256 512"; [ $name = uniform ] && ks="32 128 512"
  for K in $ks; do
    python3 -c "import numpy as np; np.save('$B/b.npy', np.random.default_rng(1).uniform(-1, 1, ($cols, $K)).astype('<f4'))"
    if [ $name = uniform ]; then
      bench w uniform.u2 $K --baseline cusparse
      for v in u2nt u1nt u4nt u8; do bench w uniform.$v $K; done
    else
      bench base $name $K
      bench new $name $K --baseline cusparse
      if [ $K = 512 ]; then bench base $name.k512 $K; bench new $name.k512 $K; fi
    fi
  done
done | tee "$O/bench.txt"
rm -f "$O/run.txt"
