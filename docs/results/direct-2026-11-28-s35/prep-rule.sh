#!/bin/bash
cd /work/main
COMPILER=/work/main/build/bin/spperm-compile PARTS=main SELECTED=0 FORMATS=" " STRATEGIES=" " BIG=0 \
  GEN_LIST=docs/results/half-2026-11-27-s28/gen16.txt STAGE=/tmp/st_new2 ARCHIVE=/tmp/new.tar.xz \
  MAIN_EXTRA="bf16new|--dtype bf16;bf16k32new|--dtype bf16 --k 32;bf16k128new|--dtype bf16 --k 128;f32new|--format auto --strategy auto" \
  bash tools/scripts/gpu_suite_prepare.sh $(cat docs/results/rowloads-2026-11-27-s30/shared42.txt)
