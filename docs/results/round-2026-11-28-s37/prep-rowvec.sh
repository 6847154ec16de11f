#!/bin/bash
# Here: bf16 packages of the 16 generated layers (gen16.txt), Maragal_6,
# Andrews, two DLMC layers and cora from the experiment's compiler ($1:
# this checkout with exp-rowvec.diff): SPPERM_EXP_ROWVEC unset (bf16old,
# /tmp/old.tar.xz), set (the 16-bit row kernels' groups of 8 or 16 lanes
# at 8 columns made twice the lanes at 4; bf16new, /tmp/new.tar.xz). Then
# ../direct-2026-11-28-s35/merge.sh.
cd "$(dirname "$0")/../../.."
for T in old new; do
  if [[ $T == new ]]; then export SPPERM_EXP_ROWVEC=1; else unset SPPERM_EXP_ROWVEC; fi
  COMPILER=$1 PARTS=main SELECTED=0 FORMATS=" " STRATEGIES=" " BIG=0 \
    GEN_LIST=docs/results/round-2026-11-28-s37/gen16.txt STAGE=/tmp/st_$T ARCHIVE=/tmp/$T.tar.xz \
    MAIN_EXTRA="bf16$T|--dtype bf16" \
    bash tools/scripts/gpu_suite_prepare.sh suitesparse/Maragal_6.mtx.gz suitesparse/Andrews.mtx.gz \
      dlmc/transformer/magnitude_pruning/0.98/body_encoder_layer_0_ffn_conv1_fully_connected.smtx.gz \
      dlmc/rn50/magnitude_pruning/0.8/bottleneck_2_block_group4_1_1.smtx.gz gnn/cora.mtx.gz
done
