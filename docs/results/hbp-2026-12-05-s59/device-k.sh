#!/usr/bin/env bash
# The second device call of this record: hbp packages compiled for one K
# (--k 5, 32, 512 on bcsstk13, --k 128 on the tfm layer: the grids with the
# K slices baked in, the scalar variant's partial last slice at K = 5) and
# with 16-bit operands (--dtype bf16 / f16: the fp32 accumulator and the
# round kernel), checked by spperm-verify against float64 at K = 1, 32,
# 128, 512 and the package's own K, then called from 8 threads on their
# own streams. Made here by spperm-compile examples/bcsstk13.mtx.gz -o
# .gpu/pkgs2/bcsstk13.hbp.kK.spp --format hbp --strategy identity
# --values random:3 --k K (and --dtype D instead of --k).
set -uo pipefail
B=build-gpu
. tools/scripts/shared_zlib.sh
cmake -G Ninja -S . -B $B -DSPPERM_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release ${ZLIB_FLAGS[@]+"${ZLIB_FLAGS[@]}"} \
  -DCMAKE_PREFIX_PATH="$PWD/.gpu/deps" >"$OUT/configure.log" 2>&1 &&
  cmake --build $B -j 16 --target spperm-verify >"$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for p in .gpu/pkgs2/*.spp; do
  timeout 60 $B/bin/spperm-verify "$p" --device gpu --jobs 1 --threads 8 --calls 24 --bench 32 --runs 10 2>&1
done | tee "$OUT/verify.log" | grep -vE "^ +hbp|^ +round" | cut -c1-220
