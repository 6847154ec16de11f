#!/usr/bin/env bash
# Packages for session 61's machine calls, made here after
# tools/scripts/gpu_prepare.sh (which fills .gpu/deps), by this checkout's
# build/bin/spperm-compile with SPPERM_HBP_PART_ROUNDS (an experiment-only
# override of the planner's part length, in rounds; 0 = no parts, which
# gives session 60's kernels byte for byte; the override is not in the
# committed code, so to redo this, make .gpu/base with an spperm-compile
# built at c4f2168 and the others with the session's scratch builds):
#   .gpu/base/  no parts (session 60's kernels)
#   .gpu/new/   the default: parts of 2 batches of rounds
#   .gpu/p8/, .gpu/p32/   parts of 8 and 32 rounds (any-K packages only)
# Matrices: the long-group ones of ../hbp-2026-12-05-s60 (bcsstk13, the
# DLMC transformer layer with --col-block 128, cora, the ResNet-50 layer,
# the skewed 5,000-row matrix); any K and --k 5 / 32 / 128 / 512, and
# bcsstk13 in bf16. Only .gpu/base keeps data.bin (the same bytes in
# every copy: the parts are a constant table in kernels.ptx), and of the
# fixed-K base packages only those whose data.bin differs from their
# any-K package's; restore.sh copies them back on the machine.
#   bash docs/results/hbp-parts-2026-12-05-s61/prepare.sh
set -euo pipefail
M=${M:-/work/shared/data/matrices}
CC=build/bin/spperm-compile
G=.gpu/gen
rm -rf .gpu/base .gpu/new .gpu/p8 .gpu/p32 .gpu/old .gpu/pkgs2
mkdir -p .gpu/base .gpu/new .gpu/p8 .gpu/p32 "$G"
[ -f $G/skewed.mtx.gz ] || build/bin/spperm-gen skewed --rows 5000 --seed 7 -o $G/skewed.mtx.gz
TFM=$M/dlmc/transformer/magnitude_pruning/0.9/body_decoder_layer_0_encdec_attention_multihead_attention_k_fully_connected.smtx.gz
RN=$M/dlmc/rn50/magnitude_pruning/0.9/bottleneck_1_block_group2_1_1.smtx.gz
C=(--format hbp --strategy identity --values random:3 -q)
one() { # DIR PARTROUNDS NAME MATRIX [OPTIONS...]
  local dir=$1 p=$2 name=$3 mat=$4; shift 4
  if [ "$p" = default ]; then $CC "$mat" -o .gpu/$dir/$name.spp "${C[@]}" "$@"
  else SPPERM_HBP_PART_ROUNDS=$p $CC "$mat" -o .gpu/$dir/$name.spp "${C[@]}" "$@"; fi
  [ "$dir" = base ] || rm .gpu/$dir/$name.spp/data.bin
}
each() { # NAME MATRIX [OPTIONS...]
  one base 0 "$@"; one new default "$@"
}
for m in "bcsstk13 examples/bcsstk13.mtx.gz" "cora $M/gnn/cora.mtx.gz" \
         "tfm $TFM --col-block 128" "rn50 $RN" "skewed $G/skewed.mtx.gz"; do
  set -- $m
  each "$@"
  one p8 8 "$@"
  one p32 32 "$@"
  name=$1 mat=$2; shift 2
  for k in 32 128 512; do each $name.k$k "$mat" "$@" --k $k; done
done
each bcsstk13.k5 examples/bcsstk13.mtx.gz --k 5
each bcsstk13.bf16 examples/bcsstk13.mtx.gz --dtype bf16
# A fixed-K base package's data.bin is its any-K one's: left out too.
for d in .gpu/base/*.*.spp; do
  b=.gpu/base/$(basename "$d" | cut -d. -f1).spp
  if cmp -s "$d/data.bin" "$b/data.bin"; then rm "$d/data.bin"; fi
done
du -sh .gpu/*
