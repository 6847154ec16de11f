#!/usr/bin/env bash
#===- gpu_profile.sh - Nsight Compute metrics of spperm and cuSPARSE -------===#
#
# Part of the spperm project.
#
#===------------------------------------------------------------------------===#
#
# Runs on the GPU machine, from the repository root, with .gpu/ carried (the
# suite archive of gpu_suite_prepare.sh):
#   OUT=$OUT bash tools/scripts/gpu_profile.sh LIST
# LIST holds lines "PACKAGE K" (PACKAGE relative to the archive's suite/,
# e.g. big/rmat20.auto-k32.spp). Builds and unpacks the suite through
# gpu_suite.sh (SETS=none: no checks), then for each line profiles with
# `ncu` every kernel that
#   spperm-run PACKAGE --device gpu --b B.npy --bench --baseline cusparse
#       --warmup 2 --runs 1
# launches after one unprofiled run has made the runtime's first-call
# choice (kept in a tuning cache of the script's own) — the package's own
# kernels and those of each cuSPARSE algorithm — collecting time, DRAM and
# L2 traffic, L2 and L1 hit rates, occupancy and throughputs. Like the
# benchmark (docs/Testing.md), the kernels run with the caches as the
# previous launch left them and at the GPU's own clocks
# (ncu --cache-control none --clock-control none; ncu's defaults flush the
# caches and lock the base clock), and the table keeps each kernel's fastest
# launch: a warm one. Writes $OUT/profile/NAME.kK.csv (ncu's raw CSV),
# $OUT/profile/NAME.kK.run.txt (spperm-run's table) and $OUT/profile.md, a
# table per line made by profile_table.py.
#
#===------------------------------------------------------------------------===#
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD="$ROOT/build-gpu"
OUTDIR="${OUT:-$BUILD/gpu-profile}"
LIST="${1:?usage: gpu_profile.sh LIST}"
mkdir -p "$OUTDIR/profile"
rm -f "$BUILD/profile-tuning.cache"
: >"$OUTDIR/profile.md"
SETS=none OUT="$OUTDIR/suite" bash "$ROOT/tools/scripts/gpu_suite.sh" >"$OUTDIR/suite.log" 2>&1
S="$BUILD/suite-work/suite"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,lts__t_sector_hit_rate.pct,l1tex__t_bytes.sum,l1tex__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,launch__block_size
while read -r pkg k; do
  [[ -z "$pkg" || "$pkg" == \#* ]] && continue
  name="$(basename "$pkg" .spp).k$k"
  cols=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["layers"][0]["cols"])' "$S/$pkg/manifest.json")
  python3 -c 'import numpy as np, sys
np.save(sys.argv[3], np.random.default_rng(1).uniform(-1, 1, (int(sys.argv[1]), int(sys.argv[2]))).astype("<f4"))' "$cols" "$k" "$BUILD/b.npy" </dev/null
  # One run outside the profiler first: the runtime's first-call choice
  # (docs/RuntimeABI.md, "Tuning cache") is timed at full speed and kept
  # in a cache of this run's own, so the profiled run takes it from there
  # and ncu sees the chosen variant's launches, not every candidate's.
  export SPRT_TUNING_CACHE="$BUILD/profile-tuning.cache"
  "$BUILD/bin/spperm-run" "$S/$pkg" --device gpu --b "$BUILD/b.npy" --out "$BUILD/c.npy" </dev/null >/dev/null 2>&1
  "$NCU" --csv --print-units base --cache-control none --clock-control none --metrics "$METRICS" --log-file "$OUTDIR/profile/$name.csv" \
    "$BUILD/bin/spperm-run" "$S/$pkg" --device gpu --b "$BUILD/b.npy" --bench --baseline cusparse \
    --warmup 2 --runs 1 </dev/null >"$OUTDIR/profile/$name.run.txt" 2>&1 ||
    echo "ncu failed for $pkg K=$k: $(tail -n 3 "$OUTDIR/profile/$name.run.txt")" | tee -a "$OUTDIR/profile.md"
  echo "$pkg $k"
done <"$LIST"
python3 "$ROOT/tools/scripts/profile_table.py" "$OUTDIR/profile" "$S" "$LIST" >>"$OUTDIR/profile.md"
cat "$OUTDIR/profile.md"
