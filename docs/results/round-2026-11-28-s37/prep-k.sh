#!/bin/bash
# Here: bf16 packages with --k 40 and --k 96 (K baked in that the rule
# widens but section 2 did not time) of skewed-16k, rmat-s16e16 and
# Maragal_6 from the final compiler built with a switch ($1:
# SPPERM_EXP_NO_WIDEN=1 skips widenSplitGroups, kinds *old) and the final
# one ($2, kinds *new). Then ../direct-2026-11-28-s35/merge.sh.
cd "$(dirname "$0")/../../.."
for T in old new; do
  if [[ $T == old ]]; then C=$1; export SPPERM_EXP_NO_WIDEN=1; else C=$2; unset SPPERM_EXP_NO_WIDEN; fi
  COMPILER=$C PARTS=main SELECTED=0 FORMATS=" " STRATEGIES=" " BIG=0 \
    GEN_LIST=<(grep -E "^(skewed-16k|rmat-s16e16) " docs/results/round-2026-11-28-s37/longrows.txt) \
    STAGE=/tmp/st_$T ARCHIVE=/tmp/$T.tar.xz \
    MAIN_EXTRA="bk40$T|--dtype bf16 --k 40;bk96$T|--dtype bf16 --k 96" \
    bash tools/scripts/gpu_suite_prepare.sh suitesparse/Maragal_6.mtx.gz
done
