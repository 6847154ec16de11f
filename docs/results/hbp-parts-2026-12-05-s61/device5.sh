#!/usr/bin/env bash
# Session 61's last machine call: the committed code (prepare5.sh makes the
# packages; carries .gpu/deps, .gpu/base, .gpu/new, .gpu/x).
#  1. float64 checks of every new package (any K at K = 1, 5, 32, 33, 36,
#     64, 128, 130, 132, 256, 512, 516; fixed K at its K), then 8 threads
#     on their own streams; compute-sanitizer memcheck and racecheck on
#     bf16 bcsstk13 and uniform;
#  2. spperm-run --bench (median of 20 after 5 warm-ups): base / new for
#     each matrix at K = 1, 32, 128, 512 and its fixed-K packages, the best
#     cuSPARSE algorithm once per matrix and K;
#  3. an experiment, not committed: .gpu/x holds the five any-K packages
#     of prepare.sh compiled with two vectors a lane in the rounds walk of
#     group warps (SPPERM_HBP_ROUNDS_UNROLL, set in a scratch build of the
#     planner: unroll 2 where the walk is Rounds, warps run one group and
#     vec is 4); checked at K = 32, 64, 128 and timed against .gpu/new.
#   OUT=DIR bash docs/results/hbp-parts-2026-12-05-s61/device5.sh
set -uo pipefail
O=${OUT:?}
. docs/results/hbp-parts-2026-12-05-s61/restore.sh spperm-verify spperm-run
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
V=$B/bin/spperm-verify R=$B/bin/spperm-run
for p in .gpu/new/*.spp; do
  case $p in *.k[0-9]*) ks=() ;; *) ks=(--k 1,5,32,33,36,64,128,130,132,256,512,516) ;; esac
  timeout 120 $V "$p" --device gpu "${ks[@]}" --jobs 1 --threads 8 --calls 8 2>&1
done >"$O/verify.log"
grep -E "^summary|FAIL|concurrent" "$O/verify.log" | cut -c1-200 | sort | uniq -c | sort -rn | head -8
grep -c FAIL "$O/verify.log"
CS=/usr/local/cuda/bin/compute-sanitizer
for p in .gpu/new/bcsstk13.bf16.spp .gpu/new/uniform.spp; do
  echo "== $p"
  timeout 150 "$CS" --tool memcheck --error-exitcode 3 \
    $V "$p" --device gpu --k 1,32,132,512 --jobs 1 2>&1 | tail -2
  echo "memcheck rc=${PIPESTATUS[0]}"
  timeout 150 "$CS" --tool racecheck --kernel-name "regex=^l[0-9]+_" --error-exitcode 3 \
    $V "$p" --device gpu --k 32,256 --jobs 1 --threads 4 --calls 4 2>&1 | tail -2
  echo "racecheck rc=${PIPESTATUS[0]}"
done >"$O/san.log" 2>&1
grep -E "==|rc=" "$O/san.log"
for name in bcsstk13 cora tfm rn50 skewed uniform; do
  cols=$(python3 -c "import json;print(json.load(open('.gpu/base/$name.spp/manifest.json'))['layers'][0]['cols'])")
  for K in 1 32 128 512; do
    python3 -c "import numpy as np; np.save('$B/b.npy', np.random.default_rng(1).uniform(-1, 1, ($cols, $K)).astype('<f4'))"
    bench base $name $K
    bench new $name $K --baseline cusparse
    if [ -d .gpu/base/$name.k$K.spp ]; then bench base $name.k$K $K; bench new $name.k$K $K; fi
  done
done | tee "$O/bench.txt"
for p in .gpu/x/*.spp; do
  timeout 60 $V "$p" --device gpu --k 32,64,128 --jobs 1 2>&1 | grep -E "^summary|FAIL"
done
for name in bcsstk13 cora tfm rn50 skewed; do
  cols=$(python3 -c "import json;print(json.load(open('.gpu/base/$name.spp/manifest.json'))['layers'][0]['cols'])")
  for K in 32 64 128; do
    python3 -c "import numpy as np; np.save('$B/b.npy', np.random.default_rng(1).uniform(-1, 1, ($cols, $K)).astype('<f4'))"
    bench new $name $K
    bench x $name $K
  done
done | tee "$O/bench-x.txt"
rm -f "$O/run.txt"
