#!/usr/bin/env bash
# The packages of call 5 (device4.sh), by this checkout's
# build/bin/spperm-compile:
#   .gpu/new/NAME.spp, NAME.k512.spp  two vectors a lane in the chain walk
#       of warps that run one group, by the planner's rule, for the five
#       matrices of prepare.sh (against .gpu/base: session 60's kernels)
#   .gpu/w/uniform.VARIANT.spp  the uniform matrix (whole-block warps) with
#       SPPERM_HBP_WIDE_UNROLL = 1, 2, 4, 8 vectors a lane and, with
#       SPPERM_HBP_NO_TILE=1, without the B tile: overrides that existed
#       only for this experiment
# Only .gpu/base keeps data.bin (restore.sh copies it back).
#   bash docs/results/hbp-parts-2026-12-05-s61/prepare4.sh
set -euo pipefail
M=${M:-/work/shared/data/matrices}
CC=build/bin/spperm-compile
G=.gpu/gen
rm -rf .gpu/new .gpu/w .gpu/u1 .gpu/u2 .gpu/u4 .gpu/u8
mkdir -p .gpu/new .gpu/w
TFM=$M/dlmc/transformer/magnitude_pruning/0.9/body_decoder_layer_0_encdec_attention_multihead_attention_k_fully_connected.smtx.gz
RN=$M/dlmc/rn50/magnitude_pruning/0.9/bottleneck_1_block_group2_1_1.smtx.gz
C=(--format hbp --strategy identity --values random:3 -q)
for m in "bcsstk13 examples/bcsstk13.mtx.gz" "cora $M/gnn/cora.mtx.gz" \
         "tfm $TFM --col-block 128" "rn50 $RN" "skewed $G/skewed.mtx.gz"; do
  set -- $m
  name=$1 mat=$2; shift 2
  $CC "$mat" -o .gpu/new/$name.spp "${C[@]}" "$@"
  $CC "$mat" -o .gpu/new/$name.k512.spp "${C[@]}" "$@" --k 512
  rm .gpu/new/$name.spp/data.bin .gpu/new/$name.k512.spp/data.bin
done
for v in "u2 2 0" "u2nt 2 1" "u1nt 1 1" "u4nt 4 1" "u8 8 0"; do
  set -- $v
  SPPERM_HBP_WIDE_UNROLL=$2 SPPERM_HBP_NO_TILE=$3 $CC $G/uniform.mtx.gz \
    -o .gpu/w/uniform.$1.spp "${C[@]}" --col-block 512
  rm .gpu/w/uniform.$1.spp/data.bin
done
du -sh .gpu/*
