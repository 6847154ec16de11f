#!/usr/bin/env bash
#===- gpu_distributed_prepare.sh - Packages for gpu_distributed.sh ---------===#
#
# Part of the spperm project.
#
#===-----------------------------------------------------------------------===#
#
# On the development machine (the compiler): writes the R-MAT graph of
# gpu_distributed.sh with spperm-gen and compiles it with external data (the
# GPU machine writes the same file and the loader checks its sha256) for 1,
# 2, 4 and 8 ranks (balanced) and 4 ranks cut into equal rows, into
# .gpu/dist/packages.tar.xz:
#
#   SCALE=24 bash tools/scripts/gpu_distributed_prepare.sh
#
# The packages carry kernels for K buckets 32 and 128 (the 1-D runs at
# K = 128, the 1.5-D chunks of 32 columns) and no alternatives, to keep the
# compile on two cores short.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SCALE="${SCALE:-24}"
BIN="${BIN:-$ROOT/build/bin}"
WORK="${WORK:-$ROOT/build/dist}"
mkdir -p "$WORK" "$ROOT/.gpu/dist"
cd "$WORK"
[ -f "r$SCALE.mtx" ] ||
  "$BIN/spperm-gen" rmat --scale "$SCALE" --edge-factor 16 --seed 1 -o "r$SCALE.mtx"
for spec in "s1 --shards 1" "s2 --shards 2" "s4 --shards 4" "s8 --shards 8" \
            "e4 --shards 4 --shard-cut equal-rows"; do
  set -- $spec
  name=$1
  shift
  [ -d "r$SCALE$name.spp" ] ||
    "$BIN/spperm-compile" "r$SCALE.mtx" "$@" --data external --max-variants 1 \
      --k-buckets 32,128 -o "r$SCALE$name.spp"
done
# One archive per package: a call to the GPU machine carries at most 64 MiB,
# so the packages go over in several calls (gpu_distributed.sh keeps what
# earlier calls unpacked).
for p in r"$SCALE"*.spp; do
  [ -f "$ROOT/.gpu/dist/${p%.spp}.tar.xz" ] ||
    tar cf - "$p" | xz -T0 -6 >"$ROOT/.gpu/dist/${p%.spp}.tar.xz"
done
ls -la "$ROOT/.gpu/dist"
