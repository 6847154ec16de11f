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
tar cJf "$ROOT/.gpu/dist/packages.tar.xz" r"$SCALE"*.spp
ls -la "$ROOT/.gpu/dist/packages.tar.xz"
