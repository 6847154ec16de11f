#!/bin/bash
# prep-d4.sh on bands.txt (banded layers of 25-49 entries a row, which the
# 58 matrices lack), plus SuiteSparse orani678 as the one shared matrix.
cd "$(dirname "$0")/../../.."
for T in old new; do
  if [[ $T == new ]]; then export SPPERM_EXP_D4=1; fi
  COMPILER=$1 PARTS=main SELECTED=0 FORMATS=" " STRATEGIES=" " BIG=0 \
    GEN_LIST=docs/results/lag-2026-11-28-s36/bands.txt STAGE=/tmp/st_$T ARCHIVE=/tmp/$T.tar.xz \
    MAIN_EXTRA="bf16$T|--dtype bf16;bf16k32$T|--dtype bf16 --k 32" \
    bash tools/scripts/gpu_suite_prepare.sh suitesparse/orani678.mtx.gz
done
