#!/usr/bin/env bash
# Session 48: Nsight Compute sections of a range variant against its bucket
# (README.md here). Carry .gpu/deps and .gpu/suite-main.tar.xz.
#   OUT=DIR KS="480 512" PKGS="NAME.csr.identity.spp ..." bash .../ncu.sh
set -uo pipefail
O=${OUT:?}
ROOT=$PWD
ARCHIVE=$ROOT/.gpu/suite-main.tar.xz SETS=none OUT="$O/suite" \
  bash tools/scripts/gpu_suite.sh >"$O/suite.log" 2>&1 || { tail -20 "$O/suite.log"; exit 1; }
S=$ROOT/build-gpu/suite-work/suite
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
export SPRT_TUNING_CACHE=$ROOT/build-gpu/ncu-tuning.cache
for pkg in ${PKGS:?}; do
  cols=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["layers"][0]["cols"])' "$S/$pkg/manifest.json")
  for k in ${KS:?}; do
    python3 -c 'import numpy as np, sys
np.save(sys.argv[3], np.random.default_rng(1).uniform(-1, 1, (int(sys.argv[1]), int(sys.argv[2]))).astype("<f4"))' "$cols" "$k" "$ROOT/build-gpu/b.npy"
    "$ROOT/build-gpu/bin/spperm-run" "$S/$pkg" --device gpu --b "$ROOT/build-gpu/b.npy" --out "$ROOT/build-gpu/c.npy" >/dev/null 2>&1
    name="${pkg%%.spp}.k$k"
    "$NCU" --cache-control none --clock-control none -k "regex:_(r|k)[0-9]+_" \
      --section SpeedOfLight --section Occupancy --section LaunchStats \
      --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
      "$ROOT/build-gpu/bin/spperm-run" "$S/$pkg" --device gpu --b "$ROOT/build-gpu/b.npy" \
      --bench --warmup 1 --runs 1 >"$O/$name.txt" 2>&1
    echo "$name rc=$?"
  done
done
