#!/bin/bash
# $1 = old|new, $2 = compiler
cd /work/main
T=$1
COMPILER=$2 PARTS=main SELECTED=0 FORMATS=" " STRATEGIES=" " BIG=0 \
  GEN_LIST=docs/results/half-2026-11-27-s28/gen16.txt STAGE=/tmp/st_$T ARCHIVE=/tmp/$T.tar.xz \
  MAIN_EXTRA="f32$T|--format auto --strategy auto;bf16$T|--dtype bf16;f32k32$T|--format auto --strategy auto --k 32;bf16k32$T|--dtype bf16 --k 32;f32k128$T|--format auto --strategy auto --k 128;bf16k128$T|--dtype bf16 --k 128" \
  bash tools/scripts/gpu_suite_prepare.sh $(cat docs/results/rowloads-2026-11-27-s30/shared42.txt)
