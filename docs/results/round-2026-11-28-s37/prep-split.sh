#!/bin/bash
# Here: bf16 packages (with and without --k 32) of the layers with split
# long rows (longrows.txt, Maragal_6, orani678) from the experiment's
# compiler ($1: this checkout with exp-split.diff): SPPERM_EXP_SPLIT unset
# (kinds *old), =parts (the 16-bit split kernel's groups per chunk
# doubled, kinds *prt), =vec (its lanes doubled, 4 columns a lane instead
# of 8, kinds *vec); then merge-split.sh.
cd "$(dirname "$0")/../../.."
for T in old prt vec; do
  case $T in old) unset SPPERM_EXP_SPLIT;; prt) export SPPERM_EXP_SPLIT=parts;; vec) export SPPERM_EXP_SPLIT=vec;; esac
  COMPILER=$1 PARTS=main SELECTED=0 FORMATS=" " STRATEGIES=" " BIG=0 \
    GEN_LIST=docs/results/round-2026-11-28-s37/longrows.txt STAGE=/tmp/st_$T ARCHIVE=/tmp/$T.tar.xz \
    MAIN_EXTRA="bf16$T|--dtype bf16;bk32$T|--dtype bf16 --k 32" \
    bash tools/scripts/gpu_suite_prepare.sh suitesparse/Maragal_6.mtx.gz suitesparse/orani678.mtx.gz
done
