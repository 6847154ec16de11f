#!/usr/bin/env bash
# The packages of the second machine call (device2.sh): .gpu/new again,
# by the planner's rule for the part length (hbpPartRounds; this
# checkout's build/bin/spperm-compile), beside prepare.sh's .gpu/base
# (session 60's kernels), which this leaves as it is.
#   bash docs/results/hbp-parts-2026-12-05-s61/prepare2.sh
set -euo pipefail
M=${M:-/work/shared/data/matrices}
CC=build/bin/spperm-compile
G=.gpu/gen
rm -rf .gpu/new .gpu/p8 .gpu/p32
mkdir -p .gpu/new
TFM=$M/dlmc/transformer/magnitude_pruning/0.9/body_decoder_layer_0_encdec_attention_multihead_attention_k_fully_connected.smtx.gz
RN=$M/dlmc/rn50/magnitude_pruning/0.9/bottleneck_1_block_group2_1_1.smtx.gz
C=(--format hbp --strategy identity --values random:3 -q)
one() { # NAME MATRIX [OPTIONS...]
  local name=$1 mat=$2; shift 2
  $CC "$mat" -o .gpu/new/$name.spp "${C[@]}" "$@"
  rm .gpu/new/$name.spp/data.bin
}
for m in "bcsstk13 examples/bcsstk13.mtx.gz" "cora $M/gnn/cora.mtx.gz" \
         "tfm $TFM --col-block 128" "rn50 $RN" "skewed $G/skewed.mtx.gz"; do
  set -- $m
  one "$@"
  name=$1 mat=$2; shift 2
  for k in 32 128 512; do one $name.k$k "$mat" "$@" --k $k; done
done
one bcsstk13.k5 examples/bcsstk13.mtx.gz --k 5
one bcsstk13.bf16 examples/bcsstk13.mtx.gz --dtype bf16
du -sh .gpu/*
