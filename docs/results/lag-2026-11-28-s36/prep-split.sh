#!/bin/bash
# Here: fp32 and bf16 packages (what spperm-compile selects) of the layers
# with split long rows (longrows.txt, Maragal_6, orani678) from the
# experiment's compiler ($1: this checkout with exp-split.diff), without
# the switch (kinds f32old, bf16old, /tmp/old.tar.xz) and with the split
# kernel's batches a loop of SPPERM_EXP_SPLIT_BATCH=4 (f32new, bf16new,
# /tmp/new.tar.xz); then ../direct-2026-11-28-s35/merge.sh.
cd "$(dirname "$0")/../../.."
for T in old new; do
  if [[ $T == new ]]; then export SPPERM_EXP_SPLIT_BATCH=4; fi
  COMPILER=$1 PARTS=main SELECTED=0 FORMATS=" " STRATEGIES=" " BIG=0 \
    GEN_LIST=docs/results/lag-2026-11-28-s36/longrows.txt STAGE=/tmp/st_$T ARCHIVE=/tmp/$T.tar.xz \
    MAIN_EXTRA="f32$T|--format auto --strategy auto;bf16$T|--dtype bf16" \
    bash tools/scripts/gpu_suite_prepare.sh suitesparse/Maragal_6.mtx.gz suitesparse/orani678.mtx.gz
done
