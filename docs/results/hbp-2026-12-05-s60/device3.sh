#!/usr/bin/env bash
# Session 60's third machine call: where the hbp kernels' time goes, per
# SASS instruction (Nsight Compute's source page: warp stall samples and
# instructions executed), for bcsstk13 at K = 32 (--k 32 packages: the old
# chain of .gpu/pkgs2, the batched rounds of .gpu/new) and at K = 1 (the
# spmv variant of the any-K packages, old and new). Carries .gpu/deps,
# .gpu/new, .gpu/old, .gpu/pkgs2/bcsstk13.hbp.k32.spp.
#   OUT=DIR bash docs/results/hbp-2026-12-05-s60/device3.sh
set -uo pipefail
O=${OUT:?}
. docs/results/hbp-2026-12-05-s60/runtime.sh spperm-run
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for K in 1 32; do
  python3 -c "import numpy as np; np.save('$B/b$K.npy', np.random.default_rng(1).uniform(-1, 1, (2003, $K)).astype('<f4'))"
done
prof() { # NAME PKG K
  "$NCU" --set full --import-source no -k regex:l0_hbp --launch-skip 2 --launch-count 1 -f -o "$O/$1" \
    $B/bin/spperm-run "$2" --device gpu --b $B/b$3.npy --bench --warmup 3 --runs 2 >"$O/$1.log" 2>&1
  "$NCU" --import "$O/$1.ncu-rep" --page source --print-source sass --csv >"$O/$1-sass.csv" 2>&1
  "$NCU" --import "$O/$1.ncu-rep" --page details >"$O/$1-details.txt" 2>&1
  echo "$1: $(wc -l <"$O/$1-sass.csv") sass lines; $(grep -E '^ +Duration' "$O/$1-details.txt" | head -1)"
}
prof old-k32 .gpu/pkgs2/bcsstk13.hbp.k32.spp 32
prof new-k32 .gpu/new/bcsstk13.k32.spp 32
prof old-k1 .gpu/old/bcsstk13.spp 1
prof new-k1 .gpu/new/bcsstk13.spp 1
rm -f "$O"/*.ncu-rep
head -3 "$O/new-k32-sass.csv" | cut -c1-600
