#!/usr/bin/env bash
# Packages for session 60's second machine call (device2.sh), made here
# after tools/scripts/gpu_prepare.sh (which fills .gpu/deps):
#   .gpu/new/  hbp packages compiled by build/bin/spperm-compile (the
#              batched rounds walk);
#   .gpu/old/  the same, for the benchmark only, compiled by OLD (an
#              spperm-compile built at c682b61, the one-entry-a-step chain).
# Matrices: bcsstk13 (any K, --k 5 / 32 / 512, --dtype bf16 / f16), the
# DLMC transformer layer (any K, --col-block 128), cora, the ResNet-50
# layer, a skewed 5,000-row matrix (long chains, narrow rounds) and a
# uniform 94,208 x 3,072 one in 512-column blocks (1,104 stored blocks:
# fixed and competitive blocks, warps that run whole blocks with the B
# tile).
#   OLD=/path/to/old/spperm-compile bash docs/results/hbp-2026-12-05-s60/prepare.sh
set -euo pipefail
M=${M:-/work/shared/data/matrices}
NEW=build/bin/spperm-compile
OLD=${OLD:?}
G=.gpu/gen
rm -rf .gpu/new .gpu/old "$G"
mkdir -p .gpu/new .gpu/old "$G"
build/bin/spperm-gen skewed --rows 5000 --seed 7 -o $G/skewed.mtx.gz
build/bin/spperm-gen uniform --rows 94208 --cols 3072 --density 0.0012 --seed 5 -o $G/uniform.mtx.gz
TFM=$M/dlmc/transformer/magnitude_pruning/0.9/body_decoder_layer_0_encdec_attention_multihead_attention_k_fully_connected.smtx.gz
RN=$M/dlmc/rn50/magnitude_pruning/0.9/bottleneck_1_block_group2_1_1.smtx.gz
C=(--format hbp --strategy identity --values random:3 -q)
one() { # NAME MATRIX [OPTIONS...]
  local name=$1 mat=$2; shift 2
  $NEW "$mat" -o .gpu/new/$name.spp "${C[@]}" "$@"
  [[ "$name" == *.k* || "$name" == *16* ]] || $OLD "$mat" -o .gpu/old/$name.spp "${C[@]}" "$@"
}
one bcsstk13 examples/bcsstk13.mtx.gz
one bcsstk13.k5 examples/bcsstk13.mtx.gz --k 5
one bcsstk13.k32 examples/bcsstk13.mtx.gz --k 32
one bcsstk13.k512 examples/bcsstk13.mtx.gz --k 512
one bcsstk13.bf16 examples/bcsstk13.mtx.gz --dtype bf16
one bcsstk13.f16 examples/bcsstk13.mtx.gz --dtype f16
one tfm "$TFM" --col-block 128
one cora $M/gnn/cora.mtx.gz
one rn50 "$RN"
one skewed $G/skewed.mtx.gz
one uniform $G/uniform.mtx.gz --col-block 512
du -sh .gpu
# The old packages' data.bin is the new ones' (same format, same bytes):
# it is left out of the carry and copied back by device2.sh.
for d in .gpu/old/*.spp; do
  cmp -s "$d/data.bin" ".gpu/new/$(basename "$d")/data.bin"
  rm "$d/data.bin"
done
