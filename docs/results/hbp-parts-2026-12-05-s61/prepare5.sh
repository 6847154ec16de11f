#!/usr/bin/env bash
# The packages of the last call (device5.sh): .gpu/new by this checkout's
# build/bin/spperm-compile (the committed planner: parts, two vectors a
# lane in group warps' chain walk, the B tile only for dense blocks) — the
# five matrices of prepare.sh and the uniform one (prepare3.sh), any K and
# --k 32 / 128 / 512, bcsstk13 also --k 5 and --dtype bf16 / f16 — against
# prepare.sh's and prepare3.sh's .gpu/base (session 60's kernels).
#   bash docs/results/hbp-parts-2026-12-05-s61/prepare5.sh
set -euo pipefail
M=${M:-/work/shared/data/matrices}
CC=build/bin/spperm-compile
G=.gpu/gen
rm -rf .gpu/new .gpu/w
mkdir -p .gpu/new
TFM=$M/dlmc/transformer/magnitude_pruning/0.9/body_decoder_layer_0_encdec_attention_multihead_attention_k_fully_connected.smtx.gz
RN=$M/dlmc/rn50/magnitude_pruning/0.9/bottleneck_1_block_group2_1_1.smtx.gz
C=(--format hbp --strategy identity --values random:3 -q)
one() { # NAME MATRIX [OPTIONS...]
  local name=$1 mat=$2; shift 2
  $CC "$mat" -o .gpu/new/$name.spp "${C[@]}" "$@"
  local b=.gpu/base/$name.spp
  [ -f $b/data.bin ] || b=.gpu/base/${name%%.*}.spp
  if cmp -s .gpu/new/$name.spp/data.bin $b/data.bin; then rm .gpu/new/$name.spp/data.bin; fi
}
for m in "bcsstk13 examples/bcsstk13.mtx.gz" "cora $M/gnn/cora.mtx.gz" \
         "tfm $TFM --col-block 128" "rn50 $RN" "skewed $G/skewed.mtx.gz" \
         "uniform $G/uniform.mtx.gz --col-block 512"; do
  set -- $m
  one "$@"
  name=$1 mat=$2; shift 2
  for k in 32 128 512; do one $name.k$k "$mat" "$@" --k $k; done
done
one bcsstk13.k5 examples/bcsstk13.mtx.gz --k 5
one bcsstk13.bf16 examples/bcsstk13.mtx.gz --dtype bf16
one bcsstk13.f16 examples/bcsstk13.mtx.gz --dtype f16
du -sh .gpu/*
