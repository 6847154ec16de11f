#!/bin/bash
# Here: 16-bit packages of the layers with split long rows (longrows.txt,
# Maragal_6, orani678) from two compilers: $1 the old one (0c07190's
# rule; the experiment's build with SPPERM_EXP_SPLIT unset), kinds *old,
# /tmp/old.tar.xz; $2 the new one (widenSplitGroups), kinds *new,
# /tmp/new.tar.xz. Then ../direct-2026-11-28-s35/merge.sh.
cd "$(dirname "$0")/../../.."
unset SPPERM_EXP_SPLIT
for T in old new; do
  if [[ $T == old ]]; then C=$1; else C=$2; fi
  COMPILER=$C PARTS=main SELECTED=0 FORMATS=" " STRATEGIES=" " BIG=0 \
    GEN_LIST=docs/results/round-2026-11-28-s37/longrows.txt STAGE=/tmp/st_$T ARCHIVE=/tmp/$T.tar.xz \
    MAIN_EXTRA="bf16$T|--dtype bf16;f16$T|--dtype f16;bk32$T|--dtype bf16 --k 32;bk64$T|--dtype bf16 --k 64;bk128$T|--dtype bf16 --k 128" \
    bash tools/scripts/gpu_suite_prepare.sh suitesparse/Maragal_6.mtx.gz suitesparse/orani678.mtx.gz
done
