#!/usr/bin/env bash
# The packages of call 4 (device3.sh): how many vectors of 4 columns a lane
# takes in the chain walk above K = 128 (vec4.wide; the whole vec4 variant
# of a format without long groups, like the uniform matrix). Made by this
# checkout's build/bin/spperm-compile with SPPERM_HBP_WIDE_UNROLL, an
# override that existed only for this experiment:
#   .gpu/base/uniform.spp  the uniform 94,208 x 3,072 matrix in 512-column
#                          blocks (as ../hbp-2026-12-05-s60), no override
#   .gpu/uU/NAME.spp       U = 1, 2, 4, 8 vectors a lane, any K, for the
#                          five matrices of prepare.sh and uniform
# Only .gpu/base keeps data.bin (restore.sh copies it back).
#   bash docs/results/hbp-parts-2026-12-05-s61/prepare3.sh
set -euo pipefail
M=${M:-/work/shared/data/matrices}
CC=build/bin/spperm-compile
G=.gpu/gen
rm -rf .gpu/u1 .gpu/u2 .gpu/u4 .gpu/u8 .gpu/base/uniform.spp
[ -f $G/uniform.mtx.gz ] || build/bin/spperm-gen uniform --rows 94208 --cols 3072 --density 0.0012 --seed 5 -o $G/uniform.mtx.gz
TFM=$M/dlmc/transformer/magnitude_pruning/0.9/body_decoder_layer_0_encdec_attention_multihead_attention_k_fully_connected.smtx.gz
RN=$M/dlmc/rn50/magnitude_pruning/0.9/bottleneck_1_block_group2_1_1.smtx.gz
C=(--format hbp --strategy identity --values random:3 -q)
$CC $G/uniform.mtx.gz -o .gpu/base/uniform.spp "${C[@]}" --col-block 512
for u in 1 2 4 8; do
  mkdir -p .gpu/u$u
  for m in "bcsstk13 examples/bcsstk13.mtx.gz" "cora $M/gnn/cora.mtx.gz" \
           "tfm $TFM --col-block 128" "rn50 $RN" "skewed $G/skewed.mtx.gz" \
           "uniform $G/uniform.mtx.gz --col-block 512"; do
    set -- $m
    name=$1 mat=$2; shift 2
    SPPERM_HBP_WIDE_UNROLL=$u $CC "$mat" -o .gpu/u$u/$name.spp "${C[@]}" "$@"
    rm .gpu/u$u/$name.spp/data.bin
  done
done
du -sh .gpu/*
