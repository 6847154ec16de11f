#!/bin/bash
# Here: the bf16 packages of issue 30's whole half-precision set (42 shared
# matrices, ../rowloads-2026-11-27-s30/shared42.txt, and 16 generated,
# ../half-2026-11-27-s28/gen16.txt) from two compilers: $1 the old one
# (00dadcc: 16-bit values stored as f32, counted so by the size budget),
# kinds bf16old, /tmp/old.tar.xz; $2 the new one (16-bit values stored in
# their type), kinds bf16new, /tmp/new.tar.xz. Then
# ../direct-2026-11-28-s35/merge.sh keeps the layers whose kernels differ
# (their variants changed).
cd "$(dirname "$0")/../../.."
for T in old new; do
  if [[ $T == old ]]; then C=$1; else C=$2; fi
  COMPILER=$C PARTS=main SELECTED=0 FORMATS=" " STRATEGIES=" " BIG=0 \
    GEN_LIST=docs/results/half-2026-11-27-s28/gen16.txt STAGE=/tmp/st_$T ARCHIVE=/tmp/$T.tar.xz \
    MAIN_EXTRA="bf16$T|--dtype bf16" \
    bash tools/scripts/gpu_suite_prepare.sh $(cat docs/results/rowloads-2026-11-27-s30/shared42.txt)
done
