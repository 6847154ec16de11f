#!/bin/bash
# Here: 16-bit packages of the layers with split long rows (longrows.txt,
# Maragal_6, orani678) from the experiment's compiler ($1: this checkout
# with the switch of exp.txt): with SPPERM_EXP_ROUND_KERNEL=1 the variants
# end with the round kernel as before (kinds *old, /tmp/old.tar.xz),
# without it the split kernel's last chunk rounds each long row (kinds
# *new, /tmp/new.tar.xz); then ../direct-2026-11-28-s35/merge.sh.
cd "$(dirname "$0")/../../.."
for T in old new; do
  if [[ $T == old ]]; then export SPPERM_EXP_ROUND_KERNEL=1; else unset SPPERM_EXP_ROUND_KERNEL; fi
  COMPILER=$1 PARTS=main SELECTED=0 FORMATS=" " STRATEGIES=" " BIG=0 \
    GEN_LIST=docs/results/round-2026-11-28-s37/longrows.txt STAGE=/tmp/st_$T ARCHIVE=/tmp/$T.tar.xz \
    MAIN_EXTRA="bf16$T|--dtype bf16;bk32$T|--dtype bf16 --k 32;f16$T|--dtype f16" \
    bash tools/scripts/gpu_suite_prepare.sh suitesparse/Maragal_6.mtx.gz suitesparse/orani678.mtx.gz
done
