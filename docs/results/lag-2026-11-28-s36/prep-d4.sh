#!/bin/bash
# Here: bf16 packages of the shared 42 and generated 16 matrices (what
# spperm-compile selects) from one build of the experiment's compiler
# ($1, spperm-compile with the SPPERM_EXP_D4 switch of this record's
# README), without the switch (kind bf16old, /tmp/old.tar.xz) and with it
# (bf16new, /tmp/new.tar.xz); then ../direct-2026-11-28-s35/merge.sh.
cd "$(dirname "$0")/../../.."
for T in old new; do
  if [[ $T == new ]]; then export SPPERM_EXP_D4=1; fi
  COMPILER=$1 PARTS=main SELECTED=0 FORMATS=" " STRATEGIES=" " BIG=0 \
    GEN_LIST=docs/results/half-2026-11-27-s28/gen16.txt STAGE=/tmp/st_$T ARCHIVE=/tmp/$T.tar.xz \
    MAIN_EXTRA="bf16$T|--dtype bf16;bf16k32$T|--dtype bf16 --k 32" \
    bash tools/scripts/gpu_suite_prepare.sh $(cat docs/results/rowloads-2026-11-27-s30/shared42.txt)
done
