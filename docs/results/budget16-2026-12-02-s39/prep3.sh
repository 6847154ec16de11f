#!/bin/bash
# Here: issue 30's whole half-precision set (42 shared matrices and 16
# generated, as prep2.sh) compiled by $1 (this record's compiler) as the
# selected fp32 package (NAME.auto.auto.spp) and the bf16 one
# (NAME.bf16.spp, --dtype bf16), into /tmp/w.tar.xz (.gpu/w.tar.xz), for
# bf16 / fp32 on one GPU in one call (device3.sh;
# ../half-2026-11-26-s24/half.py).
cd "$(dirname "$0")/../../.."
COMPILER=$1 PARTS=main SELECTED=1 FORMATS=" " STRATEGIES=" " BIG=0 \
  GEN_LIST=docs/results/half-2026-11-27-s28/gen16.txt STAGE=/tmp/st_w ARCHIVE=/tmp/w.tar.xz \
  MAIN_EXTRA="bf16|--dtype bf16" \
  bash tools/scripts/gpu_suite_prepare.sh $(cat docs/results/rowloads-2026-11-27-s30/shared42.txt)
