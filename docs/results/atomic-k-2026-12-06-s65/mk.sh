#!/usr/bin/env bash
# Here: the packages of the atomic-add cost with --k (session 65). COMPILER
# is one spperm-compile (before: KernelBuilder.{cpp,h} of 2d58ed2^, the
# flushing adds; after: this commit's), DIR where the packages go. Each
# layer of subnormal-2026-12-06-s64's bench, compiled for K = 32, 128 and
# 512 on its own (--k), the generated kernels only (--no-library-check).
# KS (default "32 128 512") lists the K to compile for; "any" compiles the
# package for any K.
set -euo pipefail
COMPILER=$1
D=$2
M=$(dirname "$D")/m
rm -rf "$D"
mkdir -p "$D" "$M"
for f in gnn/cora.mtx.gz suitesparse/cond-mat.mtx.gz suitesparse/Maragal_6.mtx.gz; do
  cp ../shared/data/matrices/$f "$M/"
done
cp examples/aot/dlmc/ffn1.smtx.gz "$M/"
c() { # NAME SOURCE FLAGS...
  local name=$1 src=$2
  shift 2
  for k in ${KS:-32 128 512}; do
    if [[ $k == any ]]; then
      "$COMPILER" "$src" -o "$D/$name.any.spp" --data external -q --no-library-check "$@"
    else
      "$COMPILER" "$src" -o "$D/$name.k$k.spp" --k $k --data external -q --no-library-check "$@"
    fi
  done
}
c cora.hbp $M/cora.mtx.gz --format hbp
c ffn1.hbp $M/ffn1.smtx.gz --format hbp
c cond-mat.hbp $M/cond-mat.mtx.gz --format hbp
c cond-mat.hbp.bf16 $M/cond-mat.mtx.gz --format hbp --dtype bf16
c Maragal_6.hbp $M/Maragal_6.mtx.gz --format hbp
c Maragal_6.csr $M/Maragal_6.mtx.gz --format csr --strategy lpt
c ffn1.bell $M/ffn1.smtx.gz --format bell
c cond-mat.bell $M/cond-mat.mtx.gz --format bell
du -sh "$D" "$M"
